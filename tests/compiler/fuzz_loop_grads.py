"""Gradient fuzzing of Parameters assigned inside tensor loops (issue 31).

A program is a Cell with two float64 Parameters and a runtime `while i < n` (n an int32 input,
so the loop stays a loop) or a `for _ in range(K)` loop whose body assigns the Parameters
(from the counter and from their own values), reads them into the output, and does both
inside tensor `if`s and now and then in an inner `for` loop; statements before and after the
loop read and assign them too. A read of an assigned Parameter inside the inner loop is not
supported (compiler/autodiff.py): the CompileError saying so is the expected result there. Each read
of a Parameter must be differentiated at the value it saw at that point (MindSpore's graph
semantics), not at the Parameter's final value.

The compiled gradient (GRAPH_MODE, GradOperation with get_all and get_by_list) is compared with
two references:
- PyNative running the same program with each read written `(self.w + 0)`: a copy made at the
  point of the read, so the tape records the value the read saw (MindSpore's PyNative, like
  pycompile's, records the Parameter itself and takes the value it has when the backward runs);
- central finite differences of the forward (PyNative) in float64, for the inputs' gradients.
The Parameters' values after the compiled call must equal PyNative's too.

The generator is plain text and imports neither pycompile nor MindSpore, so
tests/oracle/record_loop_grads.py runs some of its programs under MindSpore.
tests/compiler/test_fuzz_loop_grads.py runs a CI-sized batch (PYCOMPILE_FUZZ_EXAMPLES sets how
many); `python tests/compiler/fuzz_loop_grads.py FIRST COUNT` runs a soak and prints its counts.
"""
from __future__ import annotations

import random

WEIGHTS = ("w0", "w1")
INNER_SALT = "inner loops 4"      # (chosen so that the recorded seeds 3, 8, 14, 26, 30 keep their programs)


class Gen:
    """One random program, as text. `load(w)` is how a read of Parameter w is written."""

    def __init__(self, seed: int):
        self.r = random.Random(seed)
        self.r_inner = random.Random(f"{INNER_SALT} {seed}")   # (apart: the other draws stay as they were)
        self.seed = seed
        r = self.r
        self.shape = r.choice([(), (), (2,)])
        self.loop = r.choice(["while", "while", "for"])
        self.trips = r.randint(1, 3)
        self.winit = {w: [round(r.uniform(-1.5, 1.5), 2) for _ in range(2 if self.shape else 1)] for w in WEIGHTS}
        self.inputs = {k: [round(r.uniform(-1.5, 1.5), 2) for _ in range(2 if self.shape else 1)] for k in "xy"}
        self.lines = []
        self.block(1, r.randint(0, 2), in_loop=False)
        self.emit(1, f"while i < n:" if self.loop == "while" else f"for _ in range({self.trips}):")
        self.block(2, r.randint(1, 4), in_loop=True)
        self.emit(2, "i = i + 1")
        self.block(1, r.randint(0, 2), in_loop=False)

    def emit(self, depth: int, text: str) -> None:
        self.lines.append("    " * (depth + 1) + text)

    def block(self, depth: int, count: int, in_loop: bool, nested: bool = False) -> None:
        r = self.r
        for _ in range(count):
            kind = r.choice(["assign", "assign", "use", "use", "use"] + ([] if nested else ["if"]))
            if in_loop and not nested and self.r_inner.random() < 0.1:
                kind = "inner loop"
            if kind == "inner loop":      # reads in it of an assigned Parameter: a CompileError
                self.emit(depth, f"for _ in range({r.randint(1, 2)}):")
                self.block(depth + 1, r.randint(1, 2), in_loop, nested=True)
            elif kind == "assign":
                self.emit(depth, self.assignment(in_loop))
            elif kind == "use":
                self.emit(depth, self.use())
            else:
                lhs, rhs = r.choice([("x", "y"), ("y", "x"), ("out", "x"), ("x", "@w0"), ("@w1", "y")])
                self.emit(depth, f"if ops.reduce_sum({lhs}) < ops.reduce_sum({rhs}):")
                self.block(depth + 1, r.randint(1, 2), in_loop, nested=True)
                if r.random() < 0.6:
                    self.emit(depth, "else:")
                    self.block(depth + 1, r.randint(1, 2), in_loop, nested=True)

    def assignment(self, in_loop: bool) -> str:
        r = self.r
        w, v = r.choice(WEIGHTS), r.choice(WEIGHTS)
        c = round(r.uniform(-1.2, 1.2), 2)
        counter = "ops.cast(i, ms.float64)" if in_loop or r.random() < 0.5 else str(round(r.uniform(-1, 1), 2))
        value = r.choice([f"@{v} * {c} + {counter}", f"@{w} + {counter} * {c}", f"@{v} * @{w} * 0.5 + {c}"])
        return f"ops.assign(self.{w}, {value})"

    def use(self) -> str:
        r = self.r
        w = "@" + r.choice(WEIGHTS)
        term = r.choice(["x", "y", "x * y", "ops.sin(x)", "out", "ops.cos(out)"])
        return "out = " + r.choice([f"out + {term} * {w}", f"out * {w} + {term}", f"ops.sin(out) + {w} * {term}",
                                    f"out + ops.tanh({term} * {w})"])

    def source(self, copy_reads: bool) -> str:
        """The program's module text: `Prog` (the Cell) and `Grad` (its gradient Cell)."""
        shape = repr(self.shape)
        init = "\n".join(f"        self.{w} = Parameter(Tensor(np.array({v}, np.float64).reshape({shape})), "
                         f"name=\"{w}\")" for w, v in self.winit.items())
        body = "\n".join(self.lines)
        for w in WEIGHTS:
            body = body.replace(f"@{w}", f"(self.{w} + 0)" if copy_reads else f"self.{w}")
        return f'''import numpy as np
{HEADER}

class Prog(nn.Cell):
    def __init__(self):
        super().__init__()
{init}

    def construct(self, x, y, n):
        i = ops.zeros_like(n)
        out = x * 0.5
{body}
        return out


class Grad(nn.Cell):
    def __init__(self, net):
        super().__init__(auto_prefix=False)
        self.net = net
        self.params = ParameterTuple(net.trainable_params())
        self.grad = ops.GradOperation(get_all=True, get_by_list=True)

    def construct(self, x, y, n):
        return self.grad(self.net, self.params)(x, y, n)
'''

    def reads_in_inner_loop(self) -> bool:
        """A Parameter the program assigns is read inside a loop in the loop (not supported:
        compiler/autodiff.py raises a CompileError)."""
        assigned = {w for w in WEIGHTS if f"ops.assign(self.{w}," in "\n".join(self.lines)}
        inner, depth = False, None
        for line in self.lines:
            indent = (len(line) - len(line.lstrip())) // 4
            if depth is not None and indent <= depth:
                depth = None
            if line.strip().startswith("for _ in range(") and indent > 2:
                depth = indent
            elif depth is not None and any(f"@{w}" in line for w in assigned):
                inner = True
        return inner

    def arrays(self):
        """The inputs x, y (float64) and n (int32) as NumPy arrays."""
        import numpy as np
        x, y = (np.array(self.inputs[k], np.float64).reshape(self.shape) for k in "xy")
        return x, y, np.array(self.trips, np.int32)


UNSUPPORTED = "inside a loop nested in another loop"
HEADER = "from mindspore import nn, ops, Tensor, Parameter, ParameterTuple\nimport mindspore as ms"


# ---- running a program with pycompile ----------------------------------------------------------------

def load(src: str, directory, stem: str):
    import importlib.util
    import pathlib
    path = pathlib.Path(directory) / f"{stem}.py"
    path.write_text(src.replace(HEADER, "from pycompile import nn, ops, Tensor, Parameter, ParameterTuple\n"
                                        "import pycompile as ms"))
    spec = importlib.util.spec_from_file_location(stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run_grad(mod, args, mode):
    """(input gradients, weight gradients, the Parameters' values after the call) in `mode`."""
    import numpy as np
    import pycompile as ms
    ms.set_context(mode=mode)
    try:
        net = mod.Prog()
        g_in, g_w = mod.Grad(net)(*(ms.Tensor(a) for a in args))
        return ([np.asarray(g.asnumpy()) for g in g_in[:2]], [np.asarray(g.asnumpy()) for g in g_w],
                [np.asarray(p.asnumpy()) for p in net.trainable_params()])
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def forward(mod, args) -> "np.ndarray":
    import numpy as np
    import pycompile as ms
    ms.set_context(mode=ms.PYNATIVE_MODE)
    return np.asarray(mod.Prog()(*(ms.Tensor(a) for a in args)).asnumpy())


def finite_differences(mod, args, h: float = 1e-6, steps=(1, -1)) -> list:
    """d sum(out) / d x and d y by central differences (steps (1, 0) / (0, -1): one-sided)."""
    import numpy as np
    grads = []
    for k in range(2):
        g = np.zeros_like(args[k])
        for idx in np.ndindex(args[k].shape):
            vals = []
            for d in steps:
                a = [v.copy() for v in args]
                a[k][idx] += d * h
                vals.append(forward(mod, a).sum())
            g[idx] = (vals[0] - vals[1]) / ((steps[0] - steps[1]) * h)
        grads.append(g)
    return grads


def _close(a, b, rtol, atol) -> bool:
    import numpy as np
    return np.asarray(a).shape == np.asarray(b).shape and bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True))


def check(seed: int, directory, fd: bool = True) -> str | None:
    """None if program `seed`'s compiled gradients agree with both references, else why not."""
    import pycompile as ms
    gen = Gen(seed)
    args = gen.arrays()
    try:
        ref_mod = load(gen.source(copy_reads=True), directory, f"lg_ref_{seed}")
        ref = run_grad(ref_mod, args, ms.PYNATIVE_MODE)
    except Exception as e:      # noqa: BLE001 - a program PyNative rejects is not a test of the compiler
        return None if _invalid(e) else f"PyNative failed: {type(e).__name__}: {e}"
    try:
        got = run_grad(load(gen.source(copy_reads=False), directory, f"lg_{seed}"), args, ms.GRAPH_MODE)
    except ms.CompileError as e:
        if UNSUPPORTED in str(e) and gen.reads_in_inner_loop():
            return None
        return f"compiled failed: {type(e).__name__}: {e}"
    except Exception as e:      # noqa: BLE001 - a crash of the compiler is a failure
        return f"compiled failed: {type(e).__name__}: {e}"
    for what, a, b in zip(("input gradients", "weight gradients", "Parameters after"), got, ref):
        if not all(_close(u, v, 1e-9, 1e-9) for u, v in zip(a, b)):
            return f"{what}: compiled {a} != PyNative {b}"
    if fd:
        import numpy as np
        num, fine = finite_differences(ref_mod, args), finite_differences(ref_mod, args, 1e-7)
        right, left = finite_differences(ref_mod, args, 1e-6, (1, 0)), finite_differences(ref_mod, args, 1e-6, (0, -1))
        for u, v, w, r, lf in zip(ref[0], num, fine, right, left):
            # where a step flips a tensor `if` (its condition reads x, or a Parameter near x) the
            # forward jumps and the two step sizes disagree: no derivative to compare there; nor
            # where x sits on the `if`'s boundary (seed 4659: x = 0 and `0.4 x < x` is False at
            # 0 and -h, True at +h), where the one-sided derivatives differ
            smooth = np.isclose(v, w, rtol=1e-3, atol=1e-4) & np.isclose(r, lf, rtol=1e-3, atol=1e-4)
            if not _close(np.asarray(u)[smooth], np.asarray(v)[smooth], 1e-5, 1e-5):
                return f"PyNative input gradients {ref[0]} != finite differences {num}"
    return None


def _invalid(e) -> bool:
    return False


def soak(first: int, count: int) -> dict:
    import tempfile
    import time
    stats = {"programs": 0, "mismatches": [], "crashes": [], "unsupported": 0, "seconds": 0.0}
    t0 = time.time()
    with tempfile.TemporaryDirectory() as d:
        for seed in range(first, first + count):
            why = check(seed, d)
            stats["programs"] += 1
            stats["unsupported"] += why is None and Gen(seed).reads_in_inner_loop()
            if why is not None:
                (stats["crashes"] if why.startswith("compiled failed") else stats["mismatches"]).append((seed, why))
                print(f"seed {seed}: {why}", flush=True)
    stats["seconds"] = round(time.time() - t0, 1)
    return stats


if __name__ == "__main__":
    import sys
    s = soak(int(sys.argv[1]), int(sys.argv[2]))
    print(f"programs {s['programs']} mismatches {len(s['mismatches'])} crashes {len(s['crashes'])} "
          f"unsupported (CompileError) {s['unsupported']} seconds {s['seconds']}", flush=True)
