"""Every elementwise op of the table compiled inside `@jit`, against its eager result and a NumPy
reference: each dtype it supports (bool / int32 / int64 / float16 / float32 / float64), broadcasting
((2,3)+(3,), (4,1)+(1,5), 0-d, tensor + Python scalar), odd shapes (1, 7x13, empty), special float
values, select and cast. Driven by the op table and the spec tables of tests/ops/op_specs.py.

One C module per dtype (see opcheck.Group): the checks of a dtype are compiled together.
"""
from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from opcheck import BOOL, DTYPES, F16, F32, F64, I32, I64, Check, Group, dtname, op_specs, params

import pycompile as ms
from pycompile import Tensor, ops
from pycompile.compiler import ir
from pycompile.ops import OPS

UNARY_SHAPES = [(), (1,), (7, 13), (0, 3), (3, 1, 5)]
BINARY_SHAPES = [((2, 3), (3,)), ((3,), (2, 3)), ((4, 1), (1, 5)), ((), (2, 3)), ((2, 3), ()), ((), ()),
                 ((7, 13), (7, 13)), ((0, 3), (1, 3)), ((1,), (2, 1, 3))]


def _accepts(spec, dtype) -> bool:
    return np.dtype(dtype).kind in spec.kinds


def _reference(spec, dtype):
    """The op_specs reference, on inputs converted to the op's compute dtype, cast to its result dtype."""
    def ref(*arrays):
        cdt = spec.compute_dtype(dtype)
        out = spec.ref(*[np.asarray(a).astype(cdt) for a in arrays])
        return np.asarray(out).astype(spec.out_dtype(dtype))
    return ref


def _scalar_for(dtype, domain):
    """A Python scalar of the tensor's own kind (it never widens the tensor's dtype)."""
    kind = np.dtype(dtype).kind
    if kind == "b":
        return True
    if kind == "i":
        return 2
    return 0.5 if domain != "small" else 2.0


def _with_scalar(fn, s, left: bool):
    return (lambda x: fn(s, x)) if left else (lambda x: fn(x, s))


def _scalar_ref(ref, s, dtype, left: bool):
    s_arr = np.array(s, dtype=dtype)
    return (lambda x: ref(s_arr, x)) if left else (lambda x: ref(x, s_arr))


# Each op runs on one shape per form (the kernel emitter's shape handling is op-independent);
# the shapes and broadcasting patterns run through a few representative ops per dtype.
SHAPE_OPS_UNARY = ("Neg", "Abs", "Exp", "LogicalNot")
SHAPE_OPS_BINARY = ("Add", "Less", "LogicalOr", "Maximum")


def elementwise_checks(dtype) -> list:
    checks = []
    with_class = np.dtype(dtype) == np.dtype(F32)
    for spec in op_specs.UNARY:
        if not _accepts(spec, dtype):
            continue
        ref = _reference(spec, dtype)
        shapes = UNARY_SHAPES if spec.op in SHAPE_OPS_UNARY else [(7, 13)]
        for i, shape in enumerate(shapes):
            x = op_specs.sample(dtype, shape, spec.domain[0], seed=i)
            checks.append(Check(f"{spec.op}{list(shape)}", (spec.op,), spec.fn, (x,), ref))
        if spec.cls is not None and with_class:
            x = op_specs.sample(dtype, (2, 3), spec.domain[0], seed=9)
            checks.append(Check(f"{spec.op} class", (spec.op,), spec.cls(), (x,), ref))
    for spec in op_specs.BINARY:
        if not _accepts(spec, dtype):
            continue
        ref = _reference(spec, dtype)
        shapes = BINARY_SHAPES if spec.op in SHAPE_OPS_BINARY else BINARY_SHAPES[:1]
        for i, (sx, sy) in enumerate(shapes):
            x = op_specs.sample(dtype, sx, spec.domain[0], seed=i)
            y = op_specs.sample(dtype, sy, spec.domain[1], seed=100 + i)
            checks.append(Check(f"{spec.op}{list(sx)}{list(sy)}", (spec.op,), spec.fn, (x, y), ref))
        x = op_specs.sample(dtype, (2, 3), spec.domain[0], seed=7)
        s = _scalar_for(dtype, spec.domain[1])
        checks.append(Check(f"{spec.op}(x, {s!r})", (spec.op,), _with_scalar(spec.fn, s, False), (x,),
                            _scalar_ref(ref, s, dtype, False)))
        if spec.domain[1] == "any":
            checks.append(Check(f"{spec.op}({s!r}, x)", (spec.op,), _with_scalar(spec.fn, s, True), (x,),
                                _scalar_ref(ref, s, dtype, True)))
        if spec.cls is not None and with_class:
            y = op_specs.sample(dtype, (3,), spec.domain[1], seed=8)
            checks.append(Check(f"{spec.op} class", (spec.op,), spec.cls(), (x, y), ref))
    checks += select_checks(dtype) + cast_checks(dtype)
    return checks


def select_checks(dtype) -> list:
    c = op_specs.sample(BOOL, (2, 1), seed=3)
    c2 = op_specs.sample(BOOL, (2, 3), seed=4)
    x = op_specs.sample(dtype, (3,), seed=5)
    y = op_specs.sample(dtype, (2, 3), seed=6)
    s = _scalar_for(dtype, "any")
    return [
        Check("Select broadcast", ("Select",), ops.select, (c, x, y), np.where),
        Check("Select 0-d cond", ("Select",), ops.select, (np.array(True), x, y), np.where),
        Check("Select scalar y", ("Select",), lambda c, x: ops.select(c, x, s), (c2, y),
              lambda c, x: np.where(c, x, np.array(s, dtype))),
        Check("Select class", ("Select",), ops.Select(), (c2, y, y[::-1].copy()), np.where),
        Check("Select Python bool cond", ("Select",), lambda x, y: ops.select(False, x, y), (x, y),
              lambda x, y: np.where(False, x, y)),
        Check("Select two Python numbers", ("Select",), lambda c: ops.select(c, s, s), (c2,),
              lambda c: np.where(c, s, s).astype(_scalar_result(dtype))),
    ] + ([Check("ReLUGrad", ("ReLUGrad",), lambda g, out: ops.apply(ops.OPS["ReLUGrad"], [g, out]),
                (y, np.maximum(y[::-1].copy(), 0)), lambda g, out: np.where(out > 0, g, 0).astype(dtype))]
         if np.dtype(dtype).kind == "f" else [])


def _scalar_result(dtype):
    """Select(cond, s, s) of two Python numbers: MindSpore's default dtype of the number's kind."""
    return {"b": BOOL, "i": I64, "f": F32}[np.dtype(dtype).kind]


def cast_checks(dtype) -> list:
    # values with fractions and both signs: float -> int truncates toward zero, nonzero -> True
    x = op_specs.sample(dtype, (2, 3), seed=11)
    if np.dtype(dtype).kind == "f":
        x = (np.array([[-2.75, -1.5, -0.25], [0.0, 0.5, 2.75]]) * 1).astype(dtype)
    checks = []
    for to in DTYPES:
        checks.append(Check(f"Cast to {dtname(to)}", ("Cast",), lambda v, to=to: ops.cast(v, op_specs.ms_dtype(to)),
                            (x,), lambda v, to=to: v.astype(to)))
    checks.append(Check("Cast class 0-d", ("Cast",), lambda v: ops.Cast()(v, ms.float64), (x[0, 0],),
                        lambda v: v.astype(F64)))
    return checks


ELEMENTWISE = [Group(f"ew_{dtname(dt)}", elementwise_checks(dt)) for dt in DTYPES]


@pytest.mark.parametrize("group, name", params(ELEMENTWISE))
def test_elementwise_compiled(group, name):
    group.run(name)


# ---- special values and mixed kinds -----------------------------------------------------------------
_NAN, _INF = np.nan, np.inf
SPECIAL_X = np.array([_NAN, _INF, -_INF, 0.0, -0.0, 1.5, -2.5, 3.0])
SPECIAL_Y = np.array([1.0, _NAN, -_INF, -0.0, 0.0, 2.5, _INF, -3.0])


def _floor_div_ms(a, b):
    """MindSpore's float FloorDiv: floor(a / b) in double (NumPy's floor_divide says -2.5 // inf is -1)."""
    return np.floor(a.astype(F64) / b.astype(F64)).astype(a.dtype)


def _floor_mod_ms(a, b):
    """MindSpore's float FloorMod: a - floor(a / b) * b in double (a mod inf is NaN; NumPy says inf)."""
    a64, b64 = a.astype(F64), b.astype(F64)
    return (a64 - np.floor(a64 / b64) * b64).astype(a.dtype)


def _special_checks(dtype) -> list:
    x, y = SPECIAL_X.astype(dtype), SPECIAL_Y.astype(dtype)
    binary = [("Maximum", ops.maximum, np.maximum), ("Minimum", ops.minimum, np.minimum),
              ("Equal", ops.equal, np.equal), ("NotEqual", ops.ne, np.not_equal), ("Less", ops.less, np.less),
              ("GreaterEqual", ops.ge, np.greater_equal), ("Add", ops.add, np.add), ("Mul", ops.mul, np.multiply),
              ("RealDiv", ops.div, np.true_divide), ("FloorDiv", ops.floor_divide, _floor_div_ms),
              ("FloorMod", ops.remainder, _floor_mod_ms), ("LogicalAnd", ops.logical_and, np.logical_and)]
    unary = [("IsFinite", ops.isfinite, np.isfinite), ("Abs", ops.abs, np.abs), ("Neg", ops.neg, np.negative),
             ("Floor", ops.floor, np.floor), ("Ceil", ops.ceil, np.ceil), ("Exp", ops.exp, np.exp), ("Sqrt", ops.sqrt, np.sqrt),
             ("Log", ops.log, np.log), ("Tanh", ops.tanh, np.tanh), ("Sigmoid", ops.sigmoid,
                                                                   lambda v: 1 / (1 + np.exp(-v))),
             ("LogicalNot", ops.logical_not, np.logical_not)]
    checks = [Check(f"{op} special {dtname(dtype)}", (op,), fn, (x, y), ref) for op, fn, ref in binary]
    checks += [Check(f"{op} special {dtname(dtype)}", (op,), fn, (x,), ref) for op, fn, ref in unary]
    checks.append(Check(f"Select special {dtname(dtype)}", ("Select",), lambda a, b: ops.select(a > b, a, b), (x, y),
                        lambda a, b: np.where(a > b, a, b)))
    return checks


def _int_checks() -> list:
    big32 = np.array([2 ** 31 - 1, -2 ** 31, 7, -7], I32)
    big64 = np.array([2 ** 63 - 1, -2 ** 63, 7, -7], I64)
    ints = np.array([-7, 7, -6, 5, 0, -1], I32)
    divs = np.array([2, -2, 4, -3, 3, 5], I32)
    return [
        # integer arithmetic wraps around, as in NumPy
        Check("int32 Add wraps", ("Add",), lambda v: v + 1, (big32,), lambda v: v + np.int32(1)),
        Check("int32 Sub wraps", ("Sub",), lambda v: v - 1, (big32,), lambda v: v - np.int32(1)),
        Check("int32 Mul wraps", ("Mul",), lambda v: v * 3, (big32,), lambda v: v * np.int32(3)),
        Check("int64 Add wraps", ("Add",), lambda v: v + 1, (big64,), lambda v: v + np.int64(1)),
        Check("int32 Neg min", ("Neg",), ops.neg, (big32,), np.negative),
        Check("int32 Abs min", ("Abs",), ops.abs, (big32,), np.abs),
        Check("int32 wrap compare", ("Add", "Greater"), lambda v: (v + 1) > v, (big32,),
              lambda v: (v + np.int32(1)) > v),
        Check("int32 Pow overflow", ("Pow",), lambda v: ops.pow(v, 31), (np.array([2, 3, -2], I32),),
              lambda v: v ** np.int32(31)),
        Check("int32 Pow negative exponent", ("Pow",), ops.pow, (np.array([1, -1, -1, 2, 0], I32),
                                                                np.array([-2, -3, -2, -1, 3], I32)),
              lambda v, e: np.array([1, -1, 1, 0, 0], I32)),
        Check("int32 FloorDiv signs", ("FloorDiv",), ops.floor_divide, (ints, divs), np.floor_divide),
        Check("int32 FloorMod signs", ("FloorMod",), ops.remainder, (ints, divs), np.mod),
        Check("int32 FloorDiv by zero", ("FloorDiv",), lambda v: ops.floor_divide(v, 0), (ints,),
              lambda v: np.zeros_like(v)),
        Check("int32 RealDiv", ("RealDiv",), ops.div, (ints, divs), lambda a, b: (a / b).astype(F32)),
        # Python scalars of another kind promote as MindSpore does
        Check("int32 * 2.5 -> float32", ("Mul",), lambda v: v * 2.5, (ints,), lambda v: (v * 2.5).astype(F32)),
        Check("bool + 1 -> int64", ("Add",), lambda v: v + 1, (np.array([True, False]),),
              lambda v: v.astype(I64) + 1),
        Check("float16 + 1 stays float16", ("Add",), lambda v: v + 1, (np.array([0.5, -2.0], F16),),
              lambda v: v + F16(1)),
        Check("int32 < 0.5", ("Less",), lambda v: v < 0.5, (ints,), lambda v: v < 0.5),
        # tensors of different dtypes promote
        Check("int32 + float16 -> float16", ("Add",), ops.add, (ints, divs.astype(F16)),
              lambda a, b: (a + b).astype(F16)),
        Check("int32 + int64 -> int64", ("Add",), ops.add, (ints, divs.astype(I64)), lambda a, b: a + b),
        Check("bool * float64", ("Mul",), ops.mul, (ints > 0, divs.astype(F64)), lambda a, b: a * b),
        Check("float16 + float32", ("Add",), ops.add, (ints.astype(F16), divs.astype(F32)), lambda a, b: a + b),
        # float16 math converts its other operands to float16 first (as NumPy / MindSpore do)
        Check("float16 < 0.1", ("Less",), lambda v: v < 0.1, (np.array([0.1, 0.2, -1], F16),),
              lambda v: v < F16(0.1)),
        Check("float16 == 0.1", ("Equal",), lambda v: v == 0.1, (np.array([0.1, 0.2, -1], F16),),
              lambda v: v == F16(0.1)),
        Check("int32 + float16 rounds the int", ("Add",), ops.add,
              (np.array([2049, 4097, -2049], I32), np.array([0.1, 1.0, 0.0], F16)),
              lambda a, b: a.astype(F16) + b),
        Check("Select float16 from int32 and 0.1", ("Select",),
              lambda c, a: ops.select(c, ops.cast(a, ms.float16), 0.1),
              (np.array([True, False]), np.array([2049, 1], I32)),
              lambda c, a: np.where(c, a.astype(F16), F16(0.1))),
        Check("Cast float64 -> float16 rounds once", ("Cast",), lambda v: ops.cast(v, ms.float16),
              (np.array([1.0 + 2.0 ** -11 + 2.0 ** -40, 65519.0, 1e-8], F64),), lambda v: v.astype(F16)),
        Check("int8 + int8 wraps", ("Add",), ops.add, (np.array([127, -128], np.int8), np.array([1, -1], np.int8)),
              lambda a, b: a + b),
        Check("uint8 Sub wraps", ("Sub",), ops.sub, (np.array([0, 200], np.uint8), np.array([1, 100], np.uint8)),
              lambda a, b: a - b),
    ]


def _floor_rounding_checks() -> list:
    """x // y and x mod y where x / y rounds across an integer: values from MindSpore 2.10."""
    x, y = np.array([1.0, 7.0, -1.0]), np.array([0.1, 0.7, 0.1])
    return [
        Check("FloorDiv rounding float32", ("FloorDiv",), ops.floor_divide, (x.astype(F32), y.astype(F32)),
              lambda a, b: np.array([9.0, 10.0, -10.0], F32)),
        Check("FloorDiv rounding float64", ("FloorDiv",), ops.floor_divide, (x, y),
              lambda a, b: np.array([10.0, 10.0, -10.0])),
        Check("FloorDiv rounding float16", ("FloorDiv",), ops.floor_divide, (x.astype(F16), y.astype(F16)),
              lambda a, b: np.array([10.0, 9.0, -11.0], F16)),
        Check("FloorMod rounding float32", ("FloorMod",), ops.remainder, (x.astype(F32), y.astype(F32)),
              lambda a, b: np.array([9.9999987e-02, 1.1920929e-07, 1.4901161e-08], F32)),
        Check("FloorMod rounding float64", ("FloorMod",), ops.remainder, (x, y), lambda a, b: np.zeros(3)),
    ]


def _small_int_checks() -> list:
    """int8 / uint8 / int16 (MindSpore dtypes NumPy shares): arithmetic wraps in the type."""
    checks = []
    for dt in (np.int8, np.uint8, np.int16):
        info = np.iinfo(dt)
        x = np.array([info.min, info.max, 7, 0, 100 if info.min == 0 else -7], dt)
        y = np.array([1, 3, 2, 5, 9], dt)
        name = dtname(dt)
        checks += [
            Check(f"{name} Add", ("Add",), ops.add, (x, y), np.add),
            Check(f"{name} Sub", ("Sub",), ops.sub, (x, y), np.subtract),
            Check(f"{name} Mul", ("Mul",), ops.mul, (x, y), np.multiply),
            Check(f"{name} Neg", ("Neg",), ops.neg, (x,), np.negative),
            Check(f"{name} Abs", ("Abs",), ops.abs, (x,), np.abs),
            Check(f"{name} FloorDiv", ("FloorDiv",), ops.floor_divide, (x, y), np.floor_divide),
            Check(f"{name} FloorMod", ("FloorMod",), ops.remainder, (x, y), np.mod),
            Check(f"{name} Maximum", ("Maximum",), ops.maximum, (x, y), np.maximum),
            Check(f"{name} Less", ("Less",), ops.less, (x, y), np.less),
            Check(f"{name} BitwiseXor", ("BitwiseXor",), ops.bitwise_xor, (x, y), np.bitwise_xor),
            Check(f"{name} Cast float32", ("Cast",), lambda v: ops.cast(v, ms.float32), (x,), lambda v: v.astype(F32)),
            Check(f"{name} Sum", ("ReduceSum",), lambda v: ops.ReduceSum()(v, 0), (x,), lambda v, dt=dt: np.sum(v, dtype=dt)),
        ]
    return checks


def _bool_byte_checks() -> list:
    """Bools stored as other bytes (np.uint8 2, 255 viewed as bool, as a file or a view can hold
    them): Tensor() normalises them, so kernels see 0 and 1 only (reliability issue 31)."""
    x = np.array([0, 1, 2, 255, 128, 0], np.uint8).view(np.bool_)
    y = np.array([3, 0, 1, 0, 2, 0], np.uint8).view(np.bool_)

    def b(v):
        return v.view(np.uint8) != 0
    return [
        Check("bool bytes Cast int32", ("Cast",), lambda v: ops.cast(v, ms.int32), (x,), lambda v: b(v).astype(I32)),
        Check("bool bytes LogicalNot", ("LogicalNot",), ops.logical_not, (x,), lambda v: ~b(v)),
        Check("bool bytes LogicalAnd", ("LogicalAnd",), ops.logical_and, (x, y), lambda v, w: b(v) & b(w)),
        Check("bool bytes Equal", ("Equal",), ops.equal, (x, y), lambda v, w: b(v) == b(w)),
    ]


MISC = [Group("ew_small_ints", _small_int_checks() + _bool_byte_checks()),
        Group("ew_special", _special_checks(F32) + _special_checks(F64) + _special_checks(F16)
              + _floor_rounding_checks()),
        Group("ew_ints", _int_checks())]


@pytest.mark.parametrize("group, name", params(MISC))
def test_elementwise_edge_cases_compiled(group, name):
    group.run(name)


# ---- fused chains and large shapes ------------------------------------------------------------------
def _chain(x, y, z):
    a = ops.exp(x * 0.5) + y
    b = ops.select(a > 1.0, a, ops.sigmoid(z))
    return b * b - ops.abs(y), ops.cast(b > 0.5, ms.int32) + 1


def _chain_ref(x, y, z):
    a = np.exp(x * F32(0.5)) + y
    b = np.where(a > 1.0, a, 1 / (1 + np.exp(-z)))
    return (b * b - np.abs(y)).astype(F32), ((b > 0.5).astype(I32) + 1)


_N = 1000003    # a prime: every tile loop has a remainder; large enough to run on several threads
LARGE = Group("ew_large", [
    Check("fused chain (7, 13)", ("Exp", "Add", "Select", "Sigmoid", "Cast"), _chain,
          (op_specs.sample(F32, (7, 13), seed=1), op_specs.sample(F32, (13,), seed=2),
           op_specs.sample(F32, (7, 1), seed=3)), _chain_ref),
    Check("fused chain 1000003", ("Exp", "Add", "Select", "Sigmoid", "Cast"), _chain,
          (op_specs.sample(F32, (_N,), seed=1), op_specs.sample(F32, (_N,), seed=2),
           op_specs.sample(F32, (1,), seed=3)), _chain_ref, tol={np.dtype(F32): (1e-5, 1e-5)}),
    Check("Add broadcast rows 1000003", ("Add",), ops.add,
          (op_specs.sample(F64, (_N, 1), seed=4), op_specs.sample(F64, (3,), seed=5)), np.add),
    Check("Mul column broadcast (3, 100003)", ("Mul",), ops.mul,
          (op_specs.sample(I32, (3, 100003), seed=8), op_specs.sample(I32, (3, 1), seed=9)), np.multiply),
    Check("Less float16 1000003", ("Less",), ops.less,
          (op_specs.sample(F16, (_N,), seed=6), op_specs.sample(F16, (), seed=7)), np.less),
])


@pytest.mark.parametrize("group, name", params([LARGE]))
def test_elementwise_fused_and_large_compiled(group, name):
    group.run(name)


def test_every_elementwise_op_is_compiled_for_every_dtype_it_accepts():
    """The groups above cover each elementwise op of the table for each dtype it supports."""
    for op in OPS.values():
        if op.kind != "elementwise":
            continue
        for dt, group in zip(DTYPES, ELEMENTWISE):
            names = {o for c in group.checks for o in c.ops}
            try:
                op.infer([_tensor_type(dt)] * len(op.inputs) if op.name != "Select"
                         else [_tensor_type(BOOL), _tensor_type(dt), _tensor_type(dt)],
                         **({"dtype": ms.float32} if op.name == "Cast" else {}))
            except TypeError:
                continue
            assert op.name in names, f"{op.name} accepts {dtname(dt)} but no compiled check runs it"


def _tensor_type(dt):
    from pycompile.common.abstract import TensorType
    return TensorType(op_specs.ms_dtype(dt), (2,))


def test_compiled_and_eager_agree_on_tensor_and_scalar_results():
    """A 0-d tensor result stays a Tensor; an all-scalar computation gives a Python number."""
    @ms.jit
    def f(x, n):
        return x + 1, n * 2 + 1
    out = f(Tensor(np.array(2.5, F32)), 3)
    assert isinstance(out[0], Tensor) and out[0].shape == () and float(out[0].asnumpy()) == 3.5
    assert out[1] == 7 and isinstance(out[1], int)


def test_dropping_compiled_functions_that_ran_threads_does_not_crash(tmp_path):
    """A compiled module that ran OpenMP threads is garbage collected right after its call: the
    OpenMP runtime must stay loaded under its worker threads (it used to be unmapped with the
    last module using it, and the process died of a segfault some of the time)."""
    script = tmp_path / "drop.py"
    script.write_text(textwrap.dedent("""
        import gc
        import numpy as np
        import pycompile as ms

        def f(x):
            return ms.ops.sum(x * 2, 1)

        x = ms.Tensor(np.ones((200003, 3), np.int32))
        for i in range(6):
            assert int(ms.jit(f)(x).asnumpy()[0]) == 6
            gc.collect()
        print("done")
    """))
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "done" in proc.stdout, proc.stderr[-2000:]


def test_elementwise_ops_on_runtime_python_numbers():
    """A loop index is a Python int at run time: //, %, /, **, comparisons and mixed int / float
    arithmetic on it follow Python's rules, as in the eager run."""
    def f(x):
        for i in range(-50, 50):
            x = x + (i // 7) + (i % 7) * 0.5 - i / 4 + (i ** 2) * 0.001 - i + (i // 3.5) + (i % 2.5) \
                + (i // -7) + (i % -7) + (i > 3) + 2 ** (i % 5) + (i * 1.5) ** 2
        return x

    expected = 0.0
    for i in range(-50, 50):
        expected += (i // 7) + (i % 7) * 0.5 - i / 4 + (i ** 2) * 0.001 - i + (i // 3.5) + (i % 2.5) \
            + (i // -7) + (i % -7) + (i > 3) + 2 ** (i % 5) + (i * 1.5) ** 2
    x = Tensor(np.zeros(2, F64))
    jf = ms.jit(f)
    got = jf(x)
    assert "For" in {n.op.name for n in ir.iter_nodes(ms.inspect(jf, x).graph_after.body)}   # a real loop
    np.testing.assert_allclose(got.asnumpy(), expected, rtol=1e-12)
    np.testing.assert_allclose(f(x).asnumpy(), expected, rtol=1e-12)


_TABLE = [("sub", lambda v: v - 1), ("mul",
          lambda v: v * 10)]
_PAIR = (lambda v: v + 2, lambda v: v * 5)


def test_lambdas_of_spec_tables_compile():
    """Op-spec tables are lists of lambdas: two on one line, or one on a line that closes the
    table's brackets (its lines do not parse alone), each compile to their own body."""
    x = Tensor(np.ones(2, F32))
    got = [ms.jit(f)(x).asnumpy()[0] for f in _PAIR + tuple(f for _, f in _TABLE)]
    assert got == [3.0, 5.0, 0.0, 10.0]
