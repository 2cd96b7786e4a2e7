"""MindSpore 2.10's communication functions (`ops.all_reduce`, `ops.send`, ...,
`ops.communication.*`): every function under mpirun with 2 and 3 ranks against NumPy values
(commfunc_worker.py), a peer that never sends ending in an error after the timeout, and in one
process the world of one and MindSpore's argument errors (messages as the wheel's comm_func.py
raises them)."""
from __future__ import annotations

import pickle
import subprocess
import sys

import numpy as np
import pytest

import pycompile as ms
from pycompile import communication as comm
from pycompile import ops
from pycompile.ops import comm_p2p as P
from pycompile.ops import communication as C

from test_mpi import HERE, _env, _mpiexec

WORKER = f"{HERE}/commfunc_worker.py"


@pytest.fixture(autouse=True)
def _clean():
    comm.release()
    yield
    C.set_comm_ops_inplace(True)
    comm.release()


def _run(n, *args):
    cmd = [_mpiexec(), "-n", str(n), sys.executable, WORKER, *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=240, env=_env())


@pytest.mark.parametrize("n", [2, 3])
def test_every_function_across_ranks(n):
    """With 2 ranks, rank 0 then waits for a message rank 1 never sends: a RuntimeError after
    PYCOMPILE_COMM_TIMEOUT (1 s), not a hang (the program then ends through MPI_Abort)."""
    proc = _run(n, *(["timeout"] if n == 2 else []))
    lines = proc.stdout.replace("OK", "OK\n").split()
    assert sorted(x for x in proc.stdout.replace("OK", "OK\n").splitlines() if x.startswith("rank")) == \
        [f"rank {r}/{n} OK" for r in range(n)], proc.stdout + proc.stderr
    if n == 2:
        assert "TIMEOUT-OK" in lines, proc.stdout + proc.stderr
    else:
        assert proc.returncode == 0, proc.stdout + proc.stderr


def _t(a):
    return ms.Tensor(np.array(a, np.float32))


def test_a_world_of_one():
    C.init_process_group()
    assert C.is_initialized() and C.is_available()
    assert (ops.get_rank(), ops.get_world_size(), ops.get_backend()) == (0, 1, "hccl")
    t = _t([[1, 2], [3, 4]])
    assert ops.all_reduce(t, "max") is None
    np.testing.assert_array_equal(t.asnumpy(), [[1, 2], [3, 4]])
    h = ops.broadcast(t, 0, async_op=True)
    assert isinstance(h, C.CommHandle)
    h.wait()
    out = _t(np.zeros((2, 2)))
    ops.all_gather_into_tensor(out, t)
    np.testing.assert_array_equal(out.asnumpy(), t.asnumpy())
    objs = [None]
    ops.all_gather_object(objs, ("x", 1.5))
    assert objs == [("x", 1.5)]
    assert ops.new_group() == comm.GlobalComm.WORLD_COMM_GROUP
    name = ops.new_group([0], backend="mccl")
    assert name.startswith("mccl_1_") and ops.get_process_group_ranks(name) == [0]
    assert ops.get_rank("nope") == -1 and ops.get_world_size("nope") == -1
    with pytest.raises(ValueError, match="should not be the same as the rank of the current process"):
        ops.send(t, 0)
    C.destroy_process_group()
    assert not C.is_initialized()


def test_argument_errors_are_mindspores():
    C.init_process_group()
    t = _t([1.0])
    with pytest.raises(TypeError, match="For all_reduce, the input tensor must be tensor"):
        ops.all_reduce(np.ones(1))
    with pytest.raises(TypeError, match="the input op value must be one of sum, prod, min, max, avg"):
        ops.all_reduce(t, "mean")
    with pytest.raises(TypeError, match="the input op type must be str"):
        ops.all_reduce(t, 0)
    with pytest.raises(TypeError, match="The argument 'group' must be type of string"):
        ops.all_reduce(t, group=1)
    with pytest.raises(TypeError, match="The argument 'async_op' must be a bool"):
        ops.all_reduce(t, async_op=1)
    with pytest.raises(TypeError, match="For broadcast, the src must be int"):
        ops.broadcast(t, "0")
    with pytest.raises(ValueError, match="must be correct, but got nope"):
        C.set_comm_ops_inplace(True, ["nope"])
    C.set_comm_ops_inplace(False)
    with pytest.raises(ValueError, match="Non-inplace mode is currently not supported."):
        ops.gather_into_tensor(t, t)
    C.set_comm_ops_inplace(True)
    with pytest.raises(TypeError, match="Expected op to be of type isend or irecv"):
        ops.P2POp("send", t, 0)
    with pytest.raises(NotImplementedError, match="tag is not support yet."):
        ops.P2POp("isend", t, 0, tag=1)
    with pytest.raises(TypeError, match="p2p_op_list can not be empty list."):
        ops.batch_isend_irecv([])
    with pytest.raises(TypeError, match="ranks must be list"):
        ops.new_group((0,))


def test_before_init_they_say_so():
    with pytest.raises(RuntimeError, match="not initialized"):
        ops.all_reduce(_t([1.0]))


def test_objects_are_unpickled_with_builtins_only():
    class Evil:
        def __reduce__(self):
            return (print, ("ran",))
    with pytest.raises(pickle.UnpicklingError, match="global 'builtins.print' is forbidden"):
        P._from_bytes(np.frombuffer(pickle.dumps(Evil()), np.uint8))
    with pytest.raises(pickle.UnpicklingError, match="forbidden"):
        P._from_bytes(np.frombuffer(pickle.dumps(np.ones(2)), np.uint8))
    assert P._from_bytes(P._to_bytes({"a": (1, 2.5, None, {3}, b"x")})) == {"a": (1, 2.5, None, {3}, b"x")}


def test_graph_code_is_told_to_use_the_primitives():
    C.init_process_group()

    @ms.jit
    def f(x):
        ops.all_reduce(x)
        return x

    with pytest.raises(RuntimeError, match="only PyNative mode is supported"):
        f(_t([1.0]))


def test_the_functions_are_where_mindspore_has_them():
    assert ops.communication.gather is not ops.gather            # ops.gather stays the tensor op
    for name in C.__all__:
        if name not in ("gather", "scatter", "CommHandle"):
            assert getattr(ops, name) is getattr(C, name), name
