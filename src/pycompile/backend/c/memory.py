"""Buffer planning: where every tensor value lives, and arena reuse by liveness.

Storage kinds (one `Storage` object may be shared by several values that are never live with
different contents at once, e.g. the result of each `If` branch and the If's output):
  arg      pointer argument: graph input, Parameter, output, or a large constant
  slot     region of the per-executable arena, reused once every value in it is dead
  alias    the memory of another value (Reshape, Load, Depend, Assign's result; a row or a box
           of it read in place: views.py)
  dyn      pointer variable of a loop: `cur` (carried, read) or `nxt` (where the body writes)
  local    C scalar variable (Python-number values)
  static   small constant emitted as a static C array
  none     monads and tuples

Parents choose where their results go before children are planned: a graph output is written
straight into the output buffer, an `If` branch result into the If's output slot, a loop body
result into the loop's `nxt` buffer. Where that is impossible (the result is a view, an input,
or already placed) codegen copies, which it detects by comparing Storage objects.

Liveness runs over the program linearized in schedule order. A value read inside a loop but
defined before it stays live until the loop ends; a node's outputs never share memory with its
inputs (no kernel works in place by accident).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from pycompile.backend.c import views
from pycompile.backend.c.views import elementwise as _elementwise, reads as _reads, update_state_op as _update_state_op
from pycompile.backend.c.affine import ALIGN, DYNAMIC
from pycompile.backend.c.collectives import reduces_in_place
from pycompile.backend.c.naming import nid
from pycompile.common.abstract import MonadType, RefType, ScalarType, StackType, TensorType, TupleType
from pycompile.compiler import ir
from pycompile.ops.lowering import Blas, EffectCode, Template, View

STATIC_CONST_LIMIT = 64          # elements; larger constants are passed in as arguments


def _lower(op):
    return getattr(op, "lower", None)       # structural ops (If, For, Fused...) have none


def _aliases(op) -> bool:
    """The op's result is the memory of its first input (views, Load, Depend, Assign)."""
    lower = _lower(op)
    return lower is not None and lower.aliases_input


def _static_result(op) -> str:
    """The C static an effect's result lives in (Print's unit tensor), or ''."""
    lower = _lower(op)
    return lower.static_result if isinstance(lower, EffectCode) else ""


@dataclass(eq=False)
class Storage:
    kind: str
    index: int = -1              # arg index
    offset: int = -1             # arena offset
    nbytes: int = 0
    base: object = None          # alias: the value whose memory this is
    name: str = ""               # dyn / static name


@dataclass
class Plan:
    storage: dict = field(default_factory=dict)      # id(value) -> Storage
    arena_size: int = 0
    const_args: list = field(default_factory=list)   # np arrays passed as trailing arguments
    const_index: dict = field(default_factory=dict)  # id(const) -> position in const_args
    loops: dict = field(default_factory=dict)        # id(loop node) -> [(cur, nxt, s0, s1) | None]
    scratch: dict = field(default_factory=dict)      # id(Call node) -> arena region for the subgraph
    n_inputs: int = 0
    n_refs: int = 0
    n_outputs: int = 0
    # id(fused node) -> indices of its results computed straight into a Parameter (an Assign
    # in place): its head, if any, then keeps its own buffer (head_destination's `avoid`)
    inplace_results: dict = field(default_factory=dict)
    # id(loop node) -> indices of carried tensors updated in place (_inplace_carried): one buffer,
    # no swap; the loop copies the initial value into it first
    inplace_carried: dict = field(default_factory=dict)
    # (id(loop), k) -> the output argument an in-place carried tensor the loop fills entirely
    # (attr 'fills': compiler/stacking.py) lives in, when the loop's result is a graph output:
    # the rows are written straight into it, no arena buffer and no copy after the loop
    loop_outputs: dict = field(default_factory=dict)
    # Assigns to Parameters: how many, how many compute their value in the Parameter's own buffer,
    # and the arena bytes the others' values take (an optimizer step's aim: 0)
    updates: tuple = (0, 0, 0)
    # id(StridedSlice node) -> (element offset, element strides) of a view (views.strided_view)
    views: dict = field(default_factory=dict)

    def of(self, v) -> Storage:
        return self.storage[id(v)]


STACK_BYTES = 32                 # sizeof(pc_stack), rounded up


def nbytes(t) -> int:
    if isinstance(t, RefType):
        t = t.tensor
    if isinstance(t, StackType):
        return STACK_BYTES
    return t.nbytes if isinstance(t, TensorType) else 0


class Planner:
    def __init__(self, graph: ir.Graph, sub_arena: dict | None = None, float_status: bool = False):
        self.float_status = float_status      # the device scans results for the float-status register
        self.g = graph
        self.sub_arena = sub_arena or {}   # id(subgraph) -> arena bytes its own plan needs
        self.plan = Plan()
        self.requested: dict = {}
        self.getitems: dict = {}       # id(structure node) -> {index: getitem node}
        self.pos = 0
        self.defs: dict = {}
        self.last: dict = {}
        self.loop_frames: list = []
        self.loop_inits: dict = {}     # id(loop) -> initial values its outputs may still be
        self.loop_results: dict = {}   # id(GetItem of a top-level For) -> the output argument it is

    # -- 1. arguments ------------------------------------------------------------------------------------
    def arguments(self):
        p, g = self.plan, self.g
        for k, prm in enumerate(g.params):
            p.storage[id(prm)] = Storage("arg", index=k)
            if isinstance(prm.type, RefType):
                p.n_refs += 1
            else:
                p.n_inputs += 1
        p.n_outputs = len(g.outputs)
        base = len(g.params)
        top_nodes = {id(n) for n in g.body.nodes}
        for k, v in enumerate(g.outputs):
            # an output that is a view (Reshape, Depend) of a node: that node is computed straight
            # into the output buffer, so returning the view copies nothing
            while isinstance(v, ir.Node) and id(v) in top_nodes and isinstance(_lower(v.op), View):
                v = v.inputs[0]
            if id(v) in top_nodes and self._eligible(v) and id(v) not in self.requested:
                self.requested[id(v)] = Storage("arg", index=base + k)
            elif id(v) in top_nodes and v.op is ir.GETITEM and _is_for(v.inputs[0]) and id(v) not in self.loop_results:
                self.loop_results[id(v)] = Storage("arg", index=base + k)

    # -- 2. storage kinds, top-down ----------------------------------------------------------------------
    def _eligible(self, v) -> bool:
        """Can this value be computed straight into a place its parent chooses?"""
        if not isinstance(v, ir.Node) or not isinstance(v.type, TensorType) or v.type.size == 0:
            return False
        if v.op is ir.GETITEM:
            parent = v.inputs[0]
            return isinstance(parent, ir.Node) and parent.op is not ir.FOR and parent.op is not ir.WHILE
        return not _aliases(v.op) and not _static_result(v.op) and not v.blocks

    def const(self, c: ir.Const) -> Storage:
        s = self.plan.storage.get(id(c))
        if s is None:
            t = c.type
            if isinstance(t, TensorType):
                if t.size <= STATIC_CONST_LIMIT:
                    s = Storage("static", name=f"K{nid(c)}")
                else:
                    self.plan.const_index[id(c)] = len(self.plan.const_args)
                    self.plan.const_args.append(np.ascontiguousarray(c.value))
                    s = Storage("arg", index=-1, name=f"C{nid(c)}")
            elif isinstance(t, ScalarType):
                s = Storage("local")
            else:
                s = Storage("none")
            self.plan.storage[id(c)] = s
        return s

    def assign_block(self, block: ir.Block):
        p = self.plan
        for n in block.nodes:
            if n.op is ir.GETITEM:
                self.getitems.setdefault(id(n.inputs[0]), {})[n.attrs["index"]] = n
        self._inplace_assigns(block)
        outer, self.block_nodes = (getattr(self, "block_nodes", ()), getattr(self, "view_block", None)), block.nodes
        self.view_block = [block, None]      # the block, and its readers of each value (views.py)
        for n in block.nodes:
            for i in n.inputs:
                if isinstance(i, ir.Const):
                    self.const(i)
            self.assign_node(n)
        self.block_nodes, self.view_block = outer
        for r in block.results:
            if isinstance(r, ir.Const):
                self.const(r)
        del p

    def assign_node(self, n: ir.Node):
        p = self.plan
        t = n.type
        req = self.requested.pop(id(n), None)
        if n.op is ir.IF:
            self._plan_if(n)
        elif n.op in (ir.FOR, ir.WHILE):
            self._plan_loop(n)
        elif n.blocks:
            for b in n.blocks:            # fused kernels: members live in registers
                for m in b.nodes:
                    p.storage[id(m)] = Storage("none")
                    for i in m.inputs:
                        if isinstance(i, ir.Const):
                            self.const(i)
            if n.op is ir.FUSED:
                head, kind, _ = head_destination(n.blocks[0], set(self.getitems.get(id(n), {})),
                                                 p.inplace_results.get(id(n), ()))
                if kind == "temp":        # the head's value feeds the epilogue from a temporary
                    p.storage[id(head)] = Storage("slot", nbytes=nbytes(head.type))
        if n.op is ir.CALL:
            p.scratch[id(n)] = Storage("slot", nbytes=self.sub_arena.get(id(n.attrs["graph"]), 0))
        if id(n) in p.storage and n.op is ir.GETITEM:
            return                        # placed by its structure (_plan_if / _plan_loop)
        if isinstance(t, (MonadType, TupleType)):
            p.storage[id(n)] = Storage("none")
        elif isinstance(t, ScalarType):
            p.storage[id(n)] = Storage("local")
        elif n.op is ir.GETITEM:
            p.storage[id(n)] = req or Storage("slot", nbytes=nbytes(t))
        elif _aliases(n.op) or (req is None and (reduces_in_place(self.block_nodes, n, p.storage)
                                                 or views.row_view(self, n) or views.strided_view(self, n))):
            p.storage[id(n)] = Storage("alias", base=n.inputs[0])
        elif _static_result(n.op):
            p.storage[id(n)] = Storage("static", name=_static_result(n.op))
        else:
            p.storage[id(n)] = req or Storage("slot", nbytes=nbytes(t))

    # -- 2b. Assigns in place ------------------------------------------------------------------------------
    def _inplace_assigns(self, block: ir.Block):
        """`ops.assign(p, f(p, ...))` with f elementwise: compute the value straight into p's
        buffer, so the update needs no temporary and no copy (an optimizer step rewrites each
        Parameter and its state in one pass). Safe when every other read of p's old content runs
        before the kernel, the kernel reads p at the index it writes (same shape, one phase),
        and nothing writes p again while the value is still read."""
        nodes = block.nodes
        pos = {id(n): i for i, n in enumerate(nodes)}
        for ia, a in enumerate(nodes):
            if not ir.is_op(a, _assign_op()):
                continue
            ref, val = a.inputs[0], a.inputs[1]
            if not isinstance(ref, ir.Param) or not isinstance(ref.type, RefType) or id(val) not in pos:
                continue
            if val.type != ref.type.tensor or id(val) in self.requested:
                continue
            producer, k = (val.inputs[0], val.attrs["index"]) if val.op is ir.GETITEM else (val, None)
            if id(producer) not in pos or not _inplace_kernel(producer, k):
                continue
            if self._inplace_safe(nodes, pos, ref, val, producer, ia):
                self.requested[id(val)] = self.plan.storage[id(ref)]
                if k is not None:
                    self.plan.inplace_results.setdefault(id(producer), set()).add(k)

    def _inplace_safe(self, nodes, pos, ref, val, producer, ia) -> bool:
        ip = pos[id(producer)]
        # the values that are p's memory (Loads of p, and views of them)
        aliases, frontier = set(), [n for n in nodes[:ia] if ir.is_op(n, _load_op()) and n.inputs[0] is ref]
        aliases.update(id(n) for n in frontier)
        readers = []
        while frontier:
            v = frontier.pop()
            for m in nodes:
                if not any(i is v for i in _reads(m)):
                    continue
                if _aliases(m.op) and m.inputs[0] is v and not ir.is_op(m, _assign_op()):
                    if id(m) not in aliases:
                        aliases.add(id(m))
                        frontier.append(m)
                elif not ir.is_op(m, _update_state_op()):
                    readers.append(m)
        for m in readers:
            if m is producer:
                if not _reads_elementwise(producer, aliases, val.type):
                    return False
            elif pos[id(m)] >= ip:
                return False
        # nothing else touches p from the kernel until the value's last reader
        last = max([pos[id(m)] for m in nodes if any(i is val for i in _reads(m))] + [ia])
        for m in nodes[ip + 1:last + 1]:
            if m is not nodes[ia] and any(i is ref for i in _reads(m)):
                return False
        return True

    def _plan_if(self, n: ir.Node):
        p = self.plan
        outs = self.getitems.get(id(n), {})
        places = []
        for k, t in enumerate(n.type.elems):
            g = outs.get(k)
            if isinstance(t, TensorType):
                s = self.requested.pop(id(g), None) if g is not None else None
                s = s or Storage("slot", nbytes=nbytes(t))
                if g is not None:
                    p.storage[id(g)] = s
            else:
                s = None
                if g is not None:
                    p.storage[id(g)] = Storage("local") if isinstance(t, ScalarType) else Storage("none")
            places.append(s)
        for b in n.blocks:
            mine = {id(m) for m in b.nodes}
            for k, r in enumerate(b.results):
                s = places[k]
                if s is not None and id(r) in mine and self._eligible(r) and id(r) not in self.requested:
                    self.requested[id(r)] = s
            self.assign_block(b)

    def _plan_loop(self, n: ir.Node):
        p = self.plan
        body = n.blocks[-1]
        lead = 1 if n.op is ir.FOR else 0
        carried = body.params[lead:]
        outs = self.getitems.get(id(n), {})
        info = []
        mine = {id(m) for m in body.nodes}
        for k, prm in enumerate(carried):
            t = prm.type
            g = outs.get(k)
            if isinstance(t, TensorType):
                cur = Storage("dyn", name=f"L{nid(n)}_cur{k}")
                nxt = Storage("dyn", name=f"L{nid(n)}_nxt{k}")
                s0 = Storage("slot", nbytes=nbytes(t))
                s1 = Storage("slot", nbytes=nbytes(t))
                p.storage[id(prm)] = cur
                if g is not None:
                    p.storage[id(g)] = cur
                r = body.results[k]
                if id(r) in mine and self._eligible(r) and id(r) not in self.requested:
                    if _inplace_carried(r, prm, body, self.float_status):
                        self.requested[id(r)] = cur
                        p.inplace_carried.setdefault(id(n), set()).add(k)
                        out = self.loop_results.get(id(g)) if g is not None else None
                        if out is not None and k in n.attrs.get("fills", ()):
                            p.loop_outputs[(id(n), k)] = out
                            p.storage[id(g)] = out
                    else:
                        self.requested[id(r)] = nxt
                info.append((cur, nxt, s0, s1))
            else:
                p.storage[id(prm)] = Storage("local") if isinstance(t, ScalarType) else Storage("none")
                if g is not None:
                    p.storage[id(g)] = Storage("local") if isinstance(t, ScalarType) else Storage("none")
                info.append(None)
        if lead:
            p.storage[id(body.params[0])] = Storage("local")
        if n.op is ir.WHILE:
            cond = n.blocks[0]
            for k, prm in enumerate(cond.params):
                p.storage[id(prm)] = p.storage[id(carried[k])]
            self.loop_inits[id(n)] = n.inputs
        else:       # a For runs its body, but a carried value the body passes through stays its init
            self.loop_inits[id(n)] = tuple(init if r is prm else None for init, r, prm in
                                           zip(n.inputs[3:], body.results, carried))
        p.loops[id(n)] = info
        for b in n.blocks:
            self.assign_block(b)

    # -- 3. liveness ---------------------------------------------------------------------------------------
    def _use(self, v, at):
        if isinstance(v, (ir.Const, tuple)):
            return
        self.last[id(v)] = max(self.last.get(id(v), -1), at)
        for start, used in self.loop_frames:
            if self.defs.get(id(v), 1 << 60) < start:
                used.append(v)

    def walk(self, block: ir.Block):
        for n in block.nodes:
            self.pos += 1
            here = self.pos
            self.defs[id(n)] = here
            if n.op is ir.GETITEM and isinstance(n.inputs[0], ir.Node):
                self.defs[id(n)] = self.defs[id(n.inputs[0])]
            for i in n.inputs:
                self._use(i, here)
            if n.blocks:
                is_loop = n.op in (ir.FOR, ir.WHILE)
                frame = (here, [])
                if is_loop:
                    self.loop_frames.append(frame)
                for b in n.blocks:
                    for prm in b.params:
                        self.defs[id(prm)] = here
                    self.walk(b)
                self.pos += 1
                end = self.pos
                if is_loop:
                    self.loop_frames.pop()
                    for v in frame[1]:
                        self._use(v, end)
                for i in n.inputs:
                    self._use(i, end)
                self.ends[id(n)] = end
        self.pos += 1
        for r in block.results:
            self._use(r, self.pos)

    # -- 4. arena --------------------------------------------------------------------------------------------
    def allocate(self):
        p = self.plan
        spans: dict = {}

        def span(s: Storage, start: int, end: int):
            cur = spans.get(id(s))
            spans[id(s)] = (s, min(start, cur[1]) if cur else start, max(end, cur[2]) if cur else end)

        def owner(v):
            s = p.storage.get(id(v))
            while s is not None and s.kind == "alias":
                v = s.base
                s = p.storage.get(id(v))
            return v, s

        # a While that runs no iteration returns its initial tensors: they live as long as its outputs
        # (to a fixpoint: the output of one loop can be the initial value of another)
        changed = bool(self.loop_inits)
        while changed:
            changed = False
            for lid, inits in self.loop_inits.items():
                end = self.ends[lid]
                for e, init in zip(p.loops[lid], inits):
                    if e is None or init is None or isinstance(init, ir.Const):
                        continue
                    last_out = max([self.last.get(vid, end) for vid, s in p.storage.items() if s is e[0]] + [end])
                    if last_out > self.last.get(id(init), -1):
                        self.last[id(init)] = last_out
                        changed = True
        # aliases keep their owner alive
        for vid, s in list(p.storage.items()):
            if s.kind == "alias" and vid in self.last:
                v, so = owner(s.base)
                if so is not None:
                    self.last[id(v)] = max(self.last.get(id(v), -1), self.last[vid])
        for vid, s in p.storage.items():
            if s.kind != "slot":
                continue
            start = self.defs.get(vid, 0)
            span(s, start, max(self.last.get(vid, start), start))
        for node_id, s in p.scratch.items():
            span(s, self.defs[node_id], self.defs[node_id])
        for lid, info in p.loops.items():
            start, end = self.defs[lid], self.ends[lid]
            last_out = end
            for k, e in enumerate(info):
                if e is None:
                    continue
                cur, nxt, s0, s1 = e
                if (lid, k) in p.loop_outputs:
                    continue
                for vid, s in p.storage.items():
                    if s is cur:
                        last_out = max(last_out, self.last.get(vid, end))
                span(s0, start, last_out)
                span(s1, start, last_out)
        if DYNAMIC[0] is not None:
            return DYNAMIC[0].allocate(p, list(spans.values()))
        items = sorted(spans.values(), key=lambda x: (x[1], -x[0].nbytes))
        free: list = []
        active: list = []
        top = 0
        for s, start, end in items:
            keep = []
            for a in active:
                (free if a[0] < start else keep).append(a[1:] if a[0] < start else a)
            active = keep
            need = max((s.nbytes + ALIGN - 1) // ALIGN * ALIGN, ALIGN)
            best = None
            for i, (off, size) in enumerate(free):
                if size >= need and (best is None or size < free[best][1]):
                    best = i
            if best is not None:
                off, size = free.pop(best)
                if size > need:
                    free.append((off + need, size - need))
            else:
                off, top = top, top + need
            s.offset = off
            active.append((end, off, need))
        p.arena_size = top


# ---- loop-carried tensors updated in place -------------------------------------------------------
def _is_for(v) -> bool:
    return isinstance(v, ir.Node) and v.op is ir.FOR


def _row_update(n) -> bool:
    """A scatter of rows into its first input (TensorScatterUpdate / Add): its C copies the
    input only when its output is elsewhere, so computed into the input's own buffer it writes
    just the rows."""
    lower = _lower(n.op)
    return isinstance(lower, Template) and lower.name == "scatter_nd"


def _inplace_carried(r, prm, body: ir.Block, float_status: bool = False) -> bool:
    """The loop body's new value of carried `prm` is `r`, a row update of prm or a product added to
    prm (`_accumulating_product`), and every other reader of prm runs before it and keeps no view
    of it: the update may write into prm's buffer (`ys[t] = h` and the cotangent of a per-step row
    then cost a row per iteration, not the whole tensor twice; a weight gradient summed over a
    reverse loop's steps is added into one buffer instead of copied to the other of two each step:
    W11's recurrent weights, 1 MB a step)."""
    if isinstance(r, ir.Node) and _row_update(r) and r.inputs[0] is prm:
        writer, others = r, r.inputs[1:]
    elif _accumulating_product(r, prm, float_status):
        writer, others = r.inputs[0], ()
    else:
        return False
    if any(i is prm for i in others) or any(x is prm for x in body.results):
        return False
    pos = {id(m): i for i, m in enumerate(body.nodes)}
    if id(r) not in pos or id(writer) not in pos:
        return False
    for i, m in enumerate(body.nodes):
        if m is r or m is writer or not _reads_value(m, prm):
            continue
        if i > pos[id(writer)] or _aliases(m.op) or (m.blocks and m.op is not ir.FUSED):
            return False
    return True


def _accumulating_product(r, prm, float_status: bool) -> bool:
    """r is the only result of a fused product whose whole epilogue is `prm + product`, which the
    product code makes by adding into its output starting from prm (kernels.gemm's `addend`: BLAS
    with beta = 1; no copy when the output is prm's buffer): float32 / float64, off the small-product
    kernel (it stores the product before the epilogue adds), K > 0, no float-status scan."""
    from pycompile.backend.c.ops import kernels
    from pycompile.common import dtype as mstype
    if float_status or not (isinstance(r, ir.Node) and r.op is ir.GETITEM and r.attrs.get("index") == 0):
        return False
    f = r.inputs[0]
    if not (isinstance(f, ir.Node) and f.op is ir.FUSED) or len(f.blocks[0].results) != 1:
        return False
    block = f.blocks[0]
    head = fused_head(block)
    if head is None or not isinstance(_lower(head.op), Blas) or len(block.nodes) != 2:
        return False
    add = block.results[0]
    if add is head or add.op.name != "Add" or len(add.inputs) != 2 or add.type != head.type:
        return False
    outer = {id(p): v for p, v in zip(block.params, f.inputs)}
    others = [x for x in add.inputs if x is not head]
    if len(others) != 1 or outer.get(id(others[0])) is not prm or others[0] in head.inputs:
        return False
    if sum(1 for v in f.inputs if v is prm) != 1:
        return False
    a, b = head.inputs
    dt = head.type.dtype
    ta, tb = head.attrs.get("transpose_a", False), head.attrs.get("transpose_b", False)
    K = a.type.shape[-2] if ta else a.type.shape[-1]
    return (dt in (mstype.float32, mstype.float64) and a.type.dtype is dt and b.type.dtype is dt and K > 0
            and not kernels.small_kernel(a.type, b.type, head.type, ta, tb))


def _reads_value(n, v) -> bool:
    """n reads v, directly or from inside its nested blocks."""
    if any(i is v for i in n.inputs):
        return True
    return any(_reads_value(m, v) for b in n.blocks for m in b.nodes) or \
        any(x is v for b in n.blocks for x in b.results)


def _ancestors(node, block: ir.Block) -> set:
    """ids of the block's nodes that `node` reads, directly or through others."""
    inside = {id(m): m for m in block.nodes}
    seen: set = set()
    todo = list(node.inputs)
    while todo:
        v = todo.pop()
        if id(v) in inside and id(v) not in seen:
            seen.add(id(v))
            todo.extend(v.inputs)
    return seen


def _assign_op():
    from pycompile.ops import prims as P
    return P.Assign


def _load_op():
    from pycompile.ops import prims as P
    return P.Load


def _inplace_kernel(producer, k) -> bool:
    """Does this node compute its result k with one elementwise pass that can write over an
    input: a lone elementwise op, or a fused block of elementwise ops (no loop phases) whose
    result k is not its head (a matrix product keeps its own buffer then)."""
    if k is None:
        return isinstance(producer, ir.Node) and _elementwise(producer.op)
    if producer.op is not ir.FUSED:
        return False
    block = producer.blocks[0]
    head = fused_head(block)
    if head is not None and (not isinstance(_lower(head.op), Blas) or block.results[k] is head
                             or any(m is not head and not _elementwise(m.op) for m in block.nodes)):
        return False
    if head is None and not all(_elementwise(m.op) for m in block.nodes):
        return False
    return head is None or id(block.results[k]) not in _ancestors(head, block)


def _reads_elementwise(producer, aliases: set, out_type) -> bool:
    """The kernel reads each alias of the Parameter at the element it writes: as a full-shape
    input (no broadcast)."""
    if producer.op is ir.FUSED:
        block = producer.blocks[0]
        return all(prm.type == out_type for prm, v in zip(block.params, producer.inputs) if id(v) in aliases)
    return all(v.type == out_type for v in producer.inputs if id(v) in aliases)


def fused_head(block: ir.Block):
    """The head of a fused block: its matrix product, or a row reduction with elementwise
    consumers in the block (passes/fusion._row_head); None otherwise. A reduction whose only
    fused members are its producers is not a head: it ends its block."""
    for m in block.nodes:
        if isinstance(_lower(m.op), Blas):
            return m
    for m in block.nodes:
        if isinstance(_lower(m.op), Template) and any(m in x.inputs for x in block.nodes):
            return m
    return None


def head_destination(block: ir.Block, used: set, avoid=()):
    """(head, kind, k) for a fused block with a head (fused_head): kind 'output' when the head's
    value is the block's result k, 'alias' when used result k has the head's type (the epilogue
    then runs in place on it), 'temp' otherwise; (None, None, None) without a head. `used`:
    indices of results the caller reads; `avoid`: results written into a Parameter in place
    (Plan.inplace_results), which the head must not use as its buffer."""
    head = fused_head(block)
    if head is None:
        return None, None, None
    for k, r in enumerate(block.results):
        if r is head and k in used:
            return head, "output", k
    for k, r in enumerate(block.results):
        if k in used and k not in avoid and r is not head and r.type == head.type:
            return head, "alias", k
    return head, "temp", None


def gemm_addend(kind, head, epi_nodes, epi_results, outer):
    """The value X (outside the fused block) when a product's whole epilogue is `out = X +
    product` written over the product's own buffer (kind 'alias'; a weight gradient summed over a
    reverse loop's steps): the GEMM then adds into a copy of X (beta = 1, backend/c/ops/kernels.gemm)
    instead of a second pass over both. None otherwise. `outer`: id(block param) -> its value."""
    if kind != "alias" or len(epi_nodes) != 1 or len(epi_results) != 1:
        return None
    add = epi_nodes[0]
    if add.op.name != "Add" or epi_results[0] is not add or len(add.inputs) != 2 or add.type != head.type:
        return None
    others = [x for x in add.inputs if x is not head]
    if len(others) != 1 or id(others[0]) not in outer or others[0].type != head.type:
        return None
    return outer[id(others[0])]


def gemm_folds(kind, k_dest, head, block: ir.Block, epi_nodes, outer):
    """(value, bias, residual) when a product's epilogue starts with the additions of a Dense layer
    and a residual connection - `value = residual + (product + bias)`, either addition alone - that
    the product kernel can make as it stores (kernels.gemm's `bias` and `residual`): bias a block
    input of N values broadcast over the rows, residual a block input of the product's type, each
    intermediate read by nothing else. The epilogue keeps the rest, reading `value` where it read
    the product. None when there is nothing to fold - also when a folded value is a result the
    product's buffer is not (it would need its own copy)."""
    if kind not in ("alias", "temp") or any(r is head for r in block.results):
        return None
    n = head.type.shape[-1]

    def sole_add(v):
        users = [m for m in epi_nodes if any(i is v for i in m.inputs)]
        if len(users) != 1 or any(r is v for r in block.results):
            return None, None
        add = users[0]
        if add.op.name != "Add" or len(add.inputs) != 2 or add.type != head.type or add.inputs[0] is add.inputs[1]:
            return None, None
        if any(r is add for r in block.results) and (kind != "alias" or block.results[k_dest] is not add):
            return None, None
        other = add.inputs[1] if add.inputs[0] is v else add.inputs[0]
        return (add, other) if id(other) in outer else (None, None)

    value, bias, residual = head, None, None
    add, other = sole_add(value)
    t = other.type if add is not None else None
    if (add is not None and isinstance(t, TensorType) and t.dtype is head.type.dtype and t.shape
            and len(t.shape) <= len(head.type.shape) and t.shape[-1] == n and int(np.prod(t.shape)) == n):
        value, bias = add, other
        add, other = sole_add(value)
    if add is not None and other.type == head.type:
        value, residual = add, other
    return None if value is head else (value, bias, residual)


def plan_graph(graph: ir.Graph, sub_arena: dict | None = None, float_status: bool = False) -> Plan:
    pl = Planner(graph, sub_arena, float_status)
    pl.ends = {}
    pl.arguments()
    pl.assign_block(graph.body)
    pl.walk(graph.body)
    pl.allocate()
    pl.plan.updates = _update_stats(pl.plan, graph.body)
    return pl.plan


def _update_stats(plan: Plan, block: ir.Block) -> tuple:
    """(Assigns to Parameters, of them in place, arena bytes of the others' values) in `block` and
    the blocks nested in it."""
    n = inplace = temp = 0
    for node in block.nodes:
        for b in node.blocks:
            sub = _update_stats(plan, b)
            n, inplace, temp = n + sub[0], inplace + sub[1], temp + sub[2]
        if not ir.is_op(node, _assign_op()) or not isinstance(node.inputs[0], ir.Param):
            continue
        ref, val = node.inputs[0], node.inputs[1]
        n += 1
        if plan.storage.get(id(val)) is plan.storage.get(id(ref)):
            inplace += 1
        elif getattr(plan.storage.get(id(val)), "kind", None) == "slot":
            temp += nbytes(val.type)
    return n, inplace, temp
