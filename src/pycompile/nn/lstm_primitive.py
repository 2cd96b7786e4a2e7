"""ops.LSTM: MindSpore's LSTM primitive, every weight in one flat tensor (what its nn.LSTM used to
call, and what models written against the primitive pass), on nn.LSTM's recurrent step.

    y, h_n, c_n, reserve, state = ops.LSTM(input_size, hidden_size, num_layers, has_bias,
                                           bidirectional, dropout, proj_size=0)(x, h_0, c_0, w)

x (seq, batch, input_size); h_0 (layers * directions, batch, proj_size or hidden_size); c_0
(layers * directions, batch, hidden_size); w of (n, 1, 1) (any shape of n elements) laid out as
MindSpore's CPU kernel reads it: every (layer, direction)'s input weights (4 * hidden, its input
size) in layer-then-direction order, then every one's recurrent weights (4 * hidden, proj_size or
hidden_size), then with proj_size every one's projection (proj_size, hidden_size), then with
has_bias one bias of 4 * hidden per (layer, direction). Gates i, f, g, o (PyTorch's order);
with proj_size, h = (o * tanh(c)) @ W_hr^T. The input of layer l > 0 is the previous layer's
output (directions concatenated).

It is built on nn/rnn.py's time loop (one `For` in graph code, its gradient the loop's), with
gradients for x, h_0, c_0 and w; values and gradients recorded from MindSpore 2.10's wheel
(tests/nn/test_lstm_op.py, tests/oracle/data/lstm_op.json).

Where pycompile differs from the wheel, and why:
- `reserve` and `state` are oneDNN's training workspace in the wheel (a (7168, 1) buffer of its
  internals, for its LSTMGrad); pycompile's gradient keeps what it needs in the graph, so both are
  (1, 1) zeros (the wheel gives (1, 1) too for float64).
- a `w` with fewer elements than the layout needs is a ValueError here; the wheel reads past its
  end.
- `dropout` between layers is applied as MindSpore documents it ("append Dropout layer on the
  outputs of each LSTM layer except the last layer"); the wheel's CPU kernel ignores it.
- several layers with bidirectional=True, or a first layer whose input size is not the hidden
  size: the wheel's oneDNN kernel refuses them ("could not create a primitive descriptor"); they
  run here, with the layout above.
"""
from __future__ import annotations

import numpy as np

from pycompile import ops
from pycompile.common import dtype as mstype
from pycompile.common.tensor import Tensor
from pycompile.nn import rnn_math as M
from pycompile.nn.flat_rnn import check_bool, check_dropout, check_size, cut
from pycompile.nn.rnn import _masked, run_direction
from pycompile.ops._table import OpTypeError, OpValueError
from pycompile.ops.primitive import Primitive


def _int(name, value, low, high=None):
    if not isinstance(value, int) or isinstance(value, bool):
        raise OpTypeError(f"For 'LSTM', the type of '{name}' should be 'int', but got type "
                          f"'{type(value).__name__}'.")
    if high is not None and not low <= value < high:
        raise OpValueError(f"For 'LSTM', the '{name}' must be in range of [{low}, {high}), but got {value} "
                           f"with type 'int'.")
    if high is None and value < low:
        raise OpValueError(f"For 'LSTM', the '{name}' must be int and must > {low - 1}, but got '{value}' "
                           f"with type 'int'.")
    return value


def _projected_step(xw, t, state, extra):
    """One LSTM step with a projection: h' = (o * tanh(c')) @ W_hr^T."""
    w_hh, scale, shift, lengths, w_hr = extra
    h, c = state
    gates = M.linear(h, w_hh) + ops.gather(xw, t, 0)
    h_full, c_new = M.lstm_update(gates, c, scale, shift)
    h_new = M.linear(h_full, w_hr)
    return _masked(t, lengths, (h_new, c_new), (h, c), h_new)


def _plain_step(xw, t, state, extra):
    w_hh, scale, shift, lengths, _ = extra
    h, c = state
    gates = M.linear(h, w_hh) + ops.gather(xw, t, 0)
    h_new, c_new = M.lstm_update(gates, c, scale, shift)
    return _masked(t, lengths, (h_new, c_new), (h, c), h_new)


class LSTM(Primitive):
    """MindSpore's `ops.LSTM` (see the module docstring)."""

    def __init__(self, input_size, hidden_size, num_layers, has_bias, bidirectional, dropout, proj_size=0):
        super().__init__("LSTM")
        self.input_size = _int("input_size", input_size, 1)
        self.hidden_size = _int("hidden_size", hidden_size, 1)
        self.num_layers = _int("num_layers", num_layers, 1)
        self.has_bias = check_bool("LSTM", "has_bias", has_bias)
        self.bidirectional = check_bool("LSTM", "bidirectional", bidirectional)
        self.dropout = check_dropout("LSTM", dropout)
        self.proj_size = _int("proj_size", proj_size, 0, hidden_size)
        self.num_directions = 2 if bidirectional else 1
        self.real_hidden_size = proj_size if proj_size > 0 else hidden_size
        self.add_prim_attrs(input_size=input_size, hidden_size=hidden_size, num_layers=num_layers,
                            has_bias=has_bias, bidirectional=bidirectional, dropout=dropout, proj_size=proj_size)

    def _layout(self):
        """[(name, layer, direction, shape)] in the flat weight's order, and its length."""
        h, r, d = self.hidden_size, self.real_hidden_size, self.num_directions
        pieces = []
        for layer in range(self.num_layers):
            width = self.input_size if layer == 0 else r * d
            pieces += [("ih", layer, k, (4 * h, width)) for k in range(d)]
        pieces += [("hh", layer, k, (4 * h, r)) for layer in range(self.num_layers) for k in range(d)]
        if self.proj_size > 0:
            pieces += [("hr", layer, k, (self.proj_size, h)) for layer in range(self.num_layers) for k in range(d)]
        if self.has_bias:
            pieces += [("b", layer, k, (4 * h,)) for layer in range(self.num_layers) for k in range(d)]
        return pieces, sum(int(np.prod(s)) for *_, s in pieces)

    def _check(self, x, h, c, w):
        for name, v in (("x", x), ("h", h), ("c", c), ("w", w)):
            dt = getattr(v, "dtype", None)
            if dt not in (mstype.float16, mstype.float32, mstype.float64):
                raise OpTypeError(f"For primitive[LSTM], the input argument[{name}] must be a type of "
                                  f"{{Tensor[Float16], Tensor[Float32], Tensor[Float64]}}, but got {dt or type(v)}.")
        if len(x.shape) != 3:
            raise OpValueError(f"For primitive[LSTM], the x_shape.size() must be equal to 3, but got {len(x.shape)}.")
        if x.shape[2] != self.input_size:
            raise OpValueError(f"For primitive[LSTM], the x_shape[2] must be equal to {self.input_size}, but got "
                               f"{x.shape[2]}.")
        states = self.num_layers * self.num_directions
        for name, v, width in (("h", h, self.real_hidden_size), ("c", c, self.hidden_size)):
            want = (states, x.shape[1], width)
            if tuple(v.shape) != want:
                raise OpValueError(f"For primitive[LSTM], the {name}_shape: [{','.join(map(str, v.shape))},] must be "
                                   f"equal to [{','.join(map(str, want))},]")
        check_size("primitive[LSTM]", w, self._layout()[1],
                   f"input_size {self.input_size}, hidden_size {self.hidden_size}, num_layers {self.num_layers}, "
                   f"has_bias {self.has_bias}, bidirectional {self.bidirectional} and proj_size {self.proj_size}")

    def __call__(self, x, h, c, w):
        self._check(x, h, c, w)
        dtype = x.dtype
        weights = cut(ops.cast(w, dtype), self._layout()[0])
        scale, shift = M.gate_scale(self.hidden_size, dtype)
        step = _projected_step if self.proj_size > 0 else _plain_step
        seq, batch = x.shape[0], x.shape[1]
        layer_in, h_n, c_n = x, [], []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(self.num_directions):
                k = layer * self.num_directions + direction
                w_ih = weights[("ih", layer, direction)]
                xw = M.linear(ops.reshape(layer_in, (seq * batch, layer_in.shape[2])), w_ih,
                              weights.get(("b", layer, direction)))
                xw = ops.reshape(xw, (seq, batch, xw.shape[-1]))
                extra = (weights[("hh", layer, direction)], scale, shift, None, weights.get(("hr", layer, direction)))
                final, ys = run_direction(step, xw, (h[k], c[k]), extra, reverse=direction == 1)
                outputs.append(ys)
                h_n.append(final[0])
                c_n.append(final[1])
            output = outputs[0] if len(outputs) == 1 else ops.concat(outputs, 2)
            if self.dropout > 0 and layer < self.num_layers - 1:
                output = ops.dropout(output, p=self.dropout)
            layer_in = output
        workspace = Tensor(np.zeros((1, 1), dtype.np))
        return output, ops.stack(h_n, 0), ops.stack(c_n, 0), workspace, Tensor(np.zeros((1, 1), dtype.np))
