"""W3: the spec's vmap sample (bench/README.md) - hswish over the rows of a (100, 2) tensor through
`vmap`, against the same written as a Python loop plus `ops.stack` (the sample's
`manually_batched`), and `vmap` over (10000, 64). Both compiled with `ms.jit`; the baseline column
is NumPy eager (hswish on the whole array), JAX (`jax.jit(jax.vmap(...))`) where installed.

`compile_W3()` runs in a fresh process (run.py): the loop version's compile time, stage by stage,
with the size of its C, its kernel call sites and its loops (one `For` filling the stacked
buffer row by row: compiler/stacking.py; unrolled it was one kernel call per row). MindSpore's tutorial reports 1.9 s for the loop version against 0.06 s
for vmap, the gap vmap is there to close.
"""
from __future__ import annotations

import re

import numpy as np

import pycompile as ms
from pycompile import ops, vmap


def hswish_func(x):
    return ops.HSwish()(x)


@ms.jit
def manually_batched(xs):
    output = []
    for i in range(xs.shape[0]):
        output.append(hswish_func(xs[i]))
    return ops.stack(output)


vmapped = ms.jit(vmap(hswish_func, in_axes=(0,)))


def hswish_numpy(x):
    return x * np.clip(x + np.float32(3), 0, 6) / np.float32(6)


def _input(shape):
    return (np.random.default_rng(0).standard_normal(shape) * 100).astype(np.float32)


def _jax(shape):
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None
    f = jax.jit(jax.vmap(lambda r: r * jnp.clip(r + 3, 0, 6) / 6))
    xj = jnp.asarray(_input(shape))
    np.testing.assert_allclose(np.asarray(f(xj)), hswish_numpy(_input(shape)), rtol=1e-5, atol=1e-5)
    return lambda: f(xj).block_until_ready()


def bench_W3():
    from workloads import _check
    cases = []
    for shape, fns in (((100, 2), (("vmap", vmapped), ("loop + stack", manually_batched))), ((10000, 64), (("vmap", vmapped),))):
        x = _input(shape)
        tx = ms.Tensor(x)
        for what, f in fns:
            _check(f(tx), hswish_numpy(x), rtol=1e-5)
            cases.append((f"W3 {what} {shape[0]}x{shape[1]}", lambda f=f, tx=tx: f(tx), lambda x=x: hswish_numpy(x),
                          "jit", {"JAX vmap": _jax(shape)}))
    return cases


def compile_W3() -> dict:
    """Compile the loop version once in this (fresh) process: seconds, stage times, C size."""
    import time
    x = ms.Tensor(_input((100, 2)))
    t0 = time.process_time()
    report = ms.inspect(manually_batched, x)
    py_cpu = time.process_time() - t0           # this process only: the C compiler is a child
    entry = report.c_source[report.c_source.index("int pc_entry("):]
    return {"seconds": report.compile_seconds, "times": report.times, "c_lines": report.c_lines,
            "nodes": report.nodes_before, "kernel_calls": len(re.findall(r"^\s+k\d+\(", entry, re.M)),
            "loops": entry.count("for (int64_t i"), "py_cpu": py_cpu}
