"""The frontend: one AST visitor that builds IR while it walks `construct` / `@jit` code.

It is a partial evaluator. Python values that are known when compiling (numbers, tuples,
Cells, jit_class instances, constant Tensors) are computed in Python; runtime values are
`Sym` tracers whose operations append IR nodes. User functions, methods and Cells are inlined
by walking their source; pycompile's own library code (ops, nn layers) runs directly on
tracers. Control flow on runtime values goes through `control.ControlFlow`.

Anything without a graph meaning raises `CompileError` with the user's file:line:col, the
source line, a caret and a hint.
"""
from __future__ import annotations

import ast
import functools
import inspect
import linecache
import operator
import types
from dataclasses import dataclass

from pycompile.common import dtype as mstype
from pycompile.common.abstract import Symbolic, TensorType
from pycompile.common.cellbase import CellBase
from pycompile.common.sparse_tensor import SPARSE_TYPES, parts_of, rebuild
from pycompile.common.mutable import is_mutable
from pycompile.common.parameter import Parameter
from pycompile.common.tensor import Tensor
from pycompile.compiler import autodiff, forward, ir, lazy
from pycompile.compiler.blame import is_user_error, user_site
from pycompile.compiler.builder import Builder, NeedsConstant, Sym, finish_graph, is_number
from pycompile.compiler.control import (BREAK, BRK, CNT, CONTINUE, MAYBE, NORMAL, RET, RETURN, RETVAL, UNSET,
                                        ControlFlow, LoopRetry, _Undefined)
from pycompile.compiler.expressions import _BINOPS, Expressions, NeedsConstantAt, _kind
from pycompile.compiler.loops import Loops
from pycompile.compiler.pybuiltins import BUILTIN_OBJS, BUILTINS, CONTAINER_BUILTINS, print_inputs
from pycompile.compiler.pytree import flatten
from pycompile.compiler.source import ParsedFunc, is_library, parse_function, unwrap  # noqa: F401  (re-exported)
from pycompile.errors import (CompileError, CompileTypeError, CompileUnboundLocalError, CompileValueError,
                              GraphTypeError, InputValueNeeded, InternalCompilerError, MsClassCallError, raised_error,
                              wrap_user_error)
from pycompile.ops import _mixed as mixed
from pycompile.ops import functional as F
from pycompile.ops._table import OpDef
from pycompile.ops.grads import NONDIFF
from pycompile.ops.autodiff import custom as custom_grads
from pycompile.ops.composite import HyperMap, MultitypeFuncGraph, hyper_map
from pycompile.ops.function_index import setitem
from pycompile.ops.operations import Print, Primitive
from pycompile.ops.tracing import CONSTANT_INPUTS, tracing

_UNSUPPORTED_HINTS = {
    "Try": "exceptions cannot be caught in graph code; check values before the call, or move the "
           "try block outside construct / the @jit function",
    "With": "move the with block outside construct / the @jit function",
    "AsyncWith": "move the with block outside construct / the @jit function",
    "Import": "import at module level and refer to the module here",
    "ImportFrom": "import at module level and refer to the name here",
    "Global": "pass the value as an argument, or read it as a module-level constant",
    "Nonlocal": "return the new value instead of rebinding an outer variable",
    "ClassDef": "define classes at module level (use @jit_class for classes used in graph code)",
    "AsyncFunctionDef": "coroutines cannot be compiled; define a plain function",
    "AsyncFor": "coroutines cannot be compiled",
    "Match": "use if / elif instead of match",
    "TryStar": "exceptions cannot be caught in graph code",
    "Yield": "generators cannot be compiled; build a tuple or list instead",
    "YieldFrom": "generators cannot be compiled; build a tuple or list instead",
    "Await": "coroutines cannot be compiled",
    "NamedExpr": "assign the value in its own statement",
}


class Frame:
    """One function being inlined: its variables and where its source lives."""

    def __init__(self, pf: ParsedFunc, env: dict, parent: "Frame | None" = None):
        self.pf = pf
        self.env = env
        self.parent = parent
        self.first_arg = None
        # (structure, leaf count, location) of each `return` traced: the lines an error about
        # returns of different structures names (compiler/control.py)
        self.return_sites: list = []


class GraphClosure:
    """A nested def or lambda created inside graph code; calls inline it."""

    def __init__(self, node, frame: Frame, interp: "Interpreter"):
        self.node = node
        self.frame = frame
        self.interp = interp
        self.__name__ = getattr(node, "name", "<lambda>")
        self.sig = self._signature(node.args, lambda e: interp.eval(frame, e))

    @staticmethod
    def _signature(a: ast.arguments, evaluate) -> inspect.Signature:
        """The def's signature, its defaults evaluated now (when the def runs), as Python does."""
        P = inspect.Parameter
        positional = [(x, P.POSITIONAL_ONLY) for x in a.posonlyargs] + [(x, P.POSITIONAL_OR_KEYWORD) for x in a.args]
        defaults = [evaluate(d) for d in a.defaults]
        first_default = len(positional) - len(defaults)
        params = [P(x.arg, kind, default=defaults[i - first_default] if i >= first_default else P.empty)
                  for i, (x, kind) in enumerate(positional)]
        if a.vararg:
            params.append(P(a.vararg.arg, P.VAR_POSITIONAL))
        for x, d in zip(a.kwonlyargs, a.kw_defaults):
            params.append(P(x.arg, P.KEYWORD_ONLY, default=P.empty if d is None else evaluate(d)))
        if a.kwarg:
            params.append(P(a.kwarg.arg, P.VAR_KEYWORD))
        return inspect.Signature(params)

    def __call__(self, *args, **kwargs):
        """Called from library code (vmap, HyperMap ...): still inlined by the interpreter."""
        return self.interp.call_closure(self, list(args), kwargs)


# ---- the interpreter -------------------------------------------------------------------------------

# Recorders of what a trace reads at compile time: every user function parsed, every global and
# attribute read. backend/cache.py pushes one while it compiles, so that a compile-cache entry can
# list what it depends on. A recorder has .function(fn), .global_read(globals, name) and
# .attribute(obj, name, value); it never raises.
DEPS: list = []


class Interpreter(ControlFlow, Loops, Expressions):
    def __init__(self, max_depth: int = 1000):
        self.deps = DEPS[-1] if DEPS else None
        self.builder = Builder(self)
        self.lazy_graphs: dict = {}        # lazy_inline subgraphs traced so far (compiler/lazy.py)
        self.saved_bytes = 0               # bytes of forward values its gradients keep (compiler/autodiff.py)
        self.inside_lazy = False
        self.differentiating = 0           # depth of gradient functions being traced (autodiff.py)
        # id(node) -> ((pack_hook, unpack_hook), node): the nodes a register_saved_tensors_hooks
        # function traced (autodiff.py packs what their gradient rules read)
        self.saved_hooks: dict = {}
        self.frame: Frame | None = None
        # (Cell, its scope) of the Cells being called, the traced one first (_call_cell)
        self.cells: list = [(None, "Default")]
        self.depth = 0
        self.max_depth = max_depth

    # -- errors and locations ----------------------------------------------------------------------------
    def loc(self, node) -> ir.Loc | None:
        f = self.frame
        if f is None or not hasattr(node, "lineno"):
            return None
        line = f.pf.line0 + node.lineno
        col = f.pf.col0 + node.col_offset
        return ir.Loc(f.pf.file, line, col, linecache.getline(f.pf.file, line), f.pf.name)

    def differentiate(self, gradfn, args, kwargs):
        return autodiff.differentiate(self, gradfn, list(args), dict(kwargs or {}))

    def forward_differentiate(self, fn, inputs, tangents):
        return forward.forward_differentiate(self, fn, tuple(inputs), tuple(tangents))

    def unsupported_hint(self, node_kind: str) -> str:
        return _UNSUPPORTED_HINTS.get(node_kind, "rewrite it with the supported Python subset")

    def closure(self, node, frame: Frame) -> "GraphClosure":
        return GraphClosure(node, frame, self)

    def error(self, node, msg: str, hint: str = "", kind=CompileError) -> CompileError:
        return kind(msg, self.loc(node), hint)

    def blame(self, exc: Exception, node) -> Exception:
        """The error to raise for `exc` met at `node`: a user error at the user's line, or an
        internal error with `exc` chained (compiler/blame.py decides)."""
        if is_user_error(exc):
            err = wrap_user_error(exc, self.loc(node))
            err.__cause__, err.__suppress_context__ = None, True
            return err
        err = InternalCompilerError(exc, "tracing", self.loc(node))
        err.__cause__ = exc
        return err

    def undefined(self, v: _Undefined, node) -> CompileError:
        where = f" at line {v.loc.line}" if v.loc else ""
        if v.where == "while":
            return self.error(node, f"variable '{v.name}' is first assigned inside the `while` loop{where} whose "
                                    f"condition is a tensor value, so it is not defined after the loop",
                              "assign it before the loop", kind=CompileUnboundLocalError)
        return self.error(node, f"variable '{v.name}' is assigned in only one branch of the `if`{where} "
                                f"whose condition is a tensor value",
                          "assign it before the if, or in both branches", kind=CompileUnboundLocalError)

    # -- functions -----------------------------------------------------------------------------------
    def inline(self, fn, args: list, kwargs: dict):
        """Walk a user function's source with these arguments; returns its Python return value."""
        pf = parse_function(fn)
        if self.deps is not None:
            self.deps.function(fn)
        if not isinstance(pf.node, (ast.FunctionDef, ast.Lambda)):
            raise CompileError(f"cannot compile '{pf.name}'")
        env = self._bind(pf, fn, args, kwargs)
        frame = Frame(pf, env)
        if args:
            frame.first_arg = args[0]
        return self._run_frame(frame, pf.node)

    def _bind(self, pf, fn, args, kwargs) -> dict:
        sig = pf.sig
        if sig is None:
            raise CompileError(f"cannot read the signature of '{pf.name}'")
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as e:
            raise CompileTypeError(f"{pf.name}(): {e}", self.loc_of_call(),
                                   f"'{pf.name}' is defined at {pf.file}:{_def_line(pf)} as "
                                   f"{pf.name}{_shown_signature(pf, fn)}") from None
        bound.apply_defaults()
        return dict(bound.arguments)

    def loc_of_call(self):
        return self.builder.loc

    def _run_frame(self, frame: Frame, node):
        if self.depth >= self.max_depth:
            raise CompileError(f"call depth exceeds {self.max_depth} while inlining '{frame.pf.name}' "
                               f"(recursion on a value known only at run time?)", self.builder.loc)
        prev, prev_loc = self.frame, self.builder.loc
        self.frame = frame
        self.depth += 1
        # exit flags are always defined, so both branches of a runtime `if` agree on them
        frame.env[RET] = frame.env[BRK] = frame.env[CNT] = False
        frame.env[RETVAL] = UNSET
        try:
            if isinstance(node, ast.Lambda):
                return self.eval(frame, node.body)
            status = self.exec_stmts(frame, node.body)
        except RecursionError as e:
            if getattr(e, "pc_call", None) is None:     # the innermost call: where the user sees it
                e.pc_call = (frame.pf.name, prev_loc)
            raise
        finally:
            self.depth -= 1
            self.frame = prev
            self.builder.loc = prev_loc
        value = frame.env.get(RETVAL, UNSET)
        if status == RETURN or frame.env.get(RET) is True or isinstance(frame.env.get(RET), Sym):
            return None if value is UNSET else value
        return None

    def call_closure(self, clo: GraphClosure, args, kwargs):
        try:
            bound = clo.sig.bind(*args, **kwargs)
        except TypeError as e:
            raise CompileTypeError(f"{clo.__name__}(): {e}", self.builder.loc, _closure_hint(clo)) from None
        bound.apply_defaults()
        frame = Frame(clo.frame.pf, dict(bound.arguments), parent=clo.frame)
        return self._run_frame(frame, clo.node)

    # -- calls ---------------------------------------------------------------------------------------
    @user_site
    def call_value(self, fn, args: list, kwargs: dict):
        if isinstance(fn, Sym):
            raise GraphTypeError("a tensor is not callable")
        if isinstance(fn, GraphClosure):
            return self.call_closure(fn, args, kwargs)
        if isinstance(fn, CellBase):
            precision = fn.__dict__.get("_mixed_precision")
            if precision is not None:
                # Cell.to_float: the Cell's inputs and weights cast while it is traced (ops/_mixed.py)
                return mixed.call_cell(fn, args, kwargs, lambda a, k: self._call_cell(fn, list(a), k))
            return self._call_cell(fn, args, kwargs)
        return self._call_other(fn, args, kwargs)

    def _call_cell(self, fn, args, kwargs):
        """A Cell called from graph code, its nodes in the Cell's scope (`Default/d-Dense`: the
        name the profiler gives them, MindSpore's): its attribute name in the calling Cell and
        its class (the class alone when the caller holds it elsewhere)."""
        b = self.builder
        parent, scope = self.cells[-1]
        name = type(fn).__name__
        for attr, cell in (parent.__dict__.get("_cells") or {}).items() if isinstance(parent, CellBase) else ():
            if cell is fn:
                name = f"{attr}-{name}"
                break
        self.cells.append((fn, f"{scope}/{name}"))
        b.scope = self.cells[-1][1]
        try:
            return self._call_cell_in_scope(fn, args, kwargs)
        finally:
            self.cells.pop()
            b.scope = self.cells[-1][1]

    @user_site
    def _call_cell_in_scope(self, fn, args, kwargs):
        if not mixed.SCOPE and lazy.eligible(self, fn):
            shared = lazy.call(self, fn, args, kwargs)
            if shared is not lazy.INLINE:
                return shared
        construct = unwrap(type(fn).construct)
        saved = fn.__dict__.get("_saved_tensors_hooks")
        if saved is not None:           # Cell.register_saved_tensors_hooks: construct's saved tensors
            fn.__dict__.pop("_saved_tensors_hooks")
            try:
                return self._call_with_saved_hooks(fn, saved, args, kwargs,
                                                   lambda: self._call_cell_in_scope(fn, args, kwargs))
            finally:
                fn.__dict__["_saved_tensors_hooks"] = saved
        if "_hooks" in fn.__dict__ or getattr(type(fn), "bprop", None) is not None:
            # hooks and a bprop around construct (nn/hooks.py)
            return custom_grads.invoke(fn, args, kwargs, lambda a, k: self._construct(fn, construct, list(a), k))
        return self._construct(fn, construct, args, kwargs)

    def _construct(self, cell, construct, args, kwargs):
        if is_library(construct):
            return construct(cell, *args, **kwargs)
        return self.inline(construct, [cell, *args], kwargs)

    @user_site
    def _call_other(self, fn, args, kwargs):
        handler = BUILTINS.get(id(fn))
        if handler is not None and fn is BUILTIN_OBJS[id(fn)]:
            return handler(self, args, kwargs)
        if isinstance(fn, Print):
            return self.builder.emit_print(*print_inputs(args))
        if isinstance(fn, MultitypeFuncGraph):
            return self.call_value(fn.resolve(args), args, kwargs)
        if isinstance(fn, HyperMap):
            f, seqs = (args[0], args[1:]) if fn.ops is None else (fn.ops, args)
            return hyper_map(f, list(seqs), fn.reverse, call=lambda g, a: self.call_value(g, list(a), {}))
        if isinstance(fn, types.MethodType):
            func = unwrap(fn.__func__)
            if is_library(func) or not isinstance(func, types.FunctionType):
                return fn(*args, **kwargs)
            return self.inline(func, [fn.__self__, *args], kwargs)
        if getattr(fn, "_pycompile_jit", False):
            return self.inline(unwrap(fn), args, kwargs)
        hooks = getattr(fn, "__pycompile_saved_hooks__", None)
        if hooks is not None:
            return self._call_with_saved_hooks(fn, hooks, args, kwargs)
        if isinstance(fn, functools.partial):
            return self.call_value(fn.func, [*fn.args, *args], {**fn.keywords, **kwargs})
        if isinstance(fn, types.FunctionType):
            if is_library(fn):
                return fn(*args, **kwargs)
            return self.inline(fn, args, kwargs)
        if id(fn) in CONTAINER_BUILTINS or (isinstance(fn, types.BuiltinMethodType)
                                             and isinstance(fn.__self__, (list, dict, tuple))):
            return fn(*args, **kwargs)
        if isinstance(fn, type):
            return self._instantiate(fn, args, kwargs)
        if isinstance(fn, Primitive) or is_library(type(fn)):
            return fn(*args, **kwargs)
        call = getattr(type(fn), "__call__", None)
        if call is not None and isinstance(call, types.FunctionType) and not is_library(call) \
                and type(fn).__module__ != "builtins":
            return self.inline(call, [fn, *args], kwargs)
        if getattr(type(fn), "__ms_class__", False):
            raise MsClassCallError(f"MsClassObject: '{type(fn).__name__}' has no __call__ function, "
                                   f"please check the code.")
        if _has_graph(args) or _has_graph(list(kwargs.values())):
            raise _foreign_call_error(fn)
        if self.deps is not None:
            self.deps.opaque(fn)
        return fn(*args, **kwargs)

    def _call_with_saved_hooks(self, fn, hooks, args, kwargs, run=None):
        """A register_saved_tensors_hooks function (or a Cell whose construct has hooks: `run`
        traces it): traced as it is, its nodes remembered so that a gradient taken through them
        packs what their rules read (compiler/autodiff.py)."""
        b = self.builder
        mark = len(b.nodes)
        out = run() if run is not None else self.call_value(unwrap(fn), list(args), dict(kwargs))
        for n in b.nodes[mark:]:
            if n.blocks and any(isinstance(m.op, OpDef) and m.op.grad not in (None, NONDIFF)
                                for blk in n.blocks for m in ir.iter_nodes(blk)):
                raise CompileError("register_saved_tensors_hooks: a function with if / for / while over the "
                                   "computation is not supported in graph mode (its saved tensors would be packed "
                                   "without the hooks); use saved_tensors_hooks in PyNative mode", n.loc)
            self.saved_hooks[id(n)] = (hooks, n)
        return out

    @user_site
    def _instantiate(self, cls, args, kwargs):
        if cls is Tensor and args and isinstance(args[0], Sym):
            dt = kwargs.get("dtype", args[1] if len(args) > 1 else None)
            if dt is None and is_number(args[0]):
                return F.cast(args[0], args[0].dtype)     # Tensor(mutable number) is a Tensor
            return F.cast(args[0], dt) if dt is not None else args[0]
        if cls in SPARSE_TYPES or issubclass(cls, SPARSE_TYPES):
            return cls(*args, **kwargs)      # a container of its parts: graph values are fine
        if _has_graph(list(args) + list(kwargs.values())):
            names = _param_names(cls, args, kwargs)
            bad = [n for n, v in names if _has_graph([v])]
            raise GraphTypeError(f"creating a {cls.__name__} inside graph code needs constructor arguments known at "
                            f"compile time, but argument '{bad[0]}' is a tensor computed at run time; create the "
                            f"instance in __init__ or pass Python values")
        if self.deps is not None:
            self.deps.opaque(cls)           # its __init__ runs as plain Python: what it reads is a dependency
        return cls(*args, **kwargs)

    # -- statements ------------------------------------------------------------------------------------
    def exec_stmts(self, frame: Frame, stmts) -> str:
        for i, stmt in enumerate(stmts):
            st = self.exec_stmt(frame, stmt)
            if st == NORMAL:
                continue
            if st == MAYBE:
                rest = stmts[i + 1:]
                if rest:
                    self.run_guarded(frame, lambda: self.exec_stmts(frame, rest), rest[0])
                return MAYBE
            return st
        return NORMAL

    def exec_stmt(self, frame: Frame, stmt) -> str:
        self.builder.loc = self.loc(stmt)
        handler = getattr(self, "stmt_" + type(stmt).__name__, None)
        if handler is None:
            name = type(stmt).__name__
            raise self.error(stmt, f"Unsupported statement '{name}' in graph code.",
                             _UNSUPPORTED_HINTS.get(name, "rewrite it with the supported Python subset"))
        try:
            return handler(frame, stmt)
        except (CompileError, NeedsConstant, LoopRetry, RecursionError, InternalCompilerError):
            raise
        except Exception as e:
            raise self.blame(e, stmt)

    def stmt_Expr(self, frame, s):
        self.eval(frame, s.value)
        return NORMAL

    def stmt_Pass(self, frame, s):
        return NORMAL

    def stmt_Assign(self, frame, s):
        value = self.eval(frame, s.value)
        for t in s.targets:
            self.assign_target(frame, t, value)
        return NORMAL

    def stmt_AnnAssign(self, frame, s):
        if s.value is not None:
            self.assign_target(frame, s.target, self.eval(frame, s.value))
        return NORMAL

    @user_site
    def stmt_AugAssign(self, frame, s):
        cur = self.eval(frame, _as_load(s.target))
        rhs = self.eval(frame, s.value)
        fn = _BINOPS[type(s.op)]
        if isinstance(cur, (list, dict)) and not _has_graph([cur]) or isinstance(cur, list):
            inplace = {ast.Add: operator.iadd, ast.Mult: operator.imul}.get(type(s.op), fn)
            value = inplace(cur, rhs)
        else:
            value = self.binop(fn, cur, rhs, s)
        self.assign_target(frame, s.target, value)
        return NORMAL

    def stmt_Return(self, frame, s):
        value = self.eval(frame, s.value) if s.value is not None else None
        frame.env[RET] = True
        frame.env[RETVAL] = value
        leaves, tree = flatten(value)
        frame.return_sites.append((tree, len(leaves), self.loc(s)))
        return RETURN

    def stmt_Break(self, frame, s):
        frame.env[BRK] = True
        return BREAK

    def stmt_Continue(self, frame, s):
        frame.env[CNT] = True
        return CONTINUE

    def stmt_If(self, frame, s):
        cond = self.cond_value(self.eval(frame, s.test), s.test)
        if isinstance(cond, bool):
            return self.exec_stmts(frame, s.body if cond else s.orelse)
        return self.runtime_if(frame, cond, lambda: self.exec_stmts(frame, s.body),
                               lambda: self.exec_stmts(frame, s.orelse), s)

    def stmt_For(self, frame, s):
        it = self.eval(frame, s.iter)
        if isinstance(it, range):
            return self.exec_for_range(frame, s, it)
        if isinstance(it, Sym):
            if not isinstance(it._value.type, TensorType) or not it.shape:
                raise self.error(s.iter, "cannot iterate over a 0-d tensor or a runtime number")
            # a loop over the index whose target is the row: it stays a loop (rows are gathered)
            return self.exec_for_range(frame, s, range(it.shape[0]), item=lambda i: it[i])
        try:
            items = list(it)
        except TypeError as e:
            raise self.error(s.iter, f"cannot iterate over {type(it).__name__}: {e}")
        return self.exec_unrolled(frame, s, items)

    def stmt_While(self, frame, s):
        return self.exec_while(frame, s)

    def stmt_FunctionDef(self, frame, s):
        if s.decorator_list:
            raise self.error(s.decorator_list[0], "decorators on a function defined inside graph code are not "
                                                  "supported", "define the decorated function at module level")
        frame.env[s.name] = GraphClosure(s, frame, self)
        return NORMAL

    @user_site
    def stmt_Assert(self, frame, s):
        v = self.eval(frame, s.test)
        if isinstance(v, Sym):
            raise self.error(s, "assert on a tensor value computed at run time is not supported",
                             "assert on shapes / Python values, or check the result outside graph code")
        if not v:
            msg = self.eval(frame, s.msg) if s.msg is not None else ""
            raise self.error(s, f"AssertionError: {msg}")
        return NORMAL

    @user_site
    def stmt_Raise(self, frame, s):
        exc = self.eval(frame, s.exc) if s.exc is not None else RuntimeError("raise")
        if isinstance(exc, type):
            exc = exc()
        if len(self.builder._stack) > 1:
            raise self.error(s, "raise under a condition known only at run time is not supported",
                             "check the condition outside graph code")
        if not isinstance(exc, BaseException):
            raise self.error(s, f"exceptions must derive from BaseException, not {type(exc).__name__}",
                             kind=CompileTypeError)
        raise raised_error(exc, self.loc(s))

    def stmt_Delete(self, frame, s):
        for t in s.targets:
            if not isinstance(t, ast.Name):
                raise self.error(t, "only `del name` is supported in graph code")
            frame.env.pop(t.id, None)
        return NORMAL

    # -- assignment targets ------------------------------------------------------------------------------
    @user_site
    def assign_target(self, frame, t, value):
        if isinstance(t, ast.Name):
            frame.env[t.id] = value
        elif isinstance(t, (ast.Tuple, ast.List)):
            self._unpack(frame, t, value)
        elif isinstance(t, ast.Subscript):
            obj = self.eval(frame, t.value)
            idx = self.eval(frame, t.slice)
            if isinstance(obj, (list, dict)):
                obj[idx] = value
            elif isinstance(t.value, ast.Name) and _is_tensor_value(obj) and not isinstance(obj, Parameter):
                # `y[i] = v` on a tensor is functional, as in MindSpore's graph mode: y is rebound to
                # a new tensor (ops.function_index.setitem); other references keep the old one
                frame.env[t.value.id] = setitem(obj, idx, value)
            else:
                raise self.error(t, f"item assignment on {_kind(obj)} is not supported in graph code",
                                 "build a new tensor with ops.select / ops.concat, or use a list")
        elif isinstance(t, ast.Attribute):
            obj = self.eval(frame, t.value)
            raise self.error(t, f"assigning attribute '{t.attr}' of {_kind(obj)} inside graph code is not supported",
                             "keep the value in a local variable; to update a Parameter use ops.assign")
        elif isinstance(t, ast.Starred):
            raise self.error(t, "a starred target must be inside a tuple")
        else:
            raise self.error(t, f"cannot assign to {type(t).__name__}")

    @user_site
    def _unpack(self, frame, t, value):
        if isinstance(value, Sym):
            items = [value[i] for i in range(len(value))]
        else:
            try:
                items = list(value)
            except TypeError:
                raise self.error(t, f"cannot unpack {_kind(value)}") from None
        stars = [i for i, e in enumerate(t.elts) if isinstance(e, ast.Starred)]
        if stars:
            k = stars[0]
            n_after = len(t.elts) - k - 1
            if len(items) < len(t.elts) - 1:
                raise self.error(t, f"not enough values to unpack (expected at least {len(t.elts) - 1}, got {len(items)})")
            head, mid, tail = items[:k], items[k:len(items) - n_after], items[len(items) - n_after:]
            for e, v in zip(t.elts[:k], head):
                self.assign_target(frame, e, v)
            self.assign_target(frame, t.elts[k].value, list(mid))
            for e, v in zip(t.elts[k + 1:], tail):
                self.assign_target(frame, e, v)
            return
        if len(items) != len(t.elts):
            raise self.error(t, f"cannot unpack {len(items)} values into {len(t.elts)} names",
                             "make the number of names match the number of values (or use a starred name)",
                             kind=CompileValueError)
        for e, v in zip(t.elts, items):
            self.assign_target(frame, e, v)

def _is_tensor_value(v) -> bool:
    return isinstance(v, Tensor) or (isinstance(v, Sym) and isinstance(v._value.type, TensorType))


def _def_line(pf) -> int:
    node = pf.node
    return pf.line0 + (node.decorator_list[0].lineno if getattr(node, "decorator_list", None) else node.lineno)


def _shown_signature(pf, fn) -> str:
    return str(pf.sig) if pf.sig is not None else "(...)"


def _closure_hint(clo) -> str:
    pf = clo.frame.pf
    return f"'{clo.__name__}' is defined at {pf.file}:{pf.line0 + clo.node.lineno} as " \
           f"{clo.__name__}({ast.unparse(clo.node.args)})"


def _foreign_call_error(fn) -> GraphTypeError:
    """A call of a function pycompile cannot compile (NumPy, math, a C extension) with graph values."""
    name = getattr(fn, "__name__", type(fn).__name__)
    mod = getattr(fn, "__module__", None) or type(fn).__module__ or ""
    lib = mod.split(".")[0]
    where = f"'{lib}.{name}'" if lib and lib != "builtins" else f"'{name}'"
    err = GraphTypeError(f"{where} cannot take a tensor of the graph: it would run now, at compile time, when tensor "
                    f"values are not known yet")
    ops_name = name if hasattr(F, name) else None
    err.hint = (f"use ops.{ops_name} instead" if ops_name else "use the pycompile.ops function that does this") + \
        ", or call it outside construct / the @jit function"
    return err


def _param_names(cls, args, kwargs) -> list:
    """[(parameter name, value)] of a constructor call, by the class's __init__ signature."""
    try:
        bound = inspect.signature(cls).bind(*args, **kwargs)
        return list(bound.arguments.items())
    except (TypeError, ValueError):
        return [(f"#{i + 1}", v) for i, v in enumerate(args)] + list(kwargs.items())


def _as_load(t):
    t2 = ast.parse(ast.unparse(t), mode="eval").body
    ast.copy_location(t2, t)
    for a, b in zip(ast.walk(t2), ast.walk(t)):
        ast.copy_location(a, b)
    return t2


def _has_graph(values) -> bool:
    for v in values:
        if isinstance(v, Symbolic):
            return True
        if isinstance(v, (tuple, list)) and _has_graph(v):
            return True
        if isinstance(v, dict) and _has_graph(list(v.values())):
            return True
    return False


# ---- entry ---------------------------------------------------------------------------------------------

@dataclass
class TraceResult:
    graph: ir.Graph
    refs: list                 # the Parameters behind the graph's RefType params, in order
    input_paths: list          # for each graph input: path into the call's args
    saved_bytes: int = 0       # forward values differentiated code keeps for its backward




def trace(fn, args: tuple, kwargs: dict | None = None, self_obj=None, name: str | None = None) -> TraceResult:
    """Build the graph of calling `fn(*args)` (a method when self_obj is given)."""
    interp = Interpreter()
    b = interp.builder
    pf = parse_function(fn)
    names = _arg_names(pf, len(args), skip_self=self_obj is not None)
    inputs, paths = [], []

    constants = CONSTANT_INPUTS.get()

    def lift(x, label, path):
        if isinstance(x, Parameter) or path in constants:
            return x
        if isinstance(x, Tensor) or is_mutable(x) and isinstance(x, (int, float)):
            # a Tensor, or an ms.mutable number: a 0-d tensor input (common/mutable.py)
            t = x._abstract if isinstance(x, Tensor) else TensorType(mstype.from_numpy(x._data.dtype), (), number=True)
            p = ir.Param(name=label, type=t)
            inputs.append(p)
            paths.append(path)
            return Sym(p, b)
        if isinstance(x, (tuple, list)):
            return type(x)(lift(v, f"{label}{i}", path + (i,)) for i, v in enumerate(x))
        if isinstance(x, SPARSE_TYPES):     # a sparse tensor: each part an input, the shape static
            cls, parts, shape = parts_of(x)
            return rebuild(cls, [lift(v, f"{label}_{n}", path + (i,)) for i, (n, v) in
                                 enumerate(zip(cls._parts, parts))], shape)
        if is_mutable(x) and isinstance(x, dict):
            return type(x)((k, lift(v, f"{label}_{k}", path + (k,))) for k, v in x.items())
        return x

    call_args = [lift(a, names[i], (i,)) for i, a in enumerate(args)]
    call_kwargs = {k: lift(v, k, (k,)) for k, v in (kwargs or {}).items()}
    full = [self_obj, *call_args] if self_obj is not None else call_args
    interp.cells[0] = (self_obj, "Default")
    try:
        with tracing(b):
            if self_obj is None and (getattr(fn, "__wrapped_vmap__", None) is not None or is_library(fn)):
                # ms.jit(ms.vmap(f)): the vmapped wrapper is library code that batches f's ops
                # as it runs; called on graph values it emits the batched graph. So is any
                # pycompile function (ms.jit(ops.inverse)): called, as graph code calls it, not
                # parsed (an op entry's wrapper has a `try` graph code does not take)
                result = interp.call_value(fn, full, call_kwargs)
            else:
                result = interp.inline(fn, full, call_kwargs)
    except InputValueNeeded as niv:
        # the value of an argument: the caller may compile with it as a constant (pycompile.api)
        k = next((k for k, p in enumerate(inputs) if getattr(niv.value, "_value", None) is p), None)
        if k is not None and len(paths[k]) == 1 and isinstance(paths[k][0], (int, str)):
            niv.position = paths[k][0]          # a positional index, or a keyword argument's name
        raise
    except NeedsConstantAt as nc:
        raise CompileError(str(nc), nc.loc, "this needs a value known at compile time (a Python number, "
                                           "a shape); tensors are only known when the graph runs") from None
    except NeedsConstant as nc:
        raise CompileError(str(nc), b.loc) from None
    except RecursionError as e:
        name, loc = getattr(e, "pc_call", None) or (pf.name, b.loc)
        raise CompileError(f"calls nest too deeply while inlining '{name}': every call is inlined, so a recursion "
                           f"must end at compile time", loc,
                           "make the recursion depend on Python values (a counter, a shape), not on tensor "
                           "values; or write it as a while loop") from None
    graph = finish_graph(b, name or pf.name, inputs, result)
    return TraceResult(graph, [p.ref for p in b.ref_order], paths, interp.saved_bytes)


def _arg_names(pf: ParsedFunc, n: int, skip_self: bool) -> list:
    names = []
    node = pf.node
    if isinstance(node, (ast.FunctionDef, ast.Lambda)):
        a = node.args
        params = [x.arg for x in a.posonlyargs + a.args]
        if skip_self and params:
            params = params[1:]
        names = params[:n]
        if len(names) < n:
            base = a.vararg.arg if a.vararg else "arg"
            names += [f"{base}{i}" for i in range(n - len(names))]
    return names or [f"arg{i}" for i in range(n)]
