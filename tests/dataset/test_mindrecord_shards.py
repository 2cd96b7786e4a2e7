"""Sharded MindRecord writing and padded samples with MindSpore 2.10
(tests/oracle/data/mindrecord_shards.json, written by tests/oracle/record_mindrecord_shards.py):
pycompile's FileWriter(shard_num=3) writes the same bytes and SQLite index rows as MindSpore's
for the same rows (so MindSpore reads them as its own); MindDataset reads MindSpore's shards and
pads shards with padded_sample / num_padded to MindSpore's rows; MindSpore's errors."""
import json
import os
import sqlite3

import pytest

import mindrecord_cases as mc
import pycompile.dataset as ds
from pycompile import mindrecord
from pycompile.mindrecord import FileWriter
from test_mindrecord import value

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "oracle", "data",
                     "mindrecord_shards.json")
with open(_DATA) as _f:
    MS = json.load(_f)


def _restore(files):
    for f in files:
        with open(f["name"], "wb") as out:
            for offset, hexdata in f["file"]["runs"]:
                out.seek(offset)
                out.write(bytes.fromhex(hexdata))
            out.truncate(f["file"]["size"])


@pytest.fixture
def ms_shards(tmp_path, monkeypatch):
    """MindSpore's uneven shard files (7 rows in 3), in the working folder as their headers name them."""
    monkeypatch.chdir(tmp_path)
    _restore(MS["writes"]["uneven"])
    return "sh_uneven.mindrecord0"


@pytest.mark.parametrize("name", sorted(mc.SHARD_WRITES))
def test_sharded_files_are_mindspores_bytes(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    writer = FileWriter(f"sh_{name}.mindrecord", shard_num=mc.SHARD_NUM)
    writer.add_schema(mc.SCHEMA, mc.DESC)
    writer.add_index(mc.INDEX_FIELDS)
    writer.write_raw_data(mc.rows(mc.SHARD_WRITES[name]))
    writer.commit()
    for want in MS["writes"][name]:
        with open(want["name"], "rb") as f:
            got = f.read()
        assert got == mc.unsparse(want["file"]), want["name"]
        db = sqlite3.connect(want["name"] + ".db")
        try:
            assert [list(r) for r in db.execute("SELECT * FROM INDEXES ORDER BY ROW_ID")] == want["indexes"]
            assert [list(r) for r in db.execute("SELECT * FROM SHARD_NAME")] == want["shard_name"]
        finally:
            db.close()


def test_shard_names_are_zero_padded_as_mindspores(tmp_path):
    writer = FileWriter(str(tmp_path / "w.mindrecord"), shard_num=11)
    assert [os.path.basename(p) for p in writer._paths][:2] == ["w.mindrecord00", "w.mindrecord01"]


@pytest.mark.parametrize("name", ["first_file", "middle_file"])
def test_any_shard_file_reads_every_shard(name, ms_shards):
    path = "sh_uneven.mindrecord" + ("0" if name == "first_file" else "1")
    d = ds.MindDataset(path, shuffle=False)
    want = MS["reads"][name]
    assert d.get_col_names() == want["columns"] and d.get_dataset_size() == want["size"]
    assert [{k: value(v) for k, v in r.items()} for r in d.create_dict_iterator(output_numpy=True, num_epochs=1)] \
        == want["rows"]


@pytest.mark.parametrize("name", sorted(mc.PADDED_READS))
def test_padded_shards_are_mindspores(name, ms_shards):
    kwargs = dict(mc.PADDED_READS[name], columns_list=mc.PAD_COLUMNS, padded_sample=mc.padded_sample())
    if "sampler" in kwargs:
        cls, args = kwargs["sampler"]
        kwargs["sampler"] = getattr(ds, cls)(**args)
    else:
        kwargs["shuffle"] = False
    d = ds.MindDataset(ms_shards, **kwargs)
    want = MS["padded_reads"][name]
    assert d.get_col_names() == want["columns"] and d.get_dataset_size() == want["size"]
    assert [{k: value(v) for k, v in r.items()} for r in d.create_dict_iterator(output_numpy=True, num_epochs=1)] \
        == want["rows"]


@pytest.mark.parametrize("name", sorted(mc.PADDED_ERRORS))
def test_padding_errors_are_mindspores(name, ms_shards):
    kwargs = dict(mc.PADDED_ERRORS[name])
    if kwargs.get("padded_sample") is True:
        kwargs["padded_sample"] = mc.padded_sample()
    if kwargs.get("columns_list") is True:
        kwargs["columns_list"] = mc.PAD_COLUMNS
    want = MS["padded_errors"][name]
    with pytest.raises(Exception) as info:     # MindSpore raises some of these at the first row
        list(ds.MindDataset(ms_shards, shuffle=False, **kwargs).create_tuple_iterator(num_epochs=1))
    assert (type(info.value).__name__, str(info.value)) == (want["type"], want["message"])


@pytest.mark.parametrize("name", sorted(mc.BAD_SHARD_NUMS))
def test_bad_shard_num_is_mindspores_error(name, tmp_path):
    want = MS["shard_num_errors"][name]
    with pytest.raises(mindrecord.ParamValueError) as info:
        FileWriter(str(tmp_path / "bad.mindrecord"), shard_num=mc.BAD_SHARD_NUMS[name])
    assert (type(info.value).__name__, str(info.value)) == (want["type"], want["message"])


@pytest.fixture
def pk_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    writer = FileWriter("pk.mindrecord")
    writer.add_schema(mc.PK_SCHEMA, "pk")
    writer.add_index(["label", "cls"])
    writer.write_raw_data(mc.pk_rows())
    writer.commit()
    return "pk.mindrecord"


@pytest.mark.parametrize("name", sorted(mc.PK_READS))
def test_pk_sampler_on_a_mindrecord_file(name, pk_file):
    """MindSpore's sizes; each class num_val times from its own rows. (MindSpore 2.10 yields the
    file's first row for every PKSampler row of a MindDataset - recorded, not reproduced.)"""
    kwargs = mc.PK_READS[name]
    d = ds.MindDataset(pk_file, sampler=ds.PKSampler(**kwargs))
    want = MS["pk_reads"][name]
    assert d.get_dataset_size() == want["size"]
    assert set(want["ids"]) == {0}                      # the wheel's rows, as recorded
    rows = [(int(r["id"]), int(r["label"]), str(r["cls"])) for r in d.create_dict_iterator(output_numpy=True,
                                                                                           num_epochs=1)]
    assert len(rows) == want["size"]
    column = 2 if kwargs.get("class_column") == "cls" else 1
    for i, label, cls in rows:
        assert mc.pk_rows()[i]["label"] == label and mc.pk_rows()[i]["cls"] == cls
    if "num_samples" not in kwargs:
        counts = {}
        for row in rows:
            counts[row[column]] = counts.get(row[column], 0) + 1
        assert set(counts.values()) == {kwargs["num_val"]}


@pytest.mark.parametrize("name", ["unknown_column", "column_not_str"])
def test_pk_sampler_errors_are_mindspores(name, pk_file):
    want = MS["pk_errors"][name]
    with pytest.raises(Exception) as info:
        if name == "column_not_str":
            ds.PKSampler(2, class_column=3)
        else:
            list(ds.MindDataset(pk_file, sampler=ds.PKSampler(2, class_column="nope")).create_tuple_iterator(
                num_epochs=1))
    assert (type(info.value).__name__, str(info.value)) == (want["type"], want["message"])
