"""nn layers of src/pycompile/nn/layers_more.py where the MindSpore 2.10 wheel gives no usable
record (no CPU kernel for Roll; ClipByNorm with an axis off its documentation; RReLU random):
checked against NumPy, in PyNative and compiled. The other layers are in
tests/conformance/cases_layers.py."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, nn, ops

RNG = np.random.default_rng(11)
X = RNG.normal(size=(2, 3, 5)).astype(np.float32)


def _both(cell, *args):
    eager = cell(*args)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        compiled = cell(*args)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    return eager, compiled


@pytest.mark.parametrize("shift,axis", [(2, 0), ((1, -7), (1, 2)), (13, -1)])
def test_roll_equals_numpy(shift, axis):
    for out in _both(nn.Roll(shift, axis), Tensor(X)):
        np.testing.assert_array_equal(out.asnumpy(), np.roll(X, shift, axis))


def test_roll_argument_errors():
    with pytest.raises(ValueError, match="the length of 'shift' 2 and the length of 'axis' 1"):
        nn.Roll((1, 2), 0)
    with pytest.raises(ValueError, match="'axis' must be in range"):
        nn.Roll(1, 3)(Tensor(X))


def test_clip_by_norm_with_an_axis_bounds_each_slice_by_its_own_norm():
    x = np.array([[3., 4.], [6., 8.], [0.3, 0.4]], np.float32)
    for out in _both(nn.ClipByNorm(axis=1), Tensor(x), Tensor(1.0, ms.float32)):
        np.testing.assert_allclose(out.asnumpy(), [[0.6, 0.8], [0.6, 0.8], [0.3, 0.4]], rtol=1e-6)
    out = nn.ClipByNorm()(Tensor(x), Tensor(1.0, ms.float32)).asnumpy()
    np.testing.assert_allclose(np.linalg.norm(out), 1.0, rtol=1e-6)


def test_rrelu_slopes_lie_between_lower_and_upper():
    ms.set_seed(5)
    x = Tensor(np.concatenate([-np.ones(4000, np.float32), np.ones(10, np.float32)]))
    out = nn.RReLU(0.1, 0.3)(x).asnumpy()
    slopes = -out[:4000]
    assert 0.1 <= slopes.min() and slopes.max() < 0.3 and abs(slopes.mean() - 0.2) < 0.01
    np.testing.assert_array_equal(out[4000:], 1.0)
    with pytest.raises(ValueError, match="'upper' must be greater than or equal to 'lower'"):
        nn.RReLU(0.5, 0.1)


def _fd(f, a, eps=1e-6):
    g = np.zeros_like(a)
    for i in np.ndindex(a.shape):
        d = np.zeros_like(a)
        d[i] = eps
        g[i] = (f(a + d) - f(a - d)) / (2 * eps)
    return g


@pytest.mark.parametrize("mode", ["pynative", "jit"])
def test_lp_pool_and_linear_gradients_against_finite_differences(mode):
    a = RNG.uniform(0.2, 2.0, (1, 1, 4, 4))
    w = RNG.normal(size=(3, 4))

    def f(x):
        pooled = ops.lp_pool2d(x, 3, 2)                       # (1, 1, 2, 2)
        return ops.sum(ops.dense(ops.reshape(pooled, (1, 4)), Tensor(w)) ** 2)
    g = ms.grad(f)
    g = ms.jit(g) if mode == "jit" else g
    got = g(Tensor(a)).asnumpy()
    np.testing.assert_allclose(got, _fd(lambda v: f(Tensor(v)).asnumpy(), a), rtol=1e-6, atol=1e-8)


def test_linear_is_dense_with_torch_style_arguments():
    w = RNG.normal(size=(5, 4)).astype(np.float32)
    b = RNG.normal(size=(5,)).astype(np.float32)
    net = nn.Linear(4, 5, weight_init=Tensor(w), bias_init=Tensor(b))
    for out in _both(net, Tensor(X[:, :, :4])):
        np.testing.assert_allclose(out.asnumpy(), X[:, :, :4] @ w.T + b, rtol=1e-5, atol=1e-6)
    assert [p.name for p in net.trainable_params()] == ["weight", "bias"]


@pytest.mark.parametrize("cls,shape", [(nn.InstanceNorm1d, (2, 3, 7)), (nn.InstanceNorm2d, (2, 3, 4, 5)),
                                       (nn.InstanceNorm3d, (2, 3, 2, 3, 4))])
def test_instance_norm_of_each_rank_equals_numpy(cls, shape):
    x = RNG.normal(size=shape).astype(np.float32) * 3 + 1
    gamma = RNG.uniform(0.5, 1.5, 3).astype(np.float32)
    beta = RNG.normal(size=3).astype(np.float32)
    net = cls(3, gamma_init=Tensor(gamma), beta_init=Tensor(beta))
    axes = tuple(range(2, len(shape)))
    mean, var = x.mean(axes, keepdims=True), x.var(axes, keepdims=True)
    view = (1, 3) + (1,) * (len(shape) - 2)
    expected = (x - mean) / np.sqrt(var + 1e-5) * gamma.reshape(view) + beta.reshape(view)
    for out in _both(net, Tensor(x)):
        np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match=f"must have {len(shape)} dims"):
        net(Tensor(np.ones((2, 3), np.float32)))


@pytest.mark.parametrize("mode", ["pynative", "jit"])
def test_multi_margin_and_lrn_gradients_against_finite_differences(mode):
    a = RNG.normal(size=(2, 4, 2, 2))
    target = Tensor(np.array([1, 3], np.int64))

    def f(x):
        y = ops.lrn(x, 1, 2.0, 0.5, 0.75)
        return ops.multi_margin_loss(ops.reshape(ops.mean(y, (2, 3)), (2, 4)), target, p=2)
    g = ms.grad(f)
    g = ms.jit(g) if mode == "jit" else g
    got = g(Tensor(a)).asnumpy()
    np.testing.assert_allclose(got, _fd(lambda v: f(Tensor(v)).asnumpy(), a), rtol=1e-5, atol=1e-9)


def test_matrix_cells_equal_numpy():
    a = RNG.normal(size=(2, 3, 3)).astype(np.float32) + 3 * np.eye(3, dtype=np.float32)
    for out in _both(nn.MatDet(), Tensor(a)):
        np.testing.assert_allclose(out.asnumpy(), np.linalg.det(a), rtol=1e-4)
    for out in _both(nn.MatInverse(), Tensor(a)):
        np.testing.assert_allclose(out.asnumpy(), np.linalg.inv(a), rtol=1e-4, atol=1e-5)
    v = RNG.normal(size=(2, 4)).astype(np.float32)
    for out in _both(nn.MatrixDiag(), Tensor(v)):
        np.testing.assert_array_equal(out.asnumpy(), np.stack([np.diag(r) for r in v]))
    m = RNG.normal(size=(2, 3, 5)).astype(np.float32)
    for out in _both(nn.MatrixDiagPart(), Tensor(m)):
        np.testing.assert_array_equal(out.asnumpy(), np.stack([np.diag(r) for r in m]))
    d = RNG.normal(size=(2, 3)).astype(np.float32)
    expected = m.copy()
    for b in range(2):
        np.fill_diagonal(expected[b], d[b])
    for out in _both(nn.MatrixSetDiag(), Tensor(m), Tensor(d)):
        np.testing.assert_array_equal(out.asnumpy(), expected)
