"""PyNative's cached dispatch (ops/_table.py `apply`): the second call of an op with the same
input types runs a stored plan instead of infer. These tests check that a plan decides what the
full path decides - per dtype, shape, number kind and attribute value - and that what the full
path does beyond infer (errors, float status, Parameters, tracers, NumPy's error state) still
happens on every call. Expected values come from NumPy written here."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import pycompile as ms
from pycompile import Parameter, Tensor, ops
from pycompile.ops import _table


def _twice(fn):
    """fn() on a cold plan, then on the stored one: both results."""
    _table._PLANS.clear()
    return fn(), fn()


@pytest.mark.parametrize("a, b, dt", [
    (np.arange(4, dtype=np.float32), np.ones(4, np.float32), np.float32),
    (np.arange(4, dtype=np.int32), np.ones(4, np.float32), np.float32),        # MindSpore: float32
    (np.arange(6, dtype=np.int8).reshape(2, 3), np.ones(3, np.int16), np.int16),  # broadcast
    (np.arange(4, dtype=np.float16), np.ones((3, 1), np.float64), np.float64),
    (np.array([True, False]), np.array([True, True]), np.bool_),              # `+` on bools: or
])
def test_one_op_many_keys_each_right(a, b, dt):
    """The same op over keys met in turn (a parametrized run stores each plan beside the
    others'): every result has NumPy's value and MindSpore's promoted dtype."""
    want = (a | b) if dt is np.bool_ else np.add(a.astype(dt), b.astype(dt))
    for _ in range(2):
        g = Tensor(a) + Tensor(b)
        assert g.asnumpy().dtype == dt
        np.testing.assert_array_equal(g.asnumpy(), want)


def test_number_operands_keep_their_kind_and_value():
    x = Tensor(np.array([1.5, -2.0], np.float32))
    i = Tensor(np.array([100, -3], np.int8))
    for _ in range(2):
        assert (x + 1).dtype == ms.float32 and (x + 1.0).dtype == ms.float32
        assert (i + 1).dtype == ms.int8 and (i + 1.5).dtype == ms.float32
        assert (i + True).dtype == ms.int8
        np.testing.assert_array_equal((i + 300).asnumpy(), np.array([-112, 41], np.int8))  # wraps as C
        # -0.0 and 0.0 are equal numbers but different operands
        assert np.signbit((x * -0.0).asnumpy()).tolist() == [True, False]
        assert np.signbit((x * 0.0).asnumpy()).tolist() == [False, True]
        # an int beyond a double's exact range converts as int64 -> float32 does
        big = (1 << 60) + 1
        np.testing.assert_array_equal((x * 0 + big).asnumpy(),
                                      np.full(2, np.asarray(big).astype(np.float32)))


def test_numbers_alone_give_numbers():
    assert _twice(lambda: ops.add(2, 3)) == (5, 5)
    assert _twice(lambda: ops.mul(1.5, 2)) == (3.0, 3.0)


def test_errors_are_raised_on_every_call():
    """A refused call stores no plan: the second one is refused with the same message."""
    x = Tensor(np.ones(3, np.float32))
    y = Tensor(np.ones(4, np.float32))
    for _ in range(2):
        with pytest.raises(ValueError, match="For 'Add', the shapes of the inputs can not broadcast"):
            x + y
    b = Tensor(np.array([True]))
    for _ in range(2):
        with pytest.raises(TypeError, match="For 'Sub'"):
            b - b


def test_attributes_key_the_plan():
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    for _ in range(2):
        assert x.sum().shape == ()
        assert x.sum(0).shape == (3,)
        assert x.sum(1, keepdims=True).shape == (2, 1)
        assert x.sum((0, 1)).shape == ()
        np.testing.assert_array_equal(x.sum(-1).asnumpy(), [3.0, 12.0])
    # an attribute that is not a plain value (a list) takes the full path every time
    for _ in range(2):
        np.testing.assert_array_equal(ops.ReduceSum()(x, [0]).asnumpy(), [3.0, 5.0, 7.0])


def test_set_data_changes_the_key():
    x = Tensor(np.ones(2, np.float32))
    assert (x + x).dtype == ms.float32
    x.set_data(np.ones(3, np.int32))
    y = x + x
    assert y.dtype == ms.int32 and y.shape == (3,)


def test_numpy_error_state_is_restored_and_no_warning_escapes():
    before = np.geterr()
    x = Tensor(np.array([3e38, 1.0], np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(2):
            y = x * x                     # overflows: inf, as C gives, without a NumPy warning
            z = ops.log(x - x - 1)        # NaN
    assert np.isinf(y.asnumpy()[0]) and np.isnan(z.asnumpy()).all()
    assert np.geterr() == before
    with pytest.warns(RuntimeWarning):   # the user's own NumPy still warns
        np.float32(3e38) * np.float32(3e38)


def test_results_are_owned_contiguous_arrays():
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    for _ in range(2):
        t = ops.transpose(x, (1, 0))
        assert t._data.flags.c_contiguous and t.shape == (3, 2)
        np.testing.assert_array_equal(t.asnumpy(), np.arange(6, dtype=np.float32).reshape(2, 3).T)


def test_float_status_recorded_by_a_stored_plan():
    """A plan made on the CPU device records overflow once the device is the Ascend one."""
    ms.set_context(device_target="CPU")
    x = Tensor(np.full(3, 60000, np.float16))
    x + x                                            # stores the plan
    ms.set_context(device_target="Ascend")           # the conftest fixture resets the context
    status = ops.NPUAllocFloatStatus()()
    ops.NPUClearFloatStatus()(status)
    assert np.isinf((x + x).asnumpy()).all()
    assert ops.NPUGetFloatStatus()(status).asnumpy().any()


def test_parameters_and_tracers_take_the_full_path():
    p = Parameter(Tensor(np.ones(2, np.float32)), name="p")
    x = Tensor(np.ones(2, np.float32))
    np.testing.assert_array_equal((p + x).asnumpy(), [2.0, 2.0])     # eager outside graphs

    def f(a):
        return (a * a + x).sum()
    for _ in range(2):
        np.testing.assert_allclose(ms.grad(f)(Tensor(np.array([1.0, 2.0], np.float32))).asnumpy(), [2.0, 4.0])


class _Scale(ms.nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([2.0, 3.0], np.float32)), name="w")

    def construct(self, x):
        return x * self.w


def test_a_parameter_read_stays_a_read_in_graphs_and_grads():
    """The plan `x * w` stores eagerly must not turn the Parameter into a constant of a graph
    (its read is a Load when the graph runs) nor hide it from grad's tape."""
    net = _Scale()
    x = Tensor(np.array([1.0, 1.0], np.float32))
    for _ in range(2):
        np.testing.assert_array_equal(net(x).asnumpy(), [2.0, 3.0])          # eager: a stored plan
    jf = ms.jit(lambda v: net(v))
    np.testing.assert_array_equal(jf(x).asnumpy(), [2.0, 3.0])
    net.w.set_data(Tensor(np.array([5.0, 7.0], np.float32)))
    np.testing.assert_array_equal(jf(x).asnumpy(), [5.0, 7.0])             # read when it runs
    grads = ms.value_and_grad(lambda v: net(v).sum(), None, net.trainable_params())(x)[1]
    np.testing.assert_array_equal(grads[0].asnumpy(), [1.0, 1.0])


def test_plans_are_bounded(monkeypatch):
    monkeypatch.setattr(_table, "_MAX_PLANS", 4)
    _table._PLANS.clear()
    for n in range(1, 10):
        x = Tensor(np.ones(n, np.float32))
        np.testing.assert_array_equal((x + x).asnumpy(), np.full(n, 2.0))
        assert len(_table._PLANS) <= 4
