"""LeNet-5 and a ResNet basic block (BatchNorm in training mode) trained 20 steps give MindSpore
2.10's losses (tests/oracle/data/cnn_training.json) to 1e-4 relative, written exactly as the
recording script is: TrainOneStepCell(WithLossCell(net, SoftmaxCrossEntropyWithLogits), nn.Momentum)
called once per batch - in PyNative mode, and in GRAPH_MODE where each call runs the compiled step."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, nn

ORACLE = Path(__file__).resolve().parent.parent / "oracle"
sys.path.insert(0, str(ORACLE))
import cnn_training_models as M  # noqa: E402

RECORDED = json.loads((ORACLE / "data" / "cnn_training.json").read_text())


@pytest.mark.parametrize("mode", ["pynative", "graph"])
@pytest.mark.parametrize("name", ["lenet5", "basic_block"])
def test_twenty_steps_give_mindsporess_losses(name, mode):
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    net, data = M.make(ms)[name]
    loss_net = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
    opt = nn.Momentum(net.trainable_params(), learning_rate=M.LR, momentum=M.MOMENTUM)
    step = nn.TrainOneStepCell(loss_net, opt)
    step.set_train(True)
    losses = [float(step(Tensor(x), Tensor(y)).asnumpy()) for x, y in data]
    np.testing.assert_allclose(losses, RECORDED["losses"][name], rtol=1e-4)
    # GRAPH_MODE ran the step compiled: one specialization, compiled once and reused 19 times
    assert len(step.__dict__.get("_pycompile_graph_cache", {})) == (mode == "graph")
