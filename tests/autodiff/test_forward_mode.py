"""Forward mode (issue 34): ops.jvp is one pass carrying tangents, by each op's JVP rule (or its
gradient rule transposed), in PyNative and as a transformation of the compiled IR.

- every differentiable op's tangent (grad_specs.SPECS: the op-table shapes) against central
  finite differences in float64 along a random direction, eagerly; compiled, one spec per op;
- the compiled jvp is a forward pass (no grad of a grad: the IR holds no backward), through
  if / for / while too; jacfwd is
  batched code (no loop over the basis), a Hessian-vector product is one compiled call;
- equal to the previous path (the transpose trick, `jvp_by_transpose`).
"""
from __future__ import annotations

import numpy as np
import pytest

from grad_specs import SPECS

import pycompile as ms
from pycompile import Tensor, ops
from pycompile.compiler import ir
from pycompile.ops import OPS
from pycompile.ops.autodiff.transforms import jvp_by_transpose
from pycompile.ops.grads import NONDIFF

EPS = 1e-6


def _direction(arrays, wrt, seed):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(a.shape) if k in wrt else np.zeros(a.shape, a.dtype) for k, a in enumerate(arrays)]


def _fd(fn, arrays, ts):
    """Central difference of fn along the direction ts (float64)."""
    plus = fn(*[Tensor(a + EPS * t) if a.dtype.kind == "f" else Tensor(a) for a, t in zip(arrays, ts)])
    minus = fn(*[Tensor(a - EPS * t) if a.dtype.kind == "f" else Tensor(a) for a, t in zip(arrays, ts)])
    return (plus.asnumpy() - minus.asnumpy()) / (2 * EPS)


def _check(got, want, what):
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=what)


def test_every_jvp_rule_is_registered_on_a_differentiable_op():
    for name, op in OPS.items():
        if op.jvp is not None:
            assert callable(op.grad) and op.grad is not NONDIFF, name


@pytest.mark.parametrize("k", range(len(SPECS)), ids=[f"{s[0]}-{i}" for i, s in enumerate(SPECS)])
def test_jvp_matches_finite_differences(k):
    name, fn, arrays, wrt = SPECS[k]
    ts = _direction(arrays, wrt, k)
    out, t = ops.jvp(fn, tuple(Tensor(a) for a in arrays), tuple(Tensor(x) for x in ts))
    assert t.shape == out.shape and t.dtype == out.dtype
    _check(t.asnumpy(), _fd(fn, arrays, ts), name)


_ONE_PER_OP = list({s[0]: i for i, s in reversed(list(enumerate(SPECS)))}.values())
_BATCH = 40          # specs compiled together (one C compile per batch)


@pytest.mark.parametrize("start", range(0, len(_ONE_PER_OP), _BATCH))
def test_compiled_jvp_matches_finite_differences(start):
    idx = _ONE_PER_OP[start:start + _BATCH]
    specs = [SPECS[k] for k in idx]
    dirs = [_direction(s[2], s[3], k) for s, k in zip(specs, idx)]

    def all_tangents(*flat):
        out, j = [], 0
        for (_, fn, arrays, _) in specs:
            n = len(arrays)
            out.append(ops.jvp(fn, flat[j:j + n], flat[j + n:j + 2 * n])[1])
            j += 2 * n
        return tuple(out)

    flat = [Tensor(a) for (_, _, arrays, _), ts in zip(specs, dirs) for a in (*arrays, *ts)]
    got = ms.jit(all_tangents)(*flat)
    for (name, fn, arrays, _), ts, t in zip(specs, dirs, got):
        _check(t.asnumpy(), _fd(fn, arrays, ts), name)


def _mlp(x, w1, w2):
    return ops.log_softmax(ops.matmul(ops.tanh(ops.matmul(x, w1)), w2) * 0.5, -1)


def _args(seed=0):
    rng = np.random.default_rng(seed)
    return [Tensor(rng.standard_normal(s)) for s in [(4, 6), (6, 5), (5, 3)]]


def _ops_in(graph) -> list:
    """The ops of a graph as traced (before fusion), nested blocks included."""
    return [n.op.name for n in ir.iter_nodes(graph.body)]


def test_compiled_jvp_is_one_forward_pass_equal_to_the_transpose_trick():
    x, w1, w2 = _args()
    vx, v1, v2 = _args(1)

    @ms.jit
    def f(x, w1, w2, vx, v1, v2):
        return ops.jvp(_mlp, (x, w1, w2), (vx, v1, v2))

    out, t = f(x, w1, w2, vx, v1, v2)
    old_out, old_t = jvp_by_transpose(_mlp, (x, w1, w2), (vx, v1, v2))
    np.testing.assert_allclose(t.asnumpy(), old_t.asnumpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(out.asnumpy(), old_out.asnumpy(), rtol=1e-12, atol=1e-12)
    eager = ops.jvp(_mlp, (x, w1, w2), (vx, v1, v2))[1]
    np.testing.assert_allclose(eager.asnumpy(), old_t.asnumpy(), rtol=1e-12, atol=1e-12)
    names = _ops_in(ms.inspect(f, x, w1, w2, vx, v1, v2).graph_before)
    # a grad of a grad would transpose the products (transpose flags) and multiply ones-like seeds
    # through the backward; forward mode has three products per matmul pair: out, and its two tangents
    assert names.count("MatMul") == 6, names


def test_jacfwd_compiles_to_batched_code():
    x, w1, w2 = _args()
    jf = ms.jit(ops.jacfwd(_mlp, 1))
    got = jf(x, w1, w2)
    want = ops.jacrev(_mlp, 1)(x, w1, w2)
    assert got.shape == (4, 3, 6, 5)
    np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-10, atol=1e-12)
    names = _ops_in(ms.inspect(jf, x, w1, w2).graph_before)
    assert "For" not in names and "While" not in names
    assert names.count("Stack") == 0, "the basis was mapped by a loop over its rows"


def test_hessian_vector_product_is_one_compiled_call():
    x, w1, w2 = _args()
    v = _args(2)[1]

    def loss(w1):
        return (_mlp(x, w1, w2) * _args(3)[0][:, :3]).sum()

    g = ms.grad(loss)

    @ms.jit
    def hvp(w1, v):
        return ops.jvp(g, (w1,), (v,))[1]

    got = hvp(w1, v).asnumpy()
    w, vv = w1.asnumpy(), v.asnumpy()
    fd = (g(Tensor(w + EPS * vv)).asnumpy() - g(Tensor(w - EPS * vv)).asnumpy()) / (2 * EPS)
    _check(got, fd, "hvp")
    np.testing.assert_allclose(got, jvp_by_transpose(g, (w1,), (v,))[1].asnumpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ops.jvp(g, (w1,), (v,))[1].asnumpy(), got, rtol=1e-10, atol=1e-12)
    graph = ms.inspect(hvp, w1, v).graph_before
    assert not any(n.op is ir.CALL for n in ir.iter_nodes(graph.body))

    @ms.jit
    def hvp_by_transpose(w1, v):
        return jvp_by_transpose(g, (w1,), (v,))[1]

    products = _ops_in(graph).count("MatMul")
    assert products < _ops_in(ms.inspect(hvp_by_transpose, w1, v).graph_before).count("MatMul")


def test_jvp_through_an_if_in_graph_code():
    def f(x, y):
        if x.sum() > 0:
            z = ops.sin(x) * y
        else:
            z = ops.exp(x) - y
        return z * x

    rng = np.random.default_rng(4)
    for sign in (1, -1):
        x, y = sign * np.abs(rng.standard_normal((3,))) + 0.1 * sign, rng.standard_normal((3,))
        vx, vy = rng.standard_normal((3,)), rng.standard_normal((3,))
        got = ms.jit(lambda a, b, c, d: ops.jvp(f, (a, b), (c, d))[1])(*map(Tensor, (x, y, vx, vy)))
        _check(got.asnumpy(), _fd(f, [x, y], [vx, vy]), f"if, sign {sign}")


def test_jvp_through_loops_in_graph_code():
    """A For and a run-time-length While: a second loop carries the tangents (no stacks)."""
    def f(x):
        for _ in range(3):
            x = ops.tanh(x) * 1.5
        return x

    def g(x, y):
        while x.sum() < 20:
            x = x * 1.3 + ops.sin(y)
        return x * y

    x, y, v = np.linspace(-1, 1, 5), np.linspace(0.1, 1, 5), np.cos(np.arange(5.0))
    jf = ms.jit(lambda a, b: ops.jvp(f, (a,), (b,))[1])
    _check(jf(Tensor(x), Tensor(v)).asnumpy(), _fd(f, [x], [v]), "for")
    names = _ops_in(ms.inspect(jf, Tensor(x), Tensor(v)).graph_before)
    assert names.count("For") == 2 and "StackNew" not in names, names
    jg = ms.jit(lambda a, b, c, d: ops.jvp(g, (a, b), (c, d))[1])
    _check(jg(*map(Tensor, (x, y, v, v))).asnumpy(), _fd(g, [x, y], [v, v]), "while")
