"""Stack and AddN are decompositions (docs/architecture.md, "The core"): the pre-render pass now
hands a variadic row's tensors to its decomposition, so Stack is a Concat of its tensors each
given a length-1 axis, and AddN the table's Add folded left to right (the template's own chain).
Compiled, neither row reaches the renderer; the result equals NumPy's (np.stack; a left-to-right
sum rounded after each addition) bit for bit, in every dtype the rows take, at the edge values;
AddN stays one fused loop and the rows' gradients are unchanged.
"""
from __future__ import annotations

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops
from pycompile.ops import prims as P
from pycompile.ops._table import apply

EDGE = [0.0, -0.0, 1.0, -1.0, 0.5, 1e-30, -1e-45, 65504.0, 1e4, np.inf, -np.inf, np.nan]
DTYPES = ["float16", "float32", "float64", "int32", "int8"]


def _arrays(dt, k):
    rng = np.random.default_rng(k)
    if dt.startswith("float"):
        base = np.array(EDGE * 2, np.float64)
    else:
        info = np.iinfo(dt)
        base = np.array([0, 1, -1, 7, info.max, info.min, info.max - 1, 3, -5, 2, 0, 1] * 2, np.float64)
    return rng.permutation(base).astype(dt).reshape(4, 6)


def _addn_reference(xs):
    out = xs[0]
    with np.errstate(all="ignore"):
        for x in xs[1:]:
            out = (out + x).astype(xs[0].dtype)          # integers wrap, float16 rounds after each
    return out


CASES = [(dt, axis) for dt in DTYPES for axis in (0, -1, 1)]


@ms.jit
def _both(xs):
    stacked = tuple(ops.stack(x, axis) for x, (_, axis) in zip(xs, CASES))
    summed = tuple(ops.addn(x) for x in xs)
    return stacked, summed


@pytest.fixture(scope="module")
def compiled():
    xs = tuple(tuple(Tensor(_arrays(dt, k + j)) for j in range(3)) for k, (dt, _) in enumerate(CASES))
    return _both(xs), ms.inspect(_both, xs)


@pytest.mark.parametrize("k", range(len(CASES)), ids=[f"{dt}-axis{a}" for dt, a in CASES])
def test_stack_and_addn_compiled_equal_numpy(k, compiled):
    (stacked, summed), _ = compiled
    dt, axis = CASES[k]
    xs = [_arrays(dt, k + j) for j in range(3)]
    np.testing.assert_array_equal(stacked[k].asnumpy(), np.stack(xs, axis))
    assert stacked[k].asnumpy().dtype == np.dtype(dt)
    want = _addn_reference(xs)
    got = summed[k].asnumpy()
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.view(f"u{got.itemsize}") if dt.startswith("float") else got,
                                  want.view(f"u{want.itemsize}") if dt.startswith("float") else want)


def test_the_rows_are_decomposed_before_rendering(compiled):
    _, report = compiled
    assert P.Stack.expands and P.AddN.expands
    assert "Stack(" not in report.ir_after and "AddN(" not in report.ir_after
    assert "Concat(" in report.ir_after


@ms.jit
def _addn_chain(a, b, c):
    return ops.addn((a, b, c)) * 2.0


def test_addn_is_one_fused_loop():
    x = Tensor(np.ones((64, 256), np.float32))
    c = ms.inspect(_addn_chain, x, x, x).c_source
    assert c.count("__attribute__((noinline)) void k") == 1, c


def test_the_rows_gradients_stay():
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    w = Tensor(np.arange(12, dtype=np.float32).reshape(2, 2, 3))

    def f(a):
        return (ops.stack((a, a * 2.0), 0) * w).sum() + ops.addn((a, a, a * 3.0)).sum()
    want = (w.asnumpy()[0] + 2 * w.asnumpy()[1]) + 5.0
    np.testing.assert_array_equal(ms.grad(f)(x).asnumpy(), want)
    np.testing.assert_array_equal(ms.jit(ms.grad(f))(x).asnumpy(), want)
    assert apply(P.AddN, [(x, x)]).asnumpy().tolist() == (2 * x.asnumpy()).tolist()
