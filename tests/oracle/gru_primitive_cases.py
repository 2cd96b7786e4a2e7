"""The cases of record_gru_primitive.py / tests/nn/test_gru_primitive.py: GRUV2 configurations the
wheel's oneDNN kernel runs (input_size, hidden_size, num_layers, has_bias, bidirectional), and their
deterministic inputs (framework-neutral: NumPy only)."""
import numpy as np

# (input_size, hidden_size, num_layers, has_bias, bidirectional, seq, batch)
CASES = [(3, 2, 1, True, False, 4, 2), (3, 2, 1, True, True, 4, 2), (2, 2, 2, True, False, 4, 2),
         (2, 2, 3, False, False, 4, 2), (3, 2, 1, False, True, 4, 2), (10, 2, 1, True, False, 5, 2),
         (5, 4, 1, True, True, 3, 3)]


def weight_count(case) -> int:
    i, h, layers, bias, bidir = case[:5]
    d = 2 if bidir else 1
    n = 0
    for layer in range(layers):
        width = i if layer == 0 else d * h
        n += d * 3 * h * (width + h) + (d * 6 * h if bias else 0)
    return n


def inputs(case, seed):
    i, h, layers, bias, bidir, seq, batch = case
    d = 2 if bidir else 1
    rng = np.random.default_rng(100 + seed)
    x = rng.standard_normal((seq, batch, i)).astype(np.float32)
    h0 = rng.standard_normal((layers * d, batch, h)).astype(np.float32)
    w = (rng.standard_normal((weight_count(case), 1, 1)) * 0.5).astype(np.float32)
    lengths = np.array([seq - k % seq for k in range(batch)], np.int32)
    return x, h0, w, lengths
