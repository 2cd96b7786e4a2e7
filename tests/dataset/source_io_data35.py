"""How tests/oracle/record_sources_data35.py and tests/dataset/test_sources_data35.py build a case
of source_cases_data35.py and write what it yields as JSON (NumPy only; the framework's dataset
module is passed in)."""
import os

import numpy as np

import source_cases_data35 as sc


def value(a):
    a = np.asarray(a)
    if a.dtype.kind == "S":
        return {"dtype": "bytes", "shape": list(a.shape), "value": np.vectorize(lambda b: b.hex(), otypes=[str])(a).tolist()
                if a.size else []}
    if a.dtype.kind == "U":
        return {"dtype": "str", "shape": list(a.shape), "value": a.tolist()}
    return {"dtype": a.dtype.str, "shape": list(a.shape),
            "value": a.astype(np.float64).tolist() if a.dtype.kind == "f" else a.tolist()}


def build(ds, root, case):
    name, where, kwargs = sc.CASES[case]
    kwargs = dict(kwargs)
    if "annotation_file" in kwargs:
        kwargs["annotation_file"] = os.path.join(root, kwargs["annotation_file"])
    path = [os.path.join(root, w) for w in where] if isinstance(where, list) else os.path.join(root, where)
    return getattr(ds, name)(path, shuffle=False, **kwargs)


def rows_or_error(make, root, encode=None):
    """What the dataset `make()` builds yields: columns, size and rows (each value through `encode`,
    `value` by default), or the error's class and first message line (the root written <dir>) -
    the record every source recorder here writes, for MindSpore's wheel and for pycompile alike."""
    encode = encode or value
    try:
        d = make()
        rows = [[encode(c) for c in r] for r in d.create_tuple_iterator(output_numpy=True, num_epochs=1)]
        return {"columns": d.get_col_names(), "size": d.get_dataset_size(), "rows": rows}
    except Exception as e:  # noqa: BLE001 - what the framework raised is the record
        text = str(e)
        if "[ERROR] " in text:
            text = text.split("[ERROR] ", 1)[1]
        return {"error": {"type": type(e).__name__, "message": text.splitlines()[0].strip().replace(root, "<dir>")}}


def run(ds, root, case):
    return rows_or_error(lambda: build(ds, root, case), root)
