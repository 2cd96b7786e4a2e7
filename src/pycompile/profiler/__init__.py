"""mindspore.profiler: where a program's time goes, op by op, in PyNative and in graph code.

    prof = ms.Profiler(output_path="./data")     # starts recording (start_profile=True)
    for x, y in data:
        train_step(x, y)
    prof.analyse()                               # stops, and writes the files (profiler/_files.py)

What is recorded (backend/profiling.py): every op PyNative runs, timed around its call; in graph
code every kernel - a product, a convolution, a fused group of elementwise ops, a reduction -
timed inside the generated C, named after the Cells it was reached through as MindSpore names
ops (`Default/d-Dense/MatMul-op0`). Graph code compiled before the profiler started is compiled
again at its next call, with the timers (and once more after it stops, without them), so a
profiled call's kernels are the same code as an unprofiled one's plus a clock read around each.

MindSpore's arguments are taken with its defaults and its warnings for a value of the wrong type
(the argument is then reset to its default, as MindSpore does); the ones that configure Ascend
hardware counters (aic_metrics, l2_cache, hbm_ddr, pcie, ...) have nothing to configure on the
CPU and are taken and ignored. `profile_memory`, `data_process`, `with_stack` and
`parallel_strategy` add nothing to the files yet (docs/status.md).
"""
from __future__ import annotations

import enum
import json
import os
import socket
import time

from pycompile import log
from pycompile.backend import profiling

__all__ = ["Profiler", "ProfilerLevel", "ProfilerActivity", "AicoreMetrics", "ExportType"]


class ProfilerLevel(enum.Enum):
    LevelNone = "LevelNone"
    Level0 = "Level0"
    Level1 = "Level1"
    Level2 = "Level2"


class ProfilerActivity(enum.Enum):
    CPU = "CPU"
    NPU = "NPU"
    GPU = "GPU"


class AicoreMetrics(enum.Enum):
    PipeUtilization = "PipeUtilization"
    ArithmeticUtilization = "ArithmeticUtilization"
    Memory = "Memory"
    MemoryL0 = "MemoryL0"
    MemoryUB = "MemoryUB"
    ResourceConflictRatio = "ResourceConflictRatio"
    L2Cache = "L2Cache"
    MemoryAccess = "MemoryAccess"
    AiCoreNone = "None"


class ExportType(enum.Enum):
    Db = "db"
    Text = "text"


# MindSpore 2.10's arguments: (type, default)
_PARAMS = {
    "output_path": (str, "./data"),
    "profiler_level": (ProfilerLevel, ProfilerLevel.Level0),
    "activities": (list, [ProfilerActivity.CPU, ProfilerActivity.NPU]),
    "aic_metrics": (AicoreMetrics, AicoreMetrics.AiCoreNone),
    "with_stack": (bool, False),
    "profile_memory": (bool, False),
    "data_process": (bool, False),
    "parallel_strategy": (bool, False),
    "start_profile": (bool, True),
    "l2_cache": (bool, False),
    "hbm_ddr": (bool, False),
    "pcie": (bool, False),
    "sys_io": (bool, False),
    "sys_interconnection": (bool, False),
    "host_sys": (list, []),
    "sync_enable": (bool, True),
    "data_simplification": (bool, True),
    "record_shapes": (bool, False),
    "export_type": (list, [ExportType.Text]),
    "mstx": (bool, False),
    "mstx_domain_include": (list, []),
    "mstx_domain_exclude": (list, []),
}

_MAX_METADATA = 1000


class Profiler:
    """MindSpore's Profiler on the CPU (see the module's docstring): `start` / `stop` / `step`,
    `analyse` writes the files, a `with` block records its body."""

    def __init__(self, **kwargs) -> None:
        self._options = {}
        for key, (kind, default) in _PARAMS.items():
            value = kwargs.get(key)
            if value is None:
                value = default
            elif kind is list:
                item = type(default[0]) if default else object      # the items' type, when it says
                if not (isinstance(value, list) and all(isinstance(v, item) for v in value)):
                    log.warning(f"For Profiler, {key} value is Invalid, reset to {default}.")
                    value = default
            elif not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
                log.warning(f"For Profiler, the type of {key} should be {kind}, but got {type(value)}, "
                            f"reset to {default}.")
                value = default
            self._options[key] = value
        self._metadata: dict = {}
        self._recorder = None
        self._steps = 0
        self._started_wall = time.time()
        self._log = []
        # the epoch time of the monotonic clock's zero: timestamps in the files are epoch ns
        self._offset = time.time_ns() - time.perf_counter_ns()
        stamp = time.strftime("%Y%m%d%H%M%S", time.localtime(self._started_wall)) + \
            f"{int(self._started_wall * 1000) % 1000:03d}"
        self._dir = os.path.join(os.path.abspath(self._options["output_path"]),
                                 f"{socket.gethostname()}_{os.getpid()}_{stamp}_ascend_ms")
        if self._options["start_profile"]:
            self.start()

    @property
    def output_path(self) -> str:
        """The directory this profiler's files go to (`<output_path>/<host>_<pid>_<time>_ascend_ms`)."""
        return self._dir

    def _note(self, msg: str) -> None:
        self._log.append(f"[{time.strftime('%Y-%m-%d-%H:%M:%S')}] [INFO] {msg}")

    def start(self) -> None:
        """Record from now on: every PyNative op and every kernel of graph code."""
        if self._recorder is not None and profiling._ACTIVE[0] is self._recorder:
            log.warning("The profiler has already started. Do not turn on again in the open state.")
            return
        if profiling.recording():
            log.warning("Another Profiler is recording: it stops, this one records.")
            profiling.end()
        if self._recorder is None:
            self._recorder = profiling.Recorder()
        profiling.begin(self._recorder)
        self._note("CpuProfiler start.")

    def stop(self) -> None:
        """Stop recording (what was recorded is kept for `analyse`)."""
        if self._recorder is None or profiling._ACTIVE[0] is not self._recorder:
            log.warning("The profiler has not started, do not need to stop.")
            return
        profiling.end()
        self._note("CpuProfiler stop.")

    def step(self) -> None:
        """Mark the end of a training step: the type table's per-step frequency divides by the
        number of steps marked."""
        self._steps += 1

    def analyse(self, offline_path=None, pretty=False, step_list=None, mode="sync") -> None:
        """Stop recording if it still does, and write the files (profiler/_files.py) to
        `output_path`; `pretty` indents trace_view.json's neighbours (profiler_metadata.json)."""
        from pycompile.profiler import _files
        if self._recorder is not None and profiling._ACTIVE[0] is self._recorder:
            self.stop()
        recorder = self._recorder or profiling.Recorder()
        self._note("CpuProfiler analyse.")
        steps = self._steps or _graph_calls(recorder) or 1
        _files.write(self._dir, recorder, _rank(), self._offset, steps, self._metadata, self._log)

    def op_analyse(self, op_name, device_id=None) -> str:
        """The recorded executions of the ops `op_name` (an op type or name, or a list of them) as a
        JSON string: per op, its occurrences and total / average time in ms."""
        if device_id is not None and not isinstance(device_id, int):
            raise TypeError(f"For 'Profiler.op_analyse()', the parameter device_id must be int, "
                            f"but got type {type(device_id)}")
        if op_name is None:
            raise TypeError("For 'Profiler.op_analyse()', the parameter op_name cannot be None.")
        if not isinstance(op_name, (str, list)):
            raise TypeError(f"For 'Profiler.op_analyse()', the parameter op_name must be str or list, "
                            f"but got type {type(op_name)}")
        wanted = [op_name] if isinstance(op_name, str) else list(op_name)
        events = self._recorder.events if self._recorder is not None else []
        result = {}
        for name in wanted:
            hits = [e for e in events if name in (e.op_type, e.name, e.name.rsplit("/", 1)[-1])]
            count = sum(e.count for e in hits)
            total = sum(e.dur_ns for e in hits) / 1e6
            result[name] = {"op_occurrences": count, "op_total_time(ms)": total,
                            "op_avg_time(ms)": total / count if count else 0.0,
                            "full_op_names": sorted({e.name for e in hits})}
        return json.dumps(result)

    def add_metadata(self, key: str, value: str) -> None:
        """A key / value string pair written to profiler_metadata.json."""
        if not isinstance(key, str) or not isinstance(value, str):
            log.warning("The key and value of metadata must be string. Skip this metadata.")
            return
        self._put(key, value)

    def add_metadata_json(self, key: str, value: str) -> None:
        """A key and a JSON string, written to profiler_metadata.json as the JSON value."""
        if not isinstance(key, str) or not isinstance(value, str):
            log.warning("The key and value of metadata must be string. Skip this metadata.")
            return
        try:
            parsed = json.loads(value)
        except ValueError:
            log.warning("The metadata value must be json format string. Skip this metadata")
            return
        self._put(key, parsed)

    def _put(self, key, value) -> None:
        if key in self._metadata:
            log.warning(f"{key} is already saved as metadata, override it.")
        elif len(self._metadata) >= _MAX_METADATA:
            log.warning("Too many metadata added. Skip this metadata")
            return
        self._metadata[key] = value

    def __enter__(self) -> "Profiler":
        if profiling._ACTIVE[0] is not self._recorder or self._recorder is None:
            self.start()
        return self

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        if self._recorder is not None and profiling._ACTIVE[0] is self._recorder:
            self.stop()

    def __del__(self):
        recorder = getattr(self, "_recorder", None)
        if recorder is not None and profiling._ACTIVE[0] is recorder:
            try:
                profiling.end()
            except ImportError:         # the interpreter is shutting down: nothing runs after
                return


def _graph_calls(recorder) -> int:
    """How many calls of graph code ran (the per-step frequency's steps when no step() marked
    any): the most calls of one compiled function."""
    calls: dict = {}
    for e in recorder.events:
        if e.graph:
            calls.setdefault(e.graph, set()).add(e.call)
    return max((len(c) for c in calls.values()), default=0)


def _rank() -> int:
    from pycompile.communication import management
    return management.get_rank() if management.is_initialized() else 0
