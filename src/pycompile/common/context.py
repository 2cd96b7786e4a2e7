"""Global context: `set_context` / `get_context` / `set_device`, shaped like MindSpore's.

Keys (MindSpore names): mode (GRAPH_MODE=0, PYNATIVE_MODE=1), device_target, device_id,
enable_compile_cache, compile_cache_path, save_graphs, save_graphs_path, runtime_num_threads
(threads used by compiled kernels and BLAS; default, or 0: every core), jit_level and
deterministic (accepted, unused), and pycompile's own `log` (the channels of pycompile.common.log; wins over PYCOMPILE_LOG).

Environment variables read at first use (the context wins over them, as the spec says):
MS_COMPILER_CACHE_ENABLE, MS_COMPILER_CACHE_PATH, MS_DEV_SAVE_GRAPHS, MS_DEV_SIDE_EFFECT_LOAD_ELIM,
PYCOMPILE_NUM_THREADS. Every debug knob pycompile reads is listed in `pycompile.common.knobs`.

The compile cache (enable_compile_cache / MS_COMPILER_CACHE_ENABLE; the directory is
compile_cache_path / MS_COMPILER_CACHE_PATH, default $XDG_CACHE_HOME/pycompile or ~/.cache/pycompile) is described in
pycompile/backend/cache.py. PYCOMPILE_CACHE_EXPLAIN=1 prints to stderr why each compile missed it
(which part of the key changed: a source, a global, the signature, the compiler flags...);
PYCOMPILE_CACHE_EXPLAIN=2 also reports hits.
"""
from __future__ import annotations

import os
from typing import Any

from pycompile.common import knobs

GRAPH_MODE = 0
PYNATIVE_MODE = 1
# jit_syntax_level (MindSpore's values): accepted and kept; pycompile's frontend has one syntax level
STRICT, COMPATIBLE, LAX = 0, 1, 2

_DEFAULTS: dict[str, Any] = {
    "mode": PYNATIVE_MODE,
    "device_target": "CPU",
    "device_id": 0,
    "enable_compile_cache": None,     # None: follow MS_COMPILER_CACHE_ENABLE
    "compile_cache_path": None,       # None: follow MS_COMPILER_CACHE_PATH
    "save_graphs": None,              # None: follow MS_DEV_SAVE_GRAPHS
    "save_graphs_path": ".",
    "runtime_num_threads": None,      # None: PYCOMPILE_NUM_THREADS, OMP_NUM_THREADS, available cores
    "jit_level": "O1",
    "jit_syntax_level": LAX,
    "max_call_depth": 1000,
    "pynative_synchronize": False,
    "deterministic": "OFF",           # accepted and kept: compiled results do not depend on threads
    "log": None,                      # pycompile's log channels; None: follow PYCOMPILE_LOG
}

_ctx: dict[str, Any] = dict(_DEFAULTS)
# keys that do not change generated code: setting only these keeps compiled specializations
_NOT_IN_CODE = frozenset({"log", "jit_syntax_level", "deterministic"})
_DEVICE_TARGETS: list = []      # filled by pycompile.backend.devices.register
_listeners: list = []
_generation = [0]          # bumped by every set_context: part of compiled-code cache keys


def generation() -> int:
    return _generation[0]


_last_change = ["set_context was called since (it may change the generated code)"]


def specialization_changed(why: str) -> None:
    """Something compiled code was specialised on changed outside set_context (a Parameter's
    buffer took another shape): every compiled specialization is looked up, and so compiled,
    anew. Calls check the generation already, so this costs the hot path nothing. `why` is the
    recompile reason the log gives."""
    _generation[0] += 1
    _last_change[0] = why


def last_change() -> str:
    """Why the generation last changed (the recompile log's reason)."""
    return _last_change[0]


def _require_type(key: str, value, types, named=None) -> None:
    """MindSpore's type check (its message prints the classes, `named` where pycompile takes more
    than MindSpore names; a bool passes for an int)."""
    if not isinstance(value, types):
        raise TypeError(f"The parameter '{key}' must be {named or types}, but got {type(value)}")


# device_target's names: MindSpore's (its message lists them); 'Davinci' is Ascend's old name
_TARGET_NAMES = ["CPU", "GPU", "Ascend", "Davinci"]
_ALIASES = {"Davinci": "Ascend"}
# keys MindSpore checks in its C++ context, with its parameter numbers in the message it gives for
# a value of the wrong type
_CPP_PARAMS = {"compile_cache_path": 66, "jit_level": 87}


def _unsupported_target(target: str) -> RuntimeError:
    return RuntimeError(f"Unsupported device target {target}. This process only supports one of the "
                        f"{_DEVICE_TARGETS}. pycompile compiles for the CPU and for its Ascend-style stub "
                        f"device (pycompile.backend.devices).")


def _check(key: str, value):
    """A value of the wrong type raises TypeError, a bad value ValueError: MindSpore 2.10's classes
    and messages (tests/oracle/data/context_errors.json). Where its CPU wheel takes a value its
    documentation rules out, pycompile follows the documentation: save_graphs -1 (0-3),
    jit_level other than 'O0' / 'O1' / 'O2'."""
    where = "For 'context.set_context'"
    if key == "mode":
        _require_type(key, value, int)
        if value not in (GRAPH_MODE, PYNATIVE_MODE):
            raise ValueError(f"{where}, the argument 'mode' should be context.GRAPH_MODE (0) or "
                             f"context.PYNATIVE_MODE (1), but got {value}.")
    elif key == "device_target":
        _require_type(key, value, str)
        if value not in _TARGET_NAMES and value not in _DEVICE_TARGETS:     # (a registered device's own name)
            raise ValueError(f"{where}, the argument 'device_target' must be one of {_TARGET_NAMES}, "
                             f"but got {value}.")
        if _ALIASES.get(value, value) not in _DEVICE_TARGETS:
            raise _unsupported_target(value)
    elif key in ("enable_compile_cache", "pynative_synchronize"):
        _require_type(key, value, bool)
    elif key == "save_graphs":
        _require_type(key, value, (bool, int))
        if not 0 <= value <= 3:
            raise ValueError(f"value for save_graphs should be 0-3 but got '{value}'")
    elif key in _CPP_PARAMS:
        if not isinstance(value, (str, os.PathLike)):
            raise RuntimeError(f"Got illegal param {_CPP_PARAMS[key]} and value with type {type(value)}")
        if key == "jit_level" and value not in ("O0", "O1", "O2"):
            raise ValueError(f"{where}, the argument 'jit_level' must be 'O0', 'O1' or 'O2', but got {value!r}.")
    elif key == "save_graphs_path":
        _require_type(key, value, (str, os.PathLike), str)
    elif key == "deterministic":
        _require_type(key, value, str)
        if value not in ("ON", "OFF"):
            raise ValueError(f"{where}, the argument 'deterministic' must be one of ['ON', 'OFF'], but got {value}.")
    elif key in ("runtime_num_threads", "device_id", "max_call_depth"):
        _require_type(key, value, int)
        if key == "device_id" and not 0 <= value <= 4095:
            raise ValueError(f"{where}, the argument 'device_id' must be in range [0, 4095], but got {value}.")
        if key == "max_call_depth" and value < 1:
            raise ValueError(f"{where}, the argument '{key}' must be greater than 0, but got {value}.")
        if key == "runtime_num_threads" and value < 0:
            raise ValueError("The num of thread must bigger than or equal to 0.")
    elif key == "log":
        from pycompile.common import log
        if value is not None and not isinstance(value, (str, list, tuple, set, frozenset)):
            raise TypeError(f"{where}, the parameter 'log' must be a str or a list of str, "
                            f"but got {type(value).__name__}: {value!r}.")
        log.parse(value)
    elif key == "jit_syntax_level":
        _require_type(key, value, int)
        if value not in (STRICT, COMPATIBLE, LAX):
            raise ValueError(f"For 'jit_syntax_level', the value should be context.STRICT or context.LAX, "
                             f"but got {value}.")


def set_context(**kwargs) -> None:
    """Set global options; an unknown key or a bad value raises MindSpore's error naming it (the
    device target is checked first, as MindSpore does) and sets nothing."""
    for key in kwargs:
        if key not in _DEFAULTS:
            raise ValueError(f"For 'context.set_context', the keyword argument {key} is not recognized! For "
                             f"detailed usage of 'set_context', please refer to the Mindspore official website.")
    for key in sorted(kwargs, key=lambda k: k != "device_target"):
        _check(key, kwargs[key])
    for key, value in kwargs.items():
        if key.endswith("_path"):
            value = os.fspath(value)
        elif key == "device_target":
            value = _ALIASES.get(value, value)
        elif key in ("mode", "device_id", "max_call_depth", "runtime_num_threads", "jit_syntax_level"):
            value = int(value)          # (a bool counts as its int, as in MindSpore)
        _ctx[key] = value
    if not set(kwargs) <= _NOT_IN_CODE:
        _generation[0] += 1
        _last_change[0] = "set_context was called since (it may change the generated code)"
    for fn in _listeners:
        fn(kwargs)


def get_context(key: str):
    if not isinstance(key, str):
        raise TypeError(f"attribute name must be string, not '{type(key).__name__}'")
    if key not in _DEFAULTS:
        raise ValueError(f"For 'context.get_context', the argument {key} is not recognized! For detailed usage "
                         f"of 'get_context', please refer to the Mindspore official website.")
    return _ctx[key]


def set_device(device_target: str, device_id: int | None = None) -> None:
    """MindSpore 2.5+ spelling of set_context(device_target=..., device_id=...), with its own
    messages (MindSpore 2.10's)."""
    if not isinstance(device_target, str):
        raise TypeError(f"The parameter 'device_target' must be {str}, but got {type(device_target)}")
    if device_target not in ("CPU", "GPU", "Ascend") and device_target not in _DEVICE_TARGETS:
        raise ValueError(f"The argument 'device_target' must be one of ['CPU', 'GPU', 'Ascend'], "
                         f"but got {device_target}.")
    if device_target not in _DEVICE_TARGETS:
        raise _unsupported_target(device_target)
    kwargs: dict[str, Any] = {"device_target": device_target}
    if device_id is not None:
        if not isinstance(device_id, int):
            raise TypeError(f"The parameter 'device_id' must be {int}, but got {type(device_id)}")
        if device_id < 0:
            raise ValueError("The device id must bigger than or equal to 0.")
        kwargs["device_id"] = device_id
    set_context(**kwargs)


def register_device_target(name: str) -> None:
    """Make `name` a valid device_target (called by the backend as it registers each device)."""
    if name not in _DEVICE_TARGETS:
        _DEVICE_TARGETS.append(name)


def on_change(fn) -> None:
    """Register fn(changed: dict) called after every set_context (the backend uses it)."""
    _listeners.append(fn)


def reset() -> None:
    """Back to defaults (tests use this)."""
    _ctx.clear()
    _ctx.update(_DEFAULTS)
    _generation[0] += 1
    for fn in _listeners:
        fn(dict(_DEFAULTS))


def compile_cache_settings() -> tuple[bool, str]:
    """(enabled, path): the context wins over MS_COMPILER_CACHE_ENABLE / MS_COMPILER_CACHE_PATH."""
    enabled = _ctx["enable_compile_cache"]
    if enabled is None:
        enabled = bool(knobs.get("MS_COMPILER_CACHE_ENABLE"))
    path = _ctx["compile_cache_path"] or knobs.get("MS_COMPILER_CACHE_PATH") or default_cache_dir()
    return enabled, path


def default_cache_dir() -> str:
    """$XDG_CACHE_HOME/pycompile, else ~/.cache/pycompile (the XDG base-directory spec: a
    relative XDG_CACHE_HOME is invalid and ignored)."""
    base = knobs.get("XDG_CACHE_HOME")
    if not base or not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "pycompile")


def save_graphs_settings() -> tuple[int, str]:
    """(level, path): save_graphs in the context wins over MS_DEV_SAVE_GRAPHS."""
    level = _ctx["save_graphs"]
    if level is None:
        env = knobs.get("MS_DEV_SAVE_GRAPHS") or ""
        level = int(env) if env.isdigit() else (0 if env.strip().lower() in ("",) + knobs._FALSE else 1)
    path = knobs.get("MS_DEV_SAVE_GRAPHS_PATH") if _ctx["save_graphs_path"] == "." else None
    return int(level), path or _ctx["save_graphs_path"]


def num_threads() -> int:
    """runtime_num_threads, else PYCOMPILE_NUM_THREADS, else OMP_NUM_THREADS, else the cores this
    process may actually use (available_cores)."""
    n = _ctx["runtime_num_threads"]
    if not n:                           # None, or 0: MindSpore's "its own choice"
        n = knobs.get("PYCOMPILE_NUM_THREADS") or knobs.get("OMP_NUM_THREADS") or available_cores()
    return n


def available_cores() -> int:
    """The cores this process may use: its CPU affinity mask (taskset, a container's cpuset),
    capped by a cgroup CPU quota (docker --cpus, Kubernetes limits), rounded up; not the cores of
    the machine, which a thread team larger than the cores it can run on would wait for."""
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        n = os.cpu_count() or 1
    quota = _cgroup_quota()
    if quota is not None:
        n = min(n, max(1, -(-quota[0] // quota[1])))
    return max(n, 1)


def _cgroup_quota():
    """(quota, period) of this process's cgroup CPU limit, or None when unlimited / unknown."""
    for path, parse in (("/sys/fs/cgroup/cpu.max", lambda t: t.split()),
                        ("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", None)):
        try:
            with open(path) as f:
                text = f.read().strip()
            if parse is not None:
                q, p = parse(text)[:2]
                if q != "max" and int(q) > 0:
                    return int(q), int(p)
                return None
            q = int(text)
            with open("/sys/fs/cgroup/cpu/cpu.cfs_period_us") as f:
                p = int(f.read().strip())
            return (q, p) if q > 0 and p > 0 else None
        except (OSError, ValueError, IndexError):
            continue
    return None


def load_elim_level() -> int:
    """MS_DEV_SIDE_EFFECT_LOAD_ELIM: 0, 1 (default), 2 or 3."""
    return knobs.get("MS_DEV_SIDE_EFFECT_LOAD_ELIM")


# MindSpore's `mindspore.context` also holds the auto-parallel context (scripts write
# `context.set_auto_parallel_context(parallel_mode=context.ParallelMode.DATA_PARALLEL)`)
from pycompile.common.auto_parallel import (ParallelMode, get_auto_parallel_context,  # noqa: E402,F401
                                            reset_auto_parallel_context, set_auto_parallel_context)
