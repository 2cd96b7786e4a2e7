"""nn.RNN / LSTM / GRU and the single-step cells against a NumPy reference written here (eager
and compiled), the shape of the compiled graph (one `For` per direction and layer whatever the
sequence length, one product per step inside it, the input projection outside), argument
checks, and dropout between layers."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, nn
from pycompile.compiler import ir

RNG = np.random.default_rng(3)


def _sig(x):
    return 1 / (1 + np.exp(-x))


def _cell_step(mode, x, h, c, w):
    """One step in float64; w = (w_ih, w_hh, b_ih, b_hh) (biases may be None)."""
    w_ih, w_hh, b_ih, b_hh = w
    gi = x @ w_ih.T + (0 if b_ih is None else b_ih)
    gh = h @ w_hh.T + (0 if b_hh is None else b_hh)
    H = h.shape[-1]
    if mode == "LSTM":
        g = gi + gh
        i, f, gg, o = _sig(g[:, :H]), _sig(g[:, H:2 * H]), np.tanh(g[:, 2 * H:3 * H]), _sig(g[:, 3 * H:])
        c = f * c + i * gg
        return o * np.tanh(c), c
    if mode == "GRU":
        r, z = _sig(gi[:, :H] + gh[:, :H]), _sig(gi[:, H:2 * H] + gh[:, H:2 * H])
        n = np.tanh(gi[:, 2 * H:] + r * gh[:, 2 * H:])
        return (1 - z) * n + z * h, None
    pre = gi + gh
    return (np.tanh(pre) if mode == "RNN_TANH" else np.maximum(pre, 0)), None


def reference(net, x, hx=None, lengths=None):
    """The layer's result in NumPy from its own Parameters."""
    mode, L, D, H = net.mode, net.num_layers, net.num_directions, net.hidden_size
    p = {name: q.asnumpy().astype(np.float64) for name, q in net.parameters_and_names()}
    x = x.astype(np.float64)
    if net.batch_first:
        x = x.transpose(1, 0, 2)
    S, B = x.shape[:2]
    if hx is None:
        h0 = np.zeros((L * D, B, H))
        c0 = np.zeros((L * D, B, H))
    else:
        h0, c0 = (hx if mode == "LSTM" else (hx, np.zeros_like(hx)))
    lengths = np.full(B, S) if lengths is None else lengths
    inp, hn, cn = x, [], []
    for layer in range(L):
        outs = []
        for d in range(D):
            k = layer * D + d
            sfx = "_reverse" if d else ""
            w = tuple(p.get(f"{kind}_l{layer}{sfx}") for kind in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"))
            h, c = h0[k].copy(), c0[k].copy()
            y = np.zeros((S, B, H))
            for t in (range(S - 1, -1, -1) if d else range(S)):
                h2, c2 = _cell_step(mode, inp[t], h, c, w)
                live = (t < lengths)[:, None]
                h = np.where(live, h2, h)
                if c2 is not None:
                    c = np.where(live, c2, c)
                y[t] = np.where(live, h2, 0)
            outs.append(y)
            hn.append(h)
            cn.append(c)
        inp = np.concatenate(outs, 2)
    out = inp.transpose(1, 0, 2) if net.batch_first else inp
    return (out, (np.stack(hn), np.stack(cn))) if mode == "LSTM" else (out, np.stack(hn))


def _flat(v):
    if isinstance(v, (tuple, list)):
        return [a for x in v for a in _flat(x)]
    return [v.asnumpy() if hasattr(v, "asnumpy") else v]


CONFIGS = [
    ("LSTM", dict()), ("LSTM", dict(num_layers=2, bidirectional=True)), ("LSTM", dict(has_bias=False, batch_first=True)),
    ("GRU", dict(num_layers=2)), ("GRU", dict(bidirectional=True, batch_first=True)), ("GRU", dict(has_bias=False)),
    ("RNN", dict(nonlinearity="relu", num_layers=2)), ("RNN", dict(bidirectional=True)),
]


class WithState(nn.Cell):
    def __init__(self, rnn):
        super().__init__()
        self.rnn = rnn

    def construct(self, x, h, c, lengths):
        hx = (h, c) if self.rnn.is_lstm else h
        return self.rnn(x, hx, seq_length=lengths)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("kind, kw", CONFIGS, ids=[f"{k}-{'-'.join(kw) or 'default'}" for k, kw in CONFIGS])
def test_layer_against_numpy(kind, kw, mode):
    ms.set_context(mode=mode)
    ms.set_seed(5)
    net = getattr(nn, kind)(3, 4, **kw)
    bf = kw.get("batch_first", False)
    x = RNG.uniform(-1, 1, (2, 6, 3) if bf else (6, 2, 3)).astype(np.float32)
    states = net.num_layers * net.num_directions
    h0 = RNG.uniform(-0.5, 0.5, (states, 2, 4)).astype(np.float32)
    c0 = RNG.uniform(-0.5, 0.5, (states, 2, 4)).astype(np.float32)
    lengths = np.array([6, 3], np.int32)
    got = net(Tensor(x))
    for g, e in zip(_flat(got), _flat(reference(net, x))):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)
    got = WithState(net)(Tensor(x), Tensor(h0), Tensor(c0), Tensor(lengths))
    hx = (h0, c0) if kind == "LSTM" else h0
    for g, e in zip(_flat(got), _flat(reference(net, x, hx, lengths))):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("cls, mode", [(nn.RNNCell, "RNN_TANH"), (nn.LSTMCell, "LSTM"), (nn.GRUCell, "GRU")])
def test_cells_against_numpy(cls, mode):
    ms.set_seed(2)
    cell = cls(3, 5)
    x = RNG.uniform(-1, 1, (4, 3)).astype(np.float32)
    h = RNG.uniform(-1, 1, (4, 5)).astype(np.float32)
    c = RNG.uniform(-1, 1, (4, 5)).astype(np.float32)
    w = tuple(getattr(cell, n).asnumpy().astype(np.float64) for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"))
    h2, c2 = _cell_step(mode, x.astype(np.float64), h.astype(np.float64), c.astype(np.float64), w)
    got = cell(Tensor(x), (Tensor(h), Tensor(c))) if mode == "LSTM" else cell(Tensor(x), Tensor(h))
    compiled = ms.jit(lambda x, h, c: cell(x, (h, c)) if mode == "LSTM" else cell(x, h))(Tensor(x), Tensor(h), Tensor(c))
    for out in (got, compiled):
        outs = _flat(out)
        np.testing.assert_allclose(outs[0], h2, rtol=1e-5, atol=1e-6)
        if mode == "LSTM":
            np.testing.assert_allclose(outs[1], c2, rtol=1e-5, atol=1e-6)
    assert [p for p, _ in cell.parameters_and_names()] == ["weight_ih", "weight_hh", "bias_ih", "bias_hh"]


def _loops(graph) -> list:
    return [n for n in ir.iter_nodes(graph.body) if n.op is ir.FOR]


def test_time_loop_is_one_for_per_direction():
    """Not unrolled: the same graph whatever the sequence length; in each loop body exactly one
    matrix product (h @ W_hh^T) with the gates activated in its epilogue; the input projection
    of the whole sequence outside the loops."""
    ms.set_seed(0)
    net = nn.LSTM(8, 16, num_layers=2, bidirectional=True)
    sizes = []
    for seq in (3, 40):
        report = ms.inspect(net, Tensor(RNG.standard_normal((seq, 3, 8)).astype(np.float32)))
        sizes.append(report.nodes_after)
        loops = _loops(report.graph_after)
        assert len(loops) == 4
        for loop in loops:
            body = list(ir.iter_nodes(loop.blocks[0]))
            products = [n for n in body if getattr(n.op, "name", "") == "MatMul"]
            assert len(products) == 1 and products[0].attrs.get("transpose_b")
            heads = [n for n in body if n.op is ir.FUSED and n.blocks[0].nodes[0].op.name == "MatMul"]
            assert heads and "Sigmoid" in {m.op.name for m in heads[0].blocks[0].nodes}, "gates not in the epilogue"
        products = [n for n in ir.iter_nodes(report.graph_after.body) if getattr(n.op, "name", "") == "MatMul"]
        assert len(products) == 4 + 4      # an input projection before each loop, one product in each
    assert sizes[0] == sizes[1]


def test_parameter_names_and_order():
    net = nn.GRU(3, 4, num_layers=2, bidirectional=True)
    names = [p for p, _ in net.parameters_and_names()]
    expect = [f"{k}_l{layer}{s}" for k in ("weight_ih", "weight_hh", "bias_ih", "bias_hh") for layer in (0, 1)
              for s in ("", "_reverse")]
    assert names == expect
    assert net.weight_ih_l1.shape == (12, 8) and net.weight_hh_l0_reverse.shape == (12, 4)


@pytest.mark.parametrize("call, exc", [
    (lambda: nn.LSTM(0, 4), ValueError), (lambda: nn.LSTM(3, 4.0), TypeError), (lambda: nn.LSTM(3, 4, dropout=1),
                                                                                 TypeError),
    (lambda: nn.LSTM(3, 4, dropout=1.0), ValueError), (lambda: nn.GRU(3, 4, batch_first=1), TypeError),
    (lambda: nn.RNN(3, 4, nonlinearity="gelu"), ValueError), (lambda: nn.RNNCell(3, 4, nonlinearity="sigmoid"), ValueError),
    (lambda: nn.LSTM(3, 4)(Tensor(np.zeros((2, 1, 3), np.float32)), Tensor(np.zeros((1, 1, 4), np.float32))), TypeError),
    (lambda: nn.GRU(3, 4)(Tensor(np.zeros((2, 1, 3), np.float32)), seq_length=Tensor(np.array([2.0]))), TypeError),
    (lambda: nn.GRU(3, 4)(Tensor(np.zeros((2, 2, 3), np.float32)), seq_length=Tensor(np.array([2], np.int32))),
     ValueError),
    (lambda: nn.GRU(3, 4)(Tensor(np.zeros((2, 2, 3), np.int32))), TypeError),
    (lambda: nn.LSTMCell(3, 4)(Tensor(np.zeros((2, 3), np.float32)), Tensor(np.zeros((2, 4), np.float32))), TypeError),
])
def test_argument_errors(call, exc):
    with pytest.raises(exc):
        call()


@pytest.mark.parametrize("cls", [nn.LSTM, nn.GRU, nn.RNN])
def test_dropout_between_layers(cls):
    """Training mode drops between layers (not after the last); compiled code draws the same
    masks as PyNative from the same seed (the Philox generator, ops/defs/random.py). Graph-mode
    training with these masks: test_sequence_dropout.py."""
    ms.set_seed(0)
    net = cls(3, 4, num_layers=2, dropout=0.5)
    x = Tensor(RNG.uniform(-1, 1, (5, 2, 3)).astype(np.float32))
    net.set_train(False)
    y_eval = net(x)[0].asnumpy()
    np.testing.assert_allclose(y_eval, reference(net, x.asnumpy())[0], rtol=1e-5, atol=1e-6)
    net.set_train(True)
    ms.set_seed(3)
    y1, y2 = net(x)[0].asnumpy(), net(x)[0].asnumpy()
    assert not np.allclose(y1, y_eval) and not np.allclose(y1, y2)
    f = ms.jit(lambda t: net(t)[0])
    ms.set_seed(3)
    np.testing.assert_allclose(f(x).asnumpy(), y1, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(f(x).asnumpy(), y2, rtol=1e-5, atol=1e-6)
