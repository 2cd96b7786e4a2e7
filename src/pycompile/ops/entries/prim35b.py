"""MindSpore 2.10 names that were missing (the rest of prim35.py's batch): ResizeNearestNeighborV2,
MaxPool3DWithArgmax, NonMaxSuppressionV3, MultilabelMarginLoss / ops.multilabel_margin_loss,
Dilation2D, and the functional forms ops.conv3d_transpose, ops.erfinv_ and ops.scatter_nd_update.
Each is a decomposition into ops pycompile has, so PyNative and graph code run one definition.

ResizeNearestNeighborV2, MaxPool3DWithArgmax, conv3d_transpose and scatter_nd_update run in the
wheel and are recorded (tests/conformance/cases_prim35.py); NonMaxSuppressionV3,
MultilabelMarginLoss, Dilation2D and erfinv_ have no CPU kernel there, so they follow the
documentation and are checked against NumPy in tests/ops/test_prim35.py."""
from __future__ import annotations

import numpy as np

import pycompile.ops as ops
from pycompile.common import dtype as mstype
from pycompile.common.tensor import Tensor, TensorMethods
from pycompile.ops import functional as F
from pycompile.ops._table import OpTypeError, OpValueError
from pycompile.ops.entries.image_img33 import shape_values
from pycompile.ops.entry import Arg, op_entry

_FLOATS = frozenset({mstype.float16, mstype.float32, mstype.float64})


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def _wrap(a: np.ndarray):
    return Tensor._wrap(np.ascontiguousarray(a))


# ---- ResizeNearestNeighborV2 --------------------------------------------------------------------------
def _nearest_source(n_in: int, n_out: int, align_corners: bool, half_pixel: bool) -> np.ndarray:
    """The input row (or column) each output one reads, in the kernel's float32 arithmetic: align
    corners round(o (in - 1) / (out - 1)), half pixel floor((o + 0.5) in / out), else floor(o in / out);
    clamped to the input."""
    o = np.arange(n_out, dtype=np.float32)
    if align_corners:
        scale = np.float32(n_in - 1) / np.float32(n_out - 1) if n_out > 1 else np.float32(0)
        src = np.floor(o * scale + np.float32(0.5))            # round half away from zero (values >= 0)
    elif half_pixel:
        src = np.floor((o + np.float32(0.5)) * (np.float32(n_in) / np.float32(n_out)))
    else:
        src = np.floor(o * (np.float32(n_in) / np.float32(n_out)))
    return np.minimum(src, n_in - 1).astype(np.int64)


def _check_flag(what):
    def check(v, op):
        if not isinstance(v, bool):
            raise OpTypeError(f"For '{op}', the type of '{what}' should be 'bool', but got type '{type(v).__name__}'.")
    return check


@op_entry("resize_nearest_neighbor_v2_primitive", primitive="ResizeNearestNeighborV2", functional=False,
          args=[Arg("image"), Arg("size", dtypes=frozenset({mstype.int32, mstype.int64})),
                Arg("align_corners", "value", default=False, init=True, check=_check_flag("align_corners")),
                Arg("half_pixel_centers", "value", default=False, init=True,
                    check=_check_flag("half_pixel_centers"))])
def resize_nearest_neighbor_v2_primitive(image, size, align_corners=False, half_pixel_centers=False):
    """(N, C, H, W) resized to size (new_h, new_w) (a Tensor: it sets the output's shape) by the
    nearest input pixel; a gather of the source rows, then of the source columns."""
    op = "ResizeNearestNeighborV2"
    if align_corners and half_pixel_centers:
        raise OpValueError(f"For {op}, the half_pixel_centers must be false when align_corners is true, but "
                           f"half_pixel_centers got True.")
    if image.ndim != 4:
        raise OpValueError(f"For primitive[{op}], the image rank must be equal to 4, but got {image.ndim}.")
    if size.ndim != 1:
        raise OpValueError(f"For primitive[{op}], the size's rank must be equal to 1, but got {size.ndim}.")
    if size.shape[0] != 2:
        raise OpValueError(f"For primitive[{op}], the number of size must be equal to 2, but got {size.shape[0]}.")
    hw = [int(v) for v in np.asarray(shape_values(size, "size", op)).reshape(-1)]
    for v in hw:
        if v <= 0:
            raise OpValueError(f"For primitive[{op}], the size value must be greater than 0, but got {v}.")
    rows = _nearest_source(image.shape[2], hw[0], align_corners, half_pixel_centers)
    cols = _nearest_source(image.shape[3], hw[1], align_corners, half_pixel_centers)
    out = F.gather(image, _wrap(rows.astype(np.int32)), 2)
    return F.gather(out, _wrap(cols.astype(np.int32)), 3)


# ---- MaxPool3DWithArgmax ------------------------------------------------------------------------------
def _triple(op, what, v):
    if _is_int(v) and v > 0 or (what == "pads" and _is_int(v) and v >= 0):
        return (int(v),) * 3
    if isinstance(v, (tuple, list)) and len(v) == 3 and all(_is_int(u) for u in v):
        return tuple(int(u) for u in v)
    if what == "pads":
        raise OpValueError(f"For '{op}', the parameter 'pads' must be an positive integer or a tuple of three "
                           f"positive integer, but got {v}")
    raise OpValueError(f"For '{op}', the parameter '{what}' must be an positive integer or a tuple of three positive "
                       f"integer, but got {v}")


def _check_format(v, op):
    if v != "NCDHW":
        raise OpValueError(f"For '{op}', the 'data_format' must be str and must be in '['NCDHW']', but got '{v}'.")


def _check_argmax_type(v, op):
    if v not in (mstype.int32, mstype.int64):
        raise OpTypeError(f"For '{op}', the 'argmax_type' should be one of [mindspore.int32, mindspore.int64], but got "
                          f"'mindspore.{v}'.")


@op_entry("max_pool3d_with_argmax_primitive", primitive="MaxPool3DWithArgmax", functional=False,
          args=[Arg("x"), Arg("ksize", "value", init=True), Arg("strides", "value", init=True),
                Arg("pads", "value", init=True), Arg("dilation", "value", default=(1, 1, 1), init=True),
                Arg("ceil_mode", "value", default=False, init=True),
                Arg("data_format", "value", default="NCDHW", init=True, check=_check_format),
                Arg("argmax_type", "value", default=mstype.int64, init=True, check=_check_argmax_type)])
def max_pool3d_with_argmax_primitive(x, ksize, strides, pads, dilation=(1, 1, 1), ceil_mode=False,
                                     data_format="NCDHW", argmax_type=mstype.int64):
    """(maxima, argmax) of each window of an (N, C, D, H, W) input: ops.max_pool3d with indices (the
    flat position in the unpadded D * H * W volume), as argmax_type; pads at most half the window."""
    op = "MaxPool3DWithArgmax"
    k, s = _triple(op, "ksize", ksize), _triple(op, "strides", strides)
    p, d = _triple(op, "pads", pads), _triple(op, "dilation", dilation)
    if x.ndim != 5:
        raise OpValueError(f"For primitive[{op}], the input x rank must be equal to 5, but got {x.ndim}.")
    if any(pp * 2 > kk for pp, kk in zip(p, k)):
        raise OpValueError(f"For Maxpool3DWithArgmax, pads should be less equal to the half of ksize, but got ksize "
                           f"is[[const vector]{{{', '.join(map(str, k))}}}], pads is[[const vector]"
                           f"{{{', '.join(map(str, p))}}}].")
    # the pooling kernel takes float32 / float64: other dtypes are pooled exactly in a wider float
    wide = x.dtype if x.dtype in (mstype.float32, mstype.float64) else \
        mstype.float32 if x.dtype is mstype.float16 else mstype.float64
    out, idx = ops.max_pool3d(x if wide is x.dtype else F.cast(x, wide), k, s, p, d, bool(ceil_mode), True)
    return (out if wide is x.dtype else F.cast(out, x.dtype)), F.cast(idx, argmax_type)


# ---- NonMaxSuppressionV3 ------------------------------------------------------------------------------
_NMS_F = frozenset({mstype.float16, mstype.float32})


def _iou(a: np.ndarray, b: np.ndarray) -> np.float32:
    """Intersection over union of two boxes (y1, x1, y2, x2), any two opposite corners; 0 for an
    empty box."""
    ya0, yb0 = min(a[0], a[2]), min(b[0], b[2])
    xa0, xb0 = min(a[1], a[3]), min(b[1], b[3])
    ya1, yb1 = max(a[0], a[2]), max(b[0], b[2])
    xa1, xb1 = max(a[1], a[3]), max(b[1], b[3])
    area_a, area_b = (ya1 - ya0) * (xa1 - xa0), (yb1 - yb0) * (xb1 - xb0)
    if area_a <= 0 or area_b <= 0:
        return np.float32(0)
    inter = max(min(ya1, yb1) - max(ya0, yb0), 0) * max(min(xa1, xb1) - max(xa0, xb0), 0)
    union = area_a + area_b - inter
    return np.float32(0) if union == 0 else np.float32(inter / union)


def _nms_scalar(op, what, v, kinds):
    if isinstance(v, TensorMethods):
        if v.dtype not in kinds:
            names = ", ".join(f"Tensor[{str(k)[:1].upper() + str(k)[1:]}]" for k in sorted(kinds, key=str))
            got = str(v.dtype)
            raise OpTypeError(f"For primitive[{op}], the input argument[{what}_type] must be a type of {{{names}}}, "
                              f"but got Tensor[{got[:1].upper() + got[1:]}].")
        if v.ndim != 0:
            raise OpValueError(f"For primitive[{op}], the {what} rank must be equal to 0, but got {v.ndim}.")
        return shape_values(v, what, op)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise OpTypeError(f"For '{op}', '{what}' must be a Tensor or a number, but got {type(v).__name__}.")
    return v


@op_entry("non_max_suppression_v3_primitive", primitive="NonMaxSuppressionV3", functional=False,
          args=[Arg("boxes", dtypes=_NMS_F), Arg("scores", dtypes=_NMS_F), Arg("max_output_size", "value"),
                Arg("iou_threshold", "value"), Arg("score_threshold", "value")])
def non_max_suppression_v3_primitive(boxes, scores, max_output_size, iou_threshold, score_threshold):
    """The int32 indices of the boxes kept greedily by descending score (ties: the lower index first):
    a box scoring above score_threshold is kept unless its IOU with a kept box is at least
    iou_threshold; at most max_output_size (a negative one counts as 0). The output's length is
    data-dependent: graph code needs every input known when it is compiled. No CPU kernel in the wheel."""
    op = "NonMaxSuppressionV3"
    if boxes.dtype is not scores.dtype:
        raise OpTypeError(f"For primitive[{op}], the input type must be same.")
    if boxes.ndim != 2:
        raise OpValueError(f"For primitive[{op}], the boxes rank must be equal to 2, but got {boxes.ndim}.")
    if boxes.shape[1] != 4:
        raise OpValueError(f"For primitive[{op}], the boxes second dimension must be equal to 4, but got "
                           f"{boxes.shape[1]}.")
    if scores.ndim != 1:
        raise OpValueError(f"For primitive[{op}], the scores rank must be equal to 1, but got {scores.ndim}.")
    if scores.shape[0] != boxes.shape[0]:
        raise OpValueError(f"For primitive[{op}], the scores length must be equal to {boxes.shape[0]}, but got "
                           f"{scores.shape[0]}.")
    limit = int(_nms_scalar(op, "max_output_size", max_output_size, frozenset({mstype.int32, mstype.int64})))
    iou_t = np.float32(_nms_scalar(op, "iou_threshold", iou_threshold, _NMS_F))
    score_t = np.float32(_nms_scalar(op, "score_threshold", score_threshold, _NMS_F))
    if not 0 <= iou_t <= 1:
        raise OpValueError(f"For '{op}', iou_threshold must be in [0, 1], but got {iou_t}.")
    bx = np.asarray(shape_values(boxes, "boxes", op), np.float32)
    sc = np.asarray(shape_values(scores, "scores", op), np.float32)
    kept: list = []
    for box in np.argsort(-sc, kind="stable"):
        if len(kept) >= max(limit, 0):
            break
        if sc[box] > score_t and all(_iou(bx[box], bx[k]) < iou_t for k in kept):
            kept.append(int(box))
    return _wrap(np.asarray(kept, np.int32))


# ---- MultilabelMarginLoss -----------------------------------------------------------------------------
def _check_reduction(v, op):
    if v not in ("none", "sum", "mean"):
        raise OpValueError(f"For 'MultilabelMarginLoss', the 'reduction' must be str and must be in "
                           f"'['none', 'sum', 'mean']', but got '{v}'.")


def _multilabel_margin(x, target, reduction):
    """(loss, is_target): for each sample the labels are target's entries before the first -1;
    loss = sum over labels j and non-labels i of max(0, 1 - (x[j] - x[i])) / C."""
    op = "MultilabelMarginLoss"
    if x.dtype not in _FLOATS:
        got = str(x.dtype)
        raise OpTypeError(f"For primitive[{op}], the input argument[x] must be a type of {{Tensor[Float16], "
                          f"Tensor[Float32], Tensor[Float64]}}, but got Tensor[{got[:1].upper() + got[1:]}].")
    if target.dtype is not mstype.int32:
        got = str(target.dtype)
        raise OpTypeError(f"For primitive[{op}], the input argument[target] must be a type of {{Tensor[Int32]}}, but "
                          f"got Tensor[{got[:1].upper() + got[1:]}].")
    if x.ndim not in (1, 2) or target.ndim not in (1, 2):
        raise OpValueError(f"For {op}, the rank of input x and target should be 1 or 2, while rank of x is : {x.ndim}, "
                           f"rank of target is : {target.ndim}.")
    if tuple(x.shape) != tuple(target.shape):
        fmt = lambda s: "[const vector]{" + ", ".join(map(str, s)) + "}"        # noqa: E731
        raise OpValueError(f"For {op}, x_shape and target_shape should be the same, while x_shape is : "
                           f"{fmt(x.shape)}, target_shape is : {fmt(target.shape)}.")
    one = x.ndim == 1
    xs, ts = (F.expand_dims(x, 0), F.expand_dims(target, 0)) if one else (x, target)
    c = xs.shape[1]
    valid = ops.cumprod(F.cast(F.not_equal(ts, -1), mstype.int32), 1)                   # (N, P)
    onehot = F.cast(F.equal(F.expand_dims(ts, -1), _wrap(np.arange(c, dtype=np.int32))), x.dtype)  # (N, P, C)
    onehot = onehot * F.cast(F.expand_dims(valid, -1), x.dtype)
    is_target = F.cast(F.greater(ops.sum(onehot, 1), 0), x.dtype)                          # (N, C)
    x_label = ops.sum(onehot * F.expand_dims(xs, 1), -1)                                   # (N, P)
    margins = F.relu(1.0 - F.expand_dims(x_label, -1) + F.expand_dims(xs, 1))              # (N, P, C)
    margins = margins * F.expand_dims(1.0 - is_target, 1) * F.cast(F.expand_dims(valid, -1), x.dtype)
    loss = ops.sum(ops.sum(margins, -1), -1) / float(c)                                     # (N,)
    if reduction == "mean":
        loss = ops.mean(loss)
    elif reduction == "sum":
        loss = ops.sum(loss)
    elif one:
        loss = F.reshape(loss, ())
    return loss, (F.reshape(is_target, (c,)) if one else is_target)


@op_entry("multilabel_margin_loss_primitive", primitive="MultilabelMarginLoss", functional=False, amp="full",
          args=[Arg("x"), Arg("target"), Arg("reduction", "value", default="mean", init=True, check=_check_reduction)])
def multilabel_margin_loss_primitive(x, target, reduction="mean"):
    """(loss, is_target) of the multi-label hinge loss (target: int32 labels, -1 ends them); is_target
    marks the labels with 1 in x's dtype. No CPU kernel in the wheel."""
    return _multilabel_margin(x, target, reduction)


@op_entry("multilabel_margin_loss", prim_name="MultilabelMarginLoss", amp="full",
          args=[Arg("input"), Arg("target"), Arg("reduction", "value", default="mean", check=_check_reduction)])
def multilabel_margin_loss(input, target, reduction="mean"):
    """The multi-label hinge loss of MultilabelMarginLoss (without is_target)."""
    return _multilabel_margin(input, target, reduction)[0]


# ---- Dilation2D ---------------------------------------------------------------------------------------
def _dil_attr(what, v):
    """Dilation2D's stride / dilation: a positive int, (h, w) or (1, 1, h, w)."""
    if not (_is_int(v) or isinstance(v, tuple)):
        raise OpTypeError(f"For 'Dilation2D', the type of '{what}' should be one of '['int', 'tuple']', but got type "
                          f"'{type(v).__name__}'.")
    vals = (v, v) if _is_int(v) else tuple(v[2:]) if len(v) == 4 and v[:2] == (1, 1) else v
    if len(vals) != 2 or not all(_is_int(u) and u > 0 for u in vals):
        raise OpValueError(f"For 'Dilation2D' attr '{what}' should be an positive int number or a tuple of two or four "
                           f"positive int numbers, but got {v}")
    return (int(vals[0]), int(vals[1]))


def _check_dil(what):
    def check(v, op):
        _dil_attr(what, v)
    return check


def _check_dil_pad(v, op):
    if v not in ("VALID", "SAME", "valid", "same"):
        raise OpValueError(f"For 'Dilation2D', the 'pad_mode' must be str and must be in '['VALID', 'SAME', 'valid', "
                           f"'same']', but got '{v}'.")


def _check_dil_format(v, op):
    if v != "NCHW":
        raise OpValueError(f"For 'Dilation2D', {v} format is not supported at present.")


@op_entry("dilation2d_primitive", primitive="Dilation2D", functional=False,
          args=[Arg("x", dtypes=_FLOATS), Arg("filter", dtypes=_FLOATS),
                Arg("stride", "value", init=True, check=_check_dil("stride")),
                Arg("dilation", "value", init=True, check=_check_dil("dilation")),
                Arg("pad_mode", "value", default="SAME", init=True, check=_check_dil_pad),
                Arg("data_format", "value", default="NCHW", init=True, check=_check_dil_format)])
def dilation2d_primitive(x, filter, stride, dilation, pad_mode="SAME", data_format="NCHW"):
    """Grayscale dilation: out(n, c, h, w) = max over (m, k) of x(n, c, s0 h + d0 m, s1 w + d1 k) +
    filter(c, m, k), filter (C, kh, kw). 'SAME' pads so out = ceil(in / stride), the odd pixel after,
    and padded positions take no part in the max (TensorFlow's dilation2d). The 2.10 wheel's call
    fails inside ('Cast failed' on pad_mode); this is the documented behaviour."""
    op = "Dilation2D"
    s, d = _dil_attr("stride", stride), _dil_attr("dilation", dilation)
    mode = pad_mode.upper()
    if x.ndim != 4:
        raise OpValueError(f"For primitive[{op}], the x shape size must be equal to 4, but got {x.ndim}.")
    if filter.ndim != 3:
        raise OpValueError(f"For primitive[{op}], the filter shape size must be equal to 3, but got {filter.ndim}.")
    if filter.shape[0] != x.shape[1]:
        raise OpValueError(f"For '{op}', the channels of 'filter' ({filter.shape[0]}) must be those of 'x' "
                           f"({x.shape[1]}).")
    if filter.dtype is not x.dtype:
        raise OpTypeError(f"For '{op}', 'filter' must have the dtype of 'x', but got {filter.dtype} and {x.dtype}.")
    n, c, h, w = x.shape
    kh, kw = filter.shape[1], filter.shape[2]
    span = ((kh - 1) * d[0] + 1, (kw - 1) * d[1] + 1)
    if mode == "VALID":
        out = [(size - sp) // st + 1 for size, sp, st in zip((h, w), span, s)]
        pads = (0, 0, 0, 0)
    else:
        out = [-(-size // st) for size, st in zip((h, w), s)]
        need = [max((o - 1) * st + sp - size, 0) for o, st, sp, size in zip(out, s, span, (h, w))]
        pads = (need[1] // 2, need[1] - need[1] // 2, need[0] // 2, need[0] - need[0] // 2)
    if out[0] <= 0 or out[1] <= 0:
        raise OpValueError(f"For '{op}', the output's height and width must be positive, but got {out}.")
    low = float(mstype.finfo(np.dtype(x.dtype.np)).min)
    xp = ops.pad(x, pads, value=low) if any(pads) else x
    best = None
    for i in range(kh):
        for j in range(kw):
            r0, c0 = i * d[0], j * d[1]
            part = xp[:, :, r0:r0 + (out[0] - 1) * s[0] + 1:s[0], c0:c0 + (out[1] - 1) * s[1] + 1:s[1]]
            term = part + F.reshape(filter[:, i, j], (1, c, 1, 1))
            best = term if best is None else F.maximum(best, term)
    return best


# ---- functional forms ---------------------------------------------------------------------------------
@op_entry("conv3d_transpose", prim_name="Conv3DTranspose",
          args=[Arg("inputs"), Arg("weight"), Arg("pad_mode", "value", default="valid"),
                Arg("padding", "value", default=0), Arg("stride", "value", default=1),
                Arg("dilation", "value", default=1), Arg("group", "value", default=1),
                Arg("output_padding", "value", default=0)])
def conv3d_transpose(inputs, weight, pad_mode="valid", padding=0, stride=1, dilation=1, group=1, output_padding=0):
    """The 3-D transposed convolution of (N, C, D, H, W) by weight (C, C_out, kd, kh, kw): the
    Conv3DTranspose Primitive with its channels and kernel size read from the weight."""
    if inputs.ndim != 5:
        raise OpValueError("the rank of inputs tensor should be 5.")
    if weight.ndim != 5:
        raise OpValueError("the rank of weight tensor should be 5.")
    depth = dilation if _is_int(dilation) else dilation[-3] if isinstance(dilation, (tuple, list)) and \
        len(dilation) in (3, 5) else 1
    if depth != 1:          # the Primitive's check (the CPU kernel dilates only H and W)
        raise OpValueError(f"For 'Conv3DTranspose', the depth of parameter 'dilation' must be 1, but got {depth}.")
    prim = ops.Conv3DTranspose(inputs.shape[1], weight.shape[1], tuple(weight.shape[2:]), 1, pad_mode, padding,
                               stride, dilation, group, output_padding)
    return prim(inputs, weight)


@op_entry("erfinv_", args=[Arg("input")])
def erfinv_(input):
    """input = erfinv(input), written into it (Tensor.erfinv_); returns it."""
    return input.erfinv_()


@op_entry("scatter_nd_update", prim_name="ScatterNdUpdate",
          args=[Arg("input_x"), Arg("indices", dtypes=frozenset({mstype.int32, mstype.int64})), Arg("updates"),
                Arg("use_locking", "value", default=True)])
def scatter_nd_update(input_x, indices, updates, use_locking=True):
    """input_x (a Parameter) with the rows addressed by the index tuples of indices replaced by
    updates, written into it; returns it (ops.ScatterNdUpdate)."""
    return ops.ScatterNdUpdate(use_locking)(input_x, indices, updates)
