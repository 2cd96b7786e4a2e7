"""W34: issue 34's derivative rows - the Jacobian of an MLP's output and a Hessian-vector product,
pycompile against JAX and torch.func in the same process (`python bench/w34.py [--quick]`; JAX and
torch are optional: a peer that is not installed is left out).

The MLP is W4's (784 -> 512 -> ReLU -> 512 -> ReLU -> 10, float32, batch 64).

- **J**: the per-example Jacobians of the 10 outputs with respect to the 784 inputs, (64, 10, 784):
  vmap over the batch of jacrev / jacfwd of the one-example function. pycompile `ms.jit(vmap(
  ops.jacrev(f)))` and `ms.jit(vmap(ops.jacfwd(f)))`, `jax.jit(jax.vmap(jax.jacrev(f)))` /
  `jax.jacfwd`, `torch.func.vmap(torch.func.jacrev(f))` / `jacfwd`.
- **HVP**: the Hessian of the batch's softmax cross-entropy with respect to the three weight
  matrices, times a direction: pycompile `ms.jit` of `ops.jvp(ms.grad(loss, (0, 1, 2)), ...)`,
  `jax.jit` of `jax.jvp(jax.grad(loss, (0, 1, 2)), ...)`, `torch.func.jvp(torch.func.grad(...))`.

`--cpu` times by the process's CPU time (run.py's --cpu): with one thread everywhere and the
process pinned to one core (`OPENBLAS_NUM_THREADS=1 PYCOMPILE_NUM_THREADS=1 XLA_FLAGS=
--xla_cpu_multi_thread_eigen=false taskset -c 0 python bench/w34.py --cpu`) it measures the work
each side does rather than how it shares a loaded machine.

Every side computes the same numbers (checked against pycompile's before timing); times are
medians of interleaved rounds (run.py's `timed_rounds`), ratios the median of per-round ratios.
"""
from __future__ import annotations

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import run as bench_run  # noqa: E402
from run import fmt, machine, ratio, timed_rounds  # noqa: E402

import pycompile as ms  # noqa: E402
from pycompile import ops  # noqa: E402

B, D, H, C = 64, 784, 512, 10


def params(seed=0):
    rng = np.random.default_rng(seed)
    shapes = [(D, H), (H,), (H, H), (H,), (H, C), (C,)]
    return [(rng.standard_normal(s) * (0.05 if len(s) == 2 else 0.01)).astype(np.float32) for s in shapes]


def inputs(seed=1):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((B, D)).astype(np.float32)
    labels = np.eye(C, dtype=np.float32)[rng.integers(0, C, B)]
    return x, labels


# ---- pycompile --------------------------------------------------------------------------------------

def pycompile_sides(p, x, labels):
    w1, b1, w2, b2, w3, b3 = (ms.Tensor(a) for a in p)
    onehot = ms.Tensor(labels)

    def one(xi):                        # one example: (784,) -> (10,)
        h = ops.relu(ops.matmul(xi, w1) + b1)
        h = ops.relu(ops.matmul(h, w2) + b2)
        return ops.matmul(h, w3) + b3

    def loss(a1, a2, a3):
        h = ops.relu(ops.matmul(ms.Tensor(x), a1) + b1)
        h = ops.relu(ops.matmul(h, a2) + b2)
        logits = ops.matmul(h, a3) + b3
        return -(ops.log_softmax(logits, -1) * onehot).sum() / B

    jac_rev = ms.jit(ms.vmap(ops.jacrev(one)))
    jac_fwd = ms.jit(ms.vmap(ops.jacfwd(one)))
    g = ms.grad(loss, (0, 1, 2))

    @ms.jit
    def hvp(a1, a2, a3, v1, v2, v3):
        return ops.jvp(g, (a1, a2, a3), (v1, v2, v3))[1]

    return jac_rev, jac_fwd, hvp, (w1, w2, w3)


# ---- peers --------------------------------------------------------------------------------------------

def jax_sides(p, x, labels):
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None
    w1, b1, w2, b2, w3, b3 = (jnp.asarray(a) for a in p)
    xj, oh = jnp.asarray(x), jnp.asarray(labels)

    def one(xi):
        h = jax.nn.relu(xi @ w1 + b1)
        h = jax.nn.relu(h @ w2 + b2)
        return h @ w3 + b3

    def loss(a1, a2, a3):
        h = jax.nn.relu(xj @ a1 + b1)
        h = jax.nn.relu(h @ a2 + b2)
        return -(jax.nn.log_softmax(h @ a3 + b3, -1) * oh).sum() / B

    jac_rev = jax.jit(jax.vmap(jax.jacrev(one)))
    jac_fwd = jax.jit(jax.vmap(jax.jacfwd(one)))
    hvp = jax.jit(lambda a1, a2, a3, v1, v2, v3: jax.jvp(jax.grad(loss, (0, 1, 2)), (a1, a2, a3), (v1, v2, v3))[1])

    def run(f, *args):
        return lambda: jax.block_until_ready(f(*args))
    return jax, jac_rev, jac_fwd, hvp, run


def torch_sides(p, x, labels):
    try:
        import torch
        from torch import func
    except ImportError:
        return None
    from pycompile.common import context
    torch.set_num_threads(context.num_threads())        # pycompile's thread count, as bench/peers.py
    w1, b1, w2, b2, w3, b3 = (torch.from_numpy(a) for a in p)
    xt, oh = torch.from_numpy(x), torch.from_numpy(labels)

    def one(xi):
        h = torch.relu(xi @ w1 + b1)
        h = torch.relu(h @ w2 + b2)
        return h @ w3 + b3

    def loss(a1, a2, a3):
        h = torch.relu(xt @ a1 + b1)
        h = torch.relu(h @ a2 + b2)
        return -(torch.log_softmax(h @ a3 + b3, -1) * oh).sum() / B

    jac_rev = func.vmap(func.jacrev(one))
    jac_fwd = func.vmap(func.jacfwd(one))

    def hvp(a1, a2, a3, v1, v2, v3):
        return func.jvp(func.grad(loss, argnums=(0, 1, 2)), (a1, a2, a3), (v1, v2, v3))[1]

    def run(f, *args):
        def call():
            with torch.no_grad():
                return f(*args)
        return call
    return torch, jac_rev, jac_fwd, hvp, run


# ---- the rows -----------------------------------------------------------------------------------------

def _np(v):
    if isinstance(v, (tuple, list)):
        return [_np(x) for x in v]
    if hasattr(v, "asnumpy"):
        return v.asnumpy()
    if hasattr(v, "detach"):
        return v.detach().numpy()
    return np.asarray(v)


def _check(name, got, want, tol=2e-4):
    g, w = _np(got), _np(want)
    pairs = zip(g, w) if isinstance(w, list) else [(g, w)]
    for a, b in pairs:
        err = float(np.max(np.abs(np.asarray(a) - b)) / (np.max(np.abs(b)) + 1e-30))
        if err > tol:
            raise AssertionError(f"{name}: relative difference {err:.2e} from pycompile's result")


def main(argv) -> None:
    quick = "--quick" in argv
    if "--cpu" in argv:                 # the process's CPU time, as run.py --cpu (pin to one core)
        import time
        bench_run.CLOCK = time.process_time
    rounds, block = (5, 0.2) if quick else (11, 0.5)
    p = params()
    x, labels = inputs()
    vs = [np.random.default_rng(2 + k).standard_normal(s).astype(np.float32) for k, s in
          enumerate([(D, H), (H, H), (H, C)])]
    jac_rev, jac_fwd, hvp, ws = pycompile_sides(p, x, labels)
    xm = ms.Tensor(x)
    vm = [ms.Tensor(v) for v in vs]
    ref_j = jac_rev(xm)
    _check("pycompile jacfwd", jac_fwd(xm), ref_j.asnumpy())
    ref_h = hvp(*ws, *vm)
    print(machine())
    print(f"load: {os.getloadavg()}")
    jrows = [("pycompile jacrev", lambda: jac_rev(xm)), ("pycompile jacfwd", lambda: jac_fwd(xm))]
    hrows = [("pycompile jvp(grad)", lambda: hvp(*ws, *vm))]
    for mod in (jax_sides(p, x, labels), torch_sides(p, x, labels)):
        if mod is None:
            continue
        lib, jr, jf, hv, run = mod
        label = lib.__name__
        args = [lib.numpy.asarray(a) if label == "jax" else lib.from_numpy(a) for a in (x, *p[0::2], *vs)]
        xa, a1, a2, a3, v1, v2, v3 = args
        for nm, f in (("jacrev", jr), ("jacfwd", jf)):
            _check(f"{label} {nm}", f(xa), ref_j.asnumpy())
            jrows.append((f"{label} {nm}", run(f, xa)))
        _check(f"{label} hvp", hv(a1, a2, a3, v1, v2, v3), _np(ref_h))
        hrows.append((f"{label} jvp(grad)", run(hv, a1, a2, a3, v1, v2, v3)))
    for title, rows in (("J: per-example Jacobian of the MLP's 10 outputs w.r.t. its 784 inputs, batch 64", jrows),
                        ("HVP: Hessian of the batch's cross-entropy w.r.t. the 3 weight matrices times a vector",
                         hrows)):
        res = timed_rounds([f for _, f in rows], block, rounds)
        print(f"\n{title}")
        for (name, _), (med, ts) in zip(rows, res):
            line = f"  {name:<22} {fmt(med):>10}"
            for (pname, _), (_, pts) in zip(rows, res):
                if pname.startswith("pycompile") and pname != name and not name.startswith("pycompile"):
                    line += f"   {pname} / this: {ratio(pts, ts):.2f}x"
            print(line)


if __name__ == "__main__":
    main(sys.argv[1:])
