"""Reductions fuse with their elementwise producers (issue 4): sum / mean / max / min / all / any,
softmax, log_softmax and LayerNorm read their input through the fused expression (one pass over
the producers' inputs, no temporary), and match NumPy with broadcast inputs and several dtypes."""
import numpy as np
import pytest

import pycompile as ms
from pycompile.ops._table import Kind
from pycompile import Tensor, ops
from pycompile.compiler import ir


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def layernorm(x, g, b):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / np.sqrt(v + 1e-7) * g + b


def graph(a, b, row, col, g, be):
    return (ops.mean(ops.square(a - b)),                       # MSE: one pass
            ops.sum(a * b + row, 1),                           # a row bias broadcast in the prologue
            ops.amax(ops.abs(a - col), 0, True),               # a column vector, reduced over axis 0
            ops.amin(a * 2 - 1, (0, 1)),
            ops.all(a + b > -10), ops.any(a * b > 1),
            ops.softmax(a * 0.5 + row),
            ops.log_softmax(a - b, 0),
            ops.layer_norm(a + b * 2, g, be))


def reference(a, b, row, col, g, be):
    return ((np.square(a - b)).mean(), (a * b + row).sum(1), np.abs(a - col).max(0, keepdims=True),
            (a * 2 - 1).min((0, 1)), (a + b > -10).all(), (a * b > 1).any(), softmax(a * 0.5 + row),
            np.log(softmax(a - b, 0)), layernorm(a + b * 2, g, be))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m,n", [(1, 1), (5, 7), (64, 33)])
def test_fused_reductions_match_numpy(dtype, m, n):
    rng = np.random.default_rng(m + n)
    a, b = rng.standard_normal((m, n)).astype(dtype), rng.standard_normal((m, n)).astype(dtype)
    row, col = rng.standard_normal(n).astype(dtype), rng.standard_normal((m, 1)).astype(dtype)
    g, be = rng.standard_normal(n).astype(dtype), rng.standard_normal(n).astype(dtype)
    args = (a, b, row, col, g, be)
    outs = ms.jit(graph)(*[Tensor(v) for v in args])
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for got, want in zip(outs, reference(*args)):
        np.testing.assert_allclose(got.asnumpy(), want, rtol=tol * 10, atol=tol * 10)


def unshared(a, b, row, col, g, be):
    return (ops.mean(ops.square(a - b)), ops.sum(a * b + row, 1), ops.amax(ops.abs(a - col), 0, True),
            ops.softmax(a * 0.5 + row), ops.log_softmax(b - a * 3, 0), ops.layer_norm(a + b * 2, g, be))


def test_every_reduction_holds_its_producers():
    rng = np.random.default_rng(0)
    args = [Tensor(rng.standard_normal(s).astype(np.float32)) for s in ((4, 6), (4, 6), (6,), (4, 1), (6,), (6,))]
    g = ms.inspect(unshared, *args).graph_after
    # nothing elementwise is left outside a group, and every group ends in its reduction
    assert not [n for n in g.body.nodes if getattr(n.op, "kind", None) in (Kind.ELEMENTWISE, Kind.REDUCE)]
    fused = [n for n in g.body.nodes if n.op is ir.FUSED]
    assert len(fused) == 6
    assert all(f.blocks[0].results[-1].op.kind is Kind.REDUCE for f in fused)
    # in `graph`, CSE shares `a - b` and `a * b` between two reductions each: those two values
    # are computed once and stored, the rest is still fused
    g2 = ms.inspect(graph, *args).graph_after
    loose = [n.op.name for n in g2.body.nodes if getattr(n.op, "kind", None) is Kind.ELEMENTWISE]
    assert sorted(loose) == ["Mul", "Sub"]


def test_int_sum_and_a_producer_used_twice():
    a = np.arange(12, dtype=np.int32).reshape(3, 4)

    @ms.jit
    def f(a):
        t = a * 3 - 1
        return ops.sum(t, 1), t + 1            # t is used twice: it is materialized, not inlined

    s, t1 = f(Tensor(a))
    np.testing.assert_array_equal(s.asnumpy(), (a * 3 - 1).sum(1))
    assert s.dtype == ms.int64
    np.testing.assert_array_equal(t1.asnumpy(), a * 3)


def test_multi_pass_templates_do_not_recompute_transcendentals():
    # softmax reads its input three times: an inline exp would run three times per element, so
    # the exp is stored once; a single-pass sum takes the exp inline
    def f(a, b):
        return ops.softmax(ops.exp(a) * b), ops.sum(ops.exp(b) * a, 1)

    rng = np.random.default_rng(3)
    a, b = (rng.standard_normal((5, 9)).astype(np.float32) for _ in range(2))
    g = ms.inspect(f, Tensor(a), Tensor(b)).graph_after
    groups = [sorted(m.op.name for m in n.blocks[0].nodes) for n in g.body.nodes if n.op is ir.FUSED]
    assert ["Exp", "Mul", "ReduceSum"] in groups
    assert ["Mul", "Softmax"] in groups
    sm, s = ms.jit(f)(Tensor(a), Tensor(b))
    np.testing.assert_allclose(sm.asnumpy(), softmax(np.exp(a) * b), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(s.asnumpy(), (np.exp(b) * a).sum(1), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax_of_masked_scores_is_exactly_zero_and_nan_propagates(dtype):
    # masked scores (-1e9) take exp's flush-to-zero branch; the row's NaN still reaches exp
    s = np.array([[0.5, -1e9, 1.0, -1e9], [1.0, np.nan, 0.0, 2.0], [-80.0, 0.0, -90.0, -1e30]], dtype)

    @ms.jit
    def f(s):
        return ops.softmax(s), ops.log_softmax(s)

    p, lp = f(Tensor(s))
    want = softmax(s)
    np.testing.assert_array_equal(p.asnumpy()[0] == 0, [False, True, False, True])
    np.testing.assert_allclose(p.asnumpy()[[0, 2]], want[[0, 2]], rtol=1e-6, atol=1e-30)
    assert np.isnan(p.asnumpy()[1]).all() and np.isnan(lp.asnumpy()[1]).all()
    np.testing.assert_allclose(lp.asnumpy()[[0, 2]], (s - s.max(-1, keepdims=True)
                               - np.log(np.exp(s - s.max(-1, keepdims=True)).sum(-1, keepdims=True)))[[0, 2]],
                               rtol=1e-6)


# ---- consumers: a row reduction heads a group, its elementwise users run on each chunk of rows ---

def consumers(a, b, row, g, be):
    x = a * b
    m = ops.amax(a, -1, True)
    return (x - ops.mean(x, -1, True),                            # x is stored: head and epilogue read it
            a / ops.sum(ops.abs(a + b), -1, keepdim=True),        # prologue |a + b|, epilogue a / s
            ops.softmax(a * 0.5 + row) * b,                       # the epilogue runs in place on softmax
            -ops.log_softmax(a) * b,
            ops.layer_norm(a + b, g, be) * 2 + a,
            a - m, m,                                             # the head's value is also a result
            ops.select(ops.all(a > -1, -1, True), a, b))


def consumers_reference(a, b, row, g, be):
    x = a * b
    m = a.max(-1, keepdims=True)
    return (x - x.mean(-1, keepdims=True), a / np.abs(a + b).sum(-1, keepdims=True),
            softmax(a * 0.5 + row) * b, -np.log(softmax(a)) * b, layernorm(a + b, g, be) * 2 + a,
            a - m, m, np.where((a > -1).all(-1, keepdims=True), a, b))


def _consumer_args(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    a, b = (rng.standard_normal(shape).astype(dtype) for _ in range(2))
    n = shape[-1]
    row, g, be = (rng.standard_normal(n).astype(dtype) for _ in range(3))
    return a, b, row, g, be


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(1, 1), (5, 7), (3, 4, 33), (64, 513)])
def test_reduction_consumers_match_numpy(dtype, shape):
    args = _consumer_args(shape, dtype)
    outs = ms.jit(consumers)(*[Tensor(v) for v in args])
    tol = 2e-5 if dtype == np.float32 else 1e-12
    for k, (got, want) in enumerate(zip(outs, consumers_reference(*args))):
        np.testing.assert_allclose(got.asnumpy(), want, rtol=tol, atol=tol, err_msg=f"output {k}")


def test_every_consumer_group_is_headed_by_its_reduction():
    args = [Tensor(v) for v in _consumer_args((5, 7), np.float32)]
    g = ms.inspect(consumers, *args).graph_after
    heads = []
    for n in g.body.nodes:
        if n.op is not ir.FUSED:
            continue
        body = n.blocks[0]
        reds = [m for m in body.nodes if getattr(m.op, "kind", None) is Kind.REDUCE]
        if reds:
            # the reduction is read by elementwise members of the same kernel
            assert any(reds[0] in m.inputs for m in body.nodes), [m.op.name for m in body.nodes]
            heads.append(reds[0].op.name)
    assert sorted(heads) == sorted(["ReduceMean", "ReduceSum", "Softmax", "LogSoftmax", "LayerNorm",
                                    "ReduceMax", "ReduceAll"])
    # nothing is left as a lone reduction
    assert not [n for n in g.body.nodes if getattr(n.op, "kind", None) is Kind.REDUCE]


def test_consumer_chunks_over_threads():
    # 300 rows of 130: several chunks of rows, run on 1, 2 and 3 threads
    args = _consumer_args((300, 130), np.float32, seed=5)
    want = consumers_reference(*args)
    f = ms.jit(consumers)
    for threads in (1, 2, 3):               # the test fixture resets the context afterwards
        ms.set_context(runtime_num_threads=threads)
        for k, (got, w) in enumerate(zip(f(*[Tensor(v) for v in args]), want)):
            np.testing.assert_allclose(got.asnumpy(), w, rtol=2e-5, atol=2e-5, err_msg=f"{threads} threads, {k}")


def test_reductions_that_cannot_head_stay_correct():
    # without keep_dims a (5,) sum broadcasts over the *columns* of a (5, 5) input: row r of the
    # result reads every row's sum, so it is not a row head; axis 0 reductions neither
    a = np.arange(25, dtype=np.float32).reshape(5, 5) / 7

    @ms.jit
    def f(a):
        return a - ops.sum(a, -1), a * ops.amax(a, 0, True), a - ops.mean(a)

    got = f(Tensor(a))
    for x, want in zip(got, (a - a.sum(-1), a * a.max(0, keepdims=True), a - a.mean())):
        # atol: a - mean(a) is 0 at the mean, where another summation order (a build that is not
        # vectorized alike, e.g. under the sanitizers) leaves one float32 ulp of the mean
        np.testing.assert_allclose(x.asnumpy(), want, rtol=1e-6, atol=4e-7)


def test_int_row_sum_consumer():
    a = np.arange(-6, 18, dtype=np.int32).reshape(4, 6)

    @ms.jit
    def f(a):
        return a * 3 - ops.sum(a, -1, keepdim=True)

    got = f(Tensor(a))
    assert got.dtype == ms.int64
    np.testing.assert_array_equal(got.asnumpy(), a * 3 - a.sum(-1, keepdims=True, dtype=np.int64))


def rms_norm(x, g):
    return x / ops.sqrt(ops.mean(x * x, -1, True) + 1e-6) * g


def layer_norm_by_hand(x, g, b):
    m = ops.mean(x, -1, True)
    d = x - m
    return d / ops.sqrt(ops.mean(d * d, -1, True) + 1e-5) * g + b


def per_row_value_also_returned(x):
    s = ops.sqrt(ops.sum(x * x, -1, True) + 1.0)
    return x / s, s * 2


def _kernels(fn, *args):
    graph = ms.inspect(fn, *args).graph_after
    return [n for n in graph.body.nodes if n.op is ir.FUSED or getattr(n.op, "kind", None) in (Kind.REDUCE, Kind.ELEMENTWISE)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_per_row_ops_between_a_reduction_and_its_consumers_join_its_group(dtype):
    """`x / ops.sqrt(mean(x * x) + eps)`: the per-row `sqrt(. + eps)` is computed inside the
    reduction's group, so RMSNorm is one kernel and a hand-written LayerNorm two (was 3 and 4)."""
    rng = np.random.default_rng(5)
    x, g, b = rng.standard_normal((37, 70)).astype(dtype), rng.standard_normal(70).astype(dtype), \
        rng.standard_normal(70).astype(dtype)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    want = x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6) * g
    np.testing.assert_allclose(ms.jit(rms_norm)(Tensor(x), Tensor(g)).asnumpy(), want, rtol=tol, atol=tol)
    assert len(_kernels(rms_norm, Tensor(x), Tensor(g))) == 1
    d = x - x.mean(-1, keepdims=True)
    want = d / np.sqrt((d * d).mean(-1, keepdims=True) + 1e-5) * g + b
    got = ms.jit(layer_norm_by_hand)(Tensor(x), Tensor(g), Tensor(b)).asnumpy()
    np.testing.assert_allclose(got, want, rtol=tol * 10, atol=tol * 10)
    assert len(_kernels(layer_norm_by_hand, Tensor(x), Tensor(g), Tensor(b))) == 2
    # a per-row value that is also returned is stored, not only computed inline
    q, s = ms.jit(per_row_value_also_returned)(Tensor(x))
    s_want = np.sqrt((x * x).sum(-1, keepdims=True) + 1)
    np.testing.assert_allclose(s.asnumpy(), s_want * 2, rtol=tol, atol=tol)
    np.testing.assert_allclose(q.asnumpy(), x / s_want, rtol=tol, atol=tol)
