"""mindspore.dataset.vision: image transforms on HWC NumPy arrays (written with NumPy; no OpenCV or
PIL needed, except Decode, which decodes JPEG / PNG bytes with Pillow). Results and dtypes are
MindSpore 2.10's (checked against recorded outputs)."""
from __future__ import annotations

from enum import IntEnum

import numpy as np

from pycompile.dataset.transforms._base import RandomOperation, TensorOperation
from pycompile.dataset.vision._decode import decode_image, to_pil
from pycompile.dataset.vision._resize import output_size, resize_bilinear, resize_nearest

__all__ = ["Inter", "Border", "Rescale", "Normalize", "HWC2CHW", "Resize", "RandomCrop", "RandomHorizontalFlip",
           "CenterCrop", "ToTensor", "Decode"]


class Inter(IntEnum):
    """Interpolation modes (MindSpore's values); Resize implements NEAREST and LINEAR."""
    NEAREST = 0
    ANTIALIAS = 1
    LINEAR = 2
    BILINEAR = 2
    CUBIC = 3
    BICUBIC = 3
    AREA = 4
    PILCUBIC = 5


class Border(str):
    """Padding modes; RandomCrop implements CONSTANT, EDGE, REFLECT and SYMMETRIC."""
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


class Rescale(TensorOperation):
    """image * rescale + shift, as float32. Rounded once, as a fused multiply-add (MindSpore's
    results): float32 factors, the exact product and sum in float64, then float32."""

    def __init__(self, rescale, shift):
        self.rescale, self.shift = float(rescale), float(shift)

    def _apply(self, img):
        scale, shift = np.float64(np.float32(self.rescale)), np.float64(np.float32(self.shift))
        return (img.astype(np.float64) * scale + shift).astype(np.float32)

    _apply_batch = _apply          # elementwise: a stacked batch is just a bigger array


class Normalize(TensorOperation):
    """(image - mean) / std per channel, as float32; channels last (HWC) unless is_hwc=False."""

    def __init__(self, mean, std, is_hwc=True):
        self.mean = np.asarray(mean, np.float32)
        self.std = np.asarray(std, np.float32)
        if np.any(self.std <= 0):
            raise ValueError("Normalize: every std value must be greater than 0.")
        self.is_hwc = is_hwc

    def _apply(self, img):
        shape = (1, 1, -1) if self.is_hwc else (-1, 1, 1)
        if img.ndim == 2:
            shape = (1, -1) if self.is_hwc else (-1, 1)
        return (img.astype(np.float32) - self.mean.reshape(shape)) / self.std.reshape(shape)

    def _apply_batch(self, batch):
        """A stacked batch of 3-D images (None otherwise: the pipeline then maps row by row)."""
        if batch.ndim != 4:
            return None
        shape = (1, 1, 1, -1) if self.is_hwc else (1, -1, 1, 1)
        return (batch.astype(np.float32) - self.mean.reshape(shape)) / self.std.reshape(shape)


class HWC2CHW(TensorOperation):
    """(H, W, C) -> (C, H, W); a 2-D image gets one channel."""

    def _apply(self, img):
        if img.ndim == 2:
            return img[None].copy()
        return np.ascontiguousarray(img.transpose(2, 0, 1))

    def _apply_batch(self, batch):
        if batch.ndim == 3:
            return batch[:, None].copy()
        if batch.ndim == 4:
            return np.ascontiguousarray(batch.transpose(0, 3, 1, 2))
        return None


class Decode(TensorOperation):
    """Image file bytes (uint8 1-D) -> HWC uint8 RGB; `to_pil=True` gives a PIL image. Needs Pillow."""

    def __init__(self, to_pil=False):
        if not isinstance(to_pil, bool):
            raise TypeError(f"Argument to_pil with value {to_pil} is not of type [<class 'bool'>].")
        self.to_pil = to_pil

    def _apply(self, data):
        if data.dtype != np.uint8 or data.ndim != 1:
            raise RuntimeError(f"Decode: the input should be the bytes of an image file, a uint8 1-D array, but got "
                               f"{data.dtype} of shape {list(data.shape)}.")
        return to_pil(data) if self.to_pil else decode_image(data)


class ToTensor(TensorOperation):
    """HWC image -> CHW `output_type` (float32) divided by 255."""

    def __init__(self, output_type=np.float32):
        from pycompile.common import dtype as mstype
        self.output_type = output_type.np if isinstance(output_type, mstype.DType) else np.dtype(output_type)

    def _apply(self, img):
        chw = img[None] if img.ndim == 2 else img.transpose(2, 0, 1)
        # times float32(1/255), not divided by 255: MindSpore's values
        return np.ascontiguousarray(chw.astype(np.float32) * np.float32(1 / 255)).astype(self.output_type)


class Resize(TensorOperation):
    """Resize an HW / HWC image to `size` ((height, width), or an int for the shorter side) with
    Inter.LINEAR (default) or Inter.NEAREST, matching MindSpore's OpenCV results."""

    def __init__(self, size, interpolation=Inter.LINEAR):
        if isinstance(size, int) and not isinstance(size, bool):
            if size <= 0:
                raise ValueError(f"Resize: size must be positive, but got {size}.")
        else:
            size = _pair(size, "Resize size")
        if interpolation not in (Inter.LINEAR, Inter.NEAREST):
            raise NotImplementedError(f"Resize with {Inter(interpolation).name} is not implemented; "
                                      f"use Inter.LINEAR or Inter.NEAREST")
        self.size, self.interpolation = size, Inter(interpolation)

    def _apply(self, img):
        h, w = output_size(img.shape, self.size)
        if self.interpolation == Inter.NEAREST:
            return resize_nearest(img, h, w)
        return resize_bilinear(img, h, w)


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
    return np.pad(img, widths, mode=str(mode))


class CenterCrop(TensorOperation):
    """The central (height, width) part; a crop larger than the image pads it with zeros first
    (the odd pixel of padding goes before the image, as in MindSpore)."""

    def __init__(self, size):
        self.size = _pair(size, "CenterCrop size")

    def _apply(self, img):
        h, w = self.size
        ph, pw = max(h - img.shape[0], 0), max(w - img.shape[1], 0)
        if ph or pw:
            img = _pad(img, ph - ph // 2, ph // 2, pw - pw // 2, pw // 2)
        top, left = (img.shape[0] - h) // 2, (img.shape[1] - w) // 2
        return np.ascontiguousarray(img[top:top + h, left:left + w])


class RandomCrop(RandomOperation):
    """Pad by `padding` (int; (left/right, top/bottom); or (left, top, right, bottom)), and with
    `pad_if_needed` up to the crop size, then crop (height, width) at a random place."""

    def __init__(self, size, padding=None, pad_if_needed=False, fill_value=0, padding_mode=Border.CONSTANT):
        self.size = _pair(size, "RandomCrop size")
        if padding is None:
            padding = (0, 0, 0, 0)
        elif isinstance(padding, int):
            padding = (padding,) * 4
        elif len(padding) == 2:
            padding = (padding[0], padding[1], padding[0], padding[1])
        elif len(padding) != 4:
            raise ValueError(f"RandomCrop padding must be an int or a sequence of 2 or 4 ints, but got {padding!r}.")
        self.padding = tuple(int(p) for p in padding)           # left, top, right, bottom
        self.pad_if_needed = pad_if_needed
        self.fill_value = fill_value
        self.padding_mode = padding_mode

    def _apply_random(self, rng, img):
        left, top, right, bottom = self.padding
        if any(self.padding):
            img = _pad(img, top, bottom, left, right, self.fill_value, self.padding_mode)
        h, w = self.size
        if self.pad_if_needed:
            ph, pw = max(h - img.shape[0], 0), max(w - img.shape[1], 0)
            if ph or pw:
                img = _pad(img, ph, ph, pw, pw, self.fill_value, self.padding_mode)
        if img.shape[0] < h or img.shape[1] < w:
            raise ValueError(f"RandomCrop: crop size {self.size} is larger than the (padded) image "
                             f"{img.shape[:2]}; set pad_if_needed=True or a padding.")
        top = int(rng.integers(0, img.shape[0] - h + 1))
        left = int(rng.integers(0, img.shape[1] - w + 1))
        return np.ascontiguousarray(img[top:top + h, left:left + w])


class RandomHorizontalFlip(RandomOperation):
    """Mirror the image left-right with probability `prob`."""

    def __init__(self, prob=0.5):
        if not 0.0 <= prob <= 1.0:
            raise ValueError(f"Input prob is not within the required interval of [0.0, 1.0], but got {prob}.")
        self.prob = prob

    def _apply_random(self, rng, img):
        if rng.random() < self.prob:
            return np.ascontiguousarray(img[:, ::-1])
        return img


def __getattr__(name):
    from pycompile.common.missing import missing
    raise missing("dataset.vision", __name__, name)
