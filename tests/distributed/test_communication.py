"""pycompile.communication, the collectives and the data-parallel context in one process (issue 21).

init() outside mpirun is a world of one: every collective is the identity (AllGather / ReduceScatter
of one rank), in PyNative and compiled code; the multi-rank behaviour is tested under mpirun in
test_mpi.py. Expected values are NumPy's.
"""
from __future__ import annotations

import numpy as np
import pytest

import pycompile as ms
from pycompile import communication as comm
from pycompile import nn, ops
from pycompile.nn.wrap.grad_reducer import _buckets


@pytest.fixture
def world():
    comm.init()
    yield
    comm.release()
    ms.reset_auto_parallel_context()


@pytest.fixture(autouse=True)
def _clean():
    comm.release()                    # other modules' tests may have left a world of one
    yield
    comm.release()
    ms.reset_auto_parallel_context()


def test_before_init_the_world_is_not_there():
    assert not comm.GlobalComm.INITED
    # MindSpore 2.10 answers for the world as a world of one before init (conformance cases cov33_tr_comm_*)
    assert (comm.get_rank(), comm.get_group_size(), comm.get_local_rank(), comm.get_local_rank_size()) == (0, 1, 0, 1)
    with pytest.raises(RuntimeError, match="init"):
        comm.get_process_group_ranks()
    with pytest.raises(RuntimeError, match="init"):
        ops.AllReduce()(ms.Tensor(np.ones(3, np.float32)))


def test_init_outside_mpirun_is_a_world_of_one(world):
    assert (comm.get_rank(), comm.get_group_size(), comm.get_local_rank(), comm.get_local_rank_size()) == (0, 1, 0, 1)
    assert comm.GlobalComm.INITED and comm.GlobalComm.WORLD_COMM_GROUP == comm.MCCL_WORLD_COMM_GROUP
    for name in (comm.HCCL_WORLD_COMM_GROUP, comm.NCCL_WORLD_COMM_GROUP, comm.MCCL_WORLD_COMM_GROUP):
        assert comm.get_group_size(name) == 1
    comm.create_group("g", [0])
    assert comm.get_world_rank_from_group_rank("g", 0) == 0
    assert comm.get_group_rank_from_world_rank(0, "g") == 0
    assert comm.get_process_group_ranks("g") == [0]
    comm.init()                                   # a second init() keeps the world
    run = ms.jit(lambda x: ops.AllReduce(group="g")(x))
    np.testing.assert_array_equal(run(ms.Tensor(X)).asnumpy(), X)
    comm.destroy_group("g")
    with pytest.raises(ValueError, match="does not exist"):
        comm.get_group_size("g")
    with pytest.raises(RuntimeError, match="the group .g. does not exist"):   # compiled before: the runtime forgot it
        run(ms.Tensor(X))


def test_argument_errors_are_mindsporess(world):
    with pytest.raises(TypeError, match="'group' must be type of string"):
        comm.get_rank(3)
    with pytest.raises(ValueError, match="does not exist"):
        comm.get_group_size("nope")
    with pytest.raises(TypeError, match="'rank_ids' must be type of list"):
        comm.create_group("g", (0,))
    with pytest.raises(ValueError, match="duplicate"):
        comm.create_group("g", [0, 0])
    with pytest.raises(ValueError, match="out of"):
        comm.get_world_rank_from_group_rank(comm.HCCL_WORLD_COMM_GROUP, 1)
    comm.release()
    with pytest.raises(TypeError, match="backend_name"):
        comm.init(3)
    with pytest.raises(RuntimeError, match="'hccl', 'nccl' and 'mccl'"):
        comm.init("gloo")


# the ops the compiled checks below (and coll_worker.py under mpirun) compile
COMPILED_OPS = {"AllReduce", "AllGather", "ReduceScatter", "Broadcast", "AllReduceStart", "AllReduceWait"}
X = np.arange(12, dtype=np.float32).reshape(4, 3) - 5


def _all(x):
    return (ops.AllReduce()(x), ops.AllReduce(ops.ReduceOp.MAX)(x), ops.AllGather()(x),
            ops.ReduceScatter(ops.ReduceOp.SUM)(x), ops.Broadcast(0)((x,))[0])


@pytest.mark.parametrize("compiled", [False, True])
def test_collectives_of_one_rank_are_the_identity(world, compiled):
    fn = ms.jit(_all) if compiled else _all
    for out in fn(ms.Tensor(X)):
        np.testing.assert_array_equal(out.asnumpy(), X)


def test_collective_gradients(world):
    """AllReduce-sum's gradient is AllReduce-sum of the cotangent; AllGather's is ReduceScatter's:
    with one rank, d/dx sum(f(x) ** 2) = 2 x."""
    def loss(x):
        a = ops.AllReduce()(x)
        b = ops.AllGather()(x)
        c = ops.ReduceScatter()(x)
        return (a * a).sum() + (b * b).sum() + (c * c).sum()
    for g in (ms.grad(loss)(ms.Tensor(X)), ms.jit(ms.grad(loss))(ms.Tensor(X))):
        np.testing.assert_allclose(g.asnumpy(), 6 * X, rtol=1e-6)


def test_collective_attribute_errors(world):
    with pytest.raises(ValueError, match="ReduceOp"):
        ops.AllReduce("mean")
    with pytest.raises(TypeError, match="tuple"):
        ops.Broadcast(0)(ms.Tensor(X))
    with pytest.raises(ValueError, match="root_rank"):
        ops.Broadcast(1)((ms.Tensor(X),))
    with pytest.raises(ValueError, match="does not exist"):
        ops.AllReduce(group="nope")(ms.Tensor(X))


def test_auto_parallel_context():
    assert ms.get_auto_parallel_context("parallel_mode") == ms.ParallelMode.STAND_ALONE
    assert ms.context.ParallelMode.DATA_PARALLEL == "data_parallel"
    ms.context.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True,
                                         device_num=2, parameter_broadcast=True)
    assert ms.get_auto_parallel_context("gradients_mean") is True
    assert ms.get_auto_parallel_context("device_num") == 2
    with pytest.raises(ValueError, match="only support"):
        ms.set_auto_parallel_context(parallel_mode="model_parallel")
    with pytest.raises(ValueError, match="not recognized"):
        ms.set_auto_parallel_context(gradient_mean=True)
    with pytest.raises(TypeError, match="must be bool"):
        ms.set_auto_parallel_context(gradients_mean=1)
    ms.reset_auto_parallel_context()
    assert ms.get_auto_parallel_context("parallel_mode") == "stand_alone"
    assert ms.get_auto_parallel_context("device_num") == 1


def test_device_num_defaults_to_the_world_size_once_initialized(world, monkeypatch):
    """common.auto_parallel reads the world's size through the hook communication.management
    installs (common never imports communication: tests/test_layering.py)."""
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL)
    assert ms.get_auto_parallel_context("device_num") == 1
    monkeypatch.setattr(comm.management, "get_group_size", lambda group=None: 4)
    assert ms.get_auto_parallel_context("device_num") == 4
    comm.release()
    assert ms.get_auto_parallel_context("device_num") == 1


def test_buckets_group_by_dtype_and_size():
    """Buckets are filled from the last Parameter (whose gradient the backward produces first)
    and close once they hold at least the limit; all_reduce_fusion_config splits by index."""
    f32, f16 = ms.float32, ms.float16
    spec = [((4,), f32), ((2, 2), f16), ((8,), f32), ((100,), f32), ((2,), f16)]
    assert _buckets(spec, 64) == [(1, 4), (3,), (0, 2)]
    assert _buckets(spec, 1 << 20) == [(1, 4), (0, 2, 3)]
    assert _buckets(spec, None, (3,)) == [(4,), (3,), (0, 2), (1,)]


@pytest.mark.parametrize("ctx, buckets", [
    # the default: a gradient of >= 256 KB alone (784x512 and 512x512: reduced where the backward
    # wrote them, no copy), the small ones packed up to 1 MB, in the order the backward makes them
    ({}, [(3, 4, 5), (2,), (1,), (0,)]),
    ({"comm_fusion": {"allreduce": {"mode": "size", "config": 32}}}, [(0, 1, 2, 3, 4, 5)]),
    ({"all_reduce_fusion_config": [2, 4]}, [(4, 5), (2, 3), (0, 1)]),
    ({"comm_fusion": {"allreduce": {"mode": "index", "config": [4]}}}, [(4, 5), (0, 1, 2, 3)]),
])
def test_bucket_configuration_from_the_context(world, ctx, buckets):
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, **ctx)
    net = nn.SequentialCell(nn.Dense(784, 512), nn.ReLU(), nn.Dense(512, 512), nn.ReLU(), nn.Dense(512, 10))
    assert nn.DistributedGradReducer(net.trainable_params()).buckets == tuple(buckets)


@pytest.mark.parametrize("ctx", [{"all_reduce_fusion_config": [3, 2]},
                                 {"comm_fusion": {"allreduce": {"mode": "size", "config": 0}}},
                                 {"comm_fusion": {"allreduce": {"mode": "fast"}}}])
def test_bucket_configuration_errors(world, ctx):
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, **ctx)
    with pytest.raises(ValueError, match="all_reduce_fusion_config|comm_fusion"):
        nn.DistributedGradReducer([ms.Parameter(ms.Tensor(np.zeros(3, np.float32)), name="a")])


def test_compiled_step_starts_each_bucket_when_the_backward_produced_it(world, monkeypatch):
    """The first bucket (the last two layers) is started before the first layer's weight gradient
    is computed, and waited for only after it: its reduction overlaps the rest of the backward."""
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True,
                                 all_reduce_fusion_config=[2])
    ms.set_seed(0)
    net = nn.SequentialCell(nn.Dense(20, 16), nn.ReLU(), nn.Dense(16, 16), nn.ReLU(), nn.Dense(16, 4))
    with monkeypatch.context() as m:            # a reducer for two ranks (of one a world reduces nothing)
        m.setattr(comm.management, "get_group_size", lambda group=None: 2)
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1))
    x = ms.Tensor(np.random.default_rng(0).standard_normal((8, 20)).astype(np.float32))
    y = ms.Tensor(np.random.default_rng(1).standard_normal((8, 4)).astype(np.float32))
    report = ms.inspect(step, x, y)
    lines = report.ir_after.splitlines()
    starts = [k for k, line in enumerate(lines) if "AllReduceStart(" in line]
    waits = [k for k, line in enumerate(lines) if "AllReduceWait(" in line]
    # the first layer's weight gradient: dy^T x, the product with the step's input
    dw1 = [k for k, line in enumerate(lines) if "MatMul(" in line and "_inputs0) {transpose_a: True}" in line]
    assert len(starts) == 2 and len(waits) == 2 and len(dw1) == 1
    assert starts[0] < dw1[0] < starts[1] < waits[0] < waits[1]
    # MPI advances a started reduction only inside its calls: the kernels between call the runtime
    c = report.c_source
    first, last = c.index("RT->allreduce_start("), c.rindex("RT->wait(")
    assert c.count("RT->comm_progress()", first, last) >= 3
    step(x, y)                                          # and it runs (a world of one: a copy)


@pytest.mark.parametrize("compiled", [False, True])
def test_data_parallel_train_step_in_a_world_of_one_is_the_plain_step(world, compiled):
    """TrainOneStepCell puts a DistributedGradReducer in DATA_PARALLEL mode; with one rank and
    gradients_mean it changes nothing (float16 and float32 parameters, several per bucket)."""
    if compiled:
        ms.set_context(mode=ms.GRAPH_MODE)
    x = ms.Tensor(np.random.default_rng(0).standard_normal((8, 5)).astype(np.float32))
    y = ms.Tensor(np.random.default_rng(1).standard_normal((8, 3)).astype(np.float32))
    results = []
    for mode in (ms.ParallelMode.STAND_ALONE, ms.ParallelMode.DATA_PARALLEL):
        ms.set_auto_parallel_context(parallel_mode=mode, gradients_mean=True)
        ms.set_seed(3)
        net = nn.SequentialCell(nn.Dense(5, 4), nn.ReLU(), nn.Dense(4, 3))
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1))
        assert isinstance(step.grad_reducer, nn.DistributedGradReducer) == (mode != "stand_alone")
        for _ in range(3):
            step(x, y)
        results.append([p.asnumpy() for p in net.trainable_params()])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    if compiled:     # and it is the plain step: no bucket packed, no all-reduce, no copy (W12's one rank)
        assert "AllReduce" not in ms.inspect(step, x, y).ir_after


def test_grad_reducer_averages_float16_through_float32(world):
    reducer = nn.DistributedGradReducer([ms.Parameter(ms.Tensor(np.zeros(3, np.float16)), name="a"),
                                         ms.Parameter(ms.Tensor(np.zeros((2, 2), np.float32)), name="b")],
                                        mean=True, degree=2)
    ga, gb = reducer((ms.Tensor(np.array([1, 2, 3], np.float16)), ms.Tensor(np.ones((2, 2), np.float32))))
    assert ga.dtype == ms.float16 and gb.dtype == ms.float32
    np.testing.assert_array_equal(ga.asnumpy(), np.array([0.5, 1, 1.5], np.float16))
    np.testing.assert_array_equal(gb.asnumpy(), np.full((2, 2), 0.5, np.float32))
    with pytest.raises(ValueError, match="degree"):
        nn.DistributedGradReducer([], degree=0)


@pytest.mark.parametrize("compiled", [False, True])
def test_init_without_mpi4py_is_a_world_of_one(monkeypatch, compiled):
    """No mpi4py installed: init() still works (a world needs no MPI) and the collectives are the
    identity, the compiled ones through the runtime's MPI-less binding."""
    import sys
    monkeypatch.setitem(sys.modules, "mpi4py", None)       # `from mpi4py import MPI` raises ImportError
    comm.init()
    assert comm.management.world().MPI is None
    assert (comm.get_rank(), comm.get_group_size()) == (0, 1)
    comm.create_group("solo", [0])
    fn = ms.jit(_all) if compiled else _all
    for out in fn(ms.Tensor(X)):
        np.testing.assert_array_equal(out.asnumpy(), X)
    np.testing.assert_array_equal(ops.AllReduce(group="solo")(ms.Tensor(X)).asnumpy(), X)
