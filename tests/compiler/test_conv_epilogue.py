"""Convolution epilogues (compiler/passes/conv_epilogue.py): what fuses into a FusedConv, what
must not, and that the fused kernels compute what the separate ops compute (eager) and what
NumPy computes - bias, eval-mode BatchNorm (scale folded into the weights), ReLU, ReLU6, SiLU,
residual adds, in both direct kernels and the im2col path."""
from __future__ import annotations

import numpy as np
import pytest

import pycompile as ms
from pycompile import Parameter, Tensor, nn, ops
from pycompile.compiler import ir

from opcheck import op_specs  # noqa: F401  (puts tests/ops on the import path)
from cnn_refs import ref_conv  # noqa: E402

EPILOGUE_OPS = {"FusedConv"}
rng = np.random.default_rng(3)


def _arr(*shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, shape).astype(np.float32)


def _fused(fn, *args):
    graph = ms.inspect(fn, *args).graph_after
    return [n for n in ir.iter_nodes(graph.body) if getattr(n.op, "name", "") == "FusedConv"]


def _bn(c):
    bn = nn.BatchNorm2d(c)
    bn.gamma.set_data(Tensor(_arr(c, lo=0.5, hi=1.5)))
    bn.beta.set_data(Tensor(_arr(c)))
    bn.moving_mean.set_data(Tensor(_arr(c)))
    bn.moving_variance.set_data(Tensor(_arr(c, lo=0.5, hi=1.5)))
    return bn


class Basic(nn.Cell):
    """ResNet's basic block (eval): conv-bn-relu, conv-bn, + x, relu."""

    def __init__(self, c, group=1):
        super().__init__()
        self.c1 = nn.Conv2d(c, c, 3, weight_init=Tensor(_arr(c, c // group, 3, 3, lo=-0.3, hi=0.3)), group=group)
        self.b1 = _bn(c)
        self.c2 = nn.Conv2d(c, c, 3, weight_init=Tensor(_arr(c, c, 3, 3, lo=-0.3, hi=0.3)))
        self.b2 = _bn(c)

    def construct(self, x):
        y = ops.relu(self.b1(self.c1(x)))
        return ops.relu(self.b2(self.c2(y)) + x)


def _np_bn(y, bn):
    g, b, m, v = (p.asnumpy().reshape(1, -1, 1, 1) for p in (bn.gamma, bn.beta, bn.moving_mean, bn.moving_variance))
    return (y - m) / np.sqrt(v + 1e-5) * g + b


@pytest.mark.parametrize("c, group", [(16, 1), (64, 1), (8, 8)])
def test_basic_block_fuses_into_two_kernels(c, group):
    net = Basic(c, group)
    net.set_train(False)
    x = Tensor(_arr(2, c, 7, 9))
    f = ms.jit(net.construct)
    got = f(x).asnumpy()
    eager = net.construct(x).asnumpy()
    xa = x.asnumpy()
    y = np.maximum(_np_bn(ref_conv(xa, net.c1.weight.asnumpy(), (1, 1), (1, 1), (1, 1, 1, 1), group), net.b1), 0)
    want = np.maximum(_np_bn(ref_conv(y, net.c2.weight.asnumpy(), (1, 1), (1, 1), (1, 1, 1, 1), 1), net.b2) + xa, 0)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got, eager, rtol=1e-4, atol=1e-5)
    fused = _fused(f, x)
    assert len(fused) == 2
    programs = [[s[0] for s in n.attrs["program"]] for n in fused]
    assert programs[0] == ["Mul", "Add", "ReLU"] and programs[1] == ["Mul", "Add", "Add", "ReLU"], programs
    assert all(n.attrs["fold_scale"] for n in fused)


def test_bias_relu6_silu_and_3d():
    w2, b2 = _arr(6, 3, 3, 3), _arr(6)
    w3 = _arr(4, 2, 2, 2, 2)

    def f(x, x3, w2, b2, w3):
        y = ops.conv2d(x, w2, b2, pad_mode="pad", padding=1)
        a = ops.clamp(y, 0.0, 6.0)
        s = ops.conv2d(x, w2, stride=2)
        s = s * ops.sigmoid(s)
        v = ops.relu(ops.conv3d(x3, w3) * 2.0 + 1.0)
        return a, s, v

    args = (Tensor(_arr(2, 3, 8, 7)), Tensor(_arr(1, 2, 3, 4, 5)), Tensor(w2), Tensor(b2), Tensor(w3))
    jf = ms.jit(f)
    got = jf(*args)
    eager = f(*args)
    xa, x3 = args[0].asnumpy(), args[1].asnumpy()
    y = ref_conv(xa, w2, (1, 1), (1, 1), (1, 1, 1, 1), 1) + b2.reshape(1, -1, 1, 1)
    s = ref_conv(xa, w2, (2, 2), (1, 1), (0, 0, 0, 0), 1)
    v = np.maximum(ref_conv(x3, w3, (1, 1, 1), (1, 1, 1), (0,) * 6, 1) * 2 + 1, 0)
    for g, e, want in zip(got, eager, (np.clip(y, 0, 6), s / (1 + np.exp(-s)), v)):
        np.testing.assert_allclose(g.asnumpy(), want, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=1e-5, atol=1e-6)
    assert len(_fused(jf, *args)) == 3


def test_what_does_not_fuse():
    """A convolution read twice (its value is needed as is), and an Assign between the
    convolution and its consumer (the convolution cannot move past it)."""
    w = Parameter(Tensor(_arr(4, 3, 3, 3)), name="w_epi")
    fresh = Tensor(_arr(4, 3, 3, 3))

    def twice(x):
        y = ops.conv2d(x, w)
        return ops.relu(y), y + 1.0

    def assign_between(x):
        y = ops.conv2d(x, w)
        ops.assign(w, fresh)
        return ops.relu(y)

    x = Tensor(_arr(1, 3, 6, 6))
    assert _fused(ms.jit(twice), x) == []
    old = w.asnumpy().copy()
    jf = ms.jit(assign_between)
    got = jf(x).asnumpy()
    np.testing.assert_allclose(got, np.maximum(ref_conv(x.asnumpy(), old, (1, 1), (1, 1), (0,) * 4, 1), 0),
                               rtol=1e-5, atol=1e-6)
    assert _fused(jf, x) == []
