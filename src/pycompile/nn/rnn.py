"""nn.RNN, nn.LSTM, nn.GRU: MindSpore 2.10's constructor arguments, Parameter names and
results (num_layers, bidirectional, batch_first, has_bias, dropout between layers, an initial
state, per-example `seq_length`).

Compiled, each direction of each layer is: ONE matrix product computing the input part of every
gate for the whole sequence up front (x @ W_ih^T + biases, (S*B, I) x (I, G)), then a `For`
loop over time - one loop in the IR and in C, whatever the sequence length - whose body is one
product h @ W_hh^T with the gate activations in its epilogue, one fused kernel updating the
state, and the write of the step's output row. The loop is library code walked as graph code
(`ops.tracing.walk_as_graph_code`), as user code is, so it stays a loop; PyNative runs the same
step function in a Python loop.

The output row is written with a row scatter (`ys[t] = h` as TensorScatterUpdate): the memory
planner updates a loop-carried tensor in place when the loop only rewrites rows of it
(backend/c/memory.py, `_inplace_carried`), so a step writes B*H values, and the backward's
cotangent of the output sequence is row-updated in place the same way.

With `seq_length`, steps at or past an example's length leave its state unchanged and output
zeros; the reverse direction runs from the last step down, so it starts each example at its own
last valid step, which is what MindSpore's ReverseSequence-based form computes.
"""
from __future__ import annotations

import math

import numpy as np

from pycompile import ops
from pycompile.common import dtype as mstype
from pycompile.common.parameter import Parameter, ParameterTuple
from pycompile.common.tensor import Tensor
from pycompile.nn import rnn_math as M
from pycompile.nn.cell import Cell
from pycompile.nn.layers import Dropout
from pycompile.ops.time_loop import _time_loop, _time_loop_eager
from pycompile.ops.tracing import walk_as_graph_code

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def check_positive_int(owner: str, what: str, v) -> int:
    if not isinstance(v, int) or isinstance(v, bool):
        raise TypeError(f"For '{owner}', the type of '{what}' must be int, but got {type(v).__name__}.")
    if v <= 0:
        raise ValueError(f"For '{owner}', the '{what}' must be a positive int, but got {v}.")
    return v


def check_bool(owner: str, what: str, v) -> bool:
    if not isinstance(v, bool):
        raise TypeError(f"For '{owner}', the type of '{what}' must be bool, but got {type(v).__name__}.")
    return v


def check_float_input(owner: str, what: str, x) -> None:
    dt = getattr(x, "dtype", None)
    if dt not in (mstype.float16, mstype.float32):
        raise TypeError(f"For '{owner}', the '{what}' must be a Float16 or Float32 Tensor, but got "
                        f"{dt if dt is not None else type(x).__name__}.")


# ---- the time loop: pycompile/ops/time_loop.py (DynamicRNN / DynamicGRUV2 run it too) -----------------


def _masked(t, lengths, new, old, y):
    """Freeze the state and output zeros at steps past each example's length."""
    if lengths is None:
        return new, y
    live = ops.less(t, lengths)
    new = tuple(ops.select(live, n, o) for n, o in zip(new, old)) if isinstance(new, tuple) \
        else ops.select(live, new, old)
    return new, ops.select(live, y, ops.zeros_like(y))


def _lstm_step(xw, t, state, extra):
    w_hh, scale, shift, lengths = extra
    h, c = state
    gates = M.linear(h, w_hh) + ops.gather(xw, t, 0)
    h_new, c_new = M.lstm_update(gates, c, scale, shift)
    return _masked(t, lengths, (h_new, c_new), (h, c), h_new)


def _gru_step(xw, t, h, extra):
    w_hh, b_hh, lengths = extra
    h_new = M.gru_update(ops.gather(xw, t, 0), M.linear(h, w_hh, b_hh), h)
    return _masked(t, lengths, h_new, h, h_new)


def _rnn_step(xw, t, h, extra):
    w_hh, nonlinearity, lengths = extra
    h_new = M.rnn_update(M.linear(h, w_hh) + ops.gather(xw, t, 0), nonlinearity)
    return _masked(t, lengths, h_new, h, h_new)


def run_direction(step, xw, state, extra, reverse: bool):
    """(final state, outputs (S, B, H)) of one direction over the (S, B, G) input projections."""
    seq = xw.shape[0]
    steps = range(seq - 1, -1, -1) if reverse else range(seq)
    h = state[0] if isinstance(state, tuple) else state
    ys = ops.zeros((seq,) + tuple(h.shape), h.dtype)
    walked, out = walk_as_graph_code(_time_loop, (step, xw, state, ys, steps, extra))
    if walked:
        return out
    return _time_loop_eager(step, xw, state, steps, extra)


# ---- the layers ---------------------------------------------------------------------------------
class _RNNBase(Cell):
    def __init__(self, mode, input_size, hidden_size, num_layers=1, has_bias=True, batch_first=False, dropout=0.,
                 bidirectional=False, dtype=mstype.float32):
        super().__init__()
        owner = type(self).__name__
        check_positive_int(owner, "hidden_size", hidden_size)
        check_positive_int(owner, "input_size", input_size)
        check_positive_int(owner, "num_layers", num_layers)
        for what, v in (("has_bias", has_bias), ("batch_first", batch_first), ("bidirectional", bidirectional)):
            check_bool(owner, what, v)
        if not isinstance(dropout, float):
            raise TypeError(f"For '{owner}', the type of 'dropout' must be float, but got {type(dropout).__name__}.")
        if not 0 <= dropout < 1:
            raise ValueError(f"For '{owner}', the 'dropout' must be a number in range [0, 1) representing the "
                             f"probability of an element being zeroed, but got {dropout}.")
        self.mode, self.is_lstm = mode, mode == "LSTM"
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.has_bias, self.batch_first, self.bidirectional = has_bias, batch_first, bidirectional
        self.dropout = dropout
        self.dropout_op = Dropout(p=float(dropout))
        self.num_directions = 2 if bidirectional else 1
        gate_size = _GATES[mode] * hidden_size
        stdv = 1 / math.sqrt(hidden_size)
        # MindSpore's layout and draws: four ParameterTuples (w_ih_list, w_hh_list, b_ih_list,
        # b_hh_list), one entry per (layer, direction), each drawn from NumPy's global generator
        # in the order w_ih, w_hh, b_ih, b_hh of each (layer, direction), as float32 - so a model
        # seeded with np.random.seed (or set_seed) starts from MindSpore's weights, and a user's
        # `net.w_ih_list = ParameterTuple(...)` replaces the weights the layer runs with
        lists = {"weight_ih": [], "weight_hh": [], "bias_ih": [], "bias_hh": []}
        for layer in range(num_layers):
            in_size = input_size if layer == 0 else hidden_size * self.num_directions
            for direction in range(self.num_directions):
                shapes = [("weight_ih", (gate_size, in_size)), ("weight_hh", (gate_size, hidden_size))]
                if has_bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                for kind, shape in shapes:
                    value = np.random.uniform(-stdv, stdv, shape).astype(np.float32)
                    name = self.param_name(kind, layer, direction)
                    lists[kind].append(Parameter(Tensor(value, dtype=dtype), name=name))
        self.w_ih_list = ParameterTuple(lists["weight_ih"])
        self.w_hh_list = ParameterTuple(lists["weight_hh"])
        self.b_ih_list = ParameterTuple(lists["bias_ih"])
        self.b_hh_list = ParameterTuple(lists["bias_hh"])

    def __getattr__(self, name):
        """`net.weight_ih_l0` reads the Parameter of that name, as MindSpore's Cell does."""
        params = self.__dict__.get("_params", {})
        if name in params:
            return params[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def param_name(self, kind: str, layer: int, direction: int) -> str:
        return f"{kind}_l{layer}{'_reverse' if direction else ''}"

    def _weights(self, layer, direction, dtype):
        """This direction's weights as graph values of the input's dtype (read once, before the
        time loop), from the ParameterTuples (whatever the user assigned to them)."""
        k = layer * self.num_directions + direction
        get = lambda params: ops.cast(params[k], dtype)  # noqa: E731
        if not self.has_bias:
            return get(self.w_ih_list), get(self.w_hh_list), None, None
        return get(self.w_ih_list), get(self.w_hh_list), get(self.b_ih_list), get(self.b_hh_list)

    def _direction(self, x, state, layer, direction, lengths):
        w_ih, w_hh, b_ih, b_hh = self._weights(layer, direction, x.dtype)
        seq, batch = x.shape[0], x.shape[1]
        if self.mode == "GRU" or b_ih is None:
            bias = b_ih               # GRU keeps b_hh inside: its n gate scales (W_hn h + b_hn) by r
        else:
            bias = b_ih + b_hh
        xw = M.linear(ops.reshape(x, (seq * batch, x.shape[2])), w_ih, bias)
        xw = ops.reshape(xw, (seq, batch, xw.shape[-1]))
        if self.is_lstm:
            scale, shift = M.gate_scale(self.hidden_size, x.dtype)
            step, extra = _lstm_step, (w_hh, scale, shift, lengths)
        elif self.mode == "GRU":
            step, extra = _gru_step, (w_hh, b_hh, lengths)
        else:
            step, extra = _rnn_step, (w_hh, "tanh" if self.mode == "RNN_TANH" else "relu", lengths)
        return run_direction(step, xw, state, extra, reverse=direction == 1)

    def _check_inputs(self, x, hx, seq_length, batch):
        owner = type(self).__name__
        check_float_input(owner, "x", x)
        if hx is not None:
            if self.is_lstm:
                if not isinstance(hx, tuple):
                    raise TypeError(f"For '{owner}', the 'hx' must be a tuple (h, c), but got {type(hx).__name__}")
                if len(hx) != 2:
                    raise TypeError(f"For '{owner}', the length of 'hx' must be '2', but got '{len(hx)}'")
                for k, v in enumerate(hx):
                    check_float_input(owner, f"hx[{k}]", v)
            else:
                check_float_input(owner, "hx", hx)
        if seq_length is not None:
            if getattr(seq_length, "dtype", None) not in (mstype.int32, mstype.int64):
                raise TypeError(f"For '{owner}', the 'seq_length' must be an Int32 or Int64 Tensor, but got "
                                f"{getattr(seq_length, 'dtype', type(seq_length).__name__)}.")
            if tuple(seq_length.shape) != (batch,):
                raise ValueError(f"For '{owner}' batch size of x and seq_length must be equal, but got {batch} of x "
                                 f"and {seq_length.shape[0] if seq_length.shape else 0} of seq_length.")

    def construct(self, x, hx=None, seq_length=None):
        # a Cell called on its own in GRAPH_MODE has its construct walked as graph code, where
        # `for layer in range(...)` would become a runtime loop: the layer loops live in a method,
        # which runs directly on graph values like the rest of pycompile's library code
        return self._run(x, hx, seq_length)

    def _run(self, x, hx, seq_length):
        batch = x.shape[0] if self.batch_first else x.shape[1]
        self._check_inputs(x, hx, seq_length, batch)
        dtype = x.dtype
        if self.batch_first:
            x = ops.transpose(x, (1, 0, 2))
        states = self.num_layers * self.num_directions
        if hx is None:
            zeros = ops.zeros((states, batch, self.hidden_size), dtype)
            hx = (zeros, zeros) if self.is_lstm else zeros
        lengths = None if seq_length is None else ops.reshape(seq_length, (batch, 1))
        layer_in, h_n, c_n = x, [], []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(self.num_directions):
                k = layer * self.num_directions + direction
                state = (hx[0][k], hx[1][k]) if self.is_lstm else hx[k]
                final, ys = self._direction(layer_in, state, layer, direction, lengths)
                outputs.append(ys)
                h_n.append(final[0] if self.is_lstm else final)
                if self.is_lstm:
                    c_n.append(final[1])
            output = outputs[0] if len(outputs) == 1 else ops.concat(outputs, 2)
            if self.dropout != 0 and layer < self.num_layers - 1:
                output = self.dropout_op(output)
            layer_in = output
        if self.batch_first:
            output = ops.transpose(output, (1, 0, 2))
        if self.is_lstm:
            return output, (ops.stack(h_n, 0), ops.stack(c_n, 0))
        return output, ops.stack(h_n, 0)

    def extend_repr(self):
        return (f"input_size={self.input_size}, hidden_size={self.hidden_size}, num_layers={self.num_layers}, "
                f"has_bias={self.has_bias}, batch_first={self.batch_first}, dropout={self.dropout}, "
                f"bidirectional={self.bidirectional}")


class RNN(_RNNBase):
    """Elman RNN, h' = tanh (or relu) of x W_ih^T + b_ih + h W_hh^T + b_hh."""

    def __init__(self, *args, **kwargs):
        nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"For 'RNN', the 'nonlinearity' must be in ['tanh', 'relu'], but got {nonlinearity}.")
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)


class LSTM(_RNNBase):
    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)


class GRU(_RNNBase):
    def __init__(self, *args, **kwargs):
        super().__init__("GRU", *args, **kwargs)
