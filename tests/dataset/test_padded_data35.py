"""PaddedDataset and concat.use_sampler against MindSpore 2.10 (tests/oracle/data/padded_data35.json,
from tests/oracle/record_padded_data35.py): the rows, the argument errors, and each shard of a
dataset padded for distributed evaluation (rows dealt to the shards in turn, not padded again)."""
import builtins
import json
import os

import pytest

import padded_cases_data35 as pc
import source_io_data35 as sio
import pycompile.dataset as ds

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "oracle", "data",
                     "padded_data35.json")
with open(_DATA) as _f:
    MS = json.load(_f)


@pytest.mark.parametrize("name", pc.SOURCE_CASES)
def test_padded_dataset_matches_mindspore(name):
    want = MS["sources"][name]
    if "error" in want:
        with pytest.raises(getattr(builtins, want["error"]["type"])) as info:
            ds.PaddedDataset(pc.samples(name))
        assert str(info.value) == want["error"]["message"]
        return
    d = ds.PaddedDataset(pc.samples(name))
    assert d.get_col_names() == want["columns"] and d.get_dataset_size() == want["size"]
    assert [[sio.value(v) for v in r] for r in d.create_tuple_iterator(output_numpy=True)] == want["rows"]


@pytest.mark.parametrize("name", sorted(pc.SHARD_CASES))
def test_padded_shards_match_mindspore(name):
    n, shards = pc.SHARD_CASES[name]
    for k in range(shards):
        d = pc.data(ds, n) + ds.PaddedDataset(pc.samples("pad"))
        d.use_sampler(ds.DistributedSampler(num_shards=shards, shard_id=k, shuffle=False))
        got = {"size": d.get_dataset_size(),
               "rows": [[int(r["label"]), r["image"].tolist()] for r in d.create_dict_iterator(output_numpy=True)]}
        assert got == MS["shards"][name][k], f"shard {k}"
