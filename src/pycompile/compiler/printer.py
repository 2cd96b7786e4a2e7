"""MindSpore's IR text form, deterministic so tests can compare it:

    # IR entry: @func
    # Total subgraphs: 1
    # Total params: 2
    # Params:
    %para1_x : <Tensor[Float32], (2, 3)>
    %para2_param : <Ref[Tensor[Int32]], (), ref_key=:param>  :  has_default

    subgraph @func() {
      %0 = Add(%para1_x, Tensor(shape=[], dtype=Int32, value=1))
      Return(%0)
    }

Nested blocks (If branches, loop bodies, fused kernels) print as further subgraphs, referred to
by name from the node that holds them, as MindSpore prints Switch / partial subgraphs.
"""
from __future__ import annotations

import numpy as np

from pycompile.common.abstract import RefType, TensorType
from pycompile.compiler import ir


def _const_text(c: ir.Const) -> str:
    v = c.value
    if c is ir.U or (isinstance(v, str) and v == "U"):
        return "U"
    if isinstance(c.type, TensorType):
        arr = np.asarray(v)
        shape = "[" + ", ".join(str(d) for d in arr.shape) + "]"
        if arr.size <= 8:
            body = str(arr.item()) if arr.ndim == 0 else "[" + ", ".join(_num(x) for x in arr.ravel()) + "]"
            if arr.ndim == 0 and arr.dtype.kind == "b":
                body = str(int(arr.item()))
        else:
            body = "[...]"
        return f"Tensor(shape={shape}, dtype={c.type.dtype}, value={body})"
    if isinstance(v, bool):
        return f"Bool({int(v)})"
    if isinstance(v, int):
        return f"I64({v})"
    if isinstance(v, float):
        return f"F64({v!r})"
    return repr(v)


def _num(x) -> str:
    x = x.item() if hasattr(x, "item") else x
    if isinstance(x, bool):
        return str(int(x))
    if isinstance(x, float) and x == int(x) and abs(x) < 1e15:
        return str(int(x))
    return str(x)


def _attr_text(node: ir.Node) -> str:
    op = node.op
    defaults = getattr(op, "attrs", {}) or {}
    items = []
    for k, v in node.attrs.items():
        if k in defaults and defaults[k] == v or (k == "exit_flags" and not v) or k == "graph":
            continue
        if k in ("format",):
            v = tuple(x[1] if x[0] == "str" else f"%{x[1]}" for x in v)
        items.append(f"{k}: {v}")
    return (" {" + ", ".join(items) + "}") if items else ""


class _Printer:
    def __init__(self, graph: ir.Graph, show_types: bool, show_loc: bool):
        self.graph = graph
        self.show_types = show_types
        self.show_loc = show_loc
        self.sub_names: dict[int, str] = {}
        self.subgraphs: list[tuple[str, ir.Block]] = []
        self.param_names: dict[int, str] = {}
        self.node_names: dict[int, tuple] = {}
        self.current = ""
        self.graph_heads: dict[int, tuple] = {id(graph.body): ()}   # graph bodies -> their params
        self.callees: dict[int, str] = {}

    def run(self) -> str:
        g = self.graph
        for i, p in enumerate(g.params, 1):
            self.param_names[id(p)] = f"%para{i}_{p.name}"
        self._collect(g.body, g.name)
        lines = [f"# IR entry: @{g.name}",
                 f"# Total subgraphs: {len(self.subgraphs)}",
                 f"# Total params: {len(g.params)}",
                 "# Params:"]
        for p in g.params:
            name = self.param_names[id(p)]
            if isinstance(p.type, RefType):
                ref_name = p.ref.name if p.ref is not None else p.name
                lines.append(f"{name} : {ir.type_str(p.type)[:-1]}, ref_key=:{ref_name}>  :  has_default")
            else:
                lines.append(f"{name} : {ir.type_str(p.type)}")
        n_params = len(g.params)
        for name, block in self.subgraphs:
            lines.append("")
            lines.extend(self._block(name, block, n_params))
            n_params += len(block.params) + (len(self.graph_heads.get(id(block), ()))
                                             if block is not g.body else 0)
        return "\n".join(lines) + "\n"

    def _collect(self, block: ir.Block, name: str):
        self.sub_names[id(block)] = name
        self.subgraphs.append((name, block))
        for k, n in enumerate(block.nodes):
            self.node_names[id(n)] = (name, f"%{k}")
            if n.op is ir.CALL and id(n.attrs["graph"]) not in self.callees:
                # a shared subgraph (lazy_inline): printed once, with its own parameters
                callee = n.attrs["graph"]
                self.callees[id(callee)] = callee.name
                self.graph_heads[id(callee.body)] = callee.params
                self._collect(callee.body, callee.name)
            for j, b in enumerate(n.blocks):
                label = {ir.IF: ("true", "false")[j] if j < 2 else str(j),
                         ir.FOR: "for_body", ir.WHILE: ("while_cond", "while_body")[j] if j < 2 else str(j)}
                tag = label.get(n.op, n.op.name.lower())
                # numbered in printing order, not by node ids: the same graph prints the same text
                # however many graphs were built before it
                self._collect(b, f"{self.graph.name}_{tag}_{len(self.subgraphs)}")

    def _block(self, name: str, block: ir.Block, first_param: int) -> list:
        params = block.params + tuple(self.graph_heads.get(id(block), ())) if block is not self.graph.body \
            else block.params
        for i, p in enumerate(params, first_param + 1):
            self.param_names[id(p)] = f"%para{i}_{p.name}"
        self.current = name
        head = ", ".join(self.param_names[id(p)] for p in params)
        out = [f"subgraph @{name}({head}) {{"]
        for n in block.nodes:
            args = [self._ref(v) for v in n.inputs]
            args += [f"@{self.sub_names[id(b)]}" for b in n.blocks]
            if n.op is ir.CALL:
                args.append(f"@{self.callees[id(n.attrs['graph'])]}")
            line = f"  {self.node_names[id(n)][1]} = {n.op.name}({', '.join(args)}){_attr_text(n)}"
            if self.show_types:
                line += f"  : {ir.type_str(n.type)}"
            if self.show_loc and n.loc is not None:
                line += f"  # {n.loc}"
            out.append(line)
        res = [self._ref(v) for v in block.results]
        if id(block) in self.graph_heads:
            out.extend(self._graph_return(block, len(block.nodes)))
        else:
            out.append(f"  Return({res[0]})" if len(res) == 1 else f"  Return(({', '.join(res)}))")
        out.append("}")
        return out

    def _graph_return(self, block, k) -> list:
        """MindSpore's tail: MakeTuple of several outputs, Depend on the final memory state."""
        outs, u = block.results[:-1], block.results[-1]
        lines = []
        if len(outs) == 1:
            value = self._ref(outs[0])
        else:
            lines.append(f"  %{k} = MakeTuple({', '.join(self._ref(v) for v in outs)})")
            value, k = f"%{k}", k + 1
        if u is not ir.U:
            lines.append(f"  %{k} = Depend({value}, {self._ref(u)})")
            value = f"%{k}"
        lines.append(f"  Return({value})")
        return lines

    def _ref(self, v) -> str:
        if isinstance(v, ir.Const):
            return _const_text(v)
        if isinstance(v, ir.Param):
            return self.param_names.get(id(v), f"%{v.name}")
        if isinstance(v, tuple):
            return "(" + ", ".join(self._ref(x) for x in v) + ")"
        owner, local = self.node_names[id(v)]
        return local if owner == self.current else f"{local}@{owner}"


def print_graph(graph: ir.Graph, show_types: bool = False, show_loc: bool = False) -> str:
    """The graph in MindSpore's text form."""
    return _Printer(graph, show_types, show_loc).run()
