"""lazy_inline: instances of a Cell class with equal `cell_init_args` share one subgraph.

The first call of such an instance traces its `construct` into a separate graph whose
parameters are the call's tensors and the instance's Parameters; every call (of that instance
or another with equal `cell_init_args`) becomes a `Call` node passing its own tensors and its
own Parameters. The subgraph is optimized once (passes/subgraphs.py) and emitted as one C
function (codegen). A GPT stack of L blocks is then traced, optimized and compiled as one
block plus L calls instead of L copies.

MindSpore's two usage limitations hold:
* a Cell whose attributes (or any sub-Cell's) changed after `__init__` no longer matches its
  `cell_init_args`; it is inlined instead (a correct result, without the reuse);
* only the outermost lazy_inline Cell of a nest becomes a subgraph: inside a subgraph, inner
  lazy_inline Cells are inlined.
Reuse is on by default; MS_DEV_CELL_REUSE=0 turns it off (every instance is inlined).
"""
from __future__ import annotations


from pycompile.common.abstract import TensorType, TupleType
from pycompile.common.cellbase import subtree_version
from pycompile.common.tensor import Tensor
from pycompile.compiler import ir
from pycompile.compiler.builder import Sym, finish_graph
from pycompile.compiler.pytree import unflatten
from pycompile.compiler.source import unwrap
from pycompile.ops.tracing import tracing
from pycompile.common import knobs

INLINE = object()          # call() result meaning "not shareable here: inline this call"


def eligible(interp, cell) -> bool:
    init = type(cell).__init__
    return (getattr(init, "_pycompile_lazy_inline", False)
            and "cell_init_args" in cell.__dict__
            and not interp.inside_lazy
            and knobs.get("MS_DEV_CELL_REUSE")
            and cell.__dict__.get("_lazy_inline_version") == subtree_version(cell))


def _relative_params(cell) -> dict:
    """{path inside the Cell: Parameter}, e.g. 'attn.query.weight'."""
    out = {}
    for cname, c in cell.cells_and_names():
        for pname, p in c._params.items():
            out.setdefault(f"{cname}.{pname}" if cname else pname, p)
    return out


def _arg_key(a):
    if isinstance(a, Sym):
        t = a._value.type
        return ("t", t) if isinstance(t, TensorType) else None
    if isinstance(a, (bool, int, float, str)) or a is None:
        return ("c", type(a).__name__, a)
    if isinstance(a, tuple) and all(_arg_key(x) is not None for x in a):
        return ("tuple", tuple(_arg_key(x) for x in a))
    if isinstance(a, Tensor):
        return ("T", id(a))
    return None


def call(interp, cell, args: list, kwargs: dict):
    """A Call of the shared subgraph for this Cell, or INLINE when it cannot be shared."""
    if kwargs:
        return INLINE
    keys = [_arg_key(a) for a in args]
    if any(k is None for k in keys) or any(isinstance(a, tuple) and any(isinstance(x, Sym) for x in a)
                                           for a in args):
        return INLINE
    key = (type(cell), cell.cell_init_args, cell.training, tuple(keys))
    entry = interp.lazy_graphs.get(key)
    if entry is None:
        entry = interp.lazy_graphs[key] = _trace(interp, cell, args)
    graph, ref_paths = entry
    if any(kind == "bounded" for kind, _ in graph.out_tree[1]):
        return INLINE       # a result of run-time length (masked_select) stays in the caller's graph
    mine = _relative_params(cell)
    refs = []
    for path, original in ref_paths:
        p = mine.get(path) if path is not None else original
        if p is None or p._data.shape != original._data.shape or p._data.dtype != original._data.dtype:
            return INLINE
        refs.append(p)
    b = interp.builder
    inputs = [a._value for a in args if isinstance(a, Sym)]
    inputs += [b.ref_param(p) for p in refs]
    types = tuple(r.type for r in graph.body.results)
    node = b.add(ir.CALL, (*inputs, b.u), TupleType(types), {"graph": graph})
    outs = [b.add(ir.GETITEM, (node,), t, {"index": i}) for i, t in enumerate(types)]
    b.u = outs[-1]
    tree, leaves = graph.out_tree
    values = [Sym(outs[v], b) if kind in ("out", "num") else v for kind, v in leaves]
    return values[0] if tree is None else unflatten(tree, values)


def _trace(interp, cell, args):
    """Trace the Cell's construct as its own graph (inner lazy_inline Cells are inlined)."""
    sub = type(interp)(max_depth=interp.max_depth)
    sub.inside_lazy = True
    b = sub.builder
    params, call_args = [], []
    for i, a in enumerate(args):
        if isinstance(a, Sym):
            p = ir.Param(name=f"x{i}", type=a._value.type)
            params.append(p)
            call_args.append(Sym(p, b))
        else:
            call_args.append(a)
    b.loc = interp.builder.loc
    with tracing(b):
        result = sub.inline(unwrap(type(cell).construct), [cell, *call_args], {})
    graph = finish_graph(b, f"{type(cell).__name__}_construct", params, result)
    inverse = {id(p): path for path, p in _relative_params(cell).items()}
    ref_paths = [(inverse.get(id(r.ref)), r.ref) for r in b.ref_order]
    return graph, ref_paths
