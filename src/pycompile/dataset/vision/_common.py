"""What the vision transforms share: the Inter and Border enums and argument and padding helpers."""
from __future__ import annotations

from enum import Enum, IntEnum

import numpy as np


class Inter(IntEnum):
    """Interpolation modes (MindSpore's values); Resize implements NEAREST, LINEAR, CUBIC and AREA."""
    NEAREST = 0
    ANTIALIAS = 1
    BILINEAR = 2         # the canonical names, as MindSpore's enum lists them; LINEAR and CUBIC alias them
    LINEAR = 2
    BICUBIC = 3
    CUBIC = 3
    AREA = 4
    PILCUBIC = 5


class Border(str, Enum):
    """Padding modes (an enum of strings, as MindSpore's); RandomCrop implements CONSTANT, EDGE, REFLECT and
    SYMMETRIC."""
    CONSTANT = "constant"
    EDGE = "edge"
    REFLECT = "reflect"
    SYMMETRIC = "symmetric"


def _pair(size, name):
    if isinstance(size, int) and not isinstance(size, bool):
        size = (size, size)
    if not (isinstance(size, (tuple, list)) and len(size) == 2 and all(isinstance(s, int) and s > 0 for s in size)):
        raise ValueError(f"{name} must be a positive int or a (height, width) pair, but got {size!r}.")
    return tuple(size)


def _pad(img, top, bottom, left, right, fill=0, mode=Border.CONSTANT):
    widths = [(top, bottom), (left, right)] + [(0, 0)] * (img.ndim - 2)
    if mode == Border.CONSTANT:
        fill = np.asarray(fill, img.dtype)
        if fill.ndim == 0 or img.ndim == 2:
            return np.pad(img, widths, constant_values=fill.reshape(-1)[0])
        out = np.empty((img.shape[0] + top + bottom, img.shape[1] + left + right) + img.shape[2:], img.dtype)
        out[...] = fill
        out[top:top + img.shape[0], left:left + img.shape[1]] = img
        return out
    return np.pad(img, widths, mode=getattr(mode, "value", mode))


_CROP_RESIZE_MODES = (Inter.LINEAR, Inter.NEAREST, Inter.BICUBIC, Inter.AREA, Inter.PILCUBIC)


def _check_resize_inter(interpolation, op):
    """The modes a crop-then-resize op (ResizedCrop, RandomResizedCrop) takes: every OpenCV one
    and PILCUBIC; ANTIALIAS (a PIL image's LANCZOS) raises NotImplementedError naming it."""
    mode = Inter(interpolation)
    if mode not in _CROP_RESIZE_MODES:
        raise NotImplementedError(f"{op} with {mode.name} is not implemented; use LINEAR, NEAREST, BICUBIC, AREA or "
                                  "PILCUBIC")
    return mode


def resize_mode(img, h, w, mode):
    """`img` (HW or HWC) resized to (h, w) with Inter `mode` as MindSpore's crop-and-resize ops do."""
    from pycompile.dataset.vision import _resize
    if mode == Inter.PILCUBIC:
        from pycompile.dataset.vision._pilcubic import resize_pilcubic
        return resize_pilcubic(np.ascontiguousarray(img), h, w)
    fn = {Inter.LINEAR: _resize.resize_bilinear, Inter.NEAREST: _resize.resize_nearest,
          Inter.BICUBIC: _resize.resize_bicubic, Inter.AREA: _resize.resize_area}[mode]
    return fn(np.ascontiguousarray(img), h, w)


def _check_inter(interpolation, op):
    if interpolation not in (Inter.LINEAR, Inter.NEAREST):
        raise NotImplementedError(f"{op} with {Inter(interpolation).name} is not implemented; "
                                  f"use Inter.LINEAR or Inter.NEAREST")
    return Inter(interpolation)


def _degrees(degrees):
    if isinstance(degrees, (int, float)) and not isinstance(degrees, bool):
        if degrees < 0:
            raise ValueError(f"Input degrees is not within the required interval of [0, 16777216], but got {degrees}.")
        return -float(degrees), float(degrees)
    if isinstance(degrees, (list, tuple)) and len(degrees) == 2 and degrees[0] <= degrees[1]:
        return float(degrees[0]), float(degrees[1])
    raise ValueError(f"degrees should be a non-negative number or a (min, max) pair, but got {degrees!r}.")
