"""The conformance table, part 1: shared helpers, then the surface pycompile has today —
elementwise ops, comparisons, reductions, layout, products, creation and their class forms.

This file and cases_*.py are MindSpore user code: `ms`, `ops`, `nn`, `Tensor` and `Parameter`
are not imported here but bound by `conf_harness.load_cases` to mindspore (record.py, which
records MindSpore's results into data/) or to pycompile (test_conformance.py, which compares).
Every case names the MindSpore APIs it exercises; inputs are NumPy arrays or specs drawn
deterministically from the case id (`rnd`, `normal`, `ints`, `bools`). Cells are built with their
weights set from such arrays, never from random initialisers.

A case function must work under BOTH frameworks, PyNative and compiled (`ms.jit(fn)`), unless
it says graph=False and why. Editing a case means re-recording it (README.md).
"""
import numpy as np

import conf_harness as H
from conf_harness import bools, ints, normal, rnd  # noqa: F401  (used by cases_*.py too)

REGISTRY = H.Registry()
case, cell, group, add = REGISTRY.case, REGISTRY.cell, REGISTRY.group, REGISTRY.add


def error_words(fn, replace=()):
    """(the exception's class name, MindSpore's own words: the pipeline's "[ERROR] ..." line, else the
    first line) of calling fn, each (text, token) of `replace` written as its token (temporary paths);
    "no error" when fn returns."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the error is the outcome
        lines = str(e).splitlines()
        said = [ln for ln in lines if ln.startswith("[ERROR]")]
        text = (said or lines or [""])[0].strip()
        for old, token in replace:
            text = text.replace(old, token)
        return type(e).__name__, text
    return "no error"


def set_params(net, seed=0, scale=0.5):
    """Set every Parameter of `net` from its name (see conf_harness.param_values)."""
    for _, p in net.parameters_and_names():
        p.set_data(Tensor(H.param_values(p.name, p.shape, p.asnumpy().dtype, seed, scale)))
    return net


def api(ns, name):
    """`ns.name` (ns: ops or nn), or a stand-in when the framework lacks it: the table must load
    in pycompile before every API it names exists (cases naming a missing API are not run)."""
    obj = getattr(ns, name, None)
    if obj is not None:
        return obj

    def missing(*args, **kwargs):
        raise NotImplementedError(f"{name} is not implemented")
    return missing


def new(ns, name, *args, **kwargs):
    """An instance of the class `ns.name` built at load time (a stand-in when it is missing)."""
    cls = api(ns, name)
    return cls(*args, **kwargs) if getattr(ns, name, None) is not None else cls


def special(dtype="float32"):
    """Signed zeros, NaN and infinities beside ordinary values."""
    return np.array([[0.0, -0.0, 1.5, -2.5], [np.nan, np.inf, -np.inf, 3.0]], dtype)


def unary(op):
    def f(x):
        return op(x)
    return f


def binary(op):
    def f(x, y):
        return op(x, y)
    return f


def ternary(op):
    def f(x, y, z):
        return op(x, y, z)
    return f


POS = dict(lo=0.1, hi=4.0)


# ==== elementwise ====================================================================================
group("elementwise")

# name, domain, extra float16 / float64 / int32 variants
UNARY = [
    ("neg", {}, "h i"), ("negative", {}, ""), ("abs", {}, "h i"), ("absolute", {}, ""), ("square", {}, "i d"),
    ("exp", {}, "h d"), ("log", POS, "h d"), ("sqrt", POS, "h"), ("rsqrt", POS, ""), ("sin", {}, "h"),
    ("cos", {}, ""), ("tanh", {}, "h d"), ("erf", {}, "d"), ("reciprocal", POS, "h"), ("floor", {}, "h"),
    ("sigmoid", {}, "h d"), ("relu", {}, "h i"), ("hardswish", dict(lo=-4.0, hi=4.0), "h"),
    ("hardsigmoid", dict(lo=-4.0, hi=4.0), ""), ("gelu", {}, "h"),
]
for _name, _dom, _extra in UNARY:
    _fn = unary(api(ops, _name))
    add(_name, f"ops.{_name}", _fn, [rnd(2, 3, 4, **_dom)])
    if "h" in _extra:
        add(f"{_name}_f16", f"ops.{_name}", _fn, [rnd(3, 5, dtype="float16", **_dom)])
    if "d" in _extra:
        add(f"{_name}_f64", f"ops.{_name}", _fn, [rnd(3, 5, dtype="float64", **_dom)])
    if "i" in _extra:
        add(f"{_name}_i32", f"ops.{_name}", _fn, [ints(3, 4, lo=-5, hi=6)])


@case("ops.log", "ops.sqrt", "ops.reciprocal", "ops.exp", inputs=[special()])
def unary_special(x):
    return ops.log(x), ops.sqrt(x), ops.reciprocal(x), ops.exp(x)


@case("ops.gelu", inputs=[rnd(2, 5, lo=-4.0, hi=4.0)])
def gelu_tanh(x):
    return ops.gelu(x, approximate="tanh")


@case("ops.isfinite", inputs=[special()])
def isfinite_special(x):
    return ops.isfinite(x)


@case("ops.isfinite", inputs=[ints(2, 3, lo=-3, hi=3)])
def isfinite_int(x):
    return ops.isfinite(x)


@case("ops.sigmoid", "ops.tanh", "ops.relu", "ops.abs", "ops.floor", inputs=[special()])
def unary_special_2(x):
    return ops.sigmoid(x), ops.tanh(x), ops.relu(x), ops.abs(x), ops.floor(x)


BINARY = ["add", "sub", "mul", "div", "true_divide", "floor_divide", "floor_div", "remainder", "floor_mod",
          "maximum", "minimum"]
for _name in BINARY:
    _fn = binary(api(ops, _name))
    # broadcasting (3, 1, 4) with (2, 4); integers with negative numerators and positive divisors
    add(_name, f"ops.{_name}", _fn, [rnd(3, 1, 4), rnd(2, 4, lo=0.5, hi=3.0)])
    add(f"{_name}_i32", f"ops.{_name}", _fn, [ints(2, 3, lo=-7, hi=8), ints(3, lo=1, hi=4)])
for _name in ("add", "mul", "div", "maximum"):
    add(f"{_name}_f16", f"ops.{_name}", binary(api(ops, _name)),
        [rnd(2, 3, dtype="float16"), rnd(2, 3, lo=0.5, hi=2.0, dtype="float16")])


@case("ops.pow", inputs=[rnd(2, 3, **POS), rnd(2, 3, lo=-2.0, hi=2.0)])
def pow_float(x, y):
    return ops.pow(x, y)


@case("ops.pow", inputs=[ints(2, 3, lo=-3, hi=4), ints(2, 3, lo=0, hi=4)])
def pow_int(x, y):
    return ops.pow(x, y)


@case("ops.pow", inputs=[rnd(2, 3, **POS)])
def pow_scalar_exponent(x):
    return ops.pow(x, 2), ops.pow(x, 0.5), ops.pow(2.0, x)


@case("ops.add", "ops.mul", "ops.sub", "ops.div", inputs=[ints(2, 3, lo=-4, hi=5)])
def int_tensor_with_python_scalars(x):
    # a Python int keeps int32; a Python float makes it float32; int / int is a true division
    return ops.add(x, 2), ops.mul(x, 2.5), ops.sub(3, x), ops.div(x, 2)


@case("ops.add", "ops.mul", inputs=[rnd(2, 3, dtype="float16")])
def f16_tensor_with_python_scalars(x):
    return ops.add(x, 1), ops.mul(x, 2.5)


# type promotion between tensors
_PROMOTE = {"i32": ints(2, 3), "i64": ints(2, 3, dtype="int64"), "f16": rnd(2, 3, dtype="float16"),
            "f32": rnd(2, 3), "f64": rnd(2, 3, dtype="float64"), "bool": bools(2, 3), "i8": ints(2, 3, dtype="int8")}
for _a, _b in [("i32", "f16"), ("f16", "f32"), ("i32", "i64"), ("bool", "i32"), ("f32", "f64"), ("i8", "i32"),
               ("bool", "f32"), ("i64", "f16")]:
    add(f"add_promote_{_a}_{_b}", "ops.add", binary(api(ops, "add")), [_PROMOTE[_a], _PROMOTE[_b]])
add("add_bool_bool", "ops.add", binary(api(ops, "add")), [bools(2, 3), bools(2, 3)], error=True)
add("mul_bool_bool", "ops.mul", binary(api(ops, "mul")), [bools(2, 3), bools(2, 3)])


_SPECIAL_Y = np.array([[1.0, 0.0, -1.0, np.nan], [2.0, -np.inf, 0.0, np.inf]], np.float32)


@case("ops.div", "ops.floor_divide", "ops.remainder", inputs=[special(), _SPECIAL_Y])
def binary_special(x, y):
    return ops.div(x, y), ops.floor_divide(x, y), ops.remainder(x, y)


@case("ops.maximum", "ops.minimum", inputs=[special(), _SPECIAL_Y],
      oracle_bug="its CPU maximum / minimum return the second operand when only the first is NaN "
                 "(maximum(nan, 2) = 2, maximum(-2.5, nan) = nan); the documentation says a NaN is returned")
def maximum_minimum_nan(x, y):
    return ops.maximum(x, y), ops.minimum(x, y)


@case("ops.div", inputs=[rnd(2, 4, lo=-6.0, hi=6.0), rnd(4, lo=0.5, hi=2.0)])
def div_rounding_modes(x, y):
    return ops.div(x, y, rounding_mode="floor"), ops.div(x, y, rounding_mode="trunc")


@case("ops.div", inputs=[ints(2, 4, lo=-9, hi=10), ints(4, lo=1, hi=4)])
def div_rounding_modes_int(x, y):
    return ops.div(x, y, rounding_mode="floor"), ops.div(x, y, rounding_mode="trunc")


@case("ops.add", inputs=[rnd(2, 3), rnd(4, 3)], error=True)
def add_shape_mismatch(x, y):
    return ops.add(x, y)


@case("ops.clamp", inputs=[rnd(3, 4)])
def clamp_scalars(x):
    return ops.clamp(x, -0.5, 0.5), ops.clamp(x, min=0.0), ops.clamp(x, max=1.0)


@case("ops.clamp", inputs=[rnd(3, 4), rnd(4, lo=-1.0, hi=0.0), rnd(3, 1, lo=0.0, hi=1.0)])
def clamp_tensors(x, lo, hi):
    return ops.clamp(x, lo, hi)


@case("ops.clamp", inputs=[ints(3, 4, lo=-6, hi=7)])
def clamp_int(x):
    return ops.clamp(x, -2, 3)


@case("ops.clip", inputs=[rnd(3, 4)])
def clip_scalars(x):
    return ops.clip(x, -1.0, 1.0), ops.clip(x, max=0.25)


# ==== comparison and logic ===========================================================================
group("compare_logic")

COMPARE = ["equal", "ne", "not_equal", "less", "lt", "less_equal", "le", "greater", "gt", "greater_equal", "ge"]
for _name in COMPARE:
    _fn = binary(api(ops, _name))
    # small integers as floats, so that ties occur
    add(_name, f"ops.{_name}", _fn, [ints(3, 4, lo=-2, hi=3, dtype="float32"), ints(4, lo=-2, hi=3, dtype="float32")])
    add(f"{_name}_i32", f"ops.{_name}", _fn, [ints(2, 3, lo=-2, hi=3), ints(2, 1, lo=-2, hi=3)])


@case("ops.equal", "ops.less", "ops.greater_equal", inputs=[special()])
def compare_special(x):
    return ops.equal(x, x), ops.less(x, 1.5), ops.greater_equal(x, 0)


@case("ops.logical_and", "ops.logical_or", "ops.logical_not", inputs=[bools(3, 4), bools(4)])
def logical_ops(a, b):
    return ops.logical_and(a, b), ops.logical_or(a, b), ops.logical_not(a)


@case("ops.bitwise_and", "ops.bitwise_or", "ops.bitwise_xor", inputs=[ints(3, 4, lo=-8, hi=8), ints(4, lo=0, hi=8)])
def bitwise_int(a, b):
    return ops.bitwise_and(a, b), ops.bitwise_or(a, b), ops.bitwise_xor(a, b)


@case("ops.bitwise_and", "ops.bitwise_or", "ops.bitwise_xor", inputs=[bools(3, 4), bools(3, 4)])
def bitwise_bool(a, b):
    return ops.bitwise_and(a, b), ops.bitwise_or(a, b), ops.bitwise_xor(a, b)


@case("ops.select", inputs=[bools(2, 3), rnd(2, 3), rnd(2, 3)])
def select_same_shape(c, x, y):
    return ops.select(c, x, y)


@case("ops.select", inputs=[bools(2, 1), rnd(2, 3), rnd(1, 3)])
def select_broadcast(c, x, y):
    return ops.select(c, x, y)


@case("ops.select", inputs=[bools(2, 3), rnd(2, 3)])
def select_python_scalar(c, x):
    return ops.select(c, x, 0.0)


@case("ops.select", inputs=[bools(2, 3), ints(2, 3), ints(2, 3, lo=10, hi=20)])
def select_int(c, x, y):
    return ops.select(c, x, y)


@case("ops.where", inputs=[bools(3, 1), rnd(3, 4), rnd(4)])
def where_broadcast(c, x, y):
    return ops.where(c, x, y)


@case("ops.where", inputs=[rnd(3, 4)])
def where_from_comparison(x):
    return ops.where(x > 0, x, ops.zeros_like(x))


@case("ops.cast", inputs=[np.array([[-2.7, -0.5, 0.0, 0.5], [1.5, 2.5, 3.99, -3.99]], np.float32)])
def cast_float_to(x):
    return (ops.cast(x, ms.int32), ops.cast(x, ms.int64), ops.cast(x, ms.bool_), ops.cast(x, ms.float16),
            ops.cast(x, ms.float64), ops.cast(x, ms.int8))


@case("ops.cast", inputs=[ints(2, 3, lo=-3, hi=4), bools(2, 3)])
def cast_int_bool_to(i, b):
    return ops.cast(i, ms.float16), ops.cast(i, ms.bool_), ops.cast(b, ms.float32), ops.cast(b, ms.int32)


@case("ops.cast", inputs=[special()])
def cast_special_to_f16(x):
    return ops.cast(x * 30000.0, ms.float16)


# ---- class forms ---------------------------------------------------------------------------------------
group("class_forms")

CLASS_UNARY = {"Neg": {}, "Abs": {}, "Square": {}, "Exp": {}, "Log": POS, "Sqrt": POS, "Rsqrt": POS, "Sin": {},
               "Cos": {}, "Tanh": {}, "Erf": {}, "Reciprocal": POS, "Floor": {}, "Sigmoid": {}, "ReLU": {},
               "HSwish": dict(lo=-4.0, hi=4.0), "HSigmoid": dict(lo=-4.0, hi=4.0), "GeLU": {}}
for _name, _dom in CLASS_UNARY.items():
    add(f"cls_{_name}", f"ops.{_name}", unary(new(ops, _name)), [rnd(2, 3, 4, **_dom)])

CLASS_BINARY = ["Add", "Sub", "Mul", "RealDiv", "Div", "FloorDiv", "FloorMod", "Mod", "Maximum", "Minimum",
                "Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual"]
for _name in CLASS_BINARY:
    add(f"cls_{_name}", f"ops.{_name}", binary(new(ops, _name)),
        [ints(3, 4, lo=-4, hi=5, dtype="float32"), ints(4, lo=1, hi=4, dtype="float32")])
add("cls_Pow", "ops.Pow", binary(new(ops, "Pow")), [rnd(2, 3, **POS), rnd(2, 3)])
for _name in ("LogicalAnd", "LogicalOr"):
    add(f"cls_{_name}", f"ops.{_name}", binary(new(ops, _name)), [bools(3, 4), bools(3, 4)])
add("cls_LogicalNot", "ops.LogicalNot", unary(new(ops, "LogicalNot")), [bools(3, 4)])
add("cls_IsFinite", "ops.IsFinite", unary(new(ops, "IsFinite")), [special()])
for _name in ("BitwiseAnd", "BitwiseOr", "BitwiseXor"):
    add(f"cls_{_name}", f"ops.{_name}", binary(new(ops, _name)), [ints(3, 4, lo=-8, hi=8), ints(3, 4, lo=0, hi=8)])
add("cls_Select", "ops.Select", ternary(new(ops, "Select")), [bools(2, 3), rnd(2, 3), rnd(2, 3)])


@case("ops.Cast", inputs=[rnd(2, 3, lo=-3.0, hi=3.0)])
def cls_Cast(x):
    return ops.Cast()(x, ms.int32), ops.Cast()(x, ms.float16)


@case("ops.Identity", inputs=[rnd(2, 3)])
def cls_Identity(x):
    return ops.Identity()(x)


@case("ops.Shape", inputs=[rnd(2, 3, 4)])
def cls_Shape(x):
    return ops.Shape()(x)


# ==== reductions =====================================================================================
group("reduce")


@case("ops.sum", inputs=[rnd(2, 3, 4)])
def sum_axes(x):
    return ops.sum(x), ops.sum(x, 1), ops.sum(x, -1, keepdim=True), ops.sum(x, (0, 2))


@case("ops.sum", inputs=[ints(2, 3, lo=-5, hi=6), bools(2, 3), rnd(2, 3, dtype="float16")])
def sum_dtypes(i, b, h):
    # int32 and bool inputs sum in int64; `dtype` casts first
    return ops.sum(i), ops.sum(i, 1), ops.sum(b, 0), ops.sum(h, 1), ops.sum(i, dtype=ms.float32)


@case("ops.mean", inputs=[rnd(2, 3, 4)])
def mean_axes(x):
    return ops.mean(x), ops.mean(x, 1), ops.mean(x, -1, True), ops.mean(x, (0, 2))


@case("ops.mean", inputs=[rnd(3, 5, dtype="float16"), rnd(3, 5, dtype="float64")])
def mean_dtypes(h, d):
    return ops.mean(h, 1), ops.mean(d, 0)


@case("ops.amax", "ops.amin", inputs=[rnd(2, 3, 4)])
def amax_amin(x):
    return ops.amax(x), ops.amax(x, 1), ops.amin(x, -1, True), ops.amin(x, (0, 2))


@case("ops.amax", "ops.amin", inputs=[special(), ints(2, 3, lo=-9, hi=9)])
def amax_amin_special(x, i):
    return ops.amax(x, 1), ops.amin(x, 1), ops.amax(i, 0), ops.amin(i)


@case("ops.all", "ops.any", inputs=[bools(3, 4, p=0.7)])
def all_any(b):
    return ops.all(b), ops.all(b, 1), ops.any(b, 0, True), ops.any(b)


@case("ops.all", "ops.any", inputs=[ints(3, 4, lo=0, hi=3, dtype="float32")],
      oracle_bug="its CPU ReduceAll / ReduceAny on float32 return values unrelated to the input "
                 "(any over a column [1, 0, 0] is False)")
def all_any_float(x):
    return ops.all(x, 1), ops.any(x, 0)


@case("ops.argmax", inputs=[ints(3, 4, lo=0, hi=4, dtype="float32")])
def argmax_ties(x):
    # ties: the first index wins
    return ops.argmax(x), ops.argmax(x, 1), ops.argmax(x, 0, keepdim=True)


@case("ops.argmax", inputs=[ints(2, 5, lo=-9, hi=9)])
def argmax_int(x):
    return ops.argmax(x, -1)


@case("ops.softmax", inputs=[rnd(2, 3, 4, lo=-4.0, hi=4.0)])
def softmax_axes(x):
    return ops.softmax(x), ops.softmax(x, 0), ops.softmax(x, axis=1)


@case("ops.softmax", inputs=[rnd(2, 5, dtype="float16"), rnd(2, 5, dtype="float64")])
def softmax_dtypes(h, d):
    return ops.softmax(h), ops.softmax(d)


@case("ops.softmax", inputs=[np.array([[-1e9, 0.0, 1.0, -1e9], [100.0, 100.0, -100.0, 50.0]], np.float32)])
def softmax_masked_large(x):
    return ops.softmax(x)


LOG_SOFTMAX_NOTE = "MindSpore's CPU LogSoftmax is up to ~3.5e-6 off the exact value, in float64 too"
LOG_SOFTMAX_TOL = {"Float32": (1e-5, 5e-6), "Float64": (1e-5, 5e-6)}


@case("ops.log_softmax", inputs=[rnd(2, 3, 4, lo=-4.0, hi=4.0)], tol=LOG_SOFTMAX_TOL, note=LOG_SOFTMAX_NOTE)
def log_softmax_axes(x):
    return ops.log_softmax(x), ops.log_softmax(x, 1)


@case("ops.log_softmax", inputs=[rnd(2, 5, dtype="float16"), rnd(2, 5, dtype="float64")], tol=LOG_SOFTMAX_TOL,
      note=LOG_SOFTMAX_NOTE)
def log_softmax_dtypes(h, d):
    return ops.log_softmax(h), ops.log_softmax(d)


@case("ops.layer_norm", inputs=[rnd(2, 3, 4), rnd(4, lo=0.5, hi=1.5), rnd(4, lo=-0.5, hi=0.5)])
def layer_norm_last_axis(x, w, b):
    return ops.layer_norm(x, (4,), w, b)


@case("ops.layer_norm", inputs=[rnd(2, 3, 4)])
def layer_norm_no_affine(x):
    return ops.layer_norm(x, (3, 4), eps=1e-3)


@case("ops.addn", inputs=[rnd(2, 3), rnd(2, 3), rnd(2, 3)])
def addn_three(x, y, z):
    return ops.addn([x, y, z]), ops.addn((x, y))


@case("ops.AddN", inputs=[rnd(2, 3), rnd(2, 3), rnd(2, 3)])
def cls_AddN(x, y, z):
    return ops.AddN()((x, y, z))


@case("ops.ReduceSum", inputs=[rnd(2, 3, 4), ints(2, 3)])
def cls_ReduceSum(x, i):
    # the primitive keeps an int32 input int32
    return ops.ReduceSum()(x), ops.ReduceSum(keep_dims=True)(x, 1), ops.ReduceSum()(x, (0, 2)), ops.ReduceSum()(i, 1)


@case("ops.ReduceMean", "ops.ReduceMax", "ops.ReduceMin", inputs=[rnd(2, 3, 4)])
def cls_ReduceMean_Max_Min(x):
    return (ops.ReduceMean()(x), ops.ReduceMean(keep_dims=True)(x, -1), ops.ReduceMax()(x, 1),
            ops.ReduceMax(True)(x), ops.ReduceMin()(x, (0, 1)))


@case("ops.ReduceAll", "ops.ReduceAny", inputs=[bools(3, 4, p=0.7)])
def cls_ReduceAll_Any(b):
    return ops.ReduceAll()(b), ops.ReduceAll(keep_dims=True)(b, 1), ops.ReduceAny()(b, 0)


@case("ops.Argmax", inputs=[ints(3, 4, lo=0, hi=4, dtype="float32")])
def cls_Argmax(x):
    return ops.Argmax()(x), ops.Argmax(axis=0)(x), ops.Argmax(axis=1, output_type=ms.int64)(x)


@case("ops.Softmax", "ops.LogSoftmax", inputs=[rnd(2, 3, 4)], tol=LOG_SOFTMAX_TOL, note=LOG_SOFTMAX_NOTE)
def cls_Softmax_LogSoftmax(x):
    return ops.Softmax()(x), ops.Softmax(axis=1)(x), ops.LogSoftmax()(x), ops.LogSoftmax(0)(x)


@case("ops.sum", inputs=[rnd(2, 3)], error=True)
def sum_axis_out_of_range(x):
    return ops.sum(x, 2)


# ==== layout =========================================================================================
group("layout")


@case("ops.reshape", inputs=[rnd(2, 3, 4)])
def reshape_shapes(x):
    return ops.reshape(x, (4, 6)), ops.reshape(x, (-1, 2)), ops.reshape(x, (24,)), ops.reshape(x, (2, 1, 12))


@case("ops.reshape", inputs=[rnd(2, 3, 4)], error=True)
def reshape_incompatible(x):
    return ops.reshape(x, (5, 5))


@case("ops.Reshape", inputs=[ints(2, 3, 4)])
def cls_Reshape(x):
    return ops.Reshape()(x, (6, 4))


@case("ops.flatten", inputs=[rnd(2, 3, 4), rnd(5)])
def flatten_default(x, v):
    return ops.flatten(x), ops.flatten(v), ops.flatten(x, start_dim=0), ops.flatten(x, start_dim=0, end_dim=1)


@case("ops.transpose", inputs=[rnd(2, 3, 4)])
def transpose_perm(x):
    return ops.transpose(x, (2, 0, 1)), ops.transpose(x, (1, 0, 2))


@case("ops.transpose", inputs=[rnd(2, 3, 4)], error=True)
def transpose_bad_perm(x):
    return ops.transpose(x, (1, 0))


@case("ops.Transpose", inputs=[ints(2, 3, 4)])
def cls_Transpose(x):
    return ops.Transpose()(x, (2, 1, 0))


@case("ops.permute", inputs=[rnd(2, 3, 4)])
def permute_dims(x):
    return ops.permute(x, (1, 2, 0))


@case("ops.swapaxes", inputs=[rnd(2, 3, 4)])
def swapaxes_dims(x):
    return ops.swapaxes(x, 0, 2), ops.swapaxes(x, -1, -2)


@case("ops.expand_dims", "ops.unsqueeze", inputs=[rnd(2, 3)])
def expand_dims_axes(x):
    return ops.expand_dims(x, 0), ops.expand_dims(x, -1), ops.unsqueeze(x, 1)


@case("ops.ExpandDims", inputs=[rnd(2, 3)])
def cls_ExpandDims(x):
    return ops.ExpandDims()(x, 2)


@case("ops.squeeze", inputs=[rnd(1, 3, 1, 2)])
def squeeze_axes(x):
    return ops.squeeze(x), ops.squeeze(x, 0), ops.squeeze(x, (0, 2))


@case("ops.squeeze", inputs=[rnd(1, 3, 1, 2)])
def squeeze_axis_not_one(x):
    return ops.squeeze(x, 1)


@case("ops.Squeeze", inputs=[rnd(1, 3, 1)])
def cls_Squeeze(x):
    return ops.Squeeze()(x), ops.Squeeze(axis=2)(x)


@case("ops.broadcast_to", inputs=[rnd(3, 1)])
def broadcast_to_shapes(x):
    return ops.broadcast_to(x, (2, 3, 4)), ops.broadcast_to(x, (-1, 5))


@case("ops.broadcast_to", inputs=[rnd(3, 2)], error=True)
def broadcast_to_incompatible(x):
    return ops.broadcast_to(x, (3, 4))


@case("ops.BroadcastTo", inputs=[ints(1, 3)])
def cls_BroadcastTo(x):
    return ops.BroadcastTo((2, 3))(x)


@case("ops.tile", inputs=[rnd(2, 3)])
def tile_dims(x):
    return ops.tile(x, (2, 1)), ops.tile(x, (2, 1, 2))


@case("ops.Tile", inputs=[ints(2, 2)])
def cls_Tile(x):
    return ops.Tile()(x, (1, 3))


@case("ops.concat", "ops.cat", inputs=[rnd(2, 3), rnd(1, 3), rnd(2, 2)])
def concat_axes(x, y, z):
    return ops.concat((x, y)), ops.concat([x, z], axis=1), ops.cat((x, z), -1)


@case("ops.concat", inputs=[rnd(2, 3), rnd(2, 3, 1)], error=True)
def concat_rank_mismatch(x, y):
    return ops.concat((x, y))


@case("ops.concat", inputs=[rnd(2, 3), rnd(3, 2)], error=True)
def concat_shape_mismatch(x, y):
    return ops.concat((x, y), 1)


@case("ops.concat", inputs=[ints(2, 2), rnd(2, 2)],
      oracle_bug="GRAPH_MODE truncates the float32 input to integers before concatenating into a Float32 "
                 "result ([-1.61, 0.45] becomes [-1.0, 0.0]); PyNative has no kernel for mixed dtypes")
def concat_mixed_dtypes(x, y):
    return ops.concat((x, y))


@case("ops.Concat", inputs=[ints(2, 3), ints(2, 1)])
def cls_Concat(x, y):
    return ops.Concat(axis=1)((x, y))


@case("ops.stack", inputs=[rnd(2, 3), rnd(2, 3)])
def stack_axes(x, y):
    return ops.stack((x, y)), ops.stack([x, y], axis=-1), ops.stack((x, y, x), 1)


@case("ops.stack", inputs=[rnd(2, 3), rnd(3, 2)], error=True)
def stack_shape_mismatch(x, y):
    return ops.stack((x, y))


@case("ops.Stack", inputs=[ints(2, 3), ints(2, 3)])
def cls_Stack(x, y):
    return ops.Stack(axis=1)([x, y])


@case("ops.gather", inputs=[rnd(5, 3), ints(2, 2, lo=0, hi=5)])
def gather_axis0(x, idx):
    return ops.gather(x, idx, 0)


@case("ops.gather", inputs=[rnd(2, 5, 3), ints(4, lo=0, hi=5, dtype="int64")])
def gather_axis1(x, idx):
    return ops.gather(x, idx, 1), ops.gather(x, idx[:2], -2)


@case("ops.gather", inputs=[rnd(5, 3), np.array([0, 7], np.int32)], error=True)
def gather_out_of_range(x, idx):
    return ops.gather(x, idx, 0)


@case("ops.Gather", inputs=[ints(3, 4), ints(2, lo=0, hi=4)])
def cls_Gather(x, idx):
    return ops.Gather()(x, idx, 1)


@case("Tensor.__getitem__", inputs=[rnd(3, 4, 5)])
def getitem_basic(x):
    return x[1], x[:, 1:3], x[..., ::2], x[None, 0], x[-1, :, 2], x[::-1, 0]


@case("Tensor.__getitem__", inputs=[rnd(4, 3), ints(2, lo=0, hi=4)])
def getitem_tensor_index(x, idx):
    return x[idx], x[:, Tensor(np.array([2, 0], np.int32))]


@case("Tensor.__getitem__", inputs=[rnd(3, 4)], error=True)
def getitem_out_of_range(x):
    return x[3]


# ==== products =======================================================================================
group("matmul")


@case("ops.matmul", inputs=[rnd(3, 4), rnd(4, 5)])
def matmul_2d(x, y):
    return ops.matmul(x, y)


@case("ops.matmul", inputs=[rnd(2, 3, 4), rnd(4, 5), rnd(4), rnd(2, 1, 3, 4), rnd(5, 4, 2)])
def matmul_broadcast(x, w, v, a, b):
    return ops.matmul(x, w), ops.matmul(v, w), ops.matmul(x, v), ops.matmul(v, v), ops.matmul(a, b)


@case("ops.matmul", inputs=[rnd(3, 4, dtype="float16"), rnd(4, 2, dtype="float16"),
                            rnd(3, 4, dtype="float64"), rnd(4, 2, dtype="float64")])
def matmul_dtypes(h1, h2, d1, d2):
    return ops.matmul(h1, h2), ops.matmul(d1, d2)


@case("ops.matmul", inputs=[ints(2, 3), ints(3, 2)])
def matmul_int(x, y):
    return ops.matmul(x, y)


@case("ops.matmul", inputs=[rnd(3, 4), rnd(3, 5)], error=True)
def matmul_inner_mismatch(x, y):
    return ops.matmul(x, y)


@case("ops.mm", inputs=[rnd(3, 4), rnd(4, 2)])
def mm_2d(x, y):
    return ops.mm(x, y)


@case("ops.bmm", inputs=[rnd(2, 3, 4), rnd(2, 4, 5)])
def bmm_3d(x, y):
    return ops.bmm(x, y)


@case("ops.bmm", inputs=[rnd(2, 3, 4), rnd(3, 4, 5)], error=True)
def bmm_batch_mismatch(x, y):
    return ops.bmm(x, y)


@case("ops.MatMul", inputs=[rnd(3, 4), rnd(5, 4), rnd(3, 5), rnd(4, 3)])
def cls_MatMul(x, w, y, xt):
    return ops.MatMul(transpose_b=True)(x, w), ops.MatMul(transpose_a=True)(x, y), ops.MatMul()(x, xt)


@case("ops.MatMul", inputs=[rnd(3, 4), rnd(5, 3)], error=True)
def cls_MatMul_inner_mismatch(x, w):
    return ops.MatMul()(x, w)


@case("ops.BatchMatMul", inputs=[rnd(2, 3, 4), rnd(2, 5, 4), rnd(2, 4, 5)])
def cls_BatchMatMul(x, w, y):
    return ops.BatchMatMul(transpose_b=True)(x, w), ops.BatchMatMul()(x, y)


@case("ops.dense", inputs=[rnd(2, 3), rnd(4, 3), rnd(4), rnd(2, 5, 3)])
def dense_fn(x, w, b, x3):
    return ops.dense(x, w, b), ops.dense(x, w), ops.dense(x3, w, b)


@case("ops.BiasAdd", inputs=[rnd(2, 3), rnd(3), rnd(2, 3, 2, 2)])
def cls_BiasAdd(x, b, x4):
    # NCHW: the bias adds along axis 1
    return ops.BiasAdd()(x, b), ops.BiasAdd()(x4, b)


# ==== creation =======================================================================================
group("creation")


@case("ops.fill", "ops.Fill")
def fill_values():
    return ops.fill(ms.float32, (2, 3), 1.5), ops.fill(ms.int32, (2,), 7), ops.Fill()(ms.float16, (1, 2), 2)


@case("ops.full")
def full_values():
    return ops.full((2, 3), 7), ops.full((2,), 1.5), ops.full((2, 2), True), ops.full((1, 2), 3, dtype=ms.float64)


@case("ops.zeros", "ops.ones", "ops.Zeros", "ops.Ones")
def zeros_ones():
    return (ops.zeros((2, 3)), ops.zeros((2,), ms.int32), ops.ones((1, 2)), ops.ones(3, ms.float16),
            ops.Zeros()((2, 2), ms.float32), ops.Ones()((2,), ms.int64))


@case("ops.zeros_like", "ops.ones_like", "ops.full_like", inputs=[ints(2, 3), rnd(2, 2)])
def like_creation(i, f):
    return (ops.zeros_like(i), ops.ones_like(f), ops.ones_like(i, dtype=ms.float32), ops.full_like(f, 2.5),
            ops.full_like(i, 3))


@case("ops.ZerosLike", "ops.OnesLike", inputs=[rnd(2, 3, dtype="float16")])
def cls_ZerosLike_OnesLike(x):
    return ops.ZerosLike()(x), ops.OnesLike()(x)


@case("ms.tensor", "ms.Tensor")
def tensor_from_python():
    # default dtypes: ints Int64, floats Float32, bools Bool
    return (Tensor([0, 1]), Tensor([1.5, 2.0]), Tensor([True, False]), Tensor(2), Tensor(2.5),
            Tensor([1, 2], ms.float16), ms.tensor([[1, 2]], ms.int32))


@case("Tensor.from_numpy")
def tensor_from_numpy():
    return Tensor.from_numpy(np.arange(6, dtype=np.int32).reshape(2, 3))
