"""dataset.transforms Fill, Mask, Duplicate, Concatenate, Slice, PadEnd, Unique against MindSpore
2.10 (fixtures/more_transforms.json, recorded by record_more_transforms.py from
more_transform_cases.py): outputs, dtypes, shapes and the pipeline error's class and "[ERROR]"
line. Then the random combinators, eagerly and inside a map."""
import json
import os

import numpy as np
import pytest

import pycompile.dataset as ds
import pycompile.dataset.transforms as T
from more_transform_cases import CASES
from oracle_io import run

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "more_transforms.json")) as _f:
    RECORDED = json.load(_f)["cases"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_mindspore(name):
    make, inputs = CASES[name]
    assert run(make, T, *inputs) == RECORDED[name]


def test_inside_a_pipeline():
    data = ds.NumpySlicesDataset({"x": np.arange(6, dtype=np.int32).reshape(3, 2)}, shuffle=False)
    data = data.map(T.Duplicate(), input_columns=["x"], output_columns=["x", "y"])
    data = data.map(T.PadEnd([4], -1), input_columns=["y"])
    data = data.map(T.Mask(T.Relational.GE, 2), input_columns=["x"])
    rows = [(r["x"].tolist(), r["y"].tolist()) for r in data.create_dict_iterator(output_numpy=True)]
    assert rows == [([False, False], [0, 1, -1, -1]), ([True, True], [2, 3, -1, -1]),
                    ([True, True], [4, 5, -1, -1])]


def _plus(k):
    return lambda x: x + k


def test_random_apply_choice_order_frequencies():
    ds.config.set_seed(7)
    x = np.zeros(1, np.int64)
    applied = [int(T.RandomApply([_plus(1)], prob=0.3)(x)[0]) for _ in range(2000)]
    assert abs(np.mean(applied) - 0.3) < 0.04
    chosen = [int(T.RandomChoice([_plus(1), _plus(2), _plus(3)])(x)[0]) for _ in range(3000)]
    assert set(chosen) == {1, 2, 3} and all(abs(chosen.count(k) / 3000 - 1 / 3) < 0.04 for k in (1, 2, 3))
    orders = {int(T.RandomOrder([lambda v: v * 2, _plus(1)])(np.ones(1, np.int64))[0]) for _ in range(200)}
    assert orders == {3, 4}                    # (1*2)+1 and (1+1)*2
    with pytest.raises(ValueError, match="prob"):
        T.RandomApply([_plus(1)], prob=1.5)
    with pytest.raises(TypeError, match="not a list"):
        T.RandomChoice(_plus(1))


def test_random_apply_in_a_seeded_pipeline_is_reproducible():
    def run_once():
        ds.config.set_seed(11)
        data = ds.NumpySlicesDataset({"x": np.zeros((50, 1), np.int64)}, shuffle=False)
        data = data.map(T.RandomApply([_plus(1)], prob=0.5), input_columns=["x"])
        return [int(r["x"][0]) for r in data.create_dict_iterator(output_numpy=True)]
    first = run_once()
    assert first == run_once() and 10 < sum(first) < 40
