"""Common-subexpression elimination. Two pure nodes with the same op, inputs and attributes
are one value; a node in a nested block reuses an equal node of an enclosing block. Effects
(Assign, Print, the float-status ops), ops whose row says `cse=False` (UpdateState, MakeTuple,
TensorMove) and control flow are never merged; `Load` is, when it reads the same Parameter at
the same memory state, or at a later one reached from it through UpdateStates that write
nothing to that Parameter: both loads see the same value. This is what makes MindSpore's
TrainOneStepCell one forward pass: `loss = network(x)` and the forward inside
`grad(network, weights)(x)` load the weights at different memory states, and only once those
loads are one value are the two forwards equal nodes (merged below)."""
from __future__ import annotations

import numpy as np

from pycompile.compiler import ir
from pycompile.compiler.passes._rewrite import Rewriter
from pycompile.ops import prims as P
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


def _writes_nothing_to(v, ref) -> bool:
    """v, an input of an UpdateState, cannot have changed `ref`'s content."""
    if not isinstance(v, ir.Node):
        return True
    if v.blocks or v.op is ir.CALL or v.op is ir.GETITEM:
        return False                               # a loop, branch or call: it may assign anything
    if isinstance(v.op, OpDef) and v.op.effect is not Effect.PURE:
        return ir.is_op(v, P.Load) or (ir.is_op(v, P.Assign) and v.inputs[0] is not ref)
    return True


def _same_content(state, earlier, ref, limit=10000) -> bool:
    """Walking back from memory state `state` through UpdateStates reaches `earlier` without a
    write to `ref` on the way."""
    while limit > 0:
        if state is earlier:
            return True
        if not ir.is_op(state, P.UpdateState):
            return False
        if not all(_writes_nothing_to(v, ref) for v in state.inputs[1:]):
            return False
        state = state.inputs[0]
        limit -= 1
    return False


class CSE(Rewriter):
    def __init__(self):
        super().__init__()
        self.scopes: list[dict] = [{}]
        self.loads: list[dict] = [{}]     # per block: id(Parameter) -> [(load, its memory state)]

    def enter_block(self, b):
        self.scopes.append({})
        self.loads.append({})

    def leave_block(self, b):
        self.scopes.pop()
        self.loads.pop()

    def _load(self, n, inputs, blocks):
        ref, state = inputs[0], inputs[1] if len(inputs) > 1 else None
        seen = self.loads[-1].setdefault(id(ref), [])
        for load, earlier in reversed(seen):
            if load.type == n.type and state is not None and _same_content(state, earlier, ref):
                return load
        out = super().visit(n, inputs, blocks)
        seen.append((out, state))
        return out

    def visit(self, n, inputs, blocks):
        op = n.op
        if op is P.Load and not blocks:
            return self._load(n, inputs, blocks)
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
