"""Gradient rules of the op table, keyed by the op object.

A rule is registered for a differentiable op with `@defgrad(op)`:

    @defgrad(P.Mul)
    def _mul(g, out, x, y):
        return g * y, g * x

It receives the cotangent `g` of the op's output (a tuple for ops with several outputs), the
forward output `out`, the op's inputs in order, and its attributes as keyword arguments; it
returns one cotangent per input (None where the input gets no gradient: an index, a mask, an
attribute-like tensor). Rules are written with `pycompile.ops.functional` (and other rules'
ops), never NumPy: the same rule then runs eagerly on Tensors (PyNative autodiff) and on graph
values when the compiler differentiates a graph, and it is differentiable itself.

The autodiff transformation (pycompile/autodiff) takes care of what every rule would repeat:
a cotangent whose shape is a broadcast of the input's is summed back to the input's shape, and
it is cast to the input's dtype (an int input gets an int gradient, as in MindSpore). Python
number inputs get none.

Forward mode (ops.jvp, jacfwd) reads `op.jvp`, registered with `@defjvp(op)` in
ops/grads/forward.py: the tangent of the output from the inputs' tangents. An op without one is
pushed forward by transposing its gradient rule (the rule is linear in its cotangent), so every
differentiable op has a JVP; a JVP rule of its own is only faster.

Ops without a gradient say so with `nondiff(op, ...)` (comparisons, logic, argmax, random,
effects). tests/ops/test_grad_rules.py walks the table and fails on an op with neither.

A rule whose cotangents cost work of their own (a convolution's two backprop ops) may skip the
ones nobody reads: `needs(k)` is False while PyNative's tape runs the rule for a record whose
input k is not differentiated (LeNet's first convolution reads the data, not a weight); the
rule then returns None there. Everywhere else (graph mode, where dead code goes anyway) it is
True.
"""
from __future__ import annotations

import contextvars
from typing import Callable

from pycompile.ops._table import OpDef

NONDIFF = "nondiff"      # the grad slot of an op that has no gradient

# per input of the rule being run: whether its cotangent is read (None: all are)
NEEDED: contextvars.ContextVar = contextvars.ContextVar("pycompile_grad_needed", default=None)


def needs(k: int) -> bool:
    """Whether the rule being run must produce input k's cotangent (see the module doc)."""
    n = NEEDED.get()
    return n is None or n[k]


def defgrad(op: OpDef) -> Callable:
    """Register the decorated function as `op`'s gradient rule."""
    def register(rule: Callable) -> Callable:
        if op.grad is not None:
            raise ValueError(f"op {op.name} already has a gradient rule")
        object.__setattr__(op, "grad", rule)
        return rule
    return register


def defjvp(op: OpDef) -> Callable:
    """Register the decorated function as `op`'s forward-mode (JVP) rule (ops/grads/forward.py)."""
    def register(rule: Callable) -> Callable:
        if op.jvp is not None:
            raise ValueError(f"op {op.name} already has a JVP rule")
        object.__setattr__(op, "jvp", rule)
        return rule
    return register


def nondiff(*ops: OpDef) -> None:
    """Declare ops that have no gradient (their inputs get none through them)."""
    for op in ops:
        if op.grad is not None:
            raise ValueError(f"op {op.name} already has a gradient rule")
        object.__setattr__(op, "grad", NONDIFF)
