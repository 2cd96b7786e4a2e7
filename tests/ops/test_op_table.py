"""The op table as a whole: every op, every functional op and every class-form op is covered by a
spec in op_specs.py (so the generic tests run it against NumPy), the explicit CASES run, and each
table row is well formed."""
import inspect

import numpy as np
import pytest

from op_specs import BINARY, CASES, REDUCTIONS, UNARY, assert_close

from pycompile import Tensor, ops
from pycompile.ops import (OPS, function_array, function_index, function_math, functional, operations,
                           operations_everyday, prims)

# the modules of functional and class forms whose every entry a spec must exercise
FUNCTIONAL_MODULES = (functional, function_array, function_index, function_math)
CLASS_MODULES = (operations, operations_everyday)
from pycompile.ops._table import Kind
from pycompile.ops.lowering import Lowering


def _case_ops(case):
    return {case.op} if isinstance(case.op, str) else set(case.op)


def test_every_table_op_has_a_spec():
    covered = {s.op for s in UNARY + BINARY + REDUCTIONS}
    for case in CASES:
        covered |= _case_ops(case)
    # the collectives are checked against NumPy in tests/distributed (a world of one here, every
    # rank's inputs under mpirun in coll_worker.py)
    covered |= {"AllReduce", "AllGather", "ReduceScatter", "Broadcast", "AllReduceStart", "AllReduceWait"}
    missing = sorted(n for n in set(OPS) - covered if not OPS[n].graph_only)
    assert not missing, f"ops without a NumPy-checked spec: {missing}"
    unknown = sorted(covered - set(OPS))
    assert not unknown, f"specs name ops that are not in the table: {unknown}"


def test_every_functional_op_is_exercised():
    used = {id(s.fn) for s in UNARY + BINARY} | {id(u) for c in CASES for u in c.uses}
    used |= {id(getattr(functional, name)) for name in ("sum", "mean", "amax", "amin", "all", "any")}
    missing = [f"{m.__name__}.{n}" for m in FUNCTIONAL_MODULES for n in m.__all__ if id(getattr(m, n)) not in used]
    assert not missing, f"functional ops no spec exercises: {missing}"


def test_every_class_form_is_exercised():
    used = {s.cls for s in UNARY + BINARY + REDUCTIONS if s.cls is not None}
    used |= {u for c in CASES for u in c.uses if inspect.isclass(u)}
    # each module's own classes (ops.operations also re-exports the other families' classes)
    classes = [getattr(m, n) for m in CLASS_MODULES for n in m.__all__
               if inspect.isclass(getattr(m, n)) and getattr(m, n).__module__ == m.__name__]
    missing = [c.__name__ for c in classes if c not in used]
    # aliases of the same primitive with another MindSpore name
    missing = [n for n in missing if n not in ("Div",)]
    assert not missing, f"class-form ops no spec exercises: {missing}"


def test_class_form_aliases():
    x, y = Tensor([7.0, -7.0]), Tensor([2.0, 2.0])
    assert_close(ops.Div()(x, y), np.array([3.5, -3.5], np.float32))
    # Mod is the truncated remainder (C's fmod), FloorMod the floored one
    assert_close(ops.Mod()(x, y), np.array([1.0, -1.0], np.float32))
    assert_close(ops.FloorMod()(x, y), np.array([1.0, 1.0], np.float32))


def _to_input(a):
    return Tensor(a) if isinstance(a, np.ndarray) else a


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in CASES])
def test_case(case):
    out = case.call(*[_to_input(a) for a in case.args])
    expected = case.ref(*case.args)
    if isinstance(expected, tuple):
        assert out == expected
    else:
        assert_close(out, np.asarray(expected), case.name)


@pytest.mark.parametrize("name", sorted(OPS))
def test_table_rows_are_complete(name):
    op = OPS[name]
    assert op.name == name
    assert callable(op.infer) and callable(op.eager)
    assert isinstance(op.lower, Lowering), f"{name} has no typed lowering"
    assert isinstance(op.kind, Kind)
    assert getattr(prims, name) is op, f"{name} is missing from pycompile.ops.prims"
    assert isinstance(op.inputs, tuple)
    for attr in op.attrs:
        assert attr in inspect.signature(op.infer).parameters, f"{name}: attr {attr} unknown to infer"


def test_primitive_base_class():
    p = ops.Add()
    assert p.name == "Add" and repr(p) == "Prim[Add]"
    assert p.add_prim_attr("primitive_target", "CPU") is p
    assert p.attrs == {"primitive_target": "CPU"}


def test_prims_holds_only_table_ops():
    """`pycompile.ops.prims` is the table as module attributes: nothing more, nothing less."""
    exported = {n for n in dir(prims) if not n.startswith("_") and isinstance(getattr(prims, n), type(OPS["Add"]))}
    assert exported == set(OPS)
