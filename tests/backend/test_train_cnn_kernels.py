"""Two kernels of a CNN's training step that ran one element at a time (W10's step, ResNet-18's
stage 1 at batch 32: 1.25 -> 0.95 s on one core of the Zen 5 VM):

* MaxPool's gradient where padding clips the windows (ResNet's 3 x 3 / 2 stem pooling, pad 1):
  the window's first maximum as branch-free vector loops along each output row (13 % of the step
  as a walk with a branch per position);
* sums over axes that are not one run (BatchNorm's gradients: (0, 2, 3) of NCHW): runs of the
  trailing reduced axes in blocked float lanes, the outputs split over the pool (10 % of the step
  as one serial loop with a division per reduced axis for each element).

* the filter gradient of a convolution whose dY is too large for the caches (ResNet's 3 x 3
  layers: 25.7 MB, streamed again by each of the 192 register tiles: 43 % of the step): each
  thread walks the reduction in blocks of dY, running all its tiles over a block
  (backend/c/ops/conv_stream.py; 0.95 -> 0.69 s).

Values against NumPy references (the first maximum of each window, NaN winning; float64 sums),
the generated C's form, and the same bits at 1 and 2 threads."""
import re

import numpy as np
import pytest

import pycompile as ms
from pycompile import ops

from test_vectorized import _vectorized_lines


def _maxpool_grad_ref(x, g, k, s, p):
    """d(sum(maxpool(x) * g))/dx: each output's cotangent to its window's first maximum (a NaN
    wins), windows clipped by the padding."""
    n, c, h, w = x.shape
    dx = np.zeros_like(x)
    oh, ow = g.shape[2:]
    for a in range(n):
        for b in range(c):
            for i in range(oh):
                for j in range(ow):
                    best, at = None, None
                    for u in range(i * s - p, i * s - p + k):
                        for v in range(j * s - p, j * s - p + k):
                            if not (0 <= u < h and 0 <= v < w):
                                continue
                            val = x[a, b, u, v]
                            if best is None or val > best or (np.isnan(val) and not np.isnan(best)):
                                best, at = val, (u, v)
                            if np.isnan(best):
                                break
                        if best is not None and np.isnan(best):
                            break
                    if at is not None:
                        dx[a, b, at[0], at[1]] += g[a, b, i, j]
    return dx


def _grad_of_pool(k, s, p):
    def loss(x, g):
        return (ops.max_pool2d(x, k, s, p) * g).sum()
    return ms.grad(loss)


@pytest.mark.parametrize("k,s,p,hw", [(3, 2, 1, (9, 11)), (3, 1, 1, (6, 7)), (2, 2, 1, (7, 8)), (5, 3, 2, (10, 9))])
def test_padded_max_pool_gradient_matches_the_first_maximum(k, s, p, hw):
    rng = np.random.default_rng(k * 100 + s * 10 + p)
    x = rng.integers(-2, 3, (2, 3) + hw).astype(np.float32)           # many ties
    x.flat[rng.integers(0, x.size, 4)] = np.nan
    x.flat[rng.integers(0, x.size, 6)] = -np.inf
    oh, ow = ((d + 2 * p - k) // s + 1 for d in hw)
    g = rng.standard_normal((2, 3, oh, ow)).astype(np.float32)
    ms.set_context(mode=ms.GRAPH_MODE)
    got = ms.jit(_grad_of_pool(k, s, p))(ms.Tensor(x), ms.Tensor(g)).asnumpy()
    np.testing.assert_array_equal(got, _maxpool_grad_ref(x, g, k, s, p))


def test_padded_max_pool_gradient_is_vector_loops(tmp_path):
    x = ms.Tensor(np.random.default_rng(1).standard_normal((2, 4, 12, 12)).astype(np.float32))
    g = ms.Tensor(np.ones((2, 4, 6, 6), np.float32))
    src = ms.inspect(ms.jit(_grad_of_pool(3, 2, 1)), x, g).c_source
    lines = src.splitlines()
    takes = [no for no, line in enumerate(lines, 1) if "const int take = (bi[ow] < 0)" in line]
    assert takes, "the padded max-pool gradient is not the vector form"
    assert "long bi = -1" not in src                  # (the walk one output at a time)
    vec = _vectorized_lines(src, tmp_path)
    # each take loop (its `for` two lines up) vectorized
    assert all(any(t - 3 <= v <= t + 1 for v in vec) for t in takes), (takes, sorted(vec))


def _bn_sums(x):
    return ops.ReduceSum()(x * 1.5, (0, 2, 3)), ops.ReduceMax()(x, (0, 2, 3)), ops.ReduceMean()(x, (0, 2))


def test_sums_over_split_axes_match_numpy_and_run_on_the_pool():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((8, 5, 61, 67)).astype(np.float32) + 3
    ms.set_context(mode=ms.GRAPH_MODE)
    fn = ms.jit(_bn_sums)
    src = ms.inspect(fn, ms.Tensor(x)).c_source
    # the (0, 2, 3) sum: runs of 4,087 floats in lanes, no division per element, split over threads
    body = src[src.index("double acc = 0;"):]
    body = body[:body.index("acc += rs_s;")]
    assert "rs_p[l] +=" in body and not re.search(r"rr /= \d+L;.*\n.*rs_p", body)
    assert re.search(r"static void pc_r\d+\(void \*pc_arg, long pc_lo, long pc_hi\) \{(?:(?!\nstatic ).)*double acc = 0;",
                     src, re.S), "the split-axes sum is not run by the pool"
    got = [t.asnumpy() for t in fn(ms.Tensor(x))]
    xd = x.astype(np.float64)
    np.testing.assert_allclose(got[0], (xd * 1.5).sum(axis=(0, 2, 3)), rtol=1e-6)
    np.testing.assert_array_equal(got[1], x.max(axis=(0, 2, 3)))
    np.testing.assert_allclose(got[2], xd.mean(axis=(0, 2)), rtol=1e-6)
    bits = []
    for nt in (1, 2):           # (the suite's fixture resets the context after the test)
        ms.set_context(runtime_num_threads=nt)
        bits.append([t.asnumpy() for t in ms.jit(_bn_sums)(ms.Tensor(x))])
    for a, b in zip(*bits):
        np.testing.assert_array_equal(a, b)


STREAMED = [(2, 8, 48, 48, 64, 3, 1), (2, 4, 64, 64, 64, 7, 3), (4, 5, 47, 51, 24, 5, 2)]


def _filter_grad(pad):
    def loss(x, wt, g):
        return (ops.conv2d(x, wt, padding=pad, pad_mode="pad") * g).sum()
    return ms.grad(loss, grad_position=1)


@pytest.mark.parametrize("case", STREAMED)
def test_filter_gradient_over_a_large_dy_is_blocked_and_exact(case):
    """(N, C, H, W, K, kernel, pad): dY of 1.2-2.1 MB per register tile's pass; the 7 x 7 case has
    a tail tile (7 kernel columns, tiles of 6), the 24-channel one a part-empty channel vector."""
    n, c, h, w, k, ks, pad = case
    rng = np.random.default_rng(sum(case))
    x = rng.standard_normal((n, c, h, w)).astype(np.float32)
    wt = rng.standard_normal((k, c, ks, ks)).astype(np.float32)
    oh, ow = h + 2 * pad - ks + 1, w + 2 * pad - ks + 1
    g = rng.standard_normal((n, k, oh, ow)).astype(np.float32)
    ms.set_context(mode=ms.GRAPH_MODE)
    args = (ms.Tensor(x), ms.Tensor(wt), ms.Tensor(g))
    src = ms.inspect(ms.jit(_filter_grad(pad)), *args).c_source
    assert re.search(r"void cf_\w+_mks\(", src), "the filter gradient is not blocked"
    got = []
    for nt in (1, 2):
        ms.set_context(runtime_num_threads=nt)
        got.append(ms.jit(_filter_grad(pad))(*args).asnumpy())
    np.testing.assert_array_equal(got[0], got[1])
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    ref = np.zeros((k, c, ks, ks))
    for r in range(ks):
        for q in range(ks):
            ref[:, :, r, q] = np.einsum("nkhw,nchw->kc", g, xp[:, :, r:r + oh, q:q + ow])
    np.testing.assert_allclose(got[0], ref, rtol=0, atol=1e-5 * np.abs(ref).max())
