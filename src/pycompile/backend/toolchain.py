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


# ---- the compiler as the user names it -------------------------------------------------------
# $CC may carry arguments (CC="ccache gcc", CC="gcc -g", CC="clang --target=..."): it is split
# as a shell splits it, the first word is the program, the rest go before pycompile's flags.

def cc_words() -> tuple:
    """$CC split into words (CC="ccache gcc" -> ("ccache", "gcc"))."""
    return _split_cc(knobs.get("CC"))


@functools.lru_cache(maxsize=None)
def _split_cc(cc: str) -> tuple:
    import shlex
    try:
        words = tuple(shlex.split(cc))
    except ValueError as e:
        raise ToolchainError(f"cannot parse CC={cc!r} as a command: {e}") from None
    if not words:
        raise ToolchainError("CC is set to an empty command")
    return words


def find_cc() -> str:
    """The path of $CC's program (the first word)."""
    return _find_program(cc_words()[0])


@functools.lru_cache(maxsize=None)
def _find_program(program: str) -> str:
    import shutil
    path = shutil.which(program)
    if path is None:
        raise ToolchainError(
            f"pycompile needs a C compiler to compile graphs, but '{program}' was not found on PATH. "
            f"Install gcc or clang (e.g. `apt install gcc`), or set CC to the compiler's path. "
            f"PyNative mode (set_context(mode=PYNATIVE_MODE)) works without one.")
    return path


def cc_command() -> list:
    """$CC as an argument list with its program resolved: [path, its own arguments...]."""
    words = cc_words()
    return [find_cc(), *words[1:]]


# ---- OpenMP SIMD as the compiler has it ---------------------------------------------------------
# Generated kernels need no OpenMP runtime: their parallel loops run on pycompile's own thread
# pool (csrc/pool.c, reached through pc_api). They keep `#pragma omp simd` hints for the
# vectorizer, which -fopenmp-simd enables without a runtime library (GCC, clang and Apple clang
# have it). A compiler that rejects it (a build fails, and a two-line probe shows the flag is why)
# builds without it, with one warning: the loops are then left to the auto-vectorizer alone.
OPENMP_CHOICES = (("-fopenmp-simd",), ())
_OPENMP_CHOICE: dict = {}          # CC string -> index into OPENMP_CHOICES
_PROBE_C = "int pc_probe(int n, float *x) {\n#pragma omp simd\n" \
           "for (int i = 0; i < n; ++i) x[i] += 1;\nreturn 0; }\n"


def openmp_flags() -> list:
    return list(OPENMP_CHOICES[_OPENMP_CHOICE.get(knobs.get("CC"), 0)])


def _with_openmp(flags) -> list:
    """`flags` with -fopenmp replaced by what this compiler accepts."""
    out = []
    for f in flags:
        out.extend(openmp_flags() if f == "-fopenmp" else [f])
    return out


def _accepts(flags) -> tuple:
    """(does the compiler build and link a small OpenMP shared object with `flags`, its error)."""
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory(prefix="pycompile-probe-") as d:
        src = os.path.join(d, "probe.c")
        with open(src, "w") as f:
            f.write(_PROBE_C)
        cmd = cc_command() + ["-O1", "-fPIC", "-shared", *flags, "-o", os.path.join(d, "probe.so"), src]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        except (OSError, subprocess.SubprocessError) as e:
            return False, str(e)
        return proc.returncode == 0, proc.stderr.strip()


def _openmp_fallback() -> bool:
    """After a failed build: when the compiler rejects its current OpenMP flags, move to the
    next choice it accepts (warning once) and return True, so the build is retried; False when
    OpenMP is not the problem."""
    cc = knobs.get("CC")
    k = _OPENMP_CHOICE.get(cc, 0)
    if not OPENMP_CHOICES[k]:
        return False
    ok, first_error = _accepts(OPENMP_CHOICES[k])
    if ok or not _accepts(())[0]:
        return False            # OpenMP is fine, or the compiler fails without it too
    for j in range(k + 1, len(OPENMP_CHOICES)):
        if not OPENMP_CHOICES[j] or _accepts(OPENMP_CHOICES[j])[0]:
            break
    _OPENMP_CHOICE[cc] = j
    from pycompile.common import log
    reason = first_error.splitlines()[-1] if first_error else "rejected"
    log.logger.warning(
        "the C compiler (CC=%s) has no OpenMP SIMD: %s %s. Compiled kernels are built without it: "
        "they still run on every core (pycompile's thread pool), with `omp simd` loops left to the "
        "auto-vectorizer.", cc, " ".join(OPENMP_CHOICES[k]), reason)
    return True


def openmp_runtime() -> list:
    """The OpenMP runtime library a compiled module loads: none (-fopenmp-simd needs none)."""
    return []


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


def compiler_identity() -> str:
    """What goes into cache keys: $CC as written, the compiler's version line and the flags."""
    return _identity(knobs.get("CC"))


@functools.lru_cache(maxsize=None)
def _identity(cc: str) -> str:
    import subprocess
    try:
        out = subprocess.run(cc_command() + ["--version"], capture_output=True, text=True, timeout=30).stdout
        first = out.splitlines()[0] if out else ""
    except (OSError, subprocess.SubprocessError):
        first = "unknown"
    words = cc_words()
    extra = f" {' '.join(words[1:])}" if len(words) > 1 else ""
    return f"{find_cc()}{extra} | {first} | {' '.join(BASE_FLAGS)}"


def build_command(c_path: str, so_path: str, uses_blas: bool, headers: tuple | None = None,
                  target_cpu: str = "native", portable: bool = False) -> list:
    """The compiler command that turns generated C into a shared object (`headers`: the
    directories holding pycompile's headers; the installed ones by default). `target_cpu` and
    `portable`: see `for_target` and `--portable` (backend/export.py)."""
    cmd = [*cc_command(), *for_target(_with_openmp(BASE_FLAGS), target_cpu)]
    for d in include_dirs() if headers is None else headers:
        cmd.append(f"-I{d}")
    if uses_blas:
        inc, lib = blas_paths()
        cmd += [f"-I{inc}"]
    cmd += ["-o", so_path, c_path, "-lm"] + (["-lmvec"] if HAVE_LIBMVEC else [])
    if uses_blas:
        inc, lib = blas_paths()
        cmd += [f"-L{lib}", "-lscipy_openblas"]
    if portable:
        # libraries copied beside the .so are found there, wherever the directory is moved
        cmd += ["-Wl,-rpath,$ORIGIN"]
    elif uses_blas:
        cmd += [f"-Wl,-rpath,{lib}"]
    return cmd


# ---- the CPU a build targets ---------------------------------------------------------------------
# In-process builds target this machine (-march=native). An exported .so may target a named level
# so it runs elsewhere: `generic` is the architecture's baseline (x86-64: SSE2; aarch64: armv8-a),
# `x86-64-v2` / `-v3` (AVX2, FMA) / `-v4` (AVX-512) the x86-64 psABI levels, or any -march value
# the compiler knows.
_GENERIC = {"x86_64": "x86-64", "AMD64": "x86-64", "aarch64": "armv8-a", "arm64": "armv8-a"}


def march(target_cpu: str) -> list:
    """The -march (and -mtune) flags for a target CPU name."""
    import platform
    import re
    if target_cpu == "native":
        return ["-march=native"]
    if target_cpu == "generic":
        base = _GENERIC.get(platform.machine())
        if base is None:
            raise ToolchainError(f"no generic CPU level known for {platform.machine()}; name one (--target-cpu ARCH)")
        return [f"-march={base}", "-mtune=generic"]
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.+-]*", target_cpu):
        raise ToolchainError(f"bad target CPU {target_cpu!r}: expected native, generic, or a -march value "
                             f"such as x86-64-v3")
    return [f"-march={target_cpu}", "-mtune=generic"]


def for_target(flags, target_cpu: str = "native") -> list:
    """`flags` with -march=native replaced by the flags of `target_cpu`."""
    if target_cpu == "native":
        return list(flags)
    out = []
    for f in flags:
        out.extend(march(target_cpu) if f == "-march=native" else [f])
    return out


def bundled_libraries(uses_blas: bool) -> list:
    """Paths of the shared libraries a portable export copies beside its .so: everything it loads
    that is not part of the C library (glibc's libm / libmvec are on every machine of the OS)."""
    import subprocess
    paths = []
    for lib in openmp_runtime():
        try:
            out = subprocess.run(cc_command() + [f"-print-file-name={lib}"], capture_output=True, text=True,
                                 timeout=60).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            out = ""
        if not os.path.isabs(out) or not os.path.exists(out):
            raise ToolchainError(f"cannot find {lib} (the OpenMP runtime) to copy for a portable export")
        paths.append(os.path.realpath(out))
    if uses_blas:
        paths.append(os.path.join(blas_paths()[1], "libscipy_openblas.so"))
    return paths


def runtime_libraries(uses_blas: bool) -> list:
    """Shared libraries a compiled module loads besides libc: OpenMP's runtime, libm / libmvec,
    and OpenBLAS (found through the rpath the build command sets) when it calls BLAS."""
    libs = openmp_runtime() + ["libm.so.6"] + (["libmvec.so.1"] if HAVE_LIBMVEC else [])
    if uses_blas:
        libs.append(os.path.join(blas_paths()[1], "libscipy_openblas.so"))
    return libs


def compile_shared(c_path: str, so_path: str, uses_blas: bool) -> None:
    import subprocess
    cmd = build_command(c_path, so_path, uses_blas)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0 and _openmp_fallback():
        cmd = build_command(c_path, so_path, uses_blas)
        proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise ToolchainError(_failure_message(cmd, c_path, proc.stderr))


def _failure_message(cmd: list, c_path: str, stderr: str) -> str:
    """The exact command, rerunnable after the process exits: the C file is copied out of the
    compile's temporary directory (removed at exit) next to the system's temporary files."""
    import shlex
    kept = keep_source(c_path)
    cmd = [kept if a == c_path else a for a in cmd]
    tail = "\n".join(stderr.strip().splitlines()[-20:])
    return (f"the C compiler failed on generated code (this is a pycompile bug; please report it).\n"
            f"C file: {kept}\ncommand: {shlex.join(cmd)}\n{tail}")


def keep_source(c_path: str) -> str:
    """A copy of `c_path` that outlives this process (the original's directory does not)."""
    import shutil
    import tempfile
    try:
        fd, kept = tempfile.mkstemp(prefix="pycompile-failed-", suffix=".c")
        os.close(fd)
        shutil.copyfile(c_path, kept)
        return kept
    except OSError:
        return c_path


def platform_tag() -> str:
    return f"{sys.platform}-{os.uname().machine if hasattr(os, 'uname') else ''}"
