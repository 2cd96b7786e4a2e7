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
`parallel_strategy` add nothing to the files yet (docs/status.md). `schedule=` / `on_trace_ready=`
(and mindspore.profiler.profile, tensorboard_trace_handler): profiler/schedule.py.
"""
from __future__ import annotations

import enum
import json
import os
import socket
import time

from pycompile import log
from pycompile.backend import profiling
from pycompile.profiler.schedule import ProfilerAction, schedule, tensorboard_trace_handler

__all__ = ["Profiler", "ProfilerLevel", "ProfilerActivity", "AicoreMetrics", "ExportType", "ProfilerAction",
           "profile", "schedule", "tensorboard_trace_handler"]

_RECORDING = (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)


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
        self._dir = _run_dir(os.path.abspath(self._options["output_path"]), f"{socket.gethostname()}_{os.getpid()}",
                             self._started_wall)
        # schedule= / on_trace_ready= (profiler/schedule.py): the steps prof.step() counts decide
        self._schedule = kwargs.get("schedule")
        self._on_trace_ready = kwargs.get("on_trace_ready")
        self._step_num, self._recorded_steps, self._started = 0, 0, False
        self._action = self._schedule(0) if self._schedule is not None else None
        self._schedule_unused = self._schedule is not None
        if self._options["start_profile"]:
            self.start()

    @property
    def output_path(self) -> str:
        """The directory this profiler's files go to (`<output_path>/<host>_<pid>_<time>_ascend_ms`)."""
        return self._dir

    def _note(self, msg: str) -> None:
        self._log.append(f"[{time.strftime('%Y-%m-%d-%H:%M:%S')}] [INFO] {msg}")

    def start(self) -> None:
        """Record from now on: every PyNative op and every kernel of graph code (with a schedule:
        from the first step it says to record)."""
        if self._schedule is not None:
            if not self._started:
                self._started = True
                self._transit(ProfilerAction.NONE, self._action)
            return
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
        """Stop recording (what was recorded is kept for `analyse`; with a schedule, in a recording
        step, `on_trace_ready` is called with it)."""
        if self._schedule is not None:
            if self._schedule_unused:
                log.warning("The profiler has schedule. Please use step() to collect data.")
            elif self._started:
                self._started = False
                self._transit(self._action, None)
            return
        if self._recorder is None or profiling._ACTIVE[0] is not self._recorder:
            log.warning("The profiler has not started, do not need to stop.")
            return
        profiling.end()
        self._note("CpuProfiler stop.")

    def step(self) -> None:
        """Mark the end of a training step: the type table's per-step frequency divides by the
        number of steps marked; with a schedule, the next step's action starts or ends recording."""
        self._steps += 1
        if self._schedule is None:
            return
        if not self._started:
            log.error("Profiler is stopped, step takes no effect!")
            return
        if self._action in _RECORDING:
            self._recorded_steps += 1
        previous = self._action
        self._step_num += 1
        self._action = self._schedule(self._step_num)
        self._schedule_unused = False
        self._transit(previous, self._action)

    def _transit(self, previous, current) -> None:
        """Leave the action `previous` for `current` (None: stopping): end a recording (and hand
        it to on_trace_ready after RECORD / RECORD_AND_SAVE), begin one (a warm-up's is dropped)."""
        recording = self._recorder is not None and profiling._ACTIVE[0] is self._recorder
        ends = previous is ProfilerAction.RECORD_AND_SAVE or (
            previous is ProfilerAction.RECORD and current not in _RECORDING) or (
            previous is ProfilerAction.WARM_UP and current in (ProfilerAction.NONE, None))
        if recording and ends:
            profiling.end()
            if previous in _RECORDING and self._on_trace_ready is not None:
                self._on_trace_ready(self)
            self._recorder, self._recorded_steps, recording = None, 0, False
        if current is ProfilerAction.WARM_UP and not recording or current in _RECORDING and (
                not recording or previous is ProfilerAction.WARM_UP):
            if recording:
                profiling.end()
            self._recorder, self._recorded_steps = profiling.Recorder(), 0
            profiling.begin(self._recorder)

    def _save(self, root: str, worker: str) -> None:
        """Write the recorded steps' files to `<root>/<worker>_<time>_ascend_ms` (on_trace_ready)."""
        from pycompile.profiler import _files
        wall = time.time()
        out = _run_dir(root, worker, wall)
        while os.path.exists(out):          # two cycles saved within one millisecond: the next one
            wall += 0.001
            out = _run_dir(root, worker, wall)
        recorder = self._recorder or profiling.Recorder()
        _files.write(out, recorder, _rank(), self._offset, self._recorded_steps or 1, self._metadata, self._log)

    def analyse(self, offline_path=None, pretty=False, step_list=None, mode="sync") -> None:
        """Stop recording if it still does, and write the files (profiler/_files.py) to
        `output_path`; `pretty` indents trace_view.json's neighbours (profiler_metadata.json)."""
        from pycompile.profiler import _files
        if self._schedule is not None:
            if self._recorder is not None and profiling._ACTIVE[0] is self._recorder:
                profiling.end()
            self._started = False
            log.warning("The profiler has schedule. Please use 'on_trace_ready' to analyse data.")
            return
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


class profile(Profiler):  # noqa: N801 - MindSpore's name
    """mindspore.profiler.profile: the Profiler with MindSpore 2.10's newer arguments; the Ascend
    settings of `experimental_config` (profiler_level, aic_metrics, export_type, mstx ...) are read
    from it as the Profiler's own."""

    def __init__(self, activities=None, with_stack=False, profile_memory=False, data_process=False,
                 parallel_strategy=False, start_profile=True, hbm_ddr=False, pcie=False, sync_enable=True,
                 record_shapes=False, schedule=None, on_trace_ready=None, experimental_config=None):
        options = dict(activities=activities, with_stack=with_stack, profile_memory=profile_memory,
                       data_process=data_process, parallel_strategy=parallel_strategy, start_profile=start_profile,
                       hbm_ddr=hbm_ddr, pcie=pcie, sync_enable=sync_enable, record_shapes=record_shapes,
                       schedule=schedule, on_trace_ready=on_trace_ready)
        for key in ("profiler_level", "aic_metrics", "l2_cache", "mstx", "data_simplification", "export_type",
                    "mstx_domain_include", "mstx_domain_exclude", "sys_io", "sys_interconnection", "host_sys"):
            if getattr(experimental_config, key, None) is not None:
                options[key] = getattr(experimental_config, key)
        super().__init__(**options)


def _run_dir(root: str, worker: str, wall: float) -> str:
    """`<root>/<worker>_<yyyymmddHHMMSSmmm>_ascend_ms`, MindSpore's name for one run's files."""
    stamp = time.strftime("%Y%m%d%H%M%S", time.localtime(wall)) + f"{int(wall * 1000) % 1000:03d}"
    return os.path.join(root, f"{worker}_{stamp}_ascend_ms")


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
