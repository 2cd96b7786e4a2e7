"""VOCDataset, CocoDataset, CelebADataset, TFRecordDataset, KMnistDataset, EMnistDataset and QMnistDataset against
MindSpore 2.10 (tests/oracle/data/sources_data35.json, written by
tests/oracle/record_sources_data35.py on the folders of source_cases_data35.py): columns, size,
every row's dtype / shape / values, and the errors."""
import json
import os

import pytest

import source_cases_data35 as sc
import source_io_data35 as sio
import pycompile.dataset as ds

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "oracle", "data",
                     "sources_data35.json")
with open(_DATA) as _f:
    MS = json.load(_f)


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("sources"))
    sc.build_all(path)
    return path


@pytest.mark.parametrize("case", sorted(sc.CASES))
def test_source_matches_mindspore(case, root):
    got, want = sio.run(ds, root, case), MS[case]
    if "error" in want:
        assert "error" in got, got
        assert got["error"] == want["error"]
        return
    assert "error" not in got, got["error"]
    assert got["columns"] == want["columns"] and got["size"] == want["size"]
    assert len(got["rows"]) == len(want["rows"])
    for i, (g, w) in enumerate(zip(got["rows"], want["rows"])):
        assert g == w, f"row {i}"


def test_tfrecord_corrupt_file_is_an_error(tmp_path):
    path = str(tmp_path / "a.tfrecord")
    sc.write_tfrecord(path, [sc.example({"x": ("int64", [1])})])
    data = bytearray(open(path, "rb").read())
    data[-6] ^= 0xFF
    open(path, "wb").write(bytes(data))
    with pytest.raises(RuntimeError, match="corrupt"):
        ds.TFRecordDataset(path)
