"""mindspore.profiler.schedule, ProfilerAction and tensorboard_trace_handler: which steps a Profiler
given `schedule=` records, and what its `on_trace_ready` does with them.

    prof = ms.profiler.profile(schedule=schedule(wait=1, warmup=1, active=2, repeat=1, skip_first=1),
                               on_trace_ready=tensorboard_trace_handler("./tb"))
    for batch in data:
        train_step(batch)
        prof.step()

Step k (counted by `prof.step()` from 0) is NONE for the first `skip_first` steps, then cycles of
`wait` NONE steps, `warmup` WARM_UP steps and `active` RECORD steps whose last is RECORD_AND_SAVE,
`repeat` times (0: for ever), NONE after (MindSpore 2.10's sequence, recorded from its wheel).
The Profiler records from the first WARM_UP or RECORD step (what the warm-up steps record is
dropped when recording proper begins), and after each RECORD_AND_SAVE step stops and calls
`on_trace_ready(prof)`; `prof.stop()` (or leaving a `with` block) in a RECORD step does the same.
Arguments of the wrong type or range are reset with MindSpore's warnings.
"""
from __future__ import annotations

import enum
import os
import socket

from pycompile import log


class ProfilerAction(enum.Enum):
    """What a Profiler with a schedule does in a step."""
    NONE = 0
    WARM_UP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def _count(name, value, least, default):
    if isinstance(value, int) and not isinstance(value, bool) and value >= least:
        return value
    log.warning(f"Parameter '{name}' should be of type int, but got {type(value).__name__}. reset to int {default}.")
    return default


class schedule:  # noqa: N801 - MindSpore's name
    """MindSpore's profiler schedule (see the module docstring): `schedule(step)` is that step's
    ProfilerAction."""

    def __init__(self, *, wait: int, active: int, warmup: int = 0, repeat: int = 0, skip_first: int = 0) -> None:
        self.wait = _count("wait", wait, 0, 0)
        self.active = _count("active", active, 1, 1)
        self.warmup = _count("warmup", warmup, 0, 0)
        self.repeat = _count("repeat", repeat, 0, 0)
        self.skip_first = _count("skip_first", skip_first, 0, 0)
        if self.warmup == 0:
            log.warning("Profiler won't be using warmup, this can skew profiler results")

    def __call__(self, step: int) -> ProfilerAction:
        if step < self.skip_first:
            return ProfilerAction.NONE
        step -= self.skip_first
        cycle = self.wait + self.warmup + self.active
        if self.repeat > 0 and step // cycle >= self.repeat:
            return ProfilerAction.NONE
        k = step % cycle
        if k < self.wait:
            return ProfilerAction.NONE
        if k < self.wait + self.warmup:
            return ProfilerAction.WARM_UP
        return ProfilerAction.RECORD if k < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    def __repr__(self) -> str:
        return (f"Schedule(wait={self.wait}, active={self.active}, warmup={self.warmup}, repeat={self.repeat}, "
                f"skip_first={self.skip_first})")


def tensorboard_trace_handler(dir_name: str = None, worker_name: str = None, analyse_flag: bool = True,
                              async_mode: bool = False):
    """An `on_trace_ready` that writes the recorded steps' files (what `analyse()` writes) into
    `dir_name` (default ./data), in a directory `<worker_name>_<time>_ascend_ms` (worker_name
    default `<host>_<pid>`). pycompile's files are the analysed ones: `analyse_flag=False` writes
    them too (MindSpore then leaves its raw data unparsed); `async_mode` analyses in this process."""
    if dir_name is not None and not isinstance(dir_name, str):
        log.warning("dir_name is not str, set by default.")
        dir_name = None
    if worker_name is not None and not isinstance(worker_name, str):
        log.warning("worker_name is not str, set by default.")
        worker_name = None
    if not isinstance(analyse_flag, bool):
        log.warning("analyse_flag is not bool, set by default.")
    if not isinstance(async_mode, bool):
        log.warning("async_mode is not bool, set by default.")
    root = os.path.abspath(dir_name or "./data")
    worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"

    def handler_fn(prof) -> None:
        prof._save(root, worker)

    return handler_fn
