"""A training loop whose learning rate changes every step compiles once (issue 15): a per-step
learning-rate list in the optimizer, a LearningRateSchedule Cell, and a Python float handed to a
@jit step through ms.mutable. Each run's final weights equal the same steps run in PyNative.
Without mutable a changing float is a compile-time constant, as in MindSpore: every new value
compiles, and the limit warning names the argument."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import api, nn, ops
from pycompile.common import log

STEPS = 200


@pytest.fixture
def compiles(monkeypatch):
    """The number of signatures compiled while the test runs."""
    count = [0]
    real = api._compile

    def counting(*a, **k):
        count[0] += 1
        return real(*a, **k)
    monkeypatch.setattr(api, "_compile", counting)
    return count


def _data():
    rng = np.random.default_rng(7)
    return (ms.Tensor(rng.standard_normal((8, 4)).astype(np.float32)),
            ms.Tensor(rng.standard_normal((8, 3)).astype(np.float32)))


def _net():
    ms.set_seed(3)
    net = nn.Dense(4, 3, weight_init="normal")
    return net


def _weights(net):
    return [p.asnumpy().copy() for p in net.trainable_params()]


def _lrs():
    return [float(0.05 * (1 + np.cos(np.pi * k / STEPS)) / 2 + 1e-3) for k in range(STEPS)]


def _train_wrapped(mode, learning_rate):
    ms.set_context(mode=mode)
    try:
        net = _net()
        opt = nn.Momentum(net.trainable_params(), learning_rate=learning_rate, momentum=0.9)
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
        x, y = _data()
        losses = [float(step(x, y).asnumpy()) for _ in range(STEPS)]
        return _weights(net), losses
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize("schedule", ["list", "cell"])
def test_per_step_learning_rate_in_the_optimizer_compiles_once(schedule, compiles):
    lr = _lrs() if schedule == "list" else nn.CosineDecayLR(0.001, 0.05, STEPS)
    want_w, want_losses = _train_wrapped(ms.PYNATIVE_MODE, lr)
    assert compiles[0] == 0
    lr = _lrs() if schedule == "list" else nn.CosineDecayLR(0.001, 0.05, STEPS)
    got_w, got_losses = _train_wrapped(ms.GRAPH_MODE, lr)
    assert compiles[0] == 1
    np.testing.assert_allclose(got_losses, want_losses, rtol=1e-4, atol=1e-6)
    for g, w in zip(got_w, want_w):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-6)
    assert want_losses[-1] < want_losses[0] * 0.5          # it trained


def _sgd_step_parts():
    net = _net()
    params = net.trainable_params()
    loss_fn = nn.MSELoss()

    def forward(x, y):
        return loss_fn(net(x), y)
    return net, params, ms.value_and_grad(forward, None, params)


def _sgd_jit_step():
    """(net, params, a @jit SGD step taking the learning rate as an argument)."""
    net, params, grad_fn = _sgd_step_parts()

    @ms.jit
    def step(x, y, lr):
        loss, grads = grad_fn(x, y)
        for p, g in zip(params, grads):
            ops.assign(p, p - lr * g)
        return loss
    return net, params, step


def test_mutable_learning_rate_compiles_once(compiles):
    net, params, step = _sgd_jit_step()

    x, y = _data()
    losses = [float(step(x, y, ms.mutable(lr)).asnumpy()) for lr in _lrs()]
    assert compiles[0] == 1
    got = _weights(net)

    ref, ref_params, ref_grad = _sgd_step_parts()          # the same steps in PyNative
    want_losses = []
    for lr in _lrs():
        loss, grads = ref_grad(x, y)
        for p, g in zip(ref_params, grads):
            ops.assign(p, p - lr * g)
        want_losses.append(float(loss.asnumpy()))
    np.testing.assert_allclose(losses, want_losses, rtol=1e-4, atol=1e-6)
    for g, w in zip(got, _weights(ref)):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-6)


def test_mutable_values_keep_their_python_behaviour():
    f, i, b = ms.mutable(0.5), ms.mutable(3), ms.mutable(True)
    assert f == 0.5 and f * 2 == 1.0 and isinstance(f, float)
    assert i + 1 == 4 and isinstance(i, int) and range(i) == range(3)
    assert b == True and isinstance(b, bool) and repr(b) == "True"     # noqa: E712
    t = ms.mutable((1, 2.5))
    assert t == (1, 2.5) and all(getattr(v, "__ms_mutable__", False) for v in t)
    with pytest.raises(TypeError, match="For 'mutable', the 'input_data' should be one of"):
        ms.mutable("text")
    with pytest.raises(TypeError, match="when the variable_len is True"):
        ms.mutable(1.0, dynamic_len=True)


def test_mutable_numbers_are_float32_and_int64_in_compiled_code():
    """MindSpore 2.10 (recorded with its wheel: f(x, mutable(0.5), mutable(3)) and then
    f(x, mutable(0.25), mutable(4))) gives Float32 [0.5 0.5], Float32 [3. 3.], 1.5, then
    [0.25 0.25], [4. 4.], 1.0 - s * n a Python float."""
    @ms.jit
    def f(x, s, n):
        return x * s, x * n, s * n

    x = ms.Tensor(np.ones(2, np.float32))
    a, b, c = f(x, ms.mutable(0.5), ms.mutable(3))
    assert a.dtype == ms.float32 and b.dtype == ms.float32
    np.testing.assert_array_equal(a.asnumpy(), [0.5, 0.5])
    np.testing.assert_array_equal(b.asnumpy(), [3, 3])
    assert type(c) is float and c == 1.5
    a2, b2, c2 = f(x, ms.mutable(0.25), ms.mutable(4))          # no recompile, new values
    np.testing.assert_array_equal(a2.asnumpy(), [0.25, 0.25])
    np.testing.assert_array_equal(b2.asnumpy(), [4, 4])
    assert type(c2) is float and c2 == 1.0


def test_a_plain_float_recompiles_and_warns_naming_it(compiles, capsys, monkeypatch):
    monkeypatch.delenv("PYCOMPILE_LOG", raising=False)
    log.configure("")
    net, params, step = _sgd_jit_step()

    x, y = _data()
    for lr in _lrs()[:10]:
        step(x, y, lr)
    assert compiles[0] == 10
    err = [ln for ln in capsys.readouterr().err.splitlines() if "recompiled" in ln]
    assert len(err) == 1 and "argument 'lr'" in err[0] and "ms.mutable" in err[0], err
