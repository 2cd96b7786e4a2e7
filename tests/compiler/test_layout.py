"""Layout pass (issue 4): few-row products are computed transposed (y.T = w @ x.T), the bias /
activation chain after them follows in the transposed layout, and the products that read the
chain take it through their transpose flags. Every result is checked against NumPy; the IR is
checked for where the pass must and must not apply."""
import re

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, nn, ops

dense_t = ops.MatMul(transpose_b=True)


def mlp(x, w1, b1, w2, b2, w3, b3):
    h = ops.relu(dense_t(x, w1) + b1)
    h = ops.tanh(dense_t(h, w2) + b2) * 0.5
    return dense_t(h, w3) + b3


def mlp_ref(x, w1, b1, w2, b2, w3, b3):
    h = np.maximum(x @ w1.T + b1, 0)
    h = np.tanh(h @ w2.T + b2) * 0.5
    return h @ w3.T + b3


def products(report) -> list:
    """(shape, transpose flags) of every MatMul in the optimized IR."""
    out = []
    for line in report.ir_after.splitlines():
        if "MatMul(" in line:
            out.append(("transpose_a: True" in line, "transpose_b: True" in line))
    return out


def weights(rng, dtype, sizes):
    ws = []
    for fan_in, fan_out in zip(sizes, sizes[1:]):
        ws += [(rng.standard_normal((fan_out, fan_in)) / np.sqrt(fan_in)).astype(dtype),
               rng.standard_normal(fan_out).astype(dtype)]
    return ws


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m,sizes", [(64, (96, 128, 80, 10)), (1, (64, 65, 64, 3)), (7, (131, 97, 64, 1)),
                                     (33, (64, 300, 257, 17)), (0, (64, 128, 64, 5))])
def test_mlp_hidden_layers_stay_transposed(dtype, m, sizes):
    rng = np.random.default_rng(m)
    x = rng.standard_normal((m, sizes[0])).astype(dtype)
    ws = weights(rng, dtype, sizes)
    f = ms.jit(mlp)
    args = [Tensor(a) for a in [x] + ws]
    tol = 1e-4 if dtype == np.float32 else 1e-11
    for threads in (1, 2, 3):
        ms.set_context(runtime_num_threads=threads)
        np.testing.assert_allclose(f(*args).asnumpy(), mlp_ref(x, *ws), rtol=tol, atol=tol)
    ms.set_context(runtime_num_threads=2)
    flags = products(ms.inspect(f, *args))
    # layer 1 computes w1 @ x.T (flags swapped), layer 2 reads it as is: w2 @ h1t, layer 3 reads h2t
    # transposed and produces the plain layout
    assert flags == [(False, True), (False, False), (True, True)]


def test_nn_dense_mlp_and_shape_of_the_ir():
    """W4's network: the two 512-wide layers run transposed, (512, 64) results; the biases are
    (512, 1) views."""
    ms.set_seed(0)
    net = nn.SequentialCell(nn.Flatten(), nn.Dense(784, 512), nn.ReLU(), nn.Dense(512, 512), nn.ReLU(),
                            nn.Dense(512, 10))
    x = np.random.default_rng(1).standard_normal((64, 1, 28, 28)).astype(np.float32)
    want = net(Tensor(x)).asnumpy()                   # PyNative: NumPy underneath
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        got = net(Tensor(x)).asnumpy()
        text = ms.inspect(net, Tensor(x)).ir_after
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    assert text.count("{shape: (512, 64)}") == 2
    assert len(re.findall(r"Reshape\(%\d+\) \{shape: \(512, 1\)\}", text)) == 2


def test_not_applied_where_the_transposed_value_would_be_seen():
    """A product whose chain is returned, carries a full-shape operand, or feeds a reduction
    keeps the plain layout (and all of them still match NumPy)."""
    rng = np.random.default_rng(3)
    x, w, w2 = (rng.standard_normal(s).astype(np.float32) for s in ((16, 64), (128, 64), (32, 128)))
    r = rng.standard_normal((16, 128)).astype(np.float32)

    @ms.jit
    def f(x, w, w2, r):
        h = ops.relu(dense_t(x, w))                  # returned: stays (16, 128)
        g = dense_t(x, w) + r                        # full-shape residual in the chain
        s = dense_t(x, w * 2).sum(axis=1)            # feeds a reduction
        return h, dense_t(g, w2), s

    args = [Tensor(a) for a in (x, w, w2, r)]
    h, o, s = f(*args)
    np.testing.assert_allclose(h.asnumpy(), np.maximum(x @ w.T, 0), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(o.asnumpy(), (x @ w.T + r) @ w2.T, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(s.asnumpy(), (x @ (w * 2).T).sum(axis=1), rtol=1e-4, atol=1e-3)
    assert all(flags == (False, True) for flags in products(ms.inspect(f, *args)))


def test_chain_read_as_second_operand_and_by_two_products():
    """The chain's result read as the right operand (its transpose_b flips) and by two products."""
    rng = np.random.default_rng(4)
    x, w = rng.standard_normal((8, 64)).astype(np.float32), rng.standard_normal((96, 64)).astype(np.float32)
    b = rng.standard_normal((1, 96)).astype(np.float32)
    a, c = rng.standard_normal((5, 8)).astype(np.float32), rng.standard_normal((96, 3)).astype(np.float32)

    @ms.jit
    def f(x, w, b, a, c):
        h = ops.sigmoid(dense_t(x, w) + b).astype(ms.float64) * 3
        return ops.matmul(a.astype(ms.float64), h), ops.matmul(h, c.astype(ms.float64))

    args = [Tensor(v) for v in (x, w, b, a, c)]
    h = (1 / (1 + np.exp(-(x @ w.T + b)))).astype(np.float64) * 3
    left, right = f(*args)
    # (h's float32 product is rounded as the reference's only to the last bits: sums of it that
    # cancel are compared against their largest element)
    for got, want in ((left, a.astype(np.float64) @ h), (right, h @ c.astype(np.float64))):
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-5 * np.abs(want).max())
    assert products(ms.inspect(f, *args))[0] == (False, True)   # x @ w.T -> w @ x.T: flags swap to (F, T)
    assert "{shape: (96, 8)}" in ms.inspect(f, *args).ir_after


def test_inside_a_loop_and_a_lazy_inline_block():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((4, 64)).astype(np.float32)
    w = rng.standard_normal((64, 64)).astype(np.float32) / 8
    b = rng.standard_normal(64).astype(np.float32)

    @ms.jit
    def f(x, w, b):
        for _ in range(3):
            x = dense_t(ops.relu(dense_t(x, w) + b), w)
        return x

    want = x
    for _ in range(3):
        want = np.maximum(want @ w.T + b, 0) @ w.T
    np.testing.assert_allclose(f(Tensor(x), Tensor(w), Tensor(b)).asnumpy(), want, rtol=1e-4, atol=1e-4)

    class Block(nn.Cell):
        @ms.lazy_inline
        def __init__(self):
            super().__init__()
            self.up, self.down = nn.Dense(64, 128), nn.Dense(128, 64)

        def construct(self, x):
            return x + self.down(ops.relu(self.up(x)))

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.blocks = nn.CellList([Block() for _ in range(3)])

        def construct(self, x):
            for blk in self.blocks:
                x = blk(x)
            return x

    ms.set_seed(1)
    net = Net()
    want = net(Tensor(x)).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        got = net(Tensor(x)).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
