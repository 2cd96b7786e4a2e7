"""Views: values that are the memory of another value at an offset, read in place instead of
copied (the memory planner, backend/c/memory.py, asks these when it places a node).

* row_view: a Gather of one row (one index, nothing before the axis longer than 1: `xw[t]` in a
  recurrent loop) is a pointer into the tensor it reads; codegen checks the index and points
  (templates' gather).
* strided_view: a StridedSlice (positive steps, the last 1) whose only readers are elementwise
  kernels is read by them through its strides (KInput.strides); codegen points at its first
  element (templates' slice) and records (offset, strides) in Plan.views.

Both only where nothing writes the memory under the view while it is read (unwritten); the
planner's liveness keeps that memory alive as long as the view (aliases keep their owner alive).
"""
from __future__ import annotations

import numpy as np

from pycompile.common.abstract import RefType, ScalarType, TensorType
from pycompile.compiler import ir
from pycompile.ops.lowering import Elementwise

VIEW_MIN_RUN = 64                # contiguous elements a strided view's rows need (strided_view)


def row_view(planner, n) -> bool:
    """A 'row' template (Gather) of one row (one index, nothing before the axis: `xw[t]` in a
    recurrent loop) is that row's memory, not a copy of it, when the tensor it reads is never
    written while the row is read: an arena temporary or a constant (written once, kept alive as long as
    the view by the liveness of aliases), an input, or an output computed once - not a
    Parameter (written in place by Assigns) nor a loop's carried buffer (rows written in
    place). Codegen then checks the index and points into the tensor (templates' gather).
    W11's LSTM read 128 KB a step this way: 32 MB a training call."""
    if _view_kind(n) != "row" or not isinstance(n.type, TensorType) or n.type.size == 0:
        return False
    x, idx = n.inputs
    if not isinstance(x.type, TensorType) or x.type.ndim == 0:
        return False
    axis = n.attrs.get("axis", 0) % x.type.ndim
    if any(d != 1 for d in x.type.shape[:axis]):
        return False
    if not isinstance(idx.type, ScalarType) and (not isinstance(idx.type, TensorType) or idx.type.size != 1):
        return False
    return unwritten(planner, x)


def unwritten(planner, x) -> bool:
    """Nothing writes x's memory while a view of it is read (row_view, strided_view): an
    arena temporary or a constant, an input, or an output computed once - not a Parameter
    (written in place by Assigns) nor a loop's carried buffer (rows written in place)."""
    if isinstance(x, ir.Const):
        return planner.const(x).kind in ("arg", "static")
    s = planner.plan.storage.get(id(x))
    while s is not None and s.kind == "alias":
        x = s.base
        s = planner.plan.storage.get(id(x))
    if s is None:
        return False
    if s.kind == "arg":
        params = planner.g.params
        return s.index < 0 or s.index >= len(params) or not isinstance(params[s.index].type, RefType)
    return s.kind in ("slot", "static")


def strided_view(planner, n) -> bool:
    """A 'box' template (StridedSlice; positive steps, the last one 1) whose only readers are
    elementwise kernels - lone, or fused groups of nothing but elementwise ops - is read by them in place
    (their loops take its strides: KernelEmitter), not copied first: W11's LSTM split its gates
    (32 x 1024) into four such boxes each step, forward and backward (32 MB a training call).
    Not for a result of the block (a loop carries it, a caller reads it) nor where its input
    may be written while it is read (unwritten)."""
    if _view_kind(n) != "box" or not isinstance(n.type, TensorType) or n.type.size == 0:
        return False
    x = n.inputs[0]
    xt = x.type
    steps = tuple(n.attrs.get("strides", ()))
    if not isinstance(xt, TensorType) or xt.ndim == 0 or n.type.ndim != xt.ndim or len(steps) != xt.ndim \
            or len(n.attrs.get("begin", ())) != xt.ndim or any(st < 1 for st in steps) or steps[-1] != 1:
        return False
    block = planner.view_block[0]
    if any(r is n for r in block.results):
        return False
    if planner.view_block[1] is None:
        users: dict = {}
        for m in block.nodes:
            for v in reads(m):
                users.setdefault(id(v), []).append(m)
        planner.view_block[1] = users
    # (an UpdateState reads nothing at run time: it only orders an Assign after the readers)
    readers = [m for m in planner.view_block[1].get(id(n), []) if not ir.is_op(m, update_state_op())]
    if not readers or not all(_strided_reader(m) for m in readers) or not unwritten(planner, x):
        return False
    contiguous = [int(np.prod(xt.shape[d + 1:])) for d in range(xt.ndim)]
    strides = tuple(int(st) * c for st, c in zip(steps, contiguous))
    # the elements read one after another: a kernel's inner loop runs over no more than
    # these, so a narrow box (x[:, :5]) is copied into one flat run that vectorizes instead
    run, d = 1, xt.ndim - 1
    while d >= 0 and strides[d] == run:
        run *= n.type.shape[d]
        d -= 1
    if run < VIEW_MIN_RUN and d >= 0:
        return False
    planner.plan.views[id(n)] = (sum(int(b) * c for b, c in zip(n.attrs["begin"], contiguous)), strides)
    return True


def _view_kind(n) -> str:
    """The op table's answer: which view its template's result may be (lowering.Template.view)."""
    return getattr(getattr(n.op, "lower", None), "view", "")


def _strided_reader(m) -> bool:
    """An elementwise kernel that can read an input through strides (strided_view): a lone
    elementwise node with a tensor result, or a fused group of nothing but elementwise ops (no
    matrix product or reduction heading it, no loop)."""
    if m.op is ir.FUSED:
        return all(elementwise(k.op) for k in m.blocks[0].nodes)
    return not m.blocks and elementwise(m.op) and isinstance(m.type, TensorType)


def reads(n):
    """Every value n reads, its nested blocks' free values included."""
    yield from n.inputs
    for b in n.blocks:
        for m in ir.iter_nodes(b):
            yield from m.inputs
        yield from b.results


def elementwise(op) -> bool:
    return isinstance(getattr(op, "lower", None), Elementwise)


def update_state_op():
    from pycompile.ops import prims as P
    return P.UpdateState
