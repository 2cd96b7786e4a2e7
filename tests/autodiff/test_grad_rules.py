"""Every op of the table has a gradient rule or says it has none, and every rule's gradient
matches central finite differences in float64 (PyNative; the compiled transformation reuses
the same rules and is checked in test_compiled_grads.py)."""
from __future__ import annotations

import numpy as np
import pytest

from grad_specs import SPECS

import pycompile as ms
from pycompile import Tensor
from pycompile.ops import OPS
from pycompile.ops.grads import NONDIFF


@pytest.mark.parametrize("name", sorted(OPS))
def test_every_op_has_a_gradient_rule_or_none(name):
    op = OPS[name]
    assert op.grad is NONDIFF or callable(op.grad), \
        f"{name} has no gradient rule: register one with @defgrad (pycompile/ops/grads) or declare nondiff"


def test_every_differentiable_op_is_checked():
    checked = {name for name, *_ in SPECS}
    missing = sorted(n for n, op in OPS.items() if callable(op.grad) and n not in checked
                     and n not in ("Load", "CustomPyFunc"))
    # Load: a Parameter read, checked with weights; CustomPyFunc: its rule raises MindSpore's error
    # (a Custom without bprop): tests/autodiff/test_auto34_oracle.py
    assert not missing, f"differentiable ops without a finite-difference check: {missing}"


def numeric_grad(f, arrays, k, eps=1e-6):
    """d sum(f(arrays) * R) / d arrays[k], by central differences."""
    base = [a.copy() for a in arrays]
    g = np.zeros_like(arrays[k], dtype=np.float64)
    flat = g.reshape(-1)
    for i in range(flat.size):
        plus = [a.copy() for a in base]
        minus = [a.copy() for a in base]
        plus[k].reshape(-1)[i] += eps
        minus[k].reshape(-1)[i] -= eps
        flat[i] = (f(plus) - f(minus)) / (2 * eps)
    return g


def check(fn, arrays, wrt):
    out = fn(*[Tensor(a) for a in arrays])
    r = np.random.default_rng(7).standard_normal(out.shape)

    def loss(*xs):
        return (fn(*xs) * Tensor(r)).sum()

    def loss_np(arrs):
        return float(loss(*[Tensor(a) for a in arrs]).asnumpy())

    grads = ms.grad(loss, tuple(wrt))(*[Tensor(a) for a in arrays])
    grads = grads if isinstance(grads, tuple) else (grads,)
    for k, g in zip(wrt, grads):
        want = numeric_grad(loss_np, arrays, k)
        assert g.shape == arrays[k].shape and g.dtype == ms.float64, (k, g.shape, g.dtype)
        np.testing.assert_allclose(g.asnumpy(), want, rtol=1e-5, atol=1e-6, err_msg=f"input {k}")


@pytest.mark.parametrize("k", range(len(SPECS)), ids=[f"{s[0]}-{i}" for i, s in enumerate(SPECS)])
def test_gradient_matches_finite_differences(k):
    name, fn, arrays, wrt = SPECS[k]
    check(fn, arrays, wrt)
