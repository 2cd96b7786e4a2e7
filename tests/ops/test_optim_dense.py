"""The dense optimizer Primitives the MindSpore 2.10 CPU wheel cannot be the oracle for, against
NumPy versions of their documented formulas, in PyNative and compiled: ApplyKerasMomentum and
LARSUpdate (no CPU kernel), ApplyMomentum with use_nesterov (the CPU kernel ignores it),
ApplyAdagradDA (the CPU kernel moves a negative accumulator away from 0). The others are in
the conformance table (tests/conformance/cases_optim_dense.py)."""
from __future__ import annotations

import numpy as np
import pytest

import pycompile as ms
from pycompile import Parameter, Tensor, nn, ops

RNG = np.random.default_rng(4)
G = RNG.uniform(-1, 1, (2, 3)).astype(np.float32)
INIT = [RNG.uniform(0.1, 1.0, (2, 3)).astype(np.float32) for _ in range(3)]


class _Net(nn.Cell):
    def __init__(self, prim, call):
        super().__init__()
        self.p = [Parameter(Tensor(a.copy()), name=f"p{k}") for k, a in enumerate(INIT)]
        self.p0, self.p1, self.p2 = self.p
        self.prim, self.call = prim, call

    def construct(self, g):
        out = self.call(self.prim, self.p0, self.p1, self.p2, g)
        return out, self.p0, self.p1, self.p2


def _run(prim, call, compiled):
    net = _Net(prim, call)
    if compiled:
        net.set_train(False)
        out = ms.jit(net.construct)(Tensor(G))
    else:
        out = net(Tensor(G))
    return [o.asnumpy() if not isinstance(o, tuple) else tuple(x.asnumpy() for x in o) for o in out]


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("nesterov", [False, True])
def test_keras_momentum(compiled, nesterov):
    out, var, acc, _ = _run(ops.ApplyKerasMomentum(use_nesterov=nesterov),
                            lambda p, a, b, c, g: p(a, b, 0.1, g, 0.9), compiled)
    acc_want = INIT[1] * 0.9 - G * 0.1
    var_want = INIT[0] + (acc_want * 0.9 - G * 0.1 if nesterov else acc_want)
    np.testing.assert_allclose(acc, acc_want, rtol=1e-6)
    np.testing.assert_allclose(var, var_want, rtol=1e-6)
    np.testing.assert_allclose(out[0], var_want, rtol=1e-6)
    np.testing.assert_allclose(out[1], acc_want, rtol=1e-6)


@pytest.mark.parametrize("compiled", [False, True])
def test_momentum_nesterov_follows_nn_momentum(compiled):
    out, var, acc, _ = _run(ops.ApplyMomentum(use_nesterov=True), lambda p, a, b, c, g: p(a, b, 0.1, g, 0.9),
                            compiled)
    acc_want = INIT[1] * 0.9 + G
    var_want = INIT[0] - 0.1 * (G + 0.9 * acc_want)
    np.testing.assert_allclose(acc, acc_want, rtol=1e-6)
    np.testing.assert_allclose(var, var_want, rtol=1e-6)
    np.testing.assert_allclose(out, var_want, rtol=1e-6)


@pytest.mark.parametrize("compiled", [False, True])
def test_adagrad_da_documented_formula(compiled):
    step = Tensor(np.array(3, np.int64))
    g = G * 3                                  # accumulators on both sides of +-l1 * step
    out, var, ga, gsa = _run(ops.ApplyAdagradDA(), lambda p, a, b, c, _: p(a, b, c, Tensor(g), 0.1, 0.2, 0.02, step),
                             compiled)
    ga_want, gsa_want = INIT[1] + g, INIT[2] + g * g
    assert (ga_want < -0.6).any() and (ga_want > 0.6).any() and (np.abs(ga_want) < 0.6).any()
    tmp = np.sign(ga_want) * np.maximum(np.abs(ga_want) - 0.2 * 3, 0)
    want = -0.1 * tmp / (0.02 * 3 * 0.1 + np.sqrt(gsa_want))
    np.testing.assert_allclose(ga, ga_want, rtol=1e-6)
    np.testing.assert_allclose(gsa, gsa_want, rtol=1e-6)
    np.testing.assert_allclose(var, want, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-7)


def _lars(w, g, wd, lr, eps=1e-5, hyper=0.001, clip=False, zero_w=False):
    wn = 0.0 if zero_w else np.sqrt((w * w).sum())
    gn = np.sqrt((g * g).sum())
    trust = hyper * wn / (gn + wd * wn + eps) if wn > 0 and gn > 0 else 1.0
    if clip:
        trust = min(trust / lr, 1.0)
    return trust * (g + wd * w)


@pytest.mark.parametrize("compiled", [False, True])
def test_lars_update(compiled):
    w, g = INIT[0], G

    def f(wt, gt):
        nw, ng = ops.reduce_sum(wt * wt), ops.reduce_sum(gt * gt)
        return (ops.LARSUpdate()(wt, gt, nw, ng, 0.01, 0.1), ops.LARSUpdate(1e-5, 0.002, True)(wt, gt, nw, ng, 0.01, 0.1),
                ops.LARSUpdate()(wt, gt, ops.zeros_like(nw), ng, 0.01, 0.1))
    got = (ms.jit(f) if compiled else f)(Tensor(w), Tensor(g))
    np.testing.assert_allclose(got[0].asnumpy(), _lars(w, g, 0.01, 0.1), rtol=1e-5)
    np.testing.assert_allclose(got[1].asnumpy(), _lars(w, g, 0.01, 0.1, hyper=0.002, clip=True), rtol=1e-5)
    np.testing.assert_allclose(got[2].asnumpy(), _lars(w, g, 0.01, 0.1, zero_w=True), rtol=1e-5)
