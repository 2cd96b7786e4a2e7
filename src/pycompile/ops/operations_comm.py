"""Class-form collective ops as MindSpore spells them: `ops.AllReduce(ReduceOp.SUM, group)`,
`ops.AllGather(group)`, `ops.ReduceScatter(op, group)`, `ops.Broadcast(root_rank, group)`, and
`ops.ReduceOp`. The group defaults to the world (MindSpore's GlobalComm.WORLD_COMM_GROUP); the
rows are in ops/defs/comm.py, their gradients in ops/grads/comm.py.
"""
from __future__ import annotations

from pycompile.ops import prims as P
from pycompile.ops._table import OpTypeError, OpValueError, apply
from pycompile.ops.defs.comm import REDUCE_OP_NAMES, WORLD
from pycompile.ops.primitive import Primitive


class ReduceOp:
    """How AllReduce / ReduceScatter combine the ranks' values (MindSpore's names and values)."""
    SUM = "sum"
    MAX = "max"
    MIN = "min"
    PROD = "prod"


def _op_code(prim: str, op) -> int:
    if not isinstance(op, str):
        raise OpTypeError(f"For '{prim}', the 'op' must be a str, but got {type(op).__name__}")
    if op not in REDUCE_OP_NAMES:
        raise OpValueError(f"For '{prim}', the 'op' must be one of ReduceOp.SUM, MAX, MIN, PROD, but got {op!r}")
    return REDUCE_OP_NAMES.index(op)


def _group(prim: str, group) -> str:
    if group is None:
        return WORLD
    if not isinstance(group, str):
        raise OpTypeError(f"For '{prim}', the 'group' must be a str, but got {type(group).__name__}")
    return group


class AllReduce(Primitive):
    """Every rank of `group` gets the reduction (`op`) of all ranks' inputs."""

    def __init__(self, op=ReduceOp.SUM, group=WORLD):
        super().__init__()
        self.op = op
        self.group = _group("AllReduce", group)
        self._code = _op_code("AllReduce", op)
        self.attrs.update(op=op, group=self.group, fusion=0, index=0, no_eliminate=True)

    def __call__(self, x):
        return apply(P.AllReduce, [x], {"op": self._code, "group": self.group})


class AllGather(Primitive):
    """The ranks' inputs concatenated along axis 0, in rank order, on every rank."""

    def __init__(self, group=WORLD):
        super().__init__()
        self.group = _group("AllGather", group)
        self.attrs.update(group=self.group, fusion=0, mean_flag=False, no_eliminate=True)

    def __call__(self, x):
        return apply(P.AllGather, [x], {"group": self.group})


class ReduceScatter(Primitive):
    """The reduction of the ranks' inputs, split along axis 0: rank k gets the k-th block."""

    def __init__(self, op=ReduceOp.SUM, group=WORLD):
        super().__init__()
        self.op = op
        self.group = _group("ReduceScatter", group)
        self._code = _op_code("ReduceScatter", op)
        self.attrs.update(op=op, group=self.group, fusion=0, no_eliminate=True)

    def __call__(self, x):
        return apply(P.ReduceScatter, [x], {"op": self._code, "group": self.group})


class Broadcast(Primitive):
    """Every rank gets `root_rank`'s tensors. Takes and returns a tuple of tensors, as MindSpore's."""

    def __init__(self, root_rank, group=WORLD):
        super().__init__()
        if not isinstance(root_rank, int) or isinstance(root_rank, bool):
            raise OpTypeError(f"For 'Broadcast', the 'root_rank' must be an int, but got {type(root_rank).__name__}")
        self.root_rank = root_rank
        self.group = _group("Broadcast", group)
        self.attrs.update(root_rank=root_rank, group=self.group, no_eliminate=True)

    def __call__(self, input_x):
        if not isinstance(input_x, (tuple, list)):
            raise OpTypeError("For 'Broadcast', the input must be a tuple of Tensors, "
                              f"but got {type(input_x).__name__}")
        return tuple(apply(P.Broadcast, [x], {"root_rank": self.root_rank, "group": self.group})
                     for x in input_x)


class AllReduceStart(Primitive):
    """Start a non-blocking sum over `group`; its result is readable only through AllReduceWait
    (nn.DistributedGradReducer's buckets; not a MindSpore class, so not in __all__)."""

    def __init__(self, group=WORLD):
        super().__init__()
        self.group = _group("AllReduceStart", group)

    def __call__(self, x):
        return apply(P.AllReduceStart, [x], {"op": 0, "group": self.group})


class AllReduceWait(Primitive):
    """Complete the AllReduceStart whose result is `started`; x: that start's input."""

    def __call__(self, started, x):
        return apply(P.AllReduceWait, [started, x], {})


__all__ = ["ReduceOp", "AllReduce", "AllGather", "ReduceScatter", "Broadcast"]
