"""`mindspore.runtime` under pycompile's name: the runtime knobs MindSpore scripts call.

pycompile executes every op and compiled call synchronously on the host CPU, so the queue and
stream controls have nothing to change: `launch_blocking` and `synchronize` are accepted no-ops.
Kernel threads are set with `set_context(runtime_num_threads=N)`.
"""
from __future__ import annotations


def launch_blocking() -> None:
    """Run ops synchronously (they already are)."""


def synchronize() -> None:
    """Wait for every queued op (none is ever queued)."""


def dispatch_threads_num(threads_num: int) -> None:
    """MindSpore's op-dispatch thread count: checked, then unused (pycompile dispatches inline)."""
    if isinstance(threads_num, bool) or not isinstance(threads_num, int) or threads_num <= 0:
        raise TypeError(f"For 'dispatch_threads_num', the 'threads_num' must be a positive int, "
                        f"but got {threads_num!r}")


__all__ = ["launch_blocking", "synchronize", "dispatch_threads_num"]
