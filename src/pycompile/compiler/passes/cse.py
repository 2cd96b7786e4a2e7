"""Common-subexpression elimination. Two pure nodes with the same op, inputs and attributes
are one value; a node in a nested block reuses an equal node of an enclosing block. Effects
(Assign, Print, the float-status ops), ops whose row says `cse=False` (UpdateState, MakeTuple,
TensorMove) and control flow are never merged; `Load` is, when it reads the same Parameter at
the same memory state."""
from __future__ import annotations

import numpy as np

from pycompile.compiler import ir
from pycompile.compiler.passes._rewrite import Rewriter
from pycompile.ops._table import Effect, OpDef


def _key_part(v):
    if isinstance(v, ir.Const):
        val = v.value
        if isinstance(val, np.ndarray):
            return ("c", val.dtype.str, val.shape, val.tobytes()) if val.size <= 64 else ("id", id(v))
        return ("c", type(val).__name__, val)
    return ("id", id(v))


def _freeze(x):
    if isinstance(x, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in x.items()))
    if isinstance(x, (list, tuple)):
        return tuple(_freeze(v) for v in x)
    try:
        hash(x)
        return x
    except TypeError:
        return repr(x)


class CSE(Rewriter):
    def __init__(self):
        super().__init__()
        self.scopes: list[dict] = [{}]

    def enter_block(self, b):
        self.scopes.append({})

    def leave_block(self, b):
        self.scopes.pop()

    def visit(self, n, inputs, blocks):
        op = n.op
        if blocks or not isinstance(op, (OpDef,)) and op is not ir.GETITEM:
            return super().visit(n, inputs, blocks)
        if isinstance(op, OpDef) and (op.effect is not Effect.PURE or not op.cse):
            return super().visit(n, inputs, blocks)
        key = (id(op), tuple(_key_part(i) for i in inputs), _freeze(n.attrs))
        for scope in reversed(self.scopes):
            hit = scope.get(key)
            if hit is not None and hit.type == n.type:
                return hit
        out = super().visit(n, inputs, blocks)
        self.scopes[-1][key] = out
        return out


def cse(graph: ir.Graph) -> ir.Graph:
    return CSE().run(graph)
