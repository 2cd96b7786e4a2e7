"""RandomRotation, Perspective and RandomResizedCrop on PIL images (issue 35): MindSpore 2.10 runs
its Python implementation for a PIL input (and for ANTIALIAS, which only it has), i.e. Pillow's
rotate / transform(PERSPECTIVE) / crop + resize, and returns a PIL image; so does this, with the
same Pillow calls (recorded: tests/oracle/data/warp_data35d.json). AREA and PILCUBIC have no PIL
form: MindSpore's TypeError. The random parameters come from the pipeline's generator.
"""
from __future__ import annotations

import numpy as np

from pycompile.dataset.vision._common import Inter

_NO_PIL_FORM = "Current Interpolation is not supported with PIL input."


def is_pil(img) -> bool:
    return hasattr(img, "getbands") and hasattr(img, "transform")


def _pil_filter(mode):
    from PIL import Image
    mode = Inter(mode)
    if mode in (Inter.AREA, Inter.PILCUBIC):
        raise TypeError(_NO_PIL_FORM)
    return {Inter.NEAREST: Image.NEAREST, Inter.ANTIALIAS: Image.LANCZOS, Inter.LINEAR: Image.BILINEAR,
            Inter.BICUBIC: Image.BICUBIC}[mode]


def rotate(img, angle, mode, expand, center, fill):
    """PIL's rotate; ANTIALIAS only by a multiple of 90 degrees about the centre (MindSpore's check)."""
    resample = _pil_filter(mode)
    fill = (fill,) * 3 if isinstance(fill, int) else tuple(fill)
    angle = angle % 360.0
    if Inter(mode) == Inter.ANTIALIAS and (angle not in (0, 90, 180, 270) or center):
        raise ValueError("When using Inter.ANTIALIAS, center needs to be None and angle needs to be an integer "
                         "multiple of 90.")
    return img.rotate(angle, resample, expand, center, fillcolor=fill)


def perspective(img, start, end, mode):
    """PIL's PERSPECTIVE transform: the 8 coefficients mapping each output point (an `end` point)
    back to its `start` point, solved by least squares as MindSpore does."""
    from PIL import Image
    resample = _pil_filter(mode)
    rows, rhs = [], []
    for (x, y), (u, v) in zip(end, start):
        rows += [[x, y, 1, 0, 0, 0, -u * x, -u * y], [0, 0, 0, x, y, 1, -v * x, -v * y]]
        rhs += [u, v]
    coeffs = np.linalg.lstsq(np.array(rows, float), np.array(rhs, float), rcond=None)[0]
    return img.transform(img.size, Image.PERSPECTIVE, coeffs.tolist(), resample)


def resized_crop(img, box, size, mode):
    """Crop (top, left, height, width) and resize to (height, width) with PIL's filter for `mode`."""
    resample = _pil_filter(mode)
    top, left, h, w = box
    return img.crop((left, top, left + w, top + h)).resize((size[1], size[0]), resample)
