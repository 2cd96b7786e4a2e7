"""Collective communication ops: AllReduce, AllGather, ReduceScatter, Broadcast (MindSpore's).

Eager, they reduce NumPy buffers through mpi4py (pycompile.communication._world); compiled, the
renderer calls the runtime's collectives (pc_api.allreduce ..., csrc/comm.c), which call the same
MPI library, inside the native call of the graph. Every rank runs the same graph, and the
renderer's order is deterministic, so the ranks meet in their collectives in the same order.

They are EFFECT-kind ops without a memory effect: no fusion across them, never hoisted or
speculated (each call is a meeting of every rank of the group), but a result nobody reads may
be dropped (all ranks drop it alike).
"""
from __future__ import annotations

from pycompile.common.abstract import TensorType
from pycompile.ops._table import Kind, OpDef, OpRuntimeError, OpTypeError, OpValueError, defop, describe
from pycompile.ops.lowering import EffectCode

WORLD = "hccl_world_group"
REDUCE_OP_NAMES = ("sum", "max", "min", "prod")


def _world(op_name):
    from pycompile.communication import management
    try:
        return management.world(op_name)
    except RuntimeError as e:
        raise OpRuntimeError(str(e)) from None


def _group_size(op_name, group) -> int:
    w = _world(op_name)
    g = w.groups.get(group)
    if g is None:
        raise OpValueError(f"For '{op_name}', the group '{group}' does not exist: create it with create_group first")
    return g.size


def _tensor(op_name, t):
    if not isinstance(t, TensorType):
        raise OpTypeError(f"For '{op_name}', the input must be a Tensor, but got {describe(t)}")
    if t.dtype.name in ("complex64", "complex128"):
        raise OpTypeError(f"For '{op_name}', the dtype {t.dtype} is not supported")
    return t


def _allreduce_infer(types, op=0, group=WORLD):
    _group_size("AllReduce", group)
    return _tensor("AllReduce", types[0])


def _allreduce_eager(x, op=0, group=WORLD):
    return _world("AllReduce").allreduce(x, op, group)


def _allgather_infer(types, group=WORLD):
    n = _group_size("AllGather", group)
    t = _tensor("AllGather", types[0])
    if not t.shape:
        raise OpValueError("For 'AllGather', the input must have at least one dimension")
    return TensorType(t.dtype, (t.shape[0] * n,) + tuple(t.shape[1:]))


def _allgather_eager(x, group=WORLD):
    return _world("AllGather").allgather(x, group)


def _reduce_scatter_infer(types, op=0, group=WORLD):
    n = _group_size("ReduceScatter", group)
    t = _tensor("ReduceScatter", types[0])
    if not t.shape or t.shape[0] % n:
        raise OpValueError(f"For 'ReduceScatter', the first dimension of the input must be divisible by the "
                           f"group size {n}, but got shape {list(t.shape)}")
    return TensorType(t.dtype, (t.shape[0] // n,) + tuple(t.shape[1:]))


def _reduce_scatter_eager(x, op=0, group=WORLD):
    return _world("ReduceScatter").reduce_scatter(x, op, group)


def _broadcast_infer(types, root_rank=0, group=WORLD):
    n = _group_size("Broadcast", group)
    if not 0 <= root_rank < n:
        raise OpValueError(f"For 'Broadcast', 'root_rank' must be in [0, {n}), but got {root_rank}")
    return _tensor("Broadcast", types[0])


def _broadcast_eager(x, root_rank=0, group=WORLD):
    return _world("Broadcast").broadcast(x, root_rank, group)


def _collective(name, infer, eager, attrs, code):
    return defop(name, ("x",), attrs=attrs, infer=infer, eager=eager, kind=Kind.EFFECT,
                 lower=EffectCode(code), movable=False, speculatable=False,
                 doc=f"MindSpore's {name} over a communication group (MPI)")


AllReduce = _collective("AllReduce", _allreduce_infer, _allreduce_eager, {"op": 0, "group": WORLD}, "allreduce")
AllGather = _collective("AllGather", _allgather_infer, _allgather_eager, {"group": WORLD}, "allgather")
ReduceScatter = _collective("ReduceScatter", _reduce_scatter_infer, _reduce_scatter_eager, {"op": 0, "group": WORLD},
                            "reduce_scatter")
Broadcast = _collective("Broadcast", _broadcast_infer, _broadcast_eager, {"root_rank": 0, "group": WORLD},
                        "broadcast")



# Non-blocking all-reduce, for the DATA_PARALLEL gradient reduction inside a compiled step
# (nn.DistributedGradReducer): AllReduceStart begins the reduction of a bucket as soon as the
# backward has produced it, AllReduceWait completes it before the optimizer reads it, so the
# reduction runs while the rest of the backward computes. The start's result is the buffer MPI
# writes into (not readable until the wait); the wait's result is that buffer, and the wait also
# takes the start's source so the memory planner keeps both alive until then. Eagerly (PyNative)
# the start reduces at once and the wait passes its result through: the same sums either way.
def _start_eager(x, op=0, group=WORLD):
    return _world("AllReduceStart").allreduce(x, op, group)


def _start_infer(types, op=0, group=WORLD):
    _group_size("AllReduceStart", group)
    return _tensor("AllReduceStart", types[0])


AllReduceStart = defop("AllReduceStart", ("x",), attrs={"op": 0, "group": WORLD}, infer=_start_infer,
                       eager=_start_eager, kind=Kind.EFFECT, lower=EffectCode("allreduce_start"), movable=False,
                       speculatable=False, cse=False,
                       doc="start a non-blocking AllReduce (the gradient buckets of DATA_PARALLEL)")
AllReduceWait = defop("AllReduceWait", ("started", "x"), infer=lambda types: types[0],
                      eager=lambda started, x: started, kind=Kind.EFFECT,
                      lower=EffectCode("allreduce_wait", alias=True), movable=False, speculatable=False, cse=False,
                      doc="complete the AllReduceStart whose result is `started` (x: the start's source)")

# the ops this module declares (what `pycompile.ops.prims` re-exports)
__all__ = [_n for _n, _v in list(globals().items()) if isinstance(_v, OpDef)]
