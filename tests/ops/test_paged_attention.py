"""ops.ReshapeAndCache / PagedAttention / PagedAttentionMask (src/pycompile/ops/entries/infer_attention.py):
MindSpore documents them only for export to MindSpore Lite (no backend kernel), so they are checked
against NumPy: a decode step of several sequences whose keys and values were written into a paged
cache token by token, attention over each sequence's own blocks and length, grouped heads, the
additive masks, in PyNative and in a GRAPH_MODE Cell whose caches are Parameters updated in place."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Parameter, Tensor, nn, ops

RNG = np.random.default_rng(17)
HEADS, KV, D, BLOCK, NBLOCKS = 4, 2, 8, 4, 12


def attention(q, keys, values, scale, bias=None):
    """One query (heads, d) against keys / values (s, kv, d), float64."""
    group = HEADS // KV
    k = np.repeat(keys, group, axis=1).transpose(1, 0, 2)          # (heads, s, d)
    v = np.repeat(values, group, axis=1).transpose(1, 0, 2)
    s = scale * np.einsum("hd,hsd->hs", q, k)
    if bias is not None:
        s = s + bias
    p = np.exp(s - s.max(-1, keepdims=True))
    return np.einsum("hs,hsd->hd", p / p.sum(-1, keepdims=True), v)


def _tables(lengths, width):
    """Each sequence's blocks: distinct blocks of the pool in a shuffled order; the token at position p
    of sequence i sits in slot table[i, p // BLOCK] * BLOCK + p % BLOCK."""
    blocks = RNG.permutation(NBLOCKS)[:len(lengths) * width].reshape(len(lengths), width).astype(np.int32)
    slots = [[blocks[i, p // BLOCK] * BLOCK + p % BLOCK for p in range(n)] for i, n in enumerate(lengths)]
    return blocks, slots


class Decoder(nn.Cell):
    """Writes this step's keys / values into the cache, then attends over each sequence's history."""

    def __init__(self):
        super().__init__()
        self.key_cache = Parameter(Tensor(np.zeros((NBLOCKS, BLOCK, KV, D), np.float32)), name="key_cache")
        self.value_cache = Parameter(Tensor(np.zeros((NBLOCKS, BLOCK, KV * D), np.float32)), name="value_cache")
        self.write = ops.ReshapeAndCache()
        self.attend = ops.PagedAttention(HEADS, 0.3, KV)

    def construct(self, q, k, v, slots, tables, lengths):
        self.write(k, v, self.key_cache, self.value_cache, slots)
        return self.attend(q, self.key_cache, self.value_cache, tables, lengths)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_a_decode_step_over_a_paged_cache(mode):
    ms.set_context(mode=mode)
    try:
        lengths = [5, 2, 7]
        tables, slots = _tables(lengths, 2)
        history = [(RNG.standard_normal((n, KV, D)), RNG.standard_normal((n, KV, D))) for n in lengths]
        net = Decoder()
        # the earlier tokens, one write each (padding slots -1 write nothing)
        for p in range(max(lengths) - 1):
            keys = np.stack([history[i][0][p] if p < lengths[i] - 1 else np.zeros((KV, D)) for i in range(3)])
            vals = np.stack([history[i][1][p] if p < lengths[i] - 1 else np.zeros((KV, D)) for i in range(3)])
            slot = np.array([slots[i][p] if p < lengths[i] - 1 else -1 for i in range(3)], np.int32)
            net.write(Tensor(keys.reshape(3, -1).astype(np.float32)),          # (tokens, hidden)
                      Tensor(vals.reshape(1, 3, -1).astype(np.float32)),       # (batch, seq, hidden)
                      net.key_cache, net.value_cache, Tensor(slot))
        # this step: the last token of each sequence, then attention over all of them
        q = RNG.standard_normal((3, HEADS, D))
        last = np.array([slots[i][n - 1] for i, n in enumerate(lengths)], np.int32)
        k = np.stack([history[i][0][n - 1] for i, n in enumerate(lengths)]).astype(np.float32)
        v = np.stack([history[i][1][n - 1] for i, n in enumerate(lengths)]).astype(np.float32)
        out = net(Tensor(q.astype(np.float32)), Tensor(k.reshape(3, -1)), Tensor(v.reshape(3, -1)), Tensor(last),
                  Tensor(tables), Tensor(np.array(lengths, np.int32)))
        assert out.shape == (3, HEADS, D)
        for i, n in enumerate(lengths):
            want = attention(q[i].astype(np.float32), history[i][0].astype(np.float32),
                             history[i][1].astype(np.float32), 0.3)
            np.testing.assert_allclose(out.asnumpy()[i], want, rtol=2e-5, atol=2e-6)
        assert np.count_nonzero(net.key_cache.asnumpy().reshape(-1, KV * D).any(1)) == sum(lengths)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_masks_are_added_to_the_scaled_scores():
    lengths = [3, 4]
    tables, slots = _tables(lengths, 1)
    kc = RNG.standard_normal((NBLOCKS, BLOCK, KV, D)).astype(np.float32)
    vc = RNG.standard_normal((NBLOCKS, BLOCK, KV, D)).astype(np.float32)
    q = RNG.standard_normal((2, HEADS, D)).astype(np.float32)
    mask = RNG.standard_normal((2, BLOCK)).astype(np.float32)
    alibi = RNG.standard_normal((2, HEADS, 1, BLOCK)).astype(np.float32)
    args = [Tensor(t) for t in (q, kc, vc, tables, np.array(lengths, np.int32))]
    plain = ops.PagedAttention(HEADS, 0.5, KV)(*args, attn_mask=Tensor(mask))
    with_alibi = ops.PagedAttentionMask(HEADS, 0.5, KV)(*args, alibi_mask=Tensor(alibi))
    for i, n in enumerate(lengths):
        keys, vals = kc.reshape(-1, KV, D)[slots[i]], vc.reshape(-1, KV, D)[slots[i]]
        np.testing.assert_allclose(plain.asnumpy()[i], attention(q[i], keys, vals, 0.5, mask[i, :n]), rtol=2e-5,
                                   atol=2e-6)
        np.testing.assert_allclose(with_alibi.asnumpy()[i], attention(q[i], keys, vals, 0.5, alibi[i, :, 0, :n]),
                                   rtol=2e-5, atol=2e-6)


def test_what_is_not_taken_is_named():
    x = Tensor(np.ones((1, HEADS, D), np.float32))
    cache = Tensor(np.ones((NBLOCKS, BLOCK, KV, D), np.float32))
    table, length = Tensor(np.zeros((1, 1), np.int32)), Tensor(np.array([1], np.int32))
    with pytest.raises(ValueError, match="'q_seq_lens'"):
        ops.PagedAttention(HEADS, 1.0, KV)(x, cache, cache, table, length, q_seq_lens=length)
    with pytest.raises(ValueError, match="mask_mode 'TRAPEZOIDAL'"):
        ops.PagedAttention(HEADS, 1.0, KV, mask_mode="TRAPEZOIDAL")(x, cache, cache, table, length)
    with pytest.raises(ValueError, match="'key_cache' and 'slot_mapping' are required"):
        ops.ReshapeAndCache()(x)
    with pytest.raises(RuntimeError, match="slot mapping num_tokens: 2, key num_tokens: 4"):     # the wheel's words
        ops.ReshapeAndCache()(Tensor(np.ones((4, KV * D), np.float32)), None, cache, None, length.reshape(1).tile((2,)))
