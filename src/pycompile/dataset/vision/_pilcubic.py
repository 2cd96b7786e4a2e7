"""Resize with Inter.PILCUBIC and Inter.ANTIALIAS as MindSpore 2.10 computes them.

PILCUBIC (NumPy images): Pillow's bicubic resampling (a = -0.5, the filter widened by the scale
when shrinking, coefficients normalised and in 22-bit fixed point, each pass rounded and clipped
to uint8) run width first, then height — MindSpore's port of it passes in that order (Pillow
itself goes height first when both change, which gives other values; tests/oracle/data/vision.json).

ANTIALIAS (PIL images only, as in MindSpore): Pillow's own LANCZOS resize.
"""
from __future__ import annotations

import numpy as np

_BITS = 22


def _cubic(x, a=-0.5):
    x = np.abs(x)
    return np.where(x < 1, ((a + 2) * x - (a + 3)) * x * x + 1,
                    np.where(x < 2, (((x - 5) * x + 8) * x - 4) * a, 0.0))


def _coefficients(in_size, out_size):
    scale = in_size / out_size
    filterscale = max(scale, 1.0)
    support = 2.0 * filterscale
    rows = []
    for xx in range(out_size):
        center = (xx + 0.5) * scale
        xmin = max(int(center - support + 0.5), 0)
        xmax = min(int(center + support + 0.5), in_size) - xmin
        k = _cubic((np.arange(xmax) + xmin - center + 0.5) / filterscale)
        total = k.sum()
        k = k / total if total != 0 else np.zeros_like(k)
        fixed = np.where(k >= 0, np.trunc(k * (1 << _BITS) + 0.5), np.trunc(k * (1 << _BITS) - 0.5)).astype(np.int64)
        rows.append((xmin, fixed))
    return rows


def _pass(img, axis, out_size):
    src = np.moveaxis(img, axis, 0).astype(np.int64)
    out = np.empty((out_size,) + src.shape[1:], np.uint8)
    for i, (xmin, k) in enumerate(_coefficients(src.shape[0], out_size)):
        acc = np.tensordot(k, src[xmin:xmin + len(k)], axes=(0, 0)) + (1 << (_BITS - 1))
        out[i] = np.clip(acc >> _BITS, 0, 255)
    return np.moveaxis(out, 0, axis)


def resize_pilcubic(img, h, w):
    if img.ndim != 3 or img.shape[2] != 3:
        shape = ",".join(str(d) for d in img.shape)
        raise RuntimeError("Exception thrown from dataset pipeline. Refer to 'Dataset Pipeline Error Message'.\n\n"
                           f"[ERROR] Resize: Interpolation mode PILCUBIC only supports image with 3 channels, but "
                           f"got: <{shape}>")
    if img.dtype != np.uint8:
        raise RuntimeError(f"Resize: PILCUBIC needs a uint8 image, but got {img.dtype}.")
    out = img if w == img.shape[1] else _pass(img, 1, w)
    out = out if h == img.shape[0] else _pass(out, 0, h)
    return np.ascontiguousarray(out)


def resize_antialias(pil_image, h, w):
    from PIL import Image
    return pil_image.resize((w, h), Image.LANCZOS)
