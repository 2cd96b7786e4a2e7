"""MindSpore's sparse tensors (`mindspore.common.sparse_tensor`): COOTensor, CSRTensor, RowTensor
(and the deprecated SparseTensor), as containers of their dense parts.

* `COOTensor(indices, values, shape)`: indices (N, ndim) int16/int32/int64, values (N,), shape a
  tuple of ndim ints; or `COOTensor(coo_tensor=c)` (a copy of another).
* `CSRTensor(indptr, indices, values, shape)`: a 2-D matrix (or a batch of them) in compressed
  rows, indptr (shape[0] + 1,), indices (N,) column indices, values (N, ...); or `csr_tensor=c`.
* `RowTensor(indices, values, dense_shape)`: rows `indices` of a dense tensor (`values[i]` is row
  `indices[i]`); or `row_tensor=r`.

A sparse tensor holds Tensors and a static shape, nothing else, so graph code handles it as the
tuple of its parts: constructed in a `construct` / `@jit` function, passed to the `coo_*` /
`csr_*` functions, returned (the compiled function's results rebuild it: compiler/pytree.py) or
passed in (each part is an input). The methods that compute (to_dense, abs, astype, the `csr_*`
forms mv / mm / sum, to_coo / to_csr) are attached from `pycompile.ops` (ops/entries/
sparse_sparse33.py), as Tensor's are. Construction checks MindSpore 2.10's (dtypes, ranks, the
shape's length); index values are not checked (MindSpore does not either).
"""
from __future__ import annotations

import re

from pycompile.common import dtype as mstype
from pycompile.common.tensor import TensorMethods

_INDEX = (mstype.int16, mstype.int32, mstype.int64)


def _tensor(cls, name, v):
    if not isinstance(v, TensorMethods):
        raise TypeError(f"For {cls}, '{name}' must be a Tensor, but got {type(v).__name__}.")
    return v


def _index(cls, name, v):
    _tensor(cls, name, v)
    if v.dtype not in _INDEX:
        raise TypeError(f"For {cls}, the type of '{name}' must be one of [int16, int32, int64], but got {v.dtype}.")
    return v


def _shape(cls, shape):
    if isinstance(shape, TensorMethods):
        shape = tuple(int(s) for s in shape.asnumpy().reshape(-1))
    if not isinstance(shape, (tuple, list)) or not all(isinstance(s, int) and not isinstance(s, bool) for s in shape):
        raise TypeError(f"For {cls}, 'shape' must be a tuple or a list of int, but got {shape!r}.")
    if any(s <= 0 for s in shape):
        raise ValueError(f"For {cls}, the element of 'shape' must be positive, but got {tuple(shape)}.")
    return tuple(shape)


def _part_repr(t) -> str:
    """A part as MindSpore prints it inside a sparse tensor: the Tensor form with NumPy's spacing."""
    text = repr(t)
    head, sep, value = text.partition("value=")
    value = re.sub(r",(?=\s)", "", value)
    return head + sep + (value[1:] if value.startswith(" ") else value)


class _Sparse:
    """What the three kinds share: dtype, ndim, size, itemsize (of the values)."""
    _parts: tuple = ()

    @property
    def dtype(self):
        return self.values.dtype

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return int(self.values.size)

    @property
    def itemsize(self):
        return int(self.values.itemsize)

    def to_tuple(self):
        """The dense parts, then the shape (MindSpore's order)."""
        return tuple(getattr(self, p) for p in self._parts) + (self.shape,)

    def __repr__(self):
        parts = ", ".join(f"{p}={_part_repr(getattr(self, p))}" for p in self._parts)
        return f"{type(self).__name__}(shape={list(self.shape)}, dtype={self.dtype}, {parts})"

    __str__ = __repr__

    def __bool__(self):
        raise TypeError(f"For {type(self).__name__}, the truth value is ambiguous; use its 'values'.")

    def __len__(self):
        return self.shape[0]


class COOTensor(_Sparse):
    """A sparse tensor in coordinate form: `values[i]` at `indices[i]` of a `shape` tensor."""
    _parts = ("indices", "values")

    def __init__(self, indices=None, values=None, shape=None, coo_tensor=None):
        if coo_tensor is not None:
            if not isinstance(coo_tensor, COOTensor):
                raise TypeError(f"For COOTensor, 'coo_tensor' must be a COOTensor, but got {type(coo_tensor).__name__}.")
            indices, values, shape = coo_tensor.indices, coo_tensor.values, coo_tensor.shape
        elif indices is None or values is None or shape is None:
            raise TypeError("For COOTensor, 'indices', 'values' and 'shape' must all be given (or 'coo_tensor').")
        _index("COOTensor", "indices", indices)
        _tensor("COOTensor", "values", values)
        shape = _shape("COOTensor", shape)
        if indices.ndim != 2:
            raise ValueError(f"For COOTensor, 'indices' must be a 2-D Tensor, but got {indices.ndim}-D.")
        if values.ndim != 1:
            raise ValueError(f"For COOTensor, 'values' must be a 1-D Tensor, but got {values.ndim}-D.")
        if indices.shape[0] != values.shape[0]:
            raise ValueError(f"For COOTensor, the length of 'indices' ({indices.shape[0]}) and 'values' "
                             f"({values.shape[0]}) must be equal.")
        if len(shape) != indices.shape[1]:
            raise ValueError(f"For COOTensor, the length of 'shape' must be {indices.shape[1]}, but got {shape}.")
        self.indices, self.values, self.shape = indices, values, shape


class CSRTensor(_Sparse):
    """A matrix in compressed-row form: row r holds `values[indptr[r]:indptr[r+1]]` at columns
    `indices[indptr[r]:indptr[r+1]]`."""
    _parts = ("indptr", "indices", "values")

    def __init__(self, indptr=None, indices=None, values=None, shape=None, csr_tensor=None):
        if csr_tensor is not None:
            if not isinstance(csr_tensor, CSRTensor):
                raise TypeError(f"For CSRTensor, 'csr_tensor' must be a CSRTensor, but got {type(csr_tensor).__name__}.")
            indptr, indices, values, shape = csr_tensor.indptr, csr_tensor.indices, csr_tensor.values, csr_tensor.shape
        elif indptr is None or indices is None or values is None or shape is None:
            raise TypeError("For CSRTensor, 'indptr', 'indices', 'values' and 'shape' must all be given "
                            "(or 'csr_tensor').")
        _index("CSRTensor", "indptr", indptr)
        _index("CSRTensor", "indices", indices)
        _tensor("CSRTensor", "values", values)
        shape = _shape("CSRTensor", shape)
        if indptr.ndim != 1 or indices.ndim != 1:
            raise ValueError("For CSRTensor, 'indptr' and 'indices' must be 1-D Tensors.")
        if len(shape) < 2:
            raise ValueError(f"For CSRTensor, the length of 'shape' must be at least 2, but got {shape}.")
        if indptr.shape[0] != shape[0] + 1:
            raise ValueError(f"For CSRTensor, indptr must have length (1 + shape[0]), but got: {indptr.shape[0]}")
        if indices.shape[0] != values.shape[0]:
            raise ValueError(f"For CSRTensor, 'indices' and 'values' must have the same length, but got "
                             f"{indices.shape[0]} and {values.shape[0]}.")
        if tuple(values.shape[1:]) != tuple(shape[2:]):
            raise ValueError(f"For CSRTensor, 'values' must have shape (N,) + shape[2:], but got {tuple(values.shape)}.")
        self.indptr, self.indices, self.values, self.shape = indptr, indices, values, shape


class RowTensor(_Sparse):
    """Rows of a dense tensor: `values[i]` is row `indices[i]` of a `dense_shape` tensor."""
    _parts = ("indices", "values")

    def __init__(self, indices=None, values=None, dense_shape=None, row_tensor=None):
        if row_tensor is not None:
            if not isinstance(row_tensor, RowTensor):
                raise TypeError(f"For RowTensor, 'row_tensor' must be a RowTensor, but got {type(row_tensor).__name__}.")
            indices, values, dense_shape = row_tensor.indices, row_tensor.values, row_tensor.dense_shape
        elif indices is None or values is None or dense_shape is None:
            raise TypeError("For RowTensor, 'indices', 'values' and 'dense_shape' must all be given (or 'row_tensor').")
        _tensor("RowTensor", "indices", indices)
        _tensor("RowTensor", "values", values)
        self.indices, self.values, self.dense_shape = indices, values, _shape("RowTensor", dense_shape)

    @property
    def shape(self):
        return self.dense_shape


class SparseTensor(COOTensor):
    """MindSpore's deprecated name: `SparseTensor(indices, values, shape)` is a COOTensor."""

    def __init__(self, indices, values, shape):
        super().__init__(indices, values, shape)


SPARSE_TYPES = (COOTensor, CSRTensor, RowTensor)


def parts_of(v):
    """(class, tensor parts, shape) of a sparse tensor, for the compiler's pytrees."""
    return type(v), tuple(getattr(v, p) for p in v._parts), v.shape


def rebuild(cls, parts, shape):
    """The sparse tensor of class cls from its parts and shape (no checks: they held when it was built)."""
    obj = cls.__new__(cls)
    for name, t in zip(cls._parts, parts):
        setattr(obj, name, t)
    if cls is RowTensor:
        obj.dense_shape = tuple(shape)
    else:
        obj.shape = tuple(shape)
    return obj


def rebuild_named(kind, items):
    """The sparse tensor a pytree node names (its class's name), from its parts then its shape."""
    cls = {c.__name__: c for c in SPARSE_TYPES}[kind]
    return rebuild(cls, items[:-1], items[-1])


__all__ = ["COOTensor", "CSRTensor", "RowTensor", "SparseTensor"]
