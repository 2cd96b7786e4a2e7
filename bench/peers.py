"""Inference peers shared by the workloads: torch eager and torch.compile (Inductor) running a
forward pass on the same input, each checked against the reference first. One place so every
workload times torch the same way: no autograd (`torch.no_grad()`), the thread count pycompile
uses (PYCOMPILE_NUM_THREADS, else every core), and torch.compile's compilation done here, before
any timed round (the first call compiles; the rounds time steady-state calls)."""
from __future__ import annotations

import os

import numpy as np


def torch_module():
    """torch with its intra-op threads set like pycompile's, or None when it is not installed."""
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(int(os.environ.get("PYCOMPILE_NUM_THREADS", os.cpu_count() or 1)))
    return torch


def torch_forward_peers(fwd_torch, x, ref, check) -> dict:
    """{"torch eager": ..., "torch.compile": ...} running `fwd_torch(torch, xt)` on x (a NumPy
    array), each checked with `check(result, ref)` first; {} without torch. A torch.compile that
    fails to build here is reported and left out, not fatal."""
    torch = torch_module()
    if torch is None:
        return {}
    xt = torch.from_numpy(np.ascontiguousarray(x))
    with torch.no_grad():
        check(fwd_torch(torch, xt).numpy(), ref)

    def eager(f=fwd_torch, xt=xt):
        with torch.no_grad():
            return f(torch, xt)
    peers = {"torch eager": eager}
    try:
        compiled = torch.compile(lambda xt: fwd_torch(torch, xt))
        with torch.no_grad():
            check(compiled(xt).numpy(), ref)        # compiles: outside the timed rounds

        def tc(f=compiled, xt=xt):
            with torch.no_grad():
                return f(xt)
        peers["torch.compile"] = tc
    except Exception as e:          # noqa: BLE001  (a peer that cannot compile is reported, not fatal)
        print(f"# torch.compile failed: {type(e).__name__}: {str(e).splitlines()[0][:160]}", flush=True)
    return peers
