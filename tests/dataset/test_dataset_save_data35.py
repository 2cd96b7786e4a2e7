"""Dataset.save against MindSpore 2.10 (tests/oracle/data/dataset_save.json, written by
tests/oracle/record_dataset_save.py from save_cases.py): one file is byte for byte the file the
wheel writes; with num_files > 1 MindSpore deals the rows to the files at random, so there the
files' count and the rows read back (as a multiset) are compared. MindDataset reads the files
back with MindSpore's dtypes (the widened field types)."""
import hashlib
import json
import os

import numpy as np
import pytest

import save_cases as sc
import pycompile.dataset as ds

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "oracle", "data",
                     "dataset_save.json")
with open(_DATA) as _f:
    MS = json.load(_f)


def _value(a):
    a = np.asarray(a)
    return {"dtype": a.dtype.str if a.dtype.kind != "U" else "str", "shape": list(a.shape),
            "value": a.astype(np.float64).tolist() if a.dtype.kind == "f" else a.tolist()}


@pytest.mark.parametrize("case", sorted(sc.CASES))
def test_save_writes_mindspores_files(case, tmp_path, monkeypatch):
    want = MS[case]
    monkeypatch.chdir(tmp_path)         # the header holds the path as given: relative, as recorded
    base = "out.mindrecord"
    sc.build(ds, case).save(base, num_files=sc.CASES[case][2])
    files = sc.files(case, base)
    assert all(os.path.exists(f) and os.path.exists(f + ".db") for f in files)
    if len(files) == 1:
        with open(files[0], "rb") as fh:
            data = fh.read()
        assert {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)} == want["files"][0]
    back = ds.MindDataset(files[0], shuffle=False)
    assert back.get_col_names() == want["columns"]
    rows = [{k: _value(v) for k, v in r.items()} for r in back.create_dict_iterator(output_numpy=True)]
    if len(files) == 1:
        assert rows == want["rows"]
    else:
        key = lambda r: json.dumps(r, sort_keys=True)  # noqa: E731
        assert sorted(rows, key=key) == sorted(want["rows"], key=key)


def test_save_argument_errors(tmp_path):
    d = ds.NumpySlicesDataset({"x": np.arange(3)}, shuffle=False)
    with pytest.raises(ValueError, match="num_files"):
        d.save(str(tmp_path / "a.mindrecord"), num_files=0)
    with pytest.raises(ValueError, match="file_type"):
        d.save(str(tmp_path / "a.mindrecord"), file_type="tfrecord")
