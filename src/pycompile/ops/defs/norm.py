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
from pycompile.ops._table import OpDef, Kind, OpTypeError, OpValueError, defop, describe, tensor_arg
from pycompile.ops.lowering import Template


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


# the ops this module declares (what `pycompile.ops.prims` re-exports)
__all__ = [_n for _n, _v in list(globals().items()) if isinstance(_v, OpDef)]
