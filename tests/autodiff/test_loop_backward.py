"""What a differentiated loop costs per iteration: rows written into a loop-carried tensor are
written in place (no whole-tensor copy or select per step), the reverse loop scatter-adds the
cotangent of a row it gathered instead of adding a dense tensor, the forward saves only the
carried values and products its backward reads, and `inspect` reports the bytes kept for the
backward. Values are checked against PyNative (whose gradients test_grad_rules.py checks
against finite differences)."""
from __future__ import annotations

import re

import numpy as np

import pycompile as ms
from pycompile import Tensor, nn, ops
from pycompile.compiler import ir

RNG = np.random.default_rng(5)


def _nodes(graph, name):
    return [n for n in ir.iter_nodes(graph.body) if n.op.name == name]


def _fill_rows(x, ys):
    for t in range(6):
        idx = ops.reshape(ops.scalar_to_tensor(t, ms.int64), (1, 1))
        ys = ops.tensor_scatter_update(ys, idx, ops.expand_dims(ops.tanh(x * t), 0))
        x = x * 0.9 + 0.1
    return (ys * ys).sum() + x.sum()


def test_rows_of_a_carried_tensor_are_written_in_place():
    x = Tensor(RNG.standard_normal(3).astype(np.float32))
    before = RNG.standard_normal((6, 3)).astype(np.float32)
    ys = Tensor(before.copy())
    f = ms.jit(_fill_rows)
    np.testing.assert_allclose(f(x, ys).asnumpy(), _fill_rows(x, ys).asnumpy(), rtol=1e-6)
    # the initial value is copied once into the loop's own buffer; the input itself is untouched
    np.testing.assert_array_equal(ys.asnumpy(), before)
    c = ms.inspect(f, x, ys).c_source
    assert re.search(r"float \*const L\d+_cur\d+ = \(float \*\)\(arena", c), "one buffer, no pointer swap"
    g = ms.grad(_fill_rows, (0, 1))
    for a, b in zip(ms.jit(g)(x, ys), g(x, ys)):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-5, atol=1e-6)


class _Seq(nn.Cell):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(4, 5)

    def construct(self, x):
        return (self.lstm(x)[0] ** 2).sum()


def test_lstm_backward_saves_only_what_it_reads():
    ms.set_seed(1)
    net = _Seq()
    x = Tensor(RNG.standard_normal((7, 2, 4)).astype(np.float32))
    vg = ms.value_and_grad(net, None, net.trainable_params())
    want_loss, want = vg(x)
    step = ms.jit(lambda v: vg(v))
    loss, grads = step(x)
    np.testing.assert_allclose(loss.asnumpy(), want_loss.asnumpy(), rtol=1e-5)
    for g, e in zip(grads, want):
        np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=1e-4, atol=1e-6)
    report = ms.inspect(step, x)
    graph = report.graph_after
    pushed = [n.inputs[1].type.shape for n in _nodes(graph, "StackPush")]
    # h and c (2, 5) and the step's product h @ W_hh (2, 20); never the (7, 2, 5) outputs
    assert sorted(pushed) == [(2, 5), (2, 5), (2, 20)], pushed
    # (TensorScatterAdd is TensorScatterCombine once decomposed: ops/defs/index.py)
    assert _nodes(graph, "TensorScatterCombine") and not [n for n in _nodes(graph, "GatherGrad")
                                                       if n.type.shape == (7, 2, 20)]
    assert not _nodes(graph, "Select")
    # 7 iterations x (h, c, product) of float32
    assert report.saved_bytes >= 7 * 4 * (10 + 10 + 40)
    assert report.saved_bytes < 7 * 4 * (10 + 10 + 40) + 7 * 2 * 20 * 4 * 2


class _Mlp(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(8, 16)
        self.fc2 = nn.Dense(16, 3)

    def construct(self, x):
        return ops.relu(self.fc2(ops.relu(self.fc1(x)))).sum()


def test_bytes_kept_for_the_backward_are_the_activations():
    """Parameters and inputs are not saved (the caller keeps them); ReLU's mask comes from its
    output, so the pre-activations are not kept either: what remains is the two activations."""
    net = _Mlp()
    x = Tensor(RNG.standard_normal((5, 8)).astype(np.float32))
    vg = ms.value_and_grad(net, None, net.trainable_params())
    report = ms.inspect(ms.jit(lambda v: vg(v)), x)
    assert report.saved_bytes == 5 * (16 + 3) * 4
    assert "bytes kept for the backward" in report.summary()


def _power(x, n):
    out = x
    i = Tensor(0, ms.int32)
    while i < n:
        out = out * x + 0.5
        i = i + 1
    return out.sum()


def test_saved_values_memory_is_reused_across_calls_and_threads():
    """The stacks' memory goes back to the module after a call and the next call takes it
    (pycompile_kernels.h's pc_stack_keep): a shorter, a longer (the kept buffer grows) and a
    shorter trip count again, and two threads at once (one finds the keep taken and uses its
    own), each give PyNative's gradient."""
    import threading
    x = Tensor(np.array([1.01, 0.9, 0.5], np.float32))
    vg = ms.value_and_grad(_power)
    step = ms.jit(lambda v, n: vg(v, n))
    assert "pc_stack_take" in ms.inspect(step, x, Tensor(np.array(3, np.int32))).c_source

    def check(trips):
        n = Tensor(np.array(trips, np.int32))
        (loss, g), (want_loss, want_g) = step(x, n), vg(x, n)
        np.testing.assert_allclose(loss.asnumpy(), want_loss.asnumpy(), rtol=1e-5)
        np.testing.assert_allclose(g.asnumpy(), want_g.asnumpy(), rtol=1e-4)
    for trips in (3, 40, 5, 40):
        check(trips)
    errors = []

    def worker(trips):
        try:
            for _ in range(20):
                check(trips)
        except Exception as e:      # noqa: BLE001 - reported by the main thread
            errors.append(e)
    threads = [threading.Thread(target=worker, args=(t,)) for t in (7, 33)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def _gates(x):
    h = x.shape[1] // 4
    i, f, g, o = x[:, :h], x[:, h:2 * h], x[:, 2 * h:3 * h], x[:, 3 * h:]
    return (ops.sigmoid(i) * ops.tanh(g) + f * f * 0.5 - ops.exp(o) * 3).sum()


def _gapped(x):
    # adjacent slices [1:3] and [3:5] of rows 0..1 merge; the gap at column 0 and the
    # overlapping [4:6] stay slices of a zero-filled tensor
    a, b, c = x[:2, 1:3], x[:2, 3:5], x[:2, 4:6]
    return (a * a).sum() + (b * 3).sum() + ops.exp(c).sum()


def test_cotangent_of_adjacent_slices_is_their_concat():
    """The gradient of a tensor cut into adjacent slices (the LSTM's four gates) is one Concat of
    the slices' cotangents, not a zero-filled full tensor per slice added together; slices with
    a gap or an overlap keep their zero fill. Values are PyNative's."""
    x = Tensor(RNG.standard_normal((3, 8)).astype(np.float32))
    for fn, grads_left in ((_gates, 0), (_gapped, None)):
        g = ms.grad(fn)
        step = ms.jit(lambda v, g=g: g(v))
        np.testing.assert_allclose(step(x).asnumpy(), g(x).asnumpy(), rtol=1e-5, atol=1e-6)
        graph = ms.inspect(step, x).graph_after
        left = _nodes(graph, "StridedSliceGrad")
        if grads_left is not None:
            assert len(left) == grads_left and _nodes(graph, "Concat")
        else:
            assert left and all(n.type.shape == (3, 8) for n in left)
    ms.set_seed(1)
    net = _Seq()
    seq = Tensor(RNG.standard_normal((5, 2, 4)).astype(np.float32))
    vg = ms.value_and_grad(net, None, net.trainable_params())
    graph = ms.inspect(ms.jit(lambda v: vg(v)), seq).graph_after
    assert not _nodes(graph, "StridedSliceGrad")


def _nested_loops(x, y, n):
    i = ops.zeros_like(n)
    out = x * 0.5
    while i < n:
        for _ in range(2):
            out = out * 1.5 + y
        i = i + 1
    return out


def _grad_nested_loops(x, y, n):
    return ms.grad(_nested_loops, grad_position=(0, 1))(x, y, n)


def test_gradient_through_a_for_nested_in_a_runtime_while():
    """Found by the loop-gradient fuzzer (issue 31, seed 564): the backward of the `while`
    recomputes the inner `for` (pushing its carried values), but the memory state after that
    loop was not threaded to the inner backward's reads of its stack, so dead-code elimination
    removed the recomputation and the gradient was (0.5, 0). out = 1.5^6 * 0.5 x + y * (1.5^6 -
    1) / 0.5 after 3 x 2 steps."""
    x, y, n = Tensor(np.float64(0.63)), Tensor(np.float64(-0.67)), Tensor(np.int32(3))
    gx, gy = ms.jit(_grad_nested_loops)(x, y, n)
    np.testing.assert_allclose(gx.asnumpy(), 0.5 * 1.5 ** 6, rtol=1e-12)
    np.testing.assert_allclose(gy.asnumpy(), (1.5 ** 6 - 1) / 0.5, rtol=1e-12)
