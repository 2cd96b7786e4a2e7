"""The system C compiler: find it, build a shared object from one generated C file.

`$CC` (default `cc`) is called directly — no setuptools per model (~60 ms instead of ~1 s).
A failing compile raises ToolchainError naming the C file (kept on disk) and the command.
subprocess and shutil are imported on first use: a compile-cache hit needs the flags and the
header directories but never runs the compiler.
"""
from __future__ import annotations

import functools
import os
import sys

from pycompile.errors import CompileError
from pycompile.common import knobs

# -fwrapv: integer arithmetic wraps around as in NumPy / MindSpore (signed overflow is otherwise
# undefined in C, and the optimizer folds `x + 1 > x` to true)
# -Wl,-z,nodelete: a module is never unmapped, even when its executable is garbage collected:
# unloading the last module that uses OpenMP unmaps libgomp under its still-spinning worker
# threads, which then crash the process
BASE_FLAGS = ["-O3", "-march=native", "-std=gnu11", "-fPIC", "-shared", "-fopenmp",
              "-fno-math-errno", "-fno-trapping-math", "-fwrapv", "-Wl,-z,nodelete", "-w"]


def _libmvec() -> bool:
    """glibc's vector math library (x86-64 glibc >= 2.35 has every function we declare)."""
    import ctypes.util
    import platform
    try:
        version = os.confstr("CS_GNU_LIBC_VERSION") or ""
    except (ValueError, OSError):
        version = ""
    parts = version.split()[-1].split(".") if version.startswith("glibc") else []
    new_enough = len(parts) >= 2 and (int(parts[0]), int(parts[1])) >= (2, 35)
    return platform.machine() in ("x86_64", "AMD64") and new_enough and ctypes.util.find_library("mvec") is not None


# kernels calling exp / tanh / log ... vectorize through libmvec where it exists
HAVE_LIBMVEC = _libmvec()
if HAVE_LIBMVEC:
    BASE_FLAGS.append("-DPC_HAVE_LIBMVEC")


class ToolchainError(CompileError):
    pass


@functools.lru_cache(maxsize=None)
def find_cc() -> str:
    import shutil
    cc = knobs.get("CC")
    path = shutil.which(cc)
    if path is None:
        raise ToolchainError(
            f"pycompile needs a C compiler to compile graphs, but '{cc}' was not found on PATH. "
            f"Install gcc or clang (e.g. `apt install gcc`), or set CC to the compiler's path. "
            f"PyNative mode (set_context(mode=PYNATIVE_MODE)) works without one.")
    return path


@functools.lru_cache(maxsize=None)
def include_dirs() -> tuple:
    here = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))   # the pycompile package
    dirs = []
    installed = os.path.join(here, "include")
    if os.path.exists(os.path.join(installed, "pycompile_kernels.h")):
        dirs.append(installed)
    else:
        repo = os.path.join(os.path.dirname(os.path.dirname(here)), "csrc")
        if os.path.exists(os.path.join(repo, "pycompile_kernels.h")):
            dirs.append(repo)
    if not dirs:
        raise ToolchainError("pycompile's C headers are missing from the installation; reinstall with `pip install .`")
    return tuple(dirs)


@functools.lru_cache(maxsize=None)
def blas_paths() -> tuple[str, str]:
    """(include dir, lib dir) of the scipy-openblas32 package."""
    try:
        import scipy_openblas32 as sob
    except ImportError:
        raise ToolchainError("the scipy-openblas32 package is missing; reinstall pycompile with `pip install .`") from None
    return sob.get_include_dir(), sob.get_lib_dir()


@functools.lru_cache(maxsize=None)
def compiler_identity() -> str:
    """What goes into cache keys: the compiler's version line and the flags."""
    import subprocess
    try:
        out = subprocess.run([find_cc(), "--version"], capture_output=True, text=True, timeout=30).stdout
        first = out.splitlines()[0] if out else ""
    except (OSError, subprocess.SubprocessError):
        first = "unknown"
    return f"{find_cc()} | {first} | {' '.join(BASE_FLAGS)}"


def build_command(c_path: str, so_path: str, uses_blas: bool, headers: tuple | None = None) -> list:
    """The compiler command that turns generated C into a shared object (`headers`: the
    directories holding pycompile's headers; the installed ones by default)."""
    cmd = [find_cc(), *BASE_FLAGS]
    for d in include_dirs() if headers is None else headers:
        cmd.append(f"-I{d}")
    if uses_blas:
        inc, lib = blas_paths()
        cmd += [f"-I{inc}"]
    cmd += ["-o", so_path, c_path, "-lm"] + (["-lmvec"] if HAVE_LIBMVEC else [])
    if uses_blas:
        inc, lib = blas_paths()
        cmd += [f"-L{lib}", "-lscipy_openblas", f"-Wl,-rpath,{lib}"]
    return cmd


def runtime_libraries(uses_blas: bool) -> list:
    """Shared libraries a compiled module loads besides libc: OpenMP's runtime, libm / libmvec,
    and OpenBLAS (found through the rpath the build command sets) when it calls BLAS."""
    libs = ["libgomp.so.1", "libm.so.6"] + (["libmvec.so.1"] if HAVE_LIBMVEC else [])
    if uses_blas:
        libs.append(os.path.join(blas_paths()[1], "libscipy_openblas.so"))
    return libs


def compile_shared(c_path: str, so_path: str, uses_blas: bool) -> None:
    import subprocess
    cmd = build_command(c_path, so_path, uses_blas)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        msg = proc.stderr.strip().splitlines()
        tail = "\n".join(msg[-20:])
        raise ToolchainError(
            f"the C compiler failed on generated code (this is a pycompile bug; please report it).\n"
            f"C file: {c_path}\ncommand: {' '.join(cmd)}\n{tail}")


def platform_tag() -> str:
    return f"{sys.platform}-{os.uname().machine if hasattr(os, 'uname') else ''}"
