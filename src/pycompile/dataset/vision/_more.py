"""Point, crop and histogram transforms (Crop, ResizedCrop, Invert, Posterize, Solarize, AdjustGamma,
PadToSize, Erase, Equalize, AutoContrast, Affine and their random forms) with MindSpore 2.10's
results (checked against recorded outputs, tests/oracle/data/vision.json)."""
from __future__ import annotations

import numpy as np

from pycompile.dataset.transforms._base import RandomOperation, TensorOperation
from pycompile.dataset.vision import _geometry
from pycompile.dataset.vision._common import Inter, _check_resize_inter, _degrees, _pad, resize_mode, warp_interp
from pycompile.dataset.vision._resize import resize_bilinear, resize_nearest


def _hw(size, name):
    if isinstance(size, int) and not isinstance(size, bool):
        size = (size, size)
    if not (isinstance(size, (list, tuple)) and len(size) == 2 and all(isinstance(v, int) and v > 0 for v in size)):
        raise ValueError(f"{name} must be a positive int or a (height, width) pair, but got {size!r}.")
    return tuple(size)


def _crop(img, top, left, h, w, op):
    if top < 0 or left < 0 or top + h > img.shape[0] or left + w > img.shape[1]:
        raise RuntimeError(f"{op}: the crop ({top}, {left}, {h}, {w}) (top, left, height, width) is out of the "
                           f"image of shape {list(img.shape)}.")
    return np.ascontiguousarray(img[top:top + h, left:left + w])


class Crop(TensorOperation):
    """The (height, width) part at `coordinates` (top, left)."""

    def __init__(self, coordinates, size):
        self.top, self.left = coordinates
        self.size = _hw(size, "Crop size")

    def _apply(self, img):
        return _crop(img, self.top, self.left, *self.size, "Crop")


class ResizedCrop(TensorOperation):
    """Crop (top, left, height, width), then resize to `size` (LINEAR, NEAREST, BICUBIC, AREA or
    PILCUBIC: MindSpore's results, recorded)."""

    def __init__(self, top, left, height, width, size, interpolation=2):
        self.box = (top, left, height, width)
        self.size = _hw(size, "ResizedCrop size")
        self.interpolation = _check_resize_inter(interpolation, "ResizedCrop")

    def _apply(self, img):
        crop = _crop(img, *self.box, "ResizedCrop")
        return resize_mode(crop, *self.size, self.interpolation)


def _check_u8(img, op):
    if img.dtype != np.uint8:
        raise RuntimeError(f"{op}: the image should be uint8, but got {img.dtype}.")


class Invert(TensorOperation):
    """255 - pixel."""

    def _apply(self, img):
        _check_u8(img, "Invert")
        return 255 - img


class RandomInvert(RandomOperation):
    def __init__(self, prob=0.5):
        self.prob = prob

    def _apply_random(self, rng, img):
        return Invert()._apply(img) if rng.random() < self.prob else img


def _posterize(img, bits):
    _check_u8(img, "Posterize")
    return img & np.uint8((0xFF << (8 - bits)) & 0xFF)


class Posterize(TensorOperation):
    """Keep the `bits` high bits of each channel."""

    def __init__(self, bits):
        if not isinstance(bits, int) or not 1 <= bits <= 8:
            raise ValueError("Input bits is not within the required interval of [1, 8].")
        self.bits = bits

    def _apply(self, img):
        return _posterize(img, self.bits)


class RandomPosterize(RandomOperation):
    def __init__(self, bits=(8, 8)):
        self.bits = (bits, bits) if isinstance(bits, int) else tuple(bits)

    def _apply_random(self, rng, img):
        return _posterize(img, int(rng.integers(self.bits[0], self.bits[1] + 1)))


def _solarize(img, low, high):
    _check_u8(img, "Solarize")
    return np.where((img >= low) & (img <= high), 255 - img, img).astype(img.dtype)


class Solarize(TensorOperation):
    """Invert the pixels in [threshold, 255] (or in a (min, max) threshold range)."""

    def __init__(self, threshold):
        self.threshold = (threshold, 255) if isinstance(threshold, (int, float)) else tuple(threshold)

    def _apply(self, img):
        return _solarize(img, *self.threshold)


class RandomSolarize(RandomOperation):
    """Solarize [t, 255] with t drawn uniformly from the `threshold` (min, max) range."""

    def __init__(self, threshold=(0, 255)):
        self.threshold = tuple(threshold)

    def _apply_random(self, rng, img):
        return _solarize(img, int(rng.integers(self.threshold[0], self.threshold[1] + 1)), 255)


class AdjustGamma(TensorOperation):
    """uint8: a table of floor((256 - 1e-3) * gain * (i / 255) ** gamma) (MindSpore's formula); floats:
    pixel ** gamma * gain in float32 (MindSpore's pow differs from NumPy's in the last bit for some
    values)."""

    def __init__(self, gamma, gain=1):
        if gamma < 0:
            raise ValueError("Input gamma is not within the required interval of [0, 16777216].")
        self.gamma, self.gain = float(gamma), float(gain)

    def _apply(self, img):
        if img.dtype == np.uint8:
            table = np.clip(np.floor((255 + 1 - 1e-3) * self.gain * np.power(np.arange(256) / 255.0, self.gamma)),
                            0, 255)
            return table.astype(np.uint8)[img]
        return (np.power(img.astype(np.float32), np.float32(self.gamma)) * np.float32(self.gain)).astype(img.dtype)


class PadToSize(TensorOperation):
    """Pad to `size` (height, width): by `offset` (top, left) before the image, the rest after;
    centred when offset is None."""

    def __init__(self, size, offset=None, fill_value=0, padding_mode="constant"):
        self.size = _hw(size, "PadToSize size")
        self.offset = None if offset is None else ((offset, offset) if isinstance(offset, int) else tuple(offset))
        self.fill_value, self.padding_mode = fill_value, padding_mode

    def _apply(self, img):
        h, w = self.size
        if h < img.shape[0] or w < img.shape[1]:
            raise RuntimeError(f"PadToSize: the target size {list(self.size)} is smaller than the image "
                               f"{list(img.shape[:2])}.")
        top, left = self.offset if self.offset is not None else ((h - img.shape[0]) // 2, (w - img.shape[1]) // 2)
        return _pad(img, top, h - img.shape[0] - top, left, w - img.shape[1] - left, self.fill_value,
                    self.padding_mode)


class Erase(TensorOperation):
    """Set the (height, width) area at (top, left) to `value` (a number or one per channel)."""

    def __init__(self, top, left, height, width, value=0, inplace=False):
        self.box, self.value, self.inplace = (top, left, height, width), value, inplace

    def _apply(self, img):
        top, left, h, w = self.box
        out = img if self.inplace else img.copy()
        out[top:top + h, left:left + w] = np.asarray(self.value).astype(img.dtype)
        return out


def _per_channel(img, fn):
    if img.ndim == 2:
        return fn(img)
    return np.stack([fn(img[..., c]) for c in range(img.shape[2])], axis=-1)


def _equalize_channel(ch):
    """cv::equalizeHist: the cumulative histogram from the first non-empty bin, scaled to 255."""
    hist = np.bincount(ch.reshape(-1), minlength=256)
    first = int(np.nonzero(hist)[0][0])
    total = ch.size
    if hist[first] == total:
        return np.full_like(ch, first)
    scale = np.float32(255.0) / np.float32(total - hist[first])
    cum = np.cumsum(hist)
    lut = np.zeros(256, np.int64)
    lut[first + 1:] = np.rint((cum[first + 1:] - hist[first]).astype(np.float32) * scale)       # float32 product
    return np.clip(lut, 0, 255).astype(np.uint8)[ch]


class Equalize(TensorOperation):
    """Equalise each channel's histogram (OpenCV's equalizeHist)."""

    def _apply(self, img):
        _check_u8(img, "Equalize")
        return _per_channel(img, _equalize_channel)


def _auto_contrast_channel(ch, cutoff, ignore):
    hist = np.bincount(ch.reshape(-1), minlength=256).astype(np.int64)
    for v in ignore:
        hist[v] = 0
    total = hist.sum()
    if cutoff:
        cut = int(total * cutoff / 100)
        for order in (range(256), range(255, -1, -1)):        # remove `cut` pixels from each end
            left = cut
            for i in order:
                take = min(left, hist[i])
                hist[i] -= take
                left -= take
                if not left:
                    break
    nonzero = np.nonzero(hist)[0]
    if len(nonzero) == 0:
        return ch.copy()
    lo, hi = int(nonzero[0]), int(nonzero[-1])
    if hi <= lo:
        return ch.copy()
    scale = np.float32(255.0) / np.float32(hi - lo)          # float32 arithmetic, truncated (MindSpore's)
    offset = np.float32(-lo) * scale
    lut = np.clip(np.trunc((np.arange(256, dtype=np.float32) * scale + offset).astype(np.float32)), 0, 255)
    lut = lut.astype(np.uint8)
    for v in ignore:
        lut[v] = v
    return lut[ch]


class AutoContrast(TensorOperation):
    """Stretch each channel's range (after cutting `cutoff` percent of pixels at each end, `ignore`d
    values left out) to [0, 255]."""

    def __init__(self, cutoff=0.0, ignore=None):
        self.cutoff = float(cutoff)
        self.ignore = [] if ignore is None else ([ignore] if isinstance(ignore, int) else list(ignore))

    def _apply(self, img):
        _check_u8(img, "AutoContrast")
        return _per_channel(img, lambda ch: _auto_contrast_channel(ch, self.cutoff, self.ignore))


def _shear_pair(shear):
    if isinstance(shear, (int, float)):
        return float(shear), 0.0
    return (float(shear[0]), float(shear[1])) if len(shear) == 2 else (float(shear[0]), 0.0)


def _within(value, low, high, name):
    if value < low or value > high:
        raise ValueError(f"Input {name} is not within the required interval of [{low}, {high}].")


class Affine(TensorOperation):
    """Rotate by `degrees`, translate by `translate` (fractions of width and height), scale and shear
    (degrees, x and y) about the image centre; NEAREST (default), BILINEAR, BICUBIC or AREA (= BILINEAR,
    as in cv::warpAffine); `fill_value` outside; ANTIALIAS / PILCUBIC: MindSpore's errors."""

    def __init__(self, degrees, translate, scale, shear, resample=0, fill_value=0):
        # MindSpore 2.10's ranges and messages (vision validators' check_affine)
        _within(degrees, -180, 180, "degrees")
        if len(translate) != 2:
            raise TypeError("The length of translate should be 2.")
        for i, t in enumerate(translate):
            _within(t, -1.0, 1.0, f"translate[{i}]")
        if scale <= 0:
            raise ValueError("Input scale must be greater than 0.")
        for i, v in enumerate(shear if isinstance(shear, (list, tuple)) else [shear]):
            _within(v, -180, 180, f"shear[{i}]" if isinstance(shear, (list, tuple)) else "shear")
        self.degrees, self.translate, self.scale = float(degrees), tuple(translate), float(scale)
        self.shear = _shear_pair(shear)
        self.resample = Inter(resample)
        self.fill_value = fill_value

    def _apply(self, img):
        h, w = img.shape[:2]
        m = _geometry.affine_matrix(h, w, self.degrees, self.translate, self.scale, self.shear)
        return _geometry.warp_affine(img, m, h, w, warp_interp(self.resample, "Affine", type(img)), self.fill_value)


class RandomAffine(RandomOperation):
    """Affine with degrees, translation, scale and shear drawn uniformly from their ranges."""

    def __init__(self, degrees, translate=None, scale=None, shear=None, resample=0, fill_value=0):
        self.degrees = _degrees(degrees)
        self.translate = tuple(translate) if translate is not None else (0.0, 0.0, 0.0, 0.0)
        if len(self.translate) == 2:
            self.translate = (-self.translate[0], self.translate[0], -self.translate[1], self.translate[1])
        self.scale = tuple(scale) if scale is not None else (1.0, 1.0)
        if shear is None:
            shear = (0.0, 0.0, 0.0, 0.0)
        elif isinstance(shear, (int, float)):
            shear = (-shear, shear, 0.0, 0.0)
        elif len(shear) == 2:
            shear = (shear[0], shear[1], 0.0, 0.0)
        self.shear = tuple(float(v) for v in shear)
        self.resample = Inter(resample)
        self.fill_value = fill_value

    def _apply_random(self, rng, img):
        def draw(lo, hi):
            return float(rng.uniform(lo, hi)) if hi > lo else float(lo)
        kind = warp_interp(self.resample, "RandomAffine", type(img))
        h, w = img.shape[:2]
        m = _geometry.affine_matrix(h, w, draw(*self.degrees),
                                    (draw(*self.translate[:2]), draw(*self.translate[2:])), draw(*self.scale),
                                    (draw(*self.shear[:2]), draw(*self.shear[2:])))
        return _geometry.warp_affine(img, m, h, w, kind, self.fill_value)


class ToNumpy:
    """PIL image (or anything array-like) -> NumPy array."""

    def __call__(self, img):
        return np.asarray(img)

    def __repr__(self):
        return "ToNumpy()"
