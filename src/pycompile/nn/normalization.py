"""Normalization layers with MindSpore 2.10's signatures, Parameter names ('gamma', 'beta',
'mean', 'variance') and momentum convention: BatchNorm1d / 2d / 3d, GroupNorm, InstanceNorm2d.

BatchNorm in training mode (or with use_batch_statistics=True) normalizes with the batch's
statistics and updates moving_mean / moving_variance in place through Assign:
moving = momentum * moving + (1 - momentum) * batch, with MindSpore's `momentum` (default 0.9)
and the unbiased batch variance, as MindSpore's CPU kernel does. In eval mode it is the
per-channel affine map x * scale + shift, which a convolution before it takes into its
epilogue.
"""
from __future__ import annotations

from pycompile import ops
from pycompile.common import dtype as mstype
from pycompile.common.initializer import initializer
from pycompile.common.parameter import Parameter
from pycompile.nn.cell import Cell
from pycompile.ops import function_image as FI


class _BatchNorm(Cell):
    _dims = (4,)

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones", beta_init="zeros",
                 moving_mean_init="zeros", moving_var_init="ones", use_batch_statistics=None, data_format="NCHW",
                 dtype=mstype.float32):
        super().__init__()
        name = type(self).__name__
        if not isinstance(num_features, int) or isinstance(num_features, bool):
            raise TypeError(f"For '{name}', the 'num_features' must be 'int', but got '{type(num_features).__name__}'.")
        if num_features < 1:
            raise ValueError(f"For '{name}', the 'num_features' must be at least 1, but got {num_features}.")
        if momentum < 0 or momentum > 1:
            raise ValueError(f"For '{name}', the 'momentum' must be a number in range [0, 1], but got {momentum}.")
        if data_format != "NCHW":
            raise ValueError(f"For '{name}', the 'NHWC' format only support in GPU target, but got device target CPU.")
        if use_batch_statistics is not None and not isinstance(use_batch_statistics, bool):
            raise ValueError(f"For '{name}', the 'use_batch_statistics' must be a boolean value or None, but got "
                             f"{use_batch_statistics}.")
        self.use_batch_statistics = use_batch_statistics
        self.num_features, self.eps = num_features, eps
        self.momentum = 1.0 - momentum           # MindSpore keeps the batch's weight
        self.moving_mean = Parameter(initializer(moving_mean_init, num_features, dtype=dtype), name="mean",
                                     requires_grad=False)
        self.moving_variance = Parameter(initializer(moving_var_init, num_features, dtype=dtype), name="variance",
                                         requires_grad=False)
        self.gamma = Parameter(initializer(gamma_init, num_features, dtype=dtype), name="gamma", requires_grad=affine)
        self.beta = Parameter(initializer(beta_init, num_features, dtype=dtype), name="beta", requires_grad=affine)

    def _check_input_dim(self, x):
        nd = ops.functional._tensor_type(type(self).__name__, x).ndim
        if nd not in self._dims:
            name = type(self).__name__
            if len(self._dims) == 2:
                raise ValueError(f"For '{name}', the must have 2 dims or 3 dims, but got {nd}.")
            raise ValueError(f"For '{name}', the in_shape must have {self._dims[0]} dims, but got {nd}.")

    def construct(self, x):
        self._check_input_dim(x)
        batch_stats = self.training if self.use_batch_statistics is None else self.use_batch_statistics
        for v, what in ((self.gamma, "scale"), (self.beta, "bias")):
            FI._check_channels("BatchNorm", x, v, what)
        if batch_stats:
            return FI.batch_norm_train(x, self.gamma, self.beta, self.eps, self.moving_mean, self.moving_variance,
                                       self.momentum)
        return FI.batch_norm_eval(x, self.moving_mean, self.moving_variance, self.gamma, self.beta, self.eps)

    def extend_repr(self):
        return (f"num_features={self.num_features}, eps={self.eps}, momentum={1.0 - self.momentum}, "
                f"gamma={self.gamma}, beta={self.beta}, moving_mean={self.moving_mean}, "
                f"moving_variance={self.moving_variance}")


class BatchNorm1d(_BatchNorm):
    _dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    _dims = (4,)


class BatchNorm3d(Cell):
    """BatchNorm2d (attribute bn2d, as in MindSpore: Parameters bn2d.moving_mean ...) on an
    (N, C, D * H, W) view."""

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones", beta_init="zeros",
                 moving_mean_init="zeros", moving_var_init="ones", use_batch_statistics=None, dtype=mstype.float32):
        super().__init__()
        self.bn2d = BatchNorm2d(num_features, eps, momentum, affine, gamma_init, beta_init, moving_mean_init,
                                moving_var_init, use_batch_statistics, dtype=dtype)

    def construct(self, x):
        t = ops.functional._tensor_type("BatchNorm3d", x)
        if t.ndim != 5:
            raise ValueError(f"For 'BatchNorm3d', the in_shape must have 5 dims, but got {t.ndim}.")
        n, c, d, h, w = t.shape
        return ops.reshape(self.bn2d(ops.reshape(x, (n, c, d * h, w))), t.shape)


class GroupNorm(Cell):
    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, gamma_init="ones", beta_init="zeros",
                 dtype=mstype.float32):
        super().__init__()
        for v, what in ((num_groups, "num_groups"), (num_channels, "num_channels")):
            if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
                raise ValueError(f"For 'GroupNorm', the '{what}' must be a positive int, but got {v!r}.")
        if num_channels % num_groups:
            raise ValueError(f"For 'GroupNorm', the 'num_channels' must be divided by 'num_groups', but got "
                             f"'num_channels': {num_channels}, 'num_groups': {num_groups}.")
        if not isinstance(eps, float):
            raise TypeError(f"For 'GroupNorm', the 'eps' must be 'float', but got '{type(eps).__name__}'.")
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        self.gamma = Parameter(initializer(gamma_init, num_channels, dtype=dtype), name="gamma", requires_grad=affine)
        self.beta = Parameter(initializer(beta_init, num_channels, dtype=dtype), name="beta", requires_grad=affine)

    def construct(self, x):
        t = ops.functional._tensor_type("GroupNorm", x)
        if t.ndim < 2 or t.shape[1] != self.num_channels:
            raise ValueError(f"For 'GroupNorm', the channel(the second dim of the input 'x') must be equal to "
                             f"num_channels, but got channel: {t.shape[1] if t.ndim > 1 else None}, num_channels: "
                             f"{self.num_channels}.")
        return FI.group_norm(x, self.num_groups, self.gamma, self.beta, self.eps)

    def extend_repr(self):
        return f"num_groups={self.num_groups}, num_channels={self.num_channels}"


class _InstanceNorm(Cell):
    """Instance statistics in training and eval, over every axis after (N, C) (MindSpore 2.10 has
    no CPU kernel to compare the moving statistics with; they are kept as Parameters and not
    updated). Subclasses set `_dims`, the input's rank."""

    _dims = 4

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, gamma_init="ones", beta_init="zeros",
                 dtype=mstype.float32):
        super().__init__()
        name = type(self).__name__
        if not isinstance(num_features, int) or num_features < 1:
            raise ValueError(f"For '{name}', the 'num_features' must be at least 1, but got {num_features}.")
        if not isinstance(eps, float) or not isinstance(momentum, float):
            raise TypeError(f"For '{name}', 'eps' and 'momentum' must be floats")
        if momentum < 0 or momentum > 1:
            raise ValueError(f"For '{name}', the 'momentum' must be a number in range [0, 1], but got {momentum}.")
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.moving_mean = Parameter(initializer("zeros", num_features, dtype=dtype), name="mean", requires_grad=False)
        self.moving_variance = Parameter(initializer("ones", num_features, dtype=dtype), name="variance",
                                         requires_grad=False)
        self.gamma = Parameter(initializer(gamma_init, num_features, dtype=dtype), name="gamma", requires_grad=affine)
        self.beta = Parameter(initializer(beta_init, num_features, dtype=dtype), name="beta", requires_grad=affine)

    def construct(self, x):
        name = type(self).__name__
        t = ops.functional._tensor_type(name, x)
        if t.ndim != self._dims:
            raise ValueError(f"For '{name}', the in_shape must have {self._dims} dims, but got {t.ndim}.")
        return FI.instance_norm(x, weight=self.gamma, bias=self.beta, eps=self.eps)

    def extend_repr(self):
        return (f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}, gamma={self.gamma}, "
                f"beta={self.beta}, moving_mean={self.moving_mean}, moving_variance={self.moving_variance}")


class InstanceNorm1d(_InstanceNorm):
    """Instance normalization of (N, C, L) inputs."""
    _dims = 3


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization of (N, C, H, W) inputs."""
    _dims = 4


class InstanceNorm3d(_InstanceNorm):
    """Instance normalization of (N, C, D, H, W) inputs."""
    _dims = 5
