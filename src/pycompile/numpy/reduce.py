"""mindspore.numpy's reductions: sum / mean / amax / amin / ptp, argmax / argmin, std / var, the
nan* forms, cumulative sums and products, count_nonzero / sometrue, average and norm. Each is a
composition of pycompile's reduction ops with mindspore.numpy's result dtypes (sums of ints and
bools are int64, the mean of an int tensor stays int, argmax of the flattened tensor is int32)."""
from __future__ import annotations

import builtins

from pycompile.common import dtype as mstype
from pycompile.numpy._utils import (NotSupported, finish, is_float, ndim, norm_axes, norm_axis, shape, to_dtype,
                                    to_float, to_tensor, ttype)
from pycompile.ops import functional as F
from pycompile.ops._table import OpValueError

_INTS = (mstype.int8, mstype.int16, mstype.int32, mstype.int64, mstype.uint8, mstype.uint16, mstype.uint32,
         mstype.uint64)


def _axes(a, axis, name):
    return norm_axes(axis, ndim(a), name)


def _keep(out, a, axes, keepdims):
    if keepdims:
        return F.reshape(out, tuple(1 if d in axes else n for d, n in enumerate(shape(a))))
    return out


def sum(a, axis=None, dtype=None, keepdims=False, initial=None):  # noqa: A001
    a = to_tensor(a)
    if dtype is not None:
        a = F.cast(a, to_dtype(dtype))
    elif ttype(a).dtype == mstype.bool_ or ttype(a).dtype in _INTS:
        a = F.cast(a, mstype.int64)
    axes = _axes(a, axis, "sum")
    out = _keep(F.reduce_sum(a, axes), a, axes, keepdims)
    return out if initial is None else F.add(out, initial)


def mean(a, axis=None, keepdims=False, dtype=None):
    a = to_tensor(a)
    axes = _axes(a, axis, "mean")
    dt = ttype(a).dtype
    if is_float(a):
        out = F.reduce_mean(a, axes)
    else:
        n = 1
        for d in axes:
            n *= shape(a)[d]
        out = F.cast(F.trunc(F.div(F.reduce_sum(F.cast(a, mstype.float64), axes), float(n))), dt)
    return finish(_keep(out, a, axes, keepdims), dtype)


def _extreme(fn, name):
    def f(a, axis=None, keepdims=False, initial=None, where=True):
        a = to_tensor(a)
        if where is not True:
            raise NotSupported(f"mindspore.numpy.{name}: the 'where' argument is not supported yet")
        axes = _axes(a, axis, name)
        out = _keep(fn(a, axes), a, axes, keepdims)
        if initial is not None:
            out = (F.maximum if fn is F.reduce_max else F.minimum)(out, initial)
        return out
    f.__name__ = f.__qualname__ = name
    return f


amax = _extreme(F.reduce_max, "amax")
amin = _extreme(F.reduce_min, "amin")
max = amax  # noqa: A001
min = amin  # noqa: A001


def ptp(x, axis=None, keepdims=False):
    return F.sub(amax(x, axis, keepdims), amin(x, axis, keepdims))


def _arg(fn, name, dt):
    def f(a, axis=None):
        a = to_tensor(a)
        if axis is None:
            a, axis = F.reshape(a, (-1,)), 0
        return F.cast(fn(a, norm_axis(axis, ndim(a), name)), dt)
    f.__name__ = f.__qualname__ = name
    return f


# mindspore.numpy's index dtypes: int64 for argmax, int32 for argmin
argmax = _arg(lambda a, ax: F.argmax(a, ax), "argmax", mstype.int64)
argmin = _arg(lambda a, ax: F.argmin(a, ax), "argmin", mstype.int32)


def var(x, axis=None, ddof=0, keepdims=False):
    """The mean squared deviation from the mean; for an int tensor from its int (truncated) mean,
    as mindspore.numpy computes it, in float32."""
    x = to_tensor(x)
    axes = _axes(x, axis, "var")
    n = 1
    for d in axes:
        n *= shape(x)[d]
    dev = to_float(F.sub(x, mean(x, axes, True)))
    out = F.div(F.reduce_sum(F.mul(dev, dev), axes), float(builtins.max(n - ddof, 0)))
    return _keep(out, x, axes, keepdims)


def std(x, axis=None, ddof=0, keepdims=False):
    return F.sqrt(var(x, axis, ddof, keepdims))


# ---- nan reductions -------------------------------------------------------------------------------------
def _nan_fill(a, value):
    a = to_tensor(a)
    if not is_float(a):
        return a, None
    nan = F.isnan(a)
    return F.select(nan, F.add(F.zeros_like(a), value), a), nan


def nansum(a, axis=None, dtype=None, keepdims=False):
    """The sum of the non-NaN values; an int tensor's keeps its dtype (unlike sum's int64)."""
    filled, _ = _nan_fill(a, 0.0)
    return sum(filled, axis, ttype(filled).dtype if dtype is None else dtype, keepdims)


def _count(a, nan, axes):
    if nan is None:
        n = 1
        for d in axes:
            n *= shape(a)[d]
        return float(n)
    return F.reduce_sum(F.cast(F.logical_not(nan), ttype(a).dtype), axes)


def nanmean(a, axis=None, dtype=None, keepdims=False):
    a = to_tensor(a)
    filled, nan = _nan_fill(a, 0.0)
    axes = _axes(a, axis, "nanmean")
    out = F.div(F.reduce_sum(filled, axes), _count(a, nan, axes))
    return finish(_keep(out, a, axes, keepdims), dtype)


def nanmax(a, axis=None, dtype=None, keepdims=False):
    filled, _ = _nan_fill(a, float("-inf"))
    return finish(amax(filled, axis, keepdims), dtype)


def nanmin(a, axis=None, dtype=None, keepdims=False):
    filled, _ = _nan_fill(a, float("inf"))
    return finish(amin(filled, axis, keepdims), dtype)


def nanvar(a, axis=None, dtype=None, ddof=0, keepdims=False):
    a = to_float(to_tensor(a))
    filled, nan = _nan_fill(a, 0.0)
    axes = _axes(a, axis, "nanvar")
    cnt = _count(a, nan, axes)
    m = F.div(F.reduce_sum(filled, axes), cnt)
    m = _keep(m, a, axes, True)
    dev = F.select(nan, F.zeros_like(a), F.sub(a, m))
    out = F.div(F.reduce_sum(F.mul(dev, dev), axes), F.sub(cnt, float(ddof)) if not isinstance(cnt, float)
                else cnt - ddof)
    return finish(_keep(out, a, axes, keepdims), dtype)


def nanstd(a, axis=None, dtype=None, ddof=0, keepdims=False):
    return finish(F.sqrt(nanvar(a, axis, None, ddof, keepdims)), dtype)


# ---- cumulative ------------------------------------------------------------------------------------------------
def _cumulative(fn, a, axis, dtype, name):
    a = to_tensor(a)
    if axis is None:
        a, axis = F.reshape(a, (-1,)), 0
    if dtype is not None:
        a = F.cast(a, to_dtype(dtype))
    elif ttype(a).dtype == mstype.bool_:
        a = F.cast(a, mstype.int32)
    return fn(a, norm_axis(axis, ndim(a), name))


def cumsum(a, axis=None, dtype=None):
    return _cumulative(F.cumsum, a, axis, dtype, "cumsum")


def cumprod(a, axis=None, dtype=None):
    from pycompile.ops import function_math as M
    return _cumulative(lambda x, ax: F.cast(M.cumprod(x, ax), ttype(x).dtype), a, axis, dtype, "cumprod")


def nancumsum(a, axis=None, dtype=None):
    filled, _ = _nan_fill(a, 0.0)
    return cumsum(filled, axis, dtype)


# ---- counting, averages, norms -----------------------------------------------------------------------------
def count_nonzero(x, axis=None, keepdims=False):
    x = to_tensor(x)
    nz = F.cast(F.not_equal(x, F.zeros_like(x)) if ttype(x).dtype != mstype.bool_ else x, mstype.int32)
    axes = _axes(x, axis, "count_nonzero")
    return _keep(F.reduce_sum(nz, axes), x, axes, keepdims)


def sometrue(a, axis=None, keepdims=False):
    return F.greater(count_nonzero(a, axis, keepdims), 0)


def average(x, axis=None, weights=None, returned=False):
    x = to_tensor(x)
    if weights is None:              # an int tensor's average is its int mean, as mindspore.numpy's
        avg = mean(x, axis)
        axes = _axes(x, axis, "average")
        n = 1
        for d in axes:
            n *= shape(x)[d]
        wsum = F.add(F.zeros_like(avg), float(n))
    else:
        x = to_float(x)
        w = to_float(to_tensor(weights))
        if shape(w) != shape(x):
            if axis is None or ndim(w) != 1:
                raise OpValueError("For 'average', weights must have the input's shape, or be 1-D along the axis")
            ax = norm_axis(axis, ndim(x), "average")
            w = F.reshape(w, tuple(shape(w)[0] if d == ax else 1 for d in builtins.range(ndim(x))))
        axes = _axes(x, axis, "average")
        wsum = F.reduce_sum(F.mul(F.ones_like(x), w), axes)
        avg = F.div(F.reduce_sum(F.mul(x, w), axes), wsum)
    return (avg, wsum) if returned else avg


def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002
    """Vector norms (1-D, or along one axis) and the Frobenius / 1 / inf matrix norms."""
    x = to_float(to_tensor(x))
    if axis is None and ord is not None and ndim(x) > 2:
        raise OpValueError("For 'norm', the input must be 1-D or 2-D when axis is None and ord is given")
    if axis is None and (ord is None or ord == "fro" or ndim(x) == 1):
        axes = tuple(builtins.range(ndim(x)))
        if ord in (None, "fro", 2) or ndim(x) > 1:
            return _keep(F.sqrt(F.reduce_sum(F.mul(x, x), axes)), x, axes, keepdims)
        return _vector_norm(x, ord, axes, keepdims)
    axes = _axes(x, axis, "norm")
    if len(axes) == 1:
        return _vector_norm(x, ord, axes, keepdims)
    if ord in (None, "fro"):
        return _keep(F.sqrt(F.reduce_sum(F.mul(x, x), axes)), x, axes, keepdims)
    raise NotSupported(f"mindspore.numpy.norm: the matrix norm ord={ord!r} is not supported yet")


def _vector_norm(x, ord, axes, keepdims):  # noqa: A002
    a = F.abs(x)
    if ord is None or ord == 2:
        out = F.sqrt(F.reduce_sum(F.mul(x, x), axes))
    elif ord == float("inf"):
        out = F.reduce_max(a, axes)
    elif ord == float("-inf"):
        out = F.reduce_min(a, axes)
    elif ord == 0:
        out = F.reduce_sum(F.cast(F.not_equal(x, F.zeros_like(x)), ttype(x).dtype), axes)
    elif ord == 1:
        out = F.reduce_sum(a, axes)
    else:
        out = F.pow(F.reduce_sum(F.pow(a, float(ord)), axes), 1.0 / ord)
    return _keep(out, x, axes, keepdims)


__all__ = ["sum", "mean", "amax", "amin", "max", "min", "ptp", "argmax", "argmin", "var", "std", "nansum",
           "nanmean", "nanmax", "nanmin", "nanvar", "nanstd", "cumsum", "cumprod", "nancumsum", "count_nonzero",
           "sometrue", "average", "norm"]
