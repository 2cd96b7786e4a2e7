"""vmap's batch rules for indexed reads and writes and the other ops that map over their leading
axes: Gather with batched indices, GatherD, GatherNd, the Nd scatters, TensorScatterElements, the
gradients of Gather and StridedSlice, AddN, the linear-algebra ops (Svd, MatrixSolve) and
LayerNorm with batched parameters. Each is one op on the whole batch (no per-example copies).

Index tuples that are batched get the example's number as an extra leading coordinate (a column
of the batch index), so one GatherNd / scatter addresses every example's own rows; an index that
is out of range still raises (the batch column is always in range, and one example's index
cannot reach another example's rows).
"""
from __future__ import annotations

import math

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import type_of
from pycompile.common.tensor import Tensor
from pycompile.ops import functional as F
from pycompile.ops._table import OPS, apply, norm_axis
from pycompile.ops.batch_util import example_rank, front, loop, move_axis, ndim, shape_of, to_front


def _with_batch_column(idx):
    """Index tuples (B, ..., m), batch first, as (B, ..., m + 1) with the example's number first."""
    s = shape_of(idx)
    col = np.arange(s[0], dtype=type_of(idx).dtype.np).reshape((s[0],) + (1,) * (len(s) - 1))
    col = F.broadcast_to(Tensor(col), s[:-1] + (1,))
    return F.concat((col, idx), -1)


def _gather_range_checked(idx, n):
    """idx unchanged, or Gather's RuntimeError when the program runs if an index is outside [-n, n):
    the GatherD that reads the batch would otherwise report its own op's name and rule."""
    bad = F.logical_or(idx < -n, idx >= n)
    flag = F.select(bad, F.fill(mstype.float32, shape_of(idx), float("inf")),
                    F.fill(mstype.float32, shape_of(idx), 0.0))
    flag = apply(OPS["CheckFinite"], [flag], {
        "message": f"For 'Gather', the 'input_indices' should be in the range [0, {n}), but got an index "
                   f"outside [-{n}, {n})"})
    return idx + F.cast(flag, type_of(idx).dtype)


def gather(op, args, attrs, size):
    (x, bx), (idx, bi) = args
    if bi is None:
        x = to_front(x, bx)
        axis = norm_axis(op.name, attrs.get("axis", 0), ndim(x) - 1) + 1
        return apply(op, [x, idx], dict(attrs, axis=axis)), 0
    if bx is None:              # batched indices into one table: the batch lands where the indices go
        axis = norm_axis(op.name, attrs.get("axis", 0), ndim(x))
        return apply(op, [x, idx], attrs), axis + bi
    # both batched: every example reads its own table, as GatherD along the indexed axis of
    # x viewed as (B, before, axis, after), with the indices repeated across before / after
    x, idx = to_front(x, bx), to_front(idx, bi)
    xs, ishape = shape_of(x), shape_of(idx)[1:]
    ax = norm_axis(op.name, attrs.get("axis", 0), len(xs) - 1) + 1
    p, q, n = math.prod(xs[1:ax]), math.prod(xs[ax + 1:]), math.prod(ishape)
    idx = _gather_range_checked(idx, xs[ax])
    idx = F.broadcast_to(F.reshape(idx, (size, 1, n, 1)), (size, p, n, q))
    out = apply(OPS["GatherD"], [F.reshape(x, (size, p, xs[ax], q)), idx], {"axis": 2})
    return F.reshape(out, (size,) + xs[1:ax] + ishape + xs[ax + 1:]), 0


def gather_grad(op, args, attrs, size):
    """GatherGrad(dy, indices): dy's slices added into zeros of `shape` at the indices."""
    (dy, bd), (idx, bi) = args
    shape = tuple(attrs["shape"])
    ax = norm_axis(op.name, attrs.get("axis", 0), len(shape))
    dy = front((dy, bd), size)
    if bi is None:
        return apply(op, [dy, idx], dict(attrs, shape=(size,) + shape, axis=ax + 1)), 0
    # each example's indices shifted into its own block of a (before, B * axis, after) result
    idx = to_front(idx, bi)
    ishape = shape_of(idx)[1:]
    n, a = math.prod(ishape), shape[ax]
    p, q = math.prod(shape[:ax]), math.prod(shape[ax + 1:])
    idx = F.reshape(idx, (size, n))
    idx = F.select(idx < 0, idx + a, idx) + Tensor((np.arange(size) * a).astype(type_of(idx).dtype.np)[:, None])
    dy = move_axis(F.reshape(dy, (size, p, n, q)), 0, 1)
    out = apply(op, [F.reshape(dy, (p, size * n, q)), F.reshape(idx, (size * n,))],
                dict(attrs, shape=(p, size * a, q), axis=1))
    out = move_axis(F.reshape(out, (p, size, a, q)), 1, 0)
    return F.reshape(out, (size,) + shape), 0


def slice_grad(op, args, attrs, size):
    (dy, b), = args
    return apply(op, [to_front(dy, b)], dict(attrs, shape=(size,) + tuple(attrs["shape"]),
                                             begin=(0,) + tuple(attrs["begin"]), end=(size,) + tuple(attrs["end"]),
                                             strides=(1,) + tuple(attrs["strides"]))), 0


def gather_d(op, args, attrs, size):
    """GatherD / TensorScatterElements: every operand batch first, the axis shifted."""
    if example_rank(args) == 0:
        return loop(op, args, attrs, size)
    vals = [front(a, size) for a in args]
    axis = norm_axis(op.name, attrs.get("axis", 0), ndim(vals[0]) - 1) + 1
    return apply(op, vals, dict(attrs, axis=axis)), 0


def gather_nd(op, args, attrs, size):
    (x, bx), (idx, bi) = args
    if bx is None:              # the index tuples' leading axes are the result's
        return apply(op, [x, to_front(idx, bi)], attrs), 0
    if bi is None:              # the vmap axis of x right after the indexed axes
        m = shape_of(idx)[-1]
        return apply(op, [move_axis(to_front(x, bx), 0, m), idx], attrs), ndim(idx) - 1
    return apply(op, [to_front(x, bx), _with_batch_column(to_front(idx, bi))], attrs), 0


def scatter_nd(op, args, attrs, size):
    (x, bx), (idx, bi), (upd, bu) = args
    if bi is None:              # x's vmap axis right after the indexed axes, the updates' to match
        m, lead = shape_of(idx)[-1], ndim(idx) - 1
        x = move_axis(front((x, bx), size), 0, m)
        upd = move_axis(front((upd, bu), size), 0, lead)
        return apply(op, [x, idx, upd], attrs), m
    idx = _with_batch_column(to_front(idx, bi))
    return apply(op, [front((x, bx), size), idx, front((upd, bu), size)], attrs), 0


def leading(op, args, attrs, size):
    """Ops that already map over every axis before the ones they work on (Svd, MatrixSolve,
    AddN): all operands batch first."""
    if op.variadic:
        (items,) = args
        return apply(op, [tuple(front(a, size) for a in items)], attrs), 0
    return apply(op, [front(a, size) for a in args], attrs), 0


def layernorm(op, args, attrs, size):
    """LayerNorm: the vmap axis first, the normalized axes shifted; batched gamma / beta are
    applied after a LayerNorm with unit parameters."""
    (x, bx), (g, bg), (be, bb) = args
    x = front((x, bx), size)
    rank = ndim(x) - 1
    pax = norm_axis(op.name, attrs.get("begin_params_axis", -1), rank)
    new = dict(attrs, begin_norm_axis=norm_axis(op.name, attrs.get("begin_norm_axis", -1), rank) + 1,
               begin_params_axis=pax + 1)
    if bg is None and bb is None:
        return apply(op, [x, g, be], new), 0
    t = type_of(x)
    params = t.shape[pax + 1:]
    one, zero = (Tensor(np.full(params, v, t.dtype.np)) for v in (1, 0))
    y = apply(op, [x, one, zero], new)
    view = (size,) + (1,) * pax + params

    def param(v, b):
        return v if b is None else F.reshape(to_front(v, b), view)
    return y * param(g, bg) + param(be, bb), 0


RULES = {"gather": gather, "gather_grad": gather_grad, "slice_grad": slice_grad, "gather_d": gather_d,
         "gather_nd": gather_nd, "scatter_nd": scatter_nd, "leading": leading, "layernorm": layernorm}
