"""mindspore.numpy's array creation: array / asarray, filled arrays and their `_like` forms,
ranges and spaces, eye / identity / tri, triangles, diagonals, grids, index builders and the
window functions.

What depends only on Python values (shapes, ranges, windows) is computed on the host with NumPy
and enters graph code as a constant; what depends on a tensor is a composition of pycompile ops,
so every function runs eagerly and inside graph code alike. Defaults follow mindspore.numpy:
float32 for floats and int32 for ints.
"""
from __future__ import annotations

import builtins
import math

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.numpy._utils import (const, finish, is_tensor, ndim, norm_axis, np_dtype, shape,
                                    shape_arg, tensor_cls, to_dtype, to_tensor, ttype)
from pycompile.ops import functional as F
from pycompile.ops._table import OpTypeError, OpValueError


# ---- array / asarray ---------------------------------------------------------------------------------
def array(obj, dtype=None, copy=True, ndmin=0):
    """A tensor of `obj` (a Tensor, a number, nested lists / tuples), cast to `dtype`, with at least
    `ndmin` dimensions (leading ones added)."""
    if is_tensor(obj):
        out = to_tensor(obj, dtype)
        if out is obj and copy and not _in_graph(obj):
            out = tensor_cls()._wrap(obj.asnumpy().copy())
    else:
        out = to_tensor(obj, dtype)
    nd = ndim(out)
    if ndmin > nd:
        out = F.reshape(out, (1,) * (ndmin - nd) + shape(out))
    return out


def _in_graph(x) -> bool:
    from pycompile.common.abstract import Symbolic
    return isinstance(x, Symbolic)


def asarray(a, dtype=None):
    return array(a, dtype, copy=False)


def asfarray(a, dtype=mstype.float32):
    """`a` as a float tensor: `dtype` when it is a float type, else float32."""
    dt = to_dtype(dtype)
    if dt not in (mstype.float16, mstype.float32, mstype.float64):
        dt = mstype.float32
    return asarray(a, dt)


# ---- filled arrays -------------------------------------------------------------------------------------
def _filled(shape_, value, dtype, name):
    dims = shape_arg(shape_, name)
    return const(np.full(dims, value, np_dtype(dtype)))


def zeros(shape, dtype=mstype.float32):
    return _filled(shape, 0, dtype, "zeros")


def ones(shape, dtype=mstype.float32):
    return _filled(shape, 1, dtype, "ones")


def empty(shape, dtype=mstype.float32):
    """Zeros (pycompile never hands out uninitialised memory)."""
    return _filled(shape, 0, dtype, "empty")


def _fill_dtype(fill_value):
    if isinstance(fill_value, (bool, np.bool_)):
        return mstype.bool_
    if isinstance(fill_value, (int, np.integer)):
        return mstype.int32
    if isinstance(fill_value, (float, np.floating)):
        return mstype.float32
    raise OpTypeError(f"For 'full', the fill_value must be a number or a Tensor, but got {type(fill_value).__name__}")


def full(shape, fill_value, dtype=None):
    dims = shape_arg(shape, "full")
    if is_tensor(fill_value) or isinstance(fill_value, (list, tuple)):
        value = to_tensor(fill_value, dtype)
        return F.broadcast_to(value, dims)
    return _filled(dims, fill_value, dtype if dtype is not None else _fill_dtype(fill_value), "full")


def _like(a, value, dtype, shape_):
    a = to_tensor(a)
    dt = ttype(a).dtype if dtype is None else to_dtype(dtype)
    return full(shape(a) if shape_ is None else shape_, value, dt) if not is_tensor(value) else \
        F.cast(F.broadcast_to(value, shape(a) if shape_ is None else shape_arg(shape_, "full_like")), dt)


def zeros_like(a, dtype=None, shape=None):
    return _like(a, 0, dtype, shape)


def ones_like(a, dtype=None, shape=None):
    return _like(a, 1, dtype, shape)


def empty_like(prototype, dtype=None, shape=None):
    return _like(prototype, 0, dtype, shape)


def full_like(a, fill_value, dtype=None, shape=None):
    return _like(a, fill_value, dtype, shape)


# ---- ranges and spaces ---------------------------------------------------------------------------------
def _number(v, name, what):
    if is_tensor(v) and not _in_graph(v) and ttype(v).ndim == 0:
        return v.asnumpy().item()
    if isinstance(v, (int, float, np.number)) and not isinstance(v, (bool, np.bool_)):
        return v
    raise OpTypeError(f"For '{name}', '{what}' must be a number, but got {type(v).__name__}")


def arange(start, stop=None, step=None, dtype=None):
    """[start, stop) by step: int32 when every bound is an int, else float32."""
    if stop is None:
        start, stop = 0, start
    if step is None:
        step = 1
    start, stop, step = (_number(v, "arange", w) for v, w in ((start, "start"), (stop, "stop"), (step, "step")))
    if step == 0:
        raise ZeroDivisionError("float division by zero")
    n = builtins.max(math.ceil((stop - start + 0.0) / step), 0)
    floats = builtins.any(isinstance(v, (float, np.floating)) for v in (start, stop, step))
    dt = to_dtype(dtype) if dtype is not None else (mstype.float32 if floats else mstype.int32)
    return const((start + step * np.arange(n, dtype=np.float64)).astype(dt.np))


def _space(start, stop, num, endpoint):
    if not isinstance(num, (int, np.integer)) or num < 0:
        raise OpValueError(f"For 'linspace', num must be a non-negative int, but got {num!r}")
    div = (num - 1) if endpoint else num
    step = (stop - start) / div if div > 0 else np.nan
    return start + (0.0 if div == 0 else step) * np.arange(num, dtype=np.float64), step


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """`num` values from start to stop (float32 unless `dtype`); with retstep also the step."""
    dt = mstype.float32 if dtype is None else to_dtype(dtype)
    if is_tensor(start) or is_tensor(stop):
        out, step = _tensor_space(start, stop, num, endpoint, axis)
        out = F.cast(out, dt)
    else:
        vals, step = _space(np.asarray(start, np.float64), np.asarray(stop, np.float64), num, endpoint)
        if np.ndim(vals) > 1 or np.ndim(start) or np.ndim(stop):
            vals = np.moveaxis(_space_nd(start, stop, num, endpoint), 0, axis)
        out = const(vals.astype(dt.np) if dt.np.kind != "i" else np.floor(vals).astype(dt.np))
        step = const(np.asarray(step, np.float32))
    return (out, step) if retstep else out


def _space_nd(start, stop, num, endpoint):
    start, stop = np.asarray(start, np.float64), np.asarray(stop, np.float64)
    div = (num - 1) if endpoint else num
    t = np.arange(num, dtype=np.float64).reshape((num,) + (1,) * np.broadcast(start, stop).ndim)
    return start + (stop - start) * (t / div if div > 0 else t * 0)


def _tensor_space(start, stop, num, endpoint, axis):
    start, stop = to_tensor(start, mstype.float32), to_tensor(stop, mstype.float32)
    div = (num - 1) if endpoint else num
    nd = builtins.max(ndim(start), ndim(stop))
    frac = np.arange(num, dtype=np.float32) / np.float32(div if div > 0 else 1)
    t = const(frac.reshape((num,) + (1,) * nd))
    out = F.add(start, F.mul(F.sub(stop, start), t))
    if nd and axis != 0:
        out = F.moveaxis(out, 0, axis)
    return out, F.div(F.sub(stop, start), float(div if div > 0 else 1))


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    exps = linspace(start, stop, num, endpoint, dtype=mstype.float32, axis=axis)
    out = F.pow(base, exps) if not isinstance(base, (int, float)) else F.pow(float(base), exps)
    return out if dtype is None else F.cast(out, to_dtype(dtype))


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    lo, hi = _number(start, "geomspace", "start"), _number(stop, "geomspace", "stop")
    if lo == 0 or hi == 0:
        raise OpValueError("For 'geomspace', start and stop must not be zero")
    vals, _ = _space(math.log10(lo), math.log10(hi), num, endpoint)
    dt = mstype.float32 if dtype is None else to_dtype(dtype)
    return const((10.0 ** vals).astype(dt.np))


# ---- eye, tri, triangles, diagonals ------------------------------------------------------------------------
def eye(N, M=None, k=0, dtype=mstype.float32):
    return const(np.eye(N, N if M is None else M, k, dtype=np_dtype(dtype)))


def identity(n, dtype=mstype.float32):
    return eye(n, dtype=dtype)


def tri(N, M=None, k=0, dtype=mstype.float32):
    return const(np.tri(N, M, k, dtype=np_dtype(dtype)))


def _tri_mask(x, k, lower):
    if ndim(x) < 1:
        raise OpValueError(f"For '{'tril' if lower else 'triu'}', the input must have at least 1 dimension")
    if ndim(x) == 1:
        x = F.broadcast_to(x, (shape(x)[0],) + shape(x))
    rows, cols = shape(x)[-2:]
    mask = np.tri(rows, cols, k, dtype=bool) if lower else ~np.tri(rows, cols, k - 1, dtype=bool)
    return F.select(F.broadcast_to(const(mask), shape(x)), x, F.zeros_like(x))


def tril(m, k=0):
    return _tri_mask(to_tensor(m), k, True)


def triu(m, k=0):
    return _tri_mask(to_tensor(m), k, False)


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The diagonal at `offset` of the planes of axes axis1 / axis2, as a last axis."""
    a = to_tensor(a)
    nd = ndim(a)
    if nd < 2:
        raise OpValueError("For 'diagonal', the input must have at least 2 dimensions")
    a1, a2 = norm_axis(axis1, nd, "diagonal"), norm_axis(axis2, nd, "diagonal")
    rest = [d for d in builtins.range(nd) if d not in (a1, a2)]
    t = F.transpose(a, tuple(rest) + (a1, a2))
    rows, cols = shape(t)[-2:]
    r0, c0 = (0, offset) if offset >= 0 else (-offset, 0)
    n = builtins.max(builtins.min(rows - r0, cols - c0), 0)
    lead = shape(t)[:-2]
    if n == 0:
        return const(np.zeros(lead + (0,), ttype(a).dtype.np))
    flat = F.reshape(t, lead + (rows * cols,))
    idx = const(np.array([(r0 + i) * cols + c0 + i for i in builtins.range(n)], np.int32))
    return F.gather(flat, idx, len(lead))


def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    """The sum of the diagonal (int64 for ints and bools, as mindspore.numpy's sums)."""
    d = diagonal(a, offset, axis1, axis2)
    if ttype(d).dtype not in (mstype.float16, mstype.float32, mstype.float64):
        d = F.cast(d, mstype.int64)
    return finish(F.reduce_sum(d, (ndim(d) - 1,)), dtype)


def diag(v, k=0):
    """The k-th diagonal of a 2-D tensor, or a 2-D tensor with a 1-D one on its k-th diagonal."""
    v = to_tensor(v)
    if ndim(v) == 2:
        return diagonal(v, k)
    if ndim(v) != 1:
        raise OpValueError(f"For 'diag', the input must be 1-D or 2-D, but got {ndim(v)}-D")
    n = shape(v)[0] + builtins.abs(k)
    pos = np.zeros((n, n, shape(v)[0]), np.float32)
    for i in builtins.range(shape(v)[0]):
        pos[i + builtins.max(-k, 0), i + builtins.max(k, 0), i] = 1
    one_hot = const(pos.astype(ttype(v).dtype.np) if ttype(v).dtype != mstype.bool_ else pos.astype(np.int32))
    vv = v if ttype(v).dtype != mstype.bool_ else F.cast(v, mstype.int32)
    out = F.reduce_sum(F.mul(one_hot, vv), (2,))
    return out if ttype(v).dtype != mstype.bool_ else F.cast(out, mstype.bool_)


def diagflat(v, k=0):
    return diag(F.reshape(to_tensor(v), (-1,)), k)


# ---- grids and index builders -------------------------------------------------------------------------------
def meshgrid(*xi, sparse=False, indexing="xy"):
    if indexing not in ("xy", "ij"):
        raise OpValueError(f"For 'meshgrid', indexing must be 'xy' or 'ij', but got {indexing!r}")
    xs = [F.reshape(to_tensor(x), (-1,)) for x in xi]
    n = len(xs)
    sizes = [shape(x)[0] for x in xs]
    if indexing == "xy" and n >= 2:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    for i, x in enumerate(xs):
        view = [1] * n
        pos = i if indexing == "ij" or n < 2 or i > 1 else 1 - i
        view[pos] = shape(x)[0]
        r = F.reshape(x, tuple(view))
        out.append(r if sparse else F.broadcast_to(r, tuple(sizes)))
    return out


def vander(x, N=None, increasing=False):
    x = to_tensor(x)
    if ndim(x) != 1:
        raise OpValueError("For 'vander', the input must be 1-D")
    n = shape(x)[0] if N is None else N
    pows = np.arange(n, dtype=np.float32)
    if not increasing:
        pows = pows[::-1].copy()
    xf = x if ttype(x).dtype in (mstype.float16, mstype.float32, mstype.float64) else F.cast(x, mstype.float32)
    return F.pow(F.expand_dims(xf, 1), const(pows.astype(ttype(xf).dtype.np)))


def _index_pair(rows, cols):
    return const(rows.astype(np.int32)), const(cols.astype(np.int32))


def tril_indices(n, k=0, m=None):
    return _index_pair(*np.tril_indices(n, k, m))


def triu_indices(n, k=0, m=None):
    return _index_pair(*np.triu_indices(n, k, m))


def _plane(arr, name):
    a = to_tensor(arr)
    if ndim(a) != 2:
        raise OpValueError(f"For '{name}', the input must be a 2-D tensor, but got {ndim(a)}-D")
    return shape(a)


def tril_indices_from(arr, k=0):
    r, c = _plane(arr, "tril_indices_from")
    return tril_indices(r, k, c)


def triu_indices_from(arr, k=0):
    r, c = _plane(arr, "triu_indices_from")
    return triu_indices(r, k, c)


def diag_indices(n, ndim=2):
    return tuple(const(np.arange(n, dtype=np.int32)) for _ in builtins.range(ndim))


def indices(dimensions, dtype=mstype.int32, sparse=False):
    grids = np.indices(tuple(dimensions), dtype=np_dtype(dtype), sparse=sparse)
    return tuple(const(g) for g in grids) if sparse else [const(g) for g in grids]


def ix_(*args):
    out = []
    n = len(args)
    for i, a in enumerate(args):
        a = to_tensor(a)
        if ndim(a) != 1:
            raise OpValueError("For 'ix_', every input must be 1-D")
        out.append(F.reshape(a, (1,) * i + (-1,) + (1,) * (n - i - 1)))
    return tuple(out)


# ---- windows --------------------------------------------------------------------------------------------------
def _window(fn, M):
    return const(fn(M).astype(np.float32))


def bartlett(M):
    return _window(np.bartlett, M)


def blackman(M):
    return _window(np.blackman, M)


def hamming(M):
    return _window(np.hamming, M)


def hanning(M):
    return _window(np.hanning, M)


__all__ = ["array", "asarray", "asfarray", "zeros", "ones", "empty", "full", "zeros_like", "ones_like",
           "empty_like", "full_like", "arange", "linspace", "logspace", "geomspace", "eye", "identity", "tri",
           "tril", "triu", "diagonal", "trace", "diag", "diagflat", "meshgrid", "vander", "tril_indices",
           "triu_indices", "tril_indices_from", "triu_indices_from", "diag_indices", "indices", "ix_",
           "bartlett", "blackman", "hamming", "hanning"]
