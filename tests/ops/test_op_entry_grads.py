"""Gradients of the op entries (decompositions, so autodiff differentiates the ops they are made
of): every differentiable entry against central finite differences in float64, eagerly; and the
compiled gradient of one program using most of them against the eager one."""
import zlib

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops

# name -> (function of float64 tensors returning a tensor, input shapes, (lo, hi) of the inputs)
CASES = {
    "logaddexp": (lambda x, y: ops.logaddexp(x, y), [(3, 4), (4,)], (-3, 3)),
    "logaddexp2": (lambda x, y: ops.logaddexp2(x, y), [(3, 4), (3, 4)], (-3, 3)),
    "hypot": (lambda x, y: ops.hypot(x, y), [(3, 4), (3, 4)], (0.5, 3)),
    "xlogy": (lambda x, y: ops.xlogy(x, y), [(3, 4), (3, 4)], (0.5, 3)),
    "xdivy": (lambda x, y: ops.xdivy(x, y), [(3, 4), (3, 4)], (0.5, 3)),
    "copysign": (lambda x, y: ops.copysign(x, y), [(3, 4), (3, 4)], (0.5, 3)),
    "float_power": (lambda x, y: ops.float_power(x, y), [(3, 4), (3, 4)], (0.5, 2)),
    "fmax_fmin": (lambda x, y: ops.fmax(x, y) + ops.fmin(x, y * 2), [(3, 4), (3, 4)], (-2, 2)),
    "addcdiv_addcmul": (lambda x, a, b: ops.addcdiv(x, a, b, 0.5) * ops.addcmul(x, a, b), [(2, 3)] * 3, (0.5, 2)),
    "lerp": (lambda x, e, w: ops.lerp(x, e, w), [(2, 3)] * 3, (0.1, 0.9)),
    "unary": (lambda x: ops.sinc(x) + ops.logit(x) + ops.frac(x * 3) + ops.deg2rad(x) + ops.exp2(x) + ops.log10(x),
              [(3, 4)], (0.1, 0.9)),
    "logsumexp": (lambda x: ops.logsumexp(x, 1) + ops.logsumexp(x, (0, 1), True), [(3, 4)], (-3, 3)),
    "nan_reductions": (lambda x: ops.nansum(x, 0) * ops.nanmean(x, 0), [(3, 4)], (-2, 2)),
    "var_std": (lambda x: ops.var(x, 1) + ops.std(x, 0, 1).sum() + ops.std_mean(x)[0] + ops.var_mean(x, 0)[1].sum(),
                [(3, 4)], (-2, 2)),
    "trace_vecdot_dot": (lambda x, y: ops.trace(x) + ops.vecdot(x, y).sum() + ops.dot(x, y.T).sum(), [(3, 4)] * 2,
                         (-2, 2)),
    "layout": (lambda x: (ops.rot90(x, 1, (0, 1)) * 2).sum() + ops.diff(x).sum() ** 2 + ops.narrow(x, 1, 1, 2).sum()
               + ops.tensor_split(x, 3, 1)[1].sum() ** 2 + ops.flipud(x)[0].sum() * 3, [(3, 4)], (-2, 2)),
    "kron": (lambda a, b: ops.kron(a, b), [(2, 3), (3, 2)], (-2, 2)),
    "shrinks": (lambda x: ops.hardshrink(x, 0.3) + ops.softshrink(x, 0.2) + ops.threshold(x, 0.1, -1.0),
                [(3, 4)], (-2, 2)),
    "losses": (lambda x, y: ops.l1_loss(x, y) + ops.mse_loss(x, y, "sum"), [(3, 4)] * 2, (-2, 2)),
    "addmm_family": (lambda c, a, b: ops.addmm(c, a, b, beta=0.5, alpha=2) + ops.addr(c, a[:, 0], b[0]),
                     [(3, 3), (3, 3), (3, 3)], (-2, 2)),
    "addbmm": (lambda c, a, b: ops.addbmm(c, a, b), [(3, 4), (2, 3, 5), (2, 5, 4)], (-2, 2)),
    "diagonals": (lambda v, m: ops.diag(v).sum(1) * 2 + ops.diagonal(m, 1) + ops.diagflat(v, -1)[1:, :3].sum(0),
                  [(3,), (3, 4)], (-2, 2)),
    "cross": (lambda a, b: ops.cross(a, b), [(4, 3), (4, 3)], (-2, 2)),
    "logcumsumexp": (lambda x: ops.logcumsumexp(x, 1), [(3, 4)], (-3, 3)),
    "matrix_power": (lambda m: ops.matrix_power(m, 3), [(3, 3)], (-1, 1)),
    "median": (lambda x: ops.median(x, 1)[0] * 2, [(3, 5)], (-2, 2)),
    "tail_stats": (lambda x, y: ops.cov(x) * ops.dist(x, y) + ops.pdist(x).sum() + ops.trapz(x, dx=0.5).sum(),
                   [(3, 4), (3, 4)], (-2, 2)),
    "tail_layout": (lambda x, v: ops.pixel_shuffle(ops.reshape(x, (1, 4, 1, 3)), 2).sum((0, 1))[:, :3]
                    + ops.diag_embed(v, 1)[:2, :3] + ops.block_diag(x[:1, :2], v)[:2, :3]
                    + ops.vander(v, 3) + ops.channel_shuffle(ops.reshape(x, (1, 4, 3)), 2)[0, :2],
                    [(4, 3), (2,)], (-2, 2)),
    "tail_losses": (lambda x, t, v: ops.gaussian_nll_loss(x, t, v, True) + ops.hinge_embedding_loss(
        x, ops.sign(t), 0.5) + ops.ldexp(x, ops.ones_like(x)).sum(), [(3, 4)] * 3, (0.2, 2)),
    "grid_sample_2d": (lambda x, g: ops.grid_sample(x, g) + ops.grid_sample(x, g * 1.3, "bilinear", "border", True)
                       + ops.grid_sample(x, g * 1.4, "bilinear", "reflection"), [(1, 2, 3, 4), (1, 3, 2, 2)], (-0.9, 0.9)),
    "grid_sample_3d": (lambda x, g: ops.grid_sample(x, g, "bilinear", "zeros", True), [(1, 1, 2, 3, 2), (1, 2, 2, 1, 3)],
                       (-0.9, 0.9)),
}


def _inputs(name, shapes, lo, hi):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    return [rng.uniform(lo, hi, s) for s in shapes]


def _loss(fn):
    w_cache = {}

    def loss(*xs):
        out = fn(*xs)
        if out.shape not in w_cache:       # a fixed, non-uniform weighting of the output
            w_cache[out.shape] = Tensor(np.cos(np.arange(int(np.prod(out.shape)))).reshape(out.shape))
        return (out * w_cache[out.shape]).sum()
    return loss


@pytest.mark.parametrize("name", sorted(CASES))
def test_entry_gradient_matches_finite_differences(name):
    fn, shapes, (lo, hi) = CASES[name]
    arrays = _inputs(name, shapes, lo, hi)
    loss = _loss(fn)
    grads = ms.grad(loss, grad_position=tuple(range(len(arrays))))(*[Tensor(a) for a in arrays])
    grads = grads if isinstance(grads, tuple) else (grads,)
    h = 1e-6
    for i, a in enumerate(arrays):
        num = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            for sign in (1, -1):
                moved = [x.copy() for x in arrays]
                moved[i][idx] += sign * h
                num[idx] += sign * float(loss(*[Tensor(x) for x in moved]).asnumpy()) / (2 * h)
        np.testing.assert_allclose(grads[i].asnumpy(), num, rtol=1e-5, atol=1e-6, err_msg=f"{name}: input {i}")


def _program(x, y, m):
    return (ops.logaddexp(x, y) * ops.hypot(x, y) + ops.xlogy(x, y) + ops.lerp(x, y, 0.3)
            + ops.logsumexp(x, 1, True) + ops.var(x, 0, 1, True) + ops.hardshrink(x, 0.2) + ops.cross(x[:, :3], y[:, :3], 1).sum()
            + ops.diff(x, 1, 1, x[:, :1]) + ops.logcumsumexp(y, 1) + ops.matrix_power(m, 2)[:, :4]
            + ops.diagonal(m)[:, None] + ops.median(x, 1, True)[0]).sum()


@pytest.mark.cc
def test_compiled_gradient_of_many_entries_equals_eager():
    rng = np.random.default_rng(5)
    x, y = rng.uniform(0.5, 2, (4, 4)), rng.uniform(0.5, 2, (4, 4))
    m = rng.uniform(-1, 1, (4, 4))
    args = [Tensor(x), Tensor(y), Tensor(m)]
    eager = ms.grad(_program, grad_position=(0, 1, 2))(*args)
    compiled = ms.jit(ms.grad(_program, grad_position=(0, 1, 2)))(*args)
    for e, c in zip(eager, compiled):
        np.testing.assert_allclose(c.asnumpy(), e.asnumpy(), rtol=1e-10, atol=1e-12)
