"""nn.LARS (src/pycompile/nn/optim/lars.py) against its documented formulas computed in NumPy: a
Dense layer trained with MSE for three steps through TrainOneStepCell, in PyNative and graph mode,
with and without use_clip (a learning-rate schedule), a loss scale and weight decay moved from the
wrapped Momentum, and the default filter leaving the bias to Momentum alone. MindSpore 2.10's CPU
wheel has no LARSUpdate kernel, so nothing is recorded from it."""
from __future__ import annotations

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, nn

X = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
Y = np.random.default_rng(1).standard_normal((5, 3)).astype(np.float32)
W0 = np.random.default_rng(2).standard_normal((3, 4)).astype(np.float32) * 0.5
B0 = np.array([0.1, -0.2, 0.3], np.float32)


def _reference(steps, lrs, momentum, wd, loss_scale, eps, coef, clip):
    w, b = W0.astype(np.float64), B0.astype(np.float64)
    aw, ab = np.zeros_like(w), np.zeros_like(b)
    for k in range(steps):
        d = 2.0 * (X @ w.T + b - Y) / Y.size
        gw, gb = d.T @ X, d.sum(0)
        gw, gb = gw / loss_scale, gb / loss_scale
        nw, ng = np.sqrt((w ** 2).sum()), np.sqrt((gw ** 2).sum())
        trust = coef * nw / (ng + wd * nw + eps) if nw > 0 and ng > 0 else 1.0
        if clip:
            trust = min(trust / lrs[k], 1.0)
        gw = trust * (gw + wd * w)            # the weight: LARS, with the decay it took over
        aw, ab = momentum * aw + gw, momentum * ab + gb       # the bias: filtered out, no decay
        w, b = w - lrs[k] * aw, b - lrs[k] * ab
    return w, b


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("clip", [False, True])
def test_lars_wrapped_momentum_matches_the_documented_update(mode, clip):
    ms.set_context(mode=mode)
    net = nn.Dense(4, 3, weight_init=Tensor(W0), bias_init=Tensor(B0))
    lrs = [0.1, 0.05, 0.02]
    lr = Tensor(np.array(lrs, np.float32)) if clip else 0.1
    opt = nn.Momentum(net.trainable_params(), lr, 0.9, weight_decay=0.01, loss_scale=2.0)
    lars = nn.LARS(opt, epsilon=1e-6, coefficient=0.02, use_clip=clip)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), lars)
    for _ in range(3):
        step(Tensor(X), Tensor(Y))
    w, b = _reference(3, lrs if clip else [0.1] * 3, 0.9, 0.01, 2.0, 1e-6, 0.02, clip)
    np.testing.assert_allclose(net.weight.asnumpy(), w, rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose(net.bias.asnumpy(), b, rtol=2e-5, atol=1e-6)


def test_lars_takes_the_weight_decay_and_the_loss_scale_from_the_optimizer():
    net = nn.Dense(4, 3)
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9, weight_decay=0.01, loss_scale=4.0)
    lars = nn.LARS(opt, coefficient=0.01, lars_filter=lambda p: True)
    assert lars.lars_flag == (True, True)
    assert not opt.exec_weight_decay and opt.decay_flags == (False, False)
    np.testing.assert_allclose(float(lars.weight_decay.asnumpy()), 0.01, rtol=1e-6)
    assert float(opt.reciprocal_scale.asnumpy()) == 1.0
    assert list(lars.parameters) == list(opt.parameters)


def test_lars_argument_checks():
    net = nn.Dense(2, 2)
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    with pytest.raises(TypeError, match="epsilon"):
        nn.LARS(opt, epsilon=1)
    with pytest.raises(TypeError, match="optimizer"):
        nn.LARS(net)
    with pytest.raises(TypeError, match="use_clip"):
        nn.LARS(opt, use_clip=1)
