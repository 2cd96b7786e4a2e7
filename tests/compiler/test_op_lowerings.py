"""Every op of the table can be compiled (needs no C compiler): it has `infer` and `eager`, and
codegen has a lowering for it - an `Elementwise` C expression that renders for every dtype the op
accepts, or an `op_<Name>` method of CodeGen, or a table lowering that documents why no code is
emitted. And every op is compiled by some test of the test_ops_compiled*.py files."""
from __future__ import annotations

import numpy as np
import pytest

from opcheck import DTYPES, op_specs

import pycompile as ms
from pycompile import Tensor, ops
from pycompile.common.abstract import TensorType
from pycompile.compiler.codegen import ctypes_ as C
from pycompile.compiler.codegen.codegen import CodeGen
from pycompile.compiler.frontend import trace
from pycompile.ops import OPS
from pycompile.ops._table import OpError
from pycompile.ops.defs.elementwise import Elementwise

# table lowerings that emit no code of their own, and why
NO_CODE = {
    "none": "ordering only (UpdateState, MakeTuple): the node carries no data",
    "const": "no inputs: the call runs when the graph is traced and reaches codegen as a constant",
}


def _accepted_input_types(op):
    """Tensor input types of each dtype the op's infer accepts (Select: a bool condition)."""
    for dt in DTYPES:
        t = TensorType(op_specs.ms_dtype(dt), (2, 3))
        types = [t] * len(op.inputs)
        if op.name == "Select":
            types[0] = TensorType(ms.bool_, (2, 3))
        attrs = {"dtype": ms.float32} if op.name == "Cast" else {}
        try:
            yield types, op.infer(types, **attrs)
        except (TypeError, OpError):
            continue


@pytest.mark.parametrize("name", sorted(OPS))
def test_op_has_infer_eager_and_a_lowering(name):
    op = OPS[name]
    assert callable(op.infer), f"{name} has no infer"
    assert callable(op.eager), f"{name} has no eager implementation"
    if op.kind == "elementwise":
        assert isinstance(op.lower, Elementwise), f"{name} is elementwise but its lowering is {op.lower!r}"
        accepted = list(_accepted_input_types(op))
        assert accepted, f"{name} accepts no dtype"
        for types, out in accepted:
            ct = C.compute(op.lower.compute(types, out))
            expr = op.lower.c([f"a{k}" for k in range(len(types))], ct)
            assert isinstance(expr, str) and "a0" in expr or name == "IsFinite", (name, ct, expr)
    elif op.lower in NO_CODE:
        if op.lower == "const":
            assert op.inputs == (), f"{name}: only an op without inputs can be a trace-time constant"
    else:
        assert callable(getattr(CodeGen, f"op_{name}", None)), \
            f"codegen has no lowering for {name} (lower={op.lower!r}): add CodeGen.op_{name}"


def test_trace_time_constants_never_reach_codegen():
    """Fill and its views (zeros, ones, *_like) become constants while the graph is traced."""
    def f(x):
        return ops.zeros((2, 3)) + ops.ones_like(x) + ops.fill(ms.float32, (2, 3), 2.5) + x

    graph = trace(f, (Tensor(np.ones((2, 3), np.float32)),), {}).graph
    names = {n.op.name for n in _nodes(graph.body)}
    assert "Fill" not in names and "Add" in names
    for name, op in OPS.items():
        if op.lower == "const":
            assert name not in names


def _nodes(block):
    from pycompile.compiler import ir
    return ir.iter_nodes(block)


def test_every_op_is_compiled_by_a_test():
    """The compiled checks declare the ops they exercise (and assert the compiler saw them);
    together with the effect tests they cover the whole table."""
    import test_ops_compiled as ew
    import test_ops_compiled_array as arr
    import test_ops_compiled_effects as eff
    import test_ops_compiled_reduce as red
    groups = ew.ELEMENTWISE + ew.MISC + [ew.LARGE] + red.REDUCE + [red.SPECIAL] + red.NORM \
        + arr.LAYOUT + arr.MATMUL + [arr.CREATION]
    covered = {o for g in groups for c in g.checks for o in c.ops} | eff.EFFECT_OPS
    covered |= {name for name, op in OPS.items() if op.lower == "const"}     # see the test above
    missing = sorted(set(OPS) - covered)
    assert not missing, f"ops no compiled test runs: {missing}"
    unknown = sorted(covered - set(OPS))
    assert not unknown, f"compiled checks name ops that are not in the table: {unknown}"
