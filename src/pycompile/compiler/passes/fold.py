"""Constant folding: a pure op whose inputs are all constants becomes a constant (computed by
the op's NumPy `eager`, the same code PyNative runs), and an `If` on a constant condition
becomes the taken branch.

Guarantees: no folded constant is larger than FOLD_LIMIT bytes (big constants stay computed
in C rather than bloating the generated source); effects are never folded.
"""
from __future__ import annotations

import numpy as np

from pycompile.common.abstract import ScalarType, TensorType
from pycompile.compiler import ir
from pycompile.compiler.passes._rewrite import Rewriter
from pycompile.ops._table import Effect, Kind, OpDef, eager_values

FOLD_LIMIT = 1 << 16


def _const_value(c: ir.Const):
    return c.value


class Fold(Rewriter):
    def __init__(self):
        super().__init__()
        self.tuples: dict = {}

    def visit(self, n, inputs, blocks):
        op = n.op
        if op is ir.GETITEM and inputs[0] in self.tuples:
            return self.tuples[inputs[0]][n.attrs["index"]]
        if op is ir.IF and isinstance(inputs[0], ir.Const):
            taken = blocks[0] if _truth(inputs[0]) else blocks[1]
            for node in taken.nodes:
                self.emit(node)
            self.tuples[n] = taken.results
            return n
        if isinstance(op, OpDef) and op.effect is Effect.PURE and op.kind is not Kind.EFFECT \
                and op.eager is not None and inputs and all(isinstance(i, ir.Const) for i in inputs) \
                and isinstance(n.type, (TensorType, ScalarType)):
            if isinstance(n.type, TensorType) and n.type.nbytes > FOLD_LIMIT:
                return super().visit(n, inputs, blocks)
            values = [_const_value(i) for i in inputs]
            if op.variadic:
                k = len(op.inputs) - 1
                values = values[:k] + [values[k:]]
            types = [i.type for i in inputs]
            if op.variadic:
                from pycompile.common.abstract import TupleType
                types = types[:len(op.inputs) - 1] + [TupleType(tuple(types[len(op.inputs) - 1:]))]
            try:
                out = eager_values(op, values, n.attrs, types, n.type)
            except Exception:
                return super().visit(n, inputs, blocks)
            if isinstance(n.type, TensorType):
                return ir.Const.tensor(np.asarray(out, dtype=n.type.dtype.np).reshape(n.type.shape))
            return ir.Const.scalar({"bool": bool, "int": int, "float": float}[n.type.kind](out))
        return super().visit(n, inputs, blocks)


def _truth(c: ir.Const) -> bool:
    v = c.value
    if isinstance(v, np.ndarray):
        return bool(v.reshape(-1)[0])
    return bool(v)


def fold(graph: ir.Graph) -> ir.Graph:
    return Fold().run(graph)
