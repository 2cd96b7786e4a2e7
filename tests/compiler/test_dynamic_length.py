"""masked_select and Unique in compiled code (ops/dynamic_length.py): values whose length is known only at
run time. One compile serves every mask; the result handed back has the true length; elementwise
ops, casts and reductions on it equal NumPy's on the selection; anything else raises
RuntimeError at the user's line; gradients equal central finite differences in both modes."""
from __future__ import annotations

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops

RNG = np.random.default_rng(7)
X = RNG.standard_normal((5, 6)).astype(np.float32)


def _stats(x, m):
    y = ops.masked_select(x, m)
    z = ops.tanh(y) * 3 + 1
    return y, z, ops.sum(z), y.mean(), y.max(), y.min(), ops.prod(y), (y > 0.5).all(), y.astype(ms.int32)


STATS = ms.jit(_stats)


def _numpy_stats(x, m):
    y = x[np.broadcast_to(m, x.shape)]
    z = np.tanh(y) * 3 + 1
    return y, z, z.sum(), y.mean(), y.max(), y.min(), y.prod(), (y > 0.5).all(), y.astype(np.int32)


@pytest.mark.parametrize("mask", ["random", "all", "one", "row broadcast"])
def test_one_compile_returns_true_lengths_and_reductions(mask):
    masks = {"random": RNG.random((5, 6)) > 0.5, "all": np.ones((5, 6), bool),
             "one": np.eye(5, 6, dtype=bool) & (np.arange(6) == 3), "row broadcast": RNG.random(6) > 0.3}
    m = masks[mask]
    got = STATS(Tensor(X), Tensor(m))
    want = _numpy_stats(X, m)
    for g, w in zip(got, want):
        assert g.shape == np.shape(w)
        np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-5, atol=1e-6)


def test_an_empty_selection_sums_to_zero():
    f = ms.jit(lambda x: (ops.masked_select(x, x > 100), ops.sum(ops.masked_select(x, x > 100) + 1)))
    y, s = f(Tensor(X))
    assert y.shape == (0,) and y.dtype == ms.float32 and float(s.asnumpy()) == 0.0


def test_integer_and_bool_inputs():
    k = RNG.integers(-5, 5, (4, 4)).astype(np.int32)
    y, mean, flags = ms.jit(lambda k: (ops.masked_select(k, k > 0), ops.masked_select(k, k > 0).mean(),
                                       ops.masked_select(k > 2, k > 0)))(Tensor(k))
    np.testing.assert_array_equal(y.asnumpy(), k[k > 0])
    assert int(mean.asnumpy()) == int(np.trunc(k[k > 0].mean()))
    np.testing.assert_array_equal(flags.asnumpy(), (k > 2)[k > 0])


def _reshape(x):
    return ops.masked_select(x, x > 0).reshape(1, -1)


def _matmul(x):
    y = ops.masked_select(x, x > 0)
    return ops.matmul(y, y)


def _two_lengths(x):
    return ops.masked_select(x, x > 0) + ops.masked_select(x, x < 1)


def _with_a_vector(x):
    return ops.masked_select(x, x > 0) + x.reshape(-1)     # as long as the bound: checked when run


def test_reshape_with_minus_one_takes_the_bound_and_checks_the_count_when_run():
    """(1, -1) stands for (1, bound): right when every element is selected, else a RuntimeError
    from the running program naming the user's line (it was refused when compiling)."""
    f = ms.jit(_reshape)
    np.testing.assert_array_equal(f(Tensor(np.abs(X) + 1)).asnumpy(), (np.abs(X) + 1).reshape(1, -1))
    with pytest.raises(RuntimeError, match=r"For 'Reshape', the input's length is known only at run time \(at most "
                                           r"30\): it must be 30 .*test_dynamic_length.py:\d+"):
        f(Tensor(X)).asnumpy()


def test_a_tensor_of_k_rows_takes_k_rows_and_checks_the_count_when_run():
    """MindSpore's dynamic shapes meet a static operand when the kernel runs: the count must equal
    its rows (fix33; it was refused when compiling)."""
    f = ms.jit(_with_a_vector)
    pos = np.abs(X) + 1
    np.testing.assert_array_equal(f(Tensor(pos)).asnumpy(), 2 * pos.reshape(-1))
    with pytest.raises(RuntimeError, match=r"For 'Add', the input's length is known only at run time \(at most "
                                           r"30\): it must be 30 .*test_dynamic_length.py:\d+"):
        f(Tensor(X)).asnumpy()


@pytest.mark.parametrize("fn, op", [(_matmul, "MatMul"), (_two_lengths, "Add")])
def test_other_ops_raise_runtime_error_at_the_users_line(fn, op):
    with pytest.raises(RuntimeError, match=rf"test_dynamic_length.py:\d+.*For '{op}', the input's length is known "
                                            "only at run time"):
        ms.jit(fn)(Tensor(X))


def _loss(x, m):
    y = ops.masked_select(x, m)
    return ops.sum(ops.sin(y) * y) + y.max() * 0.5


def _finite_difference(x, m, eps=1e-6):
    def f(v):
        y = v[m]
        return (np.sin(y) * y).sum() + y.max() * 0.5
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


@pytest.mark.parametrize("mode", ["eager", "compiled"])
def test_gradient_is_g_scattered_to_the_mask(mode):
    x = RNG.standard_normal((3, 4))
    m = RNG.random((3, 4)) > 0.4
    grad = ms.grad(_loss)
    if mode == "compiled":
        grad = ms.jit(grad)
    got = grad(Tensor(x), Tensor(m)).asnumpy()
    np.testing.assert_allclose(got, _finite_difference(x, m), rtol=1e-6, atol=1e-7)
    assert (got[~m] == 0).all()


def _first_appearance(k):
    _, first, inverse = np.unique(k.reshape(-1), return_index=True, return_inverse=True)
    rank = np.empty(first.size, np.int64)
    rank[np.argsort(first)] = np.arange(first.size)
    return k.reshape(-1)[np.sort(first)], rank[inverse.reshape(-1)].reshape(k.shape)


def test_unique_in_graph_orders_values_by_first_appearance():
    f = ms.jit(lambda k: ops.unique(k) + (ops.Unique()(k.reshape(-1))[0].sum(),))
    for seed in (0, 1):
        k = np.random.default_rng(seed).integers(0, 40, (10, 20)).astype(np.int32)
        values, idx, total = f(Tensor(k))
        want_values, want_idx = _first_appearance(k)
        np.testing.assert_array_equal(values.asnumpy(), want_values)
        np.testing.assert_array_equal(idx.asnumpy(), want_idx)
        assert idx.dtype == ms.int32 and int(total.asnumpy()) == int(want_values.sum())


def test_unique_primitive_needs_a_vector():
    with pytest.raises(RuntimeError, match="Rank of Unique's input must be 1"):
        ms.jit(lambda k: ops.Unique()(k))(Tensor(np.zeros((2, 2), np.int32)))
