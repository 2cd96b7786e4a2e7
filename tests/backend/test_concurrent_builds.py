"""Python threads whose first calls of one signature overlap build its C once (backend/cpu.py: the
others wait for that build and load its library); a build that fails leaves the waiting threads
to build it themselves rather than wait forever or share a library that does not exist."""
import threading

import numpy as np

import pycompile as ms
from pycompile import Tensor, ops
from pycompile.backend import toolchain
from thread_helpers import run_in_threads


def _counting(monkeypatch, fail_first=False):
    """Wrap toolchain.compile_shared: count the builds, hold each one 0.3 s so that the threads'
    first calls overlap it, and (fail_first) make the first one fail. A thread that comes later
    (a loaded machine) finds the library built, or builds it after a failure: the counts hold."""
    calls = []
    lock = threading.Lock()
    real = toolchain.compile_shared

    def wrapper(*args, **kwargs):
        with lock:
            calls.append(threading.get_ident())
            first = len(calls) == 1
        threading.Event().wait(0.3)
        if fail_first and first:
            raise OSError("the first build failed (injected)")
        return real(*args, **kwargs)
    monkeypatch.setattr(toolchain, "compile_shared", wrapper)
    return calls


def _fresh_function(seed):
    c = 0.5 + (int(seed) % 100000) * 1e-6    # a constant of its own: no other test's library has this source

    def f(x):
        return ops.exp(x * c) - ops.sin(x)
    return ms.jit(f), c


def test_overlapping_first_calls_build_once(monkeypatch):
    calls = _counting(monkeypatch)
    f, c = _fresh_function(np.random.default_rng().integers(1 << 30))
    x = np.linspace(-1, 1, 37).astype(np.float32)
    results, start = {}, threading.Barrier(4)

    def run(k):
        start.wait()
        results[k] = f(Tensor(x)).asnumpy()
    run_in_threads(run)
    assert len(calls) == 1, calls
    for got in results.values():
        np.testing.assert_allclose(got, np.exp(x * np.float32(c)) - np.sin(x), rtol=1e-5, atol=1e-6)


def test_a_failed_build_leaves_the_waiting_threads_to_build(monkeypatch):
    calls = _counting(monkeypatch, fail_first=True)
    f, c = _fresh_function(np.random.default_rng().integers(1 << 30))
    x = np.linspace(-1, 1, 29).astype(np.float32)
    results, errors, start = {}, [], threading.Barrier(4)

    def run(k):
        start.wait()
        try:
            results[k] = f(Tensor(x)).asnumpy()
        except Exception as e:      # noqa: BLE001 - counted below
            errors.append(e)
    run_in_threads(run)
    assert len(errors) == 1 and "injected" in str(errors[0]), errors
    assert len(results) == 3
    assert len(calls) == 2, calls       # the failed build, then one of the waiting threads' own
    for got in results.values():
        np.testing.assert_allclose(got, np.exp(x * np.float32(c)) - np.sin(x), rtol=1e-5, atol=1e-6)
