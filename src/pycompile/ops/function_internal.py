"""MindSpore 2.10's small sequence / dict / shape primitives of `ops` and `ops.functional`
(`F.make_tuple`, `F.tuple_getitem`, `F.shape_mul`, `F.broadcast_gradient_args`, the
`augassign_*` functions ...): what its graph compiler uses internally and model code sometimes
calls. Plain Python over their arguments, so they run the same in PyNative and in graph code
(where the compiler calls them at trace time on its values).

One difference from the wheel, chosen on purpose: `make_tuple(1, 2.0, t)` keeps Python numbers
as numbers in both modes (MindSpore's PyNative Primitive call turns them into 0-d Tensors, its
graph mode does not).
"""
from __future__ import annotations

import copy as _copy
import math as _math

from pycompile.common import dtype as mstype


def make_tuple(*elements):
    """The tuple of the arguments."""
    return tuple(elements)


def make_list(*elements):
    """The list of the arguments."""
    return list(elements)


def tuple_getitem(data, index):
    """data[index] of a tuple."""
    return data[index]


def list_getitem(data, index):
    """data[index] of a list."""
    return data[index]


def dict_getitem(data, key):
    """data[key] of a dict."""
    return data[key]


def list_len(data):
    """len(data) of a list or tuple (MindSpore's sequence_len)."""
    return len(data)


def in_dict(key, data):
    """key in data."""
    return key in data


def not_in_dict(key, data):
    """key not in data."""
    return key not in data


def is_(x, y):
    """x is y."""
    return x is y


def is_not(x, y):
    """x is not y."""
    return x is not y


def tuple_equal(x, y):
    """x == y for tuples (element by element, lengths included)."""
    return tuple(x) == tuple(y)


def list_equal(x, y):
    """x == y for lists."""
    return list(x) == list(y)


def tuple_reversed(x):
    """The tuple backwards."""
    return tuple(x)[::-1]


def tuple_setitem(x, index, value):
    """A new tuple: x with x[index] = value."""
    out = list(x)
    out[index] = value
    return tuple(out)


def list_setitem(x, index, value):
    """A new list: x with x[index] = value (x itself is unchanged)."""
    out = list(x)
    if not -len(out) <= index < len(out):
        raise IndexError(f"list_setitem evaluator the index: {index} to set out of range: [{-len(out)},{len(out) - 1}].")
    out[index] = value
    return out


def shape_mul(shape):
    """The product of a shape's entries (1 for ())."""
    return _math.prod(shape)


def tuple_div(x, y):
    """Entry-wise integer division of two shapes of the same length, each exact."""
    if len(x) != len(y):
        raise ValueError(f"For 'tuple_div', the two tuples must have the same length, but got {len(x)} and {len(y)}")
    out = []
    for a, b in zip(x, y):
        if b == 0:
            raise RuntimeError("The divisor value should not be 0!")
        if a % b:
            raise RuntimeError("The inputs of 'tuple_div' operator should be divisible, but they are not divisible "
                               f"now, the dividend is {a}, the divisor is {b}.")
        out.append(a // b)
    return tuple(out)


def make_slice(start, stop, step):
    """slice(start, stop, step)."""
    return slice(start, stop, step)


_SCALAR_CASTS = {mstype.int64: int, mstype.float64: float, mstype.bool_: bool}


def scalar_cast(input_x, input_y):
    """A Python number converted to int (mindspore.int64), float (float64) or bool."""
    conv = _SCALAR_CASTS.get(input_y)
    if conv is None:
        raise ValueError("For 'ScalarCast', the supported type is in the list: [mindspore.int64, mindspore.float64, "
                         f"mindspore.bool], but got {input_y}")
    return conv(input_x)


def reduced_shape(shape, axis):
    """`shape` with 1 at the reduced axes (negative axes count from the end; () reduces all)."""
    n = len(shape)
    axes = (axis,) if isinstance(axis, int) else (tuple(axis) or tuple(range(n)))
    for a in axes:
        if not -n <= a < n:
            raise ValueError(f"For 'reduced_shape', the axis {a} is out of range for a shape of rank {n}")
    keep = {a % n for a in axes}
    return tuple(1 if i in keep else d for i, d in enumerate(shape))


def broadcast_gradient_args(x_shape, y_shape):
    """The axes along which each input's gradient is summed when x and y broadcast together."""
    n = max(len(x_shape), len(y_shape))
    x = (1,) * (n - len(x_shape)) + tuple(x_shape)
    y = (1,) * (n - len(y_shape)) + tuple(y_shape)
    rx, ry = [], []
    for i, (a, b) in enumerate(zip(x, y)):
        if a != b and a != 1 and b != 1:
            raise RuntimeError("Not compatible shape input for BroadcastGradientArgs.")
        if a == 1 and b != 1:
            rx.append(i)
        elif b == 1 and a != 1:
            ry.append(i)
    return tuple(rx), tuple(ry)


def deepcopy(x):
    """A copy of x: a Tensor's data copied (TensorMove, which graph code can run: a traced value
    cannot be deep-copied), any other object by copy.deepcopy."""
    from pycompile.common.tensor import TensorMethods
    if isinstance(x, TensorMethods):
        from pycompile.ops import functional as F
        return F.tensor_move(x)
    return _copy.deepcopy(x)


def isconstant(x):
    """Whether x is known before run time: always in PyNative; in graph code, a Python value."""
    from pycompile.common.abstract import Symbolic
    return not isinstance(x, Symbolic)


def augassign_add(x, y):
    """x += y, as MindSpore's compiler rewrites it (x + y)."""
    return x + y


def augassign_sub(x, y):
    """x -= y (x - y)."""
    return x - y


def augassign_mul(x, y):
    """x *= y (x * y)."""
    return x * y


def augassign_div(x, y):
    """x /= y (x / y)."""
    return x / y


def augassign_floordiv(x, y):
    """x //= y (x // y)."""
    return x // y


def augassign_mod(x, y):
    """x %= y (x % y)."""
    return x % y


__all__ = ["make_tuple", "make_list", "tuple_getitem", "list_getitem", "dict_getitem", "list_len", "in_dict",
           "not_in_dict", "is_", "is_not", "tuple_equal", "list_equal", "tuple_reversed", "tuple_setitem",
           "list_setitem", "shape_mul", "tuple_div", "make_slice", "scalar_cast", "reduced_shape",
           "broadcast_gradient_args", "deepcopy", "isconstant", "augassign_add", "augassign_sub",
           "augassign_mul", "augassign_div", "augassign_floordiv", "augassign_mod"]


def dyn_shape(input_x):
    """The shape of a tensor as an int64 Tensor (MindSpore's TensorShape; PyNative)."""
    import numpy as np
    from pycompile.common.tensor import Tensor
    return Tensor(np.array(input_x.shape, np.int64))


__all__ += ["dyn_shape"]


def add_flags(fn=None, **flags):
    """Record `flags` in fn._func_graph_flags (a dict, created if absent) and return fn; without fn,
    a decorator doing so. MindSpore's compiler reads some of these flags; pycompile records them
    and reads none."""
    def deco(f):
        table = getattr(f, "_func_graph_flags", None)
        if table is None:
            f._func_graph_flags = table = {}
        table.update(flags)
        return f
    return deco if fn is None else deco(fn)


__all__ += ["add_flags"]
