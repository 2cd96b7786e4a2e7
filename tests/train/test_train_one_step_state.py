"""TrainOneStepCell runs the network's forward once per step: a BatchNorm's moving statistics
move once (moving = 0.9 moving + 0.1 batch mean, from zero: 0.1 batch mean), as in MindSpore, in
PyNative and compiled. Before, the loss and the gradients came from two forward calls and the
statistics moved twice (0.19 batch mean)."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import nn


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("sens", [None, 2.0])
def test_batchnorm_statistics_move_once_per_step(mode, sens):
    ms.set_context(mode=mode)
    net = nn.SequentialCell([nn.Dense(4, 4), nn.BatchNorm1d(4)])
    net.set_train()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.SGD(net.trainable_params(), 0.1), sens=sens)
    x = np.random.default_rng(0).standard_normal((8, 4)).astype(np.float32)
    y = np.zeros((8, 4), np.float32)
    w, b = net[0].weight.asnumpy().copy(), net[0].bias.asnumpy().copy()
    loss = step(ms.Tensor(x), ms.Tensor(y))
    h = x.astype(np.float64) @ w.T + b
    np.testing.assert_allclose(net[1].moving_mean.asnumpy(), 0.1 * h.mean(0), rtol=1e-5, atol=1e-7)
    # the returned loss is the forward's: BatchNorm of h in training mode (gamma 1, beta 0), squared
    norm = (h - h.mean(0)) / np.sqrt(h.var(0) + 1e-5)
    np.testing.assert_allclose(loss.asnumpy(), (norm ** 2).mean(), rtol=1e-4)
