"""ops.LSTM (the primitive with one flat weight tensor) cases shared by the recorder
(record_lstm_op.py, under MindSpore) and tests/nn/test_lstm_op.py (under pycompile):
(input_size, hidden_size, num_layers, has_bias, bidirectional, proj_size), seq 3, batch 2.

MindSpore 2.10's CPU kernel (oneDNN) refuses more than one layer with bidirectional=True and a
first layer whose input size differs from the hidden size ("could not create a primitive
descriptor"): those are not cases here."""
import numpy as np

CASES = [
    (3, 4, 1, True, False, 0),
    (3, 4, 1, False, True, 0),
    (4, 4, 2, True, False, 0),
    (4, 4, 1, False, False, 2),
    (4, 4, 1, True, True, 2),
    (5, 3, 1, True, True, 0),
]
SEQ, BATCH = 3, 2


def weight_count(i, h, layers, bias, bi, proj):
    """The flat weight's length (MindSpore's layout: every layer's input weights, then every
    layer's recurrent weights, the projections, the biases; per (layer, direction), 4 gates)."""
    d = 2 if bi else 1
    r = proj if proj > 0 else h
    n = sum(4 * h * (i if layer == 0 else r * d) for layer in range(layers)) * d
    n += 4 * h * r * layers * d
    if proj > 0:
        n += proj * h * layers * d
    if bias:
        n += 4 * h * layers * d
    return n


def inputs(case, seed):
    i, h, layers, bias, bi, proj = case
    d = 2 if bi else 1
    r = proj if proj > 0 else h
    rng = np.random.default_rng(seed)
    w = rng.uniform(-0.5, 0.5, (weight_count(*case), 1, 1)).astype(np.float32)
    x = rng.standard_normal((SEQ, BATCH, i)).astype(np.float32)
    h0 = rng.standard_normal((layers * d, BATCH, r)).astype(np.float32)
    c0 = rng.standard_normal((layers * d, BATCH, h)).astype(np.float32)
    # weights of the loss whose gradients are recorded: sum(y * gy) + sum(hn * gh) + sum(cn * gc)
    gy = rng.standard_normal((SEQ, BATCH, r * d)).astype(np.float32)
    gh = rng.standard_normal((layers * d, BATCH, r)).astype(np.float32)
    gc = rng.standard_normal((layers * d, BATCH, h)).astype(np.float32)
    return x, h0, c0, w, gy, gh, gc


def loss_cell(ms, case):
    """A Cell of framework `ms` (mindspore or pycompile): the weighted sum of ops.LSTM's outputs
    whose gradients are compared, sum(y * gy) + sum(hn * gh) + sum(cn * gc)."""
    i, h, layers, bias, bi, proj = case

    class Loss(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.lstm = ms.ops.LSTM(i, h, layers, bias, bi, 0.0, proj)

        def construct(self, x, h0, c0, w, gy, gh, gc):
            y, hn, cn, _, _ = self.lstm(x, h0, c0, w)
            return (y * gy).sum() + (hn * gh).sum() + (cn * gc).sum()
    return Loss()
