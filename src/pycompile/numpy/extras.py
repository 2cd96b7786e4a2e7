"""mindspore.numpy's remaining families: random arrays (rand / randn / randint), pad, the
functional helpers (apply_along_axis, apply_over_axes, piecewise), gradient, histograms with a
fixed number of bins, the index grids mgrid / ogrid and array_str. Compositions of pycompile ops;
pad's index maps and the grids are computed on the host."""
from __future__ import annotations

import builtins

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.numpy._utils import (NotSupported, const, is_tensor, ndim, norm_axes, norm_axis, shape, shape_arg,
                                    to_dtype, to_float, to_tensor, ttype)
from pycompile.numpy.shape import concatenate
from pycompile.ops import functional as F
from pycompile.ops._table import OpValueError


# ---- random arrays ---------------------------------------------------------------------------------------
def _shape_of(shape_):
    if len(shape_) == 1 and isinstance(shape_[0], (tuple, list)):
        shape_ = tuple(shape_[0])
    return shape_arg(tuple(shape_), "rand")


def rand(*shape, dtype=mstype.float32):
    """Uniform samples in [0, 1) (ops.rand's generator)."""
    import pycompile.ops as ops
    return ops.rand(*_shape_of(shape), dtype=to_dtype(dtype))


def randn(*shape, dtype=mstype.float32):
    import pycompile.ops as ops
    return ops.randn(*_shape_of(shape), dtype=to_dtype(dtype))


def randint(minval, maxval=None, shape=None, dtype=mstype.int32):
    """Integers uniform in [minval, maxval) ([0, minval) when maxval is None)."""
    import pycompile.ops as ops
    if maxval is None:
        minval, maxval = 0, minval
    if maxval <= minval:
        raise ValueError(f"For 'randint', maxval must be greater than minval, but got {minval} and {maxval}")
    dims = () if shape is None else shape_arg(shape, "randint")
    return ops.randint(int(minval), int(maxval), dims, dtype=to_dtype(dtype))


# ---- pad -------------------------------------------------------------------------------------------------------
_INDEX_MODES = {"edge": "edge", "reflect": "reflect", "symmetric": "symmetric", "wrap": "wrap"}


def _pairs(value, nd, dtype=np.int64):
    """A per-axis (before, after) table of `value`: a scalar, a pair, or one pair per axis."""
    v = np.asarray(value, dtype=dtype)
    return np.broadcast_to(v.reshape(-1, 2) if v.size > 1 else v.reshape(1, 1), (nd, 2))


def _widths(pad_width, nd):
    w = _pairs(pad_width, nd)
    if (w < 0).any():
        raise OpValueError(f"For 'pad', pad_width must not be negative, but got {pad_width!r}")
    return [(int(a), int(b)) for a, b in w]


def pad(arr, pad_width, mode="constant", stat_length=None, constant_values=0, end_values=0, reflect_type="even"):
    """Pad with a constant (`constant`), or by gathering existing elements (`edge`, `reflect`,
    `symmetric`, `wrap`: the index map per axis is NumPy's pad of a range), or with a statistic
    of the edge (`maximum`, `minimum`, `mean`)."""
    x = to_tensor(arr)
    widths = _widths(pad_width, ndim(x))
    if reflect_type != "even":
        raise NotSupported("mindspore.numpy.pad: reflect_type='odd' is not supported yet")
    for axis, (before, after) in enumerate(widths):
        if not before and not after:
            continue
        n = shape(x)[axis]
        if mode == "constant":
            vals = _pairs(constant_values, ndim(x), np.float64)[axis]
            parts = []
            for width, v in ((before, vals[0]), (after, vals[1])):
                s = tuple(width if d == axis else k for d, k in enumerate(shape(x)))
                parts.append(const(np.full(s, v).astype(ttype(x).dtype.np)))
            x = concatenate([parts[0], x, parts[1]], axis)
        elif mode in _INDEX_MODES:
            idx = np.pad(np.arange(n), (before, after), mode=_INDEX_MODES[mode])
            x = F.gather(x, const(idx.astype(np.int32)), axis)
        elif mode in ("maximum", "minimum", "mean"):
            red = {"maximum": F.reduce_max, "minimum": F.reduce_min, "mean": F.reduce_mean}[mode]
            stat = F.expand_dims(red(x, (axis,)), axis)
            parts = [F.broadcast_to(stat, tuple(w if d == axis else k for d, k in enumerate(shape(x))))
                     for w in (before, after)]
            x = concatenate([parts[0], x, parts[1]], axis)
        else:
            raise NotSupported(f"mindspore.numpy.pad: mode {mode!r} is not supported yet")
    _ = stat_length, end_values
    return x


# ---- functional helpers ---------------------------------------------------------------------------------------
def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    arr = to_tensor(arr)
    axis = norm_axis(axis, ndim(arr), "apply_along_axis")
    moved = F.moveaxis(arr, axis, -1)
    lead = shape(moved)[:-1]
    rows = F.reshape(moved, (-1, shape(moved)[-1]))
    outs = [to_tensor(func1d(rows[i], *args, **kwargs)) for i in builtins.range(shape(rows)[0])]
    out = F.stack(outs, 0)
    out = F.reshape(out, lead + shape(outs[0]))
    if ndim(outs[0]) == 0:
        return out
    k = ndim(outs[0])
    perm = list(builtins.range(axis)) + [len(lead) + j for j in builtins.range(k)] + \
        list(builtins.range(axis, len(lead)))
    return F.transpose(out, tuple(perm))


def apply_over_axes(func, a, axes):
    a = to_tensor(a)
    for ax in (axes,) if isinstance(axes, int) else tuple(axes):
        ax = norm_axis(ax, ndim(a), "apply_over_axes")
        res = to_tensor(func(a, ax))
        if ndim(res) == ndim(a) - 1:
            res = F.expand_dims(res, ax)
        elif ndim(res) != ndim(a):
            raise OpValueError("For 'apply_over_axes', func must keep the number of dimensions or drop one")
        a = res
    return a


def piecewise(x, condlist, funclist, *args, **kw):
    x = to_tensor(x)
    conds = [condlist] if is_tensor(condlist) else list(condlist)
    funcs = list(funclist)
    if len(funcs) == len(conds) + 1:        # the last function covers where no condition holds
        otherwise = F.logical_not(F.reduce_sum(F.cast(F.stack([F.cast(to_tensor(c), mstype.bool_) for c in conds]),
                                                      mstype.int32), (0,)) > 0)
        conds.append(otherwise)
    elif len(funcs) != len(conds):
        raise OpValueError("For 'piecewise', funclist must have as many entries as condlist, or one more")
    out = F.zeros_like(x)
    for c, f in zip(conds, funcs):
        val = f(x, *args, **kw) if callable(f) else f
        val = F.broadcast_to(F.cast(to_tensor(val), ttype(x).dtype), shape(x))
        out = F.select(F.broadcast_to(F.cast(to_tensor(c), mstype.bool_), shape(x)), val, out)
    return out


# ---- gradient ----------------------------------------------------------------------------------------------------
def _slice(x, axis, lo, hi):
    begin = tuple(lo if d == axis else 0 for d in builtins.range(ndim(x)))
    end = tuple(hi if d == axis else n for d, n in enumerate(shape(x)))
    return F.strided_slice(x, begin, end, (1,) * ndim(x))


def gradient(f, *varargs, axis=None, edge_order=1):
    """Central differences inside, one-sided at the edges (edge_order 1), with scalar spacings."""
    f = to_float(to_tensor(f))
    axes = norm_axes(axis, ndim(f), "gradient")
    if edge_order != 1:
        raise NotSupported("mindspore.numpy.gradient: edge_order=2 is not supported yet")
    spacing = list(varargs) if len(varargs) > 1 else [varargs[0] if varargs else 1.0] * len(axes)
    if len(spacing) != len(axes) or not builtins.all(isinstance(h, (int, float)) for h in spacing):
        raise NotSupported("mindspore.numpy.gradient: only one scalar spacing per axis is supported yet")
    outs = []
    for ax, h in zip(axes, spacing):
        n = shape(f)[ax]
        if n < 2:
            raise OpValueError("For 'gradient', each axis must have at least 2 elements")
        first = F.div(F.sub(_slice(f, ax, 1, 2), _slice(f, ax, 0, 1)), float(h))
        last = F.div(F.sub(_slice(f, ax, n - 1, n), _slice(f, ax, n - 2, n - 1)), float(h))
        parts = [first]
        if n > 2:
            parts.append(F.div(F.sub(_slice(f, ax, 2, n), _slice(f, ax, 0, n - 2)), 2.0 * h))
        parts.append(last)
        outs.append(concatenate(parts, ax))
    return outs[0] if len(outs) == 1 else outs


# ---- histograms ------------------------------------------------------------------------------------------------------
def histogram_bin_edges(a, bins=10, range=None, weights=None):  # noqa: A002
    a = to_float(F.reshape(to_tensor(a), (-1,)))
    if not isinstance(bins, int):
        return to_float(to_tensor(bins))
    if range is None:
        lo, hi = F.reduce_min(a, (0,)), F.reduce_max(a, (0,))
    else:
        lo, hi = const(np.float32(range[0])), const(np.float32(range[1]))
    same = F.equal(lo, hi)
    lo = F.select(same, F.sub(lo, 0.5), lo)
    hi = F.select(same, F.add(hi, 0.5), hi)
    frac = const((np.arange(bins) / bins).astype(np.float32))
    # the last edge is hi itself (lo + (hi - lo) * 1 may round past it, leaving the maximum uncounted)
    return F.concat([F.add(lo, F.mul(F.sub(hi, lo), frac)), F.reshape(hi, (1,))], 0)


def histogram(a, bins=10, range=None, weights=None, density=False):  # noqa: A002
    """Counts per bin (the last bin closed) and the bin edges; values outside the range are not counted."""
    edges = histogram_bin_edges(a, bins, range)
    x = to_float(F.reshape(to_tensor(a), (-1,)))
    nb = shape(edges)[0] - 1
    xv = F.expand_dims(x, 1)
    lo, hi = F.expand_dims(edges[:nb], 0), F.expand_dims(edges[1:], 0)
    last = const(np.arange(nb) == nb - 1)
    inside = F.logical_and(F.greater_equal(xv, lo), F.logical_or(F.less(xv, hi),
                                                                 F.logical_and(last, F.equal(xv, hi))))
    w = F.ones_like(x) if weights is None else to_float(F.reshape(to_tensor(weights), (-1,)))
    counts = F.reduce_sum(F.mul(F.cast(inside, mstype.float32), F.expand_dims(w, 1)), (0,))
    if density:
        counts = F.div(counts, F.mul(F.reduce_sum(counts, (0,)), F.sub(edges[1:], edges[:nb])))
    return counts, edges          # float32 counts, as mindspore.numpy


# ---- index grids and printing ----------------------------------------------------------------------------
class _Grid:
    """`mnp.mgrid[0:3, 0:4]` / `mnp.ogrid[...]`: NumPy's grids as constants (int32 for int
    slices, float32 otherwise)."""

    def __init__(self, sparse: bool):
        self.sparse = sparse

    def __getitem__(self, key):
        grid = (np.ogrid if self.sparse else np.mgrid)[key]
        if isinstance(grid, (list, tuple)):
            return [const(_narrow(g)) for g in grid]
        return const(_narrow(grid))


def _narrow(a):
    a = np.asarray(a)
    return a.astype(np.int32) if a.dtype.kind == "i" else a.astype(np.float32)


mgrid = _Grid(False)
ogrid = _Grid(True)


def array_str(a):
    """The text of a tensor's values, as NumPy prints an array (PyNative only)."""
    return np.array2string(to_tensor(a).asnumpy())


__all__ = ["rand", "randn", "randint", "pad", "apply_along_axis", "apply_over_axes", "piecewise", "gradient",
           "histogram_bin_edges", "histogram", "mgrid", "ogrid", "array_str"]
