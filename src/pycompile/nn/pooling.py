"""Pooling layers with MindSpore 2.10's signatures and behaviour: MaxPool1d / MaxPool2d,
AvgPool1d / AvgPool2d (pad_mode 'valid' / 'same' through MindSpore's MaxPool / AvgPool
primitives; 'pad', ceil_mode, count_include_pad, divisor_override, dilation and return_indices
through its 3-D pooling primitives), and the adaptive poolings. Unbatched inputs (C, H, W) are
accepted where MindSpore accepts them.
"""
from __future__ import annotations

from pycompile import ops
from pycompile.nn.cell import Cell
from pycompile.ops import function_conv as FC


def _int_or_tuple(name, what, v):
    err = f"For '{name}', the '{what}' must be an positive int number or a tuple, but got {v}"
    if isinstance(v, int) and not isinstance(v, bool):
        if v <= 0:
            raise ValueError(err)
        return v
    if not isinstance(v, tuple) or any(not isinstance(i, int) or i <= 0 for i in v):
        raise ValueError(err) if isinstance(v, tuple) else TypeError(
            f"For '{name}', the '{what}' must be int or tuple, but got {type(v).__name__}.")
    return v[0] if len(v) == 1 else v


class _PoolNd(Cell):
    def __init__(self, kernel_size, stride, pad_mode, data_format="NCHW"):
        super().__init__()
        name = type(self).__name__
        if not isinstance(pad_mode, str) or pad_mode.upper() not in ("VALID", "SAME", "PAD"):
            raise ValueError(f"For '{name}', the 'pad_mode' must be str and must be in '['VALID', 'SAME', 'PAD']', "
                             f"but got '{pad_mode}'.")
        self.pad_mode = pad_mode.upper()
        # MindSpore 2.10 takes 'NHWC' on its GPU target only: the CPU build refuses it here (the
        # layer read an NHWC input as NCHW before)
        if data_format not in ("NCHW", "NHWC"):
            raise ValueError(f"For '{name}', the 'format' must be str and must be in '['NCHW', 'NHWC']', but got "
                             f"'{data_format}'.")
        if data_format == "NHWC":
            raise ValueError(f"For '{name}, the 'NHWC' format only support in GPU target, but got device target CPU.")
        self.kernel_size = _int_or_tuple(name, "kernel_size", kernel_size)
        self.stride = _int_or_tuple(name, "stride", stride)

    def extend_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}"


def _pair(v, n):
    return (v,) * n if isinstance(v, int) else tuple(v)


def _sym(name, padding, n):
    """(before, after) per axis from an int / tuple padding (MindSpore's _check_maxpool_padding)."""
    if isinstance(padding, int) and not isinstance(padding, bool):
        p = (padding,) * n
    elif isinstance(padding, (tuple, list)) and len(padding) in (1, n):
        p = tuple(padding) * (n if len(padding) == 1 else 1)
    else:
        raise ValueError(f"For {name}, the length of padding must equal to {n}, but got {padding}.")
    if any(not isinstance(v, int) or v < 0 for v in p):
        raise ValueError(f"For '{name}', the 'padding' must be non-negative ints, but got {padding}.")
    return tuple(v for v in p for _ in range(2))


def _unbatched(x, nd):
    """(input with a batch axis, whether one was added) for layers taking (C, *spatial)."""
    if ops.functional._tensor_type("pool", x).ndim == nd - 1:
        return ops.expand_dims(x, 0), True
    return x, False


def _strip(out, added):
    if not added:
        return out
    return tuple(ops.squeeze(o, 0) for o in out) if isinstance(out, tuple) else ops.squeeze(out, 0)


class MaxPool2d(_PoolNd):
    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1, return_indices=False,
                 ceil_mode=False, data_format="NCHW"):
        super().__init__(kernel_size, stride, pad_mode, data_format)
        self.return_indices = return_indices
        self.use_pad = self.pad_mode == "PAD"
        if not self.use_pad and (padding != 0 or dilation != 1 or return_indices or ceil_mode):
            raise ValueError(f"For MaxPool2d, the parameter 'padding', 'dilation', 'return_indices', 'ceil_mode' can "
                             f"not be set to non-default value when pad_mode is not 'pad', but got pad_mode:{pad_mode}.")
        self.padding = _sym("MaxPool2d", padding, 2) if self.use_pad else (0, 0, 0, 0)
        self.dilation = _pair(dilation, 2)
        self.ceil_mode = ceil_mode

    def construct(self, x):
        x, added = _unbatched(x, 4)
        k, s = _pair(self.kernel_size, 2), _pair(self.stride, 2)
        if self.use_pad:
            out = FC.pool("argmax", x, k, s, self.padding, self.dilation, self.ceil_mode)
            out = out if self.return_indices else out[0]
        else:
            out = FC.pool_pad_mode("MaxPool", "max", x, k, s, self.pad_mode)
        return _strip(out, added)


class MaxPool1d(_PoolNd):
    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__(kernel_size, stride, pad_mode)
        for v, what in ((kernel_size, "kernel_size"), (stride, "stride")):
            if not isinstance(v, int) or v < 1:
                raise ValueError(f"For 'MaxPool1d', the '{what}' must be an int >= 1, but got {v}.")
        self.return_indices = return_indices
        self.use_pad = self.pad_mode == "PAD"
        if not self.use_pad and (padding != 0 or dilation != 1 or return_indices or ceil_mode):
            raise ValueError(f"For MaxPool1d, the parameter 'padding', 'dilation', 'return_indices', 'ceil_mode' can "
                             f"not be set to non-default value when pad_mode is not 'pad', but got pad_mode:{pad_mode}.")
        self.padding = (0, 0) + (_sym("MaxPool1d", padding, 1) if self.use_pad else (0, 0))
        self.dilation = (1, dilation if isinstance(dilation, int) else dilation[0])
        self.ceil_mode = ceil_mode

    def construct(self, x):
        x, added = _unbatched(x, 3)
        if ops.functional._tensor_type("MaxPool1d", x).ndim != 3:
            raise ValueError(f"For 'MaxPool1d', the input must have 3 dims, but got "
                             f"{ops.functional._tensor_type('MaxPool1d', x).ndim}.")
        k, s = (1, self.kernel_size), (1, self.stride)
        x4 = ops.expand_dims(x, 2)
        if self.use_pad:
            out = FC.pool("argmax", x4, k, s, self.padding, self.dilation, self.ceil_mode)
            out = (ops.squeeze(out[0], 2), ops.squeeze(out[1], 2))
            out = out if self.return_indices else out[0]
        else:
            out = ops.squeeze(FC.pool_pad_mode("MaxPool", "max", x4, k, s, self.pad_mode), 2)
        return _strip(out, added)


class AvgPool2d(_PoolNd):
    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None, data_format="NCHW"):
        super().__init__(kernel_size, stride, pad_mode, data_format)
        self.is_expand = (self.pad_mode == "PAD" or padding != 0 or ceil_mode or not count_include_pad
                          or divisor_override is not None)
        if divisor_override is not None and divisor_override <= 0:
            raise ValueError(f"For 'AvgPool2d', the 'divisor_override' must be > 0, but got {divisor_override}.")
        self.padding = _sym("AvgPool2d", padding, 2)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad
        self.divisor_override = divisor_override or 0

    def construct(self, x):
        x, added = _unbatched(x, 4)
        k, s = _pair(self.kernel_size, 2), _pair(self.stride, 2)
        if self.is_expand:
            if self.pad_mode == "SAME":
                pads = FC.CV.same_pads(ops.functional._tensor_type("AvgPool2d", x).shape[2:], k, s, (1, 1))
                out = FC.pool("avg", x, k, s, pads, None, self.ceil_mode, False, self.divisor_override)
            else:
                out = FC.pool("avg", x, k, s, self.padding, None, self.ceil_mode, self.count_include_pad,
                              self.divisor_override)
        else:
            out = FC.pool_pad_mode("AvgPool", "avg", x, k, s, self.pad_mode)
        return _strip(out, added)


class AvgPool1d(_PoolNd):
    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__(kernel_size, stride, pad_mode)
        for v, what in ((kernel_size, "kernel_size"), (stride, "stride")):
            if not isinstance(v, int) or v < 1:
                raise ValueError(f"For 'AvgPool1d', the '{what}' must be an int >= 1, but got {v}.")
        self.is_expand = self.pad_mode == "PAD" or padding != 0 or ceil_mode or not count_include_pad
        self.padding = (0, 0) + _sym("AvgPool1d", padding, 1)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def construct(self, x):
        x, added = _unbatched(x, 3)
        t = ops.functional._tensor_type("AvgPool1d", x)
        if t.ndim != 3:
            raise ValueError(f"For 'AvgPool1d', the input must have 3 dims, but got {t.ndim}.")
        k, s = (1, self.kernel_size), (1, self.stride)
        x4 = ops.expand_dims(x, 2)
        if self.is_expand:
            out = FC.pool("avg", x4, k, s, self.padding, None, self.ceil_mode, self.count_include_pad)
        else:
            out = FC.pool_pad_mode("AvgPool", "avg", x4, k, s, self.pad_mode)
        return _strip(ops.squeeze(out, 2), added)


class AdaptiveAvgPool2d(Cell):
    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def construct(self, input):
        return FC.adaptive_avg_pool2d(input, self.output_size)


class AdaptiveAvgPool1d(Cell):
    def __init__(self, output_size):
        super().__init__()
        if not isinstance(output_size, int) or isinstance(output_size, bool):
            raise TypeError(f"For 'AdaptiveAvgPool1d', the 'output_size' must be 'int', but got "
                            f"'{type(output_size).__name__}'.")
        if output_size < 1:
            raise ValueError(f"For 'AdaptiveAvgPool1d', the 'output_size' must be >= 1, but got {output_size}.")
        self.output_size = output_size

    def construct(self, input):
        t = ops.functional._tensor_type("AdaptiveAvgPool1d", input)
        if t.ndim != 3:
            raise ValueError(f"For AdaptiveAvgPool1d, the input must have 3 dims, but got {t.ndim}.")
        if t.shape[2] % self.output_size:
            raise ValueError(f"For AdaptiveAvgPool1d, the input's last dimension must be divisible by output size "
                             f"{self.output_size}, but got {t.shape[2]}.")
        return FC.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveMaxPool2d(Cell):
    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def construct(self, input):
        return FC.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool1d(Cell):
    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def construct(self, input):
        return FC.adaptive_max_pool1d(input, self.output_size)


class _MaxUnpool(Cell):
    """The inverse of a max pooling with return_indices (ops.max_unpool1d / 2d / 3d)."""

    _op = None

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding

    def construct(self, x, indices, output_size=None):
        return getattr(ops, self._op)(x, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool1d(_MaxUnpool):
    _op = "max_unpool1d"


class MaxUnpool2d(_MaxUnpool):
    _op = "max_unpool2d"


class MaxUnpool3d(_MaxUnpool):
    _op = "max_unpool3d"
