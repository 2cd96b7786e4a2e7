"""The one way passes change a graph: rebuild it block by block, mapping old values to new.

Nodes are immutable; a pass subclasses `Rewriter` and overrides `visit`, which receives a node
with its inputs and nested blocks already rewritten and returns the value that replaces it
(the node itself, a new node it `emit`s, or any existing value).
"""
from __future__ import annotations

from pycompile.compiler import ir


class Rewriter:
    def __init__(self):
        self.map: dict = {}
        self._out: list[list] = []

    def get(self, v):
        if isinstance(v, tuple):
            return tuple(self.get(x) for x in v)
        m = self.map
        while True:
            w = m.get(v, v)
            if w is v:
                return v
            v = w

    def emit(self, node: ir.Node) -> ir.Node:
        self._out[-1].append(node)
        return node

    def rebuild(self, n: ir.Node, inputs, blocks) -> ir.Node:
        """n itself if nothing changed, else an equal node over the new inputs / blocks."""
        if inputs == n.inputs and all(a is b for a, b in zip(blocks, n.blocks)):
            return n
        return ir.Node(op=n.op, inputs=inputs, type=n.type, attrs=n.attrs, blocks=blocks, loc=n.loc)

    def visit(self, n: ir.Node, inputs: tuple, blocks: tuple) -> ir.Value:
        return self.emit(self.rebuild(n, inputs, blocks))

    def block(self, b: ir.Block) -> ir.Block:
        self._out.append([])
        self.enter_block(b)
        for n in b.nodes:
            inputs = tuple(self.get(i) for i in n.inputs)
            blocks = tuple(self.block(x) for x in n.blocks)
            self.map[n] = self.visit(n, inputs, blocks)
        nodes = self._out.pop()
        results = tuple(self.get(r) for r in b.results)
        self.leave_block(b)
        if len(nodes) == len(b.nodes) and all(x is y for x, y in zip(nodes, b.nodes)) and \
                all(x is y for x, y in zip(results, b.results)):
            return b
        return ir.Block(b.params, tuple(nodes), results)

    def enter_block(self, b: ir.Block) -> None:
        pass

    def leave_block(self, b: ir.Block) -> None:
        pass

    def run(self, g: ir.Graph) -> ir.Graph:
        body = self.block(g.body)
        if body is g.body:
            return g
        return ir.Graph(g.name, g.params, body, g.out_tree, g.loc)


def uses(block: ir.Block) -> dict:
    """id(value) -> number of uses within the block tree (inputs and results)."""
    counts: dict = {}

    def walk(b):
        for n in b.nodes:
            for i in n.inputs:
                counts[id(i)] = counts.get(id(i), 0) + 1
            for x in n.blocks:
                walk(x)
        for r in b.results:
            counts[id(r)] = counts.get(id(r), 0) + 1
    walk(block)
    return counts
