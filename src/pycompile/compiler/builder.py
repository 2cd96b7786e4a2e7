"""Graph building: the tracer values (`Sym`) and the `Builder` that appends IR nodes.

A `Sym` stands for a runtime value inside a graph being built. It has every Tensor operator
and method (they come from `TensorMethods`), so library code - `ops.*`, Tensor methods, the
constructs of pycompile.nn layers - runs unchanged on it and, through `_table.apply`, calls
`Builder.emit` instead of NumPy.

Effects follow MindSpore's IR: reading a Parameter is `Load(param, U)` followed by
`U' = UpdateState(U, load)`; `Assign(param, value, U)` and `Print(..., U)` are each followed by
an UpdateState. The Builder owns the current `U`.
"""
from __future__ import annotations

import contextlib
import dataclasses

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import (RefType, ScalarType, Symbolic, TensorType, TupleType, U_TYPE)
from pycompile.common.parameter import Parameter
from pycompile.common.tensor import Tensor, TensorMethods
from pycompile.compiler import ir
from pycompile.compiler.pytree import flatten
from pycompile.errors import GraphTypeError, InputValueNeeded
from pycompile.ops import prims as P
from pycompile.ops._table import Effect, OpDef
from pycompile.ops.tracing import Tracer
from pycompile.ops.dynamic_length import graph_parts


class NeedsConstant(Exception):
    """A runtime value was used where Python needs a compile-time one (bool(), int(), an
    index into a tuple, range()). Loops catch it and unroll; otherwise it is a user error."""


class HostMemoryNeeded(NeedsConstant, AttributeError):
    """A Tensor method that reads the array itself (data_ptr, get_bytes, tolist ...) was called on a
    graph value, which has memory only when the graph runs: a user error at their line. Also an
    AttributeError, so that code asking `getattr(x, "_data", None)` of any value still gets None."""


class Sym(TensorMethods, Symbolic):
    """A runtime value in a graph: a tensor (TensorType) or a Python number (ScalarType)."""

    __slots__ = ("_value", "_tracer")

    @property
    def _data(self):
        raise HostMemoryNeeded("this Tensor method reads the tensor's memory, which a graph value has only when "
                               "the graph runs; call it outside graph code on the returned tensor")

    def __init__(self, value: ir.Value, builder: "Builder"):
        self._value = value
        self._tracer = builder

    @property
    def _abstract(self):
        return self._value.type

    def __bool__(self):
        raise NeedsConstant("the truth value of a graph tensor is only known at run time")

    def __index__(self):
        raise NeedsConstant("a graph value cannot be used as a Python index or size")

    def __int__(self):
        raise NeedsConstant("int() of a graph value is only known at run time")

    def __float__(self):
        raise NeedsConstant("float() of a graph value is only known at run time")

    def __len__(self):
        t = self._value.type
        if isinstance(t, TensorType) and t.shape:
            return t.shape[0]
        raise GraphTypeError("len() of a 0-d tensor")

    def __repr__(self) -> str:
        return f"<graph value {ir.type_str(self._value.type)}>"

    __hash__ = object.__hash__

    def asnumpy(self):
        raise NeedsConstant("asnumpy() of a graph value is only known at run time; return it instead")

    def value_for_shape(self, what: str):
        """An op's request for the values of this Tensor, which set an output's shape (MindSpore's
        value-depend inputs: ResizeLinear1D's size). A constant gives its value; a graph input
        raises errors.InputValueNeeded - for a Tensor argument of the compiled call, pycompile.api
        compiles the call again with it as a constant, once per value; for any other input the user
        sees a ValueError at their line. None for a value computed in the graph."""
        v = self._value
        # through ops that keep the values in order (a Reshape of the argument: GradOperation's)
        while isinstance(v, ir.Node) and getattr(v.op, "name", None) in _SAME_VALUES and v.inputs:
            v = v.inputs[0]
        if isinstance(v, ir.Const) and isinstance(v.type, TensorType):
            return np.asarray(v.value).reshape(self._value.type.shape)
        if isinstance(v, ir.Param):
            raise InputValueNeeded(f"the values of this Tensor set {what}: they must be known when the graph is "
                                   "compiled (a constant, or an argument of the compiled function)",
                                   value=self if v is self._value else Sym(v, self._tracer))
        return None


# ops whose result holds its input's values in the same order (Sym.value_for_shape looks through them)
_SAME_VALUES = frozenset({"Reshape", "ExpandDims", "Squeeze", "Flatten", "Identity"})


# Python's operators on mutable numbers give numbers (MindSpore 2.10 returns `a + b` of two
# ms.mutable ints as an int); the same arithmetic through an ops.* function gives a Tensor.
_NUMBER_OPERATORS = ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
                     "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__",
                     "__rpow__", "__neg__", "__pos__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__")


def is_number(x) -> bool:
    """A Python number, an ms.mutable one, or a graph value computed from them by Python operators."""
    if isinstance(x, Sym):
        return getattr(x._value.type, "number", False)
    return type(x) in (bool, int, float) or getattr(x, "__ms_mutable__", False) is True and isinstance(x, (int, float))


def _number_operator(name):
    tensor_op = getattr(TensorMethods, name)

    def operator(self, *other):
        if not (is_number(self) and all(is_number(o) for o in other)):
            return tensor_op(self, *other)
        with self._tracer.number_results():
            return tensor_op(self, *other)
    operator.__name__ = name
    return operator


for _name in _NUMBER_OPERATORS:
    setattr(Sym, _name, _number_operator(_name))


class Builder(Tracer):
    """Appends nodes to the block being built; converts op arguments to IR values. It is the
    tracer of graph values (`Sym`): ops on them, and effects and Parameter reads met while it is
    active (`captures`), become IR nodes."""

    level = 0
    captures = True

    def __init__(self, frontend):
        self.frontend = frontend
        self._stack: list[list] = [[]]
        self.u: ir.Value = ir.U
        self.ref_params: dict[int, ir.Param] = {}
        self.ref_order: list[ir.Param] = []
        self.nonneg: set = set()        # ids of runtime int values known to be >= 0
        # id(list) -> (list, whole, rows): lists a loop filled row by row (compiler/stacking.py)
        self.stacked_lists: dict = {}
        self.loc: ir.Loc | None = None
        self.scope = "Default"          # the Cell scope of the nodes added now (frontend._call_cell)
        self._scoped = (None, "", None)     # (loc, scope, the loc in that scope) last made
        self.number_ops = 0             # > 0 inside a Python operator on mutable numbers
        self.hooked_values: set = set()     # ids of values Tensor.register_hook made (one hook each)

    @contextlib.contextmanager
    def number_results(self):
        """Nodes emitted inside are Python numbers (TensorType.number) when 0-d."""
        self.number_ops += 1
        try:
            yield
        finally:
            self.number_ops -= 1

    # -- blocks ------------------------------------------------------------------------------------
    def push_block(self) -> None:
        self._stack.append([])

    def pop_block(self) -> list:
        return self._stack.pop()

    @property
    def nodes(self) -> list:
        return self._stack[-1]

    def add(self, op, inputs, out_type, attrs=None, blocks=()) -> ir.Node:
        loc = self.loc
        if loc is not None and not loc.scope:          # a source line's loc: the scope now
            # (a loc already scoped is a node's, reused for the nodes made from it: autodiff's)
            made = self._scoped
            if made[0] is not loc or made[1] != self.scope:
                made = self._scoped = (loc, self.scope, dataclasses.replace(loc, scope=self.scope))
            loc = made[2]
        n = ir.Node(op=op, inputs=tuple(inputs), type=out_type, attrs=dict(attrs or {}),
                    blocks=tuple(blocks), loc=loc)
        self._stack[-1].append(n)
        return n

    def sym(self, v: ir.Value):
        """Wrap an IR value for Python code: tensors and scalars as Sym, tuples unpacked."""
        t = v.type
        if isinstance(t, TupleType):
            return tuple(self.sym(self.add(ir.GETITEM, (v,), e, {"index": i})) for i, e in enumerate(t.elems))
        return Sym(v, self)

    # -- values ------------------------------------------------------------------------------------
    def ref_param(self, p: Parameter) -> ir.Param:
        ref = self.ref_params.get(id(p))
        if ref is None:
            t = TensorType(mstype.from_numpy(p._data.dtype), p._data.shape)
            ref = ir.Param(name=_ident(p.name or "param"), type=RefType(t), ref=p)
            self.ref_params[id(p)] = ref
            self.ref_order.append(ref)
        return ref

    def load(self, p: Parameter) -> ir.Node:
        ref = self.ref_param(p)
        n = self.add(P.Load, (ref, self.u), ref.type.tensor)
        self.u = self.add(P.UpdateState, (self.u, n), U_TYPE)
        return n

    def value(self, x) -> ir.Value:
        """The IR value of an op argument."""
        if isinstance(x, Sym):
            return x._value
        if isinstance(x, Parameter):
            return self.load(x)
        if isinstance(x, Tensor):
            return ir.Const.tensor(x._data.copy())
        if isinstance(x, (bool, int, float, np.number, np.bool_)):
            return ir.Const.scalar(x)
        if isinstance(x, ir.Value):
            return x
        raise GraphTypeError(f"cannot use a {type(x).__name__} as an op argument in graph code")

    # -- ops -------------------------------------------------------------------------------------
    def emit(self, op: OpDef, inputs: list, attrs: dict, out_type):
        """Called by `_table.apply` when an argument is a Sym."""
        if op.effect is Effect.MEM:
            return self._emit_assign(op, inputs, attrs, out_type)
        if op.effect is Effect.IO:
            return self.emit_print(inputs[0], attrs)
        if op is P.Pow and out_type == ScalarType("int") and isinstance(inputs[1], Sym) \
                and not self.is_nonneg(inputs[1]._value):
            # Python's int ** int is a float when the exponent is negative: unless the exponent is
            # known to be >= 0, it must be known when compiling (such a loop is unrolled)
            raise NeedsConstant("int ** int needs its exponent at compile time (a negative one gives a float)")
        vals = []
        for i, x in enumerate(inputs):
            if op.variadic and i == len(inputs) - 1 and isinstance(x, (tuple, list)):
                vals.extend(self.value(y) for y in x)
            else:
                vals.append(self.value(x))
        if op is P.Depend:
            vals = [vals[0], *self._flat_values(inputs[1])]
        if isinstance(out_type, TensorType):
            # only a Python operator on numbers makes a number (an infer may hand back its input's type)
            number = self.number_ops > 0 and out_type.shape == ()
            if out_type.number != number:
                out_type = TensorType(out_type.dtype, out_type.shape, number=number)
        n = self.add(op, vals, out_type, attrs)
        return self.sym(n)

    def is_nonneg(self, v) -> bool:
        """A runtime int known to be >= 0: a loop index counting up from >= 0, a constant >= 0,
        or `a % c` with a constant c > 0 (Python's modulo takes the divisor's sign)."""
        if isinstance(v, ir.Const):
            return not isinstance(v.value, float) and v.value >= 0
        if id(v) in self.nonneg:
            return True
        if ir.is_op(v, P.FloorMod):
            c = v.inputs[1]
            return isinstance(c, ir.Const) and isinstance(c.value, (int, float)) and c.value > 0
        return False

    def _flat_values(self, x) -> list:
        if isinstance(x, (tuple, list)):
            out = []
            for y in x:
                out.extend(self._flat_values(y))
            return out
        if isinstance(x, (Sym, Parameter, Tensor)):
            return [self.value(x)]
        return []

    def _emit_assign(self, op, inputs, attrs, out_type):
        target, value = inputs
        if not isinstance(target, Parameter):
            raise GraphTypeError("For 'Assign', the first argument must be a Parameter (e.g. self.weight)")
        ref = self.ref_param(target)
        if isinstance(value, (bool, int, float, np.number, np.bool_)):
            # MindSpore converts a Python number to a tensor of the Parameter's type
            t = ref.type.tensor
            v = ir.Const.tensor(np.full(t.shape, value, dtype=t.dtype.np))
        else:
            v = self.value(value)
        n = self.add(op, (ref, v, self.u), out_type, attrs)
        self.u = self.add(P.UpdateState, (self.u, n), U_TYPE)
        return self.sym(n)

    def emit_print(self, values, attrs):
        vals = [self.value(v) for v in values]
        n = self.add(P.Print, (*vals, self.u), TensorType(mstype.int32, ()), attrs)
        self.u = self.add(P.UpdateState, (self.u, n), U_TYPE)
        return self.sym(n)

    def register_hook(self, sym, hook):
        """`Tensor.register_hook` in graph code (ops/autodiff/tensor_hooks.py): `sym` becomes
        CustomGrad(sym), whose rule calls hook with its gradient; returns the tensor itself, as
        MindSpore's graph does. Its two documented limits are errors here: one hook per tensor (the
        wheel's RuntimeError), and none on a tensor the graph already used (the wheel happens to
        apply such a hook to the earlier uses too; pycompile does not reorder the graph built so far)."""
        from pycompile.ops._table import OpRuntimeError
        from pycompile.ops.autodiff.custom import call_user, custom
        from pycompile.ops.autodiff.tensor_hooks import run_hooks
        v = sym._value
        if id(v) in self.hooked_values:
            raise OpRuntimeError("It is not supported to register multiple hooks for a Tensor.")

        def used(nodes) -> bool:
            for n in nodes:
                if any(x is v for x in n.inputs):
                    return True
                for blk in n.blocks:
                    if any(r is v for r in blk.results) or used(blk.nodes):
                        return True
            return False
        if any(used(level) for level in self._stack):
            raise OpRuntimeError("It is not supported to register hook after the Tensor is used previously in "
                                 "graph mode: register it right after the tensor is computed.")
        hooked = custom(sym, [sym], lambda dout, out, inputs: (run_hooks([hook], dout, call_user),))
        sym._value = hooked._value
        self.hooked_values.add(id(sym._value))
        return sym

    def call_cell(self, cell, args, kwargs):
        """A Cell called with graph values (from library code such as SequentialCell)."""
        return self.frontend.call_value(cell, list(args), dict(kwargs or {}))

    def differentiate(self, gradfn, args, kwargs):
        """A gradient function (ms.grad, GradOperation ...) called in graph code: the frontend
        traces it and differentiates the IR (compiler/autodiff.py)."""
        return self.frontend.differentiate(gradfn, args, kwargs)

    def forward_differentiate(self, fn, inputs, tangents):
        """ops.jvp called in graph code: the frontend traces `fn` and pushes the tangents through
        the IR (compiler/forward.py)."""
        return self.frontend.forward_differentiate(fn, inputs, tangents)

    walks_code = True

    def walk(self, fn, args, kwargs):
        """Library code asking for `fn` to be traced as graph code, its loops kept as loops
        (ops.tracing.walk_as_graph_code: the recurrent layers' time loop)."""
        return self.frontend.inline(fn, list(args), dict(kwargs))


def finish_graph(b: "Builder", name: str, inputs: list, result) -> ir.Graph:
    """The graph a builder built, returning `result` (any Python value): graph values become
    outputs, everything else is kept in `out_tree` to rebuild the Python return value."""
    leaves, tree = flatten(result)
    outputs, out_tree_leaves = [], []
    for leaf in leaves:
        if isinstance(leaf, Sym):
            # "num": a mutable number's arithmetic, returned as a Python number (TensorType.number)
            out_tree_leaves.append(("num" if getattr(leaf._value.type, "number", False) else "out", len(outputs)))
            outputs.append(leaf._value)
        elif isinstance(leaf, Tensor) and not isinstance(leaf, Parameter):
            out_tree_leaves.append(("const", leaf))
        elif isinstance(leaf, Parameter):
            out_tree_leaves.append(("out", len(outputs)))
            outputs.append(b.load(leaf))
        elif graph_parts(leaf) is not None:
            # a value of run-time length (masked_select): its buffer and its count; the call
            # returns the buffer's first count places along its run-time axis (ops/dynamic_length.py)
            data, count, axis = graph_parts(leaf)
            data, count = b.value(data), b.value(count)
            out_tree_leaves.append(("bounded", (len(outputs), len(outputs) + 1, axis)))
            outputs.extend((data, count))
        else:
            out_tree_leaves.append(("const", leaf))
    body = ir.Block((), tuple(b.nodes), (*outputs, b.u))
    return ir.Graph(name, (*inputs, *b.ref_order), body, out_tree=(tree, out_tree_leaves), loc=None)


def _ident(name: str) -> str:
    return "".join(c if c.isalnum() or c == "_" else "_" for c in name)


def scalar_type_of(v) -> ScalarType:
    return ScalarType(mstype.scalar_kind(v))
