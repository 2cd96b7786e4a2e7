"""float32 sums are accurate at any length (issue 20, defect 5).

A vectorized float32 sum with one accumulator per lane adds N/16 values one after another in
each lane: at 4M elements the result was off by ~2e-6 relative, at 16M by up to 8e-5, where
NumPy's pairwise sum stays near float32's rounding (~3e-8). Sums longer than a block now add
blocks' partial sums in double (backend/c/ops/kernels.py blocked_sum): sum, mean, row and column sums,
and the sums inside softmax, log_softmax and LayerNorm. The reference is the float64 sum of the
same float32 values; NumPy's own float32 error on the same data is the yardstick."""
import numpy as np

import pycompile as ms
from pycompile import Tensor, ops


def reductions(x, y, g, b):
    return (ops.sum(x), ops.mean(x), ops.sum(y, -1), ops.sum(y, 0), ops.mean(y, -1, True),
            ops.softmax(y), ops.log_softmax(y), ops.layer_norm(y + 10.0, g, b), ops.sum(y * 2.0 - 1.0, -1))


def _rel(got, want):
    got = np.asarray(got, np.float64)
    return float(np.max(np.abs(got - want)) / np.max(np.abs(want)))


def test_long_float32_sums_are_as_accurate_as_numpy_pairwise():
    rng = np.random.default_rng(0)
    x = rng.random(1 << 22, dtype=np.float32)                     # all positive: the hard case
    y = rng.random((8, 1 << 17), dtype=np.float32)
    g, b = np.ones(1 << 17, np.float32), np.zeros(1 << 17, np.float32)
    out = [o.asnumpy() for o in ms.jit(reductions)(Tensor(x), Tensor(y), Tensor(g), Tensor(b))]

    X, Y = x.astype(np.float64), y.astype(np.float64)
    e = np.exp(Y - Y.max(-1, keepdims=True))
    softmax = e / e.sum(-1, keepdims=True)
    z = (y + np.float32(10)).astype(np.float64)
    ln = (z - z.mean(-1, keepdims=True)) / np.sqrt(z.var(-1, keepdims=True) + 1e-7)
    want = [X.sum(), X.mean(), Y.sum(-1), Y.sum(0), Y.mean(-1, keepdims=True), softmax, np.log(softmax), ln,
            (Y * 2 - 1).sum(-1)]
    errors = [_rel(o, w) for o, w in zip(out, want)]
    # NumPy float32 on the same data: its pairwise sums, and LayerNorm written with them
    zf = y + np.float32(10)
    mf = zf.mean(-1, keepdims=True)
    numpy_ln = _rel((zf - mf) / np.sqrt(((zf - mf) ** 2).mean(-1, keepdims=True) + np.float32(1e-7)), ln)
    assert max(errors[:5]) < 1e-7, errors                 # before: 2e-6 (sum of 4M), 5e-7 (rows of 128K)
    assert errors[5] < 3e-7 and errors[6] < 3e-7, errors
    assert errors[7] < 2 * numpy_ln + 1e-6, (errors, numpy_ln)
    assert errors[8] < 1e-6, errors


def test_blocked_sum_with_a_run_time_batch_size():
    """Under jit(dynamic=1) a sum's length is an expression of the batch size. The blocked sum's
    whole-lanes extent (length - length % 16) was computed from the compile samples (multiples
    of 64, so always the whole length): at a batch of 5 rows of 30 the block loop read 10 floats
    past the input. Found by running the suite under PYCOMPILE_SANITIZE (ASan fills fresh memory,
    and the sums changed); here the rows after the input hold 1e6."""
    big = np.full((64, 30), 1e6, np.float32)
    rng = np.random.default_rng(0)
    f = ms.jit(lambda x: ops.sum(x * 2.0), dynamic=1)
    for b in (5, 9, 64):
        big[:b] = rng.standard_normal((b, 30))
        want = (big[:b].astype(np.float64) * 2).sum()
        np.testing.assert_allclose(float(f(Tensor(big[:b])).asnumpy()), want, rtol=1e-5)
