"""The random rows against the core (issue 32, branch rows32; docs/architecture.md, "The core"):
Bernoulli's decomposition is `RandomUniform(same stream) < p` (the row's template stays its
fast path: one loop, faster for dropout), so its stream is the row's exactly: the parts run in
PyNative and compiled, and the row compiled, give the row's NumPy reference bit for bit, for float16 / float32 / float64 p, one p or a
p per element, p on the uniform grid (ties: u < p is strict), and every output dtype; ops.dropout
and ops.bernoulli under a seed give the draws they gave before the change (a digest of main's)."""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops
from pycompile.common import dtype as mstype
from pycompile.compiler import ir
from pycompile.ops import prims as P
from pycompile.ops._table import apply

SHAPE = (3, 333)                    # 999 elements: the last Philox block is partial
GRID = np.arange(SHAPE[0] * SHAPE[1]) % 7 * 2.0 ** -3          # values u takes exactly
STATE = np.array([1234, 56, 1], np.int64)
OUT = (mstype.float32, mstype.float16, mstype.bool_, mstype.int32)


def _p(dt: str, per_element: bool, k: int):
    if not per_element:
        return np.array(0.2 + 0.05 * (k % 10), dt)
    rs = np.random.RandomState(k)
    p = rs.rand(*SHAPE)
    p[0] = GRID.reshape(SHAPE)[0]
    return p.astype(dt)


# every p dtype, one p and a p per element, every output dtype
CASES = [(dt, per, OUT[k % 4], (0, 7, 0, 3)[k % 4]) for k, (dt, per) in enumerate(
    (dt, per) for dt in ("float16", "float32", "float64") for per in (False, True))]


def _attrs(out, seed):
    return {"shape": SHAPE, "dtype": out, "seed": seed}


@ms.jit
def _draws(state, ps, x):
    rows = tuple(apply(P.Bernoulli, [state, p], _attrs(out, seed)) for p, (_, _, out, seed) in zip(ps, CASES))
    parts = tuple(P.Bernoulli.decompose(state, p, **_attrs(out, seed)) for p, (_, _, out, seed) in zip(ps, CASES))
    return rows, (ops.dropout(x, p=0.25, training=True), ops.bernoulli(x, 0.7)), parts


@pytest.fixture(scope="module")
def compiled():
    args = (Tensor(STATE), tuple(Tensor(_p(dt, per, k)) for k, (dt, per, _, _) in enumerate(CASES)), Tensor(X))
    ms.set_seed(5)
    return _draws(*args), ms.inspect(_draws, *args)


@pytest.mark.parametrize("k", range(len(CASES)), ids=[f"p-{c[0]}-{'each' if c[1] else 'one'}-{c[2]}" for c in CASES])
def test_bernoulli_parts_give_the_rows_stream(k, compiled):
    dt, per, out, seed = CASES[k]
    p = _p(dt, per, k)
    want = P.Bernoulli.eager(STATE, p, **_attrs(out, seed))
    eager = P.Bernoulli.decompose(Tensor(STATE), Tensor(p), **_attrs(out, seed)).asnumpy()
    got, row = compiled[0][2][k].asnumpy(), compiled[0][0][k].asnumpy()
    assert want.dtype == eager.dtype == got.dtype == row.dtype == out.np
    np.testing.assert_array_equal(eager, want)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(row, want)
    assert 0 < np.count_nonzero(want) < want.size


def test_bernoulli_is_a_fast_path_of_random_uniform(compiled):
    nodes = list(ir.iter_nodes(compiled[1].graph_after.body))
    assert P.Bernoulli.fast_path and not P.Bernoulli.expands
    assert len([n for n in nodes if n.op is P.Bernoulli]) == len(CASES) + 2      # (+ dropout, bernoulli)
    # (equal draws - same seed, dtype and state - are one node after CSE)
    assert {n.type.dtype for n in nodes if n.op is P.RandomUniform} == {mstype.float32, mstype.float64}


X = np.ones((64, 33), np.float32)


def _digest(*arrays) -> str:
    return hashlib.sha256(b"".join(np.ascontiguousarray(a).tobytes() for a in arrays)).hexdigest()[:16]


# ops.dropout and ops.bernoulli after ms.set_seed(5) on main before the change (d5ac049), both modes
BEFORE = "d8f46073feae5189"


def test_seeded_draws_are_unchanged_in_both_modes(compiled):
    ms.set_seed(5)
    eager = [t.asnumpy() for t in (ops.dropout(Tensor(X), p=0.25, training=True), ops.bernoulli(Tensor(X), 0.7))]
    y, b = compiled[0][1]
    assert _digest(*eager) == _digest(y.asnumpy(), b.asnumpy()) == BEFORE
