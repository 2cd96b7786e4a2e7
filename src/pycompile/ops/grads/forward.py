"""Forward-mode (JVP) rules of the op table, in one place, keyed by the op object.

A rule is registered with `@defjvp(op)`:

    @defjvp(P.Mul)
    def _mul(t, out, x, y):
        return _sum(_times(t[0], y), _times(x, t[1]))

It receives `t`, the tangents of the op's inputs in order (None where an input has none: an
index, a constant, a value nothing differentiated flows into; a list for a variadic input), the
forward output `out`, the inputs themselves and the op's attributes; it returns the tangent of
the output (a tuple for ops with several outputs; None for no tangent). Like the gradient rules
it is written with ops of the table, so it runs eagerly on Tensors (PyNative's forward mode),
on graph values (the compiler's forward transformation) and on vmap's batched values (jacfwd).
The framework (`ops/autodiff/forward.py`, `tangent`) broadcasts each tangent to the output's
shape and casts it to its dtype.

An op with a gradient rule and no JVP rule is pushed forward by transposing its gradient rule:
the rule is linear in its cotangent, so the reverse of "cotangent -> input cotangents" applied
to the input tangents is the output tangent (a local grad of a grad, one op wide). Only the ops
below have rules of their own: the common ones, where that costs more than the rule.
Decompositions (ops/entries) need nothing: they are traced into these ops.
"""
from __future__ import annotations

from pycompile.common.abstract import type_of
from pycompile.ops import functional as F
from pycompile.ops import prims as P
from pycompile.ops._table import apply
from pycompile.ops.defs.reduce import softmax_axis
from pycompile.ops.grads import defjvp


def _sum(*ts):
    """The sum of the tangents that are not None (None when all are)."""
    out = None
    for t in ts:
        if t is not None:
            out = t if out is None else F.add(out, t)
    return out


def _times(a, b):
    return None if a is None or b is None else F.mul(a, b)


def _linear(op):
    """A rule for an op linear in its first input (the others are indices or shapes)."""
    def rule(t, out, x, *rest, **attrs):
        return None if t[0] is None else apply(op, [t[0], *rest], attrs)
    return rule


def _linear_all(op):
    """A rule for an op linear in each of its inputs jointly (AddN, Concat, Stack: variadic)."""
    def rule(t, out, xs, **attrs):
        if all(ti is None for ti in t[0]):
            return None
        ts = [ti if ti is not None else F.zeros_like(x) for ti, x in zip(t[0], xs)]
        return apply(op, [ts], attrs)
    return rule


def _bilinear(op):
    """op(a, b) linear in each input: op(ta, b) + op(a, tb), same attributes (MatMul's flags)."""
    def rule(t, out, a, b, **attrs):
        return _sum(None if t[0] is None else apply(op, [t[0], b], attrs),
                    None if t[1] is None else apply(op, [a, t[1]], attrs))
    return rule


for _op in (P.Neg, P.Reshape, P.Transpose, P.BroadcastTo, P.ReduceSum, P.ReduceMean, P.StridedSlice,
            P.StridedSliceGrad, P.Gather, P.GatherGrad, P.TensorMove, P.Cast, P.CumSum):
    defjvp(_op)(_linear(_op))
for _op in (P.AddN, P.Concat, P.Stack):
    defjvp(_op)(_linear_all(_op))
for _op in (P.MatMul, P.BatchMatMul, P.Mul):
    defjvp(_op)(_bilinear(_op))


@defjvp(P.Add)
def _add(t, out, x, y):
    return _sum(t[0], t[1])


@defjvp(P.Sub)
def _sub(t, out, x, y):
    return _sum(t[0], None if t[1] is None else F.neg(t[1]))


@defjvp(P.RealDiv)
def _div(t, out, x, y):
    # d(x / y) = (dx - out dy) / y
    return F.div(_sum(t[0], None if t[1] is None else F.neg(F.mul(out, t[1]))), y)


@defjvp(P.Square)
def _square(t, out, x):
    return F.mul(F.mul(t[0], x), 2)


@defjvp(P.Select)
def _select(t, out, cond, x, y):
    if t[1] is None and t[2] is None:
        return None
    return F.select(cond, 0 if t[1] is None else t[1], 0 if t[2] is None else t[2])


def _extremum(x_wins, y_wins):
    """Maximum / Minimum: the winner's tangent; a tie gives the mean (the gradient's halves)."""
    def rule(t, out, x, y):
        tx = F.zeros_like(out) if t[0] is None else t[0]
        ty = F.zeros_like(out) if t[1] is None else t[1]
        shape = type_of(out).shape
        tx, ty = F.broadcast_to(tx, shape), F.broadcast_to(ty, shape)
        nan = F.logical_or(F.ne(x, x), F.ne(y, y))
        tie = F.mul(F.add(tx, ty), 0.5)
        both = F.add(tx, ty)
        return F.select(nan, both, F.select(x_wins(x, y), tx, F.select(y_wins(x, y), ty, tie)))
    return rule


defjvp(P.Maximum)(_extremum(F.greater, F.less))
defjvp(P.Minimum)(_extremum(F.less, F.greater))


@defjvp(P.Exp)
def _exp(t, out, x):
    return F.mul(t[0], out)


@defjvp(P.Log)
def _log(t, out, x):
    return F.div(t[0], x)


@defjvp(P.Sqrt)
def _sqrt(t, out, x):
    return F.div(F.mul(t[0], 0.5), out)


@defjvp(P.Reciprocal)
def _reciprocal(t, out, x):
    return F.neg(F.mul(t[0], F.mul(out, out)))


@defjvp(P.Sin)
def _sin(t, out, x):
    return F.mul(t[0], F.cos(x))


@defjvp(P.Cos)
def _cos(t, out, x):
    return F.neg(F.mul(t[0], F.sin(x)))


@defjvp(P.Tanh)
def _tanh(t, out, x):
    return F.mul(t[0], F.sub(1, F.mul(out, out)))


@defjvp(P.Sigmoid)
def _sigmoid(t, out, x):
    return F.mul(t[0], F.mul(out, F.sub(1, out)))


@defjvp(P.ReLU)
def _relu(t, out, x):
    return F.select(F.greater(out, 0), t[0], 0)


@defjvp(P.Abs)
def _abs(t, out, x):
    return F.select(F.greater(x, 0), t[0], F.select(F.less(x, 0), F.neg(t[0]), 0))


@defjvp(P.Softmax)
def _softmax(t, out, x, axis=-1):
    # d softmax = out * (dx - sum(out * dx))
    ax = softmax_axis("Softmax", axis, len(type_of(x).shape))
    return F.mul(out, F.sub(t[0], F.sum(F.mul(out, t[0]), ax, True)))


@defjvp(P.LogSoftmax)
def _log_softmax(t, out, x, axis=-1):
    ax = softmax_axis("LogSoftmax", axis, len(type_of(x).shape))
    return F.sub(t[0], F.sum(F.mul(F.exp(out), t[0]), ax, True))


@defjvp(P.Load)
def _load(t, out, ref):
    return None             # forward mode differentiates arguments, not Parameters


@defjvp(P.Depend)
def _depend(t, out, x, expr):
    return t[0]
