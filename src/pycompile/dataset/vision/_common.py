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


def _check_resize_inter(interpolation, op):
    """The Inter mode of a crop-then-resize op (ResizedCrop, RandomResizedCrop, the *WithBBox
    resizes): every OpenCV one and PILCUBIC; ANTIALIAS fails in resize_mode, when applied."""
    return Inter(interpolation)


def resize_mode(img, h, w, mode, img_type=None):
    """`img` (HW or HWC) resized to (h, w) with Inter `mode` as MindSpore's crop-and-resize ops do;
    ANTIALIAS raises MindSpore's error: the TypeError of its Python implementation (which wants a
    PIL image) when `img_type` (the type the op was given) is passed, else its C++ enum's RuntimeError."""
    from pycompile.dataset.vision import _resize
    if mode == Inter.ANTIALIAS:
        if img_type is not None:
            raise TypeError(_NOT_PIL.format(img_type))
        raise RuntimeError(_UNSUPPORTED)
    if mode == Inter.PILCUBIC:
        from pycompile.dataset.vision._pilcubic import resize_pilcubic
        return resize_pilcubic(np.ascontiguousarray(img), h, w)
    fn = {Inter.LINEAR: _resize.resize_bilinear, Inter.NEAREST: _resize.resize_nearest,
          Inter.BICUBIC: _resize.resize_bicubic, Inter.AREA: _resize.resize_area}[mode]
    return fn(np.ascontiguousarray(img), h, w)


_UNSUPPORTED = "Unsupported interpolation, only support NEAREST, LINEAR, CUBIC, AREA and PILCUBIC."
_NOT_PIL = "img should be PIL image. Got {}. Use Decode() for encoded data or ToPIL() for decoded data."
_INVALID_ENUM = "check input value of enum."
_WARP_KINDS = {Inter.NEAREST: "nearest", Inter.LINEAR: "linear", Inter.BICUBIC: "cubic", Inter.AREA: "linear"}
# What a warp op does with ANTIALIAS and PILCUBIC on a NumPy image, as MindSpore 2.10 does it
# (tests/oracle/data/warp_data35d.json): ANTIALIAS is refused by the C++ enum conversion
# ("unsupported"), or sends the op to its Python implementation, which wants a PIL image
# ("pil": TypeError; RandomAffine's own ValueError); PILCUBIC fails the op's parameter check with
# the text given, or (Perspective) falls through to bilinear.
_WARP_RULES = {
    "Rotate": ("unsupported", _INVALID_ENUM), "RandomRotation": ("pil", _INVALID_ENUM),
    "Affine": ("unsupported", "only support Linear, Nearest, Cubic and Area."),
    "RandomAffine": ("pil_value", _INVALID_ENUM), "Perspective": ("pil", None),
}


def warp_interp(interpolation, op, img_type=None):
    """The interpolation ("nearest" / "linear" / "cubic") of warp op `op` (Rotate, RandomRotation,
    Affine, RandomAffine, Perspective: cv::warpAffine / warpPerspective, which run AREA as LINEAR),
    or MindSpore's error for ANTIALIAS / PILCUBIC, raised when the op is applied (as MindSpore does)."""
    mode = Inter(interpolation)
    if mode in _WARP_KINDS:
        return _WARP_KINDS[mode]
    antialias, pilcubic = _WARP_RULES[op]
    if mode == Inter.PILCUBIC:
        if pilcubic is None:
            return "linear"
        raise RuntimeError(f"Syntax error. \n\n[ERROR] {op}: Invalid InterpolationMode, {pilcubic}")
    if antialias == "unsupported":
        raise RuntimeError(_UNSUPPORTED)
    if antialias == "pil_value":
        raise ValueError("Input image should be a Pillow image.")
    raise TypeError(_NOT_PIL.format(img_type))


def _degrees(degrees):
    if isinstance(degrees, (int, float)) and not isinstance(degrees, bool):
        if degrees < 0:
            raise ValueError(f"Input degrees is not within the required interval of [0, 16777216], but got {degrees}.")
        return -float(degrees), float(degrees)
    if isinstance(degrees, (list, tuple)) and len(degrees) == 2 and degrees[0] <= degrees[1]:
        return float(degrees[0]), float(degrees[1])
    raise ValueError(f"degrees should be a non-negative number or a (min, max) pair, but got {degrees!r}.")
