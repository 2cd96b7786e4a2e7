"""One rank of test_comm_shm.py: all-reduces through csrc/comm_shm.c's shared-memory segments.

Every rank builds every rank's input from the rank's seed, so each checks its result against
NumPy's rank-order reduction (((x0 + x1) + x2) ...) bit for bit. Prints "rank R/N OK <shm calls>"
at the end; any mismatch raises (and the job fails).
With PYCOMPILE_COMM_SHM=0 the same checks hold with no all-reduce through the segments.
argv: PART, one of
  values   eager and compiled AllReduce (sum, max, min, prod) of float32 / float64 of 0 to 300,007
           elements, an int32 one (through MPI), started all-reduces waited out of order
           (AllReduce inside one compiled graph), then a DATA_PARALLEL step
  wrap     with a 1 MB segment (PYCOMPILE_COMM_SHM_MB=1): 40 all-reduces of 0.3 MB (the offsets
           wrap around the segment every 3) and one of 2 MB (more than a segment: through MPI)
  steps    with a 1 MB segment: 20 DATA_PARALLEL steps whose first bucket is small and whose two
           256 KB gradients are buckets of their own (W5's pattern, 0.52 MB a step): every bucket
           of every step through the segment
  direct   20 DATA_PARALLEL steps of a compiled step whose arena is in the segment: every bucket
           reduced in place (no copies), the weights equal to one process's on the whole batch
  mixed    the same with rank 1's arena full: rank 1 reduces through its copy, the others in place
"""
import os
import sys

import numpy as np

import pycompile as ms
from pycompile import communication as comm
from pycompile import nn, ops
from pycompile._rt import lib

part = sys.argv[1]
comm.init()
rank, n = comm.get_rank(), comm.get_group_size()
SHM = os.environ.get("PYCOMPILE_COMM_SHM", "1") != "0"      # else every all-reduce goes through MPI
REDUCE = {"sum": np.add, "max": np.maximum, "min": np.minimum, "prod": np.multiply}


def inputs(size, dtype, seed=0):
    return [np.random.default_rng(1000 * seed + q).standard_normal(size).astype(dtype) for q in range(n)]


def expected(xs, op):
    want = xs[0].copy()
    for x in xs[1:]:
        want = REDUCE[op](want, x)
    return want


def check(got, want, what):
    if got.dtype != want.dtype or got.shape != want.shape or not np.array_equal(got, want):
        raise AssertionError(f"rank {rank}: {what}: {got.dtype} {got.shape} vs {want.dtype} {want.shape}, "
                             f"max difference {np.abs(got.astype(np.float64) - want).max() if got.size else 0}")


if part == "values":
    calls = lib.pc_comm_shm_calls()
    for size in (0, 1, 15, 17, 1000, 300007):
        for dtype in (np.float32, np.float64):
            xs = inputs(size, dtype, size)
            for op in REDUCE:
                check(ops.AllReduce(op)(ms.Tensor(xs[rank])).asnumpy(), expected(xs, op), f"eager {op} {size}")
    assert lib.pc_comm_shm_calls() == calls + 48 * SHM, (lib.pc_comm_shm_calls(), calls)
    xi = [np.arange(5, dtype=np.int32) * (q + 1) for q in range(n)]          # int32: through MPI
    check(ops.AllReduce()(ms.Tensor(xi[rank])).asnumpy(), expected(xi, "sum"), "int32")
    assert lib.pc_comm_shm_calls() == calls + 48 * SHM

    a, b = inputs(4097, np.float32, 1), inputs((3, 5), np.float64, 2)

    @ms.jit
    def two(x, y):
        return ops.AllReduce("max")(x * 2) + 1, ops.AllReduce()(y)

    got = two(ms.Tensor(a[rank]), ms.Tensor(b[rank]))
    check(got[0].asnumpy(), expected([x * 2 for x in a], "max") + np.float32(1), "compiled max")
    check(got[1].asnumpy(), expected(b, "sum"), "compiled sum")

    # DATA_PARALLEL: the gradient buckets are started in the backward and waited before the update
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    ms.set_seed(0)
    net = nn.Dense(64, 8)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1))
    before = lib.pc_comm_shm_calls()
    xs, ys = inputs((4, 64), np.float32, 3), inputs((4, 8), np.float32, 4)
    ms.jit(step)(ms.Tensor(xs[rank]), ms.Tensor(ys[rank]))
    assert (lib.pc_comm_shm_calls() > before) == SHM
    # every rank holds the same weights: the mean of the ranks' gradients, applied alike
    w = net.weight.asnumpy()
    every = ops.AllGather()(ms.Tensor(w[None])).asnumpy()
    for q in range(n):
        check(every[q], w, f"rank {q}'s weights")
elif part == "wrap":
    calls = lib.pc_comm_shm_calls()
    for k in range(40):
        xs = inputs(75000, np.float32, k)
        check(ops.AllReduce()(ms.Tensor(xs[rank])).asnumpy(), expected(xs, "sum"), f"wrap {k}")
    assert lib.pc_comm_shm_calls() == calls + 40 * SHM
    xs = inputs(500000, np.float32, 99)                 # 2 MB: more than the segment, through MPI
    check(ops.AllReduce()(ms.Tensor(xs[rank])).asnumpy(), expected(xs, "sum"), "over the segment")
    assert lib.pc_comm_shm_calls() == calls + 40 * SHM
elif part == "steps":
    ms.set_context(mode=ms.GRAPH_MODE)             # the compiled step: its buckets in flight together
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    ms.set_seed(0)
    net = nn.SequentialCell(nn.Dense(256, 256), nn.ReLU(), nn.Dense(256, 256), nn.ReLU(), nn.Dense(256, 4))
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.Momentum(net.trainable_params(), 0.01, 0.9))
    buckets = len(step.grad_reducer.buckets)
    assert buckets == 4, step.grad_reducer.buckets
    xs, ys = inputs((8, 256), np.float32, 5), inputs((8, 4), np.float32, 6)
    x, y = ms.Tensor(xs[rank]), ms.Tensor(ys[rank])
    step(x, y)
    calls = lib.pc_comm_shm_calls()
    for _ in range(20):
        step(x, y)
    assert lib.pc_comm_shm_calls() == calls + 20 * buckets * SHM, (lib.pc_comm_shm_calls() - calls, buckets)
    w = net[0].weight.asnumpy()
    every = ops.AllGather()(ms.Tensor(w[None])).asnumpy()
    for q in range(n):
        check(every[q], w, f"rank {q}'s weights")
elif part in ("direct", "mixed"):
    # the compiled step's arena in the segment: its buckets reduced in place, nothing copied in or
    # out ("mixed": rank 1's arena is full first, so it reduces through its copy while the others
    # reduce in place); 20 steps against one process training on every rank's batch
    from pycompile._rt import ffi
    ms.set_context(mode=ms.GRAPH_MODE)
    xs, ys = inputs((8, 256), np.float32, 5), inputs((8, 4), np.float32, 6)

    def build():
        ms.set_seed(0)
        net = nn.SequentialCell(nn.Dense(256, 256), nn.ReLU(), nn.Dense(256, 256), nn.ReLU(), nn.Dense(256, 4))
        return net, nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                                        nn.Momentum(net.trainable_params(), 0.01, 0.9))
    ref, ref_step = build()             # one process, the whole batch
    whole = ms.Tensor(np.concatenate(xs)), ms.Tensor(np.concatenate(ys))
    for _ in range(20):
        ref_step(*whole)
    if part == "mixed" and rank == 1:      # take the whole arena, a megabyte at a time
        taken = 0
        while lib.pc_comm_shm_arena(1 << 20) != ffi.NULL:
            taken += 1
        assert taken >= 1, taken            # (as large as the data part: /dev/shm may bound it)
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    net, step = build()
    x, y = ms.Tensor(xs[rank]), ms.Tensor(ys[rank])
    calls, direct = lib.pc_comm_shm_calls(), lib.pc_comm_shm_direct_calls()
    for _ in range(20):
        step(x, y)
    calls, direct = lib.pc_comm_shm_calls() - calls, lib.pc_comm_shm_direct_calls() - direct
    assert calls == 20 * len(step.grad_reducer.buckets) * SHM, calls
    in_place = SHM and not (part == "mixed" and rank == 1)
    assert direct == (calls if in_place else 0), (direct, calls)
    for k, (p, q) in enumerate(zip(net.trainable_params(), ref.trainable_params())):
        np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=1e-5, atol=1e-6, err_msg=f"rank {rank}: {p.name}")
        every = ops.AllGather()(ms.Tensor(p.asnumpy()[None])).asnumpy()
        for r in range(n):
            check(every[r], p.asnumpy(), f"rank {r}'s {p.name}")
print(f"rank {rank}/{n} OK {lib.pc_comm_shm_calls()} ", flush=True)
