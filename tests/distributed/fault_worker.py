"""One rank of test_faults.py's fault matrix (issue 31): two ranks that do not run the same
collectives. argv: CASE, one of
  shape_compiled   a compiled AllReduce of (4,) on rank 0 and (6,) on rank 1
  dtype_compiled   a compiled AllReduce of float32 on rank 0 and int32 on rank 1
  shape_pynative   the same as shape_compiled in PyNative
  dtype_pynative   the same as dtype_compiled in PyNative
  networks         DATA_PARALLEL TrainOneStepCell, compiled, on networks whose gradients are 5,380
                   floats on rank 0 and 7,428 on rank 1 (Dense(16 | 24, 256), Dense(256, 4))
  extra_compiled   rank 0 calls a compiled all-reduce once more; rank 1 has exited normally
  extra_pynative   the same in PyNative
  stopped          rank 1 stops (SIGSTOP) where rank 0 all-reduces: a hung rank (PYCOMPILE_COMM_TIMEOUT)
  killed           rank 1 is killed (SIGKILL) where rank 0 all-reduces
argv[2]: a directory where rank R writes rankR.txt: "result ..." when the faulty call returns,
"error: ..." when it raises (then it exits with 3); a result on any rank, or a hang, is the
failure the test looks for.
Steps are compiled, and the ranks meet at an mpi4py barrier, before the faulty call, so a short
PYCOMPILE_COMM_TIMEOUT never counts one rank's compile time.
"""
import os
import signal
import sys

import numpy as np
from mpi4py import MPI

import pycompile as ms
from pycompile import communication as comm
from pycompile import nn, ops

case, out_dir = sys.argv[1], sys.argv[2]
if case.endswith("compiled") or case in ("networks", "stopped", "killed"):
    ms.set_context(mode=ms.GRAPH_MODE)
comm.init()
rank = comm.get_rank()


def all_reduce(t):
    return ops.AllReduce()(t)


def step_and_input():
    """(the call to make, its arguments), compiled first where the case is compiled."""
    if case == "networks":
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
        features = 16 if rank == 0 else 24
        net = nn.SequentialCell(nn.Dense(features, 256), nn.ReLU(), nn.Dense(256, 4))
        opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
        step.set_train()
        args = (ms.Tensor(np.ones((8, features), np.float32)), ms.Tensor(np.zeros((8, 4), np.float32)))
        return step, args
    n = 6 if case.startswith("shape") and rank == 1 else 4
    dtype = np.int32 if case.startswith("dtype") and rank == 1 else np.float32
    x = ms.Tensor(np.ones(n, dtype))
    if case.endswith("pynative"):
        return all_reduce, (x,)
    f = ms.jit(all_reduce)
    f.compiled(x)
    return f, (x,)


def report(text):
    with open(os.path.join(out_dir, f"rank{rank}.txt"), "a") as f:
        f.write(text + "\n")


fn, args = step_and_input()
MPI.COMM_WORLD.Barrier()
try:
    if case.startswith("extra") or case in ("stopped", "killed"):
        report(f"first call {fn(*args)}")
        if rank == 1:
            if case == "stopped":
                os.kill(os.getpid(), signal.SIGSTOP)
            if case == "killed":
                os.kill(os.getpid(), signal.SIGKILL)
            sys.exit(0)                 # extra_*: rank 1 is done, and exits normally
    out = fn(*args)
    report(f"result {out}")
except RuntimeError as e:
    report(f"error: {e}")
    sys.exit(3)
