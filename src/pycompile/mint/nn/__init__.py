"""`mindspore.mint.nn`: MindSpore's PyTorch-style layers (a part of its 87 names:
docs/guide/mindspore-api.md, "mint"); each is the pycompile Cell or op that computes it."""
from __future__ import annotations

from pycompile import nn as _nn
from pycompile import ops as _ops
from pycompile.common import dtype as _mstype
from pycompile.common.initializer import initializer as _initializer
from pycompile.common.parameter import Parameter as _Parameter
from pycompile.mint.nn import functional  # noqa: F401
from pycompile.nn import Cell

# layers whose class is MindSpore's nn one: the same constructor arguments as mint's
for _name in ("ReLU", "Sigmoid", "Tanh", "Mish", "LogSigmoid", "MSELoss", "L1Loss", "BCELoss", "CrossEntropyLoss",
              "NLLLoss", "Identity", "PixelShuffle", "ZeroPad2d", "ReflectionPad1d", "ReflectionPad2d",
              "ReplicationPad1d", "ReplicationPad2d", "Upsample", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
              "AdaptiveMaxPool2d"):
    globals()[_name] = getattr(_nn, _name)


class _Elementwise(Cell):
    """A layer applying functional.<_FN> with the constructor's arguments (`inplace` accepted)."""
    _FN = None

    def __init__(self, *args, inplace=False):
        super().__init__()
        self.args = args

    def construct(self, input):
        return getattr(functional, self._FN)(input, *self.args)


class ReLU6(_Elementwise):
    _FN = "relu6"

    def __init__(self, inplace=False):
        super().__init__()


class SiLU(_Elementwise):
    _FN = "silu"

    def __init__(self, inplace=False):
        super().__init__()


class ELU(_Elementwise):
    _FN = "elu"

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__(alpha)


class Hardtanh(_Elementwise):
    _FN = "hardtanh"

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        super().__init__(min_val, max_val)


class GLU(_Elementwise):
    _FN = "glu"

    def __init__(self, dim=-1):
        super().__init__(dim)


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

    def construct(self, input):
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
