"""What a user sets that pycompile cannot take is reported naming the setting (reliability issue
31, item 12): before, PYCOMPILE_NUM_THREADS=99999999999999999999 gave a raw OverflowError,
PYCOMPILE_CC_TIMEOUT=inf / nan and an unknown PYCOMPILE_SANITIZE value an "internal error ... a
bug in pycompile", and a function name holding a lone surrogate a UnicodeEncodeError from the
compile cache."""
import os
import subprocess
import sys

import numpy as np
import pytest

import pycompile as ms
from pycompile.common import knobs


def test_a_thread_count_no_c_int_holds():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), PYCOMPILE_NUM_THREADS="99999999999999999999")
    proc = subprocess.run([sys.executable, "-c", "import pycompile"], capture_output=True, text=True, env=env,
                          timeout=120)
    assert proc.returncode != 0
    last = proc.stderr.strip().splitlines()[-1]
    assert "OverflowError" not in last and "PYCOMPILE_NUM_THREADS" in last and "99999999999999999999" in last


def test_a_huge_omp_thread_count_is_taken_as_many(monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "99999999999999999999")
    assert 0 < knobs.get("OMP_NUM_THREADS") < 2 ** 31


def test_a_thread_count_past_a_c_int_in_set_context():
    ms.set_context(runtime_num_threads=2 ** 31)         # MindSpore 2.10 takes it (an unsigned int)
    assert ms.get_context("runtime_num_threads") == 2 ** 31
    np.testing.assert_array_equal(_fresh_function()(ms.Tensor(np.ones(3, np.float32))).asnumpy(), [2, 2, 2])


def _fresh_function():
    # a new function object per call: nothing compiled for it yet, so the build runs
    def add_one(x):
        return x + 1
    return ms.jit(add_one)


@pytest.mark.parametrize("name, value", [("PYCOMPILE_CC_TIMEOUT", "inf"), ("PYCOMPILE_CC_TIMEOUT", "nan"),
                                         ("PYCOMPILE_CC_TIMEOUT", "1e300"), ("PYCOMPILE_SANITIZE", "adress")])
def test_a_bad_build_setting_is_the_users_error(name, value, monkeypatch):
    monkeypatch.setenv(name, value)
    with pytest.raises(ValueError) as info:
        _fresh_function()(ms.Tensor(np.ones(3, np.float32)))
    msg = str(info.value)
    assert name in msg and repr(value) in msg
    assert "internal error" not in msg and "bug in pycompile" not in msg


def test_a_function_named_with_a_lone_surrogate_in_the_compile_cache(tmp_path):
    def f(x):
        return x * 2
    f.__name__ = f.__qualname__ = "f\udc80"
    ms.set_context(enable_compile_cache=True, compile_cache_path=str(tmp_path))
    try:
        for _ in range(2):          # a build, then an in-memory hit
            out = ms.jit(f)(ms.Tensor(np.ones(3, np.float32)))
            np.testing.assert_array_equal(out.asnumpy(), [2, 2, 2])
    finally:
        ms.set_context(enable_compile_cache=False)
