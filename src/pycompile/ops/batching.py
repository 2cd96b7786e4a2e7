"""vmap: automatic batching by a batching interpreter (the JAX design).

`vmap(fn, in_axes, out_axes)(*args)` calls `fn` with `BatchTracer`s standing for one example
of each batched argument. Every op reaches `_table.apply`, which hands it to the tracer; the
tracer applies the op's batch rule (named by the op table's `batch` slot) to the batched
values. Those values are Tensors in PyNative mode and graph tracers inside `@jit`, so one
implementation serves both. Python control flow that depends on a batched value is an error,
as in JAX; `fn` runs as plain Python on tracers.

Rules (name -> function(op, args, attrs, size) -> (value, batch_dim)):
  elementwise  batched operands get the batch axis in front, padded to the example rank
  reduce / softmax / argmax / transpose / reshape / slice / concat / matmul / broadcast_to /
               depend    axes shifted past the batch axis
  conv / conv_input / conv_filter / pool / pool_grad / batchnorm_stats   the batch folded into
               the op's images or (grouped) channels (ops/batch_rules_cnn.py)
  gather / gather_d / gather_nd / scatter_nd / gather_grad / slice_grad / leading / layernorm
               batch first, batched index tuples given the example's number (batch_rules_index.py)
  loop         any other op: slice each example, apply the op, stack the results (ops/batch_util.py);
               what is left on it: effects, random draws, collectives, graph-only ops
               (tools/vmap_report.py lists them)
"""
from __future__ import annotations

from pycompile.common.abstract import Symbolic, TensorType, TupleType, type_of
from pycompile.common.tensor import TensorMethods
from pycompile.ops import batch_rules_cnn, batch_rules_index, tracing
from pycompile.ops import functional as F
from pycompile.ops._table import OPS, OpValueError, apply, norm_axes, norm_axis
from pycompile.ops.batch_util import (broadcast_batch, example_rank, loop, move_axis, ndim, pad_examples,
                                      to_front)
from pycompile.ops.graph_call import JIT, concrete, graph_target
from pycompile.ops.tracing import Tracer


class BatchTrace(Tracer):
    """One vmap: the tracer of its BatchTracers, active while the mapped function runs."""

    def __init__(self, size: int):
        self.size = size
        self.level = tracing.new_level()

    def emit(self, op, inputs, attrs, out_type):
        args = []
        for x in inputs:
            if op.variadic and isinstance(x, (tuple, list)):
                args.append([self._unpack(y) for y in x])
            else:
                args.append(self._unpack(x))
        rule = RULES.get(op.batch, loop)
        val, bdim = rule(op, args, attrs, self.size)
        return self._wrap(val, bdim)

    def call_cell(self, cell, args, kwargs):
        """A Cell called with batched values: inside a graph being built, the frontend walks its
        construct (ops on the batched values still come here); eagerly, construct just runs."""
        outer = tracing.outer_of(self)
        if outer is not None:
            return outer.call_cell(cell, args, kwargs)
        return tracing.run_cell(cell, args, kwargs)

    def _unpack(self, x):
        if isinstance(x, BatchTracer) and x.trace is self:
            return (x.val, x.bdim)
        return (x, None)

    def _wrap(self, val, bdim):
        if isinstance(val, tuple):
            return tuple(self._wrap(v, bdim) for v in val)
        if bdim is None:
            return val
        return BatchTracer(val, bdim, self)


class BatchTracer(tracing.OnTrace, TensorMethods, Symbolic):
    """One example of a batched value: `val` holds the whole batch with the batch on `bdim`."""

    __slots__ = ("val", "bdim", "trace")

    def __init__(self, val, bdim: int, trace: BatchTrace):
        self.val, self.bdim, self.trace = val, bdim, trace

    @property
    def _abstract(self):
        t = type_of(self.val)
        shape = t.shape[:self.bdim] + t.shape[self.bdim + 1:]
        return TensorType(t.dtype, shape)

    def __bool__(self):
        raise TypeError("vmap: Python control flow cannot depend on a batched value; use ops.select")

    def __repr__(self):
        return f"<batched {self._abstract} over {self.trace.size}>"

    __hash__ = object.__hash__


# ---- rules -----------------------------------------------------------------------------------------

def _elementwise(op, args, attrs, size):
    return apply(op, pad_examples(args, example_rank(args)), attrs), 0


def _reduce(op, args, attrs, size):
    (v, b), = args
    v = to_front(v, b)
    rank = ndim(v) - 1
    if rank == 0:                      # a 0-d example: map it one by one
        return loop(op, args, attrs, size)
    axes = norm_axes(op.name, attrs.get("axis"), rank)
    return apply(op, [v], dict(attrs, axis=tuple(a + 1 for a in axes))), 0


def _argmax(op, args, attrs, size):
    (v, b), = args
    v = to_front(v, b)
    axis = attrs.get("axis")
    if axis is None:
        v = F.reshape(v, (size, -1))
        return apply(op, [v], dict(attrs, axis=1)), 0
    if ndim(v) == 1:                   # 0-d examples: the op's own rule for its axis (-1 / 0)
        return loop(op, args, attrs, size)
    return apply(op, [v], dict(attrs, axis=norm_axis(op.name, axis, ndim(v) - 1) + 1)), 0


def _softmax(op, args, attrs, size):
    (v, b), = args
    v = to_front(v, b)
    rank = ndim(v) - 1
    axis = attrs.get("axis", -1)
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    shifted = tuple(norm_axis(op.name, a, rank) + 1 for a in axes)
    return apply(op, [v], dict(attrs, axis=shifted if isinstance(axis, (tuple, list)) else shifted[0])), 0


def _transpose(op, args, attrs, size):
    (v, b), = args
    v = to_front(v, b)
    rank = ndim(v) - 1
    perm = attrs.get("perm")
    perm = tuple(reversed(range(rank))) if perm is None else tuple(int(p) % rank for p in perm)
    return apply(op, [v], dict(attrs, perm=(0,) + tuple(p + 1 for p in perm))), 0


def _reshape(op, args, attrs, size):
    (v, b), = args
    v = to_front(v, b)
    from pycompile.ops.defs.array import resolve_shape
    example = type_of(v).shape[1:]
    shape = resolve_shape("Reshape", example, attrs["shape"])
    return apply(op, [v], dict(attrs, shape=(size,) + shape)), 0


def _slice(op, args, attrs, size):
    (v, b), = args
    v = to_front(v, b)
    return apply(op, [v], dict(attrs, begin=(0,) + tuple(attrs["begin"]), end=(size,) + tuple(attrs["end"]),
                               strides=(1,) + tuple(attrs["strides"]))), 0


def _broadcast_to(op, args, attrs, size):
    (v, b), = args
    v = to_front(v, b)
    shape = tuple(attrs["shape"])
    example = type_of(v).shape[1:]
    v = F.reshape(v, (size,) + (1,) * (len(shape) - len(example)) + example)
    return apply(op, [v], dict(attrs, shape=(size,) + shape)), 0


def _concat(op, args, attrs, size):
    (items,) = args
    vals = [to_front(v, b) if b is not None else broadcast_batch(v, size) for v, b in items]
    rank = ndim(vals[0]) - 1
    extra = 1 if op.name == "Stack" else 0
    axis = norm_axis(op.name, attrs.get("axis", 0), rank, extra=extra) + 1
    return apply(op, [tuple(vals)], dict(attrs, axis=axis)), 0


def _matmul(op, args, attrs, size):
    # a batch of matrix products is a BatchMatMul; unbatched operands broadcast over the batch
    (xv, bx), (yv, by) = args
    if by is None and bx is not None and ndim(yv) == 2 and not attrs.get("transpose_a", False):
        # only the left side is batched and the right is one matrix: one product of all the
        # batch's rows (a GEMM), not a batch of small ones (jacrev's rows, jacfwd's tangents)
        x = to_front(xv, bx)
        shape = type_of(x).shape
        flat = apply(OPS["MatMul"], [F.reshape(x, (-1, shape[-1])), yv], attrs)
        return F.reshape(flat, shape[:-1] + (type_of(flat).shape[-1],)), 0
    x, y = pad_examples(args, example_rank(args))
    return apply(OPS["BatchMatMul"], [x, y], attrs), 0


def _depend(op, args, attrs, size):
    (v, b) = args[0]
    rest = [a[0] for a in args[1:]]
    return apply(op, [v, *rest], attrs), b


def _assign(op, args, attrs, size):
    """A mapped Parameter (the whole batch is the Parameter) takes the whole batch of values: an
    unbatched value is repeated, a batched one moved to the Parameter's batch axis."""
    (t, bt), (v, bv) = args
    if bt is None:
        if bv is not None:
            raise OpValueError("vmap: a batched value cannot be assigned to a Parameter that is not mapped "
                               "(its in_axes entry is None)")
        return apply(op, [t, v], attrs), None
    if isinstance(type_of(v), TensorType):
        v = move_axis(v, bv, bt) if bv is not None else F.broadcast_to(v, type_of(t).shape)
    return apply(op, [t, v], attrs), bt


def _multinomial(op, args, attrs, size):
    """A batch of probability vectors (or matrices) is one Multinomial of their rows: row r,
    sample j reads word r * num_samples + j of one draw, as the unbatched op on the stacked rows
    does (MindSpore's vmap of Multinomial equals the batched call)."""
    (state, bs), (p, bp) = args
    if bs is not None or bp is None:
        return loop(op, args, attrs, size)
    p = to_front(p, bp)
    example = type_of(p).shape[1:]
    out = apply(op, [state, F.reshape(p, (-1, example[-1]))], attrs)
    return F.reshape(out, (size,) + example[:-1] + (attrs["num_samples"],)), 0


def _parts(op, args, attrs, size):
    """A decomposed row (ops/defs/norm.py's batch-norm rows) batched as its parts, each by its own
    rule: its decomposition mapped over the batch."""
    vals, axes = [v for v, _ in args], tuple(b for _, b in args)
    return vmap(lambda *xs: op.decompose(*xs, **attrs), in_axes=axes, out_axes=0)(*vals), 0


RULES = {
    "parts": _parts,
    "assign": _assign, "multinomial": _multinomial, "elementwise": _elementwise, "reduce": _reduce, "argmax": _argmax, "softmax": _softmax,
    "transpose": _transpose, "reshape": _reshape, "slice": _slice, "broadcast_to": _broadcast_to,
    "concat": _concat, "matmul": _matmul, "depend": _depend, "loop": loop,
    **batch_rules_cnn.RULES, **batch_rules_index.RULES,
}


# ---- the transform ---------------------------------------------------------------------------------

def _flat_axes(in_axes, args):
    if isinstance(in_axes, int) or in_axes is None:
        return [in_axes] * len(args)
    if isinstance(in_axes, (tuple, list)):
        if len(in_axes) != len(args):
            raise ValueError(f"vmap: in_axes has {len(in_axes)} entries but the function got {len(args)} arguments")
        return list(in_axes)
    raise TypeError(f"vmap: in_axes must be an int, None, or a tuple of them, got {in_axes!r}")


def _batch_args(args, axes, trace):
    out = []
    for a, ax in zip(args, axes):
        if ax is None:
            out.append(a)
        elif isinstance(a, (tuple, list)):
            sub = ax if isinstance(ax, (tuple, list)) else [ax] * len(a)
            out.append(type(a)(_batch_args(a, sub, trace)))
        else:
            nd = ndim(a)
            if not -nd <= ax < max(nd, 1) or nd == 0:
                raise OpValueError(f"vmap: in_axes {ax} is out of range for an argument of rank {nd}")
            out.append(BatchTracer(a, ax % nd, trace))
    return out


def _batch_size(args, axes):
    sizes = set()
    for a, ax in zip(args, axes):
        if ax is None:
            continue
        if isinstance(a, (tuple, list)):
            sizes |= _batch_size(a, ax if isinstance(ax, (tuple, list)) else [ax] * len(a))
        else:
            t = type_of(a)
            if not isinstance(t, TensorType) or not t.shape:
                raise OpValueError("vmap: a batched argument must be a tensor with at least one dimension")
            sizes.add(t.shape[ax % len(t.shape)])
    return sizes


def _unbatch(out, trace, out_axes):
    if isinstance(out, (tuple, list)):
        axes = out_axes if isinstance(out_axes, (tuple, list)) else [out_axes] * len(out)
        return type(out)(_unbatch(o, trace, a) for o, a in zip(out, axes))
    if isinstance(out, BatchTracer) and out.trace is trace:
        v, b = out.val, out.bdim
    else:
        v, b = broadcast_batch(out, trace.size), 0
    # one move from where the batch is to where it goes (None: in front, as 0)
    return move_axis(v, b, 0 if out_axes is None else out_axes % ndim(v))


def vmap(fn, in_axes=0, out_axes=0):
    """Vectorize `fn` over the `in_axes` axis of its arguments (MindSpore's / JAX's vmap).

    Called from Python on concrete values, the vmap of graph code - a `@jit` function, or a Cell
    while the context is GRAPH_MODE - is compiled, as MindSpore compiles it (one call, its result
    the batched graph's, bit for bit that of the same graph run per example where the kernels keep
    each example's order); anything else is vectorized as it runs (PyNative)."""
    def batched(*args):
        axes = _flat_axes(in_axes, args)
        sizes = _batch_size(args, axes)
        if len(sizes) != 1:
            raise OpValueError(f"vmap: batched arguments must have one batch size, got {sorted(sizes) or 'none'}")
        trace = BatchTrace(sizes.pop())
        with tracing.tracing(trace):
            out = fn(*_batch_args(list(args), axes, trace))
        return _unbatch(out, trace, out_axes)
    name = f"vmap({getattr(fn, '__name__', type(fn).__name__)})"
    batched.__name__ = batched.__qualname__ = name
    compiled = []

    def call(*args):
        if not (graph_target(fn) and concrete(args, {})):
            return batched(*args)
        if not compiled:
            batched._pycompile_origin = getattr(fn, "fn", None) or getattr(type(fn), "construct", None)
            compiled.append(JIT[0](batched))
        return compiled[0](*args)
    call.__name__ = call.__qualname__ = name
    call.__wrapped_vmap__ = fn
    return call


__all__ = ["vmap", "BatchTracer", "RULES", "TupleType"]
