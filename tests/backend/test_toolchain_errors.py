"""Errors name their cause and the party to blame (issue 20, defect 6).

Each case used to end in an error blaming the wrong party or hiding the cause: a shape whose
element count overflows (a NumPy ValueError without the user's line, or an internal error),
any C compiler failure ("a pycompile bug"), compiler output that is not UTF-8
(UnicodeDecodeError), a compiler that exits 0 without a shared object (a raw OSError from the
loader), a compiler that never finishes (pycompile hung), a missing library (a pycompile bug),
and a huge `--input` shape in the CLI (a traceback). Fake compilers are small shell scripts set
as CC."""
import os
import stat
import subprocess
import sys

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops
from pycompile.backend import toolchain
from pycompile.backend.toolchain import ToolchainError


def overflowing(x):
    return ops.broadcast_to(x, (1 << 40, 1 << 40))


def test_element_count_overflow_is_a_value_error_at_the_users_line():
    with pytest.raises(ValueError) as info:
        ms.jit(overflowing)(Tensor(np.ones(1, np.float32)))
    msg = str(info.value)
    assert f"{__file__}:" in msg and "broadcast_to(x, (1 << 40, 1 << 40))" in msg
    assert "1208925819614629174706176 elements" in msg and "more than memory can address" in msg
    with pytest.raises(ValueError, match="more than memory can address"):
        overflowing(Tensor(np.ones(1, np.float32)))          # PyNative says the same


@pytest.fixture
def fake_cc(tmp_path, monkeypatch):
    """fake_cc(body) -> sets CC to a shell script running `body` ("$@" are cc's arguments; $OUT
    the output file, $SRC the C file) and returns a fresh function compiling `x + 1`."""
    def install(body: str):
        script = tmp_path / f"cc{len(list(tmp_path.iterdir()))}"
        script.write_text("#!/bin/sh\nOUT=''; SRC=''; prev=''\n"
                          "for a in \"$@\"; do [ \"$prev\" = -o ] && OUT=$a; case $a in *.c) SRC=$a;; esac; prev=$a; done\n"
                          + body + "\n")
        script.chmod(script.stat().st_mode | stat.S_IEXEC)
        monkeypatch.setenv("CC", str(script))
        toolchain._find_program.cache_clear()
        toolchain._identity.cache_clear()

        def add_one(x):
            return x + 1
        return lambda: ms.jit(add_one)(Tensor(np.ones(3, np.float32)))
    yield install
    monkeypatch.delenv("CC")
    toolchain._find_program.cache_clear()
    toolchain._identity.cache_clear()


def _error(run) -> str:
    with pytest.raises(ToolchainError) as info:
        run()
    msg = str(info.value)
    assert "Traceback" not in msg
    return msg


def test_compiler_output_that_is_not_utf8(fake_cc):
    msg = _error(fake_cc(r"printf 'erreur \377\376 fatale\n' >&2; exit 1"))
    assert "the C compiler failed" in msg and "erreur" in msg and "pycompile bug" not in msg


def test_rejected_generated_code_is_a_pycompile_bug_and_keeps_the_c_file(fake_cc):
    msg = _error(fake_cc('echo "$SRC:3:1: error: expected expression" >&2; exit 1'))
    assert "rejected the generated code (this is a pycompile bug" in msg
    c_file = msg.split("C file: ")[1].splitlines()[0]
    assert os.path.exists(c_file)


def test_compiler_exiting_zero_without_a_shared_object(fake_cc):
    assert "exited successfully but wrote no" in _error(fake_cc("exit 0"))
    assert "is not an ELF object" in _error(fake_cc('echo garbage > "$OUT"; exit 0'))


def test_compiler_that_never_finishes_is_stopped(fake_cc, monkeypatch):
    monkeypatch.setenv("PYCOMPILE_CC_TIMEOUT", "0.5")
    msg = _error(fake_cc("sleep 60 & wait"))      # a child process too: the whole group is stopped
    assert "did not finish within 0.5 s" in msg and "PYCOMPILE_CC_TIMEOUT" in msg


def test_killed_compiler_is_not_the_users_or_pycompiles_fault(fake_cc):
    msg = _error(fake_cc("kill -9 $$"))
    assert "killed by SIGKILL (out of memory?)" in msg and "pycompile bug" not in msg


def test_missing_library_names_it(fake_cc):
    msg = _error(fake_cc("echo '/usr/bin/ld: cannot find -lscipy_openblas: No such file or directory' >&2; "
                         "echo 'collect2: error: ld returned 1 exit status' >&2; exit 1"))
    assert "cannot find the library -lscipy_openblas" in msg and "pip install" in msg
    assert "pycompile bug" not in msg


def test_library_missing_when_the_module_is_loaded(fake_cc, tmp_path):
    # a real build linked against a library that is gone by the time the module is loaded
    lib_dir = tmp_path / "libs"
    lib_dir.mkdir()
    real = toolchain.find_cc()
    run = fake_cc(f'{real} -shared -fPIC -o {lib_dir}/libpcgone.so -x c /dev/null && '
                  f'{real} "$@" -Wl,--no-as-needed -L{lib_dir} -lpcgone; rc=$?; rm -f {lib_dir}/libpcgone.so; exit $rc')
    msg = _error(run)
    assert "cannot be loaded: a library it needs is missing: libpcgone.so" in msg


def test_cli_huge_input_shape_is_a_usage_error(tmp_path):
    model = tmp_path / "model.py"
    model.write_text("import pycompile as ms\n\n\n@ms.jit\ndef f(x):\n    return x + 1\n")
    for shape, expect in (("100000000000,100000000000", "more than memory can address"),
                          ("100000,10000000", "more than this machine can allocate")):
        proc = subprocess.run([sys.executable, "-m", "pycompile", str(model), "--input", f"x=float32[{shape}]"],
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 2, proc.stderr
        assert "Traceback" not in proc.stderr and expect in proc.stderr, proc.stderr
