"""Activation rows: elementwise ops whose C expression is written once, numerically stable, so
they fuse like any other elementwise op (into loops, reductions' prologues and GEMM epilogues).

Only activations that are not already a cheap composition of existing rows get a row here:
ReLU6, SiLU, Elu (MindSpore's CPU Elu only takes alpha = 1), SeLU, Softplus, Softsign, Mish and
LogSigmoid. The others are compositions in `ops.function_activation` (leaky_relu is
maximum(alpha * x, x), hardtanh a clamp, celu(x, a) = a * elu(x / a), softmin a softmax of -x,
glu a sigmoid-gated half, prelu a select), so they fuse just the same and need no rule of their
own. The C expressions are in `pycompile.backend.c.ops.activation`, gradients in
`pycompile.ops.grads.activation`.

Softplus and its relatives use max(x, 0) + log1p(exp(-|x|)), which neither overflows for large
x nor loses the tail for very negative x (MindSpore's logsigmoid is log(sigmoid(x)), -inf below
about -88 in float32; this one stays finite).
"""
from __future__ import annotations

import numpy as np

from pycompile.ops._table import OpDef
from pycompile.ops.defs import elementwise as E
from pycompile.ops.defs import math as M
from pycompile.ops.defs.elementwise import call, elementwise, in_float

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _softplus(x):
    # the Exp row's exp (float32 flushes exp(x <= -87) to 0, as MindSpore's): the decomposition's
    # parts give the same, so softplus(-100) is 0 in both modes, as MindSpore 2.10 records
    return np.maximum(x, 0) + np.log1p(E.Exp.eager(-np.abs(x)))


def _elu(x):
    return np.where(x > 0, x, np.expm1(x))


def _selu(x):
    t = x.dtype.type
    return t(SELU_SCALE) * np.where(x > 0, x, t(SELU_ALPHA) * np.expm1(x))


# ---- the decompositions (docs/architecture.md, "The core"): the same formulas as the NumPy
# references above and the C expressions they replaced, written with core rows; a float16 input
# is computed in float32 and rounded once (`in_float`), as the rows' kernels did
def _softplus_parts(x):
    """max(x, 0) + log1p(exp(-|x|)) (Maximum keeps NaN, where x > 0 ? x : 0 gave 0: the sum is NaN
    either way; max(-0, 0) is +0, as the select gave)."""
    return call(E.Add, call(E.Maximum, x, 0), call(M.Log1p, call(E.Exp, call(E.Neg, call(E.Abs, x)))))


def _negative_branch(x, scale=None):
    """x > 0 ? x : [scale *] expm1(x), Elu's and SeLU's (a NaN input stays NaN through expm1)."""
    neg = call(M.Expm1, x)
    return call(E.Select, call(E.Less, 0, x), x, neg if scale is None else call(E.Mul, scale, neg))


def _relu6_parts(x):
    """x <= 0 ? 0 : (6 < x ? 6 : x): NaN kept (both tests false), relu6(-0) is +0, and the gradient
    passes on (0, 6] as MindSpore's ReLU6Grad does (the selects route it)."""
    return call(E.Select, call(E.LessEqual, x, 0), 0, call(E.Select, call(E.Less, 6, x), 6, x))


# + 0 makes relu6(-0) +0, as MindSpore gives (IEEE: -0 + 0 is +0)
ReLU6 = elementwise("ReLU6", ("x",), lambda x: np.clip(x, 0, 6) + x.dtype.type(0), allow="f", exact=True,
                    doc="min(max(x, 0), 6); NaN stays NaN; relu6(-0) is +0",
                    decompose=lambda x: in_float(x, _relu6_parts))
SiLU = elementwise("SiLU", ("x",), lambda x: x / (1 + np.exp(-x)), out="float", transcendental=True,
                   doc="x * sigmoid(x)", decompose=lambda x: in_float(x, lambda x: call(
                       E.RealDiv, x, call(E.Add, 1, call(E.Exp, call(E.Neg, x))))), eager_kernel=E.KERNEL_FROM)
Elu = elementwise("Elu", ("x",), _elu, out="float", transcendental=True, doc="x > 0 ? x : expm1(x)",
                  decompose=lambda x: in_float(x, _negative_branch), eager_kernel=E.KERNEL_FROM)
SeLU = elementwise("SeLU", ("x",), _selu, out="float", transcendental=True,
                   doc="scale * (x > 0 ? x : alpha * expm1(x))", decompose=lambda x: in_float(
                       x, lambda x: call(E.Mul, SELU_SCALE, _negative_branch(x, SELU_ALPHA))),
                   eager_kernel=E.KERNEL_FROM)
Softplus = elementwise("Softplus", ("x",), _softplus, out="float", transcendental=True,
                       doc="log(1 + exp(x)), computed as max(x, 0) + log1p(exp(-|x|))",
                       decompose=lambda x: in_float(x, _softplus_parts), eager_kernel=E.KERNEL_FROM)
Softsign = elementwise("Softsign", ("x",), lambda x: x / (1 + np.abs(x)), out="float", doc="x / (1 + |x|)",
                       decompose=lambda x: in_float(x, lambda x: call(E.RealDiv, x, call(E.Add, 1, call(E.Abs, x)))))
Mish = elementwise("Mish", ("x",), lambda x: x * np.tanh(_softplus(x)), out="float", transcendental=True,
                   doc="x * tanh(softplus(x))",
                   decompose=lambda x: in_float(x, lambda x: call(E.Mul, x, call(E.Tanh, _softplus_parts(x)))),
                   eager_kernel=E.KERNEL_FROM)
LogSigmoid = elementwise("LogSigmoid", ("x",), lambda x: np.minimum(x, 0) - np.log1p(E.Exp.eager(-np.abs(x))),
                         out="float", transcendental=True, doc="log(sigmoid(x)) = -softplus(-x)",
                         decompose=lambda x: in_float(x, lambda x: call(
                             E.Sub, call(E.Minimum, x, 0), call(M.Log1p, call(E.Exp, call(E.Neg, call(E.Abs, x)))))),
                         eager_kernel=E.KERNEL_FROM)


# (eager_kernel: PyNative runs the transcendental ones' compiled C from E.KERNEL_FROM elements, their
# parts fused - one pass where NumPy made one per part: softplus of (8, 64, 56, 56) 9.9 ms in parts)

# the ops this module declares (what `pycompile.ops.prims` re-exports)
__all__ = [_n for _n, _v in list(globals().items()) if isinstance(_v, OpDef)]
