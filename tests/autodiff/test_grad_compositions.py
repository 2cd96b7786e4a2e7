"""Gradients composed with the other transformations and with every way graph code calls code:
vmap of a grad (per-example gradients), grad of a vmap, grad through HyperMap, jit_class methods,
nested user functions (closures), and lazy_inline Cells (whose backward is one shared subgraph,
called once per instance, not inlined per instance). Each gradient is checked three ways:
compiled (ms.jit), PyNative, and central finite differences in float64 - the last computed
here from the forward in NumPy, not from pycompile."""
from __future__ import annotations

import numpy as np

import pycompile as ms
from pycompile import Tensor, nn, ops
from pycompile.compiler import ir

RNG = np.random.default_rng(11)
X = RNG.standard_normal((4, 3))
W = RNG.standard_normal((3, 2)) * 0.5


def _fd(f, *arrays, eps=1e-6):
    """Central finite differences of the scalar f(*arrays) with respect to each array."""
    out = []
    for k, a in enumerate(arrays):
        g = np.zeros_like(a)
        for i in np.ndindex(a.shape):
            hi, lo = [x.copy() for x in arrays], [x.copy() for x in arrays]
            hi[k][i] += eps
            lo[k][i] -= eps
            g[i] = (f(*hi) - f(*lo)) / (2 * eps)
        out.append(g)
    return out


def _check(fn, args, want, rtol=1e-6, atol=1e-8):
    """fn(*args) equal to `want` eagerly and compiled (called from graph code)."""
    tensors = [Tensor(a) for a in args]
    for got in (fn(*tensors), ms.jit(lambda *a: fn(*a))(*tensors)):
        got = got if isinstance(got, tuple) else (got,)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.asnumpy(), w, rtol=rtol, atol=atol)


def _row_loss(x):
    return (ops.sin(x) * x).sum()


def test_vmap_of_grad_gives_per_example_gradients():
    per_example = ms.vmap(ms.grad(_row_loss))
    want = np.stack([_fd(lambda r: float((np.sin(r) * r).sum()), row)[0] for row in X])
    _check(per_example, [X], [want])
    # the vmapped function itself compiled (the jit's top-level function)
    np.testing.assert_allclose(ms.jit(per_example)(Tensor(X)).asnumpy(), want, rtol=1e-6, atol=1e-8)


def test_grad_of_vmap():
    def loss(x, w):
        return ms.vmap(lambda r: ops.tanh(ops.matmul(r, w)).sum())(x).sum()

    want = _fd(lambda x, w: float(np.tanh(x @ w).sum()), X, W)
    _check(ms.grad(loss, (0, 1)), [X, W], want)


def test_grad_through_hypermap():
    square_scaled = ops.HyperMap()

    def loss(x, w):
        parts = square_scaled(lambda a, s: (a * a * s).sum(), (x, w), (2.0, 3.0))
        return parts[0] + parts[1]

    want = _fd(lambda x, w: float((x * x * 2).sum() + (w * w * 3).sum()), X, W)
    _check(ms.grad(loss, (0, 1)), [X, W], want)


@ms.jit_class
class _Affine:
    def __init__(self, scale):
        self.scale = scale

    def apply(self, x, w):
        return ops.exp(ops.matmul(x, w) * self.scale)


def test_grad_through_jit_class_methods():
    affine = _Affine(0.5)

    def loss(x, w):
        return affine.apply(x, w).sum()

    want = _fd(lambda x, w: float(np.exp(x @ w * 0.5).sum()), X, W)
    _check(ms.grad(loss, (0, 1)), [X, W], want)


def test_grad_through_nested_user_functions():
    def loss(x, w):
        def layer(h):
            def act(z):
                return z * ops.sigmoid(z)
            return act(ops.matmul(h, w))
        return (layer(x) * layer(x)).mean()

    def ref(x, w):
        z = x @ w
        y = z / (1 + np.exp(-z))
        return float((y * y).mean())

    _check(ms.grad(loss, (0, 1)), [X, W], _fd(ref, X, W))


class _Block(nn.Cell):
    @ms.lazy_inline
    def __init__(self, width):
        super().__init__()
        self.dense = nn.Dense(width, width, dtype=ms.float64)

    def construct(self, x):
        return ops.tanh(self.dense(x)) + x


class _Stack(nn.Cell):
    def __init__(self):
        super().__init__()
        self.blocks = nn.SequentialCell(_Block(3), _Block(3))

    def construct(self, x):
        return (self.blocks(x) ** 2).sum()


def test_lazy_inline_backward_is_one_shared_subgraph():
    ms.set_seed(3)
    net = _Stack()
    weights = [p.asnumpy() for p in net.trainable_params()]

    def ref(x, w0, b0, w1, b1):
        for w, b in ((w0, b0), (w1, b1)):
            x = np.tanh(x @ w.T + b) + x
        return float((x ** 2).sum())

    want = _fd(ref, X, *weights)
    grad_fn = ms.grad(net, 0, net.trainable_params())
    _check(lambda x: (lambda g: (g[0], *g[1]))(grad_fn(x)), [X], want)
    graph = ms.inspect(ms.jit(lambda x: grad_fn(x)), Tensor(X)).graph_after
    calls = [n for n in ir.iter_nodes(graph.body) if n.op is ir.CALL]
    # one forward subgraph and one backward subgraph, each called once per instance
    assert len({id(n.attrs["graph"]) for n in calls}) == 2
    assert len(calls) == 4
