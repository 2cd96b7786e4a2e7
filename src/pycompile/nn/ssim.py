"""nn.SSIM and nn.MSSSIM (issue 33, surface33): structural similarity of two (N, C, H, W) image
batches, as MindSpore 2.10 computes it: each channel filtered with one normalized Gaussian window
(`filter_size`, `filter_sigma`; 'valid' borders), the luminance-contrast-structure map averaged
over the image. MSSSIM combines the contrast-structure means of `len(power_factors)` scales
(halved by 2x2 average pooling) with the last scale's SSIM, each clipped at 0 and raised to
its power factor. Integer images (and max_val) are scaled by 1 / the dtype's maximum first."""
from __future__ import annotations

import numpy as np

from pycompile import ops
from pycompile.common import dtype as mstype
from pycompile.common.tensor import Tensor
from pycompile.nn.cell import Cell
from pycompile.nn.conv import Conv2d
from pycompile.nn.layers import CellList
from pycompile.nn.image_more import _check_4d, _dtype_max


def _window(size: int, sigma: float) -> np.ndarray:
    """The (1, 1, size, size) Gaussian window, offsets -size//2 + 1 .. size//2 (MindSpore's grid)."""
    offsets = np.arange(-size // 2 + 1, size // 2 + 1, dtype=np.float32)
    g = np.exp(-(offsets[:, None] ** 2 + offsets[None, :] ** 2) / np.float32(2 * sigma ** 2))
    return (g / g.sum()).astype(np.float32)[None, None]


def _check_args(cls, max_val, filter_size, filter_sigma, k1, k2):
    if isinstance(max_val, bool) or not isinstance(max_val, (int, float)):
        raise TypeError(f"For '{cls}', the type of 'max_val' should be 'int' or 'float', but got "
                        f"'{type(max_val).__name__}'.")
    if max_val <= 0:
        raise ValueError(f"For '{cls}', the 'max_val' should be greater than 0.0, but got {max_val}.")
    if isinstance(filter_size, bool) or not isinstance(filter_size, int) or filter_size < 1:
        raise ValueError(f"For '{cls}', the 'filter_size' should be an int and >= 1, but got {filter_size}.")
    if not isinstance(filter_sigma, float) or filter_sigma <= 0:
        raise ValueError(f"For '{cls}', the 'filter_sigma' should be a positive float, but got {filter_sigma}.")
    for name, v in (("k1", k1), ("k2", k2)):
        if not isinstance(v, float):
            raise TypeError(f"For '{cls}', the type of '{name}' should be 'float', but got '{type(v).__name__}'.")


class _SSIMBase(Cell):
    _name = ""

    def _prepare(self, img1, img2, valid):
        _check_4d(img1, "img1", self._name)
        _check_4d(img2, "img2", self._name)
        if img1.dtype not in valid:
            raise TypeError(f"For '{self._name}', the dtype of 'img1' should be one of {valid}, but got {img1.dtype}.")
        if img1.dtype != img2.dtype or img1.shape != img2.shape:
            raise TypeError(f"For 'SameTypeShape', the dtype and shape of 'input_x' and 'input_y' must be the same, "
                            f"but got {img1.dtype}{list(img1.shape)} and {img2.dtype}{list(img2.shape)}.")
        top = _dtype_max(img1.dtype)
        scale = 1.0 / top if top > 1.0 else 1.0
        a, b = ops.cast(img1, mstype.float32), ops.cast(img2, mstype.float32)
        if top > 1.0:
            a, b = a * scale, b * scale
        max_val = float(np.float32(self.max_val) * np.float32(scale))
        return a, b, (self.k1 * max_val) ** 2, (self.k2 * max_val) ** 2

    @staticmethod
    def _window_conv(size, sigma):
        """A frozen 1 -> 1 'valid' Conv2d holding the window (MindSpore's Parameter layout)."""
        conv = Conv2d(1, 1, size, pad_mode="valid", weight_init=Tensor(_window(size, sigma)))
        conv.weight.requires_grad = False
        return conv

    def _maps(self, conv, a, b, c1, c2):
        """(ssim, cs): each (N, C), the per-channel means of the two maps."""
        n, c, h, w = a.shape
        if h < self.filter_size or w < self.filter_size:
            raise ValueError(f"For '{self._name}', the height and width of 'img1' must be no less than "
                             f"'filter_size' {self.filter_size}, but got {h} and {w}.")
        a = ops.reshape(a, (n * c, 1, h, w))
        b = ops.reshape(b, (n * c, 1, h, w))
        mu1, mu2 = conv(a), conv(b)
        mu1_sq, mu2_sq, mu12 = mu1 * mu1, mu2 * mu2, mu1 * mu2
        s1 = conv(a * a) - mu1_sq
        s2 = conv(b * b) - mu2_sq
        s12 = conv(a * b) - mu12
        v1, v2 = 2 * s12 + c2, s1 + s2 + c2
        ssim = ((2 * mu12 + c1) * v1) / ((mu1_sq + mu2_sq + c1) * v2)
        cs = v1 / v2
        return (ops.reshape(ops.mean(ssim, (1, 2, 3)), (n, c)), ops.reshape(ops.mean(cs, (1, 2, 3)), (n, c)))


class SSIM(_SSIMBase):
    """The mean structural similarity per image of two (N, C, H, W) Float32 / Float16 batches."""

    _name = "SSIM"

    def __init__(self, max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03):
        super().__init__()
        _check_args("SSIM", max_val, filter_size, filter_sigma, k1, k2)
        self.max_val, self.filter_size, self.filter_sigma, self.k1, self.k2 = max_val, filter_size, filter_sigma, \
            k1, k2
        self.conv = self._window_conv(filter_size, filter_sigma)

    def construct(self, img1, img2):
        a, b, c1, c2 = self._prepare(img1, img2, (mstype.float32, mstype.float16))
        ssim, _ = self._maps(self.conv, a, b, c1, c2)
        return ops.mean(ssim, -1)


class MSSSIM(_SSIMBase):
    """Multi-scale SSIM per image of two (N, C, H, W) batches (Float64 / Float32 / Float16 / UInt8)."""

    _name = "MSSSIM"

    def __init__(self, max_val=1.0, power_factors=(0.0448, 0.2856, 0.3001, 0.2363, 0.1333), filter_size=11,
                 filter_sigma=1.5, k1=0.01, k2=0.03):
        super().__init__()
        _check_args("MSSSIM", max_val, filter_size, filter_sigma, k1, k2)
        if not isinstance(power_factors, (tuple, list)):
            raise TypeError(f"For 'MSSSIM', the type of 'power_factors' should be 'tuple' or 'list', but got "
                            f"'{type(power_factors).__name__}'.")
        self.max_val, self.filter_size, self.filter_sigma, self.k1, self.k2 = max_val, filter_size, filter_sigma, \
            k1, k2
        self.power_factors = tuple(float(p) for p in power_factors)
        self.multi_convs_list = CellList([self._window_conv(filter_size, filter_sigma)
                                          for _ in self.power_factors])

    def construct(self, img1, img2):
        a, b, c1, c2 = self._prepare(img1, img2, (mstype.float64, mstype.float32, mstype.float16, mstype.uint8))
        last = len(self.power_factors) - 1
        parts = ()
        for level in range(last):
            _, cs = self._maps(self.multi_convs_list[level], a, b, c1, c2)
            parts += (ops.relu(cs),)
            a = ops.avg_pool2d(a, 2, 2)
            b = ops.avg_pool2d(b, 2, 2)
        ssim, _ = self._maps(self.multi_convs_list[last], a, b, c1, c2)
        stacked = ops.stack(parts + (ops.relu(ssim),), -1)
        powered = ops.pow(stacked, Tensor(np.array(self.power_factors, np.float32)))
        return ops.mean(ops.prod(powered, -1), -1)


__all__ = ["SSIM", "MSSSIM"]
