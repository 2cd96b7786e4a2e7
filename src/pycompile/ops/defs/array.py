"""Layout, indexing, creation and matrix-product ops.

Reshape (and everything that is a reshape: ExpandDims, Squeeze, Flatten) is a view in
generated code; Transpose / Slice / Gather / Concat / Stack / BroadcastTo are copy loops;
MatMul and BatchMatMul call BLAS. Fill has no inputs: graph mode folds it to a constant.
"""
from __future__ import annotations

import math

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import ScalarType, TensorType, TupleType, type_of
from pycompile.ops._table import (OpDef, Kind, OpTypeError, OpValueError, broadcast_shapes, defop, describe,
                                  apply, fmt_shape, norm_axis, tensor_arg)
from pycompile.ops.defs import index as _index
from pycompile.ops.lowering import Blas, Constant, Template, View


# ---- reshape ------------------------------------------------------------------------------------
def resolve_shape(op_name: str, in_shape: tuple, shape) -> tuple:
    """Resolve one -1 in a target shape and check the element count."""
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    shape = tuple(int(d) for d in shape)
    # math.prod: exact Python ints, and a tenth of np.prod's cost (PyNative runs this per call)
    size = math.prod(in_shape)
    if shape.count(-1) > 1:
        raise OpValueError(f"For '{op_name}', at most one dimension can be -1, but got {list(shape)}")
    if any(d < -1 for d in shape):
        raise OpValueError(f"For '{op_name}', dimensions must be >= -1, but got {list(shape)}")
    if -1 in shape:
        known = math.prod(d for d in shape if d != -1)
        if known == 0 or size % known:
            raise OpValueError(
                f"For '{op_name}', cannot reshape a tensor of shape {list(in_shape)} into {list(shape)}")
        shape = tuple(size // known if d == -1 else d for d in shape)
    if math.prod(shape) != size:
        raise OpValueError(
            f"For '{op_name}', cannot reshape a tensor of shape {list(in_shape)} ({size} elements) "
            f"into {list(shape)}")
    return shape


def _reshape_infer(types, shape):
    x = tensor_arg("Reshape", types[0])
    return TensorType(x.dtype, resolve_shape("Reshape", x.shape, shape))


Reshape = defop("Reshape", ("x",), attrs={"shape": ()}, infer=_reshape_infer,
                eager=lambda x, shape: np.reshape(x, resolve_shape("Reshape", x.shape, shape)),
                kind=Kind.LAYOUT, lower=View(), batch="reshape")


# ---- transpose ----------------------------------------------------------------------------------
def norm_perm(op_name: str, perm, ndim: int) -> tuple:
    perm = tuple(int(p) % ndim if ndim else 0 for p in perm) if perm is not None else tuple(reversed(range(ndim)))
    if sorted(perm) != list(range(ndim)):
        raise OpValueError(f"For '{op_name}', 'perm' must be a permutation of {list(range(ndim))}, but got {list(perm)}")
    return perm


def _transpose_infer(types, perm):
    x = tensor_arg("Transpose", types[0])
    p = norm_perm("Transpose", perm, x.ndim)
    return TensorType(x.dtype, tuple(x.shape[i] for i in p))


Transpose = defop("Transpose", ("x",), attrs={"perm": None}, infer=_transpose_infer,
                  eager=lambda x, perm: np.transpose(x, norm_perm("Transpose", perm, x.ndim)),
                  kind=Kind.LAYOUT, lower=Template("transpose", moves_data=True), batch="transpose")


# ---- broadcast --------------------------------------------------------------------------------
def _broadcast_to_infer(types, shape):
    """-1 in the target keeps the input's size, and only where the input has that dimension."""
    x = tensor_arg("BroadcastTo", types[0])
    shape = tuple(int(d) for d in shape)
    lead = len(shape) - x.ndim
    bad = lead < 0 or any(d < -1 or (d == -1 and i < lead) for i, d in enumerate(shape))
    full = shape if bad else tuple(x.shape[i - lead] if d == -1 else d for i, d in enumerate(shape))
    if bad or broadcast_shapes("BroadcastTo", x.shape, full) != full:
        raise OpValueError(f"For 'BroadcastTo', cannot broadcast shape {list(x.shape)} to {list(shape)}")
    return TensorType(x.dtype, full)


BroadcastTo = defop("BroadcastTo", ("x",), attrs={"shape": ()}, infer=_broadcast_to_infer,
                    eager=lambda x, shape: np.broadcast_to(
                        x, _broadcast_to_infer([TensorType(mstype.from_numpy(x.dtype), x.shape)], shape).shape).copy(),
                    kind=Kind.LAYOUT, lower=Template("broadcast", moves_data=True), batch="broadcast_to")


# ---- concat / stack --------------------------------------------------------------------------
def _promote(op_name: str, a, b):
    try:
        return mstype.promote(a, b)
    except mstype.PromotionError as e:
        raise OpTypeError(f"For '{op_name}', {e}") from None


def _seq_types(op_name: str, tup) -> list:
    if not isinstance(tup, TupleType) or not tup.elems:
        raise OpTypeError(f"For '{op_name}', the input must be a non-empty tuple or list of Tensors")
    for t in tup.elems:
        tensor_arg(op_name, t, "tensors")
    return list(tup.elems)


def _concat_infer(types, axis=0):
    ts = _seq_types("Concat", types[0])
    ndim = ts[0].ndim
    if ndim == 0:
        raise OpValueError("For 'Concat', cannot concatenate 0-d tensors; use Stack")
    ax = norm_axis("Concat", axis, ndim)
    dt = ts[0].dtype
    for t in ts[1:]:
        dt = _promote("Concat", dt, t.dtype)
        if t.ndim != ndim or any(a != b for i, (a, b) in enumerate(zip(t.shape, ts[0].shape)) if i != ax):
            raise OpValueError(
                f"For 'Concat', all tensors must have the same shape except on axis {ax}, but got "
                + ", ".join(fmt_shape(u.shape) for u in ts))
    shape = list(ts[0].shape)
    shape[ax] = sum(t.shape[ax] for t in ts)
    return TensorType(dt, tuple(shape))


Concat = defop("Concat", ("tensors",), attrs={"axis": 0}, infer=_concat_infer, variadic=True,
               eager=lambda xs, axis=0: np.concatenate(xs, axis=axis), kind=Kind.LAYOUT,
               lower=Template("concat", moves_data=True),
               batch="concat")


def _stack_infer(types, axis=0):
    ts = _seq_types("Stack", types[0])
    ax = norm_axis("Stack", axis, ts[0].ndim, extra=1)
    dt = ts[0].dtype
    for t in ts[1:]:
        dt = _promote("Stack", dt, t.dtype)
        if t.shape != ts[0].shape:
            raise OpValueError("For 'Stack', all tensors must have the same shape, but got "
                               + ", ".join(fmt_shape(u.shape) for u in ts))
    shape = list(ts[0].shape)
    shape.insert(ax, len(ts))
    return TensorType(dt, tuple(shape))


def _stack_parts(*xs, axis=0):
    """Concat of the tensors, each given a length-1 axis at `axis` (a view)."""
    if len(xs) == 1 and isinstance(xs[0], (tuple, list)):       # (PyNative hands the tuple)
        xs = tuple(xs[0])
    t = type_of(xs[0])
    ax = axis % (t.ndim + 1)
    shape = t.shape[:ax] + (1,) + t.shape[ax:]
    return apply(Concat, [tuple(apply(Reshape, [x], {"shape": shape}) for x in xs)], {"axis": ax})


Stack = defop("Stack", ("tensors",), attrs={"axis": 0}, infer=_stack_infer, variadic=True,
              eager=lambda xs, axis=0: np.stack(xs, axis=axis), kind=Kind.LAYOUT,
              lower=Template("concat", rule="stack", moves_data=True),
              batch="concat", decompose=_stack_parts)


# ---- slicing ----------------------------------------------------------------------------------
def _slice_infer(types, begin, end, strides):
    x = tensor_arg("StridedSlice", types[0])
    if not (len(begin) == len(end) == len(strides) == x.ndim):
        raise OpValueError(f"For 'StridedSlice', begin/end/strides must have {x.ndim} entries")
    shape = tuple(len(range(b, e, s)) for b, e, s in zip(begin, end, strides))
    return TensorType(x.dtype, shape)


def _slice_eager(x, begin, end, strides):
    idx = tuple(slice(b, e if e >= 0 else None, s) for b, e, s in zip(begin, end, strides))
    return x[idx]


# begin/end/strides are normalized by the indexing front (ops.functional.getitem): every dimension
# listed, begin in range, end possibly -1 meaning "before index 0" for negative strides.
StridedSlice = defop("StridedSlice", ("x",), attrs={"begin": (), "end": (), "strides": ()},
                     infer=_slice_infer, eager=_slice_eager, kind=Kind.LAYOUT,
                     lower=Template("slice", moves_data=True, view="box"),
                     batch="slice")


def _gather_infer(types, axis=0):
    x = tensor_arg("Gather", types[0], "input_params")
    idx = types[1]
    if isinstance(idx, ScalarType):
        if idx.kind != "int":
            raise OpTypeError(f"For 'Gather', 'input_indices' must be an int Tensor, but got {describe(idx)}")
        idx = TensorType(mstype.int64, ())
    idx = tensor_arg("Gather", idx, "input_indices")
    if not idx.dtype.is_int:
        raise OpTypeError(f"For 'Gather', 'input_indices' must be an int Tensor, but got {describe(idx)}")
    ax = norm_axis("Gather", axis, x.ndim)
    return TensorType(x.dtype, x.shape[:ax] + idx.shape + x.shape[ax + 1:])


def _gather(x, idx, axis=0):
    ax = axis % x.ndim
    n = x.shape[ax]
    idx = np.asarray(idx)
    if np.any((idx < -n) | (idx >= n)):
        # MindSpore's RuntimeError (negative indices count from the end; it reports them wrapped)
        bad = int(idx[(idx < -n) | (idx >= n)].ravel()[0])
        raise RuntimeError(f"For 'Gather', the 'input_indices' should be in the range [0, {n}), but got "
                           f"{bad + n if bad < 0 else bad} (axis {ax})")
    return np.take(x, idx, axis=ax)


def _gather_parts(x, idx, axis=0):
    """Gather as GatherD (a fast path: `fast_path`, docs/architecture.md "The core"): x viewed as
    (A, N, B) around the axis, the indices as (1, K, 1) broadcast to (A, K, B), GatherD along the
    middle axis, then the result's shape x.shape[:axis] + indices.shape + x.shape[axis + 1:]. (An
    out-of-range index then raises from GatherD, naming it: only PYCOMPILE_FAST_PATHS=0 compiles
    this.)"""
    from pycompile.ops.defs.elementwise import call, cast
    GatherD = _index.GatherD
    xt = type_of(x)
    it = type_of(idx)
    if not isinstance(it, TensorType):
        idx, it = cast(idx, mstype.int64), TensorType(mstype.int64, ())
    ax = axis % xt.ndim
    a, n, b = math.prod(xt.shape[:ax]), xt.shape[ax], math.prod(xt.shape[ax + 1:])
    k = math.prod(it.shape)
    x3 = call(Reshape, x, shape=(a, n, b))
    i3 = call(BroadcastTo, call(Reshape, idx, shape=(1, k, 1)), shape=(a, k, b))
    return call(Reshape, call(GatherD, x3, i3, axis=1), shape=xt.shape[:ax] + it.shape + xt.shape[ax + 1:])


# an out-of-range index raises (RuntimeError): never hoisted where the program might not have run it
Gather = defop("Gather", ("input_params", "input_indices"), attrs={"axis": 0}, infer=_gather_infer,
               eager=_gather, kind=Kind.LAYOUT, lower=Template("gather", moves_data=True, view="row"), batch="gather",
               speculatable=False, decompose=_gather_parts, fast_path=True)


# ---- creation ---------------------------------------------------------------------------------
def _fill_infer(types, shape, value, dtype):
    if not isinstance(value, (bool, int, float, np.generic)):
        raise OpTypeError(f"For 'Fill', the fill value must be a number, but got {type(value).__name__}")
    shape = tuple(int(d) for d in shape)
    if any(d < 0 for d in shape):
        raise OpValueError(f"For 'Fill', dimensions must be >= 0, but got {list(shape)}")
    return TensorType(mstype.to_dtype(dtype), shape)


Fill = defop("Fill", (), attrs={"shape": (), "value": 0, "dtype": mstype.float32}, infer=_fill_infer,
             eager=lambda shape, value, dtype: np.full(tuple(shape), value, dtype=mstype.to_dtype(dtype).np),
             kind=Kind.CREATE, lower=Constant(), check_infer=False)


# ---- matrix products --------------------------------------------------------------------------
def _mm_dtype(name, a, b):
    """Both operands of one dtype (MindSpore's MatMul / BatchMatMul refuse mixed ones: a float16
    input to a float32 nn.Dense is a TypeError, not a silent promotion)."""
    if a.dtype.is_bool or b.dtype.is_bool:
        raise OpTypeError(f"For '{name}', bool tensors are not supported, got {describe(a)} and {describe(b)}")
    if a.dtype is not b.dtype:
        raise OpTypeError(f"For '{name}', the type of 'x2' should be same as 'x1', but got 'x1' with type "
                          f"Tensor[{a.dtype}] and 'x2' with type Tensor[{b.dtype}].")
    return a.dtype


def _matmul_infer(types, transpose_a=False, transpose_b=False):
    a = tensor_arg("MatMul", types[0])
    b = tensor_arg("MatMul", types[1], "y")
    if a.ndim != 2 or b.ndim != 2:
        raise OpValueError(f"For 'MatMul', inputs must be 2-D, but got shapes {list(a.shape)} and {list(b.shape)}")
    m, k = a.shape[::-1] if transpose_a else a.shape
    k2, n = b.shape[::-1] if transpose_b else b.shape
    if k != k2:
        raise OpValueError(
            f"For 'MatMul', the contracted dimensions must match, but got x.shape = {list(a.shape)}"
            f"{' (transposed)' if transpose_a else ''} and y.shape = {list(b.shape)}"
            f"{' (transposed)' if transpose_b else ''}")
    return TensorType(_mm_dtype("MatMul", a, b), (m, n))


def _matmul(a, b, transpose_a=False, transpose_b=False):
    a = a.T if transpose_a else a
    b = b.T if transpose_b else b
    dt = np.promote_types(a.dtype, b.dtype)
    if dt == np.float16:
        return np.matmul(a.astype(np.float32), b.astype(np.float32))
    return np.matmul(a.astype(dt, copy=False), b.astype(dt, copy=False))


MatMul = defop("MatMul", ("x", "y"), attrs={"transpose_a": False, "transpose_b": False},
               infer=_matmul_infer, eager=_matmul, kind=Kind.MATMUL, lower=Blas(),
               batch="matmul", eager_kernel=True)


def _bmm_infer(types, transpose_a=False, transpose_b=False):
    a = tensor_arg("BatchMatMul", types[0])
    b = tensor_arg("BatchMatMul", types[1], "y")
    if a.ndim < 2 or b.ndim < 2:
        raise OpValueError(f"For 'BatchMatMul', inputs must be at least 2-D, but got shapes "
                           f"{list(a.shape)} and {list(b.shape)}")
    m, k = (a.shape[-1], a.shape[-2]) if transpose_a else a.shape[-2:]
    k2, n = (b.shape[-1], b.shape[-2]) if transpose_b else b.shape[-2:]
    if k != k2:
        raise OpValueError(
            f"For 'BatchMatMul', the contracted dimensions must match, but got x.shape = {list(a.shape)} "
            f"and y.shape = {list(b.shape)} (transpose_a={transpose_a}, transpose_b={transpose_b})")
    batch = broadcast_shapes("BatchMatMul", a.shape[:-2], b.shape[:-2])
    return TensorType(_mm_dtype("BatchMatMul", a, b), batch + (m, n))


def _bmm(a, b, transpose_a=False, transpose_b=False):
    a = np.swapaxes(a, -1, -2) if transpose_a else a
    b = np.swapaxes(b, -1, -2) if transpose_b else b
    return _matmul(a, b)


BatchMatMul = defop("BatchMatMul", ("x", "y"), attrs={"transpose_a": False, "transpose_b": False},
                    infer=_bmm_infer, eager=_bmm, kind=Kind.MATMUL, lower=Blas(),
                    batch="matmul", eager_kernel=True)


# TensorScatterElements' decomposition reads these rows (index.py cannot import this module: it is imported here)
_index.use_array_rows(Concat, Fill, Reshape, StridedSlice)


# the ops this module declares (what `pycompile.ops.prims` re-exports)
__all__ = [_n for _n, _v in list(globals().items()) if isinstance(_v, OpDef)]
