"""Convolution epilogues: a convolution and the elementwise ops that consume only its output
(bias, an eval-mode BatchNorm's scale and shift, ReLU / ReLU6 / SiLU / any activation, a
residual add, another activation) become one FusedConv node, whose kernel applies them to each
output tile in registers before storing it (backend/c/ops/conv.py) - no pass over the output per op.

The group grows in schedule order from the convolution: an elementwise op of the convolution's
shape and dtype joins when one of its inputs is in the group and each other input is a number,
a one-element tensor, a per-channel tensor (it varies along axis 1 only: (1, K, 1, 1), (K, 1, 1))
or a tensor of the output's shape (a residual). The largest prefix of those whose members are
read only inside the group - except the last one, the group's result - is fused. When the
first op multiplies by a per-channel tensor (BatchNorm's scale), the kernel folds it into the
packed weights.

Guarantees: the FusedConv sits where the group's last member was; the convolution moves there,
so no node with an effect (an Assign that could change a Parameter it reads) may lie between;
values computed once stay computed once (no member is recomputed).
"""
from __future__ import annotations

from pycompile.common import dtype as mstype
from pycompile.common.abstract import ScalarType, TensorType
from pycompile.compiler import ir
from pycompile.compiler.passes._rewrite import Rewriter
from pycompile.ops import prims as P
from pycompile.ops._table import Effect, Kind, OpDef
from pycompile.ops.lowering import Elementwise

CONVS = (P.Conv2D, P.Conv3D)


def _is_conv(n) -> bool:
    return isinstance(n, ir.Node) and n.op in CONVS and n.type.dtype in (mstype.float32, mstype.float64) \
        and n.type.size > 0


def _elementwise(n, t) -> bool:
    return (isinstance(n, ir.Node) and isinstance(n.op, OpDef) and n.op.kind is Kind.ELEMENTWISE
            and n.op.effect is Effect.PURE and isinstance(n.op.lower, Elementwise) and not n.attrs
            and not n.blocks and n.type == t)


def extra_kind(v, t: TensorType):
    """'one', 'channel' or 'full' for a tensor operand the epilogue can read; None otherwise."""
    vt = v.type
    if not isinstance(vt, TensorType) or vt.dtype is not t.dtype or vt.ndim > t.ndim:
        return None
    shape = (1,) * (t.ndim - vt.ndim) + tuple(vt.shape)
    if vt.size == 1:
        return "one"
    if shape == t.shape:
        return "full"
    if shape[1] == t.shape[1] and all(d == 1 for i, d in enumerate(shape) if i != 1):
        return "channel"
    return None


def _group(conv, nodes, pos, users, results, taken):
    """The fusable members after `conv` (in order), or []. A node an earlier group took is no
    member: it is an input computed elsewhere (so `conv`, if that node reads it, stays visible)."""
    t = conv.type
    members = [conv]
    inside = {id(conv)}
    for n in nodes[pos[id(conv)] + 1:]:
        if isinstance(n.op, OpDef) and n.op.effect is not Effect.PURE:
            break
        if id(n) in taken or not _elementwise(n, t) or not any(id(i) in inside for i in n.inputs):
            continue
        ok = True
        for i in n.inputs:
            if id(i) in inside:
                continue
            if isinstance(i.type, ScalarType) and isinstance(i, ir.Const):
                continue
            if extra_kind(i, t) is None:
                ok = False
        if not ok:
            continue
        members.append(n)
        inside.add(id(n))
    # the largest prefix whose members other than the last are read only inside it
    for k in range(len(members), 1, -1):
        group = members[:k]
        ids = {id(m) for m in group}
        if all(id(m) not in results and all(id(u) in ids for u in users.get(id(m), ()))
               for m in group[:-1]):
            return group
    return []


def _program(group):
    """FusedConv's program and extra inputs for a group [conv, op1, op2, ...]."""
    conv = group[0]
    step_of = {id(conv): ("acc",)}
    extras, program = [], []
    for k, m in enumerate(group[1:]):
        args = []
        for i in m.inputs:
            if id(i) in step_of:
                args.append(step_of[id(i)])
            elif isinstance(i, ir.Const) and isinstance(i.type, ScalarType):
                args.append(("const", i.value))
            else:
                if all(i is not e for e in extras):
                    extras.append(i)
                args.append(("extra", next(j for j, e in enumerate(extras) if e is i)))
        program.append((m.op.name, *args))
        step_of[id(m)] = ("step", k)
    return tuple(program), extras


def _folds_scale(program, extras, t) -> bool:
    """The first step is acc * (per-channel extra), with acc used once: fold it into the weights."""
    if not program or program[0][0] != "Mul":
        return False
    args = program[0][1:]
    kinds = [a[0] for a in args]
    if sorted(kinds) != ["acc", "extra"]:
        return False
    extra = next(a for a in args if a[0] == "extra")
    return extra_kind(extras[extra[1]], t) == "channel" and not any(
        a == ("acc",) for s in program[1:] for a in s[1:])


class ConvEpilogue(Rewriter):
    def block(self, b: ir.Block) -> ir.Block:
        return _fuse_block(super().block(b))


def _fuse_block(b: ir.Block) -> ir.Block:
    nodes = list(b.nodes)
    if not any(_is_conv(n) for n in nodes):
        return b
    pos = {id(n): i for i, n in enumerate(nodes)}
    users: dict = {}
    for n in nodes:
        for i in n.inputs:
            users.setdefault(id(i), []).append(n)
        for blk in n.blocks:
            for m in ir.iter_nodes(blk):
                for i in m.inputs:
                    users.setdefault(id(i), []).append(n)
    results = {id(r) for r in b.results}
    replace, dropped = {}, set()
    taken: set = set()
    for n in nodes:
        if not _is_conv(n) or id(n) in taken:
            continue
        group = _group(n, nodes, pos, users, results, taken)
        if len(group) < 2:
            continue
        program, extras = _program(group)
        attrs = dict(n.attrs, program=program, fold_scale=_folds_scale(program, extras, n.type))
        fused = ir.Node(op=P.FusedConv, inputs=(n.inputs[0], n.inputs[1], *extras), type=n.type, attrs=attrs,
                        loc=n.loc)
        last = group[-1]
        replace[id(last)] = fused
        taken.update(id(m) for m in group)
        dropped.update(id(m) for m in group[:-1])
    if not replace:
        return b
    remap = {}
    new_nodes = []
    for n in nodes:
        if id(n) in replace:
            new_nodes.append(replace[id(n)])
            remap[n] = replace[id(n)]
        elif id(n) not in dropped:
            new_nodes.append(n)
    fix = Rewriter()
    fix.map.update(remap)
    return fix.block(ir.Block(b.params, tuple(new_nodes), b.results))


def conv_epilogue(graph: ir.Graph) -> ir.Graph:
    return ConvEpilogue().run(graph)
