"""Collective communication (MindSpore's `mindspore.communication`), on MPI through mpi4py.

`mpirun -n N python train.py` with `init()` makes N ranks; see management.py. The collective ops
(AllReduce, AllGather, ReduceScatter, Broadcast) are in pycompile.ops; data parallelism
(set_auto_parallel_context, DistributedGradReducer) in pycompile.parallel / pycompile.nn.
"""
from pycompile.communication.management import (HCCL_WORLD_COMM_GROUP, MCCL_WORLD_COMM_GROUP,  # noqa: F401
                                                NCCL_WORLD_COMM_GROUP, GlobalComm, create_group, destroy_group,
                                                get_comm_name, get_group_rank_from_world_rank, get_group_size,
                                                get_local_rank, get_local_rank_size, get_process_group_ranks,
                                                get_rank, get_world_rank_from_group_rank, init, release)
from pycompile.communication import management  # noqa: F401

__all__ = ["GlobalComm", "init", "release", "get_rank", "get_group_size", "get_world_rank_from_group_rank",
           "get_group_rank_from_world_rank", "create_group", "get_comm_name", "HCCL_WORLD_COMM_GROUP",
           "NCCL_WORLD_COMM_GROUP", "MCCL_WORLD_COMM_GROUP", "get_local_rank", "get_local_rank_size",
           "destroy_group", "get_process_group_ranks"]


def __getattr__(name):
    from pycompile.common.missing import missing
    raise missing("communication", __name__, name)
