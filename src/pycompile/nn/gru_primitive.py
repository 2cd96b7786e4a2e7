"""ops.operations._rl_inner_ops.GRUV2: MindSpore's GRU primitive with every weight in one flat tensor
(its reinforcement-learning package's, the one its CPU test suite runs), on nn.GRU's time loop.

    y, h_n, reserve, state = GRUV2(input_size, hidden_size, num_layers, has_bias, bidirectional,
                                   dropout, is_train=True)(x, h_0, w, seq_lengths)

x (seq, batch, input_size), h_0 (layers * directions, batch, hidden_size), w of n elements (any
shape) laid out as the wheel's CPU kernel (oneDNN's GRU) reads it - recorded by probing it one
weight at a time, then checked on random weights (tests/nn/test_gru_primitive.py):
every (layer, direction)'s input weights (3 * hidden, its input size) in layer-then-direction order,
then every one's recurrent weights (3 * hidden, hidden), then with has_bias 6 * hidden per (layer,
direction) of which the kernel reads the first 3 * hidden only (one bias on the input side). Gates
z, r, n (the update gate first), and the reset gate applied before the recurrent product:

    z = sigmoid(W_iz x + b_z + W_hz h),  r = sigmoid(W_ir x + b_r + W_hr h)
    n = tanh(W_in x + b_n + W_hn (r * h)),  h' = (1 - z) * n + z * h

(nn.GRU's n is tanh(W_in x + b_in + r * (W_hn h + b_hn)), PyTorch's.) The input of layer l > 0 is
the previous layer's output, directions concatenated.

As the wheel: `seq_lengths` (int32, one per example) is checked and then not used - every step of
every example runs (the docstring's example shows the steps past each length computed, and so
does the CPU kernel); `dropout` is taken and, as its CPU kernel, not applied.

Where pycompile differs from the wheel, and why:
- `reserve` and `state` are oneDNN's workspace in the wheel ((1, 1) on the first call, (6826, 1)
  later, its internals); here (1, 1) zeros, as the primitive's shape inference says.
- a `w` with fewer elements than the layout needs is a ValueError; the wheel reads past its end.
- several layers whose input size is not the hidden size (times the directions), and several
  bidirectional layers: the wheel's oneDNN kernel refuses them ("could not create a primitive
  descriptor"); they run here, with the layout above.
"""
from __future__ import annotations

import numpy as np

from pycompile import ops
from pycompile.common import dtype as mstype
from pycompile.common.tensor import Tensor
from pycompile.nn import rnn_math as M
from pycompile.nn.flat_rnn import check_bool, check_dropout, check_size, cut
from pycompile.nn.rnn import run_direction
from pycompile.ops._table import OpTypeError, OpValueError
from pycompile.ops.primitive import Primitive


def _int(name, value):
    if not isinstance(value, int) or isinstance(value, bool):
        raise OpTypeError(f"For 'GRUV2', the '{name}' must be int, but got '{type(value).__name__}'")
    if value < 1:
        raise OpValueError(f"For 'GRUV2', the '{name}' must be int and must > 0, but got '{value}' with type 'int'.")
    return value


def _step(xw, t, h, extra):
    """One step: z and r from one product of h, then n from (r * h)."""
    w_zr, w_n = extra
    hidden = h.shape[-1]
    gi = ops.gather(xw, t, 0)
    zr = ops.sigmoid(gi[:, :2 * hidden] + M.linear(h, w_zr))
    z, r = zr[:, :hidden], zr[:, hidden:]
    n = ops.tanh(gi[:, 2 * hidden:] + M.linear(r * h, w_n))
    h_new = n + z * (h - n)
    return h_new, h_new


class GRUV2(Primitive):
    """MindSpore's `ops.operations._rl_inner_ops.GRUV2` (see the module docstring)."""

    def __init__(self, input_size, hidden_size, num_layers, has_bias, bidirectional, dropout, is_train=True):
        super().__init__("GRUV2")
        self.input_size = _int("input_size", input_size)
        self.hidden_size = _int("hidden_size", hidden_size)
        self.num_layers = _int("num_layers", num_layers)
        self.has_bias = check_bool("GRUV2", "has_bias", has_bias)
        self.bidirectional = check_bool("GRUV2", "bidirectional", bidirectional)
        self.dropout = check_dropout("GRUV2", dropout)
        self.is_train = check_bool("GRUV2", "is_train", is_train)
        self.num_directions = 2 if bidirectional else 1
        self.add_prim_attrs(input_size=input_size, hidden_size=hidden_size, num_layers=num_layers,
                            has_bias=has_bias, bidirectional=bidirectional, dropout=dropout, is_train=is_train)

    def _layout(self):
        """[(name, layer, direction, shape)] in the flat weight's order, and its length."""
        h, d = self.hidden_size, self.num_directions
        pieces = []
        for layer in range(self.num_layers):
            width = self.input_size if layer == 0 else h * d
            pieces += [("ih", layer, k, (3 * h, width)) for k in range(d)]
        pieces += [("hh", layer, k, (3 * h, h)) for layer in range(self.num_layers) for k in range(d)]
        if self.has_bias:
            pieces += [("b", layer, k, (3 * h,)) for layer in range(self.num_layers) for k in range(d)]
            pieces += [("unread", layer, k, (3 * h,)) for layer in range(self.num_layers) for k in range(d)]
        return pieces, sum(int(np.prod(s)) for *_, s in pieces)

    def _check(self, x, h, w, seq_lengths):
        dtypes = [getattr(v, "dtype", None) for v in (x, h, w)]
        if None in dtypes:
            raise OpTypeError(f"For primitive[GRUV2], the inputs x, h and w must be Tensors, but got "
                              f"{', '.join(type(v).__name__ for v in (x, h, w))}.")
        if len(set(dtypes)) > 1:
            raise OpTypeError("For primitive[GRUV2], the input type must be same.")
        if x.dtype not in (mstype.float16, mstype.float32):
            raise OpTypeError(f"For primitive[GRUV2], the input argument[x] must be a type of {{Tensor[Float16], "
                              f"Tensor[Float32]}}, but got Tensor[{x.dtype}].")
        if getattr(seq_lengths, "dtype", None) != mstype.int32:
            got = f"Tensor[{seq_lengths.dtype}]" if hasattr(seq_lengths, "dtype") else type(seq_lengths).__name__
            raise OpTypeError(f"For primitive[GRUV2], the input argument[seq_lengths] must be a type of "
                              f"{{Tensor[Int32]}}, but got {got}.")
        if len(x.shape) != 3:
            raise OpValueError(f"For 'GRUV2', the x rank must be equal to 3, but got {len(x.shape)}.")
        if x.shape[2] != self.input_size:
            raise OpValueError("For dynamic rnn, the input_shape[2] should equal to input_size.")
        want = (self.num_layers * self.num_directions, x.shape[1], self.hidden_size)
        if tuple(h.shape) != want:
            raise OpValueError(f"For 'GRUV2', the h shape must be {list(want)}, but got {list(h.shape)}.")
        if tuple(seq_lengths.shape) != (x.shape[1],):
            raise OpValueError(f"For 'GRUV2', the seq_lengths shape must be [{x.shape[1]}], but got "
                               f"{list(seq_lengths.shape)}.")
        check_size("'GRUV2'", w, self._layout()[1],
                   f"input_size {self.input_size}, hidden_size {self.hidden_size}, num_layers {self.num_layers}, "
                   f"has_bias {self.has_bias} and bidirectional {self.bidirectional}")

    def __call__(self, x, h, w, seq_lengths):
        self._check(x, h, w, seq_lengths)
        dtype, hidden = x.dtype, self.hidden_size
        weights = cut(w, self._layout()[0])
        seq, batch = x.shape[0], x.shape[1]
        layer_in, h_n = x, []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(self.num_directions):
                k = layer * self.num_directions + direction
                xw = M.linear(ops.reshape(layer_in, (seq * batch, layer_in.shape[2])),
                              weights[("ih", layer, direction)], weights.get(("b", layer, direction)))
                xw = ops.reshape(xw, (seq, batch, 3 * hidden))
                w_hh = weights[("hh", layer, direction)]
                extra = (w_hh[:2 * hidden], w_hh[2 * hidden:])
                final, ys = run_direction(_step, xw, h[k], extra, reverse=direction == 1)
                outputs.append(ys)
                h_n.append(final)
            layer_in = outputs[0] if len(outputs) == 1 else ops.concat(outputs, 2)
        zeros = Tensor(np.zeros((1, 1), dtype.np))
        return layer_in, ops.stack(h_n, 0), zeros, Tensor(np.zeros((1, 1), dtype.np))
