"""LeNet-5 and a ResNet basic block (BatchNorm in training mode) trained 20 steps with Momentum
give MindSpore 2.10's losses (tests/oracle/data/cnn_training.json, recorded with TrainOneStepCell
and nn.Momentum) to 1e-4 relative - eagerly and as one compiled training step per call. The
step is written with value_and_grad and Assign (MindSpore's Momentum update:
v = momentum * v + grad, w -= lr * v) until pycompile has the training wrappers."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

import pycompile as ms
from pycompile import Parameter, Tensor, nn, ops

ORACLE = Path(__file__).resolve().parent.parent / "oracle"
sys.path.insert(0, str(ORACLE))
import cnn_training_models as M  # noqa: E402

RECORDED = json.loads((ORACLE / "data" / "cnn_training.json").read_text())


def make_step(net):
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    weights = net.trainable_params()
    moments = [Parameter(Tensor(np.zeros(p.shape, np.float32)), name="moment." + p.name) for p in weights]

    def forward(x, y):
        return loss_fn(net(x), y)

    grad_fn = ms.value_and_grad(forward, None, weights)

    def step(x, y):
        loss, grads = grad_fn(x, y)
        for w, m, g in zip(weights, moments, grads):
            ops.assign(m, m * M.MOMENTUM + g)
            ops.assign(w, w - M.LR * m)
        return loss
    return step


@pytest.mark.parametrize("compiled", [False, True], ids=["pynative", "compiled"])
@pytest.mark.parametrize("name", ["lenet5", "basic_block"])
def test_twenty_steps_give_mindsporess_losses(name, compiled):
    net, data = M.make(ms)[name]
    step = make_step(net)
    if compiled:
        step = ms.jit(step)
    losses = [float(step(Tensor(x), Tensor(y)).asnumpy()) for x, y in data]
    np.testing.assert_allclose(losses, RECORDED["losses"][name], rtol=1e-4)
