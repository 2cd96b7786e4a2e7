"""A GPT-like stack of transformer blocks: pre-LayerNorm, single-head causal attention, GELU MLP,
residual connections. `Block.__init__` is decorated with `@lazy_inline`: every block has the same
constructor arguments (its `cell_init_args`), which is what lets MindSpore compile one block
subgraph and call it L times instead of inlining L copies.

Shapes: batch 4, sequence 64, model width 128, MLP 128 -> 512 -> 128; L = 4 blocks by default
(`GPT(num_layers=L)`).

What it shows: lazy_inline (one compiled block for L instances: compile time) and fused
attention / MLP kernels. Run directly (`python examples/gpt_blocks.py [--graph] [--layers L]`) to run the stack on random
tokens' embeddings and print timings; or through the CLI:
`pycompile examples/gpt_blocks.py --check`.
"""
import argparse
import math
import time

import numpy as np

import pycompile as ms
from pycompile import Tensor, lazy_inline, nn, ops

BATCH, SEQ, D_MODEL, D_FF = 4, 64, 128, 512


class Attention(nn.Cell):
    """Single-head causal self-attention over (batch, seq, d_model)."""

    def __init__(self, d_model, seq_len):
        super().__init__()
        self.query = nn.Dense(d_model, d_model)
        self.key = nn.Dense(d_model, d_model)
        self.value = nn.Dense(d_model, d_model)
        self.proj = nn.Dense(d_model, d_model)
        self.scores = ops.BatchMatMul(transpose_b=True)
        self.mix = ops.BatchMatMul()
        self.softmax = nn.Softmax(axis=-1)
        self.scale = 1.0 / math.sqrt(d_model)
        # -1e9 above the diagonal: position i attends to positions <= i only
        self.mask = Tensor(np.triu(np.full((seq_len, seq_len), -1e9, np.float32), k=1))

    def construct(self, x):
        q = self.query(x)
        k = self.key(x)
        v = self.value(x)
        s = self.scores(q, k) * self.scale + self.mask
        p = self.softmax(s)
        return self.proj(self.mix(p, v))


class MLP(nn.Cell):
    def __init__(self, d_model, d_ff):
        super().__init__()
        self.up = nn.Dense(d_model, d_ff)
        self.act = nn.GELU()
        self.down = nn.Dense(d_ff, d_model)

    def construct(self, x):
        return self.down(self.act(self.up(x)))


class Block(nn.Cell):
    @lazy_inline
    def __init__(self, d_model, d_ff, seq_len):
        super().__init__()
        self.ln1 = nn.LayerNorm((d_model,), epsilon=1e-5)
        self.attn = Attention(d_model, seq_len)
        self.ln2 = nn.LayerNorm((d_model,), epsilon=1e-5)
        self.mlp = MLP(d_model, d_ff)

    def construct(self, x):
        x = x + self.attn(self.ln1(x))
        x = x + self.mlp(self.ln2(x))
        return x


class GPT(nn.Cell):
    """L blocks and a final LayerNorm over hidden states of shape (batch, seq, d_model)."""

    def __init__(self, num_layers=4, d_model=D_MODEL, d_ff=D_FF, seq_len=SEQ):
        super().__init__()
        self.blocks = nn.CellList([Block(d_model, d_ff, seq_len) for _ in range(num_layers)])
        self.ln_f = nn.LayerNorm((d_model,), epsilon=1e-5)

    def construct(self, x):
        for block in self.blocks:
            x = block(x)
        return self.ln_f(x)


def example_inputs():
    rng = np.random.default_rng(0)
    return (Tensor(rng.standard_normal((BATCH, SEQ, D_MODEL)).astype(np.float32)),)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graph", action="store_true", help="run in GRAPH_MODE (compiled)")
    parser.add_argument("--layers", type=int, default=4, help="number of blocks (default 4)")
    args = parser.parse_args(argv)
    ms.set_seed(0)
    ms.set_context(mode=ms.GRAPH_MODE if args.graph else ms.PYNATIVE_MODE)
    model = GPT(num_layers=args.layers)
    (x,) = example_inputs()
    t0 = time.perf_counter()
    out = model(x)
    first = time.perf_counter() - t0
    n = 10
    t0 = time.perf_counter()
    for _ in range(n):
        out = model(x)
    steady = (time.perf_counter() - t0) / n
    mode = "GRAPH_MODE" if args.graph else "PYNATIVE_MODE"
    print("output[0, 0, :4] =", out.asnumpy()[0, 0, :4])
    print(f"{mode}: GPT with {args.layers} blocks, output {out.shape} {out.dtype}; "
          f"first call {first * 1e3:.1f} ms, steady {steady * 1e3:.3f} ms per call")
    return out


if __name__ == "__main__":
    main()
