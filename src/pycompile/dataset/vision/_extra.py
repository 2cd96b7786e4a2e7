"""More of mindspore.dataset.vision (issue 35): colour space and sharpness ops, crops into
several images, the pad / linear / patch ops, CutOut / RandomErasing, and the random variants of
existing ops. Results are MindSpore 2.10's (tests/oracle/data/vision_data35.json); where
MindSpore's op is a Python one (RgbToHsv, HsvToRgb, FiveCrop, TenCrop, LinearTransformation,
RandomGrayscale, RandomErasing) its arithmetic is followed step by step, and the OpenCV-based
ones repeat OpenCV's rounding (saturate_cast: round half to even).
"""
from __future__ import annotations

from enum import IntEnum

import numpy as np

from pycompile.dataset.transforms._base import RandomOperation, TensorOperation
from pycompile.dataset.vision import _color
from pycompile.dataset.vision._common import _pair
from pycompile.dataset.vision._more import AutoContrast, Equalize


def _prob(prob):
    if not isinstance(prob, (int, float)) or isinstance(prob, bool) or not 0.0 <= prob <= 1.0:
        raise ValueError(f"Input prob is not within the required interval of [0.0, 1.0], but got {prob}.")
    return float(prob)


# -- colour spaces (MindSpore's Python ops: colorsys per pixel, in double) ---------------------------
def _channels(img, is_hwc, op):
    if img.ndim not in (3, 4):
        raise TypeError(f"img shape should be (H, W, C)/(N, H, W, C)/(C, H, W)/(N, C, H, W). Got {img.shape}.")
    axis = (img.ndim - 1) if is_hwc else (img.ndim - 3)
    if img.shape[axis] != 3:
        raise TypeError(f"img should be 3 channels RGB img. Got {img.shape[axis]} channels.")
    return axis


def _rgb_to_hsv(r, g, b):
    """colorsys.rgb_to_hsv, elementwise in double (np.vectorize hands colorsys Python floats)."""
    maxc = np.maximum(np.maximum(r, g), b)
    minc = np.minimum(np.minimum(r, g), b)
    rangec = maxc - minc
    flat = minc == maxc
    safe_max = np.where(maxc == 0, 1.0, maxc)
    safe_range = np.where(flat, 1.0, rangec)
    s = np.where(flat, 0.0, rangec / safe_max)
    rc, gc, bc = (maxc - r) / safe_range, (maxc - g) / safe_range, (maxc - b) / safe_range
    h = np.where(r == maxc, bc - gc, np.where(g == maxc, 2.0 + rc - bc, 4.0 + gc - rc))
    h = np.where(flat, 0.0, np.mod(h / 6.0, 1.0))
    return h, s, maxc


def _hsv_to_rgb(h, s, v):
    """colorsys.hsv_to_rgb, elementwise in double; also which of r, g, b is `v` per pixel."""
    i = np.trunc(h * 6.0)
    f = (h * 6.0) - i
    p, q, t = v * (1.0 - s), v * (1.0 - s * f), v * (1.0 - s * (1.0 - f))
    i = np.mod(i.astype(np.int64), 6)
    picks = [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)]
    out = []
    for c in range(3):
        ch = np.select([i == k for k in range(6)], [pk[c] for pk in picks])
        out.append(np.where(s == 0.0, v, ch))
    return out, i


def _vectorized_types(values, kinds, dtype):
    """np.vectorize gives each output the type of its value at the first pixel, where colorsys saw
    NumPy scalars: a value computed from pixels alone ('pixel') keeps the pixels' dtype, one that
    met a Python float is a double. MindSpore then stacks them as float64."""
    return [(v.astype(dtype) if kind == "pixel" else v).astype(np.float64) for v, kind in zip(values, kinds)]


class RgbToHsv(TensorOperation):
    """RGB -> HSV (float64, hue and saturation in [0, 1], value on the input's scale); CHW unless
    is_hwc=True; a batch (4-D) converts image by image."""

    def __init__(self, is_hwc=False):
        self.is_hwc = bool(is_hwc)

    def _apply(self, img):
        axis = _channels(img, self.is_hwc, "RgbToHsv")
        if img.ndim == 4:                     # MindSpore converts a batch image by image
            return np.stack([self._apply(im) for im in img])
        r, g, b = (np.take(img, k, axis=axis).astype(np.float64) for k in range(3))
        h, s, v = _rgb_to_hsv(r, g, b)
        x0 = [np.take(c, 0) for c in (r, g, b)]
        flat0 = max(x0) == min(x0)
        # the first pixel's types: h a double; s the pixels' quotient (a double for integer pixels)
        # unless that pixel is flat (colorsys returns 0.0); v the pixels' maximum
        s_kind = "pixel" if img.dtype.kind == "f" and not flat0 else "double"
        return np.stack(_vectorized_types([h, s, v], ["double", s_kind, "pixel"], img.dtype), axis=axis)


# per sector of hsv_to_rgb: which of (r, g, b) is v itself (1) rather than computed (0)
_V_AT = [(1, 0, 0), (0, 1, 0), (0, 1, 0), (0, 0, 1), (0, 0, 1), (1, 0, 0)]


class HsvToRgb(TensorOperation):
    """HSV -> RGB (float64); CHW unless is_hwc=True."""

    def __init__(self, is_hwc=False):
        self.is_hwc = bool(is_hwc)

    def _apply(self, img):
        axis = _channels(img, self.is_hwc, "HsvToRgb")
        if img.ndim == 4:
            return np.stack([self._apply(im) for im in img])
        h, s, v = (np.take(img, k, axis=axis).astype(np.float64) for k in range(3))
        rgb, sector = _hsv_to_rgb(h, s, v)
        first = int(np.take(sector, 0))
        flat0 = np.take(s, 0) == 0.0
        is_v = [True] * 3 if flat0 else [pk == 1 for pk in _V_AT[first]]
        kinds = ["pixel" if k else "double" for k in is_v]
        return np.stack(_vectorized_types(rgb, kinds, img.dtype), axis=axis)


# -- sharpness and colour (OpenCV arithmetic) ---------------------------------------------------------
def _weighted(img, other, factor):
    """img * factor + other * (1 - factor) on uint8, as the addWeighted of these ops computes it:
    fma(img, factor, other * (1 - factor)), the product other * (1 - factor) rounded to float32,
    the fused sum rounded once, then to the nearest uint8 (the operands the other way round from
    _color._blend, which AdjustSaturation's matches)."""
    a = np.float32(factor)
    b = np.float32(1.0 - np.float64(a))
    product = other.astype(np.float32) * b
    fused = (img.astype(np.float64) * np.float64(a) + product.astype(np.float64)).astype(np.float32)
    return _color._u8(fused)


def _sharpen(img, factor):
    """Blend with the image smoothed by [[1, 1, 1], [1, 5, 1], [1, 1, 1]] / 13 (border pixels kept):
    factor 0 gives the smoothed image, 1 the image."""
    if img.dtype != np.uint8 or img.ndim not in (2, 3):
        raise RuntimeError(f"AdjustSharpness: the image should be uint8 <H, W> or <H, W, C>, but got {img.dtype} "
                           f"of shape {list(img.shape)}.")
    src = img.astype(np.float32)
    h, w = img.shape[:2]
    smooth = src.copy()
    if h > 2 and w > 2:
        k = np.float32(1 / 13)
        acc = np.zeros_like(src[1:-1, 1:-1])
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                weight = np.float32(5 / 13) if dy == dx == 0 else k
                acc = acc + src[1 + dy:h - 1 + dy, 1 + dx:w - 1 + dx] * weight
        smooth[1:-1, 1:-1] = _color._u8(acc)
    return _weighted(img, smooth.astype(np.uint8), factor)


class AdjustSharpness(TensorOperation):
    def __init__(self, sharpness_factor):
        if not isinstance(sharpness_factor, (int, float)) or sharpness_factor < 0:
            raise ValueError(f"Input sharpness_factor is not within the required interval of [0, 16777216], but "
                             f"got {sharpness_factor}.")
        self.sharpness_factor = float(sharpness_factor)

    def _apply(self, img):
        return _sharpen(img, self.sharpness_factor)


class RandomAdjustSharpness(RandomOperation):
    def __init__(self, degree, prob=0.5):
        self.degree, self.prob = float(degree), _prob(prob)

    def _apply_random(self, rng, img):
        return _sharpen(img, self.degree) if rng.random() < self.prob else img


class RandomSharpness(RandomOperation):
    """Sharpness by a factor drawn from `degrees`."""

    def __init__(self, degrees=(0.1, 1.9)):
        self.degrees = tuple(float(d) for d in degrees)

    def _apply_random(self, rng, img):
        return _sharpen(img, float(rng.uniform(*self.degrees)))


class RandomColor(RandomOperation):
    """Saturation by a factor drawn from `degrees` (a blend with the grayscale image)."""

    def __init__(self, degrees=(0.1, 1.9)):
        self.degrees = tuple(float(d) for d in degrees)

    def _apply_random(self, rng, img):
        _color._check_rgb(img, "RandomColor")
        return _weighted(img, np.repeat(_color.gray(img)[..., None], 3, axis=2), float(rng.uniform(*self.degrees)))


class RandomAutoContrast(RandomOperation):
    def __init__(self, cutoff=0.0, ignore=None, prob=0.5):
        self.op, self.prob = AutoContrast(cutoff, ignore), _prob(prob)

    def _apply_random(self, rng, img):
        return self.op._apply(img) if rng.random() < self.prob else img


class RandomEqualize(RandomOperation):
    def __init__(self, prob=0.5):
        self.op, self.prob = Equalize(), _prob(prob)

    def _apply_random(self, rng, img):
        return self.op._apply(img) if rng.random() < self.prob else img


class RandomGrayscale(RandomOperation):
    """With probability `prob`, the image's gray level in each of its channels (PIL's 'L')."""

    def __init__(self, prob=0.1):
        self.prob = _prob(prob)

    def _apply_random(self, rng, img):
        if rng.random() >= self.prob:
            return img
        if img.ndim == 2 or img.shape[2] == 1:
            return img
        c = img[..., :3].astype(np.int64)
        level = ((c[..., 0] * 19595 + c[..., 1] * 38470 + c[..., 2] * 7471 + 0x8000) >> 16).astype(np.uint8)
        return np.repeat(level[..., None], 3, axis=2)


_EIGVAL = np.array([0.2175, 0.0188, 0.0045]) * 255
_EIGVEC = np.array([[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140], [-0.5836, -0.6948, 0.4203]])


class RandomLighting(RandomOperation):
    """AlexNet's PCA lighting noise: add eigvec @ (alpha_i * eigval), alpha_i ~ N(0, alpha)."""

    def __init__(self, alpha=0.05):
        if alpha < 0:
            raise ValueError(f"Input alpha is not within the required interval of [0, 16777216], but got {alpha}.")
        self.alpha = float(alpha)

    def _apply_random(self, rng, img):
        if self.alpha == 0:
            return img
        shift = _EIGVEC @ (rng.normal(0.0, self.alpha, 3) * _EIGVAL)
        return _color._u8(img.astype(np.float64) + shift)


# -- crops into several images --------------------------------------------------------------------------
def _five(img, size):
    ch, cw = _pair(size, "FiveCrop size") if not isinstance(size, int) else (size, size)
    h, w = img.shape[:2]
    if ch > h or cw > w:
        raise ValueError(f"Crop size {(ch, cw)} is larger than input image size {(h, w)}.")
    top, left = int(round((h - ch) / 2.0)), int(round((w - cw) / 2.0))
    crops = [img[:ch, :cw], img[:ch, w - cw:], img[h - ch:, :cw], img[h - ch:, w - cw:],
             img[top:top + ch, left:left + cw]]
    return tuple(np.ascontiguousarray(c) for c in crops)


class FiveCrop(TensorOperation):
    """(top left, top right, bottom left, bottom right, center) crops of `size`."""

    def __init__(self, size):
        self.size = size

    def _apply(self, img):
        return _five(img, self.size)


class TenCrop(TensorOperation):
    """FiveCrop of the image, then of its mirror image (vertical with use_vertical_flip)."""

    def __init__(self, size, use_vertical_flip=False):
        self.size, self.use_vertical_flip = size, bool(use_vertical_flip)

    def _apply(self, img):
        flipped = img[::-1] if self.use_vertical_flip else img[:, ::-1]
        return _five(img, self.size) + _five(flipped, self.size)


class SliceMode(IntEnum):
    PAD = 0
    DROP = 1


class SlicePatches(TensorOperation):
    """Cut the image into num_height x num_width patches (row by row); with SliceMode.PAD the image
    is first padded with `fill_value` at the bottom / right to a multiple of the grid, with DROP
    the remainder is dropped."""

    def __init__(self, num_height=1, num_width=1, slice_mode=SliceMode.PAD, fill_value=0):
        self.num_height, self.num_width = int(num_height), int(num_width)
        self.slice_mode, self.fill_value = SliceMode(slice_mode), fill_value

    def _apply(self, img):
        h, w = img.shape[:2]
        nh, nw = self.num_height, self.num_width
        if self.slice_mode == SliceMode.PAD:
            ph, pw = -(-h // nh), -(-w // nw)
            padded = np.full((ph * nh, pw * nw) + img.shape[2:], self.fill_value, img.dtype)
            padded[:h, :w] = img
            img = padded
        else:
            ph, pw = h // nh, w // nw
        return tuple(np.ascontiguousarray(img[i * ph:(i + 1) * ph, j * pw:(j + 1) * pw])
                     for i in range(nh) for j in range(nw))


# -- pad / linear --------------------------------------------------------------------------------------
class NormalizePad(TensorOperation):
    """Normalize (image - mean) / std per channel into an image with one more channel, `dtype`
    float32 or float16. As MindSpore 2.10 lays it out (recorded): the normalized HWC values fill
    the (H, W, C + 1) result in memory order and the last H * W entries are the zeros, so the
    zero channel is not where the name says."""

    def __init__(self, mean, std, dtype="float32", is_hwc=True):
        self.mean, self.std = np.asarray(mean, np.float32), np.asarray(std, np.float32)
        if dtype not in ("float32", "float16"):
            raise ValueError(f"dtype must be 'float32' or 'float16', but got {dtype!r}.")
        self.dtype, self.is_hwc = np.dtype(dtype), bool(is_hwc)

    def _apply(self, img):
        chw = not self.is_hwc
        x = img.transpose(1, 2, 0) if chw else img
        norm = ((x.astype(np.float32) - self.mean) / self.std).astype(self.dtype)
        flat = np.zeros(norm.shape[0] * norm.shape[1] * (norm.shape[2] + 1), self.dtype)
        flat[:norm.size] = norm.reshape(-1)
        out = flat.reshape(norm.shape[0], norm.shape[1], norm.shape[2] + 1)
        return np.ascontiguousarray(out.transpose(2, 0, 1)) if chw else out


class LinearTransformation(TensorOperation):
    """Flatten, subtract `mean_vector`, multiply by `transformation_matrix` (D x D, D the image's
    size), reshape back (MindSpore's NumPy arithmetic, so its dtypes)."""

    def __init__(self, transformation_matrix, mean_vector):
        self.matrix, self.mean = np.asarray(transformation_matrix), np.asarray(mean_vector)
        if self.matrix.ndim != 2 or self.matrix.shape[0] != self.matrix.shape[1]:
            raise ValueError(f"transformation_matrix should be a square matrix. Got shape {self.matrix.shape} "
                             "instead")

    def _apply(self, img):
        if img.size != self.matrix.shape[0]:
            raise ValueError(f"transformation_matrix shape {self.matrix.shape} not compatible with Numpy image "
                             f"shape {img.shape}.")
        return np.dot(img.reshape(1, -1) - self.mean, self.matrix).reshape(img.shape)


# -- erasing -----------------------------------------------------------------------------------------
class CutOut(RandomOperation):
    """Zero `num_patches` squares of side `length` at random places (HWC unless is_hwc=False).
    A square larger than the image is MindSpore's RuntimeError."""

    def __init__(self, length, num_patches=1, is_hwc=True):
        if not isinstance(length, int) or length <= 0:
            raise ValueError(f"Input length is not within the required interval of [1, 2147483647], got {length}.")
        self.length, self.num_patches, self.is_hwc = length, int(num_patches), bool(is_hwc)

    def _apply_random(self, rng, img):
        out = img.copy() if self.is_hwc else img.transpose(1, 2, 0).copy()
        h, w = out.shape[:2]
        if self.length > h or self.length > w:
            raise RuntimeError("Exception thrown from dataset pipeline. Refer to 'Dataset Pipeline Error Message'.\n\n"
                               f"[ERROR] CutOut: box size is too large for image erase, got box height: {self.length}box "
                               f"weight: {self.length}, and image height: {h}, image width: {w}")
        for _ in range(self.num_patches):
            top, left = int(rng.integers(0, h - self.length + 1)), int(rng.integers(0, w - self.length + 1))
            out[top:top + self.length, left:left + self.length] = 0
        return out if self.is_hwc else np.ascontiguousarray(out.transpose(2, 0, 1))


class RandomErasing(RandomOperation):
    """With probability `prob`, erase a random rectangle of a CHW image (area in `scale` of the
    image, aspect ratio in `ratio`) with `value` (a number, per-channel numbers, or 'random'
    normal noise), trying `max_attempts` boxes (torchvision's algorithm, which MindSpore's is)."""

    def __init__(self, prob=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False, max_attempts=10):
        self.prob, self.scale, self.ratio = _prob(prob), tuple(scale), tuple(ratio)
        self.value, self.max_attempts = value, int(max_attempts)

    def _apply_random(self, rng, img):
        if rng.random() >= self.prob:
            return img
        c, h, w = img.shape
        area = h * w
        for _ in range(self.max_attempts):
            erase_area = rng.uniform(*self.scale) * area
            aspect = np.exp(rng.uniform(np.log(self.ratio[0]), np.log(self.ratio[1])))
            eh, ew = int(round(np.sqrt(erase_area * aspect))), int(round(np.sqrt(erase_area / aspect)))
            if eh < h and ew < w:
                top, left = int(rng.integers(0, h - eh + 1)), int(rng.integers(0, w - ew + 1))
                out = img.copy()
                if self.value == "random":
                    out[:, top:top + eh, left:left + ew] = rng.normal(size=(c, eh, ew)).astype(img.dtype)
                else:
                    out[:, top:top + eh, left:left + ew] = np.asarray(self.value, img.dtype).reshape(-1, 1, 1)
                return out
        return img


# -- image facts ---------------------------------------------------------------------------------------
def _image_array(image):
    from pycompile.dataset.transforms._base import as_array
    arr = as_array(image)
    if arr.ndim < 2:
        raise RuntimeError(f"GetImageSize: the input tensor is not in shape of <H,W,C> or <H,W>, but got rank: "
                           f"{arr.ndim}")
    return arr


def get_image_size(image):
    """[height, width] of an HW / HWC image (a NumPy array or a PIL image)."""
    arr = _image_array(image)
    return [int(arr.shape[0]), int(arr.shape[1])]


def get_image_num_channels(image):
    arr = _image_array(image)
    return 1 if arr.ndim == 2 else int(arr.shape[2])


class GaussianBlur(TensorOperation):
    """Blur with a Gaussian kernel of kernel_size (width, height; odd) and sigma (x, y); sigma
    None takes ((size - 1) * 0.5 - 1) * 0.3 + 0.8 per axis (_blur.py: OpenCV's arithmetic)."""

    def __init__(self, kernel_size, sigma=None):
        ks = (kernel_size, kernel_size) if isinstance(kernel_size, int) else tuple(kernel_size)
        if len(ks) != 2 or any(not isinstance(k, int) or k <= 0 or k % 2 == 0 for k in ks):
            raise ValueError(f"Input kernel_size should be a positive odd int or a pair of them, but got "
                             f"{kernel_size}.")
        if sigma is None:
            sg = tuple(((k - 1) * 0.5 - 1) * 0.3 + 0.8 for k in ks)
        elif isinstance(sigma, (int, float)):
            sg = (float(sigma), float(sigma))
        else:
            sg = tuple(float(s) for s in sigma)
        self.kernel_size, self.sigma = ks, sg

    def _apply(self, img):
        from pycompile.dataset.vision._blur import gaussian_blur
        return gaussian_blur(img, self.kernel_size[0], self.kernel_size[1], self.sigma[0], self.sigma[1])
