"""Gradient rules of the collectives (MindSpore's bprops): the adjoint of a sum across ranks is a
sum across ranks; AllGather and ReduceScatter-sum are each other's adjoints; Broadcast passes
the cotangent through, as MindSpore's does."""
from __future__ import annotations

from pycompile.ops import functional as F
from pycompile.ops import prims as P
from pycompile.ops._table import OpRuntimeError, apply
from pycompile.ops.grads import defgrad, nondiff

# the gradient reducer's non-blocking pair runs after the backward, on gradients: nothing
# differentiates through it (a graph that must, uses AllReduce)
nondiff(P.AllReduceStart, P.AllReduceWait)

_SUM, _MAX, _MIN, _PROD = 0, 1, 2, 3


def _allreduce_sum(g, group):
    return apply(P.AllReduce, [g], {"op": _SUM, "group": group})


@defgrad(P.AllReduce)
def _all_reduce(g, out, x, op=_SUM, group="hccl_world_group"):
    if op == _SUM:
        return (_allreduce_sum(g, group),)
    if op == _PROD:
        return (F.div(_allreduce_sum(F.mul(g, out), group), x),)
    dx = _allreduce_sum(g, group)
    return (F.mul(dx, F.cast(F.equal(x, out), dx.dtype)),)


@defgrad(P.AllGather)
def _all_gather(g, out, x, group="hccl_world_group"):
    return (apply(P.ReduceScatter, [g], {"op": _SUM, "group": group}),)


@defgrad(P.ReduceScatter)
def _reduce_scatter(g, out, x, op=_SUM, group="hccl_world_group"):
    if op != _SUM:
        raise OpRuntimeError("The reducescatter bprop only support ReduceOp.SUM until now.")
    return (apply(P.AllGather, [g], {"group": group}),)


@defgrad(P.Broadcast)
def _broadcast(g, out, x, root_rank=0, group="hccl_world_group"):
    return (g,)
