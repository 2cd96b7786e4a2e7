"""mindspore.numpy's comparisons and logic: equal / less / ..., isnan / isinf / isfinite and the
signed infinities, logical_*, array_equal / array_equiv / isclose, where, in1d / isin."""
from __future__ import annotations

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.numpy._utils import (NotSupported, finish, is_float, ndim, operand, shape, to_float,
                                    to_tensor, ttype)
from pycompile.ops import functional as F


def _pair(x1, x2):
    return operand(x1), operand(x2)


def _cmp(fn, name):
    def f(x1, x2, dtype=None):
        return finish(fn(*_pair(x1, x2)), dtype)
    f.__name__ = f.__qualname__ = name
    return f


equal = _cmp(F.equal, "equal")
not_equal = _cmp(F.not_equal, "not_equal")
less = _cmp(F.less, "less")
less_equal = _cmp(F.less_equal, "less_equal")
greater = _cmp(F.greater, "greater")
greater_equal = _cmp(F.greater_equal, "greater_equal")


def _bool(x):
    x = to_tensor(x)
    return x if ttype(x).dtype == mstype.bool_ else F.cast(x, mstype.bool_)


def logical_and(x1, x2, dtype=None):
    return finish(F.logical_and(_bool(x1), _bool(x2)), dtype)


def logical_or(x1, x2, dtype=None):
    return finish(F.logical_or(_bool(x1), _bool(x2)), dtype)


def logical_xor(x1, x2, dtype=None):
    a, b = _bool(x1), _bool(x2)
    return finish(F.not_equal(a, b), dtype)


def logical_not(a, dtype=None):
    return finish(F.logical_not(_bool(a)), dtype)


def _float_test(fn, name, int_value):
    def f(x, dtype=None):
        x = to_tensor(x)
        if not is_float(x):
            return finish(F.cast(F.ones_like(x) if int_value else F.zeros_like(x), mstype.bool_), dtype)
        return finish(fn(x), dtype)
    f.__name__ = f.__qualname__ = name
    return f


isnan = _float_test(F.isnan, "isnan", False)
isinf = _float_test(F.isinf, "isinf", False)
isfinite = _float_test(F.isfinite, "isfinite", True)


def isposinf(x):
    x = to_float(to_tensor(x))
    return F.logical_and(F.isinf(x), F.greater(x, 0.0))


def isneginf(x):
    x = to_float(to_tensor(x))
    return F.logical_and(F.isinf(x), F.less(x, 0.0))


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|a - b| <= atol + rtol * |b|, elementwise; infinities equal when they are the same."""
    a, b = to_tensor(a), to_tensor(b)
    a, b = to_float(a), to_float(b)
    diff = F.abs(F.sub(a, b))
    close = F.less_equal(diff, F.add(F.mul(F.abs(b), rtol), atol))
    both_inf = F.logical_and(F.isinf(a), F.equal(a, b))
    out = F.logical_or(F.logical_and(close, F.isfinite(diff)), both_inf)
    if equal_nan:
        out = F.logical_or(out, F.logical_and(F.isnan(a), F.isnan(b)))
    return out


def array_equal(a1, a2, equal_nan=False):
    a1, a2 = to_tensor(a1), to_tensor(a2)
    if shape(a1) != shape(a2):
        return to_tensor(False)
    eq = F.equal(a1, a2)
    if equal_nan and is_float(a1) and is_float(a2):
        eq = F.logical_or(eq, F.logical_and(F.isnan(a1), F.isnan(a2)))
    return _all(eq)


def _all(x):
    return F.equal(F.reduce_min(F.cast(x, mstype.int32), tuple(range(ndim(x)))), 1)


def array_equiv(a1, a2):
    a1, a2 = to_tensor(a1), to_tensor(a2)
    try:
        np.broadcast_shapes(shape(a1), shape(a2))
    except ValueError:
        return to_tensor(False)
    return _all(F.equal(a1, a2))


def where(condition, x=None, y=None):
    if x is None and y is None:
        raise NotSupported("mindspore.numpy.where(condition) (the indices of the true elements) has a "
                                  "data-dependent shape; pass x and y")
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    c = _bool(condition)
    xv, yv = operand(x), operand(y)          # numbers as int32 / float32 tensors, then promoted
    if ttype(xv).dtype != ttype(yv).dtype:
        dt = mstype.promote(ttype(xv).dtype, ttype(yv).dtype)
        xv, yv = F.cast(xv, dt), F.cast(yv, dt)
    out_shape = tuple(np.broadcast_shapes(shape(c), shape(xv), shape(yv)))
    return F.select(F.broadcast_to(c, out_shape), F.broadcast_to(xv, out_shape), F.broadcast_to(yv, out_shape))


def in1d(ar1, ar2, invert=False):
    """Whether each element of ar1 (flattened) is in ar2."""
    return F.reshape(isin(ar1, ar2, invert), (-1,))


def isin(element, test_elements, invert=False):
    e, t = to_tensor(element), F.reshape(to_tensor(test_elements), (-1,))
    hits = F.equal(F.expand_dims(e, ndim(e)), t)
    found = F.greater(F.reduce_sum(F.cast(hits, mstype.int32), (ndim(e),)), 0)
    return F.logical_not(found) if invert else found


__all__ = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and", "logical_or",
           "logical_xor", "logical_not", "isnan", "isinf", "isfinite", "isposinf", "isneginf", "isclose",
           "array_equal", "array_equiv", "where", "in1d", "isin"]
