"""MindSpore 2.10's communication Primitives beyond AllReduce / AllGather / ReduceScatter / Broadcast
(ops.AlltoAll, AllGatherV, ReduceScatterV, CollectiveGather, Reduce, CollectiveScatter, Barrier, Send,
Receive, BatchISendIRecv, NeighborExchange, NeighborExchangeV2, AlltoAllV, AlltoAllVC): every one
under mpirun with 2 and 3 ranks against NumPy values on every rank (commprim_worker.py; the
compiling ones also under ms.jit), and in one process their argument errors (the classes the
wheel's constructors and infers raise: tests/conformance/cases_commprim.py records them), the
world-of-one behaviour and the graph-code error of the PyNative-only ones."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import pycompile as ms
from pycompile import communication as comm
from pycompile import ops

from test_mpi import HERE, _env, _mpiexec

WORKER = f"{HERE}/commprim_worker.py"
NAMES = ("AlltoAll", "AllGatherV", "ReduceScatterV", "CollectiveGather", "Reduce", "CollectiveScatter", "Barrier",
         "Send", "Receive", "BatchISendIRecv", "NeighborExchange", "NeighborExchangeV2", "AlltoAllV", "AlltoAllVC")


@pytest.fixture(autouse=True)
def _clean():
    comm.release()
    yield
    comm.release()


@pytest.mark.parametrize("n", [2, 3])
def test_every_primitive_across_ranks(n):
    cmd = [_mpiexec(), "-n", str(n), sys.executable, WORKER]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=240, env=_env())
    lines = proc.stdout.replace("OK", "OK\n").splitlines()        # the ranks' lines may interleave
    assert sorted(x.strip() for x in lines if x.strip().startswith("rank")) == \
        [f"rank {r}/{n} OK" for r in range(n)], proc.stdout + proc.stderr
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_they_are_where_mindspore_has_them():
    for name in NAMES:
        assert getattr(ops, name) is getattr(ops.operations, name), name
        assert issubclass(getattr(ops, name), ops.Primitive), name


def _t(a):
    return ms.Tensor(np.array(a, np.float32))


def test_constructor_errors():
    """Before init(), as in MindSpore, a group has one rank."""
    for bad in ((2.0, 0, 0), (True, 0, 0), (1, 0.5, 0), (1, 0, "a")):
        with pytest.raises(TypeError):
            ops.AlltoAll(*bad)
    for prim in (ops.AlltoAll, ops.AllGatherV, ops.ReduceScatterV, ops.CollectiveGather, ops.Reduce,
                 ops.CollectiveScatter):
        with pytest.raises(TypeError, match="the type of 'group' should be 'str'"):
            prim(*((1, 0, 0) if prim is ops.AlltoAll else (0,) if prim in (ops.CollectiveGather, ops.Reduce) else ()),
                 group=1)
    with pytest.raises(TypeError, match="should be 'str', but got type 'NoneType'"):
        ops.AllGatherV(group=None)
    for prim in (ops.ReduceScatterV, ops.Reduce):
        with pytest.raises(TypeError, match="the type of 'op' should be 'str'"):
            prim(*(() if prim is ops.ReduceScatterV else (0,)), op=1)
    with pytest.raises(ValueError, match=r"'rank_id in send_rank_ids' must be in range of \[0, 1\), but got 5"):
        ops.NeighborExchangeV2([5] + [-1] * 7, [0] * 4, [-1] * 8, [0] * 4, "NCHW")
    with pytest.raises(ValueError, match="'rank_id in recv_rank_ids'"):
        ops.NeighborExchangeV2([-1] * 8, [0] * 4, [-2] + [-1] * 7, [0] * 4, "NCHW")
    with pytest.raises(TypeError, match="For 'get_group_size'"):
        ops.NeighborExchangeV2([-1] * 8, [0] * 4, [-1] * 8, [0] * 4, "NCHW", group=1)
    for dtype in (ms.bool_, ms.complex64):
        with pytest.raises(TypeError, match="For 'Receive', the type of 'dtype' must be in"):
            ops.Receive(0, 1, [2], dtype)
    with pytest.raises(TypeError, match="'op_types' should be one of"):
        ops.BatchISendIRecv("isend", (1,))
    with pytest.raises(TypeError, match="'remote_ranks' should be one of"):
        ops.BatchISendIRecv(("isend",), 1)
    with pytest.raises(TypeError, match="'receive_dtypes' should be one of"):
        ops.BatchISendIRecv(("irecv",), (1,), [2], ms.float32)
    with pytest.raises(ValueError, match="length of op_types and remote_ranks must be the same"):
        ops.BatchISendIRecv(("isend", "irecv"), (1,))
    with pytest.raises(ValueError, match="length of receive_shapes and receive_dtypes"):
        ops.BatchISendIRecv(("irecv",), (1,), ([2],), ())
    for prim in (ops.AlltoAllV, ops.AlltoAllVC):
        for bs in (1.5, True, "a"):
            with pytest.raises(TypeError, match="the type of 'block_size' should be 'int'"):
                prim(block_size=bs)
        with pytest.raises(TypeError, match="For 'get_group_size'"):
            prim(group=1)
    # what the wheel's constructors accept
    ops.ReduceScatterV(op="prod"), ops.Barrier(group="g"), ops.Send("a", "b"), ops.AlltoAllVC(transpose=1)
    ops.NeighborExchangeV2([-1] * 8, [0] * 4, [-1] * 8, [0] * 4, "NHWC")
    p = ops.Send(3, 1, group="g")
    assert (p.sr_tag, p.rank, p.group) == (3, 1, "g")
    assert ops.AlltoAll(1, 0, 0).rank_size == 1 and ops.AlltoAllV(group=None).group == "hccl_world_group"


def test_infer_errors():
    """AlltoAll checks split_count against the group size and its dims before it communicates."""
    x = _t([1.0, 2.0])
    with pytest.raises(ValueError, match="'split_count' must be equal to 'rank_size'"):
        ops.AlltoAll(2, 0, 0)(x)
    with pytest.raises(IndexError, match="Invalid split dim 5"):
        ops.AlltoAll(1, 5, 0)(x)
    with pytest.raises(IndexError, match="Invalid concat dim 3"):
        ops.AlltoAll(1, 0, 3)(x)
    with pytest.raises(RuntimeError, match="not initialized"):        # the rest needs init()
        ops.AlltoAll(1, 0, 0)(x)
    with pytest.raises(RuntimeError, match="not initialized"):
        ops.Barrier()()


def test_a_world_of_one_and_call_errors():
    comm.init()
    x = _t([[1, 2], [3, 4]])
    np.testing.assert_array_equal(ops.AlltoAll(1, 1, 0)(x).asnumpy(), x.asnumpy())
    np.testing.assert_array_equal(ops.AllGatherV()(_t([1, 2, 3]), [3]).asnumpy(), [1, 2, 3])
    np.testing.assert_array_equal(ops.ReduceScatterV("max")(_t([1, 2, 3]), [3]).asnumpy(), [1, 2, 3])
    np.testing.assert_array_equal(ops.CollectiveGather(0)(x).asnumpy(), x.asnumpy())
    np.testing.assert_array_equal(ops.Reduce(0, "prod")(x).asnumpy(), x.asnumpy())
    with pytest.raises(ValueError, match="'dest_rank' 1 must be a rank of the group"):
        ops.Reduce(1)(x)
    np.testing.assert_array_equal(ops.CollectiveScatter(0)(x).asnumpy(), x.asnumpy())
    np.testing.assert_array_equal(ops.AlltoAllV()(_t([1, 2]), [2], [2]).asnumpy(), [1, 2])
    np.testing.assert_array_equal(ops.AlltoAllVC(block_size=2)(_t([1, 2, 3]), [1]).asnumpy(), [1, 2])
    assert ops.AllGatherV()(_t([]), [0]).shape == ()
    assert ops.Barrier()().shape == (1,)
    with pytest.raises(ValueError, match="PROD is not supported"):
        ops.ReduceScatterV("prod")(_t([1]), [1])
    with pytest.raises(ValueError, match="one-dimensional"):
        ops.AllGatherV()(x, [2])
    with pytest.raises(ValueError, match="this rank's"):
        ops.AllGatherV()(_t([1, 2]), [3])
    with pytest.raises(ValueError, match="must sum to the input's length"):
        ops.ReduceScatterV()(_t([1, 2]), [3])
    with pytest.raises(ValueError, match="not a member"):
        ops.CollectiveGather(4)(x)
    with pytest.raises(ValueError, match="does not match what the ranks send"):
        ops.AlltoAllV()(_t([1, 2]), [2], [1])
    with pytest.raises(ValueError, match="should not be the same as the rank of the current process"):
        ops.Send(0, 0)(x)
    with pytest.raises(RuntimeError, match="number of input tensors"):
        ops.BatchISendIRecv(("isend",), (0,))(())
    with pytest.raises(ValueError, match="'isend' or 'irecv'"):
        ops.BatchISendIRecv(("bad",), (0,))(())
    with pytest.raises(ValueError, match="'data_format' must be 'NCHW'"):
        ops.NeighborExchangeV2([-1] * 8, [0] * 4, [-1] * 8, [0] * 4, "NHWC")(_t(np.ones((1, 1, 2, 2))))
    with pytest.raises(ValueError, match="repeated values"):
        ops.NeighborExchangeV2([0, 0] + [-1] * 6, [0] * 4, [-1] * 8, [0] * 4, "NCHW")(_t(np.ones((1, 1, 2, 2))))
    # no neighbours: the input, grown by recv_lens with zeros
    out = ops.NeighborExchangeV2([-1] * 8, [0] * 4, [-1] * 8, [1, 0, 0, 1], "NCHW")(_t(np.ones((1, 1, 2, 2))))
    np.testing.assert_array_equal(out.asnumpy()[0, 0], [[0, 0, 0], [1, 1, 0], [1, 1, 0]])


def test_graph_code():
    """The compiling ones run under jit; the others raise the communication functions' error."""
    comm.init()
    x = _t([[1, 2], [3, 4]])
    np.testing.assert_array_equal(ms.jit(lambda t: ops.AlltoAll(1, 0, 1)(t))(x).asnumpy(), x.asnumpy())
    np.testing.assert_array_equal(ms.jit(lambda t: ops.CollectiveScatter(0)(t))(x).asnumpy(), x.asnumpy())
    for fn in (lambda t: ops.Barrier()(), lambda t: ops.Send(0, 0)(t), lambda t: ops.Receive(0, 0, [2], ms.float32)(),
               lambda t: ops.AlltoAllVC()(t.reshape(-1), [4]),
               lambda t: ops.NeighborExchange([], [], (), (), ms.float32)((t,)),
               lambda t: ops.BatchISendIRecv(("isend",), (0,))((t,))):
        with pytest.raises(RuntimeError, match="only PyNative mode is supported"):
            ms.jit(fn)(x)
