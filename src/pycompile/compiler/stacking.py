"""A `for` loop that appends one tensor per iteration to a list, compiled as ONE loop writing
row k of an (n, ...) buffer (the spec's vmap tutorial's `manually_batched`):

    output = []
    for i in range(xs.shape[0]):
        output.append(hswish(xs[i]))
    return ops.stack(output)

Without this the list's growth changes the loop's carried structure every iteration, so the
loop is unrolled: n copies of the body in the IR and in the C. Here the list is a writer while
the body is traced once; its `append(v)` is `buf = TensorScatterUpdate(buf, [[k]], v[None])` on a
carried (n, *v.shape) buffer, which the memory planner updates in place (backend/c/memory.py
`_inplace_carried`: one row copied per iteration). After the loop the list holds the buffer's
rows, and `ops.stack` / `ops.concat` of the untouched list is the buffer itself
(pycompile/ops/stacked.py).

Inside a gradient function the loop is unrolled as before: a differentiated loop saves each
carried value every iteration (autodiff.py), and the whole buffer saved n times is O(n^2)
memory where the unrolled rows cost O(n). vmap runs the function as Python on its batch
tracers, so its loops unroll in Python as they always did.

Only the plain shape is taken; anything else keeps the unrolling, which stays correct:
* the body is straight code: exactly one `L.append(x)` among its top-level statements, `L`
  used nowhere else in it, no break / continue / return, no attribute stores;
* the body assigns only temporaries (names unbound before the loop and never read after it)
  and the loop target; it reads no other list or dict (it might change them or see the list);
* the list is empty when the loop starts and the appended value is one tensor of the same
  type every iteration (the body is traced once with a runtime index, so it is);
* more than one iteration (one iteration is just the body);
* if tracing the body fails for any reason (it needs a compile-time index, a temporary is
  read before it is set), the loop is unrolled and any real error is reported from there.
"""
from __future__ import annotations

import ast

from pycompile.common import dtype as mstype
from pycompile.common.abstract import ScalarType, TensorType, TupleType, U_TYPE
from pycompile.common.tensor import Tensor
from pycompile.compiler import ir
from pycompile.compiler.builder import Sym
from pycompile.compiler.control import NORMAL, _has_container, _target_name, _target_names, assigned_names, \
    snapshot
from pycompile.ops import functional as F
from pycompile.ops.function_index import tensor_scatter_update

_EXITS = (ast.Break, ast.Continue, ast.Return, ast.Yield, ast.YieldFrom, ast.Await, ast.Global, ast.Nonlocal)
_SHAPES: dict = {}      # id(for node) -> (for node, function node, plan or None)


class _Declined(Exception):
    """The body did not fit the stacked form after all: unroll."""


def loop_shape(func_node, node):
    """(list name, temporaries, names the body reads) when the loop has the plain shape, else None."""
    hit = _SHAPES.get(id(node))
    if hit is not None and hit[0] is node and hit[1] is func_node:
        return hit[2]
    plan = _loop_shape(func_node, node)
    _SHAPES[id(node)] = (node, func_node, plan)
    return plan


def _loop_shape(func_node, node):
    appends = [s for s in node.body if isinstance(s, ast.Expr) and _is_append(s.value)]
    if len(appends) != 1:
        return None
    name = appends[0].value.func.value.id
    targets = _target_names(node.target)
    if name in targets:
        return None
    uses, reads = 0, set()
    for s in node.body:
        for x in ast.walk(s):
            if isinstance(x, _EXITS):
                return None
            if isinstance(x, ast.Attribute) and not isinstance(x.ctx, ast.Load):
                return None
            if isinstance(x, ast.Name):
                uses += x.id == name
                if isinstance(x.ctx, ast.Load):
                    reads.add(x.id)
    if uses != 1:
        return None
    temps = assigned_names(node.body) - targets
    inside = {id(x) for s in node.body for x in ast.walk(s)}
    for x in ast.walk(func_node):
        if isinstance(x, ast.Name) and x.id in temps and id(x) not in inside and not isinstance(x.ctx, ast.Store):
            return None         # read (or deleted) outside the body: Python would give the last value
    return name, frozenset(temps), frozenset(reads - {name})


def _is_append(call) -> bool:
    return isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "append" \
        and isinstance(call.func.value, ast.Name) and len(call.args) == 1 and not call.keywords \
        and not isinstance(call.args[0], ast.Starred)


class _RowWriter:
    """Stands for the list while the body is traced: `append(v)` writes row k of the buffer."""

    def __init__(self, builder, index: Sym, rng: range):
        self.builder, self.index, self.rng = builder, index, rng
        self.param = None
        self.new = None
        self.calls = 0

    def append(self, v):
        self.calls += 1
        if isinstance(v, Tensor) and not isinstance(v, Sym):
            v = Sym(self.builder.value(v), self.builder)
        if self.calls > 1 or not isinstance(v, Sym) or not isinstance(v._value.type, TensorType):
            raise _Declined("not one tensor per iteration")
        t = v._value.type
        self.param = ir.Param(name="rows", type=TensorType(t.dtype, (len(self.rng), *t.shape)))
        k = self.index          # the row: the iteration's number, computed in the body's block
        if self.rng.start:
            k = k - self.rng.start
        if self.rng.step != 1:
            k = k // self.rng.step
        index = F.reshape(F.cast(k, mstype.int64), (1, 1))
        self.new = tensor_scatter_update(Sym(self.param, self.builder), index, F.expand_dims(v, 0))


class StackedLoops:
    """Mixin of the interpreter (with Loops): `try_stacked_loop`."""

    def try_stacked_loop(self, frame, node, rng: range, at):
        """Build the loop as one `For` filling a buffer; None: not this shape, unroll as before."""
        if self.differentiating:
            return None
        plan = loop_shape(frame.pf.node, node)
        if plan is None:
            return None
        name, temps, reads = plan
        env0 = frame.env
        lst = env0.get(name)
        if type(lst) is not list or lst or temps & env0.keys():
            return None
        if any(k in env0 and _has_container(env0[k]) for k in reads):
            return None
        b = self.builder
        u0 = b.u
        try:
            loop = self._stacked_for(frame, node, rng, name, at)
        except Exception:
            # whatever went wrong, the unrolled loop does it again and reports a real error there
            frame.env, b.u = env0, u0
            del lst[:]
            return None
        whole = Sym(b.add(ir.GETITEM, (loop,), loop.type.elems[0], {"index": 0}), b)
        b.u = b.add(ir.GETITEM, (loop,), U_TYPE, {"index": 1})
        frame.env = env0
        self.assign_target(frame, node.target, at(rng[-1]))
        rows = [whole[k] for k in range(len(rng))]
        lst.extend(rows)
        b.stacked_lists[id(lst)] = (lst, whole, tuple(rows))
        return self._after_loop(frame, node, NORMAL)

    def _stacked_for(self, frame, node, rng, name, at) -> ir.Node:
        b = self.builder
        env0, u0 = frame.env, b.u
        lst = env0[name]
        index = ir.Param(name=_target_name(node.target) or "i", type=ScalarType("int"))
        if rng.step > 0 and rng.start >= 0:
            b.nonneg.add(id(index))
        writer = _RowWriter(b, Sym(index, b), rng)
        body_env = snapshot(env0)
        body_env[name] = writer
        status, body_nodes, _, u_param, u1 = self._trace_body(frame, node, body_env, index, at)
        if status != NORMAL or writer.new is None or lst:
            raise _Declined("the body did not append exactly once")
        init = F.zeros(writer.param.type.shape, writer.param.type.dtype)
        body = ir.Block((index, writer.param, u_param), tuple(body_nodes), (writer.new._value, u1))
        return b.add(ir.FOR, (ir.Const.scalar(rng.start), ir.Const.scalar(rng.stop), ir.Const.scalar(rng.step),
                              b.value(init), u0), TupleType((writer.param.type, U_TYPE)),
                     {"exit_flags": (), "fills": (0,)},
                     blocks=(body,))
