"""W10t: W10's training step - ResNet-18's first stage (examples/resnet_block.py) on (8, 3, 224,
224) in training mode (BatchNorm on the batch's statistics) with a global average pool and a
10-way Dense head, softmax cross-entropy over integer labels, the gradients of every weight and
MindSpore's Momentum update (v = m v + g; w -= lr v) - against PyTorch eager, torch.compile and
JAX jit doing the same from the same weights and inputs (the losses checked equal first), in the
same rounds. The "NumPy eager" column is pycompile's PyNative mode. `bench/w12.py`'s W10 is this
step at batch 32 a rank."""
from __future__ import annotations

import numpy as np

import pycompile as ms

import resnet_block
from workloads_cnn import (_check, _train_step_pycompile, _weights, conv_flops, jax_momentum_step, torch_momentum_step,
                           train_peers)

BATCH = 8
BLOCKS = ("stage.layer1.0", "stage.layer1.1")


def _net():
    net = resnet_block.ResNetStage1Classifier()
    resnet_block.init_eval(net.stage)
    rng = np.random.default_rng(2)
    net.head.weight.set_data(ms.Tensor((rng.standard_normal((10, 64)) * 0.1).astype(np.float32)))
    net.head.bias.set_data(ms.Tensor(np.zeros(10, np.float32)))
    net.set_train(True)
    return net


def _torch_train(torch, w, x, y, compile_it):
    import torch.nn.functional as F
    params = {k: torch.nn.Parameter(torch.from_numpy(v.copy())) for k, v in w.items()
              if not k.endswith(("moving_mean", "moving_variance"))}
    stats = {k: torch.from_numpy(v.copy()) for k, v in w.items() if k.endswith(("moving_mean", "moving_variance"))}
    p = params

    def bn(h, name):
        return F.batch_norm(h, stats[name + ".moving_mean"], stats[name + ".moving_variance"], p[name + ".gamma"],
                            p[name + ".beta"], True, 0.1, 1e-5)

    def block(h, name):
        r = F.relu(bn(F.conv2d(h, p[name + ".conv1.weight"], padding=1), name + ".bn1"))
        r = bn(F.conv2d(r, p[name + ".conv2.weight"], padding=1), name + ".bn2")
        return F.relu(r + h)

    def loss_of(xb, yb):
        h = F.relu(bn(F.conv2d(xb, p["stage.conv1.weight"], stride=2, padding=3), "stage.bn1"))
        h = F.max_pool2d(F.pad(h, (0, 1, 0, 1), value=float("-inf")), 3, 2)
        for name in BLOCKS:
            h = block(h, name)
        return F.cross_entropy(F.linear(h.mean((2, 3)), p["head.weight"], p["head.bias"]), yb)

    return torch_momentum_step(torch, params, loss_of, x, y, compile_it)


def _jax_train(jax, jnp, w, x, y):
    def conv(h, k, s, pad):
        return jax.lax.conv_general_dilated(h, k, (s, s), ((pad, pad), (pad, pad)),
                                            dimension_numbers=("NCHW", "OIHW", "NCHW"))

    def bn(h, p, name):          # the batch's statistics (biased variance), as in training mode
        m = h.mean((0, 2, 3), keepdims=True)
        v = ((h - m) ** 2).mean((0, 2, 3), keepdims=True)
        c = lambda a: p[name + a].reshape(1, -1, 1, 1)                                   # noqa: E731
        return (h - m) / jnp.sqrt(v + 1e-5) * c(".gamma") + c(".beta")

    def block(h, p, name):
        r = jax.nn.relu(bn(conv(h, p[name + ".conv1.weight"], 1, 1), p, name + ".bn1"))
        r = bn(conv(r, p[name + ".conv2.weight"], 1, 1), p, name + ".bn2")
        return jax.nn.relu(r + h)

    def loss_of(p, xb, yb):
        h = jax.nn.relu(bn(conv(xb, p["stage.conv1.weight"], 2, 3), p, "stage.bn1"))
        h = jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 1, 3, 3), (1, 1, 2, 2),
                                  ((0, 0), (0, 0), (0, 1), (0, 1)))
        for name in BLOCKS:
            h = block(h, p, name)
        logits = h.mean((2, 3)) @ p["head.weight"].T + p["head.bias"]
        return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), yb[:, None], 1))

    trainable = {k: a for k, a in w.items() if not k.endswith(("moving_mean", "moving_variance"))}
    return jax_momentum_step(jax, jnp, trainable, loss_of, x, y)


def bench_W10_train():
    net, eager_net = _net(), _net()
    xn = np.random.default_rng(1).standard_normal((BATCH, 3, 224, 224)).astype(np.float32)
    yn = np.random.default_rng(3).integers(0, 10, BATCH).astype(np.int32)
    x, y = ms.Tensor(xn), ms.Tensor(yn)
    w = _weights(net)
    compiled = ms.jit(_train_step_pycompile(net).construct)
    eager = _train_step_pycompile(eager_net)
    first = compiled(x, y).asnumpy()
    _check(first, eager(x, y), 1e-4, 1e-5)
    peers = train_peers(_torch_train, _jax_train, w, xn, yn, first)
    flops = 3 * conv_flops(net, xn.shape)          # forward, and the two products of each backward
    return [("W10t ResNet stage 1 train", lambda: compiled(x, y), lambda: eager(x, y), ("gemm", flops), peers,
             "pynative")]


WORKLOADS = {"W10t": bench_W10_train}
