"""Gradient rules of the CNN family: convolutions (closed under differentiation: the two backprop
ops are each other's and the forward's transposes), pooling (the cotangent routed to each
window's maximum or spread over it; the routing ops' own gradients for second order), batch
statistics, per-axis resampling (pads, resizing: the resampling and its transpose), and the
random ops, which have none.
"""
from __future__ import annotations

import numpy as np

from pycompile.common.abstract import type_of
from pycompile.common.tensor import Tensor
from pycompile.ops import functional as F
from pycompile.ops import prims as P
from pycompile.ops._table import apply
from pycompile.ops.defs.conv import CONV_OPS
from pycompile.ops.grads import defgrad, needs, nondiff

# FusedConv is made by the optimizer after differentiation (compiler/passes/conv_epilogue.py);
# the argmax ops give indices
nondiff(P.RandomUniform, P.RandomNormal, P.RandomInt, P.Bernoulli, P.Multinomial, P.Randperm, P.MaxPoolArgmax,
        P.AdaptiveMaxPoolArgmax, P.FusedConv)


def _conv_attrs(kw):
    return {k: kw[k] for k in ("stride", "dilation", "pads", "group")}


def _shape(v) -> tuple:
    return type_of(v).shape


def _conv_rule(op):
    @defgrad(op)
    def rule(g, out, x, w, **kw):
        a = _conv_attrs(kw)
        _, bpi, bpf = CONV_OPS[len(_shape(x))]
        return (apply(bpi, [g, w], dict(a, input_size=_shape(x))) if needs(0) else None,
                apply(bpf, [g, x], dict(a, filter_size=_shape(w))) if needs(1) else None)


def _bpi_rule(op):
    @defgrad(op)
    def rule(g, out, dout, w, input_size=(), **kw):
        a = _conv_attrs(kw)
        conv, _, bpf = CONV_OPS[len(input_size)]
        return (apply(conv, [g, w], a) if needs(0) else None,
                apply(bpf, [dout, g], dict(a, filter_size=_shape(w))) if needs(1) else None)


def _bpf_rule(op):
    @defgrad(op)
    def rule(g, out, dout, x, filter_size=(), **kw):
        a = _conv_attrs(kw)
        conv, bpi, _ = CONV_OPS[len(filter_size)]
        return (apply(conv, [x, g], a) if needs(0) else None,
                apply(bpi, [dout, g], dict(a, input_size=_shape(x))) if needs(1) else None)


for _nd, (_c, _i, _f) in CONV_OPS.items():
    _conv_rule(_c)
    _bpi_rule(_i)
    _bpf_rule(_f)


# ---- pooling -------------------------------------------------------------------------------------------
@defgrad(P.MaxPool)
def _max_pool(g, out, x, **kw):
    return (apply(P.MaxPoolGrad, [x, g], kw),)


@defgrad(P.AvgPool)
def _avg_pool(g, out, x, **kw):
    return (apply(P.AvgPoolGrad, [x, g], kw),)


@defgrad(P.AdaptiveAvgPool)
def _adaptive_avg(g, out, x, output_size=()):
    return (apply(P.AdaptiveAvgPoolGrad, [x, g], {"output_size": output_size}),)


@defgrad(P.AdaptiveMaxPool)
def _adaptive_max(g, out, x, output_size=()):
    return (apply(P.AdaptiveMaxPoolGrad, [x, g], {"output_size": output_size}),)


def _gather_at_argmax(g, argmax, x_shape):
    """g (x's shape) read at each window's argmax (flat within its image-channel plane)."""
    planes = int(np.prod(x_shape[:2]))
    plane = int(np.prod(x_shape[2:]))
    out_shape = _shape(argmax)
    base = Tensor((np.arange(planes, dtype=np.int64) * plane).reshape(out_shape[:2] + (1,) * (len(out_shape) - 2)))
    flat = F.reshape(argmax + base, (-1,))
    return F.reshape(F.gather(F.reshape(g, (-1,)), flat, 0), out_shape)


@defgrad(P.MaxPoolGrad)
def _max_pool_grad(g, out, x, dout, **kw):
    # linear in dout (its cotangent reads g at each window's maximum); piecewise constant in x
    return None, _gather_at_argmax(g, apply(P.MaxPoolArgmax, [x], {k: kw[k] for k in
                                                                    ("kernel", "stride", "pads", "dilation",
                                                                     "ceil_mode")}), _shape(x))


@defgrad(P.AdaptiveMaxPoolGrad)
def _adaptive_max_grad(g, out, x, dout, output_size=()):
    return None, _gather_at_argmax(g, apply(P.AdaptiveMaxPoolArgmax, [x], {"output_size": output_size}), _shape(x))


@defgrad(P.AvgPoolGrad)
def _avg_pool_grad(g, out, x, dout, **kw):
    # the transpose of spreading over windows is averaging over them, with the same divisors
    return None, apply(P.AvgPool, [g], kw)


@defgrad(P.AdaptiveAvgPoolGrad)
def _adaptive_avg_grad(g, out, x, dout, output_size=()):
    return None, apply(P.AdaptiveAvgPool, [g], {"output_size": output_size})


# ---- batch statistics ------------------------------------------------------------------------------------
@defgrad(P.BatchNormStats)
def _bn_stats(g, out, x):
    """mean = sum(x) / m, var = sum((x - mean)^2) / m over every axis but 1:
    dx = g_mean / m + g_var * 2 (x - mean) / m, the row BatchNormStatsGrad (one kernel in
    PyNative; its parts, expanded after differentiation, in compiled code)."""
    return (apply(P.BatchNormStatsGrad, [g, x, out]),)


def _view(x, v):
    shape = _shape(x)
    return F.reshape(v, (1, shape[1]) + (1,) * (len(shape) - 2))


def _stat_sum(v):
    """v summed over every axis but 1 (what `fit` does to a cotangent of a channel view)."""
    return apply(P.ReduceSum, [v], {"axis": (0,) + tuple(range(2, len(_shape(v)))), "keep_dims": False})


@defgrad(P.BatchNormApply)
def _bn_apply(g, out, x, mean, scale, beta):
    """y = (x - mean) * scale + beta per channel: dx = g scale, dmean = -sum(dx), dscale =
    sum(g (x - mean)) (the row BatchNormChannelDot), dbeta = sum(g), the sums over every axis but 1
    - the rules of Sub, Mul and Add the composition had, in the same order."""
    dx = g * _view(x, scale) if needs(0) or needs(1) else None
    return (dx if needs(0) else None,
            -_stat_sum(dx) if needs(1) else None,
            apply(P.BatchNormChannelDot, [g, x, mean]) if needs(2) else None,
            _stat_sum(g) if needs(3) else None)


@defgrad(P.BatchNormChannelDot)
def _bn_channel_dot(c, out, g, x, mean):
    """s = sum(g (x - mean)): dg = c (x - mean), dx = c g, dmean = -c sum(g)."""
    cv = _view(x, c)
    return (cv * (x - _view(x, mean)) if needs(0) else None,
            cv * g if needs(1) else None,
            -(c * _stat_sum(g)) if needs(2) else None)


@defgrad(P.BatchNormStatsGrad)
def _bn_stats_grad(c, out, g, x, stats):
    """dx = g_mean / m + g_var (x - mean) 2 / m: linear in g; d/dx = c g_var 2 / m; d/dmean =
    -sum(c g_var) 2 / m; the variance row of `stats` is not read."""
    shape = _shape(x)
    m = max(int(np.prod(shape)) // shape[1], 1)
    g_var, mean = _view(x, g[1]), _view(x, stats[0])
    dg = F.stack([_stat_sum(c) * (1.0 / m), _stat_sum(c * (x - mean)) * (2.0 / m)], 0) if needs(0) else None
    dx = c * g_var * (2.0 / m) if needs(1) else None
    dmean = -(_stat_sum(c) * g[1]) * (2.0 / m) if needs(2) else None
    dstats = F.stack([dmean, F.zeros_like(dmean)], 0) if dmean is not None else None
    return dg, dx, dstats


# ---- resampling -------------------------------------------------------------------------------------------
@defgrad(P.AxisResample)
def _resample(g, out, x, axis=0, index=(), weight=()):
    size = _shape(x)[axis % len(_shape(x))]
    return (apply(P.AxisResampleGrad, [g], {"axis": axis, "index": index, "weight": weight, "size": size}),)


@defgrad(P.AxisResampleGrad)
def _resample_grad(g, out, x, axis=0, index=(), weight=(), size=0):
    return (apply(P.AxisResample, [g], {"axis": axis, "index": index, "weight": weight}),)
