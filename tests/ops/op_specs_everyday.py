"""NumPy-checked specs of the everyday surface (issue 18): the math ops of ops/defs/math.py, the
indexed reads and writes, scans, orderings, ReduceProd / Argmin, and every function and class
form of ops/function_array.py, function_index.py, function_math.py and operations_everyday.py.

References are NumPy written here. Loaded by op_specs.py, which adds UNARY / BINARY / REDUCTIONS
/ CASES to its tables (so test_op_table.py, test_elementwise.py, test_reduce.py and the compiled
tests run them).
"""
from __future__ import annotations

import math

import numpy as np

import pycompile as ms
from pycompile import Parameter, Tensor, ops
from op_specs import BOOL, F16, F32, F64, I32, I64, Case, Elementwise, Reduction, sample


def _a(*shape, dtype=F32, seed=0, domain="any"):
    return sample(dtype, shape, domain, seed=seed)


def _erfc(x):
    return np.vectorize(math.erfc, otypes=[np.float64])(x)


def _sign(x):
    return np.where(np.isnan(x), 0, np.sign(x)).astype(x.dtype)      # MindSpore: sign(NaN) is 0


def _fmod(x, y):
    if x.dtype.kind == "f":
        return np.fmod(x, y)
    return np.array([0 if b in (0, -1) else int(math.fmod(a, b)) for a, b in np.broadcast(x, y)],
                    dtype=np.result_type(x, y)).reshape(np.broadcast_shapes(x.shape, y.shape))


def _isfloat(fn, default):
    return lambda x: fn(x) if x.dtype.kind == "f" else default(x)


UNARY = [
    Elementwise("Log1p", ops.log1p, np.log1p, out="float", domain=("pos",), cls=ops.Log1p),
    Elementwise("Expm1", ops.expm1, np.expm1, out="float", cls=ops.Expm1),
    Elementwise("Erfc", ops.erfc, _erfc, out="float", cls=ops.Erfc),
    Elementwise("Log2", ops.log2, np.log2, out="float", domain=("pos",)),
    Elementwise("Tan", ops.tan, np.tan, out="float", domain=("unit",), cls=ops.Tan),
    Elementwise("Asin", ops.asin, np.arcsin, out="float", domain=("unit",), cls=ops.Asin),
    Elementwise("ACos", ops.acos, np.arccos, out="float", domain=("unit",), cls=ops.ACos),
    Elementwise("Atan", ops.atan, np.arctan, out="float", cls=ops.Atan),
    Elementwise("Sinh", ops.sinh, np.sinh, out="float", cls=ops.Sinh),
    Elementwise("Cosh", ops.cosh, np.cosh, out="float", cls=ops.Cosh),
    Elementwise("Asinh", ops.asinh, np.arcsinh, out="float", cls=ops.Asinh),
    Elementwise("Acosh", ops.acosh, np.arccosh, out="float", domain=("ge1",), cls=ops.Acosh),
    Elementwise("Atanh", ops.atanh, np.arctanh, out="float", domain=("unit",), cls=ops.Atanh),
    Elementwise("Trunc", ops.trunc, np.trunc, kinds="if", cls=ops.Trunc),
    Elementwise("IsNan", ops.isnan, _isfloat(np.isnan, lambda x: np.zeros(x.shape, bool)), out="bool", cls=ops.IsNan),
    Elementwise("IsInf", ops.isinf, _isfloat(np.isinf, lambda x: np.zeros(x.shape, bool)), out="bool", cls=ops.IsInf),
    Elementwise("Round", ops.round, np.rint, kinds="if", cls=ops.Round),
    Elementwise("Sign", ops.sign, _sign, kinds="if", cls=ops.Sign),
]

BINARY = [
    # in float64 (two Python numbers give a Python float, computed in double)
    Elementwise("Atan2", ops.atan2, lambda x, y: np.arctan2(x.astype(F64), y), out="float", cls=ops.Atan2),
    Elementwise("Mod", ops.fmod, _fmod, kinds="if", domain=("any", "nonzero"), cls=ops.Mod),
]


def _prod64(x, axis, keepdims):
    """ops.prod: bool and integers in int64, floats in float64 rounded to their dtype."""
    if x.dtype.kind == "f":
        return np.prod(x.astype(np.float64), axis=axis, keepdims=keepdims).astype(x.dtype)
    return np.prod(x.astype(np.int64), axis=axis, keepdims=keepdims)


def _prod_keep(x, axis, keepdims):
    """The ReduceProd primitive keeps the dtype (a bool product is an 'all')."""
    if x.dtype.kind == "b":
        return np.all(x, axis=axis, keepdims=keepdims)
    return _prod64(x, axis, keepdims).astype(x.dtype)


REDUCTIONS = [
    Reduction("ReduceProd", lambda x, a, k: ops.prod(x, a, k), _prod64,
              lambda dt: np.dtype(I64) if np.dtype(dt).kind in "bi" else np.dtype(dt),
              cls=ops.ReduceProd, cls_ref=_prod_keep, cls_out=lambda dt: np.dtype(dt)),
]


# ---- references ----------------------------------------------------------------------------------
def _stable(x, axis, descending):
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    n = x.shape[axis]
    return np.flip(n - 1 - np.argsort(np.flip(x, axis), axis=axis, kind="stable"), axis)


def _topk(x, k, axis=-1, largest=True):
    idx = np.take(_stable(x, axis, largest), np.arange(k), axis=axis)
    return np.take_along_axis(x, idx, axis), idx.astype(I32)


def _scan(x, axis, fn, exclusive=False, reverse=False, ident=0):
    v = np.flip(x, axis) if reverse else x
    # float16 rounds at every step (MindSpore's kernels, NumPy's float16 accumulate)
    out = fn(v.astype(np.float64 if x.dtype.kind == "f" and x.dtype != F16 else x.dtype), axis=axis)
    if exclusive:
        out = np.concatenate([np.full_like(np.take(out, [0], axis), ident), np.delete(out, -1, axis)], axis)
    out = out.astype(x.dtype)
    return np.flip(out, axis) if reverse else out


def _rows_add(x, v, rows):
    out = x.copy()
    for k, r in enumerate(rows):
        out[r] += v[k]
    return out


def _rows_set(x, v, rows):
    out = x.copy()
    out[list(rows)] = v
    return out


def _scatter_nd(x, idx, upd, add):
    out = x.copy()
    m = idx.shape[-1]
    for row, u in zip(idx.reshape(-1, m), upd.reshape((-1,) + x.shape[m:])):
        if add:
            out[tuple(row)] += u
        else:
            out[tuple(row)] = u
    return out


def _scatter_elements(x, idx, upd, axis, add):
    out = x.copy()
    n = x.shape[axis]
    for pos in np.ndindex(*idx.shape):
        i = int(idx[pos])
        if not -n <= i < n:
            continue
        dst = list(pos)
        dst[axis] = i % n
        out[tuple(dst)] = out[tuple(dst)] + upd[pos] if add else upd[pos]
    return out


def _gather_d(x, axis, idx):
    cut = x[tuple(slice(None) if d == axis else slice(0, n) for d, n in enumerate(idx.shape))]
    return np.take_along_axis(cut, np.where(idx < 0, idx + x.shape[axis], idx).astype(np.int64), axis)


def _one_hot(idx, depth, on, off, axis=-1):
    hot = np.expand_dims(idx, axis) == np.arange(depth).reshape((depth,) + (1,) * (idx.ndim - axis % (idx.ndim + 1)))
    return np.where(hot, on, off)


def _cat(parts):
    """Pieces of one tensor flattened end to end (a tuple result as one array)."""
    return np.concatenate([np.asarray(p).reshape(-1) for p in parts])


def _tcat(parts):
    return ops.concat([ops.reshape(p, (-1,)) for p in parts])


def _norm_ref(x, ord=None, axis=None, keepdims=False):
    return np.linalg.norm(x.astype(np.float64), ord=ord, axis=axis, keepdims=keepdims).astype(x.dtype)


def _setitem(x, key, v):
    y = x.copy()
    y[key] = v
    return y


def _param_update(fn, shape):
    """fn(Parameter, *tensors) on a fresh Parameter of zeros; the Parameter's value after it."""
    def call(*xs):
        p = Parameter(Tensor(np.ones(shape, F32)), name="p")
        fn(p, *xs)
        return p.value()
    return call


X34, I34 = _a(3, 4), _a(3, 4, dtype=I32)
IDX_D = np.array([[0, 3], [-1, 1], [2, 2]], I32)
IDX_ND = np.array([[0, 1], [2, 3], [0, 1]], I64)

CASES = [
    # -- the new table ops -------------------------------------------------------------------------
    Case("clip_by_norm error_if_nonfinite", "CheckFinite",
         lambda x: ops.clip_by_norm(x, 1.0, error_if_nonfinite=True),
         lambda x: (x * min(1.0, 1.0 / (np.sqrt((x.astype(F64) ** 2).sum()) + 1e-6))).astype(F32), (X34,),
         (ops.clip_by_norm,)),
    Case("gather_elements", "GatherD", lambda x, i: ops.gather_elements(x, 1, i), lambda x, i: _gather_d(x, 1, i),
         (X34, IDX_D), (ops.gather_elements,)),
    Case("gather_d axis 0 partial", "GatherD", lambda x, i: ops.gather_d(x, 0, i), lambda x, i: _gather_d(x, 0, i),
         (X34, np.array([[2, 0], [1, 1]], I64)), (ops.gather_d,)),
    Case("GatherD class f16", "GatherD", lambda x, i: ops.GatherD()(x, -1, i), lambda x, i: _gather_d(x, 1, i),
         (_a(3, 4, dtype=F16), IDX_D), (ops.GatherD,)),
    Case("gather_nd", "GatherNd", lambda x, i: ops.gather_nd(x, i), lambda x, i: x[tuple(i.T)],
         (X34, IDX_ND), (ops.gather_nd,)),
    Case("GatherNd class rows", "GatherNd", lambda x, i: ops.GatherNd()(x, i), lambda x, i: x[i[:, 0]],
         (_a(3, 4, 2, dtype=I64), np.array([[2], [0]], I32)), (ops.GatherNd,)),
    Case("tensor_scatter_update", "TensorScatterUpdate", lambda x, i, u: ops.tensor_scatter_update(x, i, u),
         lambda x, i, u: _scatter_nd(x, i, u, False), (X34, np.array([[2], [0]], I32), _a(2, 4, seed=1)),
         (ops.tensor_scatter_update,)),
    Case("TensorScatterUpdate class", "TensorScatterUpdate", lambda x, i, u: ops.TensorScatterUpdate()(x, i, u),
         lambda x, i, u: _scatter_nd(x, i, u, False), (I34, IDX_ND, _a(3, dtype=I32, seed=1)),
         (ops.TensorScatterUpdate,)),
    # TensorScatterAdd is TensorScatterCombine(combine="add") once decomposed (ops/defs/index.py)
    Case("tensor_scatter_add repeated", ("TensorScatterAdd", "TensorScatterCombine"), lambda x, i, u: ops.tensor_scatter_add(x, i, u),
         lambda x, i, u: _scatter_nd(x, i, u, True), (X34, IDX_ND, _a(3, seed=1)), (ops.tensor_scatter_add,)),
    Case("TensorScatterAdd class f16", "TensorScatterAdd", lambda x, i, u: ops.TensorScatterAdd()(x, i, u),
         lambda x, i, u: _scatter_nd(x.astype(F32), i, u.astype(F32), True).astype(F16),
         (_a(3, 4, dtype=F16), np.array([[1], [1]], I32), _a(2, 4, dtype=F16, seed=1)), (ops.TensorScatterAdd,)),
    Case("scatter_nd", "TensorScatterAdd", lambda i, u: ops.scatter_nd(i, u, (4, 4)),
         lambda i, u: _scatter_nd(np.zeros((4, 4), F32), i, u, True), (np.array([[0], [2], [0]], I32), _a(3, 4)),
         (ops.scatter_nd,)),
    Case("ScatterNd class", "TensorScatterAdd", lambda i, u: ops.ScatterNd()(i, u, (3,)),
         lambda i, u: _scatter_nd(np.zeros(3, I32), i, u, True), (np.array([[1], [1]], I64), _a(2, dtype=I32)),
         (ops.ScatterNd,)),
    Case("tensor_scatter_elements", "TensorScatterElements",
         lambda x, i, u: ops.tensor_scatter_elements(x, i, u, axis=1),
         lambda x, i, u: _scatter_elements(x, i, u, 1, False),
         (X34, np.array([[1, 0], [3, -1], [0, 9]], I32), _a(3, 2, seed=1)), (ops.tensor_scatter_elements,)),
    Case("TensorScatterElements class add", "TensorScatterElements",
         lambda x, i, u: ops.TensorScatterElements(axis=0, reduction="add")(x, i, u),
         lambda x, i, u: _scatter_elements(x, i, u, 0, True),
         (X34, np.array([[1, 0, 1, 2], [1, 1, 0, 2]], I64), _a(2, 4, seed=1)), (ops.TensorScatterElements,)),
    Case("cumsum", "CumSum", lambda x: ops.cumsum(x, 1), lambda x: _scan(x, 1, np.cumsum), (X34,), (ops.cumsum,)),
    Case("cumsum int axis 0 dtype", "CumSum", lambda x: ops.cumsum(x, 0, dtype=ms.float64),
         lambda x: np.cumsum(x.astype(F64), 0), (I34,), ()),
    Case("CumSum class exclusive reverse", "CumSum", lambda x: ops.CumSum(exclusive=True, reverse=True)(x, 1),
         lambda x: _scan(x, 1, np.cumsum, True, True), (_a(3, 40, dtype=F16),), (ops.CumSum,)),
    Case("cumprod int32 -> int64", "CumProd", lambda x: ops.cumprod(x, 0),
         lambda x: np.cumprod(x.astype(I64), 0), (I34,), (ops.cumprod,)),
    Case("CumProd class exclusive", "CumProd", lambda x: ops.CumProd(exclusive=True)(x, -1),
         lambda x: _scan(x, 1, np.cumprod, True, False, 1), (X34,), (ops.CumProd,)),
    Case("argsort", "Argsort", lambda x: ops.argsort(x), lambda x: _stable(x, -1, False).astype(I32),
         (_a(3, 9, dtype=I32),), (ops.argsort,)),
    Case("argsort descending axis 0", "Argsort", lambda x: ops.argsort(x, 0, descending=True),
         lambda x: _stable(x, 0, True).astype(I32), (_a(40, 3),), ()),
    Case("sort values", ("Argsort", "GatherD"), lambda x: ops.sort(x)[0], lambda x: np.sort(x, -1), (X34,),
         (ops.sort,)),
    Case("Sort class indices nan", "Argsort", lambda x: ops.Sort(descending=True)(x)[1],
         lambda x: _stable(x, -1, True).astype(I32), (np.array([1.0, np.nan, 3.0, 1.0, -np.inf], F32),), (ops.Sort,)),
    Case("topk values", ("TopKIndices", "GatherD"), lambda x: ops.topk(x, 3)[0], lambda x: _topk(x, 3)[0],
         (_a(4, 20),), (ops.topk,)),
    Case("topk smallest dim 0 indices", "TopKIndices", lambda x: ops.topk(x, 2, dim=0, largest=False)[1],
         lambda x: _topk(x, 2, 0, False)[1], (_a(30, 3, dtype=I64),), ()),
    Case("TopK class large k", ("TopKIndices", "GatherD"), lambda x: ops.TopK()(x, 20)[0],
         lambda x: _topk(x, 20)[0], (_a(2, 25, dtype=F64),), (ops.TopK,)),
    Case("prod bool -> int64", "ReduceProd", lambda x: ops.prod(x, 1), lambda x: np.prod(x, 1, dtype=I64),
         (_a(3, 4, dtype=BOOL),), (ops.prod,)),
    Case("argmin", "Argmin", lambda x: ops.argmin(x, 1), lambda x: np.argmin(x, 1).astype(I32), (X34,),
         (ops.argmin,)),
    Case("Argmin class", "Argmin", lambda x: ops.Argmin(axis=0, output_type=ms.int64)(x),
         lambda x: np.argmin(x, 0).astype(I64), (I34,), (ops.Argmin,)),
    # -- queries and small helpers ------------------------------------------------------------------
    Case("partial", "Mul", lambda x, y: ops.partial(ops.mul, x)(y), lambda x, y: x * y, (X34, X34), (ops.partial,)),
    Case("Partial class", "Add", lambda x, y: ops.Partial()(ops.add, x)(y), lambda x, y: x + y, (X34, X34),
         (ops.Partial,)),
    Case("shape", (), lambda x: ops.shape(x), lambda x: x.shape, (_a(2, 0, 3),), (ops.shape,)),
    Case("rank numel tuple_len", (), lambda x: (ops.rank(x), ops.numel(x), ops.tuple_len(x.shape), ops.Rank()(x)),
         lambda x: (2, 12, 2, 2), (X34,), (ops.rank, ops.numel, ops.tuple_len, ops.Rank)),
    Case("dtype", (), lambda x: (ops.dtype(x), ops.DType()(x)), lambda x: (ms.int32, ms.int32), (I34,),
         (ops.dtype, ops.DType)),
    Case("make_range", (), lambda: ops.make_range(1, 7, 2), lambda: (1, 3, 5), (), (ops.make_range,)),
    Case("identity", (), lambda x: ops.identity(x), lambda x: x, (X34,), (ops.identity,)),
    Case("tuple_to_array", (), lambda: ops.tuple_to_array((1, 2, 3)), lambda: np.array([1, 2, 3], I32), (),
         (ops.tuple_to_array,)),
    Case("TupleToArray class float", (), lambda: ops.TupleToArray()((1, 2.5)), lambda: np.array([1, 2.5], F32), (),
         (ops.TupleToArray,)),
    Case("scalar_to_tensor", (), lambda: ops.scalar_to_tensor(2), lambda: np.array(2, F32), (),
         (ops.scalar_to_tensor,)),
    Case("ScalarToTensor class", (), lambda: ops.ScalarToTensor()(3, ms.int32), lambda: np.array(3, I32), (),
         (ops.ScalarToTensor,)),
    # -- split, creation, layout --------------------------------------------------------------------
    Case("split", "StridedSlice", lambda x: _tcat(ops.split(x, 3, 1)), lambda x: _cat(np.split(x, [3], 1)),
         (_a(2, 5),), (ops.split,)),
    Case("Split class", "StridedSlice", lambda x: _tcat(ops.Split(1, 2)(x)), lambda x: _cat(np.split(x, 2, 1)),
         (X34,), (ops.Split,)),
    Case("chunk", "StridedSlice", lambda x: _tcat(ops.chunk(x, 3, 1)), lambda x: _cat(np.split(x, [2, 4], 1)),
         (_a(2, 5),), (ops.chunk,)),
    Case("unbind unstack", ("StridedSlice", "Reshape"),
         lambda x: _tcat(ops.unbind(x, 1) + ops.unstack(x) + ops.Unstack(axis=-1)(x)),
         lambda x: _cat([x[:, j] for j in range(4)] + list(x) + [x[:, j] for j in range(4)]), (X34,),
         (ops.unbind, ops.unstack, ops.Unstack)),
    Case("arange", (), lambda: ops.arange(1, 7, 2), lambda: np.arange(1, 7, 2, dtype=I64), (), (ops.arange,)),
    Case("arange float", (), lambda: ops.arange(0.0, 1.0, 0.25), lambda: np.arange(0, 1, 0.25, dtype=F32), (), ()),
    Case("range", (), lambda: ops.range(Tensor(5, ms.int32), 0, -2), lambda: np.array([5, 3, 1], I64), (),
         (ops.range,)),
    Case("Range class", (), lambda: ops.Range()(0.0, 1.0, 0.3), lambda: np.arange(0, 1, 0.3).astype(F32), (),
         (ops.Range,)),
    Case("eye", (), lambda: ops.eye(2, 3, ms.int32), lambda: np.eye(2, 3, dtype=I32), (), (ops.eye,)),
    Case("Eye class", (), lambda: ops.Eye()(3, 3, ms.float16), lambda: np.eye(3, dtype=F16), (), (ops.Eye,)),
    Case("meshgrid", "BroadcastTo", lambda x, y: _tcat(ops.meshgrid(x, y)), lambda x, y: _cat(np.meshgrid(x, y)),
         (_a(3), _a(2, seed=1)), (ops.meshgrid,)),
    Case("Meshgrid class ij", "BroadcastTo", lambda x, y: _tcat(ops.Meshgrid("ij")((x, y))),
         lambda x, y: _cat(np.meshgrid(x, y, indexing="ij")), (_a(3), _a(2, seed=1)), (ops.Meshgrid,)),
    Case("one_hot", ("Equal", "Select"), lambda i: ops.one_hot(i, 4), lambda i: _one_hot(i, 4, 1, 0).astype(I64),
         (np.array([0, 3, -1, 5], I32),), (ops.one_hot,)),
    Case("OneHot class axis 0", ("Equal", "Select"),
         lambda i: ops.OneHot(axis=0)(i, 3, Tensor(2.0, ms.float16), Tensor(-1.0, ms.float16)),
         lambda i: _one_hot(i, 3, 2.0, -1.0, 0).astype(F16), (np.array([[0, 2], [1, 1]], I64),), (ops.OneHot,)),
    Case("triu tril", "Select", lambda x: _tcat((ops.triu(x, 1), ops.tril(x), ops.Triu(-1)(x), ops.Tril(1)(x))),
         lambda x: _cat((np.triu(x, 1), np.tril(x), np.triu(x, -1), np.tril(x, 1))), (_a(2, 3, 3),),
         (ops.triu, ops.tril, ops.Triu, ops.Tril)),
    Case("flip", "StridedSlice", lambda x: ops.flip(x, (0, -1)), lambda x: x[::-1, ::-1], (X34,), (ops.flip,)),
    Case("ReverseV2 class", "StridedSlice", lambda x: ops.ReverseV2(axis=(1,))(x), lambda x: x[:, ::-1], (I34,),
         (ops.ReverseV2,)),
    Case("slice", "StridedSlice", lambda x: ops.slice(x, (1, 0), (2, -1)), lambda x: x[1:3, :], (X34,), (ops.slice,)),
    Case("Slice class", "StridedSlice", lambda x: ops.Slice()(x, (0, 1), (3, 2)), lambda x: x[:, 1:3], (X34,),
         (ops.Slice,)),
    Case("strided_slice masks", ("StridedSlice", "Reshape"),
         lambda x: ops.strided_slice(x, (1, 3, 0), (2, 0, 5), (1, -1, 2), shrink_axis_mask=1, begin_mask=4),
         lambda x: x[1, 3:0:-1, :5:2], (_a(3, 4, 5),), (ops.strided_slice,)),
    Case("StridedSlice class new axis", ("StridedSlice", "Reshape"),
         lambda x: ops.StridedSlice(new_axis_mask=1, end_mask=4)(x, (0, 1, 0), (0, 3, 0), (1, 1, 1)),
         lambda x: x[None, 1:3, 0:], (X34,), (ops.StridedSlice,)),
    Case("repeat_elements", ("Reshape", "BroadcastTo"), lambda x: ops.repeat_elements(x, 2, 1),
         lambda x: np.repeat(x, 2, 1), (I34,), (ops.repeat_elements,)),
    Case("repeat_interleave flat", ("Reshape", "BroadcastTo"), lambda x: ops.repeat_interleave(x, 3),
         lambda x: np.repeat(x, 3), (X34,), (ops.repeat_interleave,)),
    Case("expand_as", "BroadcastTo", lambda x, y: ops.expand_as(x, y), lambda x, y: np.broadcast_to(x, y.shape),
         (_a(3, 1), X34), (ops.expand_as,)),
    Case("Flatten class", "Reshape", lambda x: ops.Flatten()(x), lambda x: x.reshape(2, -1), (_a(2, 3, 4),),
         (ops.Flatten,)),
    # -- masks, gathers, scatters, item assignment --------------------------------------------------
    Case("masked_fill", "Select", lambda x, m: ops.masked_fill(x, m, 0.5), lambda x, m: np.where(m, 0.5, x).astype(F32),
         (X34, _a(4, dtype=BOOL)), (ops.masked_fill,)),
    Case("MaskedFill class tensor value", ("Select", "Cast"),
         lambda x, m, v: ops.MaskedFill()(x, m, v), lambda x, m, v: np.where(m, v.astype(I32), x),
         (I34, _a(3, 4, dtype=BOOL), np.array(7, I64)), (ops.MaskedFill,)),
    Case("masked_select", (), lambda x, m: ops.masked_select(x, m), lambda x, m: x[np.broadcast_to(m, x.shape)],
         (X34, _a(4, dtype=BOOL)), (ops.masked_select,)),
    Case("MaskedSelect class", (), lambda x, m: ops.MaskedSelect()(x, m), lambda x, m: x[m],
         (I34, _a(3, 4, dtype=BOOL, seed=3)), (ops.MaskedSelect,)),
    Case("unique and Unique", (), lambda k, v: _tcat(ops.unique(k) + ops.Unique()(v)),
         lambda k, v: np.concatenate([np.array([4, 7, 1]), np.array([0, 0, 1, 2, 1, 0]),
                                      np.array([3, 1]), np.array([0, 1, 1, 0, 0])]).astype(I32),
         (np.array([[4, 4, 7], [1, 7, 4]], I32), np.array([3, 1, 1, 3, 3], I32)), (ops.unique, ops.Unique)),
    Case("index_select", "Gather", lambda x, i: ops.index_select(x, 1, i), lambda x, i: np.take(x, i, 1),
         (X34, np.array([3, 0, 3], I32)), (ops.index_select,)),
    Case("GatherV2 class", "Gather", lambda x, i: ops.GatherV2()(x, i, 0), lambda x, i: np.take(x, i, 0),
         (X34, np.array([2, 2], I64)), (ops.GatherV2,)),
    Case("setitem slice", "TensorScatterUpdate", lambda x, v: ops.setitem(x, (slice(None), slice(1, None)), v),
         lambda x, v: _setitem(x, (slice(None), slice(1, None)), v), (X34, _a(3, seed=2)), (ops.setitem,)),
    Case("setitem mask", "Select", lambda x, m: ops.setitem(x, m, 0), lambda x, m: np.where(m, 0, x).astype(F32),
         (X34, _a(3, 4, dtype=BOOL)), ()),
    Case("setitem index tensor int", "TensorScatterUpdate", lambda x, i: ops.setitem(x, i, 100.5),
         lambda x, i: _setitem(x, i, 100), (I34, np.array([2, 0], I64)), ()),
    Case("assign_add", ("Add", "Assign"), _param_update(ops.assign_add, (2, 3)), lambda v: 1 + v, (_a(2, 3),),
         (ops.assign_add,)),
    Case("assign_sub", ("Sub", "Assign"), _param_update(ops.assign_sub, (3,)), lambda v: 1 - v, (_a(3),),
         (ops.assign_sub,)),
    Case("AssignAdd AssignSub classes", ("Add", "Sub", "Assign"),
         _param_update(lambda p, v: (ops.AssignAdd()(p, v), ops.AssignSub()(p, v * 2)), (3,)), lambda v: 1 - v,
         (_a(3),), (ops.AssignAdd, ops.AssignSub)),
    Case("ScatterNdUpdate class", ("TensorScatterUpdate", "Assign"),
         _param_update(lambda p, i, u: ops.ScatterNdUpdate()(p, i, u), (4, 3)),
         lambda i, u: _scatter_nd(np.ones((4, 3), F32), i, u, False), (np.array([[1], [3]], I32), _a(2, 3)),
         (ops.ScatterNdUpdate,)),
    # -- math ---------------------------------------------------------------------------------------
    Case("arcsin family aliases", ("Asin", "ACos", "Atan", "Asinh", "Acosh", "Atanh", "Atan2"),
         lambda x: _tcat((ops.arcsin(x), ops.arccos(x), ops.arctan(x), ops.arcsinh(x), ops.arccosh(x + 2),
                          ops.arctanh(x), ops.arctan2(x, x + 2))),
         lambda x: _cat((np.arcsin(x), np.arccos(x), np.arctan(x), np.arcsinh(x), np.arccosh(x + 2), np.arctanh(x),
                         np.arctan2(x, x + 2))).astype(F32), (_a(7, domain="unit"),),
         (ops.arcsin, ops.arccos, ops.arctan, ops.arcsinh, ops.arccosh, ops.arctanh, ops.arctan2)),
    Case("inv tensor_pow tensor_mul", ("Reciprocal", "Pow", "Mul"),
         lambda x: _tcat((ops.inv(x), ops.tensor_pow(x, 2.0), ops.tensor_mul(x, x), ops.Inv()(x))),
         lambda x: _cat((1 / x, x ** 2, x * x, 1 / x)), (_a(5, domain="pos"),),
         (ops.inv, ops.tensor_pow, ops.tensor_mul, ops.Inv)),
    # MindSpore's CPU Inv on ints is C's 1 / x: ±1 for ±1, 0 elsewhere, 1 / 0 the dtype's lowest
    Case("inv int32", ("Equal", "Select", "Fill", "Neg", "Add"), lambda x: ops.Inv()(x),
         lambda x: np.where(x == 0, np.iinfo(np.int32).min, np.where(np.abs(x) == 1, x, 0)).astype(np.int32),
         (np.array([-3, -1, 0, 1, 2, 100], np.int32),), (ops.Inv,)),
    Case("Invert int8", ("BitwiseXor", "Sub", "Fill"), lambda a: ops.Invert()(a), np.invert,
         (np.array([-128, -1, 0, 5, 127], np.int8),), (ops.Invert,)),
    Case("invert uint8", ("BitwiseXor", "Sub", "Fill"), lambda a: ops.invert(a), np.invert,
         (np.array([0, 1, 255, 30], np.uint8),), (ops.invert,)),
    Case("invert int64", ("BitwiseXor", "Sub", "Fill"), lambda a: ops.invert(a), np.invert,
         (np.array([-2 ** 63, -7, 0, 2 ** 62], np.int64),), ()),
    Case("ger and Ger float16", ("Mul", "Reshape"), lambda a, b: _tcat((ops.ger(a, b), ops.Ger()(a, b))),
         lambda a, b: _cat((np.outer(a, b), np.outer(a, b))),
         (np.array([1, -2, 0.5], F16), np.array([3, 0.25], F16)), (ops.ger, ops.Ger)),
    Case("inplace_add repeated row, InplaceAdd", "TensorScatterAdd",
         lambda x, v: _tcat((ops.inplace_add(x, v, (1, 2, 1)), ops.InplaceAdd((0, 3, 1))(x, v))),
         lambda x, v: _cat((_rows_add(x, v, (1, 2, 1)), _rows_add(x, v, (0, 3, 1)))),
         (_a(4, 3), _a(3, 3, seed=1)), (ops.inplace_add, ops.InplaceAdd)),
    Case("inplace_sub one row, InplaceSub", ("TensorScatterAdd", "Neg"),
         lambda x, v: _tcat((ops.inplace_sub(x, v, 2), ops.InplaceSub(-1)(x, v))),
         lambda x, v: _cat((_rows_add(x, -v[None], (2,)), _rows_add(x, -v[None], (3,)))),
         (_a(4, 3), _a(3, seed=1)), (ops.inplace_sub, ops.InplaceSub)),
    Case("inplace_update, InplaceUpdate", "TensorScatterUpdate",
         lambda x, v: _tcat((ops.inplace_update(x, v, (3, 0)), ops.InplaceUpdate((1, 2))(x, v))),
         lambda x, v: _cat((_rows_set(x, v, (3, 0)), _rows_set(x, v, (1, 2)))),
         (_a(4, 3), _a(2, 3, seed=1)), (ops.inplace_update, ops.InplaceUpdate)),
    Case("matrix_band_part batched", "Select",
         lambda x: _tcat((ops.matrix_band_part(x, 1, 0), ops.matrix_band_part(x, -1, 2),
                          ops.matrix_band_part(x, 0, -1), ops.matrix_band_part(x, -1, -1))),
         lambda x: _cat((np.tril(np.triu(x, -1), 0), np.tril(x, 2), np.triu(x, 0), x)),
         (_a(2, 4, 5),), (ops.matrix_band_part,)),
    Case("nan_to_num", ("IsNan", "Select"), lambda x: ops.nan_to_num(x, posinf=9.0),
         lambda x: np.nan_to_num(x, posinf=9.0), (np.array([np.nan, np.inf, -np.inf, 1.5], F16),), (ops.nan_to_num,)),
    Case("clip_by_value", ("Maximum", "Minimum"), lambda x, lo: ops.clip_by_value(x, lo, 1.0),
         lambda x, lo: np.minimum(np.maximum(x, lo), 1.0), (X34, _a(4, domain="unit")), (ops.clip_by_value,)),
    Case("clip_by_value int, float bounds", ("Maximum", "Minimum", "Cast"), lambda x: ops.clip_by_value(x, 0.5, 2.5),
         lambda x: np.clip(x, 0.5, 2.5).astype(I32), (I34,), ()),
    Case("reduce_sum reduce_mean", ("ReduceSum", "ReduceMean"),
         lambda x, i: _tcat((ops.reduce_sum(x, 1), ops.reduce_mean(x), ops.reduce_sum(i).astype(ms.float32))),
         lambda x, i: _cat((x.sum(1), x.mean(), np.float32(i.sum()))), (X34, I34), (ops.reduce_sum, ops.reduce_mean)),
    Case("reduce_max reduce_min", ("ReduceMax", "ReduceMin"),
         lambda x: _tcat((ops.reduce_max(x, (0, 1)), ops.reduce_min(x, 0))), lambda x: _cat((x.max(), x.min(0))),
         (X34,), (ops.reduce_max, ops.reduce_min)),
    Case("max with indices", ("ReduceMax", "Argmax"), lambda x: _tcat(ops.max(x, 1, keepdims=True)),
         lambda x: _cat((x.max(1), x.argmax(1))).astype(F32), (X34,), (ops.max,)),
    Case("min with indices and initial", ("ReduceMin", "Argmin"), lambda x: _tcat(ops.min(x, 0, initial=0.0)),
         lambda x: _cat((np.minimum(x, 0).min(0), np.minimum(x, 0).argmin(0))).astype(F32), (X34,), (ops.min,)),
    Case("ArgMaxWithValue ArgMinWithValue", ("Argmax", "ReduceMax", "Argmin", "ReduceMin"),
         lambda x: _tcat(ops.ArgMaxWithValue(1)(x) + ops.ArgMinWithValue(0, True)(x)),
         lambda x: _cat((x.argmax(1), x.max(1), x.argmin(0), x.min(0))).astype(F32), (X34,),
         (ops.ArgMaxWithValue, ops.ArgMinWithValue)),
    Case("norm", ("ReduceSum", "Sqrt"), lambda x: _tcat((ops.norm(x), ops.norm(x, dim=1), ops.norm(x, 1, dim=0),
                                                          ops.norm(x, "fro"), ops.norm(x, float("inf")),
                                                          ops.norm(x, -1), ops.norm(x, 3, dim=(1,)))),
         lambda x: _cat((_norm_ref(x.ravel()), _norm_ref(x, axis=1), _norm_ref(x, 1, 0), _norm_ref(x, "fro"),
                         _norm_ref(x, np.inf), _norm_ref(x, -1), _norm_ref(x, 3, 1))), (X34,), (ops.norm,)),
    Case("L2Normalize", ("ReduceSum", "Maximum"), lambda x: ops.L2Normalize(axis=1)(x),
         lambda x: (x / np.sqrt(np.maximum((x.astype(F64) ** 2).sum(1, keepdims=True), 1e-4))).astype(F32), (X34,),
         (ops.L2Normalize,)),
    Case("LpNorm", ("ReduceSum", "Pow"), lambda x: ops.LpNorm(axis=0, p=3, keep_dims=True)(x),
         lambda x: _norm_ref(x, 3, 0, True), (X34,), (ops.LpNorm,)),
    Case("cosine_similarity", ("ReduceSum", "RealDiv"), lambda x, y: ops.cosine_similarity(x, y),
         lambda x, y: (x * y).sum(1) / np.maximum(np.linalg.norm(x, axis=1) * np.linalg.norm(y, axis=1), 1e-8),
         (X34, _a(3, 4, seed=1)), (ops.cosine_similarity,)),
    # -- products -----------------------------------------------------------------------------------
    Case("outer", "Mul", lambda x, y: ops.outer(x, y), lambda x, y: np.outer(x, y), (_a(3), _a(4, seed=1)),
         (ops.outer,)),
    Case("inner", "MatMul", lambda x, y: ops.inner(x, y), lambda x, y: np.inner(x, y), (_a(2, 3), _a(4, 3, seed=1)),
         (ops.inner,)),
    Case("mv", "MatMul", lambda m, v: ops.mv(m, v), lambda m, v: m @ v, (X34, _a(4, seed=1)), (ops.mv,)),
    Case("tensor_dot", ("Transpose", "MatMul"), lambda a, b: ops.tensor_dot(a, b, ((1, 2), (1, 0))),
         lambda a, b: np.tensordot(a, b, ((1, 2), (1, 0))), (_a(2, 3, 4), _a(4, 3, 5, seed=1)), (ops.tensor_dot,)),
    Case("baddbmm", ("BatchMatMul", "Add"), lambda c, a, b: ops.baddbmm(c, a, b, beta=0.5, alpha=2.0),
         lambda c, a, b: 0.5 * c + 2.0 * (a @ b), (_a(2, 3, 5), _a(2, 3, 4, seed=1), _a(2, 4, 5, seed=2)),
         (ops.baddbmm,)),
    Case("einsum attention", "BatchMatMul", lambda q, k: ops.einsum("bhqd,bhkd->bhqk", q, k),
         lambda q, k: np.einsum("bhqd,bhkd->bhqk", q, k), (_a(2, 2, 3, 4), _a(2, 2, 5, 4, seed=1)), (ops.einsum,)),
    Case("einsum diagonal trace ellipsis", ("Mul", "ReduceSum", "BatchMatMul"),
         lambda a, b, c: _tcat((ops.einsum("ii->i", a), ops.einsum("ii", a), ops.einsum("iij->ij", b),
                                ops.einsum("...ij,...jk->...ik", c, a), ops.einsum("...i,...i->...", c, a))),
         lambda a, b, c: _cat((np.einsum("ii->i", a), np.einsum("ii", a), np.einsum("iij->ij", b),
                               np.einsum("...ij,...jk->...ik", c, a), np.einsum("...i,...i->...", c, a))),
         (_a(4, 4), _a(3, 3, 2, seed=1), _a(2, 1, 4, seed=2)), (ops.einsum,)),
    Case("Einsum class implicit", "BatchMatMul", lambda a, b, c: ops.Einsum("ij,jk,k")((a, b, c)),
         lambda a, b, c: np.einsum("ij,jk,k", a, b, c), (X34, _a(4, 5, seed=1), _a(5, seed=2)), (ops.Einsum,)),
    Case("fmod", "Mod", lambda x, y: ops.fmod(x, y), lambda x, y: np.fmod(x, y), (X34, _a(4, domain="pos")),
         (ops.fmod,)),
]

