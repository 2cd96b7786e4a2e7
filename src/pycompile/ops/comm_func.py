"""The collectives of MindSpore 2.10's communication functions (`mindspore.ops.communication`, also `ops.all_reduce`,
`ops.send` ...): PyNative collectives and point-to-point calls on pycompile.communication's world
(MPI under `mpirun -n N`, a world of one otherwise).

What they do, as MindSpore documents them:

* **In place by default.** `all_reduce(t)` writes the result into `t` and returns a handle (None
  unless `async_op=True`); `set_comm_ops_inplace(False)` switches a function to MindSpore's other
  form, returning `(result, handle)` (recv: the received tensor). gather / scatter / batch forms
  exist in place only, as in MindSpore (ValueError "Non-inplace mode is currently not supported.").
* **Ranks are global ranks** (`src`, `dst`, `peer`), translated to the group's ranks.
* **PyNative only** (MindSpore: "Only support PyNative mode"): inside jit / construct they raise.
  Use the Primitives (ops.AllReduce ...) in graph code.

How they run here: the collectives go through the runtime's collectives (all-reduce, all-gather,
reduce-scatter, broadcast: the ranks first agree on shapes and dtypes, and a rank that never
joins ends in an error after PYCOMPILE_COMM_TIMEOUT, as for the Primitives). The others are
compositions of those: reduce = all-reduce kept on `dst`; gather = all-gather kept on `dst`;
scatter = broadcast of `src`'s tensor, each rank keeping its block; all_to_all and the uneven
forms = an all-gather of the sizes, then of the payloads padded to the largest (N times the
bytes of a native all-to-all: correct, not the fastest). `async_op=True` returns a CommHandle
whose wait() returns at once: the work is done when the call returns. Point-to-point
(send / recv / isend / irecv / batch_isend_irecv / *_object_list) uses MPI's non-blocking
send and receive on the group's communicator, polled until done or until PYCOMPILE_COMM_TIMEOUT
(then RuntimeError; the program then ends with MPI_Abort at exit, as after a failed collective);
`send` returns when MPI has taken the data (MPI_Send's semantics). Objects travel pickled and are
unpickled with builtins only (MindSpore's safe unpickler): anything else raises
pickle.UnpicklingError rather than run a peer's code.
"""
from __future__ import annotations

import atexit
import time

import numpy as np

from pycompile.common.abstract import Symbolic
from pycompile.common.tensor import Tensor

ReduceOps = ("sum", "max", "min", "prod", "avg")
_REDUCE_CODES = {"sum": 0, "max": 1, "min": 2, "prod": 3, "avg": 0}

_INPLACE_FUNCS = ("all_reduce", "all_gather_into_tensor", "all_gather_into_tensor_uneven", "all_to_all",
                  "all_to_all_single", "reduce_scatter_tensor", "reduce_scatter_tensor_uneven", "isend", "irecv",
                  "send", "recv", "gather", "scatter", "all_gather", "reduce_scatter", "barrier", "broadcast",
                  "reduce", "batch_isend_irecv", "all_gather_object", "broadcast_object_list", "gather_object",
                  "scatter_object_list", "send_object_list", "recv_object_list", "gather_into_tensor",
                  "scatter_tensor", "all_to_all_v_c")
_INPLACE = {name: True for name in _INPLACE_FUNCS}
_P2P = {"faulted": False, "hooked": False}


def set_comm_ops_inplace(is_enable, func_list=None):
    """Whether the communication functions (all, or those named) write their results in place."""
    if not isinstance(is_enable, bool):
        raise TypeError("For 'set_comm_ops_inplace', the argument 'is_enable' must be type of bool, "
                        f"but got 'is_enable' type : {type(is_enable)}.")
    if func_list is None:
        for name in _INPLACE:
            _INPLACE[name] = is_enable
        return
    if not isinstance(func_list, (list, tuple)):
        raise TypeError(f"Expected list or tuple, but got {type(func_list)}.")
    for name in func_list:
        if name not in _INPLACE:
            raise ValueError(f"The function name in `func_list` must be correct, but got {name}.")
        _INPLACE[name] = is_enable


def _inplace_only(fn):
    if not _INPLACE[fn]:
        raise ValueError("Non-inplace mode is currently not supported.")


class CommHandle:
    """What an async communication call returns: wait() blocks until its work is done (the
    collectives here are done when the call returns; a point-to-point handle polls MPI)."""

    def __init__(self, requests=(), on_done=None, what=""):
        self._requests = list(requests)
        self._on_done = on_done
        self._what = what

    def wait(self):
        if self._requests:
            _poll(self._requests, self._what)
            self._requests = []
        if self._on_done is not None:
            done, self._on_done = self._on_done, None
            done()

    def is_completed(self):
        if self._requests and not all(r.Test() for r in self._requests):
            return False
        self.wait()
        return True


_DONE = CommHandle()


def _timeout() -> float:
    from pycompile.common import knobs
    return float(knobs.get("PYCOMPILE_COMM_TIMEOUT"))


def _on_exit_abort():
    """After a point-to-point call gave up, a request may still be pending: end with MPI_Abort
    instead of waiting in MPI_Finalize (the runtime's collectives do the same)."""
    if _P2P["faulted"]:
        import sys
        from mpi4py import MPI
        if not MPI.Is_finalized():
            sys.stdout.flush()
            sys.stderr.flush()
            MPI.COMM_WORLD.Abort(1)


def _poll(requests, what):
    deadline = time.monotonic() + _timeout()
    pause = 1e-5
    while True:
        if all(r.Test() for r in requests):
            return
        if time.monotonic() > deadline:
            _P2P["faulted"] = True
            if not _P2P["hooked"]:
                atexit.register(_on_exit_abort)
                _P2P["hooked"] = True
            raise RuntimeError(f"{what} did not complete within PYCOMPILE_COMM_TIMEOUT={_timeout():g} s: the peer "
                               f"never made the matching call (or has exited)")
        time.sleep(pause)
        pause = min(pause * 2, 1e-3)



# ---- arguments -----------------------------------------------------------------------------------
def _graph_mode(fn):
    return RuntimeError(f"For {fn}, only PyNative mode is supported (as in MindSpore): graph code (jit / "
                        f"construct) calls the Primitives ops.AllReduce, ops.AllGather, ... instead")


def _tensor(fn, t, what="input tensor"):
    if isinstance(t, Symbolic):
        raise _graph_mode(fn)
    if not isinstance(t, Tensor):
        raise TypeError(f"For {fn}, the {what} must be tensor")
    return t


def _group_name(group):
    from pycompile.communication.management import GlobalComm
    if group is None:
        return GlobalComm.WORLD_COMM_GROUP
    if not isinstance(group, str):
        raise TypeError(f"The argument 'group' must be type of string, but got 'group' type : {type(group)}.")
    return group


def _async(async_op):
    if not isinstance(async_op, bool):
        raise TypeError(f"The argument 'async_op' must be a bool, but got {type(async_op)}.")


def _int(fn, v, what):
    if not isinstance(v, int) or isinstance(v, bool):
        raise TypeError(f"For {fn}, the {what} must be int")
    return v


def _reduce_op(fn, op):
    if not isinstance(op, str):
        raise TypeError(f"For {fn}, the input op type must be str")
    if op not in ReduceOps:
        raise TypeError(f"For {fn}, the input op value must be one of sum, prod, min, max, avg")
    return op


def _world_group(fn, group):
    """(world, group object) for a member of `group`; the errors of pycompile.communication."""
    from pycompile.communication import management
    name = _group_name(group)
    w = management.world(fn)
    g = w.comm_of(fn, name)
    return w, g


def _group_rank(fn, g, rank, what):
    if rank not in g.world_ranks:
        raise ValueError(f"For {fn}, the {what} rank {rank} (a global rank) is not a member of the group "
                         f"'{g.name}' (its ranks: {list(g.world_ranks)})")
    return g.world_ranks.index(rank)


def _handle(async_op):
    return _DONE if async_op else None


def _result(fn, t, value, async_op):
    """Write `value` into `t` in place (the default), or return (a new tensor, handle)."""
    if _INPLACE[fn]:
        t.set_data(np.asarray(value, dtype=t.asnumpy().dtype).reshape(t.shape))
        return _handle(async_op)
    return Tensor(np.asarray(value, dtype=t.asnumpy().dtype)), _handle(async_op)


def _allreduce(w, g, x, op):
    out = w.allreduce(x, _REDUCE_CODES[op], g.name)
    if op == "avg":
        out = (out / g.size).astype(x.dtype) if x.dtype.kind in "fc" else (out // g.size).astype(x.dtype)
    return out


# ---- collectives ---------------------------------------------------------------------------------
def all_reduce(tensor, op="sum", group=None, async_op=False):
    """Every rank gets the reduction (sum, prod, min, max, avg) of every rank's `tensor`."""
    _tensor("all_reduce", tensor)
    _reduce_op("all_reduce", op)
    _group_name(group)
    _async(async_op)
    w, g = _world_group("all_reduce", group)
    return _result("all_reduce", tensor, _allreduce(w, g, tensor.asnumpy(), op), async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """The ranks' `input_tensor`s concatenated along dimension 0, into `output_tensor`."""
    _tensor("all_gather_into_tensor", input_tensor)
    _group_name(group)
    _async(async_op)
    w, g = _world_group("all_gather_into_tensor", group)
    out = w.allgather(input_tensor.asnumpy(), g.name)
    if not _INPLACE["all_gather_into_tensor"]:
        return Tensor(out), _handle(async_op)
    _tensor("all_gather_into_tensor", output_tensor, "output tensor")
    _expect_shape("all_gather_into_tensor", output_tensor, out.shape)
    output_tensor.set_data(out.astype(output_tensor.asnumpy().dtype))
    return _handle(async_op)


def _expect_shape(fn, t, shape):
    if tuple(t.shape) != tuple(shape):
        raise ValueError(f"For {fn}, the output shape should be {list(shape)}, but got {list(t.shape)}.")


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """tensor_list[k] = rank k's `tensor` (a list of group-size tensors, filled in place)."""
    _inplace_only("all_gather")
    _tensor("all_gather", tensor)
    _async(async_op)
    w, g = _world_group("all_gather", group)
    _tensor_list("all_gather", tensor_list, g.size)
    x = tensor.asnumpy()
    out = w.allgather(x.reshape((1,) + x.shape), g.name)
    for k, t in enumerate(tensor_list):
        t.set_data(out[k].astype(x.dtype))
    return _handle(async_op)


def _tensor_list(fn, tensors, size):
    if not isinstance(tensors, (list, tuple)) or any(not isinstance(t, Tensor) for t in tensors):
        raise TypeError(f"For {fn}, the tensor list must be a list of Tensors")
    if len(tensors) != size:
        raise TypeError(f"For {fn}, the length of the tensor list must be the group size {size}, "
                        f"but got {len(tensors)}")


def reduce_scatter_tensor(output, input, op="sum", group=None, async_op=False):
    """Rank r gets block r (along dimension 0) of the reduction of every rank's `input`."""
    _tensor("reduce_scatter_tensor", input)
    _reduce_op("reduce_scatter_tensor", op)
    _group_name(group)
    _async(async_op)
    w, g = _world_group("reduce_scatter_tensor", group)
    x = input.asnumpy()
    if x.ndim == 0 or x.shape[0] % g.size:
        raise ValueError(f"For reduce_scatter_tensor, the input's dimension 0 must be divisible by the group size "
                         f"{g.size}, but got shape {list(x.shape)}")
    block = _allreduce(w, g, x, op).reshape((g.size, -1) + x.shape[1:])[g.world_ranks.index(w.rank)]
    if not _INPLACE["reduce_scatter_tensor"]:
        return Tensor(block), _handle(async_op)
    _tensor("reduce_scatter_tensor", output, "output tensor")
    _expect_shape("reduce_scatter_tensor", output, block.shape)
    output.set_data(block)
    return _handle(async_op)


def reduce_scatter(output, input_list, op="sum", group=None, async_op=False):
    """output = the reduction over the ranks of their input_list[my rank]."""
    _inplace_only("reduce_scatter")
    _tensor("reduce_scatter", output, "output tensor")
    _reduce_op("reduce_scatter", op)
    _async(async_op)
    w, g = _world_group("reduce_scatter", group)
    _tensor_list("reduce_scatter", input_list, g.size)
    parts = [t.asnumpy() for t in input_list]
    if any(p.shape != parts[0].shape or p.dtype != parts[0].dtype for p in parts):
        raise TypeError("For reduce_scatter, the tensors of input_list must have the same shape and dtype")
    total = _allreduce(w, g, np.stack(parts), op)
    output.set_data(total[g.world_ranks.index(w.rank)])
    return _handle(async_op)


def reduce(tensor, dst, op="sum", group=None, async_op=False):
    """The reduction of every rank's `tensor` into `dst`'s `tensor` (a global rank); the other ranks'
    tensors are left as they were."""
    _tensor("reduce", tensor)
    _int("reduce", dst, "dst")
    _reduce_op("reduce", op)
    _async(async_op)
    w, g = _world_group("reduce", group)
    _group_rank("reduce", g, dst, "dst")
    out = _allreduce(w, g, tensor.asnumpy(), op)
    if w.rank == dst:
        tensor.set_data(out)
    return _handle(async_op)


def broadcast(tensor, src, group=None, async_op=False):
    """Every rank's `tensor` becomes `src`'s (a global rank)."""
    _tensor("broadcast", tensor)
    _int("broadcast", src, "src")
    _async(async_op)
    w, g = _world_group("broadcast", group)
    root = _group_rank("broadcast", g, src, "src")
    return _result("broadcast", tensor, w.broadcast(tensor.asnumpy(), root, g.name), async_op)


def barrier(group=None, async_op=False, device_ids=None):
    """Returns when every rank of the group has called it."""
    _group_name(group)
    _async(async_op)
    w, g = _world_group("barrier", group)
    w.allreduce(np.zeros(1, np.int32), 0, g.name)
    return _handle(async_op)


def gather_into_tensor(output_tensor, input_tensor, dst=0, group=None, async_op=False):
    """On `dst`: the ranks' `input_tensor`s concatenated along dimension 0 into `output_tensor`."""
    _inplace_only("gather_into_tensor")
    _tensor("gather_into_tensor", input_tensor)
    _tensor("gather_into_tensor", output_tensor, "output tensor")
    _int("gather_into_tensor", dst, "dst")
    _async(async_op)
    w, g = _world_group("gather_into_tensor", group)
    _group_rank("gather_into_tensor", g, dst, "dst")
    out = w.allgather(input_tensor.asnumpy(), g.name)
    if w.rank == dst:
        _expect_shape("gather_into_tensor", output_tensor, out.shape)
        output_tensor.set_data(out.astype(output_tensor.asnumpy().dtype))
    return _handle(async_op)


def gather(tensor, gather_list, dst=0, group=None, async_op=False):
    """On `dst`: gather_list[k] = rank k's `tensor`."""
    _inplace_only("gather")
    _tensor("gather", tensor)
    _int("gather", dst, "dst")
    _async(async_op)
    w, g = _world_group("gather", group)
    _group_rank("gather", g, dst, "dst")
    x = tensor.asnumpy()
    out = w.allgather(x.reshape((1,) + x.shape), g.name)
    if w.rank == dst:
        _tensor_list("gather", gather_list, g.size)
        for k, t in enumerate(gather_list):
            t.set_data(out[k])
    return _handle(async_op)


def _from_src(fn, w, g, src, src_value, shape, dtype):
    """`src`'s array (of `shape` / `dtype` on every rank) on every rank."""
    root = _group_rank(fn, g, src, "src")
    buf = np.ascontiguousarray(src_value) if w.rank == src else np.zeros(shape, dtype)
    return w.broadcast(buf, root, g.name)


def scatter_tensor(output_tensor, input_tensor, src=0, group=None, async_op=False):
    """`src`'s `input_tensor` split evenly along dimension 0: rank r's block into its `output_tensor`."""
    _inplace_only("scatter_tensor")
    _tensor("scatter_tensor", input_tensor)
    _tensor("scatter_tensor", output_tensor, "output tensor")
    _int("scatter_tensor", src, "src")
    _async(async_op)
    w, g = _world_group("scatter_tensor", group)
    o = output_tensor.asnumpy()
    shape = (g.size * (o.shape[0] if o.ndim else 1),) + o.shape[1:]
    if w.rank == src and tuple(input_tensor.shape) != shape:
        raise ValueError(f"For scatter_tensor, the input shape should be {list(shape)} (the output's dimension 0 "
                         f"times the group size {g.size}), but got {list(input_tensor.shape)}.")
    full = _from_src("scatter_tensor", w, g, src, input_tensor.asnumpy().astype(o.dtype), shape, o.dtype)
    output_tensor.set_data(full.reshape((g.size,) + o.shape)[g.world_ranks.index(w.rank)])
    return _handle(async_op)


def scatter(tensor, scatter_list, src=0, group=None, async_op=False):
    """tensor = `src`'s scatter_list[my rank]."""
    _inplace_only("scatter")
    _tensor("scatter", tensor)
    _int("scatter", src, "src")
    _async(async_op)
    w, g = _world_group("scatter", group)
    x = tensor.asnumpy()
    stacked = None
    if w.rank == src:
        _tensor_list("scatter", scatter_list, g.size)
        stacked = np.stack([t.asnumpy().astype(x.dtype) for t in scatter_list])
    full = _from_src("scatter", w, g, src, stacked, (g.size,) + x.shape, x.dtype)
    tensor.set_data(full[g.world_ranks.index(w.rank)])
    return _handle(async_op)


# ---- uneven exchanges: sizes first, then payloads padded to the largest -------------------------
def _gather_ragged(w, g, flat: np.ndarray) -> list:
    """Every rank's 1-D array (lengths may differ), in group-rank order."""
    sizes = w.allgather(np.array([flat.size], np.int64), g.name)
    pad = np.zeros(int(sizes.max()), flat.dtype)
    pad[:flat.size] = flat
    rows = w.allgather(pad.reshape(1, -1), g.name).reshape(g.size, -1)
    return [rows[k, :int(sizes[k])] for k in range(g.size)]


def _splits(fn, sizes, total, n, what):
    if sizes is None or len(sizes) == 0:
        if total % n:
            raise ValueError(f"For {fn}, when {what} is empty, the dimension 0 ({total}) must be divisible by the "
                             f"group size {n}")
        return [total // n] * n
    sizes = [int(s) for s in sizes]
    if len(sizes) != n or sum(sizes) != total or min(sizes) < 0:
        raise ValueError(f"For {fn}, {what} must have {n} non-negative entries summing to {total}, but got {sizes}")
    return sizes


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None,
                      async_op=False):
    """Block k of `input` (dimension 0, split by input_split_sizes) goes to rank k; `output` is the
    blocks received, in rank order (split by output_split_sizes)."""
    fn = "all_to_all_single"
    _tensor(fn, input)
    _async(async_op)
    w, g = _world_group(fn, group)
    x = input.asnumpy()
    rows = x.shape[0] if x.ndim else 1
    send = _splits(fn, input_split_sizes, rows, g.size, "input_split_sizes")
    me = g.world_ranks.index(w.rank)
    per_row = int(np.prod(x.shape[1:], dtype=np.int64)) if x.ndim else 1
    meta = w.allgather(np.array(send, np.int64).reshape(1, -1), g.name).reshape(g.size, g.size)
    payloads = _gather_ragged(w, g, x.reshape(-1))
    recv = [int(meta[k, me]) for k in range(g.size)]
    if output_split_sizes is not None and len(output_split_sizes) and [int(s) for s in output_split_sizes] != recv:
        raise ValueError(f"For {fn}, output_split_sizes {list(output_split_sizes)} do not match what the ranks send "
                         f"to this rank: {recv}")
    parts = []
    for k in range(g.size):
        start = int(meta[k, :me].sum()) * per_row
        parts.append(payloads[k][start:start + recv[k] * per_row])
    out = np.concatenate(parts).reshape((sum(recv),) + x.shape[1:]) if x.ndim else np.concatenate(parts)
    if not _INPLACE[fn]:
        return Tensor(out), _handle(async_op)
    _tensor(fn, output, "output tensor")
    _expect_shape(fn, output, out.shape)
    output.set_data(out)
    return _handle(async_op)


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """input_tensor_list[k] goes to rank k; output_tensor_list[k] receives rank k's (shapes may differ)."""
    fn = "all_to_all"
    _async(async_op)
    w, g = _world_group(fn, group)
    _tensor_list(fn, input_tensor_list, g.size)
    xs = [t.asnumpy() for t in input_tensor_list]
    if len({a.dtype for a in xs}) > 1:
        raise TypeError(f"For {fn}, the tensors of input_tensor_list must have the same dtype")
    me = g.world_ranks.index(w.rank)
    meta = w.allgather(np.array([a.size for a in xs], np.int64).reshape(1, -1), g.name).reshape(g.size, g.size)
    payloads = _gather_ragged(w, g, np.concatenate([a.reshape(-1) for a in xs]))
    got = []
    for k in range(g.size):
        start = int(meta[k, :me].sum())
        got.append(payloads[k][start:start + int(meta[k, me])])
    if not _INPLACE[fn]:
        return tuple(Tensor(a) for a in got), _handle(async_op)
    _tensor_list(fn, output_tensor_list, g.size)
    for t, a in zip(output_tensor_list, got):
        if int(np.prod(t.shape, dtype=np.int64)) != a.size:
            raise ValueError(f"For {fn}, an output tensor of shape {list(t.shape)} cannot hold the {a.size} "
                             f"elements a rank sends")
        t.set_data(a.reshape(t.shape).astype(t.asnumpy().dtype))
    return _handle(async_op)


def all_to_all_v_c(output, input, send_count_matrix, group=None, async_op=False):
    """Flat all-to-all: send_count_matrix[i * N + j] elements go from rank i to rank j."""
    fn = "all_to_all_v_c"
    _tensor(fn, input)
    _async(async_op)
    w, g = _world_group(fn, group)
    n, me = g.size, g.world_ranks.index(w.rank)
    counts = np.asarray(send_count_matrix, np.int64).reshape(-1)
    if counts.size != n * n:
        raise ValueError(f"For {fn}, send_count_matrix must have {n * n} entries, but got {counts.size}")
    counts = counts.reshape(n, n)
    x = input.asnumpy().reshape(-1)
    if x.size < counts[me].sum():
        raise ValueError(f"For {fn}, the input has {x.size} elements, fewer than this rank sends ({counts[me].sum()})")
    payloads = _gather_ragged(w, g, x)
    out = np.concatenate([payloads[k][counts[k, :me].sum():counts[k, :me + 1].sum()] for k in range(n)])
    if not _INPLACE[fn]:
        return Tensor(out), _handle(async_op)
    _tensor(fn, output, "output tensor")
    output.set_data(out.reshape(output.shape) if out.size == int(np.prod(output.shape, dtype=np.int64)) else out)
    return _handle(async_op)


def all_gather_into_tensor_uneven(output, input, output_split_sizes=None, group=None, async_op=False):
    """The ranks' inputs (dimension 0 may differ) concatenated along dimension 0 into `output`."""
    fn = "all_gather_into_tensor_uneven"
    _tensor(fn, input)
    _async(async_op)
    w, g = _world_group(fn, group)
    x = input.asnumpy()
    parts = _gather_ragged(w, g, x.reshape(-1))
    out = np.concatenate(parts).reshape((-1,) + x.shape[1:])
    if output_split_sizes is not None and len(output_split_sizes):
        per_row = max(int(np.prod(x.shape[1:], dtype=np.int64)), 1)
        got = [p.size // per_row for p in parts]
        if [int(s) for s in output_split_sizes] != got:
            raise ValueError(f"For {fn}, output_split_sizes {list(output_split_sizes)} do not match the ranks' "
                             f"dimension 0 sizes {got}")
    _tensor(fn, output, "output tensor")
    _expect_shape(fn, output, out.shape)
    output.set_data(out)
    return _handle(async_op)


def reduce_scatter_tensor_uneven(output, input, input_split_sizes=None, op="sum", group=None, async_op=False):
    """The reduction of the ranks' inputs, split along dimension 0 by input_split_sizes: rank r's part."""
    fn = "reduce_scatter_tensor_uneven"
    _tensor(fn, input)
    _reduce_op(fn, op)
    _async(async_op)
    w, g = _world_group(fn, group)
    x = input.asnumpy()
    sizes = _splits(fn, input_split_sizes, x.shape[0] if x.ndim else 1, g.size, "input_split_sizes")
    me = g.world_ranks.index(w.rank)
    total = _allreduce(w, g, x, op)
    part = total[sum(sizes[:me]):sum(sizes[:me + 1])]
    _tensor(fn, output, "output tensor")
    _expect_shape(fn, output, part.shape)
    output.set_data(part)
    return _handle(async_op)


__all__ = ['set_comm_ops_inplace', 'CommHandle', 'all_reduce', 'all_gather_into_tensor', 'all_gather', 'reduce_scatter_tensor', 'reduce_scatter', 'reduce', 'broadcast', 'barrier', 'gather_into_tensor', 'gather', 'scatter_tensor', 'scatter', 'all_to_all_single', 'all_to_all', 'all_to_all_v_c', 'all_gather_into_tensor_uneven', 'reduce_scatter_tensor_uneven']
