"""The conformance table: record.py runs in the MindSpore venv only, never under pytest."""
collect_ignore = ["record.py", "extract_usage.py"]

import pytest


@pytest.fixture(autouse=True)
def _no_world_left_by_another_test():
    """The table's collective cases show what a one-process program sees before init(); a test run
    earlier in the same worker process (pytest-xdist) may have left a communication world
    initialized: release it first (a no-op when there is none)."""
    from pycompile.communication import management
    if management._STATE["world"] is not None or management.GlobalComm.INITED:
        management.release()
    yield
