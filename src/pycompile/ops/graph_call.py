"""Whether a call from Python runs graph code, and the jit that compiles it: what the gradient and
vmap transformations check before compiling a call of a `@jit` function or a GRAPH_MODE Cell (the ops
layer does not import the entry layer: pycompile.api hands `jit` over in JIT)."""
from __future__ import annotations

from pycompile.common import context
from pycompile.common.abstract import Symbolic
from pycompile.common.cellbase import CellBase
from pycompile.ops import tracing

JIT: list = []      # [pycompile.api.jit]


def graph_target(fn) -> bool:
    """fn runs as graph code when called: a `@jit` function, or a Cell while the context is
    GRAPH_MODE."""
    if getattr(fn, "_pycompile_jit", False):
        return True
    return isinstance(fn, CellBase) and context.get_context("mode") == context.GRAPH_MODE


def concrete(args, kwargs) -> bool:
    """Called from Python on concrete values: no transformation active (vmap, an outer tape, a
    graph being built) and no argument one's value (those differentiate as before)."""
    if tracing._ACTIVE.get():
        return False
    for x in list(args) + list(kwargs.values()):
        for y in (x if isinstance(x, (tuple, list)) else (x,)):
            if isinstance(y, (Symbolic, tracing.OnTrace)):
                return False
    return True
