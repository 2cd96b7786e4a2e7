"""Batch statistics for batch normalization in training mode.

`BatchNormStats(x)` returns a (2, C) tensor: the mean and the biased variance of each channel
(axis 1) over every other axis, computed in one template (ops/c/norm.py: per channel a pass for
the mean and a pass for the centred squares, vectorized along the contiguous spatial rows).
The normalization itself - (x - mean) * gamma / sqrt(var + eps) + beta - and the moving
statistics' update are written with elementwise ops and Assign by the functional layer
(ops/function_image.py), so they fuse, and the backward of the whole batch norm follows from the
rules of those ops and the one of this op (ops/grads/cnn.py).
"""
from __future__ import annotations

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import TensorType
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


BatchNormStats = defop("BatchNormStats", ("x",), infer=_stats_infer, eager=_stats_eager, kind=Kind.REDUCE,
                       batch="batchnorm_stats", eager_kernel=True, lower=Template("batchnorm_stats"))


# the ops this module declares (what `pycompile.ops.prims` re-exports)
__all__ = [_n for _n, _v in list(globals().items()) if isinstance(_v, OpDef)]
