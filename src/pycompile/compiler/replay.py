"""Re-emitting traced nodes for reverse mode (compiler/autodiff.py) and forward mode
(compiler/forward.py): `Replay` copies a segment of IR into the builder's current block with
fresh identities, its loops *augmented* to save what their backward needs (the forward of a
differentiation) or its effects left out (a recomputation inside a backward branch or loop).
See autodiff.py's docstring for what is saved and why.
"""
from __future__ import annotations

from pycompile.common.abstract import U_TYPE, RefType, StackType, TensorType, TupleType
from pycompile.compiler import ir
from pycompile.compiler.builder import Builder, Sym
from pycompile.errors import CompileError
from pycompile.ops import functional as F
from pycompile.ops import prims as P
from pycompile.ops._table import Effect, OpDef
from pycompile.ops.lowering import Blas


def _zeros_like(v, b) -> Sym:
    """Zeros of the tensor type of `v` (an IR value, a Sym, a Parameter), as a graph constant."""
    t = getattr(v, "_abstract", None)
    if t is None:
        t = v.type
    if isinstance(t, RefType):
        t = t.tensor
    return Sym(b.value(F.zeros(t.shape, t.dtype)), b)


# ---- re-emitting nodes ---------------------------------------------------------------------------------

class _Skipped:
    """An effect a recomputation leaves out; using its (non-state) value is an error."""

    def __init__(self, node):
        self.node = node


class Replay:
    """Re-emit nodes into the builder's current block with fresh identities (vmap: old id ->
    new value). `augment`: loops of these nodes save their carried values in stacks (their
    backward needs them). `recompute`: a second run of forward code for a backward - effects
    (Assign, Print, pushes) are left out and Parameter reads read the current state."""

    def __init__(self, b: Builder, vmap: dict, augment: bool, recompute: bool, session, collect=None):
        self.b, self.vmap, self.augment, self.recompute = b, vmap, augment, recompute
        self.session = session
        self.from_stack: dict = {}       # id(product node) -> (its stack, the iteration index)
        # (forward only) where the values of Loads of assigned Parameters go: None at the top level
        # (the backward reads them where they are), a list [(id(old Load), new Load, value to save,
        # Parameter)] inside a branch or an augmented loop body, _UNSAFE inside a nested loop
        self.collect = collect

    def get(self, v):
        w = self.vmap.get(id(v), v)
        if isinstance(w, _Skipped):
            if _is_state(v):
                return self.b.u
            raise CompileError(f"cannot differentiate through {w.node.op.name} inside a loop or a branch: its "
                               f"result is used by the computation being differentiated", w.node.loc)
        return w

    def nodes(self, nodes) -> None:
        for n in nodes:
            self.node(n)

    def node(self, n: ir.Node) -> None:
        b = self.b
        b.loc = n.loc
        op = n.op
        src = self.from_stack.get(id(n))
        if src is not None:               # a product the backward reads back from its stack
            get = b.add(P.StackGet, (src[0], src[1], b.u), n.type)
            self.session.stand_in[id(get)] = ir.Node(op=op, inputs=tuple(self.get(i) for i in n.inputs), type=n.type,
                                                     attrs=n.attrs, loc=n.loc)
            self.vmap[id(n)] = get
            return
        if self.recompute and _effectful(n):
            self.vmap[id(n)] = _Skipped(n)
            return
        if self.augment and op in (ir.FOR, ir.WHILE):
            loop = self.vmap[id(n)] = self.augmented_loop(n)
            if self.recompute:
                # a recomputation skips the UpdateStates, so the state after the loop, which
                # orders its pushes before the backward's reads of its stacks, is threaded here
                k = len(loop.type.elems) - 1
                b.u = b.add(ir.GETITEM, (loop,), loop.type.elems[k], {"index": k})
            return
        if self.recompute and op is P.Load:
            saved = self.session.load_saved.get(id(n))
            if saved is not None:         # the value this Load saw in the forward
                self.vmap[id(n)] = self.get(saved)
                return
            new = b.add(op, (self.get(n.inputs[0]), b.u), n.type, n.attrs)
        elif not self.recompute and op is ir.IF and _loads_to_save(n.blocks, self.session.assigned):
            self.saving_if(n)
            return
        elif not self.recompute and op is P.Load and id(n.inputs[0]) in self.session.assigned \
                and self.collect is not None:
            if self.collect is _UNSAFE:
                raise CompileError(f"cannot differentiate a read of Parameter '{n.inputs[0].name}' inside a loop "
                                   f"nested in another loop or in a branch, when the function also assigns it: "
                                   f"read it before the inner loop, or make the inner loop a Python loop", n.loc)
            ref = self.get(n.inputs[0])
            new = b.add(op, (ref, self.get(n.inputs[1])), n.type, n.attrs)
            keep = new if self.copy_loads else b.add(P.TensorMove, (new,), n.type)
            self.collect.append((id(n), new, keep, ref))
        elif self.recompute and op is P.Depend:
            self.vmap[id(n)] = self.get(n.inputs[0])
            return
        else:
            blocks = self.clone_while_blocks(n.blocks) if op is ir.WHILE else \
                tuple(self.clone_block(blk, loop=op is ir.FOR) for blk in n.blocks)
            new = b.add(op, tuple(self.get(i) for i in n.inputs), n.type, n.attrs, blocks)
        self.vmap[id(n)] = new

    copy_loads = False   # a loop body pushes a Load itself (a push copies); a branch returns a copy

    def clone_block(self, blk: ir.Block, params=None, loop: bool = False) -> ir.Block:
        """A copy of a nested block with fresh parameters (its own loops are not augmented)."""
        b = self.b
        params = params or tuple(ir.Param(name=p.name, type=p.type, ref=p.ref) for p in blk.params)
        inner = Replay(b, self.vmap, augment=False, recompute=self.recompute, session=self.session,
                       collect=_UNSAFE if loop or self.collect is _UNSAFE else [])
        for old, new in zip(blk.params, params):
            self.vmap[id(old)] = new
        u_outer = b.u
        b.push_block()
        if self.recompute:
            us = [p for p in params if p.type == U_TYPE]
            b.u = us[0] if us else b.u
        inner.nodes(blk.nodes)
        results = tuple(inner.get(r) for r in blk.results)
        nodes = b.pop_block()
        b.u = u_outer
        return ir.Block(params, tuple(nodes), results)

    def clone_while_blocks(self, blocks) -> tuple:
        cond, body = blocks
        params = tuple(ir.Param(name=p.name, type=p.type, ref=p.ref) for p in body.params)
        return self.clone_block(cond, params, loop=True), self.clone_block(body, params, loop=True)

    def saving_if(self, n: ir.Node) -> None:
        """(forward) An If whose branches read Parameters the segment assigns: each such Load's
        value becomes an extra result of the If (a copy in the branch that ran, zeros in the
        other), so the backward can read what the Load saw after later Assigns."""
        b = self.b
        branches = []
        for blk in n.blocks:
            params = tuple(ir.Param(name=p.name, type=p.type, ref=p.ref) for p in blk.params)
            for old, new in zip(blk.params, params):
                self.vmap[id(old)] = new
            inner = Replay(b, self.vmap, augment=False, recompute=False, session=self.session, collect=[])
            b.push_block()
            inner.nodes(blk.nodes)
            results = tuple(inner.get(r) for r in blk.results)
            branches.append((params, b.pop_block(), results, inner.collect))
        order = [e for *_, got in branches for e in got]
        blocks = []
        for params, nodes, results, got in branches:
            mine = {e[0]: e[2] for e in got}
            b._stack.append(nodes)
            extra = tuple(mine[e[0]] if e[0] in mine else _zeros_like(e[2], b)._value for e in order)
            b._stack.pop()
            blocks.append(ir.Block(params, tuple(nodes), results + extra))
        types = tuple(n.type.elems) + tuple(e[2].type for e in order)
        new = b.add(ir.IF, tuple(self.get(i) for i in n.inputs), TupleType(types), n.attrs, tuple(blocks))
        self.vmap[id(n)] = new
        base = len(n.type.elems)
        for k, (old_id, load, _, ref) in enumerate(order):
            g = b.add(ir.GETITEM, (new,), types[base + k], {"index": base + k})
            if self.collect is None:              # the top level: the backward reads g itself
                self.session.load_saved[id(load)] = g
                self.session.load_ref[id(g)] = ref
            else:
                self.collect.append((old_id, load, g, ref))

    def augmented_loop(self, n: ir.Node) -> ir.Node:
        """The loop again, pushing each carried value into a stack as every iteration starts."""
        b = self.b
        is_for = n.op is ir.FOR
        body = n.blocks[-1]
        lead = 1 if is_for else 0
        carried = body.params[lead:-1]            # the last carried value is the memory state
        u = self.get(n.inputs[-1])
        stacks = []
        for p in carried:
            s = b.add(P.StackNew, (u,), StackType(p.type), {"elem": p.type})
            u = b.add(P.UpdateState, (u, s), U_TYPE)
            stacks.append(s)
        products = []
        inside = {id(x) for x in (*body.params, *body.nodes)}
        for m in body.nodes:
            # (a product of values from outside the loop is the same every iteration: not saved)
            if _saved_product(m) and any(id(i) in inside for i in m.inputs):
                s = b.add(P.StackNew, (u,), StackType(m.type), {"elem": m.type})
                u = b.add(P.UpdateState, (u, s), U_TYPE)
                products.append((m, s))
        loads = {}                                # id(Load of an assigned Parameter) -> its stack
        for m in ([] if self.recompute else _loads_to_save(n.blocks[-1:], self.session.assigned)):
            s = b.add(P.StackNew, (u,), StackType(m.type), {"elem": m.type})
            u = b.add(P.UpdateState, (u, s), U_TYPE)
            loads[id(m)] = s
        params = tuple(ir.Param(name=p.name, type=p.type, ref=p.ref) for p in body.params)
        inner = Replay(b, self.vmap, augment=False, recompute=self.recompute, session=self.session,
                       collect=None if self.recompute else [])
        inner.copy_loads = True
        for old, new in zip(body.params, params):
            self.vmap[id(old)] = new
        u_outer = b.u
        b.push_block()
        state = params[-1]
        for s, p in zip(stacks, params[lead:-1]):
            push = b.add(P.StackPush, (s, p, state), U_TYPE)
            state = b.add(P.UpdateState, (state, push), U_TYPE)
        b.u = state
        self.vmap[id(body.params[-1])] = state
        inner.nodes(body.nodes)
        results = tuple(inner.get(r) for r in body.results)
        saved, saved_loads = [], []
        if products or loads:
            state = results[-1]
            for m, s in products:
                v = inner.get(m)
                push = b.add(P.StackPush, (s, v, state), U_TYPE)
                state = b.add(P.UpdateState, (state, push), U_TYPE)
                saved.append((v, s))
            for old_id, load, v, ref in inner.collect or ():   # (None in a recomputation)
                s = loads[old_id]
                push = b.add(P.StackPush, (s, v, state), U_TYPE)
                state = b.add(P.UpdateState, (state, push), U_TYPE)
                saved_loads.append((v, s, ref))
                self.session.load_saved[id(load)] = v
            results = results[:-1] + (state,)
        nodes = b.pop_block()
        new_body = ir.Block(params, tuple(nodes), results)
        if is_for:
            blocks = (new_body,)
        else:
            cond = self.clone_block(n.blocks[0], params)
            blocks = (cond, new_body)
        b.u = u_outer
        inputs = tuple(self.get(i) for i in n.inputs[:-1]) + (u,)
        loop = b.add(n.op, inputs, n.type, n.attrs, blocks)
        self.session.stacks[id(loop)] = (loop, stacks)
        self.session.saved[id(loop)] = saved
        self.session.saved_loads[id(loop)] = saved_loads
        return loop


def _saved_product(n) -> bool:
    """A matrix product of a loop body: its backward reads it back from a stack rather than
    recomputing it (an LSTM step's h @ W_hh is most of the step's work); the elementwise
    values after it are recomputed from it. A product the backward does not need loses its
    stack to dead-code elimination (passes/dce.py)."""
    lower = getattr(n.op, "lower", None)
    return isinstance(lower, Blas) and isinstance(n.type, TensorType) and not n.blocks


_UNSAFE = "unsafe"      # Replay.collect inside a nested loop: a Load there cannot be saved


def _assigned_refs(nodes) -> set:
    """Ids of the Parameters (Ref values) that memory-effect ops among `nodes` write, at any depth."""
    out = set()
    for top in nodes:
        for n in [top, *(m for blk in top.blocks for m in ir.iter_nodes(blk))]:
            if isinstance(n.op, OpDef) and n.op.effect is Effect.MEM:
                out.update(id(i) for i in n.inputs if isinstance(i.type, RefType))
    return out


def _loads_to_save(blocks, assigned: set) -> list:
    """The Loads of Parameters in `assigned` in these blocks and in the branches of their Ifs
    (not in their loops, whose Loads cannot be saved: Replay raises on those)."""
    out = []
    for blk in blocks:
        for n in blk.nodes:
            if n.op is P.Load and id(n.inputs[0]) in assigned:
                out.append(n)
            elif n.op is ir.IF:
                out.extend(_loads_to_save(n.blocks, assigned))
    return out


def _effectful(n) -> bool:
    op = n.op
    if op is ir.CALL:
        return False
    if not isinstance(op, OpDef):
        return False
    return op.effect is not Effect.PURE or op in (P.UpdateState, P.MakeTuple)



def _is_state(v) -> bool:
    return v.type == U_TYPE
