"""Optimize the shared subgraphs a graph calls (lazy_inline): each distinct subgraph runs the
whole pipeline once, however many Call nodes use it; the Calls are rebuilt to point at the
optimized version. This is where lazy_inline saves compile time: L calls, one optimization."""
from __future__ import annotations

from pycompile.compiler import ir
from pycompile.compiler.passes._rewrite import Rewriter


class _Subgraphs(Rewriter):
    def __init__(self, optimize):
        super().__init__()
        self.optimize = optimize
        self.done: dict = {}

    def visit(self, n, inputs, blocks):
        if n.op is ir.CALL:
            g = n.attrs["graph"]
            new = self.done.get(id(g))
            if new is None:
                new = self.done[id(g)] = self.optimize(g)
            if new is not g or inputs != n.inputs:
                return self.emit(ir.Node(op=ir.CALL, inputs=inputs, type=n.type, attrs=dict(n.attrs, graph=new),
                                         loc=n.loc))
        return super().visit(n, inputs, blocks)


def optimize_subgraphs(graph: ir.Graph, optimize) -> ir.Graph:
    return _Subgraphs(optimize).run(graph)
