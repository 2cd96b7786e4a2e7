"""MindSpore 2.10's control-flow Primitives `ops.WhileLoop`, `ops.ForiLoop` and `ops.Scan` (issue 34).

Each runs its loop as the Python below: in PyNative directly, and in graph code the builder
walks it as it walks user code (`tracing.walk_as_graph_code`), so a loop whose condition or
bounds are tensors becomes one `While` node of the graph (not an unrolled copy per iteration),
and the gradient goes through it as through a user's `while` (compiler/autodiff.py). An
exception in `loop_func` (or `cond_func`) becomes MindSpore's ValueError "Invalid loop_func ..."
in PyNative; in graph code it is the compile error at the user's line.
"""
from __future__ import annotations

import types

from pycompile.ops import tracing
from pycompile.ops._table import OpTypeError
from pycompile.ops.primitive import Primitive

_FUNCTIONS = (types.FunctionType, types.MethodType)


def _check(prim: str, name: str, value, allowed, names: str) -> None:
    if allowed is _FUNCTIONS:        # (in graph code a nested function is the frontend's closure)
        ok = callable(value) and not isinstance(value, type) and not hasattr(value, "_abstract")
    else:
        ok = isinstance(value, allowed) and not (isinstance(value, bool) and bool not in allowed)
    if not ok:
        raise OpTypeError(f"For '{prim}', the type of '{name}' should be {names}, but got type '{type(value).__name__}'.")


def _run(fn, args):
    """fn(*args), walked as graph code when `args` hold values of a graph being built."""
    walked, out = tracing.walk_as_graph_code(fn, args)
    if walked:
        return out
    graph = tracing.capturing()
    if graph is not None and getattr(graph, "walks_code", False):
        return graph.walk(fn, list(args), {})
    return fn(*args)


def _invalid(e: Exception) -> ValueError:
    return ValueError(f"Invalid loop_func, please check input arguments and return value, error info: {e}")


def _while_loop(cond_func, loop_func, val):
    while cond_func(val):
        val = loop_func(val)
    return val


def _fori_loop(lower, upper, loop_func, val):
    i = lower
    while i < upper:
        val = loop_func(i, val)
        i = i + 1
    return val


def _scan(loop_func, carry, xs):
    ys = []
    for x in xs:
        carry, y = loop_func(carry, x)
        ys.append(y)
    return carry, ys


class WhileLoop(Primitive):
    """ops.WhileLoop()(cond_func, loop_func, init_val): `while cond_func(val): val = loop_func(val)`."""

    def __init__(self):
        Primitive.__init__(self, "WhileLoop")

    def __call__(self, cond_func, loop_func, init_val):
        _check("WhileLoop", "cond_func", cond_func, _FUNCTIONS, "one of '['function', 'method']'")
        _check("WhileLoop", "loop_func", loop_func, _FUNCTIONS, "one of '['function', 'method']'")
        try:
            return _run(_while_loop, (cond_func, loop_func, init_val))
        except (OpTypeError, ValueError, TypeError, RuntimeError, IndexError) as e:
            if _in_graph(init_val):
                raise
            raise _invalid(e) from e


class ForiLoop(Primitive):
    """ops.ForiLoop()(lower, upper, loop_func, init_val, unroll=True): `for i in range(lower, upper):
    val = loop_func(i, val)` (`unroll` is accepted; a loop on tensor bounds stays a loop)."""

    def __init__(self):
        Primitive.__init__(self, "ForiLoop")

    def __call__(self, lower, upper, loop_func, init_val, unroll=True):
        from pycompile.common.tensor import Tensor
        from pycompile.common.abstract import Symbolic
        _check("ForiLoop", "lower", lower, (int, Tensor, Symbolic), "one of '['int', 'Tensor']'")
        _check("ForiLoop", "upper", upper, (int, Tensor, Symbolic), "one of '['int', 'Tensor']'")
        _check("ForiLoop", "loop_func", loop_func, _FUNCTIONS, "one of '['function', 'method']'")
        try:
            return _run(_fori_loop, (lower, upper, loop_func, init_val))
        except (OpTypeError, ValueError, TypeError, RuntimeError, IndexError) as e:
            if _in_graph((lower, upper, init_val)):
                raise
            raise _invalid(e) from e


class Scan(Primitive):
    """ops.Scan()(loop_func, init, xs, length=None, unroll=True): (carry, [y per element of xs]),
    `carry, y = loop_func(carry, x)` over xs (over `length` Nones when xs is None)."""

    def __init__(self):
        Primitive.__init__(self, "Scan")

    def __call__(self, loop_func, init, xs, length=None, unroll=True):
        _check("Scan", "loop_func", loop_func, _FUNCTIONS, "one of '['function', 'method']'")
        _check("Scan", "xs", xs, (list, tuple, type(None)), "one of '['list', 'tuple', 'NoneType']'")
        if xs is None:
            _check("Scan", "length", length, (int,), "'int'")
            xs = [None] * length
        if not xs:
            return init, []
        try:
            return _run(_scan, (loop_func, init, list(xs)))
        except (OpTypeError, ValueError, TypeError, RuntimeError, IndexError) as e:
            if _in_graph((init, xs)):
                raise
            raise _invalid(e) from e


def _in_graph(values) -> bool:
    from pycompile.common.abstract import Symbolic
    return any(isinstance(x, Symbolic) and getattr(x._tracer, "walks_code", False)
               for x in tracing._leaves([values])) or getattr(tracing.capturing(), "walks_code", False)
