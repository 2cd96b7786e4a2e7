"""nn.MultiheadAttention and the Transformer layers against a NumPy reference written here
(eager and compiled), the options the conformance records do not cover (add_bias_kv,
add_zero_attn, unbatched inputs, a float key_padding_mask, a per-head 3-D mask), and every new
sequence / loss Cell called on its own in GRAPH_MODE (its construct walked as graph code)."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, nn

RNG = np.random.default_rng(11)
E, HEADS = 8, 2


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def mha_reference(m, q, k, v, kpm=None, attn_mask=None, average=True):
    """MindSpore's multi_head_attention_forward in float64 from the Cell's Parameters."""
    p = {n.split(".", 1)[-1] if n.startswith("attn.") else n: t.asnumpy().astype(np.float64)
         for n, t in m.parameters_and_names()}
    batched = q.ndim == 3
    if m.batch_first and batched:
        q, k, v = (x.swapaxes(0, 1) for x in (q, k, v))
    if not batched:
        q, k, v = (x[:, None] for x in (q, k, v))
        kpm = None if kpm is None else kpm[None]
    L, B, _ = q.shape
    b = p.get("in_proj_bias", np.zeros(3 * E))
    if "in_proj_weight" in p:
        wq, wk, wv = np.split(p["in_proj_weight"], 3)
    else:
        wq, wk, wv = p["q_proj_weight"], p["k_proj_weight"], p["v_proj_weight"]
    qp, kp, vp = q @ wq.T + b[:E], k @ wk.T + b[E:2 * E], v @ wv.T + b[2 * E:]
    mask = None if attn_mask is None else (attn_mask[None] if attn_mask.ndim == 2 else attn_mask)
    if "bias_k" in p:
        kp = np.concatenate([kp, np.broadcast_to(p["bias_k"], (1, B, E))])
        vp = np.concatenate([vp, np.broadcast_to(p["bias_v"], (1, B, E))])
        mask = None if mask is None else np.pad(mask, [(0, 0)] * (mask.ndim - 1) + [(0, 1)])
        kpm = None if kpm is None else np.pad(kpm, [(0, 0), (0, 1)])
    if m.add_zero_attn:
        kp = np.concatenate([kp, np.zeros((1, B, E))])
        vp = np.concatenate([vp, np.zeros((1, B, E))])
        mask = None if mask is None else np.pad(mask, [(0, 0)] * (mask.ndim - 1) + [(0, 1)])
        kpm = None if kpm is None else np.pad(kpm, [(0, 0), (0, 1)])
    S = kp.shape[0]
    if kpm is not None:
        kk = np.repeat(kpm[:, None, None, :], HEADS, 1).reshape(B * HEADS, 1, S)
        if mask is None:
            mask = kk
        elif mask.dtype == bool:
            mask = mask | (kk != 0)
        else:
            mask = mask + kk
    if mask is not None and mask.dtype == bool:
        mask = np.where(mask, -np.inf, 0.0)
    if mask is not None:
        mask = mask[None] if mask.shape[0] == 1 else mask.reshape(B, HEADS, -1, S)
    hd = E // HEADS
    split = lambda x, n: x.reshape(n, B, HEADS, hd).transpose(1, 2, 0, 3)  # noqa: E731
    scores = split(qp, L) @ split(kp, S).swapaxes(-1, -2) / np.sqrt(hd)
    if mask is not None:
        scores = scores + mask
    w = _softmax(scores)
    out = (w @ split(vp, S)).transpose(2, 0, 1, 3).reshape(L * B, E) @ p["out_proj.weight"].T
    out = (out + p.get("out_proj.bias", 0)).reshape(L, B, E)
    w = w.sum(1) / HEADS if average else w
    if not batched:
        return out[:, 0], w[0]
    return (out.swapaxes(0, 1) if m.batch_first else out), w


class MHA(nn.Cell):
    def __init__(self, need_weights=True, average=True, **kw):
        super().__init__()
        self.attn = nn.MultiheadAttention(E, HEADS, **kw)
        self.need_weights, self.average = need_weights, average

    def construct(self, q, k, v, kpm=None, mask=None):
        return self.attn(q, k, v, key_padding_mask=kpm, need_weights=self.need_weights, attn_mask=mask,
                         average_attn_weights=self.average)


def _rnd(*shape):
    return RNG.uniform(-1, 1, shape).astype(np.float32)


CASES = {
    "self": (dict(), lambda: (_rnd(3, 2, E),) * 3, None, None),
    "bias_kv zero_attn bool masks": (dict(add_bias_kv=True, add_zero_attn=True),
                                     lambda: (_rnd(3, 2, E), _rnd(4, 2, E), _rnd(4, 2, E)),
                                     np.array([[False, True, False, False], [False, False, False, True]]),
                                     np.triu(np.ones((3, 4), bool), 2)),
    "float padding and 3-D mask": (dict(), lambda: (_rnd(3, 2, E), _rnd(4, 2, E), _rnd(4, 2, E)),
                                   np.array([[0.0, -1.0, 0.0, -2.0], [0.0, 0.0, 0.5, 0.0]], np.float32),
                                   RNG.uniform(-1, 0, (2 * HEADS, 3, 4)).astype(np.float32)),
    "unbatched": (dict(), lambda: (_rnd(3, E), _rnd(5, E), _rnd(5, E)), np.array([False, True, False, False, True]),
                  None),
    "batch_first kdim vdim": (dict(batch_first=True, kdim=5, vdim=6), lambda: (_rnd(2, 3, E), _rnd(2, 4, 5),
                                                                               _rnd(2, 4, 6)), None, None),
}


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("name", list(CASES))
def test_multihead_attention_against_numpy(name, mode):
    ms.set_context(mode=mode)
    kw, make, kpm, mask = CASES[name]
    ms.set_seed(4)
    net = MHA(average=name != "self", **kw)
    for _, p in net.parameters_and_names():      # biases are zeros by default: make them count
        p.set_data(Tensor(RNG.uniform(-0.5, 0.5, p.shape).astype(np.float32)))
    q, k, v = make()
    args = [Tensor(a) for a in (q, k, v)] + [None if kpm is None else Tensor(kpm), None if mask is None else Tensor(mask)]
    out, w = net(*args)
    ref_out, ref_w = mha_reference(net.attn, q.astype(np.float64), k.astype(np.float64), v.astype(np.float64),
                                   kpm, mask, average=name != "self")
    np.testing.assert_allclose(out.asnumpy(), ref_out, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(w.asnumpy(), ref_w, rtol=1e-5, atol=1e-6)


def test_need_weights_false_is_a_1_tuple():
    net = MHA(need_weights=False)
    x = Tensor(_rnd(3, 2, E))
    for result in (net(x, x, x), ms.jit(lambda t: net(t, t, t))(x)):
        assert isinstance(result, tuple) and len(result) == 1 and result[0].shape == (3, 2, E)


@pytest.mark.parametrize("call", [
    lambda: nn.MultiheadAttention(8, 3),
    lambda: nn.MultiheadAttention(8, 2)(Tensor(_rnd(3, 2, 4)), Tensor(_rnd(3, 2, 4)), Tensor(_rnd(3, 2, 4))),
    lambda: nn.MultiheadAttention(8, 2)(Tensor(_rnd(3, 2, 8)), Tensor(_rnd(3, 2, 8)), Tensor(_rnd(3, 2, 8)),
                                        attn_mask=Tensor(np.zeros((2, 3), bool))),
    lambda: nn.MultiheadAttention(8, 2)(Tensor(_rnd(3, 2, 8)), Tensor(_rnd(3, 2, 8)), Tensor(_rnd(3, 2, 8)),
                                        key_padding_mask=Tensor(np.zeros((2, 3), np.int32))),
    lambda: nn.TransformerEncoderLayer(8, 2, activation="tanh"),
    lambda: nn.TransformerEncoderLayer(8, 2, activation=nn.Sigmoid()),
])
def test_attention_argument_errors(call):
    with pytest.raises(ValueError):
        call()


class TinyEncoderModel(nn.Cell):
    """A small encoder as the tutorials write one: embedding, positional encoding, a stack of
    nn.TransformerEncoderLayer with a padding mask, mean pooling and a classifier."""

    def __init__(self, vocab=20, d=8, layers=2, classes=3, max_len=16):
        super().__init__()
        self.embedding = nn.Embedding(vocab, d)
        pos = np.arange(max_len)[:, None] / np.power(10000, np.arange(0, d, 2) / d)
        pe = np.zeros((max_len, d), np.float32)
        pe[:, 0::2], pe[:, 1::2] = np.sin(pos), np.cos(pos)
        self.pe = Tensor(pe)
        layer = nn.TransformerEncoderLayer(d, 2, dim_feedforward=16, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, norm=nn.LayerNorm((d,)))
        self.classifier = nn.Dense(d, classes)
        self.scale = float(np.sqrt(d))

    def construct(self, tokens, pad):
        x = self.embedding(tokens) * self.scale + self.pe[:tokens.shape[1]]
        x = self.encoder(x, src_key_padding_mask=pad)
        return self.classifier(x.mean(1))


def test_tutorial_style_encoder_compiles_and_matches_pynative():
    ms.set_seed(0)
    net = TinyEncoderModel()
    net.set_train(False)
    tokens = Tensor(RNG.integers(1, 20, (3, 6)).astype(np.int32))
    pad = Tensor(np.array([[False] * 6, [False] * 4 + [True] * 2, [False] * 5 + [True]]))
    eager = net(tokens, pad).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    compiled = net(tokens, pad).asnumpy()
    np.testing.assert_allclose(compiled, eager, rtol=1e-5, atol=1e-6)
    assert [p for p, _ in net.parameters_and_names()][:4] == [
        "embedding.embedding_table", "encoder.layers.0.self_attn.in_proj_weight",
        "encoder.layers.0.self_attn.in_proj_bias", "encoder.layers.0.self_attn.out_proj.weight"]


def _bare_cells():
    x3, x2 = Tensor(_rnd(3, 2, 8)), Tensor(_rnd(4, 6))
    lab = Tensor(np.array([1, 0, 2, 3], np.int32))
    zeros = Tensor(np.zeros((4, 3), np.float32))
    return {
        "LSTM": (nn.LSTM(8, 4, 2, bidirectional=True), (x3,)), "GRU": (nn.GRU(8, 4), (x3,)),
        "RNN": (nn.RNN(8, 4), (x3,)), "LSTMCell": (nn.LSTMCell(6, 3), (x2, (zeros, zeros))),
        "MultiheadAttention": (nn.MultiheadAttention(8, 2), (x3, x3, x3)),
        "TransformerEncoder": (nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2), (x3,)),
        "Transformer": (nn.Transformer(8, 2, 1, 1, 16), (x3, x3)), "EmbeddingLookup": (nn.EmbeddingLookup(10, 4), (lab,)),
        "CrossEntropyLoss": (nn.CrossEntropyLoss(), (x2, lab)),
        "FocalLoss": (nn.FocalLoss(), (Tensor(_rnd(4, 3, 2)), Tensor(np.zeros((4, 1, 2), np.int32)))),
        "TripletMarginLoss": (nn.TripletMarginLoss(), (x2, x2, x2)), "PReLU": (nn.PReLU(), (x2,)),
        "GLU": (nn.GLU(), (x2,)),
    }


@pytest.mark.parametrize("name", list(_bare_cells()))
def test_cell_called_on_its_own_in_graph_mode(name):
    net, args = _bare_cells()[name]
    net.set_train(False)
    eager = net(*args)
    ms.set_context(mode=ms.GRAPH_MODE)
    compiled = net(*args)
    flat = lambda v: [a for x in v for a in flat(x)] if isinstance(v, tuple) else [v.asnumpy()]  # noqa: E731
    for c, e in zip(flat(compiled), flat(eager)):
        np.testing.assert_allclose(c, e, rtol=1e-5, atol=1e-6)
