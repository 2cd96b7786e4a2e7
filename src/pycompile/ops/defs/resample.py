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
template (ops/c/resample.py) keeps them as static arrays and runs the inner axes as vectors.
"""
from __future__ import annotations

import numpy as np

from pycompile.common.abstract import TensorType
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
    out = np.zeros(x.shape[:ax] + (len(index[0]),) + x.shape[ax + 1:], ct)
    for idx, w in zip(index, weight):
        out += np.take(x.astype(ct, copy=False), np.asarray(idx, np.int64), axis=ax) * np.asarray(w, ct).reshape(shape)
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


AxisResample = defop("AxisResample", ("x",), attrs={"axis": 0, "index": (), "weight": ()}, infer=_resample_infer,
                     eager=_resample_eager, kind=Kind.LAYOUT, batch="argmax", lower=Template("resample"))
AxisResampleGrad = defop("AxisResampleGrad", ("g",), attrs={"axis": 0, "index": (), "weight": (), "size": 0},
                         infer=_resample_grad_infer, eager=_resample_grad_eager, kind=Kind.LAYOUT, batch="argmax",
                         lower=Template("resample_grad"))


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


# the ops this module declares (what `pycompile.ops.prims` re-exports)
__all__ = [_n for _n, _v in list(globals().items()) if isinstance(_v, OpDef)]
