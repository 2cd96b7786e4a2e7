"""Reverse-mode autodiff of PyNative code: a tape.

While a differentiated function runs eagerly, a `GradTrace` is the active tracer of the values
it watches: the positional arguments being differentiated become `GradTracer`s, and the
Parameters being differentiated (the weights) are watched by identity. Every op applied to a
watched value runs at once (the trace steps aside: `tracing.below`) and is recorded with its
inputs and output; its result is watched in turn. `backward` then walks the records in reverse,
calls each op's gradient rule (pycompile/ops/grads) on the recorded values, reduces every
cotangent to its input's shape and dtype, and sums the cotangents each value receives.

The rules run eagerly too, with this trace stepped aside, so an enclosing GradTrace records
them: a grad of a grad works. vmap composes the same way (tracers of higher level handle ops
first). Graph code is not differentiated here: inside @jit / GRAPH_MODE the compiler
differentiates the traced graph instead (pycompile/compiler/autodiff.py), with the same rules.

A Parameter read while recording is read at each use from its buffer, as MindSpore's PyNative
mode does: a value assigned to it after a read is what that read's gradient sees.
"""
from __future__ import annotations

import contextlib
import contextvars

from pycompile.common.abstract import ScalarType, Symbolic, TensorType, type_of
from pycompile.common.parameter import Parameter
from pycompile.common.tensor import Tensor, TensorMethods
from pycompile.ops import functional as F
from pycompile.ops import prims as P
from pycompile.ops import tracing
from pycompile.ops._table import EAGER_KERNELS, OpRuntimeError, OpTypeError, apply
from pycompile.ops.grads import NEEDED, NONDIFF
from pycompile.ops.autodiff import saved_hooks, tensor_hooks
from pycompile.ops.autodiff.tensor_hooks import hooks_of, run_hooks


class _Record:
    """One recorded op: its primal inputs (a list inside for a variadic op), the source of each
    watched input ((record or leaf, output index) or None), its attributes and its output."""

    __slots__ = ("op", "inputs", "sources", "attrs", "out", "packed", "real")

    def __init__(self, op, inputs, sources, attrs, out, real=True):
        self.op, self.inputs, self.sources, self.attrs, self.out = op, inputs, sources, attrs, out
        self.packed = None      # under saved_tensors_hooks: (unpack_hook, out, inputs) as packed
        self.real = real        # some input leads to a differentiated leaf (not only to shadow ones)

    def pack(self, hooks) -> None:
        """Keep the tensors the rule reads as `pack_hook` makes them (saved_hooks.py); the rest as
        they are."""
        pack, unpack = hooks
        # MindSpore saves for a Parameter's gradient too (requires_grad) when the call does not return it
        needed = tuple(n or (isinstance(x, Parameter) and x.requires_grad)
                       for n, x in zip(_requires_grad(self.sources), self.inputs))
        flags = saved_hooks.reads(self.op, self.out, self.inputs, self.attrs, needed)

        def packed(v):
            if isinstance(v, (tuple, list)):
                return type(v)(packed(x) for x in v)
            return _Packed(pack(v)) if _is_tensor(v) else v
        inputs = [packed(x) if read else x for x, read in zip(self.inputs, flags[1:])]
        out = packed(self.out) if flags[0] else self.out
        # the inputs are dropped (the packed form stands for them); the output stays for its structure
        self.packed, self.inputs = (unpack, out, inputs), None

    def saved(self):
        """(out, inputs) for the rule: unpacked now when they were packed."""
        if self.packed is None:
            return self.out, self.inputs
        unpack, out, inputs = self.packed

        def restored(v):
            if isinstance(v, (tuple, list)):
                return type(v)(restored(x) for x in v)
            if not isinstance(v, _Packed):
                return v
            t = unpack(v.value)
            if not _is_tensor(t):
                raise OpRuntimeError(f"For 'saved_tensors_hooks', unpack_hook must return a Tensor, but got "
                                     f"{type(t).__name__}.")
            return t
        inputs = [restored(x) for x in inputs]         # MindSpore's order: the inputs, then the output
        return restored(out), inputs


class _Packed:
    """What pack_hook returned for one saved tensor (any object, kept as it is)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


class Leaf:
    """A value being differentiated: a positional argument or a weight. A `shadow` leaf is an argument
    that is not differentiated but, as in MindSpore, requires a gradient for saved_tensors_hooks: the
    ops on it are recorded (their inputs saved as MindSpore saves them), no cotangent flows to it."""

    __slots__ = ("value", "shadow")

    def __init__(self, value, shadow=False):
        self.value, self.shadow = value, shadow


class GradTracer(tracing.OnTrace, tracing.PrimalLook, TensorMethods, Symbolic):
    """A watched value: `primal` is the value itself (a Tensor, or a tracer of an outer
    transformation); `source` is where it came from on the tape."""

    __slots__ = ("primal", "source", "trace")

    def __init__(self, primal, source, trace: "GradTrace"):
        self.primal, self.source, self.trace = primal, source, trace

    @property
    def _abstract(self):
        return type_of(self.primal)

    def __str__(self):
        return str(self.primal)

    __hash__ = object.__hash__


def _is_tensor(v) -> bool:
    # a plain Tensor (most values on PyNative's tape) without building its abstract type
    return v.__class__ is Tensor or isinstance(getattr(v, "_abstract", None), TensorType)


# inside `with ms._no_grad():` ops on differentiated values are not recorded: their results are
# constants to every gradient being taken (MindSpore's PyNative `_no_grad`)
NO_GRAD = contextvars.ContextVar("pycompile_no_grad", default=False)


class _no_grad(contextlib.ContextDecorator):
    """MindSpore's `ms._no_grad()`: a context manager (or decorator) inside which PyNative ops are
    not recorded for differentiation (their results count as constants), and taking a gradient
    raises RuntimeError, as in MindSpore. PyNative only."""

    def __init__(self):
        self._tokens = []

    def __enter__(self):
        self._tokens.append(NO_GRAD.set(True))
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        NO_GRAD.reset(self._tokens.pop())
        return False


class GradTrace(tracing.Tracer):
    """One differentiation: the tape of the ops applied to its watched values."""

    captures = True         # ops reading a watched Parameter reach this trace
    # ops._table.apply hands it each op before infer: `emit` applies the op to the primals, whose
    # call infers (or finds its plan) with the same types and errors; inferring the tracers' types
    # first as well cost ~20 us an op (LeNet-5's PyNative step: 21 ops)
    infers_itself = True

    def __init__(self):
        self.level = tracing.new_level()
        self.records: list = []
        self.weights: dict = {}      # id(Parameter) -> Leaf
        self.leaves: dict = {}       # id(Leaf) -> Leaf (the hooks of the tensors they hold)
        self.hooks: dict = {}        # (id(record), output index) -> {handle id: hook} (tensor_hooks.py)

    # ---- watching --------------------------------------------------------------------------------
    def watch(self, value, shadow=False):
        """`value` as a differentiated input: a GradTracer over a Leaf (non-tensors are returned
        as they are: they get no gradient). `shadow`: see Leaf."""
        if not _is_tensor(value):
            return value, None
        leaf = Leaf(value, shadow)
        self.leaves[id(leaf)] = leaf
        return GradTracer(value, (leaf, None), self), leaf

    def watch_weight(self, p: Parameter) -> Leaf:
        leaf = self.weights.get(id(p))
        if leaf is None:
            leaf = self.weights[id(p)] = Leaf(p)
            self.leaves[id(leaf)] = leaf
        return leaf

    # ---- recording -----------------------------------------------------------------------------
    def _unwrap(self, x):
        if isinstance(x, GradTracer) and x.trace is self:
            return x.primal, x.source
        if isinstance(x, Parameter) and id(x) in self.weights:
            return x, (self.weights[id(x)], None)
        return x, None

    def emit(self, op, inputs, attrs, out_type):
        if NO_GRAD.get():
            with tracing.below(self):
                return apply(op, [[self._unwrap(y)[0] for y in x] if op.variadic and k == len(inputs) - 1 and
                                  isinstance(x, (tuple, list)) else self._unwrap(x)[0] for k, x in enumerate(inputs)],
                             attrs)
        primals, sources, watched = [], [], False
        for k, x in enumerate(inputs):
            if op.variadic and k == len(inputs) - 1 and isinstance(x, (tuple, list)):
                pairs = [self._unwrap(y) for y in x]
                primals.append([p for p, _ in pairs])
                sources.append([s for _, s in pairs])
                watched = watched or any(s is not None for _, s in pairs)
            else:
                p, s = self._unwrap(x)
                primals.append(p)
                sources.append(s)
                watched = watched or s is not None
        with tracing.below(self):
            out = apply(op, primals, attrs)
        if not watched or op.grad is NONDIFF:
            return out
        real = any(_real(x) for x in sources)
        if op.grad is None:
            if not real:
                return out
            raise OpTypeError(f"For '{op.name}', there is no gradient rule: it cannot be differentiated")
        rec = _Record(op, primals, sources, attrs, out, real)
        self.records.append(rec)
        if real and op.eager_kernel and EAGER_KERNELS[0] is not None:
            # the kernels of its gradient start compiling now, not when the backward pass needs them
            EAGER_KERNELS[0].anticipate(op, primals, attrs, out, _needed(sources))
        if saved_hooks.USED[0]:         # (a list read, not a context lookup, on PyNative's hot path)
            hooks = saved_hooks.active()
            if hooks is not None:
                rec.pack(hooks)
        if isinstance(out, tuple):
            return tuple(GradTracer(o, (rec, i), self) if _is_tensor(o) else o for i, o in enumerate(out))
        return GradTracer(out, (rec, None), self) if _is_tensor(out) else out

    def call_cell(self, cell, args, kwargs):
        outer = tracing.outer_of(self)
        if outer is not None:
            return outer.call_cell(cell, args, kwargs)
        return tracing.run_cell(cell, args, kwargs)

    # ---- the backward pass ------------------------------------------------------------------------
    def backward(self, seeds: list) -> dict:
        """seeds: [(output value, cotangent)]. Returns {leaf: cotangent} of the leaves reached."""
        cts: dict = {}

        def add(source, c, like):
            key = (id(source[0]), source[1])
            c = fit(c, like)
            prev = cts.get(key)
            cts[key] = c if prev is None else F.add(prev, c)

        for value, sens in seeds:
            if isinstance(value, GradTracer) and value.trace is self:
                add(value.source, sens, value.primal)
        with tracing.below(self):
            for rec in reversed(self.records):
                outs = rec.out if isinstance(rec.out, tuple) else (rec.out,)
                keys = [(id(rec), i if isinstance(rec.out, tuple) else None) for i in range(len(outs))]
                gs = [cts.pop(key, None) for key in keys]
                if all(g is None for g in gs):
                    continue
                if self.hooks:          # Tensor.register_hook on these outputs: their whole gradient
                    gs = [_hooked(self.hooks.get(key), g) for key, g in zip(keys, gs)]
                gs = [g if g is not None else (F.zeros_like(o) if _is_tensor(o) else None) for g, o in zip(gs, outs)]
                g = tuple(gs) if isinstance(rec.out, tuple) else gs[0]
                out, inputs = rec.saved()
                token = NEEDED.set(_needed(rec.sources))     # a rule may skip the cotangents nobody reads
                try:
                    cin = rec.op.grad(g, out, *inputs, **rec.attrs)
                finally:
                    NEEDED.reset(token)
                for src, primal, c in zip(rec.sources, inputs, cin):
                    if isinstance(src, list):           # a variadic input: one cotangent per item
                        for s, p, cc in zip(src, primal, c or ()):
                            if _real(s) and cc is not None:
                                add(s, cc, p)
                    elif _real(src) and c is not None:
                        add(src, c, primal)
            for key, c in cts.items():          # the hooks the differentiated tensors hold
                leaf = self.leaves.get(key[0])
                fns = hooks_of(leaf.value) if leaf is not None else ()
                if fns:
                    cts[key] = run_hooks(fns, c)
        return {key[0]: c for key, c in cts.items()}


tensor_hooks.TAPE[:] = [GradTracer, Leaf]


def _hooked(table, g):
    return g if not table or g is None else run_hooks(list(table.values()), g)


def _real(source) -> bool:
    """Whether a watched value's source leads to a differentiated leaf."""
    if isinstance(source, list):
        return any(_real(s) for s in source)
    if source is None:
        return False
    where = source[0]
    return not where.shadow if isinstance(where, Leaf) else where.real


def _needed(sources) -> tuple:
    """Per input of a record: whether some differentiated value's cotangent flows through it."""
    return tuple(_real(s) for s in sources)


def _requires_grad(sources) -> tuple:
    """Per input of a record: whether it requires a gradient in MindSpore's sense (any watched value,
    shadow leaves included: what saved_tensors_hooks packs for)."""
    return tuple(any(x is not None for x in s) if isinstance(s, list) else s is not None for s in sources)


def fit(c, like):
    """Cotangent `c` reduced to the shape of `like` (summing broadcast axes) and cast to its dtype:
    what every rule would otherwise repeat. An int input gets an int gradient, as in MindSpore."""
    if c.__class__ is Tensor and (like.__class__ is Tensor or like.__class__ is Parameter):
        # PyNative's common case, decided on the arrays (a NumPy dtype is one pycompile dtype):
        # the cotangent fits already
        if c._data.shape == like._data.shape and c._data.dtype == like._data.dtype:
            return c
    lt = type_of(like)
    ct = type_of(c)
    if not isinstance(lt, TensorType):
        return c
    if isinstance(ct, ScalarType):
        c = F.fill(lt.dtype, lt.shape, c)
        ct = type_of(c)
    if ct.shape != lt.shape:
        lead = len(ct.shape) - len(lt.shape)
        axes = tuple(range(lead)) + tuple(lead + i for i, d in enumerate(lt.shape)
                                          if d == 1 and ct.shape[lead + i] != 1)
        if axes:
            c = apply(P.ReduceSum, [c], {"axis": axes, "keep_dims": False})
        c = F.reshape(c, lt.shape)
    if type_of(c).dtype is not lt.dtype:
        c = F.cast(c, lt.dtype)
    return c
