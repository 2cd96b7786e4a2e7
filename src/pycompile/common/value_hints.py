"""Values of small integer Tensor arguments that graph code uses as shapes (a guard on the value).

MindSpore's graph mode takes `TruncatedNormal()(shape)` or `RandomGamma()(shape, alpha)` with
`shape` a Tensor argument of `construct`, the output's shape following the tensor's values (a
dynamic shape). pycompile's compiled code has static shapes, so an op that needs such a value
(`known_value`) reads it from the call being compiled: while the frontend traces a call it
offers each Tensor argument's concrete value (`offer`); an op asking for one records a guard
(the argument's path and value), and api.py keeps one executable per guarded value, compiling
again when a call brings another value. Only integer tensors of at most MAX_SIZE elements are
given, and never to a compile that the on-disk cache keeps (its key holds no values).
"""
from __future__ import annotations

import contextlib
import contextvars

import numpy as np

MAX_SIZE = 64

_SCOPE = contextvars.ContextVar("pycompile_value_hints", default=None)


class Hints:
    """The offered values of one trace (id of the graph value -> (value, path, array)) and the
    guards taken ((path, array) in order)."""

    def __init__(self):
        self.offered: dict = {}
        self.guards: list = []


@contextlib.contextmanager
def scope():
    """Collect offers and guards of the compile run inside; yields the Hints."""
    h = Hints()
    token = _SCOPE.set(h)
    try:
        yield h
    finally:
        _SCOPE.reset(token)


def offer(graph_value, path: tuple, tensor) -> None:
    """The frontend: `graph_value` stands for argument `path`, whose value in this call is `tensor`."""
    h = _SCOPE.get()
    if h is None:
        return
    arr = getattr(tensor, "_data", None)
    if isinstance(arr, np.ndarray) and arr.size <= MAX_SIZE and arr.dtype.kind in "iu":
        h.offered[id(graph_value)] = (graph_value, path, arr.copy())


def known_value(x):
    """The value of graph value `x` if it is an offered argument (recording the guard), else None."""
    h = _SCOPE.get()
    if h is None:
        return None
    hit = h.offered.get(id(x))
    if hit is None or hit[0] is not x:
        return None
    _, path, arr = hit
    if not any(p == path for p, _ in h.guards):
        h.guards.append((path, arr))
    return arr.copy()


def value_at(args: tuple, kwargs: dict, path: tuple):
    """The argument at `path` (the frontend's paths: an index or keyword, then tuple indices)."""
    head, *rest = path
    v = kwargs[head] if isinstance(head, str) else args[head]
    for p in rest:
        v = v[p]
    return v


def guard_key(args: tuple, kwargs: dict, paths) -> tuple:
    """What a call's guarded arguments hold, as a dict key."""
    key = []
    for p in paths:
        arr = np.asarray(getattr(value_at(args, kwargs, p), "_data", None))
        key.append((arr.dtype.str, arr.shape, arr.tobytes()))
    return tuple(key)
