"""Issue 37 item 2: a small-M product (LeNet-5's Dense layers at B=64: the compiled layout computes
fc1 as 120 x 64 x 400, one 64-column panel) split only by rows of 16 gave 7 chunks at 16 threads,
since every row chunk packed all of op(B). With more than two threads, backend/c/ops/kernels.py
gemm now packs op(B) once per region (the team shares the packing: csrc/gemm.c tb & 8) and cuts
the rows into nt chunks. Each output element keeps its k-ordered chain of fused multiply-adds,
so the values are bit-identical to one thread's."""
import os
import sys

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, nn, ops
from pycompile._rt import lib
from pycompile.common import context

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
import work_split  # noqa: E402
from product_bits import assert_same, kernel_runs


class Dense2(nn.Cell):
    """LeNet-5's fc1 and fc2 (relu after each)."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(400, 120)
        self.fc2 = nn.Dense(120, 84)
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.relu(self.fc2(self.relu(self.fc1(x))))


@pytest.fixture
def threads():
    yield lib.pc_set_num_threads
    lib.pc_set_num_threads(context.num_threads())


def test_dense_layers_split_in_16_chunks_with_one_threads_values(threads):
    ms.set_seed(0)
    net = Dense2()
    x = Tensor(np.random.default_rng(0).standard_normal((64, 400)).astype(np.float32))
    f = ms.jit(net.construct)
    f1 = ms.jit(lambda v: net.relu(net.fc1(v)))
    results, fc1, chunks = {}, {}, {}
    for t in (1, 2, 4, 16):
        threads(t)
        f(x)
        results[t] = f(x).asnumpy()
        fc1[t] = f1(x).asnumpy()
        _, loops = work_split.trace(f, (x,), 1)
        chunks[t] = sorted(c for _, c, _, _ in loops)
    w1, b1 = net.fc1.weight.asnumpy().astype(np.float64), net.fc1.bias.asnumpy().astype(np.float64)
    w2, b2 = net.fc2.weight.asnumpy().astype(np.float64), net.fc2.bias.asnumpy().astype(np.float64)
    ref = np.maximum(np.maximum(x.asnumpy() @ w1.T + b1, 0) @ w2.T + b2, 0)
    np.testing.assert_allclose(results[1], ref, rtol=1e-4, atol=1e-4)
    # fc1 (the kernel's product, its packing shared from 4 threads on) is the same bits at every
    # team size; fc2 runs on OpenBLAS with A transposed, its rows cut per team size, and OpenBLAS's
    # edge kernels (Haswell's on an AVX2 CPU) sum a block's last rows in another order
    for t in (2, 4, 16):
        assert_same(fc1[t], fc1[1], err_msg=f"{t} threads")
        scale = float(np.abs(results[1]).max())
        np.testing.assert_allclose(results[t], results[1], rtol=1e-5, atol=1e-5 * scale, err_msg=f"{t} threads")
    # at 16 threads fc1's product (120 x 64 x 400 here as in W9) and its packing run in >= 16
    # chunks each: it was one region of 7 (fc2 here takes BLAS's transposed path, in 4). The
    # shared packing is the product kernel's (AVX-512 or AVX2); without it BLAS runs fc1 in row units
    if kernel_runs():
        assert sum(c >= 16 for c in chunks[16]) >= 2, chunks
    else:
        assert max(chunks[16]) >= 4, chunks
    assert chunks[2] == [2, 2], "two threads: the rows-only cut, no shared packing"



def two_products(a, b, c):
    return ops.matmul(a, b), ops.matmul(a, c.T)     # op(B) as is and transposed, two 64-column panels


def test_shared_packing_of_two_panels_both_layouts(threads):
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((96, 200)).astype(np.float32), rng.standard_normal((200, 120)).astype(np.float32)
    c = np.ascontiguousarray(b.T)
    f = ms.jit(two_products)
    assert "| (pk ? 8 : 0)" in f.compiled(Tensor(a), Tensor(b), Tensor(c)).c_source
    got = {}
    for t in (1, 16):
        threads(t)
        got[t] = [y.asnumpy() for y in f(Tensor(a), Tensor(b), Tensor(c))]
    want = a.astype(np.float64) @ b.astype(np.float64)
    for y1, y16 in zip(got[1], got[16]):
        np.testing.assert_allclose(y1, want, rtol=1e-4, atol=1e-3)
        assert_same(y16, y1)
