"""DatasetCache in the process (src/pycompile/dataset/cache.py): what the MindSpore wheel's server
cannot show the same way - each row read or computed once, copies served, the size bound, worker
processes, file sources. The arguments, the errors and the rows of cached pipelines against the
wheel: tests/conformance/cases_dataset_cache.py."""
import copy
import os

import numpy as np
import pytest

import pycompile.dataset as ds
import pycompile.dataset.vision as vision
from pycompile.dataset.transforms import TypeCast


@pytest.fixture
def folder(tmp_path):
    from PIL import Image
    for cls in ("a", "b"):
        os.makedirs(tmp_path / cls)
        for i in range(3):
            Image.fromarray(np.full((2, 2, 3), 10 * i + (100 if cls == "b" else 0), np.uint8)).save(
                tmp_path / cls / f"{i}.png")
    return str(tmp_path)


def _epochs(d, n):
    it = d.create_tuple_iterator(output_numpy=True, num_epochs=n)
    return [[tuple(np.array(c) for c in row) for row in it] for _ in range(n)]


def _same(a, b):
    assert len(a) == len(b)
    for ra, rb in zip(a, b):
        assert len(ra) == len(rb)
        for x, y in zip(ra, rb):
            np.testing.assert_array_equal(x, y)


def _counting(calls):
    def f(x):
        calls.append(1)
        return x[:5]
    return f


def test_a_cached_map_computes_each_row_once(folder):
    calls = []
    cache = ds.DatasetCache(session_id=1)
    cached = ds.ImageFolderDataset(folder, shuffle=False).map(_counting(calls), input_columns=["image"], cache=cache)
    got = _epochs(cached, 3)
    assert len(calls) == 6                      # uncached: 18
    plain_calls = []
    plain = _epochs(ds.ImageFolderDataset(folder, shuffle=False).map(_counting(plain_calls), input_columns=["image"]), 3)
    assert len(plain_calls) == 18
    for a, b in zip(got, plain):
        _same(a, b)
    stat = cache.get_stat()
    assert (stat.num_mem_cached, stat.num_disk_cached) == (6, 0)
    assert stat.avg_cache_sz == 5 + 4          # five bytes of the image and the int32 label
    # a later iterator of the same pipeline reads the cache too
    _epochs(cached, 1)
    assert len(calls) == 6


def test_a_cached_source_reads_each_row_once(folder, monkeypatch):
    reads = []
    original = ds.ImageFolderDataset._get

    def counted(self, index):
        reads.append(index)
        return original(self, index)
    monkeypatch.setattr(ds.ImageFolderDataset, "_get", counted)
    ds.config.set_seed(4)
    d = ds.ImageFolderDataset(folder, shuffle=True, decode=True, cache=ds.DatasetCache(session_id=2))
    got = _epochs(d, 3)
    assert sorted(reads) == list(range(6))
    ds.config.set_seed(4)
    want = _epochs(ds.ImageFolderDataset(folder, shuffle=True, decode=True), 3)
    for a, b in zip(got, want):
        _same(a, b)
    assert [int(r[1]) for r in got[0]] != [int(r[1]) for r in got[1]]      # each epoch its own order


def test_a_row_not_yet_kept_is_computed_alone(folder):
    # a random subset each epoch: a later epoch computes only the rows no earlier one kept
    calls = []

    def same(x):
        calls.append(1)
        return x
    ds.config.set_seed(7)
    cache = ds.DatasetCache(session_id=3)
    d = ds.ImageFolderDataset(folder, num_samples=3, shuffle=True).map(same, input_columns=["image"], cache=cache)
    it = d.create_tuple_iterator(output_numpy=True, num_epochs=4)
    seen = set()
    for _ in range(4):      # (an epoch's rows are computed while the one before is read: counted at the end)
        rows = list(it)
        assert len(rows) == 3
        seen |= {r[0].tobytes() for r in rows}          # the six images' files all differ
    assert len(calls) == len(seen) == cache.get_stat().num_mem_cached
    assert 3 < len(seen)


def test_served_rows_are_copies(folder):
    def scribble(x):
        x[...] = 0              # a function that writes into its input
        return x
    d = ds.ImageFolderDataset(folder, shuffle=False, decode=True, cache=ds.DatasetCache(session_id=4)).map(
        scribble, input_columns=["image"])
    _epochs(d, 1)
    fresh = ds.ImageFolderDataset(folder, shuffle=False, decode=True, cache=d.children[0].cache)
    assert d.children[0]._cache_rows[5][0].max() == 120     # what the cache holds is untouched
    assert fresh.cache is d.children[0].cache


def test_the_size_bound_keeps_the_rows_that_fit(folder):
    calls = []

    def big(x):
        calls.append(1)
        return np.zeros(150_000, np.float32)       # 600 KB
    cache = ds.DatasetCache(session_id=5, size=1)   # 1 MB: one row fits
    d = ds.ImageFolderDataset(folder, shuffle=False).map(big, input_columns=["image"], cache=cache)
    _epochs(d, 2)
    assert cache.get_stat().num_mem_cached == 1
    assert len(calls) == 6 + 5


def test_worker_processes_fill_the_cache_in_order(folder):
    cache = ds.DatasetCache(session_id=6)
    d = ds.ImageFolderDataset(folder, shuffle=False).map(vision.Decode(), input_columns=["image"],
                                                         num_parallel_workers=2, python_multiprocessing=True,
                                                         cache=cache)
    got = _epochs(d, 2)
    want = _epochs(ds.ImageFolderDataset(folder, shuffle=False, decode=True), 2)
    for a, b in zip(got, want):
        _same(a, b)
    assert cache.get_stat().num_mem_cached == 6


def test_a_file_source_keeps_its_own_order(tmp_path):
    path = tmp_path / "a.csv"
    path.write_text("".join(f"{i},{10 * i}\n" for i in range(8)))

    def build(cache=None, **kw):
        d = ds.CSVDataset(str(path), column_names=["a", "b"], column_defaults=[0, 0], **kw)
        return d.map(TypeCast(np.float32), input_columns=["a"], cache=cache)
    for kw in (dict(shuffle=False), dict(shuffle=True)):
        ds.config.set_seed(11)
        cache = ds.DatasetCache(session_id=7)
        got = _epochs(build(cache, **kw), 3)
        ds.config.set_seed(11)
        want = _epochs(build(**kw), 3)
        for a, b in zip(got, want):
            _same(a, b)
        assert cache.get_stat().num_mem_cached == 8
    # a shuffle() between a file source and the cached map is kept (the rows as without the cache)
    ds.config.set_seed(12)
    got = _epochs(build(shuffle=False).children[0].shuffle(4).map(TypeCast(np.float32), input_columns=["a"],
                                                                  cache=ds.DatasetCache(session_id=8)), 2)
    ds.config.set_seed(12)
    want = _epochs(build(shuffle=False).children[0].shuffle(4).map(TypeCast(np.float32), input_columns=["a"]), 2)
    for a, b in zip(got, want):
        _same(a, b)


def test_a_project_below_a_cached_map_is_allowed(folder):
    # MindSpore 2.10's wheel fails inside ("row id should be greater than or equal to 0")
    d = ds.ImageFolderDataset(folder, shuffle=False).project(["label", "image"]).map(
        vision.Decode(), input_columns=["image"], cache=ds.DatasetCache(session_id=9))
    want = _epochs(ds.ImageFolderDataset(folder, shuffle=False).project(["label", "image"]).map(
        vision.Decode(), input_columns=["image"]), 2)
    for a, b in zip(_epochs(d, 2), want):
        _same(a, b)


def test_a_copy_is_the_same_cache():
    cache = ds.DatasetCache(session_id=10, size=3, port=50052)
    twin = copy.deepcopy(cache)
    assert twin is not cache and twin._state is cache._state
    assert (twin.session_id, twin.size, twin.port) == (10, 3, 50052)
    with pytest.raises(RuntimeError, match="GetStat called but the cache is not in use yet"):
        twin.get_stat()


def test_deserialize_rebuilds_the_caches(folder):
    c = ds.DatasetCache(session_id=11, size=4, num_connections=3)
    d = ds.ImageFolderDataset(folder, shuffle=False, cache=c).map(vision.Decode(), input_columns=["image"])
    again = ds.deserialize(input_dict=ds.serialize(d))
    kept = again.children[0].cache
    assert again.cache is None and kept is not c
    assert (kept.session_id, kept.size, kept.num_connections, kept.port) == (11, 4, 3, 50052)
    for a, b in zip(_epochs(again, 2), _epochs(d, 2)):
        _same(a, b)
    assert kept.get_stat().num_mem_cached == 6
