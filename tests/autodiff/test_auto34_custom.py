"""ops.Custom(func_type="pyfunc") in compiled code: one host call through the runtime's py_call
(ABI 9), the user's exception back out of the compiled call, shape / dtype checks of the result,
the graph kept out of the disk cache (ops/custom_op.py). MindSpore's own results for the same
calls: test_auto34_oracle.py."""
from __future__ import annotations

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops

CALLS = []
# the ops these tests compile (and check the C of): tests/compiler/test_op_lowerings.py
COMPILED_OPS = {"CustomPyFunc"}


def _twice(x):
    CALLS.append(x.shape)
    return x * 2


def _wrong_shape(x):
    return np.zeros((5,), x.dtype)


def _float64(x):
    return x.astype(np.float64) / 3


def _fails(x):
    raise ZeroDivisionError("inside the pyfunc")


def _pyfunc_body(x):
    y = ops.Custom(_twice, lambda s: s, lambda d: d, "pyfunc")(x + 1.0)
    return ops.exp(y) * 0.5


X = np.array([[0.5, -1.0, 2.0], [0.25, 0.0, -0.5]], np.float32)


def test_compiled_code_calls_the_python_function_once_per_call():
    f = ms.jit(_pyfunc_body)
    src = ms.inspect(f, Tensor(X)).c_source
    assert "RT->py_call(" in src
    CALLS.clear()
    for _ in range(3):
        np.testing.assert_allclose(f(Tensor(X)).asnumpy(), np.exp((X + 1) * 2) * 0.5, rtol=1e-6)
    assert CALLS == [(2, 3)] * 3


@pytest.mark.parametrize("jit", [False, True])
def test_the_users_exception_comes_back(jit):
    op = ops.Custom(_fails, (3,), ms.float32, "pyfunc")

    def body(x):
        return op(x * 2.0) + 1.0
    with pytest.raises(ZeroDivisionError, match="inside the pyfunc"):
        (ms.jit(body) if jit else body)(Tensor(X[0]))


@pytest.mark.parametrize("jit", [False, True])
def test_a_result_of_another_shape_is_an_error_naming_both(jit):
    op = ops.Custom(_wrong_shape, (3,), ms.float32, "pyfunc")

    def body(x):
        return op(x) + 1.0
    with pytest.raises(ValueError, match=r"returned a value of shape \[5\], but out_shape says \[3\]"):
        (ms.jit(body) if jit else body)(Tensor(X[0]))


@pytest.mark.parametrize("jit", [False, True])
def test_a_result_of_another_dtype_is_converted_to_out_dtype(jit):
    op = ops.Custom(_float64, (3,), ms.float32, "pyfunc")

    def body(x):
        return op(x)
    out = (ms.jit(body) if jit else body)(Tensor(X[0]))
    assert out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy(), X[0] / 3, rtol=1e-6)


def test_the_func_types_pycompile_does_not_run_say_so():
    with pytest.raises(NotImplementedError, match="pycompile runs func_type 'pyfunc'"):
        ops.Custom(_twice, (3,), ms.float32, "hybrid")
    with pytest.raises(NotImplementedError, match="build kernels.cc first"):
        ops.Custom("kernels.cc:add", (3,), ms.float32, "aot")


def test_a_graph_with_a_pyfunc_is_not_cached_on_disk(tmp_path):
    ms.set_context(enable_compile_cache=True, compile_cache_path=str(tmp_path))
    try:
        out = ms.jit(_pyfunc_body)(Tensor(X))
    finally:
        ms.set_context(enable_compile_cache=False)
    np.testing.assert_allclose(out.asnumpy(), np.exp((X + 1) * 2) * 0.5, rtol=1e-6)
    assert not list(tmp_path.rglob("*.entry"))


def test_a_run_time_batch_size_compiles_each_size_with_its_own_shapes():
    """jit(dynamic=1) cannot share one program across batch sizes: the function's site (and its
    shapes) differs per size, so each size compiles separately and the function sees its shape."""
    f = ms.jit(_pyfunc_body, dynamic=1)
    CALLS.clear()
    for b in (3, 5):
        x = np.linspace(-1, 1, b * 2, dtype=np.float32).reshape(b, 2)
        np.testing.assert_allclose(f(Tensor(x)).asnumpy(), np.exp((x + 1) * 2) * 0.5, rtol=1e-6)
    assert CALLS == [(3, 2), (5, 2)]
