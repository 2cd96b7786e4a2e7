"""GaussianBlur as MindSpore 2.10 computes it (OpenCV's GaussianBlur, BORDER_REFLECT_101):

- uint8: OpenCV's bit-exact path. The kernel is computed in double and turned into 8-bit
  fixed point by error diffusion from the ends to the centre (the centre taking what makes the
  sum exactly 1); rows are filtered in exact integer arithmetic, then columns, and the result
  rounded (+2^15, >> 16) to uint8.
- float: separable float32 filtering, each pass adding the symmetric pairs
  (k0 * x0 + k1 * (x-1 + x1) + ...) as OpenCV's symmetric kernels do; within 2 ulp of MindSpore's
  (about a third of the values differ in the last bits: OpenCV's float summation order is not
  reproduced).
"""
from __future__ import annotations

import math

import numpy as np


def _sigma(n, sigma):
    return sigma if sigma > 0 else ((n - 1) * 0.5 - 1) * 0.3 + 0.8


def kernel_double(n, sigma):
    s = _sigma(n, sigma)
    scale2 = -0.125 / (s * s)
    half = (n - 1) // 2
    values = [math.exp(float(x * x) * scale2) for x in range(1 - n, 1 - n + 2 * half, 2)]
    total = sum(values) * 2 + 1.0
    mul = 1.0 / total
    out = [v * mul for v in values]
    return out + [mul] + out[::-1]


def kernel_fixed(n, sigma, bits=8):
    k = kernel_double(n, sigma)
    scale = float(1 << bits)
    half = n // 2
    err, total, out = 0.0, 0, [0] * n
    for i in range(half):
        adj = k[i] * scale + err
        v = int(np.rint(adj))
        err = adj - v
        out[i] = out[n - 1 - i] = v
        total += v
    out[half] = (1 << bits) - 2 * total
    return out


def _reflect101(img, top, left):
    return np.pad(img, [(top, top), (left, left)] + [(0, 0)] * (img.ndim - 2), mode="reflect")


def gaussian_blur(img, ksize_w, ksize_h, sigma_x, sigma_y):
    if img.dtype == np.uint8:
        kx, ky = kernel_fixed(ksize_w, sigma_x), kernel_fixed(ksize_h, sigma_y)
        src = _reflect101(img.astype(np.int64), ksize_h // 2, ksize_w // 2)
        h, w = img.shape[:2]
        rows = sum(kx[i] * src[:, i:i + w] for i in range(ksize_w))
        acc = sum(ky[j] * rows[j:j + h] for j in range(ksize_h))
        return np.clip((acc + (1 << 15)) >> 16, 0, 255).astype(np.uint8)
    kx, ky = np.float32(kernel_double(ksize_w, sigma_x)), np.float32(kernel_double(ksize_h, sigma_y))
    src = _reflect101(img.astype(np.float32), ksize_h // 2, ksize_w // 2)
    h, w = img.shape[:2]
    cx, cy = ksize_w // 2, ksize_h // 2
    rows = src[:, cx:cx + w] * kx[cx]
    for k in range(1, cx + 1):
        rows = rows + kx[cx + k] * (src[:, cx - k:cx - k + w] + src[:, cx + k:cx + k + w])
    out = rows[cy:cy + h] * ky[cy]
    for k in range(1, cy + 1):
        out = out + ky[cy + k] * (rows[cy - k:cy - k + h] + rows[cy + k:cy + k + h])
    return out.astype(img.dtype)
