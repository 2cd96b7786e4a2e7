"""mindspore.numpy's elementwise math: arithmetic, powers and logs, trigonometry, rounding,
minimum / maximum / clip, gcd / lcm and the bitwise functions. Each is a composition of pycompile
ops (broadcasting and type promotion are the ops'), then the `dtype=` cast mindspore.numpy's
functions take. Python numbers are promoted as MindSpore promotes them; lists become constants.
"""
from __future__ import annotations

import math as _m

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.numpy._utils import const, finish, is_float, is_tensor, like, operand, to_float, to_tensor, ttype
from pycompile.ops import functional as F
import pycompile.ops as ops


def _t(x):
    return to_tensor(x)


def _pair(x1, x2):
    """Operands of a binary function, as tensors."""
    return operand(x1), operand(x2)


def _unary(fn):
    def f(x, dtype=None):
        return finish(fn(_t(x)), dtype)
    f.__name__ = fn.__name__
    return f


def _float_unary(fn, name):
    def f(x, dtype=None):
        return finish(fn(to_float(_t(x))), dtype)
    f.__name__ = f.__qualname__ = name
    return f


# ---- arithmetic --------------------------------------------------------------------------------------------
def add(x1, x2, dtype=None):
    return finish(F.add(*_pair(x1, x2)), dtype)


def subtract(x1, x2, dtype=None):
    return finish(F.sub(*_pair(x1, x2)), dtype)


def multiply(x1, x2, dtype=None):
    return finish(F.mul(*_pair(x1, x2)), dtype)


def divide(x1, x2, dtype=None):
    """True division: ints divide as float32."""
    a, b = _pair(x1, x2)
    if not (is_float(a) or is_float(b)):
        a, b = to_float(a), to_float(b)
    return finish(F.div(a, b), dtype)


true_divide = divide


def power(x1, x2, dtype=None):
    return finish(F.pow(*_pair(x1, x2)), dtype)


def float_power(x1, x2, dtype=None):
    a, b = _pair(x1, x2)
    return finish(F.pow(to_float(a), to_float(b)), dtype)


def floor_divide(x1, x2, dtype=None):
    return finish(ops.floor_divide(*_pair(x1, x2)), dtype)


def remainder(x1, x2, dtype=None):
    return finish(ops.remainder(*_pair(x1, x2)), dtype)


mod = remainder


def fmod(x1, x2, dtype=None):
    return finish(ops.fmod(*_pair(x1, x2)), dtype)


def divmod(x1, x2, dtype=None):  # noqa: A001  (mindspore.numpy's name)
    return floor_divide(x1, x2, dtype), remainder(x1, x2, dtype)


def negative(a, dtype=None):
    return finish(F.neg(_t(a)), dtype)


def positive(a, dtype=None):
    a = _t(a)
    return finish(F.mul(a, 1) if ttype(a).dtype != mstype.bool_ else a, dtype)


def absolute(x, dtype=None):
    return finish(F.abs(_t(x)), dtype)


abs = absolute  # noqa: A001


def fabs(x, dtype=None):
    return finish(F.abs(_t(x)), dtype)


def square(x, dtype=None):
    x = _t(x)
    return finish(F.mul(x, x), dtype)


def reciprocal(x, dtype=None):
    x = _t(x)
    return finish(F.div(1, x) if is_float(x) else F.floor_div(1, x), dtype)


def sqrt(x, dtype=None):
    return finish(F.sqrt(to_float(_t(x))), dtype)


def cbrt(x, dtype=None):
    x = to_float(_t(x))
    return finish(F.mul(F.sign(x), F.pow(F.abs(x), 1.0 / 3.0)), dtype)


exp = _float_unary(F.exp, "exp")
log = _float_unary(F.log, "log")
expm1 = _float_unary(ops.expm1, "expm1")
log1p = _float_unary(ops.log1p, "log1p")
log2 = _float_unary(ops.log2, "log2")
log10 = _float_unary(ops.log10, "log10")


def exp2(x, dtype=None):
    """2 ** x: an int tensor gives ints, as mindspore.numpy's."""
    x = _t(x)
    return finish(F.pow(2.0, x) if is_float(x) else F.pow(F.cast(const(np.array(2)), ttype(x).dtype), x), dtype)


# ---- trigonometry -----------------------------------------------------------------------------------------
sin = _float_unary(ops.sin, "sin")
cos = _float_unary(ops.cos, "cos")
tan = _float_unary(ops.tan, "tan")
arcsin = _float_unary(ops.asin, "arcsin")
arctan = _float_unary(ops.atan, "arctan")
sinh = _float_unary(ops.sinh, "sinh")
cosh = _float_unary(ops.cosh, "cosh")
tanh = _float_unary(ops.tanh, "tanh")
arcsinh = _float_unary(ops.asinh, "arcsinh")
arccosh = _float_unary(ops.acosh, "arccosh")
arctanh = _float_unary(ops.atanh, "arctanh")


def arccos(input, dtype=None):  # noqa: A002  (mindspore.numpy's argument name)
    return finish(ops.acos(to_float(_t(input))), dtype)


def arctan2(x1, x2, dtype=None):
    return finish(ops.atan2(to_float(_t(x1)), to_float(_t(x2))), dtype)


def hypot(x1, x2, dtype=None):
    return finish(ops.hypot(to_float(_t(x1)), to_float(_t(x2))), dtype)


def deg2rad(x, dtype=None):
    return finish(F.mul(to_float(_t(x)), _m.pi / 180.0), dtype)


radians = deg2rad


def rad2deg(x, dtype=None):
    return finish(F.mul(to_float(_t(x)), 180.0 / _m.pi), dtype)


def logaddexp(x1, x2, dtype=None):
    return finish(ops.logaddexp(to_float(_t(x1)), to_float(_t(x2))), dtype)


def logaddexp2(x1, x2, dtype=None):
    return finish(ops.logaddexp2(to_float(_t(x1)), to_float(_t(x2))), dtype)


def copysign(x1, x2, dtype=None):
    """|x1| with the sign of x2; an int x1 stays int (mindspore.numpy)."""
    a, b = _pair(x1, x2)
    if is_float(a):
        return finish(ops.copysign(a, to_float(b)), dtype)
    neg = ops.signbit(to_float(b))
    mag = F.abs(a)
    shape = tuple(np.broadcast_shapes(tuple(ttype(mag).shape), tuple(ttype(neg).shape)))
    return finish(F.select(F.broadcast_to(neg, shape), F.broadcast_to(F.neg(mag), shape),
                           F.broadcast_to(mag, shape)), dtype)


def heaviside(x1, x2, dtype=None):
    """0 where x1 < 0, x2 where x1 == 0, 1 where x1 > 0, in the promoted dtype of both."""
    a, b = _pair(x1, x2)
    dt = mstype.promote(ttype(a).dtype, ttype(b).dtype)
    a, b = F.cast(a, dt), F.cast(b, dt)
    shape = tuple(np.broadcast_shapes(tuple(ttype(a).shape), tuple(ttype(b).shape)))
    a, b = F.broadcast_to(a, shape), F.broadcast_to(b, shape)
    zero = F.zeros_like(a)
    out = F.select(F.less(a, zero), zero, F.select(F.greater(a, zero), F.ones_like(a), b))
    return finish(out, dtype)


# ---- rounding and sign ------------------------------------------------------------------------------------
floor = _float_unary(ops.floor, "floor")
ceil = _float_unary(ops.ceil, "ceil")
trunc = _float_unary(ops.trunc, "trunc")
rint = _float_unary(ops.round, "rint")


def fix(x):
    return trunc(x)


def sign(x, dtype=None):
    """-1, 0 or 1 as float32 for an integer input (mindspore.numpy's dtype)."""
    return finish(F.sign(to_float(_t(x))), dtype)


def signbit(x, dtype=None):
    return finish(ops.signbit(to_float(_t(x))), dtype)


# ---- minimum, maximum, clip ----------------------------------------------------------------------------------
def _bounded(fn, x1, x2):
    """maximum / minimum: a Python number takes the tensor's dtype (mindspore.numpy casts it)."""
    if is_tensor(x1) and not is_tensor(x2):
        return fn(x1, like(x1, x2))
    if is_tensor(x2) and not is_tensor(x1):
        return fn(like(x2, x1), x2)
    return fn(*_pair(x1, x2))


def maximum(x1, x2, dtype=None):
    return finish(_bounded(F.maximum, x1, x2), dtype)


def minimum(x1, x2, dtype=None):
    return finish(_bounded(F.minimum, x1, x2), dtype)


def clip(x, xmin, xmax, dtype=None):
    """x limited to [xmin, xmax] (either may be None); number bounds take x's dtype."""
    x = _t(x)
    if xmin is None and xmax is None:
        raise ValueError("One of max or min must be given.")
    if xmin is not None:
        x = _bounded(F.maximum, x, xmin)
    if xmax is not None:
        x = _bounded(F.minimum, x, xmax)
    return finish(x, dtype)


# ---- integer functions -----------------------------------------------------------------------------------------
_GCD_STEPS = 64        # Euclid's steps: enough for any pair of 64-bit ints (Fibonacci bound ~92 for 2**63)


def gcd(x1, x2, dtype=None):
    """Euclid's algorithm run a fixed number of steps (graph code has no data-dependent loops)."""
    a, b = F.abs(_t(x1)), F.abs(_t(x2))
    a, b = F.broadcast_to(a, _bshape(a, b)), F.broadcast_to(b, _bshape(a, b))
    zero = F.zeros_like(b)
    steps = 92 if ttype(a).dtype in (mstype.int64, mstype.uint64) else 48
    for _ in range(steps):
        nz = F.not_equal(b, zero)
        safe = F.select(nz, b, F.ones_like(b))
        a, b = F.select(nz, b, a), F.select(nz, ops.fmod(a, safe), zero)
    return finish(a, dtype)


def _bshape(a, b):
    return tuple(np.broadcast_shapes(tuple(ttype(a).shape), tuple(ttype(b).shape)))


def lcm(x1, x2, dtype=None):
    a, b = F.abs(_t(x1)), F.abs(_t(x2))
    g = gcd(a, b)
    safe = F.select(F.equal(g, F.zeros_like(g)), F.ones_like(g), g)
    return finish(F.mul(F.floor_div(a, safe), b), dtype)


def bitwise_and(x1, x2, dtype=None):
    return finish(F.bitwise_and(*_pair(x1, x2)), dtype)


def bitwise_or(x1, x2, dtype=None):
    return finish(F.bitwise_or(*_pair(x1, x2)), dtype)


def bitwise_xor(x1, x2, dtype=None):
    return finish(F.bitwise_xor(*_pair(x1, x2)), dtype)


def invert(x, dtype=None):
    """~x: the logical not of a bool tensor, all bits flipped for an integer one."""
    x = _t(x)
    dt = ttype(x).dtype
    if dt == mstype.bool_:
        return finish(F.logical_not(x), dtype)
    mask = np.array(-1).astype(dt.np) if dt.np.kind == "i" else np.iinfo(dt.np).max
    return finish(F.bitwise_xor(x, const(np.asarray(mask, dt.np))), dtype)


bitwise_not = invert

__all__ = ["add", "subtract", "multiply", "divide", "true_divide", "power", "float_power", "floor_divide",
           "remainder", "mod", "fmod", "divmod", "negative", "positive", "absolute", "abs", "fabs", "square",
           "reciprocal", "sqrt", "cbrt", "exp", "log", "expm1", "log1p", "log2", "log10", "exp2", "sin", "cos",
           "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh",
           "arctan2", "hypot", "deg2rad", "radians", "rad2deg", "logaddexp", "logaddexp2", "copysign",
           "heaviside", "floor", "ceil", "trunc", "rint", "fix", "sign", "signbit", "maximum", "minimum", "clip",
           "gcd", "lcm", "bitwise_and", "bitwise_or", "bitwise_xor", "invert", "bitwise_not"]
