"""Activation functions with MindSpore 2.10's signatures (`ops.leaky_relu`, `ops.softplus`,
`ops.glu` ...). Each is one activation row of the op table (`ops/defs/activation.py`) or a short
composition of elementwise rows, so every one of them fuses into the loop, reduction or matrix
product epilogue around it, and differentiates through the rows' gradient rules.
"""
from __future__ import annotations

import numbers

from pycompile.ops import prims as P
from pycompile.ops._table import OpTypeError, OpValueError, apply, norm_axis
from pycompile.ops import _mixed
from pycompile.ops import functional as F
from pycompile.ops.defs import activation  # noqa: F401  (declares the rows)


def _number(name: str, what: str, v) -> float:
    if not isinstance(v, numbers.Real) or isinstance(v, bool):
        raise OpTypeError(f"For '{name}', '{what}' must be an int or a float, but got {type(v).__name__}")
    return v


def relu6(x):
    """min(max(x, 0), 6)."""
    return apply(P.ReLU6, [x])


def silu(input):
    """x * sigmoid(x)."""
    return apply(P.SiLU, [input])


def selu(input_x):
    return apply(P.SeLU, [input_x])


def softsign(x):
    return apply(P.Softsign, [x])


def mish(x):
    return apply(P.Mish, [x])


def logsigmoid(x):
    """log(sigmoid(x)), computed stably (finite for very negative x)."""
    return apply(P.LogSigmoid, [x])


def elu(input_x, alpha=1.0):
    """x > 0 ? x : exp(x) - 1. MindSpore 2.10's CPU kernel takes only alpha = 1.0 (celu has
    the general form)."""
    if _number("Elu", "alpha", alpha) != 1.0:
        raise OpValueError(f"For 'Elu', 'alpha' must be 1.0 (MindSpore's CPU Elu supports no other value; "
                           f"ops.celu takes any alpha), but got {alpha}")
    return apply(P.Elu, [input_x])


def celu(x, alpha=1.0):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) = alpha * elu(x / alpha)."""
    if _number("CeLU", "alpha", alpha) == 0:
        raise OpValueError("For 'CeLU', the 'alpha' can not be equal to zero")
    if alpha == 1.0:
        return apply(P.Elu, [x])
    return F.mul(apply(P.Elu, [F.div(x, alpha)]), alpha)


def leaky_relu(input, alpha=0.2):
    """max(alpha * x, x) (min when alpha > 1), as MindSpore computes it."""
    _number("leaky_relu", "alpha", alpha)
    if F._tensor_type("leaky_relu", input).dtype.kind in "iu":
        alpha_v = int(alpha)            # MindSpore casts alpha to the input's dtype first
    else:
        alpha_v = alpha
    scaled = F.mul(input, alpha_v)
    return F.minimum(scaled, input) if alpha > 1 else F.maximum(scaled, input)


def hardtanh(input, min_val=-1.0, max_val=1.0):
    """Clamp to [min_val, max_val]."""
    _number("hardtanh", "min_val", min_val)
    _number("hardtanh", "max_val", max_val)
    dt = F._tensor_type("hardtanh", input).dtype
    out = F.minimum(F.maximum(input, min_val), max_val)
    return out if F._tensor_type("hardtanh", out).dtype is dt else F.cast(out, dt)


def softplus(input, beta=1, threshold=20):
    """log(1 + exp(beta * x)) / beta, and x itself where beta * x > threshold."""
    _number("softplus", "beta", beta)
    _number("softplus", "threshold", threshold)
    if beta == 0:
        raise OpValueError("For 'softplus', the value of 'beta' cannot be 0.")
    scaled = input if beta == 1 else F.mul(input, beta)
    soft = apply(P.Softplus, [scaled])
    if beta != 1:
        soft = F.div(soft, beta)
    return F.select(F.greater(scaled, threshold), input, soft)


def tanhshrink(input):
    """x - tanh(x)."""
    return F.sub(input, F.tanh(input))


def softmin(x, axis=-1, *, dtype=None):
    """softmax(-x) along `axis`."""
    if dtype is not None:
        x = F.cast(x, dtype)
    return F.softmax(F.neg(x), axis)


def glu(x, axis=-1):
    """a * sigmoid(b) where (a, b) are the two halves of x along `axis`."""
    shape = F._tensor_type("glu", x).shape
    ax = norm_axis("Split", axis, len(shape))
    if shape[ax] % 2:
        raise OpValueError(f"For 'Split', x_shape[{ax}] must be divisible by output_num = 2, but got {shape[ax]}")
    half = shape[ax] // 2
    lead = (slice(None),) * ax
    a = F.getitem(x, lead + (slice(0, half),))
    b = F.getitem(x, lead + (slice(half, None),))
    return F.mul(a, F.sigmoid(b))


@_mixed.amp_class("low")       # amp_level='auto' (ops/amp_auto.py)
def prelu(input, weight):
    """x > 0 ? x : w * x, with one weight per channel (axis 1) or one shared weight."""
    xt = F._tensor_type("PReLU", input, "x")
    wt = F._tensor_type("PReLU", weight, "weight")
    channels = xt.shape[1] if xt.ndim >= 2 else 1
    if wt.ndim != 1 or wt.shape[0] not in (1, channels):
        raise OpValueError(f"For 'PReLU', the weight must be 1-D with 1 or {channels} (the channels of x) elements, "
                           f"but got shape {list(wt.shape)}")
    if xt.ndim >= 2 and wt.shape[0] != 1:
        weight = F.reshape(weight, (wt.shape[0],) + (1,) * (xt.ndim - 2))
    elif xt.ndim == 0:
        weight = F.reshape(weight, ())     # the output has x's shape: a 0-d x stays 0-d
    if wt.dtype != xt.dtype and xt.dtype.is_float:
        weight = F.cast(weight, xt.dtype)
    return F.select(F.greater(input, 0), input, F.mul(input, weight))


def fast_gelu(x):
    """MindSpore's FastGeLU: x / (1 + exp(-1.702 |x|)) * exp(0.851 (x - |x|)), which is x * sigmoid(1.702 x)."""
    t = F._tensor_type("FastGeLU", x, "x")
    if not t.dtype.is_float:
        raise OpTypeError(f"For 'FastGeLU', 'x' must be a float Tensor, but got {t}")
    return F.mul(x, F.sigmoid(F.mul(x, 1.702)))


__all__ = ["fast_gelu", "relu6", "silu", "selu", "softsign", "mish", "logsigmoid", "elu", "celu", "leaky_relu", "hardtanh",
           "softplus", "tanhshrink", "softmin", "glu", "prelu"]
