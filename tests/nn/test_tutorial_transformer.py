"""A small Transformer encoder written the way MindSpore's tutorials write one - hand-written
scaled dot-product attention with masked_fill, heads split with view / permute, q, k, v cut
from one projection with ops.split, a padding mask from ops.equal / expand_dims / tile,
sinusoidal positions, post-norm residual blocks - runs with only the import changed: eagerly,
compiled in GRAPH_MODE (same values), against NumPy, and through a compiled training step."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, nn, ops
from pycompile.common import dtype as mstype

RNG = np.random.default_rng(5)
VOCAB, D, HEADS, FF, LAYERS, CLASSES, PAD = 30, 16, 4, 32, 2, 3, 0


class ScaledDotProductAttention(nn.Cell):
    def __init__(self, dropout_p=0.0):
        super().__init__()
        self.softmax = nn.Softmax()
        self.dropout = nn.Dropout(p=dropout_p)
        self.sqrt = ops.Sqrt()

    def construct(self, query, key, value, attn_mask=None):
        embed_size = query.shape[-1]
        scaling_factor = self.sqrt(Tensor(embed_size, mstype.float32))
        attn = ops.matmul(query, key.swapaxes(-2, -1) / scaling_factor)
        if attn_mask is not None:
            attn = attn.masked_fill(attn_mask, -1e9)
        attn = self.softmax(attn)
        attn = self.dropout(attn)
        return ops.matmul(attn, value), attn


class MultiHeadAttention(nn.Cell):
    def __init__(self, d_model, n_heads, dropout_p=0.0):
        super().__init__()
        self.n_heads, self.d_k = n_heads, d_model // n_heads
        self.W_QKV = nn.Dense(d_model, 3 * d_model)
        self.W_O = nn.Dense(d_model, d_model)
        self.attention = ScaledDotProductAttention(dropout_p)

    def construct(self, x, attn_mask):
        batch_size = x.shape[0]
        q, k, v = ops.split(self.W_QKV(x), x.shape[-1], axis=-1)
        q = q.view(batch_size, -1, self.n_heads, self.d_k).permute(0, 2, 1, 3)
        k = k.view(batch_size, -1, self.n_heads, self.d_k).permute(0, 2, 1, 3)
        v = v.view(batch_size, -1, self.n_heads, self.d_k).permute(0, 2, 1, 3)
        attn_mask = ops.tile(attn_mask.expand_dims(1), (1, self.n_heads, 1, 1))
        context, attn = self.attention(q, k, v, attn_mask)
        context = context.permute(0, 2, 1, 3).view(batch_size, -1, self.n_heads * self.d_k)
        return self.W_O(context), attn


class PoswiseFeedForward(nn.Cell):
    def __init__(self, d_model, d_ff):
        super().__init__()
        self.linear1 = nn.Dense(d_model, d_ff)
        self.linear2 = nn.Dense(d_ff, d_model)
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.linear2(self.relu(self.linear1(x)))


class EncoderLayer(nn.Cell):
    def __init__(self, d_model, n_heads, d_ff):
        super().__init__()
        self.self_attn = MultiHeadAttention(d_model, n_heads)
        self.ffn = PoswiseFeedForward(d_model, d_ff)
        self.norm1 = nn.LayerNorm((d_model,), epsilon=1e-5)
        self.norm2 = nn.LayerNorm((d_model,), epsilon=1e-5)

    def construct(self, x, mask):
        attn_out, _ = self.self_attn(x, mask)
        x = self.norm1(x + attn_out)
        return self.norm2(x + self.ffn(x))


def get_attn_pad_mask(seq_q, seq_k, pad_idx):
    batch_size, len_q = seq_q.shape
    batch_size, len_k = seq_k.shape
    pad_attn_mask = ops.equal(seq_k, pad_idx).expand_dims(1)
    return ops.broadcast_to(pad_attn_mask, (batch_size, len_q, len_k))


class Encoder(nn.Cell):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, D)
        pos = np.arange(32)[:, None] / np.power(10000, np.arange(0, D, 2) / D)
        pe = np.zeros((32, D), np.float32)
        pe[:, 0::2], pe[:, 1::2] = np.sin(pos), np.cos(pos)
        self.pe = Tensor(pe)
        self.layers = nn.CellList([EncoderLayer(D, HEADS, FF) for _ in range(LAYERS)])
        self.classifier = nn.Dense(D, CLASSES)
        self.scaling = np.sqrt(D)

    def construct(self, tokens):
        mask = get_attn_pad_mask(tokens, tokens, PAD)
        x = self.embedding(tokens) * self.scaling + self.pe[:tokens.shape[1]]
        for layer in self.layers:
            x = layer(x, mask)
        return self.classifier(x[:, 0])


def numpy_encoder(net, tokens):
    p = {n: t.asnumpy().astype(np.float64) for n, t in net.parameters_and_names()}
    dense = lambda x, name: x @ p[name + ".weight"].T + p[name + ".bias"]  # noqa: E731

    def norm(x, name):
        mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + 1e-5) * p[name + ".gamma"] + p[name + ".beta"]
    b, s = tokens.shape
    x = p["embedding.embedding_table"][tokens] * np.sqrt(D) + net.pe.asnumpy()[:s]
    masked = (tokens == PAD)[:, None, None, :]
    for k in range(LAYERS):
        pre = f"layers.{k}."
        qkv = dense(x, pre + "self_attn.W_QKV")
        q, kk, v = (qkv[..., i * D:(i + 1) * D].reshape(b, s, HEADS, D // HEADS).transpose(0, 2, 1, 3) for i in range(3))
        scores = np.where(masked, -1e9, q @ kk.swapaxes(-1, -2) / np.sqrt(D // HEADS))
        e = np.exp(scores - scores.max(-1, keepdims=True))
        ctx = (e / e.sum(-1, keepdims=True)) @ v
        attn = dense(ctx.transpose(0, 2, 1, 3).reshape(b, s, D), pre + "self_attn.W_O")
        x = norm(x + attn, pre + "norm1")
        ff = dense(np.maximum(dense(x, pre + "ffn.linear1"), 0), pre + "ffn.linear2")
        x = norm(x + ff, pre + "norm2")
    return dense(x[:, 0], "classifier")


TOKENS = np.array([[3, 7, 1, 9, 0, 0], [5, 2, 8, 4, 6, 1], [9, 9, 2, 0, 0, 0]], np.int32)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_tutorial_encoder_runs_unchanged(mode):
    ms.set_seed(0)
    net = Encoder()
    net.set_train(False)
    ms.set_context(mode=mode)
    logits = net(Tensor(TOKENS))
    np.testing.assert_allclose(logits.asnumpy(), numpy_encoder(net, TOKENS), rtol=1e-4, atol=1e-5)


def test_tutorial_encoder_training_step_compiled():
    ms.set_seed(0)
    net = Encoder()
    net.set_train(False)          # dropout 0: the same in both modes
    loss_fn = nn.CrossEntropyLoss()
    labels = Tensor(np.array([0, 2, 1], np.int32))

    def forward(tokens, y):
        return loss_fn(net(tokens), y)

    grad_fn = ms.value_and_grad(forward, None, net.trainable_params())
    loss, grads = grad_fn(Tensor(TOKENS), labels)
    loss_c, grads_c = ms.jit(grad_fn)(Tensor(TOKENS), labels)
    np.testing.assert_allclose(loss_c.asnumpy(), loss.asnumpy(), rtol=1e-5)
    for g, gc in zip(grads, grads_c):
        np.testing.assert_allclose(gc.asnumpy(), g.asnumpy(), rtol=1e-4, atol=1e-6)
    assert any(np.abs(g.asnumpy()).sum() > 0 for g in grads)
