"""One rank of test_comm_primitives.py under mpirun: MindSpore's communication Primitives (ops.AlltoAll,
AllGatherV, ReduceScatterV, CollectiveGather, CollectiveScatter, Barrier, Send, Receive, BatchISendIRecv,
NeighborExchange, NeighborExchangeV2, AlltoAllV, AlltoAllVC) against NumPy values built from every
rank's known input (rank r holds X + r); the compiling ones also under ms.jit. Prints OK at the end;
any mismatch raises (the abort hook ends every rank)."""
import numpy as np

import pycompile as ms
from pycompile import ops
from pycompile.communication import get_group_size, get_rank, init

init()
r, n = get_rank(), get_group_size()
eq = np.testing.assert_array_equal
X = np.arange(2 * n * 3 * n, dtype=np.float32).reshape(2 * n, 3 * n) / 4 - 1
xs = [X + k for k in range(n)]


def T(a):
    return ms.Tensor(np.array(a))


def modes(fn, *args):
    """fn's results in PyNative and compiled, as NumPy."""
    outs = []
    for f in (fn, ms.jit(fn)):
        out = f(*args)
        outs.append([o.asnumpy() for o in out] if isinstance(out, tuple) else out.asnumpy())
    return outs


# AlltoAll: block k of rank j's input along split_dim goes to rank k, concatenated along concat_dim
for sd, cd in ((0, 0), (0, 1), (1, 0), (-1, -2)):
    prim = ops.AlltoAll(n, sd, cd)
    blocks = [np.split(a, n, axis=sd)[r] for a in xs]
    want = np.concatenate(blocks, axis=cd)
    for got in modes(lambda t: prim(t), T(xs[r])):
        eq(got, want, err_msg=f"AlltoAll {sd} {cd}")
assert ops.operations.AlltoAll is ops.AlltoAll
assert ops.AlltoAll(n, 0, 0).rank_size == n

# AllGatherV: rank k contributes k + 1 elements (flat), concatenated in rank order
sizes = [k + 1 for k in range(n)]
parts = [np.arange(k + 1, dtype=np.int32) * 10 + k for k in range(n)]
for arg in (sizes, tuple(sizes)):
    for got in modes(lambda t: ops.AllGatherV()(t, arg), T(parts[r])):
        eq(got, np.concatenate(parts))
eq(ops.AllGatherV()(T(parts[r]), T(np.array(sizes))).asnumpy(), np.concatenate(parts))
sizes0 = [0] + [2] * (n - 1)                       # rank 0 sends nothing
mine = np.full(sizes0[r], r, np.float32)
for got in modes(lambda t: ops.AllGatherV()(t, sizes0), T(mine)):
    eq(got, np.concatenate([np.full(s, k, np.float32) for k, s in enumerate(sizes0)]))

# ReduceScatterV: the reduction of every rank's flat input, rank k keeping its part
flat = [np.arange(3 * n, dtype=np.float32) * (k + 1) - 2 * k for k in range(n)]
split = [1] + [2] * (n - 2) + [3 * n - 1 - 2 * (n - 2)]
for op, red in (("sum", sum(flat)), ("max", np.max(flat, 0)), ("min", np.min(flat, 0))):
    start = sum(split[:r])
    for got in modes(lambda t: ops.ReduceScatterV(op)(t, split), T(flat[r])):
        np.testing.assert_allclose(got, red[start:start + split[r]], rtol=1e-6, err_msg=op)
for got in modes(lambda t: ops.ReduceScatterV()(t, [3 * n] + [0] * (n - 1)), T(flat[r])):
    if r == 0:
        np.testing.assert_allclose(got, sum(flat), rtol=1e-6)
    else:               # MindSpore's empty result: a shape-() tensor
        assert got.shape == (), got

# gradients of the sum of every rank's loss (rank q's loss: sum(out * W_q)), as MindSpore's bprops give
# them: AlltoAll's is AlltoAll with split / concat swapped, AllGatherV's ReduceScatterV-sum,
# ReduceScatterV-sum's AllGatherV; in PyNative and compiled
def grads(fn, x):
    return [g(x).asnumpy() for g in (ms.grad(fn), ms.jit(ms.grad(fn)))]


Ws = [np.arange(2 * 3 * n * n, dtype=np.float32).reshape(2, 3 * n * n) * (q + 1) % 7 - 3 for q in range(n)]  # out's shape
for got in grads(lambda t: (ops.AlltoAll(n, 0, 1)(t) * T(Ws[r])).sum(), T(xs[r])):
    eq(got, np.concatenate([np.split(Ws[q], n, axis=1)[r] for q in range(n)], axis=0), err_msg="AlltoAll grad")
off = [sum(sizes[:k]) for k in range(n)]
Wv = [np.arange(sum(sizes), dtype=np.float32) * (q + 2) - q for q in range(n)]
for got in grads(lambda t: (ops.AllGatherV()(t, sizes) * T(Wv[r])).sum(), T(parts[r].astype(np.float32))):
    np.testing.assert_allclose(got, sum(w[off[r]:off[r] + sizes[r]] for w in Wv), err_msg="AllGatherV grad")
Wr = [np.arange(split[q], dtype=np.float32) + 10 * q for q in range(n)]
for got in grads(lambda t: (ops.ReduceScatterV()(t, split) * T(Wr[r])).sum(), T(flat[r])):
    np.testing.assert_allclose(got, np.concatenate(Wr), err_msg="ReduceScatterV grad")

# CollectiveGather: the concatenation on dest_rank, a [1] tensor elsewhere
dest = n - 1
for got in modes(lambda t: ops.CollectiveGather(dest)(t), T(xs[r])):
    if r == dest:
        eq(got, np.concatenate(xs))
    else:
        assert got.shape == (1,) and got.dtype == np.float32, got

# Reduce: the reduction on the group rank dest_rank, a [1] tensor elsewhere
for op, want in (("sum", sum(xs)), ("max", np.maximum.reduce(xs))):
    for got in modes(lambda t: ops.Reduce(dest, op)(t), T(xs[r])):
        if r == dest:
            eq(got, want)
        else:
            assert got.shape == (1,) and got.dtype == np.float32, got

# CollectiveScatter: src_rank's input split along dimension 0
for src in (0, n - 1):
    for got in modes(lambda t: ops.CollectiveScatter(src)(t), T(xs[r])):
        eq(got, np.split(xs[src], n)[r])

# Barrier
out = ops.Barrier()()
assert out.shape == (1,) and out.dtype == ms.float32

# Send / Receive around a ring, tagged
nxt, prv = (r + 1) % n, (r - 1) % n
if r % 2 == 0:
    ops.Send(7, nxt)(T(xs[r]))
    got = ops.Receive(7, prv, list(X.shape), ms.float32)()
else:
    got = ops.Receive(7, prv, list(X.shape), ms.float32)()
    ops.Send(7, nxt)(T(xs[r]))
eq(got.asnumpy(), xs[prv])

# BatchISendIRecv: to the next rank and from the previous one, in one batch
prim = ops.BatchISendIRecv(("isend", "irecv"), (nxt, prv), ([2, 3 * n],), (ms.int64,))
sent = np.arange(6 * n, dtype=np.int64).reshape(2, 3 * n) + 100 * r
fake, recv = prim((T(sent),))
assert fake.shape == () and recv.dtype == ms.int64
eq(recv.asnumpy(), np.arange(6 * n, dtype=np.int64).reshape(2, 3 * n) + 100 * prv)
if n > 2:   # a receive listed before the send
    prim = ops.BatchISendIRecv(["irecv", "isend"], [nxt, prv], [[4]], [ms.float32])
    recv, fake = prim([T(np.full(4, r, np.float32))])
    eq(recv.asnumpy(), np.full(4, nxt, np.float32))

# NeighborExchange: a [3] tensor to the next rank and a [2, 2] one to the previous; received in the
# same order (with 2 ranks both go to the same peer: MPI keeps their order)
ne = ops.NeighborExchange([nxt, prv], [prv, nxt], ([3], [2, 2]), ([3], [2, 2]), ms.float32)
got = ne((T(np.full(3, r, np.float32)), T(np.full((2, 2), 10 + r, np.float32))))
eq(got[0].asnumpy(), np.full(3, prv, np.float32))
eq(got[1].asnumpy(), np.full((2, 2), 10 + nxt, np.float32))

# NeighborExchangeV2: ranks stacked vertically (rank r above rank r + 1), halo of 1 row up / 2 down
img = (np.arange(2 * 3 * 4, dtype=np.float32).reshape(1, 2, 3, 4) + 100 * r)
up = r - 1 if r > 0 else -1
down = r + 1 if r < n - 1 else -1
v2 = ops.NeighborExchangeV2([up, -1, -1, -1, down, -1, -1, -1], [2, 1, 0, 0], [up, -1, -1, -1, down, -1, -1, -1],
                            [1, 2, 0, 0], "NCHW")
got = v2(T(img)).asnumpy()
want = np.zeros((1, 2, 3 + 1 + 2, 4), np.float32)
want[:, :, 1:4] = img
if up != -1:                  # the upper rank's last row
    want[:, :, :1] = (np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4) + 100 * up)[:, :, -1:]
if down != -1:                # the lower rank's first two rows
    want[:, :, 4:] = (np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4) + 100 * down)[:, :, :2]
eq(got, want)
# corners and sides: rank r's right neighbour is the next rank (a ring), halo of one column
v2 = ops.NeighborExchangeV2([-1, -1, nxt, -1, -1, -1, prv, -1], [0, 0, 1, 1], [-1, -1, nxt, -1, -1, -1, prv, -1],
                            [0, 0, 1, 1], "NCHW") if n > 2 else None
if v2 is not None:
    got = v2(T(img)).asnumpy()
    left = np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4) + 100 * prv
    right = np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4) + 100 * nxt
    eq(got, np.concatenate([left[..., -1:], img, right[..., :1]], axis=3))

# AlltoAllV: rank i sends (i + k + 1) elements to rank k, in blocks of block_size
for bs in (1, 2):
    send = [r + k + 1 for k in range(n)]
    recv = [k + r + 1 for k in range(n)]
    src = [np.arange(bs * sum(k + j + 1 for j in range(n)), dtype=np.float32) + 1000 * k for k in range(n)]
    got = ops.AlltoAllV(block_size=bs)(T(src[r]), send, recv).asnumpy()
    want = np.concatenate([src[k][bs * sum(k + j + 1 for j in range(r)):bs * sum(k + j + 1 for j in range(r + 1))]
                           for k in range(n)])
    eq(got, want, err_msg=f"AlltoAllV block_size {bs}")
got = ops.AlltoAllV()(T(np.ones(0, np.float32)), [0] * n, [0] * n)
assert got.shape == ()

# AlltoAllVC: one matrix on every rank; M[i][j] elements from rank i to rank j (and transposed)
M = np.array([[(i * 2 + j) % 3 + 1 for j in range(n)] for i in range(n)], np.int64)
for transpose in (False, True):
    m = M.T if transpose else M
    src = [np.arange(m[k].sum(), dtype=np.int32) + 100 * k for k in range(n)]
    for mat in (M.reshape(-1).tolist(), T(M.reshape(-1))):
        got = ops.AlltoAllVC(transpose=transpose)(T(src[r]), mat).asnumpy()
        eq(got, np.concatenate([src[k][m[k, :r].sum():m[k, :r + 1].sum()] for k in range(n)]))
got = ops.AlltoAllVC(block_size=2)(T(np.arange(2 * M[r].sum(), dtype=np.int32)), M.reshape(-1).tolist()).asnumpy()
eq(got, np.concatenate([np.arange(2 * M[k].sum(), dtype=np.int32)[2 * M[k, :r].sum():2 * M[k, :r + 1].sum()]
                        for k in range(n)]))

# the PyNative-only ones in graph code: the communication functions' error
for name, fn in (("Barrier", lambda t: ops.Barrier()()), ("Send", lambda t: ops.Send(0, nxt)(t)),
                 ("AlltoAllV", lambda t: ops.AlltoAllV()(t, [1] * n, [1] * n))):
    try:
        ms.jit(fn)(T(np.ones(n, np.float32)))
    except RuntimeError as e:
        assert "only PyNative mode is supported" in str(e), (name, e)
    else:
        raise AssertionError(f"{name} ran in graph code")

ops.Barrier()()
print(f"rank {r}/{n} OK", flush=True)
