"""bessel_y0 / bessel_y1 against scipy.special in float64 over (0, 60] (the series, the
Gauss-Legendre integrals and Hankel's expansion, with their switch points); compiled code is
checked against the wheel's float32 and float64 values (edges included) in
tests/conformance/cases_internal.py."""
import numpy as np
import pytest

from pycompile import Tensor, ops

special = pytest.importorskip("scipy.special")
X = np.concatenate([np.geomspace(1e-8, 2, 60), np.linspace(2, 30, 200), [1.9999, 2.0001, 24.999, 25.0, 25.001, 60]])


def test_against_scipy():
    y0, y1 = ops.bessel_y0(Tensor(X)), ops.bessel_y1(Tensor(X))
    np.testing.assert_allclose(y0.asnumpy(), special.y0(X), rtol=1e-9, atol=1e-14)
    np.testing.assert_allclose(y1.asnumpy(), special.y1(X), rtol=1e-9, atol=1e-14)


def test_float32_is_correctly_rounded_mostly():
    x = X.astype(np.float32)
    got = ops.bessel_y1(Tensor(x)).asnumpy()
    want = special.y1(x.astype(np.float64))
    np.testing.assert_allclose(got, want, rtol=2e-7, atol=1e-30)
