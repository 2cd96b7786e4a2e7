"""One rank of the data-parallel tests (tests/distributed/test_mpi.py runs it under mpirun).

Trains W4's MLP (784-512-512-10, bench/workloads.py) for STEPS steps with Momentum on a fixed
global batch split across the ranks (rank k takes rows k::n), gradients_mean=True, and writes the
initial and final weights (rank 0) to OUT. fail_rank -2: one process without init() (the
single-process run on the whole batch); fail_rank k >= 0: rank k raises halfway (or, with a 5th
argument 'kill', SIGKILLs itself) and the others must be ended by it. A 5th argument 'recipe'
runs MindSpore's full recipe instead: the batch read through NumpySlicesDataset with
num_shards / shard_id, and TrainOneStepWithLossScaleCell (a fixed scale of 1024, exact in float32),
then a plain TrainOneStepCell ('plain.' weights) and the same compiled without the update_schedule
pass ('traced.').
argv: out.npz mode(pynative|graph) steps [fail_rank [kill|recipe]]
"""
import os
import signal
import sys
import time

import numpy as np

import pycompile as ms
from pycompile import nn
from pycompile.communication import get_group_size, get_rank, init

out_path, mode, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
fail_rank = int(sys.argv[4]) if len(sys.argv) > 4 else -1
variant = sys.argv[5] if len(sys.argv) > 5 else ""
kill = variant == "kill"
distributed = fail_rank != -2
if mode == "graph":
    ms.set_context(mode=ms.GRAPH_MODE)
rank, size = 0, 1
if distributed:
    init()
    rank, size = get_rank(), get_group_size()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True,
                                 parameter_broadcast=True)

GLOBAL_BATCH = 16
rng = np.random.default_rng(7)
x = rng.standard_normal((GLOBAL_BATCH, 1, 28, 28)).astype(np.float32)
y = rng.integers(0, 10, GLOBAL_BATCH).astype(np.int32)
ms.set_seed(1234 + rank)           # different initial weights per rank: parameter_broadcast must fix them


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.dense_relu_sequential = nn.SequentialCell(
            nn.Dense(28 * 28, 512), nn.ReLU(), nn.Dense(512, 512), nn.ReLU(), nn.Dense(512, 10))

    def construct(self, x):
        return self.dense_relu_sequential(self.flatten(x))


net = MLP()
loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
opt = nn.Momentum(net.trainable_params(), learning_rate=0.05, momentum=0.9)
if variant == "recipe":
    step = nn.TrainOneStepWithLossScaleCell(nn.WithLossCell(net, loss), opt,
                                            scale_sense=ms.Tensor(1024.0, ms.float32))
else:
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
step.set_train()
initial = {"init." + p.name: p.asnumpy().copy() for p in net.trainable_params()}
if variant == "recipe":
    from pycompile import dataset as ds
    data = ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False, num_shards=size, shard_id=rank)
    xs, ys = next(data.batch(GLOBAL_BATCH // size).create_tuple_iterator())
    assert np.array_equal(xs.asnumpy(), x[rank::size])       # shard k: rows k, k + n, ...
else:
    xs, ys = ms.Tensor(x[rank::size]), ms.Tensor(y[rank::size])
for k in range(steps):
    if k == steps // 2 and rank == fail_rank:
        if kill:
            os.kill(os.getpid(), signal.SIGKILL)
        raise ValueError(f"rank {rank} fails on purpose")
    step(xs, ys)
if fail_rank >= 0:
    time.sleep(120)                # the failing rank must end us long before this
plain = {}
if variant == "recipe":        # then a plain TrainOneStepCell from the same initial weights
    net2 = MLP()
    for p2, p in zip(net2.trainable_params(), net.trainable_params()):
        p2.set_data(ms.Tensor(initial["init." + p.name]))
    step2 = nn.TrainOneStepCell(nn.WithLossCell(net2, loss), nn.Momentum(net2.trainable_params(), 0.05, 0.9))
    for k in range(steps):
        step2(xs, ys)
    plain = {"plain." + p.name: p2.asnumpy() for p, p2 in zip(net.trainable_params(), net2.trainable_params())}
    # and once more compiled without the update_schedule pass: the traced order's updates (every
    # wait before the first update), which the reordered step must equal bit for bit
    from pycompile.compiler import passes
    passes.PIPELINE = [p for p in passes.PIPELINE if p[0] != "update_schedule"]
    net3 = MLP()
    for p3, p in zip(net3.trainable_params(), net.trainable_params()):
        p3.set_data(ms.Tensor(initial["init." + p.name]))
    step3 = nn.TrainOneStepCell(nn.WithLossCell(net3, loss), nn.Momentum(net3.trainable_params(), 0.05, 0.9))
    for k in range(steps):
        step3(xs, ys)
    plain.update({"traced." + p.name: p3.asnumpy() for p, p3 in zip(net.trainable_params(), net3.trainable_params())})
if rank == 0:
    np.savez(out_path, **initial, **{p.name: p.asnumpy() for p in net.trainable_params()}, **plain)
