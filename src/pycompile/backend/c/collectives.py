"""C for the collective ops (pycompile/ops/defs/comm.py): one call of the runtime's MPI bridge
(pc_api.allreduce ..., csrc/comm.c) per node, in the graph's own native call.

Generated code includes no MPI header: it passes the group by name and the dtype / reduction as
the runtime's codes. A table without the collectives (ABI < 4, or a C caller that leaves them
NULL) makes the call fail with the op's runtime error instead of crashing.
"""
from __future__ import annotations

from pycompile.backend.c import text
from pycompile.backend.c.naming import nid


def _call(ctx, w, n, fn: str, count: int, extra: str = "", tail: str = "") -> None:
    x = n.inputs[0]
    out = ctx.declare_ptr(w, n)
    loc = f" at {n.loc}" if n.loc else ""
    # CommError: the executable appends the runtime's reason (pc_comm_last_error)
    code = ctx.runtime_error(f"CommError: For '{n.op.name}', the collective{loc} failed")
    group = n.attrs.get("group", "hccl_world_group")
    attr = int(n.attrs.get("root_rank" if fn == "broadcast" else "op", 0)) if fn != "allgather" else -1
    # what the ranks agree on at the step's first call (communication/_agree.py)
    ctx.mod.collectives.append([n.op.name, group, x.type.dtype.name, list(x.type.shape), attr,
                                str(n.loc) if n.loc else ""])
    args = f"{ctx.ptr(x)}, {out}, {count}L, {x.type.dtype.code}{extra}, {text.string(group)}{tail}"
    w.line(f"if (RT->abi_version < 4 || !RT->{fn} || RT->{fn}({args})) return PC_ERR_BASE + {code};")


def _allreduce(ctx, w, n):
    _call(ctx, w, n, "allreduce", n.inputs[0].type.size, f", {int(n.attrs.get('op', 0))}")


def _allgather(ctx, w, n):
    _call(ctx, w, n, "allgather", n.inputs[0].type.size)


def _reduce_scatter(ctx, w, n):
    _call(ctx, w, n, "reduce_scatter", n.type.size, f", {int(n.attrs.get('op', 0))}")


def _broadcast(ctx, w, n):
    _call(ctx, w, n, "broadcast", n.type.size, f", {int(n.attrs.get('root_rank', 0))}")


def _request(ctx, start) -> str:
    """The C variable holding the MPI request of an AllReduceStart node (top level of the function,
    so a split function carries it across parts like any other local)."""
    return f"rq{nid(start)}"


def _allreduce_start(ctx, w, n):
    rq = _request(ctx, n)
    w.line(f"int64_t {rq} = 0;")
    _call(ctx, w, n, "allreduce_start", n.inputs[0].type.size, f", {int(n.attrs.get('op', 0))}", f", &{rq}")


def _allreduce_wait(ctx, w, n):
    start = n.inputs[0]
    loc = f" at {n.loc}" if n.loc else ""
    code = ctx.runtime_error(f"CommError: For 'AllReduce', the non-blocking all-reduce{loc} failed")
    w.line(f"if (!RT->wait || RT->wait(&{_request(ctx, start)})) return PC_ERR_BASE + {code};")
    ctx.declare_ptr(w, n, ctx.ptr(start))


def reduces_in_place(nodes, n, storage) -> bool:
    """An AllReduceStart `n` of the block `nodes` may reduce its source in place (the runtime
    passes MPI_IN_PLACE: MPI then does not copy the source into a second buffer, 2.68 MB a step for
    W5's gradients) when the source is a temporary of the arena that nothing but the start and its
    wait reads: a gradient bucket the backward wrote for the reduction alone."""
    from pycompile.ops import prims as P
    if getattr(n, "op", None) is not P.AllReduceStart:
        return False
    x = n.inputs[0]
    s = storage.get(id(x))
    if s is None or s.kind != "slot" or not any(m is x for m in nodes):
        return False
    for m in nodes:
        if m is n or (m.op is P.AllReduceWait and m.inputs[0] is n):
            continue
        if _reads(m, x):
            return False
    return True


def _reads(m, v) -> bool:
    return any(i is v for i in m.inputs) or any(_reads(k, v) for b in m.blocks for k in b.nodes) or \
        any(r is v for b in m.blocks for r in b.results)


def progress_points(block) -> set:
    """ids of the nodes of `block` after which a progress call goes: those that compute while an
    all-reduce started in the block is in flight (MPI advances it only inside its calls; one call
    per kernel costs about a microsecond and lets the reduction run alongside the backward)."""
    from pycompile.compiler import ir
    from pycompile.ops import prims as P
    out, in_flight = set(), 0
    for n in block.nodes:
        if n.op is P.AllReduceStart:
            in_flight += 1
        elif n.op is P.AllReduceWait:
            in_flight -= 1
        elif in_flight > 0 and n.op is not ir.GETITEM:
            lower = getattr(n.op, "lower", None)
            if lower is None or (lower.emits_code and not lower.aliases_input):
                out.add(id(n))
    return out


def emit_progress(w) -> None:
    w.line("if (RT->abi_version >= 5 && RT->comm_progress) RT->comm_progress();")


EFFECTS = {"allreduce_start": _allreduce_start, "allreduce_wait": _allreduce_wait, "allreduce": _allreduce, "allgather": _allgather, "reduce_scatter": _reduce_scatter,
           "broadcast": _broadcast}
