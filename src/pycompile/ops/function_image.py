"""Functional padding, resizing and normalization (`ops.pad`, `ops.interpolate` /
`ops.upsample`, `ops.batch_norm`, `ops.group_norm`, `ops.instance_norm`) with MindSpore 2.10's
signatures and defaults.

Padding and resizing are per-axis resamplings with static tables (ops/defs/resample.py); a
constant pad with a non-zero value adds the value where the pad goes. Group / instance norm are
written with reductions over the last axis of an (N, G, -1) view and elementwise ops, so they
fuse and differentiate like any such code.
"""
from __future__ import annotations

import math

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.parameter import Parameter
from pycompile.common.tensor import Tensor
from pycompile.ops import _mixed, tracing
from pycompile.ops import functional as F
from pycompile.ops._table import OpTypeError, OpValueError, apply
from pycompile.ops.defs import norm as NM
from pycompile.ops.defs import resample as RS


def _ttype(name, x, what="input"):
    return F._tensor_type(name, x, what)


def resample(x, axis: int, index, weight):
    t = _ttype("AxisResample", x)
    if len(index) == 1 and all(w in (0.0, 1.0) for w in weight[0]) and not t.dtype.is_float:
        # a pure selection (nearest resizing, padding) of an int or bool tensor: a Gather, zeros
        # where the weight is 0 (AxisResample computes weighted sums, in floats only)
        out = F.gather(x, Tensor._wrap(np.array(index[0], np.int64)), axis)
        if 0.0 in weight[0]:
            shape = [1] * t.ndim
            shape[axis] = len(weight[0])
            keep = Tensor._wrap(np.array(weight[0], np.float64).reshape(shape) == 1.0)
            out = F.select(keep, out, Tensor._wrap(np.zeros((), t.dtype.np)))
        return out
    return apply(RS.AxisResample, [x], {"axis": axis, "index": tuple(index), "weight": tuple(weight)})


# ---- padding ---------------------------------------------------------------------------------------
def pad_axes(name: str, x, pads: dict, mode: str, value=0.0):
    """Pad (or crop, with negative amounts) axes {axis: (before, after)} in `mode`."""
    t = _ttype(name, x)
    out = x
    mask = np.zeros(t.shape, bool)      # where the constant goes, in the padded shape
    for axis, (b, a) in sorted(pads.items()):
        if b == 0 and a == 0:
            continue
        n = mask.shape[axis]
        if mode != "constant" and (n == 0 or (mode == "reflect" and max(b, a) >= n) or (mode == "symmetric" and max(b, a) > n)):
            raise OpValueError(f"For '{name}', the padding of axis {axis} ({b}, {a}) must be smaller than the axis "
                               f"size {n} in '{mode}' mode")
        if n + b + a < 0:
            raise OpValueError(f"For '{name}', the padding ({b}, {a}) would make axis {axis} of size {n} negative")
        index, weight, is_pad = RS.pad_table(n, b, a, mode)
        out = resample(out, axis, index, weight)
        shape = [1] * t.ndim
        shape[axis] = len(is_pad)
        mask = np.take(mask, np.asarray(index[0], np.int64), axis=axis) | np.asarray(is_pad).reshape(shape)
    if mode == "constant" and value and mask.any():
        out = out + Tensor(np.where(mask, np.float64(value), 0.0).astype(t.dtype.np))
    return out


def pad(input_x, padding, mode="constant", value=None):
    """torch-style: `padding` holds (before, after) pairs for the last axes, the last axis first;
    negative amounts crop. Modes: constant, reflect, replicate, circular; as in MindSpore, the
    other modes pad exactly the axes after the batch and channel axes (or after the channel
    axis of an unbatched input)."""
    t = _ttype("pad", input_x)
    if isinstance(padding, (tuple, list)) and not padding:
        return input_x
    if not isinstance(padding, (tuple, list)):
        raise OpTypeError(f"For 'pad', the type of 'paddings' must be a tuple of int or list of int or a Tensor, "
                          f"but got {type(padding)}.")
    if len(padding) % 2:
        raise OpValueError(f"For 'pad', the size of padding must be divisible by 2, but got {len(padding)}")
    if any(not isinstance(p, (int, np.integer)) or isinstance(p, bool) for p in padding):
        raise OpTypeError(f"For 'pad', the paddings value must be tuple of int or list of int, but got {padding}")
    modes = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "circular"}
    if mode not in modes:
        raise OpValueError(f"For 'pad', 'mode' must be one of {list(modes)}, but got {mode!r}")
    k = len(padding) // 2
    if mode != "constant":
        if len(padding) > 6:
            raise OpValueError(f"For 'pad', the padding must be less than or equal to 6, but got {len(padding)}.")
        if value is not None:
            raise OpValueError(f"For 'pad', the padding mode '{mode}' can not set value, but got value {value}.")
        if k + 1 != t.ndim and k + 2 != t.ndim:
            raise OpValueError(f"For primitive[PadV3], the input dims when padding's size equal {len(padding)} must "
                               f"be equal to {k + 2}, but got {t.ndim}.")
    if k > t.ndim:
        raise OpValueError(f"For 'pad', the padding of {len(padding)} values is too long for a {t.ndim}-D input")
    pads = {t.ndim - 1 - i: (int(padding[2 * i]), int(padding[2 * i + 1])) for i in range(k)}
    if mode == "circular":
        return _circular(input_x, pads)
    return pad_axes("pad", input_x, pads, modes[mode], value or 0.0)


def _circular(x, pads):
    """Negative amounts crop first, then the cropped axis wraps (MindSpore's PadV3: (1, -1) of
    [0, 1, 2, 3, 4] is [3, 0, 1, 2, 3])."""
    crops = {axis: (min(b, 0), min(a, 0)) for axis, (b, a) in pads.items()}
    out = pad_axes("pad", x, crops, "constant") if any(b or a for b, a in crops.values()) else x
    t = _ttype("pad", out)
    for axis, (b, a) in sorted(pads.items()):
        b, a = max(b, 0), max(a, 0)
        n = t.shape[axis]
        idx = tuple((j % n) for j in range(-b, n + a))
        out = resample(out, axis, (idx,), ((1.0,) * len(idx),))
    return out


def pad_pairs(name: str, x, paddings, mode: str = "constant", value=0.0):
    """MindSpore's ops.Pad / nn.Pad: ((before, after), ...) for the leading axes."""
    t = _ttype(name, x)
    if not isinstance(paddings, (tuple, list)) or len(paddings) > t.ndim or \
            any(not isinstance(p, (tuple, list)) or len(p) != 2 for p in paddings):
        raise OpValueError(f"For '{name}', the dimension of 'paddings' must be (n, 2) with n <= {t.ndim}, "
                           f"but got {paddings}")
    return pad_axes(name, x, {i: (int(b), int(a)) for i, (b, a) in enumerate(paddings)}, mode, value)


# ---- resizing ---------------------------------------------------------------------------------------
# MindSpore 2.10's interpolate: per mode, the ranks it takes and which of align_corners /
# scale_factor each allows (without recompute_scale_factor, scale_factor works only where listed)
_SUPPORTED = {"nearest": {3: (), 4: (), 5: ("scale_factor",)}, "linear": {3: ("align_corners",)},
              "bilinear": {4: ("align_corners",)}, "bicubic": {4: ("align_corners",)},
              "area": {3: ("scale_factor",), 4: ("scale_factor",), 5: ("scale_factor",)},
              "nearest-exact": {3: (), 4: ()}, "trilinear": {5: ("align_corners", "scale_factor")}}


def resize(x, sizes, mode: str, align_corners: bool = False, half_pixel: bool = False, scales=None):
    """Resize the trailing len(sizes) axes: 'nearest' (floor(i * in / out), or with half-pixel
    centres), 'linear' (align_corners or half-pixel centres), 'cubic' (resample.cubic_table)."""
    t = _ttype("resize", x)
    out = x
    nsp = len(sizes)
    for i, n_out in enumerate(sizes):
        axis = t.ndim - nsp + i
        n_in = t.shape[axis]
        scale = None if scales is None else scales[i]
        if n_in == n_out and scale in (None, 1.0):
            continue
        if mode == "nearest":
            index, weight = RS.nearest_table(n_in, n_out, align_corners, half_pixel, scale)
        elif mode == "cubic":
            index, weight = RS.cubic_table(n_in, n_out, align_corners, half_pixel)
        else:
            index, weight = RS.linear_table(n_in, n_out, align_corners, half_pixel, scale)
        out = resample(out, axis, index, weight)
    return out


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None):
    """MindSpore's modes: nearest (floor(i * in / out)), nearest-exact (half-pixel centres),
    linear / bilinear / trilinear (align_corners, or half-pixel centres), bicubic (MindSpore's
    ResizeBicubic: resample.cubic_table), area (adaptive average pooling). Each resizes one axis
    after another with AxisResample, whose transpose is the gradient."""
    t = _ttype("interpolate", input)
    rank = t.ndim
    if isinstance(size, list):
        size = tuple(size)
    if isinstance(scale_factor, list):
        scale_factor = tuple(scale_factor)
    if size is not None and scale_factor is not None:
        raise OpValueError("For 'interpolate', 'size' and 'scale_factor' cannot be set simultaneously")
    if size is not None:
        if isinstance(size, tuple):
            if len(size) != rank - 2:
                raise OpValueError(f"For 'interpolate', 'input' and 'size' must have the same spatial dimensions, but "
                                   f"got 'input' is {rank - 2}D, 'size' is {len(size)}D")
        else:
            size = (size,) * (rank - 2)
        if any(not isinstance(v, (int, np.integer)) or v <= 0 for v in size):
            raise OpValueError(f"For 'interpolate', 'size' must be positive ints, but got {size}")
    elif scale_factor is not None:
        if not isinstance(scale_factor, tuple):
            scale_factor = (scale_factor,) * (rank - 2)
        if len(scale_factor) != rank - 2 or any(not isinstance(v, (int, float)) or v <= 0 for v in scale_factor):
            raise OpValueError(f"For 'interpolate', 'scale_factor' must be {rank - 2} positive floats, but got "
                               f"{scale_factor}")
    else:
        raise OpValueError("For 'interpolate', 'size' and 'scale_factor' cannot be both empty")
    if not isinstance(mode, str) or mode not in _SUPPORTED:
        raise OpValueError(f"For 'interpolate', 'mode' must be in '{list(_SUPPORTED)}', but got {mode}")
    if rank not in _SUPPORTED[mode]:
        raise OpValueError(f"For 'interpolate', {mode} only support '{list(_SUPPORTED[mode])}'D, but got {rank}D")
    scales = None
    if mode == "area" and size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        if size is not None:
            raise OpValueError("For 'interpolate', it is incorrect to set 'recompute_scale_factor' to True after "
                               "specifying an explicit 'size'.")
        size = tuple(int(math.floor(n * f)) for n, f in zip(t.shape[2:], scale_factor))
    elif scale_factor is not None:
        if "scale_factor" not in _SUPPORTED[mode][rank]:
            raise OpValueError(f"For 'interpolate', 'scale_factor' option cannot currently be set with the mode = "
                               f"{mode} and dim = {rank}D.")
        scales = tuple(float(f) for f in scale_factor)
        size = tuple(int(math.floor(n * f)) for n, f in zip(t.shape[2:], scale_factor))
    if align_corners is not None and "align_corners" not in _SUPPORTED[mode][rank]:
        raise OpValueError(f"For 'interpolate', 'align_corners' option cannot currently be set with the mode = {mode}, "
                           f"and dim = {rank}D")
    if mode == "bicubic":
        return resize(input, size, "cubic", bool(align_corners), not align_corners)
    if mode == "area":
        from pycompile.ops.function_conv import adaptive_pool
        if rank == 3:
            return F.squeeze(adaptive_pool("avg", F.expand_dims(input, 2), (1,) + size), 2)
        return adaptive_pool("avg", input, size)
    if mode in ("nearest", "nearest-exact"):
        return resize(input, size, "nearest", False, mode == "nearest-exact", scales)
    return resize(input, size, "linear", bool(align_corners), not align_corners, scales)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None):
    return interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor)


# ---- normalization ---------------------------------------------------------------------------------------
def _channel_view(v, nd):
    return F.reshape(v, (1, -1) + (1,) * (nd - 2))


def batch_norm_eval(x, mean, variance, gamma, beta, eps):
    """(x - mean) / sqrt(variance + eps) * gamma + beta, as x * scale + shift per channel: a
    per-channel affine map that fuses into a producing convolution's epilogue."""
    t = _ttype("BatchNorm", x)
    if t.dtype is mstype.float16:
        with _mixed.exact():
            y = batch_norm_eval(F.cast(x, mstype.float32), mean, variance, gamma, beta, eps)
        return F.cast(y, mstype.float16)
    nd = t.ndim
    scale = gamma * F.rsqrt(variance + eps)
    shift = beta - mean * scale
    return x * _channel_view(scale, nd) + _channel_view(shift, nd)


def batch_norm_train(x, gamma, beta, eps, moving_mean=None, moving_variance=None, momentum=0.1):
    """Normalize with the batch's statistics; update the moving statistics (Parameters) in place:
    moving = (1 - momentum) * moving + momentum * batch, the variance unbiased (n / (n - 1)), as
    MindSpore's CPU kernel does."""
    t = _ttype("BatchNorm", x)
    if t.dtype is mstype.float16:
        # MindSpore's CPU kernel on float16: float32 math, float32 statistics, the output rounded
        # once; under Cell.to_float(float16) too (gamma, beta and the moving statistics read exact)
        with _mixed.exact():
            y = batch_norm_train(F.cast(x, mstype.float32), gamma, beta, eps, moving_mean, moving_variance, momentum)
        return F.cast(y, mstype.float16)
    stats = apply(NM.BatchNormStats, [x])
    mean, var = stats[0], stats[1]
    scale = gamma * F.rsqrt(var + eps)
    if tracing.in_graph_code(x):
        # compiled code: the row's parts, which the compiler differentiates and fuses with their
        # neighbours (W10t's compiled step ran 7-10 % slower on the row's own backward)
        y = NM.batchnorm_apply_parts(x, mean, scale, beta)
    else:
        # PyNative: (x - mean) * scale + beta as one row, one kernel forward and its backward rows
        # (ops/defs/norm.py; the same parts, so the same bits as compiled code forward)
        y = apply(NM.BatchNormApply, [x, mean, scale, beta])
    if isinstance(moving_mean, Parameter):
        n = t.size // t.shape[1]
        unbiased = var * (n / max(n - 1, 1))
        F.assign(moving_mean, moving_mean * (1.0 - momentum) + mean * momentum)
        F.assign(moving_variance, moving_variance * (1.0 - momentum) + unbiased * momentum)
    return y


def _check_channels(name, x, v, what):
    t = _ttype(name, x)
    vt = _ttype(name, v, what)
    if vt.shape != (t.shape[1],):
        raise OpValueError(f"For BatchNorm, {what}.shape[0] should be equal to input_x's channel dimension: "
                           f"{t.shape[1]}, bug got {what}.shape[0]: {vt.shape[0] if vt.shape else vt.shape}.")


def batch_norm(input_x, running_mean, running_var, weight, bias, training=False, momentum=0.1, eps=1e-05):
    t = _ttype("batch_norm", input_x)
    if t.ndim < 2:
        raise OpValueError(f"For 'BatchNorm', the input must have at least 2 dimensions, but got {t.ndim}")
    for v, what in ((weight, "scale"), (bias, "bias"), (running_mean, "mean"), (running_var, "variance")):
        _check_channels("batch_norm", input_x, v, what)
    if training:
        return batch_norm_train(input_x, weight, bias, eps, running_mean, running_var, momentum)
    return batch_norm_eval(input_x, running_mean, running_var, weight, bias, eps)


def _group_stats_norm(x, groups: int, eps: float):
    t = _ttype("group_norm", x)
    n = t.shape[0]
    v = F.reshape(x, (n, groups, -1))
    mean = F.mean(v, -1, True)
    d = v - mean
    var = F.mean(d * d, -1, True)
    return F.reshape(d * F.rsqrt(var + eps), t.shape)


@_mixed.amp_class("full")       # amp_level='auto' (ops/amp_auto.py)
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):
    t = _ttype("group_norm", input)
    if t.ndim < 2:
        raise OpValueError(f"For 'group_norm', the input must have at least 2 dimensions, but got {t.ndim}")
    if not t.dtype.is_float:
        raise OpTypeError(f"For 'group_norm', the input must be a float tensor, but got {t.dtype}")
    if not isinstance(num_groups, int) or num_groups <= 0 or t.shape[1] % num_groups:
        raise OpValueError(f"For 'group_norm', the 'num_channels' must be divided by 'num_groups', but got "
                           f"'num_channels': {t.shape[1]}, 'num_groups': {num_groups}.")
    y = _group_stats_norm(input, num_groups, eps)
    if weight is not None:
        y = y * _channel_view(weight, t.ndim)
    if bias is not None:
        y = y + _channel_view(bias, t.ndim)
    return y


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-05):
    t = _ttype("instance_norm", input)
    y = _group_stats_norm(input, t.shape[1], eps)
    if weight is not None:
        y = y * _channel_view(weight, t.ndim)
    if bias is not None:
        y = y + _channel_view(bias, t.ndim)
    return y


# instance_norm is not exported: MindSpore 2.10's ops has none (nn.InstanceNorm2d calls it)
__all__ = ["pad", "interpolate", "upsample", "batch_norm", "group_norm"]
