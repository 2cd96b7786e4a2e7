"""WP: the cost of one PyNative (eager) op on a small tensor, beside torch eager and NumPy
(issue 22 item 1: <= 2.5 us per elementwise op).

    PYTHONPATH=src python bench/pynative.py [--quick]      # or: python bench/run.py WP

Cases, on float32[4] tensors: `x + y`, `ops.mul(x, y)`, `ops.exp(x)`, `x + 1` (a Python
number operand), `x.sum()` (a reduction), and W1's loop body run eagerly at N=1 (600 ops per
call, printed per op). torch runs the same expressions on torch tensors, NumPy on the arrays
(NumPy's figure is the floor: the ufunc call alone).

Timing: the sides run in interleaved rounds, one block of calls each per round; a block's time
is the CPU time of this thread (`time.thread_time`), so another process taking the core between
two calls does not count against the side that was running. Per side the median over rounds
and the range are printed, and pycompile / torch is the median of the per-round ratios.
"""
from __future__ import annotations

import os
import statistics
import sys
import time

import numpy as np

import pycompile as ms
from pycompile import ops
from workloads import w1_numpy     # W1's body: NumPy arrays, Tensors and torch tensors alike

try:
    import torch
except ImportError:        # torch is not a dependency
    torch = None


def cases():
    """(label, ops per call, {side: callable}) with the results checked equal first."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal(4).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)
    x, y = ms.Tensor(a), ms.Tensor(b)
    ta, tb = (torch.from_numpy(a.copy()), torch.from_numpy(b.copy())) if torch is not None else (None, None)
    rows = [
        ("x + y", 1, lambda: x + y, lambda: ta + tb, lambda: np.add(a, b)),
        ("ops.mul(x, y)", 1, lambda: ops.mul(x, y), lambda: torch.mul(ta, tb), lambda: np.multiply(a, b)),
        ("ops.exp(x)", 1, lambda: ops.exp(x), lambda: torch.exp(ta), lambda: np.exp(a)),
        ("x + 1", 1, lambda: x + 1, lambda: ta + 1, lambda: a + np.float32(1)),
        ("x.sum() (reduction)", 1, lambda: x.sum(), lambda: ta.sum(), lambda: a.sum()),
        ("W1 body N=1, per op", 600, lambda: w1_numpy(x, y), lambda: w1_numpy(ta, tb), lambda: w1_numpy(a, b)),
    ]
    out = []
    for label, n_ops, pc, th, nf in rows:
        want = np.asarray(nf())
        np.testing.assert_allclose(pc().asnumpy(), want, rtol=1e-5, atol=1e-6)
        sides = {"pycompile": pc, "NumPy": nf}
        if torch is not None:
            np.testing.assert_allclose(th().numpy(), want, rtol=1e-5, atol=1e-6)
            sides["torch eager"] = th
        out.append((label, n_ops, sides))
    return out


def _calls_per_block(fn, block_time):
    n = 1
    while True:
        t0 = time.thread_time()
        for _ in range(n):
            fn()
        if time.thread_time() - t0 >= block_time or n >= 1 << 20:
            return n
        n *= 2


def rounds(sides: dict, rounds_: int, block_time: float) -> dict:
    """Per side, the seconds per call of each round (sides interleaved within a round)."""
    counts = {k: _calls_per_block(f, block_time) for k, f in sides.items()}
    times = {k: [] for k in sides}
    for _ in range(rounds_):
        for k, f in sides.items():
            n = counts[k]
            f()
            t0 = time.thread_time()
            for _ in range(n):
                f()
            times[k].append((time.thread_time() - t0) / n)
    return times


def main(argv=()):
    quick = "--quick" in argv
    n_rounds, block = (5, 0.02) if quick else (11, 0.05)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"# WP: PyNative per-op cost, float32[4]; CPU time of this thread, {n_rounds} interleaved "
          f"rounds; load average {load:.2f}")
    print(f"{'op':<24} {'pycompile':>18} {'torch eager':>18} {'NumPy':>18} {'pc / torch':>10}")
    for label, n_ops, sides in cases():
        times = rounds(sides, n_rounds, block)

        def cell(k):
            if k not in times:
                return f"{'-':>18}"
            ts = [t / n_ops * 1e6 for t in times[k]]
            return f"{statistics.median(ts):6.2f} ({min(ts):.2f}-{max(ts):.2f})"
        r = (f"{statistics.median(p / t for p, t in zip(times['pycompile'], times['torch eager'])):9.2f}x"
             if "torch eager" in times else f"{'-':>10}")
        print(f"{label:<24} {cell('pycompile'):>18} {cell('torch eager'):>18} {cell('NumPy'):>18} {r}",
              flush=True)
    print("# µs per op: median (range over rounds); target (issue 22): <= 2.5 µs per elementwise op")


if __name__ == "__main__":
    main(sys.argv[1:])
