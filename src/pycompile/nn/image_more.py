"""mindspore.nn's image layers ImageGradients, PSNR and CentralCrop, as Cells over existing ops,
with MindSpore 2.10's arguments, checks and integer-image scaling (values recorded from the wheel
in tests/conformance/cases_layers.py)."""
from __future__ import annotations

import numpy as np

from pycompile import ops
from pycompile.common import dtype as mstype
from pycompile.nn.cell import Cell


def _check_4d(x, what, cls):
    if x.ndim != 4:
        raise ValueError(f"For '{cls}', the dimension of '{what}' must be 4d, but got {x.ndim}.")


class ImageGradients(Cell):
    """(dy, dx): each pixel's difference with the next one down / to the right of an (N, C, H, W)
    image, 0 in the last row / column."""

    def construct(self, images):
        _check_4d(images, "images", "ImageGradients")
        n, c, h, w = images.shape
        zeros_row = ops.zeros((n, c, 1, w), images.dtype)
        zeros_col = ops.zeros((n, c, h, 1), images.dtype)
        dy = zeros_row if h == 1 else ops.concat((images[:, :, 1:, :] - images[:, :, :h - 1, :], zeros_row), 2)
        dx = zeros_col if w == 1 else ops.concat((images[:, :, :, 1:] - images[:, :, :, :w - 1], zeros_col), 3)
        return dy, dx


def _dtype_max(dtype) -> float:
    return float(np.iinfo(dtype.np).max) if dtype.is_int else 1.0


class PSNR(Cell):
    """10 log10(max_val² / mse) per image of two (N, C, H, W) batches; integer images (and
    max_val) are scaled by 1 / (the dtype's maximum) first, as MindSpore does."""

    def __init__(self, max_val=1.0):
        super().__init__()
        if isinstance(max_val, bool) or not isinstance(max_val, (int, float)):
            raise TypeError(f"For 'PSNR', the type of 'max_val' should be 'int' or 'float', but got "
                            f"'{type(max_val).__name__}'.")
        if max_val <= 0:
            raise ValueError(f"For 'PSNR', the 'max_val' should be greater than 0.0, but got {max_val}.")
        self.max_val = max_val

    def construct(self, img1, img2):
        _check_4d(img1, "img1", "PSNR")
        _check_4d(img2, "img2", "PSNR")
        if img1.dtype != img2.dtype or img1.shape != img2.shape:
            raise TypeError(f"For 'SameTypeShape', the dtype and shape of 'input_x' and 'input_y' must be the same, "
                            f"but got {img1.dtype}{list(img1.shape)} and {img2.dtype}{list(img2.shape)}.")
        top = _dtype_max(img1.dtype)
        scale = 1.0 / top if top > 1.0 else 1.0
        max_val = np.float32(self.max_val) * np.float32(scale)
        square = float(max_val * max_val)                   # in float32, as the wheel squares it
        a = ops.cast(img1, mstype.float32) * scale if top > 1.0 else ops.cast(img1, mstype.float32)
        b = ops.cast(img2, mstype.float32) * scale if top > 1.0 else ops.cast(img2, mstype.float32)
        mse = ops.mean(ops.square(a - b), (-3, -2, -1))
        return 10 * ops.log(square / mse) / float(np.log(10.0))


class CentralCrop(Cell):
    """The central `central_fraction` of the height and width of a (C, H, W) or (N, C, H, W) image."""

    def __init__(self, central_fraction):
        super().__init__()
        if not isinstance(central_fraction, float):
            raise TypeError(f"For 'CentralCrop', the type of 'central_fraction' should be 'float', but got "
                            f"'{type(central_fraction).__name__}'.")
        if not 0.0 < central_fraction <= 1.0:
            raise ValueError(f"For 'CentralCrop', the 'central_fraction' should be in range (0.0, 1.0], but got "
                             f"{central_fraction}.")
        self.central_fraction = central_fraction

    def construct(self, image):
        if image.ndim not in (3, 4):
            raise ValueError(f"CentralCrop image must be 3d or 4d, but got shape {tuple(image.shape)}")
        if self.central_fraction == 1.0:
            return image
        h, w = image.shape[-2:]
        top = int((float(h) - float(h * self.central_fraction)) / 2)
        left = int((float(w) - float(w * self.central_fraction)) / 2)
        return image[..., top:h - top, left:w - left]
