"""mindspore.numpy's differences and integrals (diff, ediff1d, trapz, unwrap), binning and
interpolation (digitize, searchsorted, interp), flat / multi-index conversion, and its dtype
names and dtype queries (promote_types, result_type, isscalar)."""
from __future__ import annotations

import builtins
import math

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.numpy._utils import const, is_tensor, ndim, norm_axis, shape, to_dtype, to_float, to_tensor, ttype
from pycompile.numpy.shape import concatenate
from pycompile.ops import functional as F
from pycompile.ops._table import OpValueError

# ---- dtypes ----------------------------------------------------------------------------------------------
bool_ = mstype.bool_
int8, int16, int32, int64 = mstype.int8, mstype.int16, mstype.int32, mstype.int64
uint8, uint16, uint32, uint64 = mstype.uint8, mstype.uint16, mstype.uint32, mstype.uint64
float16, float32, float64 = mstype.float16, mstype.float32, mstype.float64
float_ = mstype.float32        # mindspore.numpy's defaults: 32-bit
int_ = mstype.int32


def promote_types(type1, type2):
    return mstype.promote(to_dtype(type1), to_dtype(type2))


def result_type(*arrays_and_dtypes):
    out = None
    for x in arrays_and_dtypes:
        if is_tensor(x):
            dt = ttype(x).dtype
        elif isinstance(x, (bool, np.bool_)):
            dt = mstype.bool_
        elif isinstance(x, (int, np.integer)):
            dt = mstype.int32
        elif isinstance(x, (float, np.floating)):
            dt = mstype.float32
        else:
            dt = to_dtype(x)
        out = dt if out is None else mstype.promote(out, dt)
    return out


def isscalar(element):
    return isinstance(element, (bool, int, float, complex, str, np.generic))


# ---- differences and integrals --------------------------------------------------------------------------
def _slice(x, axis, lo, hi):
    begin = tuple(lo if d == axis else 0 for d in builtins.range(ndim(x)))
    end = tuple(hi if d == axis else n for d, n in enumerate(shape(x)))
    return F.strided_slice(x, begin, end, (1,) * ndim(x))


def diff(a, n=1, axis=-1, prepend=None, append=None):
    a = to_tensor(a)
    axis = norm_axis(axis, ndim(a), "diff")
    parts = []
    for extra in (prepend, None, append):
        if extra is None:
            if not parts:
                parts.append(a)
            continue
        e = to_tensor(extra)
        if ndim(e) == 0:
            e = F.broadcast_to(e, tuple(1 if d == axis else k for d, k in enumerate(shape(a))))
        parts.append(e)
    if prepend is not None:
        parts = [parts[0], a] + parts[1:]
    if len(parts) > 1:
        a = concatenate(parts, axis)
    for _ in builtins.range(n):
        m = shape(a)[axis]
        if m == 0:
            break
        nxt = _slice(a, axis, 1, m)
        a = F.logical_xor(nxt, _slice(a, axis, 0, m - 1)) if ttype(a).dtype == mstype.bool_ else \
            F.sub(nxt, _slice(a, axis, 0, m - 1))
    return a


def ediff1d(ary, to_end=None, to_begin=None):
    a = F.reshape(to_tensor(ary), (-1,))
    out = F.sub(a[1:], a[:-1]) if shape(a)[0] > 1 else const(np.zeros(0, ttype(a).dtype.np))
    parts = [F.cast(F.reshape(to_tensor(v), (-1,)), ttype(out).dtype) for v in (to_begin,) if v is not None]
    parts.append(out)
    parts += [F.cast(F.reshape(to_tensor(v), (-1,)), ttype(out).dtype) for v in (to_end,) if v is not None]
    return concatenate(parts, 0) if len(parts) > 1 else out


def trapz(y, x=None, dx=1.0, axis=-1):
    y = to_float(to_tensor(y))
    axis = norm_axis(axis, ndim(y), "trapz")
    n = shape(y)[axis]
    if x is None:
        d = dx
    else:
        x = to_float(to_tensor(x))
        d = diff(x, axis=axis if ndim(x) == ndim(y) else -1)
        if ndim(x) == 1 and ndim(y) > 1:
            d = F.reshape(d, tuple(n - 1 if k == axis else 1 for k in builtins.range(ndim(y))))
    mid = F.mul(F.add(_slice(y, axis, 1, n), _slice(y, axis, 0, n - 1)), 0.5)
    return F.reduce_sum(F.mul(mid, d), (axis,))


def unwrap(p, discont=math.pi, axis=-1):
    p = to_float(to_tensor(p))
    axis = norm_axis(axis, ndim(p), "unwrap")
    n = shape(p)[axis]
    if n < 2:
        return p
    dd = diff(p, axis=axis)
    two_pi = 2 * math.pi
    ddmod = F.sub(F.floor_mod(F.add(dd, math.pi), two_pi), math.pi)
    ddmod = F.select(F.logical_and(F.equal(ddmod, -math.pi), F.greater(dd, 0.0)), F.add(F.zeros_like(dd), math.pi),
                     ddmod)
    correct = F.sub(ddmod, dd)
    correct = F.select(F.less(F.abs(dd), float(discont)), F.zeros_like(dd), correct)
    head = _slice(p, axis, 0, 1)
    return concatenate([head, F.add(_slice(p, axis, 1, n), F.cumsum(correct, axis))], axis)


# ---- binning and interpolation -------------------------------------------------------------------------------
def _count_cmp(sorted_1d, v, strict):
    a = F.reshape(to_tensor(sorted_1d), (-1,))
    v = to_tensor(v)
    vv = F.expand_dims(v, ndim(v))
    hits = F.less(a, vv) if strict else F.less_equal(a, vv)
    return F.reduce_sum(F.cast(hits, mstype.int32), (ndim(v),))


def searchsorted(a, v, side="left", sorter=None):
    if side not in ("left", "right"):
        raise OpValueError(f"For 'searchsorted', side must be 'left' or 'right', but got {side!r}")
    if sorter is not None:
        a = F.gather(to_tensor(a), F.cast(to_tensor(sorter), mstype.int32), 0)
    return _count_cmp(a, v, side == "left")


def digitize(x, bins, right=False):
    """The bin of each x: i with bins[i-1] <= x < bins[i] (right=True: bins[i-1] < x <= bins[i]),
    for increasing bins; decreasing bins count from the other end."""
    b = F.reshape(to_tensor(bins), (-1,))
    nb = shape(b)[0]
    inc = F.greater_equal(b[nb - 1], b[0]) if nb > 1 else None
    up = _count_cmp(b, x, right)
    if inc is None:
        return up
    down = F.sub(nb, _count_cmp(F.reverse(b, (0,)), x, not right))
    return F.select(F.broadcast_to(inc, ttype(up).shape), up, down)


def interp(x, xp, fp, left=None, right=None):
    x, xp, fp = to_float(to_tensor(x)), to_float(to_tensor(xp)), to_float(to_tensor(fp))
    n = shape(xp)[0]
    hi = F.minimum(F.maximum(_count_cmp(xp, x, False), 1), n - 1)
    lo = F.sub(hi, 1)
    x0, x1, f0, f1 = F.gather(xp, lo, 0), F.gather(xp, hi, 0), F.gather(fp, lo, 0), F.gather(fp, hi, 0)
    slope = F.div(F.sub(f1, f0), F.sub(x1, x0))
    out = F.add(f0, F.mul(slope, F.sub(x, x0)))
    lval = fp[0] if left is None else left
    rval = fp[n - 1] if right is None else right
    out = F.select(F.less(x, xp[0]), F.add(F.zeros_like(out), lval), out)
    return F.select(F.greater(x, xp[n - 1]), F.add(F.zeros_like(out), rval), out)


def ravel_multi_index(multi_index, dims, mode="clip", order="C"):
    dims = tuple(int(d) for d in dims)
    idx = to_tensor(multi_index)
    if shape(idx)[0] != len(dims):
        raise OpValueError(f"For 'ravel_multi_index', multi_index must have {len(dims)} rows")
    strides = np.cumprod((1,) + dims[::-1])[:-1][::-1] if order == "C" else np.cumprod((1,) + dims)[:-1]
    out = None
    for i, (d, s) in enumerate(zip(dims, strides)):
        row = F.cast(idx[i], mstype.float32)
        if mode == "clip":
            row = F.minimum(F.maximum(row, 0.0), float(d - 1))
        elif mode == "wrap":
            row = F.floor_mod(row, float(d))
        term = F.mul(row, float(s))
        out = term if out is None else F.add(out, term)
    return out


def unravel_index(indices, shape_, order="C"):
    idx = F.cast(to_tensor(indices), mstype.int32)
    dims = tuple(int(d) for d in shape_)
    total = int(np.prod(dims))
    idx = F.minimum(F.maximum(idx, 0), total - 1)
    out = []
    rest = idx
    seq = range(len(dims) - 1, -1, -1) if order == "C" else range(len(dims))
    for d in seq:
        out.append(F.floor_mod(rest, dims[d]))
        rest = F.floor_div(rest, dims[d])
    if order == "C":
        out.reverse()
    return tuple(out)


__all__ = ["bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
           "float32", "float64", "float_", "int_", "promote_types", "result_type", "isscalar", "diff", "ediff1d",
           "trapz", "unwrap", "searchsorted", "digitize", "interp", "ravel_multi_index", "unravel_index"]
