"""Array Primitives of MindSpore's `ops.operations.array_ops` / `_inner_ops` / `math_ops` that its
CPU suite calls (issue 33, mat33), each a composition:

* ConjugateTranspose(x, perm): conj(x) transposed (x itself for real dtypes);
* ListDiff(out_idx)(x, y): the values of 1-D x not in y, and their indices (a run-time length:
  two masked selections);
* ConcatOffsetV1(axis, (shape0, shape1, ...)): each input's offset in their concatenation along
  `axis`, from the int32 shape tensors (an exclusive cumulative sum);
* ParallelConcat((x0, x1, ...)): inputs of shape (1, ...) stacked along axis 0;
* TensorCopySlices(x, value, begin, end, strides): x with x[begin:end] replaced by value
  (MindSpore's restrictions: unit strides, a contiguous region);
* MatrixLogarithm(x): the principal matrix logarithm of each complex matrix, computed on the host
  (NumPy; no composition of pycompile's ops gives eigenvalues): through ops.Custom's pyfunc call,
  so graph code calls back into it.

Values and errors recorded from the wheel in tests/conformance/cases_mat33.py."""
import numpy as np

import pycompile.ops as ops
from pycompile.common import dtype as mstype
from pycompile.common.abstract import Symbolic
from pycompile.common.tensor import Tensor, TensorMethods
from pycompile.ops import functional as F
from pycompile.ops._table import OpRuntimeError, OpTypeError, OpValueError
from pycompile.ops.entries.matrix_diag_mat33 import known_ints
from pycompile.ops.entry import Arg, op_entry


def _prim(name, args, doc):
    """Declare the Primitive `name` (MindSpore has no functional form) from the decorated definition."""
    def declare(fn):
        fn.__doc__ = doc
        return op_entry(f"mat33_{name}", primitive=name, functional=False, args=args)(fn)
    return declare


def _tensor(x, op, what):
    if not isinstance(x, TensorMethods):
        raise OpTypeError(f"For primitive[{op}], the input[{what}] should be a Tensor, but got {type(x).__name__}.")
    return x


def _allowed(x, op, what, dtypes):
    if x.dtype not in dtypes:
        names = ", ".join(sorted(f"Tensor[{d}]" for d in dtypes))
        raise OpTypeError(f"For primitive[{op}], the input argument[{what}] must be a type of {{{names}}}, "
                          f"but got Tensor[{x.dtype}].")


# ---- ConjugateTranspose -------------------------------------------------------------------------
@_prim("ConjugateTranspose", [Arg("x", "value"), Arg("perm", "value")], "conj(x) with its axes permuted by perm.")
def _conjugate_transpose(x, perm):
    op = "ConjugateTranspose"
    _tensor(x, op, "x")
    if isinstance(perm, TensorMethods) or not isinstance(perm, (tuple, list)):
        raise OpTypeError(f"For primitive[{op}], the input argument[perm] must be a type of {{Tensor[Tuple]}}, "
                          f"but got {('Tensor[' + str(perm.dtype) + ']') if isinstance(perm, TensorMethods) else type(perm).__name__}.")
    perm = tuple(int(p) for p in perm)
    if len(perm) != x.ndim:
        raise OpValueError(f"For '{op}', the dimension of x {x.ndim} and perm {len(perm)} must be equal, but got the "
                           f"dimension of x {x.ndim} and perm {len(perm)} .")
    for p in perm:
        if p >= x.ndim:
            raise OpValueError(f"For primitive[{op}], the perm element must be less than {x.ndim}, but got {p}.")
    if len(set(p % max(x.ndim, 1) for p in perm)) != len(perm):
        raise OpValueError(f"For '{op}', the value of perm must be different.")
    out = F.transpose(x, perm)
    return ops.conj(out) if x.dtype.is_complex else out


# ---- ListDiff -----------------------------------------------------------------------------------
_LISTDIFF_TYPES = frozenset({mstype.float16, mstype.float32, mstype.float64, mstype.int8, mstype.int16, mstype.int32,
                             mstype.int64, mstype.uint8, mstype.uint16})


def _check_out_idx(v, op):
    if v not in (mstype.int32, mstype.int64):
        raise OpTypeError(f"For '{op}', the 'out_idx' should be in : [mindspore.int32, mindspore.int64], but got {v}.")


@_prim("ListDiff", [Arg("x", "value"), Arg("y", "value"),
                    Arg("out_idx", "value", default=mstype.int32, init=True, check=_check_out_idx)],
       "(out, idx): the values of x that are not in y, in x's order, and their indices in x.")
def _list_diff(x, y, out_idx=mstype.int32):
    op = "ListDiff"
    _tensor(x, op, "x")
    _tensor(y, op, "y")
    _allowed(x, op, "x", _LISTDIFF_TYPES)
    if x.dtype is not y.dtype:
        raise OpTypeError(f"For {op}, type of 'x' and 'y' should be same. But get x[{x.dtype}], y[{y.dtype}].")
    if x.ndim != 1 or y.ndim != 1:
        raise OpValueError(f"For {op}, input x, y should be 1D, but get x dims = {x.ndim}, y dims = {y.ndim}.")
    n = x.shape[0]
    if y.shape[0] == 0:
        keep = ops.ones((n,), mstype.bool_)
    else:
        keep = ops.logical_not(ops.any(F.equal(ops.expand_dims(x, 1), ops.expand_dims(y, 0)), 1))
    idx = Tensor(np.arange(n, dtype=out_idx.np))
    return ops.masked_select(x, keep), ops.masked_select(idx, keep)


# ---- ConcatOffsetV1 -----------------------------------------------------------------------------
@_prim("ConcatOffsetV1", [Arg("axis", "value"), Arg("x", "value")],
       "The offset of each input in the concatenation along axis, from their int32 shape tensors.")
def _concat_offset_v1(axis, x):
    op = "ConcatOffsetV1"
    if isinstance(axis, TensorMethods) and axis.dtype is not mstype.int32:
        raise OpTypeError(f"For primitive[{op}], the input argument[axis] must be a type of {{Tensor[Int32]}}, "
                          f"but got Tensor[{axis.dtype}].")
    xs = list(x) if isinstance(x, (tuple, list)) else [x]
    for k, t in enumerate(xs):
        _tensor(t, op, f"tensor{k}")
        if t.dtype is not mstype.int32:
            raise OpTypeError(f"For primitive[{op}], the input argument[tensor{k}] must be a type of "
                              f"{{Tensor[Int32]}}, but got Tensor[{t.dtype}].")
    if len(xs) < 2:
        raise OpValueError(f"For primitive[{op}], the input x tensor num must be greater than or equal to 2, but got "
                           f"{len(xs)}.")
    rank = xs[0].shape[0] if xs[0].ndim == 1 else 0
    for k, t in enumerate(xs[1:], 1):
        if t.ndim != 1 or t.shape[0] != rank:
            raise OpValueError(f"For '{op}', tensor{k} element num in input x should be {rank}, which is element num "
                               f"of tensor0, but got {t.shape[0] if t.ndim == 1 else t.size}.")
    ax = known_ints(axis, "axis", op, (0,))[0]
    if not -rank <= ax < rank:
        raise OpRuntimeError(f"For '{op}', the 'axis' must be fall in range [{-rank}, {rank}), but got 'axis': {ax}")
    ax %= rank
    _same_other_dims(xs, ax, op)
    onehot = Tensor((np.arange(rank) == ax).astype(np.int32))
    out, total = [], ops.zeros((), mstype.int32)
    for t in xs:
        out.append(onehot * total)
        total = total + t[ax]
    return tuple(out)


def _same_other_dims(xs, ax, op):
    """The kernel's check of the shapes' values, where they are known (PyNative, constants)."""
    vals = []
    for t in xs:
        v = t
        while isinstance(v, Symbolic):
            v = getattr(v, "primal", None)
        if v is None:
            return
        vals.append(np.asarray(v.asnumpy()))
    for k, v in enumerate(vals[1:], 1):
        for d in range(len(v)):
            if d != ax and v[d] != vals[0][d]:
                raise OpRuntimeError(f"For '{op}', except for the {ax}th axis, all elements in other axes should be "
                                     f"equal, but for the {d}th axis, element in input x{k} is {v[d]}, and element in "
                                     f"input x0 is {vals[0][d]}")


# ---- ParallelConcat -----------------------------------------------------------------------------
@_prim("ParallelConcat", [Arg("values", "value")], "Inputs of shape (1, ...) concatenated along axis 0.")
def _parallel_concat(values):
    op = "ParallelConcat"
    xs = list(values) if isinstance(values, (tuple, list)) else [values]
    for k, t in enumerate(xs):
        _tensor(t, op, f"x{k}")
    first = xs[0]
    for k, t in enumerate(xs):
        if t.ndim < 1:
            raise OpValueError(f"For [{op}], the rank of input must greater than 1. But got:{t.ndim}.")
        if t.dtype is not first.dtype:
            raise OpTypeError(f"For primitive[{op}], the input type must be same.")
        if t.shape[0] != 1:
            raise OpValueError(f"For primitive[{op}], the x{k}.shape[0] must be equal to 1, but got {t.shape[0]}.")
        for d in range(1, max(t.ndim, first.ndim)):
            a = first.shape[d] if d < first.ndim else None
            b = t.shape[d] if d < t.ndim else None
            if a != b:
                raise OpValueError(f"For [{op}], the shape of all elements should be the same, but got "
                                   f"x0.shape[{d}] = [{a}] and x{k}.shape[{d}] = [{b}].")
    return F.concat(tuple(xs), 0)


# ---- TensorCopySlices ---------------------------------------------------------------------------
def _slice_dims(shape, begin, end, strides, op):
    if not (len(begin) == len(end) == len(strides)) or len(begin) > len(shape):
        raise OpRuntimeError(f"For '{op},{op} requires the length of begin, end must be equal and less than input "
                             f"dimension.")
    if any(s != 1 for s in strides):
        raise OpRuntimeError(f"The element in step only support 1, but got:[const vector]{{{', '.join(map(str, strides))}}}")
    ranges = []
    for d, n in enumerate(shape):
        if d < len(begin):
            lo, hi, _ = slice(begin[d], end[d], 1).indices(n)
            ranges.append(range(lo, max(lo, hi)))
        else:
            ranges.append(range(n))
    # contiguous in row-major order: single elements, then one range, then whole dimensions
    k = next((d for d, r in enumerate(ranges) if len(r) != 1), len(ranges))
    if any(len(r) != n for r, n in zip(ranges[k + 1:], shape[k + 1:])):
        raise OpRuntimeError("Only support copy continuous memory now. For example tensor[0, 0:100] is fine, but "
                             "tensor[0:100, 0] is not supported.")
    return ranges


@_prim("TensorCopySlices", [Arg("x", "value"), Arg("value", "value"), Arg("begin", "value"), Arg("end", "value"),
                            Arg("strides", "value")],
       "x with the slice x[begin:end:strides] replaced by value (MindSpore: unit strides, contiguous).")
def _tensor_copy_slices(x, value, begin, end, strides):
    op = "TensorCopySlices"
    _tensor(x, op, "x")
    _tensor(value, op, "value")
    if value.dtype is not x.dtype:
        raise OpTypeError(f"For '{op}', the dtype of 'value' must be the same as that of 'x' ({x.dtype}), but got "
                          f"{value.dtype}.")
    begin, end, strides = (known_ints(v, name, op) for v, name in ((begin, "begin"), (end, "end"),
                                                                    (strides, "strides")))
    ranges = _slice_dims(tuple(x.shape), begin, end, strides, op)
    region = tuple(len(r) for r in ranges)
    count = int(np.prod(region, dtype=np.int64))
    if count == 0:
        return x
    flat_x = ops.reshape(x, (x.size,))
    start = int(np.ravel_multi_index(tuple(r[0] for r in ranges), tuple(x.shape))) if x.ndim else 0
    if value.size >= count:              # the wheel copies the region's size from value's start
        src = ops.reshape(value, (value.size,))[:count] if value.size > count else ops.reshape(value, (count,))
    else:
        src = ops.reshape(ops.broadcast_to(value, region), (count,))
    parts = ([flat_x[:start]] if start else []) + [src] + ([flat_x[start + count:]] if start + count < x.size else [])
    return ops.reshape(F.concat(tuple(parts), 0) if len(parts) > 1 else parts[0], tuple(x.shape))


# ---- MatrixLogarithm ----------------------------------------------------------------------------
def _logm(a: np.ndarray) -> np.ndarray:
    """The principal logarithm of one square complex matrix: by its eigendecomposition, or where
    that is ill-conditioned (a defective matrix), by inverse scaling and squaring (Denman-Beavers
    square roots down to near I, then log(I + X)'s series). A singular matrix gives NaN, as the
    wheel's (Eigen's) kernel does."""
    n = a.shape[0]
    if n == 0:
        return a.copy()
    w, v = np.linalg.eig(a)
    if np.any(w == 0) or not np.all(np.isfinite(a)):
        return np.full_like(a, complex("nan+nanj"))
    if np.linalg.cond(v) < 1e6:
        return (v * np.log(w)) @ np.linalg.inv(v)
    eye = np.eye(n, dtype=a.dtype)
    y, s = a.astype(np.complex128), 0
    while np.linalg.norm(y - eye, 1) > 0.25 and s < 60:
        z = eye.astype(np.complex128)
        for _ in range(100):
            y_next = (y + np.linalg.inv(z)) / 2
            z = (z + np.linalg.inv(y)) / 2
            done = np.linalg.norm(y_next - y, 1) <= 1e-15 * np.linalg.norm(y_next, 1)
            y = y_next
            if done:
                break
        s += 1
    x = y - eye
    term, out = x.copy(), np.zeros_like(x)
    for k in range(1, 80):
        out += term / k if k % 2 else -term / k
        term = term @ x
    return out * (2.0 ** s)


def _logm_batch(x: np.ndarray) -> np.ndarray:
    flat = x.reshape((-1,) + x.shape[-2:])
    out = np.stack([_logm(m) for m in flat]) if len(flat) else flat.copy()
    return out.reshape(x.shape).astype(x.dtype)


_LOGM = []


def _logm_op():
    if not _LOGM:
        _LOGM.append(ops.Custom(_logm_batch, out_shape=lambda s: s, out_dtype=lambda d: d, func_type="pyfunc"))
    return _LOGM[0]


@_prim("MatrixLogarithm", [Arg("x", "value")], "The principal matrix logarithm of each complex matrix of x.")
def _matrix_logarithm(x):
    op = "MatrixLogarithm"
    _tensor(x, op, "x")
    _allowed(x, op, "x", frozenset({mstype.complex64, mstype.complex128}))
    if x.ndim < 2:
        raise OpValueError(f"For primitive[{op}], the x rank must be greater than or equal to 2, but got {x.ndim}.")
    if x.shape[-1] != x.shape[-2]:
        raise OpValueError(f"For {op}, the last two dimensions of input 'x' must be equal, but got x.shape = "
                           f"{tuple(x.shape)}.")
    return _logm_op()(x)
