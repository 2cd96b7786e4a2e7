"""Algebraic simplification: local rewrites from one rule table.

Each rule sees a node with its (already simplified) inputs and returns a replacement value or
None. A rule may only return a value of exactly the node's type, so rewrites never change
dtypes or shapes (`int32 + 0.0` is float32 and is left alone).
"""
from __future__ import annotations

import numpy as np

from pycompile.common.abstract import MonadType, TensorType
from pycompile.compiler import ir
from pycompile.compiler.passes._rewrite import Rewriter
from pycompile.ops import prims as P
from pycompile.ops._table import Effect, Kind, OpDef


def _is_const(v, x) -> bool:
    if not isinstance(v, ir.Const):
        return False
    val = v.value
    if isinstance(val, np.ndarray):
        return val.size > 0 and bool(np.all(val == x))
    return isinstance(val, (int, float)) and not isinstance(val, bool) and val == x


def _same(n, v):
    return v if v is not None and v.type == n.type else None


def _zero(n, v, negative: bool) -> bool:
    """v is a zero that adds (negative: -0) or subtracts (+0) as the identity. In IEEE arithmetic
    -0 + (+0) is +0: `x + 0.0` is not x where x is -0 (MindSpore and PyNative give +0: a
    LayerNorm's or BatchNorm's `* gamma + beta` with beta zeros), but x + (-0.0) and x - 0.0 are
    x for every x; integer zeros have no sign."""
    if not _is_const(v, 0):
        return False
    t = n.type
    dt = getattr(t, "dtype", None)
    if not (dt is not None and (dt.is_float or dt.np.kind == "c")) and getattr(t, "kind", None) != "float":
        return True
    return bool(np.all(np.signbit(np.real(np.asarray(v.value))) == negative))


def _r_add(n, a, b):
    return _same(n, a) if _zero(n, b, True) else _same(n, b) if _zero(n, a, True) else None


def _r_sub(n, a, b):
    return _same(n, a) if _zero(n, b, False) else None


def _r_mul(n, a, b):
    return _same(n, a) if _is_const(b, 1) else _same(n, b) if _is_const(a, 1) else None


def _r_div(n, a, b):
    return _same(n, a) if _is_const(b, 1) else None


def _r_neg(n, a):
    return a.inputs[0] if ir.is_op(a, P.Neg) and a.inputs[0].type == n.type else None


def _r_not(n, a):
    return a.inputs[0] if ir.is_op(a, P.LogicalNot) and a.inputs[0].type == n.type else None


def _r_cast(n, a):
    return a if a.type == n.type else None


def _r_reshape(n, a):
    if a.type == n.type:
        return a
    return None


def _r_transpose(n, a):
    perm = n.attrs.get("perm")
    if perm is not None and tuple(perm) == tuple(range(len(perm))):
        return _same(n, a)
    return None


def _r_select(n, c, a, b):
    if isinstance(c, ir.Const):
        v = np.asarray(c.value)
        if v.size and np.all(v):
            return _same(n, a)
        if v.size and not np.any(v):
            return _same(n, b)
    if a is b:
        return _same(n, a)
    return None


def _swaps_last_two(v) -> bool:
    """A Transpose exchanging the last two axes and keeping the others in place."""
    if not ir.is_op(v, P.Transpose):
        return False
    nd = len(v.inputs[0].type.shape)
    perm = v.attrs.get("perm")
    perm = tuple(reversed(range(nd))) if perm is None else tuple(p % nd for p in perm)
    return nd >= 2 and perm == tuple(range(nd - 2)) + (nd - 1, nd - 2)


def _fold_transposes(n, inputs):
    """MatMul(x, Transpose(w)) -> MatMul(x, w, transpose_b=True): BLAS reads the operand
    transposed instead of a copy being made."""
    attrs = dict(n.attrs)
    new = list(inputs)
    for i, flag in ((0, "transpose_a"), (1, "transpose_b")):
        if _swaps_last_two(inputs[i]):
            new[i] = inputs[i].inputs[0]
            attrs[flag] = not attrs.get(flag, False)
    if new == list(inputs):
        return None
    return ir.Node(op=n.op, inputs=tuple(new), type=n.type, attrs=attrs, loc=n.loc)


def _row_broadcast(t, width: int) -> bool:
    """A tensor type that broadcasts along every axis but the last (a bias, a scale, a scalar)."""
    return all(d == 1 for d in t.shape[:-1]) and (not t.shape or t.shape[-1] in (1, width))


def _sink_reshape(n, inputs):
    """op(Reshape(y), z) -> Reshape(op(y, z')) for an elementwise op, when the Reshape only splits
    the leading axes of y (Dense's (256, 128) -> (4, 64, 128)) and every other operand has the
    result's shape (z' is z viewed flat the same way) or broadcasts along rows only. The product
    that made y then heads a group with the whole elementwise chain after it (bias, activation,
    residual), instead of the chain stopping at the Reshape. Reshapes are views: nothing is copied.
    Only splitting reshapes sink, so the flattening views made for z' never sink back."""
    out = n.type
    if not isinstance(out, TensorType) or n.op.effect is not Effect.PURE or n.blocks:
        return None
    src = None
    for v in inputs:
        if ir.is_op(v, P.Reshape) and v.type.shape == out.shape:
            y = v.inputs[0].type
            if isinstance(y, TensorType) and y.ndim < out.ndim and y.shape and y.shape[-1] == out.shape[-1]:
                src = y.shape
                break
    if src is None:
        return None
    new = []
    for v in inputs:
        t = v.type
        if not isinstance(t, TensorType):
            new.append(v)
        elif ir.is_op(v, P.Reshape) and t.shape == out.shape and v.inputs[0].type.shape == src:
            new.append(v.inputs[0])
        elif t.shape == out.shape:
            new.append(_view(v, src))
        elif t.ndim <= out.ndim and _row_broadcast(t, out.shape[-1]):
            new.append(v if t.ndim <= len(src) else _view(v, t.shape[-len(src):]))
        else:
            return None
    flat = TensorType(out.dtype, src)
    return ir.Node(op=n.op, inputs=tuple(new), type=flat, attrs=n.attrs, loc=n.loc), out


def _view(v, shape):
    return ir.Node(op=P.Reshape, inputs=(v,), type=TensorType(v.type.dtype, tuple(shape)),
                   attrs={"shape": tuple(shape)}, loc=getattr(v, "loc", None))


def _r_reshape_of_reshape(n, a):
    """Reshape(Reshape(x)) -> Reshape(x), or x itself when the shapes agree."""
    if not ir.is_op(a, P.Reshape):
        return None
    inner = a.inputs[0]
    if inner.type == n.type:
        return inner
    return New(ir.Node(op=P.Reshape, inputs=(inner,), type=n.type, attrs=n.attrs, loc=n.loc))


class New:
    """A rule's replacement that is a node it built (the pass emits it into the block), after
    the nodes `before` it builds its inputs from."""

    def __init__(self, node: ir.Node, before: tuple = ()):
        self.node, self.before = node, before


def _slice_grad_axis(a, b):
    """(axis, lower, upper) when StridedSliceGrads a and b place unit-stride slices of the same
    tensor that differ only along one axis and touch there (upper starts where lower ends)."""
    if not (ir.is_op(a, P.StridedSliceGrad) and ir.is_op(b, P.StridedSliceGrad)) or a.type != b.type:
        return None
    (sa, ba, ea, ta), (sb, bb, eb, tb) = ([tuple(x.attrs[k]) for k in ("shape", "begin", "end", "strides")]
                                          for x in (a, b))
    if sa != sb or any(s != 1 for s in ta + tb):
        return None
    differ = [d for d in range(len(sa)) if (ba[d], ea[d]) != (bb[d], eb[d])]
    if len(differ) != 1:
        return None
    d = differ[0]
    if ea[d] == bb[d]:
        return d, a, b
    if eb[d] == ba[d]:
        return d, b, a
    return None


def _r_add_slice_grads(n, a, b):
    """Add(StridedSliceGrad(x, [i:j]), StridedSliceGrad(y, [j:k])) -> StridedSliceGrad(Concat(x,
    y), [i:k]), and the Concat itself when [i:k] is the whole axis. The cotangent of a tensor cut
    into adjacent slices (the LSTM's four gates, read as act[:, :H], ...) is then written once,
    piece by piece, instead of as one zero-filled full-size tensor per slice added together - in
    a reverse loop, on every step."""
    found = _slice_grad_axis(a, b)
    if found is None:
        return None
    d, lo, hi = found
    parts = []
    for g in (lo.inputs[0], hi.inputs[0]):       # flatten a Concat this rule built before
        parts.extend(g.inputs if ir.is_op(g, P.Concat) and g.attrs.get("axis") == d else (g,))
    shape = list(lo.inputs[0].type.shape)
    shape[d] = sum(p.type.shape[d] for p in parts)
    cat = ir.Node(op=P.Concat, inputs=tuple(parts), type=TensorType(n.type.dtype, tuple(shape)),
                  attrs={"axis": d}, loc=n.loc)
    begin, end = list(lo.attrs["begin"]), list(lo.attrs["end"])
    end[d] = hi.attrs["end"][d]
    full = TensorType(n.type.dtype, tuple(lo.attrs["shape"]))
    if all(x == 0 for x in begin) and tuple(end) == full.shape and cat.type == n.type:
        return New(cat)
    attrs = dict(lo.attrs, begin=tuple(begin), end=tuple(end))
    return New(ir.Node(op=P.StridedSliceGrad, inputs=(cat,), type=n.type, attrs=attrs, loc=n.loc), (cat,))


# op -> rules tried in order; each returns an existing value, a New node, or None
RULES = {
    P.Add: (_r_add, _r_add_slice_grads), P.Sub: (_r_sub,), P.Mul: (_r_mul,), P.RealDiv: (_r_div,), P.Neg: (_r_neg,),
    P.LogicalNot: (_r_not,), P.Cast: (_r_cast,), P.Reshape: (_r_reshape, _r_reshape_of_reshape),
    P.Transpose: (_r_transpose,), P.Select: (_r_select,),
}


class Simplify(Rewriter):
    def visit(self, n, inputs, blocks):
        op = n.op
        if isinstance(op, OpDef) and op.kind is Kind.MATMUL:
            folded = _fold_transposes(n, inputs)
            if folded is not None:
                return self.emit(folded)
        if isinstance(op, OpDef) and op.kind is Kind.ELEMENTWISE:
            sunk = _sink_reshape(n, inputs)
            if sunk is not None:
                flat, out = sunk
                for m in flat.inputs:
                    if ir.is_op(m, P.Reshape) and all(m is not i for i in inputs):
                        self.emit(m)
                self.emit(flat)
                return self.emit(ir.Node(op=P.Reshape, inputs=(flat,), type=out,
                                         attrs={"shape": tuple(out.shape)}, loc=n.loc))
        for rule in RULES.get(op, ()):
            out = rule(n, *inputs)
            if out is not None:
                if not isinstance(out, New):
                    return out
                for m in out.before:
                    self.emit(m)
                return self.emit(out.node)
        if op is ir.GETITEM and isinstance(inputs[0], ir.Node) and inputs[0].op in (ir.FOR, ir.WHILE):
            # a loop's memory state passes through unchanged when its body has no effects
            loop, k = inputs[0], n.attrs["index"]
            if isinstance(n.type, MonadType):
                body = loop.blocks[-1]
                n_lead = 1 if loop.op is ir.FOR else 0
                if body.results[k] is body.params[k + n_lead]:
                    return loop.inputs[(3 if loop.op is ir.FOR else 0) + k]
        return super().visit(n, inputs, blocks)


def simplify(graph: ir.Graph) -> ir.Graph:
    return Simplify().run(graph)


__all__ = ["simplify", "RULES"]
