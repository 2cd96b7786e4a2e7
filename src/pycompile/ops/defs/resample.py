"""Resampling along one axis with a static table: the one primitive behind padding (constant,
reflect, symmetric, edge; negative pads crop), nearest / linear / bilinear resizing and
interpolation.

`AxisResample(x)` with attributes `axis`, `index` and `weight` (T tuples of equal length L: T
taps per output position) computes, along `axis`,

    out[..., i, ...] = sum_t weight[t][i] * x[..., index[t][i], ...]

so a pad is one tap (weight 0 where the constant goes; the functional layer adds the constant),
nearest resizing one tap, linear resizing two. A 2-D resize is two of them, one per axis.
`AxisResampleGrad(g)` is its transpose (scatter-add of weighted cotangents back to `size`
input positions); the two are each other's gradient, so derivatives of every order stay here.
The tables are tuples (hashable attributes: equal resamplings are merged by CSE); the C
template (backend/c/ops/resample.py) keeps them as static arrays and runs the inner axes as vectors.
"""
from __future__ import annotations

import math

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import TensorType, type_of
from pycompile.common.tensor import Tensor
from pycompile.ops._table import OpDef, Kind, OpTypeError, OpValueError, defop, describe, norm_axis, tensor_arg
from pycompile.ops.lowering import Template


def _check_tables(name, index, weight):
    if not index or len(index) != len(weight) or len({len(t) for t in index + weight}) != 1:
        raise OpValueError(f"For '{name}', 'index' and 'weight' must be equal numbers of equally long tuples")


def _resample_infer(types, axis=0, index=(), weight=()):
    x = tensor_arg("AxisResample", types[0])
    if not x.dtype.is_float:
        raise OpTypeError(f"For 'AxisResample', the input must be a float tensor, but got {describe(x)}")
    ax = norm_axis("AxisResample", axis, x.ndim)
    _check_tables("AxisResample", index, weight)
    if any(not 0 <= i < x.shape[ax] for t in index for i in t):
        raise OpValueError(f"For 'AxisResample', an index is out of range for axis {ax} of size {x.shape[ax]}")
    return TensorType(x.dtype, x.shape[:ax] + (len(index[0]),) + x.shape[ax + 1:])


def _resample_eager(x, axis=0, index=(), weight=()):
    ax = axis % x.ndim
    ct = np.float32 if x.dtype == np.float16 else x.dtype
    shape = [1] * x.ndim
    shape[ax] = len(index[0])
    out = None
    for idx, w in zip(index, weight):      # the first tap, then the others added (not 0 + ...: -0 stays -0)
        term = np.take(x.astype(ct, copy=False), np.asarray(idx, np.int64), axis=ax) * np.asarray(w, ct).reshape(shape)
        out = term if out is None else out + term
    return out.astype(x.dtype, copy=False)


def _resample_grad_infer(types, axis=0, index=(), weight=(), size=0):
    g = tensor_arg("AxisResampleGrad", types[0])
    ax = norm_axis("AxisResampleGrad", axis, g.ndim)
    _check_tables("AxisResampleGrad", index, weight)
    if g.shape[ax] != len(index[0]) or any(not 0 <= i < size for t in index for i in t):
        raise OpValueError(f"For 'AxisResampleGrad', the tables do not match axis {ax} of {list(g.shape)} "
                           f"and size {size}")
    return TensorType(g.dtype, g.shape[:ax] + (size,) + g.shape[ax + 1:])


def _resample_grad_eager(g, axis=0, index=(), weight=(), size=0):
    ax = axis % g.ndim
    ct = np.float32 if g.dtype == np.float16 else g.dtype
    gm = np.moveaxis(g.astype(ct, copy=False), ax, 0)
    out = np.zeros((size,) + gm.shape[1:], ct)
    shape = (-1,) + (1,) * (gm.ndim - 1)
    for idx, w in zip(index, weight):
        np.add.at(out, np.asarray(idx, np.int64), gm * np.asarray(w, ct).reshape(shape))
    return np.moveaxis(out, 0, ax).astype(g.dtype, copy=False)


def _taps(xt, axis, index, weight):
    """The tables as constants: per tap a GatherD index (1, L, 1) and its weights (1, L, 1) in the
    compute dtype, over x viewed as (A, N, B) around the axis."""
    ct = np.float32 if xt.dtype.np == np.float16 else xt.dtype.np
    return [(Tensor(np.asarray(i, np.int64).reshape(1, -1, 1)), Tensor(np.asarray(w, ct).reshape(1, -1, 1)))
            for i, w in zip(index, weight)]


def _resample_parts(x, axis=0, index=(), weight=()):
    """sum over the taps, left to right as the template's expression, of weight * x gathered at
    the tap's index (GatherD over the (A, N, B) view), in float32 for float16."""
    from pycompile.ops.defs.array import BroadcastTo, Reshape
    from pycompile.ops.defs.elementwise import Add, Mul, call, cast
    from pycompile.ops.defs.index import GatherD
    xt = type_of(x)
    ax = axis % xt.ndim
    a, n, b = math.prod(xt.shape[:ax]), xt.shape[ax], math.prod(xt.shape[ax + 1:])
    L = len(index[0])
    x3 = call(Reshape, x if xt.dtype is not mstype.float16 else cast(x, mstype.float32), shape=(a, n, b))
    total = None
    for i, w in _taps(xt, axis, index, weight):
        term = call(Mul, w, call(GatherD, x3, call(BroadcastTo, i, shape=(a, L, b)), axis=1))
        total = term if total is None else call(Add, total, term)
    out = call(Reshape, total, shape=xt.shape[:ax] + (L,) + xt.shape[ax + 1:])
    return out if xt.dtype is not mstype.float16 else cast(out, mstype.float16)


def _resample_grad_parts(g, axis=0, index=(), weight=(), size=0):
    """zeros(size) += weight * g at each tap's index: one TensorScatterAdd over (position, tap)
    pairs in the template's order (position by position, tap by tap within one), each product
    rounded to the storage dtype before its addition, as the template's `+= (st)(c * g)`."""
    from pycompile.ops.defs.array import Fill, Reshape, Transpose
    from pycompile.ops.defs.elementwise import Mul, call, cast
    from pycompile.ops.defs.index import TensorScatterAdd
    gt = type_of(g)
    ax = axis % gt.ndim
    a, L, b = math.prod(gt.shape[:ax]), gt.shape[ax], math.prod(gt.shape[ax + 1:])
    T = len(index)
    ct = np.float32 if gt.dtype is mstype.float16 else gt.dtype.np
    g4 = call(Reshape, call(Transpose, call(Reshape, g, shape=(a, L, b)), perm=(1, 0, 2)), shape=(L, 1, a, b))
    if gt.dtype is mstype.float16:
        g4 = cast(g4, mstype.float32)
    w = Tensor(np.asarray(weight, ct).T.reshape(L, T, 1, 1))
    terms = call(Reshape, call(Mul, w, g4), shape=(L * T, a, b))
    if gt.dtype is mstype.float16:
        terms = cast(terms, mstype.float16)
    pos = Tensor(np.asarray(index, np.int64).T.reshape(L * T, 1))
    out = call(TensorScatterAdd, call(Fill, shape=(size, a, b), value=0, dtype=gt.dtype), pos, terms)
    return call(Reshape, call(Transpose, out, perm=(1, 0, 2)), shape=gt.shape[:ax] + (size,) + gt.shape[ax + 1:])


AxisResample = defop("AxisResample", ("x",), attrs={"axis": 0, "index": (), "weight": ()}, infer=_resample_infer,
                     eager=_resample_eager, kind=Kind.LAYOUT, batch="argmax", lower=Template("resample"),
                     decompose=_resample_parts, fast_path=True)
AxisResampleGrad = defop("AxisResampleGrad", ("g",), attrs={"axis": 0, "index": (), "weight": (), "size": 0},
                         infer=_resample_grad_infer, eager=_resample_grad_eager, kind=Kind.LAYOUT, batch="argmax",
                         lower=Template("resample_grad"), decompose=_resample_grad_parts, fast_path=True)


# ---- tables ------------------------------------------------------------------------------------------
def pad_table(n: int, before: int, after: int, mode: str):
    """(index, weight, is_pad) of one tap for padding an axis of length n; negative pads crop.
    mode: constant (weight 0 at pads), reflect (edge not repeated), symmetric (repeated), edge."""
    out = []
    for j in range(-before, n + after):
        if 0 <= j < n:
            out.append((j, 1.0, False))
        elif mode == "constant":
            out.append((0, 0.0, True))
        elif mode == "edge":
            out.append((min(max(j, 0), n - 1), 1.0, False))
        else:
            period = 2 * n - 2 if mode == "reflect" else 2 * n
            k = j % period if period else 0
            if mode == "reflect":
                k = k if k < n else period - k
            else:
                k = k if k < n else period - 1 - k
            out.append((k, 1.0, False))
    return (tuple(i for i, _, _ in out),), (tuple(w for _, w, _ in out),), tuple(p for _, _, p in out)


def nearest_table(n_in: int, n_out: int, align_corners: bool, half_pixel: bool, scale=None):
    """ResizeNearestNeighbor's source index for each output position."""
    if align_corners and n_out > 1:
        # MindSpore's roundf (halves away from zero) in float32
        s = np.float32(n_in - 1) / np.float32(n_out - 1)
        idx = [min(int(np.floor(np.float32(i) * s + np.float32(0.5))), n_in - 1) for i in range(n_out)]
    else:
        s = n_in / n_out if scale is None else 1.0 / scale
        if half_pixel:
            idx = [min(int(np.floor((i + 0.5) * s)), n_in - 1) for i in range(n_out)]
        else:
            idx = [min(int(np.floor(np.float32(i) * np.float32(s))), n_in - 1) for i in range(n_out)]
    return (tuple(idx),), ((1.0,) * n_out,)


def linear_table(n_in: int, n_out: int, align_corners: bool, half_pixel: bool, scale=None):
    """Two taps (floor, ceil) with linear weights for each output position."""
    i0s, i1s, w0s, w1s = [], [], [], []
    for i in range(n_out):
        if align_corners:
            src = i * (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
        else:
            s = n_in / n_out if scale is None else 1.0 / scale
            src = (i + 0.5) * s - 0.5 if half_pixel else i * s
            src = max(src, 0.0)
        i0 = min(int(np.floor(src)), n_in - 1)
        i1 = min(i0 + 1, n_in - 1)
        lam = src - i0
        i0s.append(i0)
        i1s.append(i1)
        w0s.append(1.0 - lam)
        w1s.append(lam)
    return (tuple(i0s), tuple(i1s)), (tuple(w0s), tuple(w1s))


_CUBIC_STEPS = 1024         # the cubic weights are tabulated at 1/1024 steps of the fraction


def _cubic_coefficients(a: float):
    """MindSpore's ResizeBicubic table (TensorFlow's kernel, float32 arithmetic): row k holds the
    weights of the taps at distance k / 1024 and 1 + k / 1024 from the sample point."""
    a = np.float32(a)
    one = np.float32(1)
    rows = []
    for k in range(_CUBIC_STEPS + 1):
        x = np.float32(k * 1.0 / _CUBIC_STEPS)
        near = ((a + 2) * x - (a + 3)) * x * x + one
        x = x + one
        far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
        rows.append((np.float32(near), np.float32(far)))
    return rows


def cubic_table(n_in: int, n_out: int, align_corners: bool, half_pixel: bool):
    """Four taps (floor - 1 ... floor + 2, clamped to the axis) with the cubic convolution weights
    of MindSpore's ResizeBicubic: half-pixel centres use Keys' cubic (-0.5) and give the taps
    outside the axis weight 0, the others renormalized to sum 1; otherwise the coefficient is -0.75
    and edge pixels repeat, at i * in / out, or i * (in - 1) / (out - 1) with align_corners. The
    fraction is rounded to the table's 1/1024 step, as MindSpore's kernel does."""
    keys = half_pixel
    table = _cubic_coefficients(-0.5 if keys else -0.75)
    scale = (np.float32(n_in - 1) / np.float32(n_out - 1) if align_corners and n_out > 1
             else np.float32(n_in) / np.float32(n_out))
    index, weight = [[] for _ in range(4)], [[] for _ in range(4)]
    for o in range(n_out):
        at = (np.float32(o) + np.float32(0.5)) * scale - np.float32(0.5) if keys else np.float32(o) * scale
        floor = int(np.floor(at))
        step = int(np.rint((at - np.float32(floor)) * _CUBIC_STEPS))
        w = [table[step][1], table[step][0], table[_CUBIC_STEPS - step][0], table[_CUBIC_STEPS - step][1]]
        taps = [floor - 1 + k for k in range(4)]
        bounded = [min(max(j, 0), n_in - 1) for j in taps]
        if keys:
            w = [wk if b == j else np.float32(0) for wk, b, j in zip(w, bounded, taps)]
            total = np.float32(sum(w, np.float32(0)))
            if abs(total) >= 1000 * np.finfo(np.float32).tiny:
                w = [wk * (np.float32(1) / total) for wk in w]
        for k in range(4):
            index[k].append(bounded[k])
            weight[k].append(float(w[k]))
    return tuple(tuple(t) for t in index), tuple(tuple(t) for t in weight)


# the ops this module declares (what `pycompile.ops.prims` re-exports)
__all__ = [_n for _n, _v in list(globals().items()) if isinstance(_v, OpDef)]
