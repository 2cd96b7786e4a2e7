"""Indexing and selection MindSpore 2.10 has that compose from pycompile's ops: roll, take,
index_fill, scatter, select_scatter / slice_scatter / diagonal_scatter, searchsorted, bucketize,
combinations, vector_norm, kaiser_window, histc, quantile / nanquantile, nanmedian; and, in
PyNative only (their output's shape is the data's), nonzero, argwhere, bincount and
unique_consecutive. Index patterns that depend only on shapes and constants are built with NumPy
at trace time and become constants of the graph. Values recorded from the wheel in
tests/conformance/cases_33b.py."""
import itertools
import math

import numpy as np

import pycompile.ops as ops
from pycompile.common import dtype as mstype
from pycompile.common.abstract import Symbolic
from pycompile.common.tensor import Tensor, TensorMethods
from pycompile.ops import functional as F
from pycompile.ops._table import OpTypeError, OpValueError
from pycompile.ops.entry import INT, Arg, op_entry, tensor_alias


def _axis(axis, ndim, op):
    if not isinstance(axis, int) or isinstance(axis, bool) or not -max(ndim, 1) <= axis < max(ndim, 1):
        raise OpValueError(f"For '{op}', 'axis' must be an int in [{-max(ndim, 1)}, {max(ndim, 1)}), but got {axis}.")
    return axis % max(ndim, 1)


def _along(vec, axis, ndim):
    """A 1-D tensor shaped to broadcast along `axis` of an ndim tensor."""
    return ops.reshape(vec, tuple(-1 if i == axis else 1 for i in range(ndim)))


def _const(a):
    return Tensor(np.ascontiguousarray(a))


def _eager_only(x, op):
    if isinstance(x, Symbolic) or not hasattr(x, "asnumpy"):
        raise OpValueError(f"For '{op}', the output's shape depends on the input's values, which pycompile's graph "
                           f"mode cannot express: call it in PyNative mode (outside jit / construct).")
    return x.asnumpy()


# ---- roll ------------------------------------------------------------------------------------------
def _roll1(x, shift, axis):
    n = x.shape[axis]
    s = shift % n if n else 0
    if s == 0:
        return x
    return ops.concat((ops.narrow(x, axis, n - s, s), ops.narrow(x, axis, 0, n - s)), axis)


def _ints(v):
    return tuple(v) if isinstance(v, (list, tuple)) else (v,)


@op_entry("roll", tensor_method=True, args=[Arg("input"), Arg("shifts", "value"), Arg("dims", "value", default=None)])
def roll(input, shifts, dims=None):
    """Elements shifted along `dims` (cyclically); dims None: along the flattened tensor."""
    if dims is None:
        if len(_ints(shifts)) != 1:
            raise OpValueError(f"For 'Roll', 'shifts' must be one int when 'dims' is None, but got {shifts}.")
        return ops.reshape(_roll1(ops.reshape(input, (-1,)), _ints(shifts)[0], 0), tuple(input.shape))
    shifts, dims = _ints(shifts), _ints(dims)
    if len(shifts) != len(dims):
        raise OpValueError(f"For 'Roll', 'shifts' and 'dims' must have the same length, but got {len(shifts)} "
                           f"and {len(dims)}.")
    y = input
    for s, d in zip(shifts, dims):
        y = _roll1(y, s, _axis(d, input.ndim, "Roll"))
    return y


@op_entry("roll_prim", primitive="Roll", functional=False,
          args=[Arg("input_x"), Arg("shift", "value", init=True), Arg("axis", "value", init=True)])
def _roll_prim(input_x, shift, axis):
    """ops.Roll(shift, axis)(x)."""
    return roll(input_x, shift, axis)


# ---- take / index_fill / scatter ------------------------------------------------------------------
@op_entry("take", args=[Arg("input"), Arg("index", dtypes=INT)])
def take(input, index):
    """input flattened, at `index` (the output has index's shape)."""
    return ops.gather(ops.reshape(input, (-1,)), index, 0)


@tensor_alias("take")
def _take(self, indices, axis=None, mode="clip"):
    """`x.take(indices, axis=None, mode='clip')`: NumPy's take; out-of-range indices clipped
    ('clip') or wrapped ('wrap')."""
    if mode not in ("clip", "wrap", "raise"):
        raise OpValueError(f"For 'Tensor.take', 'mode' must be 'clip', 'wrap' or 'raise', but got {mode!r}.")
    x = ops.reshape(self, (-1,)) if axis is None else self
    ax = 0 if axis is None else _axis(axis, self.ndim, "Tensor.take")
    n = x.shape[ax]
    idx = indices if isinstance(indices, TensorMethods) else Tensor(np.asarray(indices, np.int32))
    idx = ops.remainder(idx, n) if mode == "wrap" else ops.clamp(idx, -n, n - 1)
    idx = ops.where(F.less(idx, 0), idx + n, idx)
    return ops.gather(x, idx, ax)


def _fill_value(value, op):
    if not isinstance(value, (TensorMethods, int, float)) or isinstance(value, bool):
        raise OpTypeError(f"For '{op}', 'value' must be a Tensor or a number, but got {type(value).__name__}.")


@op_entry("index_fill", primitive="IndexFill", tensor_method=True,
          args=[Arg("x"), Arg("axis", "value"), Arg("index", dtypes=INT), Arg("value", "value", check=_fill_value)])
def index_fill(x, axis, index, value):
    """x with the slices at `index` along `axis` set to `value` (a number or a 0-d Tensor)."""
    ax = _axis(axis, x.ndim, "IndexFill")
    n = x.shape[ax] if x.ndim else 1
    hit = ops.any(F.equal(ops.expand_dims(ops.arange(0, n, 1, dtype=index.dtype), 1),
                                 ops.reshape(index, (1, -1))), 1)
    v = F.cast(value, x.dtype) if isinstance(value, TensorMethods) else F.fill(x.dtype, (), value)
    return ops.where(_along(hit, ax, x.ndim) if x.ndim else ops.reshape(hit, ()), v, x)


@op_entry("scatter", tensor_method=True, args=[Arg("input"), Arg("axis", "value"), Arg("index", dtypes=INT),
                                                Arg("src")])
def scatter(input, axis, index, src):
    """input with src's elements written at `index` along `axis` (TensorScatterElements)."""
    return ops.tensor_scatter_elements(input, index, src, axis)


def _place(input, src, axis, positions):
    """input with src's slices along `axis` at `positions` (distinct ints, in src's order)."""
    n = input.shape[axis]
    src_of = np.zeros(n, np.int32)
    mask = np.zeros(n, np.bool_)
    src_of[positions] = np.arange(len(positions), dtype=np.int32)
    mask[positions] = True
    gathered = ops.gather(src, _const(src_of), axis)
    return ops.where(_along(_const(mask), axis, input.ndim), F.cast(gathered, input.dtype), input)


@op_entry("select_scatter", tensor_method=True,
          args=[Arg("input"), Arg("src"), Arg("axis", "value"), Arg("index", "value")])
def select_scatter(input, src, axis, index):
    """input with its slice `index` along `axis` replaced by src (input's shape without that axis)."""
    ax = _axis(axis, input.ndim, "select_scatter")
    n = input.shape[ax]
    if not -n <= index < n:
        raise OpValueError(f"For 'select_scatter', 'index' must be in [{-n}, {n}), but got {index}.")
    return _place(input, ops.expand_dims(src, ax), ax, [index % n])


@op_entry("slice_scatter", tensor_method=True,
          args=[Arg("input"), Arg("src"), Arg("axis", "value", default=0), Arg("start", "value", default=None),
                Arg("end", "value", default=None), Arg("step", "value", default=1)])
def slice_scatter(input, src, axis=0, start=None, end=None, step=1):
    """input with input[start:end:step] along `axis` replaced by src."""
    ax = _axis(axis, input.ndim, "slice_scatter")
    positions = list(range(input.shape[ax]))[slice(start, end, step)]
    if src.shape[ax] != len(positions):
        raise OpValueError(f"For 'slice_scatter', 'src' must have {len(positions)} elements along axis {ax}, "
                           f"but got shape {tuple(src.shape)}.")
    return _place(input, src, ax, positions)


@op_entry("diagonal_scatter", tensor_method=True,
          args=[Arg("input"), Arg("src"), Arg("offset", "value", default=0), Arg("dim1", "value", default=0),
                Arg("dim2", "value", default=1)])
def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """input with its `offset` diagonal of the (dim1, dim2) planes replaced by src (shaped as
    ops.diagonal's result: the other axes, then the diagonal)."""
    nd = input.ndim
    d1, d2 = _axis(dim1, nd, "diagonal_scatter"), _axis(dim2, nd, "diagonal_scatter")
    rest = [i for i in range(nd) if i not in (d1, d2)]
    x = ops.transpose(input, tuple(rest) + (d1, d2))
    n1, n2 = input.shape[d1], input.shape[d2]
    i, j = np.meshgrid(np.arange(n1), np.arange(n2), indexing="ij")
    on = (j - i) == offset
    which = np.where(on, i if offset >= 0 else j, 0).astype(np.int32).reshape(-1)
    k = int(on.sum())
    if src.shape[-1] != k:
        raise OpValueError(f"For 'diagonal_scatter', 'src' must have {k} elements in its last axis, but got "
                           f"shape {tuple(src.shape)}.")
    vals = ops.reshape(ops.gather(src, _const(which), src.ndim - 1), tuple(x.shape))
    y = ops.where(_const(on), F.cast(vals, input.dtype), x)
    back = np.argsort(rest + [d1, d2])
    return ops.transpose(y, tuple(int(a) for a in back))


# ---- sorted search ---------------------------------------------------------------------------------
@op_entry("searchsorted", args=[Arg("sorted_sequence"), Arg("values", "tensor|number"),
                                Arg("out_int32", "value", default=False, keyword=True),
                                Arg("right", "value", default=False, keyword=True),
                                Arg("side", "value", default=None, keyword=True),
                                Arg("sorter", "value", default=None, keyword=True)])
def searchsorted(sorted_sequence, values, out_int32=False, right=False, side=None, sorter=None):
    """Where each value would go in the sorted last axis: the count of elements < value (left)
    or <= value (right, or side='right')."""
    if side not in (None, "left", "right"):
        raise OpValueError(f"For 'SearchSorted', 'side' must be 'left' or 'right', but got {side!r}.")
    if side == "left" and right:
        raise OpValueError("For 'SearchSorted', 'side' and 'right' disagree: side='left' with right=True.")
    right = right or side == "right"
    seq = sorted_sequence
    if sorter is not None:
        seq = ops.gather_elements(seq, seq.ndim - 1, sorter)
    v = values if isinstance(values, TensorMethods) else F.fill(seq.dtype, (), values)
    scalar = v.ndim == 0
    v = ops.reshape(v, (1,)) if scalar else v
    if seq.ndim > 1 and tuple(seq.shape[:-1]) != tuple(v.shape[:-1]):
        raise OpValueError(f"For 'SearchSorted', the leading dimensions of 'sorted_sequence' {tuple(seq.shape)} and "
                           f"'values' {tuple(v.shape)} must match.")
    cmp = F.less_equal if right else F.less
    hit = cmp(ops.expand_dims(seq, -2), ops.expand_dims(v, -1))       # (..., m, n)
    out = ops.sum(F.cast(hit, mstype.int32), -1)
    out = F.cast(out, mstype.int32 if out_int32 else mstype.int64)
    return ops.reshape(out, ()) if scalar else out


@tensor_alias("searchsorted")
def _searchsorted(self, v, side="left", sorter=None):
    """`x.searchsorted(v, side='left', sorter=None)`."""
    return searchsorted(self, v, side=side, sorter=sorter, out_int32=True)


def _boundaries(v, op):
    if not isinstance(v, (list, tuple)) or not all(isinstance(b, (int, float)) for b in v):
        raise OpTypeError(f"For '{op}', 'boundaries' must be a list of numbers, but got {v!r}.")


@op_entry("bucketize", args=[Arg("input"), Arg("boundaries", "value", check=_boundaries),
                             Arg("right", "value", default=False, keyword=True)])
def bucketize(input, boundaries, right=False):
    """The bucket of each element: the count of boundaries < x (right: <= x), as Int32."""
    b = _const(np.asarray(boundaries, np.float64).astype(input.dtype.np if input.dtype.is_float else np.float32))
    x = input if input.dtype.is_float else F.cast(input, mstype.float32)
    hit = (F.less_equal if right else F.less)(b, ops.expand_dims(x, -1))
    return F.cast(ops.sum(F.cast(hit, mstype.int32), -1), mstype.int32)


@op_entry("combinations", args=[Arg("input"), Arg("r", "value", default=2),
                                Arg("with_replacement", "value", default=False)])
def combinations(input, r=2, with_replacement=False):
    """The r-element combinations of a 1-D tensor's elements, one per row (in itertools' order)."""
    if input.ndim != 1:
        raise OpValueError(f"For 'combinations', the input must be 1-D, but got shape {tuple(input.shape)}.")
    gen = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = np.array(list(gen(range(input.shape[0]), r)), np.int32).reshape(-1, r)
    if idx.shape[0] == 0:
        return ops.zeros((0,) if r != 1 else (0, 1), input.dtype)
    return ops.gather(input, _const(idx), 0)


# ---- norms and windows -----------------------------------------------------------------------------
@op_entry("vector_norm", args=[Arg("x"), Arg("ord", "value", default=2), Arg("axis", "value", default=None),
                               Arg("keepdims", "value", default=False), Arg("dtype", "value", default=None, keyword=True)])
def vector_norm(x, ord=2, axis=None, keepdims=False, dtype=None):
    """The ord-norm over `axis` (every axis by default): inf / -inf the max / min of |x|, 0 the
    count of nonzeros, else (sum |x|**ord) ** (1 / ord)."""
    if dtype is not None:
        x = F.cast(x, dtype)
    if not x.dtype.is_float:
        raise OpTypeError(f"For 'vector_norm', the input must be a float Tensor, but got {x.dtype}.")
    axes = tuple(range(x.ndim)) if axis is None else tuple(_ints(axis))
    a = F.abs(x)
    if ord == math.inf:
        return ops.amax(a, axes, keepdims)
    if ord == -math.inf:
        return ops.amin(a, axes, keepdims)
    if ord == 0:
        return ops.sum(F.cast(F.not_equal(x, 0), x.dtype), axes, keepdims)
    if ord == 1:
        return ops.sum(a, axes, keepdims)
    if ord == 2:
        return F.sqrt(ops.sum(F.square(x), axes, keepdims))
    return F.pow(ops.sum(F.pow(a, float(ord)), axes, keepdims), 1.0 / ord)


@op_entry("kaiser_window", args=[Arg("window_length", "value"), Arg("periodic", "value", default=True),
                                 Arg("beta", "value", default=12.0), Arg("dtype", "value", default=None, keyword=True)])
def kaiser_window(window_length, periodic=True, beta=12.0, dtype=None):
    """i0(beta sqrt(1 - (2k / m - 1)^2)) / i0(beta), m = N (periodic) or N - 1 (float64 by default, as
    MindSpore 2.10 returns)."""
    if isinstance(window_length, bool) or not isinstance(window_length, int) or window_length < 0:
        raise OpValueError(f"For 'kaiser_window', 'window_length' must be a non-negative int, but got {window_length!r}.")
    dt = dtype or mstype.float64
    n = window_length
    if n <= 1:
        return Tensor(np.ones(n, dt.np))
    m = n if periodic else n - 1
    k = np.arange(n, dtype=np.float64)
    return Tensor((np.i0(beta * np.sqrt(np.maximum(0.0, 1 - (2 * k / m - 1) ** 2))) / np.i0(beta)).astype(dt.np))


# ---- histograms and order statistics ---------------------------------------------------------------
@op_entry("histc", tensor_method=True, args=[Arg("input"), Arg("bins", "value", default=100),
                                              Arg("min", "value", default=0.0), Arg("max", "value", default=0.0)])
def histc(input, bins=100, min=0.0, max=0.0):
    """The counts of input's elements in `bins` equal bins over [min, max] (both 0: the data's
    range); elements outside are ignored, max falls in the last bin."""
    x = ops.reshape(input if input.dtype.is_float else F.cast(input, mstype.float32), (-1,))
    if min > max:
        raise OpValueError(f"For 'Histogram', 'max' must be larger than 'min', but got min {min} and max {max}.")
    lo, hi = (ops.amin(x, 0), ops.amax(x, 0)) if min == 0 and max == 0 else (min, max)
    width = hi - lo
    pos = F.floor((x - lo) * bins / ops.where(F.equal(width, 0), F.ones_like(width), width)) \
        if isinstance(width, TensorMethods) else F.floor((x - lo) * (bins / (width or 1)))
    pos = ops.where(F.equal(x, hi), F.fill(pos.dtype, (), bins - 1), pos)
    inside = F.logical_and(F.greater_equal(x, lo), F.less_equal(x, hi))
    hit = F.logical_and(F.equal(ops.expand_dims(pos, 1), ops.expand_dims(ops.arange(0, bins, 1, dtype=pos.dtype), 0)),
                        ops.expand_dims(inside, 1))
    return F.cast(ops.sum(F.cast(hit, mstype.int32), 0), input.dtype)


def _q_values(q, x):
    if isinstance(q, TensorMethods):
        return F.cast(q, x.dtype), q.ndim == 0
    if isinstance(q, (int, float)) and not isinstance(q, bool):
        if not 0 <= q <= 1:
            raise OpValueError(f"For 'quantile', 'q' must be in [0, 1], but got {q}.")
        return F.fill(x.dtype, (), q), True
    raise OpTypeError(f"For 'quantile', 'q' must be a float or a Tensor, but got {type(q).__name__}.")


def _quantile(input, q, axis, keepdims, ignore_nan):
    if not input.dtype in (mstype.float32, mstype.float64):
        raise OpTypeError(f"For 'quantile', the input must be Float32 or Float64, but got {input.dtype}.")
    x = ops.reshape(input, (-1,)) if axis is None else input
    ax = 0 if axis is None else _axis(axis, input.ndim, "quantile")
    x = ops.swapaxes(x, ax, -1) if ax != x.ndim - 1 else x
    n = x.shape[-1]
    qv, scalar_q = _q_values(q, x)
    srt, _ = ops.sort(x, -1)                            # NaN sorts last
    nan = ops.isnan(x)
    if ignore_nan:
        count = ops.sum(F.cast(F.logical_not(nan), x.dtype), -1, True)      # (..., 1)
    else:
        count = F.fill(x.dtype, tuple(x.shape[:-1]) + (1,), n)
    qs = ops.reshape(qv, (-1,))                       # (Q,)
    pos = (count - 1) * qs                               # (..., Q)
    pos = ops.clamp(pos, 0.0, float(max(n - 1, 0)))
    lo = F.floor(pos)
    hi = F.ceil(pos)
    a = ops.gather_elements(srt, srt.ndim - 1, F.cast(lo, mstype.int32))
    b = ops.gather_elements(srt, srt.ndim - 1, F.cast(hi, mstype.int32))
    out = a + (b - a) * (pos - lo)
    bad = (F.less(count, 1) if ignore_nan else ops.any(nan, -1, True))
    out = ops.where(ops.broadcast_to(bad, tuple(out.shape)), F.fill(x.dtype, (), float("nan")), out)
    out = ops.transpose(out, (out.ndim - 1,) + tuple(range(out.ndim - 1)))           # (Q, ...)
    if keepdims:
        shape = list(input.shape) if axis is not None else [1] * input.ndim
        if axis is not None:
            shape[ax] = 1
        out = ops.reshape(out, (out.shape[0],) + tuple(shape))
    return ops.reshape(out, tuple(out.shape[1:])) if scalar_q else out


_Q = [Arg("input"), Arg("q", "value"), Arg("axis", "value", default=None), Arg("keepdims", "value", default=False)]


@op_entry("quantile", tensor_method=True, args=_Q)
def quantile(input, q, axis=None, keepdims=False):
    """The q-th quantiles over `axis` (linear interpolation between order statistics); a NaN
    in a slice gives NaN. A Tensor q of shape (Q,) gives the quantiles first: (Q, ...)."""
    return _quantile(input, q, axis, keepdims, False)


@op_entry("nanquantile", tensor_method=True, args=_Q)
def nanquantile(input, q, axis=None, keepdims=False):
    """quantile ignoring NaN (NaN only where a slice is all NaN)."""
    return _quantile(input, q, axis, keepdims, True)


@op_entry("nanmedian", tensor_method=True, args=[Arg("input"), Arg("axis", "value", default=-1),
                                                  Arg("keepdims", "value", default=False)])
def nanmedian(input, axis=-1, keepdims=False):
    """(the lower median of the non-NaN values along `axis`, its index); NaN where all are NaN."""
    if input.ndim == 0:
        return input, F.zeros_like(F.cast(input, mstype.int64))
    ax = _axis(axis, input.ndim, "nanmedian")
    others = tuple(i for i in range(input.ndim) if i != ax)
    x = ops.transpose(input, others + (ax,)) if ax != input.ndim - 1 else input
    srt, idx = ops.sort(x, -1)
    count = ops.sum(F.cast(F.logical_not(ops.isnan(x)), mstype.int32), -1, True)
    k = ops.maximum((count - 1) // 2, F.zeros_like(count))
    v = ops.squeeze(ops.gather_elements(srt, srt.ndim - 1, k), -1)
    i = ops.squeeze(F.cast(ops.gather_elements(idx, idx.ndim - 1, k), mstype.int64), -1)
    if keepdims:
        v, i = ops.expand_dims(v, ax), ops.expand_dims(i, ax)
    return v, i


# ---- PyNative only: the output's shape is the data's ----------------------------------------------
@op_entry("nonzero", tensor_method=True, args=[Arg("input"), Arg("as_tuple", "value", default=False, keyword=True)])
def nonzero(input, as_tuple=False):
    """The indices of the nonzero elements: (count, ndim) Int64, or one 1-D tensor per axis."""
    a = _eager_only(input, "nonzero")
    where = np.nonzero(a.reshape(1) if a.ndim == 0 else a)
    if as_tuple:
        return tuple(Tensor(w.astype(np.int64)) for w in where)
    return Tensor(np.stack(where, 1).astype(np.int64).reshape(-1, max(a.ndim, 1)))


@op_entry("argwhere", tensor_method=True, args=[Arg("input")])
def argwhere(input):
    """The indices of the nonzero elements, (count, ndim) Int64."""
    a = _eager_only(input, "argwhere")
    return Tensor(np.argwhere(a).astype(np.int64))


@op_entry("bincount", tensor_method=True, args=[Arg("input", dtypes=INT), Arg("weights", "value", default=None),
                                                 Arg("minlength", "value", default=0)])
def bincount(input, weights=None, minlength=0):
    """The count of each value 0..max(input) (at least minlength bins; Float32, as MindSpore), or
    the sum of its weights."""
    a = _eager_only(input, "bincount")
    if a.ndim != 1 or (a.size and a.min() < 0):
        raise OpValueError("For 'bincount', the input must be 1-D and non-negative.")
    w = None if weights is None else _eager_only(weights, "bincount")
    out = np.bincount(a, w, minlength)
    return Tensor(out.astype(np.float32) if w is None else out.astype(w.dtype))      # Float32 counts, as MindSpore


@op_entry("unique_consecutive", tensor_method=True,
          args=[Arg("input"), Arg("return_inverse", "value", default=False),
                Arg("return_counts", "value", default=False), Arg("dim", "value", default=None)])
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """The input with each run of equal consecutive elements (or slices along `dim`) kept once;
    with the index of each element's run and the runs' lengths when asked."""
    a = _eager_only(input, "unique_consecutive")
    ax = 0 if dim is None else _axis(dim, a.ndim, "unique_consecutive")
    b = a.reshape(-1) if dim is None else np.moveaxis(a, ax, 0)
    if b.shape[0] == 0:
        starts = np.zeros(0, bool)
    else:
        flat = b.reshape(b.shape[0], -1)
        starts = np.concatenate([[True], np.any(flat[1:] != flat[:-1], axis=1)])
    out = b[starts] if dim is None else np.moveaxis(b[starts], 0, ax)
    inverse = (np.cumsum(starts) - 1).astype(np.int64)
    counts = np.diff(np.append(np.nonzero(starts)[0], b.shape[0])).astype(np.int64)
    res = (Tensor(np.ascontiguousarray(out)),)
    if return_inverse:
        res += (Tensor(inverse.reshape(a.shape) if dim is None else inverse),)
    if return_counts:
        res += (Tensor(counts),)
    return res if len(res) > 1 else res[0]



@tensor_alias("kthvalue")
def _kthvalue(self, k, dim=-1, keepdim=False):
    """`x.kthvalue(k, dim=-1, keepdim=False)`: (the k-th smallest value along dim (k from 1), its index)."""
    nd = max(self.ndim, 1)
    d = _axis(dim, nd, "Tensor.kthvalue")
    x = self if self.ndim else ops.reshape(self, (1,))
    n = x.shape[d]
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= n:
        raise OpValueError(f"For 'Tensor.kthvalue', 'k' must be an int in [1, {n}], but got {k!r}.")
    srt, idx = ops.sort(x, d)
    v, i = ops.narrow(srt, d, k - 1, 1), F.cast(ops.narrow(idx, d, k - 1, 1), mstype.int64)
    if not keepdim or not self.ndim:
        v, i = ops.squeeze(v, d), ops.squeeze(i, d)
    return v, i
