"""What the profiler records (pycompile.profiler.Profiler): every op PyNative runs and every kernel
of graph code, with its start, duration and shapes, while a Profiler is started.

PyNative: `ops._table` asks `PROFILE[0]` to wrap the plan of each op call it runs (the plans
built while recording are timed wrappers; starting and stopping clears the plan cache, so not a
single wrapper is left behind and a program that never profiles pays nothing). An op's time is
its call through `apply`: converting its inputs, the kernel, wrapping its result.

Graph mode: starting and stopping bumps the context's generation, so every @jit function and
Cell compiles its next call again, with `pipeline.options()["profile"]` set while recording:
its C times each kernel (backend/c/profile.py). After each call of such a specialization the
recorder reads the module's counters and clears them (`timed`), one event per kernel that ran,
its duration the total over the call when a loop ran it more than once. A specialization built
for profiling keeps its timers after the profiler stops, but its calls are not recorded; the
next compile (the generation moved again) is the plain one.

The clock is `time.perf_counter_ns` (CLOCK_MONOTONIC, the clock the generated C reads).
"""
from __future__ import annotations

import itertools
import json
import threading
import time
from dataclasses import dataclass, field

import numpy as np

_ACTIVE: list = [None]      # the Recorder while a Profiler records
_LOCK = threading.Lock()
_CALLS = itertools.count(1)


@dataclass
class Event:
    op_type: str            # MatMul, ReLU, Fused_Add_ReLU
    name: str               # Default/d-Dense/MatMul-op0 in graph code, the op type in PyNative
    start_ns: int
    dur_ns: int
    shapes: list            # the inputs' shapes (None: not a tensor)
    graph: str = ""         # the compiled function's name; "" in PyNative
    count: int = 1          # executions folded into this event (a kernel inside a loop)
    call: int = 0           # which call of graph code it belongs to (numbered per process)


@dataclass
class Recorder:
    events: list = field(default_factory=list)

    def add(self, event: Event) -> None:
        with _LOCK:
            self.events.append(event)


def recording() -> bool:
    return _ACTIVE[0] is not None


def begin(recorder: Recorder) -> None:
    from pycompile.common import context
    from pycompile.ops import _table
    _ACTIVE[0] = recorder
    _table.PROFILE[0] = _wrap_op
    _table._PLANS.clear()
    context.specialization_changed("a Profiler started: graph code is built with timed kernels")


def end() -> Recorder | None:
    from pycompile.common import context
    from pycompile.ops import _table
    recorder, _ACTIVE[0] = _ACTIVE[0], None
    _table.PROFILE[0] = None
    _table._PLANS.clear()
    if recorder is not None:
        context.specialization_changed("the Profiler stopped: graph code is built without timers")
    return recorder


def _shapes(inputs) -> list:
    out = []
    for x in inputs:
        shape = getattr(x, "shape", None)
        out.append(list(shape) if isinstance(shape, tuple) else None)
    return out


def _wrap_op(op, fn):
    """`fn` (an op's plan, or run_eager) timed as one PyNative op call of `op`."""
    name = op.name

    def timed(inputs, *rest):
        t0 = time.perf_counter_ns()
        try:
            return fn(inputs, *rest)
        finally:
            recorder = _ACTIVE[0]
            if recorder is not None:
                recorder.add(Event(name, name, t0, time.perf_counter_ns() - t0, _shapes(inputs)))
    return timed


def timed(run, exe, graph_name: str):
    """`run` (a Compiled's call) that records the kernels of `exe`, a module built for the
    profiler, after each call."""
    regions = exe.profile_regions
    counters = exe.profile_counters
    lock = threading.Lock()

    def call(args, kwargs):
        with lock:              # one call at a time: the counters are the module's statics
            try:
                return run(args, kwargs)
            finally:
                values = counters.reshape(-1, 3).copy()
                counters[:] = 0
                recorder = _ACTIVE[0]
                if recorder is not None:
                    number = next(_CALLS)
                    for k in np.flatnonzero(values[:, 0]):
                        kind, full, shapes, _ = regions[k]
                        n, total, first = (int(v) for v in values[k])
                        recorder.add(Event(kind, full, first, total, shapes, graph_name, n, number))
    return call


def regions_of(text: bytes) -> list:
    """A module's `pc_profile_regions()` text, read back."""
    return json.loads(text.decode("utf-8"))
