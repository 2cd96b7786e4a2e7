"""Reductions and normalizations: sum / mean / max / min / prod / all / any / argmax / argmin, softmax,
log_softmax, LayerNorm. Each lowers to a loop template (`Template`; its C is in
pycompile/backend/c/ops/reduce.py) that fused elementwise producers can feed inline (`prologue`) and,
over the last axis, that can head a group of per-row consumers (`per_row`).

Dtype rules follow MindSpore 2.10: the ReduceSum primitive keeps the input dtype (a bool sum is
an "any"; `ops.sum` / `Tensor.sum` cast bool and integers to int64 first, as MindSpore's SumExt
does); mean of integers stays in the input dtype (truncated), of bools is an error; argmax gives
int64. Max / min / argmax (and an integer mean) over a zero-length axis have no answer and raise;
a float mean over one is NaN.
"""
from __future__ import annotations

import math

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import TensorType, type_of
from pycompile.ops._table import (OpDef, Kind, OpTypeError, OpValueError, defop, describe, norm_axes,
                                  norm_axis, tensor_arg)
from pycompile.ops.lowering import Template


def reduced_shape(shape: tuple, axes: tuple, keep_dims: bool) -> tuple:
    if keep_dims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


_COMPLEX_REDUCTIONS = ("ReduceSum", "ReduceMean", "ReduceProd")


def _reduce_infer(name: str, out_dtype, allow_bool: bool = True):
    def infer(types, axis=None, keep_dims=False):
        x = tensor_arg(name, types[0])
        axes = norm_axes(name, axis, x.ndim)
        if not allow_bool and x.dtype.is_bool:
            raise OpTypeError(f"For '{name}', bool tensors are not supported, but got {describe(x)}")
        if x.dtype.is_complex and name not in _COMPLEX_REDUCTIONS:     # MindSpore 2.10's CPU kernels
            raise OpTypeError(f"For '{name}', complex tensors are not supported, but got {describe(x)}")
        empty = any(x.shape[a] == 0 for a in axes)
        if empty and (name in ("ReduceMax", "ReduceMin") or (name == "ReduceMean" and not x.dtype.is_float)):
            raise OpValueError(f"For '{name}', cannot reduce over a zero-length axis of shape {list(x.shape)}")
        return TensorType(out_dtype(x.dtype), reduced_shape(x.shape, axes, keep_dims))
    return infer


def _np_axes(x, axis):
    if axis is None or axis == () or (x.ndim if isinstance(x, np.ndarray) else np.ndim(x)) == 0:
        return None     # (a 0-d tensor reduces to itself)
    return tuple(axis) if isinstance(axis, list) else axis


def _sum(x, axis=None, keep_dims=False):
    # float16 accumulates in float32 (as the generated C does); integers wrap in their own type
    # (np.add.reduce is what np.sum calls, without its Python wrapper: a PyNative sum's cost)
    acc = np.float32 if x.dtype.char == "e" else x.dtype
    return np.add.reduce(x, axis=_np_axes(x, axis), keepdims=keep_dims, dtype=acc)


def _mean(x, axis=None, keep_dims=False):
    ax = _np_axes(x, axis)
    if x.size == 0:     # a float mean over a zero-length axis is NaN (integers are refused by infer)
        return np.full(np.sum(x, axis=ax, keepdims=keep_dims).shape, np.nan, x.dtype)
    if x.dtype.kind in "iub":
        return np.trunc(np.mean(x, axis=ax, keepdims=keep_dims, dtype=np.float64)).astype(x.dtype)
    return np.mean(x, axis=ax, keepdims=keep_dims, dtype=np.float32 if x.dtype == np.float16 else None)


def _first_tie(fn):
    """np.max / np.min, where -0 and +0 tie the first of them in the reduction's order (row-major
    over the reduced axes) is the result, as in MindSpore 2.10's kernels and the generated C
    (NumPy keeps whichever its vector lanes meet last: tests/compiler/test_minmax_zero_ties.py)."""
    def reduce(x, axis=None, keep_dims=False):
        ax = _np_axes(x, axis)
        r = fn(x, axis=ax, keepdims=keep_dims)
        if x.dtype.kind != "f" or x.size == 0 or not np.any(r == 0):
            return r
        axes = tuple(range(x.ndim)) if ax is None else tuple(sorted(a % x.ndim for a in np.atleast_1d(ax)))
        kept = [d for d in range(x.ndim) if d not in axes]
        rows = np.transpose(x, kept + list(axes)).reshape([x.shape[d] for d in kept] + [-1])
        first = np.take_along_axis(rows, np.argmax(rows == 0, axis=-1)[..., None], -1)
        return np.where(r == 0, first.reshape(np.shape(r)), r).astype(x.dtype, copy=False)
    return reduce


def _reduces_last_axis(attrs, in_shape, out_shape) -> bool:
    """One value per row: the last axis only, with keep_dims."""
    nd = len(in_shape)
    return (nd >= 1 and tuple(norm_axes("reduce", attrs.get("axis"), nd)) == (nd - 1,)
            and tuple(out_shape) == tuple(in_shape[:-1]) + (1,))


def _reduce(rule: str) -> Template:
    return Template("reduce", prologue=True, per_row=_reduces_last_axis, rule=rule)


def _reduction(name: str, rule: str, out_dtype, eager, allow_bool: bool = True, **kw):
    return defop(name, ("x",), attrs={"axis": None, "keep_dims": False},
                 infer=_reduce_infer(name, out_dtype, allow_bool), kind=Kind.REDUCE, lower=_reduce(rule),
                 eager=eager, **kw)


# ---- the fast paths' decompositions (`fast_path=True`, docs/architecture.md "The core"): each
# row keeps its loop template, chosen for speed; these are their meanings, in core rows, in the
# templates' order of operations (backend/c/ops/kernels.py); PYCOMPILE_FAST_PATHS=0 compiles them and
# tests/ops/test_core32_fast_paths.py compares the two
def _E():
    from pycompile.ops.defs import elementwise as E
    return E


def _mean_parts(x, axis=None, keep_dims=False):
    """sum / count, accumulated as the template does (float16 in float32, integers in double,
    truncated back); a float mean over nothing is 0 / 0 = NaN."""
    E = _E()
    t = type_of(x)
    count = math.prod(t.shape[a] for a in norm_axes("ReduceMean", axis, t.ndim)) if t.ndim else 1
    wide = {mstype.float16: mstype.float32, mstype.float32: None, mstype.float64: None}.get(t.dtype, mstype.float64)
    xs = x if wide is None else E.cast(x, wide)
    out = E.call(E.RealDiv, E.call(ReduceSum, xs, axis=axis, keep_dims=keep_dims), count)
    return out if wide is None else E.cast(out, t.dtype)


def _softmax_parts(x, axis=-1, log=False):
    """x - max over the axis; softmax: exp of it times 1 / its sum; log_softmax: it minus the log of
    the sum of its exp. Float32 takes exp(x - max <= -87) as 0 over the last axis (SOFTMAX_FLUSH_F32,
    the Exp row's flush); over another axis it keeps the denormals (exp taken in double)."""
    E = _E()
    t = type_of(x)
    if t.size == 0:
        return x
    if t.dtype is mstype.float16:
        return E.cast(_softmax_parts(E.cast(x, mstype.float32), axis, log), mstype.float16)
    ax = softmax_axis("Softmax", axis, t.ndim)
    d = E.call(E.Sub, x, E.call(ReduceMax, x, axis=ax, keep_dims=True))
    if log:
        total = E.call(ReduceSum, E.call(E.Exp, d), axis=ax, keep_dims=True)
        return E.call(E.Sub, d, E.call(E.Log, total))
    if t.dtype is mstype.float32 and ax != t.ndim - 1:
        e = E.cast(E.call(E.Exp, E.cast(d, mstype.float64)), mstype.float32)
    else:
        e = E.call(E.Exp, d)
    return E.call(E.Mul, e, E.call(E.RealDiv, 1, E.call(ReduceSum, e, axis=ax, keep_dims=True)))


def _layernorm_parts(x, gamma, beta, begin_norm_axis=-1, begin_params_axis=-1, epsilon=1e-7):
    """The template's corrected two-pass algorithm (backend/c/ops/kernels.py layernorm) over the rows of the
    (rows, cols) view: mean = sum / cols; d = x - mean; the mean moved by sum(d) / cols, the
    variance (sum(d * d) - sum(d) * shift) / cols clamped at 0; then (x - mean) / sqrt(var + eps)
    * gamma + beta, in float32 for float16."""
    from pycompile.ops.defs.array import Reshape
    E = _E()
    t = type_of(x)
    if t.size == 0:
        return x
    ct = mstype.float64 if t.dtype is mstype.float64 else mstype.float32
    ax = begin_norm_axis % t.ndim
    cols = math.prod(t.shape[ax:])
    xf = E.cast(x, ct) if t.dtype is not ct else x
    rows = E.call(Reshape, xf, shape=(math.prod(t.shape[:ax]), cols))

    def row_sum(v):
        return E.call(ReduceSum, v, axis=1, keep_dims=True)
    mean = E.call(E.RealDiv, row_sum(rows), cols)
    d = E.call(E.Sub, rows, mean)
    dev = row_sum(d)
    shift = E.call(E.RealDiv, dev, cols)
    var = E.call(E.RealDiv, E.call(E.Sub, row_sum(E.call(E.Mul, d, d)), E.call(E.Mul, dev, shift)), cols)
    var = E.call(E.Select, E.call(E.Less, var, 0), 0, var)
    inv = E.call(E.RealDiv, 1, E.call(E.Sqrt, E.call(E.Add, var, epsilon)))
    y = E.call(Reshape, E.call(E.Mul, E.call(E.Sub, rows, E.call(E.Add, mean, shift)), inv), shape=t.shape)
    g, b = (v if type_of(v).dtype is ct else E.cast(v, ct) for v in (gamma, beta))
    y = E.call(E.Add, E.call(E.Mul, y, g), b)
    return y if t.dtype is ct else E.cast(y, t.dtype)


ReduceSum = _reduction("ReduceSum", "sum", lambda dt: dt, _sum)
ReduceMean = _reduction("ReduceMean", "mean", lambda dt: dt, _mean, allow_bool=False, decompose=_mean_parts,
                        fast_path=True)
ReduceMax = _reduction("ReduceMax", "max", lambda dt: dt, _first_tie(np.max))
ReduceMin = _reduction("ReduceMin", "min", lambda dt: dt, _first_tie(np.min))
ReduceProd = _reduction("ReduceProd", "prod", lambda dt: dt, lambda x, axis=None, keep_dims=False: np.prod(
    x, axis=_np_axes(x, axis), keepdims=keep_dims, dtype=np.float32 if x.dtype == np.float16 else x.dtype))
def _all_any_parts(want_all: bool):
    """all: no element equal to 0 (a count of zeros, compared with 0); any: a count of the
    nonzero ones above 0. NaN is nonzero, -0 is zero. (Fast paths: as parts the count's compare
    ran as a loop of its own after the reduction; docs/architecture.md "The core".)"""
    def parts(x, axis=None, keep_dims=False):
        E = _E()
        hits = E.call(E.Equal, x, 0) if want_all else E.call(E.LogicalNot, E.call(E.Equal, x, 0))
        count = E.call(ReduceSum, E.cast(hits, mstype.int32), axis=axis, keep_dims=keep_dims)
        return E.call(E.Equal, count, 0) if want_all else E.call(E.Less, 0, count)
    return parts


ReduceAll = _reduction("ReduceAll", "all", lambda dt: mstype.bool_,
                       lambda x, axis=None, keep_dims=False: np.all(x, axis=_np_axes(x, axis), keepdims=keep_dims),
                       decompose=_all_any_parts(True), fast_path=True)
ReduceAny = _reduction("ReduceAny", "any", lambda dt: mstype.bool_,
                       lambda x, axis=None, keep_dims=False: np.any(x, axis=_np_axes(x, axis), keepdims=keep_dims),
                       decompose=_all_any_parts(False), fast_path=True)


def _arg_infer(name: str):
    def infer(types, axis=None, keep_dims=False):
        x = tensor_arg(name, types[0])
        if axis is None:
            if x.size == 0:
                raise OpValueError(f"For '{name}', cannot take the {name.lower()} of an empty tensor of shape "
                                   f"{list(x.shape)}")
            return TensorType(mstype.int64, (1,) * x.ndim if keep_dims else ())
        if x.ndim == 0:
            norm_axis(name, axis, 1)
            return TensorType(mstype.int64, ())
        ax = norm_axis(name, axis, x.ndim)
        if x.shape[ax] == 0:
            raise OpValueError(f"For '{name}', cannot take the {name.lower()} over a zero-length axis of shape "
                               f"{list(x.shape)}")
        return TensorType(mstype.int64, reduced_shape(x.shape, (ax,), keep_dims))
    return infer


def _argmax(x, axis=None, keep_dims=False):
    return np.argmax(x, axis=None if np.ndim(x) == 0 else axis, keepdims=keep_dims)


def _argmin(x, axis=None, keep_dims=False):
    return np.argmin(x, axis=None if np.ndim(x) == 0 else axis, keepdims=keep_dims)


# the first index of the largest (smallest) value; NaN counts as the largest and the smallest
Argmax = defop("Argmax", ("x",), attrs={"axis": None, "keep_dims": False}, infer=_arg_infer("Argmax"),
               eager=_argmax, kind=Kind.REDUCE, lower=Template("argmax"), batch="argmax")
Argmin = defop("Argmin", ("x",), attrs={"axis": None, "keep_dims": False}, infer=_arg_infer("Argmin"),
               eager=_argmin, kind=Kind.REDUCE, lower=Template("argmax", rule="min"), batch="argmax")


def softmax_axis(name: str, axis, ndim: int) -> int:
    """The one axis of Softmax / LogSoftmax, normalized: an int or a tuple of one int (MindSpore's
    CPU kernels refuse several axes)."""
    if isinstance(axis, (tuple, list)):
        if len(axis) != 1:
            raise OpValueError(f"For '{name}', 'axis' must be an int or a tuple of one int, but got {axis!r}")
        axis = axis[0]
    return norm_axis(name, axis, max(ndim, 1))


def _softmax_infer(name):
    def infer(types, axis=-1):
        x = tensor_arg(name, types[0])
        if not x.dtype.is_float:
            raise OpTypeError(f"For '{name}', the input must be a float tensor, but got {describe(x)}")
        softmax_axis(name, axis, x.ndim)
        return x
    return infer


# MindSpore's float32 softmax over the last axis takes exp(d) as 0 where d = x - max <= -87 (its
# CPU result, recorded in tests/oracle/data/edge_values.json: softmax([0, -86.9, -87]) is
# [1, 1.8e-38, 0]; over another axis it keeps the denormals, also where only size-1 axes follow:
# softmax of a (5, 1) over axis 0). The C kernel does the same over the last axis
# (backend/c/ops/kernels.py: softmax), and so does this eager code.
SOFTMAX_FLUSH_F32 = -87.0


def _softmax(x, axis=-1):
    if x.size == 0:
        return x.copy()
    if x.dtype == np.float16:       # computed in float32, as the C kernel (float16 steps lose 1e-3)
        return _softmax(x.astype(np.float32), axis).astype(np.float16)
    m = np.max(x, axis=axis, keepdims=True)
    d = x - m
    e = np.exp(d)
    ax = axis[0] if isinstance(axis, (tuple, list)) else axis
    if x.dtype == np.float32 and ax % max(x.ndim, 1) == max(x.ndim, 1) - 1:
        e = np.where(d <= SOFTMAX_FLUSH_F32, np.float32(0), e)
    return e / np.sum(e, axis=axis, keepdims=True)


def _log_softmax(x, axis=-1):
    if x.size == 0:
        return x.copy()
    if x.dtype == np.float16:
        return _log_softmax(x.astype(np.float32), axis).astype(np.float16)
    m = np.max(x, axis=axis, keepdims=True)
    s = x - m
    return s - np.log(np.sum(np.exp(s), axis=axis, keepdims=True))


def _softmax_last_axis(attrs, in_shape, out_shape) -> bool:
    nd = len(in_shape)
    return nd >= 1 and softmax_axis("Softmax", attrs.get("axis", -1), nd) == nd - 1


# softmax reads its input three times (max, sum of exp, normalize)
Softmax = defop("Softmax", ("x",), attrs={"axis": -1}, infer=_softmax_infer("Softmax"),
                eager=_softmax, kind=Kind.REDUCE, batch="softmax", eager_kernel=True,
                decompose=_softmax_parts, fast_path=True,
                lower=Template("softmax", passes=3, prologue=True, per_row=_softmax_last_axis))
LogSoftmax = defop("LogSoftmax", ("x",), attrs={"axis": -1}, infer=_softmax_infer("LogSoftmax"),
                   eager=_log_softmax, kind=Kind.REDUCE, batch="softmax", eager_kernel=True,
                   decompose=lambda x, axis=-1: _softmax_parts(x, axis, log=True), fast_path=True,
                   lower=Template("softmax", passes=3, prologue=True, per_row=_softmax_last_axis, rule="log"))


def _layernorm_infer(types, begin_norm_axis=-1, begin_params_axis=-1, epsilon=1e-7):
    x, gamma, beta = (tensor_arg("LayerNorm", t, n) for t, n in zip(types, ("x", "gamma", "beta")))
    if not x.dtype.is_float:
        raise OpTypeError(f"For 'LayerNorm', the input must be a float tensor, but got {describe(x)}")
    ax = norm_axis("LayerNorm", begin_norm_axis, x.ndim)
    pax = norm_axis("LayerNorm", begin_params_axis, x.ndim)
    if gamma.shape != x.shape[pax:] or beta.shape != x.shape[pax:]:
        raise OpValueError(
            f"For 'LayerNorm', gamma and beta must have shape {list(x.shape[pax:])} (x.shape[{pax}:]), "
            f"but got {list(gamma.shape)} and {list(beta.shape)}")
    del ax
    return x


def _layernorm(x, gamma, beta, begin_norm_axis=-1, begin_params_axis=-1, epsilon=1e-7):
    ax = begin_norm_axis % x.ndim
    axes = tuple(range(ax, x.ndim))
    xf = x.astype(np.float32) if x.dtype == np.float16 else x
    n = int(np.prod([x.shape[a] for a in axes]))
    # the C template's corrected two-pass algorithm (backend/c/ops/kernels.py layernorm): the mean of n
    # equal values is often 1 ulp off them, and a constant row's 1 / sqrt(var + 1e-7) made that
    # ulp 3e-4 * gamma (MindSpore: beta exactly). The deviations' mean moves the mean back
    mean = xf.mean(axis=axes, keepdims=True)
    d = xf - mean
    dev = d.sum(axis=axes, keepdims=True)
    shift = dev / xf.dtype.type(max(n, 1))
    var = np.maximum(((d * d).sum(axis=axes, keepdims=True) - dev * shift) / xf.dtype.type(max(n, 1)), 0)
    y = (xf - (mean + shift)) / np.sqrt(var + epsilon)
    return y * gamma + beta


def _layernorm_last_axis(attrs, in_shape, out_shape) -> bool:
    nd = len(in_shape)
    return nd >= 1 and attrs.get("begin_norm_axis", -1) % nd == nd - 1


LayerNorm = defop("LayerNorm", ("x", "gamma", "beta"),
                  attrs={"begin_norm_axis": -1, "begin_params_axis": -1, "epsilon": 1e-7},
                  infer=_layernorm_infer, eager=_layernorm, kind=Kind.REDUCE, batch="layernorm", eager_kernel=True,
                  decompose=_layernorm_parts, fast_path=True,
                  lower=Template("layernorm", passes=3, prologue=True, per_row=_layernorm_last_axis))


# the ops this module declares (what `pycompile.ops.prims` re-exports)
__all__ = [_n for _n, _v in list(globals().items()) if isinstance(_v, OpDef)]
