"""ms.saved_tensors_hooks beyond the recorded cases (tests/conformance/cases_saved_hooks.py): a whole
network's gradients through hooks that move every saved tensor out of the tape (NumPy copies, no
reference kept) equal the gradients without hooks; the tape keeps no saved input once packed; graph
code refuses the hooks at the user's line."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, nn, ops
from pycompile.ops.autodiff import saved_hooks


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, pad_mode="valid", weight_init="normal")
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Dense(4 * 4 * 4, 3, weight_init="normal")

    def construct(self, x):
        h = ops.relu(self.bn(self.conv(x)))
        return ops.log_softmax(self.fc(h.reshape(h.shape[0], -1)), axis=1)


def _grads(net, x, y, hooks=None):
    def loss(a):
        logp = net(a)
        return -ops.sum(logp * y)
    fn = ms.value_and_grad(loss, grad_position=0, weights=net.trainable_params())
    if hooks is None:
        return fn(x)
    with ms.saved_tensors_hooks(*hooks):
        return fn(x)


def test_offloaded_saved_tensors_give_the_same_gradients():
    ms.set_seed(3)
    net = _Net()
    net.set_train()
    rng = np.random.default_rng(0)
    x = Tensor(rng.standard_normal((2, 1, 6, 6)).astype(np.float32))
    y = Tensor(np.eye(3, dtype=np.float32)[[0, 2]])
    calls = {"pack": 0, "unpack": 0}

    def pack(t):
        calls["pack"] += 1
        return t.asnumpy().copy()           # the tensor leaves the tape: only a NumPy copy is kept

    def unpack(a):
        calls["unpack"] += 1
        return Tensor(a)
    want_loss, (want_gx, want_gw) = _grads(net, x, y)
    got_loss, (got_gx, got_gw) = _grads(net, x, y, (pack, unpack))
    assert calls["pack"] > 5 and calls["pack"] == calls["unpack"]
    np.testing.assert_array_equal(got_loss.asnumpy(), want_loss.asnumpy())
    np.testing.assert_array_equal(got_gx.asnumpy(), want_gx.asnumpy())
    for g, w in zip(got_gw, want_gw):
        np.testing.assert_array_equal(g.asnumpy(), w.asnumpy())


def test_a_packed_input_is_not_kept_on_the_tape():
    from pycompile.ops.autodiff.tape import GradTrace
    from pycompile.ops import tracing
    trace = GradTrace()
    x, _ = trace.watch(Tensor(np.ones(3, np.float32)))
    y, _ = trace.watch(Tensor(np.full(3, 2.0, np.float32)))
    with ms.saved_tensors_hooks(lambda t: ("box", t.asnumpy()), lambda p: Tensor(p[1])):
        with tracing.tracing(trace):
            _ = x * y
    rec = trace.records[-1]
    assert rec.inputs is None
    unpack, out, inputs = rec.packed
    assert [type(v).__name__ for v in inputs] == ["_Packed", "_Packed"]


def test_an_unpack_hook_returning_no_tensor_names_the_hook():
    def fwd(a):
        with ms.saved_tensors_hooks(lambda t: t + 0, lambda p: None):
            return a * a
    with pytest.raises(RuntimeError, match="unpack_hook must return a Tensor, but got NoneType"):
        ms.grad(fwd)(Tensor(np.ones(2, np.float32)))


def test_shadowed_arguments_leave_the_gradients_unchanged():
    """Once hooks exist, arguments not differentiated are recorded too (MindSpore saves for them):
    the gradients of the differentiated ones are those computed without that."""
    def f(a, b):
        return ops.sum(ops.sin(a) * ops.exp(b.reshape(3)) + b.reshape(3) * 2.0)
    a = Tensor(np.array([0.1, 0.2, 0.3], np.float32))
    b = Tensor(np.array([[0.5, -0.5, 1.0]], np.float32))
    before = saved_hooks.USED[0]
    try:
        saved_hooks.USED[0] = False
        plain = ms.grad(f, grad_position=0)(a, b).asnumpy()
        saved_hooks.USED[0] = True
        shadowed = ms.grad(f, grad_position=0)(a, b).asnumpy()
    finally:
        saved_hooks.USED[0] = before
    np.testing.assert_array_equal(plain, shadowed)
    np.testing.assert_allclose(plain, np.cos([0.1, 0.2, 0.3]) * np.exp([0.5, -0.5, 1.0]), rtol=1e-6)


def test_registered_hooks_change_a_compiled_gradient_as_the_saved_values_change():
    """Compiled, a register_saved_tensors_hooks function's rules read pack-then-unpack of what they
    save: here every saved tensor is scaled by 3, so d(x * y)/dx reads 3y (PyNative calls no hook)."""
    def triple(t):
        return t * 3

    def same(t):
        return t

    @ms.register_saved_tensors_hooks(triple, same)
    def f(x, y):
        return ops.sum(x * y)

    x = Tensor(np.array([1.0, -2.0, 0.5], np.float32))
    y = Tensor(np.array([4.0, 0.25, -1.0], np.float32))
    gx, gy = ms.jit(ms.grad(f, grad_position=(0, 1)))(x, y)
    np.testing.assert_allclose(gx.asnumpy(), 3 * y.asnumpy())
    np.testing.assert_allclose(gy.asnumpy(), 3 * x.asnumpy())
    px, py = ms.grad(f, grad_position=(0, 1))(x, y)
    np.testing.assert_allclose(px.asnumpy(), y.asnumpy())


def test_graph_code_refuses_what_it_cannot_pack_at_the_users_line():
    def keep(t):
        return t

    @ms.register_saved_tensors_hooks(keep, keep)
    def looped(a):
        for _ in range(3):
            if ops.sum(a) > 0:
                a = a * a
        return a

    @ms.jit
    def f(a):
        return ms.grad(lambda v: ops.sum(looped(v)))(a)

    with pytest.raises(ms.CompileError, match="register_saved_tensors_hooks") as err:
        f(Tensor(np.ones(2, np.float32)))
    assert "test_saved_hooks.py" in str(err.value)

    @ms.jit
    def g(a):
        with ms.saved_tensors_hooks(lambda t: t, lambda t: t):
            return a * a

    with pytest.raises(ms.CompileError, match="with block") as err:
        g(Tensor(np.ones(2, np.float32)))
    assert "test_saved_hooks.py" in str(err.value)
