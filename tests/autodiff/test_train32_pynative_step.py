"""PyNative's training step (issue 32 item 4, branch train32):

* the ReLU gradient on plain Tensors (ops/grads/_eager_relu.py): two integer passes over ReLU's
  output instead of Greater + Select, with Select's bits - on edge values of x (NaN of both
  signs, +-0, +-inf, subnormals) and of the cotangent, float32 and float64 - and LeNet-5's
  Parameters after PyNative training steps are byte for byte those of the rule's Select path;
* the tape (ops/autodiff/tape.py `GradTrace.infers_itself`): an op on watched values is inferred
  once, by its call on the primals (a plan hit when warm), not first on the tracers as well; its
  errors are the same."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, nn, ops
from pycompile.ops import functional as F
from pycompile.ops.grads import _eager_relu, core

EDGES = [np.nan, -np.nan, 0.0, -0.0, np.inf, -np.inf, 1e-45, -1e-45, 5e-324, -5e-324, 1.0, -1.0, 3e38, -2.5]


def _select_path(g, out):
    return F.select(F.greater(out, 0), g, 0).asnumpy()


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_fast_relu_grad_has_selects_bits_on_edge_values(dt):
    rng = np.random.default_rng(3)
    x = np.concatenate([np.array(EDGES, dt), rng.standard_normal(200).astype(dt)])
    gs = np.concatenate([np.array(EDGES[::-1], dt), rng.standard_normal(200).astype(dt)])
    xs, gv = np.meshgrid(x, gs, indexing="ij")         # every x edge against every g edge
    scalar = _eager_relu.relu_grad(Tensor(dt(-0.0)), ops.relu(Tensor(dt(2.0))))            # 0-d
    assert scalar.shape == () and str(scalar.asnumpy().tobytes()) == str(np.array(-0.0, dt).tobytes())
    out = ops.relu(Tensor(np.ascontiguousarray(xs)))
    g = Tensor(np.ascontiguousarray(gv))
    got = _eager_relu.relu_grad(g, out)
    assert got is not None and got.dtype == out.dtype and got.shape == out.shape
    want = _select_path(g, out)
    np.testing.assert_array_equal(got.asnumpy().view(np.uint8), want.view(np.uint8))


def test_the_rule_runs_where_the_argument_does_not_hold():
    f16 = Tensor(np.ones((3,), np.float16))
    f32 = Tensor(np.ones((3,), np.float32))
    assert _eager_relu.relu_grad(f16, f16) is None                  # float16: Select's float32 round trip
    assert _eager_relu.relu_grad(f32, Tensor(np.ones((3,), np.float64))) is None
    assert _eager_relu.relu_grad(Tensor(np.ones((1,), np.float32)), f32) is None     # a broadcast cotangent
    p = ms.Parameter(f32, name="p")
    assert _eager_relu.relu_grad(f32, p) is None


def test_grad_of_grad_through_relu_takes_the_rule():
    # the inner rule sees the outer tape's tracers: the fast path steps aside, the result is exact
    x = Tensor(np.array([-1.0, 0.5, 2.0], np.float32))
    d2 = ms.grad(ms.grad(lambda v: (ops.relu(v) * v).sum()))(x)
    np.testing.assert_array_equal(d2.asnumpy(), np.array([0.0, 2.0, 2.0], np.float32))


class _Net(nn.Cell):
    """LeNet-5's layers on 16 x 16 images (the suite runs PyNative on NumPy: a small batch)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid")
        self.conv2 = nn.Conv2d(6, 16, 3, pad_mode="valid")
        self.fc1 = nn.Dense(16 * 2 * 2, 12)
        self.fc2 = nn.Dense(12, 10)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()

    def construct(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.pool(self.relu(self.conv2(x)))
        return self.fc2(self.relu(self.fc1(self.flatten(x))))


def _train(steps: int) -> list:
    ms.set_seed(5)
    net = _Net()
    loss = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
    step = nn.TrainOneStepCell(loss, nn.Momentum(net.trainable_params(), learning_rate=0.05, momentum=0.9))
    rng = np.random.default_rng(7)
    x = Tensor(rng.standard_normal((4, 1, 16, 16)).astype(np.float32))
    y = Tensor(rng.integers(0, 10, 4).astype(np.int32))
    for _ in range(steps):
        step(x, y)
    return [p.asnumpy().tobytes() for p in net.trainable_params()]


def test_lenet_steps_equal_the_select_path_byte_for_byte(monkeypatch):
    calls = []
    real = core.relu_grad_eager
    monkeypatch.setattr(core, "relu_grad_eager", lambda g, out: calls.append(1) or real(g, out))
    fast = _train(3)
    assert len(calls) == 9                      # three ReLUs a step, each on the fast path
    monkeypatch.setattr(core, "relu_grad_eager", lambda g, out: None)
    assert fast == _train(3)


def test_a_recorded_op_is_not_inferred_on_its_tracers():
    from pycompile.ops import prims as P
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    f = ms.grad(lambda v: ops.exp(v).sum())
    f(x)                                                    # warm: the primal call's plan exists
    calls = []
    real = P.Exp.infer
    object.__setattr__(P.Exp, "infer", lambda *a, **k: calls.append(1) or real(*a, **k))   # a frozen row
    try:
        np.testing.assert_allclose(f(x).asnumpy(), np.exp(x.asnumpy()), rtol=1e-6)
    finally:
        object.__setattr__(P.Exp, "infer", real)
    assert calls == []


def test_errors_of_a_recorded_op_are_its_errors():
    from pycompile.ops import _table
    from pycompile.ops import prims as P
    a, b = Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((4, 5), np.float32))
    with pytest.raises(ValueError) as plain:
        _table.apply(P.MatMul, [a, b])
    with pytest.raises(ValueError) as recorded:
        ms.grad(lambda u: _table.apply(P.MatMul, [u, b]).sum())(a)
    assert str(recorded.value) == str(plain.value)


def test_a_cotangent_that_fits_is_returned_without_building_types(monkeypatch):
    from pycompile.ops.autodiff import tape
    seen = []
    real = tape.type_of
    monkeypatch.setattr(tape, "type_of", lambda v: seen.append(v) or real(v))
    c = Tensor(np.ones((2, 3), np.float32))
    assert tape.fit(c, ms.Parameter(Tensor(np.zeros((2, 3), np.float32)), name="w")) is c
    assert tape._is_tensor(c) and seen == []
    # broadcast axes are summed and dtypes cast as before
    np.testing.assert_array_equal(tape.fit(c, Tensor(np.zeros((3,), np.float32))).asnumpy(), [2, 2, 2])
    assert tape.fit(c, Tensor(np.zeros((2, 3), np.float64))).dtype == ms.float64
