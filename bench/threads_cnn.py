#!/usr/bin/env python3
"""W9 (LeNet-5 inference, B=64) and W10 (ResNet-18 stage 1) at 1 and 2 threads in ONE process:
pycompile A/B (two compiles of the same model, the second with the environment knobs given by
--a-env, e.g. the thresholds of before) against ONNX Runtime and torch eager (torch.compile and
JAX with --all), every side checked against pycompile's PyNative result first; interleaved rounds
(one block of calls per side per round, after a pause and one untimed call), medians. Made for one `/work/bin/quiet` call (< 3 min):

    PYTHONPATH=src:/path/to/onnxruntime python bench/threads_cnn.py [--workloads W9,W10]
        [--threads 1 2] [--rounds 7] [--a-env PYCOMPILE_PARALLEL_FLOPS=...,...] [--all]

Thread counts change at run time for pycompile (the pool's team size, pc_set_num_threads: a
set_context would start a new configuration and recompile both sides with the knobs of the
moment) and torch
(set_num_threads); ONNX Runtime gets one session per count (intra_op_num_threads); JAX reads its
pool size at load (PJRT_NPROC, set from the largest count before import), so with --all its rows
hold the largest count throughout. Needs torch and onnxruntime + onnx (the export) importable.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402


def _ort(fwd_torch, x, path, threads):
    import onnxruntime as ort
    import torch

    class Net(torch.nn.Module):
        def forward(self, xt):
            return fwd_torch(torch, xt)
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(Net().eval(), (torch.from_numpy(x.copy()),), path, input_names=["x"],
                          output_names=["y"], opset_version=17, dynamo=False)
    sessions = {}
    for t in threads:
        so = ort.SessionOptions()
        so.intra_op_num_threads, so.inter_op_num_threads = t, 1
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        s = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
        feed = {s.get_inputs()[0].name: np.ascontiguousarray(x)}
        sessions[t] = (lambda s=s, f=feed: s.run(None, f))
    return sessions


def _compile(net, x, env: dict):
    import pycompile as ms
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        f = ms.jit(lambda t, n=net: n.construct(t))
        f(x)                                    # compiles with these knobs (they are read at codegen)
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return f


def build(name: str, a_env: dict, threads, want_all: bool):
    import pycompile as ms
    import workloads_cnn as WC
    if name == "W9":
        ms.set_seed(0)
        net = WC.lenet.LeNet5()
        (x,) = WC.lenet.example_inputs()
        fwd_t = lambda torch, xt, w=WC._weights(net): WC._torch_lenet(torch, w)(xt)     # noqa: E731
        fwd_j = WC._jax_lenet
    else:
        net = WC.resnet_block.model
        (x,) = WC.resnet_block.example_inputs()
        fwd_t = lambda torch, xt, w=WC._weights(net): WC._torch_stage(torch, w)(xt)     # noqa: E731
        fwd_j = WC._jax_stage
    xn = x.asnumpy()
    ref = net.construct(x).asnumpy()            # PyNative
    b = _compile(net, x, {})
    sides = {"pycompile": b}
    if a_env:
        sides["pycompile A"] = _compile(net, x, a_env)
    for f in list(sides.values()):
        WC._check(f(x), ref, 1e-4, 1e-4)
    sides = {k: (lambda f=f: f(x)) for k, f in sides.items()}
    per_t = {}
    ort = _ort(fwd_t, xn, f"/tmp/threads_cnn_{os.getpid()}_{name}.onnx", threads)
    import torch
    xt = torch.from_numpy(np.ascontiguousarray(xn))
    with torch.no_grad():
        WC._check(fwd_t(torch, xt).numpy(), ref)

    def eager():
        with torch.no_grad():
            return fwd_t(torch, xt)
    sides["torch eager"] = eager
    if want_all:
        tc = torch.compile(lambda t: fwd_t(torch, t))
        with torch.no_grad():
            WC._check(tc(xt).numpy(), ref)

        def tcomp():
            with torch.no_grad():
                return tc(xt)
        sides["torch.compile"] = tcomp
        jax, jnp = WC._jax()
        if jax is not None:
            fj = fwd_j(jax, jnp, WC._weights(net))
            xj = jnp.asarray(xn)
            WC._check(np.asarray(fj(xj)), ref)
            sides["JAX jit (T=max)"] = lambda: fj(xj).block_until_ready()
    for t in threads:
        ORT = ort[t]
        ORT()
        WC._check(ORT()[0], ref)
        per_t[t] = dict(sides, **{"ONNX Runtime": ORT})
    return per_t


def timed(sides: dict, rounds: int, block_s: float, pause: float) -> dict:
    counts = {}
    for k, fn in sides.items():
        fn(), fn()
        n, t0 = 1, time.perf_counter()
        while True:
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            if time.perf_counter() - t0 >= block_s or n >= 4096:
                break
            n *= 2
        counts[k] = n
    times = {k: [] for k in sides}
    for _ in range(rounds):
        for k, fn in sides.items():
            time.sleep(pause)           # the previous side's spinning threads (ONNX Runtime's, OpenMP's) go idle
            fn()
            t0 = time.perf_counter()
            for _ in range(counts[k]):
                fn()
            times[k].append((time.perf_counter() - t0) / counts[k])
    return times


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workloads", default="W9,W10")
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--block", type=float, default=0.05, help="seconds per block (at least one call)")
    ap.add_argument("--pause", type=float, default=0.05, help="seconds of sleep before each block")
    ap.add_argument("--a-env", default="", help="KEY=V,KEY=V: knobs of the A compile")
    ap.add_argument("--all", action="store_true", help="torch.compile and JAX jit too")
    a = ap.parse_args()
    os.environ.setdefault("PJRT_NPROC", str(max(a.threads)))
    a_env = dict(kv.split("=", 1) for kv in a.a_env.split(",") if kv)
    import pycompile as ms
    import torch
    from pycompile._rt import lib
    print(f"# load {open('/proc/loadavg').read().split()[0]}, rounds {a.rounds}, block {a.block}s, pause {a.pause}s, "
          f"A = {a_env or '-'}, pycompile {os.path.dirname(ms.__file__)}", flush=True)
    for name in a.workloads.split(","):
        t0 = time.time()
        per_t = build(name, a_env, a.threads, a.all)
        print(f"== {name} (setup {time.time() - t0:.0f} s)", flush=True)
        base = {}
        for t in a.threads:
            lib.pc_set_num_threads(t)   # not set_context: a new configuration recompiles, with today's knobs
            torch.set_num_threads(t)
            times = timed(per_t[t], a.rounds, a.block, a.pause)
            med = {k: statistics.median(v) for k, v in times.items()}
            base[t] = med
            pc = times["pycompile"]
            cells = []
            for k, v in times.items():
                r = statistics.median(p / q for p, q in zip(pc, v))
                cells.append(f"{k} {med[k] * 1e3:.3f} ms" + ("" if k == "pycompile" else f" (pc/it {r:.2f})"))
            print(f"  T={t}: " + "; ".join(cells), flush=True)
        if len(a.threads) > 1:
            t1, t2 = a.threads[0], a.threads[-1]
            print(f"  speed-up T={t1}->{t2}: " + "; ".join(f"{k} {base[t1][k] / base[t2][k]:.2f}x"
                                                       for k in base[t1] if k in base[t2]), flush=True)
    lib.pc_set_num_threads(1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
