"""What the conformance table (tests/conformance/cases_prim34b.py) cannot check for the Primitives of
src/pycompile/ops/entries/prim34b.py and prim34b_random.py, against NumPy: ComputeAccidentalHits (the
wheel has no CPU kernel for it), Eig's eigenpairs on matrices whose eigenvalues share a modulus (the
wheel's order among them is its solver's own), the parameters of the random distributions (the
wheel's kernel cache reuses LogNormalReverse's first mean / std, so its records cannot show them),
and the value-depend inputs in compiled code."""
from __future__ import annotations

import math

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops

MODES = ["pynative", "graph"]


def _run(fn, mode):
    return ms.jit(fn) if mode == "graph" else fn


def _hits_reference(true_classes, sampled):
    rows, ids = [], []
    for i, row in enumerate(true_classes):
        for c in row:
            for j, s in enumerate(sampled):
                if s == c:
                    rows.append(i)
                    ids.append(j)
    return np.array(rows, np.int32), np.array(ids, np.int64)


@pytest.mark.parametrize("mode", MODES)
def test_compute_accidental_hits_against_numpy(mode):
    tc = np.array([[1, 2], [0, 4], [3, 3], [7, 1]], np.int64)
    sc = np.array([0, 1, 2, 3, 4, 1, 9], np.int64)
    run = _run(lambda t, s: ops.ComputeAccidentalHits(2)(t, s), mode)
    idx, ids, w = run(Tensor(tc), Tensor(sc))
    want_rows, want_ids = _hits_reference(tc, sc)
    assert idx.dtype == ms.int32 and ids.dtype == ms.int64 and w.dtype == ms.float32
    np.testing.assert_array_equal(idx.asnumpy(), want_rows)
    np.testing.assert_array_equal(ids.asnumpy(), want_ids)
    np.testing.assert_array_equal(w.asnumpy(), np.full(len(want_rows), -np.finfo(np.float32).max, np.float32))
    # the documented example
    idx, ids, _ = ops.ComputeAccidentalHits(2)(Tensor(tc[:3]), Tensor(sc[:5]))
    assert idx.asnumpy().tolist() == [0, 0, 1, 1, 2, 2] and ids.asnumpy().tolist() == [1, 2, 0, 4, 3, 3]
    # no hit: empty outputs
    idx, ids, w = ops.ComputeAccidentalHits(1)(Tensor(np.array([[5], [6]], np.int64)), Tensor(sc))
    assert idx.shape == (0,) and ids.shape == (0,) and w.shape == (0,)


def test_compute_accidental_hits_checks():
    with pytest.raises(ValueError, match="num_true"):
        ops.ComputeAccidentalHits(3)(Tensor(np.zeros((2, 2), np.int64)), Tensor(np.zeros(3, np.int64)))
    with pytest.raises(TypeError):
        ops.ComputeAccidentalHits(2)(Tensor(np.zeros((2, 2), np.int32)), Tensor(np.zeros(3, np.int64)))
    with pytest.raises(ValueError, match="must >= 1"):
        ops.ComputeAccidentalHits(0)


@pytest.mark.parametrize("mode", MODES)
def test_eig_pairs_and_order(mode):
    rng = np.random.default_rng(7)
    a = rng.standard_normal((2, 5, 5))
    run = _run(lambda x: ops.eig(x), mode)
    w, v = run(Tensor(a))
    w, v = w.asnumpy(), v.asnumpy()
    assert w.dtype == np.complex128 and v.dtype == np.complex128
    for k in range(2):
        np.testing.assert_allclose(a[k] @ v[k], v[k] * w[k][None, :], atol=1e-10)
        np.testing.assert_allclose(np.linalg.norm(v[k], axis=0), 1.0, rtol=1e-12)
        assert np.all(np.diff(np.abs(w[k])) >= -1e-12)                   # ascending modulus
        ref = np.linalg.eigvals(a[k])
        assert np.abs(w[k][:, None] - ref[None, :]).min(1).max() < 1e-10       # each one of NumPy's
        assert np.abs(w[k][:, None] - ref[None, :]).min(0).max() < 1e-10       # and every one of them
    w32 = _run(lambda x: ops.eigvals(x), mode)(Tensor(a[0].astype(np.float32)))
    assert w32.dtype == ms.complex64 and w32.shape == (5,)


@pytest.mark.parametrize("mode", MODES)
def test_matrix_solve_ls_against_numpy(mode):
    rng = np.random.default_rng(1)
    for m, n in ((6, 3), (3, 6), (4, 4)):
        a, b = rng.standard_normal((2, m, n)), rng.standard_normal((2, m, 2))
        l2 = 0.7
        run = _run(lambda x, y, z: (ops.MatrixSolveLs()(x, y, z), ops.MatrixSolveLs(fast=False)(x, y, z)), mode)
        fast, slow = run(Tensor(a), Tensor(b), Tensor(np.array(l2)))
        for k in range(2):
            if m >= n:
                want = np.linalg.solve(a[k].T @ a[k] + l2 * np.eye(n), a[k].T @ b[k])
            else:
                want = a[k].T @ np.linalg.solve(a[k] @ a[k].T + l2 * np.eye(m), b[k])
            np.testing.assert_allclose(fast.asnumpy()[k], want, rtol=1e-10, atol=1e-12)
            np.testing.assert_allclose(slow.asnumpy()[k], np.linalg.lstsq(a[k], b[k], rcond=None)[0], rtol=1e-9,
                                       atol=1e-12)


def _betainc_integer(a, b, x):
    """I_x(a, b) for integer a, b: P(Binomial(a + b - 1, x) >= a)."""
    n = a + b - 1
    return sum(math.comb(n, j) * x ** j * (1 - x) ** (n - j) for j in range(a, n + 1))


@pytest.mark.parametrize("mode", MODES)
def test_betainc_against_the_binomial_sum(mode):
    rng = np.random.default_rng(2)
    a = rng.integers(1, 40, 64).astype(np.float64)
    b = rng.integers(1, 40, 64).astype(np.float64)
    x = rng.random(64)
    got = _run(lambda p, q, y: ops.Betainc()(p, q, y), mode)(Tensor(a), Tensor(b), Tensor(x)).asnumpy()
    want = np.array([_betainc_integer(int(p), int(q), y) for p, q, y in zip(a, b, x)])
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-13)
    got32 = ops.Betainc()(Tensor(a.astype(np.float32)), Tensor(b.astype(np.float32)),
                          Tensor(x.astype(np.float32))).asnumpy()
    want32 = np.array([_betainc_integer(int(p), int(q), float(np.float32(y))) for p, q, y in zip(a, b, x)])
    np.testing.assert_allclose(got32, want32, rtol=2e-6, atol=1e-7)


@pytest.mark.parametrize("mode", MODES)
def test_check_numerics_raises_when_the_program_runs(mode):
    run = _run(lambda x: ops.CheckNumerics()(x) + 1, mode)
    np.testing.assert_array_equal(run(Tensor(np.array([1.0, 2.0], np.float32))).asnumpy(), [2.0, 3.0])
    with pytest.raises(RuntimeError, match="Tensor had NaN values"):
        run(Tensor(np.array([1.0, np.nan, np.inf], np.float32))).asnumpy()
    with pytest.raises(RuntimeError, match="Tensor had Inf values"):
        run(Tensor(np.array([-np.inf, np.nan, 0.0], np.float32))).asnumpy()


def test_segment_ids_known_only_at_run_time_are_refused_in_graph_code():
    def fn(x, ids):
        return ops.SegmentSum()(x, ids * 1)          # a value computed in the graph: not known when it compiles
    with pytest.raises(ValueError, match="'segment_ids' sets the output's shape"):
        ms.jit(fn)(Tensor(np.ones((3, 2), np.float32)), Tensor(np.array([0, 1, 1], np.int32)))


def test_log_normal_reverse_parameters():
    for dt, mean, std in ((np.float32, 1.0, 2.0), (np.float64, -1.0, 0.25), (np.float16, 0.0, 0.5)):
        out = ops.LogNormalReverse(mean, std)(Tensor(np.zeros((400, 100), dt)))
        assert out.asnumpy().dtype == dt
        z = np.log(out.asnumpy().astype(np.float64))
        assert abs(z.mean() - mean) < 0.03 * max(std, 1.0) and abs(z.std() - std) < 0.03 * std + 2e-3


def test_cauchy_quartiles():
    x = ops.Cauchy([200000], median=2.0, sigma=0.5)().asnumpy().astype(np.float64)
    q1, q2, q3 = np.percentile(x, [25, 50, 75])
    assert abs(q2 - 2.0) < 0.01 and abs(q1 - 1.5) < 0.01 and abs(q3 - 2.5) < 0.01


def test_non_deterministic_ints_cover_the_range():
    for dt, lo, hi in ((ms.int64, -2 ** 63, 2 ** 63), (ms.int32, -2 ** 31, 2 ** 31), (ms.uint32, 0, 2 ** 32),
                       (ms.uint64, 0, 2 ** 64)):
        v = ops.NonDeterministicInts(dtype=dt)(Tensor(np.array([100, 100], np.int64))).asnumpy()
        f = v.astype(np.float64)
        span = float(hi) - float(lo)
        # uniform over [lo, hi): the mean near the middle, each quarter of the range about a quarter of the draws
        assert abs(f.mean() - (float(lo) + span / 2)) < 0.03 * span
        quarters = np.histogram(f, bins=4, range=(float(lo), float(hi)))[0] / f.size
        assert np.all(np.abs(quarters - 0.25) < 0.03)


@pytest.mark.parametrize("mode", MODES)
def test_bernoulli_p_tensor_and_dtypes(mode):
    p = np.linspace(0.0, 1.0, 11, dtype=np.float32)
    run = _run(lambda x, q: ops.Bernoulli(seed=4)(x, q), mode)
    x = Tensor(np.zeros((20000, 11), np.int8))
    out = run(x, Tensor(np.broadcast_to(p, (20000, 11)).copy())).asnumpy()
    assert out.dtype == np.int8 and set(np.unique(out)) <= {0, 1}
    np.testing.assert_allclose(out.mean(0), p, atol=0.015)
    with pytest.raises(ValueError, match="p should be in"):
        ops.Bernoulli()(Tensor(np.zeros(3, np.float32)), -0.1)


def test_random_poisson_primitive_means():
    rate = np.array([0.5, 4.0, 30.0], np.float32)
    out = ops.RandomPoisson(seed=3, seed2=1)(Tensor(np.array([20000], np.int32)), Tensor(rate))
    assert out.dtype == ms.int64 and out.shape == (20000, 3)
    np.testing.assert_allclose(out.asnumpy().mean(0), rate, rtol=0.03)
    np.testing.assert_allclose(out.asnumpy().var(0), rate, rtol=0.08)
