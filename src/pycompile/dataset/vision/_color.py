"""Colour transforms in NumPy with the OpenCV arithmetic MindSpore 2.10 runs (checked against
recorded outputs, tests/oracle/data/vision.json):

* gray (cvtColor RGB2GRAY on uint8): Y = (9798 R + 19235 G + 3735 B + 16384) >> 15;
* AdjustBrightness (Mat::convertTo with a scale): v * alpha in float32, rounded half to even;
* AdjustContrast / AdjustSaturation blend the image with a gray one (the rounded mean of the gray
  image; the gray image itself) as OpenCV's vectorised addWeighted: a fused multiply-add in
  float32, rounded half to even, saturated to uint8.
"""
from __future__ import annotations

from enum import IntEnum

import numpy as np


class ConvertMode(IntEnum):
    """ConvertColor's modes (MindSpore's names and values)."""
    COLOR_BGR2BGRA = 0
    COLOR_RGB2RGBA = 0
    COLOR_BGRA2BGR = 1
    COLOR_RGBA2RGB = 1
    COLOR_BGR2RGBA = 2
    COLOR_RGB2BGRA = 2
    COLOR_RGBA2BGR = 3
    COLOR_BGRA2RGB = 3
    COLOR_BGR2RGB = 4
    COLOR_RGB2BGR = 4
    COLOR_BGRA2RGBA = 5
    COLOR_RGBA2BGRA = 5
    COLOR_BGR2GRAY = 6
    COLOR_RGB2GRAY = 7
    COLOR_GRAY2BGR = 8
    COLOR_GRAY2RGB = 8
    COLOR_GRAY2BGRA = 9
    COLOR_GRAY2RGBA = 9
    COLOR_BGRA2GRAY = 10
    COLOR_RGBA2GRAY = 11


def _u8(x) -> np.ndarray:
    return np.clip(np.rint(x), 0, 255).astype(np.uint8)


def gray(img: np.ndarray, red: int = 0) -> np.ndarray:
    """HWC uint8 (3 or 4 channels, red first or, with red=2, last of the three) -> HW uint8."""
    c = img.astype(np.int64)
    r, g, b = c[..., red], c[..., 1], c[..., 2 - red]
    return ((9798 * r + 19235 * g + 3735 * b + 16384) >> 15).astype(np.uint8)


def convert_color(img: np.ndarray, mode: int) -> np.ndarray:
    mode = ConvertMode(mode)
    channels = {6: 3, 7: 3, 8: 1, 9: 1, 10: 4, 11: 4, 1: 4, 3: 4, 5: 4}.get(int(mode), 3)
    have = 1 if img.ndim == 2 else img.shape[2]
    if have != channels:
        raise RuntimeError(f"ConvertColor: {mode.name} needs an image with {channels} channel(s), but got shape "
                           f"{list(img.shape)}.")
    if channels == 1:
        g = img if img.ndim == 2 else img[..., 0]
        out = np.stack([g] * 3, axis=-1)
        return _with_alpha(out, img.dtype) if mode == ConvertMode.COLOR_GRAY2RGBA else out
    if mode in (ConvertMode.COLOR_BGR2GRAY, ConvertMode.COLOR_BGRA2GRAY):
        return gray(img, red=2)
    if mode in (ConvertMode.COLOR_RGB2GRAY, ConvertMode.COLOR_RGBA2GRAY):
        return gray(img, red=0)
    swap = mode in (ConvertMode.COLOR_BGR2RGBA, ConvertMode.COLOR_RGBA2BGR, ConvertMode.COLOR_BGR2RGB,
                    ConvertMode.COLOR_BGRA2RGBA)
    out = img[..., [2, 1, 0] + ([3] if channels == 4 else [])] if swap else img
    if mode in (ConvertMode.COLOR_RGB2RGBA, ConvertMode.COLOR_BGR2RGBA):
        return _with_alpha(out, img.dtype)
    if mode in (ConvertMode.COLOR_RGBA2RGB, ConvertMode.COLOR_RGBA2BGR):
        out = out[..., :3]
    return np.ascontiguousarray(out)


def _with_alpha(img, dtype):
    alpha = np.full(img.shape[:2] + (1,), 255 if dtype == np.uint8 else 1, dtype)
    return np.concatenate([img, alpha], axis=-1)


def _check_rgb(img, op):
    if img.ndim != 3 or img.shape[2] != 3 or img.dtype != np.uint8:
        raise RuntimeError(f"{op}: the image should be an RGB uint8 image of shape <H, W, 3>, but got "
                           f"{img.dtype} of shape {list(img.shape)}.")


def _blend(img, other, alpha):
    """other * (1 - alpha) + img * alpha on uint8, as OpenCV's vectorised addWeighted computes it:
    fma(other, 1 - alpha, img * alpha), the product img * alpha rounded to float32 and the fused
    multiply-add rounded once (float64 holds a float32 product exactly)."""
    a = np.float32(alpha)                   # MindSpore's factor is a float32,
    b = np.float32(1.0 - np.float64(a))     # and 1 - factor is taken in double from it
    product = img.astype(np.float32) * a
    fused = (other.astype(np.float64) * np.float64(b) + product.astype(np.float64)).astype(np.float32)
    return _u8(fused)


def adjust_brightness(img, factor):
    _check_rgb(img, "AdjustBrightness")
    return _u8(img.astype(np.float32) * np.float32(factor))


def adjust_contrast(img, factor):
    _check_rgb(img, "AdjustContrast")
    mean = _u8(gray(img).mean())
    return _blend(img, np.full_like(img, mean), factor)


def adjust_saturation(img, factor):
    _check_rgb(img, "AdjustSaturation")
    return _blend(img, np.repeat(gray(img)[..., None], 3, axis=2), factor)
