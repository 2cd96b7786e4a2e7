"""The runtime's thread pool (csrc/pool.c) that compiled parallel loops run on: the same results
with any thread count, from concurrent Python threads, and in a forked child; no OpenMP runtime
in the generated modules; the default thread count (backend/runtime.py, common/context.py).
Timings belong in bench/contention.py, not here."""
import os
import subprocess
import sys
import time

import numpy as np
import pytest

import pycompile as ms
from pycompile import ops
from pycompile._rt import ffi, lib
from pycompile.common import context

from thread_helpers import run_in_threads
from product_bits import assert_same


def _stats():
    out = ffi.new("long[7]")
    lib.pc_pool_stats(out, 7)
    return list(out)


def work(x, w):
    h = ops.relu(ops.matmul(x, w))                  # a product split into units
    return ops.softmax(h, -1) * 2 + ops.sum(h * h, -1, keepdim=True) / 512


def _inputs(seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((256, 300)).astype(np.float32), rng.standard_normal((300, 512)).astype(np.float32)


def _want(x, w):
    h = np.maximum(x @ w, 0)
    e = np.exp(h - h.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True) * 2 + (h * h).sum(-1, keepdims=True) / 512


@pytest.fixture(scope="module")
def compiled():
    # built once for the module's tests (and before any exclusive test would take the machine:
    # module-scoped fixtures are set up before conftest's function-scoped lock)
    f = ms.jit(work)
    f(*map(ms.Tensor, _inputs()))
    return f


def test_results_do_not_depend_on_the_thread_count(compiled):
    x, w = _inputs()
    want = _want(x, w)
    outs = []
    try:
        for n in (1, 2, 3, 5):
            lib.pc_set_num_threads(n)
            before = _stats()
            outs.append(compiled(ms.Tensor(x), ms.Tensor(w)).asnumpy())
            after = _stats()
            assert (after[0] > before[0] or after[1] > before[1]) == (n > 1)   # ran on the pool (or backed off)
    finally:
        lib.pc_set_num_threads(context.num_threads())
    for o in outs:
        np.testing.assert_allclose(o, want, rtol=2e-5, atol=1e-6)
        assert_same(o, outs[0])             # each row is computed the same way (product_bits.py)


def test_concurrent_python_threads(compiled):
    """cffi releases the GIL: calls from several threads run at once; one owns the pool and the
    others run their loops serially, all correct."""
    lib.pc_set_num_threads(2)
    results = {}

    def run(k):
        x, w = _inputs(k)
        for _ in range(5):
            results[k] = (compiled(ms.Tensor(x), ms.Tensor(w)).asnumpy(), _want(x, w))
    try:
        run_in_threads(run)
    finally:
        lib.pc_set_num_threads(context.num_threads())
    assert len(results) == 4
    for got, want in results.values():
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-6)


def test_forked_child_runs_parallel_loops(compiled):
    lib.pc_set_num_threads(2)
    x, w = _inputs()
    compiled(ms.Tensor(x), ms.Tensor(w))            # the parent's workers exist now
    r, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:                                     # the child: workers are recreated on demand
        os.close(r)
        ok = np.allclose(compiled(ms.Tensor(x), ms.Tensor(w)).asnumpy(), _want(x, w), rtol=2e-5, atol=1e-6)
        os.write(wfd, b"1" if ok else b"0")
        os._exit(0)
    os.close(wfd)
    got = os.read(r, 1)
    os.waitpid(pid, 0)
    lib.pc_set_num_threads(context.num_threads())
    assert got == b"1"


def test_generated_modules_need_no_openmp_runtime(compiled):
    x, w = _inputs()
    report = compiled.compiled(ms.Tensor(x), ms.Tensor(w))
    assert "#pragma omp parallel" not in report.c_source
    assert "RT->parallel_for(" in report.c_source
    needed = subprocess.run(["readelf", "-d", report.so_path], capture_output=True, text=True).stdout
    assert "gomp" not in needed and "libomp" not in needed


def test_default_thread_count(monkeypatch):
    """runtime_num_threads, else PYCOMPILE_NUM_THREADS, else OMP_NUM_THREADS (its first number),
    else the cores this process may use: its affinity mask capped by a cgroup CPU quota."""
    for name in ("PYCOMPILE_NUM_THREADS", "OMP_NUM_THREADS"):
        monkeypatch.delenv(name, raising=False)
    assert context.num_threads() == context.available_cores() == len(os.sched_getaffinity(0))
    monkeypatch.setattr(context, "_cgroup_quota", lambda: (150000, 100000))      # docker --cpus=1.5
    assert context.available_cores() == min(len(os.sched_getaffinity(0)), 2)
    monkeypatch.setenv("OMP_NUM_THREADS", "3,2")
    assert context.num_threads() == 3
    monkeypatch.setenv("PYCOMPILE_NUM_THREADS", "5")
    assert context.num_threads() == 5
    ms.set_context(runtime_num_threads=1)
    assert context.num_threads() == 1
    assert lib.pc_get_num_threads() == 1


def test_cgroup_quota_files(tmp_path, monkeypatch):
    import builtins
    real_open = builtins.open
    files = {"/sys/fs/cgroup/cpu.max": "250000 100000\n"}

    def fake_open(path, *a, **k):
        if path in files:
            p = tmp_path / "f"
            p.write_text(files[path])
            return real_open(p, *a, **k)
        if str(path).startswith("/sys/fs/cgroup"):
            raise FileNotFoundError(path)
        return real_open(path, *a, **k)
    monkeypatch.setattr(builtins, "open", fake_open)
    assert context._cgroup_quota() == (250000, 100000)
    files["/sys/fs/cgroup/cpu.max"] = "max 100000\n"
    assert context._cgroup_quota() is None
    del files["/sys/fs/cgroup/cpu.max"]
    files["/sys/fs/cgroup/cpu/cpu.cfs_quota_us"] = "50000\n"
    files["/sys/fs/cgroup/cpu/cpu.cfs_period_us"] = "100000\n"
    assert context._cgroup_quota() == (50000, 100000)


def _loops_with_a_late_worker(count, delay=0.002):
    """`count` parallel loops of 2 chunks in a row, each worker-run chunk taking `delay` seconds
    (a worker whose core was taken while it held a chunk): the caller's own chunk waits until the
    worker has started, so every loop makes the caller wait ~delay for the worker. Returns how
    many loops the worker took part in."""
    state = {"started": False, "joined": 0}

    @ffi.callback("void(void *, long, long)")
    def chunk(ctx, lo, hi):
        if lib.pc_thread_index() != 0:
            state["started"] = True
            state["joined"] += 1
            time.sleep(delay)
            return
        t0 = time.perf_counter()
        while not state["started"] and time.perf_counter() - t0 < 1.0:
            time.sleep(0.0001)          # (releases the GIL the worker's callback needs)

    for _ in range(count):
        state["started"] = False
        lib.pc_parallel_for(chunk, ffi.NULL, 2)
    return state["joined"]


def _quiet_loops(count):
    @ffi.callback("void(void *, long, long)")
    def chunk(ctx, lo, hi):
        pass
    for _ in range(count):
        lib.pc_parallel_for(chunk, ffi.NULL, 2)


@pytest.mark.exclusive      # the pool's stall and back-off behaviour assumes an idle machine
def test_an_isolated_stall_does_not_make_loops_serial():
    """A worker late once (a virtual machine holding its vCPU for a few ms, seen ~2 times a second
    on an idle machine here) is not contention: later loops stay parallel. Stalls that keep coming
    (a busy core) do make the pool run loops on the caller alone for a while."""
    lib.pc_set_num_threads(2)
    try:
        time.sleep(1.2)                 # any earlier serial period and stall window are over
        # the late worker's loop must count as a stall: the caller waited on the worker longer than
        # its own chunk took, and did not have to wake it. Under load (CI runs two test workers on
        # two cores) the worker may be late to start too, or asleep: then the loop is rightly not
        # a stall, and the setup is tried again after the stall window (100 ms) has passed. So is
        # it when one of the quiet loops stalled (the worker descheduled): with the late worker's
        # that is two stalls in one window, which rightly backs off
        for attempt in range(8):
            time.sleep(0.15)
            quiet = _stats()
            _quiet_loops(20)            # the worker is awake and polling
            before = _stats()
            assert _loops_with_a_late_worker(1, delay=0.005) == 1
            if before[2] == quiet[2] and _stats()[2] == before[2] + 1:
                break
        else:
            raise AssertionError("in 8 tries no late worker's loop counted as a stall")
        _quiet_loops(50)
        after = _stats()
        if after[2] == before[2] + 1:
            # ... and the only one: no loop ran serially for it. (On a loaded machine the quiet
            # loops' worker may be descheduled too; stalls that recur then rightly back off.)
            assert after[1] == before[1]
            assert after[0] >= before[0] + 51
        before = after
        joined = _loops_with_a_late_worker(10)
        _quiet_loops(20)
        after = _stats()
        assert joined >= 2 and after[2] >= before[2] + 2
        assert after[1] > before[1]                 # recurring stalls: serial for a while
    finally:
        lib.pc_set_num_threads(context.num_threads())
