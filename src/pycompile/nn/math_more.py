"""mindspore.nn's math Cells over ops: LGamma, DiGamma, IGamma, LBeta, MatDet, MatInverse,
MatrixDiag, MatrixDiagPart, MatrixSetDiag (values recorded from the wheel in
tests/conformance/cases_layers.py; the matrix Cells, which the wheel has no CPU kernel for, are
checked against NumPy in tests/nn/test_layers_more.py)."""
from __future__ import annotations

from pycompile import ops
from pycompile.common import dtype as mstype
from pycompile.nn.cell import Cell


class LGamma(Cell):
    """log |Γ(x)| elementwise."""

    def construct(self, x):
        return ops.lgamma(x)


class DiGamma(Cell):
    """ψ(x) = d/dx log Γ(x) elementwise."""

    def construct(self, x):
        return ops.digamma(x)


class IGamma(Cell):
    """The regularized lower incomplete gamma function P(a, x)."""

    def construct(self, a, x):
        return ops.igamma(a, x)


class LBeta(Cell):
    """log |B(x, y)| = lgamma(x) + lgamma(y) - lgamma(x + y)."""

    def construct(self, x, y):
        return ops.lgamma(x) + ops.lgamma(y) - ops.lgamma(x + y)


class MatDet(Cell):
    """The determinant of each matrix of the last two axes."""

    def construct(self, a):
        return ops.det(a)


class MatInverse(Cell):
    """The inverse of each matrix of the last two axes (MindSpore computes it through a Cholesky
    factorization, so its input should be symmetric positive definite; any invertible matrix
    works here)."""

    def construct(self, a):
        return ops.inverse(a)


class MatrixDiag(Cell):
    """(..., n) -> (..., n, n): each vector on the diagonal of a zero matrix."""

    def construct(self, x):
        return ops.diag_embed(x)


class MatrixDiagPart(Cell):
    """(..., m, n) -> (..., min(m, n)): the main diagonal of each matrix."""

    def construct(self, x):
        return ops.diagonal(x, 0, -2, -1)


class MatrixSetDiag(Cell):
    """Each matrix of the last two axes of `x` with its main diagonal replaced by `diagonal`."""

    def construct(self, x, diagonal):
        m, n = x.shape[-2:]
        k = min(m, n)
        eye = ops.cast(ops.eye(m, n, mstype.int32), mstype.bool_)
        diag = ops.diag_embed(diagonal)                     # (..., k, k)
        full = ops.pad(diag, (0, n - k, 0, m - k)) if (m, n) != (k, k) else diag
        return ops.select(eye, full, x)
