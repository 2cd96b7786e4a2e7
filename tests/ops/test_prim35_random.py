"""What the conformance table (tests/conformance/cases_prim35r.py) cannot check for
src/pycompile/ops/entries/prim35_random.py, in PyNative and in graph mode (`ms.jit`): the values of
the ops MindSpore 2.10's CPU build has no kernel for (Gamma / ops.gamma, Poisson / ops.poisson,
Randperm, ops.bernoulli_ext, DropoutGenMask, DropoutDoMask), as distribution statistics and exact
NumPy references, and the seeds' reproducibility."""
from __future__ import annotations

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops

MODES = ["pynative", "graph"]


def _run(fn, mode):
    return ms.jit(fn) if mode == "graph" else fn


# ---- Gamma / gamma -----------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
def test_gamma_shape_dtype_and_moments(mode):
    alpha = np.array([[0.5, 2.0, 7.0]], np.float32)
    beta = np.array([[2.0], [0.5]], np.float32)            # inverse scale: mean alpha / beta
    run = _run(lambda a, b: ops.Gamma(seed=3, seed2=1)((4000, 1, 1), a, b), mode)
    x = run(Tensor(alpha), Tensor(beta)).asnumpy()
    assert x.shape == (4000, 2, 3) and x.dtype == np.float32
    assert (x > 0).all()
    mean = alpha / beta
    var = alpha / beta ** 2
    np.testing.assert_allclose(x.mean(0), mean, rtol=0.08)
    np.testing.assert_allclose(x.var(0), var, rtol=0.2)


@pytest.mark.parametrize("mode", MODES)
def test_gamma_functional_seeded_repeats(mode):
    # a seeded op draws from its own stream: two ops built alike give the same numbers (in graph code
    # the compiled op keeps its stream across calls, so two compiled functions are compared)
    a, b = Tensor(np.array([1.5, 3.0], np.float32)), Tensor(np.array([1.0], np.float32))
    first = _run(lambda a, b: ops.gamma((5, 2), a, b, seed=7), mode)(a, b).asnumpy()
    second = _run(lambda a, b: ops.gamma((5, 2), a, b, seed=7), mode)(a, b).asnumpy()
    other = _run(lambda a, b: ops.gamma((5, 2), a, b, seed=8), mode)(a, b).asnumpy()
    assert first.shape == (5, 2) and first.dtype == np.float32
    np.testing.assert_array_equal(first, second)
    assert not np.array_equal(first, other)


def test_gamma_argument_errors():
    a, b = Tensor(np.array([1.0, 3.0], np.float32)), Tensor(np.array([1.0], np.float32))
    with pytest.raises(ValueError):
        ops.Gamma()(None, a, b)
    with pytest.raises(TypeError):
        ops.Gamma()([3, 2], a, b)
    with pytest.raises(ValueError):
        ops.Gamma()((3, 4), a, b)
    with pytest.raises(ValueError):
        ops.Gamma(seed=-1)


# ---- Poisson / poisson -------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
def test_poisson_shape_dtype_and_moments(mode):
    mean = np.array([0.5, 4.0, 30.0], np.float32)
    run = _run(lambda m: ops.Poisson(seed=2)((5000, 1), m), mode)
    x = run(Tensor(mean)).asnumpy()
    assert x.shape == (5000, 3) and x.dtype == np.int32
    assert (x >= 0).all()
    np.testing.assert_allclose(x.mean(0), mean, rtol=0.06)
    np.testing.assert_allclose(x.var(0), mean, rtol=0.15)


@pytest.mark.parametrize("mode", MODES)
def test_poisson_functional(mode):
    run = _run(lambda m: ops.poisson((2, 3), m, seed=1), mode)
    x = run(Tensor(np.array([2.0], np.float32)))
    assert x.shape == (2, 3) and x.dtype == ms.int32


# ---- Randperm ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
def test_randperm_permutation_then_pad(mode):
    run = _run(lambda n: ops.Randperm(max_length=20, pad=-7, dtype=ms.int64)(n), mode)
    for n in (0, 1, 12, 20):
        y = run(Tensor(np.array([n], np.int32))).asnumpy()
        assert y.shape == (20,) and y.dtype == np.int64
        np.testing.assert_array_equal(np.sort(y[:n]), np.arange(n))
        np.testing.assert_array_equal(y[n:], np.full(20 - n, -7))


def test_randperm_default_dtype_and_range_error():
    y = ops.Randperm(max_length=5)(Tensor(np.array([5], np.int64)))
    assert y.dtype == ms.int32
    np.testing.assert_array_equal(np.sort(y.asnumpy()), np.arange(5))
    with pytest.raises(ValueError):
        ops.Randperm(max_length=5)(Tensor(np.array([7], np.int32)))


def test_randperm_is_shuffled():
    ms.set_seed(0)
    draws = np.stack([ops.Randperm(max_length=8)(Tensor(np.array([8], np.int32))).asnumpy() for _ in range(400)])
    # each value lands in each position about 1/8 of the time
    freq = np.stack([(draws == v).mean(0) for v in range(8)])
    assert np.abs(freq - 0.125).max() < 0.1


# ---- RandpermV2 (values recorded in the table are shapes and sets; here: the seed repeats) -----------
@pytest.mark.parametrize("mode", MODES)
def test_randperm_v2_seeded_repeats(mode):
    run = _run(lambda: ops.RandpermV2(seed=4, offset=1, dtype=ms.int32)(30), mode)
    a, b = run().asnumpy(), run().asnumpy()
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(np.sort(a), np.arange(30))


# ---- bernoulli_ext -----------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
def test_bernoulli_ext_probabilities(mode):
    p = np.tile(np.array([0.0, 0.2, 0.7, 1.0], np.float32), (4000, 1))
    y = _run(lambda t: ops.bernoulli_ext(t), mode)(Tensor(p)).asnumpy()
    assert y.shape == p.shape and y.dtype == np.float32
    assert set(np.unique(y)) <= {0.0, 1.0}
    np.testing.assert_allclose(y.mean(0), [0.0, 0.2, 0.7, 1.0], atol=0.03)


def test_bernoulli_ext_generator_and_errors():
    p = Tensor(np.full((50,), 0.5, np.float64))
    g1, g2 = ms.Generator().manual_seed(5), ms.Generator().manual_seed(5)
    a, b = ops.bernoulli_ext(p, generator=g1), ops.bernoulli_ext(p, generator=g2)
    assert a.dtype == ms.float64
    np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    with pytest.raises(TypeError):
        ops.bernoulli_ext(Tensor(np.array([1, 0], np.int32)))
    with pytest.raises(ValueError):
        ops.bernoulli_ext(Tensor(np.array([1.5, 0.0], np.float32)))


# ---- DropoutGenMask / DropoutDoMask ------------------------------------------------------------------
def _unpack(mask, count):
    """NumPy reference of the documented layout: bit b (least significant first) of byte j is element 8 j + b."""
    return np.unpackbits(mask, bitorder="little")[:count]


@pytest.mark.parametrize("mode", MODES)
def test_dropout_gen_mask_layout_and_rate(mode):
    run = _run(lambda k: ops.DropoutGenMask(3, 4)((30, 50), k), mode)
    m = run(Tensor(np.array(0.75, np.float32))).asnumpy()
    count = 1500
    assert m.dtype == np.uint8 and m.shape == (-(-count // 128) * 16,)     # 12 * 16 = 192 bytes
    bits = np.unpackbits(m, bitorder="little")
    assert not bits[count:].any()                   # the bits past the elements are clear
    assert abs(bits[:count].mean() - 0.75) < 0.04


@pytest.mark.parametrize("mode", MODES)
def test_dropout_do_mask_against_numpy(mode):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 7)).astype(np.float32)
    mask = rng.integers(0, 256, 16, dtype=np.uint8)
    y = _run(lambda a, m, k: ops.DropoutDoMask()(a, m, k), mode)(
        Tensor(x), Tensor(mask), Tensor(np.array(0.8, np.float32))).asnumpy()
    want = x * _unpack(mask, 21).reshape(3, 7) / np.float32(0.8)
    np.testing.assert_allclose(y, want, rtol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_gen_mask_then_do_mask(mode):
    def fn(x, k):
        return ops.DropoutDoMask()(x, ops.DropoutGenMask(1, 1)((4, 40), k), k)
    x = np.ones((4, 40), np.float16)
    y = _run(fn, mode)(Tensor(x), Tensor(np.array(0.5, np.float16))).asnumpy()
    assert y.dtype == np.float16
    assert set(np.unique(y)) <= {0.0, 2.0}
    assert 0.3 < (y == 2.0).mean() < 0.7


def test_dropout_mask_errors():
    with pytest.raises(RuntimeError):
        ops.DropoutGenMask()((2, -16), Tensor(np.array(0.5, np.float32)))
    with pytest.raises(TypeError):
        ops.DropoutGenMask()((2, 16), Tensor(np.array(0.5, np.float64)))
    with pytest.raises(ValueError):
        ops.DropoutDoMask()(Tensor(np.ones((20, 16), np.float32)), Tensor(np.zeros(4, np.uint8)),
                            Tensor(np.array(0.5, np.float32)))


# ---- fractional max pooling's gradient ---------------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("nd", [2, 3])
def test_fractional_max_pool_grad_scatters_to_argmax(mode, nd):
    # MindSpore's backward (FractionalMaxPoolGradWithFixedKsize) adds each output's gradient at its argmax
    rng = np.random.default_rng(1)
    shape = (2, 3, 9, 8) if nd == 2 else (2, 2, 7, 6, 8)
    x = rng.standard_normal(shape).astype(np.float32)
    s = rng.random((shape[0], shape[1], nd)).astype(np.float32)
    if nd == 2:
        prim = ops.FractionalMaxPoolWithFixedKsize((3, 2), (4, 5))
    else:
        prim = ops.FractionalMaxPool3DWithFixedKsize((2, 3, 2), (3, 2, 4))
    w = rng.standard_normal((shape[0], shape[1]) + ((4, 5) if nd == 2 else (3, 2, 4))).astype(np.float32)

    def loss(a, b):
        return (prim(a, b)[0] * Tensor(w)).sum()
    g = _run(ms.grad(loss), mode)(Tensor(x), Tensor(s)).asnumpy()
    idx = prim(Tensor(x), Tensor(s))[1].asnumpy().reshape(shape[0], shape[1], -1)
    want = np.zeros((shape[0], shape[1], int(np.prod(shape[2:]))), np.float32)
    for n in range(shape[0]):
        for c in range(shape[1]):
            np.add.at(want[n, c], idx[n, c], w[n, c].reshape(-1))
    np.testing.assert_allclose(g.reshape(want.shape), want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_fractional_max_pool3d_ndhwc_is_the_channel_last_layout(mode):
    # the documented meaning of data_format (the wheel's NDHWC differs: case p35r_fmp3d_ndhwc, oracle_bug)
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 5, 6, 7, 3)).astype(np.float32)          # N D H W C
    s = rng.random((2, 3, 3)).astype(np.float32)                          # N C 3
    last = _run(lambda a, b: ops.FractionalMaxPool3DWithFixedKsize(2, (2, 3, 3), "NDHWC")(a, b), mode)
    first = _run(lambda a, b: ops.FractionalMaxPool3DWithFixedKsize(2, (2, 3, 3))(a, b), mode)
    y, i = last(Tensor(x), Tensor(s))
    y2, i2 = first(Tensor(np.ascontiguousarray(x.transpose(0, 4, 1, 2, 3))), Tensor(s))
    assert y.shape == (2, 2, 3, 3, 3)
    np.testing.assert_array_equal(y.asnumpy(), y2.asnumpy().transpose(0, 2, 3, 4, 1))
    np.testing.assert_array_equal(i.asnumpy(), i2.asnumpy().transpose(0, 2, 3, 4, 1))
