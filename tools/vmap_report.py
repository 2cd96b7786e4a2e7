"""vmap's batching: which op-table rows batch by looping, and what vmap(conv2d) compiles to.

    PYTHONPATH=src python tools/vmap_report.py            # the looping rows and their count
    PYTHONPATH=src python tools/vmap_report.py --conv     # + C lines of vmap(conv2d) at batch 2 / 8 / 32
                                                          #   and the time of a call at batch 32

A row that batches by looping (`batch="loop"`, ops/batching.py's `_loop`) is applied once per
example and the results stacked: in graph mode that is one copy of the op per example in the C.
"""
from __future__ import annotations

import sys
import time

import numpy as np


def looping_rows() -> list:
    import pycompile.ops  # noqa: F401  (declares every row)
    from pycompile.ops._table import OPS
    return sorted(n for n, op in OPS.items() if op.batch == "loop")


def conv_batched(x, w):
    from pycompile import ops
    return ops.conv2d(x, w, pad_mode="pad", padding=1)


def conv_report() -> None:
    import pycompile as ms
    from pycompile import Tensor, vmap

    rng = np.random.default_rng(0)
    w = Tensor(rng.standard_normal((8, 4, 3, 3)).astype(np.float32))
    for b in (2, 8, 32):
        x = Tensor(rng.standard_normal((b, 4, 4, 16, 16)).astype(np.float32))
        f = ms.jit(lambda x, w: vmap(conv_batched, in_axes=(0, None))(x, w))
        rep = ms.inspect(f, x, w)
        lines = rep.c_source.count("\n")
        line = f"batch {b:3d}: {lines:6d} C lines"
        if b == 32:
            f(x, w)
            best = float("inf")
            for _ in range(7):
                t = time.perf_counter()
                for _ in range(20):
                    f(x, w)
                best = min(best, (time.perf_counter() - t) / 20)
            line += f", {best * 1e3:.3f} ms per call (best of 7 x 20)"
        print(line)


if __name__ == "__main__":
    rows = looping_rows()
    print(f"{len(rows)} rows batch by looping:")
    print("  " + ", ".join(rows) + "\n")
    if "--conv" in sys.argv:
        conv_report()
