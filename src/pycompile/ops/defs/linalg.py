"""Singular values and vectors (the matrix norms ord=2, -2 and 'nuc' of ops.norm / matrix_norm), and
MatrixSolve (ops.matrix_solve: an LU solve per matrix).

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


Svd = defop("Svd", ("x",), attrs={"part": "s"}, infer=_svd_infer, eager=_svd_eager, kind=Kind.LAYOUT, batch="leading",
            lower=Template("svd"), doc="singular values (part 's') or vectors ('u', 'v') of the last two axes")

# ---- MatrixSolve: x with op(matrix) x = rhs, op the (conjugate) transpose when `adjoint` ------------------
# (complex in PyNative: the C template solves real floats, so graph code with complex is a CompileError)
_SOLVE_TYPES = (mstype.float16, mstype.float32, mstype.float64, mstype.complex64, mstype.complex128)


def _matrix_solve_infer(types, adjoint=False):
    a = tensor_arg("MatrixSolve", types[0], "matrix")
    b = tensor_arg("MatrixSolve", types[1], "rhs")
    if a.dtype not in _SOLVE_TYPES or b.dtype is not a.dtype:
        raise OpTypeError(f"For 'MatrixSolve', 'matrix' and 'rhs' must be float or complex Tensors of one dtype, but "
                          f"got {a} and {b}")
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise OpValueError(f"For 'MatrixSolve', 'matrix' must be square in its last two dimensions, but got shape "
                           f"{list(a.shape)}")
    if b.ndim != a.ndim or b.shape[:-1] != a.shape[:-1]:
        raise OpValueError(f"For 'MatrixSolve', 'rhs' must have shape matrix.shape[:-1] + (k,), but got "
                           f"{list(b.shape)} for a matrix of shape {list(a.shape)}")
    return b


def _matrix_solve_eager(a, b, adjoint=False):
    a, b = np.asarray(a), np.asarray(b)
    work = np.float32 if a.dtype == np.float16 else a.dtype       # float16 is solved in float32
    if adjoint:
        a = np.swapaxes(a, -1, -2)
        if a.dtype.kind == "c":
            a = np.conj(a)
    if a.size == 0 or b.size == 0:
        return np.zeros(b.shape, b.dtype)
    try:
        return np.linalg.solve(a.astype(work), b.astype(work)).astype(b.dtype)
    except np.linalg.LinAlgError:              # a singular matrix: NaN, as the C kernel
        return np.full(b.shape, np.nan, b.dtype)


MatrixSolve = defop("MatrixSolve", ("matrix", "rhs"), attrs={"adjoint": False}, infer=_matrix_solve_infer,
                    eager=_matrix_solve_eager, kind=Kind.LAYOUT, batch="leading", lower=Template("matrix_solve"),
                    doc="LAPACK's LU solve (gesv) per matrix of the batch")

# the ops this module declares (what `pycompile.ops.prims` re-exports)
__all__ = [_n for _n, _v in list(globals().items()) if isinstance(_v, OpDef)]
