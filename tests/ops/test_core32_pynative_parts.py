"""PyNative runs a decomposed row's parts (ops/_table.py `_parts_plan`; docs/architecture.md,
"The core"), as compiled code does, while autodiff records the row and uses its own gradient rule:

* a row's PyNative result is its decomposition's, not its NumPy `eager` (a row made here, whose
  `eager` is deliberately wrong, shows which one ran), and its gradient is the row's rule, not
  the parts' (the tape records the row);
* every decomposed row of the table gives in PyNative what the compiled graph gives: bit for bit
  where every part is exactly rounded (comparisons, selects, +-*/), within 4 ulps where a part
  is a transcendental function (Mish chains three) (NumPy's libm and the C's vector math round their last bit
  differently);
* the gradients stay finite at the edges where the parts' own gradient is not (SiLU at -100,
  Elu and SeLU at +90), in PyNative and compiled alike.
"""
from __future__ import annotations

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor
from pycompile.ops import prims as P
from pycompile.ops._table import OPS, OpDef, apply
from pycompile.ops.defs.elementwise import Mul, call
from pycompile.ops.lowering import Elementwise

EDGES = np.array([0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.5, -2.5, 3.0, -3.0, 6.0, 6.5, -20.0, 20.0, 80.0, -80.0,
                  90.0, -90.0, 100.0, -100.0, 1e-30, -1e-30, 1e-45, 1e4, -1e4, np.inf, -np.inf, np.nan])
DECOMPOSED = sorted((op for op in OPS.values() if op.expands), key=lambda op: op.name)
# the rows whose parts are all exactly rounded: PyNative == compiled bit for bit
EXACT = {"Greater", "GreaterEqual", "NotEqual", "ReLU6", "HSwish", "HSigmoid", "Softsign"}


def _twice_rule(g, out, x):
    return (call(Mul, g, 3.0),)      # not the parts' derivative (2): shows which rule ran


# a row that is not in the table (OpDef, not defop): its decomposition doubles, its NumPy `eager`
# is wrong on purpose, its gradient rule says 3
_DOUBLE = OpDef(name="Core32Double", inputs=("x",), infer=P.Exp.infer,
                eager=lambda x: x * 100, lower=Elementwise(lambda types, out: out.dtype),
                decompose=lambda x: call(Mul, x, 2.0), grad=_twice_rule)


def test_pynative_runs_the_decomposition_and_records_the_row():
    x = Tensor(np.array([1.0, -2.5, 4.0], np.float32))
    np.testing.assert_array_equal(apply(_DOUBLE, [x]).asnumpy(), [2.0, -5.0, 8.0])
    # a second call runs the cached plan, a Parameter takes the full path: the same parts
    np.testing.assert_array_equal(apply(_DOUBLE, [x]).asnumpy(), [2.0, -5.0, 8.0])
    np.testing.assert_array_equal(apply(_DOUBLE, [ms.Parameter(x, name="p")]).asnumpy(), [2.0, -5.0, 8.0])
    g = ms.grad(lambda t: apply(_DOUBLE, [t]).sum())(x)
    np.testing.assert_array_equal(g.asnumpy(), [3.0, 3.0, 3.0])
    # compiled: the same decomposition (the pre-render pass), the same rule (autodiff traced first)
    np.testing.assert_array_equal(ms.jit(lambda t: apply(_DOUBLE, [t]))(x).asnumpy(), [2.0, -5.0, 8.0])
    np.testing.assert_array_equal(ms.jit(ms.grad(lambda t: apply(_DOUBLE, [t]).sum()))(x).asnumpy(), [3.0] * 3)


def _arrays(op, dt):
    x = EDGES.astype(dt) if dt != np.int32 else np.array([0, 1, -1, 2, -3, 3, 7, -7, 100, -100], dt)
    if len(op.inputs) == 1:
        return [x]
    return [np.repeat(x, 3), np.tile(x, 3)[np.random.RandomState(0).permutation(3 * x.size)]]


CASES = []
for _op in DECOMPOSED:
    if len(_op.inputs) > 2:
        continue        # the scatters (index and updates): tests/ops/test_core32_scatters.py
    for _dt in (np.float16, np.float32, np.float64, np.int32):
        try:
            _op.infer([Tensor(a)._abstract for a in _arrays(_op, _dt)])
        except TypeError:
            continue
        CASES.append((_op, _dt))


@pytest.fixture(scope="module")
def compiled():
    xs = tuple(tuple(Tensor(a) for a in _arrays(op, dt)) for op, dt in CASES)
    return ms.jit(lambda xs: tuple(apply(op, list(a)) for (op, _), a in zip(CASES, xs)))(xs)


@pytest.mark.parametrize("k", range(len(CASES)), ids=[f"{op.name}-{np.dtype(dt)}" for op, dt in CASES])
def test_pynative_equals_compiled(k, compiled):
    op, dt = CASES[k]
    eager = apply(op, [Tensor(a) for a in _arrays(op, dt)]).asnumpy()
    got = compiled[k].asnumpy()
    assert eager.dtype == got.dtype and eager.shape == got.shape
    if op.name in EXACT or eager.dtype.kind != "f":
        np.testing.assert_array_equal(eager, got)
        return
    np.testing.assert_array_equal(np.isnan(eager), np.isnan(got))
    ok = np.isfinite(got)
    np.testing.assert_array_equal(eager[~ok], got[~ok])
    ulps = np.abs(eager[ok].astype(np.float64) - got[ok]) / np.spacing(np.abs(got[ok]).astype(eager.dtype))
    assert np.max(np.where(eager[ok] == got[ok], 0, ulps), initial=0) <= 4, (op.name, dt)


@pytest.mark.parametrize("op,x,want", [(P.SiLU, -100.0, 0.0), (P.SiLU, 100.0, 1.0), (P.Elu, 90.0, 1.0),
                                       (P.SeLU, 90.0, 1.0507009873554805), (P.Mish, -100.0, 0.0),
                                       (P.Softplus, 100.0, 1.0), (P.LogSigmoid, -100.0, 1.0)])
def test_gradients_stay_finite_at_the_edges(op, x, want):
    """The parts' own gradient is NaN here (x / (1 + exp(-x)) at -100: inf / inf); the row's rule
    is not, and PyNative uses it as compiled code does."""
    t = Tensor(np.array([x, x], np.float32))
    f = ms.grad(lambda u: apply(op, [u]).sum())
    for g in (f(t), ms.jit(f)(t)):
        np.testing.assert_allclose(g.asnumpy(), [want, want], rtol=1e-6, atol=1e-30)


def test_float16_overflow_gives_inf_without_a_warning():
    """Square(300) in float16 is Mul(300, 300) computed in float32 and rounded: inf, as compiled
    code gives, with no NumPy RuntimeWarning from inside pycompile (an error under -W error)."""
    import warnings
    x = Tensor(np.array([300.0, -2.0], np.float16))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(apply(P.Square, [x]).asnumpy(), [np.inf, 4.0])
        np.testing.assert_array_equal((x * x).asnumpy(), [np.inf, 4.0])


@pytest.mark.parametrize("op,ref", [(P.ReduceAll, np.all), (P.ReduceAny, np.any)], ids=["all", "any"])
def test_all_any_edges(op, ref):
    """ReduceAll / ReduceAny (still rows of their own: docs/architecture.md says why) over some
    axes, an empty axis (all() True, any() False), NaN and -0.0, in PyNative and compiled alike."""
    x = np.array([[0.0, -0.0, np.nan], [1.0, 2.0, 3.0], [0.0, 0.0, 0.0], [-0.0, 5.0, np.inf]], np.float32)
    cases = [(x, None, False), (x, (1,), False), (x, (0,), True), (np.nan_to_num(x).astype(np.int8), (1,), False),
             (np.zeros((3, 0), np.float32), (1,), False), (x > 1, (0, 1), True)]
    for a, axis, keep in cases:
        want = ref(a, axis=axis, keepdims=keep)

        def run(t, axis=axis, keep=keep):
            return apply(op, [t], {"axis": axis, "keep_dims": keep})
        np.testing.assert_array_equal(run(Tensor(a)).asnumpy(), want)
        np.testing.assert_array_equal(ms.jit(run)(Tensor(a)).asnumpy(), want)


def test_float_status_sees_the_rows_result_not_its_parts():
    """On the Ascend device's float-status emulation, SiLU(-100) is -0 (no overflow), though its
    parts' exp(100) is inf on the way: the register sees the row's result, as it sees a compiled
    kernel's; a row whose result overflows still sets it."""
    from pycompile import ops
    ms.set_context(device_target="Ascend")           # the conftest fixture resets the context
    status = ops.NPUAllocFloatStatus()()
    ops.NPUClearFloatStatus()(status)
    out = apply(P.SiLU, [Tensor(np.array([-100.0, 1.0], np.float32))])
    np.testing.assert_array_equal(out.asnumpy() == 0, [True, False])
    assert not ops.NPUGetFloatStatus()(status).asnumpy().any()
    apply(P.Square, [Tensor(np.array([1e30], np.float32))])           # inf: recorded
    assert ops.NPUGetFloatStatus()(status).asnumpy().any()
