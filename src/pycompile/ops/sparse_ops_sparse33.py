"""Primitives MindSpore keeps only in `mindspore.ops.operations.sparse_ops`, over COO tensors given
as parts (indices (n, ndim), values (n,), shape a 1-D int Tensor, known only when the graph runs):
SparseAdd, SparseSparseMaximum / Minimum, SparseReorder, SparseReshape, SparseAddmm,
SparseDenseCwiseAdd / Mul / Div, SparseMatrixMatMul, SparseMatrixSoftmax, SparseCountSparseOutput.
None needs the shape's
values at compile time: a row-major position is computed in the graph, a dense operand is read
by broadcasting its own (static) shape.

SparseAdd: the sum of two COO tensors.
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
from pycompile.common.abstract import Symbolic, type_of
from pycompile.common.tensor import Tensor, TensorMethods
from pycompile.ops import functional as F
from pycompile.ops import prims as P
from pycompile.ops._table import OpTypeError, OpValueError, apply
from pycompile.ops.dynamic_length import Bounded, BoundedTrace
from pycompile.ops.primitive import Primitive
from pycompile.ops.tracing import needs_value


def _cumsum_exclusive(x):
    return apply(P.CumSum, [x], {"axis": 0, "exclusive": True, "reverse": False})


def _position(idx, shape):
    """Each entry's row-major position, sum_d idx[:, d] * prod(shape[d + 1:]) (shape a run-time tensor)."""
    stride, key = None, None
    for d in range(idx.shape[1] - 1, -1, -1):
        col = F.cast(idx[:, d], mstype.int64)
        term = col if stride is None else F.mul(col, stride)
        key = term if key is None else F.add(key, term)
        dim = F.cast(shape[d], mstype.int64)
        stride = dim if stride is None else F.mul(stride, dim)
    return key


def _compact(data, keep, n):
    """data's rows where keep, moved to the front of a buffer of n rows (zeros after them)."""
    target = F.reshape(F.select(keep, _cumsum_exclusive(F.cast(keep, mstype.int32)),
                                F.fill(mstype.int32, (n,), n)), (n, 1))
    zeros = Tensor._wrap(np.zeros((n + 1,) + tuple(data.shape[1:]), data.dtype.np))
    return apply(P.TensorScatterAdd, [zeros, target, data])[:n]


def _check_pair(op, x1_indices, x1_values, x1_shape, x2_indices, x2_values, x2_shape):
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


def _merge(x1_indices, x1_values, x1_shape, x2_indices, x2_values, combine):
    """The union of two COO tensors' entries in row-major order: `combine(first, second, size)`
    gives each place's value and whether it is kept (size: 1 or 2 entries there; second is 0 where
    size is 1). Returns (indices, values) of run-time length: Bounded in graph code."""
    return by_place(F.concat((x1_indices, x2_indices), 0), F.concat((x1_values, x2_values), 0), x1_shape, combine)


def by_place(idx, val, shape, combine):
    """The entries (idx (n, ndim), val (n,)) grouped by place, in row-major order of `shape` (a
    run-time 1-D tensor): `combine(first, rest, size)` gives each place's value and whether it is
    kept (first: the value of the place's first entry, rest: the sum of the others, size: their
    count). Returns (indices, values) of run-time length: Bounded in graph code."""
    n = idx.shape[0]
    key = _position(idx, shape)
    order = F.argsort(key)
    ks, rows, vs = F.gather(key, order, 0), F.gather(idx, order, 0), F.gather(val, order, 0)
    first = F.concat((F.fill(mstype.bool_, (1,), True), F.ne(ks[1:], ks[:-1])), 0) if n > 1 else \
        F.fill(mstype.bool_, (n,), True)
    group = F.sub(apply(P.CumSum, [F.cast(first, mstype.int32)], {"axis": 0, "exclusive": False, "reverse": False}), 1)
    size = F.unsorted_segment_sum(F.ones((n,), mstype.int32), group, n)
    v_first = F.unsorted_segment_sum(F.mul(vs, F.cast(first, vs.dtype)), group, n)
    v_second = F.unsorted_segment_sum(F.mul(vs, F.cast(F.logical_not(first), vs.dtype)), group, n)
    rep = F.unsorted_segment_sum(F.mul(rows, F.cast(F.expand_dims(first, 1), rows.dtype)), group, n)
    groups = F.reduce_sum(F.cast(first, mstype.int32))
    value, kept = combine(v_first, v_second, size)
    keep = F.logical_and(F.lt(F.arange(0, n, 1, dtype=mstype.int32), groups), kept)
    out_idx, out_val = _compact(rep, keep, n), _compact(value, keep, n)
    count = F.reduce_sum(F.cast(keep, mstype.int32))
    if any(isinstance(t, Symbolic) or not hasattr(t, "asnumpy") for t in (out_idx, count)):
        trace = BoundedTrace(count, n)
        return Bounded(out_idx, trace), Bounded(out_val, trace)
    c = int(count.asnumpy())
    return Tensor(out_idx.asnumpy()[:c]), Tensor(out_val.asnumpy()[:c])


def sparse_add(x1_indices, x1_values, x1_shape, x2_indices, x2_values, x2_shape, thresh):
    _check_pair("SparseAdd", x1_indices, x1_values, x1_shape, x2_indices, x2_values, x2_shape)

    def combine(a, b, size):
        total = F.add(a, b)
        th = F.cast(thresh, total.dtype) if isinstance(thresh, TensorMethods) else thresh
        return total, F.logical_or(F.lt(size, 2), F.ge(F.abs(total), th))
    return (*_merge(x1_indices, x1_values, x1_shape, x2_indices, x2_values, combine), x1_shape)


def _sparse_extreme(name, fn):
    def call(self, x1_indices, x1_values, x1_shape, x2_indices, x2_values, x2_shape):
        """The element-wise extreme of two COO tensors over the union of their places (a place only
        one holds is compared with 0, the other's implicit value)."""
        _check_pair(name, x1_indices, x1_values, x1_shape, x2_indices, x2_values, x2_shape)

        def combine(a, b, size):
            return fn(a, b), F.ge(size, 1)
        return _merge(x1_indices, x1_values, x1_shape, x2_indices, x2_values, combine)

    def init(self):
        Primitive.__init__(self, name)
    return type(name, (Primitive,), {"__init__": init, "__call__": call, "__module__": __name__,
                                     "__doc__": f"`{name}()(x1_indices, x1_values, x1_shape, x2_indices, x2_values, "
                                                f"x2_shape)`: (indices, values). {call.__doc__}"})


SparseSparseMaximum = _sparse_extreme("SparseSparseMaximum", F.maximum)
SparseSparseMinimum = _sparse_extreme("SparseSparseMinimum", F.minimum)


class SparseAdd(Primitive):
    """`SparseAdd()(x1_indices, x1_values, x1_shape, x2_indices, x2_values, x2_shape, thresh)`:
    (sum_indices, sum_values, sum_shape); see the module's docstring."""

    def __init__(self):
        super().__init__("SparseAdd")

    def __call__(self, x1_indices, x1_values, x1_shape, x2_indices, x2_values, x2_shape, thresh):
        return sparse_add(x1_indices, x1_values, x1_shape, x2_indices, x2_values, x2_shape, thresh)


class SparseReorder(Primitive):
    """`SparseReorder()(indices, values, shape)`: the entries in row-major order (indices, values)."""

    def __init__(self):
        super().__init__("SparseReorder")

    def __call__(self, indices, values, shape):
        if indices.ndim != 2 or values.ndim != 1 or indices.shape[0] != values.shape[0]:
            raise OpValueError(f"For 'SparseReorder', 'indices' must be (n, ndim) and 'values' (n,), but got "
                               f"{tuple(indices.shape)} and {tuple(values.shape)}.")
        order = F.argsort(_position(indices, shape))
        return F.gather(indices, order, 0), F.gather(values, order, 0)


class SparseAddmm(Primitive):
    """`SparseAddmm()(indices, values, sparse_shape, x2_dense, x3_dense, alpha, beta)`:
    alpha (sparse @ x2_dense) + beta x3_dense; the product's rows are x3_dense's."""

    def __init__(self):
        super().__init__("SparseAddmm")

    def __call__(self, indices, values, sparse_shape, x2_dense, x3_dense, alpha, beta):
        if x2_dense.ndim != 2 or x3_dense.ndim != 2 or x2_dense.shape[1] != x3_dense.shape[1]:
            raise OpValueError(f"For 'SparseAddmm', 'x2_dense' (k, m) and 'x3_dense' (n, m) must be 2-D with the same "
                               f"columns, but got {tuple(x2_dense.shape)} and {tuple(x3_dense.shape)}.")
        rows = F.gather(x2_dense, F.cast(indices[:, 1], mstype.int32), 0)
        prod = F.unsorted_segment_sum(F.mul(F.expand_dims(values, 1), rows), F.cast(indices[:, 0], mstype.int32),
                                      x3_dense.shape[0])
        return F.add(F.mul(alpha, prod), F.mul(beta, x3_dense))


def _cwise(name, fn):
    def call(self, x1_indices, x1_values, x1_shape, x2):
        """values op x2 at the entries' places (x2 broadcast to the sparse tensor's shape by its trailing axes)."""
        if x1_indices.ndim != 2 or x2.ndim > x1_indices.shape[1]:
            raise OpValueError(f"For '{name}', 'x2' must have at most as many dims as the sparse tensor, but got "
                               f"{x2.ndim} and {x1_indices.shape[1]}.")
        if x2.dtype != x1_values.dtype:
            raise OpTypeError(f"For '{name}', 'x1_values' and 'x2' must have the same dtype, but got "
                              f"{x1_values.dtype} and {x2.dtype}.")
        lead = x1_indices.shape[1] - x2.ndim
        cols = [F.zeros_like(x1_indices[:, lead + k]) if x2.shape[k] == 1 else x1_indices[:, lead + k]
                for k in range(x2.ndim)]
        other = F.gather_nd(x2, F.stack(cols, 1)) if cols else F.broadcast_to(x2, tuple(x1_values.shape))
        return fn(x1_values, other)

    def init(self):
        Primitive.__init__(self, name)
    return type(name, (Primitive,), {"__init__": init, "__call__": call, "__module__": __name__,
                                     "__doc__": f"`{name}()(x1_indices, x1_values, x1_shape, x2)`: {call.__doc__}"})


SparseDenseCwiseAdd = _cwise("SparseDenseCwiseAdd", F.add)
SparseDenseCwiseMul = _cwise("SparseDenseCwiseMul", F.mul)
SparseDenseCwiseDiv = _cwise("SparseDenseCwiseDiv", F.div)


def _csr_segments(op, batch_pointers, row_pointers, nnz):
    """For a batch of CSR matrices: each entry's global row (batch * rows + row, int32), the number
    of rows in all (n), the batch count and the rows per matrix (static: the pointers' lengths)."""
    one = batch_pointers.ndim != 1 or batch_pointers.shape[0] < 2   # a 0-d count (as MindSpore's tests pass): one matrix
    nb = 1 if one else batch_pointers.shape[0] - 1
    if row_pointers.shape[0] % nb:
        raise OpValueError(f"For '{op}', the row pointers must hold rows + 1 pointers per batch.")
    rows = row_pointers.shape[0] // nb - 1
    k = F.arange(0, nnz, 1, dtype=mstype.int64)
    bp = Tensor(np.array([0, nnz], np.int64)) if one else F.cast(batch_pointers, mstype.int64)
    rp = F.reshape(F.cast(row_pointers, mstype.int64), (nb, rows + 1))
    batch = F.reduce_sum(F.cast(F.le(F.expand_dims(bp[1:], 0), F.expand_dims(k, 1)), mstype.int64), 1)
    local = F.sub(k, F.gather(bp, batch, 0))
    row = F.reduce_sum(F.cast(F.le(F.gather(rp, batch, 0)[:, 1:], F.expand_dims(local, 1)), mstype.int64), 1)
    return F.cast(F.add(F.mul(batch, rows), row), mstype.int32), nb * rows, nb, rows


class SparseMatrixMatMul(Primitive):
    """`SparseMatrixMatMul(...)(x1_dense_shape, x1_batch_pointers, x1_row_pointers, x1_col_indices,
    x1_values, x2_dense)`: a (batch of) CSR matrices times dense ones. x2 may be transposed
    (transpose_x2 / adjoint_x2) and the output too (transpose_output); transposing x1 needs its
    column count, a run-time value here, so it raises."""

    def __init__(self, transpose_x1=False, transpose_x2=False, adjoint_x1=False, adjoint_x2=False,
                 transpose_output=False, conjugate_output=False):
        super().__init__("SparseMatrixMatMul")
        if transpose_x1 or adjoint_x1:
            raise OpValueError("For 'SparseMatrixMatMul', transpose_x1 / adjoint_x1 are not supported by pycompile "
                               "(the product's rows would be x1's columns, known only when the graph runs).")
        self.transpose_x2, self.transpose_output = transpose_x2 or adjoint_x2, transpose_output

    def __call__(self, x1_dense_shape, x1_batch_pointers, x1_row_pointers, x1_col_indices, x1_values, x2_dense):
        seg, n, nb, rows = _csr_segments("SparseMatrixMatMul", x1_batch_pointers, x1_row_pointers, x1_values.shape[0])
        x2 = x2_dense
        if self.transpose_x2:
            x2 = F.transpose(x2, tuple(range(x2.ndim - 2)) + (x2.ndim - 1, x2.ndim - 2))
        k, m = x2.shape[-2], x2.shape[-1]
        batch = F.floor_div(seg, rows) if rows else seg
        pick = F.add(F.mul(F.cast(batch, mstype.int32), k), F.cast(x1_col_indices, mstype.int32))
        picked = F.gather(F.reshape(x2, (-1, m)), pick, 0)
        out = F.unsorted_segment_sum(F.mul(F.expand_dims(x1_values, 1), picked), seg, n)
        out = F.reshape(out, (nb, rows, m)) if x2.ndim == 3 else out
        if self.transpose_output:
            out = F.transpose(out, tuple(range(out.ndim - 2)) + (out.ndim - 1, out.ndim - 2))
        return out


class SparseMatrixSoftmax(Primitive):
    """`SparseMatrixSoftmax(dtype)(x_dense_shape, x_batch_pointers, x_row_pointers, x_col_indices,
    x_values)`: a (batch of) CSR matrices with the softmax of each row's stored values; the other
    parts are returned unchanged. The batch count and the rows per matrix come from the pointers'
    static lengths; entry k's row is counted from them in the graph."""

    def __init__(self, dtype):
        super().__init__("SparseMatrixSoftmax")
        if dtype not in (mstype.float32, mstype.float64):
            raise OpTypeError(f"For 'SparseMatrixSoftmax', 'dtype' must be float32 or float64, but got {dtype}.")
        self.dtype = dtype
        self.add_prim_attr("dtype", dtype)

    def __call__(self, x_dense_shape, x_batch_pointers, x_row_pointers, x_col_indices, x_values):
        if x_values.dtype != self.dtype:
            raise OpTypeError(f"For 'SparseMatrixSoftmax', 'x_values' must be {self.dtype}, but got {x_values.dtype}.")
        seg, n, _, _ = _csr_segments("SparseMatrixSoftmax", x_batch_pointers, x_row_pointers, x_values.shape[0])
        e = F.exp(F.sub(x_values, F.gather(F.unsorted_segment_max(x_values, seg, n), seg, 0)))
        y = F.div(e, F.gather(F.unsorted_segment_sum(e, seg, n), seg, 0))
        return x_dense_shape, x_batch_pointers, x_row_pointers, x_col_indices, y


class SparseReshape(Primitive):
    """`SparseReshape()(indices, shape, new_shape)`: (y_indices, y_shape), each entry moved to the
    place of the same row-major position in new_shape (one -1 in new_shape is inferred)."""

    def __init__(self):
        super().__init__("SparseReshape")

    def __call__(self, indices, shape, new_shape):
        for name, t in (("indices", indices), ("shape", shape), ("new_shape", new_shape)):
            if t.dtype != mstype.int64:
                raise OpTypeError(f"For 'SparseReshape', the type of '{name}' must be int64, but got {t.dtype}.")
        if indices.ndim != 2 or shape.ndim != 1 or new_shape.ndim != 1 or indices.shape[1] != shape.shape[0]:
            raise OpValueError(f"For 'SparseReshape', 'indices' must be (n, rank) and 'shape' (rank,), but got "
                               f"{tuple(indices.shape)} and {tuple(shape.shape)}.")
        pos = _position(indices, shape)
        total = None
        for d in range(shape.shape[0]):
            total = shape[d] if total is None else F.mul(total, shape[d])
        unknown = F.equal(new_shape, -1)
        known = None
        for d in range(new_shape.shape[0]):
            dim = F.select(unknown[d], F.ones((), mstype.int64), new_shape[d])
            known = dim if known is None else F.mul(known, dim)
        y_shape = F.select(unknown, F.broadcast_to(F.floor_div(total, known), tuple(new_shape.shape)), new_shape)
        cols, stride = [], None
        for d in range(new_shape.shape[0] - 1, -1, -1):
            q = pos if stride is None else F.floor_div(pos, stride)
            cols.append(F.floor_mod(q, y_shape[d]))
            stride = y_shape[d] if stride is None else F.mul(stride, y_shape[d])
        return F.stack(cols[::-1], 1), y_shape


class SparseCountSparseOutput(Primitive):
    """`SparseCountSparseOutput(binary_output, minlength, maxlength)(indices, values, dense_shape,
    weights)`: per row of a 2-D sparse tensor (or for the whole 1-D one), the weight sum (binary:
    1) of each value it holds, as a sparse tensor (row, value) of run-time length, with its dense
    shape (rows, max(max value + 1, minlength), at most maxlength). An index outside dense_shape is
    a RuntimeError, raised when the graph runs (a guarded read of a 1-element buffer)."""

    def __init__(self, binary_output=False, minlength=-1, maxlength=-1):
        super().__init__("SparseCountSparseOutput")
        if not isinstance(binary_output, bool):
            raise OpTypeError(f"For 'SparseCountSparseOutput', 'binary_output' must be a bool, but got {binary_output!r}.")
        for name, v in (("minlength", minlength), ("maxlength", maxlength)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise OpTypeError(f"For 'SparseCountSparseOutput', '{name}' must be an int, but got {v!r}.")
        self.binary_output, self.minlength, self.maxlength = binary_output, minlength, maxlength

    def __call__(self, indices, values, dense_shape, weights):
        op = "SparseCountSparseOutput"
        if indices.dtype != mstype.int64 or dense_shape.dtype != mstype.int64:
            raise OpTypeError(f"For '{op}', 'indices' and 'dense_shape' must be int64, but got {indices.dtype} and "
                              f"{dense_shape.dtype}.")
        if values.dtype not in (mstype.int32, mstype.int64):
            raise OpTypeError(f"For '{op}', 'values' must be int32 or int64, but got {values.dtype}.")
        n = values.shape[0]
        if indices.ndim != 2 or indices.shape[0] != n or indices.shape[1] != dense_shape.shape[0]:
            raise OpValueError(f"For '{op}', 'indices' must be (n, rank of dense_shape) with n the number of values, "
                               f"but got {tuple(indices.shape)}, {n} values and dense_shape {tuple(dense_shape.shape)}.")
        if weights.size and weights.shape[0] != n:
            raise RuntimeError(f"For '{op}', the number of weights ({weights.shape[0]}) must equal the number of "
                               f"values ({n}).")
        inside = F.logical_and(F.ge(indices, 0), F.lt(indices, F.expand_dims(dense_shape, 0)))
        bad = F.cast(F.logical_not(F.all(inside)), mstype.int32)
        guard = F.gather(Tensor(np.zeros((1,), np.int32)), F.reshape(bad, (1,)), 0)   # out of range when bad
        v64 = F.cast(values, mstype.int64)
        size = F.add(F.reduce_max(v64), 1)
        if self.minlength > 0:
            size = F.maximum(size, self.minlength)
        if self.maxlength > 0:
            size = F.minimum(size, self.maxlength)
        w = weights if weights.size else F.ones((n,), mstype.int64)
        row = indices[:, 0] if indices.shape[1] == 2 else F.zeros((n,), mstype.int64)
        kept = F.lt(v64, size)
        key = F.add(F.mul(row, size), v64)
        order = F.argsort(key)
        ks, rs, vs = F.gather(key, order, 0), F.gather(row, order, 0), F.gather(v64, order, 0)
        ws, ok = F.gather(w, order, 0), F.gather(kept, order, 0)
        first = F.concat((F.fill(mstype.bool_, (1,), True), F.ne(ks[1:], ks[:-1])), 0) if n > 1 else \
            F.fill(mstype.bool_, (n,), True)
        group = F.sub(apply(P.CumSum, [F.cast(first, mstype.int32)], {"axis": 0, "exclusive": False, "reverse": False}), 1)
        total = F.unsorted_segment_sum(ws, group, n)
        if self.binary_output:
            total = F.cast(F.ne(total, 0) if weights.size else F.gt(total, 0), total.dtype)
        place = F.stack((rs, vs), 1) if indices.shape[1] == 2 else F.expand_dims(vs, 1)
        rep = F.unsorted_segment_sum(F.mul(place, F.cast(F.expand_dims(first, 1), mstype.int64)), group, n)
        keep_g = F.gt(F.unsorted_segment_sum(F.cast(F.logical_and(first, ok), mstype.int32), group, n), 0)
        out_idx, out_val = _compact(F.add(rep, F.cast(guard, mstype.int64)), keep_g, n), _compact(total, keep_g, n)
        count = F.reduce_sum(F.cast(keep_g, mstype.int32))
        shape = F.stack((dense_shape[0], size)) if indices.shape[1] == 2 else F.reshape(size, (1,))
        if any(isinstance(t, Symbolic) or not hasattr(t, "asnumpy") for t in (out_idx, count)):
            trace = BoundedTrace(count, n)
            return Bounded(out_idx, trace), Bounded(out_val, trace), shape
        c = int(count.asnumpy())
        return Tensor(out_idx.asnumpy()[:c]), Tensor(out_val.asnumpy()[:c]), shape


def values_setting_length(op, t, name):
    """The values of `t`, which set an output's length: a PyNative Tensor's; in graph code a
    constant's, or - for an argument of the compiled function - one compile per value
    (tracing.needs_value, MindSpore's value-depend input); an error for a value computed in the
    graph."""
    if not isinstance(t, Symbolic) and hasattr(t, "asnumpy"):
        return t.asnumpy()
    known = needs_value(t, f"the length of the output of '{op}' ('{name}')")
    if known is None:
        raise OpValueError(f"For '{op}', the values of '{name}' set the output's length, so they must be known "
                           f"when the graph is compiled (a constant, or an argument of the compiled function).")
    return np.asarray(known)


def segment_mean(x, indices, segment_ids, n: int):
    """out[s] for s < n = mean of x[indices[j]] over the j with segment_ids[j] == s (0 where none)."""
    rows = F.gather(x, indices, 0)
    total = F.unsorted_segment_sum(rows, segment_ids, n)
    count = F.unsorted_segment_sum(F.ones((type_of(segment_ids).shape[0],), x.dtype), segment_ids, n)
    count = F.reshape(F.maximum(count, 1.0), (n,) + (1,) * (x.ndim - 1))
    return F.div(total, count)


def _int_values(op, name, t):
    return [int(v) for v in np.asarray(values_setting_length(op, t, name)).reshape(-1)]


class SparseSegmentMeanWithNumSegments(Primitive):
    """`SparseSegmentMeanWithNumSegments()(x, indices, segment_ids, num_segments)`: out[s], s <
    num_segments, the mean of x[indices[j]] over the j with segment_ids[j] == s (0 where none). The
    output's length is num_segments' value: in graph code one compile per value."""

    def __init__(self):
        super().__init__("SparseSegmentMeanWithNumSegments")

    def __call__(self, x, indices, segment_ids, num_segments):
        op = "SparseSegmentMeanWithNumSegments"
        if x.dtype not in (mstype.float16, mstype.float32, mstype.float64):
            raise OpTypeError(f"For '{op}', the type of 'x' must be float16, float32 or float64, but got {x.dtype}.")
        for name, t in (("indices", indices), ("segment_ids", segment_ids), ("num_segments", num_segments)):
            if t.dtype != indices.dtype or t.dtype not in (mstype.int32, mstype.int64):
                raise OpTypeError(f"For '{op}', '{name}' must be int32 or int64, of the dtype of 'indices', but got "
                                  f"{t.dtype}.")
        if x.ndim < 1 or indices.ndim != 1 or segment_ids.ndim != 1 or indices.shape[0] != segment_ids.shape[0]:
            raise OpValueError(f"For '{op}', 'indices' and 'segment_ids' must be 1-D of one length and 'x' at least "
                               f"1-D, but got {tuple(x.shape)}, {tuple(indices.shape)}, {tuple(segment_ids.shape)}.")
        n = _int_values(op, "num_segments", num_segments)
        if len(n) != 1:
            raise OpValueError(f"For '{op}', 'num_segments' must hold one element, but got {len(n)}.")
        return segment_mean(x, indices, segment_ids, n[0])


class SparseTensorToCSRSparseMatrix(Primitive):
    """`SparseTensorToCSRSparseMatrix()(x_indices, x_values, x_dense_shape)`: (y_dense_shape,
    y_batch_pointers, y_row_pointers, y_col_indices, y_values) of the (batched) CSR form of a COO
    tensor of rank 2 or 3. As MindSpore's kernel: columns and values keep the entries' order, row
    pointers count each (batch, row) whatever the order, and batch pointer b is the number of entries
    before the first one whose batch (as a running maximum) reaches b - the CSR form for entries in
    row-major order. The shape's values set the outputs' lengths: in graph code one compile per value."""

    def __init__(self):
        super().__init__("SparseTensorToCSRSparseMatrix")

    def __call__(self, x_indices, x_values, x_dense_shape):
        op = "SparseTensorToCSRSparseMatrix"
        for name, t in (("x_indices", x_indices), ("x_dense_shape", x_dense_shape)):
            if t.dtype not in (mstype.int32, mstype.int64):
                raise OpTypeError(f"For '{op}', the dtype of '{name}' must be int32 or int64, but got {t.dtype}.")
        if x_values.dtype not in (mstype.float32, mstype.float64, mstype.complex64, mstype.complex128):
            raise OpTypeError(f"For '{op}', the dtype of 'x_values' must be float32, float64, complex64 or "
                              f"complex128, but got {x_values.dtype}.")
        shape = _int_values(op, "x_dense_shape", x_dense_shape)
        rank = len(shape)
        if x_indices.ndim != 2 or x_values.ndim != 1 or x_indices.shape[0] != x_values.shape[0] \
                or x_indices.shape[1] != rank or rank not in (2, 3):
            raise OpValueError(f"For '{op}', expected indices (N, rank), values (N,) and a dense shape of rank 2 or "
                               f"3, but got {tuple(x_indices.shape)}, {tuple(x_values.shape)} and {shape}.")
        dt = x_indices.dtype
        nnz = x_indices.shape[0]
        batches, rows = (1, shape[0]) if rank == 2 else (shape[0], shape[1])
        shift = rank - 2
        row = F.cast(x_indices[:, shift], mstype.int64)
        batch = F.cast(x_indices[:, 0], mstype.int64) if rank == 3 else F.zeros((nnz,), mstype.int64)
        slot = F.add(F.mul(batch, rows + 1), F.add(row, 1))
        counts = F.unsorted_segment_sum(F.ones((nnz,), mstype.int64), slot, batches * (rows + 1))
        row_ptr = F.reshape(apply(P.CumSum, [F.reshape(counts, (batches, rows + 1))],
                                  {"axis": 1, "exclusive": False, "reverse": False}), (batches * (rows + 1),))
        if nnz:
            reached = F.cummax(batch, 0)[0]
            below = F.lt(F.reshape(reached, (nnz, 1)), F.reshape(F.arange(0, batches + 1, 1, dtype=mstype.int64),
                                                                 (1, batches + 1)))
            batch_ptr = F.reduce_sum(F.cast(below, mstype.int64), 0)
        else:
            batch_ptr = F.zeros((batches + 1,), mstype.int64)
        return (x_dense_shape, F.cast(batch_ptr, dt), F.cast(row_ptr, dt), x_indices[:, shift + 1], x_values)
