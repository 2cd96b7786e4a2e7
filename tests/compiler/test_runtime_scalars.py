"""Python numbers computed at run time (loop indices) keep Python's semantics."""
import numpy as np

import pycompile as ms
from pycompile import Tensor


def powers(x):
    for i in range(50, 60):
        x = x + 2 ** (i - 55)          # negative exponents give floats, as in Python
    return x


def test_int_power_with_a_runtime_exponent_is_python_pow():
    out = ms.jit(powers)(Tensor(np.float32(1.0)))
    assert float(out.asnumpy()) == powers(1.0) == 32.96875


def index_arithmetic(x):
    acc = x * 0
    for i in range(7):
        acc = acc + x * (i // 2) - (i % 3) * 0.5
    return acc


def test_int_floor_div_and_mod_of_a_runtime_index_stay_a_loop():
    x = np.arange(4, dtype=np.float32)
    report = ms.inspect(index_arithmetic, Tensor(x))
    np.testing.assert_allclose(ms.jit(index_arithmetic)(Tensor(x)).asnumpy(), index_arithmetic(x), rtol=1e-6)
    assert any(n.op.name == "For" for n in report.graph_before.body.nodes)


def nonneg_powers(x):
    for i in range(40):
        x = x + 2 ** (i % 5) + 3 ** i * 0
    return x


def test_int_power_with_a_nonnegative_runtime_exponent_stays_a_loop():
    x = Tensor(np.float64(1.0))
    assert float(ms.jit(nonneg_powers)(x).asnumpy()) == nonneg_powers(1.0)
    report = ms.inspect(nonneg_powers, x)
    assert any(n.op.name == "For" for n in report.graph_before.body.nodes)
