"""Workload definitions (bench/README.md). Each entry returns cases
(label, compiled_callable, numpy_eager_callable, note[, peers]); results are checked equal first.
`peers` maps a peer's name to a callable running the same work (None when it is not installed)."""
from __future__ import annotations

import time

import numpy as np

import pycompile as ms
from pycompile import nn, ops

from peers import torch_forward_peers


def _check(a, b, rtol=1e-4):
    a = a.asnumpy() if hasattr(a, "asnumpy") else np.asarray(a)
    np.testing.assert_allclose(a, np.asarray(b), rtol=rtol, atol=1e-5)


def _check_peer(a, b):
    """A peer's result against NumPy's: other summation orders, other tanh / exp."""
    np.testing.assert_allclose(a, b, rtol=2e-3, atol=2e-4)


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


def mlp_forward(xp, weights):
    """W4's MLP over an array module `xp` (NumPy eager, or jax.numpy for the JAX peer)."""
    (w1, b1), (w2, b2), (w3, b3) = [(xp.asarray(w), xp.asarray(b)) for w, b in weights]

    def run(x):
        h = x.reshape(x.shape[0], -1)
        h = xp.maximum(h @ w1.T + b1, 0)
        h = xp.maximum(h @ w2.T + b2, 0)
        return h @ w3.T + b3
    return run


def mlp_numpy(weights):
    return mlp_forward(np, weights)


def mlp_torch(weights):
    """W4's MLP as a torch script writes it (F.linear, relu): the torch eager / torch.compile peers."""
    def fwd(torch, x):
        import torch.nn.functional as F
        (w1, b1), (w2, b2), (w3, b3) = [(torch.from_numpy(w), torch.from_numpy(b)) for w, b in weights]
        h = x.flatten(1)
        h = F.relu(F.linear(h, w1, b1))
        h = F.relu(F.linear(h, w2, b2))
        return F.linear(h, w3, b3)
    return fwd


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
        flops = 2 * b * (784 * 512 + 512 * 512 + 512 * 10)
        peers = {"JAX": jax_peer(mlp_forward, weights, x)}
        peers.update(torch_forward_peers(mlp_torch(weights), x, ref(x), _check_peer))
        cases.append((f"W4 MLP B={b}", lambda tx=tx: model(tx), lambda x=x: ref(x), ("gemm", flops), peers))
    return cases


# ---- W6: a stack of GPT-like blocks (examples/gpt_blocks.py) ---------------------------------------
def _gpt_module():
    import importlib.util
    import os
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples", "gpt_blocks.py")
    spec = importlib.util.spec_from_file_location("gpt_blocks", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def gpt_weights(model):
    """The model's weights as NumPy arrays, read once: (blocks, final LayerNorm)."""
    def dense(d):
        return d.weight.asnumpy().T.copy(), d.bias.asnumpy()

    def ln(cell):
        return cell.gamma.asnumpy(), cell.beta.asnumpy(), cell.epsilon

    blocks = []
    for b in model.blocks:
        a = b.attn
        blocks.append((ln(b.ln1), [dense(a.query), dense(a.key), dense(a.value), dense(a.proj)],
                       a.scale, a.mask.asnumpy(), ln(b.ln2), dense(b.mlp.up), dense(b.mlp.down)))
    return blocks, ln(model.ln_f)


def gpt_forward(xp, weights):
    """The same network over an array module `xp` (NumPy eager, or jax.numpy for the JAX peer)."""
    blocks, final = weights
    c = np.float32(np.sqrt(2 / np.pi))

    def layernorm(x, p):
        g, be, eps = p
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) / xp.sqrt(v + np.float32(eps)) * g + be

    def run(x):
        for ln1, (q, k, v, o), scale, mask, ln2, up, down in blocks:
            h = layernorm(x, ln1)
            qq, kk, vv = h @ q[0] + q[1], h @ k[0] + k[1], h @ v[0] + v[1]
            s = qq @ kk.transpose(0, 2, 1) * np.float32(scale) + mask
            s = xp.exp(s - s.max(-1, keepdims=True))
            p = s / s.sum(-1, keepdims=True)
            x = x + ((p @ vv) @ o[0] + o[1])
            h = layernorm(x, ln2) @ up[0] + up[1]
            h = 0.5 * h * (1 + xp.tanh(c * (h + np.float32(0.044715) * h * h * h)))
            x = x + (h @ down[0] + down[1])
        return layernorm(x, final)
    return run


def gpt_torch(weights):
    """The same network as a torch script writes it (F.layer_norm, softmax, tanh GELU)."""
    blocks, final = weights

    def fwd(torch, x):
        import torch.nn.functional as F
        t = torch.from_numpy

        def ln(h, p):
            return F.layer_norm(h, (h.shape[-1],), t(p[0]), t(p[1]), p[2])

        for ln1, (q, k, v, o), scale, mask, ln2, up, down in blocks:
            h = ln(x, ln1)
            qq, kk, vv = h @ t(q[0]) + t(q[1]), h @ t(k[0]) + t(k[1]), h @ t(v[0]) + t(v[1])
            p = F.softmax(qq @ kk.transpose(1, 2) * scale + t(mask), dim=-1)
            x = x + ((p @ vv) @ t(o[0]) + t(o[1]))
            h = F.gelu(ln(x, ln2) @ t(up[0]) + t(up[1]), approximate="tanh")
            x = x + (h @ t(down[0]) + t(down[1]))
        return ln(x, final)
    return fwd


def gpt_numpy(model):
    return gpt_forward(np, gpt_weights(model))


def jax_peer(forward, weights, x):
    """A peer: the same forward under jax.jit (CPU), when JAX is installed; else None."""
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None
    f = jax.jit(forward(jnp, weights))
    xj = jnp.asarray(x)
    _check(np.asarray(f(xj)), forward(np, weights)(x), rtol=2e-3)
    return lambda: f(xj).block_until_ready()


def bench_W6():
    gpt = _gpt_module()
    cases = []
    for layers in (4, 12):
        ms.set_seed(0)
        model = gpt.GPT(num_layers=layers)
        (x,) = gpt.example_inputs()
        weights = gpt_weights(model)
        ref = gpt_forward(np, weights)
        xn = x.asnumpy()
        compiled = ms.jit(lambda t, m=model: m(t))
        _check(compiled(x), ref(xn), rtol=2e-3)
        peers = {"JAX": jax_peer(gpt_forward, weights, xn)}
        peers.update(torch_forward_peers(gpt_torch(weights), xn, ref(xn), _check_peer))
        b, s_, d, ff = 4, 64, 128, 512
        per_block = 2 * b * s_ * d * d * 4 + 2 * 2 * b * s_ * s_ * d + 2 * 2 * b * s_ * d * ff
        cases.append((f"W6 GPT L={layers}", lambda x=x, f=compiled: f(x), lambda xn=xn, r=ref: r(xn),
                      ("gemm", per_block * layers), peers))
    return cases


def compile_W6(layers: int) -> dict:
    """Compile the GPT stack once in this (fresh) process: stage times and node counts."""
    gpt = _gpt_module()
    ms.set_seed(0)
    model = gpt.GPT(num_layers=layers)
    (x,) = gpt.example_inputs()
    report, cc_cpu = _with_cc_cpu(lambda: ms.inspect(model, x))
    return {"seconds": report.compile_seconds, "nodes": report.nodes_before, "c_lines": report.c_lines,
            "times": report.times, "cc_cpu": cc_cpu, "functions": report.c_source.count("static int sub")}


def _with_cc_cpu(fn):
    """(fn(), CPU seconds of the child processes it ran: the C compiler's own time, which a busy
    machine does not inflate as it does the wall clock)."""
    import resource
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = fn()
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return out, r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime


def compile_W3() -> dict:
    from w3 import compile_W3 as run
    out, cc_cpu = _with_cc_cpu(run)
    return dict(out, cc_cpu=cc_cpu)


def bench_W3():
    from w3 import bench_W3 as run
    return run()


# ---- W8: per-call overhead ----------------------------------------------------------------------------
@ms.jit
def add_one(x):
    return x + 1


def cffi_floor(fn, *arrays):
    """The floor of a compiled call made from Python: a plain cffi call of the same C function
    (the compiled pc_entry, taking void *[]) on the same arrays, with a fresh output array and its
    pointers taken per call, as a hand-written cffi binding does - no signature check, no
    Tensors. Reaches into the compiled specialization (bench only)."""
    from pycompile._rt import ffi
    from pycompile import api
    from pycompile.common import context
    tensors = tuple(ms.Tensor(a) for a in arrays)
    fn(*tensors)
    exe = fn._cache[(api._positional_key(tensors), (), context.generation())].exe
    (shape, dt), = exe.out_specs
    args = ffi.new("void *[]", len(exe.args))
    for k in range(len(exe.args)):
        args[k] = exe.args[k]
    entry, from_buffer, n = exe._entry, ffi.from_buffer, len(arrays)

    def call():
        o = np.empty(shape, dt)
        for k, a in enumerate(arrays):
            args[k] = from_buffer(a)
        args[n] = from_buffer(o)
        entry(args)
        return o
    return call


def bench_W8():
    x = np.array([1.0], np.float32)
    tx = ms.Tensor(x)
    _check(add_one(tx), x + 1)
    floor = cffi_floor(add_one, x)
    _check(floor(), x + 1)
    return [("W8 x + 1 (1 element)", lambda: add_one(tx), lambda: x + 1, "dispatch overhead",
             {"plain cffi call": floor})]


# ---- W7: compile cache, cold vs warm first call of W1 (N=1) in fresh processes ----------------------
def first_call_W7():
    """(seconds, cache status) of W1's first call; run.py sets MS_COMPILER_CACHE_ENABLE / _PATH."""
    x, y = ms.Tensor([1.0], ms.float32), ms.Tensor([2.0], ms.float32)
    t0 = time.perf_counter()
    out = w1(x, y)
    t = time.perf_counter() - t0
    _check(out, w1_numpy(np.float32([1.0]), np.float32([2.0])), rtol=1e-3)
    return t, w1.compiled(x, y).cache


def bench_W7():
    return []      # no steady-state case: run.py measures first calls in fresh processes


def bench_W5():
    from w5 import bench_W5 as run
    return run()


def bench_W5s():
    from w5_step import bench_W5_step as run
    return run()


def bench_W11():
    from w11 import bench_W11 as run
    return run()


WORKLOADS = {"W1": bench_W1, "W2": bench_W2, "W3": bench_W3, "W4": bench_W4, "W5": bench_W5, "W5s": bench_W5s, "W6": bench_W6, "W7": bench_W7,
             "W8": bench_W8, "W11": bench_W11}

# ---- W9, W10: convolutional networks (workloads_cnn.py) -----------------------------------------------
from workloads_cnn import WORKLOADS as _CNN_WORKLOADS  # noqa: E402

WORKLOADS.update(_CNN_WORKLOADS)
