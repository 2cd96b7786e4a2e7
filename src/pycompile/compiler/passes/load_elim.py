"""Where loads of Parameters need a real copy (TensorMove), by MS_DEV_SIDE_EFFECT_LOAD_ELIM.

A `Load` aliases the Parameter's buffer. If an `Assign` to that Parameter runs while the loaded
value is still to be read, the reader would see the new value. Levels (the spec's meaning):
  0  every Load gets a TensorMove (most memory, always right);
  1  (default) conservative: a Load of a Parameter the graph assigns gets one unless every reader
     of the loaded value is an ancestor of the next Assign to that Parameter (through data and
     memory-state edges), so no schedule can run a reader after the Assign. In the spec's
     ForwardNet each `x * w` reader is not ordered before the next Assign, and a Load after an
     Assign is a snapshot of that moment: every Load is copied, as the spec's IR shows; in a
     training step the optimizer's Assigns depend on every gradient, so the forward and
     backward readers of the weights need no copy;
  2  as few as possible: no copy when every reader of the load can run before the next Assign
     to that Parameter - those readers are then made inputs of that Assign's memory state
     (UpdateState), which fixes the order; otherwise a copy;
  3  no copies (least memory; a reader scheduled after an Assign sees the new value).
"""
from __future__ import annotations

from pycompile.common.abstract import U_TYPE, TensorType
from pycompile.compiler import ir
from pycompile.compiler.passes._rewrite import Rewriter
from pycompile.ops import prims as P


def _assigned_refs(block: ir.Block) -> set:
    return {id(n.inputs[0]) for n in ir.iter_nodes(block) if ir.is_op(n, P.Assign)}


_VIEWS = (P.Reshape, P.Depend)


def _writes(m: ir.Node, ref) -> bool:
    """`m` assigns `ref`: an Assign, or a loop or branch with an Assign to it inside (issue 31: a
    Load before a tensor loop that assigns the Parameter, read again by the gradient after the
    loop, must be a copy)."""
    if ir.is_op(m, P.Assign):
        return m.inputs[0] is ref
    return any(ir.is_op(x, P.Assign) and x.inputs[0] is ref for b in m.blocks for x in ir.iter_nodes(b))


class _LoadCopies(Rewriter):
    """Levels 0 and 1: a TensorMove after each selected Load; the UpdateState that follows the
    Load takes the copy instead, as MindSpore's IR shows."""

    def __init__(self, select):
        super().__init__()
        self.select = select

    def visit(self, n, inputs, blocks):
        if ir.is_op(n, P.Load) and self.select(n):
            load = self.emit(self.rebuild(n, inputs, blocks))
            mv = self.emit(ir.Node(op=P.TensorMove, inputs=(load,), type=n.type, loc=n.loc))
            self.moved[id(n)] = mv
            return mv
        if ir.is_op(n, P.UpdateState) and len(inputs) == 2 and id(n.inputs[1]) in self.moved:
            # UpdateState(U, Load) orders the load itself, then the copy stands for it
            load_copy = self.moved[id(n.inputs[1])]
            return self.emit(ir.Node(op=n.op, inputs=(inputs[0], load_copy), type=n.type, loc=n.loc))
        return super().visit(n, inputs, blocks)

    def run(self, g):
        self.moved = {}
        return super().run(g)


def _nested_copies(nodes, assigned: set, need_copy: set) -> None:
    """Loads inside nested blocks of a loop that assigns the same Parameter, or of an If branch
    when the Parameter is assigned anywhere (the branch result outlives later Assigns): copy
    conservatively."""
    for n in nodes:
        if n.op in (ir.FOR, ir.WHILE, ir.IF):
            inner_assigned = assigned if n.op is ir.IF else set().union(*[_assigned_refs(b) for b in n.blocks])
            for b in n.blocks:
                for m in ir.iter_nodes(b):
                    if ir.is_op(m, P.Load) and id(m.inputs[0]) in inner_assigned:
                        need_copy.add(id(m))


def _dependencies(n: ir.Node):
    """What n depends on: its inputs and, for a structural node, every value its blocks read."""
    yield from n.inputs
    for b in n.blocks:
        for m in ir.iter_nodes(b):
            yield from m.inputs
        yield from b.results


def _ancestors(start: ir.Node, members: set) -> set:
    seen, stack = set(), [start]
    while stack:
        v = stack.pop()
        for d in _dependencies(v):
            if id(d) in members and id(d) not in seen:
                seen.add(id(d))
                stack.append(d)
    return seen


def _copies_by_ancestry(block: ir.Block, assigned: set) -> set:
    """Level 1: the Loads that need a copy (see the module docstring)."""
    nodes = list(block.nodes)
    members = {id(n) for n in nodes}
    need_copy: set = set()
    cache: dict = {}
    for i, n in enumerate(nodes):
        if not ir.is_op(n, P.Load) or id(n.inputs[0]) not in assigned:
            continue
        ref = n.inputs[0]
        nxt = next((m for m in nodes[i + 1:] if _writes(m, ref)), None)
        readers = _readers(nodes, n, block.results)
        if any(r is None for r in readers):          # used by a result or a nested block
            need_copy.add(id(n))
            continue
        if nxt is None:
            # a Load after an Assign snapshots the value of that point in time (the spec's IR
            # copies it even with no Assign after it)
            if any(ir.is_op(m, P.Assign) and m.inputs[0] is ref for m in nodes[:i]):
                need_copy.add(id(n))
            continue
        if id(nxt) not in cache:
            cache[id(nxt)] = _ancestors(nxt, members)
        if not all(id(r) in cache[id(nxt)] for r in readers):
            need_copy.add(id(n))
    _nested_copies(nodes, assigned, need_copy)
    return need_copy


def _reorder_block(block: ir.Block, assigned: set) -> tuple[ir.Block, set]:
    """Level 2 within one block: returns the block with ordering edges added, and the ids of
    Loads that still need a copy."""
    nodes = list(block.nodes)
    pos = {id(n): i for i, n in enumerate(nodes)}
    need_copy: set = set()
    extra: dict = {}          # id(assign) -> readers to order before it
    for i, n in enumerate(nodes):
        if not ir.is_op(n, P.Load) or id(n.inputs[0]) not in assigned:
            continue
        ref = n.inputs[0]
        nxt = next((m for m in nodes[i + 1:] if _writes(m, ref)), None)
        readers = _readers(nodes, n, block.results)
        if any(r is None for r in readers):          # used by a result or a nested block
            need_copy.add(id(n))
            continue
        if nxt is None:
            continue
        if nxt.blocks:      # a loop or branch that assigns it: no UpdateState to order readers by
            need_copy.add(id(n))
        elif all(pos[id(r)] < pos[id(nxt)] for r in readers):
            extra.setdefault(id(nxt), []).extend(readers)
        else:
            need_copy.add(id(n))
    _nested_copies(nodes, assigned, need_copy)
    if not extra:
        return block, need_copy
    rw = Rewriter()
    rw._out.append([])
    for n in nodes:
        ins = tuple(rw.get(i) for i in n.inputs)
        if id(n) in extra:
            state = rw.emit(ir.Node(op=P.UpdateState, inputs=(ins[2], *[rw.get(r) for r in extra[id(n)]]),
                                    type=U_TYPE, loc=n.loc))
            ins = (ins[0], ins[1], state)
        rw.map[n] = rw.emit(rw.rebuild(n, ins, n.blocks))
    out = rw._out.pop()
    need_new = {id(rw.map.get(n, n)) for n in nodes if id(n) in need_copy}
    need_new |= {i for i in need_copy if i not in pos}      # loads in nested blocks are not rebuilt here
    return ir.Block(block.params, tuple(out), tuple(rw.get(r) for r in block.results)), need_new


def _readers(nodes, load, results=()):
    """Nodes of this block that read the loaded buffer (through views); None for a use this
    block cannot order (a block result or a nested block)."""
    out, frontier = [], [load]
    seen = {id(load)}
    while frontier:
        v = frontier.pop()
        if any(r is v for r in results):
            out.append(None)
        for m in nodes:
            if any(i is v for i in m.inputs):
                if ir.is_op(m, P.UpdateState):
                    continue
                if m.op in _VIEWS:
                    if id(m) not in seen:
                        seen.add(id(m))
                        frontier.append(m)
                    continue
                if m.blocks:
                    out.append(None)
                    continue
                out.append(m)
            elif any(any(i is v for i in x.inputs) for b in m.blocks for x in ir.iter_nodes(b)):
                out.append(None)
    return out


def load_elim(graph: ir.Graph, level: int = 1) -> ir.Graph:
    assigned = _assigned_refs(graph.body)
    if level == 3:
        return graph
    if level == 0:
        return _LoadCopies(lambda n: isinstance(n.type, TensorType)).run(graph)
    if not assigned:
        return graph
    if level == 1:
        need = _copies_by_ancestry(graph.body, assigned)
        return _LoadCopies(lambda n: id(n) in need).run(graph)
    body, need = _reorder_block(graph.body, assigned)
    g2 = ir.Graph(graph.name, graph.params, body, graph.out_tree, graph.loc)
    return _LoadCopies(lambda n: id(n) in need).run(g2)
