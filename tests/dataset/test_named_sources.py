"""MindSpore 2.10's named dataset sources (text, audio, image folders) against the wheel's
recordings (tests/dataset/named_sources.json, written by tests/dataset/record_named_sources.py
on the folders of named_source_cases.py): columns, size, every row's dtype / shape / values in
order, and the argument errors (class and message); then each source composed in a pipeline."""
import hashlib
import json
import os

import numpy as np
import pytest

import named_source_cases as nc
import pycompile.dataset as ds

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "named_sources.json")) as _f:
    MS = json.load(_f)


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("named"))
    nc.build_all(path)
    return path


def test_every_case_is_recorded():
    assert sorted(MS) == sorted(nc.CASES)


@pytest.mark.parametrize("case", sorted(nc.CASES))
def test_source_matches_mindspore(case, root):
    got, want = nc.run(ds, root, case), dict(MS[case])       # a copy: its rows are rearranged below
    if "error" in want:
        assert got.get("error") == want["error"], got
        return
    assert "error" not in got, got["error"]
    assert got["columns"] == want["columns"] and got["size"] == want["size"]
    assert len(got["rows"]) == len(want["rows"])
    if case in nc.UNORDERED:
        got["rows"], want["rows"] = (sorted(rows, key=json.dumps) for rows in (got["rows"], want["rows"]))
    if case in nc.WAVEFORM_ZEROS:           # the wheel's zeros: shape and dtype only (values: next test)
        got["rows"], want["rows"] = ([[{k: v for k, v in r[0].items() if k != "value"}] + r[1:] for r in rows]
                                     for rows in (got["rows"], want["rows"]))
    for i, (g, w) in enumerate(zip(got["rows"], want["rows"])):
        assert g == w, f"row {i}"


@pytest.mark.parametrize("case", sorted(nc.WAVEFORM_ZEROS))
def test_tedlium_waveform_is_the_segment(case, root):
    """MindSpore 2.10's Tedlium waveforms are zeros (a buffer sized first, then appended to): the
    documented segment [start, end) of the talk's samples, / 32767 as MindSpore scales samples."""
    got = nc.run(ds, root, case)
    if "error" in MS[case]:
        return
    assert got["rows"] and all(max(map(abs, r[0]["value"][0])) == 0 for r in MS[case]["rows"])
    for r in got["rows"]:
        talk, first = r[3]["value"], r[2]["value"].startswith("first")
        a, b = (0, int(0.001 * nc.TED_RATE)) if first else (int(0.001 * nc.TED_RATE), int(0.0025 * nc.TED_RATE))
        want = (nc.ted_samples(talk)[a:b] / 32767.0).astype(np.float32)
        assert r[0]["value"] == [want.astype(np.float64).tolist()]


def _recorded(case, column):
    """The values of `column` MindSpore recorded for `case`, in its order."""
    k = MS[case]["columns"].index(column)
    return [np.array(r[k]["value"], dtype=None if r[k]["dtype"] == "str" else r[k]["dtype"]) for r in MS[case]["rows"]]


def test_text_source_maps_and_batches(root):
    data = ds.PennTreebankDataset(os.path.join(root, "ptb"), usage="train", shuffle=False)
    data = data.map(operations=lambda s: np.array(len(str(s)), np.int32), input_columns="text", output_columns="n")
    got = [r["n"].asnumpy().tolist() for r in data.batch(2, drop_remainder=False).create_dict_iterator()]
    lengths = [len(str(t)) for t in _recorded("ptb_train", "text")]
    assert got == [lengths[:2], lengths[2:]]


def test_csv_source_tuple_iterator_and_shuffle(root):
    want = sorted(tuple(str(c["value"]) for c in r) for r in MS["ag_news_default"]["rows"])
    data = ds.AGNewsDataset(os.path.join(root, "ag_news"))           # shuffled (Shuffle.GLOBAL) by default
    got = sorted(tuple(str(c) for c in r) for r in data.create_tuple_iterator(output_numpy=True, num_epochs=1))
    assert got == want


def test_audio_source_batches_labels(root):
    data = ds.SpeechCommandsDataset(os.path.join(root, "speech_commands"), usage="test", shuffle=False)
    data = data.project(["utterance_number", "label"]).batch(2)
    rows = list(data.create_dict_iterator(output_numpy=True, num_epochs=1))
    assert len(rows) == 1
    assert rows[0]["utterance_number"].tolist() == [int(v) for v in _recorded("speech_commands_test",
                                                                               "utterance_number")]
    assert [str(v) for v in rows[0]["label"]] == [str(v) for v in _recorded("speech_commands_test", "label")]


def test_audio_waveform_maps(root):
    data = ds.LJSpeechDataset(os.path.join(root, "ljspeech"), shuffle=False)
    data = data.map(operations=lambda w: np.abs(w).max(axis=1), input_columns="waveform")
    got = [r["waveform"] for r in data.create_dict_iterator(output_numpy=True, num_epochs=1)]
    want = [np.abs(w).max(axis=1) for w in _recorded("ljspeech", "waveform")]
    assert len(got) == len(want) and all(np.array_equal(g, w) for g, w in zip(got, want))


def test_image_source_batches(root):
    data = ds.STL10Dataset(os.path.join(root, "stl10"), usage="train", shuffle=False).batch(2)
    (row,) = list(data.create_dict_iterator(output_numpy=True, num_epochs=1))
    assert row["image"].shape == (2, 96, 96, 3) and row["image"].dtype == np.uint8
    k = MS["stl10_train"]["columns"].index("image")
    assert [hashlib.sha256(image.tobytes()).hexdigest() for image in row["image"]] == \
        [r[k]["sha256"] for r in MS["stl10_train"]["rows"]]
    assert row["label"].tolist() == [int(v) for v in _recorded("stl10_train", "label")]


def test_mappable_sources_shard_and_sample(root):
    """Shards of a mappable named source split its recorded rows as DistributedSampler does."""
    names = [str(v) for v in _recorded("food101_all", "label")]
    shards = [[str(r["label"]) for r in ds.Food101Dataset(os.path.join(root, "food101"), shuffle=False, num_shards=2,
                                                          shard_id=k).create_dict_iterator(output_numpy=True)]
              for k in range(2)]
    assert shards == [names[0::2], names[1::2]]
    data = ds.Food101Dataset(os.path.join(root, "food101"), sampler=ds.SequentialSampler(1, 2))
    assert [str(r["label"]) for r in data.create_dict_iterator(output_numpy=True)] == names[1:3]


def test_read_mat_structs_cells_and_sparse(tmp_path):
    """read_mat (named_images.py) on what named_source_cases writes: a 1 x 1 struct of a cell of
    sparse logical matrices, a numeric matrix stored in a smaller type, and a 3-D uint8 array,
    plain and zlib-compressed."""
    import struct
    import zlib
    from pycompile.dataset.named_images import read_mat

    rng = np.random.default_rng(3)
    masks = [rng.random((3, 5)) < 0.4 for _ in range(2)]
    seg = rng.integers(0, 21, (3, 5)).astype(np.float64)
    cube = rng.integers(0, 256, (4, 3, 2), dtype=np.uint8)
    header = b"MATLAB 5.0 MAT-file".ljust(116) + b"\0" * 8 + b"\x00\x01IM"
    for compress in (False, True):
        body = b""
        for name, value in (("GT", {"Masks": [("sparse", m) for m in masks], "Seg": (seg, "u1")}),
                            ("X", (cube, "u1"))):
            element = nc._mat_matrix(value, name)
            packed = zlib.compress(element)
            body += struct.pack("<II", 15, len(packed)) + packed if compress else element
        path = tmp_path / f"m{int(compress)}.mat"
        path.write_bytes(header + body)
        mat = read_mat(str(path))
        gt = mat["GT"][0, 0]
        assert mat["GT"].shape == (1, 1) and gt["Masks"].shape == (2, 1)
        for k, m in enumerate(masks):
            assert gt["Masks"][k, 0].shape == m.shape and np.array_equal(gt["Masks"][k, 0] != 0, m)
        assert gt["Seg"].dtype == np.uint8 and np.array_equal(gt["Seg"], seg.astype(np.uint8))
        assert mat["X"].dtype == np.uint8 and np.array_equal(mat["X"], cube)


def test_text_file_source_clue_batches(root):
    """CLUE rows (columns in sorted order) through a batch, against the wheel's recording."""
    data = ds.CLUEDataset(os.path.join(root, "clue", "cmnli", "*.json"), task="CMNLI", shuffle=False,
                          num_parallel_workers=1).batch(2, drop_remainder=True)
    got = [[str(s) for s in r["sentence1"]] for r in data.create_dict_iterator(output_numpy=True, num_epochs=1)]
    want = [str(v) for v in _recorded("clue_cmnli_one_worker", "sentence1")]
    assert got == [want[0:2], want[2:4]]
