"""Batch statistics for batch normalization in training mode.

`BatchNormStats(x)` returns a (2, C) tensor: the mean and the biased variance of each channel
(axis 1) over every other axis, computed in one template (backend/c/ops/norm.py: per channel a pass for
the mean and a pass for the centred squares, vectorized along the contiguous spatial rows).
The normalization itself - (x - mean) * gamma / sqrt(var + eps) + beta - and the moving
statistics' update are written with elementwise ops and Assign by the functional layer
(ops/function_image.py), so they fuse, and the backward of the whole batch norm follows from the
rules of those ops and the one of this op (ops/grads/cnn.py).
"""
from __future__ import annotations

import math

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import TensorType, type_of
from pycompile.ops._table import OpDef, Kind, OpTypeError, OpValueError, apply, defop, describe, tensor_arg
from pycompile.ops.lowering import Parts, Template


def stat_axes(ndim: int) -> tuple:
    return (0,) + tuple(range(2, ndim))


def _stats_infer(types):
    x = tensor_arg("BatchNormStats", types[0])
    if x.ndim < 2:
        raise OpValueError(f"For 'BatchNorm', the input must have at least 2 dimensions, but got {describe(x)}")
    if x.dtype not in (mstype.float32, mstype.float64):
        raise OpTypeError(f"For 'BatchNormStats', the input must be a float32 or float64 tensor, but got {describe(x)}")
    return TensorType(x.dtype, (2, x.shape[1]))


def _stats_eager(x):
    xf = x.astype(np.float64)
    ax = stat_axes(x.ndim)
    return np.stack([xf.mean(axis=ax), xf.var(axis=ax)]).astype(x.dtype)


def _stats_parts(x):
    """As the template: in double, the mean (sum / m), then the mean of the centred squares, over
    every axis but 1; the two rows (1, C) each, concatenated, rounded to x's dtype."""
    from pycompile.ops.defs.array import Concat, Reshape
    from pycompile.ops.defs.elementwise import Mul, RealDiv, Sub, call, cast
    from pycompile.ops.defs.reduce import ReduceSum
    t = type_of(x)
    ax = stat_axes(t.ndim)
    m = max(math.prod(t.shape[a] for a in ax), 1)
    xd = cast(x, mstype.float64) if t.dtype is not mstype.float64 else x
    mean = call(RealDiv, call(ReduceSum, xd, axis=ax, keep_dims=True), m)
    d = call(Sub, xd, mean)
    var = call(RealDiv, call(ReduceSum, call(Mul, d, d), axis=ax, keep_dims=False), m)
    c = t.shape[1]
    both = call(Concat, (call(Reshape, mean, shape=(1, c)), call(Reshape, var, shape=(1, c))), axis=0)
    return both if t.dtype is mstype.float64 else cast(both, t.dtype)


BatchNormStats = defop("BatchNormStats", ("x",), infer=_stats_infer, eager=_stats_eager, kind=Kind.REDUCE,
                       batch="batchnorm_stats", eager_kernel=True, lower=Template("batchnorm_stats"),
                       decompose=_stats_parts, fast_path=True)


# ---- the normalization and the backward, as rows PyNative runs on one kernel each ---------------------
# Each is a composition (`decompose`: what graph mode compiles, the same formula the functional layer
# wrote before these rows existed) that PyNative runs as its compiled decomposition (`eager_kernel`
# on a decomposed row: one fused loop per signature, backend/eager.py) instead of one NumPy pass per
# part: the training-mode batch norm of a 25 MB activation made seven full passes forward and about
# fifteen backward, each a fresh allocation (W10t's PyNative step; bench/workloads_cnn_train.py).
def _channel(x, v):
    """v (C,) viewed along x's axis 1, for the parts."""
    from pycompile.ops.defs.array import Reshape
    return apply(Reshape, [v], {"shape": (1, -1) + (1,) * (type_of(x).ndim - 2)})


def _np_channel(x, v):
    return v.reshape((1, -1) + (1,) * (x.ndim - 2))


def _arity(name, types, n):
    if len(types) != n:
        raise OpTypeError(f"For '{name}', expected {n} inputs, but got {len(types)}")


def _check_vectors(name, x, vectors):
    x = tensor_arg(name, x)
    if x.ndim < 2 or x.dtype not in (mstype.float32, mstype.float64):
        raise OpTypeError(f"For '{name}', the input must be a float32 or float64 tensor of at least 2 dimensions, "
                          f"but got {describe(x)}")
    for t in vectors:
        v = tensor_arg(name, t)
        if v.dtype is not x.dtype or v.shape != (x.shape[1],):
            raise OpValueError(f"For '{name}', the per-channel inputs must be {x.dtype} of shape ({x.shape[1]},), "
                               f"but got {describe(v)}")
    return x


def _apply_infer(types):
    _arity("BatchNormApply", types, 4)
    return _check_vectors("BatchNormApply", types[0], types[1:])


def _apply_eager(x, mean, scale, beta):
    return (x - _np_channel(x, mean)) * _np_channel(x, scale) + _np_channel(x, beta)


def batchnorm_apply_parts(x, mean, scale, beta):
    from pycompile.ops.defs.elementwise import Add, Mul, Sub, call
    return call(Add, call(Mul, call(Sub, x, _channel(x, mean)), _channel(x, scale)), _channel(x, beta))


# y = (x - mean) * scale + beta per channel (scale = gamma / sqrt(var + eps)): the forward normalization
BatchNormApply = defop("BatchNormApply", ("x", "mean", "scale", "beta"), infer=_apply_infer, eager=_apply_eager,
                       eager_kernel=True, decompose=batchnorm_apply_parts, lower=Parts(), batch="parts")


def _dot_infer(types):
    _arity("BatchNormChannelDot", types, 3)
    x = _check_vectors("BatchNormChannelDot", types[1], types[2:])
    g = tensor_arg("BatchNormChannelDot", types[0])
    if g.shape != x.shape or g.dtype is not x.dtype:
        raise OpValueError(f"For 'BatchNormChannelDot', the cotangent must be like the input {describe(x)}, "
                           f"but got {describe(g)}")
    return TensorType(x.dtype, (x.shape[1],))


def _dot_eager(g, x, mean):
    return (g * (x - _np_channel(x, mean))).sum(axis=stat_axes(x.ndim)).astype(x.dtype)


def _dot_parts(g, x, mean):
    from pycompile.ops.defs.elementwise import Mul, Sub, call
    from pycompile.ops.defs.reduce import ReduceSum
    return call(ReduceSum, call(Mul, g, call(Sub, x, _channel(x, mean))), axis=stat_axes(type_of(x).ndim),
                keep_dims=False)


# sum over every axis but 1 of g * (x - mean): the scale's cotangent of BatchNormApply
BatchNormChannelDot = defop("BatchNormChannelDot", ("g", "x", "mean"), infer=_dot_infer, eager=_dot_eager,
                            kind=Kind.REDUCE, eager_kernel=True, decompose=_dot_parts, lower=Parts(), batch="parts")


def _stats_grad_infer(types):
    _arity("BatchNormStatsGrad", types, 3)
    g, x, stats = (tensor_arg("BatchNormStatsGrad", t) for t in types)
    want = TensorType(x.dtype, (2, x.shape[1])) if x.ndim >= 2 else None
    if want is None or g != want or stats != want or x.dtype not in (mstype.float32, mstype.float64):
        raise OpValueError(f"For 'BatchNormStatsGrad', expected a float input of at least 2 dimensions and two "
                           f"(2, C) tensors of its dtype, but got {describe(g)}, {describe(x)}, {describe(stats)}")
    return x


def _stats_grad_eager(g, x, stats):
    m = max(x.size // x.shape[1], 1)
    gm, gv, mean = (_np_channel(x, v) for v in (g[0], g[1], stats[0]))
    return gm * x.dtype.type(1.0 / m) + gv * (x - mean) * x.dtype.type(2.0 / m)


def _stats_grad_parts(g, x, stats):
    from pycompile.ops.defs.array import StridedSlice
    from pycompile.ops.defs.elementwise import Add, Mul, Sub, call
    t = type_of(x)
    m = max(t.size // t.shape[1], 1)

    def row(v, i):
        return _channel(x, apply(StridedSlice, [v], {"begin": (i, 0), "end": (i + 1, t.shape[1]), "strides": (1, 1)}))
    gm, gv, mean = row(g, 0), row(g, 1), row(stats, 0)
    return call(Add, call(Mul, gm, 1.0 / m), call(Mul, call(Mul, gv, call(Sub, x, mean)), 2.0 / m))


# BatchNormStats' backward: x's cotangent from the statistics' (the mean's over m, the variance's
# times 2 (x - mean) / m)
BatchNormStatsGrad = defop("BatchNormStatsGrad", ("g", "x", "stats"), infer=_stats_grad_infer,
                           eager=_stats_grad_eager, eager_kernel=True, decompose=_stats_grad_parts, lower=Parts(),
                           batch="parts")


# the ops this module declares (what `pycompile.ops.prims` re-exports)
__all__ = [_n for _n, _v in list(globals().items()) if isinstance(_v, OpDef)]
