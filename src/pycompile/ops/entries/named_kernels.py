"""Kernels MindSpore's CPU wheel registers under a primitive name with no public Python class:
a user `PrimitiveWithInfer` subclass of that name runs them (`ops.primitive.register_kernel`),
as MindSpore's own tests do with `Shift` and `Rolling` (pandas' shift / rolling window
reductions). Written with ops, so they trace in graph code like any library function.
Values recorded from the wheel in tests/ops/data/named_kernels.json."""
import numpy as np

import pycompile.ops as ops
from pycompile.common import dtype as mstype
from pycompile.common.parameter import Parameter
from pycompile.common.tensor import Tensor
from pycompile.ops._table import OpValueError
from pycompile.ops.entries.layout_extra import narrow
from pycompile.ops.primitive import register_kernel

_FLOATS = (mstype.float16, mstype.float32, mstype.float64)


@register_kernel("Shift")
def shift(prim, x, fill_value):
    """`x` moved by `periods` along `axis`; the positions left empty hold `fill_value`."""
    periods, axis = int(prim.attrs.get("periods", 1)), int(prim.attrs.get("axis", -1))
    if not -x.ndim <= axis < x.ndim:
        raise OpValueError(f"For 'Shift', 'axis' must be in range [{-x.ndim}, {x.ndim}), but got {axis}.")
    axis %= x.ndim
    n = x.shape[axis]
    if periods == 0:
        return ops.identity(x)
    k = min(abs(periods), n)
    shape = list(x.shape)
    shape[axis] = k
    fill = ops.full(tuple(shape), fill_value, dtype=x.dtype)
    if k == n:
        return fill
    if periods > 0:
        return ops.concat([fill, narrow(x, axis, 0, n - k)], axis)
    return ops.concat([narrow(x, axis, k, n - k), fill], axis)


def _window_bounds(n: int, window: int, center: bool, closed: str):
    """pandas' fixed window bounds: [start, end) of each output position."""
    offset = (window - 1) // 2 if center else 0
    end = np.arange(offset + 1, n + 1 + offset, dtype=np.int64)
    start = end - window
    if closed in ("left", "both"):
        start -= 1
    if closed in ("left", "neither"):
        end -= 1
    return np.clip(start, 0, n), np.clip(end, 0, n)


def _table(prim, key: str, value: np.ndarray):
    """A table the kernel computes from the primitive's attributes, as a constant Parameter kept on
    the primitive: graph code reads it as an input instead of embedding it in the C text, so two
    primitives that differ only in their tables (window, centring, closed side) share one build."""
    tables = prim.__dict__.setdefault("_pycompile_tables", {})
    t = tables.get(key)
    if t is None or t.shape != value.shape or not np.array_equal(t.asnumpy(), value):
        t = tables[key] = Parameter(Tensor(value), name=f"rolling_{key}", requires_grad=False)
    return t


_METHODS = ("max", "min", "mean", "sum", "std", "var")
_CLOSED = ("left", "both", "right", "neither")


@register_kernel("Rolling")
def rolling(prim, x):
    """pandas' `rolling(window, min_periods, center, closed).<method>()` along `axis`: a position
    whose window holds fewer than `min_periods` values is NaN (0 for integers); std / var use one
    degree of freedom; integer means, stds and variances are computed in float64 and truncated."""
    a = prim.attrs
    window, min_periods, center = int(a["window"]), int(a["min_periods"]), bool(a["center"])
    axis, closed, method = int(a["axis"]), a["closed"], a["method"]
    if method not in _METHODS:
        raise OpValueError(f"For 'Rolling', 'method' must be one of {list(_METHODS)}, but got {method}.")
    if closed not in _CLOSED:
        raise OpValueError(f"For 'Rolling', 'closed' must be one of {list(_CLOSED)}, but got {closed}.")
    if not -x.ndim <= axis < x.ndim:
        raise OpValueError(f"For 'Rolling', 'axis' must be in range [{-x.ndim}, {x.ndim}), but got {axis}.")
    if window <= 0 or not 0 < min_periods <= window:
        raise OpValueError(f"For 'Rolling', it requires 0 < min_periods <= window, but got window {window} "
                           f"and min_periods {min_periods}.")
    axis %= x.ndim
    n = x.shape[axis]
    start, end = _window_bounds(n, window, center, closed)
    width = max(int((end - start).max()), 1)
    pos = start[:, None] + np.arange(width)[None, :]                    # (n, width)
    valid = pos < end[:, None]
    count = (end - start).astype(np.float64)
    idx = np.minimum(pos, n - 1).reshape(-1).astype(np.int32)
    is_float = x.dtype in _FLOATS
    work = x if is_float or method in ("max", "min", "sum") else ops.cast(x, mstype.float64)
    xt = ops.moveaxis(work, axis, -1)                                    # (..., n)
    g = ops.reshape(ops.gather(xt, _table(prim, "index", idx), xt.ndim - 1), tuple(xt.shape[:-1]) + (n, width))
    mask = _table(prim, "valid", valid)
    if method in ("max", "min"):
        # the wheel starts a max at numeric_limits<T>::min(): for floats the smallest positive
        # normal, so a window of negative values gives that (recorded); a min at ::max()
        if is_float:
            pad = float(mstype.finfo(x.dtype.np).tiny) if method == "max" else float("inf")
        else:
            info = np.iinfo(x.dtype.np)
            pad = int(info.min) if method == "max" else int(info.max)
        g = ops.select(ops.broadcast_to(mask, g.shape), g, ops.full(g.shape, pad, dtype=g.dtype))
        out = ops.amax(g, -1) if method == "max" else ops.amin(g, -1)
        if is_float and method == "max":
            out = ops.maximum(out, ops.full(out.shape, pad, dtype=out.dtype))
    else:
        zero = ops.zeros(g.shape, g.dtype)
        total = ops.reduce_sum(ops.select(ops.broadcast_to(mask, g.shape), g, zero), -1)
        cnt = _table(prim, "count", np.maximum(count, 1).astype(g.dtype.np))
        if method == "sum":
            out = total
        elif method == "mean":
            out = total / cnt
        else:
            mean = total / cnt
            dev = ops.square(g - ops.expand_dims(mean, -1))
            ss = ops.reduce_sum(ops.select(ops.broadcast_to(mask, g.shape), dev, zero), -1)
            out = ss / _table(prim, "dof", np.maximum(count - 1, 1).astype(g.dtype.np))
            if method == "std":
                out = ops.sqrt(out)
    if out.dtype != x.dtype:
        out = ops.cast(out, x.dtype)
    enough = _table(prim, "enough", end - start >= min_periods)
    empty = ops.full(out.shape, float("nan") if is_float else 0, dtype=x.dtype)
    out = ops.select(ops.broadcast_to(enough, out.shape), out, empty)
    return ops.moveaxis(out, -1, axis)
