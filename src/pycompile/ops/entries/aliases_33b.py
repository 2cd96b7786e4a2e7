"""MindSpore 2.10's other names for ops pycompile has: the `tensor_*` forms (tensor_div, tensor_gt,
...), the `scalar_*` and `bool_*` functions of Python numbers (the graph's scalar arithmetic),
top_k, type_as, view_as, soft_shrink, adjoint, approximate_equal, aminmax, expand, and the
Primitive classes TensorAdd, TruncateDiv, TruncateMod, SquaredDifference, DivNoNan, MulNoNan,
Rint. Values recorded from the wheel in tests/conformance/cases_33b.py."""
import math
import operator

import numpy as np

import pycompile.ops as ops
from pycompile.common import dtype as mstype
from pycompile.common.tensor import TensorMethods
from pycompile.ops import functional as F
from pycompile.ops._table import OpRuntimeError, OpTypeError, OpValueError
from pycompile.ops.entry import Arg, op_entry

_TWO = [Arg("input", "tensor|number"), Arg("other", "tensor|number")]
_XY = [Arg("x", "tensor|number"), Arg("y", "tensor|number")]


def _alias(name, target, args, doc):
    def impl(**kw):
        return getattr(ops, target)(*kw.values())
    impl.__doc__ = doc
    impl.__module__ = __name__
    op_entry(name, args=args)(impl)


for _n, _t, _a in (("tensor_div", "div", _XY), ("tensor_gt", "greater", _TWO), ("tensor_ge", "greater_equal", _TWO),
                   ("tensor_le", "less_equal", _TWO), ("tensor_lt", "less", _TWO), ("tensor_sub", "sub", _TWO),
                   ("tensor_mod", "floor_mod", _XY), ("tensor_floordiv", "floor_divide", _TWO),
                   ("tensor_muls", "mul", _TWO)):
    _alias(_n, _t, _a, f"ops.{_t}'s alias.")
for _n, _t in (("tensor_exp", "exp"), ("tensor_expm1", "expm1")):
    _alias(_n, _t, [Arg("input")], f"ops.{_t}'s alias.")


# ---- Python-number functions (the scalar ops of graph code) -------------------------------------------
def _number(v, op):
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise OpTypeError(f"For '{op}', the input must be a number (int or float), but got {type(v).__name__}.")


def _boolean(v, op):
    if not isinstance(v, (bool, np.bool_)):
        raise OpTypeError(f"For '{op}', the input must be a bool, but got {type(v).__name__}.")


def _scalar_div(x, y):
    if y == 0:
        raise OpValueError("For 'ScalarDiv', the divisor can not be zero.")
    return x / y


def _scalar_floordiv(x, y):
    if y == 0:
        raise OpValueError("For 'ScalarFloorDiv', the divisor can not be zero.")
    return x // y


def _scalar_mod(x, y):
    if y == 0:
        raise OpValueError("For 'ScalarMod', the divisor can not be zero.")
    return x % y


def _scalar(name, fn, nargs, check=_number, doc=""):
    names = ("x", "y")[:nargs]

    def impl(**kw):
        return fn(*(kw[n] for n in names))
    impl.__doc__ = doc
    impl.__module__ = __name__
    op_entry(name, prim_name="".join(p.capitalize() for p in name.split("_")),
             args=[Arg(n, "value", check=check) for n in names])(impl)


for _n, _f, _d in (("scalar_add", operator.add, "x + y"), ("scalar_sub", operator.sub, "x - y"),
                   ("scalar_mul", operator.mul, "x * y"), ("scalar_div", _scalar_div, "x / y (a float)"),
                   ("scalar_floordiv", _scalar_floordiv, "x // y"), ("scalar_mod", _scalar_mod, "x % y"),
                   ("scalar_pow", operator.pow, "x ** y"), ("scalar_eq", operator.eq, "x == y"),
                   ("scalar_ne", operator.ne, "x != y"), ("scalar_lt", operator.lt, "x < y"),
                   ("scalar_le", operator.le, "x <= y"), ("scalar_gt", operator.gt, "x > y"),
                   ("scalar_ge", operator.ge, "x >= y"), ("scalar_max", max, "max(x, y)"),
                   ("scalar_min", min, "min(x, y)")):
    _scalar(_n, _f, 2, doc=f"{_d} of two Python numbers.")
_scalar("scalar_log", math.log, 1, doc="The natural logarithm of a Python number.")
_scalar("scalar_uadd", operator.pos, 1, doc="+x of a Python number.")
_scalar("scalar_usub", operator.neg, 1, doc="-x of a Python number.")
_scalar("bool_and", operator.and_, 2, _boolean, "x and y of two Python bools.")
_scalar("bool_or", operator.or_, 2, _boolean, "x or y of two Python bools.")
_scalar("bool_eq", operator.eq, 2, _boolean, "x == y of two Python bools.")
_scalar("bool_not", operator.not_, 1, _boolean, "not x of a Python bool.")


# ---- tensor aliases ----------------------------------------------------------------------------------
@op_entry("top_k", args=[Arg("input_x"), Arg("k", "value"), Arg("sorted", "value", default=True)])
def top_k(input_x, k, sorted=True):
    """The k largest values of the last axis and their indices (ops.TopK's functional form)."""
    return ops.topk(input_x, k, sorted=sorted)


@op_entry("type_as", args=[Arg("input"), Arg("other")])
def type_as(input, other):
    """input cast to other's dtype."""
    return input if input.dtype == other.dtype else F.cast(input, other.dtype)


@op_entry("view_as", args=[Arg("input"), Arg("other")])
def view_as(input, other):
    """input reshaped to other's shape."""
    return ops.reshape(input, tuple(other.shape))


@op_entry("soft_shrink", args=[Arg("input"), Arg("lambd", "value", default=0.5)])
def soft_shrink(input, lambd=0.5):
    """ops.softshrink's alias."""
    return ops.softshrink(input, lambd)


@op_entry("adjoint", args=[Arg("x")])
def adjoint(x):
    """The conjugate transpose of the last two axes (the transpose, for real tensors)."""
    if x.ndim < 2:
        raise OpValueError(f"For 'adjoint', the input must have at least 2 dimensions, but got {x.ndim}.")
    return ops.swapaxes(x, -1, -2)


def _tolerance(v, op):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise OpTypeError(f"For '{op}', the type of 'tolerance' should be 'float', but got "
                          f"'{type(v).__name__}'.")


@op_entry("approximate_equal", primitive="ApproximateEqual",
          args=[Arg("x", dtypes=frozenset({mstype.float16, mstype.float32, mstype.float64})),
                Arg("y", dtypes=frozenset({mstype.float16, mstype.float32, mstype.float64})),
                Arg("tolerance", "value", default=1e-05, init=True, check=_tolerance)])
def approximate_equal(x, y, tolerance=1e-05):
    """|x - y| < tolerance, elementwise (x and y of one shape; y cast to x's dtype, as the wheel's
    implicit conversion does; rank below 8, MindSpore's CPU kernel's limit)."""
    if len(x.shape) >= 8:
        raise OpRuntimeError(f"For 'ApproximateEqual', the x's rank should be less than 8, but got {len(x.shape)}.")
    if tuple(x.shape) != tuple(y.shape):
        raise OpValueError(f"For 'ApproximateEqual', 'x1' must have the same shape as 'x2', but got "
                           f"{list(x.shape)} and {list(y.shape)}.")
    if x.dtype != y.dtype:
        y = F.cast(y, x.dtype)
    return F.less(F.abs(x - y), tolerance)


@op_entry("aminmax", args=[Arg("input"), Arg("axis", "value", default=0, keyword=True),
                           Arg("keepdims", "value", default=False, keyword=True)])
def aminmax(input, axis=0, keepdims=False):
    """(min, max) of input over one axis."""
    return ops.amin(input, axis, keepdims), ops.amax(input, axis, keepdims)


def _sizes(size):
    if isinstance(size, TensorMethods):
        if not hasattr(size, "asnumpy"):
            raise OpValueError("For 'expand', a 'size' Tensor must be known when the graph is compiled: "
                               "give the sizes as a tuple of ints in graph code.")
        return tuple(int(s) for s in size.asnumpy().reshape(-1))
    return tuple(int(s) for s in size)


@op_entry("expand", args=[Arg("input_x"), Arg("size", "value")])
def expand(input_x, size):
    """input_x broadcast to `size` (a 1-D int Tensor or a tuple; -1 keeps an axis' size)."""
    sizes = _sizes(size)
    lead = len(sizes) - input_x.ndim
    if lead < 0:
        raise OpValueError(f"For 'expand', 'size' must have at least the input's {input_x.ndim} dimensions, "
                           f"but got {len(sizes)}.")
    return ops.broadcast_to(input_x, tuple(input_x.shape[i - lead] if s == -1 and i >= lead else s
                                           for i, s in enumerate(sizes)))


# ---- Primitive classes of existing functions -------------------------------------------------------
def _prim(name, fn, args, doc):
    def impl(**kw):
        return fn(*kw.values())
    impl.__doc__ = doc
    impl.__module__ = __name__
    op_entry(f"prim_{name}", primitive=name, functional=False, args=args)(impl)


_prim("TensorAdd", lambda x, y: F.add(x, y), _XY, "The deprecated name of ops.Add.")
_prim("TruncateDiv", lambda x, y: ops.truncate_div(x, y), _XY, "ops.truncate_div's class form.")
_prim("TruncateMod", lambda x, y: ops.truncate_mod(x, y), _XY, "ops.truncate_mod's class form.")
_prim("SquaredDifference", lambda x, y: F.square(F.sub(x, y)), _XY, "(x - y) ** 2.")
def _div_no_nan(x, y):
    q = F.div(x, y)
    yt = y if isinstance(y, TensorMethods) else F.fill(q.dtype, (), y)
    # MindSpore's CPU kernel takes |y| below the dtype's epsilon for 0 (1e-30 / -1e-30 gives 0)
    tiny = F.less(F.abs(yt), float(mstype.finfo(q.dtype.np).eps)) if q.dtype.is_float else F.equal(yt, 0)
    return ops.where(tiny, F.zeros_like(q), q)


_prim("DivNoNan", _div_no_nan, _XY, "x / y, and 0 where |y| is below the dtype's epsilon (0 for integers).")
_prim("MulNoNan", lambda x, y: ops.where(F.equal(y, 0), F.zeros_like(F.mul(x, y)), F.mul(x, y)), _XY,
      "x * y, and 0 where y is 0 (even where x is inf or nan).")
_prim("Rint", lambda x: ops.round(x), [Arg("x")], "Round half to even.")
