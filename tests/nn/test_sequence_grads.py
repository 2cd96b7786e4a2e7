"""Gradients through the sequence layers and losses (compositions of table ops, differentiated
by the autodiff engine, eager and compiled) against central finite differences of the NumPy
references of test_rnn.py / test_attention.py in float64. The layers run in float32 (MindSpore
refuses float64 inputs to them), so the tolerance is float32's."""
import numpy as np
import pytest

from test_attention import MHA, mha_reference
from test_rnn import reference

import pycompile as ms
from pycompile import Tensor, nn, ops

RNG = np.random.default_rng(21)


def numeric(f, arrays, k, eps=1e-6):
    g = np.zeros(arrays[k].shape)
    for i in range(g.size):
        for sign in (1, -1):
            a = [x.copy() for x in arrays]
            a[k].reshape(-1)[i] += sign * eps
            g.reshape(-1)[i] += sign * f(a) / (2 * eps)
    return g


def _flat(v):
    if isinstance(v, (tuple, list)):
        return [a for x in v for a in _flat(x)]
    return [v]


@pytest.mark.parametrize("kind, kw", [("LSTM", dict(num_layers=2)), ("GRU", dict(bidirectional=True)),
                                      ("RNN", dict())])
@pytest.mark.parametrize("compiled", [False, True])
def test_recurrent_gradients(kind, kw, compiled):
    ms.set_seed(9)
    net = getattr(nn, kind)(3, 4, **kw)
    x = RNG.uniform(-1, 1, (4, 2, 3)).astype(np.float32)
    lengths = np.array([4, 2], np.int32)
    params = list(net.trainable_params())
    shapes = [r.shape for r in _flat(reference(net, x, lengths=lengths))]
    weights = [RNG.standard_normal(s) for s in shapes]

    def loss(x_, lens):
        outs = _flat(net(x_, seq_length=lens))
        return sum((o * Tensor(w.astype(np.float32))).sum() for o, w in zip(outs, weights))

    grad = ms.grad(loss, 0, params)
    if compiled:
        grad = ms.jit(grad)
    gx, gw = grad(Tensor(x), Tensor(lengths))
    names = [p.name for p in params]

    def f64(arrays):
        view = _Float64View(net, dict(zip(names, arrays[1:])))
        return sum((o * w).sum() for o, w in zip(_flat(reference(view, arrays[0], lengths=lengths)), weights))

    base = [x.astype(np.float64)] + [p.asnumpy().astype(np.float64) for p in params]
    for k, g in enumerate([gx] + list(gw)):
        np.testing.assert_allclose(g.asnumpy(), numeric(f64, base, k), rtol=2e-3, atol=2e-4, err_msg=(["x"] + names)[k])


class _Float64View:
    """The attributes `reference` reads, with float64 Parameter values."""

    def __init__(self, net, values):
        self._net, self._values = net, values

    def __getattr__(self, name):
        return getattr(self._net, name)

    def parameters_and_names(self):
        return [(n, _Arr(v)) for n, v in self._values.items()]


class _Arr:
    def __init__(self, a):
        self._a = a

    def asnumpy(self):
        return self._a


def test_attention_gradients_compiled():
    ms.set_seed(3)
    net = MHA(need_weights=True)
    for _, p in net.parameters_and_names():
        p.set_data(Tensor(RNG.uniform(-0.5, 0.5, p.shape).astype(np.float32)))
    q = RNG.uniform(-1, 1, (3, 2, 8)).astype(np.float32)
    mask = np.triu(np.ones((3, 3), bool), 1)
    params = list(net.trainable_params())
    w_out = RNG.standard_normal((3, 2, 8))

    def loss(x, m):
        out, _ = net(x, x, x, None, m)
        return (out * Tensor(w_out.astype(np.float32))).sum()

    gx, gw = ms.jit(ms.grad(loss, 0, params))(Tensor(q), Tensor(mask))

    def f64(arrays):
        view = _Float64View(net.attn, {p.name: a for p, a in zip(params, arrays[1:])})
        out, _ = mha_reference(view, arrays[0], arrays[0], arrays[0], None, mask)
        return (out * w_out).sum()

    base = [q.astype(np.float64)] + [p.asnumpy().astype(np.float64) for p in params]
    for k, g in enumerate([gx] + list(gw)):
        np.testing.assert_allclose(g.asnumpy(), numeric(f64, base, k), rtol=2e-3, atol=2e-4)


LOSSES = [
    ("cross_entropy", lambda x, t: ops.cross_entropy(x, t, Tensor(np.array([1.0, 2.0, 0.5, 1.5, 1.0])), 4, "mean", 0.1)),
    ("nll_loss sum", lambda x, t: ops.nll_loss(ops.log_softmax(x, 1), t, reduction="sum")),
    ("bce_with_logits", lambda x, t: ops.binary_cross_entropy_with_logits(x, ops.sigmoid(x * 0 + 0.3),
                                                                          pos_weight=Tensor(np.full(5, 2.0)))),
    ("smooth_l1", lambda x, t: ops.smooth_l1_loss(x, x * 0.3 + 0.2, 0.5, "mean")),
    ("kl_div", lambda x, t: ops.kl_div(ops.log_softmax(x, 1), ops.softmax(x * 0 + 1.0, 1), "batchmean")),
    ("multilabel", lambda x, t: ops.multilabel_soft_margin_loss(x, ops.cast(ops.greater(x, 0.5), x.dtype) * 0 + 0.5)),
    ("activations", lambda x, t: (ops.leaky_relu(x, 0.1) + ops.hardtanh(x, -0.5, 1.2) + ops.celu(x, 0.7)
                                  + ops.softplus(x, 2, 3) + ops.prelu(x, Tensor(np.linspace(0.1, 0.5, 5))) * 2
                                  + ops.tanhshrink(x) + ops.softmin(x, 1)).sum() + ops.glu(x[:, :4], 1).sum()),
]


@pytest.mark.parametrize("name", [n for n, _ in LOSSES])
def test_loss_gradients_float64(name):
    """Losses accept float64: the engine's gradient (eager and compiled) against finite
    differences of the same loss evaluated eagerly."""
    fn = dict(LOSSES)[name]
    x = RNG.uniform(-2, 2, (4, 5))
    x[np.abs(x - 1.2) < 0.05] += 0.2              # keep away from hardtanh's kinks
    x[np.abs(x + 0.5) < 0.05] += 0.2
    x[np.abs(x) < 0.05] += 0.2
    t = Tensor(np.array([1, 0, 4, 2], np.int32))
    f = lambda a: float(fn(Tensor(a[0]), t).asnumpy())  # noqa: E731
    want = numeric(f, [x], 0)
    for g in (ms.grad(fn)(Tensor(x), t), ms.jit(ms.grad(fn))(Tensor(x), t)):
        np.testing.assert_allclose(g.asnumpy(), want, rtol=1e-6, atol=1e-8)
