"""MindRecord both ways with MindSpore 2.10 (tests/oracle/data/mindrecord.json, written by
tests/oracle/record_mindrecord.py): pycompile's MindDataset reads the file MindSpore's FileWriter
wrote and gets the rows MindSpore's MindDataset got; pycompile's FileWriter, given the same
schema, index and rows, writes the same bytes (so MindSpore reads it as its own) and the same
SQLite index rows."""
import json
import os
import sqlite3

import numpy as np
import pytest

import mindrecord_cases as mc
import pycompile.dataset as ds
from pycompile.mindrecord import FileWriter

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "oracle", "data",
                     "mindrecord.json")
with open(_DATA) as _f:
    MS = json.load(_f)


def value(a):
    a = np.asarray(a)
    if a.dtype.kind == "S" or a.dtype == object:
        return {"dtype": "bytes", "value": bytes(a.item()).hex()}
    v = a.astype(np.float64).tolist() if a.dtype.kind == "f" else a.tolist()
    return {"dtype": a.dtype.str if a.dtype.kind != "U" else "str", "shape": list(a.shape), "value": v}


@pytest.fixture
def ms_file(tmp_path, monkeypatch):
    """MindSpore's file, rebuilt from its sparse image, as `test.mindrecord` in the working folder
    (its header names it so)."""
    monkeypatch.chdir(tmp_path)
    with open("test.mindrecord", "wb") as f:         # sparse: only the non-zero runs are written
        for offset, hexdata in MS["file"]["runs"]:
            f.seek(offset)
            f.write(bytes.fromhex(hexdata))
        f.truncate(MS["file"]["size"])
    return "test.mindrecord"


@pytest.mark.parametrize("name", sorted(mc.READS))
def test_reads_mindspores_file_as_mindspore_does(name, ms_file):
    kwargs = dict(mc.READS[name])
    if "sampler" in kwargs:
        cls, args = kwargs["sampler"]
        kwargs["sampler"] = getattr(ds, cls)(**args)
    else:
        kwargs["shuffle"] = False
    d = ds.MindDataset(ms_file, **kwargs)
    want = MS["reads"][name]
    assert d.get_col_names() == want["columns"] and d.get_dataset_size() == want["size"]
    got = [{k: value(v) for k, v in r.items()} for r in d.create_dict_iterator(output_numpy=True, num_epochs=1)]
    assert got == want["rows"]


def test_bytes_column_is_a_one_element_bytes_array(ms_file):
    row = next(iter(ds.MindDataset(ms_file, shuffle=False).create_dict_iterator(output_numpy=True)))
    assert row["data"].dtype.kind == "S" and row["data"].shape == (1,)


def _write(path):
    w = FileWriter(path, shard_num=1, overwrite=True)
    w.add_schema(mc.SCHEMA, mc.DESC)
    w.add_index(mc.INDEX_FIELDS)
    w.write_raw_data(mc.rows())
    w.commit()


def test_writes_the_bytes_mindspore_writes(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _write("test.mindrecord")
    with open("test.mindrecord", "rb") as f:
        mine = f.read()
    assert mine == mc.unsparse(MS["file"])
    db = sqlite3.connect("test.mindrecord.db")
    try:
        assert [r[0] for r in db.execute("SELECT sql FROM sqlite_master WHERE type = 'table' ORDER BY name")] \
            == MS["db"]["create"]
        assert [list(r) for r in db.execute("SELECT * FROM INDEXES ORDER BY ROW_ID")] == MS["db"]["indexes"]
        assert [list(r) for r in db.execute("SELECT * FROM SHARD_NAME")] == MS["db"]["shard_name"]
    finally:
        db.close()


def test_round_trip_and_the_dataset_tutorial_pattern(tmp_path, monkeypatch):
    """The dataset tutorial: write a MindRecord from rows, read it back with ds.MindDataset, batch."""
    monkeypatch.chdir(tmp_path)
    _write("out.mindrecord")
    d = ds.MindDataset("out.mindrecord", columns_list=["label", "mat"], shuffle=False).batch(3)
    labels, mats = next(iter(d.create_tuple_iterator(output_numpy=True)))
    assert labels.tolist() == [r["label"] for r in mc.rows()[:3]]
    assert np.array_equal(mats, np.stack([r["mat"] for r in mc.rows()[:3]]))


def test_writer_and_reader_errors(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _write("x.mindrecord")
    with pytest.raises(RuntimeError, match="already exist"):
        FileWriter("x.mindrecord")
    w = FileWriter("y.mindrecord")
    with pytest.raises(ValueError, match="type"):
        w.add_schema({"a": {"type": "uint8"}})
    with pytest.raises(ValueError, match="does not exist"):
        ds.MindDataset("nope.mindrecord")
    with open("bad.mindrecord", "wb") as f:
        f.write(b"\x05\0\0\0\0\0\0\0hello")
    with pytest.raises(RuntimeError, match="bad.mindrecord"):
        ds.MindDataset("bad.mindrecord")


_DEFAULTS = json.load(open(os.path.join(os.path.dirname(_DATA), "mindrecord_defaults.json")))


@pytest.mark.parametrize("name", sorted(_DEFAULTS["cases"]))
def test_writes_mindspores_bytes_without_add_index_and_without_blob_fields(name, tmp_path, monkeypatch):
    """FileWriter without add_index indexes every scalar field, by name, and a schema with no bytes
    or array field still gets its (empty) BLOB_DATA page, as MindSpore 2.10's writes
    (tests/oracle/data/mindrecord_defaults.json, record_mindrecord_defaults.py): MindSpore's reader
    found 0 rows in pycompile's files of such a schema. Both files owner-read/write only."""
    case = _DEFAULTS["cases"][name]
    monkeypatch.chdir(tmp_path)
    w = FileWriter(f"{name}.mindrecord", overwrite=True)
    w.add_schema(case["schema"], "d")
    w.write_raw_data([{k: (np.array(v, np.int32) if k == "arr" else v) for k, v in r.items()} for r in case["rows"]])
    w.commit()
    with open(f"{name}.mindrecord", "rb") as f:
        assert f.read() == mc.unsparse(case["file"])
    db = sqlite3.connect(f"{name}.mindrecord.db")
    try:
        assert [r[0] for r in db.execute("SELECT sql FROM sqlite_master WHERE type = 'table' ORDER BY name")] \
            == case["create"]
        assert [list(r) for r in db.execute("SELECT * FROM INDEXES ORDER BY ROW_ID")] == case["indexes"]
    finally:
        db.close()
    assert [os.stat(p).st_mode & 0o777 for p in (f"{name}.mindrecord", f"{name}.mindrecord.db")] == case["modes"]
    got = [{k: np.asarray(v).tolist() for k, v in r.items()}
           for r in ds.MindDataset(f"{name}.mindrecord", shuffle=False).create_dict_iterator(output_numpy=True)]
    assert got == case["read"]
