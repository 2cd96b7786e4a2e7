"""Elementwise ops: one row each, with the NumPy `eager`, the C expression codegen fuses, and
the type rule. Inputs broadcast; Python scalars follow `dtype.promote_scalar`.

Type rules (`out`):
  same     promoted input dtype                       add, mul, maximum, neg ...
  float    promoted, ints and bool become float32     div, exp, sigmoid ...
  bool     bool result, computed in the promoted type  comparisons
  logical  bool result, inputs read as bool            logical_and ...

`allow` names the kinds an op computes in (the promoted dtype decides): Sub / Neg / Pow refuse
bool, the Bitwise ops refuse floats.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import ScalarType, TensorType
from pycompile.ops._table import (OpTypeError, broadcast_shapes, defop, describe,
                                  result_dtype)


@dataclass(frozen=True)
class Elementwise:
    """Lowering of an elementwise op: `expr(args, ctype)` is a C expression over the already
    converted argument names, in compute type `ctype` ('float', 'double', 'int32_t', ...).
    `compute(types, out)` is the dtype inputs are converted to first (eager does the same)."""

    expr: Callable[[list, str], str]
    compute: Callable
    # the result is one of the operands (or an integer no larger than one): on float16 values it
    # is a float16 value already, so float16 kernels skip rounding it
    exact: bool = False

    def c(self, args: list, ctype: str) -> str:
        return self.expr(args, ctype)


def fm(name: str, ctype: str) -> str:
    """C math function for the compute type: expf for float, exp for double."""
    return name + "f" if ctype == "float" else name


def lit(value: float, ctype: str) -> str:
    """A C literal of the compute type."""
    if ctype == "float":
        return repr(float(value)) + "f"
    if ctype == "double":
        return repr(float(value))
    return str(int(value))


def _dt(x) -> mstype.DType:
    return x.dtype if isinstance(x, TensorType) else x


def _out_same(name, types):
    return result_dtype(types)


def _out_float(name, types):
    dt = result_dtype(types)
    if isinstance(dt, str):
        return "float"
    return dt if dt.is_float else mstype.float32


def _out_bool(name, types):
    return "bool" if isinstance(result_dtype(types), str) else mstype.bool_


def _check_kinds(name: str, types, allow: str):
    """allow: which kinds the op computes in, e.g. 'iuf' (no bool). The promoted type decides,
    so a bool tensor minus a Python int (computed in int64) is fine, bool minus bool is not."""
    dt = result_dtype(types)
    kind = {"bool": "b", "int": "i", "float": "f"}[dt] if isinstance(dt, str) else dt.kind
    if kind not in allow:
        names = {"b": "bool", "i": "int", "u": "int", "f": "float"}
        ok = " or ".join(sorted({names[k] for k in allow}))
        got = " and ".join(describe(t) for t in types)
        raise OpTypeError(f"For '{name}', the inputs must be {ok} (after type promotion), but got {got}")


def make_infer(name: str, out_rule, allow: str):
    def infer(types):
        for t in types:
            if not isinstance(t, (TensorType, ScalarType)):
                raise OpTypeError(f"For '{name}', inputs must be Tensors or numbers, but got {describe(t)}")
        try:
            _check_kinds(name, types, allow)
        except mstype.PromotionError as e:
            raise OpTypeError(f"For '{name}', {e}: got {' and '.join(describe(t) for t in types)}") from None
        dt = out_rule(name, types)
        if isinstance(dt, str):
            return ScalarType(dt)
        shape = broadcast_shapes(name, *[t.shape for t in types if isinstance(t, TensorType)])
        return TensorType(dt, shape)
    return infer


def _compute_same(types, out):
    return _dt(out) if isinstance(out, TensorType) else out.dtype


def _compute_promoted(types, out):
    dt = result_dtype(types)
    return dt if not isinstance(dt, str) else ScalarType(dt).dtype


def _compute_bool(types, out):
    return mstype.bool_


_OUT = {"same": (_out_same, _compute_same), "float": (_out_float, _compute_same),
        "bool": (_out_bool, _compute_promoted), "logical": (_out_bool, _compute_bool)}


def elementwise(name: str, inputs, eager, expr, *, out: str = "same", allow: str = "biuf",
                attrs=None, doc: str = "", exact: bool = False):
    out_rule, compute = _OUT[out]
    infer = make_infer(name, out_rule, allow)
    # `eager` gets its inputs already converted to the compute dtype (ops._table.eager_values)
    return defop(name, inputs, infer=infer, eager=eager,
                 kind="elementwise", lower=Elementwise(expr, compute, exact), attrs=attrs or {}, doc=doc)


def _is_float(ct: str) -> bool:
    return ct in ("float", "double")


# ---- binary arithmetic ------------------------------------------------------------------------
Add = elementwise("Add", ("x", "y"), np.add, lambda a, ct: f"({a[0]} + {a[1]})")
Sub = elementwise("Sub", ("x", "y"), np.subtract, lambda a, ct: f"({a[0]} - {a[1]})", allow="iuf")
Mul = elementwise("Mul", ("x", "y"), np.multiply, lambda a, ct: f"({a[0]} * {a[1]})")
RealDiv = elementwise("RealDiv", ("x", "y"), lambda x, y: np.true_divide(x, y),
                      lambda a, ct: f"({a[0]} / {a[1]})", out="float")


def _float_floor_div(x, y):
    # MindSpore's float FloorDiv is floor(x / y) computed in double (1.0 // 0.1 in float32 is 9,
    # -2.5 // inf is -0.0); NumPy's floor_divide differs on both
    return np.floor(x.astype(np.float64) / y.astype(np.float64)).astype(x.dtype)


def _float_floor_mod(x, y):
    # MindSpore's float FloorMod is x - floor(x / y) * y computed in double (x mod inf is NaN)
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    return (x64 - np.floor(x64 / y64) * y64).astype(x.dtype)


FloorDiv = elementwise(
    "FloorDiv", ("x", "y"),
    lambda x, y: _float_floor_div(x, y) if x.dtype.kind == "f" else np.floor_divide(x, y),
    lambda a, ct: f"pc_floordiv_{ct}({a[0]}, {a[1]})", allow="iuf")
FloorMod = elementwise(
    "FloorMod", ("x", "y"),
    lambda x, y: _float_floor_mod(x, y) if x.dtype.kind == "f" else np.mod(x, y),
    lambda a, ct: f"pc_mod_{ct}({a[0]}, {a[1]})", allow="iuf")
Pow = elementwise(
    "Pow", ("x", "y"), lambda x, y: np.power(x, y) if not np.issubdtype(np.result_type(x), np.integer)
    else _int_pow(x, y),
    lambda a, ct: (f"{fm('pow', ct)}({a[0]}, {a[1]})" if _is_float(ct)
                   else f"pc_ipow_{ct}({a[0]}, {a[1]})"), allow="iuf")
Maximum = elementwise(
    "Maximum", ("x", "y"), np.maximum,
    lambda a, ct: (f"(({a[0]} > {a[1]} || {a[0]} != {a[0]}) ? {a[0]} : {a[1]})" if _is_float(ct)
                   else f"({a[0]} > {a[1]} ? {a[0]} : {a[1]})"), exact=True)
Minimum = elementwise(
    "Minimum", ("x", "y"), np.minimum,
    lambda a, ct: (f"(({a[0]} < {a[1]} || {a[0]} != {a[0]}) ? {a[0]} : {a[1]})" if _is_float(ct)
                   else f"({a[0]} < {a[1]} ? {a[0]} : {a[1]})"), exact=True)


def _int_pow(x, y):
    # NumPy refuses negative integer powers of integers; MindSpore gives 0 (C semantics of
    # repeated division) except for bases 1 and -1. Match the generated pc_ipow helpers.
    x, y = np.broadcast_arrays(np.asarray(x), np.asarray(y))
    safe_y = np.where(y < 0, 0, y)
    r = np.power(x, safe_y)
    neg = y < 0
    if np.any(neg):
        r = np.where(neg & (x == 1), 1, r)
        r = np.where(neg & (x == -1), np.where(y % 2 == 0, 1, -1), r)
        r = np.where(neg & (np.abs(x) != 1), 0, r)
    return r


# ---- comparisons and logic ------------------------------------------------------------------
Equal = elementwise("Equal", ("x", "y"), np.equal, lambda a, ct: f"({a[0]} == {a[1]})", out="bool")
NotEqual = elementwise("NotEqual", ("x", "y"), np.not_equal, lambda a, ct: f"({a[0]} != {a[1]})", out="bool")
Less = elementwise("Less", ("x", "y"), np.less, lambda a, ct: f"({a[0]} < {a[1]})", out="bool")
LessEqual = elementwise("LessEqual", ("x", "y"), np.less_equal, lambda a, ct: f"({a[0]} <= {a[1]})", out="bool")
Greater = elementwise("Greater", ("x", "y"), np.greater, lambda a, ct: f"({a[0]} > {a[1]})", out="bool")
GreaterEqual = elementwise("GreaterEqual", ("x", "y"), np.greater_equal,
                           lambda a, ct: f"({a[0]} >= {a[1]})", out="bool")
LogicalAnd = elementwise("LogicalAnd", ("x", "y"), np.logical_and, lambda a, ct: f"({a[0]} && {a[1]})", out="logical")
LogicalOr = elementwise("LogicalOr", ("x", "y"), np.logical_or, lambda a, ct: f"({a[0]} || {a[1]})", out="logical")
LogicalNot = elementwise("LogicalNot", ("x",), np.logical_not, lambda a, ct: f"(!{a[0]})", out="logical")
BitwiseAnd = elementwise("BitwiseAnd", ("x", "y"), np.bitwise_and, lambda a, ct: f"({a[0]} & {a[1]})", allow="biu")
BitwiseOr = elementwise("BitwiseOr", ("x", "y"), np.bitwise_or, lambda a, ct: f"({a[0]} | {a[1]})", allow="biu")
BitwiseXor = elementwise("BitwiseXor", ("x", "y"), np.bitwise_xor, lambda a, ct: f"({a[0]} ^ {a[1]})", allow="biu")
IsFinite = elementwise("IsFinite", ("x",), np.isfinite,
                       lambda a, ct: f"isfinite({a[0]})" if _is_float(ct) else "1", out="bool")

# ---- unary ----------------------------------------------------------------------------------
Neg = elementwise("Neg", ("x",), np.negative, lambda a, ct: f"(-{a[0]})", allow="iuf", exact=True)
Abs = elementwise("Abs", ("x",), np.abs,
                  lambda a, ct: f"{fm('fabs', ct)}({a[0]})" if _is_float(ct)
                  else f"({a[0]} < 0 ? -{a[0]} : {a[0]})", exact=True)
Square = elementwise("Square", ("x",), np.square, lambda a, ct: f"({a[0]} * {a[0]})", allow="iuf")


def _float_unary(name: str, np_fn, expr, exact: bool = False):
    return elementwise(name, ("x",), np_fn, expr, out="float", exact=exact)


Exp = _float_unary("Exp", np.exp, lambda a, ct: f"{fm('exp', ct)}({a[0]})")
Log = _float_unary("Log", np.log, lambda a, ct: f"{fm('log', ct)}({a[0]})")
Sqrt = _float_unary("Sqrt", np.sqrt, lambda a, ct: f"{fm('sqrt', ct)}({a[0]})")
Rsqrt = _float_unary("Rsqrt", lambda x: 1 / np.sqrt(x),
                     lambda a, ct: f"({lit(1, ct)} / {fm('sqrt', ct)}({a[0]}))")
Sin = _float_unary("Sin", np.sin, lambda a, ct: f"{fm('sin', ct)}({a[0]})")
Cos = _float_unary("Cos", np.cos, lambda a, ct: f"{fm('cos', ct)}({a[0]})")
Tanh = _float_unary("Tanh", np.tanh, lambda a, ct: f"{fm('tanh', ct)}({a[0]})")
Erf = _float_unary("Erf", np.vectorize(math.erf, otypes=[np.float64]),
                   lambda a, ct: f"{fm('erf', ct)}({a[0]})")
Reciprocal = _float_unary("Reciprocal", lambda x: 1 / x, lambda a, ct: f"({lit(1, ct)} / {a[0]})")
Floor = _float_unary("Floor", np.floor, lambda a, ct: f"{fm('floor', ct)}({a[0]})", exact=True)
Sigmoid = _float_unary("Sigmoid", lambda x: 1 / (1 + np.exp(-x)),
                       lambda a, ct: f"({lit(1, ct)} / ({lit(1, ct)} + {fm('exp', ct)}(-{a[0]})))")
ReLU = elementwise("ReLU", ("x",), lambda x: np.where(x > 0, x, np.zeros((), x.dtype)),
                   lambda a, ct: f"({a[0]} > 0 ? {a[0]} : 0)", exact=True)
HSwish = _float_unary("HSwish", lambda x: x * np.clip(x + 3, 0, 6) / 6,
                      lambda a, ct: (f"({a[0]} * pc_clamp_{ct}({a[0]} + {lit(3, ct)}, "
                                     f"{lit(0, ct)}, {lit(6, ct)}) / {lit(6, ct)})"))
HSigmoid = _float_unary("HSigmoid", lambda x: np.clip(x + 3, 0, 6) / 6,
                        lambda a, ct: (f"(pc_clamp_{ct}({a[0]} + {lit(3, ct)}, {lit(0, ct)}, "
                                       f"{lit(6, ct)}) / {lit(6, ct)})"))

_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)
GeLU = _float_unary(
    "GeLU",
    lambda x: 0.5 * x * (1 + np.tanh(x.dtype.type(_SQRT_2_OVER_PI) * (x + x.dtype.type(0.044715) * x * x * x))),
    lambda a, ct: (f"({lit(0.5, ct)} * {a[0]} * ({lit(1, ct)} + {fm('tanh', ct)}({lit(_SQRT_2_OVER_PI, ct)} * "
                   f"({a[0]} + {lit(0.044715, ct)} * {a[0]} * {a[0]} * {a[0]}))))"))


def _erf_np(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x).astype(x.dtype)


GeLUErf = _float_unary(
    "GeLUErf", lambda x: 0.5 * x * (1 + _erf_np(x / x.dtype.type(math.sqrt(2)))),
    lambda a, ct: (f"({lit(0.5, ct)} * {a[0]} * ({lit(1, ct)} + {fm('erf', ct)}({a[0]} * "
                   f"{lit(1 / math.sqrt(2), ct)})))"))


# ---- select and cast --------------------------------------------------------------------------
def _select_infer(types):
    try:
        return _select_type(types)
    except mstype.PromotionError as e:
        raise OpTypeError(f"For 'Select', {e}: got {' and '.join(describe(t) for t in types)}") from None


def _select_type(types):
    cond, x, y = types
    for t, what in ((cond, "cond"),):
        if isinstance(t, TensorType) and not t.dtype.is_bool:
            raise OpTypeError(f"For 'Select', 'cond' must be a bool Tensor, but got {describe(t)}")
        if isinstance(t, ScalarType) and t.kind != "bool":
            raise OpTypeError(f"For 'Select', 'cond' must be a bool Tensor, but got {describe(t)}")
    dt = result_dtype([x, y])
    shapes = [t.shape for t in types if isinstance(t, TensorType)]
    if isinstance(dt, str):
        if not shapes:
            return ScalarType(dt)
        dt = ScalarType(dt).dtype if dt != "float" else mstype.float32
    return TensorType(dt, broadcast_shapes("Select", *shapes))


def _select_compute(types, out):
    return out.dtype if isinstance(out, TensorType) else out.dtype


Select = defop("Select", ("cond", "x", "y"), infer=_select_infer,
               eager=lambda c, x, y: np.where(c, x, y), kind="elementwise",
               lower=Elementwise(lambda a, ct: f"({a[0]} ? {a[1]} : {a[2]})", _select_compute, exact=True),
               doc="cond ? x : y, broadcast")


def _cast_infer(types, dtype):
    (x,) = types
    if isinstance(x, ScalarType):
        x = TensorType(x.dtype, ())
    if not isinstance(x, TensorType):
        raise OpTypeError(f"For 'Cast', the input must be a Tensor, but got {describe(x)}")
    return TensorType(mstype.to_dtype(dtype), x.shape)


Cast = defop("Cast", ("x",), attrs={"dtype": None}, infer=_cast_infer,
             eager=lambda x, dtype: np.asarray(x).astype(mstype.to_dtype(dtype).np),
             kind="elementwise",
             lower=Elementwise(lambda a, ct: f"(({ct})({a[0]}))", lambda types, out: out.dtype),
             doc="convert to dtype")
