"""Colour transforms in NumPy with the OpenCV arithmetic MindSpore 2.10 runs (checked against
recorded outputs, tests/oracle/data/vision.json):

* gray (cvtColor RGB2GRAY on uint8): Y = (9798 R + 19235 G + 3735 B + 16384) >> 15;
* AdjustBrightness (Mat::convertTo with a scale): v * alpha in float32, rounded half to even;
* AdjustContrast / AdjustSaturation blend the image with a gray one (the rounded mean of the gray
  image; the gray image itself) as OpenCV's vectorised addWeighted: a fused multiply-add in
  float32, rounded half to even, saturated to uint8;
* AdjustHue: cvtColor RGB2HSV_FULL (integer division tables with 12 fractional bits, hue over
  256 steps), hue + int(factor * 255) mod 256, then HSV2RGB_FULL (float32, hue over 255 steps),
  times 255 back to uint8 as OpenCV's two paths do it: the vectorised one, 32 pixels a step,
  truncates; the scalar one, for the rest of each row (width mod 32 pixels), rounds half to even.
  (32 is the step of the AVX2 code MindSpore 2.10's OpenCV runs; a build with another vector
  width would split rows differently.)
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


_HSV_SHIFT = 12
_HSV_STEP = 32          # pixels per step of OpenCV's vectorised HSV2RGB (AVX2)


def _rgb_to_hsv_full(img):
    c = img.astype(np.int64)
    r, g, b = c[..., 0], c[..., 1], c[..., 2]
    v = np.maximum(np.maximum(b, g), r)
    diff = v - np.minimum(np.minimum(b, g), r)
    steps = np.arange(1, 256, dtype=np.float64)
    sdiv = np.concatenate([[0], np.rint((255 << _HSV_SHIFT) / steps)]).astype(np.int64)
    hdiv = np.concatenate([[0], np.rint((256 << _HSV_SHIFT) / (6.0 * steps))]).astype(np.int64)
    half = 1 << (_HSV_SHIFT - 1)
    s = (diff * sdiv[v] + half) >> _HSV_SHIFT
    h = np.where(v == r, g - b, np.where(v == g, b - r + 2 * diff, r - g + 4 * diff))
    h = (h * hdiv[diff] + half) >> _HSV_SHIFT
    return np.where(h < 0, h + 256, h), s, v


_SECTORS = np.array([[1, 3, 0], [1, 0, 2], [3, 0, 1], [0, 2, 1], [0, 1, 3], [2, 1, 0]])   # b, g, r from tab


def _hsv_full_to_rgb(h, s, v):
    f32, one = np.float32, np.float32(1)
    hf = h.astype(f32) * f32(6.0 / 255)
    sf = s.astype(f32) * f32(1.0 / 255)
    vf = v.astype(f32) * f32(1.0 / 255)
    hf = np.where(hf >= 6, hf - f32(6), hf).astype(f32)
    sector = np.floor(hf).astype(np.int64)
    frac = (hf - sector).astype(f32)
    tab = np.stack([vf, vf * (one - sf), vf * (one - sf * frac), vf * (one - sf * (one - frac))], -1)
    bgr = np.take_along_axis(tab, _SECTORS[sector], axis=-1)
    bgr = np.where((s == 0)[..., None], vf[..., None], bgr)
    x = bgr[..., ::-1] * f32(255)
    out = np.rint(x)
    vectorised = x.shape[1] // _HSV_STEP * _HSV_STEP
    out[:, :vectorised] = np.floor(x[:, :vectorised])
    return np.clip(out, 0, 255).astype(np.uint8)


def adjust_hue(img, factor):
    _check_rgb(img, "AdjustHue")
    h, s, v = _rgb_to_hsv_full(img)
    shift = int(np.float32(factor) * np.float32(255)) % 256      # C++'s static_cast<uint8_t> of the float
    return _hsv_full_to_rgb((h + shift) % 256, s, v)
