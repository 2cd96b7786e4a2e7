"""The expressions half of the frontend's interpreter: `eval` and one `expr_<Node>` method per
Python expression kind (names, attributes, subscripts, operators, calls, comprehensions ...).
A mixin of `frontend.Interpreter`; the statements, calls and frames are there.
"""
from __future__ import annotations

import ast
import builtins
import contextlib
import inspect
import operator
import types

from pycompile.common.missing import missing, unsupported
from pycompile.common.abstract import ScalarType, TensorType
from pycompile.common.tensor import Tensor
from pycompile.compiler.blame import USER_SITES, user_site
from pycompile.compiler.builder import NeedsConstant, Sym, is_number
from pycompile.compiler.control import NORMAL, LoopRetry, _Undefined
from pycompile.errors import (CompileAttributeError, CompileError, CompileNameError, InputValueNeeded,
                              InternalCompilerError)
from pycompile.ops import functional as F

_BINOPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
    ast.MatMult: operator.matmul, ast.BitAnd: operator.and_, ast.BitOr: operator.or_,
    ast.BitXor: operator.xor, ast.LShift: operator.lshift, ast.RShift: operator.rshift,
}
_CMPOPS = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}
for _f in _CMPOPS.values():
    if hasattr(_f, "__code__"):     # `in` / `not in` run user values' __contains__ from here
        USER_SITES.add(_f.__code__)


class NeedsConstantAt(NeedsConstant):
    def __init__(self, msg, loc):
        super().__init__(msg)
        self.loc = loc


class Expressions:
    """Mixin: needs `self.builder`, `self.error`, `self.blame`, `self.cond_value`, `self.runtime_if`,
    `self.call_value`, `self.assign_target`, `self.undefined`, `self.deps`."""

    # -- expressions ---------------------------------------------------------------------------------
    def eval(self, frame, e):
        handler = getattr(self, "expr_" + type(e).__name__, None)
        if handler is None:
            name = type(e).__name__
            raise self.error(e, f"Unsupported expression '{name}' in graph code.",
                             self.unsupported_hint(name))
        prev = self.builder.loc
        self.builder.loc = self.loc(e) or prev
        try:
            return handler(frame, e)
        except InputValueNeeded as niv:
            raise niv.at(self.loc(e))
        except (CompileError, LoopRetry, RecursionError):
            raise
        except NeedsConstant as nc:
            if isinstance(nc, NeedsConstantAt):
                raise
            raise NeedsConstantAt(str(nc), self.loc(e)) from None
        except InternalCompilerError:
            raise
        except Exception as ex:
            raise self.blame(ex, e)
        finally:
            self.builder.loc = prev

    def expr_Constant(self, frame, e):
        return e.value

    def expr_Name(self, frame, e):
        name = e.id
        f = frame
        while f is not None:
            if name in f.env:
                v = f.env[name]
                if isinstance(v, _Undefined):
                    raise self.undefined(v, e)
                return v
            if name in f.pf.closure:
                return f.pf.closure[name]
            f = f.parent
        g = frame.pf.globals
        if self.deps is not None:
            self.deps.global_read(g, name)
        if name in g:
            return g[name]
        if hasattr(builtins, name):
            return getattr(builtins, name)
        raise self.error(e, f"name '{name}' is not defined", "define it before this line, or at module level",
                         kind=CompileNameError)

    @user_site
    def expr_Attribute(self, frame, e):
        obj = self.eval(frame, e.value)
        try:
            value = getattr(obj, e.attr)
        except AttributeError as exc:
            is_tensor = isinstance(obj, (Sym, Tensor))
            if is_tensor:
                exc = missing("Tensor", "Tensor", e.attr)
            if unsupported(exc):        # a MindSpore 2.10 name pycompile lacks: say so at the user's line
                raise self.error(e, str(exc), "the API reference lists what pycompile supports; use a supported "
                                 "equivalent, or call it outside graph code", kind=CompileAttributeError) from None
            hint = ("see the Tensor methods pycompile supports (pycompile.Tensor), or use the pycompile.ops function"
                    if is_tensor else "check the name, or set the attribute before compiling")
            what = f"module '{obj.__name__}'" if isinstance(obj, types.ModuleType) else _kind(obj)
            raise self.error(e, f"{what} has no attribute '{e.attr}'", hint, kind=CompileAttributeError) from None
        if self.deps is not None:
            self.deps.attribute(obj, e.attr, value)
        return value

    @user_site
    def expr_Subscript(self, frame, e):
        obj = self.eval(frame, e.value)
        idx = self.eval(frame, e.slice)
        if isinstance(idx, Sym) and not isinstance(obj, (Sym, Tensor)):
            raise NeedsConstant(f"indexing a {type(obj).__name__} needs an index known at compile time")
        if self.deps is not None and not isinstance(obj, (Sym, Tensor, tuple, list, dict, str)):
            self.deps.opaque(type(obj))     # a user __getitem__ runs as plain Python
        return obj[idx]

    @user_site
    def expr_Slice(self, frame, e):
        return slice(*(self.eval(frame, x) if x is not None else None for x in (e.lower, e.upper, e.step)))

    def expr_Tuple(self, frame, e):
        return tuple(self._elements(frame, e.elts))

    def expr_List(self, frame, e):
        return list(self._elements(frame, e.elts))

    @user_site
    def expr_Set(self, frame, e):
        return set(self._elements(frame, e.elts))

    @user_site
    def expr_Dict(self, frame, e):
        out = {}
        for k, v in zip(e.keys, e.values):
            if k is None:
                out.update(self.eval(frame, v))
            else:
                out[self.eval(frame, k)] = self.eval(frame, v)
        return out

    @user_site
    def _elements(self, frame, elts):
        out = []
        for x in elts:
            if isinstance(x, ast.Starred):
                v = self.eval(frame, x.value)
                out.extend([v[i] for i in range(len(v))] if isinstance(v, Sym) else list(v))
            else:
                out.append(self.eval(frame, x))
        return out

    @user_site
    def binop(self, fn, a, b, node):
        if isinstance(a, _Undefined):
            raise self.undefined(a, node)
        return fn(a, b)

    def expr_BinOp(self, frame, e):
        return self.binop(_BINOPS[type(e.op)], self.eval(frame, e.left), self.eval(frame, e.right), e)

    @user_site
    def expr_UnaryOp(self, frame, e):
        v = self.eval(frame, e.operand)
        if isinstance(v, _Undefined):
            raise self.undefined(v, e.operand)
        if isinstance(e.op, ast.Not):
            if isinstance(v, Sym):
                self.cond_value(v, e.operand)       # one element, as Python's `not` needs
                return F.logical_not(_to_bool(v))
            return not v
        if isinstance(e.op, ast.USub):
            return -v
        if isinstance(e.op, ast.UAdd):
            return +v
        return ~v

    def expr_BoolOp(self, frame, e):
        is_and = isinstance(e.op, ast.And)

        def chain(k):
            first = self.eval(frame, e.values[k])
            if k == len(e.values) - 1:
                return first
            return self.short_circuit(frame, first, lambda: chain(k + 1), is_and, e.values[k + 1:], e.values[k])
        return chain(0)

    def short_circuit(self, frame, first, rest, is_and: bool, rest_exprs, node):
        """Python's `first and rest()` / `first or rest()`: the value of one operand, not a bool.
        On a runtime `first` this is a runtime if; two bool operands of one type (the common
        `x > 0 and y > 0`) become LogicalAnd / LogicalOr instead of a branch."""
        if isinstance(first, _Undefined):
            raise self.undefined(first, node)
        if not isinstance(first, Sym):
            return rest() if bool(first) == is_and else first
        cond = self.cond_value(first, node)
        if _is_bool_sym(first) and not any(isinstance(n, ast.Call) for x in rest_exprs for n in ast.walk(x)):
            b = self.builder
            env0, u0 = frame.env, b.u
            frame.env = dict(env0)
            b.push_block()
            try:
                second = rest()
            finally:
                nodes = b.pop_block()
                frame.env = env0
            if b.u is u0 and isinstance(second, Sym) and second._value.type == first._value.type:
                b.nodes.extend(nodes)
                both_numbers = is_number(first) and is_number(second)
                with b.number_results() if both_numbers else contextlib.nullcontext():
                    return (F.logical_and if is_and else F.logical_or)(first, second)
            b.u = u0
        key = f"__boolop_{id(node)}__"

        def branch(fn):
            def run():
                frame.env[key] = fn()
                return NORMAL
            return run
        then_fn, else_fn = (branch(rest), branch(lambda: first)) if is_and else (branch(lambda: first), branch(rest))
        self.runtime_if(frame, cond, then_fn, else_fn, node)
        return frame.env.pop(key)

    @user_site
    def expr_Compare(self, frame, e):
        def chain(k, left):
            op, comp = e.ops[k], e.comparators[k]
            right = self.eval(frame, comp)
            if isinstance(left, _Undefined):
                raise self.undefined(left, e)
            if isinstance(op, (ast.Is, ast.IsNot)) and (isinstance(left, Sym) or isinstance(right, Sym)):
                r = (left is right) == isinstance(op, ast.Is)
            else:
                r = _CMPOPS[type(op)](left, right)
            if k == len(e.ops) - 1:
                return r
            # `a < b < c` is `a < b and b < c`, with b evaluated once
            return self.short_circuit(frame, r, lambda: chain(k + 1, right), True, e.comparators[k + 1:], e)
        return chain(0, self.eval(frame, e.left))

    def expr_IfExp(self, frame, e):
        cond = self.cond_value(self.eval(frame, e.test), e.test)
        if isinstance(cond, bool):
            return self.eval(frame, e.body if cond else e.orelse)
        key = "__ifexp__"

        def branch(expr):
            def run():
                frame.env[key] = self.eval(frame, expr)
                return NORMAL
            return run
        self.runtime_if(frame, cond, branch(e.body), branch(e.orelse), e)
        return frame.env.pop(key)

    @user_site
    def expr_Call(self, frame, e):
        fn = self.eval(frame, e.func)
        args = self._elements(frame, e.args)
        kwargs = {}
        for kw in e.keywords:
            v = self.eval(frame, kw.value)
            if kw.arg is None:
                kwargs.update(v)
            else:
                kwargs[kw.arg] = v
        if fn is super and not args:
            return super(frame.pf.closure.get("__class__") or type(frame.first_arg).__mro__[1], frame.first_arg)
        result = self.call_value(fn, args, kwargs)
        if getattr(getattr(fn, "__func__", None), "__pycompile_inplace__", False):
            self._rebind_inplace(frame, e, fn, result)
        elif e.args and _rebinds_first(fn, args, kwargs):
            self._rebind_inplace_arg(frame, e, fn, args[0], result)
        return result

    def _rebind_inplace_arg(self, frame, e, fn, receiver, result):
        """`ops.clamp_(x, ...)` in graph code: the functional form of an in-place method rebinds
        the name passed first (ops/inplace_functions.py), as `x.clamp_(...)` does."""
        if result is receiver:
            return
        if isinstance(e.args[0], ast.Name):
            frame.env[e.args[0].id] = result
        elif isinstance(receiver, Tensor):
            raise self.error(e, f"'{fn.__name__}' of a Tensor that is not a local variable cannot update it in "
                             "graph code", "make it a Parameter (updated with ops.assign), or bind it to a local "
                             "name first")

    def _rebind_inplace(self, frame, e, method, result):
        """`x.add_(y)` in graph code: a tensor is a value here, so the name x is rebound to the
        result (ops/entries/inplace.py), as `x[i] = v` rebinds x. A Parameter was written with
        ops.assign and is its own result."""
        receiver, fn_name = method.__self__, method.__name__
        if result is receiver:
            return
        if isinstance(e.func, ast.Attribute) and isinstance(e.func.value, ast.Name):
            frame.env[e.func.value.id] = result
        elif isinstance(receiver, Tensor):
            raise self.error(e, f"the in-place method '{fn_name}' of a Tensor that is not a local variable "
                             "cannot update it in graph code",
                             "make it a Parameter (updated with ops.assign), or bind it to a local name first")

    def expr_Lambda(self, frame, e):
        return self.closure(e, frame)

    @user_site
    def expr_JoinedStr(self, frame, e):
        parts = []
        for v in e.values:
            parts.append(str(self.eval(frame, v)))
        return "".join(parts)

    @user_site
    def expr_FormattedValue(self, frame, e):
        v = self.eval(frame, e.value)
        if isinstance(v, Sym):
            raise self.error(e.value, "a tensor computed at run time cannot be formatted into a string",
                             "print it with print(...) instead")
        spec = self.eval(frame, e.format_spec) if e.format_spec is not None else ""
        if e.conversion == ord("r"):
            v = repr(v)
        elif e.conversion == ord("s"):
            v = str(v)
        return format(v, spec)

    def expr_ListComp(self, frame, e):
        return self._comprehension(frame, e, lambda: self.eval(frame, e.elt), list)

    def expr_GeneratorExp(self, frame, e):
        return self._comprehension(frame, e, lambda: self.eval(frame, e.elt), tuple)

    def expr_SetComp(self, frame, e):
        return self._comprehension(frame, e, lambda: self.eval(frame, e.elt), set)

    def expr_DictComp(self, frame, e):
        pairs = self._comprehension(frame, e, lambda: (self.eval(frame, e.key), self.eval(frame, e.value)), list)
        return dict(pairs)

    def _comprehension(self, frame, e, elt, kind):
        saved = dict(frame.env)
        out = []

        @user_site
        def gen(k):
            if k == len(e.generators):
                out.append(elt())
                return
            g = e.generators[k]
            it = self.eval(frame, g.iter)
            items = [it[i] for i in range(len(it))] if isinstance(it, Sym) else list(it)
            for item in items:
                self.assign_target(frame, g.target, item)
                ok = True
                for cond in g.ifs:
                    c = self.cond_value(self.eval(frame, cond), cond)
                    if not isinstance(c, bool):
                        raise self.error(cond, "a comprehension filter must be known at compile time")
                    ok = ok and c
                if ok:
                    gen(k + 1)
        try:
            gen(0)
        finally:
            frame.env = saved
        return kind(out)


def _to_bool(v):
    if isinstance(v, Sym):
        t = v._value.type
        if isinstance(t, TensorType) and t.dtype.is_bool:
            return v
        if isinstance(t, ScalarType) and t.kind == "bool":
            return v
        return F.ne(v, 0)
    return bool(v)


def _is_bool_sym(v) -> bool:
    t = v._value.type
    return (isinstance(t, TensorType) and t.dtype.is_bool) or (isinstance(t, ScalarType) and t.kind == "bool")


def _kind(v) -> str:
    if isinstance(v, Sym):
        return "a graph tensor" if isinstance(v._value.type, TensorType) else "a runtime number"
    if isinstance(v, Tensor):
        return "a Tensor"
    return type(v).__name__


def _rebinds_first(fn, args, kwargs) -> bool:
    """Whether a call of `fn` writes into its first argument: an in-place function
    (`__pycompile_inplace_fn__` True), or one whose named argument says so on this call (the
    attribute names it: mint.nn.functional's `relu(x, inplace=True)`)."""
    flag = getattr(fn, "__pycompile_inplace_fn__", False)
    if not isinstance(flag, str):
        return bool(flag)
    try:
        return bool(inspect.signature(fn).bind(*args, **kwargs).arguments.get(flag, False))
    except TypeError:
        return False
