"""The Tensor API: construction, properties, conversions, operators, indexing. Indexing and
operators are checked against NumPy on the same data; dtypes against MindSpore 2.10."""
import copy
import pickle

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


def check(t, expected, dtype=None):
    expected = np.asarray(expected)
    assert isinstance(t, Tensor)
    assert t.shape == expected.shape
    if dtype is not None:
        assert t.dtype == dtype
    np.testing.assert_array_equal(t.asnumpy(), expected)


# ---- construction ------------------------------------------------------------------------------
@pytest.mark.parametrize("data, dtype, expected, expected_dtype", [
    ([1, 2, 3], None, [1, 2, 3], ms.int64),
    ([[1.5, 2], [3, 4]], None, [[1.5, 2], [3, 4]], ms.float32),
    ((True, False), None, [True, False], ms.bool_),
    (7, None, 7, ms.int64),
    (2.5, None, 2.5, ms.float32),
    (False, None, False, ms.bool_),
    (np.array([1, 2], np.int8), None, [1, 2], ms.int8),
    (np.array([[1.0]], np.float64), None, [[1.0]], ms.float64),
    (np.float16(1.5), None, 1.5, ms.float16),
    ([1, 2], ms.float16, [1, 2], ms.float16),
    (np.array([1.7, -2.7]), ms.int32, [1, -2], ms.int32),      # C conversion truncates
    (2.9, ms.int32, 2, ms.int32),
    (-1, ms.uint8, 255, ms.uint8),                            # C conversion wraps (MindSpore 2.10: 255)
    ([1, 0, 2], ms.bool_, [True, False, True], ms.bool_),
    ([np.float32(1), np.float32(2)], None, [1, 2], ms.float32),
    ([np.array([1, 2], np.int32), np.array([3, 4], np.int32)], None, [[1, 2], [3, 4]], ms.int64),
    ([], None, np.zeros((0,)), ms.float32),
    ([[], []], ms.int32, np.zeros((2, 0)), ms.int32),
])
def test_construction(data, dtype, expected, expected_dtype):
    check(Tensor(data, dtype), np.asarray(expected), expected_dtype)
    check(ms.tensor(data, dtype), np.asarray(expected), expected_dtype)


def test_construction_from_tensors():
    a = Tensor([1, 2])
    b = Tensor(a, ms.float32)
    check(b, [1.0, 2.0], ms.float32)
    c = Tensor(a)
    assert c is not a and c.dtype == ms.int64
    check(Tensor([Tensor(1.0), Tensor(2.0)]), [1.0, 2.0], ms.float32)
    check(Tensor([Tensor([1.0]), Tensor([2.0])]), [[1.0], [2.0]], ms.float32)


def test_construction_copies_numpy_data():
    a = np.array([1.0, 2.0], np.float32)
    t = Tensor(a)
    a[0] = 100
    assert t.asnumpy()[0] == 1.0
    n = t.asnumpy()          # a copy as well (MindSpore shares it; pycompile does not)
    n[1] = 50
    assert t.asnumpy()[1] == 2.0


def test_construction_with_shape_and_init():
    check(Tensor(shape=(2, 3), dtype=ms.int32, init="ones"), np.ones((2, 3)), ms.int32)
    check(Tensor(shape=4, dtype=ms.float16, init=ms.common.initializer.One()), np.ones(4), ms.float16)
    check(Tensor(shape=(2,), dtype=ms.float32), np.zeros(2), ms.float32)
    check(Tensor([1, 2, 3, 4], shape=(2, 2)), [[1, 2], [3, 4]], ms.int64)


@pytest.mark.parametrize("bad, pattern", [
    ("abc", "str"), (object(), "object"), (None, "input_data"), ([[1, 2], [3]], "regular shape"),
    (["a", "b"], "numbers"), ({1: 2}, "dict"),
])
def test_bad_construction_raises_type_error(bad, pattern):
    with pytest.raises(TypeError, match=pattern):
        Tensor(bad)


def test_unknown_dtype_raises():
    with pytest.raises(TypeError, match="dtype"):
        Tensor([1], "complex")
    with pytest.raises(TypeError, match="dtype"):
        Tensor([1], np.dtype("S2"))


# ---- properties and conversions ---------------------------------------------------------------------
def test_properties():
    t = Tensor(X)
    assert t.shape == (2, 3, 4) and isinstance(t.shape, tuple)
    assert t.dtype == ms.float32 and t.ndim == 3 and t.size == 24 and t.dim() == 3 and t.numel() == 24
    assert t.nbytes == 96 and t.itemsize == 4 and t.strides == (48, 16, 4)
    assert Tensor(5).shape == () and Tensor(5).ndim == 0 and Tensor(5).size == 1
    assert Tensor(np.zeros((0, 3))).size == 0
    assert ms.is_tensor(t) and not ms.is_tensor(X)


def test_asnumpy_and_array_protocol():
    t = Tensor(X)
    a = t.asnumpy()
    assert isinstance(a, np.ndarray) and a.dtype == np.float32
    np.testing.assert_array_equal(a, X)
    np.testing.assert_array_equal(t.numpy(), X)
    assert np.asarray(t).dtype == np.float32
    assert np.array(t, dtype=np.float64).dtype == np.float64
    np.testing.assert_array_equal(np.add(t, 1), X + 1)
    assert np.asarray(Tensor([1.0], ms.float16)).dtype == np.float16
    assert t.tolist() == X.tolist()


def test_astype_and_friends():
    t = Tensor([1.7, -2.5, 0.0])
    check(t.astype(ms.int32), [1, -2, 0], ms.int32)
    check(t.astype("float16"), np.array([1.7, -2.5, 0.0], np.float16), ms.float16)
    check(t.astype(np.float64), np.array([1.7, -2.5, 0.0], np.float32).astype(np.float64), ms.float64)
    check(t.astype(ms.bool_), [True, True, False], ms.bool_)
    check(t.to(ms.int64), [1, -2, 0], ms.int64)
    check(Tensor([1, 2]).float(), [1.0, 2.0], ms.float32)
    check(Tensor([1.5]).int(), [1], ms.int32)
    check(Tensor([1, 0]).bool(), [True, False], ms.bool_)


def test_item_and_python_numbers():
    v = Tensor([[3.5]]).item()
    assert v == 3.5 and type(v) is float
    assert type(Tensor(7).item()) is int and type(Tensor(True).item()) is bool
    assert type(Tensor(np.int32(3)).item()) is int
    assert Tensor([4, 5, 6]).item(1) == 5
    assert int(Tensor(3.9)) == 3 and float(Tensor([2])) == 2.0
    with pytest.raises(ValueError, match=r"one element.*\[2\]"):
        Tensor([1, 2]).item()


def test_bool_len_iter():
    assert bool(Tensor([2])) is True and bool(Tensor(0.0)) is False
    with pytest.raises(ValueError, match="2 elements is ambiguous"):
        bool(Tensor([1, 2]))
    assert len(Tensor(np.zeros((4, 2)))) == 4
    rows = list(Tensor(X))
    assert len(rows) == 2
    for row, ref in zip(rows, X):
        check(row, ref, ms.float32)
    with pytest.raises(TypeError, match="0-d"):
        len(Tensor(1))
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        list(Tensor(1))


def test_copy_pickle_and_hash():
    t = Tensor(X)
    for c in (copy.deepcopy(t), pickle.loads(pickle.dumps(t)), t.copy()):
        assert c is not t and c.dtype == ms.float32
        check(c, X)
    assert hash(t) == hash(t) and hash(t) != hash(Tensor(X))
    assert t in [t] and (t == None) is False and (t != None) is True  # noqa: E711


# ---- operators against NumPy -------------------------------------------------------------------------
A = np.array([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]], np.float32)
B = np.array([2.0, -0.5, 1.5], np.float32)
I = np.array([[7, -7, 5], [3, 0, -4]], np.int32)


@pytest.mark.parametrize("name, op", [
    ("+", lambda a, b: a + b), ("-", lambda a, b: a - b), ("*", lambda a, b: a * b), ("/", lambda a, b: a / b),
    ("//", lambda a, b: a // b), ("%", lambda a, b: a % b), ("**", lambda a, b: abs(a) ** b),
    ("<", lambda a, b: a < b), ("<=", lambda a, b: a <= b), (">", lambda a, b: a > b), (">=", lambda a, b: a >= b),
    ("==", lambda a, b: a == b), ("!=", lambda a, b: a != b),
])
def test_binary_operators_match_numpy(name, op):
    check(op(Tensor(A), Tensor(B)), op(A, B))
    check(op(Tensor(A), 2.0), op(A, np.float32(2.0)))
    if name == "**":
        check(2.0 ** Tensor(A), np.float32(2.0) ** A)
    else:
        check(op(2.0, Tensor(A)), op(np.float32(2.0), A))
    comparison = name in ("<", "<=", ">", ">=", "==", "!=")
    ints = op(Tensor(I), 3)
    assert ints.dtype == (ms.float32 if name == "/" else ms.bool_ if comparison else ms.int32)
    check(ints, op(I, np.int32(3)) if name != "/" else (I / 3).astype(np.float32))


def test_unary_operators_and_matmul():
    check(-Tensor(A), -A)
    check(+Tensor(A), A)
    check(abs(Tensor(A)), np.abs(A))
    np.testing.assert_allclose((Tensor(A) @ Tensor(A.T)).asnumpy(), A @ A.T, rtol=1e-6)
    np.testing.assert_allclose((Tensor(A) @ Tensor(B)).asnumpy(), A @ B, rtol=1e-6)
    np.testing.assert_allclose(Tensor(A).matmul(Tensor(A.T)).asnumpy(), A @ A.T, rtol=1e-6)
    check(Tensor([1, 2]) @ Tensor([3, 4]), np.array(11), ms.int64)


def test_tensor_methods_match_numpy():
    t = Tensor(X)
    check(t.T, X.T)
    check(t.transpose(), X.transpose())
    check(t.transpose(1, 0, 2), X.transpose(1, 0, 2))
    check(t.transpose((2, 1, 0)), X.transpose(2, 1, 0))
    check(t.permute(2, 0, 1), X.transpose(2, 0, 1))
    check(t.swapaxes(0, 2), X.swapaxes(0, 2))
    check(t.reshape(4, 6), X.reshape(4, 6))
    check(t.reshape((4, -1)), X.reshape(4, -1))
    check(t.view(-1), X.reshape(-1))
    check(t.flatten(), X.reshape(-1))
    check(t.flatten(1), X.reshape(2, -1))
    check(t.expand_dims(-1), X[..., None])
    check(t.unsqueeze(0), X[None])
    check(Tensor(np.ones((1, 2, 1))).squeeze(), np.ones(2))
    check(Tensor(np.ones((1, 2, 1))).squeeze(0), np.ones((2, 1)))
    check(Tensor([1, 2]).broadcast_to((2, 2)), [[1, 2], [1, 2]])
    check(Tensor([1, 2]).tile((2, 2)), np.tile([1, 2], (2, 2)))
    check(Tensor([1, 5, 9]).clip(2, 6), [2, 5, 6])
    check(Tensor([1, 5, 9]).clamp(max=4), [1, 4, 4])
    check(t.gather(Tensor([0, 3]), 2), X[:, :, [0, 3]])
    for name in ("abs", "exp", "square", "tanh", "sigmoid", "relu", "neg"):
        ref = {"abs": np.abs, "exp": np.exp, "square": np.square, "tanh": np.tanh,
               "sigmoid": lambda a: 1 / (1 + np.exp(-a)), "relu": lambda a: np.maximum(a, 0), "neg": np.negative}[name]
        np.testing.assert_allclose(getattr(Tensor(A), name)().asnumpy(), ref(A), rtol=1e-6, err_msg=name)
    pos = np.abs(A) + 0.5
    for name, ref in (("log", np.log), ("sqrt", np.sqrt), ("rsqrt", lambda a: 1 / np.sqrt(a))):
        np.testing.assert_allclose(getattr(Tensor(pos), name)().asnumpy(), ref(pos), rtol=1e-6, err_msg=name)
    np.testing.assert_allclose(Tensor(A).softmax(0).asnumpy(), np.exp(A) / np.exp(A).sum(0), rtol=1e-6)
    check(Tensor(A).add(1.0), A + 1)
    check(Tensor(A).sub(Tensor(B)), A - B)
    check(Tensor(A).mul(2.0), A * 2)
    check(Tensor(A).div(2.0), A / 2)
    check(Tensor(A).pow(2.0), A ** 2)
    check(Tensor(A).maximum(Tensor(B)), np.maximum(A, B))
    check(Tensor(A).minimum(0.0), np.minimum(A, 0))
    check(Tensor([1.0, np.inf]).isfinite(), [True, False])


def test_setitem_writes_in_place():
    z = Tensor([1.0, 2.0, 3.0])
    z[1] = 7
    check(z, [1.0, 7.0, 3.0])
    z[Tensor([0, 2])] = 0
    check(z, [0.0, 7.0, 0.0])
    z[0:2] = Tensor([5.0, 6.0])
    check(z, [5.0, 6.0, 0.0], ms.float32)


# ---- indexing against NumPy ---------------------------------------------------------------------------
INDEXES = [
    1, -1, (0, 1), (0, 1, 2), (-1, -2, -3), slice(1, None), (slice(None), slice(1, None)),
    (Ellipsis, slice(None, None, 2)), slice(None, None, -1), (slice(None), slice(None, None, -2), 1),
    None, (slice(None), None, 1), (Ellipsis, None), (0, Ellipsis, 1), (None, slice(None), None),
    slice(1, 100), slice(5, None), slice(-10, None), (slice(None), -2), (1, slice(2, 0, -1)),
    (slice(None), slice(None), slice(3, 0, -2)), Ellipsis, (), [1, 0], [1, 0, 1], (slice(None), [2, 0]),
    (1, [0, 2]), ([1, 0], slice(1, None)), (Ellipsis, [3, 3, 0]), (slice(1, 2), [0], slice(None, None, -1)),
]


@pytest.mark.parametrize("index", INDEXES, ids=[repr(i) for i in INDEXES])
def test_getitem_matches_numpy(index):
    check(Tensor(X)[index], X[index], ms.float32)


@pytest.mark.parametrize("index, np_index", [
    (Tensor([1, 0]), [1, 0]),
    (Tensor([[1], [0]]), [[1], [0]]),
    ((slice(None), Tensor(np.array([2, 0], np.int32))), (slice(None), [2, 0])),
    ((1, Tensor([0, 2])), (1, [0, 2])),
    (Tensor(1), 1),
    ((Tensor(1), Tensor(-1)), (1, -1)),
    (slice(Tensor(1), Tensor(3)), slice(1, 3)),
])
def test_getitem_with_tensor_indices(index, np_index):
    check(Tensor(X)[index], X[np_index], ms.float32)


def test_chained_indexing_and_empty_results():
    t = Tensor(X)
    check(t[0][1][2], X[0][1][2])
    check(t[1:1], X[1:1])
    check(Tensor(np.arange(10))[8:2:-3], np.arange(10)[8:2:-3])
    check(Tensor(np.zeros((0, 3)))[:, 1], np.zeros((0,)))
    check(Tensor(np.arange(5, dtype=np.int32))[Tensor(2)], np.array(2, np.int32), ms.int32)


def test_setitem_converts_like_c_and_reports_bad_values():
    x = Tensor([1, 2, 3], ms.int32)
    x[0] = 2.7
    x[1:] = Tensor([5.0, 6.0])
    check(x, [2, 5, 6], ms.int32)
    y = Tensor(np.zeros((2, 3), np.float32))
    y[:, 1] = [7, 8]
    check(y, [[0, 7, 0], [0, 8, 0]], ms.float32)
    with pytest.raises(TypeError, match="For 'Tensor'.*str"):
        x[0] = "s"
    with pytest.raises(ValueError, match=r"For 'setitem'.*\[2\].*\[3\]"):
        x[:] = Tensor([1, 2])
    with pytest.raises(IndexError, match="out of bounds"):
        x[5] = 1


def test_set_data_and_assign_value():
    t = Tensor([1.0, 2.0])
    assert t.set_data(Tensor([1, 2, 3], ms.int32)) is t
    check(t, [1, 2, 3], ms.int32)
    t.assign_value([4.0])
    check(t, [4.0], ms.float32)
    with pytest.raises(TypeError, match="For 'Tensor'"):
        t.set_data("abc")
