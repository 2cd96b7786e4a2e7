"""Core layers with MindSpore's constructor signatures and defaults: Dense, activations, Flatten,
Dropout, LayerNorm, Embedding, and the containers SequentialCell / CellList.

Every `construct` here uses only ops from the table, so it runs eagerly and compiles alike.
"""
from __future__ import annotations

import math
from collections import OrderedDict


from pycompile import ops
from pycompile.common import dtype as mstype
from pycompile.common.initializer import HeUniform, Uniform, initializer
from pycompile.common.parameter import Parameter
from pycompile.common.tensor import Tensor
from pycompile.nn.cell import Cell


# ---- activations ---------------------------------------------------------------------------------
class ReLU(Cell):
    def construct(self, x):
        return ops.relu(x)


class Sigmoid(Cell):
    def construct(self, x):
        return ops.sigmoid(x)


class Tanh(Cell):
    def construct(self, x):
        return ops.tanh(x)


class GELU(Cell):
    """approximate=True (MindSpore's default for nn.GELU) uses the tanh form."""

    def __init__(self, approximate: bool = True):
        super().__init__()
        self.approximate = approximate

    def construct(self, x):
        return ops.gelu(x, approximate="tanh" if self.approximate else "none")

    def extend_repr(self):
        return ""   # MindSpore prints GELU() for both forms


class HSwish(Cell):
    def construct(self, x):
        return ops.hardswish(x)


class HSigmoid(Cell):
    def construct(self, x):
        return ops.hardsigmoid(x)


class Softmax(Cell):
    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def construct(self, x):
        return ops.softmax(x, self.axis)


class LogSoftmax(Cell):
    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def construct(self, x):
        return ops.log_softmax(x, self.axis)


_ACTIVATIONS = {"relu": ReLU, "sigmoid": Sigmoid, "tanh": Tanh, "gelu": GELU, "hswish": HSwish,
                "softmax": Softmax, "hsigmoid": HSigmoid}


def get_activation(name):
    if name is None or isinstance(name, Cell):
        return name
    if isinstance(name, str) and name.lower() in _ACTIVATIONS:
        return _ACTIVATIONS[name.lower()]()
    raise ValueError(f"unknown activation {name!r}; known: {', '.join(sorted(_ACTIVATIONS))}")


class Identity(Cell):
    def construct(self, x):
        return x


# ---- basic -----------------------------------------------------------------------------------------
class Dense(Cell):
    """y = activation(x @ weight.T + bias), weight of shape (out_channels, in_channels).

    Defaults as MindSpore: weight HeUniform(sqrt(5)), bias Uniform(1/sqrt(in_channels))."""

    def __init__(self, in_channels, out_channels, weight_init=None, bias_init=None, has_bias=True,
                 activation=None, dtype=mstype.float32):
        super().__init__()
        for v, what in ((in_channels, "in_channels"), (out_channels, "out_channels")):
            if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
                raise ValueError(f"For 'Dense', '{what}' must be a positive int, but got {v!r}")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.has_bias = has_bias
        if isinstance(weight_init, Tensor) and (weight_init.ndim != 2 or tuple(weight_init.shape) != (out_channels, in_channels)):
            raise ValueError(f"For 'Dense', weight_init shape must be {[out_channels, in_channels]}, "
                             f"but got {list(weight_init.shape)}")
        if weight_init is None:
            weight_init = HeUniform(math.sqrt(5))
        self.weight = Parameter(initializer(weight_init, [out_channels, in_channels], dtype=dtype), name="weight")
        self.bias = None
        if has_bias:
            if isinstance(bias_init, Tensor) and (bias_init.ndim != 1 or bias_init.shape[0] != out_channels):
                raise ValueError(f"For 'Dense', bias_init shape must be [{out_channels}], but got {list(bias_init.shape)}")
            if bias_init is None:
                bias_init = Uniform(scale=1 / math.sqrt(in_channels))
            self.bias = Parameter(initializer(bias_init, [out_channels], dtype=dtype), name="bias")
        self.activation = get_activation(activation)

    def construct(self, x):
        return_shape = None
        if x.ndim != 2:
            return_shape = x.shape[:-1] + (self.out_channels,)
            x = ops.reshape(x, (-1, x.shape[-1]))
        x = ops.MatMul(transpose_b=True)(x, self.weight)
        if self.has_bias:
            x = x + self.bias
        if self.activation is not None:
            x = self.activation(x)
        if return_shape is not None:
            x = ops.reshape(x, return_shape)
        return x

    def extend_repr(self):
        s = f"input_channels={self.in_channels}, output_channels={self.out_channels}"
        if self.has_bias:
            s += f", has_bias={self.has_bias}"
        if self.activation is not None:
            s += f", activation={self.activation}"
        return s


class Flatten(Cell):
    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def construct(self, x):
        return ops.flatten(x, start_dim=self.start_dim, end_dim=self.end_dim)


class Dropout(Cell):
    """Identity when not training. In training, zeroes each element with probability p and
    scales the rest by 1 / (1 - p), eagerly and in graph code alike (ops.dropout: the
    counter-based generator of ops/defs/random.py)."""

    def __init__(self, keep_prob=0.5, p=None, dtype=mstype.float32):
        super().__init__()
        if p is None:
            if not isinstance(keep_prob, float):
                raise TypeError(f"For 'Dropout', the 'keep_prob' must be 'float', but got '{type(keep_prob).__name__}'.")
            if keep_prob <= 0 or keep_prob > 1:
                raise ValueError(f"For 'Dropout', the 'keep_prob' must be a number in range (0, 1], but got {keep_prob}.")
            p = 1.0 - keep_prob
        elif not isinstance(p, (int, float)) or isinstance(p, bool):
            raise TypeError(f"For 'Dropout', the 'p' must be 'float' or 'int', but got '{type(p).__name__}'.")
        elif not 0 <= p < 1:
            raise ValueError(f"For 'Dropout', the 'p' must be a number in range [0, 1), but got {p}.")
        self.p = float(p)

    def construct(self, x):
        if not self.training or self.p == 0:
            return x
        return ops.dropout(x, self.p)

    def extend_repr(self):
        return f"p={self.p}"


# ---- normalization and embedding --------------------------------------------------------------------
class LayerNorm(Cell):
    def __init__(self, normalized_shape, begin_norm_axis=-1, begin_params_axis=-1, gamma_init="ones",
                 beta_init="zeros", epsilon=1e-7, dtype=mstype.float32):
        super().__init__()
        if not isinstance(normalized_shape, (tuple, list)):
            raise TypeError(f"For 'LayerNorm', 'normalized_shape' must be a tuple or list, but got {normalized_shape!r}")
        self.normalized_shape = tuple(normalized_shape)
        self.begin_norm_axis = begin_norm_axis
        self.begin_params_axis = begin_params_axis
        self.epsilon = epsilon
        self.gamma = Parameter(initializer(gamma_init, normalized_shape, dtype), name="gamma")
        self.beta = Parameter(initializer(beta_init, normalized_shape, dtype), name="beta")

    def construct(self, x):
        return ops.layer_norm(x, self.gamma, self.beta, self.begin_norm_axis, self.begin_params_axis, self.epsilon)

    def extend_repr(self):
        return (f"normalized_shape={self.normalized_shape}, begin_norm_axis={self.begin_norm_axis}, "
                f"begin_params_axis={self.begin_params_axis}, gamma={self.gamma}, beta={self.beta}")


class Embedding(Cell):
    def __init__(self, vocab_size, embedding_size, use_one_hot=False, embedding_table="normal",
                 dtype=mstype.int32, padding_idx=None):
        super().__init__()
        self.vocab_size, self.embedding_size = vocab_size, embedding_size
        self.padding_idx = padding_idx
        table = initializer(embedding_table, [vocab_size, embedding_size], mstype.float32)
        if padding_idx is not None:
            table._data[padding_idx] = 0
        self.embedding_table = Parameter(table, name="embedding_table")

    def construct(self, ids):
        return ops.gather(self.embedding_table, ids, 0)

    def extend_repr(self):
        return (f"vocab_size={self.vocab_size}, embedding_size={self.embedding_size}, use_one_hot=False, "
                f"embedding_table={self.embedding_table}, dtype=Float32, padding_idx={self.padding_idx}")


# ---- containers ---------------------------------------------------------------------------------
def _valid_index(n: int, index, owner: str) -> int:
    if not isinstance(index, int) or isinstance(index, bool):
        raise TypeError(f"For '{owner}', the type of 'index' must be int or slice, but got {type(index).__name__}")
    if not -n <= index < n:
        raise IndexError(f"For '{owner}', the value of 'index' must be a number in range [{-n}, {n}), but got {index}.")
    return index


class SequentialCell(Cell):
    """Cells applied in order. Takes Cells as arguments, a list of Cells, or an OrderedDict."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], (list, tuple)):
            items = list(enumerate(args[0]))
        elif len(args) == 1 and isinstance(args[0], (dict, OrderedDict)):
            items = list(args[0].items())
        else:
            items = list(enumerate(args))
        for name, cell in items:
            if not isinstance(cell, Cell):
                raise TypeError(f"For 'SequentialCell', every item must be a Cell, but got {type(cell).__name__}")
            setattr(self, str(name), cell)

    def __getitem__(self, index):
        if isinstance(index, slice):
            # MindSpore keeps the original keys: SequentialCell(a, b, c)[1:] holds (1) and (2)
            return SequentialCell(OrderedDict(list(self._cells.items())[index]))
        return list(self._cells.values())[_valid_index(len(self), index, "SequentialCell")]

    def __len__(self):
        return len(self._cells)

    def __iter__(self):
        return iter(self._cells.values())

    def append(self, cell: Cell) -> None:
        setattr(self, str(len(self._cells)), cell)

    def construct(self, x):
        for cell in self._cells.values():
            x = cell(x)
        return x


class CellList(Cell):
    """A list of Cells; index and iterate it in construct (loops over it are unrolled)."""

    def __init__(self, *args, auto_prefix: bool = True):
        super().__init__(auto_prefix=auto_prefix)
        cells = args[0] if len(args) == 1 and isinstance(args[0], (list, tuple)) else args
        for cell in cells:
            self.append(cell)

    def append(self, cell: Cell) -> None:
        if not isinstance(cell, Cell):
            raise TypeError(f"For 'CellList', every item must be a Cell, but got {type(cell).__name__}")
        setattr(self, str(len(self._cells)), cell)

    def extend(self, cells) -> "CellList":
        for c in cells:
            self.append(c)
        return self

    def insert(self, index: int, cell: Cell) -> None:
        cells = list(self._cells.values())
        cells.insert(index, cell)
        for name in list(self._cells):
            delattr(self, name)
        for c in cells:
            self.append(c)

    def __getitem__(self, index):
        cells = list(self._cells.values())
        if isinstance(index, slice):
            return CellList(cells[index])
        return cells[_valid_index(len(cells), index, "CellList")]

    def __len__(self):
        return len(self._cells)

    def __iter__(self):
        return iter(self._cells.values())

    def construct(self, *inputs):
        raise TypeError("CellList is a container: index it or iterate over it in construct")
