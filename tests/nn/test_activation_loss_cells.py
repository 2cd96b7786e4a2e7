"""Activation and loss Cells and functions: argument checks with MindSpore's exception classes,
Parameter naming, get_activation names, and the Cells inside a compiled network (against NumPy)."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, nn, ops

X = Tensor(np.linspace(-3, 3, 12, dtype=np.float32).reshape(3, 4))


@pytest.mark.parametrize("call, exc", [
    (lambda: ops.elu(X, 0.5), ValueError),
    (lambda: nn.ELU(alpha=0.7)(X), ValueError),
    (lambda: ops.celu(X, 0.0), ValueError),
    (lambda: ops.glu(Tensor(np.ones((2, 5), np.float32))), ValueError),
    (lambda: ops.prelu(X, Tensor(np.ones(3, np.float32))), ValueError),
    (lambda: ops.softplus(X, beta=0), ValueError),
    (lambda: ops.leaky_relu(X, "0.1"), TypeError),
    (lambda: ops.relu6(Tensor(np.array([1, 2], np.int32))), TypeError),
    (lambda: nn.Hardtanh(1.0, 1.0), ValueError),
    (lambda: nn.PReLU(channel=2, w=[0.1]), ValueError),
    (lambda: nn.PReLU(channel=0), ValueError),
    (lambda: nn.PReLU(w="x"), TypeError),
    (lambda: ops.cross_entropy(X, Tensor(np.array([0, 1, 2], np.int32)), reduction="avg"), ValueError),
    (lambda: ops.nll_loss(X, Tensor(np.zeros(3, np.float32))), TypeError),
    (lambda: ops.nll_loss(X, Tensor(np.zeros(4, np.int32))), ValueError),
    (lambda: ops.cross_entropy(X, Tensor(np.ones((3, 5), np.float32))), ValueError),
    (lambda: nn.CrossEntropyLoss(label_smoothing=1), ValueError),
    (lambda: nn.CrossEntropyLoss(ignore_index=1.5), TypeError),
    (lambda: nn.CrossEntropyLoss(weight=np.ones(3)), TypeError),
    (lambda: nn.CosineEmbeddingLoss(margin=1), TypeError),
    (lambda: nn.CosineEmbeddingLoss(margin=1.5), ValueError),
    (lambda: nn.FocalLoss(gamma=2), TypeError),
    (lambda: nn.DiceLoss(smooth=0.0), ValueError),
    (lambda: nn.KLDivLoss("avg"), ValueError),
    (lambda: ops.huber_loss(X, X, delta=0), ValueError),
    (lambda: nn.BCEWithLogitsLoss(weight=ms.Parameter(Tensor(np.ones(4, np.float32)), name="w")), TypeError),
])
def test_argument_errors(call, exc):
    with pytest.raises(exc):
        call()


def test_out_of_range_class_index_raises_eagerly_and_compiled():
    labels = Tensor(np.array([0, 4, 1], np.int32))
    with pytest.raises(RuntimeError):          # MindSpore's class (its GatherD raises it)
        ops.cross_entropy(X, labels)
    with pytest.raises(RuntimeError):
        ms.jit(_ce)(X, labels)
    # ignore_index is not an index: no error, and the row counts for nothing
    loss = ops.cross_entropy(X, Tensor(np.array([0, -100, 1], np.int32)), reduction="none")
    assert loss.asnumpy()[1] == 0


def _ce(x, t):
    return ops.cross_entropy(x, t)


def test_prelu_parameter_is_named_a_in_attribute_w():
    net = nn.PReLU(channel=3, w=0.1)
    assert [(path, p.name) for path, p in net.parameters_and_names()] == [("w", "a")]
    np.testing.assert_array_equal(net.w.asnumpy(), np.full(3, 0.1, np.float32))


@pytest.mark.parametrize("name, cls", [("relu6", nn.ReLU6), ("silu", nn.SiLU), ("leakyrelu", nn.LeakyReLU),
                                       ("elu", nn.ELU), ("mish", nn.Mish), ("softsign", nn.Softsign),
                                       ("tanhshrink", nn.Tanhshrink), ("logsigmoid", nn.LogSigmoid),
                                       ("prelu", nn.PReLU), ("hardtanh", nn.Hardtanh), ("softmin", nn.Softmin)])
def test_get_activation_names(name, cls):
    assert isinstance(nn.get_activation(name), cls)


class Net(nn.Cell):
    """Activations after Dense layers and a loss, as model code writes them."""

    def __init__(self):
        super().__init__()
        w = Tensor(np.linspace(-1, 1, 32, dtype=np.float32).reshape(8, 4))
        self.fc = nn.Dense(4, 8, weight_init=w, bias_init="zeros", activation="leakyrelu")
        self.act = nn.SequentialCell([nn.SiLU(), nn.Mish(), nn.PReLU(), nn.Hardtanh(-2.0, 2.0)])
        self.loss = nn.CrossEntropyLoss(label_smoothing=0.1)

    def construct(self, x, t):
        h = self.act(self.fc(x))
        return h, self.loss(h, t)


def _ref(x, t):
    w = np.linspace(-1, 1, 32).reshape(8, 4)
    h = x.astype(np.float64) @ w.T
    h = np.maximum(0.2 * h, h)
    h = h / (1 + np.exp(-h))
    h = h * np.tanh(np.log1p(np.exp(h)))
    h = np.clip(np.where(h > 0, h, 0.25 * h), -2, 2)
    logp = h - h.max(1, keepdims=True)
    logp = logp - np.log(np.exp(logp).sum(1, keepdims=True))
    nll = -logp[np.arange(len(t)), t].mean()
    return h, 0.9 * nll + 0.1 / 8 * (-logp.sum(1)).mean()


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_cells_in_a_network(mode):
    ms.set_context(mode=mode)
    x = np.linspace(-2, 2, 20, dtype=np.float32).reshape(5, 4)
    t = np.array([0, 7, 3, 3, 1], np.int32)
    h, loss = Net()(Tensor(x), Tensor(t))
    rh, rl = _ref(x, t)
    np.testing.assert_allclose(h.asnumpy(), rh, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(loss.asnumpy(), rl, rtol=1e-5)
