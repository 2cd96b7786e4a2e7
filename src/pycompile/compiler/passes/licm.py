"""Loop-invariant code motion: a pure node in a `For` / `While` body whose inputs are all
defined outside the loop moves in front of the loop (repeatedly, so chains of invariants move
together, and inner loops' invariants can climb several levels).

`For` loops always run at least once here (empty ranges never become loops), so hoisting
cannot evaluate something the program would not. `While` bodies may run zero times: only
cheap elementwise and layout work that cannot fail (the row's `speculatable`: not Gather, which
could index out of range) moves out of them.
"""
from __future__ import annotations

from pycompile.compiler import ir
from pycompile.compiler.passes._rewrite import Rewriter
from pycompile.ops._table import Effect, Kind, OpDef


def _movable(n: ir.Node, in_while: bool) -> bool:
    op = n.op
    if not isinstance(op, OpDef) or n.blocks or op.effect is not Effect.PURE or not op.movable:
        return False
    if in_while and (op.kind not in (Kind.ELEMENTWISE, Kind.LAYOUT) or not op.speculatable):
        return False
    return True


def _hoist(block: ir.Block, in_while: bool) -> tuple[list, ir.Block]:
    """(nodes that can run before the loop, the block without them)."""
    inside = {id(p) for p in block.params}
    hoisted, kept = [], []
    for n in block.nodes:
        if _movable(n, in_while) and not any(id(i) in inside for i in n.inputs):
            hoisted.append(n)
        else:
            kept.append(n)
            inside.add(id(n))
            for b in n.blocks:
                for m in ir.iter_nodes(b):
                    inside.add(id(m))
    if not hoisted:
        return [], block
    return hoisted, ir.Block(block.params, tuple(kept), block.results)


class LICM(Rewriter):
    def visit(self, n, inputs, blocks):
        if n.op in (ir.FOR, ir.WHILE):
            # a While, and a For whose trip count is only known at run time (a backward loop),
            # may run zero times: only what cannot fail moves out of them
            in_while = n.op is ir.WHILE or n.attrs.get("zero_trip", False)
            new_blocks = []
            for b in blocks:
                hoisted, b2 = _hoist(b, in_while)
                for h in hoisted:
                    self.emit(h)
                new_blocks.append(b2)
            return self.emit(self.rebuild(n, inputs, tuple(new_blocks)))
        return super().visit(n, inputs, blocks)


def licm(graph: ir.Graph) -> ir.Graph:
    # one run hoists a node out of one loop level; repeat for nests
    for _ in range(4):
        g2 = LICM().run(graph)
        if g2 is graph:
            break
        graph = g2
    return graph
