"""One rank of test_mpi.py's SyncBatchNorm test: rank r holds rows r::n of a fixed batch; the
output rows, the input gradient rows and the moving statistics must equal BatchNorm2d's on the
whole batch in one process (computed here by every rank), eager and compiled; then mint.nn.SyncBatchNorm's
(PyTorch-style running statistics, momentum 0.2) against a NumPy reference on the whole batch."""
import sys

import numpy as np

import pycompile as ms
from pycompile import communication as comm
from pycompile import mint, nn

comm.init()
r, n = comm.get_rank(), comm.get_group_size()
if sys.argv[1] == "graph":
    ms.set_context(mode=ms.GRAPH_MODE)
x = np.random.default_rng(3).standard_normal((4 * n, 3, 5, 4)).astype(np.float32) * 2 + 1
w = np.random.default_rng(4).standard_normal((4 * n, 3, 5, 4)).astype(np.float32)


class Loss(nn.Cell):
    def __init__(self, bn):
        super().__init__()
        self.bn = bn

    def construct(self, x, w):
        return (self.bn(x) * w).sum()


def run(bn, xs, ws):
    net = Loss(bn)
    net.set_train()
    y = bn(ms.Tensor(xs)).asnumpy()
    g = ms.grad(net)(ms.Tensor(xs), ms.Tensor(ws)).asnumpy()
    return y, g, bn.moving_mean.asnumpy(), bn.moving_variance.asnumpy()


ref = run(nn.BatchNorm2d(3), x, w)
mine = run(nn.SyncBatchNorm(3), x[r::n], w[r::n])
for k, (a, b) in enumerate(zip(mine, ref)):
    want = b[r::n] if k < 2 else b
    np.testing.assert_allclose(a, want, rtol=1e-4, atol=1e-5, err_msg=f"output {k}")
print(f"rank {r}: syncbn ok")

# mint.nn.SyncBatchNorm: the same rows, against NumPy on the whole batch
bn = mint.nn.SyncBatchNorm(3, momentum=0.2)
assert bn.world_size == n
net = Loss(bn)
net.set_train(True)
xs, ws = x[r::n], w[r::n]
y = bn(ms.Tensor(xs)).asnumpy()
g = ms.grad(net)(ms.Tensor(xs), ms.Tensor(ws)).asnumpy()
# the NumPy reference on the whole batch: BatchNorm's output, input gradient and running statistics
x64, w64 = x.astype(np.float64), w.astype(np.float64)
mean, var = x64.mean((0, 2, 3), keepdims=True), x64.var((0, 2, 3), keepdims=True)
inv = 1 / np.sqrt(var + 1e-5)
xhat = (x64 - mean) * inv
m = x.size // 3
gx = inv / m * (m * w64 - w64.sum((0, 2, 3), keepdims=True) - xhat * (w64 * xhat).sum((0, 2, 3), keepdims=True))
np.testing.assert_allclose(y, xhat[r::n], rtol=1e-4, atol=1e-5)
np.testing.assert_allclose(g, gx[r::n], rtol=1e-4, atol=1e-4)
rm, rv = np.zeros(3), np.ones(3)
for _ in range(2):      # (two training calls: bn, then inside grad)
    rm, rv = 0.8 * rm + 0.2 * mean.reshape(-1), 0.8 * rv + 0.2 * x64.var((0, 2, 3), ddof=1)
np.testing.assert_allclose(bn.running_mean.asnumpy(), rm, rtol=1e-5, atol=1e-6)
np.testing.assert_allclose(bn.running_var.asnumpy(), rv, rtol=1e-5)
print(f"rank {r}: mint syncbn ok")
