"""vjp / jvp / jacrev / jacfwd and grad of grad against central finite differences of the
forward function in float64, in PyNative and compiled (@jit): each transform's value is
checked against a Jacobian computed without autodiff."""
from __future__ import annotations

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops

RNG = np.random.default_rng(7)
X = RNG.uniform(0.5, 1.5, (2, 3))
Y = RNG.uniform(-1.0, 1.0, (2, 3))


def fn(x, y):
    return ops.sin(x) * y + x * x, (x * y).sum(axis=1)


def fn_if(x, y):
    if x.sum() > 3.0:
        z = x * x * y
    else:
        z = x + y
    return z * 2.0


def _forward(f, args):
    out = f(*[Tensor(a) for a in args])
    outs = out if isinstance(out, tuple) else (out,)
    return [o.asnumpy().astype(np.float64) for o in outs]


def fd_jacobian(f, args, eps=1e-6):
    """jac[o][i]: output o's shape + input i's shape, by central differences."""
    outs = _forward(f, args)
    jac = [[np.zeros(o.shape + a.shape) for a in args] for o in outs]
    for i, a in enumerate(args):
        for idx in np.ndindex(a.shape):
            hi = [b.copy() for b in args]
            lo = [b.copy() for b in args]
            hi[i][idx] += eps
            lo[i][idx] -= eps
            for o, (p, m) in enumerate(zip(_forward(f, hi), _forward(f, lo))):
                jac[o][i][(...,) + idx] = (p - m) / (2 * eps)
    return jac


JAC = fd_jacobian(fn, [X, Y])
MODES = ["pynative", "jit"]


def _run(mode, body, *args):
    return (ms.jit(body) if mode == "jit" else body)(*[Tensor(a) for a in args])


def _close(got, want):
    np.testing.assert_allclose(np.asarray(got.asnumpy(), np.float64), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_vjp_fd(mode):
    v0, v1 = RNG.standard_normal((2, 3)), RNG.standard_normal((2,))

    def body(x, y, a, b):
        _, f = ops.vjp(fn, x, y)
        return f((a, b))
    gx, gy = _run(mode, body, X, Y, v0, v1)
    for i, g in enumerate((gx, gy)):
        want = np.tensordot(v0, JAC[0][i], 2) + np.tensordot(v1, JAC[1][i], 1)
        _close(g, want)


@pytest.mark.parametrize("mode", MODES)
def test_jvp_fd(mode):
    t0, t1 = RNG.standard_normal((2, 3)), RNG.standard_normal((2, 3))

    def body(x, y, a, b):
        return ops.jvp(fn, (x, y), (a, b))[1]
    got = _run(mode, body, X, Y, t0, t1)
    for o in range(2):
        want = sum(np.tensordot(JAC[o][i], t, 2) for i, t in enumerate((t0, t1)))
        _close(got[o], want)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("which", ["jacrev", "jacfwd"])
def test_jacobian_fd(mode, which):
    def body(x, y):
        return getattr(ops, which)(fn, grad_position=(0, 1))(x, y)
    got = _run(mode, body, X, Y)
    for o in range(2):
        for i in range(2):
            _close(got[o][i], JAC[o][i])


@pytest.mark.parametrize("which", ["jacrev", "jacfwd"])
@pytest.mark.parametrize("scale", [1.0, 0.1])
def test_jacobian_through_if_fd(which, scale):
    """MindSpore 2.10 refuses this (its vmap meets the `if`); PyNative pycompile computes it."""
    got = getattr(ops, which)(fn_if, grad_position=(0, 1))(Tensor(X * scale), Tensor(Y))
    want = fd_jacobian(fn_if, [X * scale, Y])
    for i in range(2):
        _close(got[i], want[0][i])


def _loss_while(x, y):
    z = x
    i = 0
    while i < 3:
        z = ops.sin(z) * y + x
        i += 1
    return (z * z).sum()


def _loss_for(x, y):
    z = x
    for _ in range(3):
        z = ops.sin(z) * y + x
    return (z * z).sum()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("loss", [_loss_while, _loss_for], ids=["while", "for"])
def test_grad_of_grad_through_loop_fd(mode, loss):
    """The Hessian-vector product d/dx <grad_x loss, v> through a loop equals finite
    differences of the gradient."""
    v = RNG.standard_normal((2, 3))

    def first(x, y):
        return ms.grad(loss, 0)(x, y)

    def body(x, y, t):
        return ms.grad(first, 0, sens_param=True)(x, y, t)
    got = _run(mode, body, X, Y, v)
    eps = 1e-6
    want = np.zeros_like(X)
    for idx in np.ndindex(X.shape):
        hi, lo = X.copy(), X.copy()
        hi[idx] += eps
        lo[idx] -= eps
        gp = first(Tensor(hi), Tensor(Y)).asnumpy()
        gm = first(Tensor(lo), Tensor(Y)).asnumpy()
        want[idx] = ((gp - gm) / (2 * eps) * v).sum()
    _close(got, want)


def _dot(x, y):
    return (x * y).sum()


@pytest.mark.parametrize("mode", MODES)
def test_grad_with_respect_to_a_ones_like_value(mode):
    """A differentiated argument computed by a non-differentiable op (ones_like: how jvp makes
    its cotangent) still carries a gradient in graph code (it was dropped as inactive)."""
    def body(x, y, t):
        def transpose(u):
            return ms.grad(_dot, (0, 1), sens_param=True)(x, y, u)
        u = ops.ones_like(_dot(x, y))
        return ms.grad(transpose, 0, sens_param=True)(u, (t, t))
    got = _run(mode, body, X, Y, np.ones((2, 3)))
    np.testing.assert_allclose(got.asnumpy(), (X + Y).sum(), rtol=1e-6)
