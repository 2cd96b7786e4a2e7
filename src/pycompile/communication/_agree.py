"""Ranks agree on a collective before MPI sees it (issue 31).

MPI checks nothing across ranks: an all-reduce of 4 floats on one rank and 6 on the other aborts
with "Message truncated", and one of float32 and int32 (the same bytes) silently sums bit patterns.
So before a collective runs, the ranks of its group all-gather a small record of what each one
is about to do, and every rank raises the same clear error when the records differ:

* eager (PyNative) collectives: every call sends (op, dtype, reduction or root, shape);
* a compiled step: at its first call, per group its collectives use, (the step's collectives on
  that group: op, dtype, shape, reduction) as a hash - unless the group's ranks agreed on that
  hash before (another specialization of the step, such as a smaller last batch on one rank
  only, whose gradients are the same). Only when the hashes differ do the ranks exchange the
  full lists, and the graphs' Parameters, to name the first Parameter (else the first
  collective) that differs.

The records travel on a duplicate of the group's communicator (Group.check), so a check one rank
makes and another does not never meets a collective carrying data (both then end at the
timeout). A record is 16 int64 in every case, so an eager call on one rank meeting a compiled
step's check on another compares records too. The exchange runs through the runtime's
all-gather, under PYCOMPILE_COMM_TIMEOUT like any collective.
"""
from __future__ import annotations

import hashlib
import json

import numpy as np

from pycompile.common import dtype as mstype

RECORD = 16
CHECK_SUFFIX = " (check)"          # the runtime's name of a group's duplicate (_world.Group.check)
_KINDS = {"AllReduce": 1, "AllGather": 2, "ReduceScatter": 3, "Broadcast": 4, "AllReduceStart": 5}
_STEP, _DETAILS = 9, 10                # a compiled step's check; the length of its details
_NAMES = {v: k for k, v in _KINDS.items()}
_REDUCE = ("sum", "max", "min", "prod")


def _gather(world, group, rec: np.ndarray, what: str) -> np.ndarray:
    """Every rank's `rec` (int64 or uint8, the same length on every rank), in group-rank order.
    `what`: the collective or step being checked, for the error."""
    from pycompile._rt import ffi, lib
    rec = np.ascontiguousarray(rec)
    out = np.empty((group.size,) + rec.shape, rec.dtype)
    code = 4 if rec.dtype == np.int64 else 5
    name = (group.name + CHECK_SUFFIX).encode()          # (the group's duplicate: Group.check)
    if lib.pc_get_api().allgather(ffi.from_buffer(rec), ffi.from_buffer(out), rec.size, code, name):
        raise RuntimeError(f"For {what}, the ranks of the group '{group.name}' could not check that they make "
                           f"the same call: {last_error().replace(CHECK_SUFFIX, '')}")
    return out


def last_error() -> str:
    """The runtime's message for this thread's last failed collective (csrc/comm.c)."""
    from pycompile._rt import ffi, lib
    buf = ffi.new("char[]", 1024)
    n = lib.pc_comm_last_error(buf, 1024)
    return ffi.string(buf, n).decode(errors="replace") or "unknown failure"


def _ordinal(k: int) -> str:
    return f"{k}{'th' if 10 <= k % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(k % 10, 'th')}"


def _dtype_name(code: int) -> str:
    try:
        return mstype.from_code(int(code)).name
    except KeyError:
        return f"dtype {code}"


# ---- eager collectives ---------------------------------------------------------------------------------
def _eager_record(op_name, x, extra) -> np.ndarray:
    rec = np.zeros(RECORD, np.int64)
    shape = x.shape
    rec[:4] = (_KINDS[op_name], mstype.from_numpy(x.dtype).code, extra[0] if extra else -1, len(shape))
    rec[4:4 + min(len(shape), 11)] = shape[:11]
    rec[15] = int.from_bytes(hashlib.sha256(repr(shape).encode()).digest()[:7], "little")
    return rec


def _describe(rec) -> str:
    kind = int(rec[0])
    if kind == _STEP:
        return "the first call of a compiled step (the check of its collectives)"
    if kind not in _NAMES:
        return "something that is not a collective"
    name = _NAMES[kind]
    ndim = int(rec[3])
    shape = tuple(int(d) for d in rec[4:4 + min(ndim, 11)]) + (("...",) if ndim > 11 else ())
    attr = int(rec[2])
    how = (f"({_REDUCE[attr]})" if name in ("AllReduce", "ReduceScatter", "AllReduceStart") and 0 <= attr < 4
           else f"(root {attr})" if name == "Broadcast" else "")
    return f"{name}{how} of {_dtype_name(rec[1])} {shape}"


def _why(a, b) -> str:
    if a[0] != b[0]:
        return "they are in different collectives"
    if a[1] != b[1]:
        return "the dtypes differ"
    size = [int(np.prod(r[4:4 + min(int(r[3]), 11)], dtype=np.int64)) for r in (a, b)]
    if size[0] != size[1] and a[3] <= 11 and b[3] <= 11:
        return f"the sizes differ ({size[0]} vs {size[1]} elements)"
    if not np.array_equal(a[3:], b[3:]):
        return "the shapes differ"
    return "the reductions differ" if a[0] != _KINDS["Broadcast"] else "the roots differ"


def _disagreement(records, group) -> str | None:
    """None when every rank's record equals rank 0's; else each rank's call and the reason."""
    first = next((k for k in range(1, len(records)) if not np.array_equal(records[k], records[0])), None)
    if first is None:
        return None
    calls = "; ".join(f"rank {group.world_ranks[k]}: {_describe(r)}" for k, r in enumerate(records))
    return f"{calls} ({_why(records[0], records[first])})"


def eager(world, op_name: str, group, x: np.ndarray, extra: tuple) -> None:
    """Raise on every rank of `group` when its ranks do not make the same call."""
    bad = _disagreement(_gather(world, group, _eager_record(op_name, x, extra), f"'{op_name}'"), group)
    if bad is not None:
        raise RuntimeError(f"For '{op_name}', the ranks of the group '{group.name}' called collectives that do "
                           f"not match (every rank must pass the same shape and dtype, in the same order of "
                           f"collectives): {bad}")


# ---- compiled steps -------------------------------------------------------------------------------------
def compiled_step(world, step: str, collectives: list, params) -> None:
    """At the first call of a compiled step: per group its collectives use (in order of first use),
    the ranks of the group agree on them. `collectives`: [op, group, dtype name, shape, reduction
    or root, source location] per collective in the step's code order; `params`: the step's
    Parameters."""
    by_group: dict = {}
    for c in collectives:
        by_group.setdefault(c[1], []).append(c)
    for name, calls in by_group.items():
        group = world.groups.get(name)
        if group is None or group.comm is None or group.size < 2:
            continue        # not a member, or nothing to agree with: the collective itself says so
        digest = hashlib.sha256(json.dumps([[c[0], c[2], list(c[3]), c[4]] for c in calls]).encode()).digest()
        if digest in group.agreed:
            continue        # another specialization with the same collectives (a smaller last batch)
        rec = np.zeros(RECORD, np.int64)
        rec[:2] = (_STEP, len(calls))
        rec[2:5] = np.frombuffer(digest[:24], np.int64)
        records = _gather(world, group, rec, f"the compiled step '{step}'")
        if all(np.array_equal(r, records[0]) for r in records[1:]):
            group.agreed.add(digest)
            continue
        if any(int(r[0]) != _STEP for r in records):
            raise RuntimeError(f"For the compiled step '{step}', the ranks of the group '{name}' do not run the same "
                               f"step: {_disagreement(records, group)}")
        raise RuntimeError(f"For the compiled step '{step}', the ranks of the group '{name}' run different "
                           f"collectives: {_explain(world, group, calls, params, step)}. Every rank must run the same "
                           f"network, with the same shapes and dtypes")


def _explain(world, group, calls, params, step) -> str:
    """Exchange each rank's collectives and Parameters; name the first that differs."""
    mine = json.dumps({"calls": [[c[0], c[2], list(c[3]), c[4], c[5]] for c in calls],
                       "params": [[p.name, str(p._data.dtype), list(p._data.shape)] for p in params]}).encode()
    n = np.zeros(RECORD, np.int64)
    n[:2] = (_DETAILS, len(mine))
    what = f"the compiled step '{step}'"
    longest = int(_gather(world, group, n, what)[:, 1].max())
    buf = np.zeros(longest, np.uint8)
    buf[:len(mine)] = np.frombuffer(mine, np.uint8)
    every = [json.loads(bytes(b).rstrip(b"\0")) for b in _gather(world, group, buf, what)]
    ranks = group.world_ranks
    out = []
    first = _first_difference([[c[:4] for c in e["calls"]] for e in every])      # (not where they are)
    if first is not None:
        k, i = first

        def call(e):
            c = e["calls"][i] if i < len(e["calls"]) else None
            return "no such collective" if c is None else f"{c[0]} of {c[1]} {tuple(c[2])}"
        a, b = every[0]["calls"], every[k]["calls"]
        c = a[i] if i < len(a) else b[i]
        where = f" at {c[4]}" if c[4] else ""
        why = ""
        if i < len(a) and i < len(b):
            sa, sb = int(np.prod(a[i][2], dtype=np.int64)), int(np.prod(b[i][2], dtype=np.int64))
            why = (f": the sizes differ ({sa} vs {sb} elements)" if sa != sb else
                   ": the dtypes differ" if a[i][1] != b[i][1] else ": the shapes differ" if a[i][2] != b[i][2] else
                   ": the reductions differ")
        elif len(a) != len(b):
            why = f": rank {ranks[0]} runs {len(a)} collectives on the group, rank {ranks[k]} {len(b)}"
        out.append(f"the {_ordinal(i + 1)} one ({c[0]}{where}) is {call(every[0])} on rank {ranks[0]} but "
                   f"{call(every[k])} on rank {ranks[k]}{why}")
    first = _first_difference([e["params"] for e in every])
    if first is not None:
        k, i = first
        a, b = every[0]["params"], every[k]["params"]
        pa, pb = (a[i] if i < len(a) else None), (b[i] if i < len(b) else None)
        if pa is not None and pb is not None and pa[0] == pb[0]:
            out.append(f"the networks differ from the Parameter '{pa[0]}': {pa[1]} {tuple(pa[2])} on rank {ranks[0]} "
                       f"but {pb[1]} {tuple(pb[2])} on rank {ranks[k]}")
        else:
            def name(p):
                return "nothing" if p is None else f"'{p[0]}' ({p[1]} {tuple(p[2])})"
            out.append(f"the networks differ from their {_ordinal(i + 1)} Parameter: {name(pa)} on rank {ranks[0]} "
                       f"but {name(pb)} on rank {ranks[k]}")
    return "; ".join(out) if out else "the ranks' collectives differ in a way their descriptions do not show"


def _first_difference(lists):
    """(rank index, item index) of the first item where some rank's list differs from rank 0's."""
    best = None
    for k in range(1, len(lists)):
        a, b = lists[0], lists[k]
        i = next((i for i in range(max(len(a), len(b))) if i >= len(a) or i >= len(b) or a[i] != b[i]), None)
        if i is not None and (best is None or i < best[1]):
            best = (k, i)
    return best
