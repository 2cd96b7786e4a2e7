"""Class-form convolution, pooling, resizing, padding, normalization and random primitives as
MindSpore spells them (`ops.Conv2D(out_channel, kernel_size, ...)(x, w)`, `ops.MaxPool(2, 2)`,
`ops.ResizeNearestNeighbor((6, 8))`, `ops.Dropout(keep_prob)` ...). Each validates its
constructor arguments like MindSpore and calls the functional layer, so both forms agree.
"""
from __future__ import annotations

from pycompile.common.abstract import Symbolic
from pycompile.ops import function_conv as FC
from pycompile.ops import function_image as FI
from pycompile.ops import function_random as FR
from pycompile.ops import functional as F
from pycompile.ops._table import OpTypeError, OpValueError
from pycompile.ops.primitive import Primitive


def _check_format(name, data_format, allowed):
    if data_format not in allowed:
        raise OpValueError(f"For '{name}', the 'format' must be str and must be in '{list(allowed)}', but got "
                           f"'{data_format}'.")
    if data_format in ("NHWC", "NDHWC"):
        raise OpValueError(f"For '{name}', the '{data_format}' format is only supported in GPU target, but got the "
                           f"'data_format' is {data_format} and platform is CPU.")


def _pad_arg(name, pad, n):
    if isinstance(pad, int) and not isinstance(pad, bool):
        return (pad,) * n
    if not isinstance(pad, tuple) or len(pad) != n:
        raise OpValueError(f"For '{name}', the length of 'pad size' must be equal to {n}, but got {pad}")
    return pad


class _ConvBase(Primitive):
    _nd = 4

    def __init__(self, out_channel, kernel_size, mode=1, pad_mode="valid", pad=0, stride=1, dilation=1, group=1,
                 data_format=None):
        super().__init__()
        sp = self._nd - 2
        _check_format(self.name, data_format or ("NCHW" if sp == 2 else "NCDHW"),
                      ("NCHW", "NHWC") if sp == 2 else ("NCDHW",))
        self.out_channel = out_channel
        self.kernel_size = FC.tuple_arg(self.name, "kernel_size", kernel_size, sp)
        self.pad_mode = FC.check_pad_mode(self.name, pad_mode)
        self.pad = _pad_arg(self.name, pad, 2 * sp)
        if self.pad_mode != "pad" and any(self.pad):
            raise OpValueError(f"For '{self.name}', the 'pad' must be zero when 'pad_mode' is not 'pad', but got "
                               f"'pad': {pad} and 'pad_mode': {self.pad_mode}.")
        self.stride, self.dilation, self.group = stride, dilation, group
        if mode != 1:
            raise OpValueError(f"For '{self.name}', 'mode' must be 1, but got {mode}")


class Conv2D(_ConvBase):
    def __call__(self, x, w):
        return FC.convolution("Conv2D", x, w, self.stride, self.dilation, self.pad_mode, self.pad, self.group)


class Conv3D(_ConvBase):
    _nd = 5

    def __call__(self, x, w):
        return FC.convolution("Conv3D", x, w, self.stride, self.dilation, self.pad_mode, self.pad, self.group)


class Conv2DBackpropInput(Primitive):
    def __init__(self, out_channel, kernel_size, pad_mode="valid", pad=0, pad_list=None, mode=1, stride=1, dilation=1,
                 group=1, data_format="NCHW"):
        super().__init__()
        _check_format(self.name, data_format, ("NCHW", "NHWC"))
        self.kernel_size = FC.tuple_arg(self.name, "kernel_size", kernel_size, 2)
        self.pad_mode = FC.check_pad_mode(self.name, pad_mode)
        self.pad = tuple(pad_list) if pad_list else _pad_arg(self.name, pad, 4)
        if self.pad_mode != "pad" and any(self.pad):
            raise OpValueError(f"For '{self.name}', the 'pad' must be zero or (0, 0, 0, 0) when 'pad_mode' is not "
                               f"\"pad\", but got 'pad' is {pad} and 'pad_mode' is {pad_mode}.")
        self.stride, self.dilation, self.group = stride, dilation, group

    def __call__(self, dout, w, input_size):
        return FC.conv_backprop_input(self.name, dout, w, tuple(input_size), self.stride, self.dilation,
                                      self.pad_mode, self.pad, self.group)


class Conv2DTranspose(Conv2DBackpropInput):
    pass


class _Pool(Primitive):
    _kind = "max"

    def __init__(self, kernel_size=1, strides=1, pad_mode="valid", data_format="NCHW"):
        super().__init__()
        _check_format(self.name, data_format, ("NCHW", "NHWC"))
        self.kernel_size = FC.tuple_arg(self.name, "kernel_size", kernel_size, 2, allow_four=True)
        self.strides = FC.tuple_arg(self.name, "strides", strides, 2, allow_four=True)
        self.pad_mode = pad_mode

    def __call__(self, x):
        return FC.pool_pad_mode(self.name, self._kind, x, self.kernel_size, self.strides, self.pad_mode)


class MaxPool(_Pool):
    pass


class AvgPool(_Pool):
    _kind = "avg"


class AdaptiveAvgPool2D(Primitive):
    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def __call__(self, x):
        return FC.adaptive_avg_pool2d(x, self.output_size)


class AdaptiveMaxPool2D(Primitive):
    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def __call__(self, x):
        return FC.adaptive_max_pool2d(x, self.output_size, True)


class ResizeNearestNeighbor(Primitive):
    def __init__(self, size, align_corners=False, half_pixel_centers=False):
        super().__init__()
        if not isinstance(size, (tuple, list)) or len(size) != 2:
            raise OpTypeError(f"For '{self.name}', 'size' must be a tuple of 2 ints, but got {size!r}")
        if align_corners and half_pixel_centers:
            raise OpValueError(f"For '{self.name}', 'half_pixel_centers' can not be True when 'align_corners' is True")
        self.size, self.align_corners, self.half_pixel_centers = tuple(size), align_corners, half_pixel_centers

    def __call__(self, x):
        if F._tensor_type(self.name, x).ndim != 4:
            raise OpValueError(f"For '{self.name}', the input must be a 4-D tensor")
        # MindSpore 2.10's CPU kernel ignores half_pixel_centers here (it picks floor(i * in / out)
        # either way); interpolate's 'nearest-exact' has half-pixel centres
        return FI.resize(x, self.size, "nearest", self.align_corners, False)


class ResizeBilinearV2(Primitive):
    def __init__(self, align_corners=False, half_pixel_centers=False):
        super().__init__()
        if align_corners and half_pixel_centers:
            raise OpValueError(f"For '{self.name}', 'half_pixel_centers' can not be True when 'align_corners' is True")
        self.align_corners, self.half_pixel_centers = align_corners, half_pixel_centers

    def __call__(self, x, size):
        size = tuple(int(v) for v in (size.asnumpy() if hasattr(size, "asnumpy") else size))
        return FI.resize(x, size, "linear", self.align_corners, self.half_pixel_centers)


class ResizeBicubic(Primitive):
    """Bicubic resizing of (N, C, H, W) images to `size` (MindSpore's kernel: resample.cubic_table)."""

    def __init__(self, align_corners=False, half_pixel_centers=False):
        super().__init__()
        if align_corners and half_pixel_centers:
            raise OpValueError(f"For {self.name}, the half_pixel_centers must be false when align_corners is true, "
                               f"but half_pixel_centers got True.")
        self.align_corners, self.half_pixel_centers = align_corners, half_pixel_centers

    def __call__(self, images, size):
        size = tuple(int(v) for v in (size.asnumpy() if hasattr(size, "asnumpy") else size))
        return FI.resize(images, size, "cubic", self.align_corners, self.half_pixel_centers)


class Pad(Primitive):
    def __init__(self, paddings):
        super().__init__()
        if not isinstance(paddings, tuple):
            raise OpTypeError(f"For '{self.name}', the type of 'paddings' must be tuple, but got "
                              f"{type(paddings).__name__}.")
        self.paddings = paddings

    def __call__(self, x):
        return FI.pad_pairs(self.name, x, self.paddings)


class MirrorPad(Primitive):
    def __init__(self, mode="REFLECT"):
        super().__init__()
        if mode not in ("REFLECT", "SYMMETRIC"):
            raise OpValueError(f"For '{self.name}', 'mode' must be 'REFLECT' or 'SYMMETRIC', but got {mode!r}")
        self.mode = mode

    def __call__(self, x, paddings):
        pairs = paddings.asnumpy().tolist() if hasattr(paddings, "asnumpy") else paddings
        return FI.pad_pairs(self.name, x, [tuple(p) for p in pairs], self.mode.lower())


class BatchNorm(Primitive):
    """(y, batch mean, batch variance, mean, variance); training mode updates the mean and
    variance Parameters in place with `momentum` (moving = (1 - momentum) moving + momentum batch)."""

    def __init__(self, is_training=False, epsilon=1e-5, momentum=0.1, data_format="NCHW"):
        super().__init__()
        _check_format(self.name, data_format, ("NCHW", "NHWC"))
        self.is_training, self.epsilon, self.momentum = is_training, epsilon, momentum

    def __call__(self, x, scale, bias, mean, variance):
        y = FI.batch_norm(x, mean, variance, scale, bias, self.is_training, self.momentum, self.epsilon)
        return y, mean, variance, mean, variance


class Dropout(Primitive):
    """(output, mask): the mask (x's dtype) holds 1 where an element is kept."""

    def __init__(self, keep_prob=0.5, Seed0=0, Seed1=0):
        super().__init__()
        if not 0 < keep_prob <= 1:
            raise OpValueError(f"For '{self.name}', the 'keep_prob' must be in range (0, 1], but got {keep_prob}.")
        self.keep_prob, self.seed = float(keep_prob), int(Seed0) * 1000003 + int(Seed1)

    def __call__(self, x):
        mask = FR.dropout_mask(x, self.keep_prob, seed=self.seed or None)
        return x * mask * (1.0 / self.keep_prob), mask


class Dropout2D(Primitive):
    def __init__(self, keep_prob=0.5):
        super().__init__()
        if not 0 <= keep_prob <= 1:
            raise OpValueError(f"For '{self.name}', the 'keep_prob' must be in range [0, 1], but got {keep_prob}.")
        self.keep_prob = float(keep_prob)

    def __call__(self, x):
        t = F._tensor_type(self.name, x)
        if self.keep_prob == 0:
            return x * 0, F.zeros_like(x, dtype=None) > 0
        mask = FR.dropout_mask(x, self.keep_prob, t.shape[:2] + (1,) * (t.ndim - 2))
        return x * mask * (1.0 / self.keep_prob), F.broadcast_to(mask, t.shape) > 0


class Dropout3D(Dropout2D):
    """Dropout2D's channel dropout on (N, C, D, H, W) inputs: whole channels zeroed with probability
    1 - keep_prob, the rest scaled by 1 / keep_prob; returns (output, bool mask)."""

    def __call__(self, x):
        t = F._tensor_type(self.name, x)
        if t.ndim != 5:
            raise OpValueError(f"For '{self.name}', the dimension of 'x' must be 5, but got {t.ndim}")
        return Dropout2D.__call__(self, x)


def _seed(seed, seed2):
    return int(seed) * 1000003 + int(seed2)


class _Seeded(Primitive):
    """A random Primitive with MindSpore's (seed, seed2): when either is set, the instance draws from
    a Generator of its own seeded with them, so two instances built alike draw the same numbers
    (MindSpore's contract the suite checks) and calls on one instance continue its stream; unset,
    it draws from the default stream."""

    def __init__(self, seed=0, seed2=0):
        super().__init__()
        self.seed = _seed(seed, seed2)
        self._generator = None

    def _draw(self, fn):
        if not self.seed:
            return fn()
        if self._generator is None:
            from pycompile.ops.generator import Generator
            self._generator = Generator().manual_seed(self.seed)
        with self._generator.drawing():
            return fn()


class StandardNormal(_Seeded):
    def __call__(self, shape):
        return self._draw(lambda: FR.randn(*tuple(shape)))


def laplace(shape, seed=None):
    """Laplace(0, 1) of `shape` by the inverse CDF of uniform draws (also ops.standard_laplace's)."""
    u = F.maximum(FR.rand(*shape, seed=seed), 1e-30)     # rand draws from [0, 1): log stays finite
    return F.select(u < 0.5, F.log(u * 2.0), F.neg(F.log((1.0 - u) * 2.0)))


class StandardLaplace(_Seeded):
    def __call__(self, shape):
        if getattr(shape, "_abstract", None) is not None:
            from pycompile.ops.dynamic_length import shaped_like
            out = shaped_like(shape, lambda dims: self._draw(lambda: laplace(dims)))   # TensorShape of a run-time length
            if out is not None:
                return out
            if hasattr(shape, "asnumpy") and not isinstance(shape, Symbolic):
                shape = tuple(int(d) for d in shape.asnumpy().reshape(-1))
        if not isinstance(shape, tuple):
            raise TypeError(f"For 'StandardLaplace', 'shape' must be a tuple, but got {type(shape).__name__}")
        return self._draw(lambda: laplace(shape))


class UniformReal(_Seeded):
    def __call__(self, shape):
        return self._draw(lambda: FR.rand(*tuple(shape)))


class UniformInt(_Seeded):
    def __call__(self, shape, minval, maxval):
        lo, hi = (int(v.asnumpy()) if hasattr(v, "asnumpy") else int(v) for v in (minval, maxval))
        from pycompile.common import dtype as mstype
        return self._draw(lambda: FR.randint(lo, hi, tuple(shape), dtype=mstype.int32))


class RandomShuffle(_Seeded):
    def __call__(self, x):
        return self._draw(lambda: FR.shuffle(x))


class Multinomial(_Seeded):
    def __init__(self, seed=0, seed2=0, dtype=None):
        super().__init__(seed, seed2)

    def __call__(self, x, num_samples):
        return self._draw(lambda: FR.multinomial(x, int(num_samples), True))


__all__ = ["Conv2D", "Conv3D", "Conv2DBackpropInput", "Conv2DTranspose", "MaxPool", "AvgPool", "AdaptiveAvgPool2D",
           "AdaptiveMaxPool2D", "ResizeNearestNeighbor", "ResizeBilinearV2", "ResizeBicubic", "Pad", "MirrorPad", "BatchNorm",
           "Dropout", "Dropout2D", "Dropout3D", "StandardNormal", "StandardLaplace", "UniformReal", "UniformInt", "Multinomial", "RandomShuffle"]
