"""Tensor and Parameter.

`TensorMethods` is the base every tensor-like value shares: `Tensor` mixes it in over a NumPy
buffer, the compiler's tracer over an IR value, vmap's tracer over a batch. Its operators and
methods (each routed through the op table) are attached by `pycompile.ops.tensor_methods`, so
`x + y`, `x.sum()`, `x[1:]` mean one thing in PyNative and graph mode alike.
"""
from __future__ import annotations

import numbers

import numpy as np

from pycompile.common import _format
from pycompile.common._initializers import init_array, resolve
from pycompile.common import dtype as mstype
from pycompile.common.abstract import TensorType
from pycompile._rt import lib as _rt_lib


def parameters_written() -> None:
    """Some Parameter's bytes changed, or a new Parameter's buffer may sit where a freed one's was:
    the packings of Parameters the runtime's product kernel keeps between calls are stale
    (csrc/gemm.c). Every write of a Parameter outside compiled code calls it; compiled graphs that
    assign Parameters call the runtime's as they start and end."""
    _rt_lib.pc_params_written()


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

    # Operators and methods (x + y, x.sum(), x[1:] ...) are attached by pycompile.ops.tensor_methods:
    # they are ops of the table, which sits above this module.
    __hash__ = object.__hash__


def _infer_default_dtype(data) -> mstype.DType:
    """MindSpore's default dtype for Python data: bool, int64 or float32."""
    arr = np.asarray(data)
    if arr.dtype.kind == "b":
        return mstype.bool_
    if arr.dtype.kind in "iu":
        return mstype.int64
    if arr.dtype.kind == "f":
        return mstype.float32
    if arr.dtype.kind == "c":
        return mstype.complex128
    raise TypeError(f"Tensor data must be numbers, got {arr.dtype}")


def _canonical_bools(arr: np.ndarray) -> np.ndarray:
    """`arr` itself unless it is a bool array holding a byte other than 0 and 1; then a copy that
    holds 0 and 1 only. NumPy keeps whatever byte a view (`np.uint8(2)` viewed as bool) or a file
    put in a bool; compiled kernels read the byte, so `astype(int32)` of such a True gave 2 and
    `logical_not` gave True. Every way into a Tensor passes here; a clean array costs one read."""
    if arr.dtype != np.bool_ or not arr.size:
        return arr
    raw = arr.view(np.uint8)
    if raw.max() <= 1:
        return arr
    return np.not_equal(raw, 0)


def _to_array(data, dtype) -> np.ndarray:
    return _canonical_bools(_to_new_array(data, dtype))


def _to_new_array(data, dtype) -> np.ndarray:
    """A fresh C-contiguous array. An explicit dtype converts as C does (Tensor(-1, uint8) is 255,
    Tensor(2.9, int32) is 2), as MindSpore does."""
    if dtype is mstype.bfloat16:        # through float32, whatever the data (mstype.to_bfloat16)
        source = data._data if isinstance(data, Tensor) else data
        arr = _to_new_array(source, None) if not isinstance(source, np.ndarray) else source
        return np.array(mstype.to_bfloat16(arr), order="C")      # (a copy; a 0-d array stays 0-d)
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
        if arr is None or arr.dtype == object or arr.dtype.kind not in "biufc":
            raise TypeError(f"For 'Tensor', the input_data {data!r} must be a (nested) list of numbers "
                            f"with a regular shape")
        if dtype is None:
            dtype = _infer_default_dtype(arr) if arr.size else mstype.float32
        return np.array(arr, dtype=dtype.np, order="C")
    if isinstance(data, (numbers.Number, np.generic)):
        if dtype is None:
            if isinstance(data, np.generic):
                dtype = mstype.from_numpy(data.dtype)
            elif isinstance(data, complex):
                dtype = mstype.complex128     # MindSpore 2.10: Tensor(1+2j) is Complex128
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
            if shape is None and dt is None:
                raise TypeError("For 'Tensor', 'input_data' is required unless 'shape' and 'dtype' are given")
            if shape is None:
                # MindSpore's dynamic-rank placeholder (shape (-2,)) for set_inputs / input_signature:
                # the rank too is known only at run time; each call's shapes compile
                self.dynamic_rank = True
                shape = ()
            shape = (shape,) if isinstance(shape, int) or shape is None else tuple(shape)
            dt = dt or mstype.float32
            if any(d is None or d == -1 for d in shape):
                # a placeholder for an input_signature / set_inputs: None (or -1) is a dimension
                # known only at run time; the data is empty
                self.dynamic_dims = tuple(k for k, d in enumerate(shape) if d is None or d == -1)
                shape = tuple(0 if d is None or d == -1 else d for d in shape)
            if init is None:
                arr = np.zeros(shape, dt.np)
            else:
                init = resolve(init)
                arr = init_array(init, shape, dt)
                self.__dict__["_pending_init"] = init    # `init` until init_data() / asnumpy()
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
        t._data = _canonical_bools(arr)
        return t

    @classmethod
    def _wrap_array(cls, arr: np.ndarray) -> "Tensor":
        """Wrap an ndarray of a supported dtype without copying or checking it: the constructor of
        the hot paths' outputs (eager ops, compiled calls), whose arrays are fresh, C-contiguous
        and of a pycompile dtype by construction, where `_wrap`'s checks cost a third of a
        one-element op."""
        t = object.__new__(cls)
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
        if self.__dict__:
            self.__dict__.pop("_pending_init", None)     # MindSpore initializes the data here
        return self._data.copy()

    @property
    def init(self):
        """The Initializer a Tensor made with `init=` (or by `initializer()`) was filled by, until
        `init_data()` or `asnumpy()`; else None. MindSpore fills the data only then (an op on the
        Tensor before is its RuntimeError); pycompile fills it when the Tensor is made, so ops work."""
        return self.__dict__.get("_pending_init") if self.__dict__ else None

    def init_data(self, slice_index=None, shape=None, opt_shard_group=None):
        """The Tensor itself, its data initialized (`init` becomes None); MindSpore's TypeError for a
        Tensor made without an initializer. The slice arguments (parallel training) are not used."""
        if self.init is None:
            raise TypeError("init_data must be set Tensor.init, init can't be None")
        self.__dict__.pop("_pending_init", None)
        return self

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
            parameters_written()
        except ValueError:
            raise ValueError(f"For 'setitem', cannot assign a value of shape {list(arr.shape)} to the selection "
                             f"{index!r} of a tensor of shape {list(self.shape)}") from None

    _numpy_backed = False    # set on the rows dataset iterators yield: repr as MindSpore prints those

    def __repr__(self) -> str:
        if self._numpy_backed:
            return _format.host_tensor_repr(self._data, self.dtype.name)
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
        parameters_written()
        return self

    def assign_value(self, value) -> "Tensor":
        return self.set_data(value)


def tensor(input_data=None, dtype=None, shape=None, init=None) -> Tensor:
    """`pycompile.tensor(data, dtype)`: same as Tensor(...)."""
    return Tensor(input_data, dtype=dtype, shape=shape, init=init)


def is_tensor(x) -> bool:
    return isinstance(x, Tensor)

