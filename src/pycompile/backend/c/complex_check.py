"""Which nodes the C renderer can give complex64 / complex128 values (C99 `float _Complex` /
`double _Complex`), checked before rendering so that graph code using complex anywhere else is
the user's clear CompileError at their line, never a C compiler error or a wrong value.

Complex renders where the C is the same for any element type or is C's own complex arithmetic:
* data movement: views (Reshape, ExpandDims ...), copies, the templates that only move elements
  (`moves_data`: transpose, slice, concat, gather ...), constants, effects and ordering;
* the elementwise ops `pycompile.backend.c.ops.elementwise.COMPLEX_EXPR` names (+ - * /, Neg, Square, Pow,
  Exp, Log, Sqrt, Sin, Cos, Tanh, Sigmoid, Abs, Equal, Select, Cast ...);
* the sum-like loop templates (ReduceSum / ReduceMean / ReduceProd, AddN), whose loops only add,
  multiply and scale, and the DFT (backend/c/ops/fft.py);
* MatMul / BatchMatMul: BLAS takes only real floats, so kernels.gemm runs complex products as its
  plain loop in C99 complex arithmetic (MindSpore's CPU MatMul on complex: no conjugate).
Everything else (sorts, cumulative sums, max / min reductions, convolutions ...) raises.
"""
from __future__ import annotations

from pycompile.common.abstract import TensorType, TupleType
from pycompile.compiler import ir
from pycompile.errors import CompileError
from pycompile.ops import lowering as L
from pycompile.ops._table import Kind, OpDef
from pycompile.backend.c.ops.elementwise import renders_complex

# loop templates whose C only adds, scales and stores (checked with complex inputs in
# tests/backend/test_cplx33_graph.py)
_SUM_TEMPLATES = {("reduce", "sum"), ("reduce", "mean"), ("reduce", "prod"), ("addn", ""), ("dft", "")}


def _complex_in(t) -> bool:
    if isinstance(t, TensorType):
        return t.dtype.kind == "c"
    if isinstance(t, TupleType):
        return any(_complex_in(e) for e in t.elems)
    return False


def _node_complex(n: ir.Node) -> bool:
    return _complex_in(n.type) or any(_complex_in(getattr(x, "type", None)) for x in n.inputs)


def renders(n: ir.Node) -> bool:
    """Whether the C renderer has code for node `n` with complex values."""
    op = n.op
    if not isinstance(op, OpDef):
        return True                 # If / For / While / GetItem / Fused / Call: their nodes are checked
    low = op.lower
    if isinstance(low, L.Elementwise):
        return renders_complex(op)
    if isinstance(low, L.Template):
        if low.moves_data:
            return True
        rule = low.rule or n.attrs.get("rule", "") or n.attrs.get("mode", "")
        return (low.name, rule) in _SUM_TEMPLATES
    if isinstance(low, L.Blas):
        return op.kind is Kind.MATMUL      # MatMul / BatchMatMul: the product's plain loop (kernels.gemm)
    return isinstance(low, (L.View, L.Copy, L.Ordering, L.Constant, L.EffectCode))


def check_complex(graph: ir.Graph) -> None:
    """Raise CompileError at the user's line for the first node that uses complex values the C
    renderer has no code for."""
    graphs = [graph] + ir.subgraphs(graph)
    for g in graphs:
        for n in ir.iter_nodes(g.body):
            if _node_complex(n) and not renders(n):
                dtype = next((t.dtype for t in [n.type] + [getattr(x, "type", None) for x in n.inputs]
                              if isinstance(t, TensorType) and t.dtype.kind == "c"), "complex")
                raise CompileError(
                    f"'{n.op.name}' on {dtype} tensors cannot be compiled yet: graph mode renders complex "
                    "values only in data movement (reshape, transpose, slice, concat, gather, pad ...), "
                    "elementwise arithmetic (+ - * /, exp, log, sqrt, sin, cos, tanh, pow ...), casts, sums and "
                    "matrix products",
                    n.loc or g.loc,
                    hint="run this op in PyNative mode (set_context(mode=PYNATIVE_MODE)), or outside the "
                         "jit-compiled function")
