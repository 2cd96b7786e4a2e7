"""The IR, in one file: typed SSA values with structured control flow.

* `Param`   a graph input: a user argument, or a Parameter (`RefType`), or a block argument.
* `Const`   a compile-time value (NumPy array, Python number, the initial monad `U`).
* `Node`    one op applied to inputs. `op` is an `OpDef` from the op table or one of the
            structural ops below. Nodes are frozen: passes build new nodes, never edit one.
* `Block`   an ordered list of nodes (the schedule) with parameters and results.

Structural ops hold nested blocks (MindSpore shows them as subgraphs):
  If(cond)            blocks (then, else), both without params; result = tuple of branch results
  For(start, stop, step, *init)   block body(i, *carried) -> new carried; attrs {'exit_flags':
                      carried break / return flags, 'fills': carried tensors the loop overwrites
                      entirely before reading them (compiler/stacking.py: no copy of their init)}
  While(*init)        blocks (cond(*carried) -> (bool,), body(*carried) -> new carried)
  GetItem(tuple)      attrs {'index': i}: component of an If / For / While / Fused result
  Fused(*inputs)      block(*inputs) -> outputs: elementwise nodes that become one kernel
  Call(*args, U)      attrs {'graph': Graph}: run a shared subgraph (one C function for every
                      lazy_inline instance with equal cell_init_args); args = the subgraph's
                      params (tensors, then the instance's Parameters); result = (*outputs, U)

Blocks see every value defined in enclosing blocks (lexical scoping). Every node carries the
source location of the user's line that produced it.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pycompile.common.abstract import MonadType, RefType, ScalarType, TensorType, TupleType

_ids = itertools.count()


@dataclass(frozen=True, slots=True)
class Loc:
    file: str
    line: int
    col: int
    source: str = ""          # the source line's text
    func: str = ""
    # the Cells the code was reached through, as MindSpore scopes ops: "Default/d-Dense" for the
    # construct of the network's attribute `d` (a Dense); what the profiler names ops by
    scope: str = ""

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


class Value:
    """Base of Param, Const and Node. Identity is the value: compare with `is`."""

    __slots__ = ()
    type: Any


@dataclass(frozen=True, eq=False, slots=True)
class Param(Value):
    name: str
    type: Any
    ref: Any = None           # the pycompile Parameter behind a RefType graph input
    uid: int = field(default_factory=lambda: next(_ids))

    def __repr__(self) -> str:
        return f"<param {self.name}#{self.uid} {type_str(self.type)}>"


@dataclass(frozen=True, eq=False, slots=True)
class Const(Value):
    value: Any                # np.ndarray for tensors, bool/int/float for scalars, 'U' for the monad
    type: Any
    uid: int = field(default_factory=lambda: next(_ids))

    def __repr__(self) -> str:
        return f"<const#{self.uid} {type_str(self.type)}>"

    @staticmethod
    def tensor(arr: np.ndarray) -> "Const":
        from pycompile.common import dtype as mstype
        arr = np.asarray(arr)
        if not arr.flags.c_contiguous:
            arr = arr.copy(order="C")   # (np.ascontiguousarray would turn a 0-d array into 1-d)
        return Const(arr, TensorType(mstype.from_numpy(arr.dtype), arr.shape))

    @staticmethod
    def scalar(v) -> "Const":
        from pycompile.common import dtype as mstype
        kind = mstype.scalar_kind(v)
        return Const({"bool": bool, "int": int, "float": float}[kind](v), ScalarType(kind))


U = Const("U", MonadType("U"))


@dataclass(frozen=True, eq=False, slots=True)
class Node(Value):
    op: Any                   # OpDef, or a Structural op
    inputs: tuple
    type: Any
    attrs: dict = field(default_factory=dict)
    blocks: tuple = ()
    loc: Loc | None = None
    uid: int = field(default_factory=lambda: next(_ids))

    @property
    def name(self) -> str:
        return self.op.name

    def __repr__(self) -> str:
        return f"<node {self.op.name}#{self.uid} {type_str(self.type)}>"

    def attr(self, key: str, default=None):
        return self.attrs.get(key, default)


@dataclass(frozen=True, slots=True)
class Structural:
    """An op of the IR itself (control flow, tuple access), not of the op table."""
    name: str
    kind: str = "control"

    def __repr__(self) -> str:
        return f"<struct {self.name}>"


IF = Structural("If")
FOR = Structural("For")
WHILE = Structural("While")
GETITEM = Structural("GetItem", kind="tuple")
FUSED = Structural("Fused", kind="fusion")   # one elementwise kernel: block(params = inputs), attrs {'shape'}
CALL = Structural("Call", kind="call")       # a shared subgraph (lazy_inline): attrs {'graph': Graph}
STRUCTURAL = (IF, FOR, WHILE, GETITEM, FUSED, CALL)


@dataclass(frozen=True, eq=False, slots=True)
class Block:
    params: tuple
    nodes: tuple
    results: tuple
    uid: int = field(default_factory=lambda: next(_ids))


@dataclass(frozen=True, eq=False, slots=True)
class Graph:
    name: str
    params: tuple             # user inputs first, then Parameters (RefType)
    body: Block
    out_tree: Any = None      # how the flat results rebuild the Python return value
    loc: Loc | None = None

    @property
    def outputs(self) -> tuple:
        """The returned values; the body's last result is the final memory state U."""
        return self.body.results[:-1]


# ---- helpers ------------------------------------------------------------------------------------

def is_op(v: Value, op) -> bool:
    """v is a node of op `op` (an OpDef or a Structural op object)."""
    return isinstance(v, Node) and v.op is op


def is_structural(n: Node) -> bool:
    return isinstance(n.op, Structural)


def iter_nodes(block: Block):
    """Every node of a block and of its nested blocks, in schedule order (pre-order)."""
    for n in block.nodes:
        yield n
        for b in n.blocks:
            yield from iter_nodes(b)


def count_nodes(graph: Graph) -> int:
    """Nodes of the graph and, once each, of the subgraphs it calls."""
    seen: set = set()

    def count(g: Graph) -> int:
        total = 0
        for n in iter_nodes(g.body):
            total += 1
            if n.op is CALL and id(n.attrs["graph"]) not in seen:
                seen.add(id(n.attrs["graph"]))
                total += count(n.attrs["graph"])
        return total
    return count(graph)


def subgraphs(graph: Graph) -> list:
    """The distinct subgraphs a graph calls, callees before callers."""
    out, seen = [], set()

    def visit(g):
        for n in iter_nodes(g.body):
            if n.op is CALL and id(n.attrs["graph"]) not in seen:
                seen.add(id(n.attrs["graph"]))
                visit(n.attrs["graph"])
                out.append(n.attrs["graph"])
    visit(graph)
    return out


def tensor_type(v: Value) -> TensorType | None:
    t = v.type
    if isinstance(t, RefType):
        return t.tensor
    return t if isinstance(t, TensorType) else None


def type_str(t) -> str:
    """MindSpore's type text: <Tensor[Float32], (2, 3)>, <Ref[Tensor[Int32]], ()>, <Int64>."""
    if isinstance(t, TensorType):
        return f"<Tensor[{t.dtype}], {_shape_text(t.shape)}>"
    if isinstance(t, RefType):
        return f"<Ref[Tensor[{t.tensor.dtype}]], {_shape_text(t.tensor.shape)}>"
    if isinstance(t, ScalarType):
        return f"<{t}>"
    if isinstance(t, TupleType):
        return "<Tuple[" + ", ".join(type_str(e)[1:-1] for e in t.elems) + "]>"
    if isinstance(t, MonadType):
        return "<UMonad>" if t.kind == "U" else "<IOMonad>"
    return f"<{t}>"


def _shape_text(shape) -> str:
    if len(shape) == 1:
        return f"({shape[0]})"
    return "(" + ", ".join(str(d) for d in shape) + ")"
