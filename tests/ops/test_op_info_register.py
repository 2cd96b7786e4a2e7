"""The operator-information builders in use (src/pycompile/ops/op_info_register.py; their dicts and
errors are recorded from the wheel in tests/conformance/cases_op_info.py): ops.Custom takes the
information a CustomRegOp builds, and a function registered with custom_info_register, in both
modes; op_info_register logs text that is not JSON and returns the function."""
import logging

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops
from pycompile.ops import CustomRegOp, DataType, custom_info_register, op_info_register

INFO = (CustomRegOp("add_one").input(0, "x").output(0, "y").dtype_format(DataType.F32_Default, DataType.F32_Default)
        .target("CPU").get_op_info())


@custom_info_register(INFO)
def add_one(x):
    return x + 1


@pytest.mark.parametrize("compiled", [False, True])
def test_custom_takes_the_registration_information(compiled):
    first = ops.Custom(add_one, out_shape=lambda s: s, out_dtype=lambda t: t, func_type="pyfunc", reg_info=INFO)
    second = ops.Custom(add_one, out_shape=lambda s: s, out_dtype=lambda t: t, func_type="pyfunc")
    assert add_one.reg_info == (INFO,) and first.reg_info is INFO

    def f(x):
        return first(x) + second(x)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal((ms.jit(f) if compiled else f)(Tensor(x)).asnumpy(), 2 * (x + 1))


def test_op_info_register_logs_text_that_is_not_json(caplog):
    with caplog.at_level(logging.ERROR, logger="pycompile"):
        wrapped = op_info_register("{not json")(add_one)
        builtin = op_info_register("{not json")(len)
    assert wrapped(2) == 3 and wrapped.__name__ == "wrapped_function" and builtin([1, 2]) == 2
    assert any("Invalid op info" in r.getMessage() for r in caplog.records)
