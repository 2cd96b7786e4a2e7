"""The conformance table: MindSpore 2.10's communication Primitives beyond AllReduce / AllGather /
ReduceScatter / Broadcast (src/pycompile/ops/operations_comm_more.py). The wheel cannot communicate
without a cluster (its CPU build has no kernel for them: "Unsupported op"), so what is recorded here
is what it does before communicating: the constructors' argument errors and attributes, and
AlltoAll's shape checks (before init() a group has one rank, in MindSpore and in pycompile). Their
values across ranks are checked against NumPy by tests/distributed/test_comm_primitives.py. Part
of the table loaded after cases.py."""
group("commprim")

_CTOR = dict(graph=False, reason="a Primitive's constructor: its arguments are checked when it is built, outside "
                                 "the compiled code")


def _ctor_error(id, name, build):
    add(id, (f"ops.{name}",), lambda: build(), [], error=True, **_CTOR)


_W8 = [-1] * 8
for _id, _name, _build in [
    ("commprim_alltoall_count_float", "AlltoAll", lambda: ops.AlltoAll(2.0, 0, 0)),
    ("commprim_alltoall_count_bool", "AlltoAll", lambda: ops.AlltoAll(True, 0, 0)),
    ("commprim_alltoall_split_dim_float", "AlltoAll", lambda: ops.AlltoAll(1, 0.5, 0)),
    ("commprim_alltoall_concat_dim_str", "AlltoAll", lambda: ops.AlltoAll(1, 0, "a")),
    ("commprim_alltoall_group_int", "AlltoAll", lambda: ops.AlltoAll(1, 0, 0, group=1)),
    ("commprim_allgatherv_group_int", "AllGatherV", lambda: ops.AllGatherV(group=1)),
    ("commprim_allgatherv_group_none", "AllGatherV", lambda: ops.AllGatherV(group=None)),
    ("commprim_reducescatterv_op_int", "ReduceScatterV", lambda: ops.ReduceScatterV(op=1)),
    ("commprim_reducescatterv_group_int", "ReduceScatterV", lambda: ops.ReduceScatterV(group=1)),
    ("commprim_nev2_send_rank_range", "NeighborExchangeV2",
     lambda: ops.NeighborExchangeV2([5] + _W8[1:], [0] * 4, _W8, [0] * 4, "NCHW")),
    ("commprim_nev2_recv_rank_below", "NeighborExchangeV2",
     lambda: ops.NeighborExchangeV2(_W8, [0] * 4, [-2] + _W8[1:], [0] * 4, "NCHW")),
    ("commprim_nev2_group_int", "NeighborExchangeV2",
     lambda: ops.NeighborExchangeV2(_W8, [0] * 4, _W8, [0] * 4, "NCHW", group=1)),
    ("commprim_collective_gather_group_int", "CollectiveGather", lambda: ops.CollectiveGather(0, group=1)),
    ("commprim_collective_scatter_group_int", "CollectiveScatter", lambda: ops.CollectiveScatter(0, group=1)),
    ("commprim_reduce_op_int", "Reduce", lambda: ops.Reduce(0, 1)),
    ("commprim_reduce_group_int", "Reduce", lambda: ops.Reduce(0, "sum", 1)),
    ("commprim_receive_dtype_bool", "Receive", lambda: ops.Receive(0, 1, [2], ms.bool_)),
    ("commprim_receive_dtype_complex", "Receive", lambda: ops.Receive(0, 1, [2], ms.complex64)),
    ("commprim_batch_op_types_str", "BatchISendIRecv", lambda: ops.BatchISendIRecv("isend", (1,))),
    ("commprim_batch_remote_ranks_int", "BatchISendIRecv", lambda: ops.BatchISendIRecv(("isend",), 1)),
    ("commprim_batch_lengths_differ", "BatchISendIRecv", lambda: ops.BatchISendIRecv(("isend", "irecv"), (1,))),
    ("commprim_batch_receive_lengths", "BatchISendIRecv",
     lambda: ops.BatchISendIRecv(("irecv",), (1,), ([2],), ())),
    ("commprim_batch_receive_dtypes_type", "BatchISendIRecv",
     lambda: ops.BatchISendIRecv(("irecv",), (1,), [2], ms.float32)),
    ("commprim_alltoallv_block_float", "AlltoAllV", lambda: ops.AlltoAllV(block_size=1.5)),
    ("commprim_alltoallv_block_bool", "AlltoAllV", lambda: ops.AlltoAllV(block_size=True)),
    ("commprim_alltoallv_group_int", "AlltoAllV", lambda: ops.AlltoAllV(group=1)),
    ("commprim_alltoallvc_block_str", "AlltoAllVC", lambda: ops.AlltoAllVC(block_size="a")),
    ("commprim_alltoallvc_group_int", "AlltoAllVC", lambda: ops.AlltoAllVC(group=1)),
]:
    _ctor_error(_id, _name, _build)


# ---- what the constructors accept, and the attributes they set ----------------------------------------
@case("ops.Reduce", **_CTOR)
def commprim_reduce_attributes():
    p, q = ops.Reduce(1, "max", group="g"), ops.Reduce(1.5)        # dest_rank's type is checked when called
    return p.attrs["dest_rank"], p.attrs["op"], p.attrs["group"], q.attrs["dest_rank"], q.attrs["op"]



@case("ops.Barrier", "ops.Send", "ops.Receive", **_CTOR)
def commprim_p2p_attributes():
    send = ops.Send(3, 1, group="g")
    recv = ops.Receive(4, 0, [2, 3], ms.float32, group="g")
    return ops.Barrier(group="g").group, send.sr_tag, send.rank, send.group, recv.tag, recv.rank, recv.group


@case("ops.NeighborExchange", "ops.NeighborExchangeV2", "ops.BatchISendIRecv", **_CTOR)
def commprim_exchange_attributes():
    ne = ops.NeighborExchange([1], [1], ([2],), ([3],), ms.float32)
    v2 = ops.NeighborExchangeV2(_W8, [0, 1, 0, 0], _W8, [1, 0, 0, 0], "NHWC")       # format checked later
    b = ops.BatchISendIRecv(("bad",), (1,))                                         # op types checked later
    return ne.send_rank_ids, ne.recv_rank_ids, v2.send_lens, v2.recv_lens, b.op_types


@case("ops.AlltoAll", "ops.AllGatherV", "ops.ReduceScatterV", "ops.CollectiveGather", "ops.CollectiveScatter",
      "ops.AlltoAllV", "ops.AlltoAllVC", **_CTOR)
def commprim_group_sizes_before_init():
    return (ops.AlltoAll(2, 0, 1).rank_size, ops.AllGatherV().rank_size, ops.ReduceScatterV("prod").rank_size,
            ops.CollectiveGather(0).rank_size, ops.CollectiveScatter(0).rank_size, ops.AlltoAllV().rank_size,
            ops.AlltoAllVC(transpose=1).rank_size)


# ---- AlltoAll's shape checks, before it communicates (a group of one rank) ---------------------------
@case("ops.AlltoAll", inputs=[rnd(2)], error=True)
def commprim_alltoall_count_vs_rank_size(x):
    return ops.AlltoAll(2, 0, 0)(x)


@case("ops.AlltoAll", "ops.operations", inputs=[rnd(2)], error=True)
def commprim_alltoall_split_dim_range(x):
    return ops.operations.AlltoAll(1, 5, 0)(x)


@case("ops.AlltoAll", inputs=[rnd(2)], error=True)
def commprim_alltoall_concat_dim_range(x):
    return ops.AlltoAll(1, 0, 3)(x)
