"""The IR verifier, run after every pass in tests (PYCOMPILE_VERIFY=1 or `verify=True`).

Checks: every input is defined before its use in the same or an enclosing block (or is a graph
/ block parameter or a constant); op nodes' types equal what their table `infer` gives now;
structural nodes have blocks whose parameters and results agree with their carried types.
"""
from __future__ import annotations

from pycompile.common.abstract import MonadType, ScalarType, TensorType, TupleType
from pycompile.compiler import ir
from pycompile.ops._table import OpDef


class VerifyError(AssertionError):
    pass


def verify(graph: ir.Graph, where: str = "") -> None:
    where = where or graph.name
    _block(graph.body, {id(p) for p in graph.params}, where, set())
    results = graph.body.results
    if not results or not isinstance(results[-1].type, MonadType):
        _fail(where, graph.name, "the graph body's last result must be the final memory state U")


def _fail(where, n, msg):
    raise VerifyError(f"[{where}] {n.op.name if isinstance(n, ir.Node) else n}: {msg}")


def _defined(v, defined: set) -> bool:
    return id(v) in defined or isinstance(v, ir.Const)


def _block(b: ir.Block, defined: set, where, seen: set):
    """`defined`: the ids of the values in scope (this block's enclosing blocks'); what this
    block adds is taken out again when it ends."""
    for p in b.params:      # (a While's two blocks may share their parameters: they are siblings)
        if _defined(p, defined):
            _fail(where, p, "a block parameter shadows a value of an enclosing block")
    added = [id(p) for p in b.params]
    defined.update(added)
    for n in b.nodes:
        if id(n) in seen:
            _fail(where, n, "the node appears twice in the graph (a node belongs to one block)")
        seen.add(id(n))
        for i in n.inputs:
            if not _defined(i, defined):
                _fail(where, n, f"input {i!r:.60} is used before it is defined")
        for blk in n.blocks:
            _block(blk, defined, where, seen)
        _check_node(n, where)
        defined.add(id(n))
        added.append(id(n))
    for r in b.results:
        if not _defined(r, defined):
            _fail(where, r, "block result is not defined in scope")
    defined.difference_update(added)


# infer is a function of the op, its input types and its attributes: a node the passes left as it
# was (most of them, after most passes) is not inferred again. Attributes that cannot be hashed
# (lists, arrays) skip the memo.
_INFERRED: dict = {}


def _infer(op, types, attrs):
    try:
        key = (op, tuple(types), tuple(sorted(attrs.items())))
        hash(key)
    except TypeError:
        key = None
    if key is not None and key in _INFERRED:
        return _INFERRED[key]
    try:
        t = op.infer(types, **attrs)
    except Exception as e:      # noqa: BLE001  (reported by the caller with the node)
        return e
    if key is not None:
        if len(_INFERRED) > 50000:
            _INFERRED.clear()
        _INFERRED[key] = t
    return t


def _check_node(n: ir.Node, where):
    op = n.op
    if isinstance(op, OpDef) and op.check_infer:
        types = [i.type for i in n.inputs if not isinstance(i.type, MonadType)]
        if op.variadic:
            k = len(op.inputs) - 1
            types = types[:k] + [TupleType(tuple(types[k:]))]
        t = _infer(op, types, n.attrs)
        if isinstance(t, Exception):
            _fail(where, n, f"infer fails on its own inputs: {t}")
        if t != n.type:
            _fail(where, n, f"type {n.type} but infer gives {t}")
    elif op is ir.IF:
        cond = n.inputs[0].type
        if not (isinstance(cond, ScalarType) or isinstance(cond, TensorType) and cond.size == 1):
            _fail(where, n, f"condition must be a scalar or a one-element tensor, not {cond}")
        if len(n.blocks) != 2 or any(blk.params for blk in n.blocks):
            _fail(where, n, "an If has two blocks without parameters")
        for blk in n.blocks:
            got = tuple(r.type for r in blk.results)
            if got != n.type.elems:
                _fail(where, n, f"branch results {got} do not match {n.type.elems}")
    elif op is ir.FOR:
        body = n.blocks[0]
        carried = tuple(p.type for p in body.params[1:])
        if carried != n.type.elems or tuple(r.type for r in body.results) != carried:
            _fail(where, n, "carried types, body results and loop type disagree")
        inits = tuple(i.type for i in n.inputs[3:])
        if inits != carried:
            _fail(where, n, f"initial values {inits} do not match carried {carried}")
        for k in n.attrs.get("exit_flags", ()):
            if not 0 <= k < len(carried) or carried[k] not in (ScalarType("bool"), ScalarType("int")) and not (
                    isinstance(carried[k], TensorType) and carried[k].size == 1):
                _fail(where, n, f"exit flag {k} is not a carried flag value")
    elif op is ir.WHILE:
        cond, body = n.blocks
        carried = tuple(p.type for p in body.params)
        if tuple(r.type for r in body.results) != carried or tuple(i.type for i in n.inputs) != carried:
            _fail(where, n, "carried types disagree")
    elif op is ir.GETITEM:
        parent = n.inputs[0]
        k = n.attrs.get("index")
        if not isinstance(parent.type, TupleType) or not isinstance(k, int) or not 0 <= k < len(parent.type.elems) \
                or parent.type.elems[k] != n.type:
            _fail(where, n, "component type mismatch")
    elif op is ir.FUSED:
        blk = n.blocks[0]
        if len(blk.params) != len(n.inputs):
            _fail(where, n, "fused block parameters do not match inputs")
        if tuple(r.type for r in blk.results) != n.type.elems:
            _fail(where, n, "fused results do not match its type")
    elif op is ir.CALL:
        callee = n.attrs["graph"]
        if tuple(p.type for p in callee.params) != tuple(i.type for i in n.inputs[:-1]):
            _fail(where, n, "arguments do not match the subgraph's parameters")
        if tuple(r.type for r in callee.body.results) != n.type.elems:
            _fail(where, n, "results do not match the subgraph's outputs and memory state")
        verify(callee, f"{where}/@{callee.name}")
