"""Default dtypes and type promotion. Every expected dtype here was checked against MindSpore 2.10
(CPU) and is hard-coded from its answer."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops


def t(values, dtype):
    return Tensor(values, dtype)


# (description, expression, MindSpore's dtype)
CASES = [
    # construction defaults
    ("Tensor([0])", lambda: Tensor([0]), ms.int64),
    ("Tensor(3)", lambda: Tensor(3), ms.int64),
    ("Tensor([1.5])", lambda: Tensor([1.5]), ms.float32),
    ("Tensor(1.5)", lambda: Tensor(1.5), ms.float32),
    ("Tensor(True)", lambda: Tensor(True), ms.bool_),
    ("Tensor([1, 2.5])", lambda: Tensor([1, 2.5]), ms.float32),
    ("Tensor([True, 1])", lambda: Tensor([True, 1]), ms.int64),
    ("Tensor([]) ", lambda: Tensor([]), ms.float32),
    ("Tensor(np float64)", lambda: Tensor(np.array([1.0])), ms.float64),
    ("Tensor(np int32)", lambda: Tensor(np.array([1], np.int32)), ms.int32),
    ("Tensor(np.float64 scalar)", lambda: Tensor(np.float64(1.0)), ms.float64),
    ("Tensor(np.int32 scalar)", lambda: Tensor(np.int32(1)), ms.int32),
    ("ms.tensor([1, 2])", lambda: ms.tensor([1, 2]), ms.int64),
    # tensor with Python scalar: a scalar never widens a tensor of its own kind or higher
    ("int32 + 1.5", lambda: t([1], ms.int32) + 1.5, ms.float32),
    ("int32 + 2", lambda: t([1], ms.int32) + 2, ms.int32),
    ("int32 + True", lambda: t([1], ms.int32) + True, ms.int32),
    ("2 - int32", lambda: 2 - t([1], ms.int32), ms.int32),
    ("1.5 - int32", lambda: 1.5 - t([1], ms.int32), ms.float32),
    ("int64 / 2", lambda: t([1], ms.int64) / 2, ms.float32),
    ("int32 / 2", lambda: t([1], ms.int32) / 2, ms.float32),
    ("float16 * 2", lambda: t([1], ms.float16) * 2, ms.float16),
    ("float16 * 2.5", lambda: t([1], ms.float16) * 2.5, ms.float16),
    ("float64 * 2.5", lambda: t([1], ms.float64) * 2.5, ms.float64),
    ("bool + 1", lambda: Tensor([True]) + 1, ms.int64),
    ("bool + 1.5", lambda: Tensor([True]) + 1.5, ms.float32),
    ("bool + True", lambda: Tensor([True]) + True, ms.bool_),
    ("bool - 1", lambda: Tensor([True]) - 1, ms.int64),
    ("int32 ** 2", lambda: t([1, 2], ms.int32) ** 2, ms.int32),
    ("int32 ** 2.0", lambda: t([1, 2], ms.int32) ** 2.0, ms.float32),
    ("int32 // 2", lambda: t([1, 2], ms.int32) // 2, ms.int32),
    ("int32 % 2", lambda: t([1, 2], ms.int32) % 2, ms.int32),
    ("int32 == 1.5", lambda: t([1, 2], ms.int32) == 1.5, ms.bool_),
    # tensor with tensor
    ("int32 + int64", lambda: t([1], ms.int32) + t([1], ms.int64), ms.int64),
    ("int32 / int32", lambda: t([1], ms.int32) / t([2], ms.int32), ms.float32),
    ("int16 / int16", lambda: t([1], ms.int16) / t([1], ms.int16), ms.float32),
    ("uint8 / uint8", lambda: t([1], ms.uint8) / t([1], ms.uint8), ms.float32),
    ("float16 / float16", lambda: t([1], ms.float16) / t([1], ms.float16), ms.float16),
    ("bool / bool", lambda: Tensor([True]) / Tensor([True]), ms.float32),
    ("float16 + float32", lambda: t([1], ms.float16) + t([1], ms.float32), ms.float32),
    ("float32 + float64", lambda: t([1], ms.float32) + t([1], ms.float64), ms.float64),
    ("bool + bool", lambda: Tensor([True]) + Tensor([True]), ms.bool_),
    ("bool * bool", lambda: Tensor([True]) * Tensor([True]), ms.bool_),
    ("bool + int32", lambda: Tensor([True]) + t([1], ms.int32), ms.int32),
    ("bool + float16", lambda: Tensor([True]) + t([1], ms.float16), ms.float16),
    ("int32 + float16", lambda: t([1], ms.int32) + t([1], ms.float16), ms.float16),
    ("int64 + float16", lambda: t([1], ms.int64) + t([1], ms.float16), ms.float16),
    ("uint8 + int8", lambda: t([1], ms.uint8) + t([1], ms.int8), ms.int16),
    ("int8 + int16", lambda: t([1], ms.int8) + t([1], ms.int16), ms.int16),
    ("0-d int32 + int8", lambda: Tensor(1, ms.int32) + t([1], ms.int8), ms.int32),
    ("maximum(int32, float32)", lambda: ops.maximum(t([1], ms.int32), t([1.0], ms.float32)), ms.float32),
    ("int32 & int64", lambda: t([1], ms.int32) & t([1], ms.int64), ms.int64),
    ("bool & int32", lambda: Tensor([True]) & t([1], ms.int32), ms.int32),
    # unary and reductions
    ("sqrt(int32)", lambda: ops.sqrt(t([1, 2], ms.int32)), ms.float32),
    ("reciprocal(int32)", lambda: ops.reciprocal(t([1], ms.int32)), ms.float32),
    ("neg(int32)", lambda: -t([1, 2], ms.int32), ms.int32),
    ("abs(bool)", lambda: ops.abs(Tensor([True])), ms.bool_),
    ("relu(bool)", lambda: ops.relu(Tensor([True])), ms.bool_),
    ("relu(int32)", lambda: ops.relu(t([1], ms.int32)), ms.int32),
    ("softmax(float16)", lambda: ops.softmax(t([1.0, 2.0], ms.float16)), ms.float16),
    ("isfinite(int32)", lambda: ops.isfinite(t([1], ms.int32)), ms.bool_),
    ("logical_and(float32, float32)", lambda: ops.logical_and(Tensor([1.0]), Tensor([0.0])), ms.bool_),
    ("int32 sum", lambda: t([1], ms.int32).sum(), ms.int64),
    ("ops.sum(int32)", lambda: ops.sum(t([1], ms.int32)), ms.int64),
    ("ReduceSum()(int32)", lambda: ops.ReduceSum()(t([1], ms.int32)), ms.int32),
    ("bool sum", lambda: Tensor([True]).sum(), ms.int64),
    ("float16 sum", lambda: t([1], ms.float16).sum(), ms.float16),
    ("int32 mean", lambda: t([1, 2], ms.int32).mean(), ms.int32),
    ("float16 mean", lambda: t([1, 2], ms.float16).mean(), ms.float16),
    ("int32 argmax", lambda: t([1, 2], ms.int32).argmax(), ms.int64),
    ("ops.Argmax()(int32)", lambda: ops.Argmax()(t([1, 2], ms.int32)), ms.int32),
    ("all(float32)", lambda: Tensor([1.0, 0.0]).all(), ms.bool_),
    ("select(bool, int32, float32)", lambda: ops.select(Tensor([True]), t([1], ms.int32), Tensor([1.0])), ms.float32),
    ("select(bool, int32, 1.5)", lambda: ops.select(Tensor([True, False]), t([1, 2], ms.int32), 1.5), ms.float32),
    ("select(bool, 1, 2)", lambda: ops.select(Tensor([True, False]), 1, 2), ms.int64),
    ("addn(int32, int32)", lambda: ops.addn((t([1], ms.int32), t([1], ms.int32))), ms.int32),
    ("matmul(int32, int32)", lambda: ops.matmul(t([[1]], ms.int32), t([[1]], ms.int32)), ms.int32),
    ("matmul(float16, float16)", lambda: ops.matmul(t([[1]], ms.float16), t([[1]], ms.float16)), ms.float16),
    ("hardswish(float32)", lambda: ops.hardswish(Tensor([1.0])), ms.float32),
]


@pytest.mark.parametrize("expr, expected", [pytest.param(e, d, id=n) for n, e, d in CASES])
def test_dtype_matches_mindspore(expr, expected):
    assert expr().dtype == expected


def test_values_after_promotion():
    np.testing.assert_array_equal((t([1, 2], ms.int32) + 1.5).asnumpy(), np.array([2.5, 3.5], np.float32))
    np.testing.assert_array_equal((Tensor([True, False]) + 1).asnumpy(), [2, 1])
    np.testing.assert_array_equal((t([1, 2], ms.int32) / t([2, 4], ms.int32)).asnumpy(), [0.5, 0.5])
    np.testing.assert_array_equal((Tensor([True, True]) + Tensor([True, False])).asnumpy(), [True, True])
    np.testing.assert_array_equal((t([1, 2], ms.int32) == 1.5).asnumpy(), [False, False])
    assert (t([1.0], ms.float16) * 2.5).asnumpy()[0] == np.float16(2.5)


def test_float64_numpy_data_stays_float64_through_ops():
    x = Tensor(np.array([1 / 3]))
    assert x.dtype == ms.float64
    out = x * 3 + 1.5
    assert out.dtype == ms.float64
    assert out.asnumpy()[0] == 1 / 3 * 3 + 1.5


def test_dtype_objects():
    assert str(ms.float32) == "Float32" and str(ms.bool_) == "Bool"
    assert repr(ms.int64) == "mindspore.int64" and repr(ms.bool_) == "mindspore.bool"      # the wheel's
    assert ms.float_ is ms.float32 and ms.half is ms.float16 and ms.double is ms.float64
    assert ms.int_ is ms.int32 and ms.single is ms.float32 and ms.uint is ms.uint32
    assert ms.float32 == ms.dtype.float32 and ms.float32 != ms.float16
    assert ms.dtype.to_dtype("float16") is ms.float16 and ms.dtype.to_dtype(np.int8) is ms.int8
    assert ms.dtype.to_dtype(float) is ms.float32 and ms.dtype.to_dtype(int) is ms.int64
    assert ms.float32 in ms.dtype.float_type and ms.int32 in ms.dtype.int_type
    import pickle
    assert pickle.loads(pickle.dumps(ms.float16)) is ms.float16
    with pytest.raises(TypeError, match="dtype"):
        ms.dtype.to_dtype("complex")


def test_ops_refuse_bool_where_mindspore_does():
    # MindSpore 2.10 raises for these too (it does allow bool - bool, pycompile refuses it)
    for fn in (lambda: Tensor([True]) - Tensor([False]), lambda: -Tensor([True]),
               lambda: ops.square(Tensor([True])), lambda: Tensor([True]) ** Tensor([False]),
               lambda: Tensor([True]) % Tensor([True])):
        with pytest.raises(TypeError, match=r"For '(Sub|Neg|Square|Pow|FloorMod)'.*Bool"):
            fn()


@pytest.mark.parametrize("unsigned, signed", [(ms.uint16, ms.int16), (ms.uint32, ms.int32), (ms.uint64, ms.int64),
                                              (ms.uint16, ms.int8)])
def test_wide_unsigned_does_not_mix_with_signed(unsigned, signed):
    # MindSpore 2.10: "Type implicit conversion between Int16 and UInt16 is not supported."
    # (NumPy would give int32, or float64 for uint64 + int64)
    a, b = Tensor([1], unsigned), Tensor([1], signed)
    for fn, name in ((lambda: a + b, "Add"), (lambda: ops.maximum(b, a), "Maximum"),
                     (lambda: ops.concat((a, b)), "Concat"), (lambda: ops.select(Tensor([True]), a, b), "Select")):
        with pytest.raises(TypeError, match=f"For '{name}', type implicit conversion between .*not supported"):
            fn()
    assert (Tensor([1], ms.uint8) + Tensor([1], ms.int8)).dtype == ms.int16
    assert (a + 1).dtype == unsigned and (a + a).dtype == unsigned


def test_python_ints_wrap_in_the_tensor_dtype_without_warnings():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = Tensor(np.array([1], np.int8)) + 300      # MindSpore 2.10: [45]
    assert out.dtype == ms.int8 and out.asnumpy().tolist() == [45]
