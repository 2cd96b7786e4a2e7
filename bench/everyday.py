"""The everyday ops of model code (issue 18) compiled, against NumPy and (where installed) torch
eager on the same inputs: cumulative sums over either axis, sort and top-k, gather_elements,
one_hot, masked_fill.

    PYTHONPATH=src /work/bench-venv/bin/python bench/everyday.py

Each side is timed in 9 interleaved rounds, a block of 5 calls per round after a 0.3 s pause
and one untimed call (bench/run.py's method). The best round and the median are printed: on a
shared machine the best round is what the code costs, the median what the neighbours leave.
"""
from __future__ import annotations

import time

import numpy as np

import pycompile as ms
from pycompile import Tensor, ops

try:
    import torch
except ImportError:        # torch is not a dependency
    torch = None


def cumsum1(a): return ops.cumsum(a, 1)
def cumsum0(a): return ops.cumsum(a, 0)
def sort1(a): return ops.sort(a, 1)
def topk8(a): return ops.topk(a, 8)
def gather_el(a, i): return ops.gather_elements(a, 1, i)
def one_hot(lab): return ops.one_hot(lab, 1000, 1.0, 0.0)
def masked(a): return ops.masked_fill(a, a > 0.5, -1e9)


def workloads():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1024, 1024)).astype(np.float32)
    idx = rng.integers(0, 1024, (1024, 64)).astype(np.int64)
    lab = rng.integers(0, 1000, (4096,)).astype(np.int32)
    t = {}
    if torch is not None:
        torch.set_num_threads(2)
        t = {"x": torch.from_numpy(x), "i": torch.from_numpy(idx), "l": torch.from_numpy(lab.astype(np.int64))}
    return [
        ("cumsum axis 1, 1024 x 1024", cumsum1, (x,), lambda: np.cumsum(x, 1), lambda: torch.cumsum(t["x"], 1)),
        ("cumsum axis 0, 1024 x 1024", cumsum0, (x,), lambda: np.cumsum(x, 0), lambda: torch.cumsum(t["x"], 0)),
        ("sort axis 1 (values, indices)", sort1, (x,), lambda: (np.sort(x, 1), np.argsort(x, 1, kind="stable")),
         lambda: torch.sort(t["x"], dim=1, stable=True)),
        ("topk 8 of 1024, 1024 rows", topk8, (x,), lambda: np.argpartition(x, -8, 1)[:, -8:],
         lambda: torch.topk(t["x"], 8)),
        ("gather_elements 1024 x 64", gather_el, (x, idx), lambda: np.take_along_axis(x, idx, 1),
         lambda: torch.gather(t["x"], 1, t["i"])),
        ("one_hot 4096 x 1000", one_hot, (lab,), lambda: np.eye(1000, dtype=np.float32)[lab],
         lambda: torch.nn.functional.one_hot(t["l"], 1000).float()),
        ("masked_fill 1024 x 1024", masked, (x,), lambda: np.where(x > 0.5, np.float32(-1e9), x),
         lambda: t["x"].masked_fill(t["x"] > 0.5, -1e9)),
    ]


def main():
    for name, fn, args, np_fn, th_fn in workloads():
        targs = tuple(Tensor(a) for a in args)
        jf = ms.jit(fn)
        jf(*targs)
        sides = {"pycompile": lambda: jf(*targs), "numpy": np_fn}
        if torch is not None:
            sides["torch"] = th_fn
        times = {k: [] for k in sides}
        for _ in range(9):
            for k, f in sides.items():
                time.sleep(0.3)
                f()
                t0 = time.perf_counter()
                for _ in range(5):
                    f()
                times[k].append((time.perf_counter() - t0) / 5)
        print(f"{name:32s} " + "  ".join(f"{k} {np.min(v) * 1e3:6.2f} ms (median {np.median(v) * 1e3:6.2f})"
                                          for k, v in times.items()), flush=True)


if __name__ == "__main__":
    main()
