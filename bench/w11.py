"""W11 (../shared/BENCH.md): an LSTM language model - embedding 128, hidden 256, 2 layers,
sequence 64, batch 32 - forward, and the training step's loss and gradients (next-token cross
entropy averaged over every position; like W5, without the optimizer update).

BENCH.md does not fix the vocabulary; it is 1000 here, so that the work is the recurrence (the
workload "stresses recurrent loops, batched gate GEMMs"): per call 2 x 64 recurrent products of
(32 x 256) x (256 x 1024), the input projections (2048 x 128 and 2048 x 256, each x 1024) and
the decoder (2048 x 256 x 1000): 4.8 GFLOP in all.

Peers, in the same rounds: torch eager (nn.LSTM on oneDNN / ATen's fused CPU kernel) and
torch.compile (Inductor) of the same module with the same weights, when torch is installed."""
from __future__ import annotations

import os

import numpy as np

import pycompile as ms
from pycompile import nn

VOCAB, EMBED, HIDDEN, LAYERS, SEQ, BATCH = 1000, 128, 256, 2, 64, 32


class LSTMLanguageModel(nn.Cell):
    """As MindSpore model code writes it: Embedding -> LSTM -> Dense over every position."""

    def __init__(self, vocab=VOCAB, embed=EMBED, hidden=HIDDEN, layers=LAYERS):
        super().__init__()
        self.embedding = nn.Embedding(vocab, embed)
        self.lstm = nn.LSTM(embed, hidden, num_layers=layers)
        self.decoder = nn.Dense(hidden, vocab)

    def construct(self, tokens):
        x = self.embedding(tokens)              # (S, B, E)
        y, _ = self.lstm(x)                     # (S, B, H)
        return self.decoder(y)                  # (S, B, V)


def weights(model) -> dict:
    return {name: p.asnumpy() for name, p in model.parameters_and_names()}


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def numpy_forward(w: dict):
    """The same model in NumPy, one op at a time (the eager baseline)."""
    def run(tokens):
        x = w["embedding.embedding_table"][tokens]
        for layer in range(LAYERS):
            wi, wh = w[f"lstm.weight_ih_l{layer}"], w[f"lstm.weight_hh_l{layer}"]
            b = w[f"lstm.bias_ih_l{layer}"] + w[f"lstm.bias_hh_l{layer}"]
            s, bsz, _ = x.shape
            xw = (x.reshape(s * bsz, -1) @ wi.T + b).reshape(s, bsz, -1)
            h = np.zeros((bsz, HIDDEN), np.float32)
            c = np.zeros((bsz, HIDDEN), np.float32)
            ys = []
            for t in range(s):
                g = xw[t] + h @ wh.T
                i, f = _sigmoid(g[:, :HIDDEN]), _sigmoid(g[:, HIDDEN:2 * HIDDEN])
                gg, o = np.tanh(g[:, 2 * HIDDEN:3 * HIDDEN]), _sigmoid(g[:, 3 * HIDDEN:])
                c = f * c + i * gg
                h = o * np.tanh(c)
                ys.append(h)
            x = np.stack(ys)
        return x @ w["decoder.weight"].T + w["decoder.bias"]
    return run


def numpy_value_and_grad(w: dict):
    """Loss and gradients (the model's Parameter order) by hand-written backpropagation through
    time in NumPy: the eager baseline of the training step."""
    def run(tokens, targets):
        emb = w["embedding.embedding_table"]
        x, caches = emb[tokens], []
        for layer in range(LAYERS):
            wi, wh = w[f"lstm.weight_ih_l{layer}"], w[f"lstm.weight_hh_l{layer}"]
            b = w[f"lstm.bias_ih_l{layer}"] + w[f"lstm.bias_hh_l{layer}"]
            s, bsz, _ = x.shape
            xw = (x.reshape(s * bsz, -1) @ wi.T + b).reshape(s, bsz, -1)
            h = np.zeros((bsz, HIDDEN), np.float32)
            c = np.zeros((bsz, HIDDEN), np.float32)
            steps, ys = [], []
            for t in range(s):
                g = xw[t] + h @ wh.T
                i, f = _sigmoid(g[:, :HIDDEN]), _sigmoid(g[:, HIDDEN:2 * HIDDEN])
                gg, o = np.tanh(g[:, 2 * HIDDEN:3 * HIDDEN]), _sigmoid(g[:, 3 * HIDDEN:])
                c_new = f * c + i * gg
                tc = np.tanh(c_new)
                steps.append((h, c, i, f, gg, o, tc))
                h, c = o * tc, c_new
                ys.append(h)
            caches.append((x, steps))
            x = np.stack(ys)
        s, bsz, _ = x.shape
        flat = x.reshape(s * bsz, -1)
        z = flat @ w["decoder.weight"].T + w["decoder.bias"]
        z = z - z.max(-1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(-1, keepdims=True)
        n, tgt = s * bsz, targets.reshape(-1)
        loss = -np.log(p[np.arange(n), tgt]).mean()
        dz = p
        dz[np.arange(n), tgt] -= 1
        dz /= n
        grads = {"decoder.weight": dz.T @ flat, "decoder.bias": dz.sum(0)}
        dx = (dz @ w["decoder.weight"]).reshape(s, bsz, -1)
        for layer in reversed(range(LAYERS)):
            wi, wh = w[f"lstm.weight_ih_l{layer}"], w[f"lstm.weight_hh_l{layer}"]
            x_in, steps = caches[layer]
            dgates = np.zeros((s, bsz, 4 * HIDDEN), np.float32)
            dh_next = np.zeros((bsz, HIDDEN), np.float32)
            dc_next = np.zeros((bsz, HIDDEN), np.float32)
            dwh = np.zeros_like(wh)
            for t in reversed(range(s)):
                h, c, i, f, gg, o, tc = steps[t]
                dh = dx[t] + dh_next
                do = dh * tc
                dc = dc_next + dh * o * (1 - tc * tc)
                dg = np.concatenate([dc * gg * i * (1 - i), dc * c * f * (1 - f), dc * i * (1 - gg * gg),
                                     do * o * (1 - o)], 1)
                dgates[t] = dg
                dwh += dg.T @ h
                dh_next, dc_next = dg @ wh, dc * f
            dflat = dgates.reshape(s * bsz, -1)
            grads[f"lstm.weight_ih_l{layer}"] = dflat.T @ x_in.reshape(s * bsz, -1)
            grads[f"lstm.weight_hh_l{layer}"] = dwh
            grads[f"lstm.bias_ih_l{layer}"] = grads[f"lstm.bias_hh_l{layer}"] = dflat.sum(0)
            dx = (dflat @ wi).reshape(s, bsz, -1)
        demb = np.zeros_like(emb)
        np.add.at(demb, tokens.reshape(-1), dx.reshape(s * bsz, -1))
        grads["embedding.embedding_table"] = demb
        return loss, [grads[name] for name in w]
    return run


def torch_module(w: dict):
    """torch.nn modules holding the same weights (None when torch is not installed)."""
    try:
        import torch
    except ImportError:
        return None
    # 2 threads as every side here, or one when the run is pinned to one core (README)
    torch.set_num_threads(int(os.environ.get("PYCOMPILE_NUM_THREADS", "2")))

    class LM(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = torch.nn.Embedding(VOCAB, EMBED)
            self.lstm = torch.nn.LSTM(EMBED, HIDDEN, LAYERS)
            self.decoder = torch.nn.Linear(HIDDEN, VOCAB)

        def forward(self, tokens):
            y, _ = self.lstm(self.embedding(tokens))
            return self.decoder(y)

    m = LM().eval()
    with torch.no_grad():
        m.embedding.weight.copy_(torch.from_numpy(w["embedding.embedding_table"]))
        for name, p in m.lstm.named_parameters():
            p.copy_(torch.from_numpy(w["lstm." + name]))
        m.decoder.weight.copy_(torch.from_numpy(w["decoder.weight"]))
        m.decoder.bias.copy_(torch.from_numpy(w["decoder.bias"]))
    return m


def torch_peers(w: dict, tokens: np.ndarray, check) -> dict:
    m = torch_module(w)
    if m is None:
        return {"torch eager": None, "torch.compile": None}
    import torch
    tt = torch.from_numpy(tokens.astype(np.int64))
    compiled = torch.compile(m)

    def run(f):
        def call():
            with torch.no_grad():
                return f(tt)
        return call
    for f in (m, compiled):
        check(run(f)().numpy())
    return {"torch eager": run(m), "torch.compile": run(compiled)}


def torch_train_peers(w: dict, tokens, targets, check) -> dict:
    m = torch_module(w)
    if m is None:
        return {"torch eager": None, "torch.compile": None}
    import torch
    m.train()
    tt, yt = torch.from_numpy(tokens.astype(np.int64)), torch.from_numpy(targets.astype(np.int64)).reshape(-1)
    names = {id(p): n for n, p in m.named_parameters()}
    params = list(m.parameters())

    def loss_of(f):
        def loss(t):
            return torch.nn.functional.cross_entropy(f(t).reshape(-1, VOCAB), yt)
        return loss

    def step(loss):
        def run():
            value = loss(tt)
            return value, torch.autograd.grad(value, params)
        return run
    out = {}
    for name, f in (("torch eager", m), ("torch.compile", torch.compile(m))):
        run = step(loss_of(f))
        value, grads = run()
        by_name = {names[id(p)]: g.numpy() for p, g in zip(params, grads)}
        check(value.item(), [by_name[_torch_name(k)] for k in w])
        out[name] = run
    return out


def _torch_name(name: str) -> str:
    return {"embedding.embedding_table": "embedding.weight"}.get(name, name)


def bench_W11_train():
    ms.set_seed(0)
    model = LSTMLanguageModel()
    loss_fn = nn.CrossEntropyLoss()
    rng = np.random.default_rng(0)
    tokens = rng.integers(0, VOCAB, size=(SEQ, BATCH)).astype(np.int32)
    targets = rng.integers(0, VOCAB, size=(SEQ, BATCH)).astype(np.int32)

    class WithLoss(nn.Cell):
        def __init__(self):
            super().__init__()
            self.model = model

        def construct(self, t, y):
            return loss_fn(self.model(t).reshape((-1, VOCAB)), y.reshape((-1,)))

    grad_fn = ms.value_and_grad(WithLoss(), None, model.trainable_params())
    compiled = ms.jit(grad_fn)
    tt, ty = ms.Tensor(tokens), ms.Tensor(targets)
    ref = numpy_value_and_grad(weights(model))
    want_loss, want = ref(tokens, targets)

    def check(loss, grads):
        np.testing.assert_allclose(loss, want_loss, rtol=1e-4)
        for g, e in zip(grads, want):
            np.testing.assert_allclose(np.asarray(g), e, rtol=2e-3, atol=2e-5)
    loss, grads = compiled(tt, ty)
    check(float(loss.asnumpy()), [g.asnumpy() for g in grads])
    flops = 3 * 2 * SEQ * BATCH * (4 * HIDDEN * (EMBED + HIDDEN) + 4 * HIDDEN * 2 * HIDDEN + HIDDEN * VOCAB)
    return [("W11 LSTM LM train grads", lambda: compiled(tt, ty), lambda: ref(tokens, targets), ("gemm", flops),
             torch_train_peers(weights(model), tokens, targets, check))]


def bench_W11():
    ms.set_seed(0)
    model = LSTMLanguageModel()
    tokens = np.random.default_rng(0).integers(0, VOCAB, size=(SEQ, BATCH)).astype(np.int32)
    tt = ms.Tensor(tokens)
    compiled = ms.jit(lambda t: model(t))
    ref = numpy_forward(weights(model))
    expected = ref(tokens)

    def check(got):
        got = got.asnumpy() if hasattr(got, "asnumpy") else got
        np.testing.assert_allclose(got, expected, rtol=1e-3, atol=1e-4)
    check(compiled(tt))
    flops = 2 * SEQ * BATCH * (4 * HIDDEN * (EMBED + HIDDEN) + 4 * HIDDEN * 2 * HIDDEN + HIDDEN * VOCAB)
    return [("W11 LSTM LM forward", lambda: compiled(tt), lambda: ref(tokens), ("gemm", flops),
             torch_peers(weights(model), tokens, check))] + bench_W11_train()


__all__ = ["bench_W11", "bench_W11_train", "LSTMLanguageModel"]
