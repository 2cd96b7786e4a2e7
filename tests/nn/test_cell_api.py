"""nn.Cell's API of nn/cell_api.py beyond what the conformance table records
(tests/conformance/cases_cell_api.py): recompute changes no value of a training step, eager or
compiled; the state dict round trip; buffers, dtypes and flags changed after a compiled call are
seen by the next one; backward pre-hooks on a tuple output, or with a forward hook registered after
them, or registered after a compile (the gradients quoted are MindSpore 2.10's, run on its wheel)."""
from __future__ import annotations

import copy

import numpy as np
import pytest

import pycompile as ms
from pycompile import Parameter, Tensor, nn, ops

W = np.array([[0.5, -1.0], [1.5, 0.25]], np.float32)
B = np.array([0.1, -0.2], np.float32)
MODES = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]


class Inner(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(2, 2, weight_init=Tensor(W), bias_init=Tensor(B))
        self.register_buffer("shift", Tensor(np.array([1.5, 2.5], np.float32)))

    def construct(self, x):
        return self.fc(x) + self.shift


class Outer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = Inner()
        self.w = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="w")
        self.register_buffer("ob", Tensor(np.array([7.0, -1.0], np.float32)))

    def construct(self, x):
        return self.inner(x) * self.w + self.ob


def outer_numpy(x, w=W, b=B, shift=(1.5, 2.5), scale=(1.0, 2.0), ob=(7.0, -1.0)):
    return (x @ np.asarray(w).T + b + np.asarray(shift)) * np.asarray(scale) + np.asarray(ob)


X = np.array([[1.0, -2.0], [0.5, 3.0], [-1.0, 0.25]], np.float32)


# ---- recompute ---------------------------------------------------------------------------------------

class MLP(nn.Cell):
    def __init__(self, recompute):
        super().__init__()
        w1 = np.linspace(-1, 1, 8, dtype=np.float32).reshape(4, 2)
        self.body = nn.SequentialCell(nn.Dense(2, 4, weight_init=Tensor(w1), bias_init="zeros"), nn.Tanh(),
                                      nn.Dense(4, 2, weight_init=Tensor(np.full((2, 4), 0.3, np.float32)),
                                               bias_init="ones"))
        self.head = nn.Dense(2, 1, weight_init=Tensor(np.array([[0.7, -0.4]], np.float32)), bias_init="zeros")
        if recompute:
            self.body.recompute()

    def construct(self, x):
        return self.head(self.body(x))


def _train(recompute: bool, mode, steps: int = 3):
    ms.set_context(mode=mode)
    net = MLP(recompute)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1))
    step.set_train()
    x, y = Tensor(X), Tensor(np.array([[1.0], [-1.0], [0.5]], np.float32))
    losses = [float(step(x, y).asnumpy()) for _ in range(steps)]
    return losses, [p.asnumpy().copy() for p in net.get_parameters()]


@pytest.mark.parametrize("mode", MODES)
def test_recompute_changes_no_value_of_a_training_step(mode):
    plain_losses, plain_params = _train(False, mode)
    losses, params = _train(True, mode)
    assert losses == plain_losses and plain_losses[-1] < plain_losses[0]
    for a, b in zip(params, plain_params):
        np.testing.assert_array_equal(a, b)


# ---- state dict -------------------------------------------------------------------------------------

def test_state_dict_round_trip_keeps_the_parameter_objects():
    a, b = Outer(), Outer()
    for k, p in enumerate(a.get_parameters()):
        p.set_data(Tensor(np.full(p.shape, 0.25 * (k + 1), np.float32)))
    a.register_buffer("ob", Tensor(np.array([3.0, 4.0], np.float32)))
    before = {k: v for k, v in b.state_dict().items()}
    assert repr(b.load_state_dict(a.state_dict())) == "<All keys matched successfully>"
    after = b.state_dict()
    assert list(after) == ["w", "ob", "inner.shift", "inner.fc.weight", "inner.fc.bias"]
    for key, value in a.state_dict().items():
        np.testing.assert_array_equal(after[key].asnumpy(), value.asnumpy())
        assert after[key] is before[key]            # written into, not replaced
    np.testing.assert_allclose(b(Tensor(X)).asnumpy(), a(Tensor(X)).asnumpy())


def test_an_optimizer_built_before_load_state_dict_trains_the_loaded_values():
    net = Outer()
    opt = nn.SGD(net.trainable_params(), 1.0)
    net.load_state_dict({**net.state_dict(), "w": Tensor(np.array([5.0, 6.0], np.float32))})
    opt((Tensor(np.array([1.0, 1.0], np.float32)), Tensor(np.zeros((2, 2), np.float32)),
         Tensor(np.zeros(2, np.float32))))
    np.testing.assert_array_equal(net.w.asnumpy(), [4.0, 5.0])


@pytest.mark.parametrize("mode", MODES)
def test_a_compiled_call_after_load_state_dict_sees_the_new_buffers(mode):
    """pycompile recompiles a Cell whose buffers (constants of its compiled code) were loaded, its
    own or a sub-Cell's; MindSpore 2.10's GRAPH_MODE keeps computing with the old values."""
    ms.set_context(mode=mode)
    net = Outer()
    np.testing.assert_allclose(net(Tensor(X)).asnumpy(), outer_numpy(X), rtol=1e-6)
    net.load_state_dict({**net.state_dict(), "ob": Tensor(np.array([100.0, 200.0], np.float32)),
                         "inner.shift": Tensor(np.array([-1.0, 1.0], np.float32))})
    np.testing.assert_allclose(net(Tensor(X)).asnumpy(), outer_numpy(X, shift=(-1, 1), ob=(100, 200)), rtol=1e-6)
    net.inner.register_buffer("shift", Tensor(np.array([0.0, 0.0], np.float32)))
    net.register_buffer("ob", Tensor(np.array([1.0, 1.0], np.float32)))
    np.testing.assert_allclose(net(Tensor(X)).asnumpy(), outer_numpy(X, shift=(0, 0), ob=(1, 1)), rtol=1e-6)


def test_buffers_survive_a_deep_copy_as_buffers():
    net = Outer()
    twin = copy.deepcopy(net)
    assert [k for k, _ in twin.named_buffers()] == ["ob", "inner.shift"]
    assert twin.get_buffer("inner.shift") is twin.inner.shift and twin.inner.shift is not net.inner.shift
    np.testing.assert_allclose(twin(Tensor(X)).asnumpy(), net(Tensor(X)).asnumpy())


# ---- to / flags after a compiled call ----------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_to_after_a_compiled_call_recompiles_with_the_new_dtype(mode):
    ms.set_context(mode=mode)
    net = Outer()
    net(Tensor(X))
    net.to(ms.float16)
    out = net(Tensor(X.astype(np.float16)))
    assert out.dtype == ms.float16 and net.inner.fc.weight.dtype == ms.float16
    np.testing.assert_allclose(out.asnumpy(), outer_numpy(X), rtol=1e-2, atol=1e-2)
    net.to(ms.float64)
    out = net(Tensor(X.astype(np.float64)))
    assert out.dtype == ms.float64
    np.testing.assert_allclose(out.asnumpy(), outer_numpy(X), rtol=1e-3)     # (float16 rounding kept)


class Branch(nn.Cell):
    def construct(self, x):
        return x * 2 if self.training else x


@pytest.mark.parametrize("mode", MODES)
def test_add_flags_changes_what_the_next_compiled_call_runs(mode):
    ms.set_context(mode=mode)
    net = Branch()
    x = Tensor(np.array([1.0, 2.0], np.float32))
    np.testing.assert_array_equal(net(x).asnumpy(), [1.0, 2.0])
    net.add_flags(training=True)
    np.testing.assert_array_equal(net(x).asnumpy(), [2.0, 4.0])
    assert net.get_flags() == {"training": True}


# ---- backward pre-hooks ------------------------------------------------------------------------------

class Two(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([2.0, 3.0], np.float32)), name="w")

    def construct(self, x):
        return x * self.w, x * 2


class SumOfTwo(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def construct(self, x):
        a, b = self.net(x)
        return a.sum() + (b * b).sum()


class One(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([2.0, 3.0], np.float32)), name="w")

    def construct(self, x):
        return x * self.w


class Times5(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def construct(self, x):
        return self.net(x) * 5


def _scale_two(cell, grad_output):
    return (grad_output[0] * 10, grad_output[1] * 100)


def _ones(cell, grad_output):
    return (ops.ones_like(grad_output[0]),)


def _times3(cell, args, output):
    return output * 3


def _times10(cell, grad_output):
    return (grad_output[0] * 10,)


XG = Tensor(np.array([1.0, -1.0], np.float32))


@pytest.mark.parametrize("mode", MODES)
def test_backward_pre_hook_on_a_tuple_output_sees_each_gradient(mode):
    ms.set_context(mode=mode)
    net = Two()
    net.register_backward_pre_hook(_scale_two)
    np.testing.assert_allclose(ms.grad(SumOfTwo(net))(XG).asnumpy(), [820.0, -770.0])


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("pre_first", [True, False])
def test_backward_pre_hooks_run_on_the_forward_hooks_output(mode, pre_first):
    """Whichever is registered first, the pre-hook replaces the gradient of what the forward hook
    returns: ones, times 3 through the hook, times w: [6, 9] (MindSpore 2.10's, both ways); on
    construct's own output it would give [2, 3]."""
    ms.set_context(mode=mode)
    net = One()
    if pre_first:
        net.register_backward_pre_hook(_ones)
        net.register_forward_hook(_times3)
    else:
        net.register_forward_hook(_times3)
        net.register_backward_pre_hook(_ones)
    np.testing.assert_allclose(ms.grad(Times5(net))(XG).asnumpy(), [6.0, 9.0])


@pytest.mark.parametrize("mode", MODES)
def test_backward_pre_hook_registered_after_a_compiled_call_is_used(mode):
    ms.set_context(mode=mode)
    net = One()
    top = Times5(net)
    np.testing.assert_allclose(ms.grad(top)(XG).asnumpy(), [10.0, 15.0])
    handle = net.register_backward_pre_hook(_times10)
    np.testing.assert_allclose(ms.grad(top)(XG).asnumpy(), [100.0, 150.0])
    handle.remove()
    np.testing.assert_allclose(ms.grad(top)(XG).asnumpy(), [10.0, 15.0])
    np.testing.assert_allclose(top(XG).asnumpy(), [10.0, -15.0])       # forward values unchanged
