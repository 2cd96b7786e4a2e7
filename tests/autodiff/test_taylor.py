"""ops.jet / ops.derivative / ops.linearize (ops/autodiff/taylor.py) against closed forms and
finite differences, eagerly and compiled. Their values and structures against MindSpore 2.10:
tests/conformance/cases_taylor.py."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, nn, ops


def _f(x):
    return ops.exp(ops.sin(x)) * x


def _f_np(x):
    return np.exp(np.sin(x)) * x


def _derivs_np(x):
    """f, f', f'', f''' of exp(sin x) x in float64 (by the product and chain rules)."""
    e, s, c = np.exp(np.sin(x)), np.sin(x), np.cos(x)
    g, g1 = e, e * c
    g2 = e * (c * c - s)
    g3 = e * (c ** 3 - 3 * s * c - c)
    return [g * x, g1 * x + g, g2 * x + 2 * g1, g3 * x + 3 * g2]


@pytest.fixture(params=["pynative", "graph"])
def mode(request):
    return request.param


def _run(mode, fn, *args):
    return ms.jit(fn)(*args) if mode == "graph" else fn(*args)


def _jet3(x, s):
    return ops.jet(_f, x, s)


def test_jet_gives_the_derivatives_along_a_curved_path(mode):
    # x(t) = x + s1 t + s2 t^2 / 2 + s3 t^3 / 6; d/dt f(x(t)) = f' s1, d2 = f'' s1^2 + f' s2,
    # d3 = f''' s1^3 + 3 f'' s1 s2 + f' s3 (Faa di Bruno)
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, 5)
    s = rng.uniform(-1, 1, (3, 5))
    out, series = _run(mode, _jet3, Tensor(x.astype(np.float32)), Tensor(s.astype(np.float32)))
    f0, f1, f2, f3 = _derivs_np(x)
    s1, s2, s3 = s
    want = [f1 * s1, f2 * s1 ** 2 + f1 * s2, f3 * s1 ** 3 + 3 * f2 * s1 * s2 + f1 * s3]
    np.testing.assert_allclose(out.asnumpy(), f0, rtol=1e-5, atol=1e-6)
    assert series.shape == (3, 5)
    np.testing.assert_allclose(series.asnumpy(), np.stack(want), rtol=2e-5, atol=2e-5)


def _second(x):
    return ops.derivative(_f, x, 2)


def test_derivative_matches_finite_differences(mode):
    x = np.linspace(-1.5, 1.5, 7)
    out, d2 = _run(mode, _second, Tensor(x))          # float64 through
    h = 1e-4
    fd = (_f_np(x + h) - 2 * _f_np(x) + _f_np(x - h)) / h ** 2
    assert d2.dtype == ms.float64
    np.testing.assert_allclose(out.asnumpy(), _f_np(x), rtol=1e-12)
    np.testing.assert_allclose(d2.asnumpy(), fd, rtol=1e-5, atol=1e-6)


class _Two(nn.Cell):
    def construct(self, x, y):
        return x * y, ops.sin(x) * y


def test_derivative_moves_every_input_together():
    # d/dt (x + t)(y + t) = x + y; d2 = 2; sin(x + t)(y + t): d2 = -sin(x)(y) + 2 cos(x)
    x, y = np.array([0.3, 1.2]), np.array([2.0, -0.5])
    outs, d2 = ops.derivative(_Two(), (Tensor(x), Tensor(y)), 2)
    assert isinstance(outs, list) and isinstance(d2, list) and len(d2) == 2
    np.testing.assert_allclose(d2[0].asnumpy(), [2.0, 2.0], rtol=1e-12)
    np.testing.assert_allclose(d2[1].asnumpy(), -np.sin(x) * y + 2 * np.cos(x), rtol=1e-12)


def test_linearize_applies_the_jacobian_at_the_point():
    x, y = np.array([[1.0, 2.0], [0.5, -1.0]]), np.array([[0.1, 0.2], [0.3, 0.4]])
    out, jvp_fn = ops.linearize(_Two(), (Tensor(x), Tensor(y)))
    np.testing.assert_allclose(out[0].asnumpy(), x * y)
    u, v = np.ones_like(x), np.full_like(y, 2.0)
    t = jvp_fn((Tensor(u), Tensor(v)))
    np.testing.assert_allclose(t[0].asnumpy(), u * y + x * v, rtol=1e-12)
    np.testing.assert_allclose(t[1].asnumpy(), np.cos(x) * u * y + np.sin(x) * v, rtol=1e-12)
    with pytest.raises(TypeError, match="Tensor, tuple or list"):
        ops.linearize(_Two(), 3)
