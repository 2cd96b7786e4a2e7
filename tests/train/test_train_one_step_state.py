"""TrainOneStepCell runs the network's forward once per step: a BatchNorm's moving statistics
move once, as MindSpore 2.10's do (recorded by tests/oracle/record_train_one_step_state.py:
Dense(4, 4) -> BatchNorm1d(4), MSELoss, SGD(0.1), sens None and 2.0, PyNative and GRAPH_MODE).
Before, the loss and the gradients came from two forward calls and the statistics moved twice."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import nn

from oracle_data import load

DATA = load("train_one_step_state.json")


@pytest.mark.parametrize("run", DATA["runs"], ids=lambda r: f"{r['mode']}-sens{r['sens']}")
def test_one_step_matches_mindspore(run):
    ms.set_context(mode=ms.GRAPH_MODE if run["mode"] == "graph" else ms.PYNATIVE_MODE)
    x, w, b = (np.array(DATA[k], np.float32) for k in ("x", "w", "b"))
    dense = nn.Dense(4, 4, weight_init=ms.Tensor(w), bias_init=ms.Tensor(b))
    net = nn.SequentialCell([dense, nn.BatchNorm1d(4)])
    net.set_train()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1),
                               sens=run["sens"])
    loss = step(ms.Tensor(x), ms.Tensor(np.zeros((8, 4), np.float32)))
    np.testing.assert_allclose(loss.asnumpy(), run["loss"], rtol=1e-5)
    np.testing.assert_allclose(net[1].moving_mean.asnumpy(), run["moving_mean"], rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(net[1].moving_variance.asnumpy(), run["moving_variance"], rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(dense.weight.asnumpy(), run["weight"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", ["pynative", "graph"])
@pytest.mark.parametrize("scale", [1.0, 2.0])
def test_loss_scale_step_runs_the_forward_once_too(mode, scale):
    """TrainOneStepWithLossScaleCell with a fixed scale (no overflow) makes TrainOneStepCell's step:
    the scale multiplies the backward's seed and divides the gradients (powers of two: the same
    bits). MindSpore 2.10's CPU build cannot run this cell (its NPUGetFloatStatusV2 has no CPU
    kernel), so its recorded TrainOneStepCell run is the reference: the moving statistics moved
    twice here before (the loss and the gradients came from two forward calls)."""
    run = next(r for r in DATA["runs"] if r["mode"] == mode and r["sens"] is None)
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    x, w, b = (np.array(DATA[k], np.float32) for k in ("x", "w", "b"))
    dense = nn.Dense(4, 4, weight_init=ms.Tensor(w), bias_init=ms.Tensor(b))
    net = nn.SequentialCell([dense, nn.BatchNorm1d(4)])
    net.set_train()
    step = nn.TrainOneStepWithLossScaleCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1),
                                            scale_sense=ms.Tensor(np.array(scale, np.float32)))
    loss, overflow, _ = step(ms.Tensor(x), ms.Tensor(np.zeros((8, 4), np.float32)))
    assert not bool(overflow.asnumpy())
    np.testing.assert_allclose(loss.asnumpy(), run["loss"], rtol=1e-5)
    np.testing.assert_allclose(net[1].moving_mean.asnumpy(), run["moving_mean"], rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(net[1].moving_variance.asnumpy(), run["moving_variance"], rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(dense.weight.asnumpy(), run["weight"], rtol=1e-5, atol=1e-6)
