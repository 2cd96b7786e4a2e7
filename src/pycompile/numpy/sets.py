"""mindspore.numpy's functions whose result length depends on the values: unique, intersect1d,
setdiff1d, argwhere, bincount; and the multi-dimensional histograms (a fixed number of bins).

unique is ops.unique (first appearances); intersect1d / setdiff1d sort the flattened input (a
static shape) and keep the first of each run of equal values with ops.masked_select: in graph
code both are values whose length is known only at run time (ops/dynamic_length.py), returned
as the right-length tensor. argwhere
and bincount without `length` need the values to size their result: they run eagerly only.
"""
from __future__ import annotations

import builtins

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.numpy._utils import NotSupported, const, ndim, shape, to_float, to_tensor, ttype
from pycompile.numpy.logic import isin
from pycompile.ops import functional as F


def _in_graph(x) -> bool:
    from pycompile.common.abstract import Symbolic
    return isinstance(x, Symbolic)


def _sorted_runs(x):
    """The sorted flattened x, and a mask of the first element of each run of equal values."""
    s = F.sort(F.reshape(to_tensor(x), (-1,)), 0)[0]
    n = shape(s)[0]
    if n <= 1:
        return s, const(np.ones(n, bool))
    head = const(np.ones(1, bool))
    return s, F.concat([head, F.not_equal(s[1:], s[:n - 1])], 0)


def _masked(values, mask):
    import pycompile.ops as ops
    return ops.masked_select(values, mask)


def unique(x, return_inverse=False):
    """The distinct values of x (flattened) in order of first appearance, as mindspore.numpy
    (ops.unique) gives them, not sorted as NumPy's; with return_inverse also each element's index
    among them."""
    import pycompile.ops as ops
    values, inverse = ops.unique(F.reshape(to_tensor(x), (-1,)))
    return (values, inverse) if return_inverse else values


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    if return_indices:
        raise NotSupported("mindspore.numpy.intersect1d: return_indices=True is not supported yet")
    s, first = _sorted_runs(ar1)
    return _masked(s, F.logical_and(first, isin(s, ar2)))


def setdiff1d(ar1, ar2, assume_unique=False):
    s, first = _sorted_runs(ar1)
    return _masked(s, F.logical_and(first, isin(s, ar2, invert=True)))


def argwhere(a):
    """The indices of the non-zero elements, one row each (PyNative: the row count depends on the values)."""
    a = to_tensor(a)
    if _in_graph(a):
        raise NotSupported("mindspore.numpy.argwhere has a result whose shape depends on the values; pycompile "
                           "runs it in PyNative mode only")
    idx = np.argwhere(a.asnumpy())
    return const(idx.astype(np.int64))


def bincount(x, weights=None, minlength=0, length=None):
    """Counts (float32) of each value of the non-negative int tensor x (weighted: sums of weights), over
    max(x) + 1 bins, at least `minlength`; `length` fixes the number of bins (values past it are
    not counted), which graph code needs."""
    x = to_tensor(x)
    if ndim(x) != 1:
        raise ValueError("For 'bincount', the input must be a 1-D tensor")
    if ttype(x).dtype not in (mstype.int8, mstype.int16, mstype.int32, mstype.int64, mstype.uint8):
        raise TypeError(f"For 'bincount', the input must be an int tensor, but got {ttype(x).dtype}")
    if length is None:
        if _in_graph(x):
            raise NotSupported("mindspore.numpy.bincount without `length` has a result whose length depends on "
                               "the values; pass length= in graph code")
        vals = x.asnumpy()
        if (vals < 0).any():
            raise ValueError("For 'bincount', the input must not have negative values")
        length = builtins.max(int(vals.max()) + 1 if vals.size else 0, int(minlength))
    hits = F.equal(F.expand_dims(x, 1), const(np.arange(length, dtype=ttype(x).dtype.np)))
    if weights is None:          # float32 counts, as mindspore.numpy
        return F.reduce_sum(F.cast(hits, mstype.float32), (0,))
    w = to_float(to_tensor(weights))
    return F.reduce_sum(F.mul(F.cast(hits, ttype(w).dtype), F.expand_dims(w, 1)), (0,))


# ---- multi-dimensional histograms --------------------------------------------------------------------
def histogramdd(sample, bins=10, range=None, weights=None, density=False):  # noqa: A002
    """Counts of the rows of sample (N, D) in a grid of bins (each the last one closed), and the
    edges per dimension."""
    from pycompile.numpy.extras import histogram_bin_edges
    s = to_float(to_tensor(sample))
    if isinstance(sample, (list, tuple)) or ndim(s) == 1:
        s = F.reshape(s, (-1, 1)) if ndim(s) == 1 else F.transpose(s, (1, 0))
    n, d = shape(s)
    nbins = [bins] * d if isinstance(bins, int) else list(bins)
    ranges = [None] * d if range is None else list(range)
    edges, index, inside = [], None, None
    for k in builtins.range(d):
        col = s[:, k]
        e = histogram_bin_edges(col, nbins[k], ranges[k])
        nb = shape(e)[0] - 1
        lo, hi = F.expand_dims(e[:nb], 0), F.expand_dims(e[1:], 0)
        cv = F.expand_dims(col, 1)
        last = const(np.arange(nb) == nb - 1)
        in_bin = F.logical_and(F.greater_equal(cv, lo), F.logical_or(F.less(cv, hi),
                                                                     F.logical_and(last, F.equal(cv, hi))))
        which = F.reduce_sum(F.mul(F.cast(in_bin, mstype.int32), const(np.arange(nb, dtype=np.int32))), (1,))
        ok = F.greater(F.reduce_sum(F.cast(in_bin, mstype.int32), (1,)), 0)
        index = which if index is None else F.add(F.mul(index, nb), which)
        inside = ok if inside is None else F.logical_and(inside, ok)
        edges.append(e)
    total = int(np.prod([shape(e)[0] - 1 for e in edges]))
    hits = F.logical_and(F.equal(F.expand_dims(index, 1), const(np.arange(total, dtype=np.int32))),
                         F.expand_dims(inside, 1))
    w = F.ones_like(s[:, 0]) if weights is None else to_float(to_tensor(weights))
    counts = F.reduce_sum(F.mul(F.cast(hits, mstype.float32), F.expand_dims(w, 1)), (0,))
    hist = F.reshape(counts, tuple(shape(e)[0] - 1 for e in edges))
    if density:
        vol = None
        for k, e in enumerate(edges):
            width = F.reshape(F.sub(e[1:], e[:shape(e)[0] - 1]),
                              tuple(-1 if j == k else 1 for j in builtins.range(d)))
            vol = width if vol is None else F.mul(vol, width)
        hist = F.div(hist, F.mul(F.reduce_sum(counts, (0,)), vol))
    return hist, edges


def histogram2d(x, y, bins=10, range=None, weights=None, density=False):  # noqa: A002
    x, y = to_float(to_tensor(x)), to_float(to_tensor(y))
    hist, edges = histogramdd(F.stack([F.reshape(x, (-1,)), F.reshape(y, (-1,))], 1),
                              [bins, bins] if isinstance(bins, int) else bins, range, weights, density)
    return hist, edges[0], edges[1]


__all__ = ["unique", "intersect1d", "setdiff1d", "argwhere", "bincount", "histogramdd", "histogram2d"]
