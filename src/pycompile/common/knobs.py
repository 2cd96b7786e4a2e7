"""Every environment variable pycompile reads, in one table.

Code asks `knobs.get(NAME)` instead of reading `os.environ`, so each
knob has one parser, one default and one line of documentation; `tests/test_knobs.py` checks that
nothing else reads the environment and that the table in docs/guide/knobs.md lists every knob.
Values are read on each call (tests and the CLI set them at run time). The context
(`set_context`) wins over the environment wherever both exist; that precedence lives in common/context.py.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable

_FALSE = ("0", "false", "off", "no")
# the most threads a count may ask for (the runtime's pool caps far lower; a larger number,
# PYCOMPILE_NUM_THREADS=99999999999999999999, would not fit its C int)
_MAX_COUNT = (1 << 31) - 1


class KnobError(ValueError):
    """An environment variable pycompile reads holds a value it cannot take: the user's setting,
    not a bug in pycompile (the compile stages let it through as it is)."""


def _flag(v: str):
    """'' -> None (unset), else True unless 0/false/off/no."""
    v = v.strip().lower()
    return None if v == "" else v not in _FALSE


def _int_in(lo: int, hi: int, name: str):
    def parse(v: str):
        v = v.strip()
        if v == "":
            return None
        if not (v.lstrip("-").isdigit() and lo <= int(v) <= hi):
            raise KnobError(f"{name} must be an integer in [{lo}, {hi}], but got {v!r}")
        return int(v)
    return parse


def _one_of_ints(allowed: tuple, name: str):
    def parse(v: str):
        v = v.strip()
        if v == "":
            return None
        if not (v.isdigit() and int(v) in allowed):
            raise KnobError(f"{name} must be one of {', '.join(map(str, allowed))}, but got {v!r}")
        return int(v)
    return parse


def _choice(allowed: tuple, name: str):
    def parse(v: str):
        v = v.strip().lower()
        if v == "":
            return None
        if v not in allowed:
            raise KnobError(f"{name} must be one of {', '.join(allowed)}, but got {v!r}")
        return v
    return parse


def _positive_or_none(v: str):
    """PYCOMPILE_NUM_THREADS: a positive count; '0' or text -> unset; a count no C int holds is
    an error naming the variable."""
    v = v.strip()
    if v.isdigit() and int(v) > _MAX_COUNT:
        raise KnobError(f"PYCOMPILE_NUM_THREADS must be a number of threads in [1, {_MAX_COUNT}], but got {v!r}")
    return int(v) if v.isdigit() and int(v) > 0 else None


def _first_count(v: str):
    """OMP_NUM_THREADS: '4' or a per-level list '4,2' -> 4 (the outermost level); else unset."""
    first = v.split(",")[0].strip()
    # other libraries read it too: a count past any pool's size means "as many as you can"
    return min(int(first), _MAX_COUNT) if first.isdigit() and int(first) > 0 else None


def _level(v: str):
    """PYCOMPILE_CACHE_EXPLAIN: off -> 0, '2' -> 2, anything else set -> 1."""
    v = v.strip().lower()
    if v in ("",) + _FALSE:
        return 0
    return 2 if v == "2" else 1


_MAX_SECONDS = 1e6          # 11.6 days: more than any compile; poll() takes at most 2**31 ms


def _seconds(name: str):
    def parse(v: str):
        v = v.strip()
        if v == "":
            return None
        try:
            t = float(v)
        except ValueError:
            t = -1.0
        if not 0 < t <= _MAX_SECONDS:       # nan and inf too (no timer takes them)
            raise KnobError(f"{name} must be a positive, finite number of seconds (at most {_MAX_SECONDS:g}), "
                            f"but got {v!r}")
        return t
    return parse


def _sanitizers(v: str):
    names = tuple(n.strip() for n in v.split(",") if n.strip())
    bad = [n for n in names if n not in ("address", "undefined")]
    if bad:
        raise KnobError(f"PYCOMPILE_SANITIZE takes address and / or undefined (comma-separated), but got {v!r}")
    return names or None


def _text(v: str):
    return v if v != "" else None


@dataclass(frozen=True)
class Knob:
    name: str
    default: object
    parse: Callable[[str], object]
    doc: str


KNOBS: dict[str, Knob] = {k.name: k for k in (
    Knob("PYCOMPILE_OPT_LEVEL", 3, _int_in(0, 3, "PYCOMPILE_OPT_LEVEL"),
         "optimizer level 0-3 (0: no optimization passes; default 3)"),
    Knob("PYCOMPILE_FAST_PATHS", True, _flag,
         "0: compile each fast-path row (softmax, LayerNorm, ...) as its decomposition and fuse no "
         "epilogue into a convolution or a matrix product (to check a fast path against its meaning)"),
    Knob("PYCOMPILE_VERIFY", False, _flag,
         "run the IR verifier after every pass (the test suite does)"),
    Knob("PYCOMPILE_CACHE_EXPLAIN", 0, _level,
         "1: print why the on-disk compile cache missed; 2: hits too"),
    Knob("PYCOMPILE_NUM_THREADS", None, _positive_or_none,
         "threads for compiled kernels when set_context(runtime_num_threads) is unset "
         "(default: OMP_NUM_THREADS, else the cores this process may use)"),
    Knob("OMP_NUM_THREADS", None, _first_count,
         "threads for compiled kernels when neither runtime_num_threads nor PYCOMPILE_NUM_THREADS "
         "is set (as torch and MindSpore users set it; the first number of a list)"),
    Knob("MS_DEV_SIDE_EFFECT_LOAD_ELIM", 1, _int_in(0, 3, "MS_DEV_SIDE_EFFECT_LOAD_ELIM"),
         "where loads of Parameters are copied, 0-3 as MindSpore defines (default 1)"),
    Knob("MS_DEV_CELL_REUSE", True, _flag,
         "0: inline every lazy_inline Cell instead of sharing its subgraph"),
    Knob("MS_DEV_SAVE_GRAPHS", None, _text,
         "1 (or a level) writes IR and C files, as save_graphs in set_context"),
    Knob("MS_DEV_SAVE_GRAPHS_PATH", None, _text, "where MS_DEV_SAVE_GRAPHS writes"),
    Knob("MS_COMPILER_CACHE_ENABLE", None, _flag,
         "1: keep compiled modules in the on-disk cache across processes"),
    Knob("MS_COMPILER_CACHE_PATH", None, _text,
         "the on-disk cache's directory (default $XDG_CACHE_HOME/pycompile, else ~/.cache/pycompile)"),
    Knob("MS_ROLE", None, _text,
         "MindSpore's dynamic-cluster role of this process: Primitive.place does nothing where it is MS_SCHED"),
    Knob("MA_LOG_DIR", None, _text,
         "where FlopsUtilizationCollector(enable_ma_collector=True) writes its records "
         "(default: the working directory)"),
    Knob("GLOG_v", "2", _text, "the level of `mindspore.log` messages shown: 0 DEBUG ... 4 CRITICAL (default 2)"),
    Knob("GLOG_logtostderr", "1", _text, "reported by `mindspore.log.get_log_config()` (messages go to stderr)"),
    Knob("XDG_CACHE_HOME", None, _text,
         "the user's cache directory (freedesktop.org): the compile cache defaults to a pycompile "
         "directory inside it"),
    Knob("PYCOMPILE_LOG", None, _text,
         "log channels to switch on: compiles, recompiles, cache, output_code (comma-separated, "
         "or all); set_context(log=...) wins"),
    Knob("CC", "cc", lambda v: v.strip() or None,
         "the C compiler command (default cc); split as a shell splits it: \"ccache gcc\", \"gcc -g\""),
    Knob("PYCOMPILE_CC_TIMEOUT", 600.0, _seconds("PYCOMPILE_CC_TIMEOUT"),
         "seconds one C compiler run may take before it is stopped (default 600)"),
    Knob("PYCOMPILE_PCH", True, _flag,
         "0: GCC reads pycompile_kernels.h in every build (default: a process's builds after its third "
         "read it precompiled, compiled once in the background into its build directory)"),
    Knob("PYCOMPILE_SANITIZE", None, _sanitizers,
         "address,undefined (or one of them): build generated C with those sanitizers "
         "(see docs/RELIABILITY.md for running Python with the ASan runtime)"),
    Knob("PYCOMPILE_COMM_PROGRESS", True, _flag,
         "0: compiled steps do not call MPI_Test between kernels while a gradient all-reduce is in "
         "flight (it then advances only in the final wait, or in the MPI library's own progress thread)"),
    Knob("PYCOMPILE_COMM_PROGRESS_US", 0, _int_in(0, 1000000, "PYCOMPILE_COMM_PROGRESS_US"),
         "microseconds at least between two of those MPI_Test calls (default 0: after every kernel; "
         "read at communication.init())"),
    Knob("PYCOMPILE_COMM_SHM", True, _flag,
         "0: float all-reduces over the world group go through MPI even when every rank is on one "
         "machine (default: through a shared-memory segment per rank, csrc/comm_shm.c; read at "
         "communication.init())"),
    Knob("PYCOMPILE_COMM_SHM_MB", 32, _int_in(1, 1 << 16, "PYCOMPILE_COMM_SHM_MB"),
         "megabytes of each rank's shared-memory segment for all-reduces in flight (default 32; an "
         "all-reduce of more bytes goes through MPI; at most an eighth of /dev/shm's free space over "
         "the ranks), and as many again for compiled modules' arenas (their buckets reduced in place)"),
    Knob("PYCOMPILE_COMM_TIMEOUT", 300.0, _seconds("PYCOMPILE_COMM_TIMEOUT"),
         "seconds a collective may wait for the other ranks of its group before it fails with an error "
         "(default 300; read at communication.init(); MindSpore's HCCL_EXEC_TIMEOUT)"),
    Knob("PYCOMPILE_PARALLEL_FLOPS", 1 << 18, _int_in(0, 1 << 62, "PYCOMPILE_PARALLEL_FLOPS"),
         "FLOPs per thread above which a convolution kernel splits its work over the call's threads "
         "(read when the C is generated, compared with the thread count at run time; default 2^18: "
         "~5-8 us of one core's work, against ~1 us for the thread pool's fork and join)"),
    Knob("PYCOMPILE_PARALLEL_ELEMENTS", 1 << 13, _int_in(0, 1 << 62, "PYCOMPILE_PARALLEL_ELEMENTS"),
         "elements per thread above which a pooling, padding, resampling or random kernel splits over "
         "the call's threads (read when the C is generated; default 2^13)"),
    Knob("PYCOMPILE_WINOGRAD", True, _flag,
         "run float32 3x3 stride-1 convolutions with >= 16 input and output channels as Winograd "
         "F(2x2, 3x3) (backend/c/ops/winograd.py); 0: the direct kernel, for bisecting (read when the C "
         "is generated)"),
    Knob("PYCOMPILE_VECTOR_BYTES", 0, _one_of_ints((0, 16, 32, 64), "PYCOMPILE_VECTOR_BYTES"),
         "the width in bytes of the vectors the convolution kernels are written in (0, the default: the "
         "widest the C compiler's -march=native has - 64 with AVX-512, 32 with AVX / AVX2, else 16); "
         "16 / 32 / 64 force one, for testing (read when the C is generated)"),
    Knob("PYCOMPILE_SMALL_GEMM", "auto", _choice(("auto", "avx2", "blas"), "PYCOMPILE_SMALL_GEMM"),
         "which float32 product kernel the runtime hands generated code (read by the C runtime when it "
         "loads, csrc/gemm.c): auto (the default) the AVX-512 kernel on an AVX-512 CPU, else OpenBLAS; "
         "avx2 its AVX2 form on any CPU with AVX2 and FMA (the same bits as the AVX-512 kernel, at any "
         "thread count); blas OpenBLAS for every product"),
    Knob("PYCOMPILE_KEEP_PACKED_MB", 256, _int_in(0, 1 << 30, "PYCOMPILE_KEEP_PACKED_MB"),
         "megabytes of packed weights the product kernel may keep between calls of graphs that only "
         "read their Parameters (default 256; 0: pack on every call)"),
    Knob("GLOG_v", "2", _text,
         "MindSpore's log level, as ms.get_level() / get_log_config() report it (pycompile's own logging "
         "is PYCOMPILE_LOG)"),
    Knob("GLOG_logtostderr", "1", _text, "MindSpore's log-to-stderr flag, as ms.get_log_config() reports it"),
    Knob("BATCH_JOB_ID", "unknown", _text,
         "the job id under which dataset.sync_wait_for_dataset looks for the ranks' OBS markers, as MindSpore's"),
    Knob("PYCOMPILE_DATASET_WORKER_TIMEOUT", None, _seconds("PYCOMPILE_DATASET_WORKER_TIMEOUT"),
         "seconds the data pipeline waits on one worker process's row before it raises an error naming "
         "the worker (default: 3 x ds.config.get_multiprocessing_timeout_interval(), 900)"),
    Knob("PYCOMPILE_FUZZ_EXAMPLES", 300, _int_in(1, 10 ** 9, "PYCOMPILE_FUZZ_EXAMPLES"),
         "how many random programs tests/compiler/test_fuzz_ops.py runs (a soak: 10000)"),
)}


def get(name: str):
    """The knob's parsed value, or its default when unset (or set to the empty string)."""
    knob = KNOBS[name]
    raw = os.environ.get(name)
    if raw is None:
        return knob.default
    value = knob.parse(raw)
    return knob.default if value is None else value


def set_for_process(name: str, value) -> None:
    """Set a knob for this process and the compilers it starts (the CLI's --opt-level)."""
    KNOBS[name]                      # KeyError for a name not in the table
    os.environ[name] = str(value)
