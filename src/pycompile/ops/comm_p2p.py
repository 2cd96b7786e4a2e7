"""Point-to-point calls, Python objects and the process-group functions of MindSpore 2.10's
`mindspore.ops.communication` (see comm_func.py for the whole story)."""
from __future__ import annotations

import hashlib
import io
import pickle

import numpy as np

from pycompile.common.tensor import Tensor
from pycompile.ops.comm_func import (_INPLACE, CommHandle, _gather_ragged, _from_src, _group_name,
                                     _group_rank, _inplace_only, _int, _tensor, _world_group)

# ---- point to point: MPI's non-blocking calls on the group's communicator, polled -----------------
def _peer(fn, w, g, rank, what):
    if w.rank == rank:
        raise ValueError(f"Invalid {what} rank: {what} rank should not be the same as the rank of the current "
                         f"process.")
    peer = _group_rank(fn, g, rank, what)
    if g.comm is None:      # a world of one has no other rank
        raise ValueError(f"For {fn}, the {what} rank {rank} does not exist: the world has one rank (launch with "
                         f"`mpirun -n N python ...` and call init())")
    return peer


def _tag(fn, tag):
    if not isinstance(tag, int) or isinstance(tag, bool) or tag < 0:
        raise TypeError(f"For {fn}, the tag must be a non-negative int, but got {tag!r}")
    return tag


def _start_send(fn, tensor, dst, group, tag):
    _tensor(fn, tensor)
    _int(fn, dst, "dst")
    w, g = _world_group(fn, group)
    buf = np.ascontiguousarray(tensor.asnumpy())
    req = g.comm.Isend(buf.view(np.uint8).reshape(-1), dest=_peer(fn, w, g, dst, "destination"),
                       tag=_tag(fn, tag))
    return CommHandle([req], on_done=lambda: buf, what=f"For {fn}, the send to rank {dst}")


def _start_recv(fn, tensor, src, group, tag, into=True):
    _tensor(fn, tensor)
    _int(fn, src, "src")
    w, g = _world_group(fn, group)
    like = tensor.asnumpy()
    buf = np.empty(like.shape, like.dtype)
    req = g.comm.Irecv(buf.view(np.uint8).reshape(-1), source=_peer(fn, w, g, src, "source"), tag=_tag(fn, tag))
    box = {}

    def done():
        if into:
            tensor.set_data(buf)
        box["out"] = buf
    return CommHandle([req], on_done=done, what=f"For {fn}, the receive from rank {src}"), box


def send(tensor, dst=0, group=None, tag=0):
    """Send `tensor` to the global rank `dst` (returns when MPI has taken the data)."""
    _start_send("send", tensor, dst, group, tag).wait()


def recv(tensor, src=0, group=None, tag=0):
    """Receive from the global rank `src` into `tensor` (its shape and dtype say what comes); 0 in
    place, else the received tensor."""
    handle, box = _start_recv("recv", tensor, src, group, tag, into=_INPLACE["recv"])
    handle.wait()
    return 0 if _INPLACE["recv"] else Tensor(box["out"])


def isend(tensor, dst=0, group=None, tag=0):
    """send, returning a CommHandle at once."""
    return _start_send("isend", tensor, dst, group, tag)


def irecv(tensor, src=0, group=None, tag=0):
    """recv into `tensor`, returning a CommHandle at once (the data is there after wait())."""
    return _start_recv("irecv", tensor, src, group, tag)[0]


class P2POp:
    """One send or receive of batch_isend_irecv: op "isend" / "irecv" (or those functions), the
    tensor, the peer's global rank, the group."""

    def __init__(self, op, tensor, peer, group=None, tag=0):
        if isinstance(op, str):
            if op not in ("isend", "irecv"):
                raise TypeError(f"Expected op to be of type isend or irecv, but got {op}")
        elif op not in (isend, irecv):
            raise TypeError(f"Expected op to be of type isend or irecv, but got {op}")
        if not isinstance(tensor, Tensor):
            raise TypeError(f"Expected tensor to be Tensor, but got {type(tensor)}.")
        if not isinstance(peer, int):
            raise TypeError("For P2POp, the peer must be int")
        if tag != 0:
            raise NotImplementedError("tag is not support yet.")
        self.op, self.tensor, self.peer, self.group, self.tag = op, tensor, peer, group, tag


def batch_isend_irecv(p2p_op_list):
    """Start every send and receive of the list; one handle whose wait() completes them all."""
    _inplace_only("batch_isend_irecv")
    if not p2p_op_list:
        raise TypeError("p2p_op_list can not be empty list.")
    if any(not isinstance(p, P2POp) for p in p2p_op_list):
        raise TypeError("The elements in p2p_op_list must be type of P2POp.")
    if len({p.group for p in p2p_op_list}) > 1:
        raise TypeError("The group name in p2p_op_list must be consistent.")
    handles = []
    for p in p2p_op_list:
        kind = p.op if isinstance(p.op, str) else p.op.__name__
        handles.append(_start_send("batch_isend_irecv", p.tensor, p.peer, p.group, 0) if kind == "isend" else
                       _start_recv("batch_isend_irecv", p.tensor, p.peer, p.group, 0)[0])

    def done():
        for h in handles:
            h.wait()
    return [CommHandle([r for h in handles for r in h._requests], on_done=done,
                       what="For batch_isend_irecv, a send or receive")]


# ---- Python objects: pickled, unpickled with builtins only ---------------------------------------
_SAFE_BUILTINS = frozenset({"range", "complex", "set", "frozenset", "slice", "dict", "list", "tuple", "int",
                            "float", "str", "bytes", "bytearray", "bool"})


class _BuiltinsOnly(pickle.Unpickler):
    def find_class(self, module, name):
        if module == "builtins" and name in _SAFE_BUILTINS:
            import builtins
            return getattr(builtins, name)
        raise pickle.UnpicklingError(f"global '{module}.{name}' is forbidden")


def _to_bytes(obj) -> np.ndarray:
    return np.frombuffer(pickle.dumps(obj), np.uint8).copy()


def _from_bytes(buf: np.ndarray):
    return _BuiltinsOnly(io.BytesIO(buf.tobytes())).load()


def all_gather_object(object_list, obj, group=None):
    """object_list[k] = rank k's `obj` (object_list: a list of group-size entries, replaced)."""
    w, g = _world_group("all_gather_object", group)
    if not isinstance(object_list, list) or len(object_list) != g.size:
        raise TypeError(f"For all_gather_object, object_list must be a list of length {g.size} (the group size)")
    for k, buf in enumerate(_gather_ragged(w, g, _to_bytes(obj))):
        object_list[k] = _from_bytes(buf)


def gather_object(obj, object_gather_list=None, dst=0, group=None):
    """On `dst`: object_gather_list[k] = rank k's `obj`."""
    _int("gather_object", dst, "dst")
    w, g = _world_group("gather_object", group)
    _group_rank("gather_object", g, dst, "dst")
    got = _gather_ragged(w, g, _to_bytes(obj))
    if w.rank == dst:
        if not isinstance(object_gather_list, list) or len(object_gather_list) != g.size:
            raise TypeError(f"For gather_object, object_gather_list must be a list of length {g.size} on the "
                            f"destination rank")
        for k, buf in enumerate(got):
            object_gather_list[k] = _from_bytes(buf)


def _broadcast_bytes(fn, w, g, src, payload):
    size = _from_src(fn, w, g, src, np.array([0 if payload is None else payload.size], np.int64), (1,), np.int64)
    return _from_src(fn, w, g, src, payload, (int(size[0]),), np.uint8)


def broadcast_object_list(object_list, src=0, group=None, device=None):
    """Every rank's `object_list` entries become `src`'s."""
    _int("broadcast_object_list", src, "src")
    w, g = _world_group("broadcast_object_list", group)
    if not isinstance(object_list, list):
        raise TypeError("For broadcast_object_list, object_list must be a list")
    got = _from_bytes(_broadcast_bytes("broadcast_object_list", w, g, src,
                                       _to_bytes(object_list) if w.rank == src else None))
    if len(got) != len(object_list):
        raise ValueError(f"For broadcast_object_list, the source sends {len(got)} objects, but this rank's "
                         f"object_list has {len(object_list)} entries")
    object_list[:] = got


def scatter_object_list(scatter_object_output_list, scatter_object_input_list, src=0, group=None):
    """scatter_object_output_list[0] = `src`'s scatter_object_input_list[my rank]."""
    _int("scatter_object_list", src, "src")
    w, g = _world_group("scatter_object_list", group)
    if not isinstance(scatter_object_output_list, list) or not scatter_object_output_list:
        raise TypeError("For scatter_object_list, scatter_object_output_list must be a non-empty list")
    payload = None
    if w.rank == src:
        if not isinstance(scatter_object_input_list, list) or len(scatter_object_input_list) != g.size:
            raise TypeError(f"For scatter_object_list, scatter_object_input_list must be a list of length {g.size} "
                            f"on the source rank")
        payload = _to_bytes(scatter_object_input_list)
    got = _from_bytes(_broadcast_bytes("scatter_object_list", w, g, src, payload))
    scatter_object_output_list[0] = got[g.world_ranks.index(w.rank)]


def send_object_list(object_list, dst, group=None, device=None):
    """Send the objects of `object_list` to the global rank `dst`."""
    if not isinstance(object_list, list):
        raise TypeError("For send_object_list, object_list must be a list")
    payload = _to_bytes(object_list)
    send(Tensor(np.array([payload.size], np.int64)), dst, group, tag=1)
    send(Tensor(payload), dst, group, tag=2)


def recv_object_list(object_list, src=0, group=None, device=None):
    """Receive `src`'s objects into `object_list` (of the same length)."""
    if not isinstance(object_list, list):
        raise TypeError("For recv_object_list, object_list must be a list")
    size = Tensor(np.zeros(1, np.int64))
    recv(size, src, group, tag=1)
    payload = Tensor(np.zeros(int(size.asnumpy()[0]), np.uint8))
    recv(payload, src, group, tag=2)
    got = _from_bytes(payload.asnumpy())
    if len(got) != len(object_list):
        raise ValueError(f"For recv_object_list, rank {src} sent {len(got)} objects, but object_list has "
                         f"{len(object_list)} entries")
    object_list[:] = got


# ---- the process group (MindSpore's torch.distributed-like names) --------------------------------
def is_available():
    """True: the communication functions are always there (a world of one without mpirun)."""
    return True


def is_initialized():
    """Whether init_process_group (or communication.init) has run."""
    from pycompile.communication import management
    return management.is_initialized()


def init_process_group(backend="hccl", init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None, device_id=None):
    """Join the process world (MPI under mpirun, a world of one otherwise): communication.init(backend).
    world_size / rank, when given, must be what mpirun made."""
    from pycompile.communication import management
    if not isinstance(backend, str):
        raise TypeError(f"For 'init_process_group', the argument 'backend' must be a str, but got {type(backend)}")
    if backend not in ("hccl", "mccl", "nccl"):
        raise ValueError(f"For 'init_process_group', the argument 'backend' must be 'hccl' or 'mccl', but got "
                         f"{backend!r}")
    for name, v in (("world_size", world_size), ("rank", rank)):
        if not isinstance(v, int) or isinstance(v, bool):
            raise TypeError(f"The parameter '{name}' must be int, but got {type(v)}")
    management.init(backend)
    w = management.world("init_process_group")
    if world_size not in (-1, w.size) or rank not in (-1, w.rank):
        raise ValueError(f"For 'init_process_group', world_size={world_size} and rank={rank} disagree with the "
                         f"launched world (size {w.size}, this rank {w.rank})")


def destroy_process_group(group=None):
    """Destroy `group`; None or the world group: release the whole world."""
    from pycompile.communication import management
    name = _group_name(group)
    from pycompile.communication._world import WORLD_NAMES
    if name in WORLD_NAMES:
        management.release()
    else:
        management.destroy_group(name)


def get_rank(group=None):
    """This process's rank in `group`; -1 when it is not a member."""
    from pycompile.communication import management
    name = _group_name(group)
    w = management.world("get_rank")
    g = w.groups.get(name)
    return -1 if g is None or w.rank not in g.world_ranks else g.world_ranks.index(w.rank)


def get_world_size(group=None):
    """The number of ranks in `group`; -1 when there is no such group."""
    from pycompile.communication import management
    name = _group_name(group)
    g = management.world("get_world_size").groups.get(name)
    return -1 if g is None else g.size


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False,
              group_desc=None):
    """A group of the global `ranks` (every rank calls it, members or not), named as MindSpore names it:
    backend_<count>_<sha1 of the sorted ranks>; None: the world group."""
    from pycompile.communication import management
    if ranks is None:
        return management.GlobalComm.WORLD_COMM_GROUP
    if not isinstance(ranks, list):
        raise TypeError(f"ranks must be list, but got {type(ranks)}")
    ranks = sorted(ranks)
    backend = "hccl" if backend is None else backend
    if not isinstance(backend, str) or backend not in ("hccl", "mccl"):
        raise TypeError(f"the input backend must be hccl or mccl, but got {backend}")
    name = f"{backend}_{len(ranks)}_" + hashlib.sha1("_".join(map(str, ranks)).encode()).hexdigest()
    w = management.world("new_group")
    existing = w.groups.get(name)
    if existing is None:
        management.create_group(name, ranks)
    elif list(existing.world_ranks) != ranks:
        raise ValueError(f"For new_group, the group '{name}' exists with other ranks")
    return name


def get_backend(group=None):
    """The backend the world was initialized with ('hccl', 'nccl' or 'mccl'; all run on MPI here)."""
    from pycompile.communication import management
    _world_group("get_backend", group)
    return management.GlobalComm.BACKEND


def get_global_rank(group, group_rank):
    """The global rank of member `group_rank` of `group` (None: the world)."""
    from pycompile.communication import management
    if not isinstance(group_rank, int) or isinstance(group_rank, bool):
        raise TypeError(f"The group_rank argument must be integer, but got {type(group_rank)}.")
    return management.get_world_rank_from_group_rank(_group_name(group), group_rank)


def get_group_rank(group, global_rank):
    """The rank in `group` of the process with global rank `global_rank`."""
    from pycompile.communication import management
    if not isinstance(global_rank, int) or isinstance(global_rank, bool):
        raise TypeError(f"The global_rank argument must be integer, but got {type(global_rank)}.")
    return management.get_group_rank_from_world_rank(global_rank, _group_name(group))


def get_process_group_ranks(group=None):
    """The global ranks of `group`'s members."""
    from pycompile.communication import management
    return management.get_process_group_ranks(_group_name(group))


__all__ = ['P2POp', 'send', 'recv', 'isend', 'irecv', 'batch_isend_irecv', 'all_gather_object', 'gather_object', 'broadcast_object_list', 'scatter_object_list', 'send_object_list', 'recv_object_list', 'is_available', 'is_initialized', 'init_process_group', 'destroy_process_group', 'get_rank', 'get_world_size', 'new_group', 'get_backend', 'get_global_rank', 'get_group_rank', 'get_process_group_ranks']
