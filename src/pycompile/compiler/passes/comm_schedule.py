"""Schedule non-blocking all-reduces so that communication overlaps the backward (issue 21).

nn.DistributedGradReducer runs after the whole backward in the traced order: it packs every
gradient bucket, starts its all-reduce (AllReduceStart) and then waits for each (AllReduceWait)
before the optimizer. Left there, the reductions would only start once the backward is over.
This pass, the last of the pipeline, reorders the top-level block (the order of a block is the
schedule codegen emits):

* each AllReduceStart moves up, with the nodes that exist only to feed it (the bucket's
  reshapes and concat, a cast, a gradient kernel nothing else reads), to just after the last
  node it depends on: the last layer's bucket starts as soon as the backward produced it;
* each AllReduceWait moves down to just before the first node that reads it.

Only the order changes: every node keeps its inputs, so the values computed are the same. The
moved nodes are pure (no memory state, no Parameter, no effect), so no effect is reordered; the
starts keep their relative order, which every rank computes alike from the same graph, so the
ranks start their collectives in the same order, as MPI requires. The memory planner's liveness
follows the new order: a bucket's buffer and its reduction's result stay allocated from the
start to the wait (the wait reads both).
"""
from __future__ import annotations

from pycompile.common.abstract import MonadType, RefType
from pycompile.compiler import ir
from pycompile.ops import prims as P
from pycompile.ops._table import Effect, Kind, OpDef


def _free_uses(block: ir.Block, out: set) -> None:
    """ids of every value a nested block reads (its own definitions included: harmless)."""
    for n in block.nodes:
        out.update(id(i) for i in n.inputs)
        for b in n.blocks:
            _free_uses(b, out)
    out.update(id(r) for r in block.results)


def _deps(n: ir.Node) -> set:
    ids = {id(i) for i in n.inputs}
    for b in n.blocks:
        _free_uses(b, ids)
    return ids


def _pure(n: ir.Node) -> bool:
    """n may run earlier than traced: no effect, no memory state, no Parameter read."""
    if any(isinstance(i.type, (MonadType, RefType)) for i in n.inputs):
        return False
    if n.op is ir.FUSED or n.op is ir.GETITEM:
        return True
    return isinstance(n.op, OpDef) and n.op.effect is Effect.PURE and n.op.kind is not Kind.EFFECT


def schedule_block(block: ir.Block) -> ir.Block:
    nodes = list(block.nodes)
    if not any(n.op is P.AllReduceStart for n in nodes):
        return block
    top = {id(n) for n in nodes}
    deps = {id(n): _deps(n) & top for n in nodes}
    users: dict = {}
    for n in nodes:
        for d in deps[id(n)]:
            users.setdefault(d, []).append(n)
    results = {id(r) for r in block.results}
    # the nodes that exist only to feed a start: walk backwards, users before producers (a wait
    # reads the bucket too, to keep it alive; it comes after its start anyway)
    early: dict = {}                                       # id -> index of the start it feeds
    for n in reversed(nodes):
        if n.op is P.AllReduceStart:
            early[id(n)] = len(nodes) - len(early)
        elif (_pure(n) and id(n) not in results and users.get(id(n))
              and all(id(u) in early or u.op is P.AllReduceWait for u in users[id(n)])):
            early[id(n)] = min(early[id(u)] for u in users[id(n)] if id(u) in early)
    out, done = [], set()
    # by start (the first traced first), then traced order: a bucket that is ready goes out whole
    # before the nodes of a later bucket (the first layer's weight gradient) are computed
    pending = sorted((n for n in nodes if id(n) in early), key=lambda n: early[id(n)])
    waits: dict = {}                                       # id -> wait node not emitted yet

    def place(n):
        for d in deps[id(n)]:
            w = waits.pop(d, None)
            if w is not None:
                place(w)
        out.append(n)
        done.add(id(n))

    def drain():
        progress = True
        while progress:
            progress = False
            for n in pending:
                if id(n) not in done and deps[id(n)] <= done:
                    place(n)
                    progress = True
                    break
        pending[:] = [n for n in pending if id(n) not in done]

    drain()
    for n in nodes:
        if id(n) in done:
            continue
        if id(n) in early:
            continue                                       # placed by drain once ready
        if n.op is P.AllReduceWait:
            waits[id(n)] = n
            continue
        place(n)
        drain()
    for n in pending:                                      # (every dependency is placed by now)
        if id(n) not in done:
            place(n)
    for w in list(waits.values()):
        if id(w) not in done:
            place(w)
    assert len(out) == len(nodes)
    return ir.Block(block.params, tuple(out), block.results)


def comm_schedule(graph: ir.Graph) -> ir.Graph:
    body = schedule_block(graph.body)
    if body is graph.body:
        return graph
    return ir.Graph(graph.name, graph.params, body, graph.out_tree, graph.loc)
