"""The spec's Network (004: Accelerating with Static Graphs) runs in PyNative mode."""
import numpy as np

import pycompile as ms
from pycompile import Tensor, nn


class Network(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.dense_relu_sequential = nn.SequentialCell(
            nn.Dense(28 * 28, 512), nn.ReLU(), nn.Dense(512, 512), nn.ReLU(), nn.Dense(512, 10))

    def construct(self, x):
        return self.dense_relu_sequential(self.flatten(x))


def test_spec_network_pynative_matches_numpy():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    model = Network()
    x = np.ones([64, 1, 28, 28], np.float32)
    out = model(Tensor(x))
    assert isinstance(out, Tensor)
    assert out.shape == (64, 10) and out.dtype == ms.float32
    ref = x.reshape(64, -1)
    seq = model.dense_relu_sequential
    for i in (0, 2, 4):
        d = seq[i]
        ref = ref @ d.weight.asnumpy().T + d.bias.asnumpy()
        if i != 4:
            ref = np.maximum(ref, 0)
    np.testing.assert_allclose(out.asnumpy(), ref, rtol=1e-5, atol=1e-6)
