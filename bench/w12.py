"""W12: the W5 step (W4's MLP, softmax cross-entropy, Momentum, global batch 64) in DATA_PARALLEL
on 2 processes x 1 thread against 1 process x 2 threads, on this machine (bench/README.md).

    PYTHONPATH=src python bench/w12.py [--rounds 5] [--steps 30]

The driver alternates the two configurations for `rounds` rounds (interleaved, so load drifts hit
both alike) and prints medians and ranges of: the compiled step time; for the DP run the bytes
all-reduced per step, the time per step spent inside the runtime's all-reduce calls (csrc/comm.c
counts it: waiting for the slower rank included), and the all-reduce bandwidth against a plain
mpi4py Allreduce of a buffer of the same size in the same processes (the reference MPI rate).
Needs mpi4py and an mpiexec (the `distributed` extra).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
GLOBAL_BATCH = 64


def worker(steps: int, threads: int, distributed: bool) -> dict:
    import numpy as np

    import pycompile as ms
    from pycompile import nn
    from pycompile._rt import ffi, lib

    ms.set_context(mode=ms.GRAPH_MODE, runtime_num_threads=threads)
    rank, size, comm = 0, 1, None
    if distributed:
        from mpi4py import MPI

        from pycompile import communication
        communication.init()
        rank, size, comm = communication.get_rank(), communication.get_group_size(), MPI.COMM_WORLD
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    ms.set_seed(0)
    sys.path.insert(0, HERE)
    from w5 import MLPLoss
    net = MLPLoss()
    step = nn.TrainOneStepCell(net, nn.Momentum(net.trainable_params(), 0.01, 0.9))
    rng = np.random.default_rng(1)
    x = rng.standard_normal((GLOBAL_BATCH, 1, 28, 28)).astype(np.float32)[rank::size]
    y = rng.integers(0, 10, GLOBAL_BATCH).astype(np.int32)[rank::size]
    tx, ty = ms.Tensor(x), ms.Tensor(y)
    for _ in range(5):
        step(tx, ty)
    lib.pc_comm_stats_reset()
    times = []
    for _ in range(steps):
        if comm is not None:
            comm.Barrier()
        t0 = time.perf_counter()
        step(tx, ty)
        times.append(time.perf_counter() - t0)
    stats = ffi.new("long[3]")
    lib.pc_comm_stats(stats, 3)
    out = {"step_ms": statistics.median(times) * 1e3, "rank": rank}
    if comm is not None:
        calls, nbytes, ns = stats[0], stats[1], stats[2]
        out.update(bytes_per_step=nbytes / steps, calls_per_step=calls / steps, comm_ms=ns / steps / 1e6)
        # plain mpi4py on buffers of the same sizes (one per call of a step)
        per_call = int(nbytes / calls) // 4 if calls else 0
        send = np.ones(per_call, np.float32)
        recv = np.empty_like(send)
        ts = []
        for _ in range(steps):
            comm.Barrier()
            t0 = time.perf_counter()
            for _ in range(int(calls / steps)):
                comm.Allreduce(send, recv)
            ts.append(time.perf_counter() - t0)
        out["mpi4py_ms"] = statistics.median(ts) * 1e3
        out["mpi4py_bw_GBps"] = out["bytes_per_step"] / (out["mpi4py_ms"] * 1e6)
        # the same buffer through pycompile's compiled AllReduce, measured the same way (ranks
        # aligned by a barrier, then only the reduction), timed by the runtime's counter: the
        # in-step counter above also holds the wait for the slower rank's backward
        from pycompile import ops
        reduce_only = ms.jit(lambda g: ops.AllReduce()(g))
        tg = ms.Tensor(send)
        reduce_only(tg)
        ts = []
        for _ in range(steps):
            comm.Barrier()
            lib.pc_comm_stats_reset()
            for _ in range(int(calls / steps)):
                reduce_only(tg)
            lib.pc_comm_stats(stats, 3)
            ts.append(stats[2] / 1e6)
        out["reduce_ms"] = statistics.median(ts)
        out["bw_GBps"] = out["bytes_per_step"] / (out["reduce_ms"] * 1e6)
    return out


def _run(cmd, env):
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-2000:])
    return [json.loads(line[5:]) for line in proc.stdout.splitlines() if line.startswith("W12: ")]


def driver(rounds: int, steps: int) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(os.path.dirname(HERE), "src") + os.pathsep + env.get("PYTHONPATH", "")
    mpiexec = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    mpiexec = mpiexec if os.path.exists(mpiexec) else "mpiexec"
    me = [sys.executable, os.path.abspath(__file__), "--worker", "--steps", str(steps)]
    dp, single = [], []
    for _ in range(rounds):
        dp.append(_run([mpiexec, "-n", "2"] + me + ["--threads", "1", "--dp"], dict(env, PYCOMPILE_NUM_THREADS="1")))
        single.append(_run(me + ["--threads", "2"], dict(env, PYCOMPILE_NUM_THREADS="2"))[0])

    def fmt(values, unit=""):
        return f"{statistics.median(values):.3g}{unit} ({min(values):.3g}-{max(values):.3g})"

    print(f"# W12, {rounds} interleaved rounds x {steps} steps; load: {os.getloadavg()}")
    print(f"1 process x 2 threads, B={GLOBAL_BATCH}: step {fmt([r['step_ms'] for r in single], ' ms')}")
    steps_dp = [max(r["step_ms"] for r in rnd) for rnd in dp]
    r0 = [rnd[0] for rnd in dp]
    print(f"2 processes x 1 thread, B={GLOBAL_BATCH // 2} each: step {fmt(steps_dp, ' ms')} (slower rank)")
    print(f"  all-reduced per step: {r0[0]['bytes_per_step'] / 1e6:.3f} MB in {r0[0]['calls_per_step']:.0f} call(s)")
    print(f"  in all-reduce per step, waiting for the other rank included (rank 0): "
          f"{fmt([r['comm_ms'] for r in r0], ' ms')}")
    print(f"  the same all-reduce alone: pycompile compiled {fmt([r['reduce_ms'] for r in r0], ' ms')}, "
          f"plain mpi4py {fmt([r['mpi4py_ms'] for r in r0], ' ms')}")
    print(f"  all-reduce bandwidth: pycompile {fmt([r['bw_GBps'] for r in r0], ' GB/s')}, "
          f"plain mpi4py {fmt([r['mpi4py_bw_GBps'] for r in r0], ' GB/s')}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker", action="store_true")
    ap.add_argument("--dp", action="store_true")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--steps", type=int, default=30)
    a = ap.parse_args()
    if a.worker:
        print("W12: " + json.dumps(worker(a.steps, a.threads, a.dp)), flush=True)
    else:
        driver(a.rounds, a.steps)
