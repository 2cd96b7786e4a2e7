"""examples/llm_attention.py: a causal LM whose attention is FlashAttentionScore learns to count in
GRAPH_MODE, and generating through the paged key / value cache (ReshapeAndCache + PagedAttention)
gives, at every step, the logits of running the whole sequence again."""
import importlib.util
import os

import pycompile as ms

PATH = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "llm_attention.py")


def test_trains_and_generates_through_the_paged_cache():
    spec = importlib.util.spec_from_file_location("llm_attention_example", PATH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    try:
        lm, losses = mod.train(60)
        assert losses[-1] < 0.05 < losses[0], losses
        seqs, worst = mod.generate(lm, [[3, 4, 5], [20, 21, 22]], 8)
        assert seqs == [list(range(3, 14)), [(20 + i) % 32 for i in range(11)]]
        assert worst < 1e-4, worst
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
