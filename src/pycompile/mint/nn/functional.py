"""`mindspore.mint.nn.functional`: activations, losses, dropout, linear, normalization and
pooling with MindSpore 2.10's PyTorch-style signatures, each the pycompile op that computes it
(a part of its 79 names: docs/guide/mindspore-api.md, "mint")."""
from __future__ import annotations

import numbers

from pycompile import ops as _ops
from pycompile.common.tensor import TensorMethods as _TensorMethods
from pycompile.ops._table import OpRuntimeError as _OpRuntimeError
from pycompile.ops._table import OpTypeError as _OpTypeError
from pycompile.ops.entries.inplace import _become
from pycompile.ops.inplace_functions import INPLACE_FUNCTIONS as _INPLACE_FUNCTIONS

# functions whose op takes the same arguments in the same order
_SAME = ("sigmoid", "tanh", "hardsigmoid", "softshrink", "hardshrink", "softplus", "prelu", "mse_loss", "l1_loss",
         "cross_entropy", "embedding", "grid_sample", "interpolate", "unfold", "fold", "group_norm")
for _name in _SAME:
    globals()[_name] = getattr(_ops, _name)
upsample = _ops.interpolate        # mint's upsample: interpolate's arguments


# `inplace=True`: the result is written into `input`, which is returned (PyTorch's and MindSpore's
# documented meaning; MindSpore 2.10's CPU wheel has no kernel for it: "The kernel InplaceReLU
# unregistered"), by the in-place forms' machinery below: a PyNative Tensor's buffer overwritten, a
# Parameter assigned, in graph code the name passed first rebound (`__pycompile_inplace_fn__ =
# "inplace"`: only when the call asks for it).
def _when_inplace(fn):
    fn.__pycompile_inplace_fn__ = "inplace"
    return fn


def _result(name, input, result, inplace):
    if not inplace:
        return result
    _input(name, input)
    return _become(name, input, result)


@_when_inplace
def relu(input, inplace=False):
    return _result("relu", input, _ops.relu(input), inplace)


@_when_inplace
def relu6(input, inplace=False):
    return _result("relu6", input, _ops.relu6(input), inplace)


@_when_inplace
def silu(input, inplace=False):
    return _result("silu", input, _ops.silu(input), inplace)


@_when_inplace
def elu(input, alpha=1.0, inplace=False):
    """x for x > 0, alpha * (exp(x) - 1) otherwise (any alpha: MindSpore's CPU Elu, behind ops.elu,
    takes only 1.0)."""
    if alpha == 1.0:
        return _result("elu", input, _ops.elu(input), inplace)
    return _result("elu", input, _ops.where(input > 0, input, _ops.expm1(input) * alpha), inplace)


@_when_inplace
def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    return _result("hardtanh", input, _ops.hardtanh(input, min_val, max_val), inplace)


def hardswish(input):
    return _ops.hardswish(input)


def mish(input):
    return _ops.mish(input)


def selu(input):
    return _ops.selu(input)


def logsigmoid(input):
    return _ops.logsigmoid(input)


def glu(input, dim=-1):
    return _ops.glu(input, dim)


def binary_cross_entropy(input, target, weight=None, reduction="mean"):
    return _ops.binary_cross_entropy(input, target, weight, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, reduction="mean", pos_weight=None):
    return _ops.binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction)


def kl_div(input, target, reduction="mean", log_target=False):
    """input: log-probabilities; target: probabilities, or log-probabilities with log_target."""
    if log_target:
        pointwise = _ops.exp(target) * (target - input)
        if reduction == "none":
            return pointwise
        if reduction == "sum":
            return pointwise.sum()
        if reduction == "batchmean":
            return pointwise.sum() / input.shape[0]
        return pointwise.mean()
    return _ops.kl_div(input, target, reduction)


def nll_loss(input, target, weight=None, ignore_index=-100, reduction="mean"):
    return _ops.nll_loss(input, target, weight, ignore_index, reduction)


def smooth_l1_loss(input, target, reduction="mean", beta=1.0):
    return _ops.smooth_l1_loss(input, target, beta, reduction)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    return _ops.max_pool2d(input, kernel_size, stride, padding, dilation, return_indices, ceil_mode)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return _ops.avg_pool2d(input, kernel_size, kernel_size if stride is None else stride, padding, ceil_mode,
                           count_include_pad, divisor_override or 0)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    return _ops.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def gelu(input, approximate="none"):
    return _ops.gelu(input, approximate)


def softmax(input, dim=None, dtype=None):
    x = input if dtype is None else _ops.cast(input, dtype)
    return _ops.softmax(x, -1 if dim is None else dim)


def log_softmax(input, dim=None, dtype=None):
    x = input if dtype is None else _ops.cast(input, dtype)
    return _ops.log_softmax(x, -1 if dim is None else dim)


def leaky_relu(input, negative_slope=0.01):
    return _ops.leaky_relu(input, negative_slope)


@_when_inplace
def dropout(input, p=0.5, training=True, inplace=False):
    return _result("dropout", input, _ops.dropout(input, p, training), inplace)


def linear(input, weight, bias=None):
    """input @ weight.T + bias."""
    return _ops.dense(input, weight, bias)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalize over the trailing len(normalized_shape) axes; weight / bias default to 1 / 0."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    axis = input.ndim - len(shape)
    if weight is None:
        weight = _ops.ones(shape, input.dtype)
    if bias is None:
        bias = _ops.zeros(shape, input.dtype)
    return _ops.layer_norm(input, weight, bias, axis, axis, eps)


def one_hot(tensor, num_classes=-1):
    depth = int(tensor.max()) + 1 if num_classes == -1 else num_classes
    return _ops.one_hot(tensor, depth, 1, 0, -1)


def pad(input, pad, mode="constant", value=None):
    return _ops.pad(input, pad, mode, value)


def _conv(op, input, weight, bias, stride, padding, dilation, groups):
    if isinstance(padding, str):            # 'same' / 'valid'
        return op(input, weight, bias, stride, padding, 0, dilation, groups)
    return op(input, weight, bias, stride, "pad", padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution, padding an int, a (height, width) pair, or 'same' / 'valid'."""
    return _conv(_ops.conv2d, input, weight, bias, stride, padding, dilation, groups)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(_ops.conv1d, input, weight, bias, stride, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-D convolution, padding an int, a (depth, height, width) triple, or 'same' / 'valid'."""
    return _conv(_ops.conv3d, input, weight, bias, stride, padding, dilation, groups)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return _ops.avg_pool3d(input, kernel_size, kernel_size if stride is None else stride, padding, ceil_mode,
                           count_include_pad, divisor_override or 0)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Over the last axis of (N, C, L) / (C, L): mint's return_indices gives the positions too (the
    2-D pooling over a height of 1, whose flat positions are the 1-D ones)."""
    if not return_indices:
        return _ops.adaptive_max_pool1d(input, output_size)
    out, idx = _ops.adaptive_max_pool2d(_ops.expand_dims(input, -2), (1, output_size), True)
    return _ops.squeeze(out, -2), _ops.squeeze(idx, -2)


def flatten(input, start_dim=0, end_dim=-1):
    """mint's flatten: from axis 0 by default (ops.flatten starts at 1)."""
    return _ops.flatten(input, start_dim=start_dim, end_dim=end_dim)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction="mean"):
    return _ops.cosine_embedding_loss(input1, input2, target, margin, reduction)


def adaptive_avg_pool3d(input, output_size):
    """(N, C, D, H, W) or (C, D, H, W) to `output_size` (None keeps an axis): nn.AdaptiveAvgPool3d's
    windows, [floor(i L / o), ceil((i + 1) L / o)) along each axis."""
    from pycompile.nn import AdaptiveAvgPool3d
    return AdaptiveAvgPool3d(output_size)(input)


def adaptive_avg_pool1d(input, output_size):
    return _ops.adaptive_avg_pool1d(input, output_size)


def adaptive_avg_pool2d(input, output_size):
    return _ops.adaptive_avg_pool2d(input, output_size)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    return _ops.adaptive_max_pool2d(input, output_size, return_indices)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    return _ops.avg_pool1d(input, kernel_size, kernel_size if stride is None else stride, padding, ceil_mode,
                           count_include_pad)


def pixel_shuffle(input, upscale_factor):
    return _ops.pixel_shuffle(input, upscale_factor)


@_when_inplace
def threshold(input, threshold, value, inplace=False):
    """input where input > threshold, else value."""
    return _result("threshold", input, _ops.threshold(input, threshold, value), inplace)


@_when_inplace
def dropout2d(input, p=0.5, training=True, inplace=False):
    return _result("dropout2d", input, _ops.dropout2d(input, p, training), inplace)


def normalize(input, p=2.0, dim=1, eps=1e-12):
    """input / max(||input||_p along dim, eps)."""
    norm = _ops.pow(_ops.sum(_ops.pow(_ops.abs(input), p), dim, True), 1.0 / p)
    return input / _ops.clamp(norm, eps)


def _pair(v):
    """An int, or a 1- or 2-tuple: a 1-tuple stands for both spatial axes (mint's)."""
    if isinstance(v, (tuple, list)) and len(v) == 1:
        return (v[0], v[0])
    return v


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of max_pool2d with return_indices: each value of an (N, C, H, W) or (C, H, W)
    input written at its flat index within its plane of the (H - 1) * stride - 2 * padding +
    kernel_size output (or `output_size`: (H, W), (C, H, W) or (N, C, H, W), within a stride of
    that size), zeros elsewhere; stride None: kernel_size."""
    return _ops.max_unpool2d(input, indices, _pair(kernel_size), _pair(stride), _pair(padding),
                             tuple(output_size) if output_size is not None else None)


# ---- in-place forms: the result written into `input`, `input` returned --------------------------------
# ops/entries/inplace.py's machinery: a PyNative Tensor's buffer is overwritten (every reference sees
# the change), a Parameter is written with ops.assign (in graph code too); in graph code a tensor is a
# value, so the frontend rebinds the name passed first to the result (`__pycompile_inplace_fn__`, and
# the name registered for loops and branches), as it does for `ops.clamp_(x, ...)`.
def _inplace_fn(fn):
    fn.__pycompile_inplace_fn__ = True
    _INPLACE_FUNCTIONS.setdefault(fn.__name__, fn)
    return fn


def _number(name, what, v):
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise _OpTypeError(f"For '{name}', '{what}' must be an int or a float, but got {type(v).__name__}.")


def _input(name, input):
    if not isinstance(input, _TensorMethods):
        raise _OpTypeError(f"For '{name}', 'input' must be a Tensor, but got {type(input).__name__}.")


@_inplace_fn
def relu_(input):
    """max(input, 0) written into input; returns input."""
    _input("relu_", input)
    return _become("relu_", input, _ops.relu(input))


@_inplace_fn
def elu_(input, alpha=1.0):
    """input where input > 0, alpha * (exp(input) - 1) elsewhere, written into input (a float
    tensor); returns input."""
    _input("elu_", input)
    _number("elu_", "alpha", alpha)
    if not input.dtype.is_float:
        raise _OpRuntimeError(f"For 'elu_', the dtype of 'input' must be float16, float32 or bfloat16, but got "
                              f"{input.dtype}.")
    return _become("elu_", input, elu(input, alpha))


@_inplace_fn
def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """input clamped to [min_val, max_val], written into input; returns input."""
    _input("hardtanh_", input)
    _number("hardtanh_", "min_val", min_val)
    _number("hardtanh_", "max_val", max_val)
    return _become("hardtanh_", input, _ops.hardtanh(input, min_val, max_val))


@_inplace_fn
def threshold_(input, threshold, value):
    """input where input > threshold, else value, written into input; returns input."""
    _input("threshold_", input)
    _number("threshold_", "threshold", threshold)
    _number("threshold_", "value", value)
    return _become("threshold_", input, _ops.threshold(input, threshold, value))
