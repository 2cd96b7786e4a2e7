"""mint.nn's ConvTranspose2d and MaxUnpool2d, with mint's (PyTorch's) arguments and Parameters;
MindSpore 2.10's CPU wheel has no kernel for them ("The kernel ConvTranspose2D unregistered", "The
kernel MaxUnpool2DExt unregistered"): tests/ops/test_mint_more.py checks them against NumPy in
PyNative and compiled."""
from __future__ import annotations

import math

from pycompile import ops as _ops
from pycompile.common import dtype as _mstype
from pycompile.common.initializer import HeUniform, Uniform
from pycompile.common.initializer import initializer as _initializer
from pycompile.common.parameter import Parameter as _Parameter
from pycompile.mint.nn import functional
from pycompile.nn import Cell


def _pair(v, what, cls_name="ConvTranspose2d"):
    if isinstance(v, int) and not isinstance(v, bool):
        return (v, v)
    if isinstance(v, (tuple, list)) and len(v) in (1, 2) and all(isinstance(e, int) for e in v):
        return (v[0], v[-1])
    raise ValueError(f"For '{cls_name}', '{what}' should be an int or a tuple of 1 or 2 ints, but got {v!r}.")


class ConvTranspose2d(Cell):
    """The transposed 2-D convolution (the gradient of Conv2d with respect to its input): an
    (N, C_in, H, W) or (C_in, H, W) input to H_out = (H - 1) stride - 2 padding + dilation
    (kernel - 1) + output_padding + 1 (likewise W). `weight` (in_channels, out_channels / groups,
    kh, kw) initialized HeUniform(sqrt(5)) and `bias` (out_channels,) Uniform(1 / sqrt(fan_in)),
    fan_in = out_channels / groups * kh * kw, as MindSpore's mint layer (and PyTorch's). Only
    padding_mode 'zeros'; `output_size` in the call picks the output_padding giving that size."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", dtype=None):
        super().__init__()
        name = "ConvTranspose2d"
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {name}')
        for what, v in (("in_channels", in_channels), ("out_channels", out_channels)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ValueError(f"For '{name}', '{what}' must be a non-negative int, but got {v!r}.")
        if isinstance(groups, bool) or not isinstance(groups, int) or groups <= 0:
            raise ValueError(f"For '{name}', 'groups' must be a positive int, but got {groups!r}.")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups.")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups.")
        self.kernel_size, self.stride = _pair(kernel_size, "kernel_size"), _pair(stride, "stride")
        self.padding, self.dilation = _pair(padding, "padding"), _pair(dilation, "dilation")
        self.output_padding = _pair(output_padding, "output_padding")
        for what in ("kernel_size", "stride", "dilation"):
            if min(getattr(self, what)) <= 0:
                raise ValueError(f"For '{name}', every item of '{what}' must be positive, but got "
                                 f"{getattr(self, what)}.")
        if min(self.padding) < 0 or min(self.output_padding) < 0:
            raise ValueError(f"For '{name}', 'padding' and 'output_padding' must be non-negative.")
        for op, s, d in zip(self.output_padding, self.stride, self.dilation):
            if op >= s and op >= d:
                raise ValueError(f"For '{name}', output_padding must be smaller than either stride or dilation, but "
                                 f"got output_padding {self.output_padding}, stride {self.stride}, dilation "
                                 f"{self.dilation}.")
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.padding_mode = padding_mode
        dt = dtype or _mstype.float32
        shape = (in_channels, out_channels // groups) + self.kernel_size
        self.weight = _Parameter(_initializer(HeUniform(math.sqrt(5)), shape, dt), "weight")
        fan_in = (out_channels // groups) * self.kernel_size[0] * self.kernel_size[1]
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0.0
        self.bias = _Parameter(_initializer(Uniform(bound), (out_channels,), dt), "bias") if bias else None

    def _output_padding(self, input, output_size):
        """The output_padding giving `output_size` ((H, W), or with the channel / batch axes)."""
        if output_size is None:
            return self.output_padding
        output_size = tuple(output_size)
        lead = input.ndim - 2
        if len(output_size) not in (2, 2 + lead):
            raise ValueError(f"ConvTranspose2D: for {input.ndim}D input, output_size must have 2 or {2 + lead} "
                             f"elements (got {len(output_size)})")
        want = output_size[-2:]
        least = tuple((input.shape[lead + d] - 1) * self.stride[d] - 2 * self.padding[d]
                      + self.dilation[d] * (self.kernel_size[d] - 1) + 1 for d in range(2))
        most = tuple(least[d] + self.stride[d] - 1 for d in range(2))
        if any(not least[d] <= want[d] <= most[d] for d in range(2)):
            raise ValueError(f"requested an output size of {want}, but valid sizes range from {list(least)} to "
                             f"{list(most)} (for an input of {tuple(input.shape)})")
        return tuple(want[d] - least[d] for d in range(2))

    def construct(self, input, output_size=None):
        if input.ndim not in (3, 4):
            raise ValueError(f"For 'ConvTranspose2d', the input must be 3-D (C, H, W) or 4-D (N, C, H, W), but got "
                             f"{input.ndim}-D.")
        output_padding = self._output_padding(input, output_size)
        x = _ops.expand_dims(input, 0) if input.ndim == 3 else input
        y = _ops.conv_transpose2d(x, self.weight, self.bias, self.stride, self.padding, output_padding,
                                  self.groups, self.dilation)
        return _ops.squeeze(y, 0) if input.ndim == 3 else y


class MaxUnpool2d(Cell):
    """The inverse of MaxPool2d(return_indices=True): functional.max_unpool2d with the constructor's
    kernel_size, stride (None: kernel_size) and padding; `output_size` in the call."""

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding

    def construct(self, input, indices, output_size=None):
        return functional.max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding, output_size)
