"""GEMM epilogue fusion (issue 4): a matrix product and the bias / activation / residual / cast
after it run as one kernel per row chunk, and match NumPy on odd shapes and both BLAS dtypes."""
import math
import re

import numpy as np
import pytest

import pycompile as ms
from pycompile.ops._table import Kind
from pycompile import Tensor, nn, ops
from pycompile.compiler import ir


def np_gelu(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


ACTIVATIONS = {
    "relu": (ops.relu, lambda x: np.maximum(x, 0)),
    "gelu": (lambda x: ops.gelu(x, "tanh"), np_gelu),
    "sigmoid": (ops.sigmoid, lambda x: 1 / (1 + np.exp(-x))),
    "tanh": (ops.tanh, np.tanh),
    "hswish": (ops.hardswish, lambda x: x * np.clip(x + 3, 0, 6) / 6),
}


def dense_block(x, w, b, r):
    """Dense + every activation + residual, and a cast: each output is one fused group."""
    h = ops.MatMul(transpose_b=True)(x, w) + b
    outs = [ACTIVATIONS[k][0](h) + r for k in ACTIVATIONS]
    return tuple(outs) + ((ops.matmul(x, w.T) * 2).astype(ms.float16),)


def dense_ref(x, w, b, r):
    h = x @ w.T + b
    return tuple(ACTIVATIONS[k][1](h) + r for k in ACTIVATIONS) + ((x @ w.T * 2).astype(np.float16),)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (7, 5, 13), (64, 32, 128), (131, 17, 1), (0, 8, 3)])
def test_fused_epilogues_match_numpy(dtype, m, k, n):
    rng = np.random.default_rng(m * 100 + n)
    x, w = rng.standard_normal((m, k)).astype(dtype), rng.standard_normal((n, k)).astype(dtype)
    b, r = rng.standard_normal(n).astype(dtype), rng.standard_normal((m, n)).astype(dtype)
    f = ms.jit(dense_block)
    outs = f(Tensor(x), Tensor(w), Tensor(b), Tensor(r))
    tol = 2e-5 if dtype == np.float32 else 1e-12
    for got, want in zip(outs, dense_ref(x, w, b, r)):
        assert got.shape == want.shape
        if want.dtype == np.float16:
            np.testing.assert_allclose(got.asnumpy().astype(np.float32), want.astype(np.float32), rtol=2e-3, atol=2e-3)
        else:
            np.testing.assert_allclose(got.asnumpy(), want, rtol=tol * 10, atol=tol * 10)


def test_products_head_their_epilogues():
    rng = np.random.default_rng(0)
    args = [Tensor(rng.standard_normal(s).astype(np.float32)) for s in ((16, 8), (32, 8), (32,), (16, 32))]
    graph = ms.inspect(ms.jit(dense_block), *args).graph_after
    fused = [n for n in graph.body.nodes if n.op is ir.FUSED]
    heads = [n for n in fused if any(getattr(m.op, "kind", None) is Kind.MATMUL for m in n.blocks[0].nodes)]
    # every product here has an epilogue, so no product runs on its own; CSE shares the five
    # identical `x @ w.T + b`, so two products remain: that one (it also exports its result to
    # the other activations) and the one feeding the float16 cast
    assert not [n for n in graph.body.nodes if getattr(n.op, "kind", None) is Kind.MATMUL]
    assert len(heads) == 2
    # `w.T` became MatMul's transpose flag, not a Transpose copy
    assert not [n for n in ir.iter_nodes(graph.body) if n.op.name == "Transpose"]


def test_batched_product_with_broadcast_mask_and_threads():
    rng = np.random.default_rng(1)
    q, k = rng.standard_normal((3, 37, 16)).astype(np.float32), rng.standard_normal((3, 37, 16)).astype(np.float32)
    mask = np.triu(np.full((37, 37), -1e9, np.float32), 1)

    @ms.jit
    def att(q, k, mask):
        return ops.softmax(ops.BatchMatMul(transpose_b=True)(q, k) * 0.25 + mask)

    s = q @ k.transpose(0, 2, 1) * np.float32(0.25) + mask
    e = np.exp(s - s.max(-1, keepdims=True))
    want = e / e.sum(-1, keepdims=True)
    for threads in (1, 2, 3):
        ms.set_context(runtime_num_threads=threads)
        np.testing.assert_allclose(att(Tensor(q), Tensor(k), Tensor(mask)).asnumpy(), want, rtol=1e-5, atol=1e-6)


def test_softmax_and_log_softmax_read_a_fused_producer_once():
    """Softmax evaluates a fused producer (scale and a broadcast mask) once into its output row
    (kernels.softmax): -inf and -1e9 masks, log_softmax (which reads the producer again at the
    end) and a NaN score that must spread over its row only."""
    rng = np.random.default_rng(3)
    s = rng.standard_normal((2, 19, 19)).astype(np.float32)
    s[1, 4, 7] = np.nan
    mask = np.triu(np.full((19, 19), -np.inf, np.float32), 1)
    mask[:, 0] = -1e9
    mask[0, 0] = 0

    @ms.jit
    def f(s, mask):
        return ops.softmax(s * 0.5 + mask), ops.log_softmax(s * 0.5 + mask)

    x = s * np.float32(0.5) + mask
    m = x.max(-1, keepdims=True)
    e = np.exp(x - m)
    got_p, got_lp = (t.asnumpy() for t in f(Tensor(s), Tensor(mask)))
    np.testing.assert_allclose(got_p, e / e.sum(-1, keepdims=True), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(got_lp, x - m - np.log(e.sum(-1, keepdims=True)), rtol=1e-5, atol=1e-5)
    assert np.isnan(got_p[1, 4]).all() and not np.isnan(np.delete(got_p[1], 4, 0)).any()


def test_row_templates_read_broadcast_operands_by_row():
    """Softmax, LayerNorm and reductions walk contiguous rows; a fused producer's operand
    broadcast over whole rows (an attention mask over the batch) is read at (i0 % P) + r from the
    row's start i0 - contiguous, so GCC loads it instead of gathering - and one whose period does
    not tile the rows (a (4,) vector under a 12-element row) by the flat index as before (the
    function the template calls is then the flat one)."""
    from pycompile import nn
    rng = np.random.default_rng(4)
    s, mask = rng.standard_normal((2, 19, 19)).astype(np.float32), rng.standard_normal((19, 19)).astype(np.float32)
    x, v = rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal(4).astype(np.float32)
    norm = nn.LayerNorm((19,), epsilon=1e-5)

    def f(s, mask, x, v):
        return ops.softmax(s * 0.5 + mask), ops.amax(x * v), norm(s - mask)

    y = s * np.float32(0.5) + mask
    e = np.exp(y - y.max(-1, keepdims=True))
    d = (s - mask).astype(np.float64)
    d = (d - d.mean(-1, keepdims=True)) / np.sqrt(d.var(-1, keepdims=True) + 1e-5)
    got = [t.asnumpy() for t in ms.jit(f)(*map(Tensor, (s, mask, x, v)))]
    np.testing.assert_allclose(got[0], e / e.sum(-1, keepdims=True), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(got[1], (x * v).max(), rtol=1e-6)
    np.testing.assert_allclose(got[2], d, rtol=1e-4, atol=1e-5)
    src = ms.inspect(ms.jit(f), *map(Tensor, (s, mask, x, v))).c_source
    assert src.count("(i0 % 361L) + r)") == 2      # the mask, by row: in the softmax's and the LayerNorm's producers
    assert "(i % 4L)" in src and "% 4L) + r" not in src           # the vector, by flat index


def test_unfused_integer_and_float16_products_still_match():
    rng = np.random.default_rng(2)
    a, b = rng.integers(-5, 5, (9, 4)).astype(np.int32), rng.integers(-5, 5, (4, 6)).astype(np.int32)
    h, g = rng.standard_normal((9, 4)).astype(np.float16), rng.standard_normal((4, 6)).astype(np.float16)

    @ms.jit
    def f(a, b, h, g):
        return ops.relu(ops.matmul(a, b) + 1), ops.matmul(h, g) + 1

    ia, hf = f(Tensor(a), Tensor(b), Tensor(h), Tensor(g))
    np.testing.assert_array_equal(ia.asnumpy(), np.maximum(a @ b + 1, 0))
    np.testing.assert_allclose(hf.asnumpy().astype(np.float32),
                               (h.astype(np.float32) @ g.astype(np.float32) + 1), rtol=5e-3, atol=5e-3)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m,k,n", [(1, 2048, 128), (7, 300, 131), (64, 256, 128), (33, 513, 600)])
def test_few_rows_split_by_columns(dtype, m, k, n):
    """A product with few rows and a long inner dimension is split by columns across threads;
    its epilogue then runs by rows. Both transpose flags, 1-3 threads (uneven column chunks)."""
    rng = np.random.default_rng(m + n)
    x, w = rng.standard_normal((m, k)).astype(dtype), rng.standard_normal((k, n)).astype(dtype)
    b, r = rng.standard_normal(n).astype(dtype), rng.standard_normal((m, n)).astype(dtype)

    @ms.jit
    def f(x, w, wt, xt, b, r):
        return (ops.gelu(ops.matmul(x, w) + b, "tanh") + r, ops.MatMul(transpose_b=True)(x, wt),
                ops.MatMul(transpose_a=True, transpose_b=True)(xt, wt) * 2)

    h = x @ w
    want = (np_gelu(h + b) + r, h, h * 2)
    tol = 1e-4 if dtype == np.float32 else 1e-11
    for threads in (1, 2, 3):
        ms.set_context(runtime_num_threads=threads)
        outs = f(Tensor(x), Tensor(w), Tensor(w.T.copy()), Tensor(x.T.copy()), Tensor(b), Tensor(r))
        for got, ref in zip(outs, want):
            np.testing.assert_allclose(got.asnumpy(), ref, rtol=tol, atol=tol * 10)
    src = ms.inspect(f, Tensor(x), Tensor(w), Tensor(w.T.copy()), Tensor(x.T.copy()), Tensor(b), Tensor(r)).c_source
    assert "(int)(c1 - c0)" in src


def test_dense_on_3d_input_heads_activation_and_residual():
    """nn.Dense on (B, S, C) reshapes to 2-D for the product and back: the reshape back sinks
    below the elementwise chain, so bias, GELU and the residual run in the product's epilogue."""
    from pycompile import nn

    class MLP(nn.Cell):
        def __init__(self):
            super().__init__()
            self.up, self.act, self.down = nn.Dense(16, 48), nn.GELU(), nn.Dense(48, 16)

        def construct(self, x):
            return x + self.down(self.act(self.up(x)))

    ms.set_seed(3)
    net = MLP()
    x = np.random.default_rng(3).standard_normal((2, 5, 16)).astype(np.float32)
    f = ms.jit(lambda t: net(t))
    got = f(Tensor(x)).asnumpy()
    w1, b1 = net.up.weight.asnumpy(), net.up.bias.asnumpy()
    w2, b2 = net.down.weight.asnumpy(), net.down.bias.asnumpy()
    want = x + (np_gelu(x @ w1.T + b1) @ w2.T + b2)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    graph = ms.inspect(f, Tensor(x)).graph_after
    nodes = list(graph.body.nodes)
    fused = [n for n in nodes if n.op is ir.FUSED]
    # two groups, each a product heading its whole epilogue; nothing elementwise outside them
    assert len(fused) == 2
    assert all(any(getattr(m.op, "kind", None) is Kind.MATMUL for m in n.blocks[0].nodes) for n in fused)
    names = {m.op.name for n in fused for m in n.blocks[0].nodes}
    assert {"GeLU", "Add"} <= names
    assert not [n for n in nodes if getattr(n.op, "kind", None) is Kind.ELEMENTWISE]


@pytest.mark.parametrize("other_shape", [(2, 5, 16), (16,), (1, 1, 16), (1, 16), (), (1,), (2, 1, 16), (5, 16)])
def test_reshape_sinking_keeps_broadcasting(other_shape):
    """op(Reshape(y), z) sinks the reshape only when z has the result's shape or broadcasts along
    rows; other broadcasts ((2, 1, 16): per batch; (5, 16): per position) keep the reshape.
    Either way the value is NumPy's."""
    rng = np.random.default_rng(len(other_shape))
    a, w = rng.standard_normal((10, 8)).astype(np.float32), rng.standard_normal((16, 8)).astype(np.float32)
    z = rng.standard_normal(other_shape).astype(np.float32)

    @ms.jit
    def f(a, w, z):
        h = ops.reshape(ops.MatMul(transpose_b=True)(a, w), (2, 5, 16))
        return ops.tanh(h * z) - z

    want = np.tanh((a @ w.T).reshape(2, 5, 16) * z) - z
    np.testing.assert_allclose(f(Tensor(a), Tensor(w), Tensor(z)).asnumpy(), want, rtol=1e-5, atol=1e-6)


def test_output_view_is_computed_in_place():
    """A graph output that is a Reshape (or Depend) of a computed value: the value is written
    straight into the output buffer, so the generated C copies nothing. Two outputs viewing one
    value still get their own buffers."""
    rng = np.random.default_rng(4)
    a, w, b = (rng.standard_normal(s).astype(np.float32) for s in ((12, 8), (6, 8), (6,)))

    @ms.jit
    def one(a, w, b):
        return ops.reshape(ops.relu(ops.MatMul(transpose_b=True)(a, w) + b), (3, 4, 6))

    @ms.jit
    def two(a, w, b):
        h = ops.MatMul(transpose_b=True)(a, w) + b
        return ops.reshape(h, (3, 4, 6)), ops.depend(h, a), ops.reshape(h, (72,))

    h = a @ w.T + b
    args = (Tensor(a), Tensor(w), Tensor(b))
    np.testing.assert_allclose(one(*args).asnumpy(), np.maximum(h, 0).reshape(3, 4, 6), rtol=1e-5, atol=1e-6)
    assert "memcpy(args" not in ms.inspect(one, *args).c_source
    outs = two(*args)
    for got, want in zip(outs, (h.reshape(3, 4, 6), h, h.reshape(72))):
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-6)
    bufs = [o._data for o in outs]
    assert not any(np.shares_memory(x, y) for i, x in enumerate(bufs) for y in bufs[i + 1:])
    assert ms.inspect(two, *args).c_source.count("memcpy(args") == 2


def _accumulate(acc, a, b):
    return acc + ops.MatMul(transpose_a=True)(a, b)


def _accumulate_steps(acc, a, b):
    for t in range(3):
        acc = acc + ops.MatMul(transpose_a=True)(a[t], b[t])
    return acc


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m,k,n", [(1, 4, 1), (33, 8, 17), (64, 32, 300), (4, 16, 700)])
def test_product_added_to_a_tensor_accumulates_in_blas(dtype, m, k, n):
    """`acc + op(a) @ op(b)` (a weight gradient summed over a reverse loop's steps): BLAS adds
    into a copy of acc (beta = 1) instead of a zeroed product and a second pass; the value is
    NumPy's, in a loop too, and with a few rows (the products split by columns)."""
    rng = np.random.default_rng(m * n + k)
    acc = rng.standard_normal((m, n)).astype(dtype)
    a, b = rng.standard_normal((3, k, m)).astype(dtype), rng.standard_normal((3, k, n)).astype(dtype)
    f = ms.jit(_accumulate)
    got = f(Tensor(acc), Tensor(a[0]), Tensor(b[0])).asnumpy()
    np.testing.assert_allclose(got, acc + a[0].T @ b[0], rtol=1e-5, atol=1e-5)
    assert re.search(r"gemm\(.*, 1\.0, O \+ r0|gemm\(.*, 1\.0, v\d+ \+ c0",
                     ms.inspect(f, Tensor(acc), Tensor(a[0]), Tensor(b[0])).c_source)
    want = acc + sum(a[t].T @ b[t] for t in range(3))
    got = ms.jit(_accumulate_steps)(Tensor(acc), Tensor(a), Tensor(b)).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(_accumulate_steps(Tensor(acc), Tensor(a), Tensor(b)).asnumpy(), want, rtol=1e-5, atol=1e-5)


class _LSTMLoss(nn.Cell):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(5, 16, num_layers=1)

    def construct(self, x):
        y, _ = self.lstm(x)
        return (y * y).sum()


def test_reverse_loop_weight_gradient_accumulates_in_one_buffer():
    """The recurrent weight's gradient, summed over the reverse loop's steps (`acc + dG^T h`), is
    added by BLAS into the loop's one buffer (the carried value updated in place: memory.py
    `_accumulating_product`), not copied into the other of two buffers at every step; the
    gradients equal PyNative's."""
    ms.set_seed(3)
    net = _LSTMLoss()
    x = Tensor(np.random.default_rng(3).standard_normal((12, 3, 5)).astype(np.float32))
    grad = ms.value_and_grad(net, None, net.trainable_params())
    want = [g.asnumpy() for g in grad(x)[1]]
    ms.set_context(mode=ms.GRAPH_MODE)
    f = ms.jit(grad)
    got = [g.asnumpy() for g in f(x)[1]]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)
    c = ms.inspect(f, x).c_source
    # the product's output is the carried value's own buffer (`cur`), so the guarded copy of the
    # accumulator into it never runs; before, it wrote `nxt` and copied 4H x H floats a step
    assert re.search(r"float \*const (v\d+) = \(\(float \*\)(L\d+_cur\d+)\);\s*\{\s*if \(\(const void \*\)\(\2\) "
                     r"!= \(const void \*\)\(\1\)\) memcpy", c)
