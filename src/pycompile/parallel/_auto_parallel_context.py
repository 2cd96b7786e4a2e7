"""`mindspore.parallel._auto_parallel_context.auto_parallel_context()`: the auto-parallel context
as an object, which model code reads (`auto_parallel_context().get_parallel_mode()`).

Each key `k` of `set_auto_parallel_context` has `get_k()` and `set_k(value)` (the same checks as
the function), `get_k_is_set()` says whether it was set since the last reset (MindSpore has these
for device_num, global_rank, full_batch and parameter_broadcast), `reset()` resets every key.
"""
from __future__ import annotations

from pycompile.common import auto_parallel as _ap


class _AutoParallelContext:
    def __getattr__(self, name: str):
        verb, _, key = name.partition("_")
        if verb == "get" and key.endswith("_is_set") and key[:-7] in _ap._DEFAULTS:
            return lambda: key[:-7] in _ap._SET
        if key in _ap._DEFAULTS:
            if verb == "get":
                return lambda: _ap.get_auto_parallel_context(key)
            if verb == "set":
                return lambda value: _ap.set_auto_parallel_context(**{key: value})
        raise AttributeError(f"'_AutoParallelContext' object has no attribute '{name}'")

    def reset(self) -> None:
        _ap.reset_auto_parallel_context()


_CONTEXT = _AutoParallelContext()


def auto_parallel_context() -> _AutoParallelContext:
    """The process's auto-parallel context (one object, as MindSpore's)."""
    return _CONTEXT
