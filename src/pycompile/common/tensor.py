"""Tensor and Parameter.

`TensorMethods` holds every operator and method a tensor has, each routed through the op table
(`pycompile.ops.functional`). `Tensor` mixes it in over a NumPy buffer; the compiler's tracer
mixes in the same class over an IR value, so `x + y`, `x.sum()`, `x[1:]` mean one thing in
PyNative and graph mode alike.
"""
from __future__ import annotations

import numbers

import numpy as np

from pycompile.common import _format
from pycompile.common import dtype as mstype
from pycompile.common.abstract import TensorType


class TensorMethods:
    """Operators and methods shared by `Tensor` and graph tracers. Subclasses provide
    `_abstract` (a TensorType)."""

    __slots__ = ()

    # -- type information ----------------------------------------------------------------------
    @property
    def shape(self) -> tuple:
        return self._abstract.shape

    @property
    def dtype(self) -> mstype.DType:
        return self._abstract.dtype

    @property
    def ndim(self) -> int:
        return len(self._abstract.shape)

    @property
    def size(self) -> int:
        return self._abstract.size

    def numel(self) -> int:
        return self._abstract.size

    def dim(self) -> int:
        return self.ndim

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d tensor")
        for i in range(self.shape[0]):
            yield self[i]

    # -- arithmetic ------------------------------------------------------------------------------
    def __add__(self, o): return F.add(self, o)
    def __radd__(self, o): return F.add(o, self)
    def __sub__(self, o): return F.sub(self, o)
    def __rsub__(self, o): return F.sub(o, self)
    def __mul__(self, o): return F.mul(self, o)
    def __rmul__(self, o): return F.mul(o, self)
    def __truediv__(self, o): return F.div(self, o)
    def __rtruediv__(self, o): return F.div(o, self)
    def __floordiv__(self, o): return F.floor_divide(self, o)
    def __rfloordiv__(self, o): return F.floor_divide(o, self)
    def __mod__(self, o): return F.remainder(self, o)
    def __rmod__(self, o): return F.remainder(o, self)
    def __pow__(self, o): return F.pow(self, o)
    def __rpow__(self, o): return F.pow(o, self)
    def __matmul__(self, o): return F.matmul(self, o)
    def __rmatmul__(self, o): return F.matmul(o, self)
    def __neg__(self): return F.neg(self)
    def __pos__(self): return self
    def __abs__(self): return F.abs(self)
    def __invert__(self): return F.logical_not(self) if self.dtype.is_bool else F.bitwise_not(self)
    def __and__(self, o): return F.bitwise_and(self, o)
    def __rand__(self, o): return F.bitwise_and(o, self)
    def __or__(self, o): return F.bitwise_or(self, o)
    def __ror__(self, o): return F.bitwise_or(o, self)
    def __xor__(self, o): return F.bitwise_xor(self, o)
    def __rxor__(self, o): return F.bitwise_xor(o, self)

    # -- comparisons -----------------------------------------------------------------------------
    # `t == None` is False (as in MindSpore), so `x in [None, ...]` and default checks work
    def __eq__(self, o): return False if o is None else F.equal(self, o)
    def __ne__(self, o): return True if o is None else F.ne(self, o)
    def __lt__(self, o): return F.less(self, o)
    def __le__(self, o): return F.less_equal(self, o)
    def __gt__(self, o): return F.greater(self, o)
    def __ge__(self, o): return F.greater_equal(self, o)
    __hash__ = object.__hash__

    # -- indexing ------------------------------------------------------------------------------
    def __getitem__(self, index): return F.getitem(self, index)

    # -- methods -------------------------------------------------------------------------------
    @property
    def T(self): return F.transpose(self, tuple(reversed(range(self.ndim))))
    def astype(self, dtype): return F.cast(self, dtype)
    def to(self, dtype): return F.cast(self, dtype)
    def float(self): return F.cast(self, mstype.float32)
    def int(self): return F.cast(self, mstype.int32)
    def bool(self): return F.cast(self, mstype.bool_)
    def reshape(self, *shape): return F.reshape(self, _varargs(shape))
    def view(self, *shape): return F.reshape(self, _varargs(shape))
    def flatten(self, start_dim=0, end_dim=-1): return F.flatten(self, start_dim=start_dim, end_dim=end_dim)
    def transpose(self, *perm): return F.transpose(self, _varargs(perm) if perm else None)
    def permute(self, *perm): return F.transpose(self, _varargs(perm))
    def swapaxes(self, a, b): return F.swapaxes(self, a, b)
    def expand_dims(self, axis): return F.expand_dims(self, axis)
    def unsqueeze(self, dim): return F.expand_dims(self, dim)
    def squeeze(self, axis=None): return F.squeeze(self, axis)
    def broadcast_to(self, shape): return F.broadcast_to(self, shape)
    def sum(self, axis=None, keepdims=False, dtype=None): return F.sum(self, axis, keepdims, dtype=dtype)
    def mean(self, axis=None, keep_dims=False): return F.mean(self, axis, keep_dims)
    def max(self, axis=None, keepdims=False): return F.amax(self, axis, keepdims)
    def min(self, axis=None, keepdims=False): return F.amin(self, axis, keepdims)
    def all(self, axis=None, keep_dims=False): return F.all(self, axis, keep_dims)
    def any(self, axis=None, keep_dims=False): return F.any(self, axis, keep_dims)
    def argmax(self, axis=None, keepdims=False): return F.argmax(self, axis, keepdims)
    def abs(self): return F.abs(self)
    def exp(self): return F.exp(self)
    def log(self): return F.log(self)
    def sqrt(self): return F.sqrt(self)
    def rsqrt(self): return F.rsqrt(self)
    def square(self): return F.square(self)
    def tanh(self): return F.tanh(self)
    def sigmoid(self): return F.sigmoid(self)
    def relu(self): return F.relu(self)
    def softmax(self, axis=-1): return F.softmax(self, axis)
    def clip(self, min=None, max=None): return F.clamp(self, min, max)
    def clamp(self, min=None, max=None): return F.clamp(self, min, max)
    def matmul(self, o): return F.matmul(self, o)
    def add(self, o): return F.add(self, o)
    def sub(self, o): return F.sub(self, o)
    def mul(self, o): return F.mul(self, o)
    def div(self, o): return F.div(self, o)
    def pow(self, o): return F.pow(self, o)
    def neg(self): return F.neg(self)
    def maximum(self, o): return F.maximum(self, o)
    def minimum(self, o): return F.minimum(self, o)
    def isfinite(self): return F.isfinite(self)
    def gather(self, indices, axis): return F.gather(self, indices, axis)
    def tile(self, reps): return F.tile(self, reps)


def _varargs(args):
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(args[0])
    return tuple(args)


def _infer_default_dtype(data) -> mstype.DType:
    """MindSpore's default dtype for Python data: bool, int64 or float32."""
    arr = np.asarray(data)
    if arr.dtype.kind == "b":
        return mstype.bool_
    if arr.dtype.kind in "iu":
        return mstype.int64
    if arr.dtype.kind == "f":
        return mstype.float32
    raise TypeError(f"Tensor data must be numbers, got {arr.dtype}")


def _to_array(data, dtype) -> np.ndarray:
    """A fresh C-contiguous array. An explicit dtype converts as C does (Tensor(-1, uint8) is 255,
    Tensor(2.9, int32) is 2), as MindSpore does."""
    if isinstance(data, Tensor):
        return np.array(data._data, dtype=dtype.np if dtype else data._data.dtype, copy=True)
    if isinstance(data, np.ndarray):
        if dtype is None:
            dtype = mstype.from_numpy(data.dtype)
        return np.array(data, copy=True, order="C").astype(dtype.np, copy=False)
    if isinstance(data, (list, tuple)):
        if any(isinstance(x, Tensor) for x in data):
            data = [x.asnumpy() if isinstance(x, Tensor) else x for x in data]
        try:
            arr = np.array(data)
        except ValueError:
            arr = None
        if arr is None or arr.dtype == object or arr.dtype.kind not in "biuf":
            raise TypeError(f"For 'Tensor', the input_data {data!r} must be a (nested) list of numbers "
                            f"with a regular shape")
        if dtype is None:
            dtype = _infer_default_dtype(arr) if arr.size else mstype.float32
        return np.array(arr, dtype=dtype.np, order="C")
    if isinstance(data, (numbers.Number, np.generic)) and not isinstance(data, complex):
        if dtype is None:
            if isinstance(data, np.generic):
                dtype = mstype.from_numpy(data.dtype)
            else:
                dtype = {"bool": mstype.bool_, "int": mstype.int64, "float": mstype.float32}[mstype.scalar_kind(data)]
        return np.array(data).astype(dtype.np)
    raise TypeError(f"For 'Tensor', the type of 'input_data' should be a number, list, tuple, numpy array or "
                    f"Tensor, but got {type(data).__name__}")


class Tensor(TensorMethods):
    """A tensor over a C-contiguous NumPy buffer.

    `Tensor(data, dtype=None)`: data is a NumPy array (its dtype kept), a (nested) list or a
    Python scalar (bool -> Bool, int -> Int64, float -> Float32, as MindSpore does).
    `Tensor(shape=..., dtype=..., init=...)` fills from an initializer.
    """

    __slots__ = ("_data", "__weakref__", "__dict__")

    def __init__(self, input_data=None, dtype=None, shape=None, init=None, internal=False, const_arg=False):
        dt = mstype.to_dtype(dtype) if dtype is not None else None
        if input_data is None:
            if shape is None:
                raise TypeError("For 'Tensor', 'input_data' is required unless 'shape' and 'dtype' are given")
            shape = (shape,) if isinstance(shape, int) else tuple(shape)
            dt = dt or mstype.float32
            if init is None:
                arr = np.zeros(shape, dt.np)
            else:
                from pycompile.common.initializer import initializer
                arr = initializer(init, shape, dt)._data
        else:
            arr = _to_array(input_data, dt)
            if shape is not None and tuple(arr.shape) != ((shape,) if isinstance(shape, int) else tuple(shape)):
                arr = arr.reshape(shape)
        self._data = arr

    @classmethod
    def _wrap(cls, arr: np.ndarray) -> "Tensor":
        """Wrap a NumPy array without copying (internal)."""
        t = object.__new__(cls)
        if not arr.flags.c_contiguous or not isinstance(arr, np.ndarray):
            arr = np.ascontiguousarray(arr)
        t._data = arr
        return t

    @property
    def _abstract(self) -> TensorType:
        return TensorType(mstype.from_numpy(self._data.dtype), self._data.shape)

    @property
    def shape(self) -> tuple:
        return self._data.shape

    @property
    def dtype(self) -> mstype.DType:
        return mstype.from_numpy(self._data.dtype)

    @property
    def size(self) -> int:
        return self._data.size

    @property
    def ndim(self) -> int:
        return self._data.ndim

    @property
    def nbytes(self) -> int:
        return self._data.nbytes

    @property
    def itemsize(self) -> int:
        return self._data.itemsize

    @property
    def strides(self) -> tuple:
        return self._data.strides

    def asnumpy(self) -> np.ndarray:
        """A copy of the data as a NumPy array."""
        return self._data.copy()

    def numpy(self) -> np.ndarray:
        return self.asnumpy()

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self._data, dtype=dtype)

    def item(self, index=None):
        if index is None and self._data.size != 1:
            raise ValueError(f"item() needs a tensor with one element, but its shape is {list(self.shape)}")
        return self._data.item() if index is None else self._data.item(index)

    def tolist(self):
        return self._data.tolist()

    def copy(self) -> "Tensor":
        return Tensor._wrap(self._data.copy())

    def __bool__(self) -> bool:
        if self._data.size != 1:
            raise ValueError(f"The truth value of a Tensor with {self._data.size} elements is ambiguous; "
                             "use .any() or .all()")
        return bool(self._data.item())

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if self.dtype.kind not in "iu":
            raise TypeError("only integer tensors can be used as an index")
        return int(self.item())

    def __setitem__(self, index, value):
        """In-place write (PyNative only). The value is converted to this tensor's dtype as C
        converts (t[0] = 2.7 on an int tensor stores 2)."""
        if isinstance(index, Tensor):
            index = index._data
        elif isinstance(index, tuple):
            index = tuple(i._data if isinstance(i, Tensor) else i for i in index)
        arr = value._data if isinstance(value, Tensor) else _to_array(value, self.dtype)
        try:
            with np.errstate(all="ignore"):
                self._data[index] = arr
        except ValueError:
            raise ValueError(f"For 'setitem', cannot assign a value of shape {list(arr.shape)} to the selection "
                             f"{index!r} of a tensor of shape {list(self.shape)}") from None

    def __repr__(self) -> str:
        return _format.tensor_repr(self._data, self.dtype.name)

    def __str__(self) -> str:
        return _format.tensor_str(self._data)

    def __format__(self, spec):
        if self._data.ndim == 0 and spec:
            return format(self._data.item(), spec)
        return str(self)

    def __reduce__(self):
        return (Tensor, (self._data,))

    def __deepcopy__(self, memo):
        return Tensor._wrap(self._data.copy())

    def set_data(self, data) -> "Tensor":
        """Replace the value (shape and dtype follow `data`)."""
        self._data = _to_array(data, None)
        return self

    def assign_value(self, value) -> "Tensor":
        return self.set_data(value)


def tensor(input_data=None, dtype=None, shape=None, init=None) -> Tensor:
    """`pycompile.tensor(data, dtype)`: same as Tensor(...)."""
    return Tensor(input_data, dtype=dtype, shape=shape, init=init)


def is_tensor(x) -> bool:
    return isinstance(x, Tensor)


# Imported last: the functional ops build on Tensor (see the module docstring).
from pycompile.ops import functional as F  # noqa: E402
