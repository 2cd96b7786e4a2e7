"""Differential fuzzing of the CNN family and the optimizers: compiled vs PyNative.

The op fuzzer (fuzz_ops.py) draws from the elementwise table and the array ops; the convolution
and pooling kernels (backend/c/ops/ cnn kernels: im2col and direct loops, window tables, parallel loops
on the runtime's pool) and the optimizers' update rules are separate code with their own corner
cases - padding larger than the window's reach, strides past the edge, dilation, groups,
ceil_mode windows that start in the padding, count_include_pad. Here a program is a random chain
over one 4-D input: conv2d (random kernel, stride, pad_mode / padding, dilation, groups, bias),
max_pool2d / avg_pool2d (random window, stride, padding, ceil_mode, count_include_pad), an
activation and a channel or spatial reduction, each stage kept only when PyNative accepts it.
The compiled program must give PyNative's values, and so must its compiled gradient (with
respect to the input and every weight).

An optimizer case is a random optimizer (SGD with momentum / dampening / nesterov / weight decay,
Momentum, Adam with amsgrad / nesterov, AdamWeightDecay, RMSProp centered or not, Adagrad) with
random hyperparameters, taking three `value_and_grad` + update steps on a small linear model: the
compiled step (ms.jit) must leave the weights and every state Parameter where PyNative's does.

tests/compiler/test_fuzz_cnn.py runs a CI-sized batch; PYCOMPILE_FUZZ_EXAMPLES scales it (a
tenth of the op fuzzer's count); `python tests/compiler/fuzz_cnn.py FIRST COUNT` is a soak.
"""
from __future__ import annotations

import contextlib
import io
import random
import sys
import tempfile
import traceback

import numpy as np

import pycompile as ms
from pycompile import Tensor

import fuzz_ops as F

HEADER = "from pycompile import nn, Parameter\n"


class CnnCase:
    """One random conv / pool program over a 4-D input and the weights it creates."""

    def __init__(self, seed: int):
        self.seed = seed
        r = self.r = random.Random(seed)
        self.dtype = r.choice(["float32", "float32", "float64"])
        rng = np.random.default_rng(seed)
        shape = (r.randint(1, 2), r.randint(1, 4), r.randint(3, 9), r.randint(3, 9))
        x = rng.standard_normal(shape).astype(self.dtype)
        self.inputs = [("x", x)]
        self.env = {"x": Tensor(x)}
        self.lines = []
        self.rng = rng
        for _ in range(r.randint(1, 4)):
            for _attempt in range(10):
                if self.step():
                    break
        last = self.lines[-1].split(" = ")[0].strip() if self.lines else "x"
        extra = [n for n in self.env if n.startswith("v") and n != last]
        self.outputs = sorted({last} | set(r.sample(extra, min(1, len(extra)))))

    @property
    def src(self) -> str:
        args = ", ".join(n for n, _ in self.inputs)
        body = "\n".join("    " + ln for ln in self.lines) or "    pass"
        return f"def cnn_{self.seed}({args}):\n{body}\n    return {', '.join(self.outputs)},\n"

    def args(self):
        return [Tensor(a.copy()) for _, a in self.inputs]

    def current(self):
        four = [n for n, v in self.env.items() if isinstance(v, Tensor) and v.ndim == 4]
        return four[-1]

    def run(self, text: str, new_inputs=()) -> bool:
        trial = dict(self.env)
        trial.update((n, Tensor(a)) for n, a in new_inputs)
        g = {"ms": ms, "ops": ms.ops, "nn": ms.nn, "Tensor": Tensor, "np": np}
        try:
            with F._quiet(), contextlib.redirect_stdout(io.StringIO()):
                exec(text, g, trial)
        except Exception:  # noqa: BLE001 - PyNative refuses it: not a program
            return False
        name = text.split(" = ")[0]
        out = trial[name]
        if not isinstance(out, Tensor) or out.size == 0 or out.size > 4096:
            return False
        self.env = trial
        self.inputs.extend(new_inputs)
        self.lines.append(text)
        return True

    def step(self) -> bool:
        r = self.r
        x = self.current()
        t = self.env[x]
        v = f"v{len(self.lines) + 1}"
        c = r.random()
        if c < 0.4:                                         # conv2d
            cin = t.shape[1]
            groups = r.choice([g for g in (1, 2, 3, 4) if cin % g == 0])
            cout = groups * r.randint(1, 3)
            k = (r.randint(1, 3), r.randint(1, 3))
            w = (self.rng.standard_normal((cout, cin // groups) + k) * 0.5).astype(self.dtype)
            wn = f"w{len(self.inputs)}"
            new = [(wn, w)]
            bias = "None"
            if r.random() < 0.5:
                bn = f"b{len(self.inputs)}"
                new.append((bn, self.rng.standard_normal(cout).astype(self.dtype)))
                bias = bn
            mode = r.choice(["valid", "same", "pad"])
            padding = r.choice([1, 2, (1, 0, 0, 2)]) if mode == "pad" else 0
            stride = r.choice([1, 1, 2, (1, 2)])
            dilation = r.choice([1, 1, 2]) if mode != "same" or stride == 1 else 1
            return self.run(f"{v} = ops.conv2d({x}, {wn}, {bias}, {stride!r}, {mode!r}, {padding!r}, {dilation}, "
                            f"{groups})", new)
        if c < 0.6:                                         # max_pool2d
            k = r.choice([1, 2, 3, (2, 3)])
            ks = k if isinstance(k, tuple) else (k, k)
            pad = r.randint(0, min(ks) // 2)
            stride = r.choice([None, 1, 2, (2, 1)])
            dil = r.choice([1, 1, 2])
            return self.run(f"{v} = ops.max_pool2d({x}, {k!r}, {stride!r}, {pad}, {dil}, False, {r.random() < 0.4})")
        if c < 0.8:                                         # avg_pool2d
            k = r.choice([1, 2, 3, (3, 2)])
            ks = k if isinstance(k, tuple) else (k, k)
            pad = r.randint(0, min(ks) // 2)
            stride = r.choice([1, 2, (1, 2)])
            return self.run(f"{v} = ops.avg_pool2d({x}, {k!r}, {stride!r}, {pad}, {r.random() < 0.4}, "
                            f"{r.random() < 0.5}, {r.choice([0, 0, 3])})")
        if c < 0.92:                                        # an activation
            act = r.choice(["ops.relu", "ops.tanh", "ops.sigmoid", "ops.gelu", "ops.silu", "ops.elu"])
            return self.run(f"{v} = {act}({x})")
        axis = r.choice([(2, 3), 1, (1, 2, 3)])             # a reduction (a 4-D value stays current)
        return self.run(f"{v} = ops.{r.choice(['sum', 'mean', 'amax'])}({x}, {axis!r}, True)")


def _load(cases, directory, stem):
    return F.load(HEADER + "\n\n".join(c.src for c in cases), directory, stem)


def run_batch(seeds, directory) -> dict:
    """The programs of `seeds` compiled together against PyNative; {seed: failure}."""
    cases = [c if isinstance(c, CnnCase) else CnnCase(c) for c in seeds]
    mod = _load(cases, directory, f"fuzz_cnn_{cases[0].seed}_{len(cases)}")
    progs = [getattr(mod, f"cnn_{c.seed}") for c in cases]

    def batch(*flat):
        out, k = [], 0
        for c, p in zip(cases, progs):
            out.append(p(*flat[k:k + len(c.inputs)]))
            k += len(c.inputs)
        return tuple(out)
    flat = [a for c in cases for a in c.args()]
    with F._quiet():
        want = batch(*flat)
    try:
        with contextlib.redirect_stdout(io.StringIO()), F._quiet():
            got = ms.jit(batch)(*[a for c in cases for a in c.args()])
    except Exception:  # noqa: BLE001 - find the program that fails to compile
        if len(cases) == 1:
            return {cases[0].seed: "compiled run raised:\n" + traceback.format_exc(limit=-4)}
        failures = {}
        for c in cases:
            failures.update(run_batch([c], directory))
        return failures
    failures = {}
    for c, g, w in zip(cases, got, want):
        for j, (gg, ww) in enumerate(zip(g, w)):
            bad = F.compare(gg, ww, f"output {j}", c.dtype)
            if bad:
                failures[c.seed] = bad
                break
    return failures


def grad_batch(seeds, directory) -> dict:
    """Gradients (input and weights) of sum(out * r) over the programs' outputs, compiled
    together against PyNative's; {seed: failure}."""
    cases = [c if isinstance(c, CnnCase) else CnnCase(c) for c in seeds]
    cases = [c for c in cases if c.lines]
    if not cases:
        return {}
    mod = _load(cases, directory, f"fuzz_cnn_grad_{cases[0].seed}_{len(cases)}")
    grads, wants = [], []
    for c in cases:
        prog = getattr(mod, f"cnn_{c.seed}")
        with F._quiet():
            outs = prog(*c.args())
        rng = np.random.default_rng(c.seed + 1)
        rs = [Tensor(rng.standard_normal(o.shape).astype(c.dtype)) for o in outs]
        g = ms.grad(F._loss(prog, rs), tuple(range(len(c.inputs))))
        with F._quiet():
            wants.append(g(*c.args()))
        grads.append(g)

    def all_grads(*flat):
        out, k = [], 0
        for c, g in zip(cases, grads):
            out.append(g(*flat[k:k + len(c.inputs)]))
            k += len(c.inputs)
        return tuple(out)
    try:
        with contextlib.redirect_stdout(io.StringIO()), F._quiet():
            got = ms.jit(all_grads)(*[a for c in cases for a in c.args()])
    except Exception:  # noqa: BLE001
        if len(cases) == 1:
            return {cases[0].seed: "compiled gradient raised:\n" + traceback.format_exc(limit=-4)}
        failures = {}
        for c in cases:
            failures.update(grad_batch([c], directory))
        return failures
    failures = {}
    for c, g, w in zip(cases, got, wants):
        for j, (gg, ww) in enumerate(zip(g, w)):
            bad = F.compare(gg, ww, f"gradient {j}", c.dtype)
            if bad:
                failures[c.seed] = bad
                break
    return failures


# ---- optimizers ---------------------------------------------------------------------------------

MODEL = '''
import numpy as np
import pycompile as ms
from pycompile import nn, ops, Parameter, Tensor


class Model(nn.Cell):
    def __init__(self, w0, b0):
        super().__init__()
        self.w = Parameter(Tensor(w0), name="w")
        self.b = Parameter(Tensor(b0), name="b")

    def construct(self, x, y):
        return ops.mean(ops.square(ops.matmul(x, self.w.T) + self.b - y))


def make_step(net, opt):
    grad_fn = ms.value_and_grad(net, None, opt.parameters)

    def step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss
    return step
'''


def optimizer_expr(r: random.Random) -> str:
    lr = r.choice([0.1, 0.01, 0.05])
    kind = r.choice(["SGD", "Momentum", "Adam", "AdamWeightDecay", "RMSProp", "Adagrad"])
    wd = r.choice([0.0, 0.0, 0.01, 0.1])
    if kind == "SGD":
        m = r.choice([0.0, 0.9, 0.5])
        nesterov = m > 0 and r.random() < 0.4
        damp = 0.0 if nesterov else r.choice([0.0, 0.1])
        return f"nn.SGD(params, {lr}, momentum={m}, dampening={damp}, weight_decay={wd}, nesterov={nesterov})"
    if kind == "Momentum":
        return f"nn.Momentum(params, {lr}, {r.choice([0.9, 0.5])}, weight_decay={wd}, use_nesterov={r.random() < 0.5})"
    if kind == "Adam":
        extra = r.choice(["", ", use_amsgrad=True", ", use_nesterov=True"])
        return (f"nn.Adam(params, {lr}, beta1={r.choice([0.9, 0.8])}, beta2={r.choice([0.999, 0.99])}, "
                f"eps={r.choice([1e-8, 1e-6])}, weight_decay={wd}{extra})")
    if kind == "AdamWeightDecay":
        return f"nn.AdamWeightDecay(params, {lr}, beta1={r.choice([0.9, 0.8])}, weight_decay={wd})"
    if kind == "RMSProp":
        return (f"nn.RMSProp(params, {lr / 10}, decay={r.choice([0.9, 0.99])}, momentum={r.choice([0.0, 0.9])}, "
                f"centered={r.random() < 0.5}, weight_decay={wd})")
    return f"nn.Adagrad(params, learning_rate={lr}, weight_decay={wd})"


def check_optimizer(seed: int, directory) -> str | None:
    """Three compiled update steps leave the weights and the optimizer's state where
    PyNative's do; None when they agree."""
    r = random.Random(seed)
    expr = optimizer_expr(r)
    rng = np.random.default_rng(seed)
    n_in, n_out = r.randint(1, 5), r.randint(1, 4)
    w0 = rng.standard_normal((n_out, n_in)).astype(np.float32)
    b0 = rng.standard_normal(n_out).astype(np.float32)
    x = Tensor(rng.standard_normal((6, n_in)).astype(np.float32))
    y = Tensor(rng.standard_normal((6, n_out)).astype(np.float32))
    mod = F.load(MODEL, directory, f"fuzz_optim_{seed}")
    results = []
    for compiled in (False, True):
        net = mod.Model(w0, b0)
        opt = eval(expr, {"nn": ms.nn, "params": net.trainable_params()})
        step = mod.make_step(net, opt)
        if compiled:
            step = ms.jit(step)
        losses = []
        try:
            with contextlib.redirect_stdout(io.StringIO()), F._quiet():
                for _ in range(3):
                    losses.append(step(x, y))
        except Exception:  # noqa: BLE001
            if not compiled:
                return None         # PyNative refuses this configuration: nothing to compare
            return f"{expr}: the compiled step raised:\n" + traceback.format_exc(limit=-4)
        state = {n: Tensor(p.asnumpy().copy()) for n, p in opt.parameters_and_names()}
        results.append((losses, state))
    (lw, sw), (lg, sg) = results
    for k, (g, w) in enumerate(zip(lg, lw)):
        bad = F.compare(g, w, f"{expr}: loss of step {k}", "float32")
        if bad:
            return bad
    if sorted(sg) != sorted(sw):
        return f"{expr}: state {sorted(sg)} vs {sorted(sw)}"
    for name in sw:
        bad = F.compare(sg[name], sw[name], f"{expr}: {name} after 3 steps", "float32")
        if bad:
            return bad
    return None


def soak(first: int, count: int, batch: int = 8, log=print) -> dict:
    import pathlib
    d = pathlib.Path(tempfile.mkdtemp(prefix="fuzz-cnn-"))
    counts = {"programs": count, "mismatches": 0, "crashes": 0, "gradient mismatches": 0,
              "optimizer cases": 0, "optimizer mismatches": 0}
    failures = {}
    for k in range(first, first + count, batch):
        seeds = list(range(k, min(k + batch, first + count)))
        for s, why in run_batch(seeds, d).items():
            counts["crashes" if why.startswith("compiled run raised") else "mismatches"] += 1
            failures[f"{s} forward"] = why
            log(f"seed {s} forward: {why}"[:3000])
        for s, why in grad_batch(seeds, d).items():
            counts["gradient mismatches"] += 1
            failures[f"{s} gradient"] = why
            log(f"seed {s} gradient: {why}"[:3000])
        for s in seeds[:2]:
            counts["optimizer cases"] += 1
            why = check_optimizer(s, d)
            if why:
                counts["optimizer mismatches"] += 1
                failures[f"{s} optimizer"] = why
                log(f"seed {s} optimizer: {why}"[:3000])
        log(f"{k + batch - first} programs: {counts}")
    return {"counts": counts, "failures": failures}


if __name__ == "__main__":      # python tests/compiler/fuzz_cnn.py FIRST COUNT: a soak run
    import json
    result = soak(int(sys.argv[1]), int(sys.argv[2]), log=lambda m: print(m, flush=True))
    print(json.dumps(result["counts"]))
