"""mindspore.dataset.vision: image transforms on HWC NumPy arrays (written with NumPy; no OpenCV or
PIL needed, except Decode, ToPIL and Grayscale, which use Pillow). Results and dtypes are
MindSpore 2.10's (checked against recorded outputs: tests/dataset/fixtures/ms_dataset.json and
tests/oracle/data/vision.json), OpenCV's fixed-point and rounding details included."""
from __future__ import annotations

import numpy as np

from pycompile.dataset.transforms import TypeCast as ToType  # noqa: F401
from pycompile.dataset.transforms._base import RandomOperation, TensorOperation, eager_rng, not_random  # noqa: F401
from pycompile.dataset.vision import _color, _geometry, _pilwarp
from pycompile.dataset.vision._common import (Border, Inter, _check_resize_inter, _degrees, _pad,  # noqa: F401
                                              _pair, resize_mode, warp_interp)
from pycompile.dataset.vision._color import ConvertMode
from pycompile.dataset.vision._decode import decode_image, to_pil
from pycompile.dataset.vision._more import (Affine, AdjustGamma, AutoContrast, Crop, Equalize, Erase,  # noqa: F401
                                            Invert, PadToSize, Posterize, RandomAffine, RandomInvert,
                                            RandomPosterize, RandomSolarize, ResizedCrop, Solarize, ToNumpy)
from pycompile.dataset.vision._augment import (AutoAugment, AutoAugmentPolicy, CutMixBatch,  # noqa: F401
                                               ImageBatchFormat, MixUp, MixUpBatch, RandAugment,
                                               RandomSelectSubpolicy, TrivialAugmentWide, UniformAugment)
from pycompile.dataset.vision._boxes import (BoundingBoxAugment, Perspective, RandomCropDecodeResize,  # noqa: F401
                                             RandomCropWithBBox, RandomHorizontalFlipWithBBox, RandomResize,
                                             RandomPerspective, RandomResizedCropWithBBox, RandomResizeWithBBox,
                                             RandomVerticalFlipWithBBox, ResizeWithBBox)
from pycompile.dataset.vision._extra import (AdjustSharpness, CutOut, FiveCrop, GaussianBlur, HsvToRgb,  # noqa: F401
                                             LinearTransformation, NormalizePad, RandomAdjustSharpness,
                                             RandomAutoContrast, RandomColor, RandomEqualize, RandomErasing,
                                             RandomGrayscale, RandomLighting, RandomSharpness, RgbToHsv, SliceMode,
                                             SlicePatches, TenCrop, get_image_num_channels, get_image_size)
from pycompile.dataset.vision._io import (ImageReadMode, encode_jpeg, encode_png, read_file, read_image,  # noqa: F401
                                          write_file, write_jpeg, write_png)
from pycompile.dataset.vision._video import DecodeVideo, VideoDecoder, read_video, read_video_timestamps
from pycompile.dataset.vision._resize import (output_size, resize_area, resize_bicubic, resize_bilinear,
                                              resize_nearest)

__all__ = ["Inter", "Border", "ConvertMode", "Rescale", "Normalize", "HWC2CHW", "Resize", "RandomCrop",
           "RandomHorizontalFlip", "CenterCrop", "ToTensor", "Decode", "Pad", "HorizontalFlip", "VerticalFlip",
           "RandomVerticalFlip", "RandomResizedCrop", "ConvertColor", "Grayscale", "ToPIL", "AdjustBrightness",
           "AdjustContrast", "AdjustSaturation", "AdjustHue", "RandomColorAdjust", "Rotate", "RandomRotation",
           "Crop", "ResizedCrop", "Invert", "RandomInvert", "Posterize", "RandomPosterize", "Solarize", "RandomSolarize",
           "AdjustGamma", "PadToSize", "Erase", "Equalize", "AutoContrast", "Affine", "RandomAffine", "ToNumpy", "ToType",
           "AdjustSharpness", "CutOut", "FiveCrop", "HsvToRgb", "LinearTransformation", "NormalizePad",
           "RandomAdjustSharpness", "RandomAutoContrast", "RandomColor", "RandomEqualize", "RandomErasing",
           "RandomGrayscale", "RandomLighting", "RandomSharpness", "RgbToHsv", "SliceMode", "SlicePatches", "TenCrop",
           "get_image_num_channels", "get_image_size", "BoundingBoxAugment", "RandomCropDecodeResize",
           "RandomCropWithBBox", "RandomHorizontalFlipWithBBox", "RandomResize", "RandomResizedCropWithBBox",
           "RandomResizeWithBBox", "RandomVerticalFlipWithBBox", "ResizeWithBBox", "ImageReadMode", "encode_jpeg",
           "encode_png", "read_file", "read_image", "write_file", "write_jpeg", "write_png", "AutoAugment",
           "AutoAugmentPolicy", "CutMixBatch", "ImageBatchFormat", "MixUp", "MixUpBatch", "RandAugment",
           "RandomSelectSubpolicy", "TrivialAugmentWide", "UniformAugment", "GaussianBlur", "Perspective",
           "RandomPerspective", "not_random", "DecodeVideo", "VideoDecoder", "read_video", "read_video_timestamps"]


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
        out = np.subtract(img, self.mean.reshape(shape), dtype=np.float32)
        out /= self.std.reshape(shape)         # in place: one temporary fewer
        return out

    def _apply_batch(self, batch):
        """A stacked batch of 3-D images (None otherwise: the pipeline then maps row by row)."""
        if batch.ndim != 4:
            return None
        shape = (1, 1, 1, -1) if self.is_hwc else (1, -1, 1, 1)
        return (batch.astype(np.float32) - self.mean.reshape(shape)) / self.std.reshape(shape)

    def _fuse_next(self, op):
        """Normalize then HWC2CHW in a map's operations: one op writing each channel's plane (see
        _NormalizeToCHW); None for anything else (map keeps the two)."""
        if type(op) is HWC2CHW and self.is_hwc:
            return _NormalizeToCHW(self)
        return None


class _NormalizeToCHW(TensorOperation):
    """Normalize(is_hwc=True) followed by HWC2CHW in one pass over the image: each channel's
    (x - mean) / std in float32 written straight into its (H, W) plane - the same float32
    operations on each element, so the same bits, without the HWC float32 temporary and the
    transposing copy of it (`map` fuses the pair; bench/dataset_feed_images.py --profile)."""

    def __init__(self, normalize):
        self.normalize = normalize

    def _apply(self, img):
        sizes = (self.normalize.mean.size, self.normalize.std.size)
        if img.ndim != 3 or any(n not in (1, img.shape[2]) for n in sizes):      # the two ops' broadcasting
            return HWC2CHW()._apply(self.normalize._apply(img))
        h, w, c = img.shape
        mean, std = np.broadcast_to(self.normalize.mean, (c,)), np.broadcast_to(self.normalize.std, (c,))
        out = np.empty((c, h, w), np.float32)
        for k in range(c):
            np.subtract(img[:, :, k], mean[k], out=out[k], dtype=np.float32)
            out[k] /= std[k]
        return out

    def _apply_batch(self, batch):
        if batch.ndim != 4:
            return None
        return np.stack([self._apply(img) for img in batch])

    def __repr__(self):
        return "Normalize+HWC2CHW()"


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
    Inter.LINEAR (default), NEAREST, BICUBIC or AREA (MindSpore's OpenCV results), PILCUBIC
    (its Pillow-style bicubic, _pilcubic.py) or, for a PIL image only, ANTIALIAS (Pillow's LANCZOS)."""

    def __init__(self, size, interpolation=Inter.LINEAR):
        if isinstance(size, int) and not isinstance(size, bool):
            if size <= 0:
                raise ValueError(f"Resize: size must be positive, but got {size}.")
        else:
            size = _pair(size, "Resize size")
        self.size, self.interpolation = size, Inter(interpolation)

    def __call__(self, img):
        from pycompile.dataset.vision._pilcubic import resize_antialias
        is_pil = hasattr(img, "getbands") and hasattr(img, "resize")
        if self.interpolation == Inter.ANTIALIAS:
            if not is_pil:
                raise TypeError(f"img should be PIL image. Got {type(img)}. Use Decode() for encoded data or ToPIL() "
                                "for decoded data.")
            h, w = output_size((img.size[1], img.size[0]), self.size)
            return resize_antialias(img, h, w)
        if is_pil and self.interpolation == Inter.PILCUBIC:
            raise TypeError("Current Interpolation is not supported with PIL input.")
        return super().__call__(img)

    def _apply(self, img):
        from pycompile.dataset.vision._pilcubic import resize_pilcubic
        h, w = output_size(img.shape, self.size)
        if self.interpolation == Inter.NEAREST:
            return resize_nearest(img, h, w)
        if self.interpolation == Inter.BICUBIC:
            return resize_bicubic(img, h, w)
        if self.interpolation == Inter.AREA:
            return resize_area(img, h, w)
        if self.interpolation == Inter.PILCUBIC:
            return resize_pilcubic(img, h, w)
        if self.interpolation == Inter.ANTIALIAS:
            raise TypeError(f"img should be PIL image. Got {type(img)}. Use Decode() for encoded data or ToPIL() "
                            "for decoded data.")
        return resize_bilinear(img, h, w)


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


def _padding(padding, op="Pad"):
    """MindSpore's padding forms -> (left, top, right, bottom)."""
    if isinstance(padding, int) and not isinstance(padding, bool):
        padding = (padding,) * 4
    elif isinstance(padding, (list, tuple)) and len(padding) == 2:
        padding = (padding[0], padding[1], padding[0], padding[1])
    if not (isinstance(padding, (list, tuple)) and len(padding) == 4
            and all(isinstance(p, int) and not isinstance(p, bool) and p >= 0 for p in padding)):
        raise ValueError(f"{op}: padding must be a non-negative int or a sequence of 2 or 4 of them, "
                         f"but got {padding!r}.")
    return tuple(padding)


class Pad(TensorOperation):
    """Pad the image's borders: `padding` an int (every side), (left/right, top/bottom) or (left,
    top, right, bottom); `fill_value` an int or an RGB triple for Border.CONSTANT; EDGE repeats
    the border pixel, REFLECT mirrors without it, SYMMETRIC with it (OpenCV's borders)."""

    def __init__(self, padding, fill_value=0, padding_mode=Border.CONSTANT):
        self.padding = _padding(padding)
        self.fill_value = fill_value
        self.padding_mode = padding_mode

    def _apply(self, img):
        left, top, right, bottom = self.padding
        return _pad(img, top, bottom, left, right, self.fill_value, self.padding_mode)


class HorizontalFlip(TensorOperation):
    def _apply(self, img):
        return np.ascontiguousarray(img[:, ::-1])


class VerticalFlip(TensorOperation):
    def _apply(self, img):
        return np.ascontiguousarray(img[::-1])


class RandomVerticalFlip(RandomOperation):
    """Mirror the image top-bottom with probability `prob`."""

    def __init__(self, prob=0.5):
        if not 0.0 <= prob <= 1.0:
            raise ValueError(f"Input prob is not within the required interval of [0.0, 1.0], but got {prob}.")
        self.prob = prob

    def _apply_random(self, rng, img):
        if rng.random() < self.prob:
            return np.ascontiguousarray(img[::-1])
        return img


class RandomResizedCrop(RandomOperation):
    """Crop a random part (area a `scale` fraction of the image's, aspect ratio in `ratio`; see
    _geometry.crop_box) and resize it to `size` with Inter.BILINEAR (default), NEAREST, BICUBIC, AREA
    or PILCUBIC (MindSpore's results, recorded)."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3. / 4., 4. / 3.), interpolation=Inter.BILINEAR,
                 max_attempts=10):
        self.size = _pair(size, "RandomResizedCrop size")
        if not (len(scale) == 2 and 0 <= scale[0] <= scale[1]):
            raise ValueError(f"RandomResizedCrop: scale should be a (min, max) pair with 0 <= min <= max, "
                             f"but got {scale!r}.")
        if not (len(ratio) == 2 and 0 < ratio[0] <= ratio[1]):
            raise ValueError(f"RandomResizedCrop: ratio should be a (min, max) pair with 0 < min <= max, "
                             f"but got {ratio!r}.")
        self.scale, self.ratio = tuple(scale), tuple(ratio)
        self.interpolation = _check_resize_inter(interpolation, "RandomResizedCrop")

    def __call__(self, img):
        return self._apply_random(eager_rng(), img) if _pilwarp.is_pil(img) else super().__call__(img)

    def _apply_random(self, rng, img):
        if _pilwarp.is_pil(img):        # MindSpore's Python implementation: PIL crop + resize
            box = _geometry.crop_box(rng, img.size[1], img.size[0], self.scale, self.ratio)
            return _pilwarp.resized_crop(img, box, self.size, self.interpolation)
        top, left, h, w = _geometry.crop_box(rng, img.shape[0], img.shape[1], self.scale, self.ratio)
        return resize_mode(img[top:top + h, left:left + w], *self.size, self.interpolation, type(img))


class ConvertColor(TensorOperation):
    """Change the colour space (ConvertMode: RGB / BGR / RGBA / BGRA / GRAY), as OpenCV's cvtColor."""

    def __init__(self, convert_mode):
        self.convert_mode = ConvertMode(convert_mode)

    def _apply(self, img):
        return _color.convert_color(img, self.convert_mode)


class _PilOperation:
    """Transforms on PIL images (MindSpore's Python transforms): the input is passed on as it is."""

    def __call__(self, img):
        return self._apply(img)

    def __repr__(self):
        return f"{type(self).__name__}()"


class ToPIL(_PilOperation):
    """HWC / HW NumPy image -> PIL image (needs Pillow)."""

    def _apply(self, img):
        from pycompile.dataset.transforms._base import as_array
        try:
            from PIL import Image
        except ImportError:
            raise ImportError("vision.ToPIL needs Pillow, which is not installed: pip install "
                              "'pycompile[images]'") from None
        if isinstance(img, Image.Image):
            return img
        img = as_array(img)
        if img.ndim == 3 and img.shape[2] == 1:
            img = img[:, :, 0]
        return Image.fromarray(img)


class Grayscale(_PilOperation):
    """PIL image -> its luminance (PIL's "L" conversion), 1 or 3 identical channels, as a PIL image."""

    def __init__(self, num_output_channels=1):
        if not isinstance(num_output_channels, int) or num_output_channels not in (1, 3):
            raise ValueError(f"num_output_channels should be either 1 or 3. Got {num_output_channels}.")
        self.num_output_channels = num_output_channels

    def _apply(self, img):
        from PIL import Image
        if not isinstance(img, Image.Image):
            raise TypeError(f"img should be PIL image. Got {type(img)}. Use Decode() for encoded data or ToPIL() "
                            "for decoded data.")
        gray = img.convert("L")
        if self.num_output_channels == 1:
            return gray
        g = np.asarray(gray, dtype=np.uint8)
        return Image.fromarray(np.dstack([g, g, g]), "RGB")


def _factor(value, name, low=0.0):
    if not isinstance(value, (int, float)) or isinstance(value, bool) or value < low:
        raise ValueError(f"Input {name} is not within the required interval of [{low}, 16777216].")
    return float(value)


class AdjustBrightness(TensorOperation):
    def __init__(self, brightness_factor):
        self.factor = _factor(brightness_factor, "brightness_factor")

    def _apply(self, img):
        return _color.adjust_brightness(img, self.factor)


class AdjustContrast(TensorOperation):
    def __init__(self, contrast_factor):
        self.factor = _factor(contrast_factor, "contrast_factor")

    def _apply(self, img):
        return _color.adjust_contrast(img, self.factor)


class AdjustHue(TensorOperation):
    """Shift the hue by `hue_factor` (in [-0.5, 0.5]) of the colour circle (see _color.adjust_hue)."""

    def __init__(self, hue_factor):
        if not isinstance(hue_factor, (int, float)) or isinstance(hue_factor, bool) or not -0.5 <= hue_factor <= 0.5:
            raise ValueError("Input hue_factor is not within the required interval of [-0.5, 0.5].")
        self.factor = float(hue_factor)

    def _apply(self, img):
        return _color.adjust_hue(img, self.factor)


class AdjustSaturation(TensorOperation):
    def __init__(self, saturation_factor):
        self.factor = _factor(saturation_factor, "saturation_factor")

    def _apply(self, img):
        return _color.adjust_saturation(img, self.factor)


def _range(value, name, center, bound=None):
    """A factor range: a number v -> [max(0, center - v), center + v], or a (min, max) pair."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        lo, hi = center - value, center + value
        lo = max(lo, 0.0) if center == 1 else lo
    elif isinstance(value, (list, tuple)) and len(value) == 2 and value[0] <= value[1]:
        lo, hi = value
    else:
        raise ValueError(f"RandomColorAdjust: {name} should be a number or a (min, max) pair, but got {value!r}.")
    if bound is not None and not (-bound <= lo and hi <= bound):
        raise ValueError(f"RandomColorAdjust: {name} should be within [{-bound}, {bound}], but got {value!r}.")
    return float(lo), float(hi)


class RandomColorAdjust(RandomOperation):
    """Brightness, contrast, saturation and hue factors drawn uniformly from their ranges, applied
    in a random order (as MindSpore does); a range left at its default is skipped."""

    def __init__(self, brightness=(1, 1), contrast=(1, 1), saturation=(1, 1), hue=(0, 0)):
        self.brightness = _range(brightness, "brightness", 1)
        self.contrast = _range(contrast, "contrast", 1)
        self.saturation = _range(saturation, "saturation", 1)
        self.hue = _range(hue, "hue", 0, bound=0.5)

    def _apply_random(self, rng, img):
        steps = [(self.brightness, 1.0, _color.adjust_brightness), (self.contrast, 1.0, _color.adjust_contrast),
                 (self.saturation, 1.0, _color.adjust_saturation), (self.hue, 0.0, _color.adjust_hue)]
        for k in rng.permutation(len(steps)):
            (lo, hi), neutral, fn = steps[k]
            if (lo, hi) != (neutral, neutral):
                img = fn(img, rng.uniform(lo, hi) if hi > lo else lo)
        return img


class Rotate(TensorOperation):
    """Rotate by `degrees` counter-clockwise about `center` (the image centre by default), with
    Inter.NEAREST (default), BILINEAR, BICUBIC or AREA (= BILINEAR in cv::warpAffine); `expand` fits
    the whole rotated image; uncovered pixels take `fill_value` (an int or an RGB triple). See
    _geometry.rotate; ANTIALIAS / PILCUBIC raise MindSpore's errors (_common.warp_interp)."""

    def __init__(self, degrees, resample=Inter.NEAREST, expand=False, center=None, fill_value=0):
        if not isinstance(degrees, (int, float)) or isinstance(degrees, bool):
            raise TypeError(f"Argument degrees with value {degrees} is not of type [<class 'int'>, <class 'float'>].")
        self.degrees = float(degrees)
        self.resample = Inter(resample)
        self.expand, self.center, self.fill_value = bool(expand), center, fill_value

    def _apply(self, img):
        return _geometry.rotate(img, self.degrees, self.center, self.expand,
                                warp_interp(self.resample, "Rotate", type(img)), self.fill_value)


class RandomRotation(RandomOperation):
    """Rotate by an angle drawn uniformly from `degrees` (a number d: [-d, d]); as Rotate otherwise."""

    def __init__(self, degrees, resample=Inter.NEAREST, expand=False, center=None, fill_value=0):
        self.degrees = _degrees(degrees)
        self.resample = Inter(resample)
        self.expand, self.center, self.fill_value = bool(expand), center, fill_value

    def __call__(self, img):
        return self._apply_random(eager_rng(), img) if _pilwarp.is_pil(img) else super().__call__(img)

    def _apply_random(self, rng, img):
        lo, hi = self.degrees
        angle = rng.uniform(lo, hi) if hi > lo else lo
        if _pilwarp.is_pil(img):        # MindSpore's Python implementation: PIL's rotate
            return _pilwarp.rotate(img, angle, self.resample, self.expand, self.center, self.fill_value)
        kind = warp_interp(self.resample, "RandomRotation", type(img))
        return _geometry.rotate(img, angle, self.center, self.expand, kind, self.fill_value)


def __getattr__(name):
    from pycompile.common.missing import missing
    raise missing("dataset.vision", __name__, name)
