"""Scans and orderings along one axis: CumSum / CumProd, Argsort and TopKIndices.

Sorting ops give indices only (Int32, as MindSpore's sort / argsort / topk do); `ops.sort`,
`ops.topk` and `Tensor.topk` take their values with GatherD, so a tensor is ordered once and
the values cost one gather. The order is stable (equal values keep their index order, as
MindSpore's sort keeps them) and NaN sorts as the largest value. MindSpore's TopK breaks ties
in heap order; pycompile's lower index first.

CumSum / CumProd keep the input dtype (`ops.cumprod` casts Int32 to Int64 first, as MindSpore
does); float16 rounds to float16 after every step, as MindSpore's CPU kernels (and NumPy's
accumulate) do, in the C loop too. `exclusive` shifts the scan by one
(the first element is 0, or 1), `reverse` scans from the end.
"""
from __future__ import annotations

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import TensorType
from pycompile.ops._table import OpDef, Kind, OpTypeError, OpValueError, defop, describe, norm_axis, tensor_arg
from pycompile.ops.lowering import Template


# ---- cumulative sums and products -------------------------------------------------------------------
def _scan_infer(name: str):
    def infer(types, axis=0, exclusive=False, reverse=False):
        x = tensor_arg(name, types[0])
        if x.dtype.is_bool:
            raise OpTypeError(f"For '{name}', bool tensors are not supported, but got {describe(x)}")
        norm_axis(name, axis, max(x.ndim, 1))
        return x
    return infer


def _scan(ufunc, identity):
    def eager(x, axis=0, exclusive=False, reverse=False):
        if x.ndim == 0 or x.size == 0:
            return x.copy() if not exclusive else np.full_like(x, identity)
        ax = axis % x.ndim
        v = np.flip(x, ax) if reverse else x
        out = ufunc.accumulate(v, axis=ax, dtype=x.dtype)
        if exclusive:
            out = np.concatenate([np.full_like(np.take(out, [0], ax), identity), np.delete(out, -1, ax)], ax)
        out = out.astype(x.dtype)
        return np.flip(out, ax) if reverse else out
    return eager


_SCAN_ATTRS = {"axis": 0, "exclusive": False, "reverse": False}
CumSum = defop("CumSum", ("x",), attrs=dict(_SCAN_ATTRS), infer=_scan_infer("CumSum"), eager=_scan(np.add, 0),
               kind=Kind.REDUCE, lower=Template("scan", rule="sum"), batch="argmax")
CumProd = defop("CumProd", ("x",), attrs=dict(_SCAN_ATTRS), infer=_scan_infer("CumProd"),
                eager=_scan(np.multiply, 1), kind=Kind.REDUCE, lower=Template("scan", rule="prod"), batch="argmax")


# ---- running minimum / maximum with the index where it was reached ---------------------------------------
def _cum_min_max_infer(types, axis=0, rule="max", part="values"):
    name = "Cummax" if rule == "max" else "Cummin"
    x = tensor_arg(name, types[0])
    if x.dtype.is_bool:
        raise OpTypeError(f"For '{name}', bool tensors are not supported, but got {describe(x)}")
    norm_axis(name, axis, max(x.ndim, 1))
    if part == "values":
        return x
    return TensorType(mstype.int64 if rule == "max" else mstype.int32, x.shape)


def _cum_min_max(x, axis=0, rule="max", part="values"):
    """MindSpore's CPU rule: the index moves to a new element equal to the running value (the last
    of ties), and to every NaN; once the value is NaN it stays NaN."""
    ax = axis % max(x.ndim, 1)
    v = np.moveaxis(np.array(x, copy=True).reshape(x.shape or (1,)), ax, 0)
    idx = np.zeros(v.shape, np.int64)
    if v.shape[0]:
        acc, at = v[0].copy(), np.zeros(v.shape[1:], np.int64)
        for i in range(v.shape[0]):
            cur = v[i]
            with np.errstate(invalid="ignore"):
                better = (cur >= acc) if rule == "max" else (cur <= acc)
            take = np.isnan(cur) | (~np.isnan(acc) & better) if v.dtype.kind == "f" else better
            acc, at = np.where(take, cur, acc), np.where(take, i, at)
            v[i], idx[i] = acc, at
    out = v if part == "values" else idx.astype(np.int64 if rule == "max" else np.int32)
    return np.moveaxis(out, 0, ax).reshape(x.shape)


CumMinMax = defop("CumMinMax", ("x",), attrs={"axis": 0, "rule": "max", "part": "values"}, infer=_cum_min_max_infer,
                  eager=_cum_min_max, kind=Kind.LAYOUT, batch="argmax", lower=Template("cum_min_max"),
                  doc="ops.cummax / cummin: the running value (part 'values') or its index ('indices')")


# ---- sorting -----------------------------------------------------------------------------------------
def _sortable(name: str, t) -> TensorType:
    x = tensor_arg(name, t)
    if x.dtype.is_bool:
        raise OpTypeError(f"For '{name}', bool tensors are not supported, but got {describe(x)}")
    return x


def _argsort_infer(types, axis=-1, descending=False):
    x = _sortable("Sort", types[0])
    norm_axis("Sort", axis, max(x.ndim, 1))
    return TensorType(mstype.int32, x.shape)


def stable_order(x: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """Indices ordering x along `axis`, stable, NaN as the largest value. Descending: order the
    reversed array ascending (ties then come in reversed index order), reverse that and map
    the positions back, so ties keep ascending index order there too."""
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    n = x.shape[axis]
    return np.flip(n - 1 - np.argsort(np.flip(x, axis), axis=axis, kind="stable"), axis)


def _argsort(x, axis=-1, descending=False):
    if x.ndim == 0:
        return np.zeros((), np.int32)
    return stable_order(x, axis % x.ndim, descending).astype(np.int32)


Argsort = defop("Argsort", ("x",), attrs={"axis": -1, "descending": False}, infer=_argsort_infer, eager=_argsort,
                kind=Kind.LAYOUT, lower=Template("sort"), batch="argmax")


def _topk_infer(types, k=1, axis=-1, largest=True):
    x = _sortable("TopK", types[0])
    ax = norm_axis("TopK", axis, max(x.ndim, 1))
    n = x.shape[ax] if x.ndim else 1
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or not 0 < k <= n:
        raise OpValueError(f"For primitive[TopK], the k must be in (0,{n}], but got {k}.")
    shape = list(x.shape)
    if shape:
        shape[ax] = int(k)
    return TensorType(mstype.int32, tuple(shape))


def _topk(x, k=1, axis=-1, largest=True):
    if x.ndim == 0:
        return np.zeros((), np.int32)
    ax = axis % x.ndim
    order = stable_order(x, ax, descending=largest)
    return np.take(order, np.arange(k), axis=ax).astype(np.int32)


def _topk_parts(x, k=1, axis=-1, largest=True):
    """The first k of the stable order (Argsort, descending for the largest): the template's
    partial sort gives the same indices, ties lower index first (a fast path: `fast_path`)."""
    from pycompile.common.abstract import type_of
    from pycompile.ops.defs.array import StridedSlice
    from pycompile.ops.defs.elementwise import call
    t = type_of(x)
    order = call(Argsort, x, axis=axis, descending=largest)
    if t.ndim == 0:
        return order
    ax = axis % t.ndim
    end = tuple(int(k) if d == ax else n for d, n in enumerate(t.shape))
    return call(StridedSlice, order, begin=(0,) * t.ndim, end=end, strides=(1,) * t.ndim)


TopKIndices = defop("TopKIndices", ("x",), attrs={"k": 1, "axis": -1, "largest": True}, infer=_topk_infer,
                    eager=_topk, kind=Kind.LAYOUT, lower=Template("sort", rule="topk"), batch="argmax",
                    decompose=_topk_parts, fast_path=True)


# the ops this module declares (what `pycompile.ops.prims` re-exports)
__all__ = [_n for _n, _v in list(globals().items()) if isinstance(_v, OpDef)]
