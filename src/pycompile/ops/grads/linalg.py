"""The gradient of the singular values (Svd part 's'): d s_i = u_i^T dA v_i, so the cotangent
of A is U diag(g) V^T - for the norms, u1 v1^T (ord=2), U V^T ('nuc'), the smallest pair's
u v^T (ord=-2). It is defined where the singular values are distinct and nonzero (where the
norms are differentiable). The factors ('u', 'v') are only read by this rule, so they get no
rule of their own."""
from __future__ import annotations

from pycompile.ops import functional as F
from pycompile.ops import prims as P
from pycompile.ops._table import OpValueError, apply
from pycompile.ops.grads import defgrad


@defgrad(P.Svd)
def _svd(g, out, x, part="s"):
    if part != "s":
        raise OpValueError("For 'Svd', only the singular values are differentiable, not the singular vectors")
    u = apply(P.Svd, [x], {"part": "u"})
    v = apply(P.Svd, [x], {"part": "v"})
    nd = len(v.shape)
    perm = tuple(range(nd - 2)) + (nd - 1, nd - 2)
    return (F.matmul(u * F.expand_dims(g, -2), F.transpose(v, perm)),)


@defgrad(P.MatrixSolve)
def _matrix_solve(g, out, a, b, adjoint=False):
    """X = op(A)^-1 B: dB = op(A)^-T g; dA = -dB X^T (op the identity), -X dB^T (op the transpose)."""
    db = apply(P.MatrixSolve, [a, g], {"adjoint": not adjoint})
    nd = len(out.shape)
    perm = tuple(range(nd - 2)) + (nd - 1, nd - 2)
    da = F.matmul(out, F.transpose(db, perm)) if adjoint else F.matmul(db, F.transpose(out, perm))
    return F.neg(da), db
