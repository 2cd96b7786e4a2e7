"""`mindspore.mint.nn`: MindSpore's PyTorch-style layers (a part of its 87 names:
docs/guide/mindspore-api.md, "mint"); each is the pycompile Cell or op that computes it."""
from __future__ import annotations

import math

import numpy as np

from pycompile import nn as _nn
from pycompile import ops as _ops
from pycompile.common import dtype as _mstype
from pycompile.common.initializer import HeUniform, Normal, Uniform
from pycompile.common.initializer import initializer as _initializer
from pycompile.common.tensor import Tensor as _Tensor
from pycompile.ops import function_image as _FI
from pycompile.common.parameter import Parameter as _Parameter
from pycompile.mint.nn import functional  # noqa: F401
from pycompile.nn import Cell

# layers whose class is MindSpore's nn one: the same constructor arguments as mint's
for _name in ("ReLU", "Sigmoid", "Tanh", "Mish", "LogSigmoid", "MSELoss", "L1Loss", "BCELoss", "CrossEntropyLoss",
              "NLLLoss", "Identity", "PixelShuffle", "ZeroPad2d", "ReflectionPad1d", "ReflectionPad2d",
              "ReplicationPad1d", "ReplicationPad2d", "ReflectionPad3d", "ReplicationPad3d", "Upsample", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
              "AdaptiveAvgPool3d", "AdaptiveMaxPool2d"):
    globals()[_name] = getattr(_nn, _name)


class _Elementwise(Cell):
    """A layer applying functional.<_FN> with the constructor's arguments; `inplace=True` (where
    MindSpore's layer takes it) writes the result into the input (functional's in-place forms)."""
    _FN = None

    def __init__(self, *args, inplace=False):
        super().__init__()
        self.args = args
        self.inplace = inplace

    def construct(self, input):
        if self.inplace:
            return getattr(functional, self._FN)(input, *self.args, inplace=True)
        return getattr(functional, self._FN)(input, *self.args)


class ReLU6(_Elementwise):
    _FN = "relu6"

    def __init__(self, inplace=False):
        super().__init__(inplace=inplace)


class SiLU(_Elementwise):
    _FN = "silu"

    def __init__(self, inplace=False):
        super().__init__(inplace=inplace)


class ELU(_Elementwise):
    _FN = "elu"

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__(alpha, inplace=inplace)


class Hardtanh(_Elementwise):
    _FN = "hardtanh"

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        super().__init__(min_val, max_val, inplace=inplace)


class GLU(_Elementwise):
    _FN = "glu"

    def __init__(self, dim=-1):
        super().__init__(dim)


class SELU(_Elementwise):
    _FN = "selu"

    def __init__(self, inplace=False):
        super().__init__()


class Hardswish(_Elementwise):
    _FN = "hardswish"

    def __init__(self, inplace=False):
        super().__init__()


class Hardsigmoid(_Elementwise):
    _FN = "hardsigmoid"

    def __init__(self, inplace=False):
        super().__init__()


class Hardshrink(_Elementwise):
    _FN = "hardshrink"

    def __init__(self, lambd=0.5):
        super().__init__(lambd)


class Softshrink(_Elementwise):
    _FN = "softshrink"

    def __init__(self, lambd=0.5):
        super().__init__(lambd)


class SmoothL1Loss(Cell):
    def __init__(self, reduction="mean", beta=1.0):
        super().__init__()
        self.reduction, self.beta = reduction, beta

    def construct(self, input, target):
        return functional.smooth_l1_loss(input, target, self.reduction, self.beta)


class KLDivLoss(Cell):
    def __init__(self, reduction="mean", log_target=False):
        super().__init__()
        self.reduction, self.log_target = reduction, log_target

    def construct(self, input, target):
        return functional.kl_div(input, target, self.reduction, self.log_target)


class BCEWithLogitsLoss(Cell):
    def __init__(self, weight=None, reduction="mean", pos_weight=None):
        super().__init__()
        self.weight, self.reduction, self.pos_weight = weight, reduction, pos_weight

    def construct(self, input, target):
        return functional.binary_cross_entropy_with_logits(input, target, self.weight, self.reduction,
                                                           self.pos_weight)


class Linear(_nn.Dense):
    """y = x @ weight.T + bias (weight (out_features, in_features)); MindSpore's default
    initializers (HeUniform for the weight, Uniform(1 / sqrt(in_features)) for the bias), or the
    given ones."""

    def __init__(self, in_features, out_features, bias=True, weight_init=None, bias_init=None, dtype=None):
        super().__init__(in_features, out_features, weight_init=weight_init, bias_init=bias_init, has_bias=bias,
                         dtype=dtype or _mstype.float32)


class GELU(Cell):
    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def construct(self, input):
        return _ops.gelu(input, self.approximate)


class Dropout(Cell):
    """Zeroes elements with probability p in training (the others scaled by 1 / (1 - p))."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        self.p = p
        self.inplace = inplace

    def construct(self, input):
        if self.inplace:
            return functional.dropout(input, self.p, self.training, inplace=True)
        return _ops.dropout(input, self.p, self.training)


class Softmax(Cell):
    def __init__(self, dim=None):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def construct(self, input):
        return _ops.softmax(input, self.dim)


class LogSoftmax(Cell):
    def __init__(self, dim=None):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def construct(self, input):
        return _ops.log_softmax(input, self.dim)


class Flatten(Cell):
    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def construct(self, input):
        return _ops.flatten(input, start_dim=self.start_dim, end_dim=self.end_dim)


class LayerNorm(Cell):
    """Normalize over the trailing axes of normalized_shape; `weight` (ones) and `bias` (zeros)
    are Parameters when elementwise_affine."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, dtype=None):
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape, self.eps = shape, eps
        dt = dtype or _mstype.float32
        self.weight = _Parameter(_initializer("ones", shape, dt), "weight") if elementwise_affine else None
        self.bias = _Parameter(_initializer("zeros", shape, dt), "bias") if elementwise_affine and bias else None

    def construct(self, input):
        return functional.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)


# ---- layers with weights: MindSpore's mint parameter names (PyTorch's), recorded from the wheel
def _uniform_bound(fan_in):
    return 1 / math.sqrt(fan_in) if fan_in > 0 else 0.0


class _ConvNd(Cell):
    """Convolution with mint's (PyTorch's) arguments: padding an int, a tuple or 'same' / 'valid';
    padding_mode 'zeros', 'reflect', 'replicate' or 'circular'; weight (out, in / groups, *kernel)
    initialized HeUniform(sqrt(5)) and bias Uniform(1 / sqrt(fan_in)), as MindSpore's."""
    _ND = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", dtype=None):
        super().__init__()
        nd = self._ND
        tup = (lambda v: (v,) * nd if isinstance(v, int) else tuple(v))
        self.kernel_size, self.stride, self.dilation = tup(kernel_size), tup(stride), tup(dilation)
        self.groups, self.padding_mode = groups, padding_mode
        self.padding = padding if isinstance(padding, str) else tup(padding)
        dt = dtype or _mstype.float32
        shape = (out_channels, in_channels // groups) + self.kernel_size
        self.weight = _Parameter(_initializer(HeUniform(math.sqrt(5)), shape, dt), "weight")
        fan_in = (in_channels // groups) * math.prod(self.kernel_size)
        self.bias = (_Parameter(_initializer(Uniform(_uniform_bound(fan_in)), (out_channels,), dt), "bias")
                     if bias else None)

    def construct(self, input):
        x = input
        if isinstance(self.padding, str):
            pad_mode, padding = self.padding, 0
        elif self.padding_mode == "zeros":
            pad_mode, padding = "pad", self.padding
        else:
            widths = ()
            for p in reversed(self.padding):
                widths += (p, p)
            mode = {"reflect": "reflect", "replicate": "replicate", "circular": "circular"}[self.padding_mode]
            x = _ops.pad(x, widths, mode)
            pad_mode, padding = "valid", 0
        conv = {1: _ops.conv1d, 2: _ops.conv2d, 3: _ops.conv3d}[self._ND]
        stride = self.stride[0] if self._ND == 1 else self.stride
        dilation = self.dilation[0] if self._ND == 1 else self.dilation
        if self._ND == 1 and pad_mode == "pad":
            padding = padding[0]
        return conv(x, self.weight, self.bias, stride, pad_mode, padding, dilation, self.groups)


class Conv2d(_ConvNd):
    _ND = 2


class Conv1d(_ConvNd):
    _ND = 1


class Conv3d(_ConvNd):
    _ND = 3


class _BatchNorm(Cell):
    """Batch normalization with mint's (PyTorch's) names and momentum: running = (1 - momentum) *
    running + momentum * batch (the variance unbiased); `weight` / `bias` when affine; in eval mode
    the running statistics normalize (the batch's without track_running_stats)."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, dtype=None):
        super().__init__()
        dt = dtype or _mstype.float32
        self.eps, self.momentum, self.affine, self.track = eps, momentum, affine, track_running_stats
        self.weight = _Parameter(_initializer("ones", (num_features,), dt), "weight") if affine else None
        self.bias = _Parameter(_initializer("zeros", (num_features,), dt), "bias") if affine else None
        self._ones = _Tensor(np.ones(num_features, np.float32), dt)
        self._zeros = _Tensor(np.zeros(num_features, np.float32), dt)
        if track_running_stats:
            self.running_mean = _Parameter(_initializer("zeros", (num_features,), dt), "running_mean",
                                           requires_grad=False)
            self.running_var = _Parameter(_initializer("ones", (num_features,), dt), "running_var",
                                          requires_grad=False)
            self.num_batches_tracked = _Parameter(_Tensor(0, _mstype.int64), "num_batches_tracked",
                                                  requires_grad=False)

    def construct(self, input):
        gamma = self.weight if self.affine else self._ones
        beta = self.bias if self.affine else self._zeros
        if self.training or not self.track:
            if self.track:
                _ops.assign_add(self.num_batches_tracked, _Tensor(1, _mstype.int64))
                return _FI.batch_norm_train(input, gamma, beta, self.eps, self.running_mean, self.running_var,
                                            self.momentum)
            return _FI.batch_norm_train(input, gamma, beta, self.eps)
        return _FI.batch_norm_eval(input, self.running_mean, self.running_var, gamma, beta, self.eps)


class BatchNorm1d(_BatchNorm):
    """Over (N, C) or (N, C, L) inputs: the statistics of each channel over the other axes."""


class BatchNorm2d(_BatchNorm):
    """Over (N, C, H, W) inputs: the statistics of each channel over the other axes."""


class BatchNorm3d(_BatchNorm):
    """Over (N, C, D, H, W) inputs: the statistics of each channel over the other axes."""


class SyncBatchNorm(_BatchNorm):
    """Batch normalization over (N, C, ...) whose training statistics cover the global batch of
    `process_group` (a group name; None: the world): each rank's per-channel sums of x and x * x
    and its element count are added up with one AllReduce, every rank normalizes with the global
    mean and (biased) variance, and the running statistics get the unbiased variance. In a group
    of one (without communication.init()) that is the local batch's BatchNorm; in eval mode the
    running statistics normalize. `momentum` None: the cumulative average (1 / num_batches_tracked).
    As MindSpore 2.10's, it needs its running statistics: track_running_stats=False raises
    ValueError when called."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 process_group=None, dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, dtype)
        from pycompile.communication.management import GlobalComm, get_group_size
        from pycompile.ops.operations_comm import AllReduce, ReduceOp
        self.process_group = process_group if process_group else GlobalComm.WORLD_COMM_GROUP
        self.world_size = get_group_size(self.process_group)
        self.allreduce = AllReduce(ReduceOp.SUM, self.process_group) if self.world_size > 1 else None

    def construct(self, input):
        if input.ndim < 2:
            raise ValueError(f"expected at least 2D input (got {input.ndim}D input)")
        if input.shape[1] == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        if not self.track:
            raise ValueError("running mean or running var can't be none for batch_norm.")
        gamma = self.weight if self.affine else self._ones
        beta = self.bias if self.affine else self._zeros
        if not self.training:
            return _FI.batch_norm_eval(input, self.running_mean, self.running_var, gamma, beta, self.eps)
        count = self.num_batches_tracked + 1
        _ops.assign(self.num_batches_tracked, count)
        factor = self.momentum if self.momentum is not None else 1.0 / _ops.cast(count, _mstype.float32)
        if self.allreduce is None:
            return _FI.batch_norm_train(input, gamma, beta, self.eps, self.running_mean, self.running_var, factor)
        return self._synced(input, gamma, beta, factor)

    def _synced(self, input, gamma, beta, factor):
        nd, c = input.ndim, input.shape[1]
        axes = (0,) + tuple(range(2, nd))
        x = _ops.cast(input, _mstype.float32)
        local = _ops.fill(_mstype.float32, (1,), float(input.size // c))
        sums = self.allreduce(_ops.cat([_ops.sum(x, axes), _ops.sum(x * x, axes), local]))
        n = sums[2 * c]
        mean = sums[:c] / n
        var = sums[c:2 * c] / n - mean * mean
        view = (1, c) + (1,) * (nd - 2)
        scale = gamma * _ops.rsqrt(var + self.eps)
        y = (x - _ops.reshape(mean, view)) * _ops.reshape(scale, view) + _ops.reshape(beta, view)
        unbiased = var * (n / _ops.maximum(n - 1.0, 1.0))
        _ops.assign(self.running_mean, self.running_mean * (1.0 - factor) + mean * factor)
        _ops.assign(self.running_var, self.running_var * (1.0 - factor) + unbiased * factor)
        return _ops.cast(y, input.dtype)


class Embedding(Cell):
    """weight (num_embeddings, embedding_dim) drawn from N(0, 1) (row padding_idx zero), or _weight."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False, dtype=None):
        super().__init__()
        dt = dtype or _mstype.float32
        if _weight is None:
            w = _initializer(Normal(1.0), (num_embeddings, embedding_dim), dt).asnumpy().copy()
            if padding_idx is not None:
                w[padding_idx] = 0
            _weight = _Tensor(w, dt)
        self.weight = _Parameter(_weight, "weight", requires_grad=not _freeze)
        self.padding_idx, self.max_norm, self.norm_type = padding_idx, max_norm, norm_type

    def construct(self, input):
        return _ops.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type)


class MaxPool2d(Cell):
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.args = (kernel_size, stride, padding, dilation, ceil_mode, return_indices)

    def construct(self, input):
        return functional.max_pool2d(input, *self.args)


class AvgPool2d(Cell):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__()
        self.args = (kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)

    def construct(self, input):
        return functional.avg_pool2d(input, *self.args)


class GroupNorm(Cell):
    """Group normalization over num_groups groups of channels; `weight` (ones) / `bias` (zeros),
    trained when affine."""

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, dtype=None):
        super().__init__()
        dt = dtype or _mstype.float32
        self.num_groups, self.eps = num_groups, eps
        # without affine MindSpore still holds them (ones and zeros), frozen
        self.weight = _Parameter(_initializer("ones", (num_channels,), dt), "weight", requires_grad=affine)
        self.bias = _Parameter(_initializer("zeros", (num_channels,), dt), "bias", requires_grad=affine)

    def construct(self, input):
        return _ops.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)


class PReLU(Cell):
    """max(0, x) + weight * min(0, x); weight num_parameters values (one, or one per channel) set to init."""

    def __init__(self, num_parameters=1, init=0.25, dtype=None):
        super().__init__()
        self.weight = _Parameter(_Tensor(np.full(num_parameters, init, np.float32), dtype or _mstype.float32),
                                 "weight")

    def construct(self, input):
        return _ops.prelu(input, self.weight)


class Unfold(Cell):
    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.args = (kernel_size, dilation, padding, stride)

    def construct(self, input):
        return _ops.unfold(input, *self.args)


class Fold(Cell):
    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.args = (output_size, kernel_size, dilation, padding, stride)

    def construct(self, input):
        size = _Tensor(np.array(self.args[0], np.int32))
        return _ops.fold(input, size, *self.args[1:])


class ConstantPad1d(_nn.ConstantPad1d):
    """nn's ConstantPad1d with mint's default value (None: zeros)."""

    def __init__(self, padding, value=None):
        super().__init__(padding, 0.0 if value is None else value)


class ConstantPad2d(_nn.ConstantPad2d):
    def __init__(self, padding, value=None):
        super().__init__(padding, 0.0 if value is None else value)


class ConstantPad3d(_nn.ConstantPad3d):
    def __init__(self, padding, value=None):
        super().__init__(padding, 0.0 if value is None else value)


class ZeroPad1d(_nn.ConstantPad1d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)


class ZeroPad3d(_nn.ConstantPad3d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)


class UpsamplingNearest2d(Cell):
    def __init__(self, size=None, scale_factor=None):
        super().__init__()
        self.size, self.scale_factor = size, scale_factor

    def construct(self, input):
        return _ops.interpolate(input, self.size, self.scale_factor, "nearest",
                                recompute_scale_factor=None if self.scale_factor is None else True)


class UpsamplingBilinear2d(Cell):
    """Bilinear resizing with align_corners=True (as PyTorch's UpsamplingBilinear2d)."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__()
        self.size, self.scale_factor = size, scale_factor

    def construct(self, input):
        return _ops.interpolate(input, self.size, self.scale_factor, "bilinear", True,
                                None if self.scale_factor is None else True)


class AvgPool1d(Cell):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__()
        self.args = (kernel_size, stride, padding, ceil_mode, count_include_pad)

    def construct(self, input):
        return functional.avg_pool1d(input, *self.args)


class AdaptiveMaxPool1d(Cell):
    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def construct(self, input):
        out = _ops.adaptive_max_pool2d(_ops.unsqueeze(input, 2), (1, self.output_size), self.return_indices)
        if self.return_indices:
            return _ops.squeeze(out[0], 2), _ops.squeeze(out[1], 2)
        return _ops.squeeze(out, 2)


class Dropout2d(Cell):
    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        self.p = p
        self.inplace = inplace

    def construct(self, input):
        if self.inplace:
            return functional.dropout2d(input, self.p, self.training, inplace=True)
        return _ops.dropout2d(input, self.p, self.training)


class Threshold(Cell):
    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold, self.value = threshold, value
        self.inplace = inplace

    def construct(self, input):
        if self.inplace:
            return functional.threshold(input, self.threshold, self.value, inplace=True)
        return _ops.threshold(input, self.threshold, self.value)


class CosineEmbeddingLoss(Cell):
    def __init__(self, margin=0.0, reduction="mean"):
        super().__init__()
        self.margin, self.reduction = margin, reduction

    def construct(self, input1, input2, target):
        return _ops.cosine_embedding_loss(input1, input2, target, self.margin, self.reduction)


class SoftMarginLoss(Cell):
    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = reduction

    def construct(self, input, target):
        return _ops.soft_margin_loss(input, target, self.reduction)


from pycompile.mint.nn._layers_more import ConvTranspose2d, MaxUnpool2d  # noqa: E402,F401
