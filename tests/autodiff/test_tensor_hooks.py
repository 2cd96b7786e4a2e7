"""Tensor.register_hook where the conformance table (tests/conformance/cases_hooks.py, recorded from
MindSpore 2.10) cannot reach: graph code's limits (the wheel's RuntimeError for two hooks on one
tensor; a hook on a tensor already used, which MindSpore documents as unsupported), a Parameter's
hooks in a compiled GRAPH_MODE gradient (registering and removing recompile), and a compiled
gradient whose argument carries hooks. Expected values are NumPy's."""
from __future__ import annotations

import numpy as np
import pytest

import pycompile as ms
from pycompile import Parameter, Tensor, nn, ops


def _square_plus_one(g):
    return g * g + 1


@pytest.fixture
def graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def test_graph_code_refuses_a_second_hook_on_one_tensor():
    @ms.jit
    def f(a):
        z = a * 1
        z.register_hook(_square_plus_one)
        z.register_hook(_square_plus_one)
        return ops.sum(z)
    with pytest.raises(RuntimeError, match="It is not supported to register multiple hooks for a Tensor") as e:
        ms.grad(f)(Tensor(np.ones(3, np.float32)))
    assert "test_tensor_hooks.py" in str(e.value)          # the user's line


def test_graph_code_refuses_a_hook_on_a_tensor_already_used():
    @ms.jit
    def f(a):
        z = a * 1
        b = z * 3
        z.register_hook(_square_plus_one)
        return ops.sum(b + z)
    with pytest.raises(RuntimeError, match="register hook after the Tensor is used previously"):
        ms.grad(f)(Tensor(np.ones(3, np.float32)))


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([3.0, -4.0, 0.5], np.float32)), name="w")

    def construct(self, x):
        return ops.sum(ops.tanh(self.w * x))


def test_a_parameter_hook_applies_to_its_compiled_gradient_and_recompiles(graph_mode):
    net = _Net()
    x = np.array([0.2, 0.1, -1.0], np.float32)
    grad = ms.grad(net, grad_position=None, weights=net.trainable_params())
    plain = x * (1 - np.tanh(net.w.asnumpy() * x) ** 2)
    np.testing.assert_allclose(grad(Tensor(x))[0].asnumpy(), plain, rtol=1e-6)
    handle = net.w.register_hook(_square_plus_one)
    np.testing.assert_allclose(grad(Tensor(x))[0].asnumpy(), plain * plain + 1, rtol=1e-6)
    assert net.w.hooks() == [_square_plus_one]
    handle.remove()
    np.testing.assert_allclose(grad(Tensor(x))[0].asnumpy(), plain, rtol=1e-6)
    assert net.w.hooks() == []


def test_a_compiled_gradient_honours_its_arguments_hooks():
    @ms.jit
    def f(a):
        return ops.sum(ops.sin(a) * a)
    x = np.array([0.3, -1.2, 2.0], np.float32)
    t = Tensor(x)
    g = np.cos(x) * x + np.sin(x)
    np.testing.assert_allclose(ms.grad(f)(t).asnumpy(), g, rtol=1e-6)
    h = t.register_hook(_square_plus_one)
    np.testing.assert_allclose(ms.grad(f)(t).asnumpy(), g * g + 1, rtol=1e-6)
    Tensor.remove_hook(h.id)
    Tensor.remove_hook(h.id)                    # an id no longer registered: nothing happens
    np.testing.assert_allclose(ms.grad(f)(t).asnumpy(), g, rtol=1e-6)


def test_hooks_lists_them_in_order_and_run_in_that_order():
    def times3(g):
        return g * 3
    t = Tensor(np.array([1.0, 2.0], np.float32))
    t.register_hook(times3)
    t.register_hook(_square_plus_one)
    assert t.hooks() == [times3, _square_plus_one]
    got = ms.grad(lambda a: ops.sum(a * a))(t).asnumpy()
    np.testing.assert_allclose(got, (2 * np.array([1.0, 2.0]) * 3) ** 2 + 1, rtol=1e-6)
