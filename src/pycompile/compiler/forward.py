"""Forward-mode autodiff of graph code (`ops.jvp` called in @jit / GRAPH_MODE code), as a
transformation of the typed IR being built.

The function is traced inline, like any call, into a segment of the current block. Its nodes
are then walked in order, and each op's tangent is computed from its inputs' tangents by the
op's forward rule (`ops.autodiff.forward.tangent`: the same rules PyNative's forward mode
runs), emitted after the segment as ordinary IR. The tangents are one more forward pass over
the primal values the segment already computed: nothing is saved, nothing runs in reverse, and
the passes fuse the tangent arithmetic with the forward's. A Hessian-vector product
`jvp(grad(f))` is this transformation over the segment `grad` produced: one compiled call.

- an `If` gets a second `If` on the same condition whose branches recompute the branch (pure
  nodes only, as the reverse mode's backward does) and push their tangents through it;
- a `For` / `While` or a lazy_inline `Call` in the segment is not transformed here: the segment
  is dropped and the jvp is taken by the transpose trick instead (a gradient of a gradient,
  `jvp_by_transpose`), which differentiates loops.

Only the arguments are differentiated; Parameters read by the function carry no tangent.
"""
from __future__ import annotations

from pycompile.common.abstract import U_TYPE, TensorType, TupleType
from pycompile.common.parameter import Parameter
from pycompile.compiler import ir
from pycompile.compiler.builder import Sym
from pycompile.compiler.replay import Replay, _zeros_like
from pycompile.ops import functional as F
from pycompile.ops import prims as P
from pycompile.ops._table import Effect, OpDef
from pycompile.ops.autodiff.forward import tangent


class _Session:
    """What Replay reads of a differentiation (nothing is saved in forward mode)."""

    def __init__(self):
        self.stacks, self.saved, self.stand_in, self.backward = {}, {}, {}, {}
        self.keep, self.assigned, self.load_saved, self.load_ref, self.saved_loads = set(), set(), {}, {}, {}


def forward_differentiate(interp, fn, inputs: tuple, tangents: tuple):
    """(fn(*inputs), its tangent for the inputs' `tangents`) in graph code."""
    b = interp.builder
    u_start = b.u
    args, tans, seen = [], {}, set()
    for x, t in zip(inputs, tangents):
        if isinstance(getattr(x, "_abstract", None), TensorType) and not isinstance(x, Parameter):
            v = b.value(x)
            if id(v) in seen:         # the same value twice: two differentiated inputs
                v = b.add(P.TensorMove, (v,), v.type)
            seen.add(id(v))
            args.append(Sym(v, b))
            if v.type.dtype.is_float:
                tans[id(v)] = b.value(F.cast(t, v.type.dtype))
        else:
            args.append(x)
    start = len(b.nodes)
    out = interp.call_value(fn, args, {})
    segment = b.nodes[start:]
    if not _transformable(segment):
        del b.nodes[start:]
        b.u = u_start
        from pycompile.ops.autodiff.transforms import jvp_by_transpose
        return jvp_by_transpose(fn, inputs, tangents)
    Forward(b, tans).run(segment)
    return out, _tangent_tree(out, tans, b)


def _transformable(segment) -> bool:
    """Whether the loops of `segment` can be recomputed after it: not when the segment writes
    Parameters (a recomputed Load would see the last write) or holds the stacks of a reverse
    mode's loops (freed by the end of the segment); never through a lazy_inline Call."""
    nodes = [m for top in segment for m in [top, *(x for blk in top.blocks for x in ir.iter_nodes(blk))]]
    if any(m.op is ir.CALL or m.op is P.StackNew for m in nodes):
        return False
    loops = any(m.op in (ir.FOR, ir.WHILE) for m in nodes)
    return not loops or not any(isinstance(m.op, OpDef) and m.op.effect is Effect.MEM for m in nodes)


def _tangent_tree(v, tans, b):
    if isinstance(v, tuple):
        return tuple(_tangent_tree(x, tans, b) for x in v)
    if isinstance(v, list):
        return [_tangent_tree(x, tans, b) for x in v]
    if isinstance(v, Sym) and isinstance(v._value.type, TensorType):
        t = tans.get(id(v._value))
        return Sym(t, b) if t is not None else _zeros_like(v._value, b)
    if isinstance(getattr(v, "_abstract", None), TensorType):
        return F.zeros_like(v)
    return v


class Forward:
    """Tangents of a list of nodes, walked in order: `tans` maps id(value) -> its tangent (an IR
    value); tangent nodes go to the builder's current block."""

    def __init__(self, b, tans: dict):
        self.b, self.tans = b, tans
        self.tuples: dict = {}      # id(multi-output node) -> [tangent or None per component]

    def get(self, v):
        t = self.tans.get(id(v))
        return Sym(t, self.b) if t is not None else None

    def run(self, nodes) -> None:
        for n in nodes:
            if n.op is ir.GETITEM:
                ts = self.tuples.get(id(n.inputs[0]))
                if ts is not None and ts[n.attrs["index"]] is not None:
                    self.tans[id(n)] = ts[n.attrs["index"]]
            elif n.op is ir.IF:
                self.forward_if(n)
            elif n.op in (ir.FOR, ir.WHILE):
                self.forward_loop(n)
            elif isinstance(n.op, OpDef):
                self.forward_op(n)

    def forward_op(self, n) -> None:
        b, op = self.b, n.op
        k = len(op.inputs)
        if op.variadic:
            user = list(n.inputs[:k - 1]) + [[v for v in n.inputs[k - 1:] if v.type != U_TYPE]]
        else:
            user = list(n.inputs[:k])
        ts = [[self.get(v) for v in x] if isinstance(x, list) else self.get(x) for x in user]
        if not any(any(t is not None for t in x) if isinstance(x, list) else x is not None for x in ts):
            return
        args = [[Sym(v, b) for v in x] if isinstance(x, list) else Sym(x, b) for x in user]
        b.loc = n.loc
        if isinstance(n.type, TupleType):
            out = tuple(Sym(b.add(ir.GETITEM, (n,), t, {"index": i}), b) for i, t in enumerate(n.type.elems))
        else:
            out = Sym(n, b)
        t = tangent(op, out, args, ts, dict(n.attrs))
        if isinstance(n.type, TupleType):
            self.tuples[id(n)] = [b.value(x) if x is not None else None for x in (t or (None,) * len(out))]
        elif t is not None:
            self.tans[id(n)] = b.value(t)

    def forward_if(self, n) -> None:
        """A second If on the same condition: each branch recomputes its pure nodes and returns
        the tangents of the If's tensor results."""
        b = self.b
        keys = [k for k, t in enumerate(n.type.elems) if isinstance(t, TensorType) and t.dtype.is_float]
        if not keys:
            return
        branches = []
        for blk in n.blocks:
            b.push_block()
            u_in = b.u
            replay = Replay(b, {}, augment=False, recompute=True, session=_Session())
            start = len(b.nodes)
            replay.nodes(blk.nodes)
            inner = Forward(b, dict(self.tans))
            inner.run(b.nodes[start:])
            results = []
            for k in keys:
                r = replay.get(blk.results[k])
                t = inner.tans.get(id(r))
                results.append(t if t is not None else _zeros_like(r, b)._value)
            branches.append((b.pop_block(), results))
            b.u = u_in
        if all(all(isinstance(r, ir.Const) for r in res) for _, res in branches):
            return
        types = tuple(n.type.elems[k] for k in keys)
        blocks = tuple(ir.Block((), tuple(nodes), tuple(res)) for nodes, res in branches)
        node = b.add(ir.IF, (n.inputs[0],), TupleType(types), blocks=blocks)
        ts = [None] * len(n.type.elems)
        for i, k in enumerate(keys):
            ts[k] = b.add(ir.GETITEM, (node,), types[i], {"index": i})
        self.tuples[id(n)] = ts

    def forward_loop(self, n) -> None:
        """A second loop over the same range (or condition) carrying the loop's values and their
        tangents: its body recomputes the body's pure nodes and pushes the tangents through
        them. It runs after the segment, so its C does not grow with the trip count either."""
        b = self.b
        is_for = n.op is ir.FOR
        body = n.blocks[-1]
        lead = 1 if is_for else 0
        carried = body.params[lead:-1]
        inits = list(n.inputs[3:-1] if is_for else n.inputs[:-1])
        keys = [k for k, p in enumerate(carried) if isinstance(p.type, TensorType) and p.type.dtype.is_float]
        reads = {id(i) for blk in n.blocks for m in ir.iter_nodes(blk) for i in m.inputs}
        reads |= {id(r) for blk in n.blocks for r in blk.results}
        if not keys or not (any(id(inits[k]) in self.tans for k in keys) or any(r in self.tans for r in reads)):
            return
        t_types = [carried[k].type for k in keys]

        def params_like(blk):
            fresh = [ir.Param(name=p.name, type=p.type, ref=p.ref) for p in blk.params]
            tps = [ir.Param(name=f"t{k}", type=t) for k, t in zip(keys, t_types)]
            return fresh, tps

        def rebuild(blk, tangents_out: bool):
            fresh, tps = params_like(blk)
            u_outer = b.u
            b.push_block()
            b.u = fresh[-1]
            replay = Replay(b, {id(o): nw for o, nw in zip(blk.params, fresh)}, augment=False, recompute=True,
                            session=_Session())
            first = len(b.nodes)
            replay.nodes(blk.nodes)
            results = [replay.get(r) for r in blk.results]
            if tangents_out:
                tans = dict(self.tans)
                tans.update({id(fresh[lead + k]): tp for k, tp in zip(keys, tps)})
                inner = Forward(b, tans)
                inner.run(b.nodes[first:])
                tres = [inner.tans.get(id(results[k])) or _zeros_like(results[k], b)._value for k in keys]
                results = [*results[:-1], *tres, results[-1]]
            nodes = b.pop_block()
            b.u = u_outer
            return ir.Block((*fresh[:-1], *tps, fresh[-1]), tuple(nodes), tuple(results))

        blocks = (rebuild(body, True),) if is_for else (rebuild(n.blocks[0], False), rebuild(body, True))
        init_t = [self.tans.get(id(inits[k])) or _zeros_like(inits[k], b)._value for k in keys]
        head = tuple(n.inputs[:3]) if is_for else ()
        types = TupleType((*(p.type for p in carried), *t_types, U_TYPE))
        node = b.add(n.op, (*head, *inits, *init_t, b.u), types, n.attrs, blocks)
        b.u = b.add(ir.GETITEM, (node,), U_TYPE, {"index": len(types.elems) - 1})
        ts = [None] * len(n.type.elems)
        for j, k in enumerate(keys):
            ts[k] = b.add(ir.GETITEM, (node,), t_types[j], {"index": len(carried) + j})
        self.tuples[id(n)] = ts
