"""One rank of test_comm_func.py under mpirun: MindSpore's communication functions
(ops.all_reduce ... ops.communication.*) against NumPy values of the ranks' known inputs (rank r
holds X + r). Prints OK at the end; any mismatch raises (the abort hook ends every rank)."""
import sys

import numpy as np

import pycompile as ms
from pycompile import ops
from pycompile.ops import communication as C

C.init_process_group()
r, n = C.get_rank(), C.get_world_size()
X = np.arange(2 * n * 3, dtype=np.float32).reshape(2 * n, 3) / 4 - 1
xs = [X + k for k in range(n)]
eq = np.testing.assert_allclose


def T(a):
    return ms.Tensor(np.array(a))


# all_reduce in place, every reduction, and the (tensor, handle) form
for op, want in (("sum", sum(xs)), ("max", xs[-1]), ("min", xs[0]), ("prod", np.prod(np.stack(xs), 0)),
                 ("avg", sum(xs) / n)):
    t = T(xs[r])
    assert ops.all_reduce(t, op) is None
    eq(t.asnumpy(), want, rtol=1e-6, err_msg=op)
t = T(xs[r])
h = ops.all_reduce(t, async_op=True)
h.wait()
eq(t.asnumpy(), sum(xs), rtol=1e-6)
C.set_comm_ops_inplace(False, ["all_reduce"])
t = T(xs[r])
out, h = ops.all_reduce(t)
assert h is None
eq(out.asnumpy(), sum(xs), rtol=1e-6)
eq(t.asnumpy(), xs[r])                                   # not in place
C.set_comm_ops_inplace(True)

# gathers and scatters
out = T(np.zeros((2 * n * n, 3), np.float32))
ops.all_gather_into_tensor(out, T(xs[r]))
eq(out.asnumpy(), np.concatenate(xs))
lst = [T(np.zeros_like(X)) for _ in range(n)]
ops.all_gather(lst, T(xs[r]))
for k in range(n):
    eq(lst[k].asnumpy(), xs[k])
out = T(np.zeros((2, 3), np.float32))
ops.reduce_scatter_tensor(out, T(xs[r]))
eq(out.asnumpy(), sum(xs)[2 * r:2 * r + 2])
out = T(np.zeros_like(X))
ops.reduce_scatter(out, [T(xs[r] * (k + 1)) for k in range(n)])
eq(out.asnumpy(), sum(xs) * (r + 1), rtol=1e-6)
t = T(xs[r])
ops.reduce(t, n - 1)
eq(t.asnumpy(), sum(xs) if r == n - 1 else xs[r], rtol=1e-6)
t = T(xs[r])
ops.broadcast(t, n - 1)
eq(t.asnumpy(), xs[n - 1])
ops.barrier()
out = T(np.zeros((2 * n * n, 3), np.float32))
ops.gather_into_tensor(out, T(xs[r]), dst=0)
eq(out.asnumpy(), np.concatenate(xs) if r == 0 else 0)
glist = [T(np.zeros_like(X)) for _ in range(n)]
C.gather(T(xs[r]), glist, dst=1 % n)
for k in range(n):
    eq(glist[k].asnumpy(), xs[k] if r == 1 % n else 0)
out = T(np.zeros((2, 3), np.float32))
ops.scatter_tensor(out, T(X * 10 if r == 0 else np.zeros(1, np.float32)), src=0)
eq(out.asnumpy(), (X * 10)[2 * r:2 * r + 2])
t = T(np.zeros(3, np.float32))
C.scatter(t, [T(np.full(3, 7.0 + k, np.float32)) for k in range(n)] if r == 0 else None, src=0)
eq(t.asnumpy(), np.full(3, 7.0 + r))

# all-to-all: rank r sends k + 1 rows of value 100 r + k to rank k
send_rows = [k + 1 for k in range(n)]
inp = np.concatenate([np.full((k + 1, 2), 100 * r + k, np.float32) for k in range(n)])
recv_rows = [r + 1] * n
out = T(np.zeros((sum(recv_rows), 2), np.float32))
ops.all_to_all_single(out, T(inp), recv_rows, send_rows)
eq(out.asnumpy(), np.concatenate([np.full((r + 1, 2), 100 * k + r, np.float32) for k in range(n)]))
outs = [T(np.zeros(k + 2, np.int32)) for k in range(n)]
ops.all_to_all(outs, [T(np.full(r + 2, 10 * r + k, np.int32)) for k in range(n)])
for k in range(n):
    eq(outs[k].asnumpy(), np.full(k + 2, 10 * k + r))
out = T(np.zeros((sum(k + 1 for k in range(n)), 3), np.float32))
ops.all_gather_into_tensor_uneven(out, T(np.full((r + 1, 3), r, np.float32)), [k + 1 for k in range(n)])
eq(out.asnumpy(), np.concatenate([np.full((k + 1, 3), k, np.float32) for k in range(n)]))
sizes = [k + 1 for k in range(n)]
full = np.arange(sum(sizes) * 2, dtype=np.float32).reshape(-1, 2)
out = T(np.zeros((r + 1, 2), np.float32))
ops.reduce_scatter_tensor_uneven(out, T(full + r), sizes)
eq(out.asnumpy(), (n * full + sum(range(n)))[sum(sizes[:r]):sum(sizes[:r + 1])])

# point to point: a ring (isend / irecv), a blocking exchange, a batch
right, left = (r + 1) % n, (r - 1) % n
got = T(np.zeros(4, np.float64))
hs = ops.isend(T(np.full(4, r, np.float64)), right)
hr = ops.irecv(got, left)
hr.wait()
hs.wait()
eq(got.asnumpy(), np.full(4, left))
if r == 0:
    ops.send(T(np.arange(5, dtype=np.int64)), 1)
elif r == 1:
    t = T(np.zeros(5, np.int64))
    assert ops.recv(t, 0) == 0
    eq(t.asnumpy(), np.arange(5))
got = T(np.zeros((2, 2), np.float32))
[h] = ops.batch_isend_irecv([ops.P2POp("isend", T(np.full((2, 2), r, np.float32)), right),
                             ops.P2POp(ops.irecv, got, left)])
h.wait()
eq(got.asnumpy(), np.full((2, 2), left))

# objects
objs = [None] * n
ops.all_gather_object(objs, {"rank": r, "name": f"r{r}"})
assert objs == [{"rank": k, "name": f"r{k}"} for k in range(n)], objs
lst = [None, None] if r else [("a", 1), {2, 3}]
ops.broadcast_object_list(lst, src=0)
assert lst == [("a", 1), {2, 3}], lst
got = [None] * n
ops.gather_object([r] * r, got if r == 0 else None, dst=0)
assert r != 0 or got == [[k] * k for k in range(n)], got
mine = [None]
ops.scatter_object_list(mine, [f"to {k}" for k in range(n)] if r == n - 1 else None, src=n - 1)
assert mine == [f"to {r}"], mine
if r == 0:
    ops.send_object_list([1.5, "x", None], 1)
elif r == 1:
    lst = [0, 0, 0]
    ops.recv_object_list(lst, 0)
    assert lst == [1.5, "x", None], lst

# groups
g = ops.new_group([0, 1])
assert g == ops.new_group([1, 0])
assert ops.get_rank(g) == (r if r < 2 else -1)
assert ops.get_process_group_ranks(g) == [0, 1]
assert ops.get_global_rank(g, 1) == 1 and ops.get_group_rank(g, 1) == 1
if r < 2:
    t = T(np.full(2, r + 1.0, np.float32))
    ops.all_reduce(t, group=g)
    eq(t.asnumpy(), [3.0, 3.0])

ops.barrier()
print(f"rank {r}/{n} OK", flush=True)

# a peer that never sends: a RuntimeError after the timeout, not a hang (the knob is read per call)
if len(sys.argv) > 1 and sys.argv[1] == "timeout":
    import os
    os.environ["PYCOMPILE_COMM_TIMEOUT"] = "1"
    if r == 0:
        try:
            ops.recv(T(np.zeros(1, np.float32)), 1, tag=9)
        except RuntimeError as e:
            assert "did not complete within PYCOMPILE_COMM_TIMEOUT" in str(e), e
            print("TIMEOUT-OK", flush=True)
            sys.exit(0)                       # exits through MPI_Abort: a request is still pending
        raise AssertionError("no timeout")
    sys.exit(0)
