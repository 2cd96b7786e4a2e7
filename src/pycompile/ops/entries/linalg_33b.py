"""Linear algebra as compositions of pycompile's ops: inverse (MatrixSolve against the identity),
det / slogdet / logdet / matrix_determinant / log_matrix_determinant (Gaussian elimination with
partial pivoting, unrolled over the n columns: the pivot row is chosen by argmax and moved by a
gather, so the gradient is that of the elimination), cholesky (the column recurrence, unrolled),
cholesky_solve / cholesky_inverse / lu_solve (triangular solves through MatrixSolve), qr
(Householder reflections with LAPACK's sign convention: R's diagonal is -sign(a_kk) |a_k|),
svd and pinv (the Svd op's singular values and vectors) and lstsq. Each matrix op works on the
last two axes and batches over the others. Unrolling costs O(n) graph nodes, so these are meant
for the small matrices model code decomposes (n up to a few dozen). Values recorded from the
wheel in tests/conformance/cases_33b.py; gradients checked in float64 in tests/ops/test_ops33b.py."""
import math

import numpy as np

import pycompile.ops as ops
from pycompile.common import dtype as mstype
from pycompile.common.tensor import Tensor, TensorMethods
from pycompile.ops import functional as F
from pycompile.ops import prims as P
from pycompile.ops._table import OpTypeError, OpValueError, apply
from pycompile.ops.entry import Arg, op_entry

_F3264 = frozenset({mstype.float32, mstype.float64})


def _square(x, op):
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise OpValueError(f"For '{op}', the input must be a batch of square matrices (..., n, n), but got shape "
                           f"{tuple(x.shape)}.")


def _float(x, op):
    if x.dtype not in _F3264:
        raise OpTypeError(f"For '{op}', the input must be a Float32 or Float64 Tensor, but got {x.dtype}.")


def _flat(x):
    """(..., m, n) -> (B, m, n) and the batch shape."""
    lead = tuple(x.shape[:-2])
    return ops.reshape(x, (math.prod(lead),) + tuple(x.shape[-2:])), lead


def _col(a, k):
    return ops.squeeze(ops.narrow(a, 2, k, 1), 2)


def _row(a, k):
    return ops.squeeze(ops.narrow(a, 1, k, 1), 1)


def _mT(x):
    return ops.swapaxes(x, -1, -2)


def _eye_like(x):
    n = x.shape[-1]
    return ops.broadcast_to(ops.eye(n, n, x.dtype), tuple(x.shape))


# ---- determinants --------------------------------------------------------------------------------
def _lu_pivots(x, op):
    """Gaussian elimination with partial pivoting of (B, n, n): (the pivots (B, n), the sign of
    the row permutation (B,))."""
    a = x
    bsz, n = x.shape[0], x.shape[-1]
    rows = Tensor(np.arange(n, dtype=np.int32))
    sign = ops.ones((bsz,), x.dtype)
    pivots = []
    for k in range(n):
        col = F.abs(_col(a, k))
        col = ops.where(F.less(rows, k), F.fill(x.dtype, (), -1.0), col)
        p = F.cast(ops.argmax(col, -1), mstype.int32)                          # (B,)
        pe = ops.expand_dims(p, 1)
        idx = ops.where(F.equal(rows, k), pe, ops.where(F.equal(rows, pe), F.fill(mstype.int32, (), k), rows))
        a = ops.gather_elements(a, 1, ops.broadcast_to(ops.expand_dims(idx, 2), (bsz, n, n)))
        sign = ops.where(F.equal(p, k), sign, -sign)
        piv = ops.squeeze(ops.narrow(_col(a, k), 1, k, 1), 1)
        pivots.append(piv)
        if k + 1 < n:
            safe = ops.where(F.equal(piv, 0), F.ones_like(piv), piv)
            factor = ops.where(F.greater(rows, k), _col(a, k) / ops.expand_dims(safe, 1), F.zeros_like(_col(a, k)))
            a = a - ops.expand_dims(factor, 2) * ops.expand_dims(_row(a, k), 1)
    return ops.stack(pivots, 1), sign


def _det_parts(input, op):
    _float(input, op)
    _square(input, op)
    x, lead = _flat(input)
    if input.shape[-1] == 0:
        one = ops.ones(lead, input.dtype)
        return one, one, ops.zeros(lead, input.dtype), lead
    piv, sign = _lu_pivots(x, op)
    return piv, sign, None, lead


@op_entry("det", tensor_method=True, args=[Arg("input")])
def det(input):
    """The determinant of each matrix of the batch (..., n, n)."""
    piv, sign, _, lead = _det_parts(input, "det")
    if piv.ndim == len(lead):
        return piv
    return ops.reshape(sign * ops.prod(piv, -1), lead)


@op_entry("matrix_determinant", primitive="MatrixDeterminant", tensor_method=True, args=[Arg("input")])
def matrix_determinant(input):
    """ops.det's other name."""
    return det(input)


def _slogdet(input, op):
    piv, sign, zero, lead = _det_parts(input, op)
    if zero is not None:
        return piv, zero
    s = sign * ops.prod(F.sign(piv), -1)
    return ops.reshape(s, lead), ops.reshape(ops.sum(F.log(F.abs(piv)), -1), lead)


@op_entry("slogdet", tensor_method=True, args=[Arg("input")])
def slogdet(input):
    """(sign of the determinant, log of its absolute value); a singular matrix gives (0, -inf)."""
    return _slogdet(input, "slogdet")


@op_entry("log_matrix_determinant", primitive="LogMatrixDeterminant", tensor_method=True, args=[Arg("input")])
def log_matrix_determinant(input):
    """ops.slogdet's other name: (sign, log |det|)."""
    return _slogdet(input, "LogMatrixDeterminant")


@op_entry("logdet", tensor_method=True, args=[Arg("input")])
def logdet(input):
    """log(det): nan where the determinant is negative, -inf where it is 0."""
    s, la = _slogdet(input, "logdet")
    return ops.where(F.less(s, 0), F.fill(la.dtype, (), math.nan), la)


# ---- inverses and solves -------------------------------------------------------------------------
def _matrix_solve(a, b):
    return apply(P.MatrixSolve, [a, b], {"adjoint": False})


@op_entry("inverse", tensor_method=True, args=[Arg("input")])
def inverse(input):
    """The inverse of each matrix (an LU solve against the identity; singular: nan)."""
    _float(input, "inverse")
    _square(input, "inverse")
    return _matrix_solve(input, _eye_like(input))


@op_entry("matrix_inverse", primitive="MatrixInverse", functional=False,
          args=[Arg("x"), Arg("adjoint", "value", default=False, init=True)])
def _matrix_inverse(x, adjoint=False):
    """ops.MatrixInverse(adjoint)(x): the inverse of x (of its transpose with adjoint)."""
    return inverse(_mT(x) if adjoint else x)


def _tril(x, diag=0):
    return ops.tril(x, diag)


@op_entry("cholesky", primitive="Cholesky", tensor_method=True,
          args=[Arg("input_x"), Arg("upper", "value", default=False, init=True)])
def cholesky(input_x, upper=False):
    """The Cholesky factor of each symmetric positive-definite matrix: L with A = L L^T (upper:
    U = L^T with A = U^T U). Only the lower triangle of A is read."""
    _float(input_x, "Cholesky")
    _square(input_x, "Cholesky")
    a, lead = _flat(input_x)
    n = a.shape[-1]
    rows = Tensor(np.arange(n, dtype=np.int32))
    lmat = F.zeros_like(a)
    for j in range(n):
        lj = _row(lmat, j)                                           # (B, n): row j of L so far
        v = _col(a, j) - ops.squeeze(ops.matmul(lmat, ops.expand_dims(lj, 2)), 2)
        d = F.sqrt(ops.squeeze(ops.narrow(v, 1, j, 1), 1))
        colj = ops.where(F.greater(rows, j), v / ops.expand_dims(d, 1),
                         ops.where(F.equal(rows, j), ops.broadcast_to(ops.expand_dims(d, 1), (a.shape[0], n)),
                                   F.zeros_like(v)))
        onehot = Tensor(np.eye(n, dtype=a.dtype.np)[j])
        lmat = lmat + ops.expand_dims(colj, 2) * onehot
    lmat = ops.reshape(lmat, tuple(input_x.shape))
    return _mT(lmat) if upper else lmat


def _lower(u, upper):
    return _mT(u) if upper else u


@op_entry("cholesky_solve", primitive="CholeskySolve", tensor_method=True,
          args=[Arg("input"), Arg("input2"), Arg("upper", "value", default=False, init=True)])
def cholesky_solve(input, input2, upper=False):
    """x with A x = input, A = L L^T given its Cholesky factor input2 (upper: A = U^T U)."""
    low = _lower(input2, upper)
    return _matrix_solve(_mT(low), _matrix_solve(low, input))


@op_entry("cholesky_inverse", primitive="CholeskyInverse", tensor_method=True,
          args=[Arg("input_x"), Arg("upper", "value", default=False, init=True)])
def cholesky_inverse(input_x, upper=False):
    """The inverse of A = L L^T (upper: U^T U) from its Cholesky factor."""
    _square(input_x, "CholeskyInverse")
    low = _lower(input_x, upper)
    return cholesky_solve(_eye_like(input_x), low)


@op_entry("lu_solve", tensor_method=True, args=[Arg("b"), Arg("LU_data"), Arg("LU_pivots")])
def lu_solve(b, LU_data, LU_pivots):
    """x with A x = b, from A's LU factorization (LAPACK's getrf: unit-lower L and U packed in
    LU_data, 1-based row swaps LU_pivots)."""
    _square(LU_data, "lu_solve")
    n = LU_data.shape[-1]
    rows = Tensor(np.arange(n, dtype=np.int32))
    bb = ops.broadcast_to(b, tuple(LU_data.shape[:-2]) + tuple(b.shape[-2:])) if b.ndim < LU_data.ndim else b
    piv = F.cast(LU_pivots, mstype.int32) - 1
    for i in range(n):
        p = ops.expand_dims(ops.squeeze(ops.narrow(piv, piv.ndim - 1, i, 1), -1), -1)    # (..., 1)
        idx = ops.where(F.equal(rows, i), p, ops.where(F.equal(rows, p), F.fill(mstype.int32, (), i), rows))
        bb = ops.gather_elements(bb, bb.ndim - 2, ops.broadcast_to(ops.expand_dims(idx, -1), tuple(bb.shape)))
    low = ops.tril(LU_data, -1) + _eye_like(LU_data)
    return _matrix_solve(ops.triu(LU_data), _matrix_solve(low, bb))


# ---- QR, SVD, pseudo-inverse, least squares -------------------------------------------------------
@op_entry("qr", args=[Arg("input"), Arg("mode", "value", default="reduced")])
def qr(input, mode="reduced"):
    """(Q, R) with input = Q R, Q orthonormal, R upper triangular (Householder; 'reduced': Q is
    (..., m, k), 'complete': (..., m, m); 'r': R only is meaningful, Q empty)."""
    if mode not in ("reduced", "complete", "r"):
        raise OpValueError(f"For 'qr', 'mode' must be 'reduced', 'complete' or 'r', but got {mode!r}.")
    _float(input, "qr")
    a, lead = _flat(input)
    bsz, m, n = a.shape
    k = min(m, n)
    rows = Tensor(np.arange(m, dtype=np.int32))
    q = ops.broadcast_to(ops.eye(m, m, a.dtype), (bsz, m, m))
    r = a
    for j in range(min(k, m - 1)):      # LAPACK reflects nothing for a one-element column
        x = ops.where(F.less(rows, j), F.zeros_like(_col(r, j)), _col(r, j))           # (B, m)
        alpha = ops.squeeze(ops.narrow(x, 1, j, 1), 1)
        norm = F.sqrt(ops.sum(F.square(x), 1))
        s = ops.where(F.less(alpha, 0), -F.ones_like(alpha), F.ones_like(alpha))
        e = Tensor(np.eye(m, dtype=a.dtype.np)[j])
        v = x + ops.expand_dims(s * norm, 1) * e
        vv = ops.sum(F.square(v), 1)
        scale = ops.where(F.equal(vv, 0), F.zeros_like(vv), 2.0 / ops.where(F.equal(vv, 0), F.ones_like(vv), vv))
        ve = ops.expand_dims(v, 2)                                                        # (B, m, 1)
        r = r - ops.expand_dims(ops.expand_dims(scale, 1), 2) * ops.matmul(ve, ops.matmul(_mT(ve), r))
        q = q - ops.expand_dims(ops.expand_dims(scale, 1), 2) * ops.matmul(ops.matmul(q, ve), _mT(ve))
    r = ops.triu(r)
    if mode == "complete":
        qs, rs = q, r
    else:
        qs, rs = ops.narrow(q, 2, 0, k), ops.narrow(r, 1, 0, k)
    qs = ops.reshape(qs, lead + tuple(qs.shape[1:]))
    rs = ops.reshape(rs, lead + tuple(rs.shape[1:]))
    if mode == "r":
        return ops.zeros((0,), input.dtype), rs
    return qs, rs


def _svd_parts(x):
    return (apply(P.Svd, [x], {"part": "s"}), apply(P.Svd, [x], {"part": "u"}), apply(P.Svd, [x], {"part": "v"}))


@op_entry("svd", tensor_method=True, args=[Arg("input"), Arg("full_matrices", "value", default=False),
                                            Arg("compute_uv", "value", default=True)])
def svd(input, full_matrices=False, compute_uv=True):
    """(s, u, v) with input = u diag(s) v^T, s descending (reduced factors; each vector's sign
    is the decomposition's own, as in any SVD); compute_uv=False: s only."""
    _float(input, "Svd")
    if full_matrices and compute_uv and input.shape[-1] != input.shape[-2]:
        raise OpValueError("For 'Svd', full_matrices=True is not supported by pycompile for non-square matrices.")
    if not compute_uv:
        return apply(P.Svd, [input], {"part": "s"})
    return _svd_parts(input)


@op_entry("pinv", args=[Arg("x"), Arg("atol", "value", default=None, keyword=True),
                        Arg("rtol", "value", default=None, keyword=True),
                        Arg("hermitian", "value", default=False, keyword=True)])
def pinv(x, atol=None, rtol=None, hermitian=False):
    """The Moore-Penrose pseudo-inverse V diag(1/s) U^T, singular values at most
    max(atol, rtol * s_max) treated as 0 (rtol defaults to eps * max(m, n) when atol is None)."""
    _float(x, "pinv")
    s, u, v = _svd_parts(x)
    eps = float(mstype.finfo(x.dtype.np).eps)
    if rtol is None:
        rtol = eps * max(x.shape[-2:]) if atol is None or atol == 0 else 0.0
    smax = ops.amax(s, -1, True)
    cut = ops.maximum(F.fill(s.dtype, (), float(atol or 0.0)) + F.zeros_like(smax), smax * float(rtol))
    keep = F.greater(s, cut)
    inv = ops.where(keep, 1.0 / ops.where(keep, s, F.ones_like(s)), F.zeros_like(s))
    return ops.matmul(v * ops.expand_dims(inv, -2), _mT(u))


@op_entry("lstsq", tensor_method=True, args=[Arg("input"), Arg("A")])
def lstsq(input, A):
    """The least-squares solution X of min ||input X - A|| (input (m, n) of full rank, A (m, k)):
    pinv(input) A."""
    _float(input, "Lstsq")
    if input.ndim != 2 or A.ndim not in (1, 2) or A.shape[0] != input.shape[0]:
        raise OpValueError(f"For 'Lstsq', 'input' must be (m, n) and 'A' (m,) or (m, k), but got "
                           f"{tuple(input.shape)} and {tuple(A.shape)}.")
    a2 = ops.expand_dims(A, 1) if A.ndim == 1 else A
    out = ops.matmul(pinv(input), F.cast(a2, input.dtype))
    return ops.squeeze(out, 1) if A.ndim == 1 else out


# ---- the matrix exponential ---------------------------------------------------------------------
_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0, 129060195264000.0,
           10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0)
_THETA13 = 5.371920351148152
_MAX_SQUARINGS = 40


@op_entry("matrix_exp", primitive="MatrixExp", args=[Arg("input")])
def matrix_exp(input):
    """exp of each square matrix: the [13/13] Pade approximant of A / 2^s, squared s times (Higham
    2005), s from A's 1-norm. The squarings run as a fixed number of steps that keep the matrix
    once s is reached, so graph code needs no shape or count known from the data."""
    _float(input, "MatrixExp")
    _square(input, "MatrixExp")
    a, lead = _flat(input)
    bsz, n = a.shape[0], a.shape[-1]
    norm = ops.amax(ops.sum(F.abs(a), 1), 1)                                      # (B,) the 1-norm
    s = ops.maximum(F.ceil(F.log(norm / _THETA13) / math.log(2.0)), F.zeros_like(norm))
    s = ops.where(F.isfinite(s), s, F.zeros_like(s))
    s = ops.minimum(s, F.fill(s.dtype, (), float(_MAX_SQUARINGS)))
    x = a / ops.expand_dims(ops.expand_dims(F.pow(2.0, s), 1), 2)
    eye = ops.broadcast_to(ops.eye(n, n, a.dtype), (bsz, n, n))
    b = _PADE13
    x2 = ops.matmul(x, x)
    x4 = ops.matmul(x2, x2)
    x6 = ops.matmul(x4, x2)
    u = ops.matmul(x, ops.matmul(x6, b[13] * x6 + b[11] * x4 + b[9] * x2) + b[7] * x6 + b[5] * x4 + b[3] * x2
                   + b[1] * eye)
    v = ops.matmul(x6, b[12] * x6 + b[10] * x4 + b[8] * x2) + b[6] * x6 + b[4] * x4 + b[2] * x2 + b[0] * eye
    r = _matrix_solve(v - u, v + u)
    for i in range(_MAX_SQUARINGS):
        more = ops.expand_dims(ops.expand_dims(F.greater(s, float(i)), 1), 2)
        r = ops.where(more, ops.matmul(r, r), r)
    return ops.reshape(r, tuple(input.shape))
