"""The rest of MindSpore 2.10's communication Primitives: AlltoAll, AllGatherV, ReduceScatterV,
CollectiveGather, Reduce, CollectiveScatter (compositions of the runtime's collectives, so they run in
PyNative and in graph code alike), and Barrier, Send, Receive, BatchISendIRecv, NeighborExchange,
NeighborExchangeV2, AlltoAllV, AlltoAllVC (PyNative only: point-to-point messages and
data-dependent sizes, which the compiled runtime has no call for; in graph code they raise the
error the communication functions raise there).

How they run: on pycompile.communication's world, through the same paths as the functions of
comm_func.py / comm_p2p.py (no second MPI path). AlltoAll = AllGather of every rank's input, each
rank keeping the blocks meant for it; AllGatherV = AllGather of the inputs padded to the largest;
ReduceScatterV = AllReduce, each rank keeping its part; CollectiveGather = AllGather and Reduce =
AllReduce (the other ranks return a [1] tensor, as MindSpore's); CollectiveScatter = Broadcast of
the source's tensor, each rank keeping its block. The ranks named by CollectiveGather /
CollectiveScatter / Send / Receive / BatchISendIRecv / NeighborExchange(V2) are global ranks (as
MindSpore documents), Reduce's dest_rank a rank of its group ("local rank" in its documentation);
AlltoAll's blocks go in group-rank order.

Gradients: the compositions differentiate through the collectives' rules (ops/grads/comm.py), which
give MindSpore's bprops: AlltoAll's is AlltoAll with split / concat swapped, AllGatherV's
ReduceScatterV-sum, ReduceScatterV-sum's AllGatherV (tests/distributed/commprim_worker.py).

The constructors check what MindSpore 2.10's check (the same exception classes); before init()
a group has one rank, as in MindSpore (get_group_size() is 1 there), so e.g. AlltoAll(2, 0, 0)
raises the wheel's ValueError on its first call. Every call needs init() (RuntimeError otherwise).
"""
from __future__ import annotations

import numpy as np

from pycompile.common.abstract import Symbolic
from pycompile.common.tensor import Tensor
from pycompile.ops import functional as F
from pycompile.ops import prims as P
from pycompile.ops._table import apply
from pycompile.ops.defs.comm import REDUCE_OP_NAMES, WORLD
from pycompile.ops.primitive import Primitive


# ---- arguments ------------------------------------------------------------------------------------
def _type_name(v) -> str:
    return type(v).__name__


def _str_group(prim, group):
    if not isinstance(group, str):
        raise TypeError(f"For '{prim}', the type of 'group' should be 'str', but got type '{_type_name(group)}'.")
    return group


def _size_group(prim, group):
    """Groups checked as MindSpore's get_group_size() checks them (None: the world)."""
    if group is None:
        return WORLD
    if not isinstance(group, str):
        raise TypeError(f"For 'get_group_size', the argument 'group' must be type of string, but got 'group' "
                        f"type : {type(group)}.")
    return group


def _int_arg(prim, name, v):
    if not isinstance(v, int) or isinstance(v, bool):
        raise TypeError(f"For '{prim}', the type of '{name}' should be 'int', but got type '{_type_name(v)}'.")
    return v


def _seq_arg(prim, name, v):
    if not isinstance(v, (tuple, list)):
        raise TypeError(f"For '{prim}', the type of '{name}' should be one of '['tuple', 'list']', but got type "
                        f"'{_type_name(v)}'.")
    return v


def _rank_size(prim, group) -> int:
    """The group's size: 1 before init() (MindSpore's get_group_size() there)."""
    from pycompile.communication import management
    if not management.is_initialized():
        return 1
    return management.world(prim).comm_of(prim, group).size


def _world_group(prim, group):
    from pycompile.communication import management
    w = management.world(prim)
    return w, w.comm_of(prim, group)


def _graph_error(prim):
    return RuntimeError(f"For {prim}, only PyNative mode is supported (as for MindSpore's communication functions):"
                        f" its point-to-point messages and data-dependent sizes have no compiled form; call it "
                        f"outside jit / construct, or use ops.AllReduce, ops.AllGather, ops.ReduceScatter, "
                        f"ops.Broadcast, ops.AlltoAll, ops.AllGatherV, ops.ReduceScatterV in graph code")


def _eager_tensor(prim, x, what="input"):
    if isinstance(x, Symbolic):
        raise _graph_error(prim)
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{prim}', the {what} must be a Tensor, but got {_type_name(x)}")
    return x


def _in_graph() -> bool:
    from pycompile.ops import tracing
    return bool(tracing.active())


def _member(prim, g, rank, what) -> int:
    """The group rank of the global rank `rank`."""
    if rank not in g.world_ranks:
        raise ValueError(f"For '{prim}', the {what} {rank} (a global rank) is not a member of the group '{g.name}' "
                         f"(its ranks: {list(g.world_ranks)})")
    return g.world_ranks.index(rank)


def _sizes(prim, v, n, what):
    """A list of ints from a tuple / list / Tensor (a Tensor only in PyNative: it sets the shape)."""
    if isinstance(v, Symbolic):
        raise RuntimeError(f"For '{prim}', '{what}' must be a constant (tuple / list) in graph code: it sets the "
                           f"output's shape")
    if isinstance(v, Tensor):
        v = v.asnumpy().reshape(-1).tolist()
    if not isinstance(v, (tuple, list)) or any(isinstance(s, bool) or not isinstance(s, (int, np.integer))
                                               for s in v):
        raise TypeError(f"For '{prim}', '{what}' must be a tuple, list or Tensor of ints, but got {v!r}")
    v = [int(s) for s in v]
    if n is not None and len(v) != n:
        raise ValueError(f"For '{prim}', '{what}' must have one entry per rank of the group ({n}), but got {len(v)}")
    if any(s < 0 for s in v):
        raise ValueError(f"For '{prim}', '{what}' must not be negative, but got {v}")
    return v


def _one_dim(prim, x):
    if len(x.shape) != 1:
        raise ValueError(f"For '{prim}', the input must be a one-dimensional (flattened) tensor, but got shape "
                         f"{list(x.shape)}")


def _empty_like(x, dep):
    """MindSpore's "empty result": a shape-() tensor whose value means nothing; it depends on `dep`
    so that a compiled graph keeps the collective on every rank alike."""
    return F.depend(F.zeros((), x.dtype), dep)


def _np_dtype(prim, dtype):
    from pycompile.common.dtype import dtype_to_nptype
    return dtype_to_nptype(dtype)


# ---- collectives that compile: compositions of AllGather / AllReduce / Broadcast ----------------------
class AlltoAll(Primitive):
    """Each rank splits its input into split_count blocks along split_dim, sends block k to group rank
    k, and concatenates the blocks it receives (in rank order) along concat_dim."""

    def __init__(self, split_count, split_dim, concat_dim, group=WORLD):
        super().__init__()
        _str_group("AlltoAll", group)
        for name, v in (("split_count", split_count), ("split_dim", split_dim), ("concat_dim", concat_dim)):
            _int_arg("AlltoAll", name, v)
        self.split_count, self.split_dim, self.concat_dim, self.group = split_count, split_dim, concat_dim, group
        self.rank_size = _rank_size("AlltoAll", group)
        self.attrs.update(split_count=split_count, split_dim=split_dim, concat_dim=concat_dim, group=group,
                          no_eliminate=True, rank_size=self.rank_size)

    def __call__(self, x):
        n = _rank_size("AlltoAll", self.group)
        if self.split_count != n:
            raise ValueError(f"For 'AlltoAll, the 'split_count' must be equal to 'rank_size', but got 'split_count': "
                             f"{self.split_count}, 'rank_size': {n}")
        shape = tuple(x.shape)
        nd = len(shape)
        for what, d in (("split", self.split_dim), ("concat", self.concat_dim)):
            if not -nd <= d < nd:
                raise IndexError(f"Invalid {what} dim {d} is greater than shape size {nd}")
        sd, cd = self.split_dim % nd, self.concat_dim % nd
        if shape[sd] % n:
            raise ValueError(f"For 'AlltoAll', the dimension {sd} of the input ({shape[sd]}) must be divisible by "
                             f"'split_count' {n}")
        w, g = _world_group("AlltoAll", self.group)
        me = g.world_ranks.index(w.rank)
        full = F.reshape(apply(P.AllGather, [x], {"group": self.group}), (n,) + shape)
        blk = shape[sd] // n
        mine = (slice(None),) * sd + (slice(me * blk, (me + 1) * blk),)
        return F.concat([full[(k,) + mine] for k in range(n)], cd)


class AllGatherV(Primitive):
    """The ranks' one-dimensional inputs (rank k's of output_split_sizes[k] elements) concatenated in
    rank order, on every rank."""

    def __init__(self, group=WORLD):
        super().__init__()
        self.group = _str_group("AllGatherV", group)
        self.rank_size = _rank_size("AllGatherV", group)
        self.attrs.update(rank_size=self.rank_size, group=group, mean_flag=False)

    def __call__(self, input_x, output_split_sizes):
        _one_dim("AllGatherV", input_x)
        w, g = _world_group("AllGatherV", self.group)
        sizes = _sizes("AllGatherV", output_split_sizes, g.size, "output_split_sizes")
        me = g.world_ranks.index(w.rank)
        if input_x.shape[0] != sizes[me]:
            raise ValueError(f"For 'AllGatherV', the input has {input_x.shape[0]} elements but output_split_sizes"
                             f"[{me}] (this rank's) is {sizes[me]}")
        top = max(sizes)
        if top == 0:
            return F.zeros((), input_x.dtype)
        padded = input_x if sizes[me] == top else F.concat([input_x, F.zeros((top - sizes[me],), input_x.dtype)])
        rows = apply(P.AllGather, [padded], {"group": self.group})
        return F.concat([rows[k * top:k * top + s] for k, s in enumerate(sizes) if s])


class ReduceScatterV(Primitive):
    """The reduction (sum, max, min) of the ranks' one-dimensional inputs, split by input_split_sizes:
    group rank k gets the k-th part."""

    def __init__(self, op="sum", group=WORLD):
        super().__init__()
        if not isinstance(op, str):
            raise TypeError(f"For 'ReduceScatterV', the type of 'op' should be 'str', but got type "
                            f"'{_type_name(op)}'.")
        self.op = op
        self.group = _str_group("ReduceScatterV", group)
        self.rank_size = _rank_size("ReduceScatterV", group)
        self.attrs.update(op=op, rank_size=self.rank_size, group=group)

    def __call__(self, input_x, input_split_sizes):
        if self.op not in ("sum", "max", "min"):
            raise ValueError(f"For 'ReduceScatterV', 'op' must be one of ReduceOp.SUM, MAX, MIN (PROD is not "
                             f"supported, as MindSpore documents), but got {self.op!r}")
        _one_dim("ReduceScatterV", input_x)
        w, g = _world_group("ReduceScatterV", self.group)
        sizes = _sizes("ReduceScatterV", input_split_sizes, g.size, "input_split_sizes")
        if sum(sizes) != input_x.shape[0]:
            raise ValueError(f"For 'ReduceScatterV', input_split_sizes {sizes} must sum to the input's length "
                             f"{input_x.shape[0]}")
        me = g.world_ranks.index(w.rank)
        total = apply(P.AllReduce, [input_x], {"op": REDUCE_OP_NAMES.index(self.op), "group": self.group})
        start = sum(sizes[:me])
        if sizes[me] == 0:
            return _empty_like(input_x, total)
        return total[start:start + sizes[me]]


class CollectiveGather(Primitive):
    """On the global rank dest_rank: the ranks' inputs concatenated along dimension 0; the other ranks
    get a [1] tensor (no meaning, as MindSpore's)."""

    def __init__(self, dest_rank, group=WORLD):
        super().__init__()
        self.group = _str_group("CollectiveGather", group)
        self.dest_rank = dest_rank
        self.rank_size = _rank_size("CollectiveGather", group)
        self.attrs.update(rank_size=self.rank_size, group=group, dest_rank=dest_rank)

    def __call__(self, input_x):
        w, g = _world_group("CollectiveGather", self.group)
        _member("CollectiveGather", g, _int_arg("CollectiveGather", "dest_rank", self.dest_rank), "dest_rank")
        out = apply(P.AllGather, [input_x], {"group": self.group})
        if w.rank == self.dest_rank:
            return out
        return F.depend(F.zeros((1,), input_x.dtype), out)


class Reduce(Primitive):
    """The ranks' inputs reduced (sum, max, min, prod) on the group's rank dest_rank (a rank of the group,
    as MindSpore documents: "local rank"); the other ranks get a [1] tensor (no meaning, as MindSpore's)."""

    def __init__(self, dest_rank, op="sum", group=WORLD):
        super().__init__()
        if not isinstance(op, str):
            raise TypeError(f"For 'Reduce', the type of 'op' should be 'str', but got type '{_type_name(op)}'.")
        self.group = _str_group("Reduce", group)
        self.dest_rank, self.op = dest_rank, op
        self.attrs.update(dest_rank=dest_rank, op=op, group=group)

    def __call__(self, input_x):
        if self.op not in REDUCE_OP_NAMES:
            raise ValueError(f"For 'Reduce', 'op' must be one of {list(REDUCE_OP_NAMES)}, but got {self.op!r}")
        w, g = _world_group("Reduce", self.group)
        dest = _int_arg("Reduce", "dest_rank", self.dest_rank)
        if not 0 <= dest < g.size:
            raise ValueError(f"For 'Reduce', 'dest_rank' {dest} must be a rank of the group '{g.name}' (0 to "
                             f"{g.size - 1})")
        out = apply(P.AllReduce, [input_x], {"op": REDUCE_OP_NAMES.index(self.op), "group": self.group})
        if g.world_ranks.index(w.rank) == dest:
            return out
        return F.depend(F.zeros((1,), input_x.dtype), out)


class CollectiveScatter(Primitive):
    """The global rank src_rank's input split evenly along dimension 0: group rank k gets block k
    (every rank passes a tensor of that shape)."""

    def __init__(self, src_rank=0, group=WORLD):
        super().__init__()
        self.group = _str_group("CollectiveScatter", group)
        self.src_rank = src_rank
        self.rank_size = _rank_size("CollectiveScatter", group)
        self.attrs.update(src_rank=src_rank, rank_size=self.rank_size, group=group)

    def __call__(self, input_x):
        w, g = _world_group("CollectiveScatter", self.group)
        root = _member("CollectiveScatter", g, _int_arg("CollectiveScatter", "src_rank", self.src_rank),
                       "src_rank")
        shape = tuple(input_x.shape)
        if not shape or shape[0] % g.size:
            raise ValueError(f"For 'CollectiveScatter', the input's dimension 0 must be divisible by the group size "
                             f"{g.size}, but got shape {list(shape)}")
        full = apply(P.Broadcast, [input_x], {"root_rank": root, "group": self.group})
        blk = shape[0] // g.size
        me = g.world_ranks.index(w.rank)
        return full[me * blk:(me + 1) * blk]


# ---- PyNative only ----------------------------------------------------------------------------------
class Barrier(Primitive):
    """Returns when every rank of the group has called it (a [1] Float32 tensor, MindSpore's output)."""

    def __init__(self, group=WORLD):
        super().__init__()
        self.group = group
        self.attrs.update(group=group, side_effect_mem=True)

    def __call__(self):
        if _in_graph():
            raise _graph_error("Barrier")
        w, g = _world_group("Barrier", _size_group("Barrier", self.group))
        w.allreduce(np.zeros(1, np.int32), 0, g.name)
        return Tensor(np.zeros(1, np.float32))


class Send(Primitive):
    """Send the input to the global rank dest_rank, tagged sr_tag (the Receive with that tag takes it);
    returns the input."""

    def __init__(self, sr_tag, dest_rank, group=WORLD, group_back=WORLD):
        super().__init__()
        self.sr_tag, self.rank, self.group = sr_tag, dest_rank, group
        self.attrs.update(sr_tag=sr_tag, dest_rank=dest_rank, group=group, group_back=group_back, no_eliminate=True)

    def __call__(self, input_x):
        from pycompile.ops.comm_p2p import _start_send
        _eager_tensor("Send", input_x)
        _start_send("Send", input_x, self.rank, _size_group("Send", self.group), self.sr_tag).wait()
        return input_x


_RECV_DTYPES = ("Float16", "Float32", "Float64", "BFloat16", "Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16",
                "UInt32", "UInt64")


def _recv_buffer(prim, shape, dtype):
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"For '{prim}', the shape must be a list or tuple of ints, but got {_type_name(shape)}")
    return Tensor(np.zeros(tuple(int(s) for s in shape), _np_dtype(prim, dtype)))


class Receive(Primitive):
    """Receive a tensor of `shape` and `dtype` from the global rank src_rank, sent by the Send tagged
    sr_tag. Called with no input."""

    def __init__(self, sr_tag, src_rank, shape, dtype, group=WORLD, group_back=WORLD):
        super().__init__()
        if str(dtype) not in _RECV_DTYPES:
            raise TypeError(f"For 'Receive', the type of 'dtype' must be in [mindspore.float16, mindspore.float32, "
                            f"mindspore.float64, mindspore.bfloat16, mindspore.int8, mindspore.int16, "
                            f"mindspore.int32, mindspore.int64, mindspore.uint8, mindspore.uint16, mindspore.uint32, "
                            f"mindspore.uint64], but got {dtype}.")
        self.tag, self.rank, self.shape, self.dtype, self.group = sr_tag, src_rank, shape, dtype, group
        self.attrs.update(sr_tag=sr_tag, src_rank=src_rank, shape=shape, dtype=dtype, group=group,
                          group_back=group_back, no_eliminate=True)

    def __call__(self, *unused):
        from pycompile.ops.comm_p2p import _start_recv
        if _in_graph() or any(isinstance(u, Symbolic) for u in unused):
            raise _graph_error("Receive")
        buf = _recv_buffer("Receive", self.shape, self.dtype)
        handle, box = _start_recv("Receive", buf, self.rank, _size_group("Receive", self.group), self.tag,
                                  into=False)
        handle.wait()
        return Tensor(box["out"])


def _exchange(prim, group, sends, recvs):
    """Start every send [(tensor, global rank, tag)] and receive [(buffer, global rank, tag)], then
    wait for them all; the received arrays, in order."""
    from pycompile.ops.comm_p2p import _start_recv, _start_send
    handles = [_start_send(prim, t, dst, group, tag) for t, dst, tag in sends]
    boxes = []
    for buf, src, tag in recvs:
        h, box = _start_recv(prim, buf, src, group, tag, into=False)
        handles.append(h)
        boxes.append(box)
    for h in handles:
        h.wait()
    return [box["out"] for box in boxes]


class BatchISendIRecv(Primitive):
    """One batch of sends and receives: op_types[i] ("isend" / "irecv") with the global rank
    remote_ranks[i]. The inputs are the tensors sent, in order; the outputs follow op_types: a
    scalar with no meaning at an "isend", the received tensor at an "irecv"."""

    def __init__(self, op_types, remote_ranks, receive_shapes=None, receive_dtypes=None, group=WORLD):
        super().__init__()
        prim = "BatchISendIRecv"
        receive_shapes = () if receive_shapes is None else _seq_arg(prim, "receive_shapes", receive_shapes)
        receive_dtypes = () if receive_dtypes is None else _seq_arg(prim, "receive_dtypes", receive_dtypes)
        _seq_arg(prim, "op_types", op_types)
        _seq_arg(prim, "remote_ranks", remote_ranks)
        if len(receive_shapes) != len(receive_dtypes):
            raise ValueError(f"length of receive_shapes and receive_dtypes must be the same, but got receive_shapes: "
                             f"{len(receive_shapes)} and receive_dtypes: {len(receive_dtypes)}")
        if len(op_types) != len(remote_ranks):
            raise ValueError("length of op_types and remote_ranks must be the same.")
        self.group = WORLD if group is None else group
        self.op_types, self.remote_ranks = tuple(op_types), tuple(remote_ranks)
        self.receive_shapes, self.receive_dtypes = tuple(receive_shapes), tuple(receive_dtypes)
        self.attrs.update(group=self.group, op_types=op_types, remote_ranks=remote_ranks,
                          receive_shapes=receive_shapes, receive_dtypes=receive_dtypes, no_eliminate=True)

    def __call__(self, input_x=()):
        prim = "BatchISendIRecv"
        inputs = tuple(input_x) if isinstance(input_x, (tuple, list)) else (input_x,)
        inputs = tuple(t for t in inputs if t is not None)
        if _in_graph() or any(isinstance(t, Symbolic) for t in inputs):
            raise _graph_error(prim)
        bad = [op for op in self.op_types if op not in ("isend", "irecv")]
        if bad:
            raise ValueError(f"For '{prim}', op_types must be 'isend' or 'irecv', but got {bad[0]!r}")
        n_send = self.op_types.count("isend")
        if len(inputs) != n_send:
            raise RuntimeError(f"For '{prim}', the number of input tensors ({len(inputs)}) must equal the number of "
                               f"'isend' in op_types ({n_send})")
        n_recv = len(self.op_types) - n_send
        if len(self.receive_shapes) != n_recv:
            raise ValueError(f"For '{prim}', receive_shapes and receive_dtypes must have one entry per 'irecv' "
                             f"({n_recv}), but got {len(self.receive_shapes)}")
        group = _size_group(prim, self.group)
        sends, recvs, it = [], [], iter(inputs)
        for op, rank in zip(self.op_types, self.remote_ranks):
            if op == "isend":
                sends.append((_eager_tensor(prim, next(it)), rank, 0))
            else:
                k = len(recvs)
                recvs.append((_recv_buffer(prim, self.receive_shapes[k], self.receive_dtypes[k]), rank, 0))
        got = iter(_exchange(prim, group, sends, recvs))
        sent = iter(inputs)
        return tuple(Tensor(next(got)) if op == "irecv" else Tensor(np.zeros((), next(sent).asnumpy().dtype))
                     for op in self.op_types)


class NeighborExchange(Primitive):
    """Send input_x[i] (of send_shapes[i]) to the global rank send_rank_ids[i], and receive from each
    recv_rank_ids[j] a tensor of recv_shapes[j] and recv_type; the received tensors, in order."""

    def __init__(self, send_rank_ids, recv_rank_ids, recv_shapes, send_shapes, recv_type, group=WORLD):
        super().__init__()
        self.send_rank_ids, self.recv_rank_ids = send_rank_ids, recv_rank_ids
        self.recv_shapes, self.send_shapes, self.recv_type, self.group = recv_shapes, send_shapes, recv_type, group
        self.attrs.update(send_rank_ids=send_rank_ids, recv_rank_ids=recv_rank_ids, recv_shapes=recv_shapes,
                          send_shapes=send_shapes, recv_type=recv_type, group=group, no_eliminate=True)

    def __call__(self, input_x):
        prim = "NeighborExchange"
        inputs = tuple(input_x) if isinstance(input_x, (tuple, list)) else (input_x,)
        if _in_graph() or any(isinstance(t, Symbolic) for t in inputs):
            raise _graph_error(prim)
        if len(inputs) != len(self.send_rank_ids) or len(self.send_shapes) != len(self.send_rank_ids):
            raise ValueError(f"For '{prim}', input_x, send_rank_ids and send_shapes must have the same length, but "
                             f"got {len(inputs)}, {len(self.send_rank_ids)}, {len(self.send_shapes)}")
        if len(self.recv_shapes) != len(self.recv_rank_ids):
            raise ValueError(f"For '{prim}', recv_rank_ids and recv_shapes must have the same length, but got "
                             f"{len(self.recv_rank_ids)}, {len(self.recv_shapes)}")
        for t, shape in zip(inputs, self.send_shapes):
            if tuple(_eager_tensor(prim, t).shape) != tuple(shape):
                raise ValueError(f"For '{prim}', an input of shape {list(t.shape)} does not match its send_shapes "
                                 f"entry {list(shape)}")
        group = _size_group(prim, self.group)
        sends = [(t, rank, 0) for t, rank in zip(inputs, self.send_rank_ids)]
        recvs = [(_recv_buffer(prim, shape, self.recv_type), rank, 0)
                 for rank, shape in zip(self.recv_rank_ids, self.recv_shapes)]
        return tuple(Tensor(a) for a in _exchange(prim, group, sends, recvs))


# the 8 directions of NeighborExchangeV2, clockwise from the top: (rows, columns), each -1 (the top
# or left edge), 0 (the whole extent) or 1 (the bottom or right edge)
_DIRECTIONS = ((-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1))


class NeighborExchangeV2(Primitive):
    """Halo exchange of an NCHW tensor with up to 8 neighbours (top, top-right, right, bottom-right,
    bottom, bottom-left, left, top-left; -1: none): the edge of send_lens [top, bottom, left, right]
    rows / columns goes to each send_rank_ids neighbour, and what recv_rank_ids send is placed
    around the input, which grows by recv_lens."""

    def __init__(self, send_rank_ids, send_lens, recv_rank_ids, recv_lens, data_format, group=WORLD):
        super().__init__()
        n = _rank_size("NeighborExchangeV2", _size_group("NeighborExchangeV2", group))
        for what, ids in (("send_rank_ids", send_rank_ids), ("recv_rank_ids", recv_rank_ids)):
            for rank_id in ids:
                if rank_id != -1 and not 0 <= rank_id < n:
                    raise ValueError(f"The 'rank_id in {what}' must be in range of [0, {n}), but got {rank_id} with "
                                     f"type '{_type_name(rank_id)}'.")
        self.send_rank_ids, self.recv_rank_ids = send_rank_ids, recv_rank_ids
        self.send_lens, self.recv_lens, self.format, self.group = send_lens, recv_lens, data_format, group
        self.rank_size = n
        self.attrs.update(send_rank_ids=send_rank_ids, send_lens=send_lens, recv_rank_ids=recv_rank_ids,
                          recv_lens=recv_lens, format=data_format, group=group, no_eliminate=True)

    def _check(self, prim):
        for what, v, k in (("send_rank_ids", self.send_rank_ids, 8), ("recv_rank_ids", self.recv_rank_ids, 8),
                           ("send_lens", self.send_lens, 4), ("recv_lens", self.recv_lens, 4)):
            if not isinstance(v, list):
                raise TypeError(f"For '{prim}', '{what}' must be a list, but got {_type_name(v)}")
            if len(v) != k:
                raise ValueError(f"For '{prim}', '{what}' must have {k} entries, but got {len(v)}")
        for what, ids in (("send_rank_ids", self.send_rank_ids), ("recv_rank_ids", self.recv_rank_ids)):
            real = [r for r in ids if r != -1]
            if any(r < -1 for r in ids) or len(set(real)) != len(real):
                raise ValueError(f"For '{prim}', '{what}' must not have values less than -1 or repeated values, "
                                 f"but got {ids}")
        if any(v < 0 for v in list(self.send_lens) + list(self.recv_lens)):
            raise ValueError(f"For '{prim}', send_lens and recv_lens must not be negative, but got {self.send_lens}, "
                             f"{self.recv_lens}")
        if self.format != "NCHW":
            raise ValueError(f"For '{prim}', the 'data_format' must be 'NCHW', but got {self.format!r}")

    def __call__(self, input_x):
        prim = "NeighborExchangeV2"
        self._check(prim)
        x = _eager_tensor(prim, input_x)
        if len(x.shape) != 4:
            raise ValueError(f"For '{prim}', the input must be 4-D (NCHW), but got shape {list(x.shape)}")
        a = x.asnumpy()
        _, _, h, wd = a.shape
        st, sb, sl, sr = self.send_lens
        rt, rb, rl, rr = self.recv_lens

        def edge(side, lo, hi, extent):      # the slice of one axis on a side (-1 / 0 / 1)
            return slice(0, lo) if side < 0 else slice(extent - hi, extent) if side > 0 else slice(0, extent)

        sends = []
        for d, (r, c) in enumerate(_DIRECTIONS):
            if self.send_rank_ids[d] != -1:
                part = np.ascontiguousarray(a[:, :, edge(r, st, sb, h), edge(c, sl, sr, wd)])
                sends.append((Tensor(part), self.send_rank_ids[d], (d + 4) % 8))   # tag: the receiver's side
        out = np.zeros(a.shape[:2] + (h + rt + rb, wd + rl + rr), a.dtype)
        out[:, :, rt:rt + h, rl:rl + wd] = a
        places, recvs = [], []
        for d, (r, c) in enumerate(_DIRECTIONS):
            if self.recv_rank_ids[d] != -1:
                rows = slice(0, rt) if r < 0 else slice(rt + h, rt + h + rb) if r > 0 else slice(rt, rt + h)
                cols = slice(0, rl) if c < 0 else slice(rl + wd, rl + wd + rr) if c > 0 else slice(rl, rl + wd)
                places.append((rows, cols))
                shape = a.shape[:2] + (rows.stop - rows.start, cols.stop - cols.start)
                recvs.append((Tensor(np.zeros(shape, a.dtype)), self.recv_rank_ids[d], d))
        for (rows, cols), got in zip(places, _exchange(prim, _size_group(prim, self.group), sends, recvs)):
            out[:, :, rows, cols] = got
        return Tensor(out)


def _flat(prim, x):
    _eager_tensor(prim, x)
    _one_dim(prim, x)
    return x.asnumpy()


class AlltoAllV(Primitive):
    """Uneven all-to-all of flat tensors: send_numel_list[k] * block_size elements go to group rank k,
    recv_numel_list[k] * block_size come from it; the received parts concatenated in rank order."""

    def __init__(self, group=WORLD, block_size=1):
        super().__init__()
        self.group = _size_group("AlltoAllV", group)
        self.rank_size = _rank_size("AlltoAllV", self.group)
        self.block_size = _int_arg("AlltoAllV", "block_size", block_size)
        self.attrs.update(group=self.group, block_size=block_size)

    def __call__(self, input_x, send_numel_list, recv_numel_list):
        from pycompile.ops.comm_func import _gather_ragged
        prim = "AlltoAllV"
        x = _flat(prim, input_x)
        w, g = _world_group(prim, self.group)
        n, me, b = g.size, g.world_ranks.index(w.rank), self.block_size
        send = [s * b for s in _sizes(prim, send_numel_list, n, "send_numel_list")]
        recv = [s * b for s in _sizes(prim, recv_numel_list, n, "recv_numel_list")]
        if sum(send) > x.size:
            raise ValueError(f"For '{prim}', the input has {x.size} elements, fewer than this rank sends "
                             f"({sum(send)})")
        meta = w.allgather(np.array(send, np.int64).reshape(1, -1), g.name).reshape(n, n)
        got = [int(meta[k, me]) for k in range(n)]
        payloads = _gather_ragged(w, g, x[:sum(send)])
        if got != recv:
            raise ValueError(f"For '{prim}', recv_numel_list * block_size {recv} does not match what the ranks send "
                             f"to this rank: {got}")
        parts = [payloads[k][int(meta[k, :me].sum()):int(meta[k, :me + 1].sum())] for k in range(n)]
        out = np.concatenate(parts) if sum(recv) else np.zeros((), x.dtype)
        return Tensor(out.astype(x.dtype))


class AlltoAllVC(Primitive):
    """Uneven all-to-all of flat tensors from one matrix every rank knows: send_count_matrix[i * N + j]
    (times block_size) elements go from group rank i to group rank j (transposed first when
    transpose=True); the received parts concatenated in rank order."""

    def __init__(self, group=WORLD, block_size=1, transpose=False):
        super().__init__()
        self.group = _size_group("AlltoAllVC", group)
        self.rank_size = _rank_size("AlltoAllVC", self.group)
        self.block_size = _int_arg("AlltoAllVC", "block_size", block_size)
        self.transpose = transpose
        self.attrs.update(rank_size=self.rank_size, group=self.group, block_size=block_size, transpose=transpose)

    def __call__(self, input_x, send_count_matrix):
        from pycompile.ops.comm_func import _gather_ragged
        prim = "AlltoAllVC"
        x = _flat(prim, input_x)
        w, g = _world_group(prim, self.group)
        n, me = g.size, g.world_ranks.index(w.rank)
        m = np.array(_sizes(prim, send_count_matrix, n * n, "send_count_matrix"), np.int64).reshape(n, n)
        if self.transpose:
            m = m.T
        m = m * self.block_size
        if m[me].sum() > x.size:
            raise ValueError(f"For '{prim}', the input has {x.size} elements, fewer than this rank sends "
                             f"({int(m[me].sum())})")
        payloads = _gather_ragged(w, g, x[:int(m[me].sum())])
        parts = [payloads[k][int(m[k, :me].sum()):int(m[k, :me + 1].sum())] for k in range(n)]
        out = np.concatenate(parts) if m[:, me].sum() else np.zeros((), x.dtype)
        return Tensor(out.astype(x.dtype))


__all__ = ["AlltoAll", "AllGatherV", "ReduceScatterV", "CollectiveGather", "Reduce", "CollectiveScatter", "Barrier",
           "Send",
           "Receive", "BatchISendIRecv", "NeighborExchange", "NeighborExchangeV2", "AlltoAllV", "AlltoAllVC"]
