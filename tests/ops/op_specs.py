"""The op spec tables the eager op tests are driven from (STYLE.md rule 9).

Every reference here is written with NumPy / math in this file, never with pycompile's own
`eager` implementations. `test_op_table.py` checks that every op of `pycompile.ops.OPS`, every
function of `ops.functional` and every class of `ops.operations` appears in these tables, and the
generic tests in test_elementwise.py / test_reduce.py / test_op_cases.py run every entry.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

import pycompile as ms
from pycompile import Parameter, Tensor, ops

BOOL, I32, I64, F16, F32, F64 = np.bool_, np.int32, np.int64, np.float16, np.float32, np.float64
ALL_DTYPES = (BOOL, I32, I64, F16, F32, F64)
MS_OF = {np.dtype(BOOL): ms.bool_, np.dtype(np.int8): ms.int8, np.dtype(np.uint8): ms.uint8,
         np.dtype(np.int16): ms.int16, np.dtype(I32): ms.int32, np.dtype(I64): ms.int64,
         np.dtype(F16): ms.float16, np.dtype(F32): ms.float32, np.dtype(F64): ms.float64,
         np.dtype(np.complex64): ms.complex64, np.dtype(np.complex128): ms.complex128}

# Absolute / relative tolerance per result dtype.
TOL = {np.dtype(F16): (2e-3, 2e-3), np.dtype(F32): (2e-6, 2e-5), np.dtype(F64): (1e-12, 1e-12)}


def ms_dtype(np_dtype):
    return MS_OF[np.dtype(np_dtype)]


def assert_close(actual, expected, what=""):
    """Compare a pycompile Tensor with a NumPy array: dtype, shape and values."""
    expected = np.asarray(expected)
    assert isinstance(actual, Tensor), f"{what}: expected a Tensor, got {type(actual).__name__}"
    assert actual.dtype == ms_dtype(expected.dtype), f"{what}: dtype {actual.dtype} != {expected.dtype}"
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    got = actual.asnumpy()
    if expected.dtype.kind == "f":
        atol, rtol = TOL[expected.dtype]
        np.testing.assert_allclose(got.astype(np.float64), expected.astype(np.float64), rtol=rtol, atol=atol,
                                   equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(got, expected, err_msg=what)


def sample(dtype, shape, domain="any", seed=0):
    """Deterministic inputs: ints in [-5, 5], floats in [-3, 3] (half of them multiples of 0.5),
    narrowed by `domain`
    ('pos': > 0, 'nonzero': no zeros, 'small': ints in [0, 3] for exponents; floats only: 'unit' in
    (-1, 1), 'ge1' >= 1, the domains of asin / atanh and acosh)."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == "b":
        arr = rng.random(shape) < 0.5
        return np.ones(shape, bool) if domain in ("pos", "nonzero") else arr
    if dt.kind in "iu":
        lo, hi = {"pos": (1, 6), "small": (0, 4)}.get(domain, (-5, 6))
        arr = rng.integers(lo, hi, size=shape).astype(dt)
        if domain == "nonzero":
            arr[arr == 0] = 3
        return arr
    lo, hi = {"pos": (0.1, 3.0), "unit": (-0.95, 0.95), "ge1": (1.0, 4.0)}.get(domain, (-3.0, 3.0))
    arr = rng.uniform(lo, hi, size=shape)
    # every other element on a grid of halves, so that comparisons see ties and x.5 boundaries
    flat = arr.reshape(-1)
    flat[::2] = np.clip(np.round(flat[::2] * 2) / 2, lo if domain in ("pos", "unit", "ge1") else -3.0, hi)
    arr = flat.reshape(shape).astype(dt)
    if domain in ("nonzero", "pos"):
        arr[np.abs(arr) < 0.1] = 0.5
    return arr


# ---- elementwise --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Elementwise:
    """One elementwise op: `ref` takes arrays already converted to the compute dtype."""

    op: str
    fn: Callable                  # the functional form
    ref: Callable
    kinds: str = "bif"            # input dtype kinds accepted ('b' bool, 'i' int, 'f' float)
    out: str = "same"             # same | float (ints/bool -> float32) | bool
    domain: tuple = ("any", "any")
    cls: Callable | None = None   # the class form in ops.operations

    @property
    def arity(self) -> int:
        return 1 if self.op in UNARY_NAMES else 2

    def out_dtype(self, dtype):
        dt = np.dtype(dtype)
        if self.out == "bool":
            return np.dtype(BOOL)
        if self.out == "float" and dt.kind != "f":
            return np.dtype(F32)
        return dt

    def compute_dtype(self, dtype):
        """The dtype inputs are read in: the output dtype, except comparisons (input dtype) and
        logical ops (bool)."""
        if self.out == "bool":
            return np.dtype(BOOL) if self.op.startswith("Logical") else np.dtype(dtype)
        return self.out_dtype(dtype)


def _erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x)


def _gelu_tanh(x):
    x64 = x.astype(np.float64)
    return 0.5 * x64 * (1 + np.tanh(math.sqrt(2 / math.pi) * (x64 + 0.044715 * x64 ** 3)))


def _gelu_erf(x):
    x64 = x.astype(np.float64)
    return 0.5 * x64 * (1 + _erf(x64 / math.sqrt(2)))


def _floor_mod(x, y):
    if x.dtype.kind == "f":
        return x - np.floor(x / y) * y
    return np.array([a - (a // b) * b for a, b in np.broadcast(x, y)], dtype=np.result_type(x, y)).reshape(
        np.broadcast_shapes(x.shape, y.shape))


UNARY = [
    Elementwise("Neg", ops.neg, lambda x: -x, kinds="if", cls=ops.Neg),
    Elementwise("Abs", ops.abs, np.abs, cls=ops.Abs),
    Elementwise("Square", ops.square, lambda x: x * x, kinds="if", cls=ops.Square),
    Elementwise("Exp", ops.exp, np.exp, out="float", cls=ops.Exp),
    Elementwise("Log", ops.log, np.log, out="float", domain=("pos",), cls=ops.Log),
    Elementwise("Sqrt", ops.sqrt, np.sqrt, out="float", domain=("pos",), cls=ops.Sqrt),
    Elementwise("Rsqrt", ops.rsqrt, lambda x: 1 / np.sqrt(x.astype(np.float64)), out="float", domain=("pos",),
                cls=ops.Rsqrt),
    Elementwise("Sin", ops.sin, np.sin, out="float", cls=ops.Sin),
    Elementwise("Cos", ops.cos, np.cos, out="float", cls=ops.Cos),
    Elementwise("Tanh", ops.tanh, np.tanh, out="float", cls=ops.Tanh),
    Elementwise("Erf", ops.erf, _erf, out="float", cls=ops.Erf),
    Elementwise("Reciprocal", ops.reciprocal, lambda x: 1 / x.astype(np.float64), out="float",
                domain=("nonzero",), cls=ops.Reciprocal),
    Elementwise("Floor", ops.floor, np.floor, out="float", cls=ops.Floor),
    Elementwise("Ceil", ops.ceil, np.ceil, out="float", cls=ops.Ceil),
    Elementwise("Sigmoid", ops.sigmoid, lambda x: 1 / (1 + np.exp(-x.astype(np.float64))), out="float",
                cls=ops.Sigmoid),
    Elementwise("ReLU", ops.relu, lambda x: np.where(x > 0, x, 0).astype(x.dtype), cls=ops.ReLU),
    Elementwise("HSwish", ops.hardswish, lambda x: x * np.minimum(np.maximum(x + 3, 0), 6) / 6, out="float",
                cls=ops.HSwish),
    Elementwise("HSigmoid", ops.hardsigmoid, lambda x: np.minimum(np.maximum(x + 3, 0), 6) / 6, out="float",
                cls=ops.HSigmoid),
    Elementwise("GeLU", lambda x: ops.gelu(x, approximate="tanh"), _gelu_tanh, out="float", cls=ops.GeLU),
    Elementwise("GeLUErf", ops.gelu, _gelu_erf, out="float"),
    Elementwise("LogicalNot", ops.logical_not, np.logical_not, out="bool", cls=ops.LogicalNot),
    Elementwise("IsFinite", ops.isfinite, lambda x: np.isfinite(x) if x.dtype.kind == "f" else np.ones(x.shape, bool),
                out="bool", cls=ops.IsFinite),
]
UNARY_NAMES = {s.op for s in UNARY}

BINARY = [
    # ops.add refuses bool + bool (MindSpore); the `+` operator is a logical or (test_everyday_*)
    Elementwise("Add", ops.add, lambda x, y: x + y, kinds="if", cls=ops.Add),
    Elementwise("Sub", ops.sub, lambda x, y: x - y, kinds="if", cls=ops.Sub),
    Elementwise("Mul", ops.mul, lambda x, y: x * y, cls=ops.Mul),
    Elementwise("RealDiv", ops.div, lambda x, y: x.astype(np.float64) / y, out="float",
                domain=("any", "nonzero"), cls=ops.RealDiv),
    Elementwise("FloorDiv", ops.floor_divide, lambda x, y: np.floor(x.astype(np.float64) / y),
                kinds="if", domain=("any", "nonzero"), cls=ops.FloorDiv),
    Elementwise("FloorMod", ops.remainder, _floor_mod, kinds="if", domain=("any", "nonzero"), cls=ops.FloorMod),
    Elementwise("Pow", ops.pow, lambda x, y: x.astype(np.float64) ** y, kinds="if", domain=("any", "small"),
                cls=ops.Pow),
    Elementwise("Maximum", ops.maximum, lambda x, y: np.where(x > y, x, y), cls=ops.Maximum),
    Elementwise("Minimum", ops.minimum, lambda x, y: np.where(x < y, x, y), cls=ops.Minimum),
    Elementwise("Equal", ops.equal, lambda x, y: x == y, out="bool", cls=ops.Equal),
    Elementwise("NotEqual", ops.ne, lambda x, y: x != y, out="bool", cls=ops.NotEqual),
    Elementwise("Less", ops.less, lambda x, y: x < y, out="bool", cls=ops.Less),
    Elementwise("LessEqual", ops.less_equal, lambda x, y: x <= y, out="bool", cls=ops.LessEqual),
    Elementwise("Greater", ops.greater, lambda x, y: x > y, out="bool", cls=ops.Greater),
    Elementwise("GreaterEqual", ops.greater_equal, lambda x, y: x >= y, out="bool", cls=ops.GreaterEqual),
    Elementwise("LogicalAnd", ops.logical_and, lambda x, y: x & y, out="bool", cls=ops.LogicalAnd),
    Elementwise("LogicalOr", ops.logical_or, lambda x, y: x | y, out="bool", cls=ops.LogicalOr),
    Elementwise("BitwiseAnd", ops.bitwise_and, lambda x, y: x & y, kinds="bi", cls=ops.BitwiseAnd),
    Elementwise("BitwiseOr", ops.bitwise_or, lambda x, y: x | y, kinds="bi", cls=ops.BitwiseOr),
    Elementwise("BitwiseXor", ops.bitwise_xor, lambda x, y: x ^ y, kinds="bi", cls=ops.BitwiseXor),
]

UNARY_SHAPES = [(), (1,), (7,), (2, 3), (0, 3), (3, 1, 5)]
BINARY_SHAPES = [((2, 3), (3,)), ((4, 1), (1, 5)), ((), (2, 3)), ((7,), (7,)), ((1,), (13,)),
                 ((0, 3), (1, 3)), ((2, 1, 3), (5, 1))]


# ---- reductions -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Reduction:
    op: str
    fn: Callable                  # functional form: fn(x, axis, keep_dims)
    ref: Callable                 # NumPy: ref(x, axis(tuple|None), keepdims)
    out: Callable                 # input np dtype -> output np dtype
    kinds: str = "bif"
    cls: Callable | None = None   # class form: cls(keep_dims=...)(x, axis)
    cls_ref: Callable | None = None  # reference of the class form, if it differs
    cls_out: Callable | None = None  # output dtype of the class form, if it differs
    empty_ok: bool = True         # may reduce a zero-length axis


def _trunc_mean(x, axis, keepdims):
    if x.dtype.kind == "f":
        return np.mean(x.astype(np.float64), axis=axis, keepdims=keepdims).astype(x.dtype)
    return np.trunc(np.mean(x.astype(np.float64), axis=axis, keepdims=keepdims)).astype(x.dtype)


def _sum64(x, axis, keepdims):
    if x.dtype.kind == "f":
        return np.sum(x.astype(np.float64), axis=axis, keepdims=keepdims).astype(x.dtype)
    return np.sum(x.astype(np.int64), axis=axis, keepdims=keepdims)


def _sum_keep(x, axis, keepdims):
    """The ReduceSum primitive: the input dtype is kept (a bool sum is an 'any')."""
    if x.dtype.kind == "b":
        return np.any(x, axis=axis, keepdims=keepdims)
    return _sum64(x, axis, keepdims).astype(x.dtype)


REDUCTIONS = [
    Reduction("ReduceSum", lambda x, a, k: ops.sum(x, a, k), _sum64,
              lambda dt: np.dtype(I64) if np.dtype(dt).kind in "bi" else np.dtype(dt),
              cls=ops.ReduceSum, cls_ref=_sum_keep, cls_out=lambda dt: np.dtype(dt)),
    Reduction("ReduceMean", ops.mean, _trunc_mean, lambda dt: np.dtype(dt), kinds="if", cls=ops.ReduceMean),
    Reduction("ReduceMax", ops.amax, lambda x, a, k: np.max(x, axis=a, keepdims=k), lambda dt: np.dtype(dt),
              cls=ops.ReduceMax, empty_ok=False),
    Reduction("ReduceMin", ops.amin, lambda x, a, k: np.min(x, axis=a, keepdims=k), lambda dt: np.dtype(dt),
              cls=ops.ReduceMin, empty_ok=False),
    Reduction("ReduceAll", ops.all, lambda x, a, k: np.all(x, axis=a, keepdims=k), lambda dt: np.dtype(BOOL),
              cls=ops.ReduceAll),
    Reduction("ReduceAny", ops.any, lambda x, a, k: np.any(x, axis=a, keepdims=k), lambda dt: np.dtype(BOOL),
              cls=ops.ReduceAny),
]
REDUCE_SHAPES = [(7,), (2, 3), (1, 5, 3), (0, 3)]


# ---- everything else: explicit cases ------------------------------------------------------------
@dataclass(frozen=True)
class Case:
    """`call(*tensors)` against `ref(*arrays)`; ndarray args become Tensors, others pass through.
    `op`: the table op the call runs (for the coverage check); `uses`: functional functions /
    operation classes it exercises."""

    name: str
    op: str | tuple
    call: Callable
    ref: Callable
    args: tuple
    uses: tuple = field(default_factory=tuple)


def _a(*shape, dtype=F32, seed=0):
    return sample(dtype, shape, seed=seed)


def _softmax(x, axis=-1):
    e = np.exp(x.astype(np.float64) - np.max(x, axis=axis, keepdims=True))
    return (e / e.sum(axis=axis, keepdims=True)).astype(x.dtype)


def _log_softmax(x, axis=-1):
    s = x.astype(np.float64) - np.max(x, axis=axis, keepdims=True)
    return (s - np.log(np.exp(s).sum(axis=axis, keepdims=True))).astype(x.dtype)


def _layer_norm(x, gamma, beta, axis, eps):
    axes = tuple(range(axis % x.ndim, x.ndim))
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=axes, keepdims=True)
    var = ((x64 - mean) ** 2).mean(axis=axes, keepdims=True)
    return ((x64 - mean) / np.sqrt(var + eps) * gamma + beta).astype(x.dtype)


def _assign(value):
    p = Parameter(Tensor(np.zeros(value.shape, np.float32)), name="target")
    buffer = p._data
    out = ops.assign(p, value)
    assert p._data is buffer, "Assign must write into the Parameter's own buffer"
    assert np.array_equal(p.asnumpy(), value.asnumpy()) and out.shape == p.shape
    return p


def _npu_status():
    ms.set_context(device_target="Ascend")   # the conftest fixture resets the context afterwards
    status = ops.NPUAllocFloatStatus()()
    cleared = ops.NPUClearFloatStatus()(status)
    return ops.NPUGetFloatStatus()(ops.depend(status, cleared))


def _scatter_slice(g, shape, index):
    z = np.zeros(shape, g.dtype)
    z[index] = g
    return z


def _scatter_add(g, idx, shape, axis):
    z = np.zeros(shape, g.dtype)
    for pos in np.ndindex(*idx.shape):
        k = int(idx[pos]) % shape[axis]
        src = (slice(None),) * axis + pos
        dst = (slice(None),) * axis + (k,)
        z[dst] += g[src]
    return z


def _structural(name):
    return lambda *xs: ops.apply(ops.OPS[name], list(xs))


CASES = [
    # layout
    Case("reshape", "Reshape", lambda x: ops.reshape(x, (3, -1)), lambda x: x.reshape(3, -1), (_a(2, 3, 2),),
         (ops.reshape,)),
    Case("Reshape class", "Reshape", lambda x: ops.Reshape()(x, (6,)), lambda x: x.reshape(6), (_a(2, 3, dtype=I32),),
         (ops.Reshape,)),
    Case("flatten", "Reshape", lambda x: ops.flatten(x), lambda x: x.reshape(2, -1), (_a(2, 3, 4),), (ops.flatten,)),
    Case("expand_dims", "Reshape", lambda x: ops.expand_dims(x, -1), lambda x: x[..., None], (_a(2, 3),),
         (ops.expand_dims, ops.unsqueeze)),
    Case("ExpandDims class", "Reshape", lambda x: ops.ExpandDims()(x, 0), lambda x: x[None], (_a(3),),
         (ops.ExpandDims,)),
    Case("squeeze", "Reshape", lambda x: ops.squeeze(x), lambda x: np.squeeze(x), (_a(1, 3, 1),), (ops.squeeze,)),
    Case("Squeeze class", "Reshape", lambda x: ops.Squeeze(2)(x), lambda x: np.squeeze(x, 2), (_a(1, 3, 1),),
         (ops.Squeeze,)),
    Case("transpose", "Transpose", lambda x: ops.transpose(x, (2, 0, 1)), lambda x: np.transpose(x, (2, 0, 1)),
         (_a(2, 3, 5),), (ops.transpose, ops.permute)),
    Case("Transpose class", "Transpose", lambda x: ops.Transpose()(x, (1, 0)), lambda x: x.T, (_a(2, 3, dtype=BOOL),),
         (ops.Transpose,)),
    Case("swapaxes", "Transpose", lambda x: ops.swapaxes(x, 0, -1), lambda x: np.swapaxes(x, 0, -1),
         (_a(2, 3, 5, dtype=I64),), (ops.swapaxes,)),
    Case("broadcast_to", "BroadcastTo", lambda x: ops.broadcast_to(x, (4, 2, 3)),
         lambda x: np.broadcast_to(x, (4, 2, 3)), (_a(2, 1),), (ops.broadcast_to,)),
    Case("BroadcastTo class -1", "BroadcastTo", lambda x: ops.BroadcastTo((2, -1))(x),
         lambda x: np.broadcast_to(x, (2, 3)), (_a(1, 3, dtype=I32),), (ops.BroadcastTo,)),
    Case("tile", ("Reshape", "BroadcastTo"), lambda x: ops.tile(x, (2, 3)), lambda x: np.tile(x, (2, 3)),
         (_a(2, 3),), (ops.tile,)),
    Case("Tile class", ("Reshape", "BroadcastTo"), lambda x: ops.Tile()(x, (2, 1, 2)),
         lambda x: np.tile(x, (2, 1, 2)), (_a(3, 2, dtype=I32),), (ops.Tile,)),
    Case("concat", "Concat", lambda x, y: ops.concat((x, y), 1), lambda x, y: np.concatenate((x, y), 1),
         (_a(2, 3), _a(2, 5, seed=1)), (ops.concat, ops.cat)),
    Case("Concat class", "Concat", lambda x, y: ops.Concat(-1)([x, y]), lambda x, y: np.concatenate((x, y), -1),
         (_a(3, dtype=I32), _a(0, dtype=I32)), (ops.Concat,)),
    Case("stack", "Stack", lambda x, y: ops.stack((x, y), -1), lambda x, y: np.stack((x, y), -1),
         (_a(2, 3), _a(2, 3, seed=1)), (ops.stack,)),
    Case("Stack class", "Stack", lambda x, y: ops.Stack()((x, y)), lambda x, y: np.stack((x, y)),
         (_a(3, dtype=F64), _a(3, dtype=F64, seed=1)), (ops.Stack,)),
    Case("slice", "StridedSlice", lambda x: x[1:, ::-2], lambda x: x[1:, ::-2], (_a(3, 5),), (ops.getitem,)),
    Case("gather", "Gather", lambda x, i: ops.gather(x, i, 1), lambda x, i: np.take(x, i, 1),
         (_a(2, 5), np.array([[4, 0], [-1, 2]], I32)), (ops.gather,)),
    Case("Gather class", "Gather", lambda x, i: ops.Gather()(x, i, 0), lambda x, i: np.take(x, i, 0),
         (_a(4, 3, dtype=I64), np.array([3, 3, 0], I64)), (ops.Gather,)),
    Case("Gather scalar index", "Gather", lambda x: ops.gather(x, 2, 0), lambda x: x[2], (_a(4, 3),), ()),
    # what gradients use: stop_gradient and the scatters back from a slice / a gather
    Case("stop_gradient", "StopGradient", lambda x: ops.stop_gradient(x) * 2, lambda x: x * 2, (_a(2, 3),),
         (ops.stop_gradient,)),
    # a user-given gradient (a Cell's bprop, InsertGradientOf, HookBackward): the value passes as is
    Case("InsertGradientOf", "CustomGrad", lambda x: ops.InsertGradientOf(lambda g: g * 3)(x) * 2,
         lambda x: x * 2, (_a(2, 3),), (ops.InsertGradientOf,)),
    Case("HookBackward", "CustomGrad", lambda x: ops.HookBackward(lambda g: None)(x) + 1,
         lambda x: x + 1, (_a(2, 3),), (ops.HookBackward,)),
    # ops.Custom's Python function on NumPy arrays (tests/autodiff/test_auto34_custom.py compiles it)
    Case("Custom", "CustomPyFunc", lambda x: ops.Custom(np.cos, lambda s: s, lambda d: d, "pyfunc")(x) + 1,
         lambda x: np.cos(x) + 1, (_a(2, 3),), (ops.Custom,)),
    Case("StridedSliceGrad", "StridedSliceGrad",
         lambda g: ops.apply(ops.OPS["StridedSliceGrad"], [g], {"shape": (3, 5), "begin": (1, 4), "end": (3, -1),
                                                               "strides": (1, -2)}),
         lambda g: _scatter_slice(g, (3, 5), (slice(1, 3), slice(4, None, -2))), (_a(2, 3),), ()),
    Case("ReLUGrad", "ReLUGrad", lambda g, y: ops.apply(ops.OPS["ReLUGrad"], [g, y]),
         lambda g, y: np.where(y > 0, g, 0).astype(g.dtype),
         (_a(3, 4), np.maximum(_a(3, 4, seed=1), 0)), ()),
    Case("GatherGrad repeated indices", "GatherGrad",
         lambda g, i: ops.apply(ops.OPS["GatherGrad"], [g, i], {"shape": (2, 4), "axis": 1}),
         lambda g, i: _scatter_add(g, i, (2, 4), 1), (_a(2, 2, 2), np.array([[3, 0], [-1, 3]], I32)), ()),
    # creation
    Case("fill", "Fill", lambda: ops.fill(ms.int32, (2, 3), 7), lambda: np.full((2, 3), 7, I32), (), (ops.fill,)),
    Case("Fill class", "Fill", lambda: ops.Fill()(ms.float16, (3,), 1.5), lambda: np.full(3, 1.5, F16), (),
         (ops.Fill,)),
    Case("full int", "Fill", lambda: ops.full((2,), 3), lambda: np.full(2, 3, I64), (), (ops.full,)),
    # MindSpore 2.10: without dtype, ops.full is Int64 whatever the value (documented)
    Case("full float", "Fill", lambda: ops.full((2, 2), 1.5), lambda: np.full((2, 2), 1, I64), (), ()),
    Case("full float dtype", "Fill", lambda: ops.full((2, 2), 0.5, dtype=ms.float32), lambda: np.full((2, 2), 0.5, F32),
         (), ()),
    Case("zeros", "Fill", lambda: ops.zeros((2, 3)), lambda: np.zeros((2, 3), F32), (), (ops.zeros,)),
    Case("Zeros class", "Fill", lambda: ops.Zeros()((4,), ms.int64), lambda: np.zeros(4, I64), (), (ops.Zeros,)),
    Case("ones", "Fill", lambda: ops.ones((0, 3), ms.int32), lambda: np.ones((0, 3), I32), (), (ops.ones,)),
    Case("Ones class", "Fill", lambda: ops.Ones()(3), lambda: np.ones(3, F32), (), (ops.Ones,)),
    Case("zeros_like", "Fill", lambda x: ops.zeros_like(x), lambda x: np.zeros_like(x), (_a(2, 3, dtype=I32),),
         (ops.zeros_like,)),
    Case("ZerosLike class", "Fill", lambda x: ops.ZerosLike()(x), lambda x: np.zeros_like(x), (_a(3, dtype=F16),),
         (ops.ZerosLike,)),
    Case("ones_like dtype", "Fill", lambda x: ops.ones_like(x, dtype=ms.int32), lambda x: np.ones(x.shape, I32),
         (_a(2, 3),), (ops.ones_like,)),
    Case("OnesLike class", "Fill", lambda x: ops.OnesLike()(x), lambda x: np.ones_like(x), (_a(3, dtype=BOOL),),
         (ops.OnesLike,)),
    Case("full_like", "Fill", lambda x: ops.full_like(x, 7), lambda x: np.full(x.shape, 7, x.dtype),
         (_a(2, 3, dtype=I64),), (ops.full_like,)),
    # matrix products
    Case("matmul 2d", "MatMul", lambda x, y: ops.matmul(x, y), lambda x, y: x @ y, (_a(2, 3), _a(3, 5, seed=1)),
         (ops.matmul,)),
    Case("matmul 1d-2d", "MatMul", lambda x, y: ops.matmul(x, y), lambda x, y: x @ y, (_a(3), _a(3, 5, seed=1)), ()),
    Case("matmul 2d-1d", "MatMul", lambda x, y: ops.matmul(x, y), lambda x, y: x @ y, (_a(2, 3), _a(3, seed=1)), ()),
    Case("matmul 1d-1d", "MatMul", lambda x, y: ops.matmul(x, y), lambda x, y: np.asarray(x @ y),
         (_a(7, dtype=F64), _a(7, dtype=F64, seed=1)), ()),
    Case("matmul batch broadcast", "BatchMatMul", lambda x, y: ops.matmul(x, y), lambda x, y: x @ y,
         (_a(2, 1, 3, 4), _a(5, 4, 2, seed=1)), ()),
    Case("matmul int", "MatMul", lambda x, y: ops.matmul(x, y), lambda x, y: x @ y,
         (_a(2, 3, dtype=I32), _a(3, 2, dtype=I32, seed=1)), ()),
    Case("mm", "MatMul", lambda x, y: ops.mm(x, y), lambda x, y: x @ y, (_a(1, 3), _a(3, 1, seed=1)), (ops.mm,)),
    Case("MatMul class transpose", "MatMul", lambda x, y: ops.MatMul(transpose_a=True, transpose_b=True)(x, y),
         lambda x, y: x.T @ y.T, (_a(3, 2), _a(5, 3, seed=1)), (ops.MatMul,)),
    Case("bmm", "BatchMatMul", lambda x, y: ops.bmm(x, y), lambda x, y: x @ y, (_a(3, 2, 4), _a(3, 4, 5, seed=1)),
         (ops.bmm,)),
    Case("BatchMatMul class", "BatchMatMul", lambda x, y: ops.BatchMatMul(transpose_b=True)(x, y),
         lambda x, y: x @ np.swapaxes(y, -1, -2), (_a(2, 2, 3), _a(2, 4, 3, seed=1)), (ops.BatchMatMul,)),
    Case("matmul f16", "MatMul", lambda x, y: ops.matmul(x, y),
         lambda x, y: (x.astype(F32) @ y.astype(F32)).astype(F16), (_a(2, 3, dtype=F16), _a(3, 2, dtype=F16)), ()),
    Case("dense", ("MatMul", "Add"), lambda x, w, b: ops.dense(x, w, b), lambda x, w, b: x @ w.T + b,
         (_a(4, 3), _a(2, 3, seed=1), _a(2, seed=2)), (ops.dense,)),
    Case("dense 3d no bias", "MatMul", lambda x, w: ops.dense(x, w), lambda x, w: x @ w.T,
         (_a(2, 4, 3), _a(5, 3, seed=1)), ()),
    Case("BiasAdd class", "Add", lambda x, b: ops.BiasAdd()(x, b), lambda x, b: x + b, (_a(2, 3), _a(3, seed=1)),
         (ops.BiasAdd,)),
    # reductions that are not plain Reduce*
    Case("argmax", "Argmax", lambda x: ops.argmax(x), lambda x: np.asarray(np.argmax(x), I64), (_a(3, 5),),
         (ops.argmax,)),
    Case("argmax dim keepdim", "Argmax", lambda x: ops.argmax(x, 1, keepdim=True),
         lambda x: np.argmax(x, 1, keepdims=True).astype(I64), (_a(3, 5, dtype=I32),), ()),
    Case("Argmax class int32", "Argmax", lambda x: ops.Argmax()(x), lambda x: np.argmax(x, -1).astype(I32),
         (_a(2, 7),), (ops.Argmax,)),
    Case("softmax", "Softmax", lambda x: ops.softmax(x), _softmax, (_a(3, 5),), (ops.softmax,)),
    Case("softmax axis 0 f64", "Softmax", lambda x: ops.softmax(x, 0), lambda x: _softmax(x, 0),
         (_a(3, 5, dtype=F64),), ()),
    Case("Softmax class f16", "Softmax", lambda x: ops.Softmax()(x), _softmax, (_a(2, 4, dtype=F16),),
         (ops.Softmax,)),
    Case("log_softmax", "LogSoftmax", lambda x: ops.log_softmax(x, 1), lambda x: _log_softmax(x, 1),
         (_a(2, 3, 4),), (ops.log_softmax,)),
    Case("LogSoftmax class", "LogSoftmax", lambda x: ops.LogSoftmax(0)(x), lambda x: _log_softmax(x, 0),
         (_a(5),), (ops.LogSoftmax,)),
    Case("layer_norm", "LayerNorm", lambda x, g, b: ops.layer_norm(x, g, b, 1, 1, 1e-5),
         lambda x, g, b: _layer_norm(x, g, b, 1, 1e-5), (_a(2, 3, 4), _a(3, 4, seed=1), _a(3, 4, seed=2)),
         (ops.layer_norm,)),
    Case("addn", "AddN", lambda x, y, z: ops.addn([x, y, z]), lambda x, y, z: x + y + z,
         (_a(2, 3), _a(2, 3, seed=1), _a(2, 3, seed=2)), (ops.addn,)),
    Case("AddN class int", "AddN", lambda x, y: ops.AddN()((x, y)), lambda x, y: x + y,
         (_a(4, dtype=I32), _a(4, dtype=I32, seed=1)), (ops.AddN,)),
    # composites of elementwise ops
    Case("clamp", ("Maximum", "Minimum"), lambda x: ops.clamp(x, -1.0, 2.0), lambda x: np.clip(x, -1.0, 2.0),
         (_a(3, 4),), (ops.clamp, ops.clip)),
    Case("clamp int min only", "Maximum", lambda x: ops.clamp(x, 0), lambda x: np.maximum(x, 0),
         (_a(5, dtype=I32),), ()),
    Case("div trunc", ("RealDiv", "Floor", "Select", "Cast"), lambda x, y: ops.div(x, y, rounding_mode="trunc"),
         lambda x, y: np.trunc(x / y).astype(I32), (np.array([-7, 7, -6, 5], I32), np.array([2, 2, 4, -3], I32)), ()),
    Case("div floor", "FloorDiv", lambda x, y: ops.div(x, y, rounding_mode="floor"), lambda x, y: x // y,
         (np.array([-7, 7], I32), np.array([2, -2], I32)), ()),
    Case("select", "Select", lambda c, x, y: ops.select(c, x, y), lambda c, x, y: np.where(c, x, y),
         (_a(2, 3, dtype=BOOL), _a(2, 3), _a(3, seed=1)), (ops.select,)),
    Case("Select class scalars", "Select", lambda c: ops.Select()(c, 1, 2), lambda c: np.where(c, 1, 2).astype(I64),
         (_a(4, dtype=BOOL),), (ops.Select,)),
    Case("where", "Select", lambda c, x: ops.where(c, x, 0.5), lambda c, x: np.where(c, x, 0.5).astype(F32),
         (_a(3, dtype=BOOL), _a(3, dtype=I32)), (ops.where,)),
    Case("cast", "Cast", lambda x: ops.cast(x, ms.int32), lambda x: x.astype(I32), (_a(2, 3) * 3,), (ops.cast,)),
    Case("Cast class to bool", "Cast", lambda x: ops.Cast()(x, ms.bool_), lambda x: x.astype(bool),
         (_a(5, dtype=I32),), (ops.Cast,)),
    Case("all_finite", ("IsFinite", "ReduceAll", "LogicalAnd"), lambda x, y: ops.all_finite(x, y),
         lambda x, y: np.asarray(np.isfinite(x).all() and np.isfinite(y).all()),
         (np.array([1.0, np.inf], F32), _a(3)), (ops.all_finite,)),
    # effects and structure
    Case("assign", "Assign", _assign, lambda v: v, (_a(2, 3),), (ops.assign,)),
    Case("Assign class", "Assign", lambda v: ops.Assign()(Parameter(Tensor(np.zeros(3, F32)), name="t"), v),
         lambda v: v, (_a(3),), (ops.Assign,)),
    Case("depend", "Depend", lambda x, y: ops.depend(x, y), lambda x, y: x, (_a(3), _a(2)), (ops.depend,)),
    Case("Depend class", "Depend", lambda x, y: ops.Depend()(x, y), lambda x, y: x, (_a(3, dtype=I32), _a(2)),
         (ops.Depend,)),
    Case("tensor_move", "TensorMove", lambda x: ops.tensor_move(x), lambda x: x, (_a(2, 2),), (ops.tensor_move,)),
    Case("TensorMove class", "TensorMove", lambda x: ops.TensorMove()(x), lambda x: x, (_a(3, dtype=BOOL),),
         (ops.TensorMove,)),
    Case("Load", "Load", lambda x: _structural("Load")(Parameter(x, name="l")), lambda x: x, (_a(3),), ()),
    Case("UpdateState", "UpdateState", _structural("UpdateState"), lambda s, x: s, (_a(1), _a(3)), ()),
    Case("MakeTuple", "MakeTuple", lambda x, y: _structural("MakeTuple")((x, y))[1], lambda x, y: y,
         (_a(2), _a(3, dtype=I32)), ()),
    Case("Identity class", (), lambda x: ops.Identity()(x), lambda x: x, (_a(3),), (ops.Identity,)),
    Case("Shape class", (), lambda x: ops.Shape()(x), lambda x: x.shape, (_a(2, 0, 3),), (ops.Shape,)),
    Case("floor_div", "FloorDiv", lambda x, y: ops.floor_div(x, y), lambda x, y: x // y,
         (np.array([-7, 7, 5], I64), np.array([2, -2, 5], I64)), (ops.floor_div,)),
    Case("bitwise_not bool", "LogicalNot", lambda x: ops.bitwise_not(x), lambda x: ~x, (_a(5, dtype=BOOL),),
         (ops.bitwise_not,)),
    Case("Print", "Print", lambda x: ops.Print()("x:", x), lambda x: np.zeros((), I32), (_a(2),),
         (ops.Print, ops.print_values)),
    Case("NPU float status", ("NPUAllocFloatStatus", "NPUClearFloatStatus", "NPUGetFloatStatus"), _npu_status,
         lambda: np.zeros(8, F32), (), (ops.NPUAllocFloatStatus, ops.NPUClearFloatStatus, ops.NPUGetFloatStatus)),
]

# the everyday surface (issue 18): its specs live in their own module
import op_specs_everyday as _everyday  # noqa: E402

UNARY += _everyday.UNARY
UNARY_NAMES |= {s.op for s in _everyday.UNARY}
BINARY += _everyday.BINARY
REDUCTIONS += _everyday.REDUCTIONS
CASES += _everyday.CASES
import op_specs_activation  # noqa: E402,F401  (appends the activation rows' specs to UNARY / CASES)

from op_specs_cnn import CNN_CASES  # noqa: E402  (the CNN family's specs)

CASES += CNN_CASES
from op_specs_linalg import LINALG_CASES  # noqa: E402  (the singular values' specs)

CASES += LINALG_CASES
from op_specs_scatter import MORE_CASES, SCATTER_CASES  # noqa: E402  (arithmetic scatters, issue 33's ops)

CASES += SCATTER_CASES + MORE_CASES
from op_specs_cplx33 import COMPLEX_CASES  # noqa: E402  (the complex rows, issue 33's cplx33)

CASES += COMPLEX_CASES
