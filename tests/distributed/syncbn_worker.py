"""One rank of test_mpi.py's SyncBatchNorm test: rank r holds rows r::n of a fixed batch; the
output rows, the input gradient rows and the moving statistics must equal BatchNorm2d's on the
whole batch in one process (computed here by every rank), eager and compiled."""
import sys

import numpy as np

import pycompile as ms
from pycompile import communication as comm
from pycompile import nn

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
