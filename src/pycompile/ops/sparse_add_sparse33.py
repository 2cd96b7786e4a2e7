"""`mindspore.ops.operations.sparse_ops.SparseAdd`: the sum of two COO tensors given as parts.

MindSpore's CPU kernel merges the two entry lists, each assumed in row-major order: an index both
hold is one entry, their sum, dropped when |sum| < thresh; an index only one holds is kept as is.
Here the entries are sorted by their row-major position (the shape is a run-time tensor, so the
position is computed in the graph), equal positions summed, then the kept entries moved to the
front. The result's length is known only when the graph runs: in graph code it is a
`dynamic_length.Bounded` (at most n1 + n2 entries; the call returns the first `count`), in
PyNative a Tensor of that length.
"""
from __future__ import annotations

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import Symbolic
from pycompile.common.tensor import Tensor, TensorMethods
from pycompile.ops import functional as F
from pycompile.ops import prims as P
from pycompile.ops._table import OpTypeError, OpValueError, apply
from pycompile.ops.dynamic_length import Bounded, BoundedTrace
from pycompile.ops.primitive import Primitive


def _cumsum_exclusive(x):
    return apply(P.CumSum, [x], {"axis": 0, "exclusive": True, "reverse": False})


def _compact(data, keep, n):
    """data's rows where keep, moved to the front of a buffer of n rows (zeros after them)."""
    target = F.reshape(F.select(keep, _cumsum_exclusive(F.cast(keep, mstype.int32)),
                                F.fill(mstype.int32, (n,), n)), (n, 1))
    zeros = Tensor._wrap(np.zeros((n + 1,) + tuple(data.shape[1:]), data.dtype.np))
    return apply(P.TensorScatterAdd, [zeros, target, data])[:n]


def sparse_add(x1_indices, x1_values, x1_shape, x2_indices, x2_values, x2_shape, thresh):
    op = "SparseAdd"
    for name, t in (("x1_indices", x1_indices), ("x2_indices", x2_indices), ("x1_shape", x1_shape),
                    ("x2_shape", x2_shape)):
        if not isinstance(t, TensorMethods) or t.dtype != mstype.int64:
            raise OpTypeError(f"For primitive[{op}], the input argument[{name}] must be a type of {{Tensor[Int64]}}, "
                              f"but got {getattr(t, 'dtype', type(t).__name__)}.")
    if x1_values.dtype != x2_values.dtype:
        raise OpTypeError(f"For primitive[{op}], 'x1_values' and 'x2_values' must have the same dtype, but got "
                          f"{x1_values.dtype} and {x2_values.dtype}.")
    if x1_indices.ndim != 2 or x2_indices.ndim != 2 or x1_indices.shape[1] != x2_indices.shape[1]:
        raise OpValueError(f"For primitive[{op}], the indices must be 2-D with the same number of columns, but got "
                           f"{tuple(x1_indices.shape)} and {tuple(x2_indices.shape)}.")
    if x1_values.shape[0] != x1_indices.shape[0] or x2_values.shape[0] != x2_indices.shape[0]:
        raise OpValueError(f"For primitive[{op}], each 'values' must have one entry per row of its 'indices'.")
    n, ndim = x1_indices.shape[0] + x2_indices.shape[0], x1_indices.shape[1]
    idx = F.concat((x1_indices, x2_indices), 0)
    val = F.concat((x1_values, x2_values), 0)
    # row-major position: sum_d idx[:, d] * prod(shape[d + 1:])
    stride, key = None, None
    for d in range(ndim - 1, -1, -1):
        term = idx[:, d] if stride is None else F.mul(idx[:, d], stride)
        key = term if key is None else F.add(key, term)
        stride = x1_shape[d] if stride is None else F.mul(stride, x1_shape[d])
    order = F.argsort(key)
    ks, rows, vs = F.gather(key, order, 0), F.gather(idx, order, 0), F.gather(val, order, 0)
    first = F.concat((F.fill(mstype.bool_, (1,), True), F.ne(ks[1:], ks[:-1])), 0) if n > 1 else \
        F.fill(mstype.bool_, (n,), True)
    group = F.sub(apply(P.CumSum, [F.cast(first, mstype.int32)], {"axis": 0, "exclusive": False, "reverse": False}), 1)
    sums = F.unsorted_segment_sum(vs, group, n)
    size = F.unsorted_segment_sum(F.ones((n,), mstype.int32), group, n)
    rep = F.unsorted_segment_sum(F.mul(rows, F.cast(F.expand_dims(first, 1), rows.dtype)), group, n)
    groups = F.reduce_sum(F.cast(first, mstype.int32))
    th = F.cast(thresh, sums.dtype) if isinstance(thresh, TensorMethods) else thresh
    keep = F.logical_and(F.lt(F.arange(0, n, 1, dtype=mstype.int32), groups),
                         F.logical_or(F.lt(size, 2), F.ge(F.abs(sums), th)))
    out_idx, out_val = _compact(rep, keep, n), _compact(sums, keep, n)
    count = F.reduce_sum(F.cast(keep, mstype.int32))
    if any(isinstance(t, Symbolic) or not hasattr(t, "asnumpy") for t in (out_idx, count)):
        trace = BoundedTrace(count, n)
        return Bounded(out_idx, trace), Bounded(out_val, trace), x1_shape
    c = int(count.asnumpy())
    return Tensor(out_idx.asnumpy()[:c]), Tensor(out_val.asnumpy()[:c]), x1_shape


class SparseAdd(Primitive):
    """`SparseAdd()(x1_indices, x1_values, x1_shape, x2_indices, x2_values, x2_shape, thresh)`:
    (sum_indices, sum_values, sum_shape); see the module's docstring."""

    def __init__(self):
        super().__init__("SparseAdd")

    def __call__(self, x1_indices, x1_values, x1_shape, x2_indices, x2_values, x2_shape, thresh):
        return sparse_add(x1_indices, x1_values, x1_shape, x2_indices, x2_values, x2_shape, thresh)
