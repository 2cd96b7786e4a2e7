"""Geometry for RandomResizedCrop and Rotate / RandomRotation, with MindSpore 2.10's (OpenCV's)
conventions (checked against recorded outputs, tests/oracle/data/vision.json).

RandomResizedCrop's box: up to 10 tries of a random area (scale times the image's) and aspect ratio
(log-uniform in `ratio`), width round(sqrt(area * aspect)), height round(width / aspect), kept
when it fits, at a uniform offset; otherwise the whole image with its aspect ratio clamped into
`ratio`, centred.

Rotation: the rotation about `center` ((w - 1) / 2, (h - 1) / 2 by default; degrees counter-
clockwise) as cv::getRotationMatrix2D builds it; `expand` grows the output to the rotated image's
bounding box. Each output pixel maps back to the source as cv::warpAffine does it: the inverse
matrix in fixed point (1/1024 pixel) for nearest, then 1/32 pixel steps and 15-bit weights for
bilinear (2 x 2 source pixels) and bicubic (4 x 4, OpenCV's a = -0.75 kernel); pixels from outside
the image take `fill`. `interp` is "nearest", "linear" or "cubic" (True / False: linear / nearest);
OpenCV's warps run INTER_AREA as INTER_LINEAR, and so do MindSpore's Rotate / Affine / Perspective.
"""
from __future__ import annotations

import math

import numpy as np

_AB_BITS = 10
_INTER_BITS = 5
_TAB = 1 << _INTER_BITS
_COEF_BITS = 15


def crop_box(rng, height, width, scale, ratio):
    """(top, left, crop height, crop width)."""
    area = height * width
    log_lo, log_hi = math.log(ratio[0]), math.log(ratio[1])
    for _ in range(10):
        target = area * rng.uniform(scale[0], scale[1])
        aspect = math.exp(rng.uniform(log_lo, log_hi))
        w = max(int(_round(math.sqrt(target * aspect))), 1)
        h = max(int(_round(w / aspect)), 1)
        if w <= width and h <= height:
            return int(rng.integers(0, height - h + 1)), int(rng.integers(0, width - w + 1)), h, w
    aspect = width / height
    if aspect < ratio[0]:
        w, h = width, int(_round(width / ratio[0]))
    elif aspect > ratio[1]:
        h, w = height, int(_round(height * ratio[1]))
    else:
        h, w = height, width
    return int(_round((height - h) / 2)), int(_round((width - w) / 2)), h, w


def _round(x: float) -> float:
    """std::round: halves away from zero."""
    return math.floor(x + 0.5) if x >= 0 else -math.floor(-x + 0.5)


def rotation_matrix(cx, cy, degrees):
    a = math.radians(degrees)
    alpha, beta = math.cos(a), math.sin(a)
    return np.array([[alpha, beta, (1 - alpha) * cx - beta * cy],
                     [-beta, alpha, beta * cx + (1 - alpha) * cy]])


def _inverse(m):
    d = m[0, 0] * m[1, 1] - m[0, 1] * m[1, 0]
    d = 1.0 / d if d else 0.0
    a11, a22, a12, a21 = m[1, 1] * d, m[0, 0] * d, -m[0, 1] * d, -m[1, 0] * d
    return np.array([[a11, a12, -a11 * m[0, 2] - a12 * m[1, 2]], [a21, a22, -a21 * m[0, 2] - a22 * m[1, 2]]])


def fill_values(fill, channels):
    """The border value per channel: a number fills every channel; a sequence is cv::Scalar's
    (channel k takes entry k % 4, missing entries 0)."""
    vals = np.asarray(fill, np.float64).reshape(-1)
    if vals.size == 1:
        return np.full(channels, vals[0])
    vals = np.concatenate([vals[:4], np.zeros(4 - min(vals.size, 4))])
    return vals[np.arange(channels) & 3]


def _kind(interp):
    if interp is True or interp is False:
        return "linear" if interp else "nearest"
    return interp


def rotate(img, degrees, center=None, expand=False, interp="nearest", fill=0):
    """MindSpore's Rotate passes an (R, G, B) fill to OpenCV reversed (the corners of a rotated RGB
    image come out (B, G, R): recorded), and so does this."""
    if np.ndim(fill):
        fill = tuple(fill)[::-1]
    h, w = img.shape[:2]
    cx, cy = ((w - 1) / 2, (h - 1) / 2) if center is None else center
    m = rotation_matrix(cx, cy, degrees)
    out_h, out_w = h, w
    if expand:
        # the bounding box of the image rectangle rotated about its centre
        a = math.radians(degrees)
        c, s = abs(math.cos(a)), abs(math.sin(a))
        bw, bh = w * c + h * s, w * s + h * c
        m[0, 2] += bw / 2 - w / 2
        m[1, 2] += bh / 2 - h / 2
        out_w, out_h = int(_round(bw)), int(_round(bh))
    return warp_affine(img, m, out_h, out_w, interp, fill)


def affine_matrix(h, w, degrees, translate, scale, shear):
    """MindSpore's Affine: about the image centre, rotate by `degrees`, scale, shear by (x, y)
    degrees, then translate by `translate` times the image's (width, height); float32 entries."""
    a = math.radians(degrees)
    sx, sy = math.radians(shear[0]), math.radians(-shear[1])
    cx, cy = (w - 1) / 2, (h - 1) / 2
    m = np.float32([scale * math.cos(a + sy) / math.cos(sy),
                    scale * (-math.cos(a + sy) * math.tan(sx) / math.cos(sy) - math.sin(a)), 0,
                    scale * math.sin(a + sy) / math.cos(sy),
                    scale * (-math.sin(a + sy) * math.tan(sx) / math.cos(sy) + math.cos(a)), 0])
    m[2] = (1 - m[0]) * cx - m[1] * cy + translate[0] * w
    m[5] = (1 - m[4]) * cy - m[3] * cx + translate[1] * h
    return m.astype(np.float64).reshape(2, 3)


def warp_affine(img, m, out_h, out_w, interp="nearest", fill=0):
    """cv::warpAffine of `img` by the forward matrix `m` to (out_h, out_w), BORDER_CONSTANT `fill`."""
    kind = _kind(interp)
    bilinear = kind != "nearest"
    h, w = img.shape[:2]
    inv = _inverse(m)
    scale = 1 << _AB_BITS
    xs, ys = np.arange(out_w), np.arange(out_h)
    adelta = np.rint(inv[0, 0] * xs * scale).astype(np.int64)
    bdelta = np.rint(inv[1, 0] * xs * scale).astype(np.int64)
    round_delta = scale // 2 if not bilinear else scale // _TAB // 2
    x0 = np.rint((inv[0, 1] * ys + inv[0, 2]) * scale).astype(np.int64) + round_delta
    y0 = np.rint((inv[1, 1] * ys + inv[1, 2]) * scale).astype(np.int64) + round_delta
    X = x0[:, None] + adelta[None, :]
    Y = y0[:, None] + bdelta[None, :]
    squeeze = img.ndim == 2
    src = img[:, :, None] if squeeze else img
    fill_px = fill_values(fill, src.shape[2])
    if not bilinear:
        sx, sy = X >> _AB_BITS, Y >> _AB_BITS
        inside = (sx >= 0) & (sx < w) & (sy >= 0) & (sy < h)
        out = np.empty((out_h, out_w, src.shape[2]), img.dtype)
        out[...] = fill_px.astype(img.dtype)
        out[inside] = src[sy[inside], sx[inside]]
        return out[:, :, 0] if squeeze else out
    remap = remap_cubic if kind == "cubic" else remap_fixed
    return remap(img, X >> (_AB_BITS - _INTER_BITS), Y >> (_AB_BITS - _INTER_BITS), fill)


def remap_fixed(img, X, Y, fill=0):
    """cv::remap INTER_LINEAR, BORDER_CONSTANT `fill`, of source coordinates X, Y in 1/32 pixel
    (uint8: 15-bit weights; float32: the float32 weights, v0 w0 + v1 w1 + v2 w2 + v3 w3 summed left
    to right in float32 as OpenCV's float path does)."""
    h, w = img.shape[:2]
    out_h, out_w = X.shape
    squeeze = img.ndim == 2
    src = img[:, :, None] if squeeze else img
    fill_px = fill_values(fill, src.shape[2])
    sx, sy = X >> _INTER_BITS, Y >> _INTER_BITS
    fx, fy = X & (_TAB - 1), Y & (_TAB - 1)
    single = img.dtype == np.float32
    table = _float_bilinear_table() if single else _bilinear_table()
    weights = table[fy, fx]                      # (h, w, 4): top-left, top-right, bottom-left, bottom-right
    acc = np.zeros((out_h, out_w, src.shape[2]), np.int64 if img.dtype == np.uint8 else
                   np.float32 if single else np.float64)
    any_inside = np.zeros((out_h, out_w), bool)
    for k, (dy, dx) in enumerate(((0, 0), (0, 1), (1, 0), (1, 1))):
        py, px = sy + dy, sx + dx
        ok = (px >= 0) & (px < w) & (py >= 0) & (py < h)
        any_inside |= ok
        pix = np.empty(acc.shape, acc.dtype)
        pix[...] = fill_px.astype(acc.dtype)
        pix[ok] = src[py[ok], px[ok]]
        acc += pix * weights[..., k:k + 1].astype(acc.dtype)
    if img.dtype == np.uint8:
        out = np.clip((acc + (1 << (_COEF_BITS - 1))) >> _COEF_BITS, 0, 255).astype(np.uint8)
    elif single:
        out = acc.copy()
    else:
        out = (acc / (1 << _COEF_BITS)).astype(img.dtype)
    out[~any_inside] = fill_px.astype(img.dtype)
    return out[:, :, 0] if squeeze else out


_TABLE = []


def _float_bilinear_table():
    """[fy, fx] -> OpenCV's float32 bilinear weights (1 - ty, ty) x (1 - tx, tx) for that 1/32 offset."""
    t = np.arange(_TAB, dtype=np.float32) * np.float32(1.0 / _TAB)
    one = np.stack([np.float32(1) - t, t], axis=1)                       # [i, k]
    return (one[:, None, :, None] * one[None, :, None, :]).reshape(_TAB, _TAB, 4).astype(np.float32)


def remap_cubic(img, X, Y, fill=0):
    """cv::remap INTER_CUBIC, BORDER_CONSTANT `fill`, of source coordinates X, Y in 1/32 pixel: the
    4 x 4 pixels from (X >> 5) - 1, (Y >> 5) - 1 weighted by _cubic_table. uint8: 15-bit integer
    weights, the sum rounded and clipped. float32: the float weights in OpenCV's order of float32
    operations - away from the border each row's four products summed left to right, the rows
    added in turn; near it fill + the sum of (pixel - fill) * weight over the pixels inside."""
    h, w = img.shape[:2]
    squeeze = img.ndim == 2
    src = img[:, :, None] if squeeze else img
    fill_px = fill_values(fill, src.shape[2])
    sx, sy = (X >> _INTER_BITS) - 1, (Y >> _INTER_BITS) - 1
    fixed = img.dtype == np.uint8
    single = img.dtype == np.float32
    weights = _cubic_table(fixed)[Y & (_TAB - 1), X & (_TAB - 1)]     # (h, w, 4, 4): [row, column]
    kind = np.int64 if fixed else np.float32 if single else np.float64
    weights = weights.astype(kind)
    shape = X.shape + (src.shape[2],)
    fill_acc = fill_px.astype(src.dtype).astype(kind)
    acc = np.zeros(shape, kind)                   # integer / float64: one sum; float32: the interior's
    border = np.broadcast_to(fill_acc, shape).copy() if single else None
    for dy in range(4):
        py = sy + dy
        oky = (py >= 0) & (py < h)
        row = np.zeros(shape, kind) if single else acc
        for dx in range(4):
            px = sx + dx
            ok = oky & (px >= 0) & (px < w)
            pix = np.empty(shape, kind)
            pix[...] = fill_acc
            pix[ok] = src[py[ok], px[ok]]
            wk = weights[..., dy, dx, None]
            if single:
                row = pix * wk if dx == 0 else row + pix * wk
                border = np.where(ok[..., None], border + (pix - fill_acc) * wk, border)
            else:
                acc += pix * wk
        if single:
            acc = row if dy == 0 else acc + row
    if fixed:
        out = np.clip((acc + (1 << (_COEF_BITS - 1))) >> _COEF_BITS, 0, 255).astype(np.uint8)
    elif single:
        interior = (sx >= 0) & (sx < max(w - 3, 0)) & (sy >= 0) & (sy < max(h - 3, 0))
        out = np.where(interior[..., None], acc, border)
    else:
        out = acc.astype(img.dtype)
    return out[:, :, 0] if squeeze else out


_CUBIC = {}


def _cubic_table(fixed):
    """[fy, fx] -> the 4 x 4 weights OpenCV's remap uses for that 1/32 offset: float32 products of
    the 1-D kernel (a = -0.75), and their 15-bit roundings, whose sum's error goes to the largest
    (shortfall) or smallest (excess) of the four weights [2:4, 2:4], as initInterTab2D does."""
    if not _CUBIC:
        f32 = np.float32
        a = f32(-0.75)
        one = np.zeros((_TAB, 4), np.float32)
        for i in range(_TAB):
            x = f32(i) * f32(1.0 / _TAB)
            x1, y = x + f32(1), f32(1) - x
            c0 = ((a * x1 - f32(5) * a) * x1 + f32(8) * a) * x1 - f32(4) * a
            c1 = ((a + f32(2)) * x - (a + f32(3))) * x * x + f32(1)
            c2 = ((a + f32(2)) * y - (a + f32(3))) * y * y + f32(1)
            one[i] = (c0, c1, c2, f32(1) - c0 - c1 - c2)
        tab = (one[:, None, :, None] * one[None, :, None, :]).astype(np.float32)    # [fy, fx, ky, kx]
        itab = np.rint(tab * f32(1 << _COEF_BITS)).astype(np.int64)
        for i in range(_TAB):
            for j in range(_TAB):
                t = itab[i, j]
                diff = int(t.sum()) - (1 << _COEF_BITS)
                if diff:
                    lo = hi = (2, 2)
                    for k in ((2, 2), (2, 3), (3, 2), (3, 3)):
                        if t[k] < t[lo]:
                            lo = k
                        elif t[k] > t[hi]:
                            hi = k
                    t[hi if diff < 0 else lo] -= diff
        _CUBIC[True], _CUBIC[False] = itab, tab.astype(np.float64)
    return _CUBIC[fixed]


def _bilinear_table():
    """[fy, fx] -> the 4 integer weights (sum 1 << 15) OpenCV's remap uses for that 1/32 offset."""
    if not _TABLE:
        scale = 1 << _COEF_BITS
        table = np.zeros((_TAB, _TAB, 4), np.int64)
        for i in range(_TAB):
            for j in range(_TAB):
                ty, tx = np.float32(i / _TAB), np.float32(j / _TAB)
                wy = [np.float32(1) - ty, ty]
                wx = [np.float32(1) - tx, tx]
                vals = [np.float32(wy[a] * wx[b]) for a in (0, 1) for b in (0, 1)]
                ints = [int(np.rint(v * scale)) for v in vals]
                diff = scale - sum(ints)        # OpenCV: a shortfall goes to the largest weight,
                if diff:                         # an excess comes off the smallest
                    k = int(np.argmax(ints)) if diff > 0 else int(np.argmin(ints))
                    ints[k] += diff
                table[i, j] = ints
        _TABLE.append(table)
    return _TABLE[0]


def perspective_matrix(start, end):
    """cv::getPerspectiveTransform: the 3 x 3 matrix taking the four `start` points to `end`."""
    a, b = np.zeros((8, 8)), np.zeros(8)
    for i, ((x, y), (u, v)) in enumerate(zip(start, end)):
        a[i, :3], a[i + 4, 3:6] = (x, y, 1), (x, y, 1)
        a[i, 6:], a[i + 4, 6:] = (-x * u, -y * u), (-x * v, -y * v)
        b[i], b[i + 4] = u, v
    return np.append(np.linalg.solve(a, b), 1.0).reshape(3, 3)


def warp_perspective(img, m, interp="linear", fill=0):
    """cv::warpPerspective of `img` by the forward matrix `m`, same size, BORDER_CONSTANT `fill`:
    each output pixel's source (X0 + M0 x) / W in double, rounded to 1/32 pixel (bilinear) or to a
    pixel (nearest)."""
    kind = _kind(interp)
    bilinear = kind != "nearest"
    h, w = img.shape[:2]
    inv = np.linalg.inv(m).reshape(-1)
    ys, xs = np.arange(h, dtype=np.float64)[:, None], np.arange(w, dtype=np.float64)[None, :]
    X0 = inv[1] * ys + inv[2]
    Y0 = inv[4] * ys + inv[5]
    W0 = inv[7] * ys + inv[8]
    W = W0 + inv[6] * xs
    scale = float(_TAB) if bilinear else 1.0
    W = np.where(W != 0, scale / np.where(W != 0, W, 1.0), 0.0)
    lim = float(np.iinfo(np.int32).max)
    fX = np.clip((X0 + inv[0] * xs) * W, -lim - 1, lim)
    fY = np.clip((Y0 + inv[3] * xs) * W, -lim - 1, lim)
    X, Y = np.rint(fX).astype(np.int64), np.rint(fY).astype(np.int64)
    if bilinear:
        return (remap_cubic if kind == "cubic" else remap_fixed)(img, X, Y, fill)
    squeeze = img.ndim == 2
    src = img[:, :, None] if squeeze else img
    inside = (X >= 0) & (X < w) & (Y >= 0) & (Y < h)
    out = np.empty((h, w, src.shape[2]), img.dtype)
    out[...] = fill_values(fill, src.shape[2]).astype(img.dtype)
    out[inside] = src[Y[inside], X[inside]]
    return out[:, :, 0] if squeeze else out
