"""Unary math MindSpore 2.10 builds from other ops: deg2rad / rad2deg, sinc, logit, frac,
positive, exp2, log10, sgn, signbit, isneginf / isposinf / isreal, is_floating_point /
is_complex. Edge values recorded in tests/conformance/cases_entries.py."""
import math

import pycompile.ops as ops
from pycompile.common import dtype as mstype
from pycompile.common.tensor import TensorMethods
from pycompile.ops import functional as F
from pycompile.ops._table import OpTypeError
from pycompile.ops.entry import Arg, op_entry


def _float_only(v, op):
    if isinstance(v, TensorMethods) and v.dtype not in (mstype.float16, mstype.float32, mstype.float64):
        raise OpTypeError(f"The 'x' should be one of [mindspore.float16, mindspore.float32, mindspore.float64], "
                          f"but got 'mindspore.{str(v.dtype).lower()}'.")


@op_entry("deg2rad", tensor_method=True, args=[Arg("x", check=_float_only)])
def deg2rad(x):
    """Degrees to radians: x * pi / 180 (float inputs only)."""
    return x * (math.pi / 180.0)


@op_entry("rad2deg", tensor_method=True, args=[Arg("x", check=_float_only)])
def rad2deg(x):
    """Radians to degrees: x * 180 / pi (float inputs only)."""
    return x * (180.0 / math.pi)


@op_entry("sinc", primitive="Sinc", tensor_method=True, args=[Arg("input")])
def sinc(input):
    """sin(pi x) / (pi x), 1 at 0; integer and bool inputs give float32."""
    x = input if input.dtype.is_float else F.cast(input, mstype.float32)
    px = x * math.pi
    return ops.where(F.equal(x, 0), F.ones_like(x), F.sin(px) / px)


def _eps(v, op):
    if v is not None and not isinstance(v, (int, float)):
        raise OpTypeError(f"For 'Logit', the type of 'eps' should be float, but got {type(v).__name__}.")


@op_entry("logit", primitive="Logit", tensor_method=True,
          args=[Arg("input", dtypes=frozenset({mstype.float16, mstype.float32, mstype.float64})),
                Arg("eps", "value", default=None, init=True, check=_eps)])
def logit(input, eps=None):
    """log(x / (1 - x)); with eps >= 0 the input is first clamped to [eps, 1 - eps] (eps None or
    negative: no clamp; the Primitive's default is -1.0)."""
    x = input
    if eps is not None and eps >= 0:
        x = ops.clamp(x, eps, 1.0 - eps)
    return F.log(x / (1.0 - x))


@op_entry("frac", tensor_method=True, args=[Arg("x")])
def frac(x):
    """The fractional part, with the sign of x: fmod(x, 1) (inf gives nan, -0 stays -0)."""
    return ops.fmod(x, 1)


@op_entry("positive", tensor_method=True, args=[Arg("input")])
def positive(input):
    """The input itself (MindSpore returns the same tensor)."""
    return input


@op_entry("exp2", args=[Arg("input")])
def exp2(input):
    """2 ** input; integer inputs give float32."""
    return F.pow(2.0, input if input.dtype.is_float or input.dtype.is_complex else F.cast(input, mstype.float32))


@op_entry("log10", tensor_method=True, amp="full", args=[Arg("input")])
def log10(input):
    """log(input) / log(10); float inputs only (MindSpore's CPU Log has no integer kernel)."""
    if input.dtype.is_complex:
        return F.log(input) / math.log(10)
    if not input.dtype.is_float:
        raise OpTypeError(f"For 'log10', the CPU Log kernel does not support {input.dtype}: use a float input.")
    return F.log(input) / F.log(F.fill(input.dtype, (), 10))


@op_entry("sgn", tensor_method=True, args=[Arg("input")])
def sgn(input):
    """sign(input) for real tensors; z / |z| (0 at 0) for complex ones."""
    if input.dtype.is_complex:
        q = F.div(input, F.abs(input))
        return ops.where(F.equal(input, 0), F.zeros_like(q), q)
    return F.sign(input)


@op_entry("signbit", tensor_method=True, args=[Arg("input")])
def signbit(input):
    """input < 0, as MindSpore computes it (so -0.0 gives False, unlike C's signbit)."""
    return F.less(input, 0)


@op_entry("isneginf", tensor_method=True, args=[Arg("input")])
def isneginf(input):
    """Where input is -inf."""
    return F.logical_and(F.isinf(input), F.less(input, 0))


@op_entry("isposinf", tensor_method=True, args=[Arg("input")])
def isposinf(input):
    """Where input is +inf."""
    return F.logical_and(F.isinf(input), F.greater(input, 0))


@op_entry("isreal", tensor_method=True, args=[Arg("input")])
def isreal(input):
    """True everywhere for a real dtype; for a complex one where the imaginary part is 0."""
    if input.dtype.is_complex:
        return F.equal(ops.imag(input), 0)
    return F.cast(F.ones_like(input), mstype.bool_)


@op_entry("is_floating_point", tensor_method=True, args=[Arg("input")])
def is_floating_point(input):
    """Whether the dtype is a float type (a Python bool)."""
    return input.dtype.is_float


@op_entry("is_complex", tensor_method=True, args=[Arg("input")])
def is_complex(input):
    """Whether the dtype is complex64 or complex128 (a Python bool)."""
    return input.dtype.is_complex
