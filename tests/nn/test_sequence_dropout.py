"""Dropout inside sequence layers in graph-mode training: nn.LSTM (between layers),
nn.MultiheadAttention (on the attention weights) and a Transformer layer (attention,
feed-forward and residual dropouts) trained with TrainOneStepCell + Momentum in GRAPH_MODE draw
the same masks as PyNative from the same seed (one Philox stream, ops/defs/random.py), so the
losses and the updated weights equal PyNative's; and the masks are really drawn (training
differs from evaluation, and each step draws new ones)."""
import numpy as np

import pycompile as ms
from pycompile import Tensor, nn

RNG = np.random.default_rng(0)
X = Tensor(RNG.standard_normal((5, 3, 8)).astype(np.float32))
LABELS = Tensor(np.array([0, 1, 2], np.int32))


class Stack(nn.Cell):
    """The sequence layers with dropout, in one small network (one compile): an LSTM with
    dropout between its layers (GRU and RNN share that code: nn/rnn.py; test_rnn.py checks them
    compiled), then a Transformer decoder layer - two MultiheadAttentions dropping attention
    weights, and the feed-forward and residual dropouts; a Dense on the output and the mean over
    time give (batch, 4) logits."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 16, num_layers=2, dropout=0.5)
        self.dec = nn.TransformerDecoderLayer(16, 4, 32, dropout=0.3)
        self.fc = nn.Dense(16, 4)

    def construct(self, x):
        h = self.lstm(x)[0]
        return self.fc(self.dec(h, h)).mean(0)


def _train(mode, steps=2):
    ms.set_context(mode=mode)
    ms.set_seed(1)                          # the same initial weights in both modes
    net = Stack()
    loss = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
    step = nn.TrainOneStepCell(loss, nn.Momentum(net.trainable_params(), 0.1, 0.9))
    step.set_train(True)
    ms.set_seed(7)
    losses = [float(step(X, LABELS).asnumpy()) for _ in range(steps)]
    return net, losses, [p.asnumpy() for p in net.trainable_params()]


def test_graph_mode_training_draws_pynative_masks():
    _, eager, w_eager = _train(ms.PYNATIVE_MODE)
    _, graph, w_graph = _train(ms.GRAPH_MODE)
    np.testing.assert_allclose(graph, eager, rtol=1e-5)
    for a, b in zip(w_graph, w_eager):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)
    # dropout is active: the first step's loss is not the evaluation-mode loss of the same weights
    fresh, _, _ = _train(ms.PYNATIVE_MODE, steps=0)
    fresh.set_train(False)
    eval_loss = float(nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")(fresh(X), LABELS).asnumpy())
    assert abs(eval_loss - eager[0]) > 1e-4, "training mode drew no dropout mask"
    assert eager[1] != eager[0]
