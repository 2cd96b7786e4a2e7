"""A reduction over rows into columns (a bias gradient: the sum of dY over the batch) runs on
the pool in blocks of columns (backend/c/ops/kernels.py reduce, COLUMN_BLOCK): it ran on the
calling thread alone. Each column's values are added in row order whatever the cut, so every
thread count gives the same bits."""
import os
import sys

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops
from pycompile._rt import lib
from pycompile.common import context

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
import work_split  # noqa: E402


@pytest.fixture
def threads():
    yield lib.pc_set_num_threads
    lib.pc_set_num_threads(context.num_threads())


def column_sums(x):
    return ops.reduce_sum(x * 1.5, 0), ops.reduce_max(x, 0)


def test_column_reduction_runs_in_blocks_with_one_threads_bits(threads):
    x = np.random.default_rng(0).standard_normal((2048, 1000)).astype(np.float32)
    f = ms.jit(column_sums)
    got, chunks = {}, {}
    for t in (1, 2, 16):
        threads(t)
        got[t] = [y.asnumpy() for y in f(Tensor(x))]
        _, loops = work_split.trace(f, (Tensor(x),), 1)
        chunks[t] = sorted(c for _, c, _, _ in loops)
    y = x * np.float32(1.5)
    np.testing.assert_allclose(got[1][0], y.astype(np.float64).sum(0), rtol=1e-6, atol=1e-5)
    np.testing.assert_array_equal(got[1][1], x.max(0))
    for t in (2, 16):
        for a, b in zip(got[t], got[1]):
            np.testing.assert_array_equal(a, b)
    # 1000 columns in blocks of 64: 16 units for each of the two reductions
    assert chunks[16].count(16) >= 2, chunks
