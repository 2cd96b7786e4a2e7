"""Singular values and vectors (the matrix norms ord=2, -2 and 'nuc' of ops.norm / matrix_norm).

`Svd` is one op with a `part` attribute rather than one op with three outputs: the norms need
only the singular values ('s'), and the gradient of a singular value needs its vectors ('u',
'v'), so the forward graph computes just what it reads and the backward graph the factors (a
second decomposition of the same matrix; the kernel is deterministic, so the factors of both
calls pair up). Reduced factors: for x of shape (..., m, n) and k = min(m, n), s is (..., k)
in descending order, u is (..., m, k), v is (..., n, k), with x = u diag(s) vᵀ.
"""
from __future__ import annotations

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import TensorType
from pycompile.ops._table import OpDef, Kind, OpTypeError, OpValueError, defop, tensor_arg
from pycompile.ops.lowering import Template


def _svd_infer(types, part="s"):
    x = tensor_arg("Svd", types[0])
    if x.dtype not in (mstype.float32, mstype.float64):
        raise OpTypeError(f"For 'Svd', the input must be a Float32 or Float64 Tensor, but got {x}")
    if x.ndim < 2:
        raise OpValueError(f"For 'Svd', the input must have at least 2 dimensions, but got shape {list(x.shape)}")
    if part not in ("s", "u", "v"):
        raise OpValueError(f"For 'Svd', 'part' must be 's', 'u' or 'v', but got {part!r}")
    m, n = x.shape[-2:]
    k = min(m, n)
    return TensorType(x.dtype, tuple(x.shape[:-2]) + {"s": (k,), "u": (m, k), "v": (n, k)}[part])


def _svd_eager(x, part="s"):
    x = np.asarray(x)
    if part == "s":
        return np.linalg.svd(x.astype(np.float64), compute_uv=False).astype(x.dtype)
    u, _, vh = np.linalg.svd(x.astype(np.float64), full_matrices=False)
    return (u if part == "u" else np.swapaxes(vh, -1, -2)).astype(x.dtype)


Svd = defop("Svd", ("x",), attrs={"part": "s"}, infer=_svd_infer, eager=_svd_eager, kind=Kind.LAYOUT,
            lower=Template("svd"), doc="singular values (part 's') or vectors ('u', 'v') of the last two axes")

# the ops this module declares (what `pycompile.ops.prims` re-exports)
__all__ = [_n for _n, _v in list(globals().items()) if isinstance(_v, OpDef)]
