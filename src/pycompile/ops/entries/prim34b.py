"""MindSpore 2.10 Primitives that were missing (second batch): SegmentSum / SegmentMax / SegmentMin /
SegmentMean / SegmentProd, NuclearNorm, MatrixSolveLs, CheckNumerics, Betainc, Eig (with ops.eig and
ops.eigvals), ComputeAccidentalHits, RaggedRange, NonMaxSuppressionWithOverlaps and EditDistance.
The random ones (LogNormalReverse, RandomPoisson, NonDeterministicInts, Cauchy, Bernoulli) are in
prim34b_random.py. Values recorded from the wheel in tests/conformance/cases_prim34b.py.

Each op is a decomposition into pycompile's ops where one exists. Where an output's shape depends on
input values (the segment count of Segment*, the length of RaggedRange's values, of the boxes
NonMaxSuppressionWithOverlaps keeps, of ComputeAccidentalHits' hits, EditDistance's batch shape) those
inputs are MindSpore's value-depend inputs: known in PyNative, and in graph code constants or Tensor
arguments of the compiled call, which then compiles once per value (`shape_values`). Eig runs NumPy's
eigen solver on the host (ops.Custom's pyfunc call, so compiled code calls back into it): no
composition of pycompile's ops gives the eigenvalues of a general matrix."""
from __future__ import annotations

import numpy as np

import pycompile.ops as ops
from pycompile.common import dtype as mstype
from pycompile.common.tensor import Tensor
from pycompile.ops import function_math as FM
from pycompile.ops import functional as F
from pycompile.ops._table import OpRuntimeError, OpTypeError, OpValueError, apply
from pycompile.ops import prims as P
from pycompile.ops.entries.image_img33 import shape_values
from pycompile.ops.entry import Arg, op_entry

_IDS = frozenset({mstype.int32, mstype.int64})
_REAL = frozenset({mstype.float16, mstype.float32, mstype.float64, mstype.int8, mstype.int16, mstype.int32,
                   mstype.int64, mstype.uint8, mstype.uint16, mstype.uint32, mstype.uint64})
_NUMBER = _REAL | {mstype.complex64, mstype.complex128}
_F32_64 = frozenset({mstype.float32, mstype.float64})


def _wrap(a: np.ndarray):
    return Tensor._wrap(np.ascontiguousarray(a))


def _bool_attr(op, what, v):
    if not isinstance(v, bool):
        raise OpTypeError(f"For '{op}', the type of '{what}' should be 'bool', but got type '{type(v).__name__}'.")


# ---- Segment* -----------------------------------------------------------------------------------------
def _segment_ids(op, input_x, segment_ids) -> int:
    """MindSpore's checks of sorted segment ids; the number of output rows (the last id + 1)."""
    if input_x.ndim < 1:
        raise OpValueError(f"For primitive[{op}], the rank of 'x' must be greater than or equal to 1, but got "
                           f"{input_x.ndim}.")
    if segment_ids.ndim != 1:
        raise OpValueError(f"For primitive[{op}], the rank of 'segment_ids' must be equal to 1, but got "
                           f"{segment_ids.ndim}.")
    if segment_ids.shape[0] != input_x.shape[0]:
        raise OpValueError(f"For '{op}', the amount of data for segment_ids must be equal to the first dimension of "
                           f"the shape of input_x, but got {segment_ids.shape[0]} and {input_x.shape[0]}.")
    ids = shape_values(segment_ids, "segment_ids", op).astype(np.int64).reshape(-1)
    if ids.size == 0:
        return 0
    if ids.min() < 0:
        raise OpValueError(f"For 'SegmentOp', the values of segment_ids must be nonnegative, but got {ids.min()}.")
    if np.any(ids[1:] < ids[:-1]):
        raise OpValueError("For 'SegmentOp', segment_ids must be a tensor with element values sorted in ascending "
                           "order.")
    return int(ids[-1]) + 1


def _counts(segment_ids, n, like):
    """The rows in each segment, shaped to broadcast against a (n, ...) result of `like`'s rank."""
    c = ops.unsorted_segment_sum(F.ones((segment_ids.shape[0],), mstype.int32), segment_ids, n)
    return F.reshape(c, (n,) + (1,) * (like.ndim - 1))


def _segment_extreme(kind, op, input_x, segment_ids):
    n = _segment_ids(op, input_x, segment_ids)
    fn = ops.unsorted_segment_max if kind == "max" else ops.unsorted_segment_min
    out = fn(input_x, segment_ids, n)
    zero = F.zeros(tuple(out.shape), out.dtype)
    if input_x.dtype.is_float:      # a NaN in a segment is its maximum and minimum, as the kernel's comparisons give
        has_nan = ops.unsorted_segment_max(F.cast(F.isnan(input_x), mstype.int32), segment_ids, n)
        out = F.select(F.greater(has_nan, 0), F.fill(out.dtype, tuple(out.shape), float("nan")), out)
    return F.select(F.greater(F.broadcast_to(_counts(segment_ids, n, out), tuple(out.shape)), 0), out, zero)


_SEG_ARGS = [Arg("input_x", dtypes=_NUMBER), Arg("segment_ids", dtypes=_IDS)]
_SEG_REAL = [Arg("input_x", dtypes=_REAL), Arg("segment_ids", dtypes=_IDS)]


@op_entry("segment_sum_primitive", primitive="SegmentSum", functional=False, args=_SEG_ARGS)
def segment_sum_primitive(input_x, segment_ids):
    """Row r of the output: the sum of the rows of input_x whose (sorted) segment id is r, for
    r < segment_ids[-1] + 1 (0 for an empty segment)."""
    return ops.unsorted_segment_sum(input_x, segment_ids, _segment_ids("SegmentSum", input_x, segment_ids))


@op_entry("segment_prod_primitive", primitive="SegmentProd", functional=False, args=_SEG_ARGS)
def segment_prod_primitive(input_x, segment_ids):
    """The product of each segment's rows (1 for an empty segment, as the wheel gives)."""
    return ops.unsorted_segment_prod(input_x, segment_ids, _segment_ids("SegmentProd", input_x, segment_ids))


@op_entry("segment_max_primitive", primitive="SegmentMax", functional=False, args=_SEG_REAL)
def segment_max_primitive(input_x, segment_ids):
    """The maximum of each segment's rows (NaN if one is NaN; 0 for an empty segment)."""
    return _segment_extreme("max", "SegmentMax", input_x, segment_ids)


@op_entry("segment_min_primitive", primitive="SegmentMin", functional=False, args=_SEG_REAL)
def segment_min_primitive(input_x, segment_ids):
    """The minimum of each segment's rows (NaN if one is NaN; 0 for an empty segment)."""
    return _segment_extreme("min", "SegmentMin", input_x, segment_ids)


@op_entry("segment_mean_primitive", primitive="SegmentMean", functional=False, args=_SEG_ARGS)
def segment_mean_primitive(input_x, segment_ids):
    """The mean of each segment's rows: their sum over their count in input_x's dtype (integers:
    truncated, as C division); 0 for an empty segment."""
    n = _segment_ids("SegmentMean", input_x, segment_ids)
    total = ops.unsorted_segment_sum(input_x, segment_ids, n)
    count = F.broadcast_to(ops.maximum(_counts(segment_ids, n, total), 1), tuple(total.shape))
    if input_x.dtype.is_float or input_x.dtype in (mstype.complex64, mstype.complex128):
        return total / F.cast(count, input_x.dtype)
    return F.cast(ops.truncate_div(F.cast(total, mstype.int64), F.cast(count, mstype.int64)), input_x.dtype)


# ---- NuclearNorm --------------------------------------------------------------------------------------
def _nuclear_dims(dim, ndim):
    if ndim < 2:
        raise OpValueError(f"For primitive[NuclearNorm], the input_size must be greater than or equal to 2, but got "
                           f"{ndim}.")
    if dim is None:
        if ndim != 2:
            raise OpValueError(f"For 'NuclearNorm', when dim is not set, or dim is None, the input_size must be equal "
                               f"to 2, but got {ndim}.")
        return 0, 1
    if not isinstance(dim, (list, tuple)) or any(isinstance(d, bool) or not isinstance(d, int) for d in dim):
        raise OpTypeError(f"For 'NuclearNorm', 'dim' must be a list of 2 ints, but got {dim!r}.")
    if len(dim) != 2:
        raise OpValueError(f"For 'NuclearNorm', the 'length of dim_size' must be int and must = 2, but got "
                           f"'{len(dim)}' with type 'int'.")
    for d in dim:
        if not -ndim <= d < ndim:
            raise OpValueError(f"For primitive[NuclearNorm], the dim value must be in [{-ndim},{ndim}), but got {d}.")
    d0, d1 = dim[0] % ndim, dim[1] % ndim
    if d0 == d1:
        raise OpValueError("For 'NuclearNorm', the elements in attribute dim must be different.")
    return d0, d1


@op_entry("nuclear_norm_primitive", primitive="NuclearNorm", functional=False,
          args=[Arg("input", dtypes=_F32_64), Arg("dim", "value", default=None, init=True),
                Arg("keepdim", "value", default=False, init=True)])
def nuclear_norm_primitive(input, dim=None, keepdim=False):
    """The sum of the singular values of each matrix spanned by the two axes `dim` (all of a 2-D
    input when None); keepdim keeps those axes with length 1."""
    d0, d1 = _nuclear_dims(dim, input.ndim)
    rest = [a for a in range(input.ndim) if a not in (d0, d1)]
    mats = ops.transpose(input, tuple(rest) + (d0, d1))
    out = ops.sum(ops.svd(mats, compute_uv=False), -1)
    if keepdim:
        shape = list(input.shape)
        shape[d0] = shape[d1] = 1
        out = F.reshape(out, tuple(shape))
    return out


# ---- MatrixSolveLs ------------------------------------------------------------------------------------
def _adjoint(x):
    return ops.swapaxes(x, -1, -2)


@op_entry("matrix_solve_ls_primitive", primitive="MatrixSolveLs", functional=False,
          args=[Arg("matrix", dtypes=_F32_64), Arg("rhs", dtypes=_F32_64),
                Arg("l2", dtypes=frozenset({mstype.float64})), Arg("fast", "value", default=True, init=True)])
def matrix_solve_ls_primitive(matrix, rhs, l2, fast=True):
    """The least-squares solutions X of matrix X = rhs. fast: the regularized normal equations,
    (A^T A + l2 I)^-1 A^T B for a tall or square A, A^T (A A^T + l2 I)^-1 B for a wide one; else
    the minimum-norm solution pinv(A) B (l2 is not used there, as in the kernel)."""
    op = "MatrixSolveLs"
    _bool_attr(op, "fast", fast)
    if matrix.dtype is not rhs.dtype:
        raise OpTypeError(f"For primitive[{op}], the input type must be same.")
    if matrix.ndim < 2:
        raise OpValueError(f"For primitive[{op}], the input matrix rank must be greater than or equal to 2, but got "
                           f"{matrix.ndim}.")
    if rhs.ndim < 2:
        raise OpValueError(f"For primitive[{op}], the input rhs rank must be greater than or equal to 2, but got "
                           f"{rhs.ndim}.")
    if l2.ndim != 0:
        raise OpValueError(f"For primitive[{op}], the input l2 rank must be equal to 0, but got {l2.ndim}.")
    m, n = matrix.shape[-2], matrix.shape[-1]
    if rhs.shape[-2] != m:
        raise OpValueError(f"{op} shape error, got matrix_row: {m}, rhs_row: {rhs.shape[-2]}. In {op} matrix_row and "
                           f"rhs_row should be equal.")
    if tuple(matrix.shape[:-2]) != tuple(rhs.shape[:-2]):
        raise OpValueError(f"For '{op}', the batch shapes of 'matrix' and 'rhs' must be the same, but got "
                           f"{list(matrix.shape[:-2])} and {list(rhs.shape[:-2])}.")
    if not fast:
        return ops.matmul(ops.pinv(matrix), rhs)
    lam = F.cast(l2, matrix.dtype)
    if m >= n:
        gram = ops.matmul(_adjoint(matrix), matrix) + lam * _wrap(np.eye(n, dtype=matrix.dtype.np))
        return FM.matrix_solve(gram, ops.matmul(_adjoint(matrix), rhs), False)
    gram = ops.matmul(matrix, _adjoint(matrix)) + lam * _wrap(np.eye(m, dtype=matrix.dtype.np))
    return ops.matmul(_adjoint(matrix), FM.matrix_solve(gram, rhs, False))


# ---- CheckNumerics ------------------------------------------------------------------------------------
def _raise_if(flag, message):
    """A run-time check: RuntimeError(message) when the program reaches it with `flag` true."""
    bad = F.select(flag, F.fill(mstype.float32, (), float("inf")), F.zeros((), mstype.float32))
    return apply(P.CheckFinite, [bad], {"message": message})


@op_entry("check_numerics_primitive", primitive="CheckNumerics", functional=False,
          args=[Arg("x", dtypes=frozenset({mstype.float16, mstype.float32, mstype.float64}))])
def check_numerics_primitive(x):
    """x unchanged; RuntimeError when it holds a NaN or an infinity (checked when the program runs,
    compiled too), saying which the first such element (in memory order) is."""
    flat = F.reshape(x, (-1,))
    bad = F.logical_not(F.isfinite(flat))
    if flat.shape[0] == 0:
        return x
    first = F.logical_and(bad, F.equal(ops.cumsum(F.cast(bad, mstype.int32), 0), 1))
    first_nan = ops.any(F.logical_and(first, F.isnan(flat)))
    any_bad = ops.any(bad)
    c1 = _raise_if(first_nan, ": Tensor had NaN values")
    c2 = _raise_if(F.logical_and(any_bad, F.logical_not(first_nan)), ": Tensor had Inf values")
    return F.depend(F.depend(x, c1), c2)


# ---- Betainc ------------------------------------------------------------------------------------------
_TINY = 1e-300


def _nonzero(v):
    return F.select(F.less(ops.abs(v), _TINY), F.fill(v.dtype, tuple(v.shape), _TINY), v)


def _beta_cf(a, b, x, terms):
    """The continued fraction of I_x(a, b) (modified Lentz), `terms` pairs of steps."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = F.ones(tuple(x.shape), x.dtype)
    d = 1.0 / _nonzero(1.0 - qab * x / qap)
    h = d
    for m in range(1, terms + 1):
        m2 = 2.0 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 / _nonzero(1.0 + aa * d)
        c = _nonzero(1.0 + aa / c)
        h = h * d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 / _nonzero(1.0 + aa * d)
        c = _nonzero(1.0 + aa / c)
        h = h * d * c
    return h


@op_entry("betainc_primitive", primitive="Betainc", functional=False,
          args=[Arg("a", dtypes=_F32_64), Arg("b", dtypes=_F32_64), Arg("x", dtypes=_F32_64)])
def betainc_primitive(a, b, x):
    """The regularized incomplete beta function I_x(a, b), elementwise over three tensors of one
    shape (NaN where a <= 0, b <= 0 or x is outside [0, 1]); computed in float64 by the continued
    fraction, on the side of (a + 1) / (a + b + 2) where it converges fast."""
    if a.dtype is not b.dtype or a.dtype is not x.dtype:
        raise OpTypeError("For primitive[Betainc], the input type must be same.")
    for what, t in (("b", b), ("x", x)):
        if tuple(t.shape) != tuple(a.shape):
            dims = ", ".join(str(s) for s in t.shape)
            adims = ", ".join(str(s) for s in a.shape)
            raise OpValueError(f"For 'Betainc, shape of {what} ({dims}) are not consistent with the shape a ({adims}) .")
    dt = a.dtype
    a64, b64, x64 = (F.cast(t, mstype.float64) for t in (a, b, x))
    flip = F.greater(x64, (a64 + 1.0) / (a64 + b64 + 2.0))
    p = F.select(flip, b64, a64)
    q = F.select(flip, a64, b64)
    y = F.select(flip, 1.0 - x64, x64)
    valid = F.logical_and(F.logical_and(F.greater(a64, 0.0), F.greater(b64, 0.0)),
                          F.logical_and(F.greater_equal(x64, 0.0), F.less_equal(x64, 1.0)))
    one = F.ones(tuple(x64.shape), mstype.float64)
    ps, qs = F.select(valid, p, one), F.select(valid, q, one)
    ys = F.select(valid, y, 0.5 * one)
    log_y = ops.log(F.select(F.greater(ys, 0.0), ys, one))
    log_1my = ops.log(F.select(F.less(ys, 1.0), 1.0 - ys, one))
    front = ops.exp(ops.lgamma(ps + qs) - ops.lgamma(ps) - ops.lgamma(qs) + ps * log_y + qs * log_1my)
    front = F.select(F.greater(ys, 0.0), front, F.zeros(tuple(x64.shape), mstype.float64))
    part = front * _beta_cf(ps, qs, ys, 100 if dt is mstype.float64 else 60) / ps
    out = F.select(flip, 1.0 - part, part)
    out = F.select(valid, out, F.fill(mstype.float64, tuple(x64.shape), float("nan")))
    return F.cast(out, dt)


# ---- Eig ----------------------------------------------------------------------------------------------
_EIG_IN = frozenset({mstype.float32, mstype.float64, mstype.complex64, mstype.complex128})
_EIG_OPS: dict = {}


def _eig_host(a: np.ndarray, vectors: bool) -> np.ndarray:
    """Each matrix's eigenvalues (or unit eigenvectors, as columns) in the order of ascending modulus
    that Eigen's ComplexEigenSolver sorts them into (a selection sort: its order among values of one
    modulus is its own)."""
    cdt = np.complex64 if a.dtype in (np.float32, np.complex64) else np.complex128
    flat = a.reshape((-1,) + a.shape[-2:])
    vals = np.zeros(flat.shape[:-1], cdt)
    vecs = np.zeros(flat.shape, cdt)
    for k, mat in enumerate(flat):
        w, v = np.linalg.eig(mat.astype(np.complex128))
        order = np.argsort(np.abs(w), kind="stable")
        vals[k] = w[order]
        v = v[:, order]
        vecs[k] = v / np.linalg.norm(v, axis=0, keepdims=True)
    return (vecs if vectors else vals).reshape(a.shape if vectors else a.shape[:-1])


def _eig_op(vectors: bool):
    if vectors not in _EIG_OPS:
        cplx = {mstype.float32: mstype.complex64, mstype.complex64: mstype.complex64,
                mstype.float64: mstype.complex128, mstype.complex128: mstype.complex128}
        _EIG_OPS[vectors] = ops.Custom(lambda a: _eig_host(a, vectors),
                                       out_shape=(lambda s: s) if vectors else (lambda s: s[:-1]),
                                       out_dtype=lambda d: cplx[d], func_type="pyfunc")
    return _EIG_OPS[vectors]


def _eig_check(x, op):
    if x.ndim < 2:
        raise OpValueError(f"For {op}, x should be at least rank 2, but got {x.ndim}.")
    if x.shape[-1] != x.shape[-2]:
        raise OpValueError(f"For {op}, x should be square(squares), but got {x.shape[-2]}  {x.shape[-1]} "
                           f"matrix(matrices).")


@op_entry("eig_primitive", primitive="Eig", functional=False,
          args=[Arg("x", dtypes=_EIG_IN), Arg("compute_v", "value", default=False, init=True)])
def eig_primitive(x, compute_v=False):
    """(eigenvalues, eigenvectors) of each square matrix, complex, the values in ascending modulus
    and the vectors (columns) of unit norm; compute_v=False: the eigenvectors are a 0-D zero."""
    if not isinstance(compute_v, bool):
        raise OpTypeError(f"Failed calling Eig with \"Eig(compute_v={type(compute_v).__name__})(x=Tensor)\".")
    _eig_check(x, "Eig")
    vals = _eig_op(False)(x)
    if not compute_v:
        return vals, F.zeros((), vals.dtype)
    return vals, _eig_op(True)(x)


@op_entry("eig", args=[Arg("A", dtypes=_EIG_IN)])
def eig(A):
    """(eigenvalues, eigenvectors) of each square matrix of A: Eig(compute_v=True)."""
    _eig_check(A, "Eig")
    return _eig_op(False)(A), _eig_op(True)(A)


@op_entry("eigvals", args=[Arg("A", dtypes=_EIG_IN)])
def eigvals(A):
    """The eigenvalues of each square matrix of A (complex, ascending modulus)."""
    _eig_check(A, "Eig")
    return _eig_op(False)(A)


# ---- ComputeAccidentalHits ----------------------------------------------------------------------------
def _positive_int(op, what, v):
    if isinstance(v, bool) or not isinstance(v, int):
        raise OpTypeError(f"For '{op}', the type of '{what}' should be 'int', but got type '{type(v).__name__}'.")
    if v < 1:
        raise OpValueError(f"For '{op}', the argument '{what}' must >= 1, but got {v}.")


@op_entry("compute_accidental_hits_primitive", primitive="ComputeAccidentalHits", functional=False,
          args=[Arg("true_classes", dtypes=frozenset({mstype.int64})),
                Arg("sampled_candidates", dtypes=frozenset({mstype.int64})),
                Arg("num_true", "value", default=1, init=True,
                    check=lambda v, op: _positive_int(op, "num_true", v))])
def compute_accidental_hits_primitive(true_classes, sampled_candidates, num_true=1):
    """(indices int32, ids int64, weights float32): for each row i of true_classes, each of its
    classes in order and each position j (ascending) of sampled_candidates holding that class, a hit
    (i, j) of weight -FLT_MAX."""
    op = "ComputeAccidentalHits"
    if true_classes.ndim != 2:
        raise OpValueError(f"For primitive[{op}], the dim of true_classes must be equal to 2, but got "
                           f"{true_classes.ndim}.")
    if true_classes.shape[1] != num_true:
        raise OpValueError(f"For {op}, true_classes shape[1]={true_classes.shape[1]} must be equal to num_true= "
                           f"{num_true}")
    if sampled_candidates.ndim != 1:
        raise OpValueError(f"For primitive[{op}], the dim of sampled_candidates must be equal to 1, but got "
                           f"{sampled_candidates.ndim}.")
    tc = shape_values(true_classes, "true_classes", op)
    sc = shape_values(sampled_candidates, "sampled_candidates", op).reshape(-1)
    rows, ids = [], []
    for i, classes in enumerate(tc):
        for c in classes:
            hit = np.nonzero(sc == c)[0]
            rows.extend([i] * len(hit))
            ids.extend(hit.tolist())
    return (_wrap(np.asarray(rows, np.int32)), _wrap(np.asarray(ids, np.int64)),
            _wrap(np.full(len(rows), -np.finfo(np.float32).max, np.float32)))


# ---- RaggedRange --------------------------------------------------------------------------------------
_RANGE_IN = frozenset({mstype.float32, mstype.float64, mstype.int32, mstype.int64})


def _tsplits(v, op):
    if v not in (mstype.int32, mstype.int64):
        raise OpTypeError(f"For '{op}', the 'Tsplits' should be one of [mindspore.int64, mindspore.int32], but got "
                          f"'{v}'.")


def _row_size(start, limit, delta, integral):
    if (delta > 0 and limit < start) or (delta < 0 and limit > start):
        return 0
    if integral:
        return int((abs(int(limit) - int(start)) + abs(int(delta)) - 1) // abs(int(delta)))
    return int(np.ceil(abs((limit - start) / delta)))


@op_entry("ragged_range_primitive", primitive="RaggedRange", functional=False,
          args=[Arg("starts", dtypes=_RANGE_IN), Arg("limits", dtypes=_RANGE_IN), Arg("deltas", dtypes=_RANGE_IN),
                Arg("Tsplits", "value", init=True, check=_tsplits)])
def ragged_range_primitive(starts, limits, deltas, Tsplits):
    """(rt_nested_splits, rt_dense_values): the ranges start, start + delta, ... (< limit, or > limit
    for a negative delta) of each row, concatenated, and the row offsets (Tsplits) into them."""
    op = "RaggedRange"
    if not starts.dtype is limits.dtype is deltas.dtype:
        raise OpTypeError(f"For {op}, starts, limits, and deltas must have the same type, but got starts "
                          f"Tensor[{starts.dtype}], limits Tensor[{limits.dtype}], deltas Tensor[{deltas.dtype}].")
    for what, t in (("starts", starts), ("limits", limits), ("deltas", deltas)):
        if t.ndim > 1:
            raise OpValueError(f"For primitive[{op}], the dimension of {op} input {what} must be less than 2, but got "
                               f"{t.ndim}.")
    if not tuple(starts.shape) == tuple(limits.shape) == tuple(deltas.shape):
        def dims(t):
            return "(" + "".join(f"{s}," for s in t.shape) + ")"
        raise OpValueError(f"For {op}, starts, limits, and deltas must have the same shape, but got starts "
                           f"{dims(starts)}, limits {dims(limits)}, deltas {dims(deltas)}.")
    s, l, d = (shape_values(t, what, op).reshape(-1) for t, what in
               ((starts, "starts"), (limits, "limits"), (deltas, "deltas")))
    if np.any(d == 0):
        raise OpValueError(f"For {op}, requires input delta != 0.")
    integral = not starts.dtype.is_float
    dt = np.dtype(starts.dtype.np)
    splits, values = [0], []
    for start, limit, delta in zip(s, l, d):
        size = _row_size(start, limit, delta, integral)
        v, step = dt.type(start), dt.type(delta)
        for _ in range(size):          # each value the previous one plus delta, as the kernel adds
            values.append(v)
            v = dt.type(v + step)
        splits.append(splits[-1] + size)
    return _wrap(np.asarray(splits, Tsplits.np)), _wrap(np.asarray(values, dt).reshape(-1))


# ---- NonMaxSuppressionWithOverlaps --------------------------------------------------------------------
_NMS_F = frozenset({mstype.float16, mstype.float32})


@op_entry("non_max_suppression_with_overlaps_primitive", primitive="NonMaxSuppressionWithOverlaps",
          functional=False,
          args=[Arg("overlaps", dtypes=_NMS_F), Arg("scores", dtypes=_NMS_F),
                Arg("max_output_size", dtypes=frozenset({mstype.int32})), Arg("overlap_threshold", dtypes=_NMS_F),
                Arg("score_threshold", dtypes=_NMS_F)])
def non_max_suppression_with_overlaps_primitive(overlaps, scores, max_output_size, overlap_threshold,
                                                score_threshold):
    """The int32 indices of the boxes kept greedily by descending score (ties: the lower index first):
    a box scoring above score_threshold is kept unless its overlap with a kept box (overlaps[box,
    kept]) is at least overlap_threshold; at most max_output_size of them."""
    op = "NonMaxSuppressionWithOverlaps"
    if not overlaps.dtype is scores.dtype is overlap_threshold.dtype is score_threshold.dtype:
        raise OpTypeError(f"For primitive[{op}], the input type must be same.")
    if overlaps.ndim != 2:
        raise OpValueError(f"For primitive[{op}], the rank of overlaps must be equal to 2, but got {overlaps.ndim}.")
    if overlaps.shape[1] != overlaps.shape[0]:
        raise OpValueError(f"For primitive[{op}], the size of the second dimension of overlaps must be equal to "
                           f"{overlaps.shape[0]}, but got {overlaps.shape[1]}.")
    if scores.ndim != 1:
        raise OpValueError(f"For primitive[{op}], the rank of scores must be equal to 1, but got {scores.ndim}.")
    if scores.shape[0] != overlaps.shape[0]:
        raise OpValueError(f"For primitive[{op}], the length of scores must be equal to {overlaps.shape[0]}, but got "
                           f"{scores.shape[0]}.")
    for what, t in (("max_output_size", max_output_size), ("overlap_threshold", overlap_threshold),
                    ("score_threshold", score_threshold)):
        if t.ndim != 0:
            raise OpValueError(f"For primitive[{op}], the rank of {what} must be equal to 0, but got {t.ndim}.")
    ov = shape_values(overlaps, "overlaps", op).astype(np.float32)
    sc = shape_values(scores, "scores", op).astype(np.float32)
    limit = int(shape_values(max_output_size, "max_output_size", op))
    ot = np.float32(shape_values(overlap_threshold, "overlap_threshold", op))
    st = np.float32(shape_values(score_threshold, "score_threshold", op))
    if limit < 0:
        raise OpValueError(f"For '{op}', the input max_output_size must be non-negative.")
    kept: list = []
    for box in np.argsort(-sc, kind="stable"):
        if len(kept) >= limit:
            break
        if sc[box] > st and all(ov[box, k] < ot for k in kept):
            kept.append(int(box))
    return _wrap(np.asarray(kept, np.int32))


# ---- EditDistance -------------------------------------------------------------------------------------
_ED_VALUES = frozenset({mstype.int8, mstype.int16, mstype.int32, mstype.int64, mstype.uint8, mstype.uint16,
                        mstype.uint32, mstype.uint64, mstype.float16, mstype.float32, mstype.float64})
_I64 = frozenset({mstype.int64})


def _levenshtein(a: list, b: list) -> int:
    prev = list(range(len(b) + 1))
    for i, u in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, v in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (u != v))
        prev = cur
    return prev[-1]


def _sequences(op, what, idx, vals, out_shape):
    """The values of each output cell, in their order in the sparse tensor."""
    seqs: dict = {}
    rank = len(out_shape)
    for i, (pos, v) in enumerate(zip(idx.reshape(len(vals), -1), vals)):
        for j in range(rank):
            if not 0 <= pos[j] < out_shape[j]:
                raise OpValueError(f"For '{op}', the {i}th {what}_value in {j}th dimension index: {pos[j]} of 'output' "
                                   f"out of bounds: [0, {out_shape[j]}). ")
        seqs.setdefault(tuple(int(p) for p in pos[:rank]), []).append(v)
    return seqs


@op_entry("edit_distance_primitive", primitive="EditDistance", functional=False,
          args=[Arg("hypothesis_indices", dtypes=_I64), Arg("hypothesis_values", dtypes=_ED_VALUES),
                Arg("hypothesis_shape", dtypes=_I64), Arg("truth_indices", dtypes=_I64),
                Arg("truth_values", dtypes=_ED_VALUES), Arg("truth_shape", dtypes=_I64),
                Arg("normalize", "value", default=True, init=True,
                    check=lambda v, op: _bool_attr(op, "normalize", v))])
def edit_distance_primitive(hypothesis_indices, hypothesis_values, hypothesis_shape, truth_indices, truth_values,
                            truth_shape, normalize=True):
    """The Levenshtein distance between the hypothesis and truth sequences of each cell of the
    sparse tensors' leading dimensions (the last index is the position in the sequence; a cell's
    values in their order in the tensor), float32 of shape max(hypothesis_shape, truth_shape)[:-1];
    normalize: divided by the truth's length (inf for an empty truth, 0 if both are empty)."""
    op = "EditDistance"
    if hypothesis_values.dtype is not truth_values.dtype:
        raise OpTypeError(f"Dtype of hypothesis_values and truth_values must be the same, but got hypothesis_values: "
                          f"Tensor[{hypothesis_values.dtype}], truth_values: Tensor[{truth_values.dtype}].")
    for what, ind, vals, shp in (("hypothesis", hypothesis_indices, hypothesis_values, hypothesis_shape),
                                 ("truth", truth_indices, truth_values, truth_shape)):
        if ind.ndim != 2 or vals.ndim != 1 or shp.ndim != 1:
            raise OpValueError(f"For '{op}', {what}_indices must be 2-D and {what}_values and {what}_shape 1-D, but "
                               f"got {ind.ndim}-D, {vals.ndim}-D and {shp.ndim}-D.")
        if vals.shape[0] != ind.shape[0]:
            raise OpValueError(f"{what}_values shape should be equal to {what}_indices shape[0] but got {what}_values "
                               f"shape: {vals.shape[0]} and {what}_indices shape[0]: {ind.shape[0]}.")
        if ind.shape[1] != shp.shape[0]:
            raise OpValueError(f"{what}_indices shape[1] should be equal to {what}_shape's length but got "
                               f"{ind.shape[1]} and {shp.shape[0]}.")
    if hypothesis_shape.shape[0] != truth_shape.shape[0]:
        raise OpValueError(f"hypothesis_shape should be equal to truth_shape but got hypothesis_shape: "
                           f"{hypothesis_shape.shape[0]} and truth_shape: {truth_shape.shape[0]}.")
    hs = shape_values(hypothesis_shape, "hypothesis_shape", op).astype(np.int64)
    ts = shape_values(truth_shape, "truth_shape", op).astype(np.int64)
    out_shape = tuple(int(v) for v in np.maximum(hs, ts)[:-1])
    if not out_shape:
        raise OpRuntimeError(f"For '{op}', output's shape size must be greater than 0.")
    hyp = _sequences(op, "hypothesis", shape_values(hypothesis_indices, "hypothesis_indices", op),
                     shape_values(hypothesis_values, "hypothesis_values", op), out_shape)
    truth = _sequences(op, "truth", shape_values(truth_indices, "truth_indices", op),
                       shape_values(truth_values, "truth_values", op), out_shape)
    out = np.zeros(out_shape, np.float32)
    for cell in set(hyp) | set(truth):
        h, t = hyp.get(cell, []), truth.get(cell, [])
        if normalize and not t:
            out[cell] = np.inf if h else 0.0
            continue
        dist = _levenshtein(t, h)
        out[cell] = np.float32(dist) / np.float32(len(t)) if normalize else np.float32(dist)
    return _wrap(out)
