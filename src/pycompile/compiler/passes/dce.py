"""Dead-code elimination: drop nodes nothing uses. Effects stay alive because every effect
feeds the memory-state chain (UpdateState) that ends in the graph's results; the float-status
ops are kept only through Depend, as on MindSpore.

One effect is dead nonetheless: a push into a stack nothing reads. A differentiated loop saves
every value it carries (compiler/autodiff.py), but its backward reads back only those its
gradient rules need (an RNN's output sequence, carried and row-updated every step, is not one
of them: pushing it copied the whole (S, B, H) tensor at every step). Once the backward's
unused reads are gone, the pushes into stacks without a StackGet or StackLen are dropped."""
from __future__ import annotations

from pycompile.compiler import ir
from pycompile.compiler.passes._rewrite import Rewriter
from pycompile.ops import prims as P


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


def read_stacks(block: ir.Block, live: set, out: set | None = None) -> set:
    """ids of the stacks a live StackGet or StackLen reads."""
    out = set() if out is None else out
    for n in block.nodes:
        if n.op in (P.StackGet, P.StackLen) and id(n) in live:
            out.add(id(n.inputs[0]))
        for b in n.blocks:
            read_stacks(b, live, out)
    return out


class DCE(Rewriter):
    def __init__(self, live: set, read: set):
        super().__init__()
        self.live, self.read = live, read

    def visit(self, n, inputs, blocks):
        if id(n) not in self.live:
            return n
        if n.op is P.StackPush and id(n.inputs[0]) not in self.read:
            return inputs[2]            # the push's memory state is its input's
        return self.emit(self.rebuild(n, inputs, blocks))


def dce(graph: ir.Graph) -> ir.Graph:
    live = live_set(graph.body)
    return DCE(live, read_stacks(graph.body, live)).run(graph)
