"""Shared helpers of pycompile.numpy: what counts as a tensor (a Tensor or a graph tracer),
turning Python numbers / lists into constant tensors with mindspore.numpy's default dtypes
(int32 for ints, float32 for floats), axis normalisation and the `dtype=` cast every
elementwise function takes."""
from __future__ import annotations

import builtins

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import TensorType
from pycompile.errors import UserError
from pycompile.ops import functional as F
from pycompile.ops._table import OpTypeError, OpValueError

# A mindspore.numpy feature pycompile does not support (yet): reported at the user's line in graph code
NotSupported = type("NotImplementedError", (UserError, NotImplementedError),
                    {"__module__": __name__, "__doc__": "A mindspore.numpy feature pycompile does not support."})

# NumPy dtypes of Python data as mindspore.numpy converts them: 64-bit defaults narrowed
_NARROW = {np.dtype(np.float64): np.float32, np.dtype(np.int64): np.int32}


def tensor_cls():
    from pycompile.common.tensor import Tensor
    return Tensor


def is_tensor(x) -> bool:
    """A Tensor, or a value standing for one inside graph code."""
    return isinstance(getattr(x, "_abstract", None), TensorType)


def ttype(x) -> TensorType:
    return x._abstract


def const(arr) -> object:
    """A constant tensor (a Const in graph code)."""
    return tensor_cls()._wrap(np.array(arr, order="C"))


def np_dtype(dtype):
    """The NumPy dtype of a pycompile / NumPy / Python dtype argument."""
    return mstype.to_dtype(dtype).np


def to_dtype(dtype) -> mstype.DType:
    return mstype.to_dtype(dtype)


def host_array(obj, dtype=None) -> np.ndarray:
    """Python data (numbers, nested lists / tuples of numbers or constant tensors) as a NumPy array
    with mindspore.numpy's defaults: float32 for floats, int32 for ints."""
    if isinstance(obj, (list, tuple)):
        obj = [host_array(o) if (is_tensor(o) or isinstance(o, (list, tuple))) and not _traced(o) else o
               for o in obj]
    elif is_tensor(obj):
        obj = obj.asnumpy()
    a = np.asarray(obj)
    if dtype is not None:
        return a.astype(np_dtype(dtype))
    if a.dtype.kind == "O" or a.dtype.kind == "U":
        raise OpTypeError(f"For 'array', the input must be numbers or a Tensor, but got {type(obj).__name__}")
    return a.astype(_NARROW.get(a.dtype, a.dtype))


def _traced(x) -> bool:
    from pycompile.common.abstract import Symbolic
    if isinstance(x, Symbolic):
        return True
    if isinstance(x, (list, tuple)):
        return builtins.any(_traced(v) for v in x)
    return False


def to_tensor(x, dtype=None):
    """x as a tensor: a tensor stays (cast when `dtype` is given), Python data becomes a constant."""
    if is_tensor(x):
        return x if dtype is None or ttype(x).dtype == to_dtype(dtype) else F.cast(x, to_dtype(dtype))
    if isinstance(x, (list, tuple)) and _traced(x):
        return F.stack([to_tensor(v, dtype) for v in x])
    return const(host_array(x, dtype))


def operand(x):
    """An operand of an elementwise op: tensors stay; Python numbers and lists become constant
    tensors of mindspore.numpy's default dtypes (int32, float32), which then promote with the other
    operand as tensors do (`float16 tensor + 1.5` is float32, `+ 2` float16)."""
    return x if is_tensor(x) else to_tensor(x)


def like(x, value):
    """A Python number (or tensor) as a tensor of x's dtype (maximum / minimum / clip bounds:
    mindspore.numpy casts them, so `maximum(int32, 2.5)` compares with 2)."""
    if is_tensor(value):
        return value
    return const(np.asarray(value).astype(ttype(x).dtype.np))


def finish(out, dtype):
    """The `dtype=` argument of mindspore.numpy's elementwise functions: the result cast to it."""
    if dtype is None:
        return out
    return F.cast(out, to_dtype(dtype))


def ndim(x) -> int:
    return ttype(x).ndim


def shape(x) -> tuple:
    return tuple(ttype(x).shape)


def is_float(x) -> bool:
    return ttype(x).dtype in (mstype.float16, mstype.float32, mstype.float64)


def to_float(x):
    """x cast to float32 unless it is a float tensor already."""
    return x if is_float(x) else F.cast(x, mstype.float32)


def norm_axis(axis, nd: int, name: str) -> int:
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, builtins.bool):
        raise OpTypeError(f"For '{name}', the axis must be an int, but got {type(axis).__name__}")
    if not -nd <= axis < nd:
        raise OpValueError(f"For '{name}', the axis {axis} is out of range for a {nd}-D tensor")
    return int(axis) % nd


def norm_axes(axis, nd: int, name: str) -> tuple:
    """A tuple of non-negative axes (None: all of them)."""
    if axis is None:
        return tuple(builtins.range(nd))
    if isinstance(axis, (list, tuple)):
        out = tuple(norm_axis(a, nd, name) for a in axis)
        if len(set(out)) != len(out):
            raise OpValueError(f"For '{name}', the axes {axis} repeat an axis")
        return out
    return (norm_axis(axis, nd, name),)


def shape_arg(shape, name: str) -> tuple:
    """A shape argument: an int or a tuple / list of non-negative ints."""
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, builtins.bool):
        shape = (int(shape),)
    if not isinstance(shape, (tuple, list)) or not builtins.all(
            isinstance(s, (int, np.integer)) and not isinstance(s, builtins.bool) for s in shape):
        raise OpTypeError(f"For '{name}', the shape must be an int or a tuple of ints, but got {shape!r}")
    if builtins.any(s < 0 for s in shape):
        raise OpValueError(f"For '{name}', the shape must not have negative dimensions, but got {tuple(shape)}")
    return tuple(int(s) for s in shape)
