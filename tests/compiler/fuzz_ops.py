"""Differential fuzzing over the op table: random programs, compiled vs PyNative vs NumPy.

A program is a random DAG of ops over a few input tensors of random dtypes (bool, int8, int16,
int32, int64, uint8, float16, float32, float64) and small broadcastable shapes: every pure
elementwise op of the table (`apply(P.<Op>, [...])`, with Python numbers mixed in), casts,
reductions over random axes, argmax, softmax / log_softmax, LayerNorm, reshapes, transposes,
slices with negative steps, gathers, matrix products, select, concat / stack and broadcasts,
inside runtime `if` / `for` / `while` blocks now and then. Inputs sometimes hold NaN, infinities,
signed zeros and integer extremes. The generator runs each candidate statement in PyNative as it
writes it and keeps only those PyNative accepts, so every program is valid; the compiled program
must then give the same dtypes, shapes and values (ints and bools exactly, floats within a few
ulps of the dtype). Programs whose values are all float64 are also run with each op replaced by
NumPy's (an independent reference for the op table's eager code). Float programs are
differentiated too: compiled gradients equal PyNative's, and (a sample) finite differences.

Programs are compiled in batches (one C compile for several programs); a failing batch is
re-run one program at a time, and a failing program is shrunk to the fewest statements that
still fail. tests/compiler/test_fuzz_ops.py runs a CI-sized batch (PYCOMPILE_FUZZ_EXAMPLES sets
how many); `python tests/compiler/fuzz_ops.py FIRST COUNT` runs a soak and prints its counts.
"""
from __future__ import annotations

import contextlib
import importlib.util
import io
import math
import random
import sys
import tempfile
import traceback
import warnings

import numpy as np

import fuzz_tail
import pycompile as ms
from pycompile import Tensor, ops
from pycompile.ops import _table
from pycompile.ops import prims as P
from pycompile.ops._table import Effect, apply
from pycompile.ops.lowering import Elementwise

DTYPES = ["bool_", "int8", "int16", "int32", "int64", "uint8", "float16", "float32", "float64"]
SHAPES = [(), (1,), (4,), (3, 4), (1, 4), (3, 1), (2, 3, 4), (2, 1, 4), (5, 6), (6, 5)]

from pycompile.ops.defs import complex as _complex_rows  # noqa: E402

_COMPLEX_ROWS = set(_complex_rows.__all__)

# every pure elementwise op of the table that takes no attributes (Cast is generated apart)
# (not the complex rows, which read or build complex values: tests/backend/test_cplx33_graph.py)
# (nor the backward-only rows added since, kept out so that every seed's program stays what it was:
# ReLUGrad, checked in tests/backend/test_eager_kernels.py and the edge sweep)
_BACKWARD_ROWS = {"ReLUGrad"}
ELEMENTWISE = sorted((op for op in _table.OPS.values()
                      if isinstance(op.lower, Elementwise) and op.effect is Effect.PURE and not op.graph_only
                      and not op.attrs and op.eager is not None and op.name not in _COMPLEX_ROWS
                      and op.name not in _BACKWARD_ROWS),
                     key=lambda op: op.name)

# (sin of exp(18) +- 1 ulp; asin, acos, atanh and acosh near +-1, log1p near -1, tan near pi / 2,
# atan2 of two tiny values)
MAGNIFYING = (P.Rsqrt, P.Reciprocal, P.RealDiv, P.Log, P.Pow, P.Sin, P.Cos, P.Log2, P.Log1p, P.Tan,
              P.Asin, P.ACos, P.Atanh, P.Acosh, P.Atan2)
# results that jump where the input crosses an integer or zero: an approximate input makes them
# differ entirely, so they take exact inputs only
DISCRETE = (P.Floor, P.FloorDiv, P.FloorMod, P.Ceil, P.Round, P.Trunc, P.Sign, P.Mod)

HEADER = '''import numpy as np
import pycompile as ms
from pycompile import Tensor, ops
from pycompile.ops import prims as P
from pycompile.ops._table import apply

'''


def _quiet():
    """No warnings, and PyNative on NumPy (backend/eager.numpy_only): the ops whose row says
    eager_kernel would otherwise run the same C in PyNative as compiled, and the fuzzers compare
    compiled code with an independent implementation."""
    from pycompile.backend.eager import numpy_only
    stack = contextlib.ExitStack()
    stack.enter_context(warnings.catch_warnings())
    warnings.simplefilter("ignore")
    stack.enter_context(np.errstate(all="ignore"))
    stack.enter_context(numpy_only())
    return stack


def input_array(r: random.Random, dtype: str, shape: tuple) -> np.ndarray:
    rng = np.random.default_rng(r.randrange(1 << 30))
    n = math.prod(shape)
    if dtype == "bool_":
        a = np.asarray(rng.random(shape) < 0.5)
        if a.any() and rng.random() < 0.3:
            # Trues stored as other bytes (np.uint8(2) viewed as bool): Tensor() must normalise
            # them. Drawn from `rng`, so each seed's program stays what it was
            raw = a.view(np.uint8)
            raw[raw != 0] = rng.integers(2, 256, int(a.sum()))
        return a
    if dtype.startswith(("int", "uint")):
        info = np.iinfo(dtype)
        a = np.asarray(rng.integers(max(info.min, -20), min(info.max, 20) + 1, shape)).astype(dtype)
        if n and r.random() < 0.15:
            a.reshape(-1)[r.randrange(n)] = r.choice([info.min, info.max, 0, -1 if info.min < 0 else 1])
        return a
    a = np.asarray(rng.standard_normal(shape) * r.choice([1.0, 3.0, 0.1])).astype(dtype)
    if n and r.random() < 0.15:
        a.reshape(-1)[r.randrange(n)] = r.choice([np.nan, np.inf, -np.inf, -0.0, 0.0, 1e4, -1e4])
    return a


class Gen:
    """One random program. `env` holds the PyNative value of every name, so each candidate
    statement runs before it is kept."""

    def __init__(self, seed: int, float64_only: bool = False, max_elems: int = 64):
        self.r = random.Random(seed)
        self.seed = seed
        self.float64_only = float64_only
        self.max_elems = max_elems
        self.globals = {"np": np, "ms": ms, "Tensor": Tensor, "ops": ops, "P": P, "apply": apply}
        self.env: dict = {}
        self.lines: list = []
        self.inputs: list = []             # (name, array)
        self.approx: dict = {}             # name -> the value may differ in its last bits
        # names whose float16 value went through a sum of approximate terms (a product or a
        # reduction): cancellation there can magnify float16's rounding differences (NumPy
        # accumulates a float16 product in float16, compiled code in float32) far beyond a few
        # ulps of the result; compared with LOOSE's tolerance. Kept apart from `approx` so that
        # the programs of every seed stay what they were
        self.loose: set = set()
        # name -> an absolute bound on its rounding differences, where they do not scale with
        # the value: softmax / log_softmax move their outputs by their inputs' absolute rounding
        # (seed 5806: log_softmax over [a, a + 1 ulp] with a = 1727 from a matmul is -log 2 -+ 6e-5,
        # 4e-5 of the result). Values computed from such a value carry the bound onward
        self.spread: dict = {}
        # names whose value is a magnifying op of exact inputs (tan(4.0) is 1.1578212 in NumPy and in
        # one lane of the compiled loop, 1.1578213 in another), or taken from one by exact ops: not
        # `approx` (the programs of every seed stay what they were), but a magnifying op reading one
        # (seed 30147: LayerNorm of such a "constant" row, whose 1-ulp spread becomes its signal) is
        # ill-conditioned there, and what it computes is not compared (its spread is infinite)
        self.rounded: set = set()
        self.count = 0
        # the least precise float dtype the program computes in: a float16 value cast to float32
        # carries float16's rounding differences (libmvec vs NumPy's libm: a few ulps)
        self.loosest = "float64"

    # ---- values -------------------------------------------------------------------------------
    def new_name(self) -> str:
        self.count += 1
        return f"v{self.count}"

    def pool(self, pred=lambda t: True) -> list:
        return [n for n, v in self.env.items() if isinstance(v, Tensor) and pred(v)]

    def pick(self, pred=lambda t: True):
        names = self.pool(pred)
        if not names:
            return None
        return names[-1] if self.r.random() < 0.35 else self.r.choice(names)

    def run(self, text: str) -> bool:
        """Run `text` (statements) in PyNative; keep it when it succeeds with small values."""
        trial = dict(self.env)
        try:
            with _quiet(), contextlib.redirect_stdout(io.StringIO()):
                exec(text, self.globals, trial)
        except Exception:  # noqa: BLE001 - PyNative refuses it: not a program
            return False
        for v in trial.values():
            if isinstance(v, Tensor) and v.size > self.max_elems:
                return False
        self.env = trial
        self.lines.extend(text.splitlines())
        for v in trial.values():
            if isinstance(v, Tensor) and v.dtype.is_float and TOL[v.dtype.np.name] > TOL[self.loosest]:
                self.loosest = v.dtype.np.name
        return True

    def assign(self, expr: str, inputs=(), kind: str = "exact") -> bool:
        """`name = expr` over the values `inputs`. Values carry whether they are approximate:
        float results of arithmetic, transcendental functions, sums and products may differ from
        PyNative in the last bits (libmvec, FMA contraction, summation order), which is fine -
        but a comparison, a floor or a cast to an integer of such a value may then differ
        entirely, so those are not generated. kind: 'exact' (the result is one of the operands:
        max, abs, layout ops ...), 'approx' (arithmetic), 'discrete' (floor and the like),
        'magnifying' (an approximate result of approximate inputs, whose small absolute
        differences it can make large: 1 / x, rsqrt, log, pow, division, LayerNorm's 1 / std -
        the last bits of 1 + erf(-2.1) are a large share of it; sin and cos of a large value)"""
        inputs = [i for i in inputs if i in self.env]
        approx_in = any(self.approx.get(i, False) for i in inputs)
        if approx_in and kind in ("discrete", "magnifying"):
            return False
        name = self.new_name()
        if not self.run(f"{name} = {expr}"):
            return False
        out = self.env[name]
        if isinstance(out, Tensor) and not out.dtype.is_float and approx_in:
            self._undo(name)
            return False
        self.approx[name] = isinstance(out, Tensor) and out.dtype.is_float and (approx_in or kind == "approx")
        sums = expr.startswith(("ops.matmul(", "ops.sum(", "ops.mean(", "ops.layer_norm(", "ops.softmax(",
                                "ops.log_softmax("))
        if any(i in self.loose for i in inputs) or (sums and approx_in and self.loosest == "float16"):
            self.loose.add(name)
        rounded_in = any(i in self.rounded for i in inputs)
        if isinstance(out, Tensor) and out.dtype.is_float and (rounded_in or (kind == "magnifying" and not approx_in)):
            self.rounded.add(name)
        bound = max((self.spread.get(i, 0.0) for i in inputs), default=0.0)
        if kind == "magnifying" and rounded_in:
            bound = float("inf")
        if expr.startswith(("ops.softmax(", "ops.log_softmax(")) and approx_in and isinstance(out, Tensor):
            v = self.env[inputs[0]].asnumpy()
            # a few ulps of the largest input, where an ulp is the input's float dtype's
            bound += 4 * float(np.finfo(v.dtype).eps) * float(np.abs(v[np.isfinite(v)]).max(initial=0.0))
        if bound:
            self.spread[name] = bound
        return True

    def _undo(self, name: str) -> None:
        del self.env[name]
        self.lines.pop()

    # ---- the program --------------------------------------------------------------------------
    def program(self, name: str = "prog") -> str:
        r = self.r
        for k in range(r.randint(1, 4)):
            dt = "float64" if self.float64_only else r.choice(DTYPES)
            shape = r.choice(SHAPES)
            arr = input_array(r, dt, shape)
            nm = f"a{k}"
            self.inputs.append((nm, arr))
            self.env[nm] = Tensor(arr)
        for _ in range(r.randint(3, 14)):
            for _attempt in range(12):
                if self.step():
                    break
        self.tail()
        names = [n for n in self.pool() if n.startswith("v")]
        if not names:
            names = [self.inputs[0][0]]
        outs = sorted({names[-1]} | set(r.sample(names, min(len(names), r.randint(0, 2)))))
        self.outputs = outs
        args = ", ".join(n for n, _ in self.inputs)
        body = "\n".join("    " + line for line in self.lines) or "    pass"
        return f"def {name}({args}):\n{body}\n    return {', '.join(outs)},\n"

    def tail(self) -> None:
        """Issue 31's compositions after the statements above (fuzz_tail.py)."""
        fuzz_tail.tail(self, input_array, TOL)

    def step(self) -> bool:
        r = self.r
        c = r.random()
        if c < 0.38:
            return self.elementwise()
        if c < 0.46:
            return self.cast()
        if c < 0.56:
            return self.reduction()
        if c < 0.64:
            return self.layout()
        if c < 0.70:
            return self.slicing()
        if c < 0.74:
            return self.gather()
        if c < 0.80:
            return self.matmul()
        if c < 0.85:
            return self.select()
        if c < 0.88:
            return self.concat()
        if c < 0.91:
            return self.normalize()
        return self.control()

    def operand(self):
        if self.r.random() < 0.2:
            return self.r.choice(["2", "-1", "0.5", "3.0", "True", "-2.5", "0"])
        return self.pick()

    def elementwise(self) -> bool:
        op = self.r.choice(ELEMENTWISE)
        args = [self.operand() for _ in op.inputs]
        if any(a is None for a in args) or not any(a.startswith(("a", "v")) for a in args):
            return False
        kind = ("discrete" if op in DISCRETE else "exact" if op.lower.exact
                else "magnifying" if op in MAGNIFYING else "approx")
        return self.assign(f"apply(P.{op.name}, [{', '.join(args)}])", args, kind)

    def cast(self) -> bool:
        x = self.pick()
        dt = "float64" if self.float64_only else self.r.choice(DTYPES)
        return x is not None and self.assign(f"ops.cast({x}, ms.{dt})", [x])

    def reduction(self) -> bool:
        x = self.pick(lambda t: t.ndim >= 1)
        if x is None:
            return False
        nd = self.env[x].ndim
        r = self.r
        axis = r.choice([None, r.randrange(-nd, nd), tuple(sorted(r.sample(range(nd), r.randint(1, nd))))])
        keep = r.choice([True, False])
        fn = r.choice(["sum", "mean", "amax", "amin", "all", "any", "argmax"])
        if fn == "argmax":
            return self.assign(f"ops.argmax({x}, {r.randrange(-nd, nd)}, {keep})", [x])
        return self.assign(f"ops.{fn}({x}, {axis!r}, {keep})", [x], "approx" if fn in ("sum", "mean") else "exact")

    def layout(self) -> bool:
        x = self.pick(lambda t: t.ndim >= 1)
        if x is None:
            return False
        t = self.env[x]
        r = self.r
        c = r.random()
        if c < 0.35:
            n = t.size
            dims = [d for d in range(1, n + 1) if n % d == 0] or [1]
            a = r.choice(dims)
            shape = r.choice([(a, n // a), (n,), (a, -1), (1, n // a, a), (-1,)])
            return self.assign(f"ops.reshape({x}, {shape!r})", [x])
        if c < 0.65:
            perm = list(range(t.ndim))
            r.shuffle(perm)
            return self.assign(f"ops.transpose({x}, {tuple(perm)!r})", [x])
        if c < 0.85:
            shape = tuple(r.choice([d, 2]) if d == 1 else d for d in t.shape)
            if r.random() < 0.5:
                shape = (2,) + shape
            return self.assign(f"ops.broadcast_to({x}, {shape!r})", [x])
        return self.assign(f"ops.expand_dims({x}, {r.randrange(-t.ndim - 1, t.ndim + 1)})", [x])

    def slicing(self) -> bool:
        x = self.pick(lambda t: t.ndim >= 1)
        if x is None:
            return False
        t = self.env[x]
        r = self.r
        parts = []
        for d in t.shape:
            c = r.random()
            if c < 0.3:
                parts.append(":")
            elif c < 0.55:
                parts.append("::-1")
            elif c < 0.75:
                lo, hi = sorted(r.sample(range(-d - 1, d + 2), 2))
                parts.append(f"{lo}:{hi}:{r.choice([1, 2, 3])}")
            elif c < 0.9:
                hi, lo = sorted(r.sample(range(-d - 1, d + 2), 2))
                parts.append(f"{lo}:{hi}:{r.choice([-1, -2])}")
            else:
                parts.append(str(r.randrange(-d, d)) if d else ":")
        return self.assign(f"{x}[{', '.join(parts)}]", [x])

    def gather(self) -> bool:
        x = self.pick(lambda t: t.ndim >= 1 and all(d > 0 for d in t.shape))
        if x is None:
            return False
        t = self.env[x]
        axis = self.r.randrange(t.ndim)
        n = t.shape[axis]
        idx = [self.r.randrange(-n, n) for _ in range(self.r.randint(1, 5))]
        dt = self.r.choice(["int32", "int64"])
        return self.assign(f"ops.gather({x}, Tensor(np.array({idx!r}, np.{dt})), {axis})", [x])

    def matmul(self) -> bool:
        a = self.pick(lambda t: t.ndim >= 2 and t.dtype.is_float)
        if a is None:
            return False
        t = self.env[a]
        k = t.shape[-1]
        b = self.pick(lambda u: u.ndim >= 2 and u.shape[-2] == k and u.dtype == t.dtype)
        if b is None or self.r.random() < 0.4:
            b = f"ops.transpose({a}, {tuple(range(t.ndim - 2)) + (t.ndim - 1, t.ndim - 2)!r})"
        return self.assign(f"ops.matmul({a}, {b})", [a, b.split("(")[-1].split(",")[0]], "approx")

    def select(self) -> bool:
        c = self.pick(lambda t: t.dtype == ms.bool_)
        if c is None:
            x = self.pick()
            if x is None or self.approx.get(x):
                return False
            c = f"({x} > 0)"
        a, b = self.pick(), self.operand()
        return a is not None and b is not None and self.assign(f"ops.select({c}, {a}, {b})", [a, b])

    def concat(self) -> bool:
        x = self.pick(lambda t: t.ndim >= 1)
        if x is None:
            return False
        t = self.env[x]
        y = self.pick(lambda u: u.shape == t.shape and u.dtype == t.dtype) or x
        if self.r.random() < 0.5:
            return self.assign(f"ops.concat(({x}, {y}), {self.r.randrange(-t.ndim, t.ndim)})", [x, y])
        return self.assign(f"ops.stack(({x}, {y}), {self.r.randrange(-t.ndim - 1, t.ndim + 1)})", [x, y])

    def normalize(self) -> bool:
        x = self.pick(lambda t: t.ndim >= 1 and t.dtype.is_float)
        if x is None:
            return False
        t = self.env[x]
        c = self.r.random()
        if c < 0.4:
            return self.assign(f"ops.softmax({x}, {self.r.randrange(-t.ndim, t.ndim)})", [x], "approx")
        if c < 0.7:
            return self.assign(f"ops.log_softmax({x}, {self.r.randrange(-t.ndim, t.ndim)})", [x], "approx")
        n, dt = t.shape[-1], t.dtype
        return self.assign(f"ops.layer_norm({x}, ops.ones(({n},), ms.{dt.np.name}) * 1.5, "
                           f"ops.zeros(({n},), ms.{dt.np.name}) + 0.25)", [x], "magnifying")

    def _same_type(self, x: str) -> list:
        """Expressions over x with x's dtype and shape (loop and branch bodies)."""
        t = self.env[x]
        if t.dtype.is_float:
            return [f"{x} * 0.5 + 1.0", f"apply(P.Tanh, [{x}])", f"ops.maximum({x}, {x} * -0.5)", f"{x} - 0.25",
                    f"apply(P.Abs, [{x}])"]
        if t.dtype == ms.bool_:
            return [f"ops.logical_not({x})", f"ops.logical_and({x}, {x})"]
        return [f"{x} + 1", f"{x} * 2", f"{x} - 3", f"ops.maximum({x}, {x} // 2)"]

    def control(self) -> bool:
        x = self.pick()
        exact = [n for n in self.pool(lambda t: t.dtype.is_float or t.dtype.is_int) if not self.approx.get(n)]
        if x is None or not exact:
            return False
        c = self.r.choice(exact)
        r = self.r
        v = self.new_name()
        body = r.sample(self._same_type(x), 2)
        cond = f"ops.amax(ops.cast({c}, ms.float32)) > {r.choice([-1.0, 0.0, 2.0])}"      # exact: max, not sum
        kind = r.choice(["if", "for", "while"])
        if kind == "if":
            text = (f"if {cond}:\n    {v} = {body[0]}\nelse:\n    {v} = {body[1]}")
        elif kind == "for":
            b = body[0].replace(x, v) if r.random() < 0.7 else body[0]
            text = f"{v} = {x}\nfor i{self.count} in range({r.randint(1, 4)}):\n    {v} = {b}"
        else:
            b = body[0].replace(x, v)
            k = f"k{self.count}"
            text = (f"{v} = {x}\n{k} = ops.zeros((), ms.int32)\nwhile {k} < {r.randint(1, 4)}:\n"
                    f"    {v} = {b}\n    {k} = {k} + 1")
        if not self.run(text):
            return False
        self.approx[v] = self.env[v].dtype.is_float
        if x in self.loose:
            self.loose.add(v)
        return True


# ---- running and comparing ----------------------------------------------------------------------

TOL = {"float16": (5e-3, 2e-3), "float32": (2e-5, 1e-6), "float64": (1e-10, 1e-12)}
LOOSE = "float16 after cancellation"
TOL[LOOSE] = (5e-2, 2e-2)


def compare(got, want, what: str, loosest: str = "float64", spread: float = 0.0) -> str | None:
    """None when the results agree, else what differs. Floats agree within the tolerance of
    their dtype or of the least precise float dtype the program computed in (`loosest`), plus
    `spread`: an absolute bound the value carries (Gen.spread)."""
    if not isinstance(got, Tensor) or not isinstance(want, Tensor):
        return None if type(got) is type(want) and got == want else f"{what}: {got!r} vs {want!r}"
    if got.dtype != want.dtype or got.shape != want.shape:
        return f"{what}: {got.dtype}{list(got.shape)} vs {want.dtype}{list(want.shape)}"
    g, w = got.asnumpy(), want.asnumpy()
    if w.dtype.kind != "f":
        return None if np.array_equal(g, w) else f"{what}: {g!r} vs {w!r}"
    rtol, atol = max(TOL[w.dtype.name], TOL[loosest])
    finite = np.isfinite(w)
    scale = float(np.max(np.abs(w[finite]), initial=1.0))
    same_special = np.array_equal(np.isnan(g), np.isnan(w)) and np.array_equal(g[np.isinf(w)], w[np.isinf(w)])
    # an infinite spread (an ill-conditioned value: Gen.rounded) keeps only the finite positions
    close = ((not np.isfinite(spread) or np.allclose(g[finite], w[finite], rtol=rtol,
                                                     atol=atol * max(scale, 1.0) + spread))
             and np.all(np.isfinite(g[finite])))
    return None if same_special and close else f"{what}: {g!r} vs {w!r}"


def load(src: str, directory, stem: str):
    path = directory / f"{stem}.py"
    path.write_text(HEADER + src)
    spec = importlib.util.spec_from_file_location(stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class Case:
    """A program with its inputs: generated from a seed, or a shrunk copy of one."""

    def __init__(self, seed: int, gen: Gen | None = None):
        self.seed = seed
        if gen is None:
            gen = Gen(seed, float64_only=seed % 5 == 0)
            gen.program(f"prog_{seed}")
        self.inputs = gen.inputs
        self.lines = list(gen.lines)
        self.outputs = list(gen.outputs)
        self.loosest = gen.loosest
        self.loose = set(gen.loose)
        self.spread = dict(gen.spread)
        self.float64_only = gen.float64_only

    @property
    def src(self) -> str:
        args = ", ".join(n for n, _ in self.inputs)
        body = "\n".join("    " + line for line in self.lines) or "    pass"
        return f"def prog_{self.seed}({args}):\n{body}\n    return {', '.join(self.outputs)},\n"

    def args(self):
        return [Tensor(a.copy()) for _, a in self.inputs]

    def statements(self) -> list:
        """(first, end) line ranges of the top-level statements (a block with its body)."""
        starts = [k for k, line in enumerate(self.lines) if not line.startswith((" ", "else"))]
        return list(zip(starts, starts[1:] + [len(self.lines)]))

    def without(self, first: int, end: int):
        """This program without lines [first, end), keeping the outputs still defined; None when
        nothing would be returned."""
        c = Case.__new__(Case)
        c.__dict__.update(self.__dict__)
        c.lines = self.lines[:first] + self.lines[end:]
        defined = {line.split("=")[0].strip() for line in c.lines if "=" in line}
        c.outputs = [o for o in self.outputs if o in defined or o.startswith("a")]
        return c if c.outputs else None


def _cases(items) -> list:
    return [c if isinstance(c, Case) else Case(c) for c in items]


def run_batch(seeds, directory) -> dict:
    """Compile the programs of `seeds` (or Cases) together; returns {seed: failure text} (empty:
    all agree)."""
    cases = _cases(seeds)
    src = "\n\n".join(c.src for c in cases)
    calls = []
    k = 0
    for c in cases:
        names = [f"x[{k + j}]" for j in range(len(c.inputs))]
        calls.append(f"prog_{c.seed}({', '.join(names)})")
        k += len(c.inputs)
    src += "\n\ndef batch(*x):\n    return (" + ", ".join(calls) + ",)\n"
    mod = load(src, directory, f"fuzz_batch_{cases[0].seed}_{len(cases)}")
    flat = [a for c in cases for a in c.args()]
    failures = {}
    with _quiet():
        want = mod.batch(*flat)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            got = ms.jit(mod.batch)(*[a for c in cases for a in c.args()])
    except Exception:  # noqa: BLE001 - a crash: find the program(s) that cause it
        if len(cases) == 1:
            return {cases[0].seed: "compiled run raised:\n" + traceback.format_exc(limit=-4)}
        for c in cases:
            failures.update(run_batch([c], directory))
        return failures
    for c, g, w in zip(cases, got, want):
        for j, (gg, ww) in enumerate(zip(g, w)):
            bad = compare(gg, ww, f"output {j}", LOOSE if c.outputs[j] in c.loose else c.loosest,
                          c.spread.get(c.outputs[j], 0.0))
            if bad:
                failures[c.seed] = bad
                break
    return failures


def _loss(prog, rs):
    """sum(out * r) over the program's float outputs: a scalar to differentiate."""
    def loss(*xs):
        total = 0.0
        for out, r in zip(prog(*xs), rs):
            if r is not None:
                total = total + (out * r).sum()
        return total
    return loss


def differentiable(case: Case) -> bool:
    return case.float64_only and all(np.isfinite(a).all() for _, a in case.inputs)


def grad_batch(seeds, directory, stats: dict | None = None) -> dict:
    """Gradients of the float64 programs of `seeds` (their float outputs weighted by random
    tensors), compiled together: they must equal PyNative's. Programs PyNative cannot
    differentiate (an op without a gradient rule) are skipped. Returns {seed: failure}."""
    cases = [c for c in _cases(seeds) if differentiable(c)]
    if not cases:
        return {}
    mod = load("\n\n".join(c.src for c in cases), directory, f"fuzz_grad_{cases[0].seed}_{len(cases)}")
    grads, keep = [], []
    for c in cases:
        prog = getattr(mod, f"prog_{c.seed}")
        with _quiet():
            outs = prog(*c.args())
        rng = np.random.default_rng(c.seed)
        rs = [Tensor(rng.standard_normal(o.shape)) if o.dtype == ms.float64 else None for o in outs]
        if all(r is None for r in rs):
            continue
        g = ms.grad(_loss(prog, rs), tuple(range(len(c.inputs))))
        try:
            with _quiet():
                want = g(*c.args())
        except Exception:  # noqa: BLE001 - not differentiable in PyNative either: nothing to compare
            continue
        grads.append(g)
        keep.append((c, want))
    if not keep:
        return {}
    if stats is not None:
        stats["gradients compared"] = stats.get("gradients compared", 0) + len(keep)

    def all_grads(*flat):
        out, k = [], 0
        for (c, _), g in zip(keep, grads):
            out.append(g(*flat[k:k + len(c.inputs)]))
            k += len(c.inputs)
        return tuple(out)
    flat = [a for c, _ in keep for a in c.args()]
    try:
        with contextlib.redirect_stdout(io.StringIO()), _quiet():
            got = ms.jit(all_grads)(*flat)
    except Exception:  # noqa: BLE001
        if len(keep) == 1:
            return {keep[0][0].seed: "compiled gradient raised:\n" + traceback.format_exc(limit=-4)}
        failures = {}
        for c, _ in keep:
            failures.update(grad_batch([c], directory))
        return failures
    failures = {}
    for (c, want), g in zip(keep, got):
        want = want if isinstance(want, tuple) else (want,)
        g = g if isinstance(g, tuple) else (g,)
        for j, (gg, ww) in enumerate(zip(g, want)):
            bad = compare(gg, ww, f"gradient {j}", c.loosest)
            if bad:
                failures[c.seed] = bad
                break
    return failures


def check_finite_differences(seed, directory, samples: int = 3) -> str | None:
    """PyNative's gradient of a float64 program against central differences at a few points
    (skipped where the program is not smooth there: differences at h and h / 4 disagree)."""
    case = _cases([seed])[0]
    if not differentiable(case):
        return None
    seed = case.seed
    mod = load(case.src, directory, f"fuzz_fd_{seed}")
    prog = getattr(mod, f"prog_{seed}")
    with _quiet():
        outs = prog(*case.args())
    rng = np.random.default_rng(seed)
    rs = [Tensor(rng.standard_normal(o.shape)) if o.dtype == ms.float64 else None for o in outs]
    if all(r is None for r in rs):
        return None
    loss = _loss(prog, rs)
    try:
        with _quiet():
            grads = ms.grad(loss, tuple(range(len(case.inputs))))(*case.args())
    except Exception:  # noqa: BLE001 - not differentiable
        return None
    grads = grads if isinstance(grads, tuple) else (grads,)
    r = random.Random(seed)

    def value(k, idx, delta):
        xs = [a.copy() for _, a in case.inputs]
        xs[k].reshape(-1)[idx] += delta
        with _quiet():
            v = loss(*[Tensor(x) for x in xs])
        return float(v.asnumpy()) if isinstance(v, Tensor) else float(v)

    for k, (_, a) in enumerate(case.inputs):
        if a.size == 0:
            continue
        for idx in r.sample(range(a.size), min(samples, a.size)):
            fd = [(value(k, idx, h) - value(k, idx, -h)) / (2 * h) for h in (1e-5, 2.5e-6)]
            if not all(np.isfinite(fd)) or abs(fd[0] - fd[1]) > 1e-5 * max(1.0, abs(fd[0])):
                continue
            # a kink at the point (SeLU or abs of an input that is exactly 0): the one-sided
            # differences disagree, the central one is their mean and no derivative (seed 2025)
            h, f0 = 2.5e-6, value(k, idx, 0.0)
            if abs((value(k, idx, h) - f0) / h - (f0 - value(k, idx, -h)) / h) > 1e-3 * max(1.0, abs(fd[1])):
                continue
            g = float(grads[k].asnumpy().reshape(-1)[idx])
            # the loss's own rounding, seen through h: when it exceeds the tolerance, a difference
            # cannot measure this derivative (cosh(53) ~ 1e22 beside a term of 1e10; seed 1450)
            if 4e-16 * abs(value(k, idx, 0.0)) / 2.5e-6 > 1e-5 * max(1.0, abs(g)):
                continue
            if abs(g - fd[1]) > 1e-4 * max(1.0, abs(fd[1])):
                return f"gradient of input {k} at {idx}: {g} vs finite difference {fd[1]}"
    return None


def check_numpy(seed, directory) -> str | None:
    """A float64 program run again with every op computed by NumPy (numpy_namespace) instead of
    the op table's eager code: values must agree with PyNative's (as PyNative's dtype: MindSpore
    promotes an int tensor with a Python float to float32, NumPy to float64)."""
    case = _cases([seed])[0]
    if not case.float64_only:
        return None
    seed = case.seed
    mod = load(case.src, directory, f"fuzz_np_{seed}")
    fn = getattr(mod, f"prog_{seed}")
    with _quiet():
        want = fn(*case.args())
    g = dict(fn.__globals__)
    g.update(numpy_namespace())
    import types
    np_fn = types.FunctionType(fn.__code__, g)
    with _quiet():
        got = np_fn(*[a.copy() for _, a in case.inputs])
    for j, (gg, ww) in enumerate(zip(got, want)):
        gg = np.asarray(gg)
        if gg.shape != ww.shape:
            return f"NumPy output {j}: shape {gg.shape} vs {ww.shape}"
        bad = compare(Tensor(gg.astype(ww.dtype.np)), ww, f"NumPy output {j}", case.loosest)
        if bad:
            return bad
    return None


def numpy_namespace() -> dict:
    """The ops of a program on plain NumPy arrays (fuzz_numpy.py)."""
    import fuzz_numpy
    return fuzz_numpy.numpy_namespace([op.name for op in ELEMENTWISE], DTYPES)


def shrink(case, directory, check) -> Case:
    """The program with the fewest statements for which `check([case], directory)` still reports
    a failure (statements removed one at a time while it does)."""
    case = _cases([case])[0]
    changed = True
    while changed:
        changed = False
        for first, end in reversed(case.statements()):
            trial = case.without(first, end)
            if trial is None:
                continue
            try:
                with _quiet(), contextlib.redirect_stdout(io.StringIO()):
                    mod = load(trial.src, directory, f"fuzz_shrink_{trial.seed}")
                    getattr(mod, f"prog_{trial.seed}")(*trial.args())       # still a valid program
            except Exception:  # noqa: BLE001
                continue
            if check([trial], directory):
                case, changed = trial, True
                break
    return case


def soak(first: int, count: int, batch: int = 10, log=print) -> dict:
    """Run programs [first, first + count): every program compiled vs PyNative, the float64
    ones also vs NumPy and differentiated (compiled vs PyNative), every 25th against finite
    differences. Returns the counts and the failures."""
    import pathlib
    d = pathlib.Path(tempfile.mkdtemp(prefix="fuzz-ops-"))
    seeds = list(range(first, first + count))
    counts = {"programs": count, "mismatches": 0, "crashes": 0, "float64 vs NumPy": 0, "NumPy mismatches": 0,
              "gradients compared": 0, "gradient mismatches": 0, "finite differences": 0, "finite difference mismatches": 0}
    failures = {}
    for k in range(0, count, batch):
        before = len(failures)
        for s, why in run_batch(seeds[k:k + batch], d).items():
            counts["crashes" if why.startswith("compiled run raised") else "mismatches"] += 1
            failures[f"{s} forward"] = why
        f64 = [s for s in seeds[k:k + batch] if s % 5 == 0]
        for s, why in grad_batch(f64, d, counts).items():
            counts["gradient mismatches"] += 1
            failures[f"{s} gradient"] = why
        for s in f64:
            counts["float64 vs NumPy"] += 1
            try:
                why = check_numpy(s, d)
            except Exception:  # noqa: BLE001 - the NumPy reference failed: reported, the soak goes on
                why = "the NumPy reference raised:\n" + traceback.format_exc(limit=-3)
            if why:
                counts["NumPy mismatches"] += 1
                failures[f"{s} numpy"] = why
            if s % 25 == 0:
                counts["finite differences"] += 1
                why = check_finite_differences(s, d)
                if why:
                    counts["finite difference mismatches"] += 1
                    failures[f"{s} finite differences"] = why
        for key in list(failures)[before:]:
            log(f"seed {key}: {failures[key]}"[:3000])
        if (k // batch) % 50 == 0:
            log(f"{k + batch} programs: {counts}")
    return {"counts": counts, "failures": failures}


if __name__ == "__main__":      # python tests/compiler/fuzz_ops.py FIRST COUNT [BATCH]: a soak run
    import json
    first, count = int(sys.argv[1]), int(sys.argv[2])
    result = soak(first, count, int(sys.argv[3]) if len(sys.argv) > 3 else 10,
                  log=lambda m: print(m, flush=True))
    for key, why in sorted(result["failures"].items()):
        print(f"seed {key}: {why}"[:3000])
    print(json.dumps(result["counts"]))
