"""Parameter and ParameterTuple (behaviour checked against MindSpore 2.10 where it has one)."""
import copy
import pickle

import numpy as np
import pytest

import pycompile as ms
from pycompile import Parameter, ParameterTuple, Tensor, ops


def test_name_and_requires_grad():
    p = Parameter(Tensor([1.0, 2.0]), name="w")
    assert p.name == "w" and p.requires_grad is True
    assert isinstance(p, Tensor) and p.dtype == ms.float32 and p.shape == (2,)
    q = Parameter(Tensor([1.0]), name="q", requires_grad=False)
    assert q.requires_grad is False
    q.requires_grad = True
    assert q.requires_grad is True
    p.name = "renamed"
    assert p.name == "renamed"
    with pytest.raises(ValueError, match="name.*string.*int"):
        p.name = 3


def test_unnamed_parameters_get_distinct_default_names():
    a, b = Parameter(Tensor([1.0])), Parameter(Tensor([1.0]))
    assert a.name.startswith("Parameter#") and b.name.startswith("Parameter#") and a.name != b.name


@pytest.mark.parametrize("data, dtype", [
    (1, ms.int32),                  # a Python int gives Int32 for a Parameter (Int64 for a Tensor)
    (1.5, ms.float32),
    ([1.0, 2.0], ms.float32),
    ([1, 2], ms.int64),
    (np.ones((2,), np.float64), ms.float64),
    ([True], ms.bool_),
    (Tensor([1, 2], ms.int8), ms.int8),
])
def test_dtype_of_the_data(data, dtype):
    assert Parameter(data, name="p").dtype == dtype


def test_bad_data():
    with pytest.raises(ValueError, match="bool"):
        Parameter(True)
    for bad in ("abc", None, object()):
        with pytest.raises(TypeError, match="default_input"):
            Parameter(bad)
    with pytest.raises(TypeError, match="initializer"):
        Parameter(ms.common.initializer.Normal())


def test_parameter_copies_its_data():
    t = Tensor([1.0, 2.0])
    p = Parameter(t, name="p")
    t[0] = 9.0
    assert p.asnumpy()[0] == 1.0


def test_set_data_with_the_same_shape_writes_into_the_same_buffer():
    p = Parameter(Tensor(np.zeros((2, 3), np.float32)), name="w")
    buffer = p._data
    p.set_data(Tensor(np.ones((2, 3), np.float32)))
    assert p._data is buffer
    np.testing.assert_array_equal(buffer, np.ones((2, 3)))
    # another dtype is converted into the buffer (MindSpore keeps the Parameter's dtype too)
    p.set_data(Tensor(np.full((2, 3), 2), ms.int32))
    assert p._data is buffer and p.dtype == ms.float32
    np.testing.assert_array_equal(buffer, np.full((2, 3), 2.0))
    p.set_data(np.full((2, 3), 3.0))
    assert p._data is buffer and buffer[0, 0] == 3.0


def test_set_data_with_another_shape_replaces_the_buffer():
    p = Parameter(Tensor([1.0, 2.0]), name="w")
    out = p.set_data(Tensor([1.0, 2.0, 3.0]))
    assert out is p and p.shape == (3,) and p.dtype == ms.float32
    np.testing.assert_array_equal(p.asnumpy(), [1.0, 2.0, 3.0])


def test_assign_writes_into_the_same_buffer():
    p = Parameter(Tensor(np.zeros(3, np.float32)), name="w")
    buffer = p._data
    ops.assign(p, Tensor([1.0, 2.0, 3.0]))
    assert p._data is buffer
    np.testing.assert_array_equal(buffer, [1.0, 2.0, 3.0])
    ops.assign(p, 5.0)
    np.testing.assert_array_equal(buffer, [5.0, 5.0, 5.0])


def test_clone():
    p = Parameter(Tensor([1.0, 2.0]), name="w", requires_grad=False)
    c = p.clone()
    assert isinstance(c, Parameter) and c is not p
    assert c.name == "w" and c.requires_grad is False
    assert not np.shares_memory(c._data, p._data)
    np.testing.assert_array_equal(c.asnumpy(), p.asnumpy())
    z = p.clone(init="zeros")
    np.testing.assert_array_equal(z.asnumpy(), [0.0, 0.0])
    assert z.dtype == ms.float32


def test_deepcopy_and_pickle_keep_a_parameter():
    p = Parameter(Tensor([1.0, 2.0]), name="w", requires_grad=False)
    for c in (copy.deepcopy(p), pickle.loads(pickle.dumps(p))):
        assert isinstance(c, Parameter) and c.name == "w" and c.requires_grad is False
        assert not np.shares_memory(c._data, p._data)
        np.testing.assert_array_equal(c.asnumpy(), [1.0, 2.0])


def test_arithmetic_on_a_parameter_gives_a_tensor():
    p = Parameter(Tensor([1.0, 2.0]), name="w")
    out = p + 1
    assert type(out) is Tensor
    np.testing.assert_array_equal(out.asnumpy(), [2.0, 3.0])
    assert type(p.value()) is Tensor and p.data is p


def test_parameter_tuple():
    p = Parameter(Tensor([1.0]), name="a")
    q = Parameter(Tensor([2.0]), name="b")
    pt = ParameterTuple([p, q])
    assert isinstance(pt, tuple) and len(pt) == 2 and pt[0] is p
    assert [x.name for x in pt] == ["a", "b"]
    cl = pt.clone("pre")
    assert [x.name for x in cl] == ["pre.a", "pre.b"] and cl[0] is not p
    np.testing.assert_array_equal(pt.clone("z", init="zeros")[1].asnumpy(), [0.0])
    with pytest.raises(TypeError, match="ParameterTuple.*int"):
        ParameterTuple([1, 2])
    with pytest.raises(ValueError, match="'a' .*already exists"):
        ParameterTuple([p, Parameter(Tensor(1.0), name="a")])


def test_set_data_rejects_non_numbers():
    p = Parameter(Tensor([1.0, 2.0]), name="w")
    with pytest.raises(TypeError, match="For 'Tensor'.*str"):
        p.set_data("ab")
    np.testing.assert_array_equal(p.asnumpy(), [1.0, 2.0])
