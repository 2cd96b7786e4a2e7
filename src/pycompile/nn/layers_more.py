"""More of mindspore.nn's layers, each a Cell over existing ops (so PyNative, graph mode, grad
and vmap come from the ops): Linear, Unflatten, Tril / Triu, Threshold, SoftShrink, HShrink,
FastGelu, Softmax2d, PixelShuffle / PixelUnshuffle, ChannelShuffle, Range, Norm, Moments,
ReduceLogSumExp, MatMul, Dropout3d, L1Regularizer, ClipByNorm, LPPool1d / LPPool2d, RReLU, Roll,
GaussianNLLLoss, HingeEmbeddingLoss, PoissonNLLLoss. Arguments, defaults and checks are MindSpore
2.10's; values recorded from the wheel in tests/conformance/cases_layers.py."""
from __future__ import annotations

import math

import numpy as np

from pycompile import ops
from pycompile.common import dtype as mstype
from pycompile.common.initializer import HeUniform, Uniform, initializer
from pycompile.common.parameter import Parameter
from pycompile.common.tensor import Tensor
from pycompile.nn.cell import Cell
from pycompile.nn.loss import LossBase


def _positive_int(v, what, cls):
    if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
        raise ValueError(f"For '{cls}', the '{what}' must be a positive int, but got {v!r}.")
    return v


def _check_type(v, what, types, cls):
    if isinstance(v, bool) and bool not in types or not isinstance(v, tuple(types)):
        names = ", ".join(t.__name__ for t in types)
        raise TypeError(f"For '{cls}', the type of '{what}' should be in [{names}], but got {type(v).__name__}.")
    return v


class Linear(Cell):
    """y = x @ weight.T + bias, weight (out_features, in_features): mindspore.nn.Linear (Dense's
    torch-style spelling). Defaults: weight HeUniform(sqrt(5)), bias Uniform(1 / sqrt(in_features))."""

    def __init__(self, in_features, out_features, bias=True, weight_init=None, bias_init=None, dtype=None):
        super().__init__()
        self.in_features = _positive_int(in_features, "in_features", "Linear")
        self.out_features = _positive_int(out_features, "out_features", "Linear")
        if not isinstance(bias, bool):
            raise TypeError(f"For 'Linear', the type of 'has_bias' must be bool, but got {type(bias).__name__}.")
        self.has_bias = bias
        dtype = mstype.float32 if dtype is None else dtype
        if isinstance(weight_init, Tensor) and tuple(weight_init.shape) != (out_features, in_features):
            raise ValueError("For 'Linear', weight init shape error. The ndim of 'weight_init' must be equal to 2, and "
                             "the first dim must be equal to 'out_features', and the second dim must be equal to "
                             f"'in_features'. But got 'weight_init': {weight_init}, 'out_features': {out_features}, "
                             f"'in_features': {in_features}.")
        self.weight = Parameter(initializer(HeUniform(math.sqrt(5)) if weight_init is None else weight_init,
                                            [out_features, in_features], dtype=dtype), name="weight")
        self.bias = None
        if bias:
            if isinstance(bias_init, Tensor) and tuple(bias_init.shape) != (out_features,):
                raise ValueError("For 'Linear', bias init shape error. The ndim of 'bias_init' must be equal to 1, and "
                                 "the first dim must be equal to 'out_features'. But got "
                                 f"'bias_init': {bias_init}, 'out_features': {out_features}.")
            init = Uniform(scale=1 / math.sqrt(in_features)) if bias_init is None else bias_init
            self.bias = Parameter(initializer(init, [out_features], dtype=dtype), name="bias")

    def construct(self, x):
        return ops.dense(x, self.weight, self.bias)

    def extend_repr(self):
        s = f"input_features={self.in_features}, output_features={self.out_features}"
        return s + (f", has_bias={self.has_bias}" if self.has_bias else "")


class Unflatten(Cell):
    """Axis `axis` of the input split into `unflattened_size`."""

    def __init__(self, axis, unflattened_size):
        super().__init__()
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"For 'Unflatten', the 'axis' must be int, but got {type(axis).__name__}.")
        _check_type(unflattened_size, "unflattended_size", (list, tuple), "Unflatten")
        self.axis = axis
        self.unflattened_size = tuple(unflattened_size)

    def construct(self, input_x):
        shape = input_x.shape
        new_shape = shape[:self.axis] + self.unflattened_size
        if self.axis != -1:
            new_shape = new_shape + shape[self.axis + 1:]
        return ops.reshape(input_x, new_shape)


class Tril(Cell):
    """The lower triangle (below and on diagonal k) of the last two axes; the rest 0. (The wheel
    multiplies by a 0/1 mask, so an inf above the diagonal gives nan there; pycompile selects, as
    the documentation says: zeros.)"""

    def construct(self, x, k=0):
        return ops.tril(x, k)


class Triu(Cell):
    """The upper triangle (on and above diagonal k) of the last two axes; the rest 0."""

    def construct(self, x, k=0):
        return ops.triu(x, k)


class Threshold(Cell):
    """x where x > threshold, else value."""

    def __init__(self, threshold, value):
        super().__init__()
        self.threshold = threshold
        self.value = value

    def construct(self, input_x):
        return ops.threshold(input_x, self.threshold, self.value)


class SoftShrink(Cell):
    def __init__(self, lambd=0.5):
        super().__init__()
        _check_type(lambd, "lambd", (float, int), "SoftShrink")
        if lambd < 0:
            raise ValueError(f"For 'SoftShrink', the 'lambd' must be greater than or equal to 0, but got {lambd}.")
        self.lambd = lambd

    def construct(self, input_x):
        return ops.softshrink(input_x, self.lambd)


class HShrink(Cell):
    def __init__(self, lambd=0.5):
        super().__init__()
        _check_type(lambd, "lambd", (float, int), "HShrink")
        self.lambd = lambd

    def construct(self, input_x):
        return ops.hardshrink(input_x, self.lambd)


class FastGelu(Cell):
    def construct(self, x):
        return ops.fast_gelu(x)


class Softmax2d(Cell):
    """Softmax over the channel axis (-3) of a (C, H, W) or (N, C, H, W) input."""

    def construct(self, x):
        if x.ndim not in (3, 4):
            raise ValueError(f"For 'Softmax2d', the in_shape must have 3 or 4 dims, but got {x.ndim}.")
        return ops.softmax(x, -3)


class PixelShuffle(Cell):
    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def construct(self, input):
        return ops.pixel_shuffle(input, self.upscale_factor)


class PixelUnshuffle(Cell):
    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def construct(self, input):
        return ops.pixel_unshuffle(input, self.downscale_factor)


class ChannelShuffle(Cell):
    """Channels (axis 1) regrouped: (N, g, C/g, ...) transposed to (N, C/g, g, ...)."""

    def __init__(self, groups):
        super().__init__()
        if isinstance(groups, bool) or not isinstance(groups, int):
            raise TypeError(f"For ChannelShuffle, the param `groups` must be int, but got {type(groups)}.")
        if groups < 1:
            raise ValueError(f"For ChannelShuffle, the param `groups` must be larger than 0, but got {groups}.")
        self.groups = groups

    def construct(self, x):
        shape = x.shape
        out = ops.reshape(x, (shape[0], self.groups, shape[1] // self.groups, -1))
        return ops.reshape(ops.transpose(out, (0, 2, 1, 3)), shape)


class Range(Cell):
    """The constant arange(start, limit, delta): float32 when NumPy's arange is float, else int32."""

    def __init__(self, start, limit=None, delta=1):
        super().__init__()
        if delta == 0:
            raise ValueError("For 'Range', the 'delta' can not be zero.")
        data = np.arange(start, limit, delta)
        self.result_tensor = Tensor(data, mstype.float32 if data.dtype == np.float64 else mstype.int32)

    def construct(self):
        return self.result_tensor


def _squeeze(x, axis):
    """ops.Squeeze(axis) of a keep-dims reduction: the reduced axes (all when axis is ())."""
    axes = tuple(range(x.ndim)) if axis == () else (axis if isinstance(axis, tuple) else (axis,))
    return ops.squeeze(x, tuple(a % x.ndim for a in axes)) if x.ndim else x


class Norm(Cell):
    """sqrt(sum(x ** 2)) over `axis` (() is every axis)."""

    def __init__(self, axis=(), keep_dims=False):
        super().__init__()
        _check_type(keep_dims, "keep_dims", (bool,), "Norm")
        self.axis = axis
        self.keep_dims = keep_dims

    def construct(self, x):
        out = ops.sqrt(ops.sum(ops.square(x), self.axis if self.axis != () else None, keepdim=True))
        return out if self.keep_dims else _squeeze(out, self.axis)


class Moments(Cell):
    """(mean, variance) over `axis` (None: every axis); float16 is computed in float32."""

    def __init__(self, axis=None, keep_dims=None):
        super().__init__()
        axis = () if axis is None else axis
        _check_type(axis, "axis", (int, tuple), "Moments")
        keep_dims = False if keep_dims is None else keep_dims
        _check_type(keep_dims, "keep_dims", (bool,), "Moments")
        self.axis = axis
        self.keep_dims = keep_dims

    def construct(self, x):
        if x.dtype not in (mstype.float16, mstype.float32):
            raise TypeError(f"For 'Moments', the 'input x' should be float16 or float32, but got {x.dtype}.")
        dtype = x.dtype
        if dtype == mstype.float16:
            x = ops.cast(x, mstype.float32)
        axis = self.axis if self.axis != () else None
        mean = ops.mean(x, axis, keep_dims=True)
        variance = ops.mean(ops.square(x - ops.stop_gradient(mean)), axis, keep_dims=True)
        if not self.keep_dims:
            mean, variance = _squeeze(mean, self.axis), _squeeze(variance, self.axis)
        if dtype == mstype.float16:
            mean, variance = ops.cast(mean, dtype), ops.cast(variance, dtype)
        return mean, variance


class ReduceLogSumExp(Cell):
    """log(sum(exp(x), axis)), stabilised as MindSpore does: by the maximum of the whole tensor."""

    def __init__(self, axis, keep_dims=False):
        super().__init__()
        _check_type(axis, "axis", (int, list, tuple), "ReduceLogSumExp")
        _check_type(keep_dims, "keep_dims", (bool,), "ReduceLogSumExp")
        self.axis = tuple(axis) if isinstance(axis, list) else axis
        self.keep_dims = keep_dims

    def construct(self, x):
        x_max = ops.amax(x)
        axis = None if self.axis == () else self.axis
        return ops.log(ops.sum(ops.exp(x - x_max), axis, keepdim=self.keep_dims)) + x_max


class MatMul(Cell):
    """Matrix product with NumPy's broadcasting of batch axes and of 1-D operands."""

    def __init__(self, transpose_x1=False, transpose_x2=False):
        super().__init__()
        _check_type(transpose_x1, "transpose_x1", (bool,), "MatMul")
        _check_type(transpose_x2, "transpose_x2", (bool,), "MatMul")
        self.transpose_x1 = transpose_x1
        self.transpose_x2 = transpose_x2

    def construct(self, x1, x2):
        if self.transpose_x1 and x1.ndim > 1:
            x1 = ops.swapaxes(x1, -1, -2)
        if self.transpose_x2 and x2.ndim > 1:
            x2 = ops.swapaxes(x2, -1, -2)
        k1 = x1.shape[-1]
        k2 = x2.shape[-2] if x2.ndim > 1 else x2.shape[0]
        if k1 != k2:
            raise ValueError(f"For 'MatMul', the input dimensions must be equal, but got 'x1_col': {k1} and "
                             f"'x2_row': {k2}.")
        return ops.matmul(x1, x2)


class Dropout3d(Cell):
    """Whole channels of an (N, C, D, H, W) input zeroed with probability p in training."""

    def __init__(self, p=0.5):
        super().__init__()
        _check_type(p, "p", (float,), "Dropout3d")
        if p < 0 or p > 1:
            raise ValueError(f"For 'Dropout3d', the 'p' must be a number in range [0, 1], but got {p}.")
        self.keep_prob = 1.0 - p

    def construct(self, x):
        if not self.training or self.keep_prob == 1:
            return x
        return ops.dropout3d(x, 1.0 - self.keep_prob, True)

    def extend_repr(self):
        return f"p={self.keep_prob}"


class L1Regularizer(Cell):
    """scale * sum(|weights|)."""

    def __init__(self, scale):
        super().__init__()
        _check_type(scale, "scale", (int, float), "L1Regularizer")
        if scale <= 0:
            raise ValueError(f"For 'L1Regularizer', the 'scale' must be greater than 0, but got {scale}.")
        if math.isinf(scale) or math.isnan(scale):
            raise ValueError(f"For 'L1Regularizer', the 'scale' can not be INF or NAN, but got {scale}.")
        self.scale = Tensor(scale, mstype.float32)

    def construct(self, weights):
        return self.scale * ops.sum(ops.abs(weights))


class ClipByNorm(Cell):
    """x * clip_norm / max(||x||₂ over `axis`, clip_norm): x rescaled so its L2 norm is at most
    clip_norm (axis None: the whole tensor)."""

    def __init__(self, axis=None):
        super().__init__()
        self.axis = () if axis is None else axis

    def construct(self, x, clip_norm):
        axis = None if self.axis == () else self.axis
        norm = ops.sqrt(ops.sum(ops.square(ops.cast(x, mstype.float32)), axis, keepdim=True))
        clip = ops.cast(clip_norm, mstype.float32)
        return ops.cast(ops.cast(x, mstype.float32) * clip / ops.maximum(norm, clip), x.dtype)


class LPPool1d(Cell):
    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type, self.kernel_size, self.stride, self.ceil_mode = norm_type, kernel_size, stride, ceil_mode

    def construct(self, x):
        return ops.lp_pool1d(x, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class LPPool2d(Cell):
    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type, self.kernel_size, self.stride, self.ceil_mode = norm_type, kernel_size, stride, ceil_mode

    def construct(self, x):
        return ops.lp_pool2d(x, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class RReLU(Cell):
    """x for x >= 0, a * x below, a drawn from U[lower, upper) per element at every call (in
    training and in evaluation alike, as MindSpore 2.10's RReLU does)."""

    def __init__(self, lower=1 / 8, upper=1 / 3):
        super().__init__()
        _check_type(upper, "upper", (float, int), "RReLU")
        _check_type(lower, "lower", (float, int), "RReLU")
        if lower > upper:
            raise ValueError(f"For RReLU, the value of 'upper' must be greater than or equal to 'lower', "
                             f"but got upper: {upper}, lower: {lower}. ")
        self.lower, self.upper = float(lower), float(upper)

    def construct(self, x):
        if not isinstance(x, Tensor) and not hasattr(x, "_abstract"):
            raise TypeError(f"For 'rrelu', the input must be a Tensor, but got {type(x)}.")
        return ops.rrelu(x, self.lower, self.upper)


class Roll(Cell):
    """Elements shifted along `axis` by `shift`, wrapping around (int or sequences of equal length)."""

    def __init__(self, shift, axis):
        super().__init__()
        _check_type(shift, "shift", (int, tuple, list), "Roll")
        _check_type(axis, "axis", (int, tuple, list), "Roll")
        shift = list(shift) if isinstance(shift, (tuple, list)) else [shift]
        axis = list(axis) if isinstance(axis, (tuple, list)) else [axis]
        if len(shift) != len(axis):
            raise ValueError(f"For 'Roll', the shape of 'shift' and the shape of 'axis' must be the same, but got the "
                             f"length of 'shift' {len(shift)} and the length of 'axis' {len(axis)}.")
        self.shift, self.axis = shift, axis

    def construct(self, input_x):
        for s, a in zip(self.shift, self.axis):
            if not -input_x.ndim <= a < input_x.ndim:
                raise ValueError(f"For 'Roll', the 'axis' must be in range [-{input_x.ndim}, {input_x.ndim}), "
                                 f"but got {a}.")
            a = a % input_x.ndim
            n = input_x.shape[a]
            k = s % n if n else 0
            if k:
                head = ops.narrow(input_x, a, n - k, k)
                tail = ops.narrow(input_x, a, 0, n - k)
                input_x = ops.concat((head, tail), a)
        return input_x


class GaussianNLLLoss(LossBase):
    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__(reduction)
        if isinstance(eps, bool) or not isinstance(eps, float) or not 0 < eps < float("inf"):
            raise ValueError(f"For 'GaussianNLLLoss', the 'eps' must be in range (0, inf), but got {eps}.")
        _check_type(full, "full", (bool,), "GaussianNLLLoss")
        self.full, self.eps = full, eps

    def construct(self, logits, labels, var):
        return ops.gaussian_nll_loss(logits, labels, var, self.full, self.eps, self.reduction)


class HingeEmbeddingLoss(LossBase):
    def __init__(self, margin=1.0, reduction="mean"):
        super().__init__(reduction)
        _check_type(margin, "margin", (float, int), "HingeEmbeddingLoss")
        self.margin = margin

    def construct(self, logits, labels):
        return ops.hinge_embedding_loss(logits, labels, self.margin, self.reduction)


class PoissonNLLLoss(LossBase):
    """exp(input) - target * input (log_input), or input - target * log(input + eps); `full` adds
    Stirling's term where target > 1."""

    def __init__(self, log_input=True, full=False, eps=1e-08, reduction="mean"):
        super().__init__(reduction)
        self.log_input, self.full, self.eps = log_input, full, eps

    def construct(self, input, target):
        target = ops.cast(target, input.dtype)
        if self.log_input:
            loss = ops.exp(input) - target * input
        else:
            loss = input - target * ops.log(input + self.eps)
        if self.full:
            target = ops.maximum(target, self.eps)
            stirling = (target + 0.5) * ops.log(target) - target + 0.5 * math.log(2 * math.pi)
            loss = loss + ops.where(target > 1, stirling, ops.zeros_like(stirling))
        return self.get_loss(loss)


class MultiMarginLoss(LossBase):
    """ops.multi_margin_loss as a Cell: `weight` given here or to construct."""

    def __init__(self, p=1, margin=1.0, reduction="mean", weight=None):
        super().__init__(reduction)
        if p not in (1, 2):
            raise ValueError(f"For 'MultiMarginLoss', the 'p' must be 1 or 2, but got {p}.")
        _check_type(margin, "margin", (float, int), "MultiMarginLoss")
        self.p, self.margin, self.weight = p, float(margin), weight

    def construct(self, x, target, weight=None):
        weight = self.weight if weight is None else weight
        return ops.MultiMarginLoss(self.p, self.margin, self.reduction)(x, target, weight)


class LRN(Cell):
    """Local response normalization across channels (ops.lrn)."""

    def __init__(self, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region="ACROSS_CHANNELS"):
        super().__init__()
        self.depth_radius, self.bias, self.alpha, self.beta = depth_radius, bias, alpha, beta
        self.norm_region = norm_region

    def construct(self, input):
        return ops.lrn(input, self.depth_radius, self.bias, self.alpha, self.beta, self.norm_region)


class TripletMarginWithDistanceLoss(LossBase):
    """max(d(x, positive) - d(x, negative) + margin, 0) with `distance_function` (default: the L2
    norm of the difference along axis 1); `swap` uses min(d(x, negative), d(positive, negative))."""

    def __init__(self, distance_function=None, swap=False, reduction="mean", margin=1.0):
        super().__init__(reduction)
        if isinstance(margin, bool) or not isinstance(margin, float):
            raise TypeError(f"For 'TripletMarginWithDistanceLoss', the type of 'margin' must be float, but got "
                            f"{type(margin).__name__}.")
        _check_type(swap, "swap", (bool,), "TripletMarginWithDistanceLoss")
        self.distance_function = distance_function or _l2_distance
        self.swap, self.margin = swap, margin

    def construct(self, x, positive, negative):
        d1 = self.distance_function(x, positive)
        d2 = self.distance_function(x, negative)
        if self.swap:
            d2 = ops.minimum(d2, self.distance_function(positive, negative))
        return self.get_loss(ops.maximum(d1 - d2 + self.margin, 0.0))


def _l2_distance(x, y):
    d = ops.abs(x - y)
    if d.ndim == 0:
        raise ValueError("For 'pairwise_distance' in 'TripletMarginWithDistanceLoss', 'ndim' of the input must be "
                         f"positive, but got {d.ndim}")
    return ops.sqrt(ops.sum(ops.square(d), 1))
