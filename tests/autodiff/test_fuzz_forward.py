"""Forward-mode fuzzing (issue 34): random chains of ops over (3, 3) float64 tensors, some
statements inside a tensor `if` or a `for`, differentiated by ops.jvp in PyNative and compiled;
both against central finite differences and against each other. A fortieth of
PYCOMPILE_FUZZ_EXAMPLES programs; none unless it is set (each program is its own C compile,
~1-5 s)."""
from __future__ import annotations

import importlib.util
import os
import random

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops
from pycompile.common import knobs

COUNT = knobs.get("PYCOMPILE_FUZZ_EXAMPLES") // 40 if os.environ.get("PYCOMPILE_FUZZ_EXAMPLES") else 0
EPS = 1e-6

UNARY = ["ops.sin({a})", "ops.tanh({a})", "ops.exp({a} * 0.3)", "ops.sigmoid({a})", "ops.relu({a})",
         "ops.square({a})", "ops.softmax({a}, -1)", "ops.log_softmax({a}, 0)", "ops.sqrt(ops.abs({a}) + 1.0)",
         "ops.log(ops.square({a}) + 1.0)", "ops.transpose({a}, (1, 0))", "ops.reshape({a}, (9,))[:9].reshape(3, 3)",
         "ops.mean({a}, -1, True) * {a}", "ops.cos({a}) * 2.0", "ops.erf({a})", "-{a}"]
BINARY = ["({a} + {b})", "({a} - {b})", "({a} * {b})", "({a} / (ops.abs({b}) + 1.0))", "ops.maximum({a}, {b})",
          "ops.matmul({a}, {b}) * 0.5", "ops.select({a} > {b}, {a}, {b} * 2.0)", "ops.stack(({a}, {b}), 0).sum(0)",
          "ops.concat(({a}, {b}), 1)[:, 1:4]"]


def source(seed: int) -> str:
    r = random.Random(seed)
    names = ["x", "y"]
    lines = []
    for k in range(r.randint(3, 7)):
        a, b = r.choice(names), r.choice(names)
        expr = (r.choice(UNARY).format(a=a) if r.random() < 0.5 else r.choice(BINARY).format(a=a, b=b))
        v = f"v{k}"
        kind = r.random()
        if kind < 0.2:
            other = r.choice(UNARY).format(a=a)
            lines += [f"if ({a} * 0.7).sum() > {r.choice(names)}.sum():", f"    {v} = {expr}", "else:", f"    {v} = {other}"]
        elif kind < 0.35:
            lines += [f"{v} = {a}", "for _ in range(2):", f"    {v} = ops.tanh({v}) * 1.2 + {b} * 0.1"]
        else:
            lines.append(f"{v} = {expr}")
        names.append(v)
    body = "\n".join("    " + ln for ln in lines)
    return f"from pycompile import ops\n\n\ndef prog(x, y):\n{body}\n    return {names[-1]} * 1.0 + {names[-2]}\n"


def _load(seed: int, tmp_path):
    path = tmp_path / f"fwd_fuzz_{seed}.py"
    path.write_text(source(seed))
    spec = importlib.util.spec_from_file_location(f"fwd_fuzz_{seed}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.prog


def check(seed: int, tmp_path):
    prog = _load(seed, tmp_path)
    rng = np.random.default_rng(seed)
    x, y, vx, vy = (rng.standard_normal((3, 3)) for _ in range(4))
    out, t = ops.jvp(prog, (Tensor(x), Tensor(y)), (Tensor(vx), Tensor(vy)))
    plus = prog(Tensor(x + EPS * vx), Tensor(y + EPS * vy)).asnumpy()
    minus = prog(Tensor(x - EPS * vx), Tensor(y - EPS * vy)).asnumpy()
    fd = (plus - minus) / (2 * EPS)
    compiled = ms.jit(lambda a, b, c, d: ops.jvp(prog, (a, b), (c, d)))(*map(Tensor, (x, y, vx, vy)))
    try:
        np.testing.assert_allclose(t.asnumpy(), fd, rtol=1e-4, atol=1e-5, err_msg="PyNative vs finite differences")
        np.testing.assert_allclose(compiled[1].asnumpy(), t.asnumpy(), rtol=1e-9, atol=1e-12,
                                   err_msg="compiled vs PyNative")
        np.testing.assert_allclose(compiled[0].asnumpy(), out.asnumpy(), rtol=1e-12, atol=1e-12, err_msg="outputs")
    except AssertionError as e:
        return str(e)
    return None


@pytest.mark.skipif(COUNT == 0, reason="set PYCOMPILE_FUZZ_EXAMPLES (a fortieth of it are run)")
@pytest.mark.parametrize("start", range(0, max(COUNT, 1), 25))
def test_random_programs_jvp_equals_finite_differences(start, tmp_path):
    failures = {s: why for s in range(start, min(start + 25, COUNT)) if (why := check(s, tmp_path))}
    assert not failures, "\n".join(f"seed {s}:\n{source(s)}\n{why}" for s, why in failures.items())


def test_generator_covers_the_constructs():
    text = "\n".join(source(s) for s in range(40))
    for construct in ("if (", "for _ in range(2):", "ops.matmul(", "ops.softmax("):
        assert construct in text, construct
