"""Gradient rules of the activation rows (ops/defs/activation.py). Each derivative is written
with elementwise ops and, where cheaper, from the forward output (Elu: exp(x) = out + 1), so a
backward pass fuses into the same kind of loop as the forward one."""
from __future__ import annotations

from pycompile.ops import functional as F
from pycompile.ops import prims as P
from pycompile.ops._table import apply
from pycompile.ops.defs.activation import SELU_ALPHA, SELU_SCALE
from pycompile.ops.grads import defgrad


@defgrad(P.ReLU6)
def _relu6(g, out, x):
    # MindSpore 2.10's CPU kernel passes the gradient at x == 6 (0 < x <= 6), not at x == 0
    inside = F.logical_and(F.greater(x, 0), F.less_equal(x, 6))
    return (F.select(inside, g, F.zeros_like(g)),)


@defgrad(P.SiLU)
def _silu(g, out, x):
    s = F.sigmoid(x)
    return (F.mul(g, F.mul(s, F.add(F.mul(x, F.sub(1, s)), 1))),)


@defgrad(P.Elu)
def _elu(g, out, x):
    return (F.mul(g, F.select(F.greater(x, 0), F.ones_like(out), F.add(out, 1))),)


@defgrad(P.SeLU)
def _selu(g, out, x):
    d = F.select(F.greater(x, 0), F.full_like(out, SELU_SCALE), F.add(out, SELU_SCALE * SELU_ALPHA))
    return (F.mul(g, d),)


@defgrad(P.Softplus)
def _softplus(g, out, x):
    return (F.mul(g, F.sigmoid(x)),)


@defgrad(P.Softsign)
def _softsign(g, out, x):
    return (F.div(g, F.square(F.add(F.abs(x), 1))),)


@defgrad(P.Mish)
def _mish(g, out, x):
    t = F.tanh(apply(P.Softplus, [x]))
    d = F.add(t, F.mul(F.mul(x, F.sub(1, F.square(t))), F.sigmoid(x)))
    return (F.mul(g, d),)


@defgrad(P.LogSigmoid)
def _logsigmoid(g, out, x):
    return (F.mul(g, F.sigmoid(F.neg(x))),)
