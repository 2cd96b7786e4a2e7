"""The sparse Primitives over a COO tensor's parts (indices (n, ndim), values (n,), a static shape):
SparseToDense, SparseTensorDenseMatmul, SparseTensorDenseAdd, SparseGatherV2, SparseSlice,
SparseSoftmaxCrossEntropyWithLogits. Each is a decomposition (scatter_nd, matmul, gather), so
graph mode and the gradients (values and the dense operand) come from the ops they are made of.
Duplicate indices add up (scatter_nd), as MindSpore's CPU kernels, except in SparseToDense
(the last value wins there). Values recorded from the
wheel: tests/conformance/cases_sparse33.py."""
from __future__ import annotations

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import Symbolic
from pycompile.common.tensor import Tensor, TensorMethods
from pycompile.ops import functional as F
from pycompile.ops._table import OpTypeError, OpValueError
from pycompile.ops.entry import Arg, op_entry
from pycompile.ops.tracing import needs_value

_IDX = frozenset({mstype.int32, mstype.int64})


def _prim(name, args):
    def declare(fn):
        return op_entry(f"sparse33_{name}", primitive=name, functional=False, args=args)(fn)
    return declare


def _static_shape(op, shape, name="sparse_shape"):
    """A dense shape given as a tuple of ints, or a 1-D Tensor whose values are known when the graph is
    compiled (PyNative, a graph constant, or an argument of the compiled function: one compile per value)."""
    if isinstance(shape, TensorMethods):
        if isinstance(shape, Symbolic) or not hasattr(shape, "asnumpy"):
            # a constant's values, or - an argument of the compiled function - one compile per value
            known = needs_value(shape, f"the shape of the output of '{op}' ('{name}')")
            if known is None:
                raise OpValueError(f"For '{op}', '{name}' sets the output's shape, so it must be known when the "
                                   f"graph is compiled (a tuple of ints, a constant Tensor or an argument of the "
                                   f"compiled function).")
            shape = tuple(int(s) for s in np.asarray(known).reshape(-1))
        else:
            shape = tuple(int(s) for s in shape.asnumpy().reshape(-1))
    if not isinstance(shape, (tuple, list)) or not all(isinstance(s, int) and not isinstance(s, bool) for s in shape):
        raise OpTypeError(f"For '{op}', '{name}' must be a tuple of int, but got {shape!r}.")
    if any(s <= 0 for s in shape):
        raise OpValueError(f"For '{op}', the elements of '{name}' must be positive, but got {tuple(shape)}.")
    return tuple(shape)


def _check_coo(op, indices, values, shape):
    if indices.ndim != 2:
        raise OpValueError(f"For '{op}', the 'indices' must be a 2-D tensor, but got {indices.ndim}-D.")
    if values.ndim != 1:
        raise OpValueError(f"For '{op}', the 'values' must be a 1-D tensor, but got {values.ndim}-D.")
    if indices.shape[0] != values.shape[0]:
        raise OpValueError(f"For '{op}', the first dimension of 'indices' ({indices.shape[0]}) must equal the length "
                           f"of 'values' ({values.shape[0]}).")
    if indices.shape[1] != len(shape):
        raise OpValueError(f"For '{op}', the second dimension of 'indices' ({indices.shape[1]}) must equal the rank "
                           f"of the shape {shape}.")


def _to_dense(op, indices, values, shape):
    shape = _static_shape(op, shape)
    _check_coo(op, indices, values, shape)
    if values.dtype == mstype.bool_:        # scatter_nd adds: count the True entries at each place
        return F.gt(F.scatter_nd(indices, F.cast(values, mstype.int32), shape), 0)
    return F.scatter_nd(indices, values, shape)


@_prim("SparseToDense", [Arg("indices", dtypes=_IDX), Arg("values"), Arg("sparse_shape", "value")])
def _sparse_to_dense(indices, values, sparse_shape):
    """The dense tensor of sparse_shape with values at indices, zeros elsewhere. MindSpore 2.10's
    CPU kernel writes each value in turn (a repeated index keeps the last value, not the sum), and
    its gradient is GatherNd of dout at every index, Bool values included: a row update of zeros
    gives both (tests/ops/test_fix33_wrong_values.py, from the wheel)."""
    shape = _static_shape("SparseToDense", sparse_shape)
    _check_coo("SparseToDense", indices, values, shape)
    return F.tensor_scatter_update(F.zeros(shape, values.dtype), indices, values)


@_prim("SparseTensorDenseAdd", [Arg("x1_indices", dtypes=_IDX), Arg("x1_values"), Arg("x1_shape", "value"),
                                Arg("x2")])
def _sparse_tensor_dense_add(x1_indices, x1_values, x1_shape, x2):
    """x2 plus the sparse tensor (x1_indices, x1_values, x1_shape): a dense tensor of x1_shape."""
    shape = _static_shape("SparseTensorDenseAdd", x1_shape, "x1_shape")
    if tuple(x2.shape) != shape:
        raise OpValueError(f"For 'SparseTensorDenseAdd', the shape of 'x2' must be {shape}, but got {tuple(x2.shape)}.")
    if x1_values.dtype != x2.dtype:
        raise OpTypeError(f"For 'SparseTensorDenseAdd', 'x1_values' and 'x2' must have the same dtype, but got "
                          f"{x1_values.dtype} and {x2.dtype}.")
    return F.add(x2, _to_dense("SparseTensorDenseAdd", x1_indices, x1_values, shape))


def sparse_dense_matmul(indices, values, sparse_shape, dense, adjoint_st=False, adjoint_dt=False,
                        op="SparseTensorDenseMatmul"):
    """The sparse matrix (transposed when adjoint_st) times the dense one (transposed when adjoint_dt)."""
    shape = _static_shape(op, sparse_shape)
    if len(shape) != 2 or dense.ndim != 2:
        raise OpValueError(f"For '{op}', the sparse shape and 'dense' must be 2-D, but got {shape} and "
                           f"{tuple(dense.shape)}.")
    if values.dtype != dense.dtype:
        raise OpTypeError(f"For '{op}', 'values' and 'dense' must have the same dtype, but got {values.dtype} "
                          f"and {dense.dtype}.")
    a = _to_dense(op, indices, values, shape)
    a = F.transpose(a, (1, 0)) if adjoint_st else a
    b = F.transpose(dense, (1, 0)) if adjoint_dt else dense
    if a.shape[1] != b.shape[0]:
        raise OpValueError(f"For '{op}', the sparse matrix's columns ({a.shape[1]}) must equal the dense matrix's "
                           f"rows ({b.shape[0]}).")
    return F.matmul(a, b)


@_prim("SparseTensorDenseMatmul", [Arg("indices", dtypes=_IDX), Arg("values"), Arg("sparse_shape", "value"),
                                   Arg("dense"), Arg("adjoint_st", "value", default=False, init=True),
                                   Arg("adjoint_dt", "value", default=False, init=True)])
def _sparse_tensor_dense_matmul(indices, values, sparse_shape, dense, adjoint_st=False, adjoint_dt=False):
    """The product of a COO matrix and a dense one (each transposed on request)."""
    return sparse_dense_matmul(indices, values, sparse_shape, dense, adjoint_st, adjoint_dt)


@_prim("SparseGatherV2", [Arg("input_params"), Arg("input_indices", dtypes=_IDX), Arg("axis", "value")])
def _sparse_gather_v2(input_params, input_indices, axis):
    """Gather (its gradient is sparse in MindSpore; the values are Gather's)."""
    if isinstance(axis, TensorMethods):
        axis = int(axis.asnumpy())
    return F.gather(input_params, input_indices, axis)


@_prim("SparseSlice", [Arg("indices", dtypes=frozenset({mstype.int64})), Arg("values"),
                       Arg("shape", dtypes=frozenset({mstype.int64})), Arg("start", dtypes=frozenset({mstype.int64})),
                       Arg("size", dtypes=frozenset({mstype.int64}))])
def _sparse_slice(indices, values, shape, start, size):
    """The entries inside [start, start + size) as (indices - start, values, the slice's shape);
    PyNative only (the count of entries kept depends on the indices' values)."""
    parts = []
    for name, t in (("indices", indices), ("values", values), ("shape", shape), ("start", start), ("size", size)):
        if isinstance(t, Symbolic) or not hasattr(t, "asnumpy"):
            raise OpValueError(f"For 'SparseSlice', the output's size depends on '{name}''s values, so it runs in "
                               f"PyNative mode only.")
        parts.append(t.asnumpy())
    idx, val, shp, st, sz = parts
    end = np.minimum(st + sz, shp)
    keep = np.all((idx >= st) & (idx < end), axis=1)
    return Tensor(idx[keep] - st), Tensor(val[keep]), Tensor((end - st).astype(np.int64))


@_prim("SparseSoftmaxCrossEntropyWithLogits", [Arg("logits", dtypes=frozenset({mstype.float16, mstype.float32})),
                                               Arg("labels", dtypes=_IDX),
                                               Arg("is_grad", "value", default=False, init=True)])
def _sparse_softmax_ce(logits, labels, is_grad=False):
    """The mean over the batch of -log softmax(logits)[label] (is_grad: its gradient w.r.t. logits)."""
    if logits.ndim != 2 or labels.ndim != 1 or labels.shape[0] != logits.shape[0]:
        raise OpValueError(f"For 'SparseSoftmaxCrossEntropyWithLogits', 'logits' must be (N, C) and 'labels' (N,), "
                           f"but got {tuple(logits.shape)} and {tuple(labels.shape)}.")
    n, c = logits.shape
    onehot = F.one_hot(labels, c, F.fill(logits.dtype, (), 1.0), F.fill(logits.dtype, (), 0.0))
    if is_grad:
        return F.div(F.sub(F.softmax(logits, -1), onehot), float(n))
    logp = F.log_softmax(logits, -1)
    return F.div(F.neg(F.reduce_sum(F.mul(onehot, logp))), float(n))
