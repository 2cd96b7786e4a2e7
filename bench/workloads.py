"""Workload definitions (../shared/BENCH.md). Each entry returns cases
(label, compiled_callable, numpy_eager_callable, note); results are checked equal first."""
from __future__ import annotations

import time

import numpy as np

import pycompile as ms
from pycompile import nn, ops


def _check(a, b, rtol=1e-4):
    a = a.asnumpy() if hasattr(a, "asnumpy") else np.asarray(a)
    np.testing.assert_allclose(a, np.asarray(b), rtol=rtol, atol=1e-5)


# ---- W1: elementwise chain in a 200-iteration loop -------------------------------------------------
@ms.jit
def w1(input_x, input_y):
    output = input_x
    for _ in range(200):
        output = input_x + input_x * input_y + output
    return output


def w1_numpy(x, y):
    out = x
    for _ in range(200):
        out = x + x * y + out
    return out


def bench_W1():
    cases = []
    for n in (1, 1000, 1_000_000):
        rng = np.random.default_rng(0)
        x = rng.standard_normal(n).astype(np.float32)
        y = rng.standard_normal(n).astype(np.float32)
        tx, ty = ms.Tensor(x), ms.Tensor(y)
        _check(w1(tx, ty), w1_numpy(x, y), rtol=1e-3)
        cases.append((f"W1 N={n:g}", lambda tx=tx, ty=ty: w1(tx, ty), lambda x=x, y=y: w1_numpy(x, y),
                      "fused loop, one kernel"))
    return cases


def cold_W1():
    t0 = time.perf_counter()
    w1(ms.Tensor([1.0], ms.float32), ms.Tensor([2.0], ms.float32))
    return time.perf_counter() - t0


# ---- W2: the spec's if_net and select_net --------------------------------------------------------
@ms.jit
def if_net(x, y):
    out = 0
    for _ in range(100):
        if x < y:
            x = x - y
        else:
            x = x + y
        out = out + x
    return out


@ms.jit
def select_net(x, y):
    out = x
    for _ in range(100):
        cond = x < y
        x = ops.select(cond, x - y, x + y)
        out = out + x
    return out


def if_numpy(x, y):
    out = 0
    for _ in range(100):
        if x < y:
            x = x - y
        else:
            x = x + y
        out = out + x
    return out


def select_numpy(x, y):
    out = x
    for _ in range(100):
        x = np.where(x < y, x - y, x + y)
        out = out + x
    return out


def bench_W2():
    a, b = np.array([0]), np.array([1])
    ta, tb = ms.Tensor(a), ms.Tensor(b)
    _check(if_net(ta, tb), if_numpy(a, b))
    _check(select_net(ta, tb), select_numpy(a, b))
    return [("W2 if_net", lambda: if_net(ta, tb), lambda: if_numpy(a, b), "native C if in a loop"),
            ("W2 select_net", lambda: select_net(ta, tb), lambda: select_numpy(a, b), "fused select")]


# ---- W4: MLP inference -----------------------------------------------------------------------------
class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.dense_relu_sequential = nn.SequentialCell(
            nn.Dense(28 * 28, 512), nn.ReLU(), nn.Dense(512, 512), nn.ReLU(), nn.Dense(512, 10))

    @ms.jit
    def construct(self, x):
        return self.dense_relu_sequential(self.flatten(x))


def mlp_numpy(weights):
    (w1, b1), (w2, b2), (w3, b3) = weights

    def run(x):
        h = x.reshape(x.shape[0], -1)
        h = np.maximum(h @ w1.T + b1, 0)
        h = np.maximum(h @ w2.T + b2, 0)
        return h @ w3.T + b3
    return run


def bench_W4():
    ms.set_seed(0)
    model = MLP()
    seq = model.dense_relu_sequential
    weights = [(seq[i].weight.asnumpy(), seq[i].bias.asnumpy()) for i in (0, 2, 4)]
    ref = mlp_numpy(weights)
    cases = []
    for b in (64, 1024):
        x = np.random.default_rng(1).standard_normal((b, 1, 28, 28)).astype(np.float32)
        tx = ms.Tensor(x)
        _check(model(tx), ref(x), rtol=1e-3)
        cases.append((f"W4 MLP B={b}", lambda tx=tx: model(tx), lambda x=x: ref(x), "BLAS + fused epilogues"))
    return cases


# ---- W8: per-call overhead ----------------------------------------------------------------------------
@ms.jit
def add_one(x):
    return x + 1


def bench_W8():
    x = np.array([1.0], np.float32)
    tx = ms.Tensor(x)
    _check(add_one(tx), x + 1)
    return [("W8 x + 1 (1 element)", lambda: add_one(tx), lambda: x + 1, "dispatch overhead")]


WORKLOADS = {"W1": bench_W1, "W2": bench_W2, "W4": bench_W4, "W8": bench_W8}
