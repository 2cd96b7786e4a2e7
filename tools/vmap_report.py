"""vmap's batching: which op-table rows batch by looping, and what vmap(conv2d) compiles to.

    PYTHONPATH=src python tools/vmap_report.py            # the looping rows and their count
    PYTHONPATH=src python tools/vmap_report.py --conv     # + C lines of vmap(conv2d) at batch 2 / 8 / 32
                                                          #   and the time of a call at batch 32
    (PYCOMPILE_NUM_THREADS=1 for timings on a busy machine)

A row that batches by looping (`batch="loop"`, ops/batch_util.py's `loop`) is applied once per
example and the results stacked: in graph mode that is one copy of the op per example in the C.
"""
from __future__ import annotations

import sys
import time

import numpy as np

from pycompile.ops._table import OPS     # importing pycompile.ops declares every row


def looping_rows() -> list:
    return sorted(n for n, op in OPS.items() if op.batch == "loop")


def conv_one(x, w):
    from pycompile import ops
    return ops.conv2d(x, w, pad_mode="pad", padding=1)


def _best_ms(f, args, rounds=7, calls=20) -> tuple:
    """The best of `rounds` rounds of `calls` calls: (wall, CPU) milliseconds per call."""
    f(*args)
    wall = cpu = float("inf")
    for _ in range(rounds):
        t, c = time.perf_counter(), time.process_time()
        for _ in range(calls):
            f(*args)
        wall = min(wall, (time.perf_counter() - t) / calls)
        cpu = min(cpu, (time.process_time() - c) / calls)
    return wall * 1e3, cpu * 1e3


def conv_report() -> None:
    """vmap(conv2d) over images (N=4, C=4, 16 x 16, K=8, 3 x 3), the weights shared (in_axes
    (0, None)) or per example ((0, 0)): C lines of the compiled function at batch 2 / 8 / 32,
    and the time of one call at batch 32."""
    import pycompile as ms
    from pycompile import Tensor, vmap

    rng = np.random.default_rng(0)
    for in_axes in ((0, None), (0, 0)):
        for b in (2, 8, 32):
            x = Tensor(rng.standard_normal((b, 4, 4, 16, 16)).astype(np.float32))
            shape = (8, 4, 3, 3) if in_axes[1] is None else (b, 8, 4, 3, 3)
            w = Tensor(rng.standard_normal(shape).astype(np.float32))
            f = ms.jit(vmap(conv_one, in_axes=in_axes))
            rep = ms.inspect(f, x, w)
            lines = rep.c_source.count("\n")
            line = (f"in_axes {str(in_axes):9s} batch {b:3d}: {lines:6d} C lines, compiled in "
                    f"{sum(rep.times.values()):.2f} s (cc {rep.times.get('cc', 0):.2f} s)")
            if b == 32:
                wall, cpu = _best_ms(f, (x, w))
                line += f", {wall:.3f} ms wall, {cpu:.3f} ms CPU per call (best of 7 x 20)"
            print(line, flush=True)


if __name__ == "__main__":
    rows = looping_rows()
    print(f"{len(rows)} rows batch by looping:")
    print("  " + ", ".join(rows) + "\n")
    if "--conv" in sys.argv:
        conv_report()
