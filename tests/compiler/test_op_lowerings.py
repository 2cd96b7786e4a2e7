"""Every op of the table can be compiled (needs no C compiler): it has `infer` and `eager` and a
typed lowering the C renderer has a rendering for - an elementwise C expression (keyed by the op)
that renders for every dtype the op accepts, a loop template registered under its name, or a
lowering kind the renderer emits itself (views, copies, effects, BLAS). And every op is compiled
by some test of the test_ops_compiled*.py files."""
from __future__ import annotations

import re

import numpy as np
import pytest

from opcheck import DTYPES, op_specs

import pycompile as ms
from pycompile import Tensor, ops
from pycompile.backend.c.codegen import CodeGen
from pycompile.common.abstract import TensorType
from pycompile.compiler.frontend import trace
from pycompile.ops import OPS
from pycompile.ops import prims as P
from pycompile.ops._table import Kind, OpError
from pycompile.backend.c.ops import ctypes_ as C
from pycompile.backend.c.ops.elementwise import COMPLEX_EXPR, EXPR
from pycompile.backend.c.ops.elementwise import expr as c_expr
from pycompile.backend.c.ops.templates import TEMPLATES
from pycompile.ops.lowering import Constant, Elementwise, Ordering, Parts, Template

# a C math call that is expensive enough not to be recomputed on each pass of a template
_TRANSCENDENTAL = re.compile(r"\b(exp|expm1|log|log1p|log2|sin|cos|tan|sinh|cosh|tanh|asin|acos|atan|atan2|"
                             r"asinh|acosh|atanh|erf|erfc|pow)f?\(")


def _accepted_input_types(op):
    """Tensor input types of each dtype the op's infer accepts (Select: a bool condition)."""
    for dt in list(DTYPES) + [np.complex64, np.complex128]:     # (the complex rows take only these)
        t = TensorType(op_specs.ms_dtype(dt), (2, 3))
        types = [t] * len(op.inputs)
        if op is P.Select:
            types[0] = TensorType(ms.bool_, (2, 3))
        attrs = {"dtype": ms.float32} if op is P.Cast else {}
        try:
            yield types, op.infer(types, **attrs)
        except (TypeError, OpError):
            continue


@pytest.mark.parametrize("name", sorted(OPS))
def test_op_has_infer_eager_and_a_lowering(name):
    op = OPS[name]
    assert callable(op.infer), f"{name} has no infer"
    assert callable(op.eager), f"{name} has no eager implementation"
    lower = op.lower
    if isinstance(lower, Parts):
        # a decomposed row without a lowering of its own: the pre-render pass always expands it
        assert op.expands, f"{name}: a Parts lowering on a row that is not decomposed"
    elif op.kind is Kind.ELEMENTWISE and op.expands:
        # its C is its parts' (compiler/passes/decompose.py): it has no expression of its own
        assert isinstance(lower, Elementwise) and op not in EXPR, name
    elif op.kind is Kind.ELEMENTWISE:
        assert isinstance(lower, Elementwise), f"{name} is elementwise but its lowering is {lower!r}"
        assert op in EXPR or op in COMPLEX_EXPR, f"{name} has no C expression in pycompile/backend/c/ops/elementwise.py"
        accepted = list(_accepted_input_types(op))
        assert accepted, f"{name} accepts no dtype"
        for types, out in accepted:
            ct = C.compute(lower.compute(types, out))
            expr = c_expr(op, [f"a{k}" for k in range(len(types))], ct)
            assert isinstance(expr, str) and "a0" in expr or op is P.IsFinite, (name, ct, expr)
        if op not in EXPR:
            return              # a complex-only row (its C: COMPLEX_EXPR, compiled in tests/backend/test_cplx33_graph.py)
        # the declared cost fact fusion reads agrees with the C the renderer emits
        rendered = EXPR[op]([f"a{k}" for k in range(len(op.inputs))], "float")
        assert lower.transcendental == bool(_TRANSCENDENTAL.search(rendered)), \
            f"{name}: transcendental={lower.transcendental} but its C is {rendered}"
    elif isinstance(lower, Template):
        assert lower.name in TEMPLATES, f"{name}: no renderer for template {lower.name!r} in pycompile/backend/c/ops"
    elif isinstance(lower, Constant):
        assert op.inputs == (), f"{name}: only an op without inputs can be a trace-time constant"
    elif isinstance(lower, Ordering):
        assert not lower.emits_code
    else:
        assert type(lower) in CodeGen.RENDER, f"codegen has no renderer for {name}'s {type(lower).__name__}"


def test_trace_time_constants_never_reach_codegen():
    """Fill and its views (zeros, ones, *_like) become constants while the graph is traced."""
    def f(x):
        return ops.zeros((2, 3)) + ops.ones_like(x) + ops.fill(ms.float32, (2, 3), 2.5) + x

    graph = trace(f, (Tensor(np.ones((2, 3), np.float32)),), {}).graph
    names = {n.op.name for n in _nodes(graph.body)}
    assert "Fill" not in names and "Add" in names
    for name, op in OPS.items():
        if isinstance(op.lower, Constant):
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
    import test_ops_compiled_cnn as cnn
    import test_ops_compiled_everyday as day
    import test_ops_compiled_reduce as red
    groups = ew.ELEMENTWISE + ew.MISC + [ew.LARGE] + red.REDUCE + [red.SPECIAL] + red.NORM \
        + arr.LAYOUT + arr.BACKPROP + arr.MATMUL + [arr.CREATION] + day.EVERYDAY + cnn.GROUPS
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "autodiff"))
    import test_compiled_grads as grads
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "distributed"))
    import test_communication as dist
    covered = {o for g in groups for c in g.checks for o in c.ops} | eff.EFFECT_OPS | grads.STACK_OPS | cnn.EPILOGUE_OPS
    covered |= dist.COMPILED_OPS        # the collectives, compiled in a world of one (and under mpirun)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "backend"))
    import test_cplx33_graph as cplx
    covered |= cplx.COMPILED_OPS        # the complex rows and the DFT
    import test_auto34_custom as pyfunc
    covered |= pyfunc.COMPILED_OPS      # ops.Custom's host call
    covered |= {name for name, op in OPS.items() if isinstance(op.lower, Constant)}     # see the test above
    missing = sorted(set(OPS) - covered)
    assert not missing, f"ops no compiled test runs: {missing}"
    unknown = sorted(covered - set(OPS))
    assert not unknown, f"compiled checks name ops that are not in the table: {unknown}"
