"""Dead-code elimination: drop nodes nothing uses. Effects stay alive because every effect
feeds the memory-state chain (UpdateState) that ends in the graph's results; the float-status
ops are kept only through Depend, as on MindSpore."""
from __future__ import annotations

from pycompile.compiler import ir
from pycompile.compiler.passes._rewrite import Rewriter


def live_set(block: ir.Block, live: set | None = None) -> set:
    """ids of values reachable from the block's results (nested blocks included)."""
    live = set() if live is None else live
    for r in block.results:
        live.add(id(r))
    for n in reversed(block.nodes):
        if id(n) not in live:
            continue
        for i in n.inputs:
            live.add(id(i))
        for b in n.blocks:
            live_set(b, live)
    return live


class DCE(Rewriter):
    def __init__(self, live: set):
        super().__init__()
        self.live = live

    def visit(self, n, inputs, blocks):
        if id(n) not in self.live:
            return n
        return self.emit(self.rebuild(n, inputs, blocks))


def dce(graph: ir.Graph) -> ir.Graph:
    return DCE(live_set(graph.body)).run(graph)
