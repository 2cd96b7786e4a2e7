"""Binary math that MindSpore 2.10 builds from other ops (or that its Primitive computes as this
composition): hypot, xlogy, xdivy, copysign, heaviside, float_power, fmax / fmin, addcdiv /
addcmul, lerp, logical_xor. Edge values (0, -0, inf, nan) are recorded from the wheel in
tests/conformance/cases_entries.py."""
import numbers

import pycompile.ops as ops
from pycompile.common import dtype as mstype
from pycompile.common.tensor import TensorMethods
from pycompile.ops import functional as F
from pycompile.ops._table import OpTypeError, OpValueError
from pycompile.ops.entry import FLOAT, Arg, op_entry

_F32_F64 = frozenset({mstype.float32, mstype.float64})


def _hypot_dtype(v, op):
    if isinstance(v, TensorMethods) and v.dtype not in _F32_F64:
        raise OpTypeError(f"For primitive[{op}], the input argument[x1] must be a type of "
                          f"{{Tensor[Float32], Tensor[Float64]}}, but got Tensor[{v.dtype}].")


@op_entry("hypot", primitive="Hypot", tensor_method=True,
          args=[Arg("input", check=_hypot_dtype), Arg("other", check=_hypot_dtype)])
def hypot(input, other):
    """sqrt(input**2 + other**2); float32 is computed in float64 so no square overflows (float64
    inputs above about 1e154 overflow: the squares are not rescaled)."""
    if input.dtype == mstype.float32:
        a, b = F.cast(input, mstype.float64), F.cast(other, mstype.float64)
        return F.cast(F.sqrt(a * a + b * b), mstype.float32)
    return F.sqrt(input * input + other * other)


def _to_tensor(v):
    return ops.scalar_to_tensor(v) if isinstance(v, (bool, int, float)) else v


@op_entry("xlogy", primitive="Xlogy", tensor_method=True,
          args=[Arg("input", "tensor|number"), Arg("other", "tensor|number")])
def xlogy(input, other):
    """input * log(other), as MindSpore 2.10's CPU kernel computes it: 0 * log(0) is nan (its
    documentation says 0; the wheel returns nan, and the wheel is followed); bools become float32."""
    input, other = _to_tensor(input), _to_tensor(other)
    if input.dtype == mstype.bool_ and other.dtype == mstype.bool_:
        input, other = F.cast(input, mstype.float32), F.cast(other, mstype.float32)
    if not (other.dtype.is_float or other.dtype.is_complex):
        other = F.cast(other, input.dtype if input.dtype.is_float or input.dtype.is_complex else mstype.float32)
    return input * F.log(other)


@op_entry("xdivy", primitive="Xdivy", tensor_method=True,
          args=[Arg("x", "tensor|number"), Arg("y", "tensor|number")], prim_name="Xdivy")
def xdivy(x, y):
    """x / y, and 0 wherever x is 0 (even where y is 0 or nan)."""
    q = F.div(x, y)
    return ops.where(F.equal(x, 0), F.zeros_like(q), q)


@op_entry("copysign", tensor_method=True, args=[Arg("x"), Arg("other", "tensor|number")])
def copysign(x, other):
    """|x| with the sign of other (other < 0 gives a negative result, -0.0 does not, as
    MindSpore compares with 0); integer x is computed in float32; bool x is a TypeError."""
    if x.dtype == mstype.bool_:
        raise OpTypeError("copysign does not accept dtype bool.")
    pos = F.abs(x if x.dtype.is_float else F.cast(x, mstype.float32))
    if isinstance(other, numbers.Number):
        return F.neg(pos) if other < 0 else pos
    return ops.where(F.less(other, 0), F.neg(pos), pos)


@op_entry("heaviside", primitive="Heaviside", tensor_method=True, args=[Arg("input"), Arg("values")])
def heaviside(input, values):
    """0 where input < 0, 1 where input > 0, `values` where input is zero. MindSpore 2.10's CPU
    kernel takes |input| below double's epsilon (2.2e-16) as zero and gives 0 for nan; both
    followed (recorded)."""
    if input.dtype != values.dtype:
        raise OpTypeError(f"For 'Heaviside', 'x' and 'values' should have the same data type, but got the dtype "
                          f"of 'x': {input.dtype} and the dtype of 'values': {values.dtype}.")
    if input.dtype.is_float:
        wide = F.cast(input, mstype.float32) if input.dtype == mstype.float16 else input
        zero = F.less(F.abs(wide), 2.220446049250313e-16)
    else:
        zero = F.equal(input, 0)
    return ops.where(zero, values, F.cast(F.greater(input, 0), input.dtype))


@op_entry("float_power", tensor_method=True,
          args=[Arg("input", "value"), Arg("exponent", "value")])
def float_power(input, exponent):
    """input ** exponent computed in float64 (the result is float64 whatever the inputs)."""
    if not (isinstance(input, TensorMethods) or isinstance(exponent, TensorMethods)):
        raise OpTypeError(f"At least one of the types of inputs must be tensor, but the type of 'input' got is "
                          f"{type(input)}, and the type of 'exponent' is {type(exponent)}.")
    for n, v in (("input", input), ("exponent", exponent)):
        if not isinstance(v, (TensorMethods, numbers.Number)):
            raise OpTypeError(f"The type of '{n}' must be Tensor or Number, but got {type(v)}.")
    cast = lambda v: F.cast(v, mstype.float64) if isinstance(v, TensorMethods) else float(v)  # noqa: E731
    return F.pow(cast(input), cast(exponent))


def _nan_ignoring(pick):
    def fn(input, other):
        if input.dtype.is_float:
            return ops.where(F.isnan(other), input, ops.where(pick(input, other), input, other))
        return ops.where(pick(input, other), input, other)
    return fn


@op_entry("fmax", primitive="Fmax", tensor_method=True, args=[Arg("input"), Arg("other")])
def fmax(input, other):
    """The larger of the two, ignoring a nan on either side (nan only where both are); where the
    two compare equal (0 and -0) the second input, as MindSpore's kernel."""
    return _nan_ignoring(F.greater)(input, other)


@op_entry("fmin", primitive="Fmin", tensor_method=True, args=[Arg("input"), Arg("other")])
def fmin(input, other):
    """The smaller of the two, ignoring a nan on either side. MindSpore 2.10's CPU build has no
    Fmin kernel; this follows its documentation, fmax's conventions mirrored."""
    return _nan_ignoring(F.less)(input, other)


@op_entry("addcdiv", primitive="Addcdiv", tensor_method=True, amp="promote",
          args=[Arg("input"), Arg("tensor1"), Arg("tensor2"), Arg("value", "tensor|number", default=1)])
def addcdiv(input, tensor1, tensor2, value=1):
    """input + value * tensor1 / tensor2 (MindSpore 2.10's CPU wheel has no kernel for the
    functional form; its Primitive's result is matched)."""
    return input + value * F.div(tensor1, tensor2)


@op_entry("addcmul", primitive="Addcmul", tensor_method=True, amp="promote",
          args=[Arg("input"), Arg("tensor1"), Arg("tensor2"), Arg("value", "tensor|number", default=1)])
def addcmul(input, tensor1, tensor2, value=1):
    """input + value * tensor1 * tensor2."""
    return input + value * (tensor1 * tensor2)


@op_entry("lerp", primitive="Lerp", tensor_method=True,
          args=[Arg("input", dtypes=FLOAT), Arg("end", dtypes=FLOAT), Arg("weight", "tensor|number")])
def lerp(input, end, weight):
    """input + weight * (end - input)."""
    return input + weight * (end - input)


@op_entry("logical_xor", primitive="LogicalXor", tensor_method=True, args=[Arg("input"), Arg("other")])
def logical_xor(input, other):
    """Elementwise exclusive or of two bool tensors."""
    for n, v in (("x", input), ("y", other)):
        if v.dtype != mstype.bool_:
            raise OpTypeError(f"For 'LogicalXor', the type of '{n}' should be Tensor[Bool], but got {v.dtype}.")
    return F.not_equal(input, other)


@op_entry("divide", tensor_method=True,
          args=[Arg("input", "tensor|number"), Arg("other", "tensor|number"),
                Arg("rounding_mode", "value", default=None, keyword=True)])
def divide(input, other, rounding_mode=None):
    """ops.div's alias: true division, or rounded toward -inf ('floor') or toward 0 ('trunc');
    the rounded modes keep integer inputs integer."""
    if rounding_mode is None:
        return F.div(input, other)
    if rounding_mode == "floor":
        return F.floor_divide(input, other)
    if rounding_mode == "trunc":
        q = ops.trunc(F.div(input, other))
        ref = input if isinstance(input, TensorMethods) else other
        return q if ref.dtype.is_float else F.cast(q, ref.dtype)
    raise OpValueError("For ops.div, rounding_mode value should be None, 'floor' or 'trunc'.")


@op_entry("multiply", tensor_method=True, args=[Arg("input", "tensor|number"), Arg("other", "tensor|number")])
def multiply(input, other):
    """ops.mul's alias."""
    return F.mul(input, other)


@op_entry("subtract", tensor_method=True,
          args=[Arg("input", "tensor|number"), Arg("other", "tensor|number"),
                Arg("alpha", "value", default=1, keyword=True)])
def subtract(input, other, alpha=1):
    """input - alpha * other."""
    return F.sub(input, other if alpha == 1 else F.mul(other, alpha))
