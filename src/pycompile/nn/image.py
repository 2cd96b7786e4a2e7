"""Padding, resizing and channel-dropout layers with MindSpore 2.10's signatures: Pad,
ConstantPad1d / 2d / 3d, ZeroPad2d, ReflectionPad1d / 2d, ReplicationPad1d / 2d, Upsample,
Dropout2d. Their constructs call the functional layer (ops/function_image.py,
ops/function_random.py).
"""
from __future__ import annotations

from pycompile import ops
from pycompile.nn.cell import Cell
from pycompile.ops import function_image as FI
from pycompile.ops import function_random as FR


class Pad(Cell):
    """((before, after), ...) for the leading axes; mode CONSTANT, REFLECT or SYMMETRIC."""

    def __init__(self, paddings, mode="CONSTANT"):
        super().__init__()
        if mode not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
            raise ValueError(f"For 'Pad', the 'mode' must be str and must be in '['CONSTANT', 'REFLECT', "
                             f"'SYMMETRIC']', but got '{mode}'.")
        if not isinstance(paddings, tuple):
            raise TypeError(f"For 'Pad', the type of 'paddings' must be tuple, but got {type(paddings).__name__}.")
        for item in paddings:
            if len(item) != 2:
                raise ValueError(f"For 'Pad', the dimension of 'paddings' must be (n, 2), but got {paddings}.")
        if len(paddings) > 4:
            raise ValueError(f"For 'Pad', only 'paddings' up to 4 dims is supported, but got {len(paddings)}.")
        self.paddings, self.mode = paddings, mode

    def construct(self, x):
        for i, (a, b) in enumerate(self.paddings):
            if a < 0 or b < 0:       # MindSpore's Pad / MirrorPad refuse them (ops.pad crops instead)
                if self.mode != "CONSTANT":
                    raise ValueError("For 'MirrorPad', all elements of paddings must be >= 0.")
                raise ValueError(f"For 'Pad', all elements of 'paddings' must be >= 0, but got paddings[{i}][0] = "
                                 f"{a}, paddings[{i}][1] = {b}")
        if self.mode == "CONSTANT" and len(self.paddings) != x.ndim:
            raise ValueError(f"For 'Pad', the length of 'paddings' must be equal to the rank of 'input_x', but got "
                             f"{len(self.paddings)} vs {x.ndim}")
        return FI.pad_pairs("Pad", x, self.paddings, self.mode.lower())


class _TorchPad(Cell):
    """torch-style padding of the last `_nd` axes: an int (every side) or (left, right, ...)."""
    _nd = 1
    _mode = "constant"

    def __init__(self, padding, value=0.0):
        super().__init__()
        name = type(self).__name__
        if isinstance(padding, int) and not isinstance(padding, bool):
            padding = (padding,) * (2 * self._nd)
        if not isinstance(padding, (tuple, list)) or len(padding) != 2 * self._nd:
            raise ValueError(f"For '{name}', the 'padding' must be an int or a tuple of {2 * self._nd} ints, "
                             f"but got {padding}.")
        self.padding, self.value = tuple(padding), value

    def construct(self, x):
        mode = {"constant": "constant", "reflect": "reflect", "edge": "replicate"}[self._mode]
        return FI.pad(x, self.padding, mode, self.value if self._mode == "constant" else None)


class ConstantPad1d(_TorchPad):
    _nd = 1


class ConstantPad2d(_TorchPad):
    _nd = 2


class ConstantPad3d(_TorchPad):
    _nd = 3


class ZeroPad2d(_TorchPad):
    _nd = 2

    def __init__(self, padding):
        super().__init__(padding, 0.0)


class ReflectionPad1d(_TorchPad):
    _nd, _mode = 1, "reflect"

    def __init__(self, padding):
        super().__init__(padding)


class ReflectionPad2d(_TorchPad):
    _nd, _mode = 2, "reflect"

    def __init__(self, padding):
        super().__init__(padding)


class ReplicationPad1d(_TorchPad):
    _nd, _mode = 1, "edge"

    def __init__(self, padding):
        super().__init__(padding)


class ReplicationPad2d(_TorchPad):
    _nd, _mode = 2, "edge"

    def __init__(self, padding):
        super().__init__(padding)


class ReflectionPad3d(_TorchPad):
    _nd, _mode = 3, "reflect"

    def __init__(self, padding):
        super().__init__(padding)


class ReplicationPad3d(_TorchPad):
    _nd, _mode = 3, "edge"

    def __init__(self, padding):
        super().__init__(padding)


class Upsample(Cell):
    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None):
        super().__init__()
        self.size, self.scale_factor, self.mode = size, scale_factor, mode
        self.align_corners, self.recompute_scale_factor = align_corners, recompute_scale_factor

    def construct(self, x):
        return FI.interpolate(x, self.size, self.scale_factor, self.mode, self.align_corners,
                              self.recompute_scale_factor)


class Dropout2d(Cell):
    """Zeroes whole channels with probability p in training (scaling the rest by 1 / (1 - p))."""

    def __init__(self, p=0.5):
        super().__init__()
        if not isinstance(p, float):
            raise TypeError(f"For 'Dropout2d', the 'p' must be 'float', but got '{type(p).__name__}'.")
        if p < 0 or p > 1:
            raise ValueError(f"For 'Dropout2d', the 'p' must be a number in range [0, 1], but got {p}.")
        self.keep_prob = 1.0 - p

    def construct(self, x):
        if not self.training or self.keep_prob == 1:
            return x
        return FR.dropout2d(x, 1.0 - self.keep_prob)

    def extend_repr(self):
        return f"p={self.keep_prob}"


class Dropout1d(Cell):
    def __init__(self, p=0.5):
        super().__init__()
        if not 0 <= p <= 1:
            raise ValueError(f"For 'Dropout1d', the 'p' must be a number in range [0, 1], but got {p}.")
        self.p = float(p)

    def construct(self, x):
        if not self.training or self.p == 0:
            return x
        if ops.functional._tensor_type("Dropout1d", x).ndim == 2:
            return ops.squeeze(FR.dropout1d(ops.expand_dims(x, 0), self.p), 0)
        return FR.dropout1d(x, self.p)
