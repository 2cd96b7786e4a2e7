"""`mindspore.common.api` under pycompile's name: jit, jit_class, lazy_inline and pycompile's
inspect, re-exported from the entry layer (`pycompile.api`). Nothing in pycompile imports this
module; it exists for user code that imports MindSpore's path."""
from pycompile.api import BoundJit, JitFunction, inspect, jit, jit_class, lazy_inline  # noqa: F401


class _PynativeExecutor:
    """MindSpore's `_pynative_executor` as tests use it: `sync()` waits for queued eager ops.
    pycompile runs each eager op to completion before returning, so there is nothing to wait for."""

    def sync(self) -> None:
        return None


_pynative_executor = _PynativeExecutor()
