"""Winograd F(2x2, 3x3) (backend/c/ops/winograd.py), the lowering of float32 3x3 stride-1
convolutions with >= 16 input and output channels: against a float64 NumPy convolution on many
shapes (odd sizes, pads 0 / 1 / uneven, batch 1, channels at the threshold, each epilogue),
exactly on small integers, the same values on 1, 2 and 3 threads, PYCOMPILE_WINOGRAD=0 falls back
to the direct kernel, the input gradient runs it (Conv2DBackpropInput as a convolution) and the
filter gradient does not, and PyNative on
the compiled kernels gives the compiled values bit for bit.

Error bound: F(2x2, 3x3) sums 16 C products per output where the direct kernel sums 9 C, after
transforms of 2-3 additions each way; on uniform(-1, 1) data both stay within 1e-6 of the
largest output (measured 1.5-3e-7 here, the direct kernel 2-9e-7), so the tests allow 2e-6."""
import re

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops
from pycompile._rt import ffi, lib
from pycompile.backend.c.ops.conv import PARALLEL_FLOPS, Geometry
from pycompile.backend.c.ops import winograd
from pycompile.backend.c.ops.winograd import MIN_CHANNELS, MIN_TILES, MIN_WIDTH
from pycompile.common import context
from pycompile.common import dtype as mstype
from pycompile.ops import prims as P
from eager_install import kernels_installed

F32 = np.float32
REL = 2e-6


@pytest.fixture(autouse=True, scope="module")
def _small_images_too():
    """Small shapes (fast to check) run on Winograd here: its size thresholds are for speed. The
    kernels are checked in 64-byte vectors (on a machine without AVX-512 the C compiler lowers
    them: slow, the same values); the 32-byte form gives the same bits (below)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(winograd, "MIN_WIDTH", 2)
        mp.setattr(winograd, "MIN_TILES", 1)
        mp.setenv("PYCOMPILE_VECTOR_BYTES", "64")
        yield


def _a(seed, *shape):
    return np.random.default_rng(seed).uniform(-1, 1, shape).astype(F32)


def _ref(x, w, pads):
    """float64 3x3 convolution, stride 1; pads (top, bottom, left, right)."""
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), pads[:2], pads[2:]))
    oh, ow = xp.shape[2] - 2, xp.shape[3] - 2
    w = w.astype(np.float64)
    return sum(np.einsum("nchw,kc->nkhw", xp[:, :, r:r + oh, s:s + ow], w[:, :, r, s])
               for r in range(3) for s in range(3))


def _close(got, want, what):
    err = np.abs(got.astype(np.float64) - want).max() / np.abs(want).max()
    assert err <= REL, f"{what}: max |winograd - float64| / max |float64| = {err:.2e}"


# (x's shape, K, pads): batch 1, channels at the threshold, odd / even / uneven sizes, pads 0 / 1 /
# uneven, an output of 2 x 3 (two tiles, the second half out); each convolution is followed by
# one of the epilogues below (shape i: epilogue i)
SHAPES = [
    ((1, 16, 5, 5), 16, (1, 1, 1, 1)),
    ((2, 16, 4, 5), 24, (0, 0, 0, 0)),
    ((1, 32, 11, 6), 20, (1, 0, 0, 1)),
    ((3, 17, 13, 12), 33, (1, 1, 1, 1)),
    ((2, 24, 9, 10), 16, (1, 1, 1, 1)),
    ((2, 40, 3, 31), 48, (1, 1, 0, 2)),
]


def _inputs(seed=0, integers=False):
    out = []
    for i, (xs, k, _) in enumerate(SHAPES):
        x, w = _a(seed + 2 * i, *xs), _a(seed + 2 * i + 1, k, xs[1], 3, 3)
        if integers:
            x, w = np.round(x * 3), np.round(w * 3)
        out += [x, w]
    return out


def _extras(i, k):
    rng = np.random.default_rng(100 + i)
    return (rng.uniform(0.5, 1.5, (1, k, 1, 1)).astype(F32), rng.uniform(-0.2, 0.2, (1, k, 1, 1)).astype(F32))


def _conv(x, w, pads):
    return ops.apply(P.Conv2D, [x, w], dict(stride=(1, 1), dilation=(1, 1), pads=pads, group=1))


def _epilogue(i, y, res, s, b):
    """No epilogue, bias, bias + ReLU, BatchNorm scale / shift (the scale folded by the direct
    kernel), + ReLU, a residual add + ReLU, ReLU6."""
    kind = i % 6
    if kind == 0:
        return y
    if kind == 1:
        return y + b
    if kind == 2:
        return ops.relu(y + b)
    if kind == 3:
        return ops.relu(y * s + b)
    if kind == 4:
        return ops.relu(y * s + b + res)
    return ops.relu6(y - b)


def _np_epilogue(i, y, res, s, b):
    """The same epilogue in float64, run eagerly (PyNative runs the NumPy references in the suite)."""
    return _epilogue(i, Tensor(y), res, Tensor(s), Tensor(b)).asnumpy()


def many(*xw):
    outs = []
    for i, (_, k, pads) in enumerate(SHAPES):
        x, w = xw[2 * i], xw[2 * i + 1]
        y = _conv(x, w, pads)
        s, b = (Tensor(a) for a in _extras(i, k))
        res = Tensor(np.full(y.shape, 0.25, F32))
        outs.append(_epilogue(i, y, res, s, b))
    return tuple(outs)


MANY = ms.jit(many)


def test_the_shapes_run_on_winograd_and_match_float64():
    args = [Tensor(a) for a in _inputs()]
    outs = [o.asnumpy() for o in MANY(*args)]
    report = ms.inspect(MANY, *args)
    assert report.c_source.count("_wt(") >= 2 * len(SHAPES), "a shape did not run on Winograd"
    for i, (xs, k, pads) in enumerate(SHAPES):
        x, w = args[2 * i].asnumpy(), args[2 * i + 1].asnumpy()
        y = _ref(x, w, pads)
        s, b = (v.astype(np.float64) for v in _extras(i, k))
        want = _np_epilogue(i, y, 0.25, s, b)
        assert outs[i].shape == want.shape
        _close(outs[i], want, f"shape {i} {xs} -> {k}, pads {pads}, epilogue {i % 6}")


def test_32_byte_vectors_give_the_same_bits(monkeypatch):
    """On AVX2 (32-byte vectors) a vector holds 8 tiles and the register tile is 4 channels x 3
    vectors; each output's sums are the same operations in the same order as with 16 tiles a
    vector: the same bits on every shape and epilogue."""
    args = [Tensor(a) for a in _inputs()]
    wide = [o.asnumpy() for o in MANY(*args)]
    monkeypatch.setenv("PYCOMPILE_VECTOR_BYTES", "32")
    narrow = ms.jit(many)
    c = ms.inspect(narrow, *args).c_source
    assert c.count("_wt(") >= 2 * len(SHAPES) and "pc_v8f" in c and "pc_v16f" not in c
    for i, (a, b) in enumerate(zip(wide, (o.asnumpy() for o in narrow(*args)))):
        np.testing.assert_array_equal(b, a, err_msg=f"shape {i}")


def test_small_integers_are_exact():
    """The transforms use 0, +-1 and 1/2: on small integers every step is exact (the outputs
    without an epilogue; the same compiled module)."""
    arrays = _inputs(seed=7, integers=True)
    outs = MANY(*[Tensor(a) for a in arrays])
    for i, (_, _, pads) in enumerate(SHAPES):
        if i % 6 == 0:
            np.testing.assert_array_equal(outs[i].asnumpy(), _ref(arrays[2 * i], arrays[2 * i + 1], pads),
                                          err_msg=f"shape {i}")


def _one(x, w):
    return ops.conv2d(x, w, pad_mode="pad", padding=1)


def test_the_knob_and_the_thresholds_keep_the_direct_kernel(monkeypatch):
    x, w = _a(1, 2, 16, 10, 10), _a(2, 16, 16, 3, 3)
    monkeypatch.setenv("PYCOMPILE_WINOGRAD", "0")
    f = ms.jit(_one)
    got = f(Tensor(x), Tensor(w)).asnumpy()
    assert "_wt(" not in ms.inspect(f, Tensor(x), Tensor(w)).c_source
    _close(got, _ref(x, w, (1, 1, 1, 1)), "direct kernel")
    monkeypatch.delenv("PYCOMPILE_WINOGRAD")
    attrs = {"stride": (1, 1), "dilation": (1, 1), "pads": (1, 1, 1, 1), "group": 1}

    def runs(xs, ws, dt=mstype.float32):
        return winograd.applies(Geometry(xs, ws, attrs), dt)
    assert runs((2, 16, 10, 10), (16, 16, 3, 3))                 # the size thresholds lowered here
    assert not runs((2, 16, 10, 10), (16, 16, 3, 3), mstype.float64)
    assert not runs((2, MIN_CHANNELS - 1, 10, 10), (16, MIN_CHANNELS - 1, 3, 3))
    assert not runs((2, 16, 10, 10), (MIN_CHANNELS - 1, 16, 3, 3))
    # the size thresholds: 10 x 10 outputs are too narrow, one 28 x 28 image too few tiles
    monkeypatch.setattr(winograd, "MIN_WIDTH", MIN_WIDTH)
    monkeypatch.setattr(winograd, "MIN_TILES", MIN_TILES)
    assert not runs((2, 16, 10, 10), (16, 16, 3, 3))
    assert not runs((1, 64, 28, 28), (64, 64, 3, 3))
    assert runs((8, 64, 56, 56), (64, 64, 3, 3))
    monkeypatch.setenv("PYCOMPILE_VECTOR_BYTES", "32")       # AVX2: 8 tiles a vector
    assert runs((8, 64, 56, 56), (64, 64, 3, 3))
    monkeypatch.setenv("PYCOMPILE_VECTOR_BYTES", "16")       # SSE: the direct kernel
    assert not runs((8, 64, 56, 56), (64, 64, 3, 3))


ONE = ms.jit(_one)


def test_new_weights_are_transformed_again():
    """The transformed weights are kept while the weights are unchanged: other values (another
    tensor, a Parameter's set_data, a write in place) are seen at the next call."""
    x, w1, w2 = _a(13, 4, 32, 32, 32), _a(14, 32, 32, 3, 3), _a(15, 32, 32, 3, 3)
    for w in (w1, w2, w1):
        _close(ONE(Tensor(x), Tensor(w)).asnumpy(), _ref(x, w, (1, 1, 1, 1)), "new weights")
    p = ms.Parameter(Tensor(w1), name="w")
    _close(ONE(Tensor(x), p).asnumpy(), _ref(x, w1, (1, 1, 1, 1)), "Parameter")
    p.set_data(Tensor(w2))
    _close(ONE(Tensor(x), p).asnumpy(), _ref(x, w2, (1, 1, 1, 1)), "after set_data")
    p[0, 0, 1, 1] = 5.0
    w3 = w2.copy()
    w3[0, 0, 1, 1] = 5.0
    _close(ONE(Tensor(x), p).asnumpy(), _ref(x, w3, (1, 1, 1, 1)), "after an item assignment")


def _stats():
    out = ffi.new("long[2]")
    lib.pc_pool_stats(out, 2)
    return list(out)


def test_the_same_values_on_1_2_3_8_16_threads():
    x, w = _a(5, 4, 32, 32, 32), _a(6, 32, 32, 3, 3)
    assert 2 * 4 * 32 * 32 * 32 * 32 * 16 / 2.25 > 3 * PARALLEL_FLOPS     # Winograd's FLOPs, above the split
    f = ONE
    results, split = {}, {}
    try:
        for n in (1, 2, 3, 8, 16):       # 8 and 16: blocks of tiles halved (fewer than 8 a thread)
            lib.pc_set_num_threads(n)
            before = _stats()
            results[n] = f(Tensor(x), Tensor(w)).asnumpy()
            after = _stats()
            split[n] = after[0] > before[0] or after[1] > before[1]
    finally:
        lib.pc_set_num_threads(context.num_threads())
    assert split == {1: False, 2: True, 3: True, 8: True, 16: True}
    _close(results[1], _ref(x, w, (1, 1, 1, 1)), "1 thread")
    for n in (2, 3, 8, 16):       # each output computed by one thread, in the same order
        np.testing.assert_array_equal(results[n], results[1], err_msg=f"{n} threads")


def _loss(x, w, gy):
    return (ops.conv2d(x, w, pad_mode="pad", padding=1) * gy).sum()


def test_input_gradient_runs_winograd_and_the_filter_gradient_does_not():
    """dX of a stride-1 3x3 layer is a 3x3 convolution of dY with the flipped, transposed kernel:
    Conv2DBackpropInput runs it on Winograd as the forward layers do (W10's training step 0.665
    -> 0.583 s); dW (Conv2DBackpropFilter) stays on the tile kernel. Both equal PyNative's (NumPy)
    gradient."""
    args = [Tensor(a) for a in (_a(8, 2, 16, 9, 9), _a(9, 16, 16, 3, 3), _a(10, 2, 16, 9, 9))]
    g = ms.jit(ms.grad(_loss, grad_position=(0, 1)))
    got = g(*args)
    src = ms.inspect(g, *args).c_source
    assert re.search(r"void cb_\w+_wt\(", src), "dX is not on Winograd"
    assert not re.search(r"void cf_\w+_wt\(", src)
    want = ms.grad(_loss, grad_position=(0, 1))(*args)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-5, atol=1e-5)


@pytest.fixture
def eager_kernels():
    """PyNative on the compiled kernels (the suite runs it on NumPy: tests/conftest.py)."""
    with kernels_installed():
        yield


def test_pynative_runs_the_same_winograd_kernel(eager_kernels):
    x, w = _a(16, 4, 32, 32, 32), _a(17, 32, 32, 3, 3)
    got = _one(Tensor(x), Tensor(w)).asnumpy()
    np.testing.assert_array_equal(got, ONE(Tensor(x), Tensor(w)).asnumpy())
    _close(got, _ref(x, w, (1, 1, 1, 1)), "PyNative")
