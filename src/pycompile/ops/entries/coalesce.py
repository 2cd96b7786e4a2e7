"""ops.coalesce / ops.Coalesce: a COO tensor given as parts - indices (ndim, n) int64, values (n,),
shape (ndim,) int64 - with the entries at one place added into one, the places in row-major order.
A place whose entries cancel stays (value 0), as MindSpore's kernel keeps it.

The grouping is sparse_ops_sparse33.by_place (the row-major position computed in the graph from the
run-time shape, a sort, segment sums), so graph mode and PyNative run the same ops. The number of
places is known only when the program runs: in graph code the result is a run-time-length value
(ops/dynamic_length.py), and indices (ndim, places) has that length on its second axis.

Indices that are negative or past the shape are MindSpore's ValueError, checked when the values are
known (PyNative); in graph code such an index gives a place outside the shape's row-major range,
and the check runs with the program (MindSpore's ValueError at the user's line; the index and the
bound it exceeds are not named there).
Values may be float16, float32 or float64: MindSpore 2.10's documentation says float16 / float32,
its CPU kernel also takes float64 (recorded: tests/conformance/cases_coalesce.py).
"""
from __future__ import annotations

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import Symbolic
from pycompile.common.tensor import TensorMethods
from pycompile.ops import functional as F
from pycompile.ops import prims as P
from pycompile.ops._table import OpTypeError, OpValueError, apply
from pycompile.ops.entry import Arg, op_entry
from pycompile.ops.sparse_ops_sparse33 import by_place

_VALUES = (mstype.float16, mstype.float32, mstype.float64)


def _int64(name):
    def check(v, op):
        if v.dtype != mstype.int64:
            raise OpTypeError(f"For primitive[Coalesce], the input argument[{name}] must be a type of "
                              f"{{Tensor[Int64]}}, but got {v.dtype}.")
    return check


def _float(v, op):
    if v.dtype not in _VALUES:
        raise OpTypeError("For primitive[Coalesce], the input argument[x_values] must be a type of {Tensor[Float16], "
                          f"Tensor[Float32], Tensor[Float64]}}, but got {v.dtype}.")


def _check_shapes(x_indices, x_values, x_shape):
    if (x_indices.ndim, x_values.ndim, x_shape.ndim) != (2, 1, 1):
        raise OpValueError(f"For 'Coalesce' x_indices must be a 2-D tensor, x_values and x_shape must be a 1-D tensor, "
                           f"but got x_indices is a {x_indices.ndim}-D tensor, got x_values is a {x_values.ndim}-D "
                           f"tensor, got x_shape is a {x_shape.ndim}-D tensor.")
    if x_indices.shape[1] != x_values.shape[0]:
        raise OpValueError(f"For Coalesce, second dim of x_indices and first dim of x_values must be the same, but got "
                           f"second dim of x_indices: {x_indices.shape[1]}, first dim of x_values: "
                           f"{x_values.shape[0]}.")
    if x_indices.shape[0] != x_shape.shape[0]:
        raise OpValueError(f"For Coalesce, first dim of x_indices and first dim of x_shape must be the same, but got "
                           f"first dim of x_indices: {x_indices.shape[0]}, first dim of x_shape: {x_shape.shape[0]}.")


def _known(*ts) -> bool:
    return all(isinstance(t, TensorMethods) and not isinstance(t, Symbolic) and hasattr(t, "asnumpy") for t in ts)


def _check_values(x_indices, x_shape):
    """MindSpore's range checks of the indices, in its order (row by row, entry by entry)."""
    idx, shape = x_indices.asnumpy(), x_shape.asnumpy()
    for r in range(idx.shape[0]):
        for c in range(idx.shape[1]):
            if idx[r, c] < 0:
                raise OpValueError(f"For Coalesce, values of elements of x_indices must be non-negative, but got "
                                   f"x_indices[{r}][{c}] = {idx[r, c]}")
            if idx[r, c] >= shape[r]:
                raise OpValueError(f"For Coalesce, values of elements of x_indices can not exceed the limit set by "
                                   f"x_shape, but got x_indices[{r}][{c}] = {idx[r, c]}, got x_shape[{r}] = {shape[r]}")


def _checked_in_graph(x_indices, x_shape, x_values):
    """x_values, passed through a run-time check that every index lies in [0, shape) (graph code)."""
    inside = F.logical_and(F.ge(x_indices, 0), F.lt(x_indices, F.expand_dims(x_shape, 1)))
    flag = F.select(F.all(inside), F.zeros((), mstype.float32), F.fill(mstype.float32, (), np.inf))
    flag = apply(P.CheckFinite, [flag], {
        "message": "For Coalesce, values of elements of x_indices must be non-negative and can not exceed the "
                   "limit set by x_shape.", "error": "ValueError"})
    return F.add(x_values, F.cast(flag, x_values.dtype))


@op_entry("coalesce", primitive="Coalesce",
          args=[Arg("x_indices", check=_int64("x_indices")), Arg("x_values", check=_float),
                Arg("x_shape", check=_int64("x_shape"))])
def coalesce(x_indices, x_values, x_shape):
    """(y_indices (ndim, places), y_values (places,), y_shape): the entries at one place added, the places in
    row-major order."""
    _check_shapes(x_indices, x_values, x_shape)
    if _known(x_indices, x_shape):
        _check_values(x_indices, x_shape)
    else:
        x_values = _checked_in_graph(x_indices, x_shape, x_values)

    def combine(first, rest, size):
        return F.add(first, rest), F.ge(size, 1)
    idx, val = by_place(F.transpose(x_indices, (1, 0)), x_values, x_shape, combine)
    return F.transpose(idx, (1, 0)), val, x_shape
