"""W9 (LeNet-5 on (64, 1, 32, 32): inference and a training step) and W10 (ResNet-18's first
stage on (8, 3, 224, 224), eval mode) - BENCH.md - with peers measured in the same rounds:
PyTorch eager (oneDNN), torch.compile (Inductor) and JAX jit, each on the same weights and
inputs (results checked equal first). The "NumPy eager" column is pycompile's PyNative mode (one
op at a time, the way an interpreter runs the model: convolutions and pooling on the compiled
kernels of backend/eager.py, the rest on NumPy); W9 prints it against torch eager, same rounds.

The models are examples/lenet.py and examples/resnet_block.py. MindSpore's ResNet max-pool
is pad_mode 'same' (for 112 -> 56: no padding before, one after), so the peers pad (0, 1).
"""
from __future__ import annotations

import os
import sys

import numpy as np

import pycompile as ms

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples"))

import lenet  # noqa: E402
from peers import torch_forward_peers, torch_module  # noqa: E402
import resnet_block  # noqa: E402


def _check(a, b, rtol=1e-3, atol=1e-3):
    a = a.asnumpy() if hasattr(a, "asnumpy") else np.asarray(a)
    np.testing.assert_allclose(a, np.asarray(b), rtol=rtol, atol=atol)


def _weights(net) -> dict:
    return {name: p.asnumpy() for name, p in net.parameters_and_names()}


def conv_flops(net, x_shape) -> int:
    """2 * MACs of every convolution and Dense layer of a forward pass (from the traced shapes)."""
    from pycompile.compiler import ir
    report = ms.inspect(ms.jit(net.construct), ms.Tensor(np.zeros(x_shape, np.float32)))
    total = 0
    for n in ir.iter_nodes(report.graph_before.body):
        name = getattr(n.op, "name", "")
        if name in ("Conv2D", "Conv3D"):
            k = n.inputs[1].type.shape
            total += 2 * int(np.prod(n.type.shape)) * int(np.prod(k[1:]))
        elif name == "MatMul":
            a = n.inputs[0].type.shape
            total += 2 * int(np.prod(n.type.shape)) * a[0 if n.attrs.get("transpose_a") else 1]
    return total


# ---- peers --------------------------------------------------------------------------------------------
def _jax():
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None, None
    return jax, jnp


def _torch_lenet(torch, w):
    import torch.nn.functional as F

    def t(name):
        return torch.from_numpy(w[name])

    def fwd(x):
        x = F.max_pool2d(F.relu(F.conv2d(x, t("conv1.weight"))), 2)
        x = F.max_pool2d(F.relu(F.conv2d(x, t("conv2.weight"))), 2)
        x = x.flatten(1)
        x = F.relu(F.linear(x, t("fc1.weight"), t("fc1.bias")))
        x = F.relu(F.linear(x, t("fc2.weight"), t("fc2.bias")))
        return F.linear(x, t("fc3.weight"), t("fc3.bias"))
    return fwd


def _jax_lenet(jax, jnp, w):
    def conv(x, k):
        return jax.lax.conv_general_dilated(x, k, (1, 1), "VALID", dimension_numbers=("NCHW", "OIHW", "NCHW"))

    def pool(x):
        return jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")

    W = {k: jnp.asarray(v) for k, v in w.items()}

    def fwd(x):
        x = pool(jax.nn.relu(conv(x, W["conv1.weight"])))
        x = pool(jax.nn.relu(conv(x, W["conv2.weight"])))
        x = x.reshape(x.shape[0], -1)
        x = jax.nn.relu(x @ W["fc1.weight"].T + W["fc1.bias"])
        x = jax.nn.relu(x @ W["fc2.weight"].T + W["fc2.bias"])
        return x @ W["fc3.weight"].T + W["fc3.bias"]
    return jax.jit(fwd)


def _peers(fwd_torch, fwd_jax, x, ref):
    """{name: callable} of the peers that are installed, each checked against `ref`."""
    peers = torch_forward_peers(fwd_torch, x, ref, _check)
    jax, jnp = _jax()
    if jax is not None:
        f = fwd_jax(jax, jnp)
        xj = jnp.asarray(x)
        _check(np.asarray(f(xj)), ref)
        peers["JAX jit"] = lambda f=f, xj=xj: f(xj).block_until_ready()
    return peers


def bench_W9():
    ms.set_seed(0)
    net = lenet.LeNet5()
    (x,) = lenet.example_inputs()
    xn = x.asnumpy()
    w = _weights(net)
    compiled = ms.jit(net.construct)
    ref = net.construct(x).asnumpy()                  # PyNative
    _check(compiled(x), ref, 1e-4, 1e-5)
    peers = _peers(lambda torch, xt: _torch_lenet(torch, w)(xt), lambda jax, jnp: _jax_lenet(jax, jnp, w), xn, ref)
    flops = conv_flops(net, xn.shape)
    return [("W9 LeNet5 inference", lambda: compiled(x), lambda: net.construct(x), ("gemm", flops), peers,
             "pynative")]


# ---- W9 training step: softmax cross-entropy, gradients and MindSpore's Momentum update ------------------
LR, MOMENTUM = 0.01, 0.9


def _train_step_pycompile(net):
    """The training step as a MindSpore script writes it: TrainOneStepCell(WithLossCell(net,
    SoftmaxCrossEntropyWithLogits), nn.Momentum) - value_and_grad and the Momentum update
    (v = m v + g; w -= lr v); compiled, the whole step is one call."""
    from pycompile import nn
    loss_net = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
    step = nn.TrainOneStepCell(loss_net, nn.Momentum(net.trainable_params(), learning_rate=LR, momentum=MOMENTUM))
    step.set_train(True)
    return step


def torch_momentum_step(torch, params: dict, loss_of, x, y, compile_it):
    """A training step of `loss_of(x, y)` over `params` (torch Parameters) with SGD and momentum
    (the same update as MindSpore's Momentum), torch.compile'd when asked."""
    opt = torch.optim.SGD(list(params.values()), lr=LR, momentum=MOMENTUM)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y.astype(np.int64))

    def step():
        opt.zero_grad(set_to_none=True)
        loss = loss_of(xt, yt)
        loss.backward()
        opt.step()
        return loss

    return torch.compile(step) if compile_it else step


def jax_momentum_step(jax, jnp, params: dict, loss_of, x, y):
    """The same in JAX: `loss_of(p, x, y)`, value_and_grad and the Momentum update, jitted."""
    @jax.jit
    def step(p, v, xb, yb):
        loss, g = jax.value_and_grad(loss_of)(p, xb, yb)
        v = jax.tree_util.tree_map(lambda a, b: MOMENTUM * a + b, v, g)
        p = jax.tree_util.tree_map(lambda a, b: a - LR * b, p, v)
        return p, v, loss

    state = {"p": {k: jnp.asarray(a) for k, a in params.items()}}
    state["v"] = jax.tree_util.tree_map(jnp.zeros_like, state["p"])
    xj, yj = jnp.asarray(x), jnp.asarray(y.astype(np.int32))

    def run():
        state["p"], state["v"], loss = step(state["p"], state["v"], xj, yj)
        return loss.block_until_ready()
    return run


def train_peers(torch_train, jax_train, w, x, y, first=None) -> dict:
    """The training-step peers that are installed: torch eager and torch.compile of
    torch_train(torch, w, x, y, compile_it), JAX jit of jax_train(jax, jnp, w, x, y). With `first`
    (pycompile's first loss), each peer's first loss is checked equal to it."""
    peers = {}
    torch = torch_module()
    if torch is not None:
        peers["torch eager"] = torch_train(torch, w, x, y, False)
        if first is not None:
            _check(first, peers["torch eager"]().detach().numpy(), 1e-4, 1e-5)
        try:
            tc = torch_train(torch, w, x, y, True)
            tc()
            peers["torch.compile"] = tc
        except Exception as e:          # noqa: BLE001
            print(f"# torch.compile failed: {type(e).__name__}: {e}", flush=True)
    jax, jnp = _jax()
    if jax is not None:
        run = jax_train(jax, jnp, w, x, y)
        if first is not None:
            _check(first, np.asarray(run()), 1e-4, 1e-5)
        peers["JAX jit"] = run
    return peers


def _torch_train(torch, w, x, y, compile_it):
    import torch.nn.functional as F
    params = {k: torch.nn.Parameter(torch.from_numpy(v.copy())) for k, v in w.items()}

    def loss_of(xt, yt):
        p = params
        h = F.max_pool2d(F.relu(F.conv2d(xt, p["conv1.weight"])), 2)
        h = F.max_pool2d(F.relu(F.conv2d(h, p["conv2.weight"])), 2).flatten(1)
        h = F.relu(F.linear(h, p["fc1.weight"], p["fc1.bias"]))
        h = F.relu(F.linear(h, p["fc2.weight"], p["fc2.bias"]))
        return F.cross_entropy(F.linear(h, p["fc3.weight"], p["fc3.bias"]), yt)

    return torch_momentum_step(torch, params, loss_of, x, y, compile_it)


def _jax_train(jax, jnp, w, x, y):
    def conv(h, k):
        return jax.lax.conv_general_dilated(h, k, (1, 1), "VALID", dimension_numbers=("NCHW", "OIHW", "NCHW"))

    def pool(h):
        return jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")

    def loss_of(p, xb, yb):
        h = pool(jax.nn.relu(conv(xb, p["conv1.weight"])))
        h = pool(jax.nn.relu(conv(h, p["conv2.weight"]))).reshape(xb.shape[0], -1)
        h = jax.nn.relu(h @ p["fc1.weight"].T + p["fc1.bias"])
        h = jax.nn.relu(h @ p["fc2.weight"].T + p["fc2.bias"])
        logits = h @ p["fc3.weight"].T + p["fc3.bias"]
        return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), yb[:, None], 1))

    return jax_momentum_step(jax, jnp, w, loss_of, x, y)


def bench_W9_train():
    ms.set_seed(0)
    net, eager_net = lenet.LeNet5(), lenet.LeNet5()
    for p, q in zip(net.get_parameters(), eager_net.get_parameters()):
        q.set_data(ms.Tensor(p.asnumpy()))
    (x,) = lenet.example_inputs()
    xn = x.asnumpy()
    yn = np.random.default_rng(1).integers(0, 10, 64).astype(np.int32)
    y = ms.Tensor(yn)
    w = _weights(net)
    compiled = ms.jit(_train_step_pycompile(net).construct)
    eager = _train_step_pycompile(eager_net)
    _check(compiled(x, y), eager(x, y), 1e-4, 1e-5)
    peers = train_peers(_torch_train, _jax_train, w, xn, yn)
    flops = 3 * conv_flops(net, xn.shape)          # forward, and the two products of each backward
    return [("W9 LeNet5 training step", lambda: compiled(x, y), lambda: eager(x, y), ("gemm", flops), peers,
             "pynative")]


def _torch_stage(torch, w):
    import torch.nn.functional as F

    def t(name):
        return torch.from_numpy(w[name])

    def bn(x, p):
        return F.batch_norm(x, t(p + ".moving_mean"), t(p + ".moving_variance"), t(p + ".gamma"), t(p + ".beta"),
                            False, 0.0, 1e-5)

    def block(x, p):
        y = F.relu(bn(F.conv2d(x, t(p + ".conv1.weight"), padding=1), p + ".bn1"))
        y = bn(F.conv2d(y, t(p + ".conv2.weight"), padding=1), p + ".bn2")
        return F.relu(y + x)

    def fwd(x):
        x = F.relu(bn(F.conv2d(x, t("conv1.weight"), stride=2, padding=3), "bn1"))
        x = F.max_pool2d(F.pad(x, (0, 1, 0, 1), value=float("-inf")), 3, 2)
        return block(block(x, "layer1.0"), "layer1.1")
    return fwd


def _jax_stage(jax, jnp, w):
    W = {k: jnp.asarray(v) for k, v in w.items()}

    def conv(x, k, s, p):
        return jax.lax.conv_general_dilated(x, k, (s, s), ((p, p), (p, p)),
                                            dimension_numbers=("NCHW", "OIHW", "NCHW"))

    def bn(x, p):
        c = lambda v: W[p + v].reshape(1, -1, 1, 1)                                 # noqa: E731
        return (x - c(".moving_mean")) / jnp.sqrt(c(".moving_variance") + 1e-5) * c(".gamma") + c(".beta")

    def block(x, p):
        y = jax.nn.relu(bn(conv(x, W[p + ".conv1.weight"], 1, 1), p + ".bn1"))
        y = bn(conv(y, W[p + ".conv2.weight"], 1, 1), p + ".bn2")
        return jax.nn.relu(y + x)

    def fwd(x):
        x = jax.nn.relu(bn(conv(x, W["conv1.weight"], 2, 3), "bn1"))
        x = jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 1, 3, 3), (1, 1, 2, 2),
                                  ((0, 0), (0, 0), (0, 1), (0, 1)))
        return block(block(x, "layer1.0"), "layer1.1")
    return jax.jit(fwd)


def bench_W10():
    net = resnet_block.model
    (x,) = resnet_block.example_inputs()
    xn = x.asnumpy()
    w = _weights(net)
    compiled = ms.jit(net.construct)
    ref = net.construct(x).asnumpy()
    _check(compiled(x), ref, 1e-4, 1e-4)
    peers = _peers(lambda torch, xt: _torch_stage(torch, w)(xt), lambda jax, jnp: _jax_stage(jax, jnp, w), xn, ref)
    flops = conv_flops(net, xn.shape)
    return [("W10 ResNet-18 stage 1", lambda: compiled(x), lambda: net.construct(x), ("gemm", flops), peers)]


def bench_W9_all():
    return bench_W9() + bench_W9_train()


WORKLOADS = {"W9": bench_W9_all, "W10": bench_W10}
from workloads_cnn_train import WORKLOADS as _TRAIN  # noqa: E402  (W10t: it imports this module)
WORKLOADS.update(_TRAIN)


# ---- W9f: PyNative's first calls on an empty compile cache (a fresh process) --------------------------
def first_calls_W9() -> dict:
    """LeNet-5's first PyNative forward, then its first training step, in this (fresh) process:
    wall seconds of each, CPU seconds of the C compiler runs they waited for, the same two calls
    warm (median of 3, every kernel built), and the kernel counters of backend/eager.py (kernels
    built, anticipated, loaded from the cache)."""
    import resource
    import time
    from pycompile.backend import eager

    def cc_cpu():
        r = resource.getrusage(resource.RUSAGE_CHILDREN)
        return r.ru_utime + r.ru_stime
    ms.set_seed(0)
    net = lenet.LeNet5()
    (x,) = lenet.example_inputs()
    y = ms.Tensor(np.random.default_rng(1).integers(0, 10, 64).astype(np.int32))
    step = _train_step_pycompile(net)
    c0, t0 = cc_cpu(), time.perf_counter()
    net(x)
    c1, t1 = cc_cpu(), time.perf_counter()
    step(x, y)
    c2, t2 = cc_cpu(), time.perf_counter()
    # the same two calls once every kernel exists: what the first calls waited is the rest. A signature
    # a shape-generic kernel served first builds its own from its second call, in the background
    # (backend/eager.py): two more rounds, each after those builds are done, swap them all in
    settle = getattr(eager.KERNELS, "settle", lambda: None)
    for _ in range(2):
        settle()
        net(x)
        step(x, y)
    settle()
    warm = []
    for _ in range(3):
        t3 = time.perf_counter()
        net(x)
        t4 = time.perf_counter()
        step(x, y)
        warm.append((t4 - t3, time.perf_counter() - t4))
    warm_fwd, warm_step = (sorted(w[i] for w in warm)[1] for i in (0, 1))
    return {"forward": t1 - t0, "forward_cc_cpu": c1 - c0, "step": t2 - t1, "step_cc_cpu": c2 - c1,
            "warm_forward": warm_fwd, "warm_step": warm_step, "kernels": eager.KERNELS.stats.as_dict()}
