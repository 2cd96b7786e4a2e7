"""Shared fixtures: every test starts from the default context and a fixed seed; the IR
verifier runs after every compiler pass."""
import importlib.util
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
    _bytecode_for_every_process(config)
    # PyNative runs its slow ops on compiled C kernels (backend/eager.py), one C compile per new
    # signature: over this suite's many shapes that cost ~1-1.5 min of its 10. The suite runs
    # PyNative on the NumPy references instead, except tests/backend/test_eager_kernels.py, which
    # installs the kernels and checks each one equals the compiled op bit for bit (and the NumPy
    # reference). PYCOMPILE_TEST_EAGER_KERNELS=1 runs the whole suite with the kernels.
    if os.environ.get("PYCOMPILE_TEST_EAGER_KERNELS") != "1":
        _table.EAGER_KERNELS[0] = None
        _table._PLANS.clear()


def pytest_unconfigure(config):
    prefix = getattr(config, "_pycompile_pycache", None)
    if prefix:
        import shutil
        shutil.rmtree(prefix, ignore_errors=True)


# The suite starts several hundred Python processes (the xdist workers, spec samples, the CLI,
# mpirun's ranks, fresh processes of the cache tests) and each imports pycompile. Under
# PYTHONDONTWRITEBYTECODE=1 none of them writes bytecode, so with an editable install each compiled
# pycompile's ~280 modules from source: ~1 s of a 1.7 s import, ~5 min of the suite's worker time
# on 2 cores. The controller writes their bytecode once into a private PYTHONPYCACHEPREFIX that
# every process started after it inherits (reading bytecode is still allowed; nothing is written
# beside the sources). A process with a prefix reads bytecode only from the prefix, so the prefix
# also gets every other module the controller has loaded (the standard library, NumPy, pytest:
# their pyc beside the source copied when it is current, else compiled) and MPI's Python side:
# with pycompile's modules alone there, a fresh `import pycompile` compiled the standard library
# and NumPy from source (1.3 s instead of 0.7 s in a non-editable install, as CI has).
def _bytecode_for_every_process(config):
    import sys
    if not sys.flags.dont_write_bytecode or hasattr(config, "workerinput") or os.environ.get("PYTHONPYCACHEPREFIX"):
        return
    import compileall
    import tempfile
    prefix = tempfile.mkdtemp(prefix="pycompile-tests-pycache-")
    config._pycompile_pycache = prefix
    sources = {m.__file__ for m in list(sys.modules.values())
               if isinstance(getattr(m, "__file__", None), str) and m.__file__.endswith(".py")}
    beside = {src: _pyc_beside(src) for src in sources}
    sys.pycache_prefix = prefix
    os.environ["PYTHONPYCACHEPREFIX"] = prefix
    for src, pyc in beside.items():
        _bytecode_into_prefix(src, pyc)
    for package in ("pycompile", "mpi4py"):
        spec = importlib.util.find_spec(package)
        if spec is not None and spec.submodule_search_locations:
            for where in spec.submodule_search_locations:
                compileall.compile_dir(where, quiet=1, workers=0)


def _pyc_beside(src: str):
    """The bytecode file beside `src` (its __pycache__) when it is current for the source, else None."""
    try:
        pyc = importlib.util.cache_from_source(src)
        with open(pyc, "rb") as f:
            head = f.read(16)
        st = os.stat(src)
    except (OSError, ValueError, NotImplementedError):
        return None
    current = (head[:4] == importlib.util.MAGIC_NUMBER and head[4:8] == bytes(4)
               and int.from_bytes(head[8:12], "little") == int(st.st_mtime) & 0xFFFFFFFF
               and int.from_bytes(head[12:16], "little") == st.st_size & 0xFFFFFFFF)
    return pyc if current else None


def _bytecode_into_prefix(src: str, pyc_beside) -> None:
    import py_compile
    import shutil
    dest = importlib.util.cache_from_source(src)            # (under sys.pycache_prefix now)
    try:
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        if pyc_beside:
            shutil.copyfile(pyc_beside, dest)
        else:
            py_compile.compile(src, cfile=dest, doraise=True)
    except (OSError, py_compile.PyCompileError, ValueError):
        return                  # (that module compiles from source in each process, as without a prefix)


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
# (the fixture below runs each of them with CC pointing nowhere).
_COMPILES = re.compile(r"\bjit\b|GRAPH_MODE|\binspect\(|\bcompile_\w+|\bsubprocess\b|\blazy_inline\b|"
                       r"\bconf_harness\b|\boracle_autodiff\b|\bopcheck\b|\bfrontend_helpers\b|\bbench\b|\bfuzz_loop_grads\b|"
                       r"\bedge_ops\b|\bfuzz_tail\b|\bbackend import eager\b|\bbackend\.eager\b")


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


# Every unmarked test runs with CC naming a program that does not exist, so the suite itself checks
# the marker: a test that compiles (in this process or in a subprocess it starts) without the `cc`
# marker fails here as it would on a machine without a C compiler. (The suite used to check this by
# running all unmarked tests a second time in a subprocess with CC pointing nowhere: ~1 min of its
# 10 on 2 cores; docs/testing.md has that command.)
NO_CC = "/nonexistent/pycompile-tests-no-cc"


@pytest.fixture(autouse=True)
def _unmarked_tests_have_no_c_compiler(request, monkeypatch):
    if request.node.get_closest_marker("cc") is None:
        monkeypatch.setenv("CC", NO_CC)
    yield


# ---- tests that need the machine to themselves (pytest-xdist) ---------------------------------------
# The suite runs on every core (addopts -n auto). A test marked `exclusive` measures the thread
# pool's behaviour on an idle machine (a late worker once is not contention, ...): while it runs,
# the other workers' tests wait. Every test holds a shared lock on one file for its duration; an
# exclusive test raises a flag (new tests wait while it is up) and takes the lock exclusively, so
# it starts as soon as the tests already running end. Without xdist there is nothing to do.
_LOCK_DIR = os.environ.get("PYTEST_XDIST_TESTRUNUID")


def _lock_paths():
    import tempfile
    base = os.path.join(tempfile.gettempdir(), f"pycompile-tests-{_LOCK_DIR}")
    os.makedirs(base, exist_ok=True)
    return os.path.join(base, "lock"), os.path.join(base, "exclusive-waiting")


@pytest.fixture(autouse=True)
def _machine_share(request):
    if not _LOCK_DIR or not os.environ.get("PYTEST_XDIST_WORKER"):
        yield
        return
    import fcntl
    import time
    lock_path, flag = _lock_paths()
    exclusive = request.node.get_closest_marker("exclusive") is not None
    with open(lock_path, "a") as lock:
        if exclusive:
            open(flag, "a").close()
            fcntl.flock(lock, fcntl.LOCK_EX)
        else:
            while os.path.exists(flag):
                time.sleep(0.05)
            fcntl.flock(lock, fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
            if exclusive:
                try:
                    os.remove(flag)
                except FileNotFoundError:
                    pass
