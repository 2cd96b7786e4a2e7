"""ReduceLROnPlateau against MindSpore 2.10 (tests/oracle/data/reduce_lr.json, recorded by
tests/oracle/record_reduce_lr.py from the cases in tests/oracle/reduce_lr_cases.py): the learning
rate after each epoch, bit for bit, and the constructor errors; then inside Model.fit."""
import json
import os
import sys

import numpy as np
import pytest

import pycompile as ms
from pycompile import nn
from pycompile.train import Model, ReduceLROnPlateau, RunContext

ORACLE = os.path.join(os.path.dirname(__file__), "..", "oracle")
sys.path.insert(0, ORACLE)
from reduce_lr_cases import CASES, _Params, run  # noqa: E402

with open(os.path.join(ORACLE, "data", "reduce_lr.json")) as _f:
    RECORDED = json.load(_f)["cases"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_learning_rates_equal_mindspore(name):
    got, want = run(ms, *CASES[name]), RECORDED[name]
    if "raises" in want:
        assert got.get("raises") == want["raises"], got
    else:
        assert got == want


def test_a_schedule_is_refused():
    net = nn.Dense(2, 2)
    opt = nn.Momentum(net.trainable_params(), [0.1, 0.05, 0.01], 0.9)
    ctx = RunContext(_Params(optimizer=opt, eval_results={"eval_loss": 1.0}))
    with pytest.raises(ValueError, match="does not support dynamic learning rate"):
        ReduceLROnPlateau().on_train_epoch_end(ctx)


def test_reduces_the_rate_in_model_fit():
    """A learning rate so small that the loss does not move: it plateaus from the second epoch, so
    with patience 1 each of epochs 2-4 halves the rate."""
    import pycompile.dataset as ds
    rng = np.random.default_rng(0)
    data = ds.NumpySlicesDataset({"x": rng.normal(size=(8, 3)).astype(np.float32),
                                  "y": np.zeros((8, 2), np.float32)}, shuffle=False).batch(4)
    net = nn.Dense(3, 2)
    opt = nn.SGD(net.trainable_params(), 1e-12)
    model = Model(net, nn.MSELoss(), opt)
    model.train(4, data, callbacks=[ReduceLROnPlateau(monitor="loss", patience=1, factor=0.5)])
    np.testing.assert_allclose(float(opt.learning_rate.asnumpy()), 1e-12 * 0.5 ** 3, rtol=1e-6)
