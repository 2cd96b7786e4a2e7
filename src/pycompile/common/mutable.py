"""`ms.mutable`: a Python value that compiled code takes as a run-time input instead of a constant.

A compiled function is specialized on the value of every Python number it is called with (the
value is folded into the C), so a learning rate or a step counter that changes every call
recompiles every call. `mutable(x)` marks x as a variable, as MindSpore 2.10 does: the value is
then part of the call's inputs and one executable serves every value.

What a mutable value is, as MindSpore makes it: the same value in a subclass of its type (an int
stays usable as an int, a float as a float, in Python and in PyNative code) carrying
`__ms_mutable__ = True`, `__ms_dynamic_len__` and `__ms_origin_object__`. A tuple, list or dict
becomes mutable with all its elements. A Tensor is returned itself, flagged (a Tensor is a
run-time input anyway).

In compiled code a mutable number is a 0-d tensor: float32 for a float, int64 for an int, bool for
a bool (MindSpore's graph types for Python scalars), so `lr * grad` keeps the gradient's float32.
Python control flow on it becomes tensor control flow. Python operators and int() / float() /
bool() / min() / max() on mutable numbers give numbers (TensorType.number), and a graph returns
those as Python numbers, as MindSpore does; ops.* functions and Tensor(...) give Tensors. A value needed at compile time (a `range` bound, a shape) cannot be mutable: that is
a compile error at the user's line, as in MindSpore.

`dynamic_len=True` (a sequence whose length may change between calls) is accepted and checked
as MindSpore checks it; the length is still part of the signature (a new length compiles again).
"""
from __future__ import annotations

import numpy as np


class _MutableNumber:
    """Mixin: the number as the 0-d array a compiled call passes (`_data`, read like a Tensor's)."""

    __slots__ = ()
    _np_dtype = None

    @property
    def _data(self):
        return np.asarray(self._value(), self._np_dtype)

    def _value(self):
        return self


class _Int(_MutableNumber, int):
    _np_dtype = np.int64

    def _value(self):
        return int(self)


class _Float(_MutableNumber, float):
    _np_dtype = np.float32

    def _value(self):
        return float(self)


class _Bool(_MutableNumber, int):
    """bool cannot be subclassed: an int that calls itself bool (MindSpore does the same)."""
    _np_dtype = np.bool_

    def _value(self):
        return bool(int(self))

    @property
    def __class__(self):
        return bool

    def __repr__(self):
        return repr(bool(int(self)))

    __str__ = __repr__


class _Tuple(tuple):
    """A tuple that can carry the `__ms_mutable__` mark (a built-in tuple takes no attributes)."""


class _List(list):
    """A list that can carry the `__ms_mutable__` mark (a built-in list takes no attributes)."""


class _Dict(dict):
    """A dict that can carry the `__ms_mutable__` mark (a built-in dict takes no attributes)."""


def _allowed(value, seen) -> bool:
    from pycompile.common.abstract import Symbolic
    from pycompile.common.tensor import Tensor
    if isinstance(value, (tuple, list, dict)):
        if id(value) in seen:
            return False                      # a self-referencing container
        seen = seen | {id(value)}
        items = value.values() if isinstance(value, dict) else value
        return all(_allowed(v, seen) for v in items)
    return isinstance(value, (Tensor, Symbolic, int, float))


def _mark(value, dynamic_len: bool, origin):
    setattr(value, "__ms_mutable__", True)
    setattr(value, "__ms_dynamic_len__", dynamic_len)
    setattr(value, "__ms_origin_object__", origin)
    return value


def _number(value):
    if isinstance(value, bool):
        return _Bool(int(value))
    if isinstance(value, int):
        return _Int(value)
    return _Float(value)


def mutable(input_data, dynamic_len=False):
    """Mark `input_data` (a bool, int, float, Tensor, or a tuple / list / dict of them) as a value
    compiled code takes at run time. See the module docstring."""
    from pycompile.common.abstract import Symbolic
    from pycompile.common.tensor import Tensor
    if not _allowed(input_data, frozenset()):
        raise TypeError(
            f"For 'mutable', the 'input_data' should be one of (bool, int, float, Tensor, tuple, list, dict) "
            f"or their nested structures with no self-reference, but got {type(input_data).__name__}: "
            f"{input_data}.")
    if not isinstance(dynamic_len, bool):
        raise TypeError(f"For 'mutable', the second input should be bool, but got: {type(input_data).__name__}")
    if dynamic_len and not isinstance(input_data, (tuple, list)):
        raise TypeError(f"For 'mutable', when the variable_len is True, the first input should be list or tuple, "
                        f"but got: {type(input_data).__name__}")
    if isinstance(input_data, Symbolic):
        return input_data          # inside graph code a tensor value is a run-time value already
    if isinstance(input_data, Tensor):
        return _mark(input_data, dynamic_len, input_data)
    if isinstance(input_data, (bool, int, float)):
        return _mark(_number(input_data), dynamic_len, input_data)
    if isinstance(input_data, dict):
        out = _Dict({k: _element(v) for k, v in input_data.items()})
    elif isinstance(input_data, tuple):
        out = _Tuple(_element(v) for v in input_data)
    else:
        out = _List(_element(v) for v in input_data)
    return _mark(out, dynamic_len, input_data)


def _element(v):
    """An element of a mutable container is mutable too."""
    from pycompile.common.abstract import Symbolic
    return v if isinstance(v, Symbolic) or getattr(v, "__ms_mutable__", False) else mutable(v)


def is_mutable(value) -> bool:
    return getattr(value, "__ms_mutable__", False) is True
