"""Compiled-vs-eager-vs-NumPy checks, batched so that one C module covers many ops.

A `Check` is one op application: `fn(*tensors)` and its NumPy reference `ref(*arrays)`. A `Group`
compiles every check of a list into ONE `@jit` function returning a tuple (a C compile costs
~0.1-0.3 s; one per check would make the suite slow), runs the same calls eagerly (PyNative),
and answers per check. The graph the frontend built is walked to confirm that the ops a check
claims to exercise really reached the compiler.

References come from NumPy written in the test files (or from the op_specs tables of the eager
tests), never from pycompile.
"""
from __future__ import annotations

import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

import pycompile as ms
from pycompile import Tensor
from pycompile.compiler import ir
from pycompile.ops._table import OPS, OpDef

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "ops"))
import op_specs  # noqa: E402  (the NumPy reference tables of the eager op tests)

BOOL, I32, I64, F16, F32, F64 = np.bool_, np.int32, np.int64, np.float16, np.float32, np.float64
DTYPES = (BOOL, I32, I64, F16, F32, F64)

# (rtol, atol) per float result dtype: against NumPy (computed in float64) and against eager.
TOL = {np.dtype(F16): (2e-3, 2e-3), np.dtype(F32): (1e-5, 1e-6), np.dtype(F64): (1e-12, 1e-12)}
TOL_REDUCE = {np.dtype(F16): (4e-3, 4e-3), np.dtype(F32): (1e-4, 1e-5), np.dtype(F64): (1e-10, 1e-12)}


def dtname(dt) -> str:
    return np.dtype(dt).name


@dataclass(frozen=True)
class Check:
    name: str
    ops: tuple                  # table ops this check must make the compiler see
    fn: Callable                # fn(*tensors) -> Tensor, or a tuple of Tensors
    args: tuple                 # NumPy arrays (passed as Tensors)
    ref: Callable               # NumPy: ref(*arrays) -> array (or tuple of arrays)
    tol: dict = field(default_factory=lambda: TOL)
    out_dtype: object = None    # expected result dtype when the reference cannot say (None: ref's dtype)


def _as_tuple(x):
    return x if isinstance(x, tuple) else (x,)


def graph_ops(graph: ir.Graph) -> set:
    return {n.op.name for n in ir.iter_nodes(graph.body) if isinstance(n.op, OpDef)}


class Group:
    """Checks compiled together into one module."""

    def __init__(self, name: str, checks: list):
        self.name = name
        self.checks = list(checks)
        names = [c.name for c in self.checks]
        assert len(set(names)) == len(names), f"{name}: duplicate check names"

    def ids(self) -> list:
        return [c.name for c in self.checks]

    @property
    def result(self):
        """(compiled outputs per check, op names of the traced graph, CompileReport). A failure
        to compile is remembered too: every check of the group reports it without recompiling."""
        if not hasattr(self, "_result"):
            try:
                self._result = self._compile()
            except Exception as e:      # noqa: BLE001  (re-raised by every check of the group)
                self._result = e
        if isinstance(self._result, Exception):
            raise self._result
        return self._result

    def _compile(self):
        checks = self.checks
        n = len(checks)

        def graph(args):
            out = ()
            for i in range(n):
                out = out + (checks[i].fn(*args[i]),)
            return out

        jf = ms.jit(graph)
        args = tuple(tuple(Tensor(a) for a in c.args) for c in checks)
        outs = jf(args)
        report = ms.inspect(jf, args)
        return outs, graph_ops(report.graph_before), report

    def run(self, name: str):
        """Compare one check's compiled result with its eager result and its NumPy reference."""
        k = self.ids().index(name)
        c = self.checks[k]
        outs, seen, _ = self.result
        # a row defined by its decomposition (`decompose=`) is seen as its parts, never itself
        missing = {o for o in c.ops if not OPS[o].expands} - seen
        assert not missing, f"{c.name}: the compiled graph has no {sorted(missing)}"
        eager = c.fn(*[Tensor(a) for a in c.args])
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)     # NumPy's "mean of empty slice"
            expected = c.ref(*[np.array(a) for a in c.args])
        got, eager, expected = _as_tuple(outs[k]), _as_tuple(eager), _as_tuple(expected)
        assert len(got) == len(expected) == len(eager), f"{c.name}: {len(got)} results, expected {len(expected)}"
        for j, (g, e, x) in enumerate(zip(got, eager, expected)):
            x = np.asarray(x)
            if c.out_dtype is not None:
                x = x.astype(c.out_dtype)
            what = f"{c.name}" + (f"[{j}]" if len(got) > 1 else "")
            assert_matches(g, x, c.tol, what + " compiled vs NumPy")
            assert_matches(e, x, c.tol, what + " eager vs NumPy")
            assert_matches(g, e.asnumpy(), c.tol, what + " compiled vs eager")


def assert_matches(actual, expected: np.ndarray, tol: dict, what: str):
    """`actual` (a Tensor) has `expected`'s dtype and shape, and its values: exactly for bool and
    integers, within `tol` for floats (NaN matches NaN)."""
    assert isinstance(actual, Tensor), f"{what}: expected a Tensor, got {type(actual).__name__}: {actual!r}"
    assert actual.dtype == op_specs.ms_dtype(expected.dtype), f"{what}: dtype {actual.dtype} != {expected.dtype}"
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    got = actual.asnumpy()
    if expected.dtype.kind == "f":
        rtol, atol = tol[expected.dtype]
        np.testing.assert_allclose(got.astype(np.float64), expected.astype(np.float64), rtol=rtol, atol=atol,
                                   equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(got, expected, err_msg=what)


def params(groups: list):
    """pytest params (group, check name) for every check of every group, with readable ids."""
    import pytest
    return [pytest.param(g, name, id=f"{g.name}-{name}") for g in groups for name in g.ids()]
