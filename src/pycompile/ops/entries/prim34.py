"""MindSpore 2.10 Primitives (and two functions) that were missing, each a decomposition into ops
pycompile has, so PyNative and graph code run one definition: the 3-D adaptive poolings
(AdaptiveAvgPool3D, AdaptiveMaxPool3D, ops.adaptive_avg_pool3d / adaptive_max_pool3d), MaxUnpool2D /
MaxUnpool3D, Im2Col, Bincount, Histogram, UnravelIndex, ScatterAddWithAxis, IndexPut,
InplaceIndexAdd, UpsampleNearest3D / UpsampleTrilinear3D, TridiagonalMatMul, MatrixSolve,
DataFormatVecPermute and CompareAndBitpack. Values recorded from the wheel in
tests/conformance/cases_prim34.py.

A size given as a Tensor (AdaptiveMaxPool3D's output_size, Bincount's size) sets the output's
shape, so graph code needs it as a constant there (a Tensor built in the function, or a PyNative
value): an argument whose value is only known when the graph runs is refused with the reason."""
from __future__ import annotations

import numpy as np

import pycompile.ops as ops
from pycompile.common import dtype as mstype
from pycompile.common.tensor import Tensor, TensorMethods
from pycompile.ops import function_conv as FC
from pycompile.ops import function_math as FM
from pycompile.ops import functional as F
from pycompile.ops._table import OpTypeError, OpValueError
from pycompile.ops.entries.misc_prim33 import _format
from pycompile.ops.entry import Arg, op_entry

_INTS = frozenset({mstype.int32, mstype.int64})
_FLOATS = frozenset({mstype.float16, mstype.float32, mstype.float64})


def _const(name: str, what: str, t) -> np.ndarray:
    """The value of a Tensor argument that sets a shape (known in PyNative, or a constant)."""
    data = getattr(t, "_data", None)
    if data is None:
        raise OpValueError(f"For '{name}', '{what}' sets the output's shape, so graph code needs it as a constant "
                           f"(its value is only known when the graph runs).")
    return np.asarray(data)


def _wrap(a: np.ndarray):
    return Tensor._wrap(np.ascontiguousarray(a))


# ---- 3-D adaptive poolings ---------------------------------------------------------------------------
@op_entry("adaptive_avg_pool3d", primitive="AdaptiveAvgPool3D",
          args=[Arg("input", dtypes=_FLOATS), Arg("output_size", "value", init=True)])
def adaptive_avg_pool3d(input, output_size):
    """(N, C, D, H, W) or (C, D, H, W) averaged over adaptive windows [floor(i L / o), ceil((i + 1) L / o))
    to output_size (an int, or 3 ints where None keeps that axis)."""
    _, size = FC._adaptive_size("AdaptiveAvgPool3D", input, output_size, 3)
    return FC.adaptive_pool("avg", input, size)


@op_entry("adaptive_max_pool3d", args=[Arg("input", dtypes=_FLOATS), Arg("output_size", "value"),
                                       Arg("return_indices", "value", default=False)])
def adaptive_max_pool3d(input, output_size, return_indices=False):
    """The maxima over the same windows; with return_indices, their flat positions in D * H * W
    (int32, the first maximum)."""
    _, size = FC._adaptive_size("AdaptiveMaxPool3D", input, output_size, 3)
    out, idx = FC.adaptive_pool("max", input, size)
    return (out, F.cast(idx, mstype.int32)) if return_indices else out


@op_entry("adaptive_max_pool3d_primitive", primitive="AdaptiveMaxPool3D", functional=False,
          args=[Arg("x", dtypes=_FLOATS), Arg("output_size", dtypes=frozenset({mstype.int32}))])
def adaptive_max_pool3d_primitive(x, output_size):
    """(values, int32 flat argmax) for output_size given as a 1-D int32 Tensor of 3 sizes."""
    size = _const("AdaptiveMaxPool3D", "output_size", output_size).reshape(-1)
    if size.shape != (3,):
        raise OpValueError(f"For 'AdaptiveMaxPool3D', 'output_size' must be a 1-D Tensor of 3 elements, but got "
                           f"shape {list(output_size.shape)}.")
    return adaptive_max_pool3d(x, tuple(int(v) for v in size), True)


# ---- max unpooling ------------------------------------------------------------------------------------
def _unpool_attr(name, v, nd, what, default=None):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer, tuple, list)):
        raise OpTypeError(f"For '{name}', '{what}' must be an int or a tuple of ints, but got {v!r}.")
    if isinstance(v, (int, np.integer)):
        return (int(v),) * nd if v or default is None else default
    v = tuple(int(u) for u in v)
    if len(v) == nd + 2:            # MindSpore's (1, 1, h, w) form
        v = v[2:]
    if len(v) != nd:
        raise OpValueError(f"For '{name}', the length of '{what}' must be {nd} or {nd + 2}, but got {len(v)}.")
    return v


def _max_unpool(name, nd, x, argmax, ksize, strides, pads, output_shape, data_format):
    fmt = "NCHW" if nd == 2 else "NCDHW"
    if data_format != fmt:
        raise OpValueError(f"For '{name}', 'data_format' must be '{fmt}' on the CPU, but got '{data_format}'.")
    k = _unpool_attr(name, ksize, nd, "ksize")
    s = _unpool_attr(name, strides, nd, "strides", default=k)
    p = _unpool_attr(name, pads, nd, "pads")
    if x.ndim != nd + 2:
        raise OpValueError(f"For '{name}', the dimension of 'x' must be {nd + 2}, but got {x.ndim}.")
    if argmax.dtype not in _INTS:
        raise OpTypeError(f"For '{name}', the dtype of 'argmax' must be int32 or int64, but got {argmax.dtype}.")
    out = tuple(output_shape) if output_shape else None
    data = getattr(argmax, "_data", None)
    if data is not None and np.asarray(data).size:
        res = ops.max_unpool2d(x, argmax, k, s, p, out) if nd == 2 else ops.max_unpool3d(x, argmax, k, s, p, out)
        plane = int(np.prod(res.shape[2:]))
        top = int(np.asarray(data).max())
        if top >= plane or int(np.asarray(data).min()) < 0:
            dims = "H * W" if nd == 2 else "D * H * W"
            raise RuntimeError(f"{name}: internal error, output_size {dims} should be bigger than some indicis, now "
                               f"{dims} is {plane} and value of argmax is {top}.")
        return res
    return ops.max_unpool2d(x, argmax, k, s, p, out) if nd == 2 else ops.max_unpool3d(x, argmax, k, s, p, out)


def _unpool_args(fmt):
    return [Arg("x"), Arg("argmax"), Arg("ksize", "value", init=True), Arg("strides", "value", default=0, init=True),
            Arg("pads", "value", default=0, init=True), Arg("output_shape", "value", default=(), init=True),
            Arg("data_format", "value", default=fmt, init=True)]


@op_entry("max_unpool2d_primitive", primitive="MaxUnpool2D", functional=False, args=_unpool_args("NCHW"))
def max_unpool2d_primitive(x, argmax, ksize, strides=0, pads=0, output_shape=(), data_format="NCHW"):
    """Each value of x written at its argmax (flat in its H * W plane) of a zero output."""
    return _max_unpool("MaxUnpool2D", 2, x, argmax, ksize, strides, pads, output_shape, data_format)


@op_entry("max_unpool3d_primitive", primitive="MaxUnpool3D", functional=False, args=_unpool_args("NCDHW"))
def max_unpool3d_primitive(x, argmax, ksize, strides=0, pads=0, output_shape=(), data_format="NCDHW"):
    """Each value of x written at its argmax (flat in its D * H * W volume) of a zero output."""
    return _max_unpool("MaxUnpool3D", 3, x, argmax, ksize, strides, pads, output_shape, data_format)


# ---- Im2Col -------------------------------------------------------------------------------------------
def _pair(name, what, v):
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return (int(v), int(v))
    if isinstance(v, (tuple, list)) and len(v) in (1, 2) and all(isinstance(u, (int, np.integer)) for u in v):
        return (int(v[0]), int(v[-1]))
    raise OpValueError(f"For 'Im2Col', '{what}' must be an int or a tuple of 1 or 2 ints, but got {v!r}.")


@op_entry("im2col_primitive", primitive="Im2Col", functional=False,
          args=[Arg("x"), Arg("ksizes", "value", init=True), Arg("strides", "value", default=1, init=True),
                Arg("dilations", "value", default=1, init=True), Arg("pads", "value", default=0, init=True)])
def im2col_primitive(x, ksizes, strides=1, dilations=1, pads=0):
    """(N, C, H, W) -> (N, C, kh * kw, L): each sliding block, offsets (i, j) in row order."""
    k, s, d = _pair("Im2Col", "ksizes", ksizes), _pair("Im2Col", "strides", strides), _pair("Im2Col", "dilations", dilations)
    p = _pair("Im2Col", "pads", pads)
    if x.ndim != 4:
        raise OpValueError(f"For 'Im2Col', the dimension of 'x' must be 4, but got {x.ndim}.")
    cols = ops.unfold(x, k, d, p, s)
    return F.reshape(cols, (x.shape[0], x.shape[1], k[0] * k[1], cols.shape[-1]))


# ---- counting -----------------------------------------------------------------------------------------
@op_entry("bincount_primitive", primitive="Bincount", functional=False,
          args=[Arg("array", dtypes=frozenset({mstype.int32})), Arg("size", dtypes=frozenset({mstype.int32})),
                Arg("weights", dtypes=frozenset({mstype.int32, mstype.int64, mstype.float32, mstype.float64}))])
def bincount_primitive(array, size, weights):
    """out[b] = the sum of weights where array == b, for b < size (values past size are not
    counted); empty weights count 1 each. The weights' dtype."""
    n = int(_const("Bincount", "size", size).reshape(-1)[0])
    if n < 0:
        raise OpValueError(f"For 'Bincount', 'size' must be non-negative, but got {n}.")
    hit = F.equal(F.expand_dims(array, -1), _wrap(np.arange(n, dtype=np.int32)))
    if weights.size == 0:
        w = F.ones(tuple(array.shape) + (1,), weights.dtype)
    elif tuple(weights.shape) != tuple(array.shape):
        raise OpValueError(f"For 'Bincount', the shape of 'weights' must be empty or {list(array.shape)}, but got "
                           f"{list(weights.shape)}.")
    else:
        w = F.expand_dims(weights, -1)
    terms = F.select(hit, F.broadcast_to(w, tuple(hit.shape)), F.zeros(tuple(hit.shape), weights.dtype))
    return F.reshape(ops.sum(F.reshape(terms, (-1, n)), 0), (n,))


@op_entry("histogram_primitive", primitive="Histogram", functional=False,
          args=[Arg("x", dtypes=frozenset({mstype.float16, mstype.float32, mstype.int32})),
                Arg("bins", "value", default=100, init=True), Arg("min", "value", default=0.0, init=True),
                Arg("max", "value", default=0.0, init=True)])
def histogram_primitive(x, bins=100, min=0.0, max=0.0):
    """histc's counts: int32 for an int32 input, else float32."""
    if isinstance(bins, bool) or not isinstance(bins, int):
        raise OpTypeError(f"For 'Histogram', the type of 'bins' must be int, but got {type(bins).__name__}.")
    for what, v in (("min", min), ("max", max)):
        if not isinstance(v, float):
            raise OpTypeError(f"For 'Histogram', the type of '{what}' must be float, but got {type(v).__name__}.")
    if bins <= 0:
        raise OpValueError(f"For 'Histogram', 'bins' must be positive, but got {bins}.")
    counts = ops.histc(x if x.dtype is not mstype.float16 else F.cast(x, mstype.float32), bins, min, max)
    return F.cast(counts, mstype.int32 if x.dtype is mstype.int32 else mstype.float32)


@op_entry("unravel_index_primitive", primitive="UnravelIndex", functional=False,
          args=[Arg("indices", dtypes=_INTS), Arg("dims", dtypes=_INTS)])
def unravel_index_primitive(indices, dims):
    """The coordinates of flat `indices` in an array of shape `dims`: (len(dims), N), or (len(dims),)
    for a 0-D index."""
    if indices.dtype is not dims.dtype:
        raise OpTypeError(f"For 'UnravelIndex', the dtype of 'indices' and 'dims' must be the same, but got "
                          f"{indices.dtype} and {dims.dtype}.")
    if dims.ndim != 1 or indices.ndim > 1:
        raise OpValueError(f"For 'UnravelIndex', 'dims' must be 1-D and 'indices' 0-D or 1-D, but got "
                           f"{dims.ndim}-D and {indices.ndim}-D.")
    k = dims.shape[0]
    # strides[i] = prod(dims[i + 1:]): the cumulative product of the reversed dims, shifted by one
    cum = ops.cumprod(ops.flip(dims, (0,)), 0)
    strides = ops.flip(ops.concat((F.ones((1,), dims.dtype), cum[:k - 1]), 0), (0,))
    strides = F.cast(strides, dims.dtype)
    if indices.ndim == 0:
        return F.floor_mod(F.floor_div(indices, strides), dims)
    return F.floor_mod(F.floor_div(F.expand_dims(indices, 0), F.expand_dims(strides, -1)), F.expand_dims(dims, -1))


# ---- scatters -----------------------------------------------------------------------------------------
@op_entry("scatter_add_with_axis_primitive", primitive="ScatterAddWithAxis", functional=False,
          args=[Arg("input_x"), Arg("indices", dtypes=_INTS), Arg("updates"), Arg("axis", "value", default=0, init=True)])
def scatter_add_with_axis_primitive(input_x, indices, updates, axis=0):
    """input_x with updates[i][j]... added at indices[i][j]... along `axis` (tensor_scatter_elements,
    reduction 'add')."""
    return ops.tensor_scatter_elements(input_x, indices, updates, axis, "add")


@op_entry("index_put_primitive", primitive="IndexPut", functional=False,
          args=[Arg("x1"), Arg("x2"), Arg("indices", "value"), Arg("accumulate", "value", default=0, init=True)])
def index_put_primitive(x1, x2, indices, accumulate=0):
    """x1 with x1[indices] = x2 (accumulate 1: +=), indices a tuple of 1-D int tensors, broadcast
    together, one per leading axis; x2 1-D (or one element), broadcast to what it replaces."""
    if isinstance(accumulate, bool) or not isinstance(accumulate, int):
        raise OpTypeError(f"For 'IndexPut', the type of 'accumulate' must be int, but got {type(accumulate).__name__}.")
    if accumulate not in (0, 1):
        raise OpValueError(f"For 'IndexPut', 'accumulate' must be 0 or 1, but got {accumulate}.")
    if not isinstance(indices, (tuple, list)) or not all(isinstance(i, TensorMethods) for i in indices):
        raise OpTypeError("For 'IndexPut', 'indices' must be a tuple or list of Tensors.")
    if x2.dtype is not x1.dtype:
        raise OpTypeError(f"For 'IndexPut', the dtype of 'x2' must be the same as 'x1', but got {x2.dtype} and "
                          f"{x1.dtype}.")
    if x2.ndim != 1:
        raise OpValueError(f"For 'IndexPut', 'x2' must be 1-D, but got {x2.ndim}-D.")
    if len(indices) > x1.ndim or not indices:
        raise OpValueError(f"For 'IndexPut', the size of 'indices' must be in [1, {x1.ndim}], but got {len(indices)}.")
    for i in indices:
        if i.ndim != 1 or i.dtype not in _INTS:
            raise OpValueError("For 'IndexPut', each tensor of 'indices' must be a 1-D int32 or int64 Tensor.")
    n = max(int(i.shape[0]) for i in indices)
    idx = F.stack([F.broadcast_to(F.cast(i, mstype.int64), (n,)) for i in indices], -1)     # (n, len(indices))
    upd = F.broadcast_to(x2, (n,) + tuple(x1.shape[len(indices):]))      # x2 along the last axis
    if accumulate:
        return ops.tensor_scatter_add(x1, idx, upd)
    return ops.tensor_scatter_update(x1, idx, upd)


@op_entry("inplace_index_add_primitive", primitive="InplaceIndexAdd", functional=False,
          args=[Arg("var"), Arg("indices", dtypes=frozenset({mstype.int32})), Arg("updates"),
                Arg("axis", "value", init=True)])
def inplace_index_add_primitive(var, indices, updates, axis):
    """var with updates' slices added at its slices `indices` along `axis`, written into var (a
    Parameter); returns the result."""
    return ops.inplace_index_add(var, indices, updates, axis)


# ---- 3-D upsampling -----------------------------------------------------------------------------------
def _upsample_args(name, x, output_size, scales) -> dict:
    """ops.interpolate's size / scale_factor for MindSpore's (output_size, scales) pair."""
    if x.dtype not in _FLOATS:
        raise OpTypeError(f"For '{name}', the dtype of 'x' must be float16, float32 or float64, but got {x.dtype}.")
    if x.ndim != 5:
        raise OpValueError(f"For '{name}', the dimension of 'x' must be 5, but got {x.ndim}.")
    if (output_size is None) == (scales is None):
        raise OpValueError(f"For '{name}', exactly one of 'output_size' and 'scales' must be specified.")
    if output_size is not None:
        size = tuple(output_size)
        if len(size) != 3 or any(isinstance(v, bool) or not isinstance(v, int) or v <= 0 for v in size):
            raise OpValueError(f"For '{name}', 'output_size' must be 3 positive ints, but got {output_size}.")
        return {"size": size}
    sc = tuple(scales)
    if len(sc) != 3 or any(not isinstance(v, (int, float)) or isinstance(v, bool) or v <= 0 for v in sc):
        raise OpValueError(f"For '{name}', 'scales' must be 3 positive floats, but got {scales}.")
    # the attribute is a float32 list: the kernel's source step is 1 / that float32 (in double)
    return {"scale_factor": tuple(float(np.float32(v)) for v in sc), "recompute_scale_factor": False}


@op_entry("upsample_nearest3d_primitive", primitive="UpsampleNearest3D", functional=False,
          args=[Arg("x"), Arg("output_size", "value", default=None), Arg("scales", "value", default=None)])
def upsample_nearest3d_primitive(x, output_size=None, scales=None):
    """Output voxel (d, h, w) reads input (floor(d s_d), floor(h s_h), floor(w s_w)), s = in / out
    (or 1 / scale when scales are given): ops.interpolate's nearest mode."""
    return ops.interpolate(x, mode="nearest", **_upsample_args("UpsampleNearest3D", x, output_size, scales))


@op_entry("upsample_trilinear3d_primitive", primitive="UpsampleTrilinear3D", functional=False,
          args=[Arg("x"), Arg("output_size", "value", default=None), Arg("scales", "value", default=None),
                Arg("align_corners", "value", default=False, init=True)])
def upsample_trilinear3d_primitive(x, output_size=None, scales=None, align_corners=False):
    """ops.interpolate's trilinear mode: source coordinate (o + 0.5) s - 0.5 clamped at 0, or
    o (in - 1) / (out - 1) with align_corners."""
    if not isinstance(align_corners, bool):
        raise OpTypeError(f"For 'UpsampleTrilinear3D', 'align_corners' must be a bool, but got {align_corners!r}.")
    return ops.interpolate(x, mode="trilinear", align_corners=align_corners,
                           **_upsample_args("UpsampleTrilinear3D", x, output_size, scales))


# ---- linear algebra -----------------------------------------------------------------------------------
@op_entry("tridiagonal_mat_mul_primitive", primitive="TridiagonalMatMul", functional=False,
          args=[Arg("superdiag"), Arg("maindiag"), Arg("subdiag"), Arg("rhs")])
def tridiagonal_mat_mul_primitive(superdiag, maindiag, subdiag, rhs):
    """T @ rhs for the tridiagonal T of (..., 1, M) diagonals: row i is
    superdiag[i] rhs[i + 1] + maindiag[i] rhs[i] + subdiag[i] rhs[i - 1] (superdiag's last and
    subdiag's first element are not read)."""
    for what, t in (("superdiag", superdiag), ("maindiag", maindiag), ("subdiag", subdiag)):
        if t.dtype is not rhs.dtype:
            raise OpTypeError(f"For 'TridiagonalMatMul', the dtype of '{what}' must be the same as 'rhs', but got "
                              f"{t.dtype} and {rhs.dtype}.")
        if t.ndim < 2 or t.shape[-2] != 1 or t.shape[-1] != rhs.shape[-2]:
            raise OpValueError(f"For 'TridiagonalMatMul', '{what}' must have the shape [..., 1, {rhs.shape[-2]}], but "
                               f"got {list(t.shape)}.")
    m = rhs.shape[-2]
    def col(d):
        return ops.swapaxes(d, -1, -2)              # (..., 1, M) -> (..., M, 1): one factor per row
    out = col(maindiag) * rhs
    if m > 1:
        zero = F.zeros(tuple(rhs.shape[:-2]) + (1, rhs.shape[-1]), rhs.dtype)
        up = ops.concat((rhs[..., 1:, :], zero), -2)          # rhs[i + 1], 0 past the end
        down = ops.concat((zero, rhs[..., :m - 1, :]), -2)    # rhs[i - 1], 0 before the start
        out = col(superdiag) * up + out + col(subdiag) * down
    return out


@op_entry("matrix_solve_primitive", primitive="MatrixSolve", functional=False,
          args=[Arg("matrix"), Arg("rhs"), Arg("adjoint", "value", default=False, init=True)])
def matrix_solve_primitive(matrix, rhs, adjoint=False):
    """x with op(matrix) x = rhs (op: the adjoint when `adjoint`)."""
    return FM.matrix_solve(matrix, rhs, adjoint)


# ---- layout and bits ----------------------------------------------------------------------------------
@op_entry("data_format_vec_permute_primitive", primitive="DataFormatVecPermute", functional=False,
          args=[Arg("input_x", dtypes=_INTS),
                Arg("src_format", "value", default="NHWC", init=True, check=_format("src_format")),
                Arg("dst_format", "value", default="NCHW", init=True, check=_format("dst_format"))])
def data_format_vec_permute_primitive(input_x, src_format="NHWC", dst_format="NCHW"):
    """A (4,) or (4, 2) vector of per-axis values in src_format's order, reordered to dst_format's."""
    if tuple(input_x.shape) not in ((4,), (4, 2)):
        raise OpValueError(f"For 'DataFormatVecPermute', the shape of 'input_x' must be (4,) or (4, 2), but got "
                           f"{tuple(input_x.shape)}.")
    return F.gather(input_x, _wrap(np.array([src_format.index(c) for c in dst_format], np.int32)), 0)


@op_entry("compare_and_bitpack_primitive", primitive="CompareAndBitpack", functional=False,
          args=[Arg("x", dtypes=frozenset({mstype.bool_, mstype.float16, mstype.float32, mstype.float64, mstype.int8,
                                           mstype.int16, mstype.int32, mstype.int64})),
                Arg("threshold")])
def compare_and_bitpack_primitive(x, threshold):
    """x > threshold packed 8 to a uint8 along the last axis, the first element the highest bit."""
    if threshold.dtype is not x.dtype:
        raise OpTypeError(f"For 'CompareAndBitpack', the dtype of 'threshold' must be the same as 'x', but got "
                          f"{threshold.dtype} and {x.dtype}.")
    if threshold.ndim != 0:
        raise OpValueError(f"For 'CompareAndBitpack', 'threshold' must be a 0-D Tensor, but got {threshold.ndim}-D.")
    if x.ndim == 0 or x.shape[-1] % 8:
        raise OpValueError(f"For 'CompareAndBitpack', the innermost dimension of 'x' must be divisible by 8, but got "
                           f"shape {list(x.shape)}.")
    bits = F.cast(F.greater(x, threshold), mstype.int32)
    bits = F.reshape(bits, tuple(x.shape[:-1]) + (x.shape[-1] // 8, 8))
    weights = _wrap(np.array([128, 64, 32, 16, 8, 4, 2, 1], np.int32))
    return F.cast(ops.sum(bits * weights, -1), mstype.uint8)
