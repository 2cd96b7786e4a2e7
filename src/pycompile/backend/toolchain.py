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
import threading

from pycompile.errors import CompileError
from pycompile.common import knobs


def optimization_flags() -> list:
    """How generated C is optimized: correct first, fast second. Each flag has a test in
    tests/backend/test_compiler_flags.py that fails if it is changed back.

    -O3, but -fno-tree-slp-vectorize: GCC 12.2's basic-block (SLP) vectorizer drops the
      float64 -> float32 -> float64 round trip of a constant-length loop (`x - (double)(float)x`
      is 0 in some lanes; -O2 has the bug too). Loop vectorization, which every generated tile,
      reduction and softmax loop relies on, is unaffected: W1, W4 and W6 get the same vectorized
      loops (`-fopt-info-vec`), only the OpenMP argument-struct setup is no longer SLP'd.
    no -fno-trapping-math: with it, GCC 12 rewrites (float)(int32_t)x as trunc(x), which gives
      -0.0 for x in (-1, 0) (1 / t = -inf where NumPy gives +inf) and keeps out-of-range values
      NumPy maps to INT_MIN; conditional float code still vectorizes without it.
    -ffp-contract=off: no fused multiply-add where the program has a product and a sum; GCC's
      default for GNU C contracts them, so a value computed twice (a fused producer each pass of
      LayerNorm reads) could round differently each time: x - mean(x) of a constant row was not 0,
      and LayerNorm gave beta + noise * 3000 * gamma. Each op now rounds as in NumPy; per-call
      CPU time of W1, W4 and W6 changed by -3..+1 % (noise).
    -fno-math-errno: libm calls need not set errno, so they vectorize (libmvec) and inline.
    -fwrapv: signed integer arithmetic wraps as in NumPy / MindSpore (otherwise undefined in C,
      and the optimizer folds `x + 1 > x` to true)."""
    return ["-O3", "-fno-tree-slp-vectorize", "-ffp-contract=off", "-fno-math-errno", "-fwrapv"]


# -Wl,-z,nodelete: a module is never unmapped, even when its executable is garbage collected:
# unloading the last module that uses OpenMP unmaps libgomp under its still-spinning worker
# threads, which then crash the process
BASE_FLAGS = optimization_flags() + ["-march=native", "-std=gnu11", "-fPIC", "-shared", "-fopenmp",
                                     "-Wl,-z,nodelete", "-w"]


def sanitizer_flags() -> list:
    """PYCOMPILE_SANITIZE=address,undefined: generated C checked by AddressSanitizer and UBSan
    (out-of-bounds accesses, use after free, undefined behaviour including float -> int
    conversions out of range). ASan's runtime must be loaded before Python starts - see
    docs/RELIABILITY.md; UBSan's is linked in."""
    names = knobs.get("PYCOMPILE_SANITIZE") or ()
    if not names:
        return []
    kinds = ",".join(["address"] * ("address" in names) + ["undefined,float-cast-overflow"] * ("undefined" in names))
    return [f"-fsanitize={kinds}", "-fno-omit-frame-pointer", "-g"]


def flags() -> list:
    """Every flag generated C is built with (part of the compile cache's key)."""
    return BASE_FLAGS + sanitizer_flags()


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
            proc = subprocess.run(cmd, capture_output=True, timeout=120)
        except (OSError, subprocess.SubprocessError) as e:
            return False, str(e)
        return proc.returncode == 0, proc.stderr.decode("utf-8", "replace").strip()


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
    """(include dir, lib dir) of the scipy-openblas32 package: its `include` and `lib`, as its
    get_include_dir() / get_lib_dir() say. Found without importing it: its __init__ imports
    importlib.metadata to read its own version, a third of a cold process's first compile
    outside the C compiler (W6c)."""
    import importlib.util
    spec = importlib.util.find_spec("scipy_openblas32")
    if spec is None or not spec.submodule_search_locations:
        raise ToolchainError("the scipy-openblas32 package is missing; reinstall pycompile with `pip install .`")
    here = os.path.realpath(list(spec.submodule_search_locations)[0])
    return os.path.join(here, "include"), os.path.join(here, "lib")


def compiler_identity() -> str:
    """What goes into cache keys: $CC as written, the compiler's version line and the flags."""
    return _identity(knobs.get("CC"))


@functools.lru_cache(maxsize=None)
def _identity(cc: str) -> str:
    import subprocess
    try:
        out = subprocess.run(cc_command() + ["--version"], capture_output=True, timeout=30).stdout
        out = out.decode("utf-8", "replace")
        first = out.splitlines()[0] if out else ""
    except (OSError, subprocess.SubprocessError):
        first = "unknown"
    words = cc_words()
    extra = f" {' '.join(words[1:])}" if len(words) > 1 else ""
    return f"{find_cc()}{extra} | {first} | {' '.join(BASE_FLAGS)}"     # sanitizers: see flags()


def build_command(c_path: str, so_path: str, uses_blas: bool, headers: tuple | None = None,
                  target_cpu: str = "native", portable: bool = False) -> list:
    """The compiler command that turns generated C into a shared object (`headers`: the
    directories holding pycompile's headers; the installed ones by default). `target_cpu` and
    `portable`: see `for_target` and `--portable` (backend/export.py)."""
    cmd = [*cc_command(), *for_target(_with_openmp(flags()), target_cpu)]
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


@functools.lru_cache(maxsize=None)
def gcc_driver(cc: tuple) -> bool:
    """Whether `cc` is GCC's driver (`cc -###` names cc1): the precompiled header is GCC's."""
    try:
        # (as a build runs: its own process group, stopped whole at PYCOMPILE_CC_TIMEOUT)
        code, output = run_compiler([_find_program(cc[0]), *cc[1:], "-###", "-E", "-x", "c", os.devnull],
                                    min(knobs.get("PYCOMPILE_CC_TIMEOUT") or 60.0, 60.0))
    except ToolchainError:
        return False
    for line in output.splitlines() if code == 0 else ():
        words = line.split()
        if words and os.path.basename(words[0].strip('"')) == "cc1":
            return True
    return False


def vector_bytes() -> int:
    """The width in bytes of the vectors the convolution kernels are written in
    (backend/c/ops/vectors.py): PYCOMPILE_VECTOR_BYTES when set, else the widest vector registers
    `-march=native` gives the C compiler - 64 with AVX-512, 32 with AVX / AVX2, 16 otherwise (SSE,
    NEON, or a compiler that cannot be asked). GCC lowers a vector type wider than the target's
    registers through the stack (a 64-byte tile on an AVX2 machine ran LeNet-5 ~5x slower than
    its 32-byte form), so the kernels are written at the machine's width."""
    forced = knobs.get("PYCOMPILE_VECTOR_BYTES")
    if forced:
        return forced
    try:
        cc = tuple(cc_command())
    except ToolchainError:
        return 16
    return _native_vector_bytes(cc)


@functools.lru_cache(maxsize=None)
def _native_vector_bytes(cc: tuple) -> int:
    import subprocess
    try:
        proc = subprocess.run([*cc, "-march=native", "-dM", "-E", "-x", "c", os.devnull],
                              capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return 16
    defined = {line.split()[1] for line in proc.stdout.splitlines() if line.startswith("#define ")}
    if "__AVX512F__" in defined:
        return 64
    return 32 if "__AVX__" in defined else 16


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


def compile_shared(c_path: str, so_path: str, uses_blas: bool, pch_parent: str | None = None) -> None:
    """Build `so_path` from `c_path`. Every way this can fail is a ToolchainError naming its
    cause: the generated C rejected (a pycompile bug: the C file is kept), the compiler killed,
    crashing or out of disk, a library the link needs missing, no answer within
    PYCOMPILE_CC_TIMEOUT seconds, or a compiler that reports success without writing a shared
    object."""
    cmd = build_command(c_path, so_path, uses_blas)
    cmd[len(cc_command()):len(cc_command())] = precompiled_header(pch_parent)
    source = c_path
    timeout = knobs.get("PYCOMPILE_CC_TIMEOUT")
    code, output = run_compiler(cmd, timeout)
    if code not in (0, None) and _openmp_fallback():
        cmd = build_command(c_path, so_path, uses_blas)
        code, output = run_compiler(cmd, timeout)
    if code != 0:
        # the exact command, rerunnable after the process exits: the C file is copied out of the
        # compile's temporary directory (removed at exit)
        kept = keep_source(c_path)
        cmd = [kept if a == c_path else a for a in cmd]
        c_path = kept
    where = f"C file: {c_path}\ncommand: {_shell(cmd)}"
    if code is None:
        raise ToolchainError(f"the C compiler did not finish within {timeout:g} s and was stopped (raise "
                             f"PYCOMPILE_CC_TIMEOUT for very large graphs).\n{where}")
    if code != 0:
        raise ToolchainError(f"{failure_cause(code, output, source)}\n{where}\n{_tail(output)}")
    problem = shared_object_problem(so_path)
    if problem:
        raise ToolchainError(f"the C compiler exited successfully but {problem}; check CC ({cmd[0]}).\n{where}"
                             + (f"\n{_tail(output)}" if output.strip() else ""))


# ---- the precompiled header ---------------------------------------------------------------------
# Every generated module starts with #include "pycompile_kernels.h", whose parse (with math.h,
# stdlib.h ...) is about a fifth of a small graph's build. With GCC, the third build of a process
# starts a background compile of that header into its build directory; builds after it has
# finished put that directory first on the include path, and GCC reads the .gch found there
# instead of the headers. A .gch built with other flags, or unreadable, is skipped by GCC itself
# (it then reads the headers as before), so the result never depends on it. PYCOMPILE_PCH=0: none.
_PCH: dict = {}     # (compiler, flags, directory) -> [directory, background compile, process id, ready] or None
_PCH_LOCK = threading.Lock()
_BUILDS: dict = {}  # the same key -> builds before the header is precompiled
# precompiling costs about as much as 8 builds save (170 ms against ~20 ms a build on the 2-core
# machine): a process that builds once or twice (a script, an MPI rank, a spec sample) never
# starts it; one that builds a third time is likely to build many more
_PCH_AFTER = 3
_GCH = "pycompile_kernels.h.gch"


def precompiled_header(parent: str | None) -> list:
    """[-I<dir>] of pycompile_kernels.h precompiled with the flags of this build into a directory
    in `parent` (the process's build directory), once built; [] before that, without a parent,
    for compilers other than GCC, and when PYCOMPILE_PCH=0."""
    if parent is None or not knobs.get("PYCOMPILE_PCH") or not gcc_driver(cc_words()):
        return []
    build = tuple(f for f in for_target(_with_openmp(flags()), "native")
                  if f != "-shared" and not f.startswith("-Wl,"))
    key = (cc_words(), build, parent)
    with _PCH_LOCK:
        if key not in _PCH:
            _BUILDS[key] = _BUILDS.get(key, 0) + 1
            if _BUILDS[key] >= _PCH_AFTER:
                _PCH[key] = _start_pch(build, parent)
            return []
        state = _PCH[key]
        if state is None or state[2] != os.getpid():
            return []       # (no compiler for it, or a forked child: the parent's compile is not its own)
        if not state[3]:
            if state[1].poll() != 0:
                return []   # still compiling, or failed: the headers are read as before
            # written under another name until complete: a build never sees half a .gch
            try:
                os.replace(os.path.join(state[0], _GCH + ".part"), os.path.join(state[0], _GCH))
            except OSError:
                _PCH[key] = None
                return []
            state[3] = True
    return [f"-I{state[0]}"]


def _start_pch(flags: tuple, parent: str):
    import atexit
    import subprocess
    import tempfile
    try:
        where = tempfile.mkdtemp(prefix="pch-", dir=parent)
        header = os.path.join(include_dirs()[0], "pycompile_kernels.h")
        proc = subprocess.Popen([*cc_command(), *flags, *(f"-I{d}" for d in include_dirs()), "-x", "c-header",
                                 "-o", os.path.join(where, _GCH + ".part"), header],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    except (OSError, ToolchainError):
        return None
    atexit.register(_end_pch, proc, os.getpid())
    return [where, proc, os.getpid(), False]


def _end_pch(proc, pid):
    """At exit: a background compile still running is stopped - SIGTERM to its process group, so
    the driver removes its temporary files - (the directory goes with the build directory)."""
    import signal
    import subprocess
    if os.getpid() == pid and proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()


def run_compiler(cmd: list, timeout: float | None) -> tuple:
    """(exit code or None on timeout, output). Output is decoded leniently: a compiler speaking
    another locale's encoding must not turn its error into a UnicodeDecodeError. The compiler
    runs in its own process group, so a timeout also stops cc1 / as / ld under the driver."""
    import signal
    import subprocess
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    except OSError as e:
        raise ToolchainError(f"the C compiler could not be started: {e}; command: {_shell(cmd)}") from None
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        proc.communicate()
        return None, ""
    except BaseException:             # Ctrl-C while compiling: do not leave the compiler running
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        proc.wait()
        raise
    return proc.returncode, out.decode("utf-8", "replace")


def failure_cause(code: int, output: str, c_path: str) -> str:
    """Who is to blame for a failed compile, in one sentence."""
    import signal
    low = output.lower()
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return (f"the C compiler was killed by {name}"
                + (" (out of memory?)" if -code == signal.SIGKILL else "") + "; nothing was wrong with your program")
    if "no space left on device" in low:
        return "the C compiler ran out of disk space (its temporary directory or the output's)"
    if "internal compiler error" in low or "please submit a full bug report" in low:
        return "the C compiler crashed (an internal compiler error: a bug in the C compiler)"
    missing = [line.split("cannot find ", 1)[1].split(":")[0].strip() for line in output.splitlines()
               if "cannot find -l" in line]
    if missing:
        hint = (" (scipy-openblas32's library: reinstall pycompile with `pip install .`)"
                if any("openblas" in m for m in missing) else "")
        return f"the linker cannot find the library {', '.join(missing)}{hint}"
    headers = [line.split("fatal error:", 1)[1].split(":")[0].strip() for line in output.splitlines()
               if "fatal error:" in line and "no such file" in line.lower()]
    if headers:
        return (f"a header file is missing: {', '.join(headers)} (pycompile's headers and scipy-openblas32's "
                f"come with `pip install .`; the C library's with the compiler)")
    if "cannot execute" in low or "not found" in low and os.path.basename(c_path) not in output:
        return "the C compiler could not run one of its own programs (is the compiler installed completely?)"
    if os.path.basename(c_path) in output:
        return "the C compiler rejected the generated code (this is a pycompile bug; please report it with the C file)"
    return "the C compiler failed"


def shared_object_problem(path: str) -> str | None:
    """Why `path` is not a shared object the loader can use, or None."""
    try:
        with open(path, "rb") as f:
            head = f.read(18)
    except OSError:
        return f"wrote no {os.path.basename(path)}"
    if len(head) < 18 or head[:4] != b"\x7fELF":
        return f"{os.path.basename(path)} is not an ELF object ({len(head)} bytes read)" if sys.platform.startswith(
            "linux") else None
    if int.from_bytes(head[16:18], sys.byteorder) != 3:      # e_type ET_DYN
        return f"{os.path.basename(path)} is not a shared object"
    return None


def load_problem(error: OSError) -> str:
    """What the dynamic loader's error about a compiled module means."""
    msg = str(error)
    if "cannot open shared object file" in msg:
        # cffi: "cannot load library '/tmp/x.so': libfoo.so: cannot open shared object file: ..."
        lib = msg.split(": cannot open shared object file")[0].rsplit(": ", 1)[-1].strip()
        hint = (" (scipy-openblas32's library: reinstall pycompile with `pip install .`)" if "openblas" in msg else
                " (OpenMP's runtime: install libgomp, part of gcc)" if "gomp" in msg else "")
        return f"a library it needs is missing: {lib}{hint}"
    if "undefined symbol" in msg:
        return f"a symbol it needs is missing ({msg.split('undefined symbol:')[-1].strip()}): a library of another version?"
    return msg


def _shell(cmd: list) -> str:
    import shlex
    return shlex.join(cmd)


def _tail(output: str, lines: int = 20) -> str:
    return "\n".join(output.strip().splitlines()[-lines:])


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
