"""The op fuzzer's issue-31 tail (fuzz_ops.Gen.tail): compositions a backward pass got wrong where
it fuses them, appended to every float64 program and half of the others from a random stream of
their own, so the statements of every older seed's program stay what they were. Each function
takes the program generator (`gen`, a fuzz_ops.Gen) and adds statements through its `assign`."""
from __future__ import annotations

import random

import numpy as np

from pycompile import Tensor
from pycompile.ops import prims as P

# activations whose output issue 31's compositions normalize or reduce over any axis
ACTIVATIONS = (P.Elu, P.SeLU, P.ReLU, P.Tanh, P.Sigmoid, P.Softplus, P.GeLU, P.SiLU, P.HSwish, P.ReLU6,
               P.Mish, P.LogSigmoid, P.Softsign)
# shapes of the input the compositions above may add: rows of 3, 5, 6, 7 and 13 elements (a
# vector loop's remainder), few rows (GCC unrolls a loop over them; issue 31)
TAIL_SHAPES = [(6, 5), (5, 6), (4, 3), (2, 3, 5), (3, 7), (7, 3), (8, 8), (2, 13), (5, 2, 3)]


def tail(gen, input_array, tol) -> None:
    """Issue 31: compositions that gradients get wrong where a backward pass fuses them,
    appended after a program's statements from a random stream of their own (so the statements
    of every seed's program stay what they were): an activation (Elu, SeLU, ReLU, Tanh,
    Sigmoid ...) then softmax / log_softmax / a reduction over ANY axis, and LayerNorm then
    a select between its input and its output, stacked or concatenated with the input and
    sometimes taken abs of. Every float64 program (the ones differentiated) and half of the
    others get one to three of them."""
    saved, gen.r = gen.r, random.Random(gen.seed * 7919 + 31)
    try:
        if gen.float64_only or gen.r.random() < 0.5:
            if gen.r.random() < 0.5:           # a float input of a shape whose rows are short and odd
                dt = "float64" if gen.float64_only else gen.r.choice(["float16", "float32", "float64"])
                arr = input_array(gen.r, dt, gen.r.choice(TAIL_SHAPES))
                nm = f"a{len(gen.inputs)}"
                gen.inputs.append((nm, arr))
                gen.env[nm] = Tensor(arr)
            for _ in range(gen.r.randint(1, 3)):
                for _attempt in range(6):
                    if (activation_then_normalize(gen) if gen.r.random() < 0.6
                            else layer_norm_select_stack(gen, tol)):
                        break
        # a stream of its own again, so the statements above stay what they were
        gen.r = random.Random(gen.seed * 104729 + 7227)
        # not in the float64 programs, which are differentiated: the gradient through a constant
        # row is 0 plus rounding noise that its 1 / sqrt(var + 1e-7) magnifies (seed 160)
        if not gen.float64_only and gen.r.random() < 0.25:
            layer_norm_of_constant_rows(gen)
    finally:
        gen.r = saved


def layer_norm_of_constant_rows(gen) -> bool:
    """LayerNorm of rows that hold one value each (a row's max broadcast along it): exactly beta
    in MindSpore; the float32 mean of n equal values is often 1 ulp off them, which the 1 / std
    of a constant row made 3e-4 * gamma (seed 7227, tests/ops/test_layernorm_rows.py). Not
    magnifying even over approximate values: each row is constant in both modes, whatever its
    last bits, and its output is beta."""
    x = gen.pick(lambda t: t.ndim >= 1 and t.dtype.is_float and t.shape[-1] > 1)
    if x is None:
        return False
    t = gen.env[x]
    n, dt = t.shape[-1], t.dtype.np.name
    if not gen.assign(f"ops.broadcast_to(ops.amax({x}, -1, True), {tuple(t.shape)!r})", [x]):
        return False
    y = f"v{gen.count}"
    return gen.assign(f"ops.layer_norm({y}, ops.ones(({n},), ms.{dt}) * 1.5, ops.zeros(({n},), ms.{dt}) + 0.25)",
                      [y], "approx")


def activation_then_normalize(gen) -> bool:
    x = gen.pick(lambda t: t.ndim >= 1 and t.dtype.is_float)
    if x is None:
        return False
    r = gen.r
    act = r.choice(ACTIVATIONS)
    if not gen.assign(f"apply(P.{act.name}, [{x}])", [x], "approx"):
        return False
    y = f"v{gen.count}"
    nd = gen.env[y].ndim
    axis = r.randrange(-nd, nd)
    fn = r.choice(["softmax", "softmax", "log_softmax", "log_softmax", "sum", "mean", "amax", "amin"])
    if fn in ("softmax", "log_softmax"):
        gen.assign(f"ops.{fn}({y}, {axis})", [y], "approx")
    else:
        axes = r.choice([axis, tuple(sorted(r.sample(range(nd), r.randint(1, nd))))])
        gen.assign(f"ops.{fn}({y}, {axes!r}, {r.choice([True, False])})", [y],
                         "approx" if fn in ("sum", "mean") else "exact")
    return True                 # the activation is kept even where its reduction was not


def layer_norm_select_stack(gen, tol) -> bool:
    x = gen.pick(lambda t: t.ndim >= 1 and t.dtype.is_float and t.shape[-1] > 1)
    if x is None:
        return False
    r = gen.r
    t = gen.env[x]
    n, dt = t.shape[-1], t.dtype.np.name
    if not gen.assign(f"ops.layer_norm({x}, ops.ones(({n},), ms.{dt}) * 1.5, ops.zeros(({n},), ms.{dt}) + 0.25)",
                       [x], "magnifying"):
        return False
    y = f"v{gen.count}"
    cond = y if stable_sign(gen, y, tol) else x          # x is exact: LayerNorm takes no other
    first, second = r.sample([x, y], 2)
    if not gen.assign(f"ops.select(({cond} > 0), {first}, {second})", [first, second]):
        return True
    v = f"v{gen.count}"
    nd = gen.env[v].ndim
    if r.random() < 0.6:
        ok = gen.assign(f"ops.stack(({v}, {x}), {r.randrange(-nd - 1, nd + 1)})", [v, x])
    else:
        ok = gen.assign(f"ops.concat(({v}, {x}), {r.randrange(-nd, nd)})", [v, x])
    if ok and r.random() < 0.5:
        w = f"v{gen.count}"
        gen.assign(f"apply(P.Abs, [{w}])", [w])
    return True


def stable_sign(gen, name: str, tol) -> bool:
    """The sign of `name` is the same in compiled code: every element is finite and far from
    0 next to the rounding differences its dtype allows (an approximate value's comparison
    is otherwise not generated)."""
    v = gen.env[name].asnumpy()
    if not gen.approx.get(name):
        return True
    if v.size == 0 or not np.isfinite(v).all():
        return False
    rtol, atol = tol[max(v.dtype.name, gen.loosest, key=lambda d: tol[d])]
    scale = max(1.0, float(np.abs(v).max()))
    return float(np.abs(v).min()) > 100 * (rtol + atol) * scale

