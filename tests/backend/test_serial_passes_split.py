"""Passes that ran on the calling thread while the pool waited (W11's LSTM training step) now
split across it: zeroing a buffer of 1 MB or more (backend/c/ops/kernels.py zero), combining
one long row into a tensor (TensorScatterAdd of one index: a reverse loop's cotangent of the
row its step gathered). Each element is written once whatever the cut: the same bits at any
thread count, and NumPy's values."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops
from pycompile._rt import lib
from pycompile.common import context


@pytest.fixture
def threads():
    yield lib.pc_set_num_threads
    lib.pc_set_num_threads(context.num_threads())


def gathered_rows_grad(x, idx):
    return ms.grad(lambda t: (ops.gather(t, idx, 0) * 3.0).sum())(x)


def test_a_large_zero_fill_runs_in_chunks(threads):
    x = np.random.default_rng(0).standard_normal((2048, 1024)).astype(np.float32)      # 8 MB of zeros
    idx = np.array([5, 7, 5, 2047], np.int32)
    f = ms.jit(gathered_rows_grad)
    assert "u * 262144L" in f.compiled(Tensor(x), Tensor(idx)).c_source
    want = np.zeros_like(x)
    np.add.at(want, idx, 3.0)
    got = {}
    for t in (1, 2, 16):
        threads(t)
        got[t] = f(Tensor(x), Tensor(idx)).asnumpy()
        np.testing.assert_array_equal(got[t], want)


def add_row(x, i, u):
    return ops.tensor_scatter_add(x * 1.0, i, u)


def test_one_long_row_combined_in_chunks(threads):
    r = np.random.default_rng(1)
    x, u = r.standard_normal((4, 40000)).astype(np.float32), r.standard_normal((1, 40000)).astype(np.float32)
    i = np.array([[2]], np.int32)
    f = ms.jit(add_row)
    assert "u * 4096L" in f.compiled(Tensor(x), Tensor(i), Tensor(u)).c_source
    want = x.copy()
    want[2] += u[0]
    for t in (1, 2, 16):
        threads(t)
        np.testing.assert_array_equal(f(Tensor(x), Tensor(i), Tensor(u)).asnumpy(), want)
    with pytest.raises(RuntimeError, match=r"the 0-th value of 'indices'\[4\] is out of range\[4\]"):
        f(Tensor(x), Tensor(np.array([[4]], np.int32)), Tensor(u))


def gate(x, y):
    return ops.sigmoid(x) * y + ops.tanh(y)


def gate_plain(x, y):
    return x * y + y


def test_an_lstm_sized_gate_kernel_splits_where_plain_arithmetic_does_not(threads):
    # 32 x 256 elements: under the 32768 of plain arithmetic, but a sigmoid and a tanh in each
    # element make it worth the pool (elementwise.TRANSCENDENTAL_COST)
    r = np.random.default_rng(2)
    x, y = r.standard_normal((32, 256)).astype(np.float32), r.standard_normal((32, 256)).astype(np.float32)
    assert "parallel_for" in ms.jit(gate).compiled(Tensor(x), Tensor(y)).c_source
    assert "parallel_for" not in ms.jit(gate_plain).compiled(Tensor(x), Tensor(y)).c_source
    f = ms.jit(gate)
    got = {}
    for t in (1, 2):
        threads(t)
        got[t] = f(Tensor(x), Tensor(y)).asnumpy()
    np.testing.assert_allclose(got[1], 1 / (1 + np.exp(-x)) * y + np.tanh(y), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(got[2], got[1])
