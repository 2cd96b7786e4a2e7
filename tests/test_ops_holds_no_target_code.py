"""ops/ says what an op is, backend/ how a device renders it (issue 32, item 5): no ops/ file holds
C text (tests/test_layering.py checks that no ops module imports the compiler or the backend).

C text is recognised in the string literals of each module (docstrings aside, which may quote
C in prose): a C statement or declaration (`for (long i = 0; ...`, `double v = ...`, `...; }`,
`) {`), a C cast, a call of the runtime (`pc_*(`), a `float` libm function or a GCC builtin, or an
`#include`. The same check finds C in every module of backend/c/ops/, where the renderings live,
so it would find them anywhere under ops/.
"""
from __future__ import annotations

import ast
import os
import re

import pycompile

SRC = os.path.dirname(pycompile.__file__)

C_TEXT = re.compile(
    r"#include|\bfor \((long|int|size_t|int64_t) \w+ = "
    r"|\b(float|double|long|int64_t|int32_t|uint32_t|const)\s+\**\w+(\[\w*\])?\s*=[^=]"
    r"|\bpc_\w+\(|;\s*\}|\)\s*\{"
    r"|\b(expf|logf|sqrtf|fabsf|tanhf|sinf|cosf|powf|floorf|ceilf|fmaf|erff|expm1f|log1pf|nearbyint|copysign"
    r"|__builtin_\w+)\("
    r"|\((float|double|int64_t|int32_t|uint8_t)\)")


def c_literals(path: str) -> list:
    """The string literals of a module (docstrings aside) that hold C text."""
    text = open(path).read()
    if not C_TEXT.search(text):
        return []                 # (most files: no need to parse them)
    tree = ast.parse(text, path)
    docs = set()
    for n in ast.walk(tree):
        if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and n.body:
            first = n.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docs.add(id(first.value))
    return [n.value for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs and C_TEXT.search(n.value)]


def _modules(package: str) -> list:
    out = []
    for d, _, files in os.walk(os.path.join(SRC, *package.split(".")[1:])):
        out += [os.path.join(d, f) for f in sorted(files) if f.endswith(".py")]
    return out


def test_no_ops_file_holds_c_text():
    assert not os.path.exists(os.path.join(SRC, "ops", "c"))
    found = {os.path.relpath(p, SRC): c_literals(p)[:2] for p in _modules("pycompile.ops")}
    assert not {p: c for p, c in found.items() if c}


def test_the_check_finds_the_c_renderings_where_they_live():
    renderings = [p for p in _modules("pycompile.backend.c.ops")
                  if os.path.basename(p) not in ("__init__.py", "activation.py", "shapes.py", "templates.py", "writer.py",
                                                     "vectors.py")]
    assert len(renderings) >= 13
    assert all(c_literals(p) for p in renderings), [p for p in renderings if not c_literals(p)]
