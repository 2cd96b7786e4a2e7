"""Control flow for the frontend: runtime `if`, loops that stay loops, and early exits.

Python values flow through the interpreter's environment; only leaves that are graph values
(`Sym`) become IR. Where Python control flow depends on a graph value:

* `if` traces both branches into blocks and merges the environments: every variable that
  differs becomes a result of the `If` node (a Python number against a tensor is lifted to a
  constant of the tensor's type when its kind fits: 0.5 never becomes an int tensor).
* `for i in range(n)` traces the body once with the carried variables as block parameters and
  emits one `For` node. If a carried variable changes type in the first iteration (the spec's
  `out = 0` becoming a tensor) that iteration is peeled and the rest stays a loop. Python numbers
  that change in the body are lifted to runtime scalars. If the body needs a compile-time index
  (`self.blocks[i]`, a list that grows) the loop is unrolled instead. `for row in tensor` is
  the same loop over the first axis, the target a gathered row. After the loop the target
  holds its last value (carried out of the loop when a `break` may end it early).
* `while` with a graph condition becomes a `While` node; with a constant condition it runs at
  compile time. Names its body defines are temporaries (not carried; an error if used after
  the loop); a body that always breaks or returns makes it an `if`.
* `break`, `continue` and `return` under a graph condition set flag variables; the rest of the
  block runs under `if not flag`, and loops test the flags. A `return` inside a loop carries
  its value out (a placeholder of the returned type until it happens).
"""
from __future__ import annotations

import ast

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import MonadType, ScalarType, TensorType, TupleType
from pycompile.common.tensor import Tensor
from pycompile.compiler import ir
from pycompile.compiler.builder import NeedsConstant, Sym
from pycompile.compiler.pytree import flatten, unflatten
from pycompile.errors import CompileTypeError, CompileValueError
from pycompile.ops import functional as F

NORMAL, BREAK, CONTINUE, RETURN, MAYBE = "normal", "break", "continue", "return", "maybe"
BRK, CNT, RET, RETVAL = "__brk__", "__cnt__", "__ret__", "__retval__"
FLAGS = (BRK, CNT, RET)
UNROLL_LIMIT = 4096


class _Undefined:
    """A variable assigned in only one branch of a runtime `if` (where='if'), or first assigned
    in the body of a `while` on a tensor value (where='while'); using it is an error."""

    def __init__(self, name: str, loc, where: str = "if"):
        self.name, self.loc, self.where = name, loc, where

    def __repr__(self):
        return f"<undefined {self.name}>"


class _Unset:
    def __repr__(self):
        return "<unset>"


UNSET = _Unset()


class LoopRetry(Exception):
    """The traced loop body does not fit the loop's carried types; `kind` says how to retry."""

    def __init__(self, kind: str, names=(), value=None):
        super().__init__(kind)
        self.kind, self.names, self.value = kind, set(names), value


def snapshot(env: dict) -> dict:
    """Copy an environment so that list mutation in one trace cannot leak into another."""
    out = {}
    for k, v in env.items():
        out[k] = _copy_containers(v)
    return out


def _copy_containers(v):
    if isinstance(v, list):
        return [_copy_containers(x) for x in v]
    if isinstance(v, tuple) and not hasattr(v, "_fields") and any(isinstance(x, (list, tuple)) for x in v):
        return tuple(_copy_containers(x) for x in v)
    if isinstance(v, dict):
        return {k: _copy_containers(x) for k, x in v.items()}
    return v


def is_graph(v) -> bool:
    return isinstance(v, Sym)


def _is_number(v) -> bool:
    return isinstance(v, (bool, int, float, np.number, np.bool_)) and not isinstance(v, Tensor)


def _inplace_methods() -> set:
    from pycompile.ops.entries.inplace import INPLACE_METHODS
    return INPLACE_METHODS


def _inplace_functions() -> dict:
    from pycompile.ops.inplace_functions import INPLACE_FUNCTIONS
    return INPLACE_FUNCTIONS


def assigned_names(stmts) -> set:
    """Names a block of statements may assign (not descending into nested defs)."""
    names = set()

    class V(ast.NodeVisitor):
        def visit_Name(self, node):
            if isinstance(node.ctx, ast.Store):
                names.add(node.id)

        def visit_Subscript(self, node):
            # `y[i] = v` rebinds y when y is a tensor (functional item assignment)
            if isinstance(node.ctx, ast.Store) and isinstance(node.value, ast.Name):
                names.add(node.value.id)
            self.generic_visit(node)

        def visit_Call(self, node):
            # `x.add_(y)` rebinds x when x is a tensor (an in-place method: ops/entries/inplace.py)
            f = node.func
            if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.attr in _inplace_methods():
                names.add(f.value.id)
            # `ops.clamp_(x, ...)` likewise (ops/inplace_functions.py), whatever the function is called through
            called = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
            if called in _inplace_functions() and node.args and isinstance(node.args[0], ast.Name):
                names.add(node.args[0].id)
            # `F.relu(x, inplace=True)` (mint.nn.functional's in-place switch) likewise
            if node.args and isinstance(node.args[0], ast.Name) and any(
                    k.arg == "inplace" and not (isinstance(k.value, ast.Constant) and not k.value.value)
                    for k in node.keywords):
                names.add(node.args[0].id)
            self.generic_visit(node)

        def visit_FunctionDef(self, node):
            names.add(node.name)

        def visit_Lambda(self, node):
            pass

    for s in stmts:
        V().visit(s)
    return names


def has_break(stmts) -> bool:
    """Whether a loop body has a `break` of its own (not one of a nested loop)."""
    def visit(node) -> bool:
        if isinstance(node, ast.Break):
            return True
        if isinstance(node, (ast.For, ast.While)):
            return any(visit(s) for s in node.orelse)
        if isinstance(node, (ast.FunctionDef, ast.Lambda, ast.ClassDef)):
            return False
        return any(visit(c) for c in ast.iter_child_nodes(node))
    return any(visit(s) for s in stmts)


def mutable_names(env: dict) -> set:
    """Names holding lists / dicts: a loop body can change them without assigning the name
    (`outs.append(y)`), so loops carry them and unroll when their structure changes."""
    return {k for k, v in env.items() if _has_container(v)}


def _has_container(v) -> bool:
    if isinstance(v, (list, dict)):
        return True
    return isinstance(v, tuple) and any(_has_container(x) for x in v)


class ControlFlow:
    """Mixin of the frontend Interpreter: needs `self.builder`, `self.exec_stmts`, `self.error`."""

    # ---- conditions -------------------------------------------------------------------------------
    def cond_value(self, v, node):
        """Python bool for a compile-time condition, or an IR value (bool scalar / size-1 tensor)."""
        if isinstance(v, Sym):
            t = v._value.type
            if isinstance(t, TensorType) and t.size != 1:
                raise self.error(node, f"The truth value of a Tensor with {t.size} elements (shape "
                                       f"{list(t.shape)}) is ambiguous: a condition (`if`, `while`, `and`, "
                                       f"`or`, `not`) needs a tensor with one element",
                                 "reduce it first, e.g. `if (x > 0).all():` or `if x.sum() > 0:`, or use ops.select",
                                 kind=CompileValueError)
            return v._value
        if isinstance(v, _Undefined):
            raise self.undefined(v, node)
        try:
            return bool(v)
        except NeedsConstant:
            raise
        except Exception as e:
            raise self.error(node, f"cannot use {type(v).__name__} as a condition: {e}")

    def not_flags(self, frame):
        """IR / Python value of `not (break or continue or return)` for the current frame."""
        result = True
        for f in FLAGS:
            v = frame.env.get(f, False)
            if isinstance(v, Sym):
                nv = F.logical_not(v)
                result = nv if result is True else F.logical_and(result, nv)
            elif v:
                return False
        return result

    def run_guarded(self, frame, fn, node):
        """Run fn() only if no exit flag is set; returns the flow status."""
        guard = self.not_flags(frame)
        if guard is True:
            return fn()
        if guard is False:
            return NORMAL
        return self.runtime_if(frame, guard._value if isinstance(guard, Sym) else guard, fn, lambda: NORMAL, node,
                               skip_else=True)

    # ---- runtime if -----------------------------------------------------------------------------------
    def runtime_if(self, frame, cond: ir.Value, then_fn, else_fn, node, skip_else=False):
        """Trace both branches and merge their environments. With `skip_else` the else branch is
        the path of a taken break / continue / return, on which code after the `if` never runs:
        names the then-branch defines stay defined (a placeholder fills the else side)."""
        b = self.builder
        env0, u0 = frame.env, b.u
        branches = []
        for fn in (then_fn, else_fn):
            b.push_block()
            frame.env = snapshot(env0)
            b.u = u0
            status = fn()
            branches.append((status, frame.env, b.u, b.pop_block()))
        (st1, env1, u1, nodes1), (st2, env2, u2, nodes2) = branches
        loc = b.loc
        merged, res1, res2, slots = {}, [], [], []
        for name in list(dict.fromkeys(list(env1) + list(env2))):
            v1, v2 = env1.get(name, None), env2.get(name, None)
            if skip_else and name in env1 and (name not in env2 or isinstance(v2, _Undefined)) \
                    and not isinstance(v1, _Undefined):
                if not any(isinstance(leaf, Sym) for leaf in flatten(v1)[0]):
                    merged[name] = v1
                    continue
                v2 = _placeholder_like(v1)
            elif isinstance(v1, _Undefined) or isinstance(v2, _Undefined):
                merged[name] = v1 if isinstance(v1, _Undefined) else v2
                continue
            elif name not in env1 or name not in env2:
                if name == RETVAL:
                    v1 = env1.get(name, UNSET)
                    v2 = env2.get(name, UNSET)
                else:
                    merged[name] = _Undefined(name, loc)
                    continue
            if v1 is v2:
                merged[name] = v1
                continue
            if name == RETVAL and (v1 is UNSET or v2 is UNSET):
                present = v2 if v1 is UNSET else v1
                v1 = _placeholder_like(present) if v1 is UNSET else v1
                v2 = _placeholder_like(present) if v2 is UNSET else v2
            merged[name] = self._merge_value(name, v1, v2, nodes1, nodes2, res1, res2, slots, node)
        has_u = u1 is not u0 or u2 is not u0
        if has_u:
            res1.append(u1)
            res2.append(u2)
        if not res1:
            # nothing flows out: keep the branches only if they have effects (they do not here)
            frame.env = merged
            return self._merge_status(st1, st2)
        then_block = ir.Block((), tuple(nodes1), tuple(res1))
        else_block = ir.Block((), tuple(nodes2), tuple(res2))
        types = tuple(v.type for v in res1)
        n = b.add(ir.IF, (cond,), TupleType(types), blocks=(then_block, else_block))
        outs = [b.add(ir.GETITEM, (n,), t, {"index": i}) for i, t in enumerate(types)]
        if has_u:
            b.u = outs.pop()
        for (name, tree, leaf_slots, leaves) in slots:
            final = [Sym(outs[s], b) if s is not None else lv for s, lv in zip(leaf_slots, leaves)]
            merged[name] = unflatten(tree, final)
        frame.env = merged
        return self._merge_status(st1, st2)

    @staticmethod
    def _merge_status(a, b):
        if a == b:
            return a
        return MAYBE if (a != NORMAL or b != NORMAL) else NORMAL

    def _merge_value(self, name, v1, v2, nodes1, nodes2, res1, res2, slots, node):
        l1, t1 = flatten(v1)
        l2, t2 = flatten(v2)
        if (t1 != t2 or len(l1) != len(l2)) and name == RETVAL:
            # returns under a tensor condition: named at the later `return`, with the other's line
            # (`node` is the `if`, or the first statement after an early `return`: the fallback
            # when a side is no `return`'s own value, a merge of earlier ones)
            sites = [next((loc for tree, n, loc in self.frame.return_sites if (tree, n) == (t, len(leaves))
                           and loc is not None), None) for t, leaves in ((t1, l1), (t2, l2))]
            if all(sites):
                later = 1 if sites[1].line >= sites[0].line else 0
                raise CompileTypeError(
                    f"this `return` gives {_describe((v1, v2)[later])} but the `return` at line "
                    f"{sites[1 - later].line} gives {_describe((v1, v2)[1 - later])} (one of them under a "
                    f"tensor condition): graph code needs every `return` to give the same structure",
                    sites[later], "return the same tuple / list shape from every `return`")
            raise self.error(node, f"the function returns {_describe(v1)} on one path and {_describe(v2)} on "
                                   f"another (a `return` under a tensor condition): graph code needs every "
                                   f"`return` to give the same structure",
                             "return the same tuple / list shape from every `return`", kind=CompileTypeError)
        if t1 != t2 or len(l1) != len(l2):
            raise self.error(node, f"variable '{_pretty(name)}' has a different structure in the two branches "
                                   f"of this `if` ({_describe(v1)} vs {_describe(v2)})",
                             "give it the same tuple / list shape in both branches", kind=CompileTypeError)
        leaf_slots, leaves = [], []
        for a, c in zip(l1, l2):
            if a is c or (_is_number(a) and _is_number(c) and type(a) is type(c) and a == c) or (
                    a is None and c is None) or (isinstance(a, str) and a == c):
                leaf_slots.append(None)
                leaves.append(a)
                continue
            va, vc = self._unify(name, a, c, nodes1, nodes2, node)
            leaf_slots.append(len(res1))
            leaves.append(None)
            res1.append(va)
            res2.append(vc)
        slots.append((name, t1, leaf_slots, leaves))
        return None

    def _unify(self, name, a, c, nodes1, nodes2, node):
        """IR values for a pair of differing leaves, with one common type."""
        ta, tc = _leaf_type(a), _leaf_type(c)
        if ta is None or tc is None:
            raise self.error(node, f"variable '{_pretty(name)}' is {_describe(a)} in one branch and {_describe(c)} "
                                   f"in the other; only tensors and numbers can differ between branches of an `if` "
                                   f"on a tensor value", kind=CompileTypeError)
        target = _common_type(ta, tc)
        if target is None:
            raise self.error(node, f"variable '{_pretty(name)}' has type {_describe(a)} in one branch and "
                                   f"{_describe(c)} in the other",
                             "make both branches produce the same shape and dtype", kind=CompileTypeError)
        return (self._convert_in(a, target, nodes1), self._convert_in(c, target, nodes2))

    def _convert_in(self, v, target, nodes):
        """v as an IR value of type `target`, emitting conversions into the branch's node list."""
        if isinstance(v, Sym):
            t = v._value.type
            if t == target:
                return v._value
            b = self.builder
            b._stack.append(nodes)
            try:
                if isinstance(target, ScalarType):
                    zero = {"int": 0, "float": 0.0}.get(target.kind)
                    return (F.add(v, zero) if zero is not None else v)._value
                out = v
                if isinstance(t, ScalarType) or t.dtype != target.dtype:
                    out = F.cast(out, target.dtype)
                if out.shape != target.shape:
                    out = F.broadcast_to(out, target.shape)
                return out._value
            finally:
                b._stack.pop()
        if isinstance(target, MonadType):
            return v
        arr = v._data if isinstance(v, Tensor) else np.asarray(v)
        if isinstance(target, ScalarType):
            return ir.Const.scalar({"bool": bool, "int": int, "float": float}[target.kind](arr.item()))
        return ir.Const.tensor(np.broadcast_to(arr.astype(target.dtype.np), target.shape).copy())

def _exit_flag_slots(owners) -> tuple:
    """Positions (in the carried list) of the break / return flags the loop tests after each
    iteration."""
    return tuple(i for i, name in enumerate(owners) if name in (BRK, RET))


def _target_names(t) -> set:
    return {n.id for n in ast.walk(t) if isinstance(n, ast.Name)}


def _target_name(t) -> str | None:
    return t.id if isinstance(t, ast.Name) else None


def _pname(name: str) -> str:
    return name.strip("_") or "v"


def _pretty(name: str) -> str:
    if name.startswith(("__ifexp", "__boolop")):
        return "(value of this expression)"
    return {BRK: "(break flag)", CNT: "(continue flag)", RET: "(return flag)", RETVAL: "(return value)"}.get(name, name)


def _scalar_sym(v) -> bool:
    return isinstance(v, Sym) and isinstance(v._value.type, ScalarType)


def _leaf_type(v):
    if isinstance(v, Sym):
        return v._value.type
    if isinstance(v, Tensor):
        return v._abstract
    if _is_number(v):
        return ScalarType(mstype.scalar_kind(v))
    if isinstance(v, ir.Value) and isinstance(v.type, MonadType):
        return v.type
    return None


def _common_type(a, b):
    if a == b:
        return a
    if isinstance(a, ScalarType) and isinstance(b, ScalarType):
        return ScalarType(mstype.promote_scalar_kinds(a.kind, b.kind))
    if isinstance(b, TensorType) and isinstance(a, ScalarType):
        a, b = b, a
    if isinstance(a, TensorType) and isinstance(b, ScalarType):
        # a number becomes a tensor of the other branch's type only if no value changes kind
        # (0.5 into an int tensor would silently become 0)
        fits = {"bool": True, "int": not a.dtype.is_bool, "float": a.dtype.is_float}[b.kind]
        return a if fits else None
    return None


def _placeholder_like(v):
    """A value of v's structure and types standing in for 'no return value yet'."""
    leaves, tree = flatten(v)
    out = []
    for leaf in leaves:
        t = _leaf_type(leaf)
        if isinstance(t, TensorType):
            out.append(Tensor._wrap(np.zeros(t.shape, t.dtype.np)))
        elif isinstance(t, ScalarType):
            out.append({"bool": False, "int": 0, "float": 0.0}[t.kind])
        else:
            out.append(leaf)
    return unflatten(tree, out)


def _describe(v) -> str:
    if isinstance(v, Sym):
        return ir.type_str(v._value.type)
    if isinstance(v, Tensor):
        return ir.type_str(v._abstract)
    if isinstance(v, (tuple, list)):
        return f"a {type(v).__name__} of {len(v)}"
    return f"{type(v).__name__} {v!r}"[:60]


__all__ = ["ControlFlow", "NORMAL", "BREAK", "CONTINUE", "RETURN", "MAYBE", "BRK", "CNT", "RET", "RETVAL",
           "UNSET", "flatten", "unflatten", "snapshot"]
