"""Indexed reads and writes: GatherD (gather_elements), GatherNd, and the functional scatters
TensorScatterUpdate / Add / Sub / Mul / Div / Max / Min (rows addressed by index tuples) and
TensorScatterElements (elements addressed along one axis). Scatters return a new tensor: the
input copied, then the updates written or added (in index order, so a repeated index keeps
the last update, or accumulates). `ops.scatter_nd` is TensorScatterAdd into zeros and item
assignment in graph code (`y[i] = v`) is TensorScatterUpdate / Select (ops/function_index.py).

Index rules are MindSpore 2.10's (CPU): GatherD and TensorScatterElements count negative
indices from the end; GatherNd and the Nd scatters refuse them. An index out of range raises
MindSpore's exception class (RuntimeError; ValueError for TensorScatterUpdate) - at run time in
compiled code, so these ops are not speculatable (never hoisted where the program might not run
them) - except in TensorScatterElements, which skips such updates as MindSpore does.
Their C loops are in pycompile/backend/c/ops/index.py.
"""
from __future__ import annotations

import numpy as np

from pycompile.common.abstract import TensorType
from pycompile.ops._table import (OpDef, Kind, OpTypeError, OpValueError, defop, describe, fmt_shape, norm_axis,
                                  tensor_arg)
from pycompile.ops.defs.elementwise import call
from pycompile.ops.lowering import Template


def _index_arg(op_name: str, t, what: str = "indices") -> TensorType:
    t = tensor_arg(op_name, t, what)
    if t.dtype.kind not in "iu" or t.dtype.is_bool:
        raise OpTypeError(f"For '{op_name}', '{what}' must be an int32 or int64 Tensor, but got {describe(t)}")
    return t


# the exception class MindSpore raises for an index out of range, by op
RANGE_ERROR = {"TensorScatterUpdate": ValueError}


def combine_range_message(op_name: str, position: int, values, dims) -> str:
    """MindSpore 2.10's wording for an arithmetic scatter's index out of range (the Nd rows refuse
    negatives too): `position` is the flat position of the offending index tuple's first value in
    'indices', `values` that tuple, `dims` the dimensions it indexes (tests/oracle/data/
    scatter_combine.json). The compiled form builds it from the values the C left in its error
    slots (backend/executable.py)."""
    return (f"For '{op_name}', the {position}-th value of 'indices'[{', '.join(str(int(v)) for v in values)}] "
            f"is out of range[{', '.join(str(int(d)) for d in dims)}].")


def _check_combine_rows(op_name: str, shape, idx: np.ndarray) -> None:
    m = idx.shape[-1]
    rows = idx.reshape(-1, m).astype(np.int64)
    bad = np.any((rows < 0) | (rows >= np.array(shape[:m], np.int64)), axis=1)
    if np.any(bad):
        o = int(np.argmax(bad))
        raise RuntimeError(combine_range_message(op_name, o * m, rows[o], shape[:m]))


def _check_range(op_name: str, idx: np.ndarray, n: int, what: str = "index", negative: bool = True) -> np.ndarray:
    """Indices in [-n, n) (negative: counted from the end) or [0, n), as indices into [0, n);
    else MindSpore's error."""
    lo = -n if negative else 0
    bad = (idx < lo) | (idx >= n)
    if np.any(bad):
        v = int(idx[bad].ravel()[0])
        raise RANGE_ERROR.get(op_name, RuntimeError)(
            f"For '{op_name}', the value of '{what}' must be in [{lo}, {n}), but got: {v}")
    return np.where(idx < 0, idx + n, idx)


# ---- GatherD: out[i][j][k] = x[i][index[i][j][k]][k] (axis 1) -----------------------------------------
def _gather_d_infer(types, axis=0):
    x = tensor_arg("GatherD", types[0])
    idx = _index_arg("GatherD", types[1], "index")
    if idx.ndim != x.ndim:
        raise OpValueError(f"For 'GatherD', 'index' must have the rank of 'x' ({x.ndim}), but got shape "
                           f"{fmt_shape(idx.shape)}")
    ax = norm_axis("GatherD", axis, max(x.ndim, 1))
    for d in range(x.ndim):
        if d != ax and idx.shape[d] > x.shape[d]:
            raise OpValueError(f"For 'GatherD', index.shape[{d}] must not exceed x.shape[{d}], but got "
                               f"{fmt_shape(idx.shape)} and {fmt_shape(x.shape)}")
    return TensorType(x.dtype, idx.shape)


def _leading(x, shape, axis):
    """x cut to `shape` on every dimension but `axis` (an index may cover only part of them)."""
    return x[tuple(slice(None) if d == axis else slice(0, n) for d, n in enumerate(shape))]


def _gather_d(x, idx, axis=0):
    if x.ndim == 0:
        return x.copy()
    ax = axis % x.ndim
    idx = _check_range("GatherD", np.asarray(idx), x.shape[ax])
    return np.take_along_axis(_leading(x, idx.shape, ax), idx.astype(np.int64), ax)


GatherD = defop("GatherD", ("x", "index"), attrs={"axis": 0}, infer=_gather_d_infer, eager=_gather_d,
                kind=Kind.LAYOUT, batch="gather_d", lower=Template("gather_d", moves_data=True), speculatable=False)


# ---- GatherNd: out[i] = x[indices[i][0], ..., indices[i][m-1]] ------------------------------------------
def _nd_rows(op_name: str, x: TensorType, idx: TensorType):
    if idx.ndim < 1 or idx.shape[-1] > x.ndim:
        raise OpValueError(f"For '{op_name}', the last dimension of 'indices' must be at most the rank of the input "
                           f"({x.ndim}), but got indices of shape {fmt_shape(idx.shape)}")
    return idx.shape[-1]


def _gather_nd_infer(types):
    x = tensor_arg("GatherNd", types[0], "input_x")
    idx = _index_arg("GatherNd", types[1])
    m = _nd_rows("GatherNd", x, idx)
    return TensorType(x.dtype, idx.shape[:-1] + x.shape[m:])


def _flat_rows(op_name: str, shape, idx: np.ndarray) -> np.ndarray:
    """Index tuples (..., m) as flat row numbers of a tensor of `shape` viewed as (rows, inner)."""
    m = idx.shape[-1]
    idx = idx.reshape(-1, m).astype(np.int64)
    cols = [_check_range(op_name, idx[:, j], shape[j], "indices", negative=False) for j in range(m)]
    flat = np.zeros(idx.shape[0], np.int64)
    for j in range(m):
        flat = flat * shape[j] + cols[j]
    return flat


def _gather_nd(x, idx):
    m = idx.shape[-1]
    rows = _flat_rows("GatherNd", x.shape, idx)
    inner = x.reshape((int(np.prod(x.shape[:m], dtype=np.int64)),) + x.shape[m:])
    return inner[rows].reshape(idx.shape[:-1] + x.shape[m:])


GatherNd = defop("GatherNd", ("input_x", "indices"), infer=_gather_nd_infer, eager=_gather_nd,
                 kind=Kind.LAYOUT, batch="gather_nd", lower=Template("gather_nd", moves_data=True), speculatable=False)


# ---- TensorScatterUpdate / Add / Sub / Mul / Div / Max / Min -------------------------------------------
# TensorScatterUpdate only moves data (a core row, like GatherNd). The arithmetic scatters are one
# core row, TensorScatterCombine, whose `combine` attribute names how an addressed row meets its
# update (add / sub / mul / div / max / min, in index order: a repeated index combines again) and
# whose `op_name` is the row the user called (its checks and its out-of-range error name it, with
# MindSpore's wording); TensorScatterAdd / Sub / Mul / Div / Max / Min are decompositions into it
# (docs/architecture.md, "The core").
# the rule each op combines an addressed row with its update by (TensorScatterUpdate: none)
SCATTER_RULES = {"TensorScatterUpdate": "", "TensorScatterAdd": "add", "TensorScatterSub": "sub",
                 "TensorScatterMul": "mul", "TensorScatterDiv": "div", "TensorScatterMax": "max",
                 "TensorScatterMin": "min"}
# the dtypes MindSpore 2.10's CPU kernels refuse, by rule (Update and Add keep pycompile's older
# checks; TensorScatterDiv's refusal of int8 / uint8 is its functional form's: ScatterNdDiv takes them)
_REFUSED = {"sub": ("bool",), "mul": ("bool",), "div": ("bool",), "max": ("bool",), "min": ("bool",)}


def _scatter_checks(name: str, rule: str, types) -> TensorType:
    x = tensor_arg(name, types[0], "input_x")
    idx = _index_arg(name, types[1])
    upd = tensor_arg(name, types[2], "updates")
    if rule not in ("", "add") and idx.dtype.np.name not in ("int32", "int64"):
        raise OpTypeError(f"For '{name}', 'indices' must be an int32 or int64 Tensor, but got {describe(idx)}")
    m = _nd_rows(name, x, idx)
    want = idx.shape[:-1] + x.shape[m:]
    if upd.shape != want:
        raise OpValueError(f"For '{name}', 'updates' must have shape indices.shape[:-1] + input_x.shape"
                           f"[indices.shape[-1]:] = {fmt_shape(want)}, but got {fmt_shape(upd.shape)}")
    if upd.dtype is not x.dtype:
        raise OpTypeError(f"For '{name}', 'updates' must have the dtype of 'input_x' ({x.dtype}), but got "
                          f"{describe(upd)}")
    if (rule == "add" and x.dtype.is_bool) or x.dtype.np.name in _REFUSED.get(rule, ()):
        raise OpTypeError(f"For '{name}', {x.dtype} tensors are not supported, but got {describe(x)}")
    return x


def _scatter_nd_infer(name: str):
    rule = SCATTER_RULES[name]
    return lambda types: _scatter_checks(name, rule, types)


def _combine_infer(types, combine="add", op_name="TensorScatterAdd"):
    if combine not in COMBINE or not combine:
        raise OpValueError(f"For 'TensorScatterCombine', 'combine' must be one of add, sub, mul, div, max, min, "
                           f"but got {combine!r}")
    return _scatter_checks(op_name, combine, types)


def int_divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """MindSpore's CPU integer division in the scatters: truncated; by zero, the dtype's largest
    value for a positive dividend, its smallest for a negative one, 0 for 0."""
    a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))
    info = np.iinfo(a.dtype)
    safe = np.where(b == 0, 1, b)
    with np.errstate(over="ignore", divide="ignore"):
        q = a // safe                                         # floored: moved toward zero below
        q = q + ((a - q * safe != 0) & ((a < 0) != (safe < 0))).astype(a.dtype)
    big = np.where(a > 0, info.max, np.where(a < 0, info.min, 0))
    return np.where(b == 0, big, q).astype(a.dtype)


def _max_rule(a, b):
    return np.where(a < b, b, a)          # std::max: a NaN update leaves the row as it was


def _min_rule(a, b):
    return np.where(b < a, b, a)


def _div_rule(a, b):
    if a.dtype.kind in "iu":
        return int_divide(a, b)
    with np.errstate(divide="ignore", invalid="ignore"):
        return a / b


COMBINE = {"": lambda a, b: b, "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": _div_rule,
           "max": _max_rule, "min": _min_rule}


def scatter_nd_values(x, idx, upd, rule: str, name: str):
    """x with each row idx[i] combined with upd[i] by `rule`, in index order (the error names `name`)."""
    m = idx.shape[-1]
    if rule:                                  # the arithmetic scatters: MindSpore's wording
        _check_combine_rows(name, x.shape, idx)
    rows = _flat_rows(name, x.shape, idx)
    n_rows = int(np.prod(x.shape[:m], dtype=np.int64))
    out = x.reshape((n_rows,) + x.shape[m:]).copy()
    vals = upd.reshape((rows.size,) + x.shape[m:])
    if rule == "add":
        np.add.at(out, rows, vals)
    else:
        combine = COMBINE[rule]
        with np.errstate(over="ignore"):
            for r, v in zip(rows, vals):      # in index order: a repeated index combines again
                out[r] = combine(out[r], v)
    return out.reshape(x.shape)


def _scatter_nd(name: str):
    rule = SCATTER_RULES[name]
    return lambda x, idx, upd: scatter_nd_values(x, idx, upd, rule, name)


TensorScatterUpdate = defop("TensorScatterUpdate", ("input_x", "indices", "updates"),
                            infer=_scatter_nd_infer("TensorScatterUpdate"), eager=_scatter_nd("TensorScatterUpdate"),
                            kind=Kind.LAYOUT, batch="scatter_nd", lower=Template("scatter_nd", moves_data=True),
                            speculatable=False)
TensorScatterCombine = defop(
    "TensorScatterCombine", ("input_x", "indices", "updates"), attrs={"combine": "add", "op_name": "TensorScatterAdd"},
    infer=_combine_infer, eager=lambda x, idx, upd, combine="add", op_name="TensorScatterAdd": scatter_nd_values(
        x, idx, upd, combine, op_name),
    kind=Kind.LAYOUT, batch="scatter_nd", lower=Template("scatter_nd"), speculatable=False,
    doc="input_x with the rows at indices combined with updates (combine: add / sub / mul / div / max / min)")


def _scatter_nd_op(name: str) -> OpDef:
    """A combining scatter: TensorScatterCombine with its rule and the user's op name."""
    rule = SCATTER_RULES[name]
    return defop(name, ("input_x", "indices", "updates"), infer=_scatter_nd_infer(name), eager=_scatter_nd(name),
                 kind=Kind.LAYOUT, batch="scatter_nd", lower=Template("scatter_nd", rule=rule), speculatable=False,
                 decompose=lambda x, i, u: call(TensorScatterCombine, x, i, u, combine=rule, op_name=name))


TensorScatterAdd = _scatter_nd_op("TensorScatterAdd")
TensorScatterSub = _scatter_nd_op("TensorScatterSub")
TensorScatterMul = _scatter_nd_op("TensorScatterMul")
TensorScatterDiv = _scatter_nd_op("TensorScatterDiv")
TensorScatterMax = _scatter_nd_op("TensorScatterMax")
TensorScatterMin = _scatter_nd_op("TensorScatterMin")


# ---- TensorScatterElements: out[i][index[i][j]] = updates[i][j] (axis 1) ----------------------------------
def _scatter_elements_infer(types, axis=0, reduction="none"):
    name = "TensorScatterElements"
    x = tensor_arg(name, types[0], "input_x")
    idx = _index_arg(name, types[1])
    upd = tensor_arg(name, types[2], "updates")
    if reduction not in ("none", "add"):
        raise OpValueError(f"For '{name}', 'reduction' must be 'none' or 'add', but got {reduction!r}")
    if idx.ndim != x.ndim or upd.shape != idx.shape:
        raise OpValueError(f"For '{name}', 'indices' and 'updates' must have the same shape and the rank of "
                           f"'input_x', but got {fmt_shape(x.shape)}, {fmt_shape(idx.shape)} and {fmt_shape(upd.shape)}")
    if upd.dtype is not x.dtype:
        raise OpTypeError(f"For '{name}', 'updates' must have the dtype of 'input_x' ({x.dtype}), but got {describe(upd)}")
    if reduction == "add" and x.dtype.is_bool:
        raise OpTypeError(f"For '{name}', reduction 'add' does not support bool tensors, but got {describe(x)}")
    ax = norm_axis(name, axis, max(x.ndim, 1))
    for d in range(x.ndim):
        if d != ax and idx.shape[d] > x.shape[d]:
            raise OpValueError(f"For '{name}', indices.shape[{d}] must not exceed input_x.shape[{d}], but got "
                               f"{fmt_shape(idx.shape)} and {fmt_shape(x.shape)}")
    return x


def _scatter_elements(x, idx, upd, axis=0, reduction="none"):
    out = x.copy()
    if x.ndim == 0:
        return upd.copy() if reduction == "none" else out + upd
    ax = axis % x.ndim
    n = x.shape[ax]
    idx = np.asarray(idx).astype(np.int64)
    keep = ((idx >= -n) & (idx < n)).ravel()          # MindSpore skips updates out of range
    pos = list(np.indices(idx.shape, sparse=False))
    pos[ax] = np.where(idx < 0, idx + n, idx).clip(0, max(n - 1, 0))
    flat = np.ravel_multi_index(tuple(p.ravel() for p in pos), x.shape)[keep]
    vals = upd.ravel()[keep]
    if reduction == "add":
        np.add.at(out.reshape(-1), flat, vals)
    else:
        o = out.reshape(-1)
        for f, v in zip(flat, vals):
            o[f] = v
    return out


_ARRAY_ROWS: list = []     # Concat, Fill, Reshape, StridedSlice: handed over by ops/defs/array.py (which imports this module)


def use_array_rows(*rows) -> None:
    _ARRAY_ROWS[:] = rows


def _scatter_elements_parts(x, idx, upd, axis=0, reduction="none"):
    """(A fast path's meaning: as parts it ran 2x slower, 0.34 -> 0.74 ms at (512, 1024), copying the
    input into the padded buffer and back.) A scatter into x flattened with one spare element: each update's flat position is its own
    position with the axis coordinate replaced by its index (wrapped once if negative), or the
    spare element when out of range (MindSpore skips those updates); TensorScatterUpdate ('none':
    in index order, the last of repeated positions wins) or TensorScatterAdd ('add'), then the
    spare element dropped."""
    from pycompile.common.abstract import type_of
    from pycompile.common.tensor import Tensor
    from pycompile.ops.defs.elementwise import Add, Less, LessEqual, LogicalAnd, Mul, Select, call, cast
    from pycompile.common import dtype as mstype
    Concat, Fill, Reshape, StridedSlice = _ARRAY_ROWS
    xt, it = type_of(x), type_of(idx)
    if it.size == 0:
        return x
    if xt.ndim == 0:
        return upd if reduction == "none" else call(Add, x, upd)
    ax = axis % xt.ndim
    n, total, m = xt.shape[ax], xt.size, it.size
    strides = [int(np.prod(xt.shape[d + 1:])) for d in range(xt.ndim)]
    grid = np.indices(it.shape)
    base = sum(grid[d] * strides[d] for d in range(xt.ndim) if d != ax).astype(np.int64)
    k = cast(idx, mstype.int64)
    k = call(Select, call(Less, k, 0), call(Add, k, n), k)
    inside = call(LogicalAnd, call(LessEqual, 0, k), call(Less, k, n))
    flat = call(Select, inside, call(Add, call(Mul, k, strides[ax]), Tensor(base)), total)
    ext = call(Concat, (call(Reshape, x, shape=(total,)), call(Fill, shape=(1,), value=0, dtype=xt.dtype)), axis=0)
    rule = TensorScatterAdd if reduction == "add" else TensorScatterUpdate
    out = call(rule, ext, call(Reshape, flat, shape=(m, 1)), call(Reshape, upd, shape=(m,)))
    return call(Reshape, call(StridedSlice, out, begin=(0,), end=(total,), strides=(1,)), shape=xt.shape)


TensorScatterElements = defop("TensorScatterElements", ("input_x", "indices", "updates"),
                              attrs={"axis": 0, "reduction": "none"}, infer=_scatter_elements_infer,
                              eager=_scatter_elements, kind=Kind.LAYOUT, batch="gather_d",
                              lower=Template("scatter_elements"), speculatable=False,
                              decompose=_scatter_elements_parts, fast_path=True)


# the ops this module declares (what `pycompile.ops.prims` re-exports)
__all__ = [_n for _n, _v in list(globals().items()) if isinstance(_v, OpDef)]
