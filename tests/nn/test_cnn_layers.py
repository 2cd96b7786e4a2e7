"""CNN layers: MindSpore's Parameter names and shapes, BatchNorm's moving statistics updated the
same way eagerly and compiled, and the errors a user can cause - each MindSpore's class and
message, pointing at the user's line in graph code."""
from __future__ import annotations

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, nn, ops


def test_parameters_are_named_and_shaped_as_in_mindspore():
    assert nn.Conv1d(2, 4, 3).weight.shape == (4, 2, 1, 3)
    assert nn.Conv2dTranspose(4, 6, 3, group=2).weight.shape == (4, 3, 3, 3)
    c = nn.Conv2d(4, 8, (3, 5), group=2, has_bias=True)
    assert [(n, p.shape) for n, p in c.parameters_and_names()] == [("weight", (8, 2, 3, 5)), ("bias", (8,))]
    bn = nn.BatchNorm2d(3)
    assert [p.name for p in bn.get_parameters()] == ["mean", "variance", "gamma", "beta"]
    assert not bn.moving_mean.requires_grad and bn.gamma.requires_grad
    seq = nn.SequentialCell([nn.Conv2d(3, 3, 1), nn.BatchNorm2d(3)])
    assert [p.name for p in seq.get_parameters()] == ["0.weight", "1.moving_mean", "1.moving_variance", "1.gamma",
                                                      "1.beta"]
    assert repr(nn.MaxPool2d(2, 2)) == "MaxPool2d(kernel_size=2, stride=2, pad_mode=VALID)"


class TrainBN(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, weight_init="ones")
        self.bn = nn.BatchNorm2d(4, momentum=0.7)

    def construct(self, x):
        return ops.relu(self.bn(self.conv(x)))


def test_batchnorm_training_updates_moving_statistics_compiled_as_eagerly():
    x = Tensor(np.random.default_rng(0).uniform(-1, 1, (4, 3, 5, 5)).astype(np.float32))
    eager, compiled = TrainBN(), TrainBN()
    for net in (eager, compiled):
        net.set_train()
    f = ms.jit(compiled.construct)
    for _ in range(2):
        ye, yc = eager(x), f(x)
    np.testing.assert_allclose(yc.asnumpy(), ye.asnumpy(), rtol=1e-5, atol=1e-5)
    for a, b in ((eager.bn.moving_mean, compiled.bn.moving_mean), (eager.bn.moving_variance,
                                                                   compiled.bn.moving_variance)):
        np.testing.assert_allclose(b.asnumpy(), a.asnumpy(), rtol=1e-5, atol=1e-6)
    y = ops.conv2d(x, Tensor(np.ones((4, 3, 3, 3), np.float32)), pad_mode="same").asnumpy()
    m, v = y.mean((0, 2, 3)), y.var((0, 2, 3), ddof=1)
    want = 0.7 * (0.7 * 0 + 0.3 * m) + 0.3 * m
    np.testing.assert_allclose(eager.bn.moving_mean.asnumpy(), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(eager.bn.moving_variance.asnumpy(), 0.7 * (0.7 + 0.3 * v) + 0.3 * v, rtol=1e-5)


class User(nn.Cell):
    def __init__(self, layer):
        super().__init__()
        self.layer = layer

    def construct(self, x):
        return self.layer(x)        # the line errors point at


_LINE = User.construct.__code__.co_firstlineno + 1

ERRORS = [
    (lambda: nn.Conv2d(3, 4, 3), (2, 3, 5), ValueError, "For primitive[Conv2D], the x shape size must be equal to 4"),
    (lambda: nn.Conv2d(3, 4, 3), (1, 2, 6, 6), RuntimeError, "'C_in' of input 'x' shape divide by parameter 'group'"),
    (lambda: nn.Conv2d(2, 4, 5, pad_mode="valid"), (1, 2, 4, 4), ValueError,
     "input shape's h and w after padding must be greater than or equal to kernel_size's h and w"),
    (lambda: nn.Conv1d(2, 3, 3), (1, 4, 7), RuntimeError, "'C_in' of input 'x' shape divide by parameter 'group'"),
    (lambda: nn.BatchNorm2d(3), (2, 4, 3, 3), ValueError, "scale.shape[0] should be equal to input_x's channel"),
    (lambda: nn.BatchNorm2d(3), (2, 3, 3), ValueError, "For 'BatchNorm2d', the in_shape must have 4 dims, but got 3"),
    (lambda: nn.MaxPool2d(5, 1), (1, 2, 3, 3), ValueError, "the each element of the output shape must be larger than 0"),
    (lambda: nn.GroupNorm(2, 4), (2, 6, 3), ValueError, "must be equal to num_channels"),
]


@pytest.mark.parametrize("make, shape, cls, text", ERRORS)
def test_user_errors_point_at_the_users_line(make, shape, cls, text):
    net = User(make())
    x = Tensor(np.ones(shape, np.float32))
    with pytest.raises(cls) as eager:
        net(x)
    assert text in str(eager.value)
    with pytest.raises(cls) as compiled:
        ms.jit(net.construct)(x)
    msg = str(compiled.value)
    assert text in msg and f"test_cnn_layers.py:{_LINE}:" in msg and "pycompile/nn" not in msg.split("\n")[0]


@pytest.mark.parametrize("make, text", [
    (lambda: nn.Conv2d(4, 6, 3, group=4), "The argument 'group' should be divisible by 'in_channels' and 'out_channels'"),
    (lambda: nn.Conv2d(2, 3, 3, pad_mode="same", padding=1), "the 'pad' must be zero when 'pad_mode' is not 'pad'"),
    (lambda: nn.Conv2d(2, 3, 3, pad_mode="full"), "the 'pad_mode' must be str and must be in"),
    (lambda: nn.MaxPool2d(2, padding=1), "can not be set to non-default value when pad_mode is not 'pad'"),
    (lambda: nn.Dropout(p=1.0), "the 'p' must be a number in range [0, 1)"),
])
def test_constructor_errors(make, text):
    with pytest.raises(ValueError) as e:
        make()
    assert text in str(e.value)
