"""`mindspore.mint.linalg`: PyTorch-style linear algebra (`dim` / `keepdim`), each the pycompile op
that computes it."""
from __future__ import annotations

from pycompile import ops as _ops

inv = _ops.inverse
norm = _ops.norm            # (A, ord=None, dim=None, keepdim=False, *, dtype=None): the same arguments


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    return _ops.vector_norm(x, ord, dim, keepdim, dtype=dtype)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    return _ops.matrix_norm(A, ord, dim, keepdim, dtype=dtype)


def qr(A, mode="reduced"):
    return _ops.qr(A, mode)


__all__ = ["inv", "matrix_norm", "norm", "qr", "vector_norm"]
