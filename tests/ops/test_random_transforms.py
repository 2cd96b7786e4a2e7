"""Distributions of standard_laplace, laplace, rrelu and gumbel_softmax (their invariants and
errors are recorded from the wheel in tests/conformance/cases_random_transforms.py): moments and
CDF against the closed forms with 20,000 draws (tolerances far outside sampling noise: > 6
standard errors), seeded reproducibility, compiled == PyNative for the same state, and the
straight-through gradient of hard gumbel_softmax."""
from __future__ import annotations

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops

N = 20000


def test_standard_laplace_moments_and_cdf():
    s = ops.standard_laplace((N,)).asnumpy().astype(np.float64)
    assert abs(s.mean()) < 6 * np.sqrt(2 / N)
    assert abs(s.var() - 2.0) < 0.15
    for t in (-2.0, -0.5, 0.0, 0.7, 1.5):           # Laplace(0, 1) CDF
        want = 0.5 * np.exp(t) if t < 0 else 1 - 0.5 * np.exp(-t)
        assert abs((s <= t).mean() - want) < 6 * np.sqrt(want * (1 - want) / N), t


def test_laplace_location_and_scale_broadcast():
    mean = Tensor(np.array([0.0, 10.0, -5.0], np.float32))
    out = ops.laplace((N // 3, 3), mean, Tensor(np.float32(2.0))).asnumpy().astype(np.float64)
    np.testing.assert_allclose(np.median(out, 0), [0.0, 10.0, -5.0], atol=0.12)
    np.testing.assert_allclose(np.abs(out - [0.0, 10.0, -5.0]).mean(0), 2.0, rtol=0.06)   # E|X - mu| = b


def test_rrelu_slopes_are_uniform_on_the_interval():
    x = -np.ones(N, np.float32)
    slopes = -ops.rrelu(Tensor(x), 0.1, 0.4).asnumpy().astype(np.float64)
    assert slopes.min() >= 0.1 and slopes.max() <= 0.4
    assert abs(slopes.mean() - 0.25) < 6 * 0.3 / np.sqrt(12 * N)
    assert abs(slopes.var() - 0.09 / 12) < 0.0006
    pos = ops.rrelu(Tensor(np.arange(1, 5, dtype=np.float32))).asnumpy()
    np.testing.assert_array_equal(pos, [1, 2, 3, 4])


def test_gumbel_softmax_hard_picks_categories_with_softmax_probabilities():
    logits = np.log(np.array([0.1, 0.6, 0.3], np.float32))
    h = ops.gumbel_softmax(Tensor(np.tile(logits, (N, 1))), 1.0, True).asnumpy()
    assert set(np.unique(h)) <= {0.0, 1.0} and (h.sum(1) == 1).all()
    freq = h.mean(0)
    np.testing.assert_allclose(freq, [0.1, 0.6, 0.3], atol=6 * np.sqrt(0.25 / N))


def test_seeded_draws_repeat_and_compiled_equals_pynative():
    ms.set_seed(5)
    a = ops.standard_laplace((3, 4)).asnumpy()
    ms.set_seed(5)
    b = ops.standard_laplace((3, 4)).asnumpy()
    np.testing.assert_array_equal(a, b)

    def f(x):
        return ops.rrelu(x), ops.gumbel_softmax(x), ops.standard_laplace((2, 3))
    x = Tensor(np.array([[-1.0, 2.0, -3.0], [0.5, -0.25, 1.0]], np.float32))
    ms.set_seed(9)
    eager = [t.asnumpy() for t in f(x)]
    ms.set_seed(9)
    compiled = [t.asnumpy() for t in ms.jit(f)(x)]
    for e, c in zip(eager, compiled):
        np.testing.assert_allclose(c, e, rtol=1e-6)


@pytest.mark.parametrize("compiled", [False, True])
def test_hard_gumbel_softmax_gradient_is_the_soft_one(compiled):
    x = Tensor(np.array([[0.2, -0.4, 1.0]], np.float32))
    w = Tensor(np.array([[1.0, 2.0, -1.0]], np.float32))

    def hard(x):
        return (ops.gumbel_softmax(x, 0.7, True) * w).sum()

    def soft(x):
        return (ops.gumbel_softmax(x, 0.7, False) * w).sum()
    gh, gs = ms.grad(hard), ms.grad(soft)
    if compiled:
        gh, gs = ms.jit(gh), ms.jit(gs)
    ms.set_seed(3)
    a = gh(x).asnumpy()
    ms.set_seed(3)
    b = gs(x).asnumpy()
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)
    assert np.abs(a).sum() > 0
