"""Shared fixtures: every test starts from the default context and a fixed seed; the IR
verifier runs after every compiler pass."""
import os
import re

import pytest

os.environ.setdefault("PYCOMPILE_VERIFY", "1")

# record_*.py scripts run under MindSpore's venv to write the fixtures tests compare against.
collect_ignore_glob = ["record_*.py", "*/record_*.py"]

import pycompile as ms
from pycompile.common import context
from pycompile.ops import _table


def pytest_configure(config):
    # PyNative runs its slow ops on compiled C kernels (backend/eager.py), one C compile per new
    # signature: over this suite's many shapes that cost ~1-1.5 min of its 10. The suite runs
    # PyNative on the NumPy references instead, except tests/backend/test_eager_kernels.py, which
    # installs the kernels and checks each one equals the compiled op bit for bit (and the NumPy
    # reference). PYCOMPILE_TEST_EAGER_KERNELS=1 runs the whole suite with the kernels.
    if os.environ.get("PYCOMPILE_TEST_EAGER_KERNELS") != "1":
        _table.EAGER_KERNELS[0] = None
        _table._PLANS.clear()


@pytest.fixture(autouse=True)
def _fresh_context():
    context.reset()
    ms.set_seed(1234)
    yield
    context.reset()


# ---- the `cc` marker ---------------------------------------------------------------------------
# A test needs a C compiler when it compiles a graph. Modules that can reach the compiler (they
# mention one of these entry points, directly or through a helper module) are marked `cc`;
# `pytest -m "not cc"` runs the rest, which must pass on a machine without a C compiler
# (tests/test_knobs.py::test_without_a_c_compiler checks that with CC pointing nowhere).
_COMPILES = re.compile(r"\bjit\b|GRAPH_MODE|\binspect\(|\bcompile_\w+|\bsubprocess\b|\blazy_inline\b|"
                       r"\bconf_harness\b|\boracle_autodiff\b|\bopcheck\b|\bfrontend_helpers\b|\bbench\b|\bfuzz_loop_grads\b|"
                       r"\bedge_ops\b|\bfuzz_tail\b")


def _needs_cc(path) -> bool:
    return _COMPILES.search(path.read_text()) is not None


def pytest_collection_modifyitems(config, items):
    verdict = {}
    for item in items:
        path = item.path
        if path not in verdict:
            verdict[path] = _needs_cc(path)
        if verdict[path]:
            item.add_marker(pytest.mark.cc)
