"""W12: the W5 step (W4's MLP, softmax cross-entropy, Momentum, global batch 64) in DATA_PARALLEL
on 2 processes x 1 thread against 1 process x 2 threads, on this machine (bench/README.md).

    PYTHONPATH=src python bench/w12.py [--rounds 5] [--steps 30]

The driver alternates three configurations for `rounds` rounds (interleaved, so load drifts hit
all alike): 2 ranks with the default buckets (1 MB, started as the backward produces them), 1
process on the whole batch, and 2 ranks with one 32 MB bucket (the reduction after the whole
backward, as before issue 21 item 4). It prints medians and ranges of the compiled step time
and issue 21's Done-when figures:
* overlap: the time per step compiled code waits for the started all-reduces (csrc/comm.c counts
  it), of the rank that waited less in each step (the other rank's wait also holds the ranks'
  skew: its backward finished first), over the time of the same all-reduces alone (the step's
  bucket buffers through the same compiled reduction, no backward); done when < 0.5. Also the
  floor this network sets: the last bucket (the first layer's weight gradient, which the
  backward's last kernel produces) alone, over all of them;
* bandwidth: the same bucket buffers all-reduced by pycompile's compiled reduction and by plain
  mpi4py Allreduce calls, alternating which goes first; done when pycompile's is >= 0.9 of mpi4py's.
Needs mpi4py and an mpiexec (the `distributed` extra).

    PYTHONPATH=src python bench/w12.py --scaling W5,W5w,W6,W10 [--ranks "1 2"] [--src A --src B]

times the training steps over 1 and N ranks x 1 thread (issue 37 item 3): W5 strong (the global
batch 64 split), W5w weak (64 per rank), W10's training step (ResNet-18 stage 1 with a 10-way head,
batch 32 per rank) and W6's (GPT L=12, batch 8 per rank; MSE), both weak; with two --src folders,
A/B in the same rounds. `--worker --workload W10|W6 [--batch B]` is one rank's run, as devbench's
W12 part launches it (`--worker --steps N --threads 1 --dp`: W5 strong, the same output lines).
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


# the training steps W12 runs: name -> (default batch per rank in weak mode, builder(batch, rank,
# size) -> (step, inputs)); W5's global batch is GLOBAL_BATCH (strong scaling: split over the ranks)
def _w5_step(batch, rank, size, weak):
    import numpy as np

    import pycompile as ms
    from pycompile import nn
    sys.path.insert(0, HERE)
    from w5 import MLPLoss
    net = MLPLoss()
    step = nn.TrainOneStepCell(net, nn.Momentum(net.trainable_params(), 0.01, 0.9))
    rng = np.random.default_rng(1)
    n = batch * size if weak else batch
    x = rng.standard_normal((n, 1, 28, 28)).astype(np.float32)[rank::size]
    y = rng.integers(0, 10, n).astype(np.int32)[rank::size]
    return step, (ms.Tensor(x), ms.Tensor(y))


def _w10_step(batch, rank, size, weak):
    """ResNet-18's stage 1 (examples/resnet_block.py; BatchNorm in training mode, each rank's
    statistics its own, as MindSpore's data parallelism without SyncBatchNorm) with a global
    average pool and a 10-way Dense head, softmax cross-entropy, Momentum."""
    import numpy as np

    import pycompile as ms
    from pycompile import nn
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "examples"))
    import resnet_block

    net = resnet_block.ResNetStage1Classifier()
    loss = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
    step = nn.TrainOneStepCell(loss, nn.Momentum(net.trainable_params(), 0.01, 0.9))
    step.set_train(True)
    rng = np.random.default_rng(1 + rank)          # weak scaling: each rank its own batch
    x = rng.standard_normal((batch, 3, 224, 224)).astype(np.float32)
    y = rng.integers(0, 10, batch).astype(np.int32)
    return step, (ms.Tensor(x), ms.Tensor(y))


def _w6_step(batch, rank, size, weak):
    """The GPT stack of W6 (examples/gpt_blocks.py, L=12, sequence 64, width 128) regressing a
    target of its output's shape (MSE), Momentum."""
    import numpy as np

    import pycompile as ms
    from pycompile import nn
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "examples"))
    import gpt_blocks
    net = gpt_blocks.GPT(num_layers=12)
    loss = nn.WithLossCell(net, nn.MSELoss())
    step = nn.TrainOneStepCell(loss, nn.Momentum(net.trainable_params(), 0.01, 0.9))
    step.set_train(True)
    rng = np.random.default_rng(1 + rank)
    shape = (batch, gpt_blocks.SEQ, gpt_blocks.D_MODEL)
    x = rng.standard_normal(shape).astype(np.float32)
    y = rng.standard_normal(shape).astype(np.float32)
    return step, (ms.Tensor(x), ms.Tensor(y))


WORKLOADS = {"W5": (GLOBAL_BATCH, _w5_step), "W10": (32, _w10_step), "W6": (8, _w6_step)}


def worker(steps: int, threads: int, distributed: bool, bucket_mb: float = 0, workload: str = "W5",
           batch: int = 0, weak: bool = False, alone: bool = True) -> dict:
    """One rank's run: `steps` timed steps of `workload` after warm-up. Strong scaling (W5's
    default): the global batch `batch` (GLOBAL_BATCH) split over the ranks; weak: `batch` per rank
    (the workload's default when 0)."""
    import numpy as np

    import pycompile as ms
    from pycompile._rt import ffi, lib

    ms.set_context(mode=ms.GRAPH_MODE, runtime_num_threads=threads)
    rank, size, comm = 0, 1, None
    if distributed:
        from mpi4py import MPI

        from pycompile import communication
        communication.init()
        rank, size, comm = communication.get_rank(), communication.get_group_size(), MPI.COMM_WORLD
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
        if bucket_mb:
            ms.set_auto_parallel_context(comm_fusion={"allreduce": {"mode": "size", "config": bucket_mb}})
    ms.set_seed(0)
    default_batch, build = WORKLOADS[workload]
    weak = weak or workload != "W5"
    step, inputs = build(batch or default_batch, rank, size, weak)
    for _ in range(5 if workload == "W5" else 2):
        step(*inputs)
    lib.pc_comm_stats_reset()
    stats = ffi.new("long[6]")
    times, waits = [], []
    for _ in range(steps):
        if comm is not None:
            comm.Barrier()
        lib.pc_comm_stats(stats, 6)
        w0 = stats[3]
        t0 = time.perf_counter()
        step(*inputs)
        times.append(time.perf_counter() - t0)
        lib.pc_comm_stats(stats, 6)
        waits.append((stats[3] - w0) / 1e6)
    lib.pc_comm_stats(stats, 6)
    out = {"step_ms": statistics.median(times) * 1e3, "rank": rank, "workload": workload, "ranks": size,
           "local_batch": int(inputs[0].shape[0])}
    # (one rank: the reducer is the identity, nothing is reduced: the plain step)
    if comm is not None and getattr(step, "reducer_flag", False) and not getattr(step.grad_reducer, "identity", False):
        calls, nbytes, ns, wait_ns = stats[0], stats[1], stats[2], stats[3]
        reducer = step.grad_reducer
        sizes = [sum(int(np.prod(reducer.shapes[k])) for k in b) for b in reducer.buckets]
        out.update(bytes_per_step=nbytes / steps, calls_per_step=calls / steps, start_ms=ns / steps / 1e6,
                   wait_ms=wait_ns / steps / 1e6, buckets=sizes, tests_per_step=stats[4] / steps, waits=waits,
                   progress_ms=stats[5] / steps / 1e6)
        if alone:
            out.update(_reduce_alone(comm, reducer, sizes, steps))
    return out


def _reduce_alone(comm, reducer, sizes, rounds) -> dict:
    """The step's all-reduces without the backward: the same bucket buffers through plain mpi4py
    (one blocking Allreduce each) and through pycompile's compiled reduction (the reducer's
    start / wait calls, in a jit function of the gradients alone), in alternating rounds, ranks
    aligned by a barrier before each. pycompile's time is the runtime's counter (inside MPI only,
    as the perf_counter around mpi4py's calls)."""
    import numpy as np

    import pycompile as ms
    from pycompile import nn
    from pycompile._rt import ffi, lib

    bufs = [np.ones(n, np.float32) for n in sizes]
    recv = [np.empty_like(b) for b in bufs]
    # the reducer of the step, summing only (no mean): the same buckets, the same calls
    plain = nn.DistributedGradReducer([ms.Parameter(ms.Tensor(np.zeros(s, np.float32)), name=f"g{k}")
                                       for k, s in enumerate(reducer.shapes)], mean=False)
    plain.buckets = reducer.buckets
    grads = tuple(ms.Tensor(np.ones(s, np.float32)) for s in reducer.shapes)
    reduce_only = ms.jit(lambda gs: plain(gs))
    reduce_only(grads)
    stats = ffi.new("long[4]")
    ref, ours, last = [], [], []

    def plain():
        comm.Barrier()
        t0 = time.perf_counter()
        for b, r in zip(bufs, recv):
            comm.Allreduce(b, r)
        ref.append((time.perf_counter() - t0) * 1e3)

    def compiled():
        comm.Barrier()
        lib.pc_comm_stats_reset()
        reduce_only(grads)
        lib.pc_comm_stats(stats, 4)
        ours.append((stats[2] + stats[3]) / 1e6)

    for k in range(rounds):
        for fn in ((plain, compiled) if k % 2 == 0 else (compiled, plain)):    # neither always first
            fn()
        # the last bucket alone: the backward's last kernel produces it, so no backward is left
        # to hide its reduction behind (the floor of the wait, with no skew between the ranks)
        comm.Barrier()
        t0 = time.perf_counter()
        comm.Allreduce(bufs[-1], recv[-1])
        last.append((time.perf_counter() - t0) * 1e3)
    nbytes = 4 * sum(sizes)
    mpi4py_ms, reduce_ms = statistics.median(ref), statistics.median(ours)
    return {"mpi4py_ms": mpi4py_ms, "reduce_ms": reduce_ms, "last_bucket_ms": statistics.median(last), "mpi4py_bw_GBps": nbytes / (mpi4py_ms * 1e6),
            "bw_GBps": nbytes / (reduce_ms * 1e6)}


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
    dp, single, one = [], [], []
    for _ in range(rounds):
        dp.append(_run([mpiexec, "-n", "2"] + me + ["--threads", "1", "--dp"], dict(env, PYCOMPILE_NUM_THREADS="1")))
        single.append(_run(me + ["--threads", "2"], dict(env, PYCOMPILE_NUM_THREADS="2"))[0])
        # the reduction as before issue 21 item 4: one 32 MB bucket, started after the whole backward
        one.append(_run([mpiexec, "-n", "2"] + me + ["--threads", "1", "--dp", "--bucket-mb", "32"],
                        dict(env, PYCOMPILE_NUM_THREADS="1")))

    def fmt(values, unit=""):
        return f"{statistics.median(values):.3g}{unit} ({min(values):.3g}-{max(values):.3g})"

    print(f"# W12, {rounds} interleaved rounds x {steps} steps; load: {os.getloadavg()}")
    print(f"1 process x 2 threads, B={GLOBAL_BATCH}: step {fmt([r['step_ms'] for r in single], ' ms')}")
    steps_dp = [max(r["step_ms"] for r in rnd) for rnd in dp]
    r0 = [rnd[0] for rnd in dp]
    print(f"2 processes x 1 thread, B={GLOBAL_BATCH // 2} each: step {fmt(steps_dp, ' ms')} (slower rank)")
    print(f"  all-reduced per step: {r0[0]['bytes_per_step'] / 1e6:.3f} MB in {r0[0]['calls_per_step']:.0f} "
          f"bucket(s) of {', '.join(f'{4 * n / 1e6:.3f}' for n in r0[0]['buckets'])} MB, started as the backward "
          f"produces them")
    # the rank whose backward finished first also waits for the other's: per step, the smaller of
    # the two ranks' waits is the communication the backward did not hide (no skew in it)
    def exposed_ms(rnd):
        return statistics.median(min(ws) for ws in zip(*(r["waits"] for r in rnd)))
    exposed = [exposed_ms(rnd) for rnd in dp]
    for rnd, e in zip(dp, exposed):
        rnd[0]["exposed_ms"] = e
    print(f"  waited per step for the all-reduces to complete: rank 0 {fmt([r['wait_ms'] for r in r0], ' ms')}, "
          f"the rank that waited less (per step; the other's wait includes the ranks' skew) "
          f"{fmt(exposed, ' ms')}")
    print(f"  the same all-reduces alone: pycompile compiled {fmt([r['reduce_ms'] for r in r0], ' ms')}, "
          f"plain mpi4py {fmt([r['mpi4py_ms'] for r in r0], ' ms')} (alternating, same buffers)")
    one0 = [rnd[0] for rnd in one]
    print(f"  (one 32 MB bucket, started after the whole backward: step "
          f"{fmt([max(r['step_ms'] for r in rnd) for rnd in one], ' ms')}, waited: rank 0 "
          f"{fmt([r['wait_ms'] for r in one0], ' ms')}, the rank that waited less {fmt([exposed_ms(rnd) for rnd in one], ' ms')}; "
          f"its all-reduce alone {fmt([r['reduce_ms'] for r in one0], ' ms')})")
    ratios = [r["exposed_ms"] / r["reduce_ms"] for r in r0]
    print(f"  overlap: waited (the rank that waited less) / all-reduce time {fmt(ratios)} (issue 21: done when < 0.5)")
    floor = [r["last_bucket_ms"] / r["mpi4py_ms"] for r in r0]
    print(f"  (the last bucket, produced by the backward's last kernel, alone: {fmt([r['last_bucket_ms'] for r in r0], ' ms')} "
          f"with mpi4py, {fmt(floor)} of all the all-reduces: the floor of the ratio above for this network)")
    bw = [r["bw_GBps"] / r["mpi4py_bw_GBps"] for r in r0]
    print(f"  all-reduce bandwidth: pycompile {fmt([r['bw_GBps'] for r in r0], ' GB/s')}, "
          f"plain mpi4py {fmt([r['mpi4py_bw_GBps'] for r in r0], ' GB/s')}; ratio {fmt(bw)} "
          f"(issue 21: done when >= 0.9)")


def scaling(workloads, ranks, rounds: int, steps: int, srcs=()) -> None:
    """Strong (W5: global batch 64 split) and weak (W5w: 64 per rank; W10: 32; W6: 8) scaling over
    `ranks` MPI ranks x 1 thread, interleaved rounds; prints the median step of the slower rank,
    the speed-up (strong) or efficiency (weak: the one-rank step over the n-rank step) against the
    first rank count, and each rank's wait for the all-reduces. `srcs`: pycompile source folders
    to compare (A/B, alternating within each round; default: this checkout's)."""
    env = dict(os.environ, PYCOMPILE_NUM_THREADS="1", OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    env.setdefault("HYDRA_LAUNCHER", "fork")
    srcs = list(srcs) or [os.path.join(os.path.dirname(HERE), "src")]
    mpiexec = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    mpiexec = mpiexec if os.path.exists(mpiexec) else "mpiexec"
    res: dict = {}
    for _ in range(rounds):
        for w in workloads:
            name, weak = (w[:-1], True) if w.endswith("w") else (w, w != "W5")
            n_steps = steps if name == "W5" else max(3, steps // 10)
            for n in ranks:
                for k, src in enumerate(srcs):
                    # (W5 at n > 1 also times its all-reduces alone, for the model below)
                    cmd = [mpiexec, "-n", str(n), sys.executable, os.path.abspath(__file__), "--worker", "--dp",
                           "--threads", "1", "--steps", str(n_steps), "--workload", name] + (
                               [] if name == "W5" and n > 1 else ["--no-alone"])
                    e = dict(env, PYTHONPATH=src + os.pathsep + env.get("PYTHONPATH", ""))
                    res.setdefault((k, w, n), []).append(_run(cmd + (["--weak"] if weak else []), e))
    print(f"# W12 scaling, {rounds} interleaved rounds; load: {os.getloadavg()}")
    for k, src in enumerate(srcs):
        if len(srcs) > 1:
            print(f"## pycompile from {src}")
        for w in workloads:
            base = statistics.median(max(r["step_ms"] for r in rnd) for rnd in res[(k, w, ranks[0])])
            for n in ranks:
                rnds = res[(k, w, n)]
                st = [max(r["step_ms"] for r in rnd) for rnd in rnds]
                m = statistics.median(st)
                ratio = base / m         # strong: the speed-up; weak (same work per rank): the efficiency

                def med(key, rank):
                    return statistics.median(rnd[rank].get(key, 0.0) for rnd in rnds)
                per_rank = "; ".join(f"rank {r}: step {med('step_ms', r):.3g}, waited {med('wait_ms', r):.3g}, "
                                     f"in the starts {med('start_ms', r):.3g}, in {med('tests_per_step', r):.0f} progress "
                                     f"tests {med('progress_ms', r):.3g}" for r in range(n))
                print(f"{w} ranks={n} B/rank={rnds[0][0]['local_batch']}: step {m:.3g} ms "
                      f"({min(st):.3g}-{max(st):.3g}, slower rank); {'speed-up' if w == 'W5' else 'efficiency'} "
                      f"{ratio:.2f}; medians (ms) {per_rank}")
                if "reduce_ms" in rnds[0][0]:
                    _model(rnds)


def _model(rnds) -> None:
    """What the step would cost with a core free for the reduction (this VM's 2 cores run 2 ranks:
    none is free, so MPI's shared-memory copies and sums run inside the ranks' MPI calls): each
    rank's compute (its step less the time inside MPI: starts, progress tests, waits), the
    all-reduces alone (the same buffers, no backward), the wait no backward or update hid (per
    step the rank that waited less: the other's wait holds the ranks' skew) and the share of the
    all-reduces hidden; modelled step = the slower rank's compute + that wait."""
    def med(values):
        return statistics.median(values)
    n = len(rnds[0])
    compute = [med(r[k]["step_ms"] - r[k]["start_ms"] - r[k]["progress_ms"] - r[k]["wait_ms"] for r in rnds)
               for k in range(n)]
    in_mpi = [med(r[k]["start_ms"] + r[k]["progress_ms"] + r[k]["wait_ms"] for r in rnds) for k in range(n)]
    alone = med(r[0]["reduce_ms"] for r in rnds)
    last = med(r[0]["last_bucket_ms"] for r in rnds)
    exposed = med(med(min(ws) for ws in zip(*(x["waits"] for x in r))) for r in rnds)
    print(f"  model: compute per rank {', '.join(f'{c:.3g}' for c in compute)} ms, inside MPI "
          f"{', '.join(f'{c:.3g}' for c in in_mpi)} ms; the all-reduces alone {alone:.3g} ms (the last bucket "
          f"{last:.3g} ms); waited (the rank that waited less) {exposed:.3g} ms: {max(0.0, 1 - exposed / alone):.0%} "
          f"hidden; with a core free for the reduction: step ~ {max(compute) + exposed:.3g} ms")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker", action="store_true")
    ap.add_argument("--dp", action="store_true")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--bucket-mb", type=float, default=0)
    ap.add_argument("--workload", choices=sorted(WORKLOADS), default="W5")
    ap.add_argument("--batch", type=int, default=0, help="W5: the global batch (64); weak: the batch per rank")
    ap.add_argument("--weak", action="store_true", help="W5 with the batch per rank fixed (W10, W6 always are)")
    ap.add_argument("--no-alone", action="store_true", help="worker: skip timing the all-reduces alone")
    ap.add_argument("--scaling", default="", help="driver: the workloads to time at --ranks, e.g. W5,W5w,W10,W6")
    ap.add_argument("--ranks", default="1 2")
    ap.add_argument("--src", action="append", default=[], help="driver --scaling: a pycompile src folder (A/B)")
    a = ap.parse_args()
    if a.worker:
        result = worker(a.steps, a.threads, a.dp, a.bucket_mb, a.workload, a.batch, a.weak, not a.no_alone)
        if a.dp:           # one printer: the ranks' lines could interleave
            from mpi4py import MPI
            results = MPI.COMM_WORLD.gather(result)
            for r in results or ():
                print("W12: " + json.dumps(r), flush=True)
        else:
            print("W12: " + json.dumps(result), flush=True)
    elif a.scaling:
        scaling(a.scaling.split(","), [int(n) for n in a.ranks.split()], a.rounds, a.steps, a.src)
    else:
        driver(a.rounds, a.steps)
