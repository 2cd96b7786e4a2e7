"""Masked and indexed reads and writes (MindSpore 2.10 names): masked_fill / masked_select,
gather_elements / gather_d / gather_nd / index_select, scatter_nd and the tensor_scatter_*
family, item assignment (`setitem`), and assign_add / assign_sub on Parameters.

Item assignment in graph code (`y[0] = 100.0`, `y[:, 1:] = t`, `y[mask] = 0`) is functional, as
in MindSpore's graph mode: the frontend rebinds the name to `setitem(y, index, value)`, a new
tensor. A boolean mask becomes a Select. Any other subscript is resolved on a constant tensor
of flat positions (`arange(size).reshape(shape)[index]`, with the same indexing code as reads,
so every form reads accept is accepted), and the value is scattered to those positions with
TensorScatterUpdate; an index tensor known only at run time makes the positions a gather.
"""
from __future__ import annotations

import builtins

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import Symbolic, TensorType, type_of
from pycompile.common.tensor import TensorMethods
from pycompile.ops import prims as P
from pycompile.ops import functional as F
from pycompile.ops._table import OpRuntimeError, OpTypeError, OpValueError, apply


def _tensor_cls():
    from pycompile.common.tensor import Tensor
    return Tensor


def _const(arr):
    return _tensor_cls()._wrap(np.array(arr, order="C"))


def _is_tensor(v) -> bool:
    return isinstance(getattr(v, "_abstract", None), TensorType)


def _broadcasts_to(shape, target) -> builtins.bool:
    try:
        return np.broadcast_shapes(tuple(shape), tuple(target)) == tuple(target)
    except ValueError:
        return False


def _same_kind(dt: mstype.DType, value) -> bool:
    """A Python number's kind matches a tensor dtype's (int for int tensors, float for float...)."""
    kind = mstype.scalar_kind(value)
    return {"bool": dt.is_bool, "int": dt.kind in "iu", "float": dt.is_float}[kind]


# ---- masks ------------------------------------------------------------------------------------------
def masked_fill(input_x, mask, value):
    """`value` where mask is True (broadcast). A Python number must be of the tensor's kind
    (MindSpore's CPU kernel refuses an int for a float tensor); a tensor value is cast."""
    t = F._tensor_type("MaskedFill", input_x, "input_x")
    m = F._tensor_type("MaskedFill", mask, "mask")
    if not m.dtype.is_bool:
        raise OpTypeError(f"For 'MaskedFill', 'mask' must be a bool Tensor, but got {m}")
    if _is_tensor(value) or isinstance(value, Symbolic):
        value = F.cast(value, t.dtype)
    elif isinstance(value, (builtins.bool, int, float, np.number)):
        if not _same_kind(t.dtype, value):
            raise OpTypeError(f"Select CPU operator[MaskedFill] fail! Unsupported data type! (a "
                              f"{type(value).__name__} value for a {t.dtype} tensor)")
        value = _const(np.array(value, t.dtype.np))
    else:
        raise OpTypeError(f"For 'MaskedFill', 'value' must be a number or a Tensor, but got {type(value).__name__}")
    return F.select(mask, value, input_x)


def masked_select(input, mask):
    """The elements where mask is True (input and mask broadcast), as a 1-D tensor whose length
    depends on the mask's values. Eagerly a NumPy selection, or under autodiff a Gather at the
    mask's (known) places, so its gradient is g scattered back to them; in graph code a value of
    run-time length (ops/dynamic_length.py)."""
    m = F._tensor_type("MaskedSelect", mask, "mask")
    F._tensor_type("MaskedSelect", input)
    if not m.dtype.is_bool:
        raise OpTypeError(f"For 'MaskedSelect', 'mask' must be a bool Tensor, but got {m}")
    if any(_in_graph(v) for v in (input, mask)):
        from pycompile.ops.dynamic_length import masked_select_graph
        return masked_select_graph(input, mask)
    if isinstance(input, Symbolic) or isinstance(mask, Symbolic):
        mk = _concrete(mask)
        if mk is None:
            raise OpValueError("For 'MaskedSelect', the output's shape depends on the mask's values, which this "
                               "transformation does not know; use ops.masked_fill or ops.select to keep the shape")
        shape = np.broadcast_shapes(tuple(type_of(input).shape), mk.shape)
        places = np.flatnonzero(np.broadcast_to(mk, shape)).astype(np.int64)
        flat = F.reshape(F.broadcast_to(input, shape), (int(np.prod(shape, dtype=np.int64)),))
        return F.gather(flat, _const(places), 0)
    x, mk = np.broadcast_arrays(input._data, mask._data)
    return _const(x[mk])


def unique(input):
    """(the distinct values of the flattened input in order of first appearance, each element's
    place among them in input's shape: Int64 for an Int64 input, else Int32), as MindSpore's
    ops.unique. In graph code the values have a run-time length (ops/dynamic_length.py) and the
    first appearances come from comparing every pair of elements (n^2 work and bytes: meant for
    the label / index vectors Unique sees in model code, not for millions of elements)."""
    t = F._tensor_type("Unique", input)
    idt = mstype.int64 if t.dtype == mstype.int64 else mstype.int32
    n = t.size
    flat = F.reshape(input, (n,))
    if _in_graph(input):
        from pycompile.ops.dynamic_length import masked_select_graph
        first = apply(P.Argmax, [F.cast(F.equal(F.reshape(flat, (n, 1)), F.reshape(flat, (1, n))), mstype.int32)],
                      {"axis": 1})
        is_first = F.equal(first, _const(np.arange(n, dtype=np.int64)))
        rank = apply(P.CumSum, [F.cast(is_first, idt)], {"axis": 0, "exclusive": True, "reverse": False})
        return masked_select_graph(flat, is_first), F.reshape(F.gather(rank, first, 0), t.shape)
    xs = _concrete(input)
    if xs is None:
        raise OpValueError("For 'Unique', the output's shape depends on the input's values, which this "
                           "transformation does not know")
    _, first, inverse = np.unique(xs.reshape(-1), return_index=True, return_inverse=True)
    rank = np.empty(first.size, np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(first.size)
    idx = _const(rank[inverse.reshape(-1)].reshape(xs.shape).astype(idt.np))
    is_first = np.zeros(n, builtins.bool)
    is_first[first] = True
    return masked_select(flat, _const(is_first)), idx


def _unique_1d(input_x):
    """The Unique primitive: ops.unique of a 1-D tensor."""
    t = F._tensor_type("Unique", input_x)
    if t.ndim != 1:
        raise OpRuntimeError("Rank of Unique's input must be 1.")
    return unique(input_x)


def _in_graph(v) -> builtins.bool:
    """v is a value of a graph being built (the compiler's tracer captures effects)."""
    return isinstance(v, Symbolic) and getattr(v._tracer, "captures", False)


def _concrete(v):
    """The NumPy value behind v: a Tensor's, or an autodiff tracer's primal's; None for values
    known only later (graph or vmap tracers)."""
    while isinstance(v, Symbolic):
        v = getattr(v, "primal", None)
    return v._data if v is not None and hasattr(v, "_data") else None


# ---- gathers -----------------------------------------------------------------------------------------
def gather_elements(input, dim, index):
    """out[i][j] = input[i][index[i][j]] for dim 1 (index has the input's rank)."""
    return apply(P.GatherD, [input, index], {"axis": dim})


def gather_d(x, dim, index):
    return gather_elements(x, dim, index)


def gather_nd(input_x, indices):
    """out[i] = input_x[indices[i][0], ..., indices[i][m - 1]]."""
    return apply(P.GatherNd, [input_x, indices])


def index_select(input, axis, index):
    t = F._tensor_type("index_select", index, "index")
    if t.ndim != 1:
        raise OpValueError(f"For 'index_select', 'index' must be 1-D, but got shape {list(t.shape)}")
    return F.gather(input, index, axis)


# ---- scatters ----------------------------------------------------------------------------------------
def tensor_scatter_update(input_x, indices, updates):
    """input_x with the rows addressed by the index tuples of `indices` replaced by `updates`."""
    return apply(P.TensorScatterUpdate, [input_x, indices, updates])


def tensor_scatter_add(input_x, indices, updates):
    it = F._tensor_type("TensorScatterAdd", indices, "indices")
    if it.dtype.np.name not in ("int32", "int64"):
        raise OpTypeError(f"For 'TensorScatterAdd', 'indices' must be an int32 or int64 Tensor, but got {it}")
    return apply(P.TensorScatterAdd, [input_x, indices, updates])


def tensor_scatter_elements(input_x, indices, updates, axis=0, reduction="none"):
    return apply(P.TensorScatterElements, [input_x, indices, updates], {"axis": axis, "reduction": reduction})


def _row_index(name: str, x, v, indices):
    """MindSpore's InplaceAdd / InplaceSub / InplaceUpdate arguments: the (len(indices), 1) index
    tensor of the rows of x, and v shaped (len(indices),) + x.shape[1:]. `indices` may also be a
    1-D int32 / int64 Tensor (InplaceUpdateV2's form; a row out of range raises when it runs)."""
    if isinstance(indices, TensorMethods):
        return _row_index_tensor(name, x, v, indices)
    rows = (indices,) if isinstance(indices, int) else indices
    if not isinstance(rows, (tuple, list)) or not all(isinstance(i, int) and not isinstance(i, bool) for i in rows) \
            or isinstance(indices, bool):
        raise OpTypeError(f"For '{name}', 'indices' must be an int or a tuple of ints, but got {indices!r}")
    xt, vt = F._tensor_type(name, x, "x"), F._tensor_type(name, v, "v")
    n = xt.shape[0] if xt.ndim else 0
    bad = [i for i in rows if not -n <= i < n]
    if bad:
        raise OpValueError(f"For '{name}', 'indices' must be in range [{-n}, {n}), but got {bad[0]}")
    want = (len(rows),) + tuple(xt.shape[1:])
    if tuple(vt.shape) != want:
        if len(rows) != 1 or tuple(vt.shape) != want[1:]:
            raise OpValueError(f"For '{name}', 'v' must have shape {list(want)}, but got {list(vt.shape)}")
        v = F.reshape(v, want)
    if vt.dtype != xt.dtype:
        raise OpTypeError(f"For '{name}', 'v' must have the dtype of 'x' ({xt.dtype}), but got {vt.dtype}")
    return _const(np.array([[i % n] for i in rows], np.int64)), v


def _row_index_tensor(name: str, x, v, indices):
    it = F._tensor_type(name, indices, "indices")
    if it.dtype not in (mstype.int32, mstype.int64) or it.ndim > 1:
        raise OpTypeError(f"For '{name}', 'indices' must be an int, a tuple of ints or a 1-D int32 / int64 Tensor, "
                          f"but got {it}")
    xt, vt = F._tensor_type(name, x, "x"), F._tensor_type(name, v, "v")
    m = 1 if it.ndim == 0 else it.shape[0]
    want = (m,) + tuple(xt.shape[1:])
    if tuple(vt.shape) != want:
        raise OpValueError(f"For '{name}', 'v' must have shape {list(want)}, but got {list(vt.shape)}")
    if vt.dtype != xt.dtype:
        raise OpTypeError(f"For '{name}', 'v' must have the dtype of 'x' ({xt.dtype}), but got {vt.dtype}")
    n = xt.shape[0] if xt.ndim else 0
    idx = F.reshape(indices, (m, 1))
    return F.select(idx < 0, idx + n, idx), v


def inplace_add(x, v, indices):
    """x with v added to its rows `indices` (a new tensor; a repeated row adds each time)."""
    idx, v = _row_index("InplaceAdd", x, v, indices)
    return tensor_scatter_add(x, idx, v)


def inplace_sub(x, v, indices):
    """x with v subtracted from its rows `indices` (a new tensor)."""
    idx, v = _row_index("InplaceSub", x, v, indices)
    return tensor_scatter_add(x, idx, F.neg(v))


def inplace_update(x, v, indices):
    """x with its rows `indices` replaced by v (a new tensor)."""
    idx, v = _row_index("InplaceUpdate", x, v, indices)
    return tensor_scatter_update(x, idx, v)


def scatter_nd(indices, updates, shape):
    """Zeros of `shape` with `updates` added at the index tuples (a repeated index accumulates)."""
    u = F._tensor_type("ScatterNd", updates, "updates")
    return tensor_scatter_add(F.zeros(F._static_shape(shape), u.dtype), indices, updates)


# ---- item assignment -----------------------------------------------------------------------------------
def _bool_mask(index) -> builtins.bool:
    t = getattr(index, "_abstract", None)
    return isinstance(t, TensorType) and t.dtype.is_bool


def setitem(x, index, value):
    """`x[index] = value` as a new tensor (x is left as it was). The value is cast to x's dtype
    and broadcast to the selection's shape."""
    t = F._tensor_type("setitem", x)
    if _bool_mask(index):
        m = type_of(index)
        if not _broadcasts_to(m.shape, t.shape):
            raise IndexError(f"For 'setitem', a boolean mask of shape {list(m.shape)} does not fit a tensor of shape "
                             f"{list(t.shape)}")
        return F.select(index, _value_as(t, value, t.shape), x)
    positions = _const(np.arange(t.size, dtype=np.int64).reshape(t.shape))
    sel = F.getitem(positions, index)
    sel_shape = type_of(sel).shape
    flat_value = F.reshape(F.broadcast_to(_value_as(t, value, sel_shape), sel_shape), (-1,))
    flat = F.reshape(x, (-1,))
    out = tensor_scatter_update(flat, F.reshape(sel, (-1, 1)), flat_value)
    return F.reshape(out, t.shape)


def _value_as(t: TensorType, value, shape):
    """The assigned value as a tensor of x's dtype."""
    if _is_tensor(value) or isinstance(value, Symbolic):
        v = F.cast(value, t.dtype)
        vt = type_of(v)
        if isinstance(vt, TensorType) and not _broadcasts_to(vt.shape, shape):
            raise ValueError(f"For 'setitem', cannot assign a value of shape {list(vt.shape)} to a selection of shape "
                             f"{list(shape)}")
        return v
    if isinstance(value, (tuple, list)):
        value = np.array(value)
    if isinstance(value, (builtins.bool, int, float, np.number, np.ndarray)):
        arr = np.asarray(value)
        with np.errstate(all="ignore"):
            return _const(arr.astype(t.dtype.np))
    raise OpTypeError(f"For 'setitem', the value must be a number, a sequence of numbers or a Tensor, but got "
                      f"{type(value).__name__}")


# ---- Parameters -----------------------------------------------------------------------------------------
def _same_rank(name: str, variable, value) -> TensorType:
    """AssignAdd / AssignSub take a value of the Parameter's rank (a Python number is rank 0)."""
    t = F._tensor_type(name, variable, "variable")
    rank = type_of(value).ndim if _is_tensor(value) else 0
    if rank != t.ndim:
        raise OpValueError(f"For '{name}','value' must have the same rank as 'variable'. But got 'value' rank: "
                           f"{rank}, 'variable' rank: {t.ndim}.")
    return t


def assign_add(variable, value):
    """variable += value, in place (a Parameter); returns the Parameter."""
    t = _same_rank("AssignAdd", variable, value)
    return F.assign(variable, F.cast(F.add(variable, value), t.dtype))


def assign_sub(variable, value):
    t = _same_rank("AssignSub", variable, value)
    return F.assign(variable, F.cast(F.sub(variable, value), t.dtype))


__all__ = [n for n, v in list(globals().items())
           if not n.startswith("_") and callable(v) and getattr(v, "__module__", None) == __name__]
