"""pycompile benchmarks (workloads defined in bench/README.md), measured side by side in one process.

    python bench/run.py            # every workload
    python bench/run.py W1 W8      # some of them
    python bench/run.py --quick    # fewer repeats
    python bench/run.py Wc         # W4 / W6 with a busy process and after pauses (bench/contention.py)
    python bench/run.py WP         # one PyNative op's cost beside torch eager's (bench/pynative.py)
    python bench/run.py W9f        # LeNet-5's first PyNative calls on an empty compile cache
    python bench/run.py W11 --cpu  # CPU time of the process instead of wall time (see below)

Each workload's implementations (pycompile, NumPy eager, peers) are timed in interleaved
rounds, one block of calls each per round, with a 0.3 s pause before each block so that no
runtime's spinning worker threads overlap another's timing, and one untimed call after it (steady
state: the pause lets threads sleep and caches go cold, which would count against whichever side
has the shorter block). Times are medians over rounds; a
ratio is the median over rounds of the two times in the same round (lower is better), which
keeps slow drifts of a shared machine out of it. Cold compile times run in a fresh subprocess with empty
caches. WL compiles programs of 1k, 5k and 10k ops (bench/large.py) in fresh processes and
prints seconds per 1,000 ops. W7 runs W1 (N=1) in a fresh process with an empty compile-cache directory, then in a
second fresh process reusing it, and prints both first-call times and their ratio. Where JAX and
torch are installed (they are not dependencies), W4 and W6 also run under jax.jit, torch eager and
torch.compile on the same inputs (bench/peers.py), and a line names the fastest peer and
pycompile's time over its time. GEMM workloads print their share of the roofline: the products'
FLOPs at NumPy's 2048^3 float32 matmul rate (numpy_gemm_gflops) over the time taken. Machine facts
(cores, CPU) are printed first: ratios hold across machines, absolute times do not.
--cpu times blocks by the process's CPU time (every thread's, spinning included) instead of the
wall clock: on a shared machine, pinned to one core (`OPENBLAS_NUM_THREADS=1
PYCOMPILE_NUM_THREADS=1 taskset -c 0`), it keeps the time another process holds the core out of
every side's figure, which wall time under load does not.
"""
from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import workloads as W  # noqa: E402


CLOCK = time.perf_counter      # main(): time.process_time under --cpu


def _calibrate(fn, min_time):
    """Calls per timed block so that one block lasts at least `min_time`."""
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        if time.perf_counter() - t0 >= min_time or n >= 1 << 20:
            return n
        n *= 4


def _block(fn, n):
    # NumPy's OpenBLAS threads spin for ~0.1 s after a call (2^28 cycles), and OpenMP's after a
    # parallel region: each block starts once the previous block's workers have gone to sleep,
    # so no side is timed against another's spinning threads
    time.sleep(0.3)
    fn()        # untimed: wakes this side's sleeping threads and refills the caches the pause lost
    t0 = CLOCK()
    for _ in range(n):
        fn()
    return (CLOCK() - t0) / n


def timeit(fn, min_time=0.2, repeats=7, warmup=2):
    """Median seconds per call of `fn` over `repeats` blocks."""
    return timed_rounds([fn], min_time / repeats, repeats, warmup)[0][0]


def timed_rounds(fns, block_time, rounds, warmup=2):
    """Time several functions in interleaved rounds - one block of each per round - so slow
    drifts of a shared machine (another VM on the host) hit them alike. Returns, per function,
    (median seconds per call, its per-round times)."""
    counts = []
    for fn in fns:
        for _ in range(warmup):
            fn()
        counts.append(_calibrate(fn, block_time))
    times = [[] for _ in fns]
    for _ in range(rounds):
        for k, fn in enumerate(fns):
            times[k].append(_block(fn, counts[k]))
    return [(statistics.median(ts), ts) for ts in times]


def ratio(a, b) -> float:
    """Median over rounds of a's time / b's time in the same round."""
    return statistics.median(x / y for x, y in zip(a, b))


def fmt(t: float) -> str:
    if t < 1e-3:
        return f"{t * 1e6:.2f} µs"
    if t < 1:
        return f"{t * 1e3:.2f} ms"
    return f"{t:.2f} s"


def cold(workload: str) -> float:
    """First-call time of a workload in a fresh process with empty caches."""
    code = f"import sys; sys.path.insert(0, {HERE!r}); import workloads as W; print(W.cold_{workload}())"
    env = dict(os.environ, MS_COMPILER_CACHE_ENABLE="0")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def cache_first_call(cache_dir: str):
    """(first-call seconds, cache status, whole-process seconds) of W1 (N=1) in a fresh process
    with the compile cache at cache_dir."""
    code = (f"import sys; sys.path.insert(0, {HERE!r}); import workloads as W; "
            f"t, c = W.first_call_W7(); print(t, c)")
    env = dict(os.environ, MS_COMPILER_CACHE_ENABLE="1", MS_COMPILER_CACHE_PATH=cache_dir)
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    wall = time.perf_counter() - t0
    t, status = out.stdout.strip().splitlines()[-1].split()
    return float(t), status, wall


def w7(repeats: int) -> None:
    """W7: first call of W1 (N=1) in a fresh process, cache cold (empty directory) vs warm (the
    same directory again); medians over `repeats` pairs."""
    import shutil
    import tempfile
    cold_t, warm_t, cold_wall, warm_wall = [], [], [], []
    for _ in range(repeats):
        d = tempfile.mkdtemp(prefix="pycompile-w7-")
        try:
            t, status, wall = cache_first_call(d)
            assert status == "miss", status
            cold_t.append(t)
            cold_wall.append(wall)
            t, status, wall = cache_first_call(d)
            assert status == "disk", status
            warm_t.append(t)
            warm_wall.append(wall)
        finally:
            shutil.rmtree(d, ignore_errors=True)
    c, w = statistics.median(cold_t), statistics.median(warm_t)
    print(f"{'W7 first call, cold':<26} {fmt(c):>12} {'':>12} {'':>8}   fresh process, empty cache directory",
          flush=True)
    print(f"{'W7 first call, warm':<26} {fmt(w):>12} {'':>12} {c / w:7.1f}x   fresh process, cache hit "
          f"(ratio: cold / warm; MindSpore ~10x)", flush=True)
    print(f"{'W7 whole process':<26} {fmt(statistics.median(cold_wall)):>12} "
          f"{fmt(statistics.median(warm_wall)):>12} {'':>8}   cold | warm, interpreter start to exit", flush=True)


def w9_first_calls(repeats: int) -> None:
    """W9f: LeNet-5's first PyNative forward and then first training step, each in a fresh process
    with an empty compile-cache directory (the kernels of backend/eager.py all compiled); medians
    of `repeats` processes: wall time, and CPU time of the C compiler runs."""
    import shutil
    import tempfile
    runs = []
    for _ in range(repeats):
        d = tempfile.mkdtemp(prefix="pycompile-w9f-")
        try:
            env = dict(os.environ, MS_COMPILER_CACHE_ENABLE="1", MS_COMPILER_CACHE_PATH=d)
            code = (f"import sys, json; sys.path.insert(0, {HERE!r}); import workloads_cnn as C; "
                    f"print(json.dumps(C.first_calls_W9()))")
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
            import json
            runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
        finally:
            shutil.rmtree(d, ignore_errors=True)
    keys = ("forward", "forward_cc_cpu", "step", "step_cc_cpu", "warm_forward", "warm_step")
    med = {k: statistics.median(r[k] for r in runs) for k in keys}
    waits = sorted(r["forward"] + r["step"] - r["warm_forward"] - r["warm_step"] for r in runs)
    k = runs[-1]["kernels"]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{'W9f PyNative first fwd':<26} {fmt(med['forward']):>12} {'':>12} {'':>8}   fresh process, empty cache: "
          f"C compiler CPU {fmt(med['forward_cc_cpu'])}", flush=True)
    print(f"{'W9f then first step':<26} {fmt(med['step']):>12} {'':>12} {'':>8}   C compiler CPU "
          f"{fmt(med['step_cc_cpu'])}; {k['compiled']} kernels, {k['anticipated']} anticipated; median of "
          f"{repeats}; load {load:.1f}", flush=True)
    print(f"{'W9f waited (first - warm)':<26} {fmt(statistics.median(waits)):>12} {'':>12} {'':>8}   first forward + "
          f"first step minus the same two calls warm ({fmt(med['warm_forward'])} + {fmt(med['warm_step'])}); "
          f"range {fmt(waits[0])}-{fmt(waits[-1])}; target (issue 32) <= 1 s; kernels' lowering (Python) "
          f"{fmt(k['lower_s'])}, C compiler wall {fmt(k['cc_s'])} summed over threads", flush=True)


_GEMM_RATE: list = []


def numpy_gemm_gflops() -> float:
    """The roofline's rate: NumPy's float32 matmul on large square matrices with every core, the
    best of 7 products of 2048 x 2048 matrices (OpenBLAS from NumPy's wheel, its own threads, one
    per core; ~200 GFLOP/s on this project's 2-vCPU AVX-512 machine, ~90 % of the cores' FMA
    peak). A workload's roofline is its matrix products' FLOPs at this rate with every other op
    free: a bound no implementation built on the same kind of kernels reaches on small products."""
    if not _GEMM_RATE:
        a = np.random.default_rng(0).standard_normal((2048, 2048)).astype(np.float32)
        a @ a
        best = float("inf")
        for _ in range(7):
            t0 = CLOCK()            # CPU time under --cpu, like the workloads it is compared with
            a @ a
            best = min(best, CLOCK() - t0)
        _GEMM_RATE.append(2 * 2048 ** 3 / best / 1e9)
    return _GEMM_RATE[0]


def gemm_note(flops: float, t: float, t_numpy: float) -> str:
    """A GEMM workload's figures: its products' rate over all its time, the share of the roofline
    (the products alone at numpy_gemm_gflops(), divided by the time taken: 100 % is the bound) and
    the roofline's time as a fraction of NumPy eager's."""
    rate = numpy_gemm_gflops()
    return (f"GEMM work {flops / t / 1e9:.1f} GFLOP/s, {100 * flops / rate / 1e9 / t:.0f} % of roofline "
            f"(NumPy 2048^3 matmul peak here: {rate:.0f} GFLOP/s; products alone at that peak: "
            f"{flops / rate / 1e9 / t_numpy:.2f}x NumPy)")


def fresh(expr: str, reuse: bool = True) -> dict:
    """`expr` (a call into workloads.py returning a dict) evaluated in a fresh process with the
    compile cache off. Python may keep its bytecode cache (PYTHONDONTWRITEBYTECODE dropped), as an
    installed package has it: "cold" is pycompile's cold start, not CPython compiling pycompile."""
    import json
    code = f"import sys, json; sys.path.insert(0, {HERE!r}); import workloads as W; print(json.dumps({expr}))"
    env = dict(os.environ, MS_COMPILER_CACHE_ENABLE="0", MS_DEV_CELL_REUSE="1" if reuse else "0")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _median_run(runs: list) -> dict:
    return sorted(runs, key=lambda r: r["seconds"])[len(runs) // 2]


def _stages(r: dict) -> str:
    return " ".join(f"{k} {1e3 * v:.0f}" for k, v in r["times"].items()) + " ms"


def compile_times(layers, repeats: int) -> None:
    """W6c: W6's compile time with and without lazy_inline; W3c: the W3 loop version's. Each a
    fresh process (median of `repeats`, range beside it), after one untimed process that fills
    Python's bytecode cache."""
    fresh("W.compile_W6(4)")
    print(f"{'# compile time':<26} {'lazy_inline':>12} {'inlined':>12} {'ratio':>8}")
    for n in layers:
        lazy = [fresh(f"W.compile_W6({n})") for _ in range(repeats)]
        flat = [fresh(f"W.compile_W6({n})", reuse=False) for _ in range(max(1, repeats // 2))]
        lz, fl = _median_run(lazy), _median_run(flat)
        lo, hi = min(r["seconds"] for r in lazy), max(r["seconds"] for r in lazy)
        print(f"{'W6 compile L=' + str(n):<26} {fmt(lz['seconds']):>12} {fmt(fl['seconds']):>12} "
              f"{lz['seconds'] / fl['seconds']:7.3f}x   lazy_inline vs inlined: {lz['nodes']} vs {fl['nodes']} "
              f"nodes, {lz['c_lines']} vs {fl['c_lines']} C lines, {lz['functions']} block function; "
              f"inlined {1e3 * fl['seconds'] / fl['nodes']:.2f} ms/node", flush=True)
        print(f"{'':<26} lazy_inline median of {repeats} ({fmt(lo)}-{fmt(hi)}): {_stages(lz)}; "
              f"C compiler CPU {1e3 * lz['cc_cpu']:.0f} ms", flush=True)
    w3 = [fresh("W.compile_W3()") for _ in range(repeats)]
    r = _median_run(w3)
    print(f"{'W3 loop+stack compile':<26} {fmt(r['seconds']):>12} {'':>12} {'':>8}   median of {repeats} "
          f"({fmt(min(x['seconds'] for x in w3))}-{fmt(max(x['seconds'] for x in w3))}): {_stages(r)}; "
          f"C compiler CPU {1e3 * r['cc_cpu']:.0f} ms, Python CPU {1e3 * r.get('py_cpu', 0):.0f} ms; "
          f"{r['c_lines']} C lines, {r['nodes']} nodes, "
          f"{r['kernel_calls']} kernel call sites, {r.get('loops', 0)} loop(s) "
          f"({'unrolled: one per row' if r['kernel_calls'] >= 100 else 'a loop'})",
          flush=True)


def machine() -> str:
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    import pycompile
    from pycompile.common import context
    return (f"{os.cpu_count()} cores, {cpu}; Python {platform.python_version()}, NumPy {np.__version__}, "
            f"pycompile {pycompile.__version__}, threads {context.num_threads()}, "
            f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}")


def main(argv):
    quick = "--quick" in argv
    global CLOCK
    if "--cpu" in argv:
        CLOCK = time.process_time
        print("# times: CPU time of this process (--cpu), not wall time")
    names = [a for a in argv if not a.startswith("-")] or list(W.WORKLOADS) + ["WP", "W6c", "Wc", "WL"]
    repeats = 3 if quick else 9
    print(f"# {machine()}")
    print(f"{'workload':<26} {'pycompile':>12} {'NumPy eager':>12} {'ratio':>8}   notes")
    for name in names:
        if name == "W7":
            w7(3 if quick else 7)
            continue
        if name == "W9f":          # PyNative LeNet-5's first calls, fresh processes, empty compile cache
            w9_first_calls(3 if quick else 5)
            continue
        if name == "WP":           # PyNative per-op cost beside torch eager (bench/pynative.py)
            import pynative
            pynative.main(["--quick"] if quick else [])
            continue
        if name in ("W6c", "W3c"):      # compile times of W6 (L = 4 and 24; 12 too in full) and W3's loop
            compile_times((4, 24) if quick else (4, 12, 24), 3 if quick else 5)
            continue
        if name == "WL":         # compile time of 1k / 5k / 10k-op programs (bench/large.py)
            import large
            large.run((1000, 5000) if quick else (1000, 5000, 10000))
            continue
        if name == "Wc":           # W4 / W6 under a busy process and after pauses (bench/contention.py)
            import contention
            contention.main(["--quick"] if quick else [])
            continue
        for case in W.WORKLOADS[name]():
            label, compiled, numpy_fn, note = case[:4]
            peers = case[4] if len(case) > 4 else {}
            pynative = len(case) > 5 and case[5] == "pynative"      # the "NumPy eager" side is PyNative
            peers = {k: v for k, v in peers.items() if v is not None}   # measured in the same rounds
            (tc, rc), (tn, rn), *tp = timed_rounds([compiled, numpy_fn, *peers.values()], 0.1, repeats)
            if isinstance(note, tuple):      # ("gemm", flops): the matrix products' rate, all time counted
                note = gemm_note(note[1], tc, tn)
            print(f"{label:<26} {fmt(tc):>12} {fmt(tn):>12} {ratio(rc, rn):7.3f}x   {note}", flush=True)
            for peer, (t, rp) in zip(peers, tp):
                print(f"{'  ' + peer + ' (peer)':<26} {fmt(t):>12} {'':>12} {ratio(rp, rn):7.3f}x   "
                      f"pycompile / {peer}: {ratio(rc, rp):.2f}x", flush=True)
            if pynative and "torch eager" in peers:     # PyNative against torch eager, same rounds
                rt = tp[list(peers).index("torch eager")][1]
                print(f"{'  PyNative (eager)':<26} {fmt(tn):>12} {'':>12} {'':>8}   PyNative / torch eager: "
                      f"{ratio(rn, rt):.2f}x (per-round range {min(x / y for x, y in zip(rn, rt)):.2f}"
                      f"-{max(x / y for x, y in zip(rn, rt)):.2f}x)", flush=True)
            if tp:      # "ahead of every peer": against the fastest one, round by round
                best = min(range(len(tp)), key=lambda k: tp[k][0])
                print(f"{'  fastest peer':<26} {'':>12} {'':>12} {'':>8}   {list(peers)[best]}: pycompile / it "
                      f"{ratio(rc, tp[best][1]):.2f}x (per-round range {min(x / y for x, y in zip(rc, tp[best][1])):.2f}"
                      f"-{max(x / y for x, y in zip(rc, tp[best][1])):.2f}x)", flush=True)
        if hasattr(W, f"cold_{name}"):
            t = cold(name)
            print(f"{name + ' cold first call':<26} {fmt(t):>12} {'':>12} {'':>8}   fresh process, empty caches",
                  flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
