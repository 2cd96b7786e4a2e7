"""Convolution layers with MindSpore 2.10's constructor signatures, defaults, Parameter names and
shapes: Conv1d, Conv2d, Conv3d, Conv1dTranspose, Conv2dTranspose, Conv3dTranspose, and
Conv2dBnAct. Conv1d's weight is 4-D (out, in / group, 1, k), as in MindSpore, which runs a 1-D
convolution as a 2-D one. Every construct calls the functional layer (ops/function_conv.py):
errors are MindSpore's, raised at the user's line in graph code.
"""
from __future__ import annotations

import math

import numpy as np

from pycompile import ops
from pycompile.common import dtype as mstype
from pycompile.common.initializer import HeUniform, Uniform, initializer
from pycompile.common.parameter import Parameter
from pycompile.common.tensor import Tensor
from pycompile.nn.cell import Cell
from pycompile.ops import function_conv as FC


def _positive_int(name, what, v):
    if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
        raise ValueError(f"For '{name}', the '{what}' must be a positive int, but got {v!r}.")
    return v


def _ntuple(name, what, v, n):
    if isinstance(v, int) and not isinstance(v, bool):
        v = (v,) * n
    if not isinstance(v, tuple) or len(v) != n or not all(isinstance(i, int) and not isinstance(i, bool) for i in v):
        raise ValueError(f"For '{name}', the '{what}' must be an int or a tuple of {n} ints, but got {v!r}.")
    for i in v:
        if i <= 0:
            raise ValueError(f"For '{name}', the '{what} item' must be a positive int, but got {v!r}.")
    return v


def _fan_in(shape) -> int:
    return shape[1] * int(np.prod(shape[2:])) if len(shape) > 2 else shape[1]


class _Conv(Cell):
    """What every convolution layer shares: checks, the weight and bias Parameters, the repr."""

    def __init__(self, in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation, group, has_bias,
                 weight_init, bias_init, data_format="NCHW", transposed=False, dtype=mstype.float32):
        super().__init__()
        name = type(self).__name__
        self.in_channels = _positive_int(name, "in_channels", in_channels)
        self.out_channels = _positive_int(name, "out_channels", out_channels)
        self.kernel_size, self.stride, self.dilation = kernel_size, stride, dilation
        if not isinstance(pad_mode, str) or pad_mode not in ("valid", "same", "pad"):
            raise ValueError(f"For '{name}', the 'pad_mode' must be str and must be in '['valid', 'same', 'pad']', "
                             f"but got '{pad_mode}'.")
        self.pad_mode = pad_mode
        if data_format not in ("NCHW", "NCDHW"):
            raise ValueError(f"For '{name}', the \"{data_format}\" format only support in GPU target, but got the "
                             f"'format' is {data_format} and the platform is CPU.")
        self.data_format = data_format
        if isinstance(padding, int) and not isinstance(padding, bool):
            if padding < 0:
                raise ValueError(f"For '{name}', the 'padding' must be a non-negative int, but got {padding}.")
        elif isinstance(padding, tuple):
            if any(not isinstance(p, int) or p < 0 for p in padding):
                raise ValueError(f"For '{name}', the 'padding item' must be a non-negative int, but got {padding}.")
        else:
            raise TypeError(f"For '{name}', the type of 'padding' must be int or tuple(int), but got "
                            f"{type(padding).__name__}.")
        if pad_mode != "pad" and any((padding,) if isinstance(padding, int) else padding):
            raise ValueError(f"For '{'Conv3D' if data_format == 'NCDHW' else 'Conv2D'}', the 'pad' must be zero when "
                             f"'pad_mode' is not 'pad', but got 'pad': {padding} and 'pad_mode': {pad_mode}.")
        self.padding = padding
        self.group = _positive_int(name, "group", group)
        if in_channels % group:
            raise ValueError(f"For '{name}', the attr 'in_channels' must be divisible by attr 'group', but got "
                             f"'in_channels': {in_channels} and 'group': {group}.")
        if out_channels % group:
            raise ValueError(f"For '{name}', the 'out_channels' must be divisible by attr 'group', but got "
                             f"'out_channels': {out_channels} and 'group': {group}.")
        if not isinstance(has_bias, bool):
            raise TypeError(f"For '{name}', the 'has_bias' must be a bool, but got {type(has_bias).__name__}.")
        self.has_bias = has_bias
        shape = [in_channels, out_channels // group, *kernel_size] if transposed else \
            [out_channels, in_channels // group, *kernel_size]
        if weight_init is None:
            weight_init = HeUniform(math.sqrt(5))
        self.weight_init = weight_init
        self.weight = Parameter(initializer(weight_init, shape, dtype=dtype), name="weight")
        self.bias_init = bias_init
        self.bias = None
        if has_bias:
            if bias_init is None:
                fan_in = _fan_in(shape)
                bias_init = Uniform(1 / math.sqrt(fan_in)) if fan_in else "zeros"
                self.bias_init = bias_init
            self.bias = Parameter(initializer(bias_init, [out_channels], dtype=dtype), name="bias")

    def _add_bias(self, out, nd):
        if self.has_bias:
            out = out + ops.reshape(self.bias, (1, self.out_channels) + (1,) * (nd - 2))
        return out

    def extend_repr(self):
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, pad_mode={self.pad_mode}, padding={self.padding}, dilation={self.dilation}, "
                f"group={self.group}, has_bias={self.has_bias}, weight_init={self.weight_init}, "
                f"bias_init={self.bias_init}, format={self.data_format}")


def _group_divides(in_channels, out_channels, group):
    if not (isinstance(group, int) and group > 0 and in_channels % group == 0 and out_channels % group == 0):
        raise ValueError(f"The argument 'group' should be divisible by 'in_channels' and 'out_channels', but got "
                         f"group:{group}, in_channels:{in_channels}, out_channels:{out_channels}.")


def _pads(padding, n):
    """An int or a tuple of 2 n pads (MindSpore's order: (top, bottom, left, right))."""
    if isinstance(padding, int):
        return (padding,) * (2 * n)
    if len(padding) != 2 * n:
        raise ValueError(f"For 'Conv', the length of 'padding' must be {2 * n}, but got {padding}")
    return tuple(padding)


class Conv2d(_Conv):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0, dilation=1,
                 group=1, has_bias=False, weight_init=None, bias_init=None, data_format="NCHW", dtype=mstype.float32):
        _group_divides(in_channels, out_channels, group)
        kernel_size = _ntuple("Conv2d", "kernel_size", kernel_size, 2)
        stride = _ntuple("Conv2d", "stride", stride, 2)
        dilation = _ntuple("Conv2d", "dilation", dilation, 2)
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation, group, has_bias,
                         weight_init, bias_init, data_format, dtype=dtype)

    def construct(self, x):
        out = FC.convolution("Conv2D", x, self.weight, self.stride, self.dilation, self.pad_mode,
                             _pads(self.padding, 2), self.group)
        return self._add_bias(out, 4)


class Conv3d(_Conv):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0, dilation=1,
                 group=1, has_bias=False, weight_init=None, bias_init=None, data_format="NCDHW", dtype=mstype.float32):
        if in_channels % group or out_channels % group:
            raise ValueError("The argument 'group' should be divisible by 'in_channels' and 'out_channels'")
        kernel_size = _ntuple("Conv3d", "kernel_size", kernel_size, 3)
        stride = _ntuple("Conv3d", "stride", stride, 3)
        dilation = _ntuple("Conv3d", "dilation", dilation, 3)
        if isinstance(padding, tuple) and len(padding) != 6:
            raise ValueError(f"For 'Conv3d', the 'padding size' must be equal to 6, but got {len(padding)}.")
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation, group, has_bias,
                         weight_init, bias_init, data_format, dtype=dtype)

    def construct(self, x):
        out = FC.convolution("Conv3D", x, self.weight, self.stride, self.dilation, self.pad_mode,
                             _pads(self.padding, 3), self.group)
        return self._add_bias(out, 5)


def _int_arg(name, what, v, minimum):
    if not isinstance(v, int) or isinstance(v, bool):
        raise TypeError(f"For '{name}', the '{what}' must be 'int', but got '{type(v).__name__}'.")
    if v < minimum:
        raise ValueError(f"For '{name}', the '{what}' must be {'>= ' + str(minimum)}, but got {v}.")
    return v


def _weight_3d_to_4d(name, weight_init):
    if isinstance(weight_init, Tensor):
        if weight_init.ndim != 3:
            raise ValueError(f"For '{name}', the 'weight_init_shape' must be equal to 3, but got {weight_init.ndim}.")
        return Tensor(np.expand_dims(weight_init.asnumpy(), 2), weight_init.dtype)
    return weight_init


class Conv1d(_Conv):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0, dilation=1,
                 group=1, has_bias=False, weight_init=None, bias_init=None, dtype=mstype.float32):
        for v, what, lo in ((kernel_size, "kernel_size", 1), (stride, "stride", 1), (padding, "padding", 0),
                            (dilation, "dilation", 1)):
            _int_arg("Conv1d", what, v, lo)
        _group_divides(in_channels, out_channels, group)
        super().__init__(in_channels, out_channels, (1, kernel_size), (1, stride), pad_mode, padding, (1, dilation),
                         group, has_bias, _weight_3d_to_4d("Conv1d", weight_init), bias_init, dtype=dtype)
        self.padding = (0, 0, padding, padding)

    def construct(self, x):
        out = FC.convolution("Conv2D", ops.expand_dims(x, 2), self.weight, self.stride, self.dilation, self.pad_mode,
                             self.padding, self.group)
        return ops.squeeze(self._add_bias(out, 4), 2)


def deconv_length(pad_mode, n, k, s, d, padding) -> int:
    """MindSpore's output length of a transposed convolution (nn/layer/conv.py)."""
    k = k + (k - 1) * (d - 1)
    if pad_mode == "valid":
        return n * s + max(k - s, 0)
    if pad_mode == "same":
        return n * s
    return n * s - padding + k - s


class _ConvTranspose(_Conv):
    _sp = 2

    def _transpose(self, x, pads):
        sp = self._sp
        t = ops.functional._tensor_type(type(self).__name__, x)
        if t.ndim != sp + 2:
            raise ValueError(f"For '{type(self).__name__}', the dimension of input must be {sp + 2}D, but got {t.ndim}.")
        size = [t.shape[0], self.out_channels]
        for i in range(sp):
            size.append(deconv_length(self.pad_mode, t.shape[2 + i], self.kernel_size[i], self.stride[i],
                                      self.dilation[i], pads[2 * i] + pads[2 * i + 1]))
        return FC.conv_backprop_input("Conv2DTranspose" if sp == 2 else "Conv3DTranspose", x, self.weight, tuple(size),
                                      self.stride, self.dilation, self.pad_mode, pads, self.group)


class Conv2dTranspose(_ConvTranspose):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0, output_padding=0,
                 dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None, dtype=mstype.float32):
        kernel_size = _ntuple("Conv2dTranspose", "kernel_size", kernel_size, 2)
        stride = _ntuple("Conv2dTranspose", "stride", stride, 2)
        dilation = _ntuple("Conv2dTranspose", "dilation", dilation, 2)
        if isinstance(padding, tuple) and len(padding) != 4:
            raise ValueError(f"For 'Conv2dTranspose', the 'padding size' must be equal to 4, but got {len(padding)}.")
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation, group, has_bias,
                         weight_init, bias_init, transposed=True, dtype=dtype)
        op_ = (output_padding,) * 2 if isinstance(output_padding, int) else tuple(output_padding)
        for i, v in enumerate(op_):
            if v < 0 or v >= max(dilation[i], stride[i]):
                raise ValueError("output_padding must be in range of [0, max(stride_h, dilation_h)).")
        if any(op_) and pad_mode != "pad":
            raise ValueError("when output_padding is not zero, pad_mode must be 'pad'")
        self.output_padding = output_padding
        self._op = op_

    def construct(self, x):
        out = self._add_bias(self._transpose(x, _pads(self.padding, 2)), 4)
        if any(self._op):
            out = ops.pad(out, (0, self._op[1], 0, self._op[0]))
        return out


class Conv3dTranspose(_ConvTranspose):
    _sp = 3

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0, dilation=1,
                 group=1, output_padding=0, has_bias=False, weight_init=None, bias_init=None, data_format="NCDHW",
                 dtype=mstype.float32):
        kernel_size = _ntuple("Conv3dTranspose", "kernel_size", kernel_size, 3)
        stride = _ntuple("Conv3dTranspose", "stride", stride, 3)
        dilation = _ntuple("Conv3dTranspose", "dilation", dilation, 3)
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation, group, has_bias,
                         weight_init, bias_init, data_format, transposed=True, dtype=dtype)
        self.output_padding = output_padding
        self._op = (output_padding,) * 3 if isinstance(output_padding, int) else tuple(output_padding)

    def construct(self, x):
        out = self._add_bias(self._transpose(x, _pads(self.padding, 3)), 5)
        if any(self._op):
            out = ops.pad(out, (0, self._op[2], 0, self._op[1], 0, self._op[0]))
        return out


class Conv1dTranspose(_ConvTranspose):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0, dilation=1,
                 group=1, has_bias=False, weight_init=None, bias_init=None, dtype=mstype.float32):
        for v, what, lo in ((kernel_size, "kernel_size", 1), (stride, "stride", 1), (padding, "padding", 0),
                            (dilation, "dilation", 1)):
            _int_arg("Conv1dTranspose", what, v, lo)
        super().__init__(in_channels, out_channels, (1, kernel_size), (1, stride), pad_mode, padding, (1, dilation),
                         group, has_bias, _weight_3d_to_4d("Conv1dTranspose", weight_init), bias_init, transposed=True,
                         dtype=dtype)
        self.padding = (0, 0, padding, padding)

    def construct(self, x):
        t = ops.functional._tensor_type("Conv1dTranspose", x)
        if t.ndim != 3:
            raise ValueError(f"For 'Conv1dTranspose', the dimension of input must be 3d, but got {t.ndim}.")
        out = self._add_bias(self._transpose(ops.expand_dims(x, 2), self.padding), 4)
        return ops.squeeze(out, 2)


class Conv2dBnAct(Cell):
    """Conv2d, then BatchNorm2d (has_bn) and an activation: attributes conv, batchnorm, activation."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0, dilation=1,
                 group=1, has_bias=False, weight_init="normal", bias_init="zeros", has_bn=False, momentum=0.997,
                 eps=1e-5, activation=None, alpha=0.2, after_fake=True):
        super().__init__()
        from pycompile.nn.layers import get_activation
        from pycompile.nn.normalization import BatchNorm2d
        self.conv = Conv2d(in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation, group,
                           has_bias, weight_init, bias_init)
        self.has_bn = has_bn
        self.has_act = activation is not None
        if has_bn:
            self.batchnorm = BatchNorm2d(out_channels, eps, momentum)
        self.activation = get_activation(activation) if isinstance(activation, str) else activation

    def construct(self, x):
        x = self.conv(x)
        if self.has_bn:
            x = self.batchnorm(x)
        if self.has_act:
            x = self.activation(x)
        return x
