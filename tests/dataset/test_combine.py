"""concat (+), zip, filter and apply against MindSpore 2.10's results and errors (recorded from the
wheel 2.10.0 for these pipelines; the values are small enough to state here)."""
import numpy as np
import pytest

import pycompile.dataset as ds


def rows(d):
    return [[a.tolist() for a in r] for r in d.create_tuple_iterator(output_numpy=True)]


def A():
    return ds.NumpySlicesDataset({"x": np.arange(3, dtype=np.int32)}, shuffle=False)


def B():
    return ds.NumpySlicesDataset({"x": np.arange(10, 12, dtype=np.int32)}, shuffle=False)


def C():
    return ds.NumpySlicesDataset({"y": np.arange(5, dtype=np.float32)}, shuffle=False)


def test_concat():
    d = A() + B()
    assert rows(d) == [[0], [1], [2], [10], [11]] and d.get_dataset_size() == 5 and d.get_col_names() == ["x"]
    assert rows(A().concat([B(), A()])) == [[0], [1], [2], [10], [11], [0], [1], [2]]
    assert rows(A().batch(2) + B().batch(2)) == [[[0, 1]], [[2]], [[10, 11]]]
    d = (A() + B()).repeat(2)
    assert rows(d) == [[0], [1], [2], [10], [11]] * 2 and d.get_dataset_size() == 10


def test_zip():
    d = ds.zip((A(), C()))
    assert rows(d) == [[0, 0.0], [1, 1.0], [2, 2.0]] and d.get_dataset_size() == 3 and d.get_col_names() == ["x", "y"]
    assert rows(A().zip(C())) == [[0, 0.0], [1, 1.0], [2, 2.0]]
    assert rows(ds.zip((A(), C())).batch(2)) == [[[0, 1], [0.0, 1.0]], [[2], [2.0]]]


def test_filter_and_apply():
    f = A().filter(lambda x: x % 2 == 0)
    assert rows(f) == [[0], [2]] and f.get_dataset_size() == 2
    assert rows(ds.zip((A(), C())).filter(lambda y: y > 0.5, input_columns=["y"])) == [[1, 1.0], [2, 2.0]]
    assert rows(A().apply(lambda d: d.map(lambda x: x * 2))) == [[0], [2], [4]]


@pytest.mark.parametrize("make,cls,message", [
    (lambda: rows(ds.zip((A(), B()))), RuntimeError,
     "[ERROR] Invalid data, duplicate column x already exists when zipping datasets."),
    (lambda: rows(A() + C()), RuntimeError,
     "[ERROR] Invalid columns, 'column name' or 'column order' of concat datasets should be the same."),
    (lambda: A().apply(lambda d: 3), TypeError, "apply_func must return a dataset."),
    (lambda: rows(A().filter(lambda x: np.array([1, 2]))), RuntimeError,
     "[ERROR] Execute user Python code failed, check 'Python Call Stack' above."),
    (lambda: ds.zip([A(), C()]), TypeError, "is not of type [<class 'tuple'>]"),
    (lambda: ds.zip((A(),)), ValueError, "Can't zip empty or just one dataset!"),
    (lambda: A().concat(3), TypeError, "Argument datasets with value 3 is not of type [<class 'list'>, "
     "<class 'mindspore.dataset.engine.datasets.Dataset'>], but got <class 'int'>."),
])
def test_errors_are_mindsporess(make, cls, message):
    with pytest.raises(cls) as info:
        make()
    assert message in str(info.value)


def test_a_shuffled_concat_is_reproducible_and_a_permutation():
    def run():
        ds.config.set_seed(3)
        d = (ds.NumpySlicesDataset({"x": np.arange(4)}, shuffle=True) + B().map(lambda x: x.astype(np.int64)))
        return [r[0] for r in rows(d)]
    first = run()
    assert first == run() and sorted(first) == [0, 1, 2, 3, 10, 11] and first[4:] == [10, 11]
