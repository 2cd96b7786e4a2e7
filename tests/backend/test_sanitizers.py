"""PYCOMPILE_SANITIZE=address,undefined builds generated C with AddressSanitizer and UBSan
(issue 20). Python runs with ASan's runtime preloaded, as docs/RELIABILITY.md describes:

    PYCOMPILE_SANITIZE=address,undefined LD_PRELOAD=$(gcc -print-file-name=libasan.so) \\
        ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 python ...

The sanitizers do catch what they are for (a C snippet built with the same flags), and a handful
of compiled tests - integer corners, hostile names, split functions, a slice of the op fuzzer
and two of its regressions, concurrent calls from two Python threads - run clean under them in a
subprocess."""
import os
import subprocess
import sys

import pytest

from pycompile.backend import toolchain

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def sanitized_env(extra=None) -> dict:
    asan = subprocess.run([toolchain.find_cc(), "-print-file-name=libasan.so"], capture_output=True,
                          text=True).stdout.strip()
    if not os.path.isabs(asan):
        pytest.fail(f"the C compiler has no AddressSanitizer runtime ({asan!r}): install libasan")
    return {**os.environ, "PYCOMPILE_SANITIZE": "address,undefined", "LD_PRELOAD": asan,
            "ASAN_OPTIONS": "detect_leaks=0", "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1",
            **(extra or {})}


BAD = r"""
#include <stdint.h>
#include <stdlib.h>
int overflow_heap(int n) { int *a = malloc(4 * sizeof(int)); a[n] = 1; int r = a[0]; free(a); return r; }
int shift(int32_t x, int s) { return x << s; }
int32_t to_int(float x) { return (int32_t)x; }
"""

RUN_BAD = """
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
getattr(lib, sys.argv[2])(*[ctypes.c_int(int(a)) if a.isdigit() else ctypes.c_float(float(a)) for a in sys.argv[3:]])
print("returned")
"""


@pytest.mark.parametrize("call,report", [("overflow_heap 4", "store to address"),      # UBSan sees it first
                                         ("shift 1 40", "shift exponent 40 is too large"),
                                         ("to_int 1e20", "is outside the range of representable values")])
def test_sanitizers_catch_what_they_are_for(tmp_path, call, report, monkeypatch):
    monkeypatch.setenv("PYCOMPILE_SANITIZE", "address,undefined")
    c, so = tmp_path / "bad.c", tmp_path / "bad.so"
    c.write_text(BAD)
    toolchain.compile_shared(str(c), str(so), False)
    script = tmp_path / "run_bad.py"
    script.write_text(RUN_BAD)
    proc = subprocess.run([sys.executable, str(script), str(so), *call.split()], capture_output=True, text=True,
                          env=sanitized_env(), timeout=120)
    assert report in proc.stderr, proc.stderr[-3000:]
    assert proc.returncode != 0 and "returned" not in proc.stdout


SUBSET = ["tests/compiler/test_integer_corners.py", "tests/backend/test_hostile_names.py",
          "tests/compiler/test_split_functions.py::test_split_subgraph_and_entry_match_pynative",
          "tests/compiler/test_fuzz_ops.py::test_random_programs_compiled_equal_pynative",
          "tests/compiler/test_fuzz_ops.py::test_gradient_through_an_op_of_a_comparison",
          "tests/compiler/test_fuzz_ops.py::test_gradient_of_a_comparison_used_twice",
          # two Python threads in one compiled function: each call's own arguments and arena
          "tests/backend/test_thread_pool.py::test_concurrent_python_threads"]


def test_a_subset_of_the_suite_is_clean_under_the_sanitizers(tmp_path):
    # one process (-n 0): two more xdist workers starting under ASan made it 68 s instead of 49 s
    # on 2 cores. It is not one of this run's workers: without the variables xdist set for this
    # process, tests/conftest.py takes no lock of this run (the exclusive test in SUBSET would wait
    # for the shared lock this test holds).
    env = {k: v for k, v in sanitized_env({"PYCOMPILE_FUZZ_EXAMPLES": "10", "TMPDIR": str(tmp_path)}).items()
           if not k.startswith("PYTEST_XDIST_")}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-n", "0", "-p", "no:cacheprovider",
                           "--durations=5", *SUBSET],
                          capture_output=True, text=True, cwd=ROOT, timeout=1200, env=env)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-5000:]
    assert "runtime error:" not in out and "AddressSanitizer" not in out, out[-5000:]
