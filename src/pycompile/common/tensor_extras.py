"""Top-level tensor helpers of MindSpore 2.10 added by issue 33 (surface33): `frombuffer`,
`swap_tensors`, `UntypedStorage` (what `Tensor.untyped_storage()` / `storage()` return) and
`Symbol` (a symbolic dimension's constraints)."""
from __future__ import annotations

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.tensor import Tensor


def frombuffer(buffer, dtype, count=-1, offset=0) -> Tensor:
    """A 1-D Tensor of `dtype` over the bytes of `buffer` (bytes, bytearray, memoryview, an ndarray)
    from byte `offset`, `count` elements (-1: all). It shares a writable buffer's memory, as
    MindSpore's does (a bytes object is read-only, so its data is copied)."""
    dt = mstype.to_dtype(dtype)
    view = memoryview(buffer).cast("B")
    length, size = view.nbytes, dt.itemsize
    if length == 0 or count == 0:
        raise RuntimeError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if offset < 0 or offset > length - 1:
        raise RuntimeError(f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
                           f"({length} bytes) minus 1.")
    if count < 0:
        if (length - offset) % size:
            raise RuntimeError(f"buffer length ({length - offset} bytes) after offset ({offset} bytes) must be a "
                               f"multiple of element size ({size}).")
        count = (length - offset) // size
    elif length - offset < count * size:
        raise RuntimeError(f"buffer length ({length} bytes) after offset ({offset} bytes) is not enough for the "
                           f"requested count of elements ({count} elements of size {size} bytes each, total "
                           f"{count * size} bytes).")
    arr = np.frombuffer(view, dt.np, count, offset)
    if not arr.flags.writeable:
        arr = arr.copy()
    return Tensor._wrap(arr)


def swap_tensors(t1, t2) -> None:
    """Exchange the contents (data, shape, dtype, attributes) of two Tensors in place."""
    if not isinstance(t1, Tensor) or not isinstance(t2, Tensor):
        raise TypeError(f"For 'swap_tensors', both arguments must be Tensors, but got {type(t1).__name__} and "
                        f"{type(t2).__name__}.")
    t1._data, t2._data = t2._data, t1._data
    d1, d2 = dict(t1.__dict__), dict(t2.__dict__)
    t1.__dict__.clear()
    t1.__dict__.update(d2)
    t2.__dict__.clear()
    t2.__dict__.update(d1)


class UntypedStorage:
    """The bytes under a Tensor (`x.untyped_storage()`, `x.storage()`): its address, size and
    device. Made only by a Tensor, as in MindSpore."""

    def __init__(self, *args, **kwargs):
        raise TypeError("cannot create 'UntypedStorage' instances")

    @classmethod
    def _of(cls, tensor):
        self = object.__new__(cls)
        self._tensor = tensor
        return self

    def data_ptr(self) -> int:
        return int(self._tensor._data.ctypes.data)

    @property
    def device(self) -> str:
        return "CPU"

    @property
    def dtype(self):
        return self._tensor.dtype

    def element_size(self) -> int:
        return 1

    def is_shared(self) -> bool:
        return False

    def nbytes(self) -> int:
        return int(self._tensor._data.nbytes)

    def size(self) -> int:
        return self.nbytes()

    def copy_(self, src):
        """Copy the bytes of `src` (an UntypedStorage of the same size) into this storage."""
        if not isinstance(src, UntypedStorage) or src.nbytes() != self.nbytes():
            raise RuntimeError("For 'UntypedStorage.copy_', the source must be an UntypedStorage of the same "
                               "number of bytes.")
        dst = self._tensor._data
        dst.reshape(-1).view(np.uint8)[:] = np.ascontiguousarray(src._tensor._data).reshape(-1).view(np.uint8)
        return self


def _untyped_storage(self):
    """The UntypedStorage of this tensor's bytes (the same object on each call)."""
    store = self.__dict__.get("_untyped_storage")
    if store is None or store._tensor is not self:
        store = self.__dict__["_untyped_storage"] = UntypedStorage._of(self)
    return store


Tensor.untyped_storage = _untyped_storage
Tensor.storage = _untyped_storage


class Symbol:
    """The constraints of a symbolic (dynamic) dimension: `max` (0: unbounded), `min` (>= 1),
    `divisor` / `remainder` (size % divisor == remainder) and `unique`. pycompile specializes every
    shape, so a Symbol documents an input signature; `Tensor(shape=[Symbol(...), 3])` takes it as a
    dimension known at run time."""

    def __init__(self, max=0, min=1, divisor=1, remainder=0, unique=False, **kwargs):
        for name, value in (("max", max), ("min", min), ("divisor", divisor), ("remainder", remainder)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"For 'Symbol', the type of '{name}' should be int, but got {type(value)}.")
        if not isinstance(unique, bool):
            raise TypeError(f"For 'Symbol', the type of 'unique' should be bool, but got {type(unique)}.")
        if min <= 0:
            raise ValueError(f"For 'Symbol', the 'min' value should be positive, but got {min}")
        if divisor <= 0:
            raise ValueError(f"For 'Symbol', the 'divisor' value should be positive, but got {divisor}")
        if remainder < 0 or remainder >= divisor:
            raise ValueError(f"For 'Symbol', the 'remainder' value should be in the range '[0, {divisor})', "
                             f"but got {remainder}")
        self.max, self.min, self.divisor, self.remainder, self.unique = max, min, divisor, remainder, unique

    def to_dict(self) -> dict:
        """The constraints that say something: max above min, min above divisor + remainder (the
        smallest size d * N + r allows), divisor other than 1, remainder other than 0."""
        out = {}
        if self.max > self.min:
            out["max"] = self.max
        if self.min > self.divisor + self.remainder:
            out["min"] = self.min
        if self.divisor != 1:
            out["divisor"] = self.divisor
        if self.remainder != 0:
            out["remainder"] = self.remainder
        if self.unique:
            out["id"] = id(self)
        return out

    def __str__(self):
        return str(self.to_dict())


__all__ = ["frombuffer", "swap_tensors", "UntypedStorage", "Symbol"]
