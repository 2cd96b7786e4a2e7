"""The arithmetic of one recurrent step, shared by the sequence layers (rnn.py) and the
single-step cells (rnn_cells.py), written so that compiled code does the least work per step.

Gate orders are MindSpore's (= PyTorch's): LSTM (i, f, g, o), GRU (r, z, n) with
n = tanh(W_in x + b_in + r * (W_hn h + b_hn)).

LSTM: the four gates come out of ONE product (h @ W_hh^T, 4H columns) and are activated in its
epilogue by one elementwise expression over all 4H columns: sigmoid(s * x) * s + (1 - s), with
s = 1 on the i, f, o columns (a sigmoid) and s = 2 on the g columns (2 sigmoid(2x) - 1 = tanh x),
so every column costs one exp and the whole activation fuses into the product's epilogue. Only
then is the (B, 4H) result cut into its four gates for the cell update, one fused kernel.
GRU: the epilogue adds b_hh and computes sigmoid(gi + gh) over all 3H columns (r and z are its
first 2H); the n gate then reads the gh columns it needs.
"""
from __future__ import annotations

import numpy as np

from pycompile import ops
from pycompile.common.tensor import Tensor


def gate_scale(hidden: int, dtype) -> tuple:
    """(s, 1 - s) over the 4H LSTM gate columns: 2 on the g gate (tanh), 1 elsewhere (sigmoid)."""
    s = np.ones(4 * hidden, dtype.np)
    s[2 * hidden:3 * hidden] = 2
    return Tensor(s), Tensor(1 - s)


def lstm_update(gates, c, scale, shift):
    """(h', c') from the (B, 4H) pre-activation gates and the cell state c."""
    hidden = c.shape[-1]
    act = ops.sigmoid(gates * scale) * scale + shift
    i, f = act[:, :hidden], act[:, hidden:2 * hidden]
    g, o = act[:, 2 * hidden:3 * hidden], act[:, 3 * hidden:]
    c_new = f * c + i * g
    return o * ops.tanh(c_new), c_new


def gru_update(gi, gh, h):
    """h' from the input part gi = x W_ih^T + b_ih and hidden part gh = h W_hh^T + b_hh (B, 3H)."""
    hidden = h.shape[-1]
    rz = ops.sigmoid(gi + gh)
    r, z = rz[:, :hidden], rz[:, hidden:2 * hidden]
    n = ops.tanh(gi[:, 2 * hidden:] + r * gh[:, 2 * hidden:])
    return n + z * (h - n)


def rnn_update(pre, nonlinearity: str):
    return ops.tanh(pre) if nonlinearity == "tanh" else ops.relu(pre)


def linear(x, w, b=None):
    """x @ w^T (+ b) for a 2-D x."""
    y = ops.MatMul(transpose_b=True)(x, w)
    return y if b is None else y + b
