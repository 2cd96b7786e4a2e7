"""Graph inputs whose values the graph needs when it compiles (issue 33, mat33).

MindSpore's reductions take their axis as a Tensor too (`P.ReduceSum()(x, axis_tensor)`), and its
graph mode reads such a "value-depend" input when it builds the graph: the result's rank depends on
it. pycompile compiles per signature, so a Tensor argument is only known when the graph runs. When
an op needed the value of a graph input (it calls `ops.tracing.needs_value` before raising its
error), `trace` raises `SpecializeOnValues` naming those positional arguments, and the caller
(api._compile_or_get) compiles again with their values as constants of the graph, keyed by value
from then on: one compile per distinct value, as a Python number argument is. The positions stay
marked on the function's (or the Cell's) cache, so a later call with another value compiles
another specialization instead of reusing a wrong one.

Only callers that key their cache by those values may ask for this (`constant_inputs`); anywhere
else (a trace without it) the op's own error stands.
"""
from __future__ import annotations

import contextvars
from contextlib import contextmanager

from pycompile.common import dtype as mstype
from pycompile.errors import CompileError

_CONSTANT: contextvars.ContextVar = contextvars.ContextVar("pycompile_constant_inputs", default=None)


class SpecializeOnValues(CompileError):
    """`trace` needs these positional arguments' values: compile again with them as constants.
    It reads as the CompileError the op raised (`error`), so a layer between `trace` and the
    caller that asked for it passes it on as a user error."""

    def __init__(self, positions, error: CompileError):
        super().__init__(error.msg, error.loc, error.hint, error.message_first)
        self.positions = frozenset(positions)
        self.error = error


@contextmanager
def constant_inputs(positions):
    """Trace with the Tensor arguments at these positions (an index, or a keyword's name) as
    constants (their values baked in), and allow `trace` to ask for more (SpecializeOnValues)."""
    token = _CONSTANT.set(frozenset(positions))
    try:
        yield
    finally:
        _CONSTANT.reset(token)


@contextmanager
def taken():
    """For one trace: the arguments it takes as constants (None outside `constant_inputs`: no
    retry allowed), with the permission withdrawn inside it, so that a trace nested in this one
    (not asked for by a caller keying by value) never asks for a retry."""
    token = _CONSTANT.set(None)
    old = token.old_value
    try:
        yield None if old is contextvars.Token.MISSING else old
    finally:
        _CONSTANT.reset(token)


def positions_to_retry(needed: list, inputs: list, paths: list, allowed) -> frozenset:
    """The arguments (an index, a keyword's name) among `needed` (values ops needed at compile
    time) that are graph inputs and could be constants; empty when the caller did not allow it
    (`allowed` None)."""
    if allowed is None:
        return frozenset()
    wanted = {id(getattr(v, "_value", None)) for v in needed}
    return frozenset(path[0] for p, path in zip(inputs, paths)
                     if id(p) in wanted and len(path) == 1 and path[0] not in allowed)


class _ValueKey:
    """A Tensor argument in a cache key by its value (dtype, shape and bytes); it prints as the
    recompile messages show it (compile_log.describe_key)."""

    __slots__ = ("key", "text")

    def __init__(self, data):
        self.key = (data.dtype, data.shape, data.tobytes())
        self.text = f"Tensor[{mstype.from_numpy(data.dtype)}, {tuple(data.shape)}] = {data.tolist()}"

    def __eq__(self, other):
        return isinstance(other, _ValueKey) and other.key == self.key

    def __hash__(self):
        return hash(self.key)

    def __repr__(self):
        return self.text


def keyed_by_value(sig: tuple, args, kwargs, positions) -> tuple:
    """The call signature `sig` (api._signature: the positional arguments' keys, then the keyword
    arguments' (name, key) in name order) with the Tensors at these positions (an index, a
    keyword's name) keyed by value."""
    out = list(sig)
    for k in positions:
        if isinstance(k, int):
            d = getattr(args[k], "_data", None) if k < len(args) else None
            if d is not None:
                out[k] = _ValueKey(d)
        elif kwargs and k in kwargs and getattr(kwargs[k], "_data", None) is not None:
            at = len(args) + sorted(kwargs).index(k)
            out[at] = (k, _ValueKey(kwargs[k]._data))
    return tuple(out)
