"""`mindspore.common.api` under pycompile's name: jit, jit_class, lazy_inline and pycompile's
inspect. They live in the entry layer (`pycompile.api`), which sets them on this module when it
is imported: common never imports upward (tests/test_layering.py). `pycompile/__init__.py`
imports `pycompile.api`, and Python runs it before any submodule of the package, so user code
importing MindSpore's path always finds them here."""


class _PynativeExecutor:
    """MindSpore's `_pynative_executor` as tests use it: `sync()` waits for queued eager ops.
    pycompile runs each eager op to completion before returning, so there is nothing to wait for."""

    def sync(self) -> None:
        return None


_pynative_executor = _PynativeExecutor()
