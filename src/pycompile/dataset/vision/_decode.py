"""Image decoding with Pillow, an optional dependency (`pip install 'pycompile[images]'`).

Pillow was picked over OpenCV or a libjpeg-turbo binding: it is a maintained wheel on every
platform, small, and bundles libjpeg-turbo, libpng and zlib, so JPEG and PNG decode as in
MindSpore (which decodes with OpenCV / libjpeg-turbo; the recorded JPEG and PNG fixtures decode
to the same bytes). It is imported on first use, so pycompile works without it until an image
is decoded.
"""
from __future__ import annotations

import io

import numpy as np


def decode_image(data, path=None) -> np.ndarray:
    """Bytes of an image file -> HWC uint8 RGB (gray and RGBA become RGB), as MindSpore's Decode."""
    try:
        from PIL import Image
    except ImportError:
        raise ImportError("decoding images (vision.Decode, ImageFolderDataset(decode=True)) needs Pillow, which "
                          "is not installed: pip install 'pycompile[images]'") from None
    try:
        with Image.open(io.BytesIO(np.asarray(data, dtype=np.uint8).tobytes())) as img:
            return np.asarray(img.convert("RGB"))
    except Exception:  # noqa: BLE001 - Pillow raises many kinds for a broken file
        if path is None:
            raise RuntimeError("Decode: image decode failed.") from None
        raise RuntimeError(f"Invalid image, {path} decode failed, the image is broken or permission "
                           "denied.") from None


def to_pil(data):
    from PIL import Image
    return Image.fromarray(decode_image(data))
