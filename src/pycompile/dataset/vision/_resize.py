"""Image resizing in NumPy, reproducing the OpenCV arithmetic MindSpore's Resize runs on, so
results match MindSpore's bit for bit on uint8 images (checked against recorded outputs).

Bilinear, as OpenCV's INTER_LINEAR does it:
* source coordinate of output pixel d: (d + 0.5) * src / dst - 0.5, in float32;
* columns clamp at the borders (weight 0 beyond them); rows do not clamp the weight, they clamp
  the row index, so the first output rows blend row 0 with itself through the fixed-point path;
* uint8: weights are 11-bit fixed point (round((1 - f) * 2048) and 2048 minus it); a row pass
  gives 22-bit sums S, and a column pass combines two of them as
  ((b0 * (S0 >> 4)) >> 16 + (b1 * (S1 >> 4)) >> 16 + 2) >> 2 - OpenCV's vectorized rounding;
* float images: the same coordinates with float32 weights and arithmetic.

Nearest: source index floor(d * src / dst), as OpenCV's INTER_NEAREST.

Area, as OpenCV's INTER_AREA: shrinking by whole factors averages each block (a 2x2 block as
(sum + 2) >> 2, others times float32 1 / area, rounded); by other factors each output pixel sums
the source pixels its cell covers, weighted by the covered fraction (float32 weights and sums, the
columns first, rounded); enlarging (on either axis) is bilinear with weights taken from the cell
edges instead of the centres.

Bicubic, as OpenCV's INTER_CUBIC: the same float32 source coordinates, four taps (index - 1 ..
index + 2, clamped to the image) weighted by Keys' cubic with a = -0.75 evaluated in float32;
uint8: weights 11-bit fixed point (rounded), a row pass of exact integer sums, then a column pass
(sum of weight * row sum + 2**21) >> 22, saturated. Float images: float32 weights and sums (within
a few ulp of OpenCV's, whose order of float additions is not reproduced).
"""
from __future__ import annotations

import math

import numpy as np

_SCALE = 2048        # 1 << 11, OpenCV's INTER_RESIZE_COEF_SCALE


def _linear_taps(src: int, dst: int, clamp_weight: bool, area: bool = False):
    if area:
        # INTER_AREA when enlarging: OpenCV's linear taps with their weights from the cell edges
        first = np.floor(np.arange(dst) * (src / dst)).astype(np.int64)
        frac = ((np.arange(dst) + 1) - (first + 1) * (dst / src)).astype(np.float32)
        frac = np.where(frac <= 0, np.float32(0), frac - np.floor(frac)).astype(np.float32)
    else:
        pos = ((np.arange(dst, dtype=np.float64) + 0.5) * (src / dst) - 0.5).astype(np.float32)
        first = np.floor(pos).astype(np.int64)
        frac = (pos - first).astype(np.float32)
    if clamp_weight:
        low, high = first < 0, first >= src - 1
        frac[low | high] = 0
        first[low] = 0
        first[high] = src - 1
    return np.clip(first, 0, src - 1), np.clip(first + 1, 0, src - 1), frac


def resize_bilinear(img: np.ndarray, height: int, width: int, area: bool = False) -> np.ndarray:
    """HW or HWC image -> (height, width[, C]), same dtype (`area`: INTER_AREA's enlarging taps)."""
    squeeze = img.ndim == 2
    src = img[:, :, None] if squeeze else img
    y0, y1, fy = _linear_taps(src.shape[0], height, clamp_weight=False, area=area)
    x0, x1, fx = _linear_taps(src.shape[1], width, clamp_weight=True, area=area)
    if src.dtype == np.uint8:
        # int32 suffices (a row sum is at most 255 * 2048, a weighted one 2048 * 32640), and the
        # in-place steps avoid a temporary per operation: about 3x faster than int64 temporaries
        ax0 = np.rint((np.float32(1) - fx) * np.float32(_SCALE)).astype(np.int32)
        by0 = np.rint((np.float32(1) - fy) * np.float32(_SCALE)).astype(np.int32)
        ax1, by1 = _SCALE - ax0, _SCALE - by0
        pixels = src.astype(np.int32)
        rows = pixels[:, x0]
        rows *= ax0[None, :, None]
        right = pixels[:, x1]
        right *= ax1[None, :, None]
        rows += right
        rows >>= 4
        out = rows[y0]
        out *= by0[:, None, None]
        out >>= 16
        bottom = rows[y1]
        bottom *= by1[:, None, None]
        bottom >>= 16
        out += bottom
        out += 2
        out >>= 2
        out = np.clip(out, 0, 255, out=out).astype(np.uint8)
    else:
        work = src.astype(np.float32)
        ax1, by1 = fx, fy
        ax0, by0 = np.float32(1) - fx, np.float32(1) - fy
        rows = work[:, x0] * ax0[None, :, None] + work[:, x1] * ax1[None, :, None]
        out = (rows[y0] * by0[:, None, None] + rows[y1] * by1[:, None, None]).astype(src.dtype)
    return out[:, :, 0] if squeeze else out


def resize_nearest(img: np.ndarray, height: int, width: int) -> np.ndarray:
    ys = np.minimum(np.floor(np.arange(height) * (img.shape[0] / height)).astype(np.int64), img.shape[0] - 1)
    xs = np.minimum(np.floor(np.arange(width) * (img.shape[1] / width)).astype(np.int64), img.shape[1] - 1)
    return img[ys][:, xs]


def output_size(shape, size) -> tuple:
    """(height, width) for Resize's `size`: a pair, or an int for the shorter side (the longer
    side scaled and truncated, as MindSpore does)."""
    if isinstance(size, (tuple, list)):
        return int(size[0]), int(size[1])
    h, w = shape[0], shape[1]
    if h <= w:
        return size, int(w * size / h)
    return int(h * size / w), size


_CUBIC_A = np.float32(-0.75)


def _cubic_taps(src: int, dst: int):
    """(indices (dst, 4) clamped to the source, float32 weights (dst, 4))."""
    pos = ((np.arange(dst, dtype=np.float64) + 0.5) * (src / dst) - 0.5).astype(np.float32)
    first = np.floor(pos).astype(np.int64)
    x = (pos - first).astype(np.float32)
    a, one = _CUBIC_A, np.float32(1)
    c0 = ((a * (x + one) - np.float32(5) * a) * (x + one) + np.float32(8) * a) * (x + one) - np.float32(4) * a
    c1 = ((a + np.float32(2)) * x - (a + np.float32(3))) * x * x + one
    c2 = ((a + np.float32(2)) * (one - x) - (a + np.float32(3))) * (one - x) * (one - x) + one
    c3 = one - c0 - c1 - c2
    index = np.clip(first[:, None] - 1 + np.arange(4)[None, :], 0, src - 1)
    return index, np.stack([c0, c1, c2, c3], axis=-1).astype(np.float32)


def resize_bicubic(img: np.ndarray, height: int, width: int) -> np.ndarray:
    """HW or HWC image -> (height, width[, C]), same dtype."""
    squeeze = img.ndim == 2
    src = img[:, :, None] if squeeze else img
    xi, xw = _cubic_taps(src.shape[1], width)
    yi, yw = _cubic_taps(src.shape[0], height)
    if src.dtype == np.uint8:
        ax = np.rint(xw * np.float32(_SCALE)).astype(np.int64)
        by = np.rint(yw * np.float32(_SCALE)).astype(np.int64)
        pixels = src.astype(np.int64)
        rows = sum(pixels[:, xi[:, k]] * ax[None, :, k, None] for k in range(4))
        acc = sum(by[:, k, None, None] * rows[yi[:, k]] for k in range(4))
        out = np.clip((acc + (1 << 21)) >> 22, 0, 255).astype(np.uint8)
    else:
        work = src.astype(np.float32)
        rows = work[:, xi[:, 0]] * xw[None, :, 0, None]
        for k in range(1, 4):
            rows = rows + work[:, xi[:, k]] * xw[None, :, k, None]
        out = rows[yi[:, 0]] * yw[:, 0, None, None]
        for k in range(1, 4):
            out = out + rows[yi[:, k]] * yw[:, k, None, None]
        out = out.astype(src.dtype)
    return out[:, :, 0] if squeeze else out


def _area_weights(src: int, dst: int) -> list:
    """[(output index, source index, float32 weight)]: the source cells each output cell covers."""
    scale = src / dst
    tab = []
    for d in range(dst):
        lo, hi = d * scale, d * scale + scale
        cell = min(scale, src - lo)
        first, last = math.ceil(lo), min(math.floor(hi), src - 1)
        first = min(first, last)
        if first - lo > 1e-3:
            tab.append((d, first - 1, np.float32((first - lo) / cell)))
        tab += [(d, s, np.float32(1.0 / cell)) for s in range(first, last)]
        if hi - last > 1e-3:
            tab.append((d, last, np.float32(min(min(hi - last, 1.0), cell) / cell)))
    return tab


def resize_area(img: np.ndarray, height: int, width: int) -> np.ndarray:
    """HW or HWC image -> (height, width[, C]), same dtype."""
    src_h, src_w = img.shape[:2]
    if height > src_h or width > src_w:
        return resize_bilinear(img, height, width, area=True)
    squeeze = img.ndim == 2
    src = img[:, :, None] if squeeze else img
    fy, fx = src_h / height, src_w / width
    if fx == int(fx) and fy == int(fy):
        fy, fx = int(fy), int(fx)
        blocks = src[:height * fy, :width * fx].astype(np.int64).reshape(height, fy, width, fx, -1).sum(axis=(1, 3))
        if src.dtype == np.uint8 and fx * fy == 4:
            out = (blocks + 2) >> 2
        else:
            out = np.rint(blocks.astype(np.float32) * np.float32(1.0 / (fx * fy)))
        out = np.clip(out, 0, 255) if src.dtype == np.uint8 else out
        out = out.astype(src.dtype)
    else:
        work = src.astype(np.float32)
        rows = np.zeros((src_h, width, src.shape[2]), np.float32)
        for d, s, weight in _area_weights(src_w, width):
            rows[:, d] += work[:, s] * weight
        acc = np.zeros((height, width, src.shape[2]), np.float32)
        for d, s, weight in _area_weights(src_h, height):
            acc[d] += rows[s] * weight
        out = np.clip(np.rint(acc), 0, 255).astype(np.uint8) if src.dtype == np.uint8 else acc.astype(src.dtype)
    return out[:, :, 0] if squeeze else out
