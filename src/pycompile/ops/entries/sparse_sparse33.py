"""The sparse-tensor functions of ops / ops.functional (`coo_*`, `csr_*`, conversions, accessors,
the `make_*` constructors) and the methods of COOTensor / CSRTensor / RowTensor
(common/sparse_tensor.py) that compute, all over the tensors' dense parts.

* the elementwise `coo_<f>` / `csr_<f>` (abs, exp, relu, isnan, ...) come from one table:
  `<f>` applied to the values, indices / indptr / shape kept;
* with a static pattern (the nonzeros' count known when graph code is compiled): to_dense,
  csr_mv / csr.mm, csr_reduce_sum, csr_mul / csr_div (by a dense tensor broadcast to the shape),
  csr_gather, csr_softmax, coo_concat, csr2coo / coo2csr, csr_to_coo. Row numbers of a CSR
  tensor's entries are counted from indptr (`row[k] = #{r >= 1: indptr[r] <= k}`);
* with a pattern that depends on the values (dense_to_sparse_*, Tensor.to_coo / to_csr,
  coo_add / csr_add, COOTensor.coalesce, csr_mm, sparse_segment_mean): PyNative only; in graph
  code the call raises an error naming the user's line (their output's size is not known when
  the graph is compiled).

MindSpore 2.10's CPU build lacks kernels for most `csr_*` ops (csr_mul, csr_mv, csr2coo, ...
fail with "Response is empty" from its AKG kernel builder) and takes only int64 indices in
coo_concat / coo_add; pycompile computes them all, with the documented semantics. Values recorded
from the wheel where it has them: tests/conformance/cases_sparse33.py.
"""
from __future__ import annotations

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import Symbolic
from pycompile.common.sparse_tensor import COOTensor, CSRTensor, RowTensor
from pycompile.common.tensor import Tensor, TensorMethods
from pycompile.ops import functional as F
from pycompile.ops._table import OpTypeError, OpValueError
from pycompile.ops.entry import Arg, op_entry, tensor_alias


def _kind(cls):
    def check(v, op):
        if not isinstance(v, cls):
            raise OpTypeError(f"For '{op}', the input must be a {cls.__name__}, but got {type(v).__name__}.")
    return check


_COO, _CSR = _kind(COOTensor), _kind(CSRTensor)


def _value(name, check=None, default=None, required=True):
    return Arg(name, "value", check=check) if required else Arg(name, "value", default=default, check=check)


def _eager(op, *tensors):
    """The NumPy values of tensors an op's output pattern depends on (PyNative only)."""
    for t in tensors:
        if isinstance(t, Symbolic) or not hasattr(t, "asnumpy"):
            raise OpValueError(f"For '{op}', the output's number of nonzeros depends on the input's values, so it "
                               f"runs in PyNative mode only (in graph code, build the sparse tensor from its "
                               f"parts: indices, values and shape).")
    return [t.asnumpy() for t in tensors]


# ---- the elementwise table ---------------------------------------------------------------------
_UNARY = ("abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh", "exp", "expm1",
          "floor", "inv", "isfinite", "isinf", "isnan", "log", "log1p", "neg", "relu", "relu6", "round",
          "sigmoid", "sin", "sinh", "softsign", "sqrt", "square", "tan", "tanh")


def _on_values(x, fn):
    if isinstance(x, COOTensor):
        return COOTensor(x.indices, fn(x.values), x.shape)
    return CSRTensor(x.indptr, x.indices, fn(x.values), x.shape)


def _declare_unary(prefix, check, name):
    def impl(x):
        import pycompile.ops as ops
        return _on_values(x, getattr(ops, name))
    impl.__doc__ = f"ops.{name} of the stored values; the {'indices' if prefix == 'coo' else 'indptr, indices'} and shape kept."
    impl.__module__ = __name__
    op_entry(f"{prefix}_{name}", args=[Arg("x", "value", check=check)], prim_name=f"{prefix}_{name}")(impl)


for _n in _UNARY:
    _declare_unary("coo", _COO, _n)
    _declare_unary("csr", _CSR, _n)


# ---- constructors and accessors ------------------------------------------------------------------
@op_entry("make_coo_tensor", args=[Arg("indices"), Arg("values"), _value("dense_shape")])
def make_coo_tensor(indices, values, dense_shape):
    """COOTensor(indices, values, dense_shape)."""
    return COOTensor(indices, values, dense_shape)


@op_entry("make_sparse_tensor", args=[Arg("indices"), Arg("values"), _value("dense_shape")])
def make_sparse_tensor(indices, values, dense_shape):
    """COOTensor(indices, values, dense_shape) (MindSpore's older name)."""
    return COOTensor(indices, values, dense_shape)


@op_entry("make_csr_tensor", args=[Arg("indptr"), Arg("indices"), Arg("values"), _value("dense_shape")])
def make_csr_tensor(indptr, indices, values, dense_shape):
    """CSRTensor(indptr, indices, values, dense_shape)."""
    return CSRTensor(indptr, indices, values, dense_shape)


def _getter(name, prefix, check, attr, doc):
    def impl(x):
        return getattr(x, attr)
    impl.__doc__, impl.__module__ = doc, __name__
    op_entry(name, args=[Arg("x", "value", check=check)], prim_name=name)(impl)


for _p, _chk, _attrs in (("coo", _COO, ("indices", "values", "dense_shape")),
                         ("csr", _CSR, ("indptr", "indices", "values", "dense_shape"))):
    for _a in _attrs:
        _getter(f"{_p}_tensor_get_{_a}", _p, _chk, "shape" if _a == "dense_shape" else _a,
                f"The {_a.replace('_', ' ')} of a {_p.upper()}Tensor.")


# ---- CSR helpers -----------------------------------------------------------------------------------
def _rows_of(indptr, nnz, dtype=None):
    """The row of each of the nnz entries: row[k] = #{r >= 1 : indptr[r] <= k}."""
    k = F.arange(0, nnz, 1, dtype=indptr.dtype)
    le = F.le(F.expand_dims(indptr[1:], 0), F.expand_dims(k, 1))
    return F.cast(F.reduce_sum(F.cast(le, mstype.int32), 1), dtype or indptr.dtype)


def _dense_at(y, shape, rows, cols):
    """y broadcast to the matrix's shape, read at (rows, cols)."""
    full = F.broadcast_to(y, tuple(shape)) if tuple(y.shape) != tuple(shape) else y
    return F.gather_nd(full, F.stack((F.cast(rows, mstype.int64), F.cast(cols, mstype.int64)), 1))


def _csr_rows(x):
    return _rows_of(x.indptr, x.values.shape[0])


@op_entry("csr2coo", args=[Arg("indptr"), _value("nnz")])
def csr2coo(indptr, nnz):
    """The row index of each of the nnz entries of a CSR matrix with this indptr."""
    return _rows_of(indptr, int(nnz))


@op_entry("coo2csr", args=[Arg("row_indices"), _value("height")])
def coo2csr(row_indices, height):
    """The indptr of a CSR matrix of `height` rows whose entries (sorted by row) have these rows:
    indptr[r] = #{k : row_indices[k] < r}."""
    r = F.arange(0, int(height) + 1, 1, dtype=row_indices.dtype)
    lt = F.lt(F.expand_dims(row_indices, 0), F.expand_dims(r, 1))
    return F.cast(F.reduce_sum(F.cast(lt, mstype.int32), 1), row_indices.dtype)


@op_entry("csr_to_coo", args=[Arg("tensor", "value", check=_CSR)])
def csr_to_coo(tensor):
    """The COOTensor of the same entries (indices (N, 2): row, column)."""
    rows = _csr_rows(tensor)
    return COOTensor(F.stack((rows, F.cast(tensor.indices, rows.dtype)), 1), tensor.values, tensor.shape)


def _coo_to_dense(x):
    return F.scatter_nd(x.indices, x.values, tuple(x.shape))


@op_entry("csr_to_dense", args=[Arg("csr_tensor", "value", check=_CSR)])
def csr_to_dense(csr_tensor):
    """The dense matrix (duplicate entries added)."""
    return _coo_to_dense(csr_to_coo(csr_tensor))


@op_entry("csr_mv", args=[Arg("csr_tensor", "value", check=_CSR), Arg("dense")])
def csr_mv(csr_tensor, dense):
    """The CSR matrix (N, M) times a dense (M, 1) column: (N, 1)."""
    x = csr_tensor
    if dense.ndim != 2 or dense.shape[0] != x.shape[1]:
        raise OpValueError(f"For 'csr_mv', 'dense' must have shape ({x.shape[1]}, K), but got {tuple(dense.shape)}.")
    prod = F.mul(F.expand_dims(x.values, 1), F.gather(dense, x.indices, 0))
    return F.unsorted_segment_sum(prod, _csr_rows(x), x.shape[0])


@op_entry("csr_reduce_sum", args=[Arg("csr_tensor", "value", check=_CSR), _value("axis")])
def csr_reduce_sum(csr_tensor, axis):
    """The sum along axis 0 or 1, the axis kept: (1, M) or (N, 1)."""
    x = csr_tensor
    if axis not in (0, 1, -1, -2):
        raise OpValueError(f"For 'csr_reduce_sum', 'axis' must be in [-2, 1], but got {axis}.")
    if axis % 2 == 1:
        return F.expand_dims(F.unsorted_segment_sum(x.values, _csr_rows(x), x.shape[0]), 1)
    return F.expand_dims(F.unsorted_segment_sum(x.values, x.indices, x.shape[1]), 0)


def _csr_binary(name, fn):
    def impl(x, y):
        if isinstance(y, TensorMethods):
            other = _dense_at(y, x.shape, _csr_rows(x), x.indices)
        else:
            other = y
        return CSRTensor(x.indptr, x.indices, fn(x.values, other), x.shape)
    impl.__doc__ = f"The CSR tensor's values {name.split('_')[1]} the dense tensor y (broadcast to its shape) at the same places."
    impl.__module__ = __name__
    op_entry(name, args=[Arg("x", "value", check=_CSR), Arg("y", "tensor|number")], prim_name=name)(impl)


_csr_binary("csr_mul", F.mul)
_csr_binary("csr_div", F.div)


@op_entry("csr_gather", args=[Arg("indptr"), Arg("indices"), Arg("dense"), _value("sparse_shape")])
def csr_gather(indptr, indices, dense, sparse_shape):
    """The values of `dense` at the places of a CSR pattern (indptr, indices) of sparse_shape."""
    return _dense_at(dense, sparse_shape, _rows_of(indptr, indices.shape[0]), indices)


@op_entry("csr_softmax", args=[Arg("logits", "value", check=_CSR), _value("dtype", default=mstype.float32,
                                                                          required=False)])
def csr_softmax(logits, dtype=mstype.float32):
    """Softmax of each row's stored values (the entries absent count as -inf)."""
    x = logits
    v = F.cast(x.values, dtype) if x.values.dtype != dtype else x.values
    rows, n = _csr_rows(x), x.shape[0]
    e = F.exp(F.sub(v, F.gather(F.unsorted_segment_max(v, rows, n), rows, 0)))
    return CSRTensor(x.indptr, x.indices, F.div(e, F.gather(F.unsorted_segment_sum(e, rows, n), rows, 0)), x.shape)


@op_entry("coo_concat", args=[_value("sp_input"), _value("concat_dim", default=0, required=False)])
def coo_concat(sp_input, concat_dim=0):
    """COO tensors joined along concat_dim: each one's indices moved by the sizes before it, the
    entries then in row-major order (MindSpore's SparseConcat)."""
    items = list(sp_input) if isinstance(sp_input, (tuple, list)) else None
    if items is None or not all(isinstance(c, COOTensor) for c in items):
        raise OpTypeError("For 'coo_concat', 'sp_input' must be a tuple or list of COOTensors.")
    if len(items) < 2:
        raise OpValueError(f"For 'coo_concat', 'sp_input' must hold at least 2 COOTensors, but got {len(items)}.")
    if isinstance(concat_dim, bool) or not isinstance(concat_dim, int):
        raise OpTypeError(f"For 'coo_concat', 'concat_dim' must be an int, but got {type(concat_dim).__name__}.")
    ndim = len(items[0].shape)
    if not -ndim <= concat_dim < ndim:
        raise IndexError(f"For 'coo_concat', 'concat_dim' must be in [{-ndim}, {ndim}), but got {concat_dim}.")
    dim = concat_dim % ndim
    idx, vals, offset = [], [], 0
    for c in items:
        if c.values.dtype != items[0].values.dtype or c.indices.dtype != items[0].indices.dtype:
            raise OpTypeError(f"For 'coo_concat', the COOTensors' indices and values must have the same dtypes, but "
                              f"got {items[0].indices.dtype} / {items[0].values.dtype} and {c.indices.dtype} / "
                              f"{c.values.dtype}.")
        if len(c.shape) != ndim or any(a != b for i, (a, b) in enumerate(zip(c.shape, items[0].shape)) if i != dim):
            # MindSpore's SparseConcat kernel raises RuntimeError for this one
            raise RuntimeError(f"For 'coo_concat', the shapes must match except along concat_dim, but got "
                               f"{items[0].shape} and {c.shape}.")
        shift = np.zeros((1, ndim), np.int64)
        shift[0, dim] = offset
        idx.append(F.add(c.indices, Tensor(shift.astype(c.indices.dtype.np))) if offset else c.indices)
        vals.append(c.values)
        offset += c.shape[dim]
    shape = tuple(offset if i == dim else s for i, s in enumerate(items[0].shape))
    indices, values = F.concat(idx, 0), F.concat(vals, 0)
    strides = np.array([int(np.prod(shape[i + 1:])) for i in range(ndim)], np.int64)
    key = F.reduce_sum(F.mul(F.cast(indices, mstype.int64), Tensor(strides)), 1)
    order = F.argsort(key)
    return COOTensor(F.gather(indices, order, 0), F.gather(values, order, 0), shape)


# ---- patterns that depend on the values (PyNative only) -------------------------------------------
def _coo_from_dense(op, a, index_dtype=np.int32):
    a = np.asarray(a)
    nz = np.argwhere(a != 0).astype(index_dtype)
    return COOTensor(Tensor(nz), Tensor(a[tuple(nz.T)]) if nz.size else Tensor(np.zeros((0,), a.dtype)), a.shape)


def _csr_from_dense(a, index_dtype=np.int32):
    a = np.asarray(a)
    if a.ndim != 2:
        raise OpValueError(f"For 'dense_to_sparse_csr', the input must be 2-D, but got {a.ndim}-D.")
    rows, cols = np.nonzero(a)
    indptr = np.searchsorted(rows, np.arange(a.shape[0] + 1)).astype(index_dtype)
    return CSRTensor(Tensor(indptr), Tensor(cols.astype(index_dtype)), Tensor(a[rows, cols]), a.shape)


@op_entry("dense_to_sparse_coo", args=[Arg("tensor")])
def dense_to_sparse_coo(tensor):
    """The COOTensor of a dense tensor's nonzero entries (int32 indices, row-major order, as MindSpore 2.10)."""
    (a,) = _eager("dense_to_sparse_coo", tensor)
    return _coo_from_dense("dense_to_sparse_coo", a)


@op_entry("dense_to_sparse_csr", args=[Arg("tensor")])
def dense_to_sparse_csr(tensor):
    """The CSRTensor of a dense matrix's nonzero entries (int32 indptr / indices, as MindSpore 2.10)."""
    (a,) = _eager("dense_to_sparse_csr", tensor)
    return _csr_from_dense(a)


@tensor_alias("to_coo")
def _tensor_to_coo(self):
    """The COOTensor of the tensor's nonzero entries (int32 indices, as MindSpore 2.10's Tensor.to_coo)."""
    (a,) = _eager("Tensor.to_coo", self)
    return _coo_from_dense("Tensor.to_coo", a, np.int32)


@tensor_alias("to_csr")
def _tensor_to_csr(self):
    """The CSRTensor of the matrix's nonzero entries (int32 indptr / indices, as MindSpore 2.10)."""
    (a,) = _eager("Tensor.to_csr", self)
    return _csr_from_dense(a, np.int32)


def _places_summed(indices, values, shape, keep=None):
    """(indices, values) with the entries at one place added, in row-major order, the places where
    `keep(sum)` holds (default: all) - ops.coalesce's grouping (sparse_ops_sparse33.by_place)."""
    from pycompile.ops.sparse_ops_sparse33 import by_place

    def combine(first, rest, size):
        total = F.add(first, rest)
        return total, (F.ge(size, 1) if keep is None else keep(total))
    return by_place(indices, values, Tensor(np.array(shape, np.int64)), combine)


@op_entry("coo_add", args=[Arg("x1", "value", check=_COO), Arg("x2", "value", check=_COO), Arg("thresh", "tensor|number")])
def coo_add(x1, x2, thresh):
    """x1 + x2 as a COOTensor, the entries whose |sum| < thresh dropped (PyNative only)."""
    if tuple(x1.shape) != tuple(x2.shape):
        raise OpValueError(f"For 'coo_add', the shapes must be equal, but got {x1.shape} and {x2.shape}.")
    _eager("coo_add", x1.indices, x1.values, x2.indices, x2.values)
    th = float(_eager("coo_add", thresh)[0]) if isinstance(thresh, TensorMethods) else float(thresh)
    idx, val = _places_summed(F.concat((x1.indices, x2.indices), 0), F.concat((x1.values, x2.values), 0), x1.shape,
                              lambda total: F.ge(F.abs(total), th))
    return COOTensor(idx, val, x1.shape)


@op_entry("csr_add", args=[Arg("a", "value", check=_CSR), Arg("b", "value", check=_CSR), Arg("alpha"), Arg("beta")])
def csr_add(a, b, alpha, beta):
    """alpha a + beta b as a CSRTensor (PyNative only: the sum's pattern is the union of theirs)."""
    if tuple(a.shape) != tuple(b.shape):
        raise OpValueError(f"For 'csr_add', the shapes must be equal, but got {a.shape} and {b.shape}.")
    dense = F.add(F.mul(alpha, csr_to_dense(a)), F.mul(beta, csr_to_dense(b)))
    (d,) = _eager("csr_add", dense)
    ia, = _eager("csr_add", a.indptr)
    return _csr_from_dense(d, ia.dtype)


@op_entry("csr_mm", args=[Arg("a", "value", check=_CSR), Arg("b", "value", check=_CSR), _value("trans_a", default=False, required=False),
                          _value("trans_b", default=False, required=False), _value("adjoint_a", default=False, required=False),
                          _value("adjoint_b", default=False, required=False)])
def csr_mm(a, b, trans_a=False, trans_b=False, adjoint_a=False, adjoint_b=False):
    """The CSR product a b (each transposed on request) as a CSRTensor (PyNative only)."""
    da, db = csr_to_dense(a), csr_to_dense(b)
    da = F.transpose(da, (1, 0)) if trans_a or adjoint_a else da
    db = F.transpose(db, (1, 0)) if trans_b or adjoint_b else db
    (d,) = _eager("csr_mm", F.matmul(da, db))
    ia, = _eager("csr_mm", a.indptr)
    return _csr_from_dense(d, ia.dtype)


@op_entry("sparse_segment_mean", args=[Arg("x"), Arg("indices"), Arg("segment_ids")])
def sparse_segment_mean(x, indices, segment_ids):
    """out[s] = mean of x[indices[j]] over the j with segment_ids[j] == s, for s up to the last
    segment id (empty segments 0). The output's length is a value of segment_ids: in graph code the
    function compiles once per segment_ids value (MindSpore's dynamic shape)."""
    for name, t in (("indices", indices), ("segment_ids", segment_ids)):
        if t.dtype not in (mstype.int32, mstype.int64):
            raise OpTypeError(f"For 'SparseSegmentMean', the type of '{name}' must be int32 or int64, but got {t.dtype}.")
    if not x.dtype.is_float:
        raise OpTypeError(f"For 'SparseSegmentMean', the type of 'x' must be float, but got {x.dtype}.")
    from pycompile.ops.sparse_ops_sparse33 import segment_mean, values_setting_length
    seg = values_setting_length("SparseSegmentMean", segment_ids, "segment_ids")
    return segment_mean(x, indices, segment_ids, int(seg[-1]) + 1 if seg.size else 0)


# ---- the computing methods of the sparse classes ----------------------------------------------------
def _astype(self, dtype, keep_sparse=True):
    return _on_values(self, lambda v: F.cast(v, dtype))


def _coo_coalesce(self):
    _eager("COOTensor.coalesce", self.indices, self.values)
    idx, val = _places_summed(self.indices, self.values, self.shape)
    return COOTensor(idx, val, self.shape)


def _csr_mm(self, matrix):
    if isinstance(matrix, CSRTensor):
        return csr_mm(self, matrix)
    rows = _csr_rows(self)
    prod = F.mul(F.reshape(self.values, (-1,) + (1,) * (matrix.ndim - 1)), F.gather(matrix, self.indices, 0))
    return F.unsorted_segment_sum(prod, rows, self.shape[0])


for _cls in (COOTensor, CSRTensor):
    _cls.abs = lambda self: _on_values(self, F.abs)
    _cls.astype = _astype
COOTensor.to_dense = _coo_to_dense
COOTensor.to_csr = lambda self: CSRTensor(coo2csr(F.cast(self.indices[:, 0], mstype.int32), self.shape[0]),
                                          F.cast(self.indices[:, 1], mstype.int32), self.values, self.shape)
COOTensor.add = lambda self, other, thresh: coo_add(self, other, thresh)
COOTensor.coalesce = _coo_coalesce
CSRTensor.to_dense = csr_to_dense
CSRTensor.to_coo = csr_to_coo
CSRTensor.mv = csr_mv
CSRTensor.mm = _csr_mm
CSRTensor.sum = lambda self, axis: csr_reduce_sum(self, axis)
CSRTensor.add = lambda self, b, alpha, beta: csr_add(self, b, alpha, beta)
RowTensor.to_dense = lambda self: F.unsorted_segment_sum(self.values, self.indices, self.dense_shape[0])
