"""Reverse-mode autodiff of graph code, as a transformation of the typed IR being built.

A gradient function (ms.grad, ms.value_and_grad, GradOperation) called in graph code reaches
`differentiate` (through the builder's `differentiate`). The function is traced inline, like
any call, into a segment of the current block; then:

1. **Forward.** The segment is re-emitted with its loops *augmented*: each `For` / `While`
   pushes the values it carries into a stack (`StackPush`, ops/defs/stack.py) at the start of
   every iteration. Everything else is copied as it was (effects included, in order).
2. **Backward.** The nodes are walked in reverse. An op's cotangent goes through its gradient
   rule (pycompile/ops/grads: the same rules PyNative's tape runs), written with ops of the
   table, so the backward is ordinary IR that the passes, fusion and memory planning treat
   together with the forward. Cotangents summed over broadcast axes and cast to each input's
   dtype (`tape.fit`). Structured control flow stays structured:
   - the backward of an `If` is an `If` on the same condition; each branch recomputes its
     forward branch (pure nodes only) and differentiates it;
   - the backward of a loop is a `For` running over the saved iterations in reverse: each
     iteration reads the carried values back from the stacks, recomputes the body (pure
     nodes), differentiates it, and carries the cotangents of the carried values and the sums
     of the cotangents of the values the body reads from outside. Its C does not grow with the
     trip count; `break` / early return are covered because the stacks hold exactly the
     iterations that ran;
   - a lazy_inline `Call` gets one shared backward subgraph per callee (it recomputes the
     callee's forward and differentiates it), called once per instance.
3. **Parameters** are differentiated at their loads: a `Load`'s rule sends its cotangent to the
   Parameter's graph input, so a weight's gradient is the sum over every read of it, each taken
   at the value that read saw. A Load inside a branch or a loop body is recomputed by the
   backward, which runs after the whole forward: where the segment assigns that Parameter, the
   recomputed Load would read its final value (issue 31). So the forward saves the value each
   such Load saw - an If returns it as an extra result (a copy), a loop body pushes it into a
   stack per iteration - and the backward reads the saved value instead of the Parameter, its
   cotangent still going to the Parameter (`Session.load_ref`). A Load of an assigned
   Parameter inside a loop nested in another loop or in a branch cannot be saved that way: it
   is a CompileError rather than a wrong gradient.

Re-emitting the segment (the augmented forward, the recomputations) is compiler/replay.py's
`Replay`; forward mode (ops.jvp in graph code) is compiler/forward.py.

Values are only recomputed inside branches and loop bodies (which the backward cannot see
otherwise); straight-line forward values are read by the backward where the forward computed
them, and memory planning keeps exactly those alive.
"""
from __future__ import annotations

import dataclasses

from pycompile.common.abstract import U_TYPE, RefType, ScalarType, TensorType, TupleType, type_of
from pycompile.common.parameter import Parameter
from pycompile.compiler import ir
from pycompile.compiler.builder import Builder, Sym
from pycompile.errors import CompileError, CompileValueError
from pycompile.ops import functional as F
from pycompile.ops import prims as P
from pycompile.common import dtype as mstype
from pycompile.ops._table import OpDef, apply
from pycompile.ops.autodiff.tape import fit
from pycompile.ops.autodiff.custom import call_user
from pycompile.ops.autodiff.tensor_hooks import hooks_of, run_hooks
from pycompile.ops.dynamic_length import Bounded, BoundedTrace
from pycompile.ops import _mixed, tracing
from pycompile.ops.autodiff.saved_hooks import _is_tensor
from pycompile.ops.grads import NEEDED, NONDIFF
from pycompile.compiler.replay import Replay, _assigned_refs, _is_state, _zeros_like


def differentiate(interp, gradfn, args, kwargs):
    """The result of calling gradient function `gradfn` on `args` in graph code."""
    b = interp.builder
    call_loc = b.loc                 # the user's call of the gradient function (for its errors)
    args = list(args)
    sens = args.pop() if gradfn.sens_param else None
    positions = gradfn.check_positions(len(args), graph=True)
    gradfn.check_weights(graph=True)
    sources = {}
    for i in positions:
        if _tensor_like(args[i]):
            v = b.value(args[i])
            if isinstance(v.type, TensorType):
                # the function's parameter is a value of its own (an identity reshape, differentiable
                # for an outer gradient): a closure reading the same tensor, or the tensor passed at
                # two positions, is not differentiated through that parameter (PyNative's partials)
                v = b.add(P.Reshape, (v,), v.type, {"shape": v.type.shape})
            args[i] = Sym(v, b)
            sources[i] = v
    weights = list(gradfn.weights or ())
    wrefs = [b.ref_param(w) if isinstance(w, Parameter) else None for w in weights]
    start = len(b.nodes)
    nested = interp.differentiating > 0      # inside the function of another gradient
    interp.differentiating += 1      # (compiler/stacking.py unrolls the loops it would keep)
    try:
        out = interp.call_value(gradfn.fn, args, kwargs or {})
    finally:
        interp.differentiating -= 1
    # 1. forward: the traced segment again, its loops saving what their backward needs
    segment = b.nodes[start:]
    del b.nodes[start:]
    session = Session(interp)
    session.nested = nested
    session.assigned = _assigned_refs(segment)
    replay = Replay(b, {}, augment=True, recompute=False, session=session)
    u_end = b.u
    replay.nodes(segment)
    b.u = replay.get(u_end)
    out = _remap(out, replay, b)
    forward = b.nodes[start:]
    hooked = [(interp.saved_hooks[id(n)][0], replay.get(n)) for n in segment if id(n) in interp.saved_hooks]
    # 2. backward
    session.keep = {id(v) for v in sources.values()} | {id(r) for r in wrefs if r is not None}
    seeds = _seeds(gradfn.differentiated(out, graph=True), sens, b, call_loc)
    backward_start = len(b.nodes)
    backprop = Backprop(b, session)
    if hooked:
        backprop.pack_saved(interp, hooked)
    cts = backprop.run(forward, seeds)
    interp.saved_bytes += _saved_bytes(forward, b.nodes[backward_start:])
    pos_grads = [(i, _grad(cts, sources[i], b)) for i in positions if i in sources]
    w_grads = [(w, _grad(cts, r, b) if r is not None else _zeros_like(w, b)) for w, r in zip(weights, wrefs)]
    # a weight's Tensor.register_hook hooks: on its whole gradient (registering recompiles)
    w_grads = [(w, run_hooks(hooks_of(w), g, call_user) if isinstance(w, Parameter) and hooks_of(w) else g)
               for w, g in w_grads]
    return gradfn.assemble(out, pos_grads, w_grads)


def _saved_bytes(forward, backward) -> int:
    """Bytes of the forward's straight-line tensors the backward reads (the values its loops
    save are counted on the optimized graph, by `stack_bytes`: only the stacks the backward
    reads survive dead-code elimination)."""
    fwd = {id(n): n for n in forward}
    read = {}
    for n in backward:
        for m in [n, *(x for blk in n.blocks for x in ir.iter_nodes(blk))]:
            for v in m.inputs:
                if id(v) in fwd and isinstance(v.type, TensorType) and m.op is not P.StackGet \
                        and not _view_of_input(v, fwd):
                    read[id(v)] = v.type.nbytes
    return sum(read.values())


def stack_bytes(block: ir.Block, trips: int = 1) -> int:
    """Bytes the stack pushes of an optimized graph save: one item per iteration of each loop
    with a trip count known when compiling (a While's depends on the run: not counted)."""
    total = 0
    for n in block.nodes:
        if n.op is P.StackPush and isinstance(n.inputs[1].type, TensorType):
            total += trips * n.inputs[1].type.nbytes
        inner = None
        if n.op is ir.FOR and all(isinstance(i, ir.Const) for i in n.inputs[:3]):
            inner = trips * len(range(*(i.value for i in n.inputs[:3])))
        elif n.op is ir.IF or n.op is ir.FUSED:
            inner = trips
        if inner is not None:
            total += sum(stack_bytes(b, inner) for b in n.blocks)
    return total


def _view_of_input(v, fwd) -> bool:
    """`v` is the memory of a graph input or a Parameter (a Load, a reshape of an argument):
    the caller keeps it alive whether or not the backward reads it, so it is not saved."""
    while id(v) in fwd:
        lower = getattr(v.op, "lower", None)
        if lower is None or not lower.aliases_input or not v.inputs:
            return False
        v = v.inputs[0]
    return not isinstance(v, ir.Node)


def _accumulate(acc: Sym, c: Sym) -> Sym:
    """acc + c, the loop-carried sum of the cotangents of a value read from outside a loop. A
    row the body gathered at a step index (`xw[t]`: GatherGrad of a scalar index) is added as a
    row scatter (TensorScatterAdd), which the memory planner runs in place on the carried
    sum: one row per iteration instead of a dense zeros-but-one-row tensor added in full."""
    n = c._value
    if isinstance(n, ir.Node) and n.op is P.GatherGrad and isinstance(n.inputs[1].type, ScalarType) \
            and n.type == acc._value.type and n.type.ndim >= 1 and n.attrs.get("axis", 0) % n.type.ndim == 0:
        shape = n.type.shape
        idx = F.floor_mod(F.cast(Sym(n.inputs[1], acc._tracer), mstype.int64), shape[0])
        rows = F.reshape(Sym(n.inputs[0], acc._tracer), (1,) + tuple(shape[1:]))
        return apply(P.TensorScatterAdd, [acc, F.reshape(idx, (1, 1)), rows])
    return F.add(acc, c)


def _tensor_like(x) -> bool:
    return isinstance(getattr(x, "_abstract", None), TensorType) and not isinstance(x, Parameter)


def _remap(v, replay, b):
    """The Python value `v` (the function's result) with its graph values re-emitted."""
    if isinstance(v, Sym):
        return Sym(replay.get(v._value), b)
    if isinstance(v, Bounded):      # a masked_select result: its buffer and its count
        return Bounded(_remap(v.data, replay, b), BoundedTrace(_remap(v.trace.count, replay, b), v.trace.bound))
    if isinstance(v, tuple):
        return tuple(_remap(x, replay, b) for x in v)
    if isinstance(v, list):
        return [_remap(x, replay, b) for x in v]
    return v


def _leaves(v) -> list:
    if isinstance(v, (tuple, list)):
        return [y for x in v for y in _leaves(x)]
    return [v]


def _bounded_seed(o, s, loc):
    """A masked_select result (a buffer as long as its bound, the count known at run time) and
    its sens: the sens in the first places of the buffer, zeros after (the padding past the
    count feeds no input element)."""
    n = o.data._value.type.shape[0]
    st = getattr(s, "_abstract", None)
    if not isinstance(st, TensorType) or st.ndim != 1 or st.shape[0] > n:
        raise CompileValueError(f"For 'GradOperation', the sens of a MaskedSelect output must be 1-D with at most "
                                f"{n} elements (the elements the mask can select), but got "
                                f"{list(getattr(st, 'shape', ()))}", loc)
    if st.shape[0] < n:
        s = F.concat([s, F.zeros((n - st.shape[0],), st.dtype)])
    return o.data._value, s


def _seeds(outputs: list, sens, b, loc) -> list:
    flat = _leaves(outputs)
    if sens is None:
        return [(o.data._value, F.ones_like(o.data)) if isinstance(o, Bounded) else (o._value, F.ones_like(o))
                for o in flat if isinstance(o, Bounded) or (isinstance(o, Sym) and isinstance(o._value.type, TensorType))]
    sens_flat = _leaves(sens if len(outputs) > 1 else [sens])
    if len(sens_flat) != len(flat):
        raise CompileValueError(f"GradOperation: sens must have the structure of the output ({len(flat)} "
                                f"tensors), but it has {len(sens_flat)}", loc)
    seeds = []
    for o, s in zip(flat, sens_flat):
        if isinstance(o, Bounded):
            v, s = _bounded_seed(o, s, loc)
            seeds.append((v, Sym(b.value(s), b)))
            continue
        if not isinstance(o, Sym) or not isinstance(o._value.type, TensorType):
            continue
        st = getattr(s, "_abstract", None)
        if not isinstance(st, TensorType) or st.shape != o._value.type.shape:
            raise CompileValueError(f"For 'GradOperation', the shape of sens should be {list(o._value.type.shape)}, "
                                    f"but got {list(getattr(st, 'shape', ()))}", loc)
        seeds.append((o._value, Sym(b.value(s), b)))
    return seeds


def _grad(cts, v, b):
    entry = cts.get(id(v))
    if entry is None:
        return _zeros_like(v, b)
    return entry[1] if isinstance(v.type, RefType) else fit(entry[1], Sym(v, b))


class Session:
    """What one differentiation shares: the stacks of its augmented loops, the backward
    subgraphs of lazy_inline callees, and the values whose cotangents are wanted."""

    def __init__(self, interp):
        self.stacks: dict = {}           # id(augmented loop) -> (loop, [stack per carried value])
        self.saved: dict = {}            # id(augmented loop) -> [(body product, its stack)]
        # id(StackGet of a saved product) -> the product over the reverse body's values: the
        # node whose gradient rule the StackGet's cotangent goes through
        self.stand_in: dict = {}
        self.backward: dict = {}         # (id(callee), outputs) -> (callee, backward graph)
        self.keep: set = set()
        # Loads of Parameters the segment assigns, inside branches and loop bodies: ids of those refs;
        # id(forward Load) -> the saved value the backward reads instead (an If's extra result, or
        # the body value a loop pushes); id(saved value, or its StackGet) -> the Parameter (its
        # cotangent goes there); id(augmented loop) -> [(body value, its stack, Parameter)]
        self.assigned: set = set()
        self.load_saved: dict = {}
        self.load_ref: dict = {}
        self.saved_loads: dict = {}
        # register_saved_tensors_hooks: id(forward node) -> (out, inputs) its rule reads, unpacked
        self.unpacked: dict = {}
        # a gradient taken inside the function of another gradient: its loops' backward recomputes
        # the carried values instead of reading them from stacks (see Backprop.carried_at), so the
        # outer gradient differentiates plain loops (grad of grad through a run-time `while`)
        self.nested = False


# ---- the backward pass -----------------------------------------------------------------------------------

class Backprop:
    """Cotangents of a list of nodes, walked in reverse; backward nodes go to the builder's
    current block. `keep`: ids of constants and outer values whose cotangents are wanted even
    though they are not nodes (the differentiated arguments and Parameters)."""

    def __init__(self, b: Builder, session: Session):
        self.b, self.session = b, session
        self._active: dict = {}

    def active(self, v) -> bool:
        """Whether `v` may depend on what is differentiated: not a constant, not the result of a
        non-differentiable op (a comparison, argmax ...), not computed only from such values.
        Parameters, block parameters, control-flow results and the carried values a reverse
        loop reads back from its stack (StackGet) count as active."""
        todo = [v]
        while todo:
            x = todo[-1]
            if id(x) in self._active:
                todo.pop()
                continue
            if id(x) in self.session.keep:
                # a differentiated argument is active whatever computed it: jvp differentiates
                # with respect to a cotangent made by ones_like, a non-differentiable op
                self._active[id(x)] = True
            elif isinstance(x, ir.Const):
                self._active[id(x)] = False
            elif not (isinstance(x, ir.Node) and isinstance(x.op, OpDef)) or x.op.grad is None:
                self._active[id(x)] = True
            elif x.op.grad is NONDIFF and x.op is not P.StackGet:    # a saved loop value is active
                self._active[id(x)] = False
            else:
                pending = [i for i in x.inputs if id(i) not in self._active]
                if pending:
                    todo.extend(pending)
                    continue
                self._active[id(x)] = any(self._active[id(i)] for i in x.inputs)
            todo.pop()
        return self._active[id(v)]

    def add(self, cts: dict, v, c) -> None:
        """Accumulate cotangent `c` of value `v` (fitted to v's shape and dtype)."""
        if isinstance(v, ir.Const) and id(v) not in self.session.keep:
            return
        if id(v) not in self.session.keep and not self.active(v):
            # nothing differentiated flows into v (a comparison's result): its cotangent is never
            # used, and two of them could not be added when v is bool (fuzz seed 5835)
            return
        t = v.type
        if not isinstance(c, Sym):
            c = Sym(self.b.value(c), self.b)
        if isinstance(t, TensorType):
            c = fit(c, Sym(v, self.b))
            ref = self.session.load_ref.get(id(v))
            if ref is not None:               # the saved value of a Load: its Parameter's cotangent
                v = ref
        elif not isinstance(t, RefType):      # a Parameter: the cotangent of its loads
            return
        prev = cts.get(id(v))
        cts[id(v)] = (v, c if prev is None else F.add(prev[1], c))

    def pack_saved(self, interp, hooked) -> None:
        """register_saved_tensors_hooks in graph code: for each forward node the hooked function
        traced (in order), the values its gradient rule reads go through pack_hook, then - as
        MindSpore's graph runs them, after every pack - through unpack_hook, in the same order;
        the rule then reads the unpacked values (backprop_op). The hooks are traced as graph code."""
        b = self.b
        packed = []
        for (pack, unpack), n in hooked:
            if not (isinstance(n, ir.Node) and isinstance(n.op, OpDef)) or n.op.grad in (None, NONDIFF):
                continue
            user = self._user_inputs(n)
            if not any(self.active(v) for x in user for v in (x if isinstance(x, list) else [x])):
                continue
            args = [[Sym(v, b) for v in x] if isinstance(x, list) else Sym(x, b) for x in user]
            out = Sym(n, b)
            needed = tuple(any(self.active(v) for v in x) if isinstance(x, list) else self.active(x) for x in user)
            reads = gradient_reads(n.op, out, args, dict(n.attrs), needed)
            values = [out] + args
            kept = [interp.call_value(pack, [values[k]], {}) if read and _is_tensor(values[k]) else None
                    for k, read in enumerate(reads)]
            packed.append((n, unpack, values, kept))
        for n, unpack, values, kept in packed:
            got = [interp.call_value(unpack, [p], {}) if p is not None else v for v, p in zip(values, kept)]
            self.session.unpacked[id(n)] = (got[0], got[1:])

    def _user_inputs(self, n) -> list:
        k = len(n.op.inputs)
        if n.op.variadic:
            return list(n.inputs[:k - 1]) + [[v for v in n.inputs[k - 1:] if not _is_state(v)]]
        return list(n.inputs[:k])

    def run(self, nodes, seeds) -> dict:
        cts: dict = {}
        tuple_cts: dict = {}
        for v, c in seeds:
            self.add(cts, v, c)
        for n in reversed(nodes):
            if n.op is ir.GETITEM:
                entry = cts.pop(id(n), None)
                if entry is not None:
                    tuple_cts.setdefault(id(n.inputs[0]), {})[n.attrs["index"]] = entry[1]
                continue
            if n.op is ir.IF:
                self.backprop_if(n, tuple_cts.pop(id(n), {}), cts)
            elif n.op in (ir.FOR, ir.WHILE):
                self.backprop_loop(n, tuple_cts.pop(id(n), {}), cts)
            elif n.op is ir.CALL:
                self.backprop_call(n, tuple_cts.pop(id(n), {}), cts)
            elif isinstance(n.op, OpDef):
                entry = cts.pop(id(n), None)
                if entry is not None:
                    product = self.session.stand_in.get(id(n))
                    self.backprop_op(product or n, entry[1], cts, out=n)
        return cts

    # -- ops --
    def backprop_op(self, n, g, cts, out=None) -> None:
        op = n.op
        if op.grad is NONDIFF:
            if op is P.StackGet:
                raise CompileError("a gradient of a gradient through a loop is not supported", n.loc)
            return
        if op.grad is None:
            raise CompileError(f"For '{op.name}', there is no gradient rule: it cannot be differentiated", n.loc)
        b = self.b
        k = len(op.inputs)
        if op.variadic:
            head = list(n.inputs[:k - 1])
            tail = [v for v in n.inputs[k - 1:] if not _is_state(v)]
            user = head + [tail]
        else:
            user = list(n.inputs[:k])
        if not any(self.active(v) for x in user for v in (x if isinstance(x, list) else [x])):
            # nothing differentiable flows in (say, Erf of a comparison's result): PyNative's tape
            # never records such an op, and its rule need not accept the inputs' dtypes
            return
        args = [[Sym(v, b) for v in x] if isinstance(x, list) else Sym(x, b) for x in user]
        b.loc = _gradient_loc(n)
        out_sym = Sym(n if out is None else out, b)
        unpacked = self.session.unpacked.get(id(n if out is None else out))
        if unpacked is not None:            # register_saved_tensors_hooks: what the hooks gave back
            out_sym, args = unpacked[0], list(unpacked[1])
        cin = op.grad(g, out_sym, *args, **n.attrs)
        for x, c in zip(user, cin):
            if c is None:
                continue
            if isinstance(x, list):
                for xi, ci in zip(x, c):
                    if ci is not None:
                        self.add(cts, xi, ci)
            else:
                self.add(cts, x, c)

    # -- if --
    def backprop_if(self, n, out_cts: dict, cts: dict) -> None:
        b = self.b
        if not out_cts:
            return
        branches = []
        for blk in n.blocks:
            b.push_block()
            u_in = b.u
            replay = Replay(b, {}, augment=True, recompute=True, session=self.session)
            start = len(b.nodes)
            replay.nodes(blk.nodes)
            seeds = [(replay.get(blk.results[k]), c) for k, c in out_cts.items()]
            local = Backprop(b, self.session).run(b.nodes[start:], seeds)
            branches.append([b.pop_block(), local, b.u])
            b.u = u_in
        order = list(dict.fromkeys(k for _, local, _ in branches for k in local))
        values = {}
        for _, local, _ in branches:
            values.update({k: v for k, (v, _) in local.items()})
        has_u = any(bu is not b.u for _, _, bu in branches)
        blocks, types = [], None
        for nodes, local, bu in branches:
            b._stack.append(nodes)
            u_before = b.u
            b.u = bu
            results = [local[k][1]._value if k in local else _zeros_like(values[k], b)._value for k in order]
            if has_u:
                results.append(b.u)
            b._stack.pop()
            b.u = u_before
            types = tuple(r.type for r in results)
            blocks.append(ir.Block((), tuple(nodes), tuple(results)))
        if not types:
            return
        node = b.add(ir.IF, (n.inputs[0],), TupleType(types), blocks=tuple(blocks))
        outs = [b.add(ir.GETITEM, (node,), t, {"index": i}) for i, t in enumerate(types)]
        if has_u:
            b.u = outs.pop()
        for k, o in zip(order, outs):
            self.add(cts, values[k], Sym(o, b))

    # -- loops --
    def backprop_loop(self, n, out_cts: dict, cts: dict) -> None:
        b = self.b
        entry = self.session.stacks.get(id(n))
        if entry is None or entry[0] is not n:
            raise CompileError("internal: a differentiated loop was not augmented", n.loc)
        stacks = entry[1]
        is_for = n.op is ir.FOR
        lead = 1 if is_for else 0
        body = n.blocks[-1]
        carried = body.params[lead:-1]
        if not stacks:
            return
        saved = self.session.saved.get(id(n), [])
        saved_loads = self.session.saved_loads.get(id(n), [])
        all_stacks = stacks + [s for _, s in saved] + [s for _, s, _ in saved_loads]
        diff = [k for k, p in enumerate(carried) if isinstance(p.type, TensorType)]
        if not any(k in out_cts for k in diff):
            self._free(all_stacks)
            return
        trips = b.add(P.StackLen, (stacks[0], b.u), ScalarType("int"))
        k_param = ir.Param(name="k", type=ScalarType("int"))
        ct_params = {k: ir.Param(name=f"ct{k}", type=carried[k].type) for k in diff}
        u_param = ir.Param(name="U", type=U_TYPE)
        u_outer = b.u
        b.push_block()
        b.u = u_param
        kk = Sym(k_param, b)
        idx = F.sub(F.sub(Sym(trips, b), 1), kk)
        nested = self.session.nested
        if nested and saved_loads:
            raise CompileError("a gradient of a gradient through a loop that reads a Parameter the function also "
                               "assigns is not supported: read it before the loop", n.loc)
        if nested:
            values = self.carried_at(n, idx)
        else:
            values = [b.add(P.StackGet, (s, idx._value, b.u), p.type) for s, p in zip(stacks, carried)]
        vmap = {id(p): v for p, v in zip(carried, values)}
        if is_for:
            start, step = n.inputs[0], n.inputs[2]
            vmap[id(body.params[0])] = F.add(Sym(start, b), F.mul(idx, Sym(step, b)))._value
        vmap[id(body.params[-1])] = b.u
        for v, s, ref in saved_loads:             # what this iteration's Loads saw
            get = b.add(P.StackGet, (s, idx._value, b.u), v.type)
            vmap[id(v)] = get
            self.session.load_ref[id(get)] = ref
        replay = Replay(b, vmap, augment=True, recompute=True, session=self.session)
        replay.from_stack = {} if nested else {id(v): (s, idx._value) for v, s in saved}
        first = len(b.nodes)
        replay.nodes(body.nodes)
        seeds = [(replay.get(body.results[k]), Sym(ct_params[k], b)) for k in diff]
        local = Backprop(b, self.session).run(b.nodes[first:], seeds)
        new_ct = []
        for k in diff:
            e = local.pop(id(values[k]), None)
            new_ct.append(e[1]._value if e is not None else _zeros_like(values[k], b)._value)
        inner = {id(m) for m in b.nodes}
        outer = [(vid, v, c) for vid, (v, c) in local.items() if vid not in inner and id(v) != id(k_param)]
        acc_params, acc_new = [], []
        for vid, v, c in outer:
            p = ir.Param(name="acc", type=c._value.type)
            acc_params.append(p)
            acc_new.append(_accumulate(Sym(p, b), c)._value)
        results = (*new_ct, *acc_new, b.u)
        nodes = b.pop_block()
        b.u = u_outer
        params = (k_param, *[ct_params[k] for k in diff], *acc_params, u_param)
        block = ir.Block(params, tuple(nodes), results)
        inits = [out_cts[k]._value if k in out_cts else _zeros_like(carried[k], b)._value for k in diff]
        inits = [fit(Sym(v, b), Sym(carried[k], b))._value for v, k in zip(inits, diff)]
        zeros = [_zeros_like(Sym(p, b), b)._value for p in acc_params]
        types = tuple(r.type for r in results[:-1]) + (U_TYPE,)
        loop = b.add(ir.FOR, (ir.Const.scalar(0), trips, ir.Const.scalar(1), *inits, *zeros, b.u), TupleType(types),
                     {"zero_trip": True}, blocks=(block,))
        outs = [b.add(ir.GETITEM, (loop,), t, {"index": i}) for i, t in enumerate(types)]
        b.u = outs.pop()
        init_values = n.inputs[3:-1] if is_for else n.inputs[:-1]
        for k, o in zip(diff, outs[:len(diff)]):
            self.add(cts, init_values[k], Sym(o, b))
        for (vid, v, c), o in zip(outer, outs[len(diff):]):
            self.add(cts, v, Sym(o, b))
        self._free(all_stacks)

    def carried_at(self, n, idx) -> list:
        """(a nested gradient) The values loop `n` carries into iteration `idx`, recomputed by
        running its body `idx` times from the initial values: a loop of ordinary ops the outer
        gradient can differentiate (a StackGet it could not), at a cost quadratic in the trip
        count. The trip count itself still comes from the forward's stack length (an int: no
        gradient flows through it)."""
        b = self.b
        is_for = n.op is ir.FOR
        body = n.blocks[-1]
        fresh = tuple(ir.Param(name=p.name, type=p.type, ref=p.ref) for p in body.params)
        blk = Replay(b, {}, augment=False, recompute=True, session=self.session).clone_block(body, fresh, loop=True)
        if is_for:
            start, step = n.inputs[0], n.inputs[2]
            head = (start, F.add(Sym(start, b), F.mul(idx, Sym(step, b)))._value, step)
            block = blk
        else:
            head = (ir.Const.scalar(0), idx._value, ir.Const.scalar(1))
            block = ir.Block((ir.Param(name="j", type=ScalarType("int")), *blk.params), blk.nodes, blk.results)
        inits = n.inputs[3:-1] if is_for else n.inputs[:-1]
        types = tuple(r.type for r in blk.results[:-1]) + (U_TYPE,)
        loop = b.add(ir.FOR, (*head, *inits, b.u), TupleType(types), {"zero_trip": True}, blocks=(block,))
        outs = [b.add(ir.GETITEM, (loop,), t, {"index": i}) for i, t in enumerate(types)]
        b.u = outs.pop()
        return outs

    def _free(self, stacks) -> None:
        b = self.b
        for s in stacks:
            f = b.add(P.StackFree, (s, b.u), U_TYPE)
            b.u = b.add(P.UpdateState, (b.u, f), U_TYPE)

    # -- lazy_inline calls --
    def backprop_call(self, n, out_cts: dict, cts: dict) -> None:
        if not out_cts:
            return
        b = self.b
        callee = n.attrs["graph"]
        keys = tuple(sorted(k for k in out_cts if isinstance(callee.outputs[k].type, TensorType)))
        if not keys:
            return
        bwd = _backward_graph(self.session, callee, keys)
        inputs = (*n.inputs[:-1], *[fit(out_cts[k], Sym(callee.outputs[k], b))._value for k in keys], b.u)
        types = tuple(r.type for r in bwd.body.results)
        call = b.add(ir.CALL, inputs, TupleType(types), {"graph": bwd})
        outs = [b.add(ir.GETITEM, (call,), t, {"index": i}) for i, t in enumerate(types)]
        b.u = outs.pop()
        for v, o in zip(n.inputs[:-1], outs):
            self.add(cts, v, Sym(o, b))


def _backward_graph(session: Session, callee: ir.Graph, keys: tuple) -> ir.Graph:
    """One backward subgraph per (callee, differentiated outputs): it takes the callee's
    arguments and the cotangents of those outputs, recomputes the forward and returns a
    cotangent (or zeros) for every argument."""
    memo = session.backward.get((id(callee), keys))
    if memo is not None:
        return memo[1]
    sub = Builder(None)
    params = tuple(ir.Param(name=p.name, type=p.type, ref=p.ref) for p in callee.params)
    ct_params = tuple(ir.Param(name=f"ct{k}", type=callee.outputs[k].type) for k in keys)
    vmap = {id(o): nw for o, nw in zip(callee.params, params)}
    replay = Replay(sub, vmap, augment=True, recompute=True, session=session)
    replay.nodes(callee.body.nodes)
    seeds = [(replay.get(callee.outputs[k]), Sym(p, sub)) for k, p in zip(keys, ct_params)]
    keep, session.keep = session.keep, {id(p) for p in params}
    try:
        local = Backprop(sub, session).run(list(sub.nodes), seeds)
    finally:
        session.keep = keep
    outputs = []
    for p in params:
        e = local.get(id(p))
        outputs.append(e[1]._value if e is not None else _zeros_like(p, sub)._value)
    graph = ir.Graph(f"{callee.name}_grad", (*params, *ct_params),
                     ir.Block((), tuple(sub.nodes), (*outputs, sub.u)), out_tree=None, loc=callee.loc)
    session.backward[(id(callee), keys)] = (callee, graph)
    return graph


def _gradient_loc(n):
    """The location of the nodes of `n`'s gradient: its line, in MindSpore's scope for gradient
    ops (`Gradients/<n's scope>/Grad_<op>`: what the profiler names them by)."""
    loc = n.loc
    if loc is None or not loc.scope:
        return loc
    return dataclasses.replace(loc, scope=f"Gradients/{loc.scope}/Grad_{n.op.name}")


def gradient_reads(op, out, inputs, attrs, needed) -> tuple:
    """Per value (out, then each input): whether op's gradient rule reads its data for the cotangents
    `needed`: the rule run once on graph values of the values' types, each needed cotangent followed
    back to the rule's arguments (ops/autodiff/saved_hooks.py, for saved_tensors_hooks)."""
    b = Builder(None)
    owner = {}                  # id(Param) -> position (0: out, k + 1: input k)

    def value(v, pos):
        if isinstance(v, (list, tuple)):
            return type(v)(value(x, pos) for x in v)
        if not _is_tensor(v):
            return v
        p = ir.Param(name=f"v{pos}", type=type_of(v))
        owner[id(p)] = pos
        return Sym(p, b)
    out_v = value(out, 0)
    g = tuple(Sym(ir.Param(name="g", type=type_of(o)), b) if _is_tensor(o) else o for o in out) \
        if isinstance(out, tuple) else Sym(ir.Param(name="g", type=type_of(out)), b)
    args = [value(x, k + 1) for k, x in enumerate(inputs)]
    scope = _mixed.SCOPE[:]
    del _mixed.SCOPE[:]
    token = NEEDED.set(needed)
    try:
        with tracing.tracing(b):
            cin = op.grad(g, out_v, *args, **attrs)
    finally:
        NEEDED.reset(token)
        _mixed.SCOPE[:] = scope
    read = [False] * (1 + len(inputs))
    seen = set()
    stack = []
    for k, c in enumerate(cin):
        if k < len(needed) and needed[k]:
            stack.extend(getattr(x, "_value", x) for x in (c if isinstance(c, (list, tuple)) else [c]))
    while stack:
        v = stack.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        if isinstance(v, ir.Param) and id(v) in owner:
            read[owner[id(v)]] = True
        elif isinstance(v, ir.Node):
            stack.extend(v.inputs)
            for blk in v.blocks:        # a nested block: everything it uses counts
                for n in ir.iter_nodes(blk):
                    stack.extend(n.inputs)
                stack.extend(blk.results)
    return tuple(read)
