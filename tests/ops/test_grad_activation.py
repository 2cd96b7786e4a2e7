"""The activation rows' gradient rules against central finite differences of the rows' own
eager (NumPy) forms in float64, called directly as the autodiff engine calls them:
rule(g, out, x) -> (dx,). Points sit away from the kinks (0, and 6 for ReLU6)."""
import numpy as np
import pytest

from pycompile import Tensor
from pycompile.ops import prims as P
from pycompile.ops._table import apply

ROWS = ["ReLU6", "SiLU", "Elu", "SeLU", "Softplus", "Softsign", "Mish", "LogSigmoid"]
X = np.array([-25.0, -6.3, -2.2, -0.7, -0.05, 0.05, 0.3, 1.9, 5.1, 6.6, 25.0])


def _f(op, x: np.ndarray) -> np.ndarray:
    return apply(op, [Tensor(x)]).asnumpy()


@pytest.mark.parametrize("name", ROWS)
def test_rule_matches_finite_differences(name):
    op = getattr(P, name)
    assert callable(op.grad), f"{name} has no gradient rule"
    h = 1e-6
    numeric = (_f(op, X + h) - _f(op, X - h)) / (2 * h)
    g = np.linspace(0.5, 1.5, X.size)                 # a cotangent that is not all ones
    x = Tensor(X)
    (dx,) = op.grad(Tensor(g), apply(op, [x]), x)
    np.testing.assert_allclose(dx.asnumpy(), g * numeric, rtol=1e-6, atol=1e-8)
    assert dx.dtype == x.dtype


@pytest.mark.parametrize("name", ROWS)
def test_rule_keeps_float32(name):
    op = getattr(P, name)
    x = Tensor(X.astype(np.float32))
    (dx,) = op.grad(Tensor(np.ones(X.size, np.float32)), apply(op, [x]), x)
    assert dx.dtype == x.dtype and dx.shape == x.shape
