"""The source of user functions: found with `inspect`, parsed once per code object, located
by file and line so that every IR node and error points back at the user's code."""
from __future__ import annotations

import ast
import inspect
import linecache
import textwrap
from dataclasses import dataclass

from pycompile.errors import CompileError


def is_library(fn) -> bool:
    mod = getattr(fn, "__module__", None) or ""
    return mod == "pycompile" or mod.startswith("pycompile.")


@dataclass
class ParsedFunc:
    node: ast.AST              # FunctionDef or Lambda
    file: str
    line0: int                 # file line of the parsed text's line 1, minus 1
    col0: int                  # columns removed by dedent
    globals: dict
    closure: dict
    name: str
    sig: inspect.Signature | None


_PARSE_CACHE: dict = {}


def unwrap(fn):
    """The Python function behind jit wrappers / functools.wraps."""
    seen = 0
    while hasattr(fn, "__wrapped__") and seen < 10:
        fn = fn.__wrapped__
        seen += 1
    return fn


def parse_function(fn) -> ParsedFunc:
    fn = unwrap(fn)
    code = getattr(fn, "__code__", None)
    if code is None:
        raise CompileError(f"cannot compile {fn!r}: it is not a Python function")
    closure = {}
    if fn.__closure__:
        for name, cell in zip(code.co_freevars, fn.__closure__):
            try:
                closure[name] = cell.cell_contents
            except ValueError:
                pass
    try:
        # not cached with the code: functions sharing code (lambdas made in a loop) differ in defaults
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        sig = None
    cached = _PARSE_CACHE.get(code)
    if cached is not None:
        node, file, line0, col0 = cached
        return ParsedFunc(node, file, line0, col0, fn.__globals__, closure, fn.__name__, sig)
    try:
        lines, start = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        raise CompileError(f"cannot find the source code of '{fn.__qualname__}': graph code must be defined "
                           f"in a file (not typed at an interactive prompt or built with exec)") from None
    file = inspect.getsourcefile(fn) or code.co_filename
    text = "".join(lines)
    col0 = len(lines[0]) - len(lines[0].lstrip())
    line0 = start - 1
    try:
        tree = ast.parse(textwrap.dedent(text))
    except SyntaxError:
        try:
            tree = ast.parse("if 1:\n" + text)
            line0 -= 1
        except SyntaxError:
            # a lambda inside a longer expression (`f(x, lambda v: v + 1)])`): its lines do not
            # parse alone; the whole file does
            tree = ast.parse("".join(linecache.getlines(file)))
            line0 = 0
        col0 = 0
    node = _find_def(tree, fn, code, line0, col0)
    _PARSE_CACHE[code] = (node, file, line0, col0)
    return ParsedFunc(node, file, line0, col0, fn.__globals__, closure, fn.__name__, sig)


def _find_def(tree, fn, code, line0, col0=0):
    want = code.co_firstlineno - line0
    if fn.__name__ == "<lambda>":
        lambdas = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda)]
        if len(lambdas) == 1:
            return lambdas[0]
        on_line = [n for n in lambdas if n.lineno == want]
        if len(on_line) > 1:
            return _lambda_by_column(on_line, code, col0)
        if on_line or lambdas:
            return (on_line or lambdas)[0]
    defs = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for n in defs:
        if n.name == fn.__name__:
            return n
    # a function renamed after its definition (`f.__name__ = ...`): the one its code starts at
    for n in defs:
        if want in [n.lineno] + [d.lineno for d in n.decorator_list]:
            return n
    raise CompileError(f"cannot find the definition of '{fn.__qualname__}' in its source")


def _lambda_by_column(candidates, code, col0):
    """Several lambdas start on one line (`f(lambda x: a(x), lambda x: b(x))`): the one whose body
    holds the columns of the code object's instructions."""
    cols = [c for line, _, c, _ in code.co_positions() if line == code.co_firstlineno and c is not None]

    def hits(n):
        lo, hi = n.body.col_offset + col0, n.body.end_col_offset + col0
        return sum(1 for c in cols if lo <= c < hi) if n.body.end_lineno == n.lineno else 0
    return max(candidates, key=hits)
