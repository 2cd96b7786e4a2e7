"""nn.RNNCell, nn.LSTMCell, nn.GRUCell: one recurrent step, MindSpore 2.10's signatures and
Parameter names (weight_ih, weight_hh, bias_ih, bias_hh; gates stacked on axis 0). The gate
arithmetic is rnn_math's, shared with the sequence layers: an LSTM step is two products whose
sum is activated in the second one's epilogue, then one fused kernel for (h', c')."""
from __future__ import annotations

import math

from pycompile.common import dtype as mstype
from pycompile.common.initializer import Uniform, initializer
from pycompile.common.parameter import Parameter
from pycompile.nn import rnn_math as M
from pycompile.nn.cell import Cell
from pycompile.nn.rnn import check_bool, check_float_input, check_positive_int


class RNNCellBase(Cell):
    def __init__(self, input_size: int, hidden_size: int, has_bias: bool, num_chunks: int, dtype=mstype.float32):
        super().__init__()
        owner = type(self).__name__
        check_bool(owner, "has_bias", has_bias)
        check_positive_int(owner, "hidden_size", hidden_size)
        check_positive_int(owner, "input_size", input_size)
        self.input_size, self.hidden_size, self.has_bias = input_size, hidden_size, has_bias
        stdv = 1 / math.sqrt(hidden_size)
        gates = num_chunks * hidden_size
        self.weight_ih = Parameter(initializer(Uniform(stdv), [gates, input_size], dtype), name="weight_ih")
        self.weight_hh = Parameter(initializer(Uniform(stdv), [gates, hidden_size], dtype), name="weight_hh")
        if has_bias:
            self.bias_ih = Parameter(initializer(Uniform(stdv), [gates], dtype), name="bias_ih")
            self.bias_hh = Parameter(initializer(Uniform(stdv), [gates], dtype), name="bias_hh")
        else:
            self.bias_ih = self.bias_hh = None

    def _check(self, x, *states):
        owner = type(self).__name__
        check_float_input(owner, "x", x)
        for k, h in enumerate(states):
            check_float_input(owner, "hx" if len(states) == 1 else f"hx[{k}]", h)

    def _parts(self, x, h, fold_bias: bool):
        """x W_ih^T (+ b_ih + b_hh when folded) and h W_hh^T (+ b_hh when not)."""
        if not self.has_bias:
            return M.linear(x, self.weight_ih), M.linear(h, self.weight_hh)
        if fold_bias:
            return M.linear(x, self.weight_ih, self.bias_ih + self.bias_hh), M.linear(h, self.weight_hh)
        return M.linear(x, self.weight_ih, self.bias_ih), M.linear(h, self.weight_hh, self.bias_hh)

    def extend_repr(self):
        return f"input_size={self.input_size}, hidden_size={self.hidden_size}, has_bias={self.has_bias}"


class RNNCell(RNNCellBase):
    def __init__(self, input_size: int, hidden_size: int, has_bias: bool = True, nonlinearity: str = "tanh",
                 dtype=mstype.float32):
        super().__init__(input_size, hidden_size, has_bias, 1, dtype)
        if not isinstance(nonlinearity, str):
            raise TypeError(f"For 'RNNCell', the type of 'nonlinearity' must be str, but got "
                            f"{type(nonlinearity).__name__}.")
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"For 'RNNCell', the 'nonlinearity' must be in ['tanh', 'relu'], but got {nonlinearity}.")
        self.nonlinearity = nonlinearity

    def construct(self, x, hx):
        self._check(x, hx)
        xi, hh = self._parts(x, hx, fold_bias=True)
        return M.rnn_update(hh + xi, self.nonlinearity)


class LSTMCell(RNNCellBase):
    def __init__(self, input_size: int, hidden_size: int, has_bias: bool = True, dtype=mstype.float32):
        super().__init__(input_size, hidden_size, has_bias, 4, dtype)

    def construct(self, x, hx):
        if not isinstance(hx, tuple) or len(hx) != 2:
            raise TypeError(f"For 'LSTMCell', the 'hx' must be a tuple (h, c), but got {type(hx).__name__}"
                            + (f" of length {len(hx)}" if isinstance(hx, tuple) else ""))
        h, c = hx
        self._check(x, h, c)
        xi, hh = self._parts(x, h, fold_bias=True)
        scale, shift = M.gate_scale(self.hidden_size, x.dtype)
        return M.lstm_update(hh + xi, c, scale, shift)


class GRUCell(RNNCellBase):
    def __init__(self, input_size: int, hidden_size: int, has_bias: bool = True, dtype=mstype.float32):
        super().__init__(input_size, hidden_size, has_bias, 3, dtype)

    def construct(self, x, hx):
        self._check(x, hx)
        gi, gh = self._parts(x, hx, fold_bias=False)
        return M.gru_update(gi, gh, hx)
