"""conv_epilogue: two convolutions whose outputs meet in one elementwise op (SSIM's mu1 * mu2).
Both convolutions' groups could claim the product; the second group used to drop its own
convolution although the first group's FusedConv still read it ("Conv2D is used before it is
defined", an InternalCompilerError). Found by surface33's nn.SSIM."""
import numpy as np

import pycompile as ms
from pycompile import Tensor, ops


def two_convs(a, b, w):
    """SSIM's map: five convolutions whose outputs meet in products."""
    mu1, mu2 = ops.conv2d(a, w), ops.conv2d(b, w)
    mu1_sq, mu2_sq, mu12 = mu1 * mu1, mu2 * mu2, mu1 * mu2
    s1 = ops.conv2d(a * a, w) - mu1_sq
    s2 = ops.conv2d(b * b, w) - mu2_sq
    s12 = ops.conv2d(a * b, w) - mu12
    v1, v2 = 2 * s12 + 0.1, s1 + s2 + 0.1
    return ((2 * mu12 + 0.01) * v1) / ((mu1_sq + mu2_sq + 0.01) * v2)


def test_two_convolutions_meeting_in_one_product_compile():
    rng = np.random.default_rng(0)
    a, b = rng.random((2, 1, 7, 7), np.float32), rng.random((2, 1, 7, 7), np.float32)
    w = rng.random((1, 1, 3, 3), np.float32)
    want = two_convs(Tensor(a), Tensor(b), Tensor(w))
    got = ms.jit(two_convs)(Tensor(a), Tensor(b), Tensor(w))
    np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-5, atol=1e-6)
