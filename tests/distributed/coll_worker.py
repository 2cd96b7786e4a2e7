"""One rank of test_mpi.py's collective test: every collective, eager and compiled, against the
NumPy value of the ranks' known inputs (rank r holds X + r), on the world and on the group of
the even ranks. Exits nonzero (via the abort hook) on a mismatch."""
import numpy as np

import pycompile as ms
from pycompile import communication as comm
from pycompile import ops

comm.init()
r, n = comm.get_rank(), comm.get_group_size()
X = np.arange(4 * n * 3, dtype=np.float32).reshape(4 * n, 3) / 7 - 2
inputs = [X + k for k in range(n)]
evens = [k for k in range(n) if k % 2 == 0]
comm.create_group("evens", evens)


def expected(group_ranks, root_pos):
    xs = np.stack([inputs[k] for k in group_ranks])
    me = group_ranks.index(r)
    m = len(group_ranks)
    block = X.shape[0] // m
    return [xs.sum(0), xs.max(0), xs.min(0), np.prod(xs, 0), np.concatenate(list(xs)),
            xs.sum(0)[me * block:(me + 1) * block], xs[root_pos]]


def collectives(group):
    root = 1 if group == comm.HCCL_WORLD_COMM_GROUP and n > 1 else 0
    prims = [ops.AllReduce(op, group) for op in (ops.ReduceOp.SUM, ops.ReduceOp.MAX, ops.ReduceOp.MIN,
                                                  ops.ReduceOp.PROD)]
    prims += [ops.AllGather(group), ops.ReduceScatter(ops.ReduceOp.SUM, group)]
    bcast = ops.Broadcast(root, group)

    def run(x):
        return tuple(p(x) for p in prims) + (bcast((x,))[0],)
    return run, root


for group, members in ((comm.HCCL_WORLD_COMM_GROUP, list(range(n))), ("evens", evens)):
    if r not in members:
        continue
    run, root = collectives(group)
    want = expected(members, root)
    x = ms.Tensor(inputs[r])
    for how, fn in (("eager", run), ("compiled", ms.jit(run))):
        for k, (got, w) in enumerate(zip(fn(x), want)):
            np.testing.assert_allclose(got.asnumpy(), w, rtol=1e-5, err_msg=f"{how} {group} output {k}")
# a new specialization on one rank only (a smaller last batch) whose collectives are those the ranks
# agreed on before: no check at its first call (which the others would never join), the same sums
def batch_sum(t):
    return ops.AllReduce()(ops.ones((3,), ms.float32) * t.sum())


step = ms.jit(batch_sum)
for last in (False, True):                  # rank 0's last batch has 2 rows, the others' 4
    got = step(ms.Tensor(np.ones(2 if last and r == 0 else 4, np.float32))).asnumpy()
    np.testing.assert_allclose(got, np.full(3, 4.0 * n - (2 if last else 0)), err_msg=f"uneven batch {last}")
# the runtime's non-blocking all-reduce (pc_api.allreduce_start / wait), called as generated code would
from pycompile._rt import ffi, lib  # noqa: E402

api = lib.pc_get_api()
src = np.ascontiguousarray(inputs[r])
dst = np.zeros_like(src)
req = ffi.new("int64_t *")
assert api.allreduce_start(ffi.from_buffer(src), ffi.from_buffer(dst), src.size, 10, 0, b"hccl_world_group", req) == 0
assert api.wait(req) == 0
np.testing.assert_allclose(dst, np.sum(inputs, 0), rtol=1e-5, err_msg="allreduce_start / wait")
# several in flight, advanced by comm_progress, completed out of order
bufs = [np.ascontiguousarray(inputs[r][:, k]) for k in range(3)]
outs = [np.zeros_like(b) for b in bufs]
reqs = [ffi.new("int64_t *") for _ in bufs]
for b, o, q in zip(bufs, outs, reqs):
    assert api.allreduce_start(ffi.from_buffer(b), ffi.from_buffer(o), b.size, 10, 0, b"hccl_world_group", q) == 0
    assert api.comm_progress() == 0
for k in (2, 0, 1):
    assert api.wait(reqs[k]) == 0 and reqs[k][0] == 0
    np.testing.assert_allclose(outs[k], np.sum(inputs, 0)[:, k], rtol=1e-5, err_msg="in flight")
# the gradient buckets' path (start, progress, wait) is MPI_Allreduce's sum bit for bit: the
# data-parallel step reduces exactly as the blocking reduction did
big = np.random.default_rng(r).standard_normal(300_000).astype(np.float32)
st, wt = ops.operations_comm.AllReduceStart(), ops.operations_comm.AllReduceWait()
blocking = ms.jit(lambda t: ops.AllReduce()(t))(ms.Tensor(big)).asnumpy()
nonblocking = ms.jit(lambda t: wt(st(t), t))(ms.Tensor(big)).asnumpy()
assert np.array_equal(blocking, nonblocking), "non-blocking all-reduce differs from the blocking one"
# in place (source == destination: MPI_IN_PLACE, as the memory planner gives a bucket nothing else
# reads): the same sum bit for bit
inplace = big.copy()
assert api.allreduce_start(ffi.from_buffer(inplace), ffi.from_buffer(inplace), inplace.size, 10, 0,
                           b"hccl_world_group", req) == 0
assert api.comm_progress() == 0 and api.wait(req) == 0
assert np.array_equal(inplace, blocking), "the in-place all-reduce differs from the blocking one"
assert api.allreduce(ffi.from_buffer(src), ffi.from_buffer(dst), src.size, 10, 0, b"no such group") != 0
comm.release()
assert api.allreduce(ffi.from_buffer(src), ffi.from_buffer(dst), src.size, 10, 0, b"hccl_world_group") != 0
print(f"rank {r}: collectives ok")
