"""Forward-mode autodiff: one pass carrying a tangent beside each value (`ops.jvp`, `jacfwd`).

`tangent(op, out, inputs, tangents, attrs)` pushes the inputs' tangents through one op: by its
JVP rule (ops/grads/forward.py) or, for an op that has only a gradient rule, by transposing
that rule (it is linear in its cotangent: the tape differentiates it with respect to the
cotangent, seeded with the tangents). Both the PyNative trace below and the compiler's
forward transformation (compiler/forward.py) call it, so the two modes run the same rules.

`JvpTrace` is the PyNative (and vmap) form: the arguments become `JvpTracer`s holding
(primal, tangent); every op applied to one runs at once and its tangent is computed at once.
It composes like the tape: a `JvpTracer`'s primal may be a vmap value (jacfwd is vmap over
jvp), a gradient tape's value (a Hessian-vector product) or a graph value.
"""
from __future__ import annotations

from pycompile.common.abstract import Symbolic, TensorType, type_of
from pycompile.common.tensor import TensorMethods
from pycompile.ops import functional as F
from pycompile.ops import tracing
from pycompile.ops._table import OpTypeError, apply
from pycompile.ops.autodiff.tape import GradTrace, GradTracer
from pycompile.ops.grads import NEEDED, NONDIFF


def _is_tensor(v) -> bool:
    return isinstance(getattr(v, "_abstract", None), TensorType)


def _has(t) -> bool:
    return any(x is not None for x in t) if isinstance(t, (list, tuple)) else t is not None


def _carries(x) -> bool:
    """A float or complex tensor carries a tangent."""
    dt = type_of(x).dtype
    return dt.is_float or dt.is_complex


def fit_out(t, like):
    """Tangent `t` broadcast to the shape of `like` and cast to its dtype (the forward image of
    tape.fit: a rule may return the tangent of a broadcast operand)."""
    lt = type_of(like)
    if t is None or not isinstance(lt, TensorType):
        return None
    if not (lt.dtype.is_float or lt.dtype.is_complex):
        return None                 # an integer or bool value carries no tangent
    tt = type_of(t)
    if not isinstance(tt, TensorType) or tt.shape != lt.shape:
        t = F.broadcast_to(t if isinstance(tt, TensorType) else F.fill(lt.dtype, (), t), lt.shape)
    if type_of(t).dtype is not lt.dtype:
        t = F.cast(t, lt.dtype)
    return t


def tangent(op, out, inputs: list, tangents: list, attrs: dict):
    """The tangent of `op`'s output (a tuple for several outputs, None for none)."""
    if op.grad is NONDIFF or not any(_has(t) for t in tangents):
        return None
    if op.jvp is not None:
        t = op.jvp(tuple(tangents), out, *inputs, **attrs)
    elif op.grad is None:
        raise OpTypeError(f"For '{op.name}', there is no gradient rule: it cannot be differentiated")
    else:
        t = _transposed(op, out, inputs, tangents, attrs)
    if isinstance(out, tuple):
        t = t if isinstance(t, tuple) else (None,) * len(out)
        return tuple(fit_out(ti, o) for ti, o in zip(t, out))
    return fit_out(t, out)


def _transposed(op, out, inputs, tangents, attrs):
    """J t by the op's gradient rule g -> J^T g, differentiated with respect to g (a local grad
    of a grad): the tangents are the cotangents of the rule's results."""
    outs = out if isinstance(out, tuple) else (out,)
    trace = GradTrace()
    watched, leaves = [], []
    for o in outs:
        if _is_tensor(o) and (type_of(o).dtype.is_float or type_of(o).dtype.is_complex):
            w, leaf = trace.watch(F.zeros_like(o))
        else:
            w, leaf = (F.zeros_like(o) if _is_tensor(o) else None), None
        watched.append(w)
        leaves.append(leaf)
    g = tuple(watched) if isinstance(out, tuple) else watched[0]
    token = NEEDED.set(tuple(_has(t) for t in tangents))
    try:
        with tracing.tracing(trace):
            cin = op.grad(g, out, *inputs, **attrs)
    finally:
        NEEDED.reset(token)
    seeds = []
    for c, t in zip(cin, tangents):
        pairs = zip(c or (), t) if isinstance(t, list) else [(c, t)]
        for ci, ti in pairs:
            if isinstance(ci, GradTracer) and ci.trace is trace and ti is not None:
                ct = type_of(ci.primal)
                seeds.append((ci, F.cast(F.broadcast_to(ti, ct.shape), ct.dtype)))
    if not seeds:
        return None
    cts = trace.backward(seeds)
    res = [cts.get(id(leaf)) if leaf is not None else None for leaf in leaves]
    return tuple(res) if isinstance(out, tuple) else res[0]


# ---- PyNative (and vmap) -------------------------------------------------------------------------

class JvpTracer(tracing.OnTrace, tracing.PrimalLook, TensorMethods, Symbolic):
    """A value with its tangent: `primal` is the value (a Tensor or an outer tracer's value)."""

    __slots__ = ("primal", "tangent", "trace")

    def __init__(self, primal, tangent, trace: "JvpTrace"):
        self.primal, self.tangent, self.trace = primal, tangent, trace

    @property
    def _abstract(self):
        return type_of(self.primal)

    __hash__ = object.__hash__


class JvpTrace(tracing.Tracer):
    """One forward-mode differentiation: ops on its JvpTracers run with their tangents."""

    def __init__(self):
        self.level = tracing.new_level()

    def wrap(self, primal, tan):
        return JvpTracer(primal, tan, self) if _is_tensor(primal) and tan is not None else primal

    def _unwrap(self, x):
        if isinstance(x, JvpTracer) and x.trace is self:
            return x.primal, x.tangent
        return x, None

    def emit(self, op, inputs, attrs, out_type):
        primals, tans = [], []
        for k, x in enumerate(inputs):
            if op.variadic and k == len(inputs) - 1 and isinstance(x, (tuple, list)):
                pairs = [self._unwrap(y) for y in x]
                primals.append([p for p, _ in pairs])
                tans.append([t for _, t in pairs])
            else:
                p, t = self._unwrap(x)
                primals.append(p)
                tans.append(t)
        with tracing.below(self):
            out = apply(op, primals, attrs)
            t = tangent(op, out, primals, tans, attrs)
        if isinstance(out, tuple):
            t = t or (None,) * len(out)
            return tuple(self.wrap(o, ti) for o, ti in zip(out, t))
        return self.wrap(out, t)

    def call_cell(self, cell, args, kwargs):
        outer = tracing.outer_of(self)
        if outer is not None:
            return outer.call_cell(cell, args, kwargs)
        return tracing.run_cell(cell, args, kwargs)

    def split(self, v):
        """(primal, tangent) of a result: zeros for a tensor no tangent reached."""
        if isinstance(v, tuple):
            pairs = [self.split(x) for x in v]
            return tuple(p for p, _ in pairs), tuple(t for _, t in pairs)
        if isinstance(v, list):
            pairs = [self.split(x) for x in v]
            return [p for p, _ in pairs], [t for _, t in pairs]
        if isinstance(v, JvpTracer) and v.trace is self:
            return v.primal, v.tangent
        return v, (F.zeros_like(v) if _is_tensor(v) else v)


def run_jvp(fn, inputs: tuple, tangents: tuple, call):
    """(fn(*inputs), its tangent) in one pass on JvpTracers; `call(fn, args)` runs fn (as graph
    code when its arguments are graph values)."""
    trace = JvpTrace()
    # an integer or bool input carries no tangent (as in the compiled transformation)
    args = [trace.wrap(x, F.cast(t, type_of(x).dtype)) if _is_tensor(x) and _is_tensor(t) and _carries(x) else x
            for x, t in zip(inputs, tangents)]
    with tracing.tracing(trace):
        res = call(fn, tuple(args))
    return trace.split(res)
