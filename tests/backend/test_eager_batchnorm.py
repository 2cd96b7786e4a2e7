"""Training-mode batch norm in PyNative on its rows' compiled decompositions (ops/defs/norm.py:
BatchNormApply forward, BatchNormChannelDot and BatchNormStatsGrad backward, each one kernel a
signature): the forward equals the compiled forward bit for bit; the gradients (x, gamma, beta)
equal the compiled ones within float32 rounding and finite differences in float64; a gradient of
the gradient works in both modes."""
from __future__ import annotations

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops
from pycompile.ops import _table
from pycompile.ops import function_image as FI
from eager_install import kernels_installed


@pytest.fixture(autouse=True, scope="module")
def _kernels():
    with kernels_installed():
        yield


def _arrays(dtype=np.float32):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 3, 5, 6)).astype(dtype)
    gamma, beta = rng.uniform(0.5, 1.5, 3).astype(dtype), rng.uniform(-0.5, 0.5, 3).astype(dtype)
    c = rng.standard_normal((4, 3, 5, 6)).astype(dtype)
    return x, gamma, beta, c


def _loss(x, gamma, beta, c):
    return (FI.batch_norm_train(x, gamma, beta, 1e-5) * c).sum()


def _loss_np(x, gamma, beta, c):
    m, v = x.mean(axis=(0, 2, 3), keepdims=True), x.var(axis=(0, 2, 3), keepdims=True)
    y = (x - m) / np.sqrt(v + 1e-5) * gamma[:, None, None] + beta[:, None, None]
    return (y * c).sum()


def test_forward_is_the_compiled_forward_and_runs_one_kernel():
    x, gamma, beta, _ = (Tensor(a) for a in _arrays())
    _table._PLANS.clear()
    got = FI.batch_norm_train(x, gamma, beta, 1e-5)
    plans = [v for k, v in _table._PLANS.items() if k[0].name == "BatchNormApply"]
    assert plans and getattr(plans[0], "kernel", None) is not None, "BatchNormApply ran its parts in PyNative"
    want = ms.jit(lambda x, g, b: FI.batch_norm_train(x, g, b, 1e-5))(x, gamma, beta)
    assert np.array_equal(got.asnumpy(), want.asnumpy())


def test_gradients_match_compiled_and_finite_differences():
    arrays = _arrays()
    args = [Tensor(a) for a in arrays]
    eager = ms.grad(_loss, grad_position=(0, 1, 2))(*args)
    compiled = ms.jit(ms.grad(_loss, grad_position=(0, 1, 2)))(*args)
    for e, c in zip(eager, compiled):
        np.testing.assert_allclose(e.asnumpy(), c.asnumpy(), rtol=1e-5, atol=1e-5)
    # float64, against central differences of the NumPy loss at a few coordinates
    a64 = _arrays(np.float64)
    g64 = ms.grad(_loss, grad_position=(0, 1, 2))(*(Tensor(a) for a in a64))
    h = 1e-6
    for k, index in ((0, (1, 2, 3, 4)), (0, (3, 0, 0, 5)), (1, (2,)), (2, (0,))):
        plus, minus = [a.copy() for a in a64], [a.copy() for a in a64]
        plus[k][index] += h
        minus[k][index] -= h
        fd = (_loss_np(*plus) - _loss_np(*minus)) / (2 * h)
        assert abs(g64[k].asnumpy()[index] - fd) < 1e-6 * max(1.0, abs(fd)), (k, index)


def _grad_norm(x, gamma, beta, c):
    dx = ms.grad(_loss, grad_position=0)(x, gamma, beta, c)
    return (dx * dx).sum()


def test_second_order_through_the_batch_norm():
    arrays = _arrays(np.float64)
    args = [Tensor(a) for a in arrays]
    eager = ms.grad(_grad_norm, grad_position=(0, 1))(*args)
    compiled = ms.jit(ms.grad(_grad_norm, grad_position=(0, 1)))(*args)
    h = 1e-5
    for k, index in ((0, (0, 1, 2, 3)), (1, (1,))):
        plus, minus = [a.copy() for a in arrays], [a.copy() for a in arrays]
        plus[k][index] += h
        minus[k][index] -= h
        fd = (float(_grad_norm(*(Tensor(a) for a in plus)).asnumpy())
              - float(_grad_norm(*(Tensor(a) for a in minus)).asnumpy())) / (2 * h)
        for g in (eager, compiled):
            assert abs(g[k].asnumpy()[index] - fd) < 1e-5 * max(1.0, abs(fd)), (k, index, g[k].asnumpy()[index], fd)
