"""The pre-render pass: each node of a row defined by its decomposition (`OpDef.decompose`,
ops/_table.py) is replaced by the decomposition's parts, so the renderer sees only rows it
renders (docs/architecture.md, "The core"; a fast-path row, `OpDef.fast_path`, is kept whole
unless the options ask for its decomposition, or the device does not render it) and fusion groups the parts like any elementwise
chain (one loop: the C is what the row's hand-written expression was).

It runs first in the pipeline, at every optimization level: autodiff and vmap have run while
the frontend traced, with the row's own gradient and batch rules, so those stay the row's
(a decomposition's own gradient can differ at its edges: x / (1 + exp(-x)) is NaN at -100,
where SiLU's rule gives 0). The decomposition is run on values of a small tracer whose `emit`
appends nodes here; its parts go through `apply` as anywhere else (their checks, their types).

The device decides what it renders (backend/devices.Device.renders; the options' `unrendered`
names the rows it does not): such a row is replaced by its decomposition like a decomposed row,
and one with no decomposition is a CompileError naming the op, the device and the user's line.
The pipeline runs this pass again before fusion (`decompose_unrendered`) for the rows the passes
in between made.
"""
from __future__ import annotations

import numpy as np

from pycompile.common.abstract import Symbolic
from pycompile.common.tensor import Tensor
from pycompile.compiler import ir
from pycompile.compiler.passes._rewrite import Rewriter
from pycompile.errors import CompileError
from pycompile.ops._table import OpDef
from pycompile.ops.tracing import Tracer


class _Part(Symbolic):
    """A value the decomposition sees: an IR value of the graph being rewritten."""

    __slots__ = ("_value", "_tracer")

    def __init__(self, value, tracer):
        self._value = value
        self._tracer = tracer

    @property
    def _abstract(self):
        return self._value.type


class _Parts(Tracer):
    def __init__(self, rewriter: Rewriter, loc):
        self.rewriter, self.loc = rewriter, loc

    def value(self, x):
        if isinstance(x, _Part):
            return x._value
        if isinstance(x, (bool, int, float, np.number, np.bool_)):
            return ir.Const.scalar(x)
        if isinstance(x, Tensor):
            # a table the decomposition built from the attributes (indices, weights): a constant
            return ir.Const.tensor(x.asnumpy())
        raise TypeError(f"a decomposition used a {type(x).__name__} as an op argument")

    def emit(self, op, inputs, attrs, out_type):
        rw = self.rewriter
        if _expands(op, rw.fast_paths, rw.unrendered, rw.device, self.loc):
            # a part that is itself a decomposed row (a fast path's parts naming another, with
            # PYCOMPILE_FAST_PATHS=0): its parts, so the renderer still sees none of them
            flat = [y for i, x in enumerate(inputs) for y in
                    (x if op.variadic and i == len(inputs) - 1 and isinstance(x, (tuple, list)) else (x,))]
            return op.decompose(*flat, **attrs)
        vals = []
        for i, x in enumerate(inputs):
            if op.variadic and i == len(inputs) - 1 and isinstance(x, (tuple, list)):
                vals.extend(self.value(y) for y in x)      # (Concat's tensors: flat, as the builder's)
            else:
                vals.append(self.value(x))
        node = ir.Node(op=op, inputs=tuple(vals), type=out_type, attrs=dict(attrs), loc=self.loc)
        return _Part(self.rewriter.emit(node), self)


class _Decompose(Rewriter):
    def __init__(self, fast_paths: bool = True, unrendered: frozenset = frozenset(), device: str = ""):
        super().__init__()
        self.fast_paths, self.unrendered, self.device = fast_paths, unrendered, device

    def visit(self, n, inputs, blocks):
        op = n.op
        if not _expands(op, self.fast_paths, self.unrendered, self.device, n.loc):
            return super().visit(n, inputs, blocks)
        tracer = _Parts(self, n.loc)
        out = op.decompose(*[_Part(v, tracer) for v in inputs], **n.attrs)
        # (a decomposition that reads no input - an empty slice's gradient - gives a constant)
        value = out._value if isinstance(out, _Part) else tracer.value(out) if isinstance(out, Tensor) else None
        if value is None or _strip(value.type) != _strip(n.type):
            raise RuntimeError(f"the decomposition of {op.name} gave {getattr(value, 'type', out)}, "
                               f"the row's type is {n.type}")
        return value


def _strip(t):
    """A tensor type without its Python-number flag (a part does not know the row was one)."""
    return (t.dtype, t.shape) if hasattr(t, "shape") else t


def _expands(op, fast_paths: bool, unrendered: frozenset = frozenset(), device: str = "", loc=None) -> bool:
    if not isinstance(op, OpDef):
        return False
    if op.name in unrendered:
        if op.decompose is None:
            raise CompileError(f"the device {device!r} does not render the op {op.name} and {op.name} has no "
                               f"decomposition into ops it renders", loc,
                               hint=f"compile for a device that renders {op.name} (set_context(device_target=...)), "
                                    f"or give the row a decomposition (ops/_table.py `decompose=`)")
        return True
    return op.decompose is not None and (not op.fast_path or not fast_paths)


def decompose(graph: ir.Graph, fast_paths: bool = True, unrendered: frozenset = frozenset(),
              device: str = "") -> ir.Graph:
    """fast_paths=False (PYCOMPILE_FAST_PATHS=0): the fast-path rows (`OpDef.fast_path`) become
    their decompositions too, instead of keeping their hand-written lowerings. `unrendered`: the
    names of the rows `device` does not render, replaced by their decompositions wherever the
    fast paths are (a row without one raises CompileError)."""
    if not any(_expands(n.op, fast_paths, unrendered, device, n.loc) for n in ir.iter_nodes(graph.body)):
        return graph
    return _Decompose(fast_paths, unrendered, device).run(graph)
