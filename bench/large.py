"""WL: compile time of one large straight-line program, per 1,000 ops, at 1k, 5k and 10k ops.

The program (written to a file, as graph code is read from its source) cycles through products,
elementwise chains, row reductions, softmax, LayerNorm-like normalization, slices and casts, so
fusion leaves many kernels: it is a graph as large as its op count says, not one fused loop.
Each size compiles in a fresh process with the compile cache off; the stages (trace, passes,
codegen, cc, load) are printed with the total, and seconds per 1,000 ops show whether the
compile time grows linearly. CPU seconds (this process and the C compiler together) are printed
too: on a machine shared with other jobs the wall time of a minutes-long compile follows the
load, the CPU time much less."""
from __future__ import annotations

import importlib.util
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

STATEMENTS = [
    "h = ops.matmul(h, w)",
    "h = ops.tanh(h) * 0.5 + x",
    "s = ops.sum(h, -1, keepdim=True)",
    "h = h - s * 0.01",
    "h = ops.softmax(h * 4.0)",
    "h = ops.maximum(h, x) - ops.minimum(h, 0.1)",
    "m = ops.mean(h, -1, True)",
    "h = (h - m) * ops.rsqrt(ops.mean(ops.square(h - m), -1, True) + 1e-5)",
    "h = ops.concat((h[:, 32:], h[:, :32]), 1) + ops.cast(ops.cast(h * 8.0, ms.int32), ms.float32) * 0.01",
    "h = ops.sigmoid(h) + ops.exp(-ops.abs(h))",
]


def program_source(statements: int) -> str:
    body = [STATEMENTS[k % len(STATEMENTS)] for k in range(statements)]
    return ("import pycompile as ms\nfrom pycompile import ops\n\n\ndef big(x, w):\n    h = x\n"
            + "".join(f"    {line}\n" for line in body) + "    return h\n")


def compile_large(statements: int) -> dict:
    """Compile the program once in this process: op count (IR nodes before the passes), stage
    seconds, C lines and the number of C functions."""
    import numpy as np
    import pycompile as ms
    d = tempfile.mkdtemp(prefix="pycompile-wl-")
    path = os.path.join(d, f"large_{statements}.py")
    with open(path, "w") as f:
        f.write(program_source(statements))
    spec = importlib.util.spec_from_file_location(f"large_{statements}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.standard_normal((64, 64)).astype(np.float32))
    w = ms.Tensor((rng.standard_normal((64, 64)) * 0.1).astype(np.float32))
    t0, c0 = time.perf_counter(), _cpu()
    report = ms.inspect(mod.big, x, w)
    total, cpu = time.perf_counter() - t0, _cpu() - c0
    return {"ops": report.nodes_before, "seconds": total, "cpu": cpu, "times": report.times, "c_lines": report.c_lines,
            "functions": report.c_source.count("\nstatic int ") + 1}


def _cpu() -> float:
    """User + system CPU seconds of this process and its finished children (cc)."""
    return sum(u.ru_utime + u.ru_stime for u in (resource.getrusage(resource.RUSAGE_SELF),
                                                  resource.getrusage(resource.RUSAGE_CHILDREN)))


# statement counts giving about 1k, 5k and 10k ops
SIZES = {1000: 306, 5000: 1530, 10000: 3060}


def run(sizes=(1000, 5000, 10000)) -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    for target in sizes:
        code = f"import sys, json; sys.path.insert(0, {here!r}); import large; print(json.dumps(large.compile_large({SIZES[target]})))"
        env = dict(os.environ, MS_COMPILER_CACHE_ENABLE="0")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
        r = json.loads(out.stdout.strip().splitlines()[-1])
        stages = ", ".join(f"{k} {v:.1f}" for k, v in r["times"].items())
        print(f"{'WL compile ' + str(r['ops']) + ' ops':<26} {r['seconds']:>10.2f} s {'':>12} {'':>8}   "
              f"{1000 * r['seconds'] / r['ops']:.2f} s per 1,000 ops, CPU {1000 * r['cpu'] / r['ops']:.2f} s "
              f"per 1,000 ({stages} s; {r['c_lines']} C lines, "
              f"{r['functions']} C functions)", flush=True)


if __name__ == "__main__":
    run(tuple(int(a) for a in sys.argv[1:]) or (1000, 5000, 10000))
