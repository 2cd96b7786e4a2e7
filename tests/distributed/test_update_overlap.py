"""The optimizer's update of each bucket's Parameters right after that bucket's wait (issue 37
item 3; compiler/passes/update_schedule.py), in one process with a reducer built for two ranks
(a world of one: the all-reduce is a copy), and each bucket reduced in place (MPI_IN_PLACE). Under mpirun at 2 ranks: test_mpi.py's recipe test
(the same weights as one process within 1e-5, and bit for bit as the traced order)."""
from __future__ import annotations

import re

import numpy as np
import pytest

import pycompile as ms
from pycompile import communication as comm
from pycompile import nn
from pycompile.compiler import passes


@pytest.fixture(autouse=True)
def _world():
    comm.release()
    comm.init()
    yield
    comm.release()
    ms.reset_auto_parallel_context()


def _step(monkeypatch, make_opt):
    ms.set_context(mode=ms.GRAPH_MODE)
    # three buckets: Parameters [4, 6) (the last layer: the backward's first gradients), [2, 4), [0, 2)
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True,
                                 all_reduce_fusion_config=[2, 4])
    ms.set_seed(0)
    net = nn.SequentialCell(nn.Dense(20, 16), nn.ReLU(), nn.Dense(16, 16), nn.ReLU(), nn.Dense(16, 4))
    with monkeypatch.context() as m:            # a reducer for two ranks (of one a world reduces nothing)
        m.setattr(comm.management, "get_group_size", lambda group=None: 2)
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), make_opt(net.trainable_params()))
    return net, step


X = np.random.default_rng(0).standard_normal((8, 20)).astype(np.float32)
Y = np.random.default_rng(1).standard_normal((8, 4)).astype(np.float32)
OPTIMIZERS = {"momentum": lambda p: nn.Momentum(p, 0.1, 0.9),
              "adam": lambda p: nn.Adam(p, 0.01, weight_decay=0.01)}


def _lines(report, op):
    return [k for k, line in enumerate(report.ir_after.splitlines()) if f"{op}(" in line]


def _assign(report, name):
    return next(k for k, line in enumerate(report.ir_after.splitlines())
                if line.lstrip().split(" = ")[-1].startswith(f"Assign(%para") and f"_{name}," in line)


def test_each_bucket_is_updated_while_the_later_buckets_are_reduced(monkeypatch):
    """The last layer's bucket is waited for first and its Parameters updated before the next
    wait; the first layer's weight (the last bucket, which the backward produces last) after the
    last wait, with the step counter: the last reduction runs during the other updates."""
    _, step = _step(monkeypatch, OPTIMIZERS["momentum"])
    report = ms.inspect(step, ms.Tensor(X), ms.Tensor(Y))
    waits = _lines(report, "AllReduceWait")
    assert len(waits) == 3
    assert waits[0] < _assign(report, "4_weight") < _assign(report, "4_bias") < waits[1]
    assert waits[1] < _assign(report, "2_weight") < waits[2] < _assign(report, "0_weight")
    assert waits[2] < _assign(report, "global_step")
    # the update kernels between the first and the last wait call MPI's progress
    c = report.c_source
    first, last = c.index("RT->wait("), c.rindex("RT->wait(")
    assert c.count("RT->comm_progress()", first, last) >= 2
    # each bucket (a temporary nothing else reads) is reduced in place: MPI_IN_PLACE, no copy
    calls = re.findall(r"RT->allreduce_start\((v\d+), (v\d+),", c)
    assert len(calls) == 3
    for src, dst in calls:
        assert re.search(rf"\*const {dst} = \(\(float \*\){src}\);", c), (src, dst)


@pytest.mark.parametrize("opt", sorted(OPTIMIZERS))
def test_the_reordered_step_is_the_traced_order_bit_for_bit(monkeypatch, opt):
    """Each Parameter sees the same operations in the same order: the weights after 3 steps equal
    those of the pipeline without the pass, bit for bit (and they differ in order, not in value)."""
    x, y = ms.Tensor(X), ms.Tensor(Y)
    results, orders = [], []
    for pipeline in (passes.PIPELINE, [p for p in passes.PIPELINE if p[0] != "update_schedule"]):
        with monkeypatch.context() as m:
            m.setattr(passes, "PIPELINE", pipeline)
            net, step = _step(monkeypatch, OPTIMIZERS[opt])
            initial = [p.asnumpy().copy() for p in net.trainable_params()]
            report = ms.inspect(step, x, y)
            for _ in range(3):
                step(x, y)
        orders.append(report.ir_after)
        results.append([p.asnumpy() for p in net.trainable_params()])
    assert orders[0] != orders[1]
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)
    assert all(np.abs(a - b).max() > 1e-4 for a, b in zip(results[0], initial))    # (they trained)
