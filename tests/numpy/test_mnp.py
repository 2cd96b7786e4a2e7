"""pycompile.numpy (mindspore.numpy): how it is imported, what a missing name says, and that its
functions compile inside graph code and differentiate. Values, dtypes and errors of each
function are checked against MindSpore 2.10's recorded results in the conformance table
(tests/conformance/cases_numpy*.py); expected values here come from NumPy formulas."""
import numpy as np
import pytest

import pycompile as ms
import pycompile.numpy as mnp
from pycompile import nn
from pycompile.common.missing import mindspore_names, present


def test_the_import_forms_give_one_module():
    from pycompile import numpy as by_from
    assert by_from is mnp and ms.numpy is mnp
    assert mnp.float_ is ms.float32 and mnp.int_ is ms.int32


def test_every_mindspore_numpy_name_is_present():
    names = mindspore_names()["numpy"]
    assert len(names) == 249
    assert [n for n in names if not present(mnp, n)] == []


def test_a_lacking_name_says_it_is_unsupported_mindspore_api(monkeypatch):
    monkeypatch.delattr(mnp, "unique")          # as if pycompile lacked it: the module's __getattr__ answers
    with pytest.raises(AttributeError, match="mindspore.numpy.unique is a MindSpore 2.10 API that pycompile does "
                                             "not support yet .*docs/api/numpy.md"):
        mnp.unique
    with pytest.raises(AttributeError, match="has no attribute 'not_a_numpy_name'$"):
        mnp.not_a_numpy_name


class _Net(nn.Cell):
    def construct(self, x):
        y = mnp.clip(x, -1.0, 1.0)
        w = mnp.arange(4, dtype=mnp.float32)
        return mnp.sum(mnp.square(y) * w) + mnp.mean(mnp.tile(x, (2, 1)))


def test_a_cell_built_from_mnp_compiles_and_differentiates():
    x = np.array([[-2.0, -0.5, 0.25, 3.0], [0.5, 1.5, -0.75, 0.0]], np.float32)
    y = np.clip(x, -1, 1)
    want = (y ** 2 * np.arange(4)).sum() + x.mean()
    want_grad = 2 * y * np.arange(4) * (np.abs(x) < 1) + 1.0 / x.size
    net = _Net()
    eager = net(ms.Tensor(x)).asnumpy()
    compiled = ms.jit(net.construct)(ms.Tensor(x)).asnumpy()
    grad = ms.jit(ms.grad(net))(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(eager, want, rtol=1e-6)
    np.testing.assert_allclose(compiled, want, rtol=1e-6)
    np.testing.assert_allclose(grad, want_grad, rtol=1e-6, atol=1e-7)


def _bad_reshape(x):
    return mnp.reshape(x, (5, 5))


def _where_indices(x):
    return mnp.where(x > 0)


def test_a_bad_argument_in_graph_code_names_the_users_line():
    with pytest.raises(Exception) as info:
        ms.jit(_bad_reshape)(ms.Tensor(np.ones((2, 3), np.float32)))
    assert "test_mnp.py:" in str(info.value)
    assert "reshape" in str(info.value).lower()


def test_an_unsupported_form_in_graph_code_is_a_user_error_at_the_users_line():
    with pytest.raises(RuntimeError) as info:
        ms.jit(_where_indices)(ms.Tensor(np.ones((2, 3), np.float32)))
    message = str(info.value)
    assert "test_mnp.py:" in message and "data-dependent shape" in message
    assert "internal error" not in message


@pytest.mark.parametrize("call", [lambda x: mnp.flipud(x), lambda x: mnp.sum(x, axis=0),
                                  lambda x: mnp.tril_indices_from(x)], ids=["flipud", "sum", "tril_indices_from"])
def test_an_axis_a_0d_tensor_lacks_is_a_value_error(call):
    with pytest.raises(ValueError, match="out of range|2-D"):
        call(ms.Tensor(np.float32(1.5)))
