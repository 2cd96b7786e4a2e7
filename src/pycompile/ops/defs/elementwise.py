"""Elementwise ops: one row each, with the NumPy `eager`, the type rule and the facts fusion
needs (`transcendental`, `exact`); their C expressions are in `pycompile.backend.c.ops.elementwise`.
Inputs broadcast; Python scalars follow `dtype.promote_scalar`.

Type rules (`out`):
  same     promoted input dtype                       add, mul, maximum, neg ...
  float    promoted, ints and bool become float32     div, exp, sigmoid ...
  bool     bool result, computed in the promoted type  comparisons
  logical  bool result, inputs read as bool            logical_and ...

`allow` names the kinds an op computes in (the promoted dtype decides): Sub / Neg / Pow refuse
bool, the Bitwise ops refuse floats. Complex ('c') is allowed only where MindSpore 2.10's CPU
kernels take complex64 / complex128 (recorded in tests/conformance/cases_cplx33.py).
"""
from __future__ import annotations

import math

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import ScalarType, TensorType, type_of
from pycompile.ops._table import (OpDef, Kind, OpTypeError, apply, broadcast_shapes, convert, defop, describe,
                                  result_dtype)
from pycompile.ops.lowering import Elementwise


def _dt(x) -> mstype.DType:
    return x.dtype if isinstance(x, TensorType) else x


def _out_same(name, types):
    return result_dtype(types)


def _out_float(name, types):
    dt = result_dtype(types)
    if isinstance(dt, str):
        return "float"
    return dt if dt.is_float or dt.is_complex else mstype.float32


def _out_bool(name, types):
    return "bool" if isinstance(result_dtype(types), str) else mstype.bool_


def _check_kinds(name: str, types, allow: str):
    """allow: which kinds the op computes in, e.g. 'iuf' (no bool). The promoted type decides,
    so a bool tensor minus a Python int (computed in int64) is fine, bool minus bool is not."""
    dt = result_dtype(types)
    kind = {"bool": "b", "int": "i", "float": "f"}[dt] if isinstance(dt, str) else dt.kind
    if kind not in allow:
        names = {"b": "bool", "i": "int", "u": "int", "f": "float", "c": "complex"}
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


# the result size (elements) from which PyNative runs an elementwise row's kernel (`eager_kernel`
# given as this number, ops/_table._wants_kernel): 256 KB of float32, where the NumPy passes of a
# transcendental activation take ~0.1-2 ms against the kernel's one pass; below it NumPy's few
# microseconds cost less than the compile at the signature's first call
KERNEL_FROM = 1 << 16


def elementwise(name: str, inputs, eager, *, out: str = "same", allow: str = "biuf", attrs=None,
                doc: str = "", exact: bool = False, transcendental: bool = False, decompose=None,
                fast_path: bool = False, eager_kernel: bool | int = False):
    out_rule, compute = _OUT[out]
    infer = make_infer(name, out_rule, allow)
    # `eager` gets its inputs already converted to the compute dtype (ops._table.eager_values)
    return defop(name, inputs, infer=infer, eager=eager, kind=Kind.ELEMENTWISE,
                 lower=Elementwise(compute, exact, transcendental), attrs=attrs or {}, doc=doc,
                 decompose=decompose, fast_path=fast_path, eager_kernel=eager_kernel)


# ---- binary arithmetic ------------------------------------------------------------------------
Add = elementwise("Add", ("x", "y"), np.add, allow="biufc")
Sub = elementwise("Sub", ("x", "y"), np.subtract, allow="iufc")
Mul = elementwise("Mul", ("x", "y"), np.multiply, allow="biufc")
RealDiv = elementwise("RealDiv", ("x", "y"), lambda x, y: np.true_divide(x, y), out="float", allow="biufc")


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
    lambda x, y: _float_floor_div(x, y) if x.dtype.kind == "f" else np.floor_divide(x, y), allow="iuf")
FloorMod = elementwise(
    "FloorMod", ("x", "y"),
    lambda x, y: _float_floor_mod(x, y) if x.dtype.kind == "f" else np.mod(x, y), allow="iuf")
Pow = elementwise(
    "Pow", ("x", "y"), lambda x, y: np.power(x, y) if not np.issubdtype(np.result_type(x), np.integer)
    else _int_pow(x, y), allow="iufc", transcendental=True)
def _maximum(x, y):
    # as the C does and MindSpore's CPU kernel gives: y where x == y (max(0, -0) is -0); a NaN x
    # propagates (MindSpore's CPU kernel returns y there, against its documentation)
    if np.result_type(x, y).kind != "f":
        return np.maximum(x, y)
    return np.where((x > y) | (x != x), x, y)


def _minimum(x, y):
    if np.result_type(x, y).kind != "f":
        return np.minimum(x, y)
    return np.where((x < y) | (x != x), x, y)


Maximum = elementwise("Maximum", ("x", "y"), _maximum, exact=True)
Minimum = elementwise("Minimum", ("x", "y"), _minimum, exact=True)


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
Equal = elementwise("Equal", ("x", "y"), np.equal, out="bool", allow="biufc")
NotEqual = elementwise("NotEqual", ("x", "y"), np.not_equal, out="bool", allow="biufc",
                       decompose=lambda x, y: call(LogicalNot, call(Equal, x, y)))
Less = elementwise("Less", ("x", "y"), np.less, out="bool")
# decompositions (docs/architecture.md, "The core"): x <= y is x < y or x == y (not (y < x) would
# be true for a NaN), x > y is y < x, x >= y is y <= x (NaN compares false either way), x != y
# is not (x == y) (NaN != NaN is true)
LessEqual = elementwise("LessEqual", ("x", "y"), np.less_equal, out="bool",
                        decompose=lambda x, y: call(LogicalOr, call(Less, x, y), call(Equal, x, y)))
Greater = elementwise("Greater", ("x", "y"), np.greater, out="bool", decompose=lambda x, y: call(Less, y, x))
GreaterEqual = elementwise("GreaterEqual", ("x", "y"), np.greater_equal, out="bool",
                           decompose=lambda x, y: call(LessEqual, y, x))
LogicalAnd = elementwise("LogicalAnd", ("x", "y"), np.logical_and, out="logical")
LogicalOr = elementwise("LogicalOr", ("x", "y"), np.logical_or, out="logical")
LogicalNot = elementwise("LogicalNot", ("x",), np.logical_not, out="logical", allow="biufc")
BitwiseAnd = elementwise("BitwiseAnd", ("x", "y"), np.bitwise_and, allow="biu")
BitwiseOr = elementwise("BitwiseOr", ("x", "y"), np.bitwise_or, allow="biu")
BitwiseXor = elementwise("BitwiseXor", ("x", "y"), np.bitwise_xor, allow="biu")
def _floating(x) -> bool:
    """Whether a decomposition's input holds floats (a float tensor, a float scalar)."""
    t = type_of(x)
    return t.dtype.is_float if isinstance(t, TensorType) else getattr(t, "kind", "") == "float"


# |x| < inf: NaN and +-inf are not finite; an integer or bool always is (x <= x)
IsFinite = elementwise("IsFinite", ("x",), np.isfinite, out="bool", decompose=lambda x: call(
    Less, call(Abs, x), math.inf) if _floating(x) else call(LessEqual, x, x))

# ---- unary ----------------------------------------------------------------------------------
Neg = elementwise("Neg", ("x",), np.negative, allow="iufc", exact=True)
# MindSpore 2.10's Abs of a complex tensor keeps the complex dtype: |z| + 0j
Abs = elementwise("Abs", ("x",), np.abs, exact=True, allow="biufc")
Square = elementwise("Square", ("x",), np.square, allow="iufc", decompose=lambda x: call(Mul, x, x))


def _float_unary(name: str, np_fn, exact: bool = False, transcendental: bool = False, decompose=None,
                 fast_path: bool = False, allow: str = "biuf", eager_kernel: bool | int = False):
    return elementwise(name, ("x",), np_fn, out="float", exact=exact, transcendental=transcendental,
                       decompose=decompose, fast_path=fast_path, allow=allow, eager_kernel=eager_kernel)


def _in_float32(fn):
    """fn computed in float32 for float16 inputs, as the C does (and MindSpore's kernels): float16
    steps lose more than the result's last bit (gelu(-2.5), hswish(65504) overflowing)."""
    def f(x):
        return fn(x.astype(np.float32)).astype(np.float16) if x.dtype == np.float16 else fn(x)
    return f


# MindSpore's float32 exp is 0 for x <= -87 (it flushes results below about 1.6e-38; recorded in
# tests/oracle/data/edge_values.json); float16 and float64 keep every denormal
EXP_FLUSH_F32 = -87.0


_F32 = np.dtype(np.float32)
_FLUSH_0D = np.array(EXP_FLUSH_F32, np.float32)     # 0-d operands: a ufunc takes them as they are,
_ZERO_0D = np.array(0, np.float32)                  # without converting a scalar each call


def _exp(x):
    y = np.exp(x)
    if y.dtype != _F32:
        return y
    if y.__class__ is np.ndarray:       # fresh: zeroed in place (np.where's copy was 2 µs of a small exp)
        np.copyto(y, _ZERO_0D, where=np.less_equal(x, _FLUSH_0D))
        return y
    return np.where(x <= EXP_FLUSH_F32, np.float32(0), y)


Exp = _float_unary("Exp", _exp, transcendental=True, allow="biufc")
Log = _float_unary("Log", np.log, transcendental=True, allow="biufc")
Sqrt = _float_unary("Sqrt", np.sqrt, allow="biufc")
Rsqrt = _float_unary("Rsqrt", lambda x: 1 / np.sqrt(x),
                     decompose=lambda x: in_float(x, lambda x: call(RealDiv, 1, call(Sqrt, x))), allow="biufc")
Sin = _float_unary("Sin", np.sin, transcendental=True, allow="biufc")
Cos = _float_unary("Cos", np.cos, transcendental=True, allow="biufc")
Tanh = _float_unary("Tanh", np.tanh, transcendental=True, allow="biufc")
# NumPy has no erf: its form (math.erf element by element) took 250 ns a value, so PyNative runs
# Erf, Erfc and GeLU-erf on graph mode's kernel (`eager_kernel`; libmvec's vector erf / erfc:
# ops.gelu over 64 x 3072 floats 35.6 -> 0.22 ms a call once built); the NumPy form stays the reference
Erf = _float_unary("Erf", np.vectorize(math.erf, otypes=[np.float64]), transcendental=True, eager_kernel=True)
Erfc = _float_unary("Erfc", lambda x: np.vectorize(math.erfc, otypes=[np.float64])(x).astype(x.dtype),
                    transcendental=True, eager_kernel=True)
Reciprocal = _float_unary("Reciprocal", lambda x: 1 / x, decompose=lambda x: in_float(x, lambda x: call(RealDiv, 1, x)),
                          allow="biufc")
Floor = _float_unary("Floor", np.floor, exact=True)
Ceil = _float_unary("Ceil", np.ceil, exact=True)
# fast paths (`fast_path=True`): each keeps its one C expression, chosen for speed; the
# decomposition is its meaning, in the expression's own order of operations (the parts fuse into
# the same one loop; tests/ops/test_core32_fast_paths.py compiles both and compares them)
Sigmoid = _float_unary("Sigmoid", _in_float32(lambda x: 1 / (1 + np.exp(-x))), transcendental=True,
                       decompose=lambda x: in_float(x, lambda x: call(
                           RealDiv, 1, call(Add, 1, call(Exp, call(Neg, x))))), fast_path=True, allow="biufc",
                       eager_kernel=KERNEL_FROM)
def _relu(x):
    """x > 0 ? x : 0. For floats as fmax(x, 0) + 0 (NaN -> 0, -0.0 -> +0.0: the same values):
    np.where on a mask of random signs mispredicts its branch every other element and took 2.3 ms
    on LeNet-5's first activation (64, 6, 28, 28), these two passes 0.14 ms."""
    x = np.asarray(x)
    z = np.zeros((), x.dtype)
    if x.dtype.kind != "f":
        return np.where(x > 0, x, z)
    r = np.fmax(x, z)
    r += z
    return r


ReLU = elementwise("ReLU", ("x",), _relu, exact=True, fast_path=True, eager_kernel=KERNEL_FROM,
                   decompose=lambda x: call(Select, call(Less, 0, x), x, 0))     # NaN and -0 give +0


def _relu_grad(g, out):
    """g where ReLU's output is positive, else +0."""
    return np.where(out > 0, g, g.dtype.type(0))


# ReLU's backward in PyNative, from KERNEL_FROM elements: one pass of graph mode's C for
# select(0 < out, g, 0), on the runtime's threads (grads/core.py; smaller ones keep NumPy's two
# passes, compiled code the parts themselves)
def _relu_grad_infer(types):
    if len(types) != 2 or not all(isinstance(t, TensorType) and t.dtype.is_float for t in types) \
            or types[0].dtype != types[1].dtype:
        raise OpTypeError(f"For 'ReLUGrad', dy and y must be float Tensors of one dtype, but got "
                          f"{' and '.join(describe(t) for t in types)}")
    return TensorType(types[0].dtype, broadcast_shapes("ReLUGrad", types[0].shape, types[1].shape))


ReLUGrad = defop("ReLUGrad", ("g", "out"), infer=_relu_grad_infer, eager=_relu_grad, kind=Kind.ELEMENTWISE,
                 lower=Elementwise(_compute_same, True, False), eager_kernel=KERNEL_FROM,
                 decompose=lambda g, out: call(Select, call(Less, 0, out), g, 0))
def _hswish(x):
    # piecewise, as MindSpore's kernel: 0 for x <= -3, x for x >= 3 (hswish(-inf) is 0 and
    # hswish(max float) is max float, not -inf * 0 and an overflow)
    return np.where(x <= -3, x.dtype.type(0), np.where(x >= 3, x, x * (x + 3) / 6))


def _hswish_parts(x):
    return in_float(x, lambda x: call(Select, call(LessEqual, x, -3), 0, call(
        Select, call(LessEqual, 3, x), x, call(RealDiv, call(Mul, x, call(Add, x, 3)), 6))))


def _hsigmoid_parts(x):
    # clamp(x + 3, 0, 6) / 6; NaN stays NaN through Maximum and Minimum, as through the clamp
    return in_float(x, lambda x: call(RealDiv, call(Minimum, call(Maximum, call(Add, x, 3), 0), 6), 6))


HSwish = _float_unary("HSwish", _in_float32(_hswish), decompose=_hswish_parts)
HSigmoid = _float_unary("HSigmoid", lambda x: np.clip(x + 3, 0, 6) / 6, decompose=_hsigmoid_parts)

SQRT_2_OVER_PI = math.sqrt(2 / math.pi)
def _gelu_parts(x):
    """0.5 * x * (1 + tanh(u)), u = sqrt(2 / pi) * (x + 0.044715 * x * x * x), with 1 + tanh(u)
    computed as s = 2 / (1 + exp(-2u)) (the same value: 1 + tanh u is twice the logistic of 2u) from
    one exp, which glibc's vector library computes in about 0.6x the time of its tanhf. s is then
    rounded as MindSpore's float32 tanh(u) is before the 1 is added, by (s - 1) + 1 (exact for
    u > 0; for u < 0, s - 1 rounds to tanh's float grid), so the values where 1 + tanh(u) cancels
    (x <= -3) are MindSpore's: -0.0 at -6, -7.021427e-05 at -4 (tests/nn/test_layers.py)."""
    cube = call(Mul, call(Mul, call(Mul, 0.044715, x), x), x)
    e = call(Exp, call(Mul, -2 * SQRT_2_OVER_PI, call(Add, x, cube)))
    s = call(RealDiv, 2, call(Add, 1, e))
    return call(Mul, call(Mul, 0.5, x), call(Add, call(Sub, s, 1), 1))


def _gelu_erf_parts(x):
    """0.5 * x * erfc(-x / sqrt 2)"""
    return call(Mul, call(Mul, 0.5, x), call(Erfc, call(Mul, call(Neg, x), 1 / math.sqrt(2))))


def _gelu_np(x):
    """_gelu_parts in NumPy, in x's dtype (PyNative's GeLU: the C's formula, so the modes agree)."""
    t = x.dtype.type
    s = t(2) / (t(1) + np.exp(t(-2 * SQRT_2_OVER_PI) * (x + t(0.044715) * x * x * x)))
    return t(0.5) * x * ((s - t(1)) + t(1))


# PyNative runs the C (eager_kernel, from KERNEL_FROM elements): the NumPy form is nine passes with an
# exp, 475 us of a 2 ms GPT block at (4, 64, 512) - a third of W6's PyNative forward
GeLU = _float_unary(
    "GeLU",
    _in_float32(_gelu_np),
    transcendental=True, decompose=lambda x: in_float(x, _gelu_parts), fast_path=True, eager_kernel=KERNEL_FROM)


def _erfc_np(x):
    return np.vectorize(math.erfc, otypes=[np.float64])(x).astype(x.dtype)


# 0.5 x erfc(-x / sqrt 2), which is 0.5 x (1 + erf(x / sqrt 2)) without its cancellation for x < -3
# (gelu(-5) to float32's precision; the C is the same formula)
GeLUErf = _float_unary("GeLUErf", _in_float32(lambda x: 0.5 * x * _erfc_np(-x * x.dtype.type(1 / math.sqrt(2)))),
                       transcendental=True, decompose=lambda x: in_float(x, _gelu_erf_parts), fast_path=True,
                       eager_kernel=True)


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


def _select(c, x, y):
    """cond ? x : y, element by element. x and y arrive in one dtype (the compute dtype); their
    bits are chosen through a mask (x & m | y & ~m), as np.where chooses them, without its branch
    per element, in one buffer: on a mask of random signs (ReLU's gradient, (64, 6, 28, 28)
    float32 in LeNet-5's training step) np.where took 1.8-3 ms, the mask 0.3-0.5 ms."""
    c, x, y = np.asarray(c), np.asarray(x), np.asarray(y)
    if max(c.size, x.size, y.size) < 4096 or x.dtype != y.dtype or x.dtype.itemsize not in (1, 2, 4, 8) \
            or x.dtype.kind not in "biufc":
        return np.where(c, x, y)        # small: the mask's few extra calls cost more than branches
    u = np.dtype(f"u{x.dtype.itemsize}")
    shape = np.broadcast_shapes(c.shape, x.shape, y.shape)
    m = np.empty(shape, u)
    np.negative(c if c.dtype == np.bool_ else c != 0, out=m, dtype=u, casting="unsafe")    # ones where true
    yv = y.view(u)
    if yv.ndim == 0 and yv == 0:            # y == +0 (a ReLU gradient's zero): x & m alone
        np.bitwise_and(x.view(u), m, out=m)
        return m.view(x.dtype)
    r = np.bitwise_and(x.view(u), m)
    np.invert(m, out=m)
    np.bitwise_and(yv, m, out=m)
    np.bitwise_or(r, m, out=m)
    return m.view(x.dtype)


Select = defop("Select", ("cond", "x", "y"), infer=_select_infer,
               eager=_select, kind=Kind.ELEMENTWISE,
               lower=Elementwise(_select_compute, exact=True, as_is=(0,)), doc="cond ? x : y, broadcast")


def _cast_infer(types, dtype):
    (x,) = types
    if isinstance(x, ScalarType):
        x = TensorType(x.dtype, ())
    if not isinstance(x, TensorType):
        raise OpTypeError(f"For 'Cast', the input must be a Tensor, but got {describe(x)}")
    return TensorType(mstype.to_dtype(dtype), x.shape)


Cast = defop("Cast", ("x",), attrs={"dtype": None}, infer=_cast_infer,
             eager=lambda x, dtype: convert(x, mstype.to_dtype(dtype).np),
             kind=Kind.ELEMENTWISE, lower=Elementwise(lambda types, out: out.dtype), any_dtype=True,
             doc="convert to dtype")


# ---- writing a row as a decomposition (`decompose=`; docs/architecture.md, "The core") ------------
def call(op, *inputs, **attrs):
    """op (a row object) applied to inputs, as a decomposition writes its parts: `call(Neg, x)`."""
    return apply(op, list(inputs), attrs)


def cast(x, dtype):
    return apply(Cast, [x], {"dtype": dtype})


def in_float(x, body):
    """body(x) computed as an elementwise row with type rule "float" computes: integer and bool
    tensors read as float32; float16 read as float32 and the result rounded to float16 once (the
    row's C computes float16 in float and rounds its result; so does this); float32, float64 and
    Python numbers as they are."""
    t = type_of(x)
    if not isinstance(t, TensorType) or t.dtype.np.kind == "c":     # (a complex tensor as it is)
        return body(x)
    if t.dtype is mstype.float16:
        return cast(body(cast(x, mstype.float32)), mstype.float16)
    if not t.dtype.is_float:
        return body(cast(x, mstype.float32))
    return body(x)


# the ops this module declares (what `pycompile.ops.prims` re-exports)
__all__ = [_n for _n, _v in list(globals().items()) if isinstance(_v, OpDef)]
