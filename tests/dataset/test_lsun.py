"""LSUNDataset where the conformance table (tests/conformance/cases_lsun.py, recorded from the
wheel) cannot go: under a DatasetCache, which MindSpore keeps in its cache server (a program the
recording would have to start). The rows must be those the table shows for the same layout:
folders in sorted order numbered 0, 1, ..., files in sorted order."""
from __future__ import annotations

import os

import numpy as np
import pytest

import pycompile.dataset as ds

pytest.importorskip("PIL")


@pytest.fixture
def lsun_root(tmp_path):
    from PIL import Image
    for folder, values in (("tower_train", (3, 1)), ("bedroom_val", (2,)), ("bedroom_train", (5,))):
        os.makedirs(tmp_path / folder)
        for i, v in enumerate(values):
            Image.fromarray(np.full((2, 2, 3), v, np.uint8)).save(tmp_path / folder / f"{i}.png")
    return str(tmp_path)


def _rows(d, epochs=2):
    it = d.create_tuple_iterator(output_numpy=True, num_epochs=epochs)
    return [[(int(label), image.tolist()) for image, label in it] for _ in range(epochs)]


def _flat(value):
    return np.full((2, 2, 3), value, np.uint8).tolist()


def test_rows_under_a_cache_are_the_uncached_rows(lsun_root):
    # bedroom_train (label 0), bedroom_val (1), tower_train (2: files 0.png = 3, 1.png = 1)
    want = [(0, _flat(5)), (1, _flat(2)), (2, _flat(3)), (2, _flat(1))]
    cache = ds.DatasetCache(session_id=1, size=0)
    cached = ds.LSUNDataset(lsun_root, decode=True, shuffle=False, cache=cache)
    assert _rows(cached) == [want, want]
    assert cached.get_dataset_size() == 4


def test_a_cached_shard_reads_its_rows_in_every_epoch(lsun_root):
    want = [(0, _flat(5)), (2, _flat(3))]           # every second row from the first
    cache = ds.DatasetCache(session_id=1, size=0)
    d = ds.LSUNDataset(lsun_root, usage="all", decode=True, shuffle=False, num_shards=2, shard_id=0, cache=cache)
    assert _rows(d) == [want, want]


def test_cache_argument_is_checked(lsun_root):
    with pytest.raises(TypeError):
        ds.LSUNDataset(lsun_root, cache=5)
