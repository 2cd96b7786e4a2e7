"""W5 (b): the W4 MLP's whole training step - softmax cross-entropy over integer labels, the
gradients of every weight and an SGD-with-momentum update of every weight (bench/README.md).

Implementations timed side by side, each starting from the same weights and checked to take the
same first step before timing:
- pycompile: `nn.TrainOneStepCell(net, nn.Momentum(...))` compiled as one native call (`ms.jit` of
  its construct: forward, backward and the in-place updates of every Parameter and its momentum);
- the baseline column: a hand-written NumPy forward, backward and update;
- PyNative: the same TrainOneStepCell run eagerly;
- JAX: `jax.jit` of value_and_grad plus a hand-written momentum update (no optax), with the
  parameters and momenta donated so XLA may update them in place;
- torch eager and `torch.compile` of the forward with `torch.optim.SGD(momentum=0.9)`.
MindSpore's Momentum and torch's SGD(momentum, dampening=0) are the same update:
v = momentum * v + g; w = w - lr * v.
"""
from __future__ import annotations

import numpy as np

import pycompile as ms
from pycompile import nn
from w5 import B, MLPLoss, _weights, numpy_value_and_grad

LR, MOMENTUM = 0.01, 0.9


def numpy_step(weights):
    params = [np.array(a) for wb in weights for a in wb]
    moments = [np.zeros_like(p) for p in params]
    grad = numpy_value_and_grad([(params[2 * i], params[2 * i + 1]) for i in range(3)])

    def run(x, y):
        loss, grads = grad(x, y)
        for p, v, g in zip(params, moments, grads):
            v *= MOMENTUM
            v += g
            p -= LR * v
        return loss
    return run, params


def jax_step(weights, x, y):
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None, None

    def loss(params, x, y):
        w1, b1, w2, b2, w3, b3 = params
        h = x.reshape(x.shape[0], -1)
        h = jnp.maximum(h @ w1.T + b1, 0)
        h = jnp.maximum(h @ w2.T + b2, 0)
        z = h @ w3.T + b3
        return -jnp.mean(jax.nn.log_softmax(z)[jnp.arange(x.shape[0]), y])

    def step(params, moments, x, y):
        value, grads = jax.value_and_grad(loss)(params, x, y)
        moments = [MOMENTUM * v + g for v, g in zip(moments, grads)]
        params = [p - LR * v for p, v in zip(params, moments)]
        return params, moments, value

    f = jax.jit(step, donate_argnums=(0, 1))
    state = {"p": [jnp.asarray(a) for wb in weights for a in wb],
             "v": [jnp.zeros_like(jnp.asarray(a)) for wb in weights for a in wb]}
    xj, yj = jnp.asarray(x), jnp.asarray(y)

    def run():
        state["p"], state["v"], value = f(state["p"], state["v"], xj, yj)
        return jax.block_until_ready(value)
    return run, lambda: [np.asarray(p) for p in state["p"]]


def torch_steps(weights, x, y):
    try:
        import torch
    except ImportError:
        return {}
    torch.set_num_threads(2)
    xt, yt = torch.tensor(x), torch.tensor(y, dtype=torch.int64)
    out = {}
    for name in ("torch eager", "torch.compile"):
        params = [torch.tensor(np.array(a), requires_grad=True) for wb in weights for a in wb]
        opt = torch.optim.SGD(params, lr=LR, momentum=MOMENTUM)

        def loss_fn(x, params=params):
            w1, b1, w2, b2, w3, b3 = params
            h = x.reshape(x.shape[0], -1)
            h = torch.relu(h @ w1.T + b1)
            h = torch.relu(h @ w2.T + b2)
            return torch.nn.functional.cross_entropy(h @ w3.T + b3, yt)

        try:
            fn = torch.compile(loss_fn) if name == "torch.compile" else loss_fn
        except Exception as e:      # noqa: BLE001  (a peer that does not build here is reported, not fatal)
            print(f"# {name} unavailable: {type(e).__name__}")
            continue

        def run(fn=fn, opt=opt):
            opt.zero_grad(set_to_none=False)
            loss = fn(xt)
            loss.backward()
            opt.step()
            return loss
        out[name] = (run, lambda params=params: [p.detach().numpy() for p in params])
    return out


def bench_W5_step():
    ms.set_seed(0)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((B, 1, 28, 28)).astype(np.float32)
    y = rng.integers(0, 10, B).astype(np.int32)
    tx, ty = ms.Tensor(x), ms.Tensor(y)

    def make():
        ms.set_seed(0)
        net = MLPLoss()
        step = nn.TrainOneStepCell(net, nn.Momentum(net.trainable_params(), LR, MOMENTUM))
        return net, step

    net, step = make()
    weights = _weights(net)
    compiled = ms.jit(step.construct)
    ref, ref_params = numpy_step(weights)
    ref(x, y)                                   # the first step, to check every side against
    want = [p.copy() for p in ref_params]

    def check(got, who):
        for g, w in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), w, rtol=2e-3, atol=2e-5, err_msg=who)

    def params_of(net_):
        return [p.asnumpy() for p in net_.trainable_params()]

    compiled(tx, ty)
    check(params_of(net), "pycompile")
    report = compiled.compiled(tx, ty)
    eager_net, eager = make()
    eager(tx, ty)
    check(params_of(eager_net), "PyNative")
    peers = {"PyNative": lambda: eager(tx, ty)}
    run, params = jax_step(weights, x, y)
    if run is not None:
        run()
        check(params(), "JAX")
        peers["JAX"] = run
    for name, (run, params) in torch_steps(weights, x, y).items():
        run()
        check(params(), name)
        peers[name] = run
    n, inplace, temp = report.updates
    print(f"# W5 step: {inplace} of {n} Parameter updates in place, {temp} temp bytes for updates; "
          f"{report.temp_bytes} temp bytes in all")
    flops = 3 * 2 * B * (784 * 512 + 512 * 512 + 512 * 10)
    return [(f"W5 MLP train step B={B}", lambda: compiled(tx, ty), lambda: ref(x, y), ("gemm", flops), peers)]
