"""W5: the W4 MLP's training gradients - softmax cross-entropy over integer labels, the gradients
of every weight, batch 64 (../shared/BENCH.md). Here without the optimizer update.

Implementations timed side by side: pycompile compiled (`ms.jit` of `ms.value_and_grad`) against
a hand-written NumPy backward (the baseline column), PyNative (the same value_and_grad eagerly),
and where installed JAX (`jax.jit(jax.value_and_grad(loss))`) and torch (eager, and
`torch.compile` of the forward with its backward). All compute the same loss and gradients,
checked equal before timing.
"""
from __future__ import annotations

import numpy as np

import pycompile as ms
from pycompile import nn, ops

B = 64


class MLPLoss(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.layers = nn.SequentialCell(nn.Dense(784, 512), nn.ReLU(), nn.Dense(512, 512), nn.ReLU(), nn.Dense(512, 10))
        self.loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")

    def construct(self, x, y):
        return self.loss(self.layers(self.flatten(x)), y)


def _weights(net):
    return [(net.layers[i].weight.asnumpy(), net.layers[i].bias.asnumpy()) for i in (0, 2, 4)]


def numpy_value_and_grad(weights):
    (w1, b1), (w2, b2), (w3, b3) = weights

    def run(x, y):
        n = x.shape[0]
        h0 = x.reshape(n, -1)
        a1 = h0 @ w1.T + b1
        h1 = np.maximum(a1, 0)
        a2 = h1 @ w2.T + b2
        h2 = np.maximum(a2, 0)
        z = h2 @ w3.T + b3
        z = z - z.max(-1, keepdims=True)
        e = np.exp(z)
        p = e / e.sum(-1, keepdims=True)
        loss = -np.log(p[np.arange(n), y]).mean()
        dz = p
        dz[np.arange(n), y] -= 1
        dz /= n
        g3, gb3 = dz.T @ h2, dz.sum(0)
        d2 = (dz @ w3) * (a2 > 0)
        g2, gb2 = d2.T @ h1, d2.sum(0)
        d1 = (d2 @ w2) * (a1 > 0)
        g1, gb1 = d1.T @ h0, d1.sum(0)
        return loss, (g1, gb1, g2, gb2, g3, gb3)
    return run


def jax_peer(weights, x, y, check):
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None

    def loss(params, x, y):
        (w1, b1), (w2, b2), (w3, b3) = params
        h = x.reshape(x.shape[0], -1)
        h = jnp.maximum(h @ w1.T + b1, 0)
        h = jnp.maximum(h @ w2.T + b2, 0)
        z = h @ w3.T + b3
        return -jnp.mean(jax.nn.log_softmax(z)[jnp.arange(x.shape[0]), y])

    f = jax.jit(jax.value_and_grad(loss))
    params = [(jnp.asarray(w), jnp.asarray(b)) for w, b in weights]
    xj, yj = jnp.asarray(x), jnp.asarray(y)
    value, grads = f(params, xj, yj)
    check(float(value), [np.asarray(g) for wb in grads for g in wb])
    return lambda: jax.block_until_ready(f(params, xj, yj))


def torch_peers(weights, x, y, check):
    try:
        import torch
    except ImportError:
        return {}
    torch.set_num_threads(2)
    params = [torch.tensor(a, requires_grad=True) for wb in weights for a in wb]
    xt, yt = torch.tensor(x), torch.tensor(y, dtype=torch.int64)

    def loss_fn(x):
        w1, b1, w2, b2, w3, b3 = params
        h = x.reshape(x.shape[0], -1)
        h = torch.relu(h @ w1.T + b1)
        h = torch.relu(h @ w2.T + b2)
        return torch.nn.functional.cross_entropy(h @ w3.T + b3, yt)

    def step(fn):
        def run():
            loss = fn(xt)
            grads = torch.autograd.grad(loss, params)
            return loss, grads
        return run

    eager = step(loss_fn)
    value, grads = eager()
    check(float(value), [g.numpy() for g in grads])
    out = {"torch eager": eager}
    try:
        compiled = step(torch.compile(loss_fn))
        value, grads = compiled()
        check(float(value), [g.numpy() for g in grads])
        out["torch.compile"] = compiled
    except Exception as e:      # noqa: BLE001  (a peer that does not build here is reported, not fatal)
        print(f"# torch.compile unavailable: {type(e).__name__}: {str(e).splitlines()[0][:120]}")
    return out


def bench_W5():
    ms.set_seed(0)
    net = MLPLoss()
    weights = _weights(net)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((B, 1, 28, 28)).astype(np.float32)
    y = rng.integers(0, 10, B).astype(np.int32)
    tx, ty = ms.Tensor(x), ms.Tensor(y)
    params = net.trainable_params()
    grad_fn = ms.value_and_grad(net, None, params)
    compiled = ms.jit(grad_fn)
    ref = numpy_value_and_grad(weights)
    want_loss, want = ref(x, y)

    def check(loss, grads):
        np.testing.assert_allclose(loss, want_loss, rtol=1e-4)
        for g, w in zip(grads, want):
            np.testing.assert_allclose(np.asarray(g), w, rtol=2e-3, atol=2e-5)

    for fn in (compiled, grad_fn):
        loss, grads = fn(tx, ty)
        check(float(loss.asnumpy()), [g.asnumpy() for g in grads])
    peers = {"PyNative": lambda: grad_fn(tx, ty), "JAX": jax_peer(weights, x, y, check)}
    peers.update(torch_peers(weights, x, y, check))
    flops = 3 * 2 * B * (784 * 512 + 512 * 512 + 512 * 10)
    return [(f"W5 MLP grads B={B}", lambda: compiled(tx, ty), lambda: ref(x, y), ("gemm", flops), peers)]
