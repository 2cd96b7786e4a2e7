"""The core of primitive ops and the rows defined by decompositions (ops/core.py, ops/_table.py
`decompose=`; docs/architecture.md, "The core").

* every row of the table is in exactly one place: the core (at most ~80), the machinery, the fast
  paths, the rows still to decompose, or decomposed (`decompose=`); the counts are printed;
* each decomposed row's compiled result (its parts, from the pre-render pass) equals its NumPy
  reference (the row's `eager`, which PyNative runs) on edge values in float16 / float32 /
  float64 and an integer dtype; its gradient is still the row's rule (finite differences, and
  the rule itself at the extremes), eagerly and compiled;
* a decomposed activation still compiles to one fused loop (its parts fuse).
"""
from __future__ import annotations

import collections

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor
from pycompile.common import dtype as mstype
from pycompile.ops import core
from pycompile.ops import prims as P
from pycompile.ops._table import OPS, apply

DECOMPOSED = sorted((op for op in OPS.values() if op.expands), key=lambda op: op.name)
EDGES = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.5, -2.5, 3.0, -3.0, 6.0, 6.5, -20.0, 20.0, 80.0, -80.0, 90.0, -90.0,
         100.0, -100.0, 1e-30, -1e-30, 1e-45, np.inf, -np.inf, np.nan]


def test_every_row_has_one_place_and_the_core_is_small(capsys):
    places = core.CORE + core.MACHINERY + core.FAST_PATHS + core.TO_DECOMPOSE
    count = collections.Counter(places)
    assert not [op for op, k in count.items() if k > 1], "a row listed twice"
    assert not [op for op in DECOMPOSED if op in count], "a decomposed row is listed too"
    unplaced = [name for name, op in OPS.items() if op not in count and not op.expands]
    assert not unplaced, f"rows in no place (ops/core.py): {unplaced}"
    # about 80: 79 before the last rows were placed, then the libm functions no composition
    # reproduces bit for bit (Log2, Sinh, Cosh, Asinh, Acosh, Atanh) and the random draws that are
    # not a transform of the uniform bits (docs/architecture.md, "The core")
    # (87 since IsNan and LessEqual became decompositions, branch rows32b)
    assert len(core.CORE) <= 88
    assert not core.TO_DECOMPOSE, "every row is decomposed or placed with its reason"
    with capsys.disabled():
        print(f"\n[core] {len(OPS)} rows: core {len(core.CORE)}, machinery {len(core.MACHINERY)}, fast paths "
              f"{len(core.FAST_PATHS)}, to decompose {len(core.TO_DECOMPOSE)}, decomposed {len(DECOMPOSED)}")


def test_the_converted_rows_are_decompositions():
    assert {op.name for op in DECOMPOSED} >= {
        "SiLU", "Elu", "SeLU", "Softplus", "Softsign", "Mish", "LogSigmoid", "ReLU6", "HSwish", "HSigmoid",
        "Greater", "GreaterEqual", "NotEqual", "IsNan", "LessEqual"}


def _inputs(op, dt):
    x = np.array(EDGES, np.float64)
    if dt.kind != "f":
        x = np.array([0, 1, -1, 2, -3, 3, 7, -7, 100, -100], np.float64)
    x = x.astype(dt)
    if len(op.inputs) == 1:
        return [x]
    rs = np.random.RandomState(0)
    return [np.repeat(x, 3), np.tile(x, 3)[rs.permutation(3 * x.size)]]


def _reference(op, arrays, out_dt):
    """The row's NumPy reference, as the table's PyNative plan ran it: inputs in the compute dtype
    (float16 computed in float32), the result in the output dtype."""
    types = [ms.Tensor(a)._abstract for a in arrays]
    out_t = op.infer(types)
    if not hasattr(op.lower, "compute"):          # a reduction (ReduceAll / ReduceAny) reads its input as is
        return np.asarray(op.eager(*arrays)).astype(out_dt)
    cdt = op.lower.compute(types, out_t).np
    if cdt == np.float16:
        cdt = np.float32
    with np.errstate(all="ignore"):
        return np.asarray(op.eager(*[a.astype(cdt) for a in arrays])).astype(out_dt)


def _same(got, want, op, dt):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (op, dt)
    if got.dtype.kind != "f":
        np.testing.assert_array_equal(got, want, err_msg=f"{op} {dt}")
        return
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan), (op, dt, got, want)
    # transcendental parts may round differently from the row's one NumPy expression by an ulp
    # (exp's float32 flush below -87 included)
    tol = {np.float16: 1e-3, np.float32: 4e-7, np.float64: 1e-15}[got.dtype.type]
    np.testing.assert_allclose(got[~nan], want[~nan], rtol=tol, atol=1e-37, err_msg=f"{op} {dt}")


def _cases(op):
    dtypes = [np.float16, np.float32, np.float64] + ([np.int32] if op.infer.__name__ == "infer" else [])
    cases = []
    for dt in map(np.dtype, dtypes):
        arrays = _inputs(op, dt)
        try:
            out_t = op.infer([ms.Tensor(a)._abstract for a in arrays])
        except TypeError:
            continue                          # the row refuses the dtype (ReLU6 takes floats only)
        cases.append((op, dt, arrays, out_t.dtype.np))
    return cases


_I64 = np.array([np.iinfo(np.int64).min, np.iinfo(np.int64).max, -1, 0, 1, np.iinfo(np.int64).max - 1], np.int64)
_B = np.array([True, False, True, False, False, True])
# the comparisons that left the core (branch rows32b) at integer extremes and on bool too
CASES = [c for op in DECOMPOSED for c in _cases(op)] + [
    (P.LessEqual, np.dtype(np.int64), [np.repeat(_I64, 6), np.tile(_I64, 6)], np.bool_),
    (P.LessEqual, np.dtype(np.bool_), [np.repeat(_B, 6), np.tile(_B, 6)], np.bool_),
    (P.IsNan, np.dtype(np.int64), [_I64], np.bool_)]
GRAD_OPS = [P.SiLU, P.Elu, P.SeLU, P.Softplus, P.Softsign, P.Mish, P.LogSigmoid, P.HSwish, P.HSigmoid, P.ReLU6]
# away from the kinks (x = 0, +-3, 6), in float64; and at the extremes, where a decomposition's
# own gradient would differ from the row's rule (SiLU's x / (1 + exp(-x)) gives NaN at -100)
GRAD_X = np.array([-4.2, -2.1, -0.7, 0.4, 1.3, 2.2, 4.5, 7.0], np.float64)
EXTREME_X = np.array([-1e4, -100.0, -90.0, 90.0, 100.0, 1e4, np.inf, -np.inf], np.float32)


@pytest.fixture(scope="module")
def compiled():
    """Every case of every decomposed row, and every gradient, in one compiled module."""
    def graph(xs, gx, ex):
        outs = tuple(apply(op, list(a)) for (op, _, _, _), a in zip(CASES, xs))
        grads = tuple(ms.grad(lambda u, op=op: apply(op, [u]).sum())(gx) for op in GRAD_OPS)
        extreme = tuple(ms.grad(lambda u, op=op: apply(op, [u]).sum())(ex) for op in GRAD_OPS)
        return outs, grads, extreme
    xs = tuple(tuple(Tensor(a) for a in arrays) for _, _, arrays, _ in CASES)
    return ms.jit(graph)(xs, Tensor(GRAD_X), Tensor(EXTREME_X))


@pytest.mark.parametrize("k", range(len(CASES)), ids=[f"{c[0].name}-{c[1]}" for c in CASES])
def test_decomposition_equals_the_rows_reference_in_both_modes(k, compiled):
    op, dt, arrays, out_dt = CASES[k]
    want = _reference(op, arrays, out_dt)
    _same(apply(op, [Tensor(a) for a in arrays]).asnumpy(), want, op.name, dt)
    _same(compiled[0][k].asnumpy(), want, op.name, dt)


@pytest.mark.parametrize("k", range(len(GRAD_OPS)), ids=[op.name for op in GRAD_OPS])
def test_the_rows_gradient_rule_stays(k, compiled):
    """The graph is differentiated before the pre-render pass decomposes it: the row's rule is
    used, eagerly and compiled, checked against finite differences and, at the extremes, against
    the rule itself (finite everywhere the row's value is)."""
    op = GRAD_OPS[k]
    h = 1e-6
    fd = (op.eager(GRAD_X + h) - op.eager(GRAD_X - h)) / (2 * h)
    g = ms.grad(lambda t: apply(op, [t]).sum())(Tensor(GRAD_X)).asnumpy()
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(compiled[1][k].asnumpy(), fd, rtol=1e-6, atol=1e-8)
    with np.errstate(all="ignore"):
        out = Tensor(op.eager(EXTREME_X))
    rule = op.grad(Tensor(np.ones_like(EXTREME_X)), out, Tensor(EXTREME_X))[0].asnumpy()
    # (up to denormals: the compiled rule's Softplus is decomposed, and its Exp flushes exp(-100)
    # to 0 in float32 as MindSpore's does, where NumPy gives 3.8e-44)
    np.testing.assert_allclose(compiled[2][k].asnumpy(), rule, rtol=1e-6, atol=1e-37)


@ms.jit
def _activation(x):
    return apply(P.Mish, [x]) * 2.0


def test_a_decomposed_activation_is_one_fused_loop():
    """Mish's nine parts and the multiply after it: one kernel, one pass over the data."""
    c = ms.inspect(_activation, Tensor(np.ones((64, 256), np.float32))).c_source
    assert c.count("__attribute__((noinline)) void k") == 1, c
    assert "tanhf(" in c and "log1pf(" in c and "expf(" in c
