"""MindSpore's communication management API (`mindspore.communication`) on MPI.

Launch: `mpirun -n N python train.py`. init() joins the MPI world (mpi4py, imported here only);
run outside mpirun it is a one-process world, and without mpi4py installed too (a world of one
needs no MPI). A script that never calls init() never imports mpi4py and runs as before.

Groups are named as in MindSpore: the world group is `GlobalComm.WORLD_COMM_GROUP`
("hccl_world_group" before init(), "mccl_world_group" after init() on the CPU, as MindSpore
names them); any of the three world names means the world. create_group makes a sub-world.
"""
from __future__ import annotations

from pycompile.common import auto_parallel
from pycompile.communication import _world

HCCL_WORLD_COMM_GROUP = "hccl_world_group"
NCCL_WORLD_COMM_GROUP = "nccl_world_group"
MCCL_WORLD_COMM_GROUP = "mccl_world_group"


class GlobalComm:
    """World communication information, as MindSpore's: BACKEND, WORLD_COMM_GROUP, INITED."""
    BACKEND = "hccl"
    WORLD_COMM_GROUP = HCCL_WORLD_COMM_GROUP
    INITED = False
    CHECK_ENVS = True


_STATE = {"world": None}
_BACKENDS = ("hccl", "nccl", "mccl")


def world(op_name: str = "") -> "_world.World":
    """The initialized world; the error MindSpore users know when init() was not called."""
    w = _STATE["world"]
    if w is None:
        where = f"For '{op_name}', " if op_name else ""
        raise RuntimeError(f"{where}the distributed communication is not initialized: call "
                           f"mindspore.communication.init() first (and launch with `mpirun -n N python ...`)")
    return w


def is_initialized() -> bool:
    return _STATE["world"] is not None


def init(backend_name=None):
    """Join the process world: MPI's COMM_WORLD under mpirun, a world of one otherwise.
    `backend_name` takes MindSpore's names ('hccl', 'nccl', 'mccl'); all of them run on MPI here."""
    if backend_name is not None and not isinstance(backend_name, str):
        raise TypeError("For 'init', the argument 'backend_name' must be a string, "
                        f"but got the type : {type(backend_name)}")
    if backend_name is not None and backend_name not in _BACKENDS:
        raise RuntimeError("For 'init', the argument 'backend_name' must be one of 'hccl', 'nccl' and 'mccl', "
                           f"but got 'backend_name' : {backend_name}")
    if _STATE["world"] is not None:
        return
    try:
        from mpi4py import MPI
    except ImportError:
        MPI = None
    w = _world.World(MPI)
    _world.install_abort_hook(w)
    _STATE["world"] = w
    GlobalComm.BACKEND = backend_name or "mccl"
    GlobalComm.WORLD_COMM_GROUP = {"hccl": HCCL_WORLD_COMM_GROUP, "nccl": NCCL_WORLD_COMM_GROUP}.get(
        backend_name, MCCL_WORLD_COMM_GROUP)
    GlobalComm.INITED = True


def release():
    """Release the communication resources (groups, the runtime's binding). MPI itself finalizes
    at exit, as mpi4py arranges."""
    w = _STATE["world"]
    if w is not None:
        w.release()
    _STATE["world"] = None
    GlobalComm.INITED = False
    GlobalComm.WORLD_COMM_GROUP = HCCL_WORLD_COMM_GROUP


def _check_group(fn: str, group):
    if not isinstance(group, str):
        raise TypeError(f"For '{fn}', the argument 'group' must be type of string, "
                        f"but got 'group' type : {type(group)}.")
    w = world(fn)
    g = w.groups.get(group)
    if g is None:
        raise ValueError(f"For '{fn}', the group '{group}' does not exist: create it with create_group first")
    return w, g


_WORLD_NAMES = (HCCL_WORLD_COMM_GROUP, NCCL_WORLD_COMM_GROUP, MCCL_WORLD_COMM_GROUP)


def _before_init(group, answer):
    """MindSpore 2.10 answers get_rank / get_group_size / get_local_rank / get_local_rank_size for the
    world before init() as a world of one (0, 1, 0, 1); other groups need init() (recorded:
    tests/conformance/cases_cov33_train.py)."""
    return not is_initialized() and isinstance(group, str) and group in _WORLD_NAMES, answer


def get_rank(group=GlobalComm.WORLD_COMM_GROUP):
    """The rank of this process in `group`."""
    early, answer = _before_init(group, 0)
    if early:
        return answer
    w, g = _check_group("get_rank", group)
    if w.rank not in g.world_ranks:
        raise RuntimeError(f"For 'get_rank', rank {w.rank} is not a member of the group '{group}'")
    return g.world_ranks.index(w.rank)


def get_group_size(group=GlobalComm.WORLD_COMM_GROUP):
    """The number of processes in `group`."""
    early, answer = _before_init(group, 1)
    if early:
        return answer
    return _check_group("get_group_size", group)[1].size


def get_local_rank(group=GlobalComm.WORLD_COMM_GROUP):
    """The rank of this process among the processes of its machine (world group only, as in MindSpore)."""
    early, answer = _before_init(group, 0)
    if early:
        return answer
    w, _ = _check_group("get_local_rank", group)
    return w.local_rank


def get_local_rank_size(group=GlobalComm.WORLD_COMM_GROUP):
    """How many processes run on this machine."""
    early, answer = _before_init(group, 1)
    if early:
        return answer
    w, _ = _check_group("get_local_rank_size", group)
    return w.local_size


def get_world_rank_from_group_rank(group, group_rank_id):
    """The world rank of the member `group_rank_id` of `group`."""
    _, g = _check_group("get_world_rank_from_group_rank", group)
    if not isinstance(group_rank_id, int) or isinstance(group_rank_id, bool):
        raise TypeError("For 'get_world_rank_from_group_rank', the argument 'group_rank_id' must be type of int, "
                        f"but got 'group_rank_id' type : {type(group_rank_id)}.")
    if not 0 <= group_rank_id < g.size:
        raise ValueError(f"For 'get_world_rank_from_group_rank', 'group_rank_id' {group_rank_id} is out of "
                         f"the range [0, {g.size}) of the group '{group}'")
    return g.world_ranks[group_rank_id]


def get_group_rank_from_world_rank(world_rank_id, group):
    """The rank in `group` of the process with world rank `world_rank_id`."""
    _, g = _check_group("get_group_rank_from_world_rank", group)
    if not isinstance(world_rank_id, int) or isinstance(world_rank_id, bool):
        raise TypeError("For 'get_group_rank_from_world_rank', the argument 'world_rank_id' must be type of int, "
                        f"but got 'world_rank_id' type : {type(world_rank_id)}.")
    if world_rank_id not in g.world_ranks:
        raise ValueError(f"For 'get_group_rank_from_world_rank', the world rank {world_rank_id} is not a member "
                         f"of the group '{group}'")
    return g.world_ranks.index(world_rank_id)


def create_group(group, rank_ids, options=None):
    """Make the group `group` of the world ranks `rank_ids` (every world rank must call it, members
    or not, in the same order: MPI creates the communicator collectively)."""
    if not isinstance(group, str):
        raise TypeError("For 'create_group', the argument 'group' must be type of string, "
                        f"but got 'group' type : {type(group)}.")
    if not isinstance(rank_ids, list):
        raise TypeError("For 'create_group', the argument 'rank_ids' must be type of list, "
                        f"but got 'rank_ids' type : {type(rank_ids)}.")
    w = world("create_group")
    if len(rank_ids) < 1 or len(set(rank_ids)) != len(rank_ids):
        raise ValueError("For 'create_group', the argument 'rank_ids' must not be empty and must not have "
                         f"duplicate data, but got {rank_ids}")
    if any(not isinstance(r, int) or not 0 <= r < w.size for r in rank_ids):
        raise ValueError(f"For 'create_group', every rank id must be in [0, {w.size}), but got {rank_ids}")
    if group in w.groups:
        raise ValueError(f"For 'create_group', the group '{group}' already exists")
    w.add_group(group, rank_ids)


def destroy_group(group):
    """Forget a group made by create_group."""
    w, g = _check_group("destroy_group", group)
    if group in _world.WORLD_NAMES:
        raise ValueError("For 'destroy_group', the world group cannot be destroyed")
    del w.groups[group]
    w.rebind()          # the runtime forgets it: a compiled graph naming it now fails cleanly
    g.free()


def get_process_group_ranks(group=GlobalComm.WORLD_COMM_GROUP):
    """The world ranks of `group`'s members."""
    return list(_check_group("get_process_group_ranks", group)[1].world_ranks)


def get_comm_name(group=GlobalComm.WORLD_COMM_GROUP):
    _check_group("get_comm_name", group)
    return group


# the auto-parallel context's default device_num is the world's size once init() has run
auto_parallel.set_world_size_source(lambda: get_group_size() if is_initialized() else None)
