"""MindSpore 2.10 Primitives and functions that were missing, each a decomposition into ops pycompile
has, so PyNative and graph code run one definition: CountNonZero, DepthwiseConv2dNative,
ExtractImagePatches, HistogramFixedWidth, Quantile, LogSoftmaxExt, SpaceToBatch / BatchToSpace /
BatchToSpaceNDV2, ScatterNonAliasingAdd, AccumulateNV2 / accumulate_n. The image, pooling and loss
ones (ResizeNearestNeighborV2, MaxPool3DWithArgmax, NonMaxSuppressionV3, MultilabelMarginLoss,
conv3d_transpose, erfinv_, scatter_nd_update) are in prim35b.py.

Most of these have no CPU kernel in the 2.10 wheel (its call fails at kernel selection), so their
values follow MindSpore's documentation (and TensorFlow's, which these ops copy) and are checked
against NumPy references in tests/ops/test_prim35.py; the argument checks the wheel does before
choosing a kernel are recorded in tests/conformance/cases_prim35.py, with the same messages here.
A Tensor argument that sets the output's shape (BatchToSpaceNDV2's block_shape and crops) must be
known when graph code is compiled (shape_values)."""
from __future__ import annotations

import numpy as np

import pycompile.ops as ops
from pycompile.common import dtype as mstype
from pycompile.common.tensor import Tensor, TensorMethods
from pycompile.ops import functional as F
from pycompile.ops._table import OpTypeError, OpValueError
from pycompile.ops.entries.image_img33 import shape_values
from pycompile.ops.entry import Arg, op_entry

_F32_64 = frozenset({mstype.float32, mstype.float64})


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def _wrap(a: np.ndarray):
    return Tensor._wrap(np.ascontiguousarray(a))


# ---- CountNonZero -------------------------------------------------------------------------------------
_CNZ_TYPES = frozenset({mstype.int8, mstype.int16, mstype.int32, mstype.int64, mstype.uint8, mstype.uint16,
                        mstype.uint32, mstype.uint64, mstype.float16, mstype.float32, mstype.float64,
                        mstype.complex64, mstype.complex128})


def _check_dims(v, op):
    if v is None:
        return
    if isinstance(v, bool) or not isinstance(v, (int, list, tuple)):
        raise OpTypeError(f"For '{op}', the type of 'dims' should be one of '['int', 'list', 'tuple']', but got type "
                          f"'{type(v).__name__}'.")
    if isinstance(v, (list, tuple)):
        for i, u in enumerate(v):
            if not _is_int(u):
                raise OpTypeError(f"For '{op}', the type of 'dims[{i}]' should be 'int', but got type "
                                  f"'{type(u).__name__}'.")


@op_entry("count_nonzero_primitive", primitive="CountNonZero", functional=False,
          args=[Arg("x", dtypes=_CNZ_TYPES), Arg("dims", "value", default=None, init=True, check=_check_dims)])
def count_nonzero_primitive(x, dims=None):
    """How many elements of x are not zero over `dims` (every axis when None or empty), int64 (the
    Primitive's output type; ops.count_nonzero defaults to int32). The 2.10 wheel's Primitive call
    fails ("the inputs number should be 2 but got 1"); this is the documented behaviour."""
    axes = [] if dims is None else [dims] if _is_int(dims) else list(dims)
    rank = max(x.ndim, 1)
    for i, d in enumerate(axes):
        if not -rank <= d < rank:
            raise OpValueError(f"For 'CountNonZero', the dims[{i}] must be in range [{-rank}, {rank}), but got {d}.")
    norm = [d % rank for d in axes]
    if len(set(norm)) != len(norm):
        raise OpValueError("For 'CountNonZero', the dims contain duplicates.")
    if x.ndim == 0:
        norm = []
    return ops.count_nonzero(x, tuple(norm), dtype=mstype.int64)


# ---- DepthwiseConv2dNative ----------------------------------------------------------------------------
def _pair(op, what, v):
    if _is_int(v):
        return (int(v), int(v))
    if isinstance(v, (tuple, list)) and len(v) in (2, 4) and all(_is_int(u) for u in v):
        return (int(v[-2]), int(v[-1]))
    raise OpTypeError(f"For '{op}', the '{what}' must be an int or a tuple of 2 or 4 ints, but got {v!r}.")


@op_entry("depthwise_conv2d_native_primitive", primitive="DepthwiseConv2dNative", functional=False,
          args=[Arg("x"), Arg("weight"), Arg("channel_multiplier", "value", init=True),
                Arg("kernel_size", "value", init=True), Arg("mode", "value", default=3, init=True),
                Arg("pad_mode", "value", default="valid", init=True), Arg("pad", "value", default=0, init=True),
                Arg("stride", "value", default=1, init=True), Arg("dilation", "value", default=1, init=True),
                Arg("group", "value", default=1, init=True)])
def depthwise_conv2d_native_primitive(x, weight, channel_multiplier, kernel_size, mode=3, pad_mode="valid", pad=0,
                                      stride=1, dilation=1, group=1):
    """Each input channel convolved with its own (kh, kw) filter: weight (1, C, kh, kw), output
    (N, C, H', W') (the wheel refuses a weight batch other than 1), as ops.conv2d with groups=C."""
    op = "DepthwiseConv2dNative"
    if not _is_int(mode) or mode != 3:
        raise OpValueError(f"For '{op}', the 'mode' must be int and must = 3, but got '{mode}' with type "
                           f"'{type(mode).__name__}'.")
    if pad_mode not in ("valid", "same", "pad"):
        raise OpValueError(f"For '{op}', the 'pad_mode' must be str and must be in '['valid', 'same', 'pad']', but "
                           f"got '{pad_mode}'.")
    k = _pair(op, "kernel_size", kernel_size)
    s, d = _pair(op, "stride", stride), _pair(op, "dilation", dilation)
    if _is_int(pad):
        pads = (int(pad),) * 4
    elif isinstance(pad, (tuple, list)) and len(pad) == 4 and all(_is_int(u) for u in pad):
        pads = tuple(int(u) for u in pad)
    else:
        raise OpTypeError(f"For '{op}', the 'pad' must be an int or a tuple of 4 ints, but got {pad!r}.")
    if pad_mode != "pad" and any(pads):
        raise OpValueError(f"For '{op}', the 'pad' must be zero when 'pad_mode' is not 'pad', but got {pad}.")
    if x.ndim != 4:
        raise OpValueError(f"For '{op}', the 'x rank' must be int and must = 4, but got '{x.ndim}' with type 'int'.")
    if weight.ndim != 4:
        raise OpValueError(f"For '{op}', the 'w rank' must be int and must = 4, but got '{weight.ndim}' with type "
                           f"'int'.")
    if weight.shape[0] != 1:
        raise OpValueError(f"For '{op}', the batch of 'weight' must be 1, but got {weight.shape[0]}")
    c = x.shape[1]
    if weight.shape[1] != c:
        raise OpValueError(f"For '{op}', the 'x_shape[1]' should be = w_shape[1]: {weight.shape[1]}, but got {c}.")
    if tuple(weight.shape[2:]) != k:
        raise OpValueError(f"For '{op}', the 'kernel_size' should be = w_shape[2:4]: {tuple(weight.shape[2:])}, but "
                           f"got {k}.")
    w = F.reshape(weight, (c, 1) + k)
    if pad_mode == "pad":           # pad: (top, bottom, left, right)
        if any(pads):
            x = ops.pad(x, (pads[2], pads[3], pads[0], pads[1]))
        return ops.conv2d(x, w, None, s, "valid", 0, d, c)
    return ops.conv2d(x, w, None, s, pad_mode, 0, d, c)


# ---- ExtractImagePatches ------------------------------------------------------------------------------
def _patch_attr(what, v):
    """ExtractImagePatches' ksizes / strides / rates: an int, (row, col) or (1, 1, row, col)."""
    if _is_int(v):
        v = (v, v)
    if not isinstance(v, (tuple, list)) or len(v) not in (2, 4) or not all(_is_int(u) for u in v):
        raise OpTypeError(f"For 'ExtractImagePatches', '{what}' must be a list or tuple of 2 or 4 ints, but got {v!r}.")
    if len(v) == 4 and (v[0] != 1 or v[1] != 1):
        raise OpValueError(f"For 'ExtractImagePatches', the format of '{what}' must be [1, 1, row, col], but got "
                           f"{list(v)}.")
    r, c = int(v[-2]), int(v[-1])
    if r < 1 or c < 1:
        raise OpValueError(f"For 'ExtractImagePatches', the values of '{what}' must be positive, but got {list(v)}.")
    return r, c


def image_patches(x, k, s, r, padding: str):
    """(N, C, H, W) -> (N, kh * kw * C, out_h, out_w): the patch elements of each position in the
    depth, ordered (kernel row, kernel column, channel) as TensorFlow's extract_image_patches;
    'SAME' pads with zeros, the odd one after."""
    n, c, h, w = x.shape
    span = [(kk - 1) * rr + 1 for kk, rr in zip(k, r)]
    if padding == "VALID":
        out = [(size - sp) // st + 1 for size, sp, st in zip((h, w), span, s)]
    else:
        out = [-(-size // st) for size, st in zip((h, w), s)]
    if out[0] <= 0 or out[1] <= 0:
        raise OpValueError(f"For ExtractImagePatchesthe output shape should greater than 0, but got "
                           f"[const vector]{{{n}, {c * k[0] * k[1]}, {out[0]}, {out[1]}}}")
    if padding == "SAME":
        need = [max((o - 1) * st + sp - size, 0) for o, st, sp, size in zip(out, s, span, (h, w))]
        if any(need):
            x = ops.pad(x, (need[1] // 2, need[1] - need[1] // 2, need[0] // 2, need[0] - need[0] // 2))
    parts = []
    for i in range(k[0]):
        for j in range(k[1]):
            r0, c0 = i * r[0], j * r[1]
            parts.append(x[:, :, r0:r0 + (out[0] - 1) * s[0] + 1:s[0], c0:c0 + (out[1] - 1) * s[1] + 1:s[1]])
    return F.reshape(F.stack(parts, 1), (n, k[0] * k[1] * c, out[0], out[1]))


@op_entry("extract_image_patches_primitive", primitive="ExtractImagePatches", functional=False,
          args=[Arg("input_x"), Arg("ksizes", "value", init=True), Arg("strides", "value", init=True),
                Arg("rates", "value", init=True), Arg("padding", "value", default="VALID", init=True)])
def extract_image_patches_primitive(input_x, ksizes, strides, rates, padding="VALID"):
    """The patches of size ksizes, `strides` apart, sampled every `rates` pixels, in the depth
    (nn.Unfold's op with its attributes in (1, 1, row, col) order). No CPU kernel in the wheel."""
    k, s, r = _patch_attr("ksizes", ksizes), _patch_attr("strides", strides), _patch_attr("rates", rates)
    pad = padding.upper() if isinstance(padding, str) else padding
    if pad not in ("VALID", "SAME"):
        raise OpValueError(f"For 'ExtractImagePatches', 'padding' must be 'VALID' or 'SAME', but got {padding!r}.")
    if input_x.ndim != 4:
        raise OpValueError("For ExtractImagePatchesthe rank of input_x must be 4.")
    return image_patches(input_x, k, s, r, pad)


# ---- HistogramFixedWidth ------------------------------------------------------------------------------
_HFW = frozenset({mstype.int32, mstype.float32, mstype.float16, mstype.float64})


@op_entry("histogram_fixed_width_primitive", primitive="HistogramFixedWidth", functional=False,
          args=[Arg("x", dtypes=_HFW), Arg("range", dtypes=_HFW), Arg("nbins", "value", init=True),
                Arg("dtype", "value", default="int32", init=True)])
def histogram_fixed_width_primitive(x, range, nbins, dtype="int32"):
    """int32 counts of x in nbins equal bins over [range[0], range[1]): bin floor((x - lo) / (hi -
    lo) * nbins), clamped to [0, nbins - 1] (values below lo count in the first bin, at or above hi
    in the last). No CPU kernel in the wheel."""
    op = "HistogramFixedWidth"
    if not _is_int(nbins):
        raise OpTypeError(f"For '{op}', the type of 'nbins' should be 'int', but got type '{type(nbins).__name__}'.")
    if nbins < 1:
        raise OpValueError(f"For '{op}', the 'nbins' must be int and must >= 1, but got '{nbins}' with type 'int'.")
    if not isinstance(dtype, str):
        raise OpTypeError(f"For '{op}', the type of 'dtype' should be 'str', but got type '{type(dtype).__name__}'.")
    if dtype != "int32":
        raise OpValueError(f"For '{op}', the 'dtype' must be str and must be in '['int32']', but got '{dtype}'.")
    if range.ndim != 1 or range.shape[0] != 2:
        got = range.shape[0] if range.ndim == 1 else range.ndim
        raise OpValueError(f"For primitive[{op}], the first rank of 'range' must be equal to 2, but got {got}.")
    if range.dtype is not x.dtype:
        raise OpTypeError(f"For primitive[{op}], the input type must be same.")
    cdt = mstype.float64 if x.dtype in (mstype.float64, mstype.int32) else mstype.float32
    xf, rf = F.cast(x, cdt), F.cast(range, cdt)
    lo, hi = rf[0], rf[1]
    pos = F.floor((xf - lo) / (hi - lo) * float(nbins))
    idx = F.cast(ops.clamp(pos, 0.0, float(nbins - 1)), mstype.int32)
    hit = F.equal(F.reshape(idx, (-1, 1)), _wrap(np.arange(nbins, dtype=np.int32)))
    return F.cast(ops.sum(F.cast(hit, mstype.int32), 0), mstype.int32)


# ---- Quantile -----------------------------------------------------------------------------------------
def _check_int_or_none(what):
    def check(v, op):
        if v is not None and not _is_int(v):
            raise OpTypeError(f"For '{op}', the type of '{what}' should be 'int', but got type '{type(v).__name__}'.")
    return check


def _check_bool(what):
    def check(v, op):
        if not isinstance(v, bool):
            raise OpTypeError(f"For '{op}', the type of '{what}' should be 'bool', but got type '{type(v).__name__}'.")
    return check


@op_entry("quantile_primitive", primitive="Quantile", functional=False,
          args=[Arg("input"), Arg("q", "tensor|number"),
                Arg("dim", "value", default=None, init=True, check=_check_int_or_none("dim")),
                Arg("keep_dims", "value", default=False, init=True, check=_check_bool("keep_dims")),
                Arg("ignore_nan", "value", default=False, init=True, check=_check_bool("ignore_nan"))])
def quantile_primitive(input, q, dim=None, keep_dims=False, ignore_nan=False):
    """ops.quantile (ops.nanquantile with ignore_nan) with the Primitive's checks: float32 / float64
    input, q of the input's dtype, 0-D or 1-D. No CPU kernel in the wheel."""
    op = "Quantile"
    if input.dtype not in _F32_64:
        raise OpTypeError(f"For primitive[{op}], the input argument[input] must be a type of {{Tensor[Float32], "
                          f"Tensor[Float64]}}, but got {_tensor_str(input)}.")
    if isinstance(q, TensorMethods):
        if q.dtype is not input.dtype:
            raise OpTypeError(f"For primitive[{op}], the input type must be same.")
        if q.ndim > 1:
            raise OpValueError(f"For '{op}', the input q must be a scalar or 1D tensor,but got dimension = {q.ndim}.")
    rank = max(input.ndim, 1)
    if dim is not None and not -rank <= dim < rank:
        raise OpValueError(f"For '{op}', the attr dim must be range of [{-rank},{rank - 1}]")
    fn = ops.nanquantile if ignore_nan else ops.quantile
    return fn(input, q, dim, keep_dims)


def _tensor_str(t) -> str:
    name = str(t.dtype)
    return f"Tensor[{name[:1].upper() + name[1:]}]"


# ---- LogSoftmaxExt ------------------------------------------------------------------------------------
@op_entry("log_softmax_ext_primitive", primitive="LogSoftmaxExt", functional=False,
          args=[Arg("input"), Arg("dim", "value", default=None), Arg("dtype", "value", default=None)])
def log_softmax_ext_primitive(input, dim=None, dtype=None):
    """log(softmax(input)) along dim, the input first cast to dtype when given. dim None: axis 0
    for a 0-D, 1-D or 3-D input, else 1 (the legacy rule mint.nn.functional.log_softmax keeps).
    No CPU kernel in the wheel."""
    rank = max(input.ndim, 1)
    if dim is None:
        dim = 0 if input.ndim in (0, 1, 3) else 1
    elif not _is_int(dim):
        raise OpTypeError(f"For 'LogSoftmaxExt', the type of 'dim' should be 'int', but got type "
                          f"'{type(dim).__name__}'.")
    if not -rank <= dim < rank:
        raise OpValueError(f"The dim value should be in range [{-rank},{rank - 1}], but got {dim}")
    x = input if dtype is None else F.cast(input, dtype)
    if x.ndim == 0:
        return F.reshape(ops.log_softmax(F.reshape(x, (1,)), 0), ())
    return ops.log_softmax(x, dim)


# ---- SpaceToBatch / BatchToSpace / BatchToSpaceNDV2 ---------------------------------------------------
def _pairs_check(op, what, noun, v):
    ok = isinstance(v, (tuple, list)) and len(v) == 2 and all(
        isinstance(p, (tuple, list)) and len(p) == 2 and all(_is_int(u) for u in p) for p in v)
    if not ok:
        raise OpTypeError(f"For '{op}', '{what}' must be a list or tuple of 2 pairs of ints, but got {v!r}.")
    for p in v:
        for u in p:
            if u < 0:
                raise OpValueError(f"For '{op}', the '{noun} element' must be int and must >= 0, but got '{u}' with "
                                   f"type 'int'.")
    return tuple(tuple(int(u) for u in p) for p in v)


def _block_size(op, v, sep):
    if not _is_int(v):
        raise OpTypeError(f"For '{op}', the type of 'block_size' should be 'int', but got type '{type(v).__name__}'.")
    if v < 2:
        raise OpValueError(f"For '{op}', the 'block_size' should be >= {sep}: 2, but got {v}.")
    return int(v)


@op_entry("space_to_batch_primitive", primitive="SpaceToBatch", functional=False,
          args=[Arg("input_x"), Arg("block_size", "value", init=True), Arg("paddings", "value", init=True)])
def space_to_batch_primitive(input_x, block_size, paddings):
    """SpaceToBatchND with the same block size on H and W of a 4-D input (the deprecated form).
    No CPU kernel in the wheel."""
    op = "SpaceToBatch"
    b = _block_size(op, block_size, "SpaceToBatch")
    p = _pairs_check(op, "paddings", "paddings", paddings)
    if input_x.ndim != 4:
        raise OpValueError(f"For primitive[{op}], the x rank must be equal to 4, but got {input_x.ndim}.")
    for i in range(2):
        padded = input_x.shape[i + 2] + p[i][0] + p[i][1]
        if padded % b:
            raise OpValueError(f"For {op}, the x_shape[{i + 2}] plus paddings must be divisible by 'block_size', but "
                               f"got padded value: {padded}, and block_size: {b}")
    return ops.space_to_batch_nd(input_x, b, p)


@op_entry("batch_to_space_primitive", primitive="BatchToSpace", functional=False,
          args=[Arg("input_x"), Arg("block_size", "value", init=True), Arg("crops", "value", init=True)])
def batch_to_space_primitive(input_x, block_size, crops):
    """BatchToSpaceND with the same block size on H and W of a 4-D input. No CPU kernel in the wheel."""
    op = "BatchToSpace"
    b = _block_size(op, block_size, "")
    c = _pairs_check(op, "crops", "crops", crops)
    if input_x.ndim != 4:
        raise OpValueError(f"For primitive[{op}], the x rank must be equal to 4, but got {input_x.ndim}.")
    n, ch, h, w = input_x.shape
    if n % (b * b):
        out = [n, ch, h * b - c[0][0] - c[0][1], w * b - c[1][0] - c[1][1]]
        raise OpValueError(f"For '{op}', the shape of output with index 0 must be divided exactly by square of "
                           f"'block_size': {b}, but got the shape of output: [const vector]"
                           f"{{{', '.join(map(str, out))}}} and square of 'block_size': {b * b}.")
    return ops.batch_to_space_nd(input_x, b, c)


@op_entry("batch_to_space_nd_v2_primitive", primitive="BatchToSpaceNDV2", functional=False,
          args=[Arg("input_x"), Arg("block_shape", "value"), Arg("crops", "value")])
def batch_to_space_nd_v2_primitive(input_x, block_shape, crops):
    """BatchToSpaceND with block_shape (M,) and crops (M, 2) given as Tensors (they set the output's
    shape: in graph code constants, or compiled per value). No CPU kernel in the wheel."""
    op = "BatchToSpaceNDV2"
    if input_x.dtype is mstype.bool_:
        raise OpTypeError(f"For primitive[{op}], the input argument[x] must be a numeric Tensor, but got "
                          f"Tensor[Bool].")
    for what, v in (("block_shape", block_shape), ("crops", crops)):
        if not isinstance(v, TensorMethods):          # the wheel: ValueError, not TypeError
            raise OpValueError(f"For primitive[{op}], the input argument[{what}] must be a tensor, but got "
                               f"{type(v).__name__}")
        if v.dtype not in (mstype.int32, mstype.int64):
            raise OpTypeError(f"For '{op}', '{what}' must be an int32 or int64 Tensor, but got {v.dtype}.")
    bs = np.asarray(shape_values(block_shape, "block_shape", op)).reshape(-1)
    cr = np.asarray(shape_values(crops, "crops", op))
    if cr.ndim != 2 or cr.shape != (bs.shape[0], 2):
        raise OpValueError(f"For '{op}', 'crops' must have shape ({bs.shape[0]}, 2), but got {list(cr.shape)}.")
    return ops.batch_to_space_nd(input_x, tuple(int(v) for v in bs), tuple(tuple(int(u) for u in p) for p in cr))


# ---- ScatterNonAliasingAdd ----------------------------------------------------------------------------
@op_entry("scatter_non_aliasing_add_primitive", primitive="ScatterNonAliasingAdd", functional=False,
          args=[Arg("input_x"), Arg("indices"), Arg("updates")])
def scatter_non_aliasing_add_primitive(input_x, indices, updates):
    """updates added into the Parameter input_x at the index tuples of indices (int32; the last axis
    indexes input_x's leading axes), as ScatterNdAdd; returns the Parameter. No CPU kernel in the wheel."""
    op = "ScatterNonAliasingAdd"
    if indices.dtype is not mstype.int32:
        raise OpTypeError(f"For primitive[{op}], the input argument[indices type] must be a type of "
                          f"{{Tensor[Int32]}}, but got {_tensor_str(indices)}.")
    if updates.dtype is not input_x.dtype:          # the wheel converts updates to the Parameter's dtype
        updates = F.cast(updates, input_x.dtype)
    k = indices.shape[-1] if indices.ndim else 0
    want = tuple(indices.shape[:-1]) + tuple(input_x.shape[k:])
    if indices.ndim == 0 or k > input_x.ndim or tuple(updates.shape) != want:
        fmt = lambda s: "(" + ", ".join(map(str, s)) + ")"          # noqa: E731
        raise OpValueError(f"For {op}, updates_shape = indices_shape[:-1] + x_shape[indices_shape[-1]:], but got "
                           f"x_shape: {fmt(input_x.shape)}, indices_shape: {fmt(indices.shape)}, updates_shape: "
                           f"{fmt(updates.shape)}.")
    return ops.scatter_nd_add(input_x, indices, updates)


# ---- AccumulateNV2 / accumulate_n ---------------------------------------------------------------------
def _accumulate(inputs):
    """The element-wise sum of a list or tuple of Tensors of one dtype and shape (ops.addn)."""
    op = "AccumulateNV2"
    if isinstance(inputs, TensorMethods):
        inputs = tuple(inputs[i] for i in range(inputs.shape[0])) if inputs.ndim else (inputs,)
    if not isinstance(inputs, (tuple, list)):
        raise OpTypeError(f"For '{op}', the input must be a list or tuple of Tensors, but got "
                          f"{type(inputs).__name__}.")
    if not inputs:
        raise OpValueError(f"For primitive[{op}], the concat element num must be greater than or equal to 1, but "
                           f"got 0.")
    for i, t in enumerate(inputs):
        if not isinstance(t, TensorMethods):
            raise OpTypeError(f"For '{op}', every input must be a Tensor, but input[{i}] is {type(t).__name__}.")
    first = inputs[0]
    for i, t in enumerate(inputs[1:], 1):
        if t.dtype is not first.dtype:
            raise OpTypeError(f"For primitive[{op}], the input type must be same.")
    fmt = lambda s: "(" + ", ".join(map(str, s)) + ")"              # noqa: E731
    for i, t in enumerate(inputs[1:], 1):
        if tuple(t.shape) != tuple(first.shape):
            raise OpValueError(f"For '{op}', shape of input[{i}] must be consistent with the shape of input[0], but "
                               f"got shape of input[{i}]: {fmt(t.shape)}, shape of input[0]: {fmt(first.shape)}.")
    if len(inputs) == 1:
        return first
    return ops.addn(tuple(inputs))


@op_entry("accumulate_n", args=[Arg("x", "value")])
def accumulate_n(x):
    """The element-wise sum of a list or tuple of Tensors (AccumulateNV2): one dtype and one shape."""
    return _accumulate(x)


@op_entry("accumulate_nv2_primitive", primitive="AccumulateNV2", functional=False, args=[Arg("inputs", "value")])
def accumulate_nv2_primitive(inputs):
    """ops.accumulate_n as a Primitive: called with the tuple of Tensors."""
    return _accumulate(inputs)
