"""Activation rows: elementwise ops whose C expression is written once, numerically stable, so
they fuse like any other elementwise op (into loops, reductions' prologues and GEMM epilogues).

Only activations that are not already a cheap composition of existing rows get a row here:
ReLU6, SiLU, Elu (MindSpore's CPU Elu only takes alpha = 1), SeLU, Softplus, Softsign, Mish and
LogSigmoid. The others are compositions in `ops.function_activation` (leaky_relu is
maximum(alpha * x, x), hardtanh a clamp, celu(x, a) = a * elu(x / a), softmin a softmax of -x,
glu a sigmoid-gated half, prelu a select), so they fuse just the same and need no rule of their
own. The C expressions are in `pycompile.ops.c.activation`, gradients in
`pycompile.ops.grads.activation`.

Softplus and its relatives use max(x, 0) + log1p(exp(-|x|)), which neither overflows for large
x nor loses the tail for very negative x (MindSpore's logsigmoid is log(sigmoid(x)), -inf below
about -88 in float32; this one stays finite).
"""
from __future__ import annotations

import numpy as np

from pycompile.ops._table import OpDef
from pycompile.ops.defs.elementwise import elementwise

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _softplus(x):
    return np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))


def _elu(x):
    return np.where(x > 0, x, np.expm1(x))


def _selu(x):
    t = x.dtype.type
    return t(SELU_SCALE) * np.where(x > 0, x, t(SELU_ALPHA) * np.expm1(x))


# + 0 makes relu6(-0) +0, as MindSpore gives (IEEE: -0 + 0 is +0)
ReLU6 = elementwise("ReLU6", ("x",), lambda x: np.clip(x, 0, 6) + x.dtype.type(0), allow="f", exact=True,
                    doc="min(max(x, 0), 6); NaN stays NaN; relu6(-0) is +0")
SiLU = elementwise("SiLU", ("x",), lambda x: x / (1 + np.exp(-x)), out="float", transcendental=True,
                   doc="x * sigmoid(x)")
Elu = elementwise("Elu", ("x",), _elu, out="float", transcendental=True, doc="x > 0 ? x : expm1(x)")
SeLU = elementwise("SeLU", ("x",), _selu, out="float", transcendental=True,
                   doc="scale * (x > 0 ? x : alpha * expm1(x))")
Softplus = elementwise("Softplus", ("x",), _softplus, out="float", transcendental=True,
                       doc="log(1 + exp(x)), computed as max(x, 0) + log1p(exp(-|x|))")
Softsign = elementwise("Softsign", ("x",), lambda x: x / (1 + np.abs(x)), out="float", doc="x / (1 + |x|)")
Mish = elementwise("Mish", ("x",), lambda x: x * np.tanh(_softplus(x)), out="float", transcendental=True,
                   doc="x * tanh(softplus(x))")
LogSigmoid = elementwise("LogSigmoid", ("x",), lambda x: np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x))),
                         out="float", transcendental=True, doc="log(sigmoid(x)) = -softplus(-x)")


# the ops this module declares (what `pycompile.ops.prims` re-exports)
__all__ = [_n for _n, _v in list(globals().items()) if isinstance(_v, OpDef)]
