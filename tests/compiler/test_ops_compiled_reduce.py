"""Reductions, argmax, softmax / log_softmax and LayerNorm compiled inside `@jit`, against their
eager results and NumPy: every dtype each accepts, axis None / int / negative / tuple / empty
tuple, keep_dims, non-contiguous axes like (0, 2), odd, 0-d and empty shapes, NaN."""
from __future__ import annotations

import numpy as np
import pytest

from opcheck import BOOL, DTYPES, F16, F32, F64, I32, I64, TOL_REDUCE, Check, Group, dtname, op_specs, params

import pycompile as ms
from pycompile import Tensor, ops

# (shape, pycompile axis, NumPy axis, keep_dims)
AXES = [((2, 3, 4), None, None, False), ((2, 3, 4), 1, 1, False), ((2, 3, 4), -1, -1, True),
        ((2, 3, 4), (0, 2), (0, 2), False), ((2, 3, 4), (0, 2), (0, 2), True), ((2, 3, 4), (1, 2), (1, 2), False),
        ((2, 3, 4), (-3, -2), (0, 1), True), ((2, 3, 4), (), None, False), ((7, 13), 0, 0, False),
        ((1, 5, 1), (0, 2), (0, 2), False), ((), None, None, False), ((), 0, None, True)]
EMPTY = [((0, 3), 0, 0, False), ((0, 3), None, None, True), ((0, 3), 1, 1, False)]


def _reduce_fn(fn, axis, keep):
    return lambda x: fn(x, axis, keep)


def _reduce_ref(ref, out, axis, keep):
    def r(x):
        return np.asarray(ref(x, axis, keep)).astype(out(x.dtype))
    return r


def reduce_checks(dtype) -> list:
    checks = []
    kind = np.dtype(dtype).kind
    for spec in op_specs.REDUCTIONS:
        if kind not in spec.kinds:
            continue
        cases = AXES + (EMPTY if spec.empty_ok and (spec.op != "ReduceMean" or kind == "f") else [])
        for i, (shape, axis, np_axis, keep) in enumerate(cases):
            x = op_specs.sample(dtype, shape, seed=i)
            checks.append(Check(f"{spec.op}{list(shape)} axis={axis} keep={keep}", (spec.op,),
                                _reduce_fn(spec.fn, axis, keep), (x,), _reduce_ref(spec.ref, spec.out, np_axis, keep),
                                tol=TOL_REDUCE))
        # the class form: ops.ReduceSum(keep_dims)(x, axis); ReduceSum keeps the input dtype
        x = op_specs.sample(dtype, (2, 3, 4), seed=20)
        cls_ref, cls_out = spec.cls_ref or spec.ref, spec.cls_out or spec.out
        for axis, np_axis, keep in (((0, 2), (0, 2), True), ((), None, False)):
            checks.append(Check(f"{spec.op} class axis={axis} keep={keep}", (spec.op,),
                                _class_reduce(spec.cls, axis, keep), (x,),
                                _reduce_ref(cls_ref, cls_out, np_axis, keep), tol=TOL_REDUCE))
    return checks + argmax_checks(dtype)


def _class_reduce(cls, axis, keep):
    prim = cls(keep_dims=keep)
    return lambda x: prim(x, axis)


def argmax_checks(dtype) -> list:
    x = op_specs.sample(dtype, (3, 5, 4), seed=30)   # ints and bools have ties: the first one wins
    return [
        Check("Argmax all", ("Argmax",), ops.argmax, (x,), lambda v: np.asarray(np.argmax(v), I64)),
        Check("Argmax dim 1", ("Argmax",), lambda v: ops.argmax(v, 1), (x,), lambda v: np.argmax(v, 1).astype(I64)),
        Check("Argmax dim -1 keepdim", ("Argmax",), lambda v: ops.argmax(v, -1, keepdim=True), (x,),
              lambda v: np.argmax(v, -1, keepdims=True).astype(I64)),
        Check("Argmax dim 0 (7, 13)", ("Argmax",), lambda v: ops.argmax(v, 0), (op_specs.sample(dtype, (7, 13)),),
              lambda v: np.argmax(v, 0).astype(I64)),
        Check("Argmax class int32", ("Argmax", "Cast"), ops.Argmax(), (x,), lambda v: np.argmax(v, -1).astype(I32)),
        Check("Argmax 0-d", ("Argmax",), ops.argmax, (x[0, 0, 0],), lambda v: np.asarray(0, I64)),
    ]


REDUCE = [Group(f"reduce_{dtname(dt)}", reduce_checks(dt)) for dt in DTYPES]


@pytest.mark.parametrize("group, name", params(REDUCE))
def test_reduction_compiled(group, name):
    group.run(name)


def _softmax_ref(axis, log):
    def ref(x):
        if x.size == 0:
            return x.copy()
        x64 = x.astype(F64)
        s = x64 - np.max(x64, axis=axis, keepdims=True)
        e = np.exp(s)
        out = s - np.log(e.sum(axis=axis, keepdims=True)) if log else e / e.sum(axis=axis, keepdims=True)
        return out.astype(x.dtype)
    return ref


# ---- NaN, large and float16 accumulation -------------------------------------------------------------
def _nan_checks(dtype) -> list:
    x = op_specs.sample(dtype, (3, 4), seed=40)
    x[1, 2] = np.nan
    x[2, 0] = np.nan
    return [
        Check(f"ReduceMax NaN {dtname(dtype)}", ("ReduceMax",), lambda v: ops.amax(v, 1), (x,), lambda v: np.max(v, 1)),
        Check(f"ReduceMin NaN {dtname(dtype)}", ("ReduceMin",), lambda v: ops.amin(v, 0), (x,), lambda v: np.min(v, 0)),
        Check(f"ReduceSum NaN {dtname(dtype)}", ("ReduceSum",), lambda v: ops.sum(v, 1), (x,),
              lambda v: np.sum(v.astype(F64), 1).astype(dtype), tol=TOL_REDUCE),
        Check(f"Argmax NaN {dtname(dtype)}", ("Argmax",), lambda v: ops.argmax(v, 1), (x,),
              lambda v: np.argmax(v, 1).astype(I64)),
        Check(f"ReduceAny NaN {dtname(dtype)}", ("ReduceAny",), lambda v: ops.any(v, 1), (x * 0,),
              lambda v: np.any(v, 1)),
    ]


_N = 1000003
_POS = op_specs.sample(F32, (_N,), "pos", seed=1)
SPECIAL = Group("reduce_special", _nan_checks(F32) + _nan_checks(F64) + _nan_checks(F16) + [
    Check("ReduceMean 1000003", ("ReduceMean",), ops.mean, (_POS,), lambda v: np.mean(v.astype(F64)).astype(F32),
          tol=TOL_REDUCE),
    Check("ReduceMax 1000003", ("ReduceMax",), lambda v: ops.amax(v, 0), (_POS,), lambda v: np.max(v)),
    Check("ReduceSum int32 rows 1000003", ("ReduceSum",), lambda v: ops.sum(v, 1),
          (op_specs.sample(I32, (_N, 3), seed=2),), lambda v: np.sum(v.astype(I64), 1)),
    Check("ReduceSum columns (1000, 301)", ("ReduceSum",), lambda v: ops.sum(v, 0),
          (op_specs.sample(F64, (1000, 301), seed=3),), lambda v: np.sum(v, 0), tol=TOL_REDUCE),
    Check("ReduceMax axes (0, 2) (40, 30, 50)", ("ReduceMax",), lambda v: ops.amax(v, (0, 2), True),
          (op_specs.sample(F32, (40, 30, 50), seed=4),), lambda v: np.max(v, (0, 2), keepdims=True)),
    Check("Argmax axis 0 (1000, 301)", ("Argmax",), lambda v: ops.argmax(v, 0),
          (op_specs.sample(F32, (1000, 301), seed=5),), lambda v: np.argmax(v, 0).astype(I64)),
    Check("Softmax (301, 1000)", ("Softmax",), lambda v: ops.softmax(v, 0),
          (op_specs.sample(F32, (301, 1000), seed=6),), _softmax_ref(0, False), tol=TOL_REDUCE),
    Check("ReduceSum int32 wraps (class form)", ("ReduceSum",), lambda v: ops.ReduceSum()(v, 0),
          (np.array([2 ** 31 - 1, 1, 5], I32),), lambda v: np.sum(v, dtype=I32)),
    Check("ReduceSum float16 accumulates in float32", ("ReduceSum",), lambda v: ops.sum(v, 0),
          (np.full(4096, 1.0, F16),), lambda v: np.array(4096, F16)),
    Check("ReduceMean float16 accumulates in float32", ("ReduceMean",), lambda v: ops.mean(v, 0),
          (np.full(4096, 0.5, F16),), lambda v: np.array(0.5, F16)),
    Check("ReduceMean int truncates", ("ReduceMean",), lambda v: ops.mean(v, 1),
          (np.array([[-3, -4, 0], [3, 4, 0]], I32),), lambda v: np.array([-2, 2], I32)),
])


@pytest.mark.parametrize("group, name", params([SPECIAL]))
def test_reduction_special_compiled(group, name):
    group.run(name)


# ---- softmax, log_softmax, LayerNorm ----------------------------------------------------------------
def _layer_norm_ref(begin_norm_axis, eps):
    def ref(x, gamma, beta):
        axes = tuple(range(begin_norm_axis % x.ndim, x.ndim))
        x64 = x.astype(F64)
        mean = x64.mean(axis=axes, keepdims=True)
        var = ((x64 - mean) ** 2).mean(axis=axes, keepdims=True)
        return ((x64 - mean) / np.sqrt(var + eps) * gamma + beta).astype(x.dtype)
    return ref


def norm_checks(dtype) -> list:
    checks = []
    x = op_specs.sample(dtype, (2, 3, 4), seed=50)
    for axis in (0, 1, 2, -1, -3):
        for log, fn, op in ((False, ops.softmax, "Softmax"), (True, ops.log_softmax, "LogSoftmax")):
            checks.append(Check(f"{op} axis={axis}", (op,), lambda v, a=axis, f=fn: f(v, a), (x,),
                                _softmax_ref(axis, log), tol=TOL_REDUCE))
    for shape in ((7,), (1,), (0, 3), (3, 0)):
        v = op_specs.sample(dtype, shape, seed=51)
        checks.append(Check(f"Softmax{list(shape)}", ("Softmax",), ops.softmax, (v,), _softmax_ref(-1, False),
                            tol=TOL_REDUCE))
    big = (op_specs.sample(dtype, (3, 5), seed=52) * 30).astype(dtype)     # exp would overflow unshifted
    big[1, :] = -np.inf
    big[1, 2] = 1.0
    checks.append(Check("Softmax large and -inf", ("Softmax",), ops.softmax, (big,), _softmax_ref(-1, False),
                        tol=TOL_REDUCE))
    checks.append(Check("LogSoftmax large and -inf", ("LogSoftmax",), lambda v: ops.log_softmax(v, 1), (big,),
                        _softmax_ref(1, True), tol=TOL_REDUCE))
    checks.append(Check("Softmax class", ("Softmax",), ops.Softmax(0), (x,), _softmax_ref(0, False), tol=TOL_REDUCE))
    checks.append(Check("Softmax class axis (1,)", ("Softmax",), ops.Softmax((1,)), (x,), _softmax_ref(1, False),
                        tol=TOL_REDUCE))
    checks.append(Check("log_softmax axis [-1]", ("LogSoftmax",), lambda v: ops.log_softmax(v, [-1]), (x,),
                        _softmax_ref(-1, True), tol=TOL_REDUCE))
    checks.append(Check("LogSoftmax class", ("LogSoftmax",), ops.LogSoftmax(1), (x,), _softmax_ref(1, True),
                        tol=TOL_REDUCE))
    for norm_axis, params_axis, eps in ((1, 1, 1e-5), (-1, -1, 1e-7), (2, 1, 1e-5), (1, 2, 1e-3), (0, 0, 1e-5)):
        shape = x.shape[params_axis % 3:]
        g = op_specs.sample(dtype, shape, seed=53)
        b = op_specs.sample(dtype, shape, seed=54)
        checks.append(Check(f"LayerNorm axis={norm_axis} params={params_axis}", ("LayerNorm",),
                            lambda v, gg, bb, na=norm_axis, pa=params_axis, e=eps: ops.layer_norm(v, gg, bb, na, pa, e),
                            (x, g, b), _layer_norm_ref(norm_axis, eps), tol=TOL_REDUCE))
    return checks


NORM = [Group(f"norm_{dtname(dt)}", norm_checks(dt)) for dt in (F16, F32, F64)]


@pytest.mark.parametrize("group, name", params(NORM))
def test_softmax_layernorm_compiled(group, name):
    group.run(name)


def test_softmax_of_several_axes_is_refused_eagerly_and_compiled():
    """MindSpore's CPU Softmax takes one axis (an int or a tuple of one int)."""
    x = Tensor(op_specs.sample(F32, (2, 3)))
    with pytest.raises(ValueError, match="For 'Softmax'"):
        ops.Softmax((0, 1))(x)
    with pytest.raises(ValueError, match="For 'LogSoftmax'"):
        ms.jit(lambda v: ops.log_softmax(v, (0, 1)))(x)


def test_reduce_groups_cover_every_reduction_and_dtype():
    names = {o for g in REDUCE + NORM + [SPECIAL] for c in g.checks for o in c.ops}
    assert names >= {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceAll", "ReduceAny", "Argmax",
                     "Softmax", "LogSoftmax", "LayerNorm"}
    assert [dtname(d) for d in DTYPES] == ["bool", "int32", "int64", "float16", "float32", "float64"]
    assert BOOL in DTYPES and F16 in DTYPES
