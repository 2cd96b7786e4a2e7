"""Elementwise fusion: chains of elementwise nodes over one shape become one `Fused` node,
which codegen emits as a single tiled loop nest (compiler/codegen/elementwise.py).

Grouping starts from the last elementwise node of a block and absorbs producers that have the
group's shape. A producer joins only if every user outside the group comes after the group's
position (the group runs where its last member was), so moving work later can never create a
cycle or run a consumer before its producer; such a producer becomes an extra output. An
effect-free `For` loop whose body is elementwise over the group's shape joins as a whole:
codegen then runs the iterations inside each tile (the loop order that makes W1 fast).

Guarantees: the schedule stays topological; effects (Assign, Print, UpdateState) never join a
group; a group reads a Parameter at the group's position, which is why `load_elim` runs first.
"""
from __future__ import annotations

from pycompile.common import dtype as mstype
from pycompile.common.abstract import MonadType, ScalarType, TensorType, TupleType
from pycompile.compiler import ir
from pycompile.compiler.passes._rewrite import Rewriter
from pycompile.ops._table import Effect, Kind, OpDef
from pycompile.ops.lowering import Blas, Elementwise, Template


def _ew(n, shape=None) -> bool:
    if not isinstance(n, ir.Node) or not isinstance(n.op, OpDef):
        return False
    if n.op.kind is not Kind.ELEMENTWISE or n.op.effect is not Effect.PURE or n.blocks:
        return False
    if not isinstance(n.type, TensorType) or n.type.size == 0:
        return False
    return shape is None or n.type.shape == shape


def _loop_fusable(n, shape) -> bool:
    """An effect-free For whose body is elementwise over `shape` (its index may be used)."""
    if not isinstance(n, ir.Node) or n.op is not ir.FOR or n.attrs.get("exit_flags"):
        return False
    if not all(isinstance(i, ir.Const) for i in n.inputs[:3]):
        return False
    body = n.blocks[0]
    carried = body.params[1:]
    if not carried or not isinstance(carried[-1].type, MonadType) or body.results[-1] is not carried[-1]:
        return False
    for p in carried[:-1]:
        if not isinstance(p.type, TensorType) or p.type.shape != shape:
            return False
    for m in body.nodes:
        if _ew(m, shape):
            continue
        if isinstance(m.op, OpDef) and m.op.kind is Kind.ELEMENTWISE and isinstance(m.type, ScalarType):
            continue
        return False
    return True


def _cheap(n) -> bool:
    """An elementwise node that calls no transcendental function: recomputing it on each pass
    of a multi-pass reduction costs less than storing and re-reading a temporary."""
    lower = getattr(n.op, "lower", None)
    return isinstance(lower, Elementwise) and not lower.transcendental


def _multi_pass(n) -> bool:
    return n.op.lower.passes > 1


def _reduction_root(n) -> bool:
    """A reduction whose input can be computed by fused elementwise producers (a prologue):
    codegen's reduction templates read that input through an inline expression."""
    return (isinstance(n, ir.Node) and isinstance(n.op, OpDef) and isinstance(n.op.lower, Template)
            and n.op.lower.prologue and isinstance(n.inputs[0].type, TensorType)
            and n.inputs[0].type.size > 0 and isinstance(n.type, TensorType))


def _row_head(n, shape) -> bool:
    """A reduction over the last axis of a `shape` input that yields one value (sum / mean / max
    / min / all / any with keep_dims) or one row (softmax, log_softmax, LayerNorm) per row of
    the (rows, shape[-1]) view: it can head a group whose elementwise consumers run on each
    chunk of rows right after the chunk is reduced (codegen.emit_fused_head)."""
    if not _reduction_root(n) or not shape or n.inputs[0].type.shape != shape:
        return False
    per_row = n.op.lower.per_row
    return per_row is not None and per_row(n.attrs, shape, n.type.shape)


def _prologue(head, members, users, pos, grouped) -> dict:
    """The elementwise producers only `head` reads (transitively) that can be computed inline
    where it reads its input: none of them is stored. Multi-pass templates take only cheap ones."""
    shape = head.inputs[0].type.shape
    pro: dict = {}
    todo = [head.inputs[0]]
    while todo:
        p = todo.pop()
        if not _ew(p, shape) or id(p) in members or id(p) in pro or id(p) in grouped or id(p) not in pos:
            continue
        if id(p) in users.results or any(u is not head and id(u) not in pro for u in users.get(p)):
            continue
        if _multi_pass(head) and not _cheap(p):
            continue
        pro[id(p)] = p
        todo.extend(p.inputs)
        # a producer met earlier may now have all its users inside: look at it again
        todo.extend(q for q in pro.values() for q in q.inputs)
    return pro


def _per_row(n, shape) -> bool:
    """A cheap elementwise node over one value per row of `shape` ((..., 1) where shape is
    (..., C)): a group over `shape` computes it inline where it is broadcast."""
    return (len(shape) >= 1 and shape[-1] > 1 and _ew(n, tuple(shape[:-1]) + (1,)) and _cheap(n)
            and all(not isinstance(i.type, TensorType) or i.type.shape == n.type.shape or i.type.size == 1
                    for i in n.inputs))


def _gemm_head(n, shape) -> bool:
    """A float matrix product BLAS computes, with the group's shape: it can head a group whose
    other members become its epilogue (compiler/codegen/kernels.gemm)."""
    if not isinstance(n, ir.Node) or not isinstance(n.op, OpDef) or not isinstance(n.op.lower, Blas):
        return False
    t = n.type
    return (isinstance(t, TensorType) and t.shape == shape and t.size > 0 and t.dtype in (mstype.float32, mstype.float64)
            and all(isinstance(i.type, TensorType) and i.type.dtype is t.dtype for i in n.inputs))


def epilogue_strides(in_shape, out_shape):
    """(row stride, inner stride, row period) of an epilogue input in the (rows, N) view of
    `out_shape`: row r reads at ((r % period) * row stride). None if the input varies over the
    row dimensions in another way. period covers inputs that repeat over leading batch
    dimensions, e.g. a (seq, seq) attention mask added to (batch, seq, seq) scores."""
    nd = len(out_shape)
    shape = (1,) * (nd - len(in_shape)) + tuple(in_shape)
    lead, last = shape[:-1] if nd else (), shape[-1] if nd else 1
    out_lead = tuple(out_shape[:-1])
    n = out_shape[-1] if nd else 1
    inner = 0 if last == 1 and n != 1 else 1
    stride = n if inner else 1
    if all(d == 1 for d in lead):
        return 0, inner, 1
    for k in range(len(lead)):
        # leading dims of 1, then exactly the output's trailing row dims
        if all(d == 1 for d in lead[:k]) and tuple(lead[k:]) == out_lead[k:]:
            period = 1
            for d in out_lead[k:]:
                period *= d
            return stride, inner, period
    return None


def _epilogue_ok(members, shape) -> bool:
    """Every value the epilogue reads from outside has a layout the row-chunk driver handles."""
    inside = set(members)
    for m in members.values():
        if _gemm_head(m, shape) or _row_head(m, shape):
            continue
        if m.op is ir.FOR or m.op is ir.GETITEM:
            return False                       # loops are not run inside GEMM epilogues
        for i in m.inputs:
            if id(i) in inside or not isinstance(i.type, TensorType):
                continue
            if epilogue_strides(i.type.shape, shape) is None:
                return False
    return True


def _getitem_parent(n):
    if isinstance(n, ir.Node) and n.op is ir.GETITEM and isinstance(n.inputs[0], ir.Node):
        return n.inputs[0]
    return None


class _Users:
    def __init__(self, block: ir.Block):
        self.of: dict = {}
        for n in block.nodes:
            for i in n.inputs:
                self.of.setdefault(id(i), []).append(n)
            for b in n.blocks:
                for m in ir.iter_nodes(b):
                    for i in m.inputs:
                        self.of.setdefault(id(i), []).append(n)
                for blk in _blocks_in(b):      # results of every nested block, not only the first level
                    for r in blk.results:
                        self.of.setdefault(id(r), []).append(n)
        self.results = {id(r) for r in block.results}

    def get(self, v):
        return self.of.get(id(v), [])


def _blocks_in(block: ir.Block):
    yield block
    for n in block.nodes:
        for b in n.blocks:
            yield from _blocks_in(b)


def _strip_u(loop: ir.Node) -> ir.Node:
    """The loop without its memory-state carried value (it has no effects)."""
    body = loop.blocks[0]
    nb = ir.Block(body.params[:-1], body.nodes, body.results[:-1])
    t = TupleType(loop.type.elems[:-1])
    return ir.Node(op=ir.FOR, inputs=loop.inputs[:-1], type=t, attrs=loop.attrs, blocks=(nb,), loc=loop.loc,
                   uid=loop.uid)


def _group_block(block: ir.Block, gemm_epilogues: bool = True) -> ir.Block:
    nodes = list(block.nodes)
    pos = {id(n): i for i, n in enumerate(nodes)}
    users = _Users(block)
    grouped: set = set()
    groups = []
    for root in reversed(nodes):
        if id(root) in grouped:
            continue
        parent = _getitem_parent(root)
        reduction = _reduction_root(root)
        if _ew(root):
            shape = root.type.shape
        elif parent is not None and parent.op is ir.FOR and isinstance(root.type, TensorType) \
                and _loop_fusable(parent, root.type.shape):
            shape = root.type.shape
        elif reduction:
            shape = root.inputs[0].type.shape      # the prologue runs over the reduction's input
        else:
            continue
        members = {id(root): root}
        root_pos = pos[id(root)]

        gemm_inputs: set = set()      # values the group's head (GEMM / row reduction) reads: they cannot join
        head = None

        def can_join(p) -> bool:
            if id(p) not in pos or id(p) in grouped or id(p) in members or id(p) in gemm_inputs:
                return False
            for u in users.get(p):
                if id(u) not in members and (reduction or pos.get(id(u), 1 << 30) <= root_pos):
                    return False        # a reduction's prologue is computed inline, never stored
            if reduction and id(p) in users.results:
                return False
            if reduction and _multi_pass(root) and not _cheap(p):
                return False
            return True

        changed = True
        while changed:
            changed = False
            for m in list(members.values()):
                cands = list(m.inputs)
                if m is root and reduction:
                    cands = [m.inputs[0]]              # only the reduced input has a prologue
                if m.op is ir.FOR:
                    # its initial values, and outer values its body reads
                    cands = list(m.inputs[3:])
                    for x in ir.iter_nodes(m.blocks[0]):
                        cands.extend(x.inputs)
                for i in cands:
                    if _ew(i, shape) and can_join(i):
                        members[id(i)] = i
                        changed = True
                        continue
                    if not reduction and _per_row(i, shape) and can_join(i) and id(i) not in users.results \
                            and all(id(u) in members for u in users.get(i)):
                        # one value per row (`ops.sqrt(var + eps)` after a row mean): recomputed
                        # for each element it broadcasts to, which costs less than a kernel of its
                        # own, and lets the reduction before it head this group
                        members[id(i)] = i
                        changed = True
                        continue
                    if not reduction and ((gemm_epilogues and _gemm_head(i, shape)) or _row_head(i, shape)) and not gemm_inputs \
                            and can_join(i) and not any(id(x) in members for x in i.inputs):
                        members[id(i)] = i            # the group's epilogue runs on its row chunks
                        gemm_inputs.update(id(x) for x in i.inputs)
                        head = i
                        changed = True
                        continue
                    loop = _getitem_parent(i)
                    if not reduction and loop is not None and loop.op is ir.FOR and id(loop) not in members \
                            and _loop_fusable(loop, shape) and can_join(loop):
                        outs = [u for u in users.get(loop)]
                        ok = all(u.op is ir.GETITEM for u in outs)
                        ok = ok and all(isinstance(u.type, TensorType) or not users.get(u) for u in outs)
                        ok = ok and all(can_join(u) or id(u) in members for u in outs if isinstance(u.type, TensorType))
                        if ok:
                            members[id(loop)] = loop
                            for u in outs:
                                members[id(u)] = u
                            changed = True
            if parent is not None and id(parent) not in members:
                members[id(parent)] = parent
                for u in users.get(parent):
                    if u.op is ir.GETITEM and (isinstance(u.type, TensorType) or not users.get(u)):
                        members[id(u)] = u
                changed = True
        if head is not None and not _epilogue_ok(members, shape):
            members = {k: m for k, m in members.items() if m is not head}
            head = None
            if id(root) not in members:
                continue
        if head is not None and isinstance(head.op.lower, Template):
            members.update(_prologue(head, members, users, pos, grouped))
        n_ops = sum(1 for m in members.values() if m.op is not ir.GETITEM)
        if n_ops < 2 and not any(m.op is ir.FOR for m in members.values()):
            continue
        grouped.update(members)
        groups.append((root, shape, members))
    if not groups:
        return block
    return _build(block, nodes, pos, users, groups)


def _build(block, nodes, pos, users, groups):
    replace: dict = {}       # id(root) -> [Fused, GetItems...]
    dropped: set = set()
    remap: dict = {}
    for root, shape, members in groups:
        order = sorted(members.values(), key=lambda m: pos[id(m)])
        inside = set(members)
        for m in order:
            if m.op is ir.FOR:
                for b in m.blocks:
                    inside.update(id(p) for p in b.params)
                    inside.update(id(x) for x in ir.iter_nodes(b))
        ext, seen = [], set()

        def note(v):
            if id(v) in inside or id(v) in seen:
                return
            if isinstance(v, ir.Const) and not isinstance(v.type, TensorType):
                return
            if isinstance(v.type, MonadType):
                return
            seen.add(id(v))
            ext.append(v)
        for m in order:
            ins = m.inputs[:-1] if m.op is ir.FOR else m.inputs
            for i in ins:
                note(i)
            for b in m.blocks:
                for x in ir.iter_nodes(b):
                    for i in x.inputs:
                        note(i)
                for blk in _blocks_in(b):
                    for r in blk.results:
                        note(r)
        params = [ir.Param(name=f"in{k}", type=v.type) for k, v in enumerate(ext)]
        rw = Rewriter()
        for v, p in zip(ext, params):
            rw.map[v] = p
        rw._out.append([])
        for m in order:
            if m.op is ir.FOR:
                m2 = _strip_u(m)
                new_inputs = tuple(rw.get(i) for i in m2.inputs)
                new_blocks = tuple(rw.block(b) for b in m2.blocks)
                rw.map[m] = rw.emit(ir.Node(op=ir.FOR, inputs=new_inputs, type=m2.type, attrs=m2.attrs,
                                            blocks=new_blocks, loc=m.loc))
            elif m.op is ir.GETITEM and isinstance(m.type, MonadType):
                continue                 # the stripped loop has no memory state
            elif m.op is ir.GETITEM:
                rw.map[m] = rw.emit(ir.Node(op=ir.GETITEM, inputs=(rw.get(m.inputs[0]),), type=m.type,
                                            attrs=m.attrs, loc=m.loc))
            else:
                rw.map[m] = rw.emit(rw.rebuild(m, tuple(rw.get(i) for i in m.inputs), ()))
        body_nodes = rw._out.pop()
        outputs = []
        for m in order:
            if m.op is ir.FOR or not isinstance(m.type, TensorType):
                continue
            # any(): a value shared by the whole program (an input) has O(program) users
            external = any(id(u) not in members for u in users.get(m)) or id(m) in users.results
            if external or m is root:
                outputs.append(m)
        fblock = ir.Block(tuple(params), tuple(body_nodes), tuple(rw.get(m) for m in outputs))
        fused = ir.Node(op=ir.FUSED, inputs=tuple(ext), type=TupleType(tuple(m.type for m in outputs)),
                        attrs={"shape": shape}, blocks=(fblock,), loc=root.loc)
        gets = [ir.Node(op=ir.GETITEM, inputs=(fused,), type=m.type, attrs={"index": k}, loc=m.loc)
                for k, m in enumerate(outputs)]
        for m, g in zip(outputs, gets):
            remap[m] = g
        replace[id(root)] = [fused, *gets]
        dropped.update(k for k in members if k != id(root))
    new_nodes = []
    for n in nodes:
        if id(n) in replace:
            new_nodes.extend(replace[id(n)])
        elif id(n) not in dropped:
            new_nodes.append(n)
    fix = Rewriter()
    fix.map.update(remap)
    fixed = ir.Block(block.params, tuple(new_nodes), block.results)
    # rewrite users of the replaced members (Fused nodes themselves reference outer values only)
    return fix.block(fixed)


class Fusion(Rewriter):
    def __init__(self, gemm_epilogues: bool = True):
        super().__init__()
        self.gemm_epilogues = gemm_epilogues

    def block(self, b: ir.Block) -> ir.Block:
        b2 = super().block(b)
        return _group_block(b2, self.gemm_epilogues)


def fusion(graph: ir.Graph, gemm_epilogues: bool = True) -> ir.Graph:
    """gemm_epilogues=False (PYCOMPILE_FAST_PATHS=0): a matrix product heads no group, its
    consumers run as a loop of their own (the composition the GEMM epilogue fast path equals)."""
    return Fusion(gemm_epilogues).run(graph)
