"""Gradients compiled into graph code: every op's gradient equals the PyNative one (which
test_grad_rules.py checks against finite differences), through @jit and in GRAPH_MODE Cells;
loops differentiate into loops; the backward is fused and planned with the forward."""
from __future__ import annotations

import numpy as np
import pytest

from grad_specs import SPECS

import pycompile as ms
from pycompile import Parameter, Tensor, nn, ops
from pycompile.compiler import ir

# the ops only differentiated loops create (checked to be compiled here: test_op_lowerings)
STACK_OPS = {"StackNew", "StackPush", "StackGet", "StackLen", "StackFree"}

BATCH = 12          # specs compiled together in one function (one C compile per batch)


def _loss_grad(fn, wrt, r):
    def loss(*xs):
        return (fn(*xs) * r).sum()
    return ms.grad(loss, tuple(wrt))


def _batch_fn(specs, rs):
    grads = [_loss_grad(fn, wrt, r) for (_, fn, _, wrt), r in zip(specs, rs)]

    def all_grads(*flat):
        out, k = [], 0
        for (_, _, arrays, _), g in zip(specs, grads):
            out.append(g(*flat[k:k + len(arrays)]))
            k += len(arrays)
        return tuple(out)
    return all_grads


@pytest.mark.parametrize("start", range(0, len(SPECS), BATCH))
def test_compiled_gradient_equals_pynative(start):
    specs = SPECS[start:start + BATCH]
    rs = []
    for _, fn, arrays, _ in specs:
        shape = fn(*[Tensor(a) for a in arrays]).shape
        rs.append(Tensor(np.random.default_rng(7).standard_normal(shape)))
    flat = [Tensor(a) for _, _, arrays, _ in specs for a in arrays]
    f = _batch_fn(specs, rs)
    eager, compiled = f(*flat), ms.jit(f)(*flat)
    for (name, _, arrays, wrt), e, c in zip(specs, eager, compiled):
        e = e if isinstance(e, tuple) else (e,)
        c = c if isinstance(c, tuple) else (c,)
        for k, ge, gc in zip(wrt, e, c):
            assert gc.dtype == ge.dtype and gc.shape == ge.shape, (name, k)
            np.testing.assert_allclose(gc.asnumpy(), ge.asnumpy(), rtol=1e-9, atol=1e-10, err_msg=f"{name} input {k}")


def _loop(n):
    def f(x, w):
        h = x
        for _ in range(n):
            h = ops.tanh(ops.matmul(h, w)) + x
        return h.sum()
    return f


def test_a_loop_differentiates_into_a_loop():
    """The backward of a 100-iteration loop is a loop over the saved iterations: its C is as
    long as the 10-iteration loop's, and both equal PyNative's gradients."""
    rng = np.random.default_rng(0)
    x = Tensor(rng.standard_normal((3, 4)).astype(np.float32))
    w = Tensor((rng.standard_normal((4, 4)) * 0.3).astype(np.float32))
    lines = {}
    for n in (10, 100):
        g = ms.jit(ms.grad(_loop(n), (0, 1)))
        got = g(x, w)
        want = ms.grad(_loop(n), (0, 1))(x, w)
        for a, b in zip(got, want):
            np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=2e-5, atol=1e-5)
        report = ms.inspect(g, x, w)
        lines[n] = report.c_lines
        ops_used = {n.op.name for n in ir.iter_nodes(report.graph_after.body)}
        assert STACK_OPS <= ops_used, ops_used
        fors = [m for m in ir.iter_nodes(report.graph_after.body) if m.op is ir.FOR]
        assert len(fors) == 2, "the forward loop and its backward loop"
    assert lines[10] == lines[100], lines


class _Mlp(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(8, 16)
        self.fc2 = nn.Dense(16, 3)

    def construct(self, x, y):
        h = ops.relu(self.fc1(x))
        return ops.mean(ops.square(self.fc2(h) - y))


def test_training_gradients_compile_with_the_forward():
    """value_and_grad of a network's loss over its weights, compiled: equal to PyNative; the
    backward's products call BLAS through transpose flags (no Transpose node) and its
    elementwise chains fuse."""
    net = _Mlp()
    rng = np.random.default_rng(1)
    x = Tensor(rng.standard_normal((5, 8)).astype(np.float32))
    y = Tensor(rng.standard_normal((5, 3)).astype(np.float32))
    vg = ms.value_and_grad(net, None, net.trainable_params())
    want_loss, want = vg(x, y)

    @ms.jit
    def step(x, y):
        return vg(x, y)

    loss, grads = step(x, y)
    np.testing.assert_allclose(loss.asnumpy(), want_loss.asnumpy(), rtol=1e-6)
    for g, e in zip(grads, want):
        np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=1e-5, atol=1e-6)
    after = ms.inspect(step, x, y).graph_after
    names = [n.op.name for n in ir.iter_nodes(after.body)]
    assert "Transpose" not in names
    assert names.count("Fused") >= 3


def test_parameters_are_differentiated_at_their_loads():
    """A Parameter read, assigned, read again: each read's gradient is taken at the value that
    read saw (MindSpore's graph mode does the same)."""
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="w")

        def construct(self, x):
            a = (x * self.w).sum()
            ops.assign(self.w, self.w * 3.0)
            return a + (x * x * self.w).sum()

    net = Net()
    x = Tensor(np.array([0.5, -1.0], np.float32))
    ms.set_context(mode=ms.GRAPH_MODE)
    grads = ms.jit(lambda v: ms.grad(net, 0, net.trainable_params())(v))(x)
    # d/dx: w0 + 2 x w1 with w1 = 3 w0; d/dw (summed over the two reads) = x + x*x
    w0 = np.array([1.0, 2.0], np.float32)
    np.testing.assert_allclose(grads[0].asnumpy(), w0 + 2 * x.asnumpy() * 3 * w0, rtol=1e-6)
    np.testing.assert_allclose(grads[1][0].asnumpy(), x.asnumpy() + x.asnumpy() ** 2, rtol=1e-6)


# ---- ms.grad of graph code called from Python ------------------------------------------------------
_HOOK_CALLS = []
_HOOK = ops.HookBackward(lambda g: (_HOOK_CALLS.append(1), (g[0] * 10,))[1])


def _hooked_square_sum(a):
    return (_HOOK(a) * a).sum()


class _Hooked(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([3.0, 4.0], np.float32)), name="w")

    def construct(self, a):
        return (_HOOK(a) * self.w).sum()


class _Catches(nn.Cell):
    def construct(self, a):
        try:
            b = a * a
        except ValueError:
            b = a
        return b.sum()


def test_grad_of_graph_code_called_from_python_is_compiled(capsys):
    """ms.grad / value_and_grad of a @jit function, or of a Cell in GRAPH_MODE, called from
    Python compile forward and backward into one function, as MindSpore 2.10 does: the tape ran
    them in Python before (each call traced the @jit function again with the tape's values, a
    HookBackward that MindSpore's graph ignores was called, a `try` MindSpore refuses ran).
    The expected values are what MindSpore 2.10 gives for these functions (run with the wheel, 30
    Nov): [2, 4], [3, 4], loss 11 with [3, 4] / [1, 2], no hook call in graph code; in PyNative
    the hook runs and the gradient is [11, 22]."""
    ms.set_context(log="compiles")
    x = Tensor(np.array([1.0, 2.0], np.float32))
    _HOOK_CALLS.clear()
    g = ms.grad(ms.jit(_hooked_square_sum))
    for _ in range(3):
        np.testing.assert_array_equal(g(x).asnumpy(), [2.0, 4.0])
    assert len([ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("[pycompile] compiled ")]) == 1
    net = _Hooked()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        np.testing.assert_array_equal(ms.grad(net)(x).asnumpy(), [3.0, 4.0])
        loss, (gx, gw) = ms.value_and_grad(net, 0, net.trainable_params())(x)
        assert float(loss.asnumpy()) == 11.0
        np.testing.assert_array_equal(gx.asnumpy(), [3.0, 4.0])
        np.testing.assert_array_equal(gw[0].asnumpy(), [1.0, 2.0])
        assert not _HOOK_CALLS          # graph code ignores HookBackward, as MindSpore 2.10's
        with pytest.raises(RuntimeError, match="Unsupported statement 'Try'"):
            ms.grad(_Catches())(x)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_array_equal(ms.grad(_hooked_square_sum)(x).asnumpy(), [11.0, 22.0])   # PyNative: hooked
    assert _HOOK_CALLS


class _Scale(nn.Cell):
    def construct(self, x):
        return x * x * 3.0


def test_vmap_of_grad_of_a_graph_mode_cell_still_batches():
    """vmap(GradOperation(sens_param=True)(cell)) in GRAPH_MODE, as MindSpore's own minimum / mish
    grad tests do: vmap's values reach the gradient, which differentiates them as before (the
    compiled path is for concrete values only; taking it under vmap recursed without end)."""
    grad = ops.GradOperation(sens_param=True)
    x = np.array([[1.0, 2.0], [3.0, -1.0]], np.float32)
    sens = np.array([[1.0, 0.5], [2.0, 1.0]], np.float32)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        got = ms.vmap(grad(_Scale()), in_axes=(0, 0))(Tensor(x), Tensor(sens))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(got.asnumpy(), 6.0 * x * sens, rtol=1e-6)
