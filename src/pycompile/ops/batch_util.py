"""What vmap's batch rules share (ops/batching.py, batch_rules_cnn.py, batch_rules_index.py).

A batched value is a pair (value, bdim): the whole batch, with the batch on axis `bdim` (None:
the value is the same for every example). Rules move the batch axis where an op can carry it
(in front, folded into an op's own batch or channel axis) instead of mapping example by
example; `loop` is the fallback that is right for every op and costs one op per example.
"""
from __future__ import annotations

from pycompile.common.abstract import ScalarType, TensorType, type_of
from pycompile.ops import functional as F
from pycompile.ops._table import apply


def ndim(v) -> int:
    t = type_of(v)
    return len(t.shape) if isinstance(t, TensorType) else 0


def shape_of(v) -> tuple:
    return type_of(v).shape


def permute(v, perm):
    """F.transpose(v, perm), as a reshape (no copy) when it moves only axes of length 1."""
    perm = tuple(perm)
    if perm == tuple(range(len(perm))):
        return v
    s = shape_of(v)
    if [p for p in perm if s[p] != 1] == [i for i in range(len(s)) if s[i] != 1]:
        return F.reshape(v, tuple(s[p] for p in perm))
    return F.transpose(v, perm)


def to_front(v, bdim):
    """The batched value with its batch axis first."""
    if bdim is None or bdim == 0:
        return v
    return move_axis(v, bdim, 0)


def move_axis(v, src: int, dst: int):
    """v with axis `src` moved to position `dst` (the others in order)."""
    order = [i for i in range(ndim(v)) if i != src]
    order.insert(dst, src)
    return permute(v, order)


def broadcast_batch(v, size):
    """An unbatched value repeated along a new leading batch axis."""
    t = type_of(v)
    if isinstance(t, ScalarType):
        v = F.cast(v, F.ScalarDefault[t.kind])
        t = type_of(v)
    return F.broadcast_to(F.expand_dims(v, 0), (size,) + t.shape)


def front(arg, size):
    """A (value, bdim) pair as a value with the batch axis first, repeating an unbatched one."""
    v, b = arg
    return broadcast_batch(v, size) if b is None else to_front(v, b)


def fold(v):
    """(B, N, ...) as (B * N, ...): the vmap axis merged into the op's own leading axis."""
    s = shape_of(v)
    return F.reshape(v, (s[0] * s[1],) + s[2:])


def unfold(v, size):
    """(B * N, ...) back to (B, N, ...)."""
    s = shape_of(v)
    return F.reshape(v, (size, s[0] // size) + s[1:])


def pad_examples(args, rank):
    """Batched operands with the batch axis first and example rank raised to `rank`."""
    vals = []
    for v, b in args:
        if b is None:
            vals.append(v)
            continue
        v = to_front(v, b)
        example_rank = ndim(v) - 1
        if example_rank < rank:
            shape = type_of(v).shape
            v = F.reshape(v, (shape[0],) + (1,) * (rank - example_rank) + shape[1:])
        vals.append(v)
    return vals


def example_rank(args) -> int:
    ranks = [(ndim(v) - (1 if b is not None else 0)) for v, b in args]
    return max(ranks) if ranks else 0


def loop(op, args, attrs, size):
    """Correct for every op: apply it to each example and stack the results."""
    outs = []
    for i in range(size):
        ex = []
        for a in args:
            if isinstance(a, list):
                ex.append(tuple(F.getitem(v, _take(b, i)) if b is not None else v for v, b in a))
            else:
                v, b = a
                ex.append(F.getitem(v, _take(b, i)) if b is not None else v)
        outs.append(apply(op, ex, attrs))
    if isinstance(outs[0], tuple):
        return tuple(F.stack([o[k] for o in outs]) for k in range(len(outs[0]))), 0
    return F.stack(outs), 0


def _take(bdim, i):
    return tuple([slice(None)] * bdim + [i])
