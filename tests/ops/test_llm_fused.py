"""The fused large-model ops (src/pycompile/ops/entries/llm_fused.py) against NumPy versions of
MindSpore 2.10's documented formulas, eagerly and compiled (its CPU wheel has no kernels for them:
"The kernel RmsNorm unregistered"), embedding's padding_idx / scale_grad_by_freq gradients and
max_norm renormalization, and the gradients of the others against central differences."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Parameter, Tensor, ops

RNG = np.random.default_rng(12)
X = RNG.standard_normal((2, 3, 8)).astype(np.float32)
G = RNG.uniform(0.5, 1.5, 8).astype(np.float32)
B = RNG.standard_normal(8).astype(np.float32)


def _rms(x, g, eps=1e-6):
    r = 1 / np.sqrt((x.astype(np.float64) ** 2).mean(-1, keepdims=True) + eps)
    return x * r * g, r


def _rope(x, c, s, mode):
    d = x.shape[-1]
    if mode == 0:
        rot = np.concatenate([-x[..., d // 2:], x[..., :d // 2]], -1)
    else:
        rot = np.stack([-x[..., 1::2], x[..., 0::2]], -1).reshape(x.shape)
    return x * c + rot * s


def _all(x, g, b, q, c, s):
    return (ops.rms_norm(x, g), ops.add_rms_norm(x, x * 0.5, g), ops.add_layer_norm(x, x * 0.5, g, b),
            ops.swiglu(x), ops.swiglu(x, 0), ops.rotary_position_embedding(q, c, s),
            ops.rotary_position_embedding(q, c, s, 1))


@pytest.mark.parametrize("compiled", [False, True])
def test_values(compiled):
    q = RNG.standard_normal((1, 2, 4, 8)).astype(np.float32)
    ang = RNG.uniform(0, 3, (1, 1, 4, 8)).astype(np.float32)
    c, s = np.cos(ang), np.sin(ang)
    args = [Tensor(a) for a in (X, G, B, q, c, s)]
    out = (ms.jit(_all) if compiled else _all)(*args)
    y, r = _rms(X, G)
    np.testing.assert_allclose(out[0][0].asnumpy(), y, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out[0][1].asnumpy(), r, rtol=1e-5)
    y2, r2 = _rms(X * 1.5, G)
    np.testing.assert_allclose(out[1][0].asnumpy(), y2, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out[1][2].asnumpy(), X * 1.5, rtol=1e-6)
    xs = X * 1.5
    mean = xs.mean(-1, keepdims=True)
    rstd = 1 / np.sqrt(xs.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(out[2][0].asnumpy(), (xs - mean) * rstd * G + B, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(out[2][1].asnumpy(), mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out[2][2].asnumpy(), rstd, rtol=1e-4)
    a, bb = X[..., :4], X[..., 4:]
    np.testing.assert_allclose(out[3].asnumpy(), a / (1 + np.exp(-a)) * bb, rtol=1e-5, atol=1e-6)
    a, bb = X[:1], X[1:]
    np.testing.assert_allclose(out[4].asnumpy(), a / (1 + np.exp(-a)) * bb, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out[5].asnumpy(), _rope(q, c, s, 0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out[6].asnumpy(), _rope(q, c, s, 1), rtol=1e-5, atol=1e-6)


def _fd(f, x, eps=1e-3):
    g = np.zeros_like(x, dtype=np.float64)
    for i in np.ndindex(x.shape):
        hi, lo = x.copy(), x.copy()
        hi[i] += eps
        lo[i] -= eps
        g[i] = (float(f(Tensor(hi)).asnumpy()) - float(f(Tensor(lo)).asnumpy())) / (2 * eps)
    return g


@pytest.mark.parametrize("name", ["rms_norm", "add_layer_norm", "swiglu", "rope"])
def test_gradients_match_finite_differences(name):
    x = RNG.standard_normal((2, 4)).astype(np.float32)
    w = Tensor(np.cos(np.arange(8, dtype=np.float32)).reshape(2, 4))
    fns = {"rms_norm": lambda t: (ops.rms_norm(t, Tensor(G[:4]))[0] * w).sum(),
           "add_layer_norm": lambda t: (ops.add_layer_norm(t, t * 2, Tensor(G[:4]), Tensor(B[:4]))[0] * w).sum(),
           "swiglu": lambda t: (ops.swiglu(ops.concat((t, t * t), -1)) * w).sum(),
           "rope": lambda t: (ops.rotary_position_embedding(ops.reshape(t, (1, 1, 2, 4)), Tensor(np.full((1, 1, 2, 4), 0.6, np.float32)),
                                                            Tensor(np.full((1, 1, 2, 4), 0.8, np.float32)), 1)
                              * ops.reshape(w, (1, 1, 2, 4))).sum()}
    f = fns[name]
    got = ms.grad(f)(Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, _fd(f, x), rtol=2e-2, atol=2e-3)


@pytest.mark.parametrize("compiled", [False, True])
def test_embedding_gradients(compiled):
    w = Parameter(Tensor(RNG.standard_normal((5, 3)).astype(np.float32)), name="emb")
    idx = Tensor(np.array([[0, 2, 2], [4, 2, 1]], np.int32))
    up = Tensor(RNG.standard_normal((2, 3, 3)).astype(np.float32))

    def loss(i):
        return (ops.embedding(i, w, padding_idx=1, scale_grad_by_freq=True) * up).sum()
    g = (ms.jit(ms.grad(loss, None, [w])) if compiled else ms.grad(loss, None, [w]))(idx)[0].asnumpy()
    want = np.zeros((5, 3), np.float64)
    flat, u = idx.asnumpy().reshape(-1), up.asnumpy().reshape(-1, 3)
    for k, row in enumerate(flat):
        if row != 1:
            want[row] += u[k] / (flat == row).sum()
    np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ops.embedding(idx, w).asnumpy(), w.asnumpy()[idx.asnumpy()])


def test_embedding_max_norm_renormalizes_the_rows_looked_up_in_place():
    base = RNG.uniform(1, 2, (4, 3)).astype(np.float32)
    w = Tensor(base.copy())
    out = ops.embedding(Tensor(np.array([0, 3], np.int64)), w, max_norm=1.0)
    got = w.asnumpy()
    for r in (0, 3):
        np.testing.assert_allclose(np.linalg.norm(got[r]), 1.0, rtol=1e-5)
    np.testing.assert_array_equal(got[1:3], base[1:3])
    np.testing.assert_allclose(out.asnumpy(), got[[0, 3]], rtol=1e-6)


def test_ext_names_are_the_ops():
    a, b = RNG.standard_normal((2, 3)).astype(np.float32), RNG.standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_allclose(ops.mse_loss_ext(Tensor(a), Tensor(b)).asnumpy(), ((a - b) ** 2).mean(), rtol=1e-6)
    np.testing.assert_allclose(ops.diff_ext(Tensor(a)).asnumpy(), np.diff(a), rtol=1e-6)
    m = RNG.standard_normal((2, 3, 3)).astype(np.float32)
    np.testing.assert_allclose(ops.baddbmm_ext(Tensor(m), Tensor(m), Tensor(m), beta=0.5, alpha=2).asnumpy(),
                               0.5 * m + 2 * m @ m, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ops.einsum_ext("bij,bjk->bik", Tensor(m), Tensor(m)).asnumpy(), m @ m, rtol=1e-5)
    img = RNG.standard_normal((1, 2, 4, 4)).astype(np.float32)
    np.testing.assert_allclose(ops.adaptive_avg_pool2d_ext(Tensor(img), 2).asnumpy(),
                               img.reshape(1, 2, 2, 2, 2, 2).mean((3, 5)), rtol=1e-5)


def test_an_odd_split_is_an_error_at_the_users_line_in_graph_code():
    with pytest.raises(RuntimeError, match="must be divisible by 2"):
        ms.jit(lambda x: ops.swiglu(x, 1))(Tensor(X))
