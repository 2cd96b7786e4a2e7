"""MindSpore's fused large-model attention on the CPU: a tiny causal language model whose attention is
`FlashAttentionScore` (as mindformers writes it), trained in GRAPH_MODE, then generating text token by
token with a paged key / value cache (`ReshapeAndCache` + `PagedAttention`) - and the logits of each
generated step checked against running the whole sequence again. MindSpore's CPU build has no kernels
for these ops; pycompile computes them (docs/guide/large-models.md).

    python examples/llm_attention.py            # trains 60 steps, then generates 12 tokens
"""
import argparse

import numpy as np

import pycompile as ms
from pycompile import Parameter, Tensor, nn, ops
from pycompile.ops.operations.nn_ops import FlashAttentionScore

VOCAB, HIDDEN, HEADS, KV_HEADS, SEQ = 32, 32, 4, 2, 16
HEAD_DIM = HIDDEN // HEADS
BLOCK, BLOCKS = 4, 16                   # the paged cache: 16 blocks of 4 positions


class Attention(nn.Cell):
    """Grouped-query causal self-attention; its weights are shared by the training and decoding paths."""

    def __init__(self):
        super().__init__()
        self.q = nn.Dense(HIDDEN, HIDDEN, has_bias=False)
        self.kv = nn.Dense(HIDDEN, 2 * KV_HEADS * HEAD_DIM, has_bias=False)
        self.out = nn.Dense(HIDDEN, HIDDEN, has_bias=False)
        self.fa = FlashAttentionScore(HEADS, scale_value=HEAD_DIM ** -0.5, input_layout="BSH", sparse_mode=2)
        self.causal = Tensor(np.triu(np.ones((2048, 2048), np.uint8), 1))     # the kernel's compressed mask

    def construct(self, x):
        k, v = ops.split(self.kv(x), KV_HEADS * HEAD_DIM, -1)
        return self.out(self.fa(self.q(x), k, v, None, None, None, self.causal)[3])


class TinyLM(nn.Cell):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, HIDDEN)
        self.attn = Attention()
        self.norm = nn.LayerNorm((HIDDEN,))
        self.head = nn.Dense(HIDDEN, VOCAB)

    def construct(self, tokens):
        x = self.embed(tokens)
        return self.head(self.norm(x + self.attn(x)))


class Decoder(nn.Cell):
    """One generation step for a batch of sequences: this step's key / value go into the paged cache
    (ReshapeAndCache), the query attends over each sequence's cached positions (PagedAttention)."""

    def __init__(self, lm):
        super().__init__()
        self.lm = lm
        shape = (BLOCKS, BLOCK, KV_HEADS * HEAD_DIM)
        self.key_cache = Parameter(Tensor(np.zeros(shape, np.float32)), name="key_cache", requires_grad=False)
        self.value_cache = Parameter(Tensor(np.zeros(shape, np.float32)), name="value_cache", requires_grad=False)
        self.write = ops.ReshapeAndCache()
        self.paged = ops.PagedAttention(HEADS, HEAD_DIM ** -0.5, KV_HEADS)

    def construct(self, token, slot, block_tables, context_lens):
        attn = self.lm.attn
        x = self.lm.embed(token)                                   # (batch, hidden)
        k, v = ops.split(attn.kv(x), KV_HEADS * HEAD_DIM, -1)
        self.write(k, v, self.key_cache, self.value_cache, slot)
        q = ops.reshape(attn.q(x), (-1, HEADS, HEAD_DIM))
        a = self.paged(q, self.key_cache, self.value_cache, block_tables, context_lens)
        h = x + attn.out(ops.reshape(a, (-1, HIDDEN)))
        return self.lm.head(self.lm.norm(h))


def data(rng, batch):
    """Sequences that count up modulo VOCAB from a random start: the next token is predictable."""
    start = rng.integers(0, VOCAB, (batch, 1))
    seq = (start + np.arange(SEQ + 1)) % VOCAB
    return seq[:, :-1].astype(np.int32), seq[:, 1:].astype(np.int32)


def train(steps=60, seed=0):
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_seed(seed)
    lm = TinyLM()
    step = nn.TrainOneStepCell(nn.WithLossCell(_Flat(lm), nn.CrossEntropyLoss()), nn.Adam(lm.trainable_params(), 0.01))
    rng = np.random.default_rng(seed)
    losses = []
    for _ in range(steps):
        tokens, targets = data(rng, 8)
        losses.append(float(step(Tensor(tokens), Tensor(targets.reshape(-1))).asnumpy()))
    return lm, losses


class _Flat(nn.Cell):
    """lm's logits as (batch * seq, vocab), as the loss takes them."""

    def __init__(self, lm):
        super().__init__()
        self.lm = lm

    def construct(self, tokens):
        return ops.reshape(self.lm(tokens), (-1, VOCAB))


def generate(lm, prompts, new_tokens):
    """Greedy decoding of each prompt, one token a step through the paged cache; every step's logits are
    compared with lm run on the whole sequence so far (the cache must give the same attention)."""
    batch = len(prompts)
    decoder = Decoder(lm)
    tables = np.arange(batch * (BLOCKS // batch), dtype=np.int32).reshape(batch, -1)[:, ::-1].copy()  # any order
    seqs = [list(p) for p in prompts]
    worst = 0.0
    for pos in range(len(prompts[0]) + new_tokens - 1):        # prompts of one length
        token = np.array([s[pos] for s in seqs], np.int32)
        slot = np.array([tables[i, pos // BLOCK] * BLOCK + pos % BLOCK for i in range(batch)], np.int32)
        logits = decoder(Tensor(token), Tensor(slot), Tensor(tables), Tensor(np.full(batch, pos + 1, np.int32)))
        full = lm(Tensor(np.array([s[:pos + 1] for s in seqs], np.int32)))[:, -1]
        worst = max(worst, float(np.abs(logits.asnumpy() - full.asnumpy()).max()))
        for i, s in enumerate(seqs):
            if pos + 1 >= len(s):
                s.append(int(logits.asnumpy()[i].argmax()))
    return seqs, worst


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--tokens", type=int, default=12)
    args = parser.parse_args()
    lm, losses = train(args.steps)
    print(f"training loss {losses[0]:.3f} -> {losses[-1]:.3f} over {len(losses)} steps")
    seqs, worst = generate(lm, [[3, 4, 5], [20, 21, 22]], args.tokens)
    for s in seqs:
        print("generated:", s)
    print(f"paged-cache logits vs whole-sequence logits: largest difference {worst:.2e}")


if __name__ == "__main__":
    main()
