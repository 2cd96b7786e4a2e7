"""One interface for everything that intercepts ops: a `Tracer`.

The compiler's graph builder, vmap's batching trace and autodiff each implement it:

  emit(op, inputs, attrs, out_type)  an op applied to values of this tracer (or, for a graph
                                     builder, an effect or a Parameter read met while tracing)
  call_cell(cell, args, kwargs)      a Cell called with values of this tracer
  level                              when an op sees values of several tracers, the highest
                                     level (the innermost transformation) handles it

A tracer is *active* inside `with tracing(t):` - the scope of a sub-trace. Active tracers live
in a context variable (one stack per thread / task), not a module global. `ops._table.apply`
sends an op to the tracer of its highest-level traced argument (`Symbolic._tracer`); an op with
no traced argument that must not run now (an effect, a Parameter read) goes to the innermost
active tracer that `captures` them - a graph being built.
"""
from __future__ import annotations

import contextvars
import itertools
from contextlib import contextmanager


class Tracer:
    level: int = 0
    captures = False     # effects and Parameter reads met while active are emitted here, not run
    walks_code = False   # can walk a library function as graph code (see `walk_as_graph_code`)

    def emit(self, op, inputs, attrs, out_type):
        raise NotImplementedError

    def call_cell(self, cell, args, kwargs):
        raise NotImplementedError

    def walk(self, fn, args, kwargs):
        """Trace `fn` by walking its source, as user code is traced (a graph builder only)."""
        raise NotImplementedError


class OnTrace:
    """Mixin of the value classes whose trace is their `trace` attribute (vmap's batch values,
    the tape's gradient values, run-time-length values): the level and tracer an op looks at."""

    __slots__ = ()

    @property
    def _level(self):
        return self.trace.level

    @property
    def _tracer(self):
        return self.trace


class PrimalLook:
    """Mixin of the transformations' values that carry a concrete `primal` (the tape's and forward
    mode's tracers in PyNative): code may look at the value while it is transformed (truth, int,
    float, index, asnumpy, item, tolist, NumPy conversion, repr), and a look is not recorded."""

    __slots__ = ()

    def __bool__(self):
        return bool(self.primal)

    def __int__(self):
        return int(self.primal)

    def __float__(self):
        return float(self.primal)

    def __index__(self):
        return self.primal.__index__()

    def asnumpy(self):
        return self.primal.asnumpy()

    def item(self, *index):
        return self.primal.item(*index)

    def tolist(self):
        return self.primal.tolist()

    def __array__(self, dtype=None, copy=None):
        return self.primal.__array__(dtype)

    def __repr__(self):
        return repr(self.primal)


def walk_as_graph_code(fn, args, kwargs=None):
    """Library code runs directly on tracer values, so a Python loop in it is unrolled into the
    graph. A library function whose `for` over a range must stay one loop in compiled code (the
    time loop of the recurrent layers) is passed here: when `args` hold values of a graph being
    built, the graph's builder walks `fn`'s source as it walks user code, and its loop becomes a
    `For` node. Returns (True, result), or (False, None) when nothing in `args` belongs to a
    graph builder (PyNative, vmap): the caller then runs its eager form."""
    from pycompile.common.abstract import Symbolic
    for x in _leaves(args):
        if isinstance(x, Symbolic) and getattr(x._tracer, "walks_code", False):
            return True, x._tracer.walk(fn, list(args), dict(kwargs or {}))
    return False, None


def in_graph_code(*values) -> bool:
    """Whether `values` (or the graph being built) belong to compiled code: a builder's values
    walk code. PyNative values, the tape's and vmap's tracers do not."""
    from pycompile.common.abstract import Symbolic
    for x in _leaves(values):
        if isinstance(x, Symbolic) and getattr(x._tracer, "walks_code", False):
            return True
    return getattr(capturing(), "walks_code", False)


def _leaves(xs):
    for x in xs:
        if isinstance(x, (tuple, list)):
            yield from _leaves(x)
        else:
            yield x


# argument paths ((i,) or (name,)) traced as constants, not graph inputs: the arguments whose value
# an op needs (errors.InputValueNeeded; pycompile.api sets this and keys the compile by the values;
# here, not in the frontend, so that a warm start imports no compiler)
CONSTANT_INPUTS: contextvars.ContextVar = contextvars.ContextVar("pycompile_constant_inputs", default=frozenset())


def needs_value(v, what: str):
    """The value of `v`, a graph value an op needs when compiling (an axis or a size given as a
    Tensor): a constant's value; for a graph input, errors.InputValueNeeded (pycompile.api then
    compiles again with that Tensor argument as a constant, once per value: Sym.value_for_shape);
    None for a value computed in the graph."""
    ask = getattr(v, "value_for_shape", None)
    return None if ask is None else ask(what)


_ACTIVE: contextvars.ContextVar = contextvars.ContextVar("pycompile_active_tracers", default=())
_LEVELS = itertools.count(1)


def new_level() -> int:
    """A level above every tracer created before: a transformation entered later (nested
    inside) handles an op before the ones around it."""
    return next(_LEVELS)


@contextmanager
def tracing(tracer: Tracer):
    """Run a block with `tracer` active (a sub-trace: a graph being built, a vmap, a grad)."""
    token = _ACTIVE.set(_ACTIVE.get() + (tracer,))
    try:
        yield tracer
    finally:
        _ACTIVE.reset(token)


@contextmanager
def below(tracer: Tracer):
    """Run a block with `tracer` and every tracer inside it inactive: how a tracer computes the
    primal value of an op it records (the op then reaches the tracers around it, or runs)."""
    stack = _ACTIVE.get()
    k = next((i for i, t in enumerate(stack) if t is tracer), len(stack))
    token = _ACTIVE.set(stack[:k])
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def active() -> tuple:
    """The active tracers, outermost first."""
    return _ACTIVE.get()


def capturing() -> Tracer | None:
    """The innermost active tracer that captures effects (the graph being built), if any."""
    for t in reversed(_ACTIVE.get()):
        if t.captures:
            return t
    return None


def outer_of(tracer: Tracer) -> Tracer | None:
    """The active tracer just outside `tracer` (None if it is outermost or not active)."""
    stack = _ACTIVE.get()
    for k in range(len(stack) - 1, 0, -1):
        if stack[k] is tracer:
            return stack[k - 1]
    return None


# the runner of a Cell with hooks or a bprop (installed by ops/autodiff/custom.py, which imports
# this module): invoke(cell, args, kwargs, run)
CELL_HOOKS: list = [None]


def run_cell(cell, args, kwargs):
    """Cell `cell`'s construct run eagerly by a tracer, with its hooks and bprop around it (and its
    saved-tensor hooks: Cell.register_saved_tensors_hooks)."""
    saved = cell.__dict__.get("_saved_tensors_hooks")
    if saved is not None:
        with SAVED_HOOKS[0](*saved):
            return _run_cell(cell, args, kwargs)
    return _run_cell(cell, args, kwargs)


# [ms.saved_tensors_hooks]: set by ops/autodiff/saved_hooks.py (this module is below the autodiff package)
SAVED_HOOKS: list = [None]


def _run_cell(cell, args, kwargs):
    if "_hooks" in cell.__dict__ or getattr(type(cell), "bprop", None) is not None:
        return CELL_HOOKS[0](cell, args, kwargs, lambda a, k: cell.construct(*a, **k))
    return cell.construct(*args, **(kwargs or {}))
