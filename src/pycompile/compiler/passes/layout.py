"""Layout: compute few-row matrix products transposed.

For y = x @ w.T with few rows in x (an MLP at batch 64), OpenBLAS runs faster on the transposed
problem y.T = w @ x.T: measured on this project's 2-core machine, 64 x 512 x 784 took 285 µs
instead of 316, 64 x 512 x 512 186 instead of 210 (181 with the input already transposed), and
32 x 512 x 784 150 instead of 216, each split over the cores. No copy is made for it: the pass
rewrites the product to produce y.T, carries the elementwise chain after it (bias, activation)
over to the transposed layout - a bias of shape (N,) becomes an (N, 1) view - and lets every
product that reads the chain's result read it transposed through its transpose flag. So the
hidden layers of an MLP stay transposed from one product to the next, and the layer that reads
them last (10 columns) produces the plain layout again.

Only products with at most 64 rows and more columns than rows turn: with more rows a row split
of the plain product is as fast, and the product reading the result with transpose_a loses more
than the transposed product gains (W6's 256 x 512 x 128 MLP: 229 -> 193 µs, but the whole
stack 11.5 -> 12.2 ms).

It applies only where nothing else sees the transposed values: every value of the chain has one
use, the last one is read by matrix products only, and none is a graph output or used inside a
nested block.
"""
from __future__ import annotations

from pycompile.common.abstract import TensorType
from pycompile.compiler import ir
from pycompile.compiler.passes._rewrite import Rewriter, uses
from pycompile.common import dtype as mstype
from pycompile.ops import prims as P
from pycompile.ops._table import Effect, Kind, OpDef

MAX_ROWS = 64
MIN_DIM = 64


def _flags(n, flags):
    return flags.get(n, (bool(n.attrs.get("transpose_a", False)), bool(n.attrs.get("transpose_b", False))))


def _is_matmul(n) -> bool:
    return isinstance(n, ir.Node) and n.op is P.MatMul and isinstance(n.type, TensorType) \
        and n.type.ndim == 2 and n.type.dtype in (mstype.float32, mstype.float64) \
        and all(isinstance(i.type, TensorType) and i.type.ndim == 2 for i in n.inputs)


def _worth_it(n) -> bool:
    m, cols = n.type.shape
    k = n.inputs[0].type.shape[0 if n.attrs.get("transpose_a", False) else 1]   # the graph before the pass
    return m < cols and m <= MAX_ROWS and min(cols, k) >= MIN_DIM


def _side_operand(v, cols) -> bool:
    """An operand of the chain's elementwise ops that follows the transpose as a view: a scalar
    or a row vector (bias)."""
    t = v.type
    if not isinstance(t, TensorType):
        return True
    return t.ndim <= 2 and all(d == 1 for d in t.shape[:-1]) and (not t.shape or t.shape[-1] in (1, cols))


class _Plan:
    """Which products turn transposed, which elementwise nodes follow them, and the transpose
    flags every product ends up with."""

    def __init__(self):
        self.transposed: set = set()     # products computing their result transposed
        self.chain: set = set()          # elementwise nodes carried over to the transposed layout
        self.flags: dict = {}            # product -> (transpose_a, transpose_b) after the pass

    def block(self, b: ir.Block) -> None:
        total = uses(b)
        users: dict = {}
        for n in b.nodes:
            for k, i in enumerate(n.inputs):
                users.setdefault(id(i), []).append((n, k))
        results = {id(r) for r in b.results}

        def local_users(v):
            us = users.get(id(v), [])
            if id(v) in results or len(us) != total.get(id(v), 0):
                return None       # escapes: a graph output, or used inside a nested block
            return us

        for n in b.nodes:
            for x in n.blocks:
                self.block(x)
            if not _is_matmul(n) or n in self.chain:
                continue
            ta, tb = _flags(n, self.flags)
            if not _worth_it(n):
                continue
            cols = n.type.shape[1]
            chain, v = [], n
            while True:
                us = local_users(v)
                if not us:
                    break
                if all(_is_matmul(u) and u is not n for u, _ in us):
                    for u, k in us:
                        fa, fb = _flags(u, self.flags)
                        self.flags[u] = (not fa, fb) if k == 0 else (fa, not fb)
                    self.transposed.add(n)
                    self.flags[n] = (ta, tb)
                    self.chain.update(chain)
                    break
                u = us[0][0]
                if any(x is not u for x, _ in us) or not (
                        isinstance(u.op, OpDef) and u.op.kind is Kind.ELEMENTWISE and u.op.effect is Effect.PURE
                        and not u.blocks and u.type.shape == n.type.shape
                        and all(i is v or _side_operand(i, cols) for i in u.inputs)):
                    break
                chain.append(u)
                v = u


class _Apply(Rewriter):
    def __init__(self, plan: _Plan):
        super().__init__()
        self.plan = plan

    def visit(self, n, inputs, blocks):
        plan = self.plan
        if n in plan.transposed:
            ta, tb = plan.flags[n]
            m, cols = n.type.shape
            attrs = dict(n.attrs, transpose_a=not tb, transpose_b=not ta)
            return self.emit(ir.Node(op=n.op, inputs=(inputs[1], inputs[0]), type=TensorType(n.type.dtype, (cols, m)),
                                     attrs=attrs, loc=n.loc))
        if n in plan.flags:
            ta, tb = plan.flags[n]
            if (ta, tb) != (bool(n.attrs.get("transpose_a", False)), bool(n.attrs.get("transpose_b", False))):
                return self.emit(ir.Node(op=n.op, inputs=inputs, type=n.type,
                                         attrs=dict(n.attrs, transpose_a=ta, transpose_b=tb), loc=n.loc))
        if n in plan.chain:
            m, cols = n.type.shape
            new = []
            for old, i in zip(n.inputs, inputs):
                if isinstance(old, ir.Node) and (old in plan.transposed or old in plan.chain):
                    new.append(i)
                elif isinstance(i.type, TensorType) and i.type.shape and i.type.shape[-1] == cols and cols > 1:
                    new.append(self.emit(ir.Node(op=P.Reshape, inputs=(i,), type=TensorType(i.type.dtype, (cols, 1)),
                                                 attrs={"shape": (cols, 1)}, loc=n.loc)))
                else:
                    new.append(i)
            return self.emit(ir.Node(op=n.op, inputs=tuple(new), type=TensorType(n.type.dtype, (cols, m)),
                                     attrs=n.attrs, loc=n.loc))
        return super().visit(n, inputs, blocks)


def layout(graph: ir.Graph) -> ir.Graph:
    plan = _Plan()
    plan.block(graph.body)
    if not plan.transposed:
        return graph
    return _Apply(plan).run(graph)
