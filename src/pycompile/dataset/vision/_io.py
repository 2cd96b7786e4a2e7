"""mindspore.dataset.vision's file functions (issue 35): read_file / write_file (raw bytes),
read_image (decoded HWC uint8), encode_png / encode_jpeg and write_png / write_jpeg (Pillow, the
optional dependency Decode already uses). Errors are MindSpore 2.10's messages. Encoded bytes
are Pillow's: a PNG decodes to exactly the image (as MindSpore's does); a JPEG to the pixels a
libjpeg-turbo encoder at that quality gives (tests/oracle/data/vision_data35.json).
"""
from __future__ import annotations

import io
import os
from enum import IntEnum

import numpy as np

from pycompile.dataset.transforms._base import as_array
from pycompile.dataset.vision._decode import decode_image

_PIPELINE = "Exception thrown from dataset pipeline. Refer to 'Dataset Pipeline Error Message'.\n\n[ERROR] "


class ImageReadMode(IntEnum):
    UNCHANGED = 0
    GRAYSCALE = 1
    COLOR = 2


def read_file(filename):
    """The file's bytes as a uint8 1-D array."""
    if not isinstance(filename, str):
        raise TypeError(f"Input filename is not of type [<class 'str'>], but got: {type(filename)}.")
    if not os.path.isfile(filename):
        raise RuntimeError(f"{_PIPELINE}ReadFile: Invalid file path, {filename} does not exist.")
    return np.fromfile(filename, dtype=np.uint8)


def write_file(filename, data):
    arr = as_array(data)
    if arr.dtype != np.uint8 or arr.ndim != 1:
        raise RuntimeError(f"{_PIPELINE}WriteFile: The type of the elements of data should be UINT8 and its rank 1, "
                           f"but got {arr.dtype} of rank {arr.ndim}.")
    with open(filename, "wb") as f:
        f.write(arr.tobytes())


def read_image(filename, mode=ImageReadMode.UNCHANGED):
    """The decoded image, HWC uint8: GRAYSCALE gives one channel, COLOR and UNCHANGED three."""
    img = decode_image(read_file(filename), filename)
    if ImageReadMode(mode) == ImageReadMode.GRAYSCALE:
        # the decoder's own conversion: OpenCV's weights in 15-bit fixed point, truncated
        c = img.astype(np.int64)
        return ((9798 * c[..., 0] + 19235 * c[..., 1] + 3735 * c[..., 2]) >> 15).astype(np.uint8)[..., None]
    return img


def _image(image, op):
    arr = as_array(image)
    if arr.dtype != np.uint8:
        raise RuntimeError(f"{_PIPELINE}{op}: The type of the image data should be UINT8, but got {arr.dtype}.")
    if arr.ndim == 3 and arr.shape[2] == 1:
        arr = arr[..., 0]
    if arr.ndim not in (2, 3) or (arr.ndim == 3 and arr.shape[2] != 3):
        raise RuntimeError(f"{_PIPELINE}{op}: The image should be <H, W>, <H, W, 1> or <H, W, 3>, but got shape "
                           f"{list(arr.shape)}.")
    return arr


def _encode(arr, fmt, **options):
    try:
        from PIL import Image
    except ImportError:
        raise ImportError("encoding images needs Pillow, which is not installed: pip install 'pycompile[images]'") \
            from None
    buf = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(arr)).save(buf, fmt, **options)
    return np.frombuffer(buf.getvalue(), np.uint8).copy()


def encode_png(image, compression_level=6):
    if not isinstance(compression_level, int) or not 0 <= compression_level <= 9:
        raise ValueError(f"Input compression_level is not within the required interval of [0, 9], but got "
                         f"{compression_level}.")
    return _encode(_image(image, "EncodePng"), "PNG", compress_level=compression_level)


def encode_jpeg(image, quality=75):
    if not isinstance(quality, int) or not 1 <= quality <= 100:
        raise ValueError(f"Input quality is not within the required interval of [1, 100], but got {quality}.")
    return _encode(_image(image, "EncodeJpeg"), "JPEG", quality=quality)


def write_png(filename, image, compression_level=6):
    write_file(filename, encode_png(image, compression_level))


def write_jpeg(filename, image, quality=75):
    write_file(filename, encode_jpeg(image, quality))
