"""C compilers as users have them (backend/toolchain.py): CC with arguments, clang, a compiler
without OpenMP, a failing compiler's message, and the notice for a compile past one second.
Compilers other than the system's are small shell wrappers written by the tests."""
import os
import re
import shutil
import stat
import subprocess
import sys
import time

import numpy as np
import pytest

import pycompile as ms
from pycompile import compile_log, ops
from pycompile.backend import toolchain

GCC = shutil.which("gcc") or shutil.which("cc")


def _script(path, body: str) -> str:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def mlp(x, w, b):
    h = ops.relu(ops.matmul(x, w) + b)
    return ops.sum(h * h, -1) + ops.cast(x[:, 0], ms.float16).astype(ms.float32)


def _mlp_args():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((48, 40)).astype(np.float32)
    w = rng.standard_normal((40, 300)).astype(np.float32)
    b = rng.standard_normal(300).astype(np.float32)
    h = np.maximum(x @ w + b, 0)
    want = (h * h).sum(-1) + x[:, 0].astype(np.float16).astype(np.float32)
    return (ms.Tensor(x), ms.Tensor(w), ms.Tensor(b)), want


def _check_mlp():
    args, want = _mlp_args()
    np.testing.assert_allclose(ms.jit(mlp)(*args).asnumpy(), want, rtol=1e-4)


def _builds(log):
    """The logged compiler commands that build something (not the `-###` query that asks whether
    the compiler is GCC's driver)."""
    return [ln.split() for ln in log.read_text().splitlines() if "-###" not in ln.split()]


def test_cc_with_a_launcher_and_with_flags(tmp_path, monkeypatch):
    """CC="launcher gcc" (as ccache is used) and CC="gcc -g": the words are split as a shell
    splits them, the launcher runs the compiler, the extra flag reaches it, and each spelling is
    its own compiler identity (compile-cache keys differ)."""
    log = tmp_path / "argv.log"
    launcher = _script(tmp_path / "launch", f'echo "$@" >> "{log}"\nexec "$@"\n')
    monkeypatch.setenv("CC", f"{launcher} {GCC}")
    _check_mlp()
    first = _builds(log)[0]
    assert first[0] == GCC and "-O3" in first
    ident_launch = toolchain.compiler_identity()
    assert launcher in ident_launch and GCC in ident_launch

    monkeypatch.setenv("CC", f"{launcher} {GCC} -g -DPC_TEST_FLAG=1")
    log.write_text("")
    _check_mlp()
    argv = _builds(log)[0]
    assert argv[:3] == [GCC, "-g", "-DPC_TEST_FLAG=1"]
    assert toolchain.compiler_identity() != ident_launch


@pytest.mark.parametrize("compiler", [c for c in ("gcc", "clang") if shutil.which(c)])
def test_each_installed_compiler_builds_what_gcc_builds(compiler, monkeypatch):
    """Products with epilogues, float16 casts, reductions and a loop, compiled by each C compiler
    on this machine (clang < 15 has no _Float16 on x86-64: the header maps it to __fp16)."""
    monkeypatch.setenv("CC", compiler)
    _check_mlp()

    @ms.jit
    def loop(x, y):
        out = x
        for _ in range(50):
            out = x + x * y + out
        return ops.softmax(out.astype(ms.float16), -1)

    x = np.linspace(-1, 1, 64 * 20).reshape(64, 20).astype(np.float32)
    out = x.copy()
    for _ in range(50):
        out = x + x * x + out
    o16 = out.astype(np.float16).astype(np.float32)
    e = np.exp(o16 - o16.max(-1, keepdims=True))
    want = (e / e.sum(-1, keepdims=True)).astype(np.float16)
    got = loop(ms.Tensor(x), ms.Tensor(x)).asnumpy()
    assert got.dtype == np.float16
    np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=2e-3, atol=1e-3)


def test_compiler_without_openmp_builds_with_one_warning(tmp_path, monkeypatch, capsys):
    """A compiler that rejects every -fopenmp spelling: the build goes on without it, correct,
    with one warning for the compiler, not an error. Kernels need no OpenMP runtime (their
    parallel loops run on pycompile's thread pool), so they still use every core."""
    noomp = _script(tmp_path / "noomp-cc", 'for a in "$@"; do case "$a" in -fopenmp*) '
                    'echo "cc: error: unsupported option \'$a\'" >&2; exit 1;; esac; done\n'
                    f'exec {GCC} "$@"\n')
    monkeypatch.setenv("CC", noomp)
    _check_mlp()

    @ms.jit
    def big(x):
        return ops.exp(x) * 2 + ops.sum(x, -1, keepdim=True)

    x = np.linspace(0, 1, 256 * 512).reshape(256, 512).astype(np.float32)
    np.testing.assert_allclose(big(ms.Tensor(x)).asnumpy(), np.exp(x) * 2 + x.sum(-1, keepdims=True), rtol=1e-5)
    err = [ln for ln in capsys.readouterr().err.splitlines() if "OpenMP" in ln]
    assert len(err) == 1, err
    assert "has no OpenMP SIMD" in err[0] and "every core" in err[0] and "unsupported option" in err[0]
    assert toolchain.openmp_flags() == []
    assert "-fopenmp" not in " ".join(toolchain.build_command("a.c", "a.so", True))


def test_failing_compiler_gives_the_command_and_a_c_file_that_outlives_the_process(tmp_path):
    """The message holds the exact command and a copy of the C file outside the per-process
    directory (removed at exit): both still exist after the process that failed has ended."""
    broken = _script(tmp_path / "broken-cc", 'echo "broken-cc: internal compiler error" >&2; exit 1\n')
    prog = tmp_path / "prog.py"
    prog.write_text("import numpy as np, pycompile as ms\n"
                    "@ms.jit\ndef f(x):\n    return x + 1\n"
                    "try:\n    f(ms.Tensor(np.ones(3, np.float32)))\n"
                    "except Exception as e:\n    print(e)\n")
    env = dict(os.environ, CC=broken)
    out = subprocess.run([sys.executable, str(prog)], capture_output=True, text=True, env=env, timeout=300).stdout
    c_file = re.search(r"^C file: (\S+)$", out, re.M).group(1)
    command = re.search(r"^command: (.+)$", out, re.M).group(1)
    assert "broken-cc: internal compiler error" in out
    assert os.path.isfile(c_file) and "pc_entry" in open(c_file).read()
    assert command.startswith(broken + " ") and c_file in command.split()
    os.unlink(c_file)


def test_a_compile_past_one_second_says_what_it_compiles(tmp_path, monkeypatch, capsys):
    slow = _script(tmp_path / "slow-cc", f'sleep 1.5\nexec {GCC} "$@"\n')
    monkeypatch.setenv("CC", slow)
    monkeypatch.setattr(compile_log, "SLOW_COMPILE_SECONDS", 1.0)

    @ms.jit
    def add_one(x):
        return x + 1

    add_one(ms.Tensor(np.ones((2, 3), np.float32)))
    err = capsys.readouterr().err.splitlines()
    notice = [ln for ln in err if "so far" in ln]
    assert len(notice) == 1, err
    assert notice[0].startswith("[pycompile] compiling add_one (test_toolchain.py:")
    assert "for (x: Tensor[Float32, (2, 3)])" in notice[0] and "(now building (the C compiler))" in notice[0]


def test_blas_paths_are_the_packages_own_without_importing_it():
    import subprocess
    import sys
    code = ("import sys; from pycompile.backend import toolchain as t; p = t.blas_paths(); "
            "print('scipy_openblas32' in sys.modules); import scipy_openblas32 as s; "
            "print(p == (s.get_include_dir(), s.get_lib_dir()))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "True"]


_VECTOR_C = """
#include <math.h>
#include <stdint.h>
void k(const float *restrict x, float *restrict y, _Float16 *restrict h, long n) {
    for (long i = 0; i < n; ++i) {
        y[i] = expf(x[i]) * 2.0f + x[i] * x[i];
        h[i] = (_Float16)y[i];
    }
}
"""


def test_a_compiler_that_is_not_gccs_driver_reads_the_headers(tmp_path, monkeypatch):
    """A driver whose `-###` output names no cc1 (another compiler, a wrapper that prints
    nothing) gets no precompiled header, however many builds; it still builds."""
    quiet = _script(tmp_path / "quiet-cc", f'for a in "$@"; do [ "$a" = "-###" ] && exit 0; done\nexec {GCC} "$@"\n')
    monkeypatch.setenv("CC", quiet)
    assert not toolchain.gcc_driver(toolchain.cc_words())
    assert all(toolchain.precompiled_header(str(tmp_path)) == [] for _ in range(5))
    _check_mlp()


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no program named gcc on PATH (precompiled headers are GCC's)")
def test_builds_read_the_precompiled_header_and_give_the_same_code(tmp_path, monkeypatch):
    """From a process's third build on, GCC reads pycompile_kernels.h precompiled (a background
    compile into the directory it is given): a module built then reports the .gch (-H) and its assembly
    is the one built from the headers; the .gch lies in the directory it was given (the
    process's build directory, removed with it). PYCOMPILE_PCH=0 gives no directory."""
    monkeypatch.setenv("CC", shutil.which("gcc"))
    # the probe must recognise GCC itself, or the header would silently never be precompiled
    assert toolchain.gcc_driver((shutil.which("gcc"),))
    src = tmp_path / "m.c"
    src.write_text('#include "pycompile_kernels.h"\n' + _VECTOR_C.split("\n", 3)[3])
    deadline = time.monotonic() + 120
    while not (pch := toolchain.precompiled_header(str(tmp_path))) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(pch) == 1 and os.path.isfile(os.path.join(pch[0][2:], "pycompile_kernels.h.gch"))
    assert os.path.dirname(pch[0][2:]) == str(tmp_path)
    n = len(toolchain.cc_command())

    def asm(extra, out):
        cmd = toolchain.build_command(str(src), str(tmp_path / "m.so"), False)
        cmd = [a for a in cmd if a not in ("-shared", "-lm", "-lmvec") and not a.startswith("-Wl,")]
        cmd[cmd.index("-o") + 1] = str(tmp_path / out)
        proc = subprocess.run(cmd[:n] + extra + cmd[n:] + ["-S", "-H"], capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        return (tmp_path / out).read_text(), proc.stderr

    with_pch, report = asm(pch, "a.s")
    plain, report_plain = asm([], "b.s")
    assert with_pch == plain
    assert "! " + os.path.join(pch[0][2:], "pycompile_kernels.h.gch") in report
    assert ".gch" not in report_plain and "math.h" in report_plain
    monkeypatch.setenv("PYCOMPILE_PCH", "0")
    assert toolchain.precompiled_header(str(tmp_path)) == []
