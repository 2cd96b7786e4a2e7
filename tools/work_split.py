#!/usr/bin/env python3
"""How a compiled call's work splits over T threads: the printout issue 37 asks for, so that a
partitioning that cannot use 16 cores is visible on a 2-core machine.

    PYTHONPATH=src python tools/work_split.py   # W9 inference, W9 training step, W10; T = 4, 16 (or installed)
    python tools/work_split.py W9 --threads 2 4 8 16 --calls 30

For each workload it compiles the bench's model (bench/workloads_cnn.py's: examples/lenet.py,
examples/resnet_block.py) and, with the pool's trace on (csrc/pool.c pc_pool_trace), runs it:

* at one thread, timing the whole call and every loop handed to the pool (median over --calls);
  the call's time outside those loops is the *serial rest* (loops the generated C runs serially
  because they are under a size threshold, BLAS / pycompile's GEMM called once, the call's own
  overhead);
* at each T, recording how each of those loops is cut: its iterations n and chunks
  (csrc/pool.c: min(n, 4 T) chunks of ceil(n / chunks) iterations, claimed dynamically). Size
  thresholds are per thread (backend/c/ops/conv.py split_if: `if (work > per_thread * nt)`), so a loop
  that splits at one T may run on the caller at a larger one: loops are matched across T by
  their task function (pc_pool_trace_fns), and one missing at T is shown `serial (threshold)`
  and modelled at its one-thread time.

Per loop it prints n, chunks at each T, and the *balance*: the iterations of the thread with the
most chunks over n / T (1.00 is perfect, 2.00 means half the team idles). Then a model of the
call at T threads - the serial rest plus each loop's one-thread time times its busiest thread's
share - and the speed-up that model allows; and, read from the generated C, the loops that stay
serial at any T because of a static size threshold (`if (work > threshold)`), with their
iteration counts, and a PASS / FAIL line per loop at the largest T (issue 37: >= 16 chunks and
balance <= 1.25). The model assumes iterations of a loop cost the same, and memory bandwidth
and barriers are free: it bounds what a partitioning allows, it does not predict a 16-core time.
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "examples"))

import numpy as np  # noqa: E402

import pycompile as ms  # noqa: E402
from pycompile._rt import ffi, lib  # noqa: E402


def workloads() -> dict:
    import lenet
    import resnet_block
    from pycompile import nn

    def w9():
        ms.set_seed(0)
        net = lenet.LeNet5()
        (x,) = lenet.example_inputs()
        return ms.jit(net.construct), (x,)

    def w9_train():
        ms.set_seed(0)
        net = lenet.LeNet5()
        (x,) = lenet.example_inputs()
        y = ms.Tensor(np.random.default_rng(1).integers(0, 10, 64).astype(np.int32))
        loss = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
        step = nn.TrainOneStepCell(loss, nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9))
        return ms.jit(step.construct), (x, y)

    def w10():
        (x,) = resnet_block.example_inputs()
        return ms.jit(resnet_block.model.construct), (x,)

    return {"W9": w9, "W9-train": w9_train, "W10": w10}


def trace(fn, args, calls: int):
    """(median call ns, [per loop: (n, chunks, median ns, task function)]) of `calls` traced calls."""
    buf = ffi.new("long[]", 3 * 8192)
    fns = ffi.new("long[]", 8192)
    per_call, loops = [], None
    for _ in range(calls):
        lib.pc_pool_trace(1)
        t0 = time.perf_counter_ns()
        fn(*args)
        per_call.append(time.perf_counter_ns() - t0)
        lib.pc_pool_trace(0)
        lib.pc_pool_trace_fns(fns, 8192)
        k = lib.pc_pool_trace_read(buf, 8192)
        rec = [(buf[3 * i], buf[3 * i + 1], buf[3 * i + 2], fns[i]) for i in range(k)]
        if loops is None:
            loops = [[n, c, [t], f] for n, c, t, f in rec]
        elif [r[3] for r in rec] == [lp[3] for lp in loops]:
            for lp, (_, _, t, _) in zip(loops, rec):
                lp[2].append(t)
    return statistics.median(per_call), [(n, c, statistics.median(ts), f) for n, c, ts, f in loops or []]


def match(loops1: list, loopsT: list):
    """Per one-thread loop, its record at T or None where it ran on the caller there (its size
    threshold kept it serial at that team size): the records are matched in order by task
    function (csrc/pool.c pc_pool_trace_fns). None when the T trace is not a subsequence. Loops
    whose function never ran at one thread (a team-size-dependent region, e.g. gemm's shared
    packing of op(B) with more than two threads) are left out here: extra_loops() lists them."""
    ones = {rec[3] for rec in loops1}
    loopsT = [rec for rec in loopsT if rec[3] in ones]
    out, j = [], 0
    for rec in loops1:
        if j < len(loopsT) and loopsT[j][3] == rec[3]:
            out.append(loopsT[j][:2])
            j += 1
        else:
            out.append(None)
    return out if j == len(loopsT) else None


def extra_loops(loops1: list, loopsT: list) -> list:
    """(n, chunks) of each loop at T whose task function did not run at one thread."""
    ones = {rec[3] for rec in loops1}
    return [rec[:2] for rec in loopsT if rec[3] not in ones]


def busiest_share(n: int, chunks: int, threads: int) -> float:
    """The busiest thread's iterations over n: chunks of ceil(n / chunks), the busiest thread runs
    ceil(chunks / threads) of them (the last chunk may be short)."""
    if threads <= 1 or chunks <= 1:
        return 1.0
    size = -(-n // chunks)
    return min(n, -(-chunks // threads) * size) / n


_SITE = re.compile(r"(?:if \((.*)\) )?RT->parallel_for\((pc_r\d+), \(void \*\)&\w+, \(long\)\((.*?)\)\);")


def call_sites(c_source: str) -> list:
    """Every loop the generated C hands to the pool, in the order of the text: (name, condition or
    None, iteration bound as written)."""
    out = []
    for line in c_source.splitlines():
        m = _SITE.search(line)
        if m:
            cond, name, bound = m.groups()
            out.append((name, cond, bound.replace("L", "")))
    return out


def splits_at(cond, threads: int):
    """Whether a loop's `if (...)` clause hands it to the pool at a team of `threads`: conditions
    are literals and the call's team size nt (backend/c/ops/conv.py split_if: `work > per_thread * nt`);
    None when the condition reads anything else."""
    if cond is None:
        return True
    expr = re.sub(r"\bnt\b", str(threads), cond).replace("&&", " and ").replace("||", " or ")
    expr = re.sub(r"(\d)L\b", r"\1", expr)
    try:
        return bool(eval(expr, {"__builtins__": {}}))     # literals only
    except Exception:           # noqa: BLE001 - reads a runtime value: unknown here
        return None


def serial_loops(c_source: str, threads: int | None = None) -> list:
    """The generated C's outlined loops whose size threshold keeps them serial: at any thread
    count (`if (0)`, `if (A > B)` with A <= B) or, given `threads`, at that team size (`if (A > B *
    nt)`), with their iteration counts."""
    out = []
    for name, cond, bound in call_sites(c_source):
        if cond is None or (threads is None and re.search(r"\bnt\b", cond)):
            continue
        if splits_at(cond, threads or 1) is False:
            out.append((name, bound))
    return out


CHUNKS = 16         # issue 37: >= 16 balanced chunks per parallel region (at T = 16)
BALANCE = 1.25


def report(name: str, make, threads: list, calls: int) -> dict:
    fn, args = make()
    ms.set_context(runtime_num_threads=1)
    for _ in range(3):
        fn(*args)
    total, loops1 = trace(fn, args, calls)
    pool_ns = sum(lp[2] for lp in loops1)
    rest = max(total - pool_ns, 0.0)
    src = fn.compiled(*args).c_source
    splits, extras = {}, {}
    for T in threads:
        ms.set_context(runtime_num_threads=T)
        fn(*args)
        _, loopsT = trace(fn, args, 3)
        splits[T] = match(loops1, loopsT)
        extras[T] = extra_loops(loops1, loopsT)
    # names of the generated C's regions: its call sites taken at one thread, in the order of the
    # text, where that order is the order they ran in at every T (straight-line entries: W9, W10)
    sites = [s for s in call_sites(src) if splits_at(s[1], 1) is not False]
    mapped = len(sites) == len(loops1) and all(
        sp is not None and all((rec is not None) == (splits_at(site[1], T) is not False)
                               for rec, site in zip(sp, sites))
        for T, sp in splits.items())
    ms.set_context(runtime_num_threads=1)
    print(f"\n== {name}: {total / 1e3:.0f} us per call at one thread; {len(loops1)} loops on the pool "
          f"({pool_ns / 1e3:.0f} us, {100 * pool_ns / total:.0f} %), serial rest {rest / 1e3:.0f} us "
          f"({100 * rest / total:.0f} %)")
    head = "  loop  site      n1    us1  " + "  ".join(f"{'T=' + str(T):>18}" for T in threads)
    print(head)
    print("  " + " " * 28 + "  ".join(f"{'n/chunks/balance':>18}" for _ in threads))
    model = {T: rest for T in threads}
    balanced = {T: 0 for T in threads}
    verdicts = []
    for i, (n1, _, t1, _) in enumerate(loops1):
        cells = []
        for T in threads:
            sp = splits[T]
            if sp is None:
                cells.append(f"{'(loops differ)':>18}")
                model[T] += t1 / T
                continue
            if sp[i] is None:
                cells.append(f"{'serial (threshold)':>18}")
                model[T] += t1
                continue
            n, c = sp[i]
            share = busiest_share(n, c, T)
            bal = share * T
            model[T] += t1 * share
            if c >= T and bal <= BALANCE:
                balanced[T] += 1
            cells.append(f"{f'{n}/{c}/{bal:.2f}':>18}")
        site = sites[i][0] if mapped else "?"
        print(f"  {i:4d} {site:>5} {n1:7d} {t1 / 1e3:6.0f}  " + "  ".join(cells))
        # the pass / fail line of issue 37 at the largest T: >= 16 chunks, balance <= 1.25
        T = threads[-1]
        sp = splits[T]
        if sp is None:
            verdicts.append(f"  ?    loop {i}: the loops at T={T} do not match the one-thread trace")
        elif sp[i] is None:
            verdicts.append(f"  SERIAL loop {i} ({site}, {t1 / 1e3:.0f} us): at T={T} each thread's share is "
                            f"under the per-thread threshold: runs on the caller")
        else:
            n, c = sp[i]
            bal = busiest_share(n, c, T) * T
            ok = c >= min(CHUNKS, T) and bal <= BALANCE
            verdicts.append(f"  {'PASS' if ok else 'FAIL'} loop {i} ({site}, {t1 / 1e3:.0f} us): {c} chunks of "
                            f"{n} iterations at T={T}, balance {bal:.2f} (want >= {min(CHUNKS, T)} chunks, "
                            f"<= {BALANCE})")
    T = threads[-1]
    for n, c in extras[T]:
        bal = busiest_share(n, c, T) * T
        ok = c >= min(CHUNKS, T) and bal <= BALANCE
        verdicts.append(f"  {'PASS' if ok else 'FAIL'} extra loop (only at T > 1, not in the model): {c} chunks "
                        f"of {n} iterations at T={T}, balance {bal:.2f}")
    for T in threads:
        print(f"  model at {T:2d} threads: {model[T] / 1e3:7.0f} us, speed-up <= {total / model[T]:5.2f}x; "
              f"loops with >= {T} chunks and balance <= 1.25: {balanced[T]} of {len(loops1)}")
    print("\n".join(verdicts))
    ser = serial_loops(src)
    if ser:
        print("  loops kept serial by a size threshold at any T: "
              + ", ".join(f"{nm} (n={b})" for nm, b in ser))
    for T in threads:
        ser_t = [x for x in serial_loops(src, T) if x not in ser]
        if ser_t:
            print(f"  ... and at T={T} (per-thread work under the threshold): "
                  + ", ".join(f"{nm} (n={b})" for nm, b in ser_t))
    return {"total_ns": total, "loops": loops1, "rest_ns": rest, "model_ns": model, "balanced": balanced,
            "serial_loops": ser, "verdicts": verdicts}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", help="W9, W9-train, W10 (default: all)")
    ap.add_argument("--threads", type=int, nargs="+", default=[4, 16])
    ap.add_argument("--calls", type=int, default=20)
    args = ap.parse_args()
    table = workloads()
    for name in args.names or list(table):
        if name not in table:
            ap.error(f"unknown workload {name!r}: {', '.join(table)}")
        report(name, table[name], args.threads, args.calls)
    return 0


if __name__ == "__main__":
    sys.exit(main())
