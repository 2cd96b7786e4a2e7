"""per_batch_map cases defined once (NumPy only) for tests/oracle/record_batch_map_feed35.py (the
MindSpore venv) and tests/dataset/test_batch_map_feed35.py: each case builds a pipeline from the
`ds` module it is given; the recorder stores the column names, dtypes and rows per epoch (or the
error) MindSpore 2.10 gives."""
import numpy as np

EPOCHS = 2


def source(ds, n=7):
    return ds.NumpySlicesDataset({"x": np.arange(n, dtype=np.int64), "y": np.arange(n, dtype=np.float32) * 2},
                                 shuffle=False)


def times_ten(x, y, info):
    return [a * 10 for a in x], y


def with_info(x, info):
    return x, [np.array([info.get_batch_num(), info.get_epoch_num()], np.int64) for _ in x]


def total(x, y, info):
    return ([a + b for a, b in zip(x, y)],)


def doubled(x, info):
    return (x + x,)


def as_array(x, y, info):
    return np.stack(x) + 1, np.stack(y) * 3


def just_list(x, info):
    return [a - 1 for a in x]


def fails(x, info):
    if info.get_batch_num() == 1:
        raise ValueError("per_batch_map fails on batch 1")
    return (x,)


def all_columns(*cols):
    return tuple(list(c) for c in cols[:-1])


def wrong_count(x, y, info):
    return (x,)


CASES = {
    "two_columns": lambda ds: source(ds).batch(3, per_batch_map=times_ten, input_columns=["x", "y"]),
    "info": lambda ds: source(ds).batch(3, per_batch_map=with_info, input_columns=["x"], output_columns=["x", "info"]),
    "one_column_of_two": lambda ds: source(ds).batch(
        3, per_batch_map=lambda x, info: ([a * 2 for a in x],), input_columns=["x"]),
    "renamed": lambda ds: source(ds).batch(3, per_batch_map=total, input_columns=["x", "y"], output_columns=["s"]),
    "more_rows": lambda ds: source(ds).batch(2, drop_remainder=True, per_batch_map=doubled, input_columns=["x"]),
    "arrays_back": lambda ds: source(ds).batch(3, per_batch_map=as_array, input_columns=["x", "y"]),
    "a_list_not_a_tuple": lambda ds: source(ds).batch(3, per_batch_map=just_list, input_columns=["x"]),
    "no_input_columns": lambda ds: source(ds).batch(3, per_batch_map=all_columns),
    "raises": lambda ds: source(ds).batch(3, per_batch_map=fails, input_columns=["x"]),
    "wrong_count": lambda ds: source(ds).batch(3, per_batch_map=wrong_count, input_columns=["x", "y"]),
    "workers": lambda ds: source(ds, 11).batch(3, per_batch_map=times_ten, input_columns=["x", "y"],
                                               num_parallel_workers=2, python_multiprocessing=True),
    "workers_info": lambda ds: source(ds, 11).batch(
        2, per_batch_map=with_info, input_columns=["x"], output_columns=["x", "info"], num_parallel_workers=2,
        python_multiprocessing=True),
    "output_without_input": lambda ds: source(ds).batch(3, per_batch_map=times_ten, output_columns=["x", "y"]),
}


def run(ds, name):
    """{"columns", "dtypes", "epochs"} or {"error": {"type", "message"}} (the message's first line)."""
    try:
        d = CASES[name](ds)
        cols = d.get_col_names()
        it = d.create_tuple_iterator(output_numpy=True, num_epochs=EPOCHS)
        epochs, dtypes = [], None
        for _ in range(EPOCHS):
            rows = []
            for r in it:
                dtypes = [str(v.dtype) for v in r]
                rows.append([v.tolist() for v in r])
            epochs.append(rows)
        return {"columns": cols, "dtypes": dtypes, "epochs": epochs}
    except Exception as e:  # noqa: BLE001 - recording the error
        return {"error": {"type": type(e).__name__, "message": str(e)}}
