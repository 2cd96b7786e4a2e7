"""Differential test of fusion: random dataflow programs mixing elementwise ops, reductions (row,
column, whole), softmax, log_softmax, LayerNorm and matrix products, with values reused by
several consumers and returned from the middle of chains - the cases that decide what a fused
group may hold (prologues, epilogues, heads, extra outputs). Compiled float64 results must equal
PyNative's. A longer run: `python tests/compiler/test_fuzz_fusion.py 0 300`.
The generator also views values as (1, R, C) (Reshapes that fusion sinks) and, with C = 300 and
few rows, makes products that are split by columns."""
import importlib.util
import pathlib
import random
import sys
import tempfile

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor


class Gen:
    """A straight-line program over a, b: (R, C), row: (C,), col: (R, 1), w: (C, C). Values of
    kind T are (1, R, C) views: Reshapes that split a leading axis, which fusion sinks below
    elementwise ops (as it does for nn.Dense on 3-D inputs)."""

    def __init__(self, seed: int, rows: int, cols: int):
        self.R, self.C = rows, cols
        self.r = random.Random(seed)
        self.vals = [("a", "RC"), ("b", "RC"), ("row", "C"), ("col", "R1")]
        self.lines: list = []

    def pick(self, kinds="RC C R1 11"):
        pool = [v for v in self.vals if v[1] in kinds.split()]
        # prefer recent values: chains, with some reuse of older ones
        return pool[-1] if self.r.random() < 0.4 else self.r.choice(pool)

    def emit(self, expr: str, kind: str):
        name = f"v{len(self.lines)}"
        self.lines.append(f"{name} = {expr}")
        self.vals.append((name, kind))

    @staticmethod
    def bshape(k1, k2):
        if "T" in (k1, k2):
            return "T"
        if "RC" in (k1, k2) or {k1, k2} == {"C", "R1"}:
            return "RC"
        if k1 == k2:
            return k1
        return k1 if k2 == "11" else k2 if k1 == "11" else "RC"

    def step(self):
        r = self.r
        c = r.random()
        if c < 0.08:
            x, k = self.pick("RC T")
            if k == "RC":
                self.emit(f"ops.reshape({x}, (1, {self.R}, {self.C}))", "T")
            else:
                self.emit(f"ops.reshape({x}, ({self.R}, {self.C}))", "RC")
            return
        if c < 0.35:
            (x, kx), (y, ky) = self.pick("RC C R1 11 T"), self.pick()
            op = r.choice(["{} + {}", "{} - {}", "{} * {}", "ops.maximum({}, {})", "ops.minimum({}, {})"])
            self.emit(op.format(x, y), self.bshape(kx, ky))
        elif c < 0.5:
            x, k = self.pick("RC C R1 11 T")
            op = r.choice(["ops.abs({})", "ops.tanh({})", "ops.exp(-ops.abs({}))", "{} * 0.5", "ops.relu({})",
                           "ops.sigmoid({})", "ops.square(ops.tanh({}))"])
            self.emit(op.format(x), k)
        elif c < 0.7:
            x, _ = self.pick("RC")
            fn = r.choice(["ops.sum({}, -1, keepdim=True)", "ops.mean({}, -1, True)", "ops.amax({}, -1, True)",
                           "ops.amin({}, -1, True)"])
            self.emit(fn.format(x), "R1")
        elif c < 0.75:
            x, _ = self.pick("RC")
            fn = r.choice(["ops.mean({}, 0, True)", "ops.amax({}, 0, True)"])
            self.emit(fn.format(x), "1C")
            self.vals[-1] = (self.vals[-1][0], "C")      # (1, C) broadcasts like (C,)
        elif c < 0.8:
            x, _ = self.pick("RC")
            self.emit(f"ops.mean({x})", "11")
        elif c < 0.9:
            x, _ = self.pick("RC")
            fn = r.choice(["ops.softmax({})", "ops.log_softmax({}) * 0.1", "ops.layer_norm({}, row, col[0, 0] + row)",
                           "ops.softmax({} * 2.0 + row)"])
            self.emit(fn.format(x), "RC")
        else:
            x, _ = self.pick("RC")
            c2 = r.random()
            if c2 < 0.35:
                self.emit(f"ops.tanh(ops.matmul({x}, w) * 0.1)", "RC")
            elif c2 < 0.7:
                self.emit(f"ops.matmul({x}, w) + row", "RC")
            else:           # a product viewed as (1, R, C): its epilogue continues past the view
                self.emit(f"ops.reshape(ops.matmul({x}, w), (1, {self.R}, {self.C}))", "T")

    def program(self) -> str:
        for _ in range(self.r.randint(3, 12)):
            self.step()
        names = [v for v, _ in self.vals[4:]]
        outs = {names[-1]} | set(self.r.sample(names, min(len(names), self.r.randint(0, 3))))
        body = "\n    ".join(self.lines)
        return f"def prog(a, b, row, col, w):\n    {body}\n    return {', '.join(sorted(outs))},\n"


def shapes(seed: int):
    # C = 300 with few rows: products split by columns across threads
    r = random.Random(seed * 7 + 1)
    return r.choice([1, 3, 7, 33, 300]), r.choice([1, 2, 5, 16, 130, 300])


def run_case(seed: int, tmp_path: pathlib.Path):
    R, C = shapes(seed)
    src = Gen(seed, R, C).program()
    path = tmp_path / f"fuzz_fusion_{seed}.py"      # graph code is read from its source file
    path.write_text("from pycompile import ops\n\n\n" + src)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    prog = mod.prog
    rng = np.random.default_rng(seed)
    args = [rng.standard_normal(s) for s in ((R, C), (R, C), (C,), (R, 1), (C, C))]
    eager = prog(*[Tensor(v) for v in args])
    compiled = ms.jit(prog)(*[Tensor(v) for v in args])
    assert len(eager) == len(compiled)
    for k, (e, c) in enumerate(zip(eager, compiled)):
        assert c.shape == e.shape and c.dtype == e.dtype, (src, k)
        np.testing.assert_allclose(c.asnumpy(), e.asnumpy(), rtol=1e-9, atol=1e-9,
                                   err_msg=f"seed {seed}, output {k}, shapes {(R, C)}:\n{src}")


@pytest.mark.parametrize("seed", range(40))
def test_fused_programs_match_pynative(seed, tmp_path):
    run_case(seed, tmp_path)


if __name__ == "__main__":
    lo, hi = (int(a) for a in sys.argv[1:3])
    with tempfile.TemporaryDirectory() as d:
        for s in range(lo, hi):
            run_case(s, pathlib.Path(d))
    print(f"seeds {lo}..{hi - 1}: ok")
