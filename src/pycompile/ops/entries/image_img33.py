"""Image and resize Primitives of MindSpore's CPU suite (issue 33, img33), each a decomposition:

* RGBToHSV (`ops.operations.image_ops`): TensorFlow's formula, in the images' dtype;
* ResizeLinear1D (its gradient follows from the decomposition) and _grad_ops.ResizeBilinearGrad:
  the per-axis resampling tables of `ops.interpolate` (ops/defs/resample.py) and their transpose;
* CropAndResize / ops.crop_and_resize: each box's sample grid gathered from its image (GatherNd),
  bilinear or nearest, the extrapolation value outside the image;
* _inner_ops.ConvertToDynamic: MindSpore's marker that makes a shape dynamic; shapes are exact
  here at every call, so it is the identity.

Values recorded from the wheel in tests/conformance/cases_img33.py.
"""
import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import Symbolic
from pycompile.common.tensor import TensorMethods
from pycompile.ops import functional as F
from pycompile.ops import function_image as FI
from pycompile.ops._table import OpRuntimeError, OpTypeError, OpValueError, apply
from pycompile.ops.defs import resample as RS
from pycompile.ops.entry import FLOAT, REAL, Arg, op_entry

_F16_32_64 = FLOAT


def _const(v):
    from pycompile.common.tensor import Tensor
    return Tensor._wrap(np.array(v, order="C"))


def shape_values(t, what, op):
    """The values of a tensor argument that sets an output's shape: known in PyNative; in graph
    code a constant, or a Tensor argument of the compiled call, which is then compiled once per
    value of it (MindSpore's value-depend inputs; pycompile.api: errors.InputValueNeeded)."""
    if isinstance(t, TensorMethods):
        inner = t
        while isinstance(inner, Symbolic) and hasattr(inner, "primal"):     # autodiff / vmap wrappers
            inner = inner.primal
        ask = getattr(inner, "value_for_shape", None)
        known = ask(f"the shape of {op}'s output") if ask is not None else None
        if known is not None:
            return known
        if isinstance(inner, Symbolic) or not hasattr(inner, "asnumpy"):
            raise OpValueError(f"For '{op}', '{what}' sets the output's shape, so it must be known when the graph is "
                               f"compiled (a Python value or a constant Tensor).")
        return np.asarray(inner.asnumpy())
    return np.asarray(t)


def _rank(op, x, n, what="x"):
    if x.ndim != n:
        raise OpValueError(f"For '{op}', the dimension of '{what}' must be {n}, but got {x.ndim}.")


# ---- RGBToHSV ---------------------------------------------------------------------------------------
@op_entry("rgb_to_hsv_img33", primitive="RGBToHSV", functional=False,
          args=[Arg("images", dtypes=_F16_32_64)])
def rgb_to_hsv(images):
    """(h, s, v) of the last axis (r, g, b): v the largest, s = range / v (0 where v is 0), h from
    the largest channel in sixths of a turn (0 for grey), wrapped into [0, 1)."""
    op = "RGBToHSV"
    if images.ndim < 1 or tuple(images.shape)[-1] != 3:
        raise OpValueError(f"For '{op}', the last dimension of input tensor must be size 3, but got "
                           f"{tuple(images.shape)[-1] if images.ndim else 0}.")
    dt = images.dtype
    r, g, b = (F.getitem(images, (Ellipsis, slice(i, i + 1))) for i in range(3))
    v = F.maximum(F.maximum(r, g), b)
    rng = v - F.minimum(F.minimum(r, g), b)
    zero = _const(np.array(0, dt.np))
    s = F.select(v > zero, rng / F.select(v > zero, v, F.ones_like(v)), F.zeros_like(v))
    norm = _const(np.array(1, dt.np)) / (_const(np.array(6, dt.np)) * rng)
    h = F.select(F.equal(r, v), norm * (g - b),
                 F.select(F.equal(g, v), norm * (b - r) + _const(np.array(2.0 / 6.0, dt.np)),
                          norm * (r - g) + _const(np.array(4.0 / 6.0, dt.np))))
    h = F.select(rng > zero, h, F.zeros_like(h))
    h = F.select(h < zero, h + _const(np.array(1, dt.np)), h)
    return F.concat((h, s, v), -1)


# ---- ResizeLinear1D, ResizeBilinearGrad ---------------------------------------------------------------
# the names MindSpore 2.10's enum takes; its CPU kernel computes align_corners and half_pixel,
# 'nearest' as align_corners, and refuses 'asymmetric' when called (recorded: cases_img33.py)
_LINEAR_MODES = ("align_corners", "half_pixel", "asymmetric", "nearest")


def _check_linear_mode(v, op_name):
    if not isinstance(v, str):
        raise OpTypeError(f"For '{op_name}', the input 'coordinate_transformation_mode' should be a str, but got "
                          f"{type(v)}.")
    if v not in _LINEAR_MODES:
        raise OpValueError(f"Failed to convert the value \"{v}\" of input 'coordinate_transformation_mode' of "
                           f"'{op_name}' to enum.")


@op_entry("resize_linear_1d_img33", primitive="ResizeLinear1D", functional=False,
          args=[Arg("x", dtypes=_F16_32_64), Arg("size", "value"),
                Arg("coordinate_transformation_mode", "value", default="align_corners", init=True,
                    check=_check_linear_mode)])
def resize_linear_1d(x, size, coordinate_transformation_mode="align_corners"):
    """x (batch, channel, width) resampled linearly to width size[0]."""
    op = "ResizeLinear1D"
    _rank(op, x, 3)
    sizes = shape_values(size, "size", op).reshape(-1)
    if sizes.shape != (1,):
        raise OpValueError(f"For '{op}', the shape of 'size' must be (1,), but got {tuple(sizes.shape)}.")
    new_w = int(sizes[0])
    if new_w <= 0:
        raise OpValueError(f"For '{op}', the value of 'size' must be positive, but got {new_w}.")
    mode = coordinate_transformation_mode
    if mode == "asymmetric":
        raise OpRuntimeError(f"For '{op}', coordinate_transformation_mode not support now.")
    return FI.resize(x, (new_w,), "linear", mode != "half_pixel", mode == "half_pixel")


def _check_bool(what):
    def check(v, op_name):
        if not isinstance(v, bool):
            raise OpTypeError(f"For '{op_name}', the type of '{what}' should be bool, but got {type(v).__name__}.")
    return check


@op_entry("resize_bilinear_grad_img33", primitive="ResizeBilinearGrad", functional=False,
          args=[Arg("grads", dtypes=_F16_32_64), Arg("original_image", dtypes=_F16_32_64),
                Arg("align_corners", "value", default=False, init=True, check=_check_bool("align_corners")),
                Arg("half_pixel_centers", "value", default=False, init=True,
                    check=_check_bool("half_pixel_centers"))])
def resize_bilinear_grad(grads, original_image, align_corners=False, half_pixel_centers=False):
    """The gradient of ResizeBilinearV2 (original_image's (H, W) -> grads' (H, W)) with respect to its
    input: each axis' resampling transposed, in original_image's shape and dtype."""
    op = "ResizeBilinearGrad"
    if align_corners and half_pixel_centers:
        raise OpValueError(f"For '{op}', 'half_pixel_centers' can not be True when 'align_corners' is True")
    _rank(op, grads, 4, "grads")
    _rank(op, original_image, 4, "original_image")
    gs, xs = tuple(grads.shape), tuple(original_image.shape)
    if gs[:2] != xs[:2]:
        raise OpValueError(f"For '{op}', the batch and channel of 'grads' {list(gs[:2])} must be those of "
                           f"'original_image' {list(xs[:2])}.")
    out = grads
    for axis in (2, 3):
        n_in, n_out = xs[axis], gs[axis]
        index, weight = RS.linear_table(n_in, n_out, align_corners, half_pixel_centers)
        out = apply(RS.AxisResampleGrad, [out], {"axis": axis, "index": index, "weight": weight, "size": n_in})
    return F.cast(out, original_image.dtype)


# ---- CropAndResize -------------------------------------------------------------------------------------
def _check_method(v, op_name):
    if not isinstance(v, str):
        raise OpTypeError(f"For '{op_name}', the type of 'method' should be str, but got {type(v).__name__}.")
    if v not in ("bilinear", "nearest", "bilinear_v2"):
        raise OpValueError(f"For '{op_name}', the 'method' should be 'bilinear', 'nearest' or 'bilinear_v2', "
                           f"but got {v}.")


def _check_extrapolation(v, op_name):
    if not isinstance(v, float):
        raise OpTypeError(f"For '{op_name}', the type of 'extrapolation_value' should be float, but got "
                          f"{type(v).__name__}.")


def _check_crop_size(v, op_name):
    if not isinstance(v, tuple) or len(v) != 2:
        raise OpTypeError(f"For '{op_name}', the 'crop_size' must be a tuple of two int, but got {v}.")
    for d in v:
        if not isinstance(d, int) or isinstance(d, bool) or d <= 0:
            raise OpValueError(f"For '{op_name}', the 'crop_size' must be a tuple of two positive int, but got {v}.")


def _coords(lo, hi, n_in: int, n_out: int):
    """(N, n_out) float32 sample positions of each box along one axis (TensorFlow's CropAndResize)."""
    f32 = mstype.float32
    span = _const(np.float32(n_in - 1))
    if n_out > 1:
        scale = (hi - lo) * span / _const(np.float32(n_out - 1))
        k = _const(np.arange(n_out, dtype=np.float32))
        return F.expand_dims(lo * span, 1) + k * F.expand_dims(scale, 1)
    return F.expand_dims(_const(np.float32(0.5)) * (lo + hi) * span, 1) + F.zeros((1, 1), f32)


@op_entry("crop_and_resize", primitive="CropAndResize",
          args=[Arg("image", dtypes=REAL), Arg("boxes", dtypes=frozenset({mstype.float32})),
                Arg("box_indices", dtypes=frozenset({mstype.int32})),
                Arg("crop_size", "value", check=_check_crop_size),
                Arg("method", "value", default="bilinear", init=True, check=_check_method),
                Arg("extrapolation_value", "value", default=0.0, init=True, check=_check_extrapolation)])
def crop_and_resize(image, boxes, box_indices, crop_size, method="bilinear", extrapolation_value=0.0):
    """image (B, H, W, C); boxes (N, 4) as normalized (y1, x1, y2, x2); box_indices (N,) the image of
    each box. Each box sampled on a crop_size grid (its corners on the box's corners), bilinear or
    nearest (rounded half away from zero); a sample outside the image takes extrapolation_value.
    Returns float32 (N, crop_h, crop_w, C)."""
    op = "CropAndResize"
    _rank(op, image, 4, "image")
    _rank(op, boxes, 2, "boxes")
    _rank(op, box_indices, 1, "box_index")
    n, (_, h, w, c) = tuple(boxes.shape)[0], tuple(image.shape)
    if tuple(boxes.shape)[1] != 4 or tuple(box_indices.shape)[0] != n:
        raise OpValueError(f"For '{op}', 'boxes' must be (N, 4) and 'box_index' (N,), but got "
                           f"{list(boxes.shape)} and {list(box_indices.shape)}.")
    ch, cw = crop_size
    f32 = mstype.float32
    col = [F.reshape(F.getitem(boxes, (slice(None), slice(i, i + 1))), (n,)) for i in range(4)]
    ys = _coords(col[0], col[2], h, ch)                     # (N, ch)
    xs = _coords(col[1], col[3], w, cw)                     # (N, cw)
    inside = F.logical_and(F.expand_dims(F.logical_and(ys >= 0.0, ys <= float(h - 1)), 2),
                           F.expand_dims(F.logical_and(xs >= 0.0, xs <= float(w - 1)), 1))   # (N, ch, cw)
    img = F.cast(image, f32)
    bidx = F.broadcast_to(F.reshape(box_indices, (n, 1, 1, 1)), (n, ch, cw, 1))

    def pick(yi, xi):
        """image[box's image, yi, xi, :] for index grids (N, ch) / (N, cw) (clipped into the image)."""
        yi = F.cast(F.clamp(yi, 0.0, float(h - 1)), mstype.int32)
        xi = F.cast(F.clamp(xi, 0.0, float(w - 1)), mstype.int32)
        grid = F.concat((bidx, F.broadcast_to(F.reshape(yi, (n, ch, 1, 1)), (n, ch, cw, 1)),
                         F.broadcast_to(F.reshape(xi, (n, 1, cw, 1)), (n, ch, cw, 1))), -1)
        return F.gather_nd(img, grid)                       # (N, ch, cw, C)

    if method == "nearest":
        def rnd(v):
            return F.select(v < 0.0, F.neg(F.floor(F.neg(v) + 0.5)), F.floor(v + 0.5))
        out = pick(rnd(ys), rnd(xs))
    else:
        top, left = F.floor(ys), F.floor(xs)
        bottom, right = F.ceil(ys), F.ceil(xs)
        ylerp = F.reshape(ys - top, (n, ch, 1, 1))
        xlerp = F.reshape(xs - left, (n, 1, cw, 1))
        tl, tr, bl, br = pick(top, left), pick(top, right), pick(bottom, left), pick(bottom, right)
        t = tl + (tr - tl) * xlerp
        b = bl + (br - bl) * xlerp
        out = t + (b - t) * ylerp
    fill = _const(np.full((1, 1, 1, 1), extrapolation_value, np.float32))
    return F.select(F.broadcast_to(F.expand_dims(inside, 3), (n, ch, cw, c)), out, F.broadcast_to(fill, (n, ch, cw, c)))


# ---- ConcatOffset --------------------------------------------------------------------------------------
def _check_int(what):
    def check(v, op_name):
        if not isinstance(v, int) or isinstance(v, bool):
            raise OpTypeError(f"For '{op_name}', the '{what}' must be int, but got {type(v).__name__}.")
    return check


@op_entry("concat_offset_img33", primitive="ConcatOffset", functional=False,
          args=[Arg("x", "value"), Arg("N", "value", default=2, init=True, check=_check_int("N")),
                Arg("axis", "value", default=0, init=True, check=_check_int("axis"))])
def concat_offset(x, N=2, axis=0):
    """Where each of the tensors `x` starts in their concatenation along `axis`: int64 (len(x), rank),
    zeros but for the running sum of the sizes along `axis`."""
    op = "ConcatOffset"
    if not isinstance(x, (tuple, list)) or not x:
        raise OpTypeError(f"For '{op}', the input must be a tuple of tensors, but got {type(x).__name__}.")
    shapes = [tuple(F._tensor_type(op, t, "x").shape) for t in x]
    rank = len(shapes[0])
    if any(len(s) != rank for s in shapes) or not -rank <= axis < rank:
        raise OpValueError(f"For '{op}', the tensors must have one rank and 'axis' must be in [{-rank}, {rank}), but "
                           f"got shapes {shapes} and axis {axis}.")
    axis %= rank
    out = np.zeros((len(shapes), rank), np.int64)
    out[:, axis] = np.cumsum([0] + [s[axis] for s in shapes[:-1]])
    result = _const(out)
    for t in x:                 # keeps the inputs' own run-time checks (a run-time length reshaped)
        result = F.depend(result, t)
    return result


# ---- ConvertToDynamic -----------------------------------------------------------------------------------
@op_entry("convert_to_dynamic_img33", primitive="ConvertToDynamic", functional=False,
          args=[Arg("input"), Arg("is_dynamic_rank", "value", default=False, init=True,
                                  check=_check_bool("is_dynamic_rank"))])
def convert_to_dynamic(input, is_dynamic_rank=False):
    """MindSpore's marker turning input's shape dynamic (for tests of dynamic-shape kernels). Every
    call here sees its exact shape, so the value passes through unchanged."""
    return input
