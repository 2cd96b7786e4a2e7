"""Run each Parameter's optimizer update as soon as its gradient bucket is reduced (issue 37).

After comm_schedule, a data-parallel step reads: the backward with the buckets' all-reduces
started along it, then the waits, then the optimizer. The optimizer updates its Parameters in
their traced order - the first layer first - and the step counter's increment depends on every
reduced gradient, so every wait, the last bucket's included (the first layer's weight gradient,
which the backward's last kernel produces), came before the first update: nothing overlapped the
last reduction. This pass reorders the part of the top-level block from the first AllReduceWait
on (the tail: the reducer's waits and slices, the optimizer) so that the waits come in the order
the buckets were started, each followed by the updates that need no later bucket; the reduction
of the later buckets - the last one above all - then runs while the earlier buckets' Parameters
are updated (generated code calls the MPI progress between those kernels, as along the
backward).

The memory-state chain of the tail (Load / Assign of Parameters, UpdateState) is rebuilt in the
new order. Two effects keep their traced order when they touch one Parameter and one of them
writes it; an Assign of a Parameter also stays after every node of the tail that was before it
and reads a Load of that Parameter (the old content, which an in-place update overwrites). So
each Parameter's value and state see the same operations in the same order: the results are
the traced order's bit for bit. A tail with any other effect (a Print, a control-flow node, a
collective other than the waits, a random op) is left as it is.
"""
from __future__ import annotations

import heapq

from pycompile.common.abstract import MonadType, RefType
from pycompile.compiler import ir
from pycompile.compiler.passes.comm_schedule import _deps, _pure
from pycompile.ops import prims as P


def _is_state(v) -> bool:
    return isinstance(getattr(v, "type", None), MonadType)


def _views(n) -> bool:
    """n's result is the memory of its first input (a reshape, a Depend ...)."""
    lower = getattr(n.op, "lower", None)
    return lower is not None and lower.aliases_input and bool(n.inputs)


def _chain(tail: list, head_ids: set):
    """The tail's memory-state chain as steps [(update_state node, effect node or None)], or None
    when the tail is not a single chain of Parameter Loads / Assigns and attached values."""
    steps, prev = [], None
    for n in tail:
        if n.op is not P.UpdateState:
            continue
        state, x = n.inputs
        if prev is None:
            if not (state is ir.U or id(state) in head_ids):
                return None
        elif state is not prev:
            return None
        effect = None
        if isinstance(x, ir.Node) and x.op in (P.Load, P.Assign) and x.inputs and x.inputs[-1] is state:
            if not (isinstance(x.inputs[0], ir.Param) and isinstance(x.inputs[0].type, RefType)):
                return None
            effect = x
        elif _is_state(x):
            return None
        steps.append((n, effect))
        prev = n
    return steps


def _overlap(block: ir.Block) -> ir.Block:
    nodes = list(block.nodes)
    first = next((k for k, n in enumerate(nodes) if n.op is P.AllReduceWait), None)
    if first is None:
        return block
    head, tail = nodes[:first], nodes[first:]
    head_ids = {id(n) for n in head}
    steps = _chain(tail, head_ids)
    if not steps:
        return block
    step_of = {}                          # id(UpdateState or its effect node) -> step index
    for k, (us, effect) in enumerate(steps):
        step_of[id(us)] = k
        if effect is not None:
            if id(effect) in step_of:
                return block
            step_of[id(effect)] = k
    last_state = steps[-1][0]
    tail_ids = {id(n) for n in tail}
    # the units of the schedule: each data node, and each step (its effect node with its
    # UpdateState, at the first of the two)
    unit_of, units = {}, []               # id(node) -> unit index; units: ("node", n) / ("step", k)
    step_unit = {}
    finals = []                           # nodes that read the final state: after every step
    for n in tail:
        if id(n) in step_of:
            k = step_of[id(n)]
            if k not in step_unit:
                step_unit[k] = len(units)
                units.append(("step", k))
            unit_of[id(n)] = step_unit[k]
            continue
        if n.blocks and n.op is not ir.FUSED:
            return block                  # control flow in the tail: left alone
        if n.op in (P.Load, P.Assign, P.UpdateState) or any(_is_state(i) and i is not last_state for i in n.inputs):
            return block                  # an effect outside the chain
        if any(i is last_state for i in n.inputs):
            if n.op not in (P.Depend, P.MakeTuple):
                return block
            finals.append(n)
            continue
        if not (_pure(n) or n.op in (P.Depend, P.MakeTuple, P.AllReduceWait)):
            return block                  # another effect (a collective, a random op ...): left alone
        unit_of[id(n)] = len(units)
        units.append(("node", n))
    dep_ids = {id(n): _deps(n) for n in tail}
    final_ids = {id(n) for n in finals}
    if any(dep_ids[id(n)] & final_ids for n in tail if id(n) not in final_ids):
        return block
    if any(id(r) in tail_ids and id(r) not in unit_of and id(r) not in final_ids for r in block.results):
        return block

    def node_deps(n):
        """units n reads (data), by id of the node read."""
        return {unit_of[d] for d in dep_ids[id(n)] if d in unit_of}

    deps = [set() for _ in units]
    for u, (kind, x) in enumerate(units):
        if kind == "node":
            deps[u] = node_deps(x)
        else:
            us, effect = steps[x]
            if effect is not None:
                deps[u] = {unit_of[id(i)] for i in effect.inputs[1:-1] if id(i) in unit_of}
            else:
                deps[u] = {unit_of[id(us.inputs[1])]} if id(us.inputs[1]) in unit_of else set()
            deps[u].discard(u)
    # the values that are a Parameter's memory: its Loads and Assigns, and views of them
    alias_of: dict = {}                   # id(value) -> id(Parameter)
    for n in head + tail:
        if n.op in (P.Load, P.Assign) and isinstance(n.inputs[0], ir.Param):
            alias_of[id(n)] = id(n.inputs[0])
        elif _views(n) and id(n.inputs[0]) in alias_of:
            alias_of[id(n)] = alias_of[id(n.inputs[0])]

    def reads(n) -> set:
        return {alias_of[d] for d in dep_ids[id(n)] if d in alias_of}

    # effects on one Parameter keep their order when one of them writes it (an attached value
    # that is a Parameter's memory reads it)
    last_write, reads_since = {}, {}
    for k, (us, effect) in enumerate(steps):
        u = step_unit[k]
        if effect is None:
            r, w = ({alias_of[id(us.inputs[1])]} if id(us.inputs[1]) in alias_of else set()), set()
        elif effect.op is P.Load:
            r, w = {id(effect.inputs[0])}, set()
        else:
            r, w = reads(effect) - {id(effect.inputs[0])}, {id(effect.inputs[0])}
        for ref in r | w:
            if ref in last_write:
                deps[u].add(last_write[ref])
        for ref in w:
            deps[u].update(reads_since.pop(ref, ()))
            last_write[ref] = u
        for ref in r:
            reads_since.setdefault(ref, []).append(u)
    # an Assign after every node of the tail traced before it that reads the Parameter's old
    # content (a Load of it, or a view): the update may overwrite it in place
    readers: dict = {}                    # id(Parameter) -> the data units reading its memory, in order
    for v, (kind, x) in enumerate(units):
        if kind == "node":
            for ref in reads(x):
                readers.setdefault(ref, []).append(v)
    for k, (us, effect) in enumerate(steps):
        if effect is None or effect.op is not P.Assign:
            continue
        u, ref = step_unit[k], id(effect.inputs[0])
        deps[u].update(v for v in readers.get(ref, ()) if v < u)
    # priority: the latest bucket (in start order) a unit waits for, then the traced order
    starts = [n for n in nodes if n.op is P.AllReduceStart]
    start_index = {id(s): k for k, s in enumerate(starts)}
    key = []
    for u, (kind, x) in enumerate(units):
        own = start_index.get(id(x.inputs[0]), -1) if kind == "node" and x.op is P.AllReduceWait else -1
        key.append(max([own] + [key[d] for d in deps[u] if d < u]))
        if any(d >= u for d in deps[u]):
            return block                  # (a unit reads a later one: not a traced order)
    users = [[] for _ in units]
    missing = [len(d) for d in deps]
    for u, d in enumerate(deps):
        for v in d:
            users[v].append(u)
    ready = [(key[u], u) for u in range(len(units)) if not missing[u]]
    heapq.heapify(ready)
    order = []
    while ready:
        _, u = heapq.heappop(ready)
        order.append(u)
        for w in users[u]:
            missing[w] -= 1
            if not missing[w]:
                heapq.heappush(ready, (key[w], w))
    if len(order) != len(units):
        return block
    if order == sorted(order):
        return block
    # rebuild: the chain in the new order, every node over the new values
    new: dict = {}

    def get(v):
        return new.get(id(v), v)

    def rebuild(n, inputs):
        if all(a is b for a, b in zip(inputs, n.inputs)):
            return n
        return ir.Node(op=n.op, inputs=tuple(inputs), type=n.type, attrs=n.attrs, blocks=n.blocks, loc=n.loc)

    out = list(head)
    state = steps[0][0].inputs[0]
    for u in order:
        kind, x = units[u]
        if kind == "node":
            m = rebuild(x, [get(i) for i in x.inputs])
            new[id(x)] = m
            out.append(m)
            continue
        us, effect = steps[x]
        if effect is not None:
            e = rebuild(effect, [get(i) for i in effect.inputs[:-1]] + [state])
            new[id(effect)] = e
            out.append(e)
        s = rebuild(us, [state, get(us.inputs[1])])
        new[id(us)] = s
        out.append(s)
        state = s
    new[id(last_state)] = state           # (the readers of the final state read the new final one)
    for n in finals:
        m = rebuild(n, [get(i) for i in n.inputs])
        new[id(n)] = m
        out.append(m)
    assert len(out) == len(nodes)
    return ir.Block(block.params, tuple(out), tuple(get(r) for r in block.results))


def update_schedule(graph: ir.Graph) -> ir.Graph:
    """The graph with its top-level block's optimizer updates interleaved with the waits of the
    gradient all-reduces (module docstring); unchanged without a started all-reduce."""
    body = _overlap(graph.body)
    if body is graph.body:
        return graph
    return ir.Graph(graph.name, graph.params, body, graph.out_tree, graph.loc)
