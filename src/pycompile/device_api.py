"""MindSpore's device-runtime names (`mindspore.memory_allocated`, `Stream`, `Event`, ...), answered
as MindSpore 2.10's CPU build answers them (recorded in tests/surface33/fixtures/ms_surface33.json).

* Memory statistics describe MindSpore's device memory pool. Its CPU build has no such pool and
  reports 0 bytes everywhere; pycompile has none either (tensors are NumPy arrays, compiled
  calls allocate their outputs through NumPy), so the counters are 0 here too, in MindSpore's
  dict / table layout. `empty_cache` and the `reset_*` functions have nothing to free or reset.
* pycompile runs every op synchronously on the host, as MindSpore's CPU build does: one stream
  (id 0), `Stream.query()` / `synchronize()` return None, `current_stream()` / `default_stream()`
  are None on CPU (MindSpore logs "CPU device is not supported" and returns None), and
  `StreamCtx` changes nothing. `Event()` has no CPU implementation in MindSpore 2.10 (its
  constructor raises TypeError): pycompile raises TypeError too, with a message saying so.
"""
from __future__ import annotations

import collections
import os
import sys

from pycompile.runtime import dispatch_threads_num, launch_blocking  # noqa: F401

DeviceInfo = collections.namedtuple("DeviceInfo", ["device_target", "device_id"])

_NAMES = ("Reserved memory", "Allocated memory", "Idle memory", "Eager free memory", "Max reserved memory",
          "Max allocated memory")


def memory_stats(device_target=None) -> dict:
    """The device pool's statistics: all 0 on the CPU (no device pool)."""
    pool = {"block_unit_size": 0, "block_counts": 0, "blocks_info": {}}
    return {"total_reserved_memory": 0, "total_allocated_memory": 0, "total_idle_memory": 0,
            "total_eager_free_memory": 0, "max_reserved_memory": 0, "max_allocated_memory": 0,
            "common_mem_pool_stats": dict(pool),
            "persistent_mem_pool_stats": {"block_counts": 0, "block_unit_size": 0, "blocks_info": {}}}


def memory_summary(device_target=None) -> str:
    """memory_stats as MindSpore's table."""
    rule = "|" + "-" * 45 + "|"
    lines = ["|" + "=" * 45 + "|", "|" + " " * 15 + "Memory summary" + " " * 16 + "|", "|" + "=" * 45 + "|",
             f"| {'Metric':20s} | {'Data':20s} |", rule]
    for i, name in enumerate(_NAMES):
        lines.append(f"| {name:20s} | {'0 B':>8s}{'':12s} |")
        lines.append(rule if i < len(_NAMES) - 1 else "|" + "=" * 45 + "|")
    return "\n".join(lines) + "\n"


def memory_allocated(device_target=None) -> int:
    """Bytes the device pool holds for tensors: 0 on the CPU."""
    return 0


def max_memory_allocated(device_target=None) -> int:
    """Peak of memory_allocated: 0 on the CPU."""
    return 0


def memory_reserved(device_target=None) -> int:
    """Bytes the device pool has reserved: 0 on the CPU."""
    return 0


def max_memory_reserved(device_target=None) -> int:
    """Peak of memory_reserved: 0 on the CPU."""
    return 0


def empty_cache() -> None:
    """Release the device pool's cached blocks (there are none on the CPU)."""


def reset_peak_memory_stats(device_target=None) -> None:
    """Reset the peaks (always 0 on the CPU)."""


def reset_max_memory_allocated(device_target=None) -> None:
    """Reset max_memory_allocated (always 0 on the CPU)."""


def reset_max_memory_reserved(device_target=None) -> None:
    """Reset max_memory_reserved (always 0 on the CPU)."""


def ms_memory_recycle() -> None:
    """Recycle memory the compiled graphs hold (compiled calls keep none between calls)."""


def set_memory(init_size="2GB", increase_size="2GB", max_size="1024GB", optimize_level="O0",
               huge_page_reserve_size="0GB") -> None:
    """The device pool's sizes: checked, then unused (there is no device pool on the CPU)."""
    for name, value in (("init_size", init_size), ("increase_size", increase_size), ("max_size", max_size),
                        ("huge_page_reserve_size", huge_page_reserve_size)):
        if not isinstance(value, str) or not value.upper().endswith("GB") or \
                not value[:-2].replace(".", "", 1).isdigit():
            raise ValueError(f"For 'set_memory', the argument '{name}' should be in a format like '1GB', "
                             f"but got {value!r}.")
    if optimize_level not in ("O0", "O1"):
        raise ValueError(f"For 'set_memory', the argument 'optimize_level' must be 'O0' or 'O1', "
                         f"but got {optimize_level!r}.")


class Stream:
    """The host's one stream. Work is already complete when a call returns, so `query` and
    `synchronize` have nothing to wait for (None, as MindSpore's CPU build returns)."""

    def __init__(self, priority=0, **kwargs):
        if isinstance(priority, bool) or not isinstance(priority, int):
            raise TypeError(f"For 'Stream', the argument 'priority' must be int, but got {type(priority)}.")
        self.device_name, self.device_id, self.id = "CPU", 0, 0

    def stream_id(self) -> int:
        return self.id

    def query(self):
        return None

    def synchronize(self):
        return None

    def record_event(self, event=None):
        return None

    def wait_event(self, event):
        return None

    def wait_stream(self, stream):
        return None

    def __eq__(self, other):
        return isinstance(other, Stream) and other.id == self.id

    def __hash__(self):
        return hash(("Stream", self.id))

    def __repr__(self):
        return f"Stream(device_name={self.device_name}, device_id:{self.device_id}, stream id:{self.id})"


class StreamCtx:
    """`with StreamCtx(stream):` - runs the block on the host's one stream (nothing to switch)."""

    def __init__(self, ctx_stream):
        if ctx_stream is not None and not isinstance(ctx_stream, Stream):
            raise TypeError(f"For 'StreamCtx', the argument 'ctx_stream' must be Stream or None, "
                            f"but got {type(ctx_stream)}.")
        self.stream = ctx_stream

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class StreamLimitCtx(StreamCtx):
    """`with StreamLimitCtx(stream, cube_num, vector_num):` - Ascend core limits; nothing on the CPU."""

    def __init__(self, ctx_stream, cube_num=-1, vector_num=-1):
        super().__init__(ctx_stream)


def current_stream():
    """None on the CPU (MindSpore 2.10's CPU build returns None)."""
    return None


def default_stream():
    """None on the CPU (MindSpore 2.10's CPU build returns None)."""
    return None


def communication_stream() -> Stream:
    """The stream collectives run on: the host's one stream."""
    return Stream()


def set_cur_stream(stream) -> None:
    """Select the current stream (the host's one stream stays current)."""
    if stream is not None and not isinstance(stream, Stream):
        raise TypeError(f"For 'set_cur_stream', the argument 'stream' must be Stream, but got {type(stream)}.")


def set_stream_limit(stream, cube_num=-1, vector_num=-1) -> None:
    """Ascend cube / vector core limits of a stream: accepted, nothing to limit on the CPU."""


def reset_stream_limit(stream) -> None:
    """Undo set_stream_limit (nothing to undo on the CPU)."""


def set_device_limit(device, cube_num=-1, vector_num=-1) -> None:
    """Ascend core limits of a device: accepted, nothing to limit on the CPU."""


class Event:
    """A device event. MindSpore 2.10's CPU build has none: constructing one raises TypeError
    there, and here."""

    def __init__(self, enable_timing=False, blocking=False):
        raise TypeError("mindspore.Event is not available on the CPU: MindSpore 2.10's CPU build raises "
                        "TypeError for Event() as well (events exist on Ascend / GPU streams). Time host code "
                        "with time.perf_counter() after ms.synchronize().")


def get_current_device() -> DeviceInfo:
    """(device_target, device_id) of the current context: ('CPU', 0)."""
    from pycompile.common.context import get_context
    return DeviceInfo(get_context("device_target"), int(get_context("device_id") or 0))


_AFFINITY_SET = []


def _cpu_list(spec) -> list:
    cpus = []
    for item in spec:
        if isinstance(item, int) and not isinstance(item, bool):
            cpus.append(item)
            continue
        lo, _, hi = str(item).partition("-")
        if not lo.isdigit() or (hi and not hi.isdigit()):
            raise ValueError(f"For 'set_cpu_affinity', the 'affinity_cpu_list' items must be ints or ranges "
                             f"like '0-3', but got {item!r}.")
        cpus.extend(range(int(lo), int(hi or lo) + 1))
    return cpus


def set_cpu_affinity(enable_affinity, affinity_cpu_list=None, module_to_cpu_dict=None, bind_file=None) -> None:
    """Bind this process's threads to CPUs. With a list (ints or 'a-b' ranges) the process is bound
    with os.sched_setaffinity, so the compiled kernels' threads run there; without one the cores
    the process may already use stay as they are. Like MindSpore, it may be called only once."""
    if not isinstance(enable_affinity, bool):
        raise TypeError(f"For 'set_cpu_affinity', the argument 'enable_affinity' must be bool, "
                        f"but got {type(enable_affinity)}.")
    if _AFFINITY_SET:
        raise RuntimeError("The 'mindspore.runtime.set_cpu_affinity' cannot be set repeatedly.")
    if affinity_cpu_list is not None and not isinstance(affinity_cpu_list, (list, dict)):
        raise TypeError(f"For 'set_cpu_affinity', the argument 'affinity_cpu_list' must be list or dict, "
                        f"but got {type(affinity_cpu_list)}.")
    _AFFINITY_SET.append(enable_affinity)
    if enable_affinity and affinity_cpu_list:
        spec = affinity_cpu_list if isinstance(affinity_cpu_list, list) else \
            [c for v in affinity_cpu_list.values() for c in v]
        if hasattr(os, "sched_setaffinity"):
            os.sched_setaffinity(0, _cpu_list(spec))


def set_recursion_limit(recursion_limit=1000) -> None:
    """The depth of nested calls graph compilation may inline. pycompile's frontend recurses on
    Python's stack, so the limit raises Python's recursion limit (never lowers it)."""
    if isinstance(recursion_limit, bool) or not isinstance(recursion_limit, int):
        raise TypeError(f"The input value must be int, but got '{type(recursion_limit).__name__}'")
    if recursion_limit <= 0:
        raise ValueError(f"The input value must be int and must > 0, but got '{recursion_limit}' with type "
                         f"'{type(recursion_limit).__name__}'.")
    if recursion_limit > sys.getrecursionlimit():
        sys.setrecursionlimit(recursion_limit)


def get_level() -> str:
    """MindSpore's log level (the GLOG_v knob, '2' = WARNING unless set)."""
    from pycompile.common import knobs
    return knobs.get("GLOG_v")


def get_log_config() -> dict:
    """MindSpore's log settings: GLOG_v and GLOG_logtostderr (knobs, defaults '2' and '1')."""
    from pycompile.common import knobs
    return {"GLOG_v": get_level(), "GLOG_logtostderr": knobs.get("GLOG_logtostderr")}


__all__ = ["memory_stats", "memory_summary", "memory_allocated", "max_memory_allocated", "memory_reserved",
           "max_memory_reserved", "empty_cache", "reset_peak_memory_stats", "reset_max_memory_allocated",
           "reset_max_memory_reserved", "ms_memory_recycle", "set_memory", "Stream", "StreamCtx", "StreamLimitCtx",
           "current_stream", "default_stream", "communication_stream", "set_cur_stream", "set_stream_limit",
           "reset_stream_limit", "set_device_limit", "Event", "get_current_device", "set_cpu_affinity",
           "set_recursion_limit", "get_level", "get_log_config", "launch_blocking", "dispatch_threads_num"]
