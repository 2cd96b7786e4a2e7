"""Every elementwise op of the table, eagerly, against the NumPy references of op_specs.py:
each supported dtype, broadcasting, 0-d / prime / empty shapes, Python scalars on either side,
and the class form. Unsupported dtypes must raise a TypeError naming the op."""
import numpy as np
import pytest

from op_specs import ALL_DTYPES, BINARY, BINARY_SHAPES, UNARY, UNARY_SHAPES, assert_close, sample

import pycompile as ms
from pycompile import Tensor


def _accepts(spec, dtype) -> bool:
    return np.dtype(dtype).kind in spec.kinds


def _params(specs):
    return [pytest.param(s, dt, id=f"{s.op}-{np.dtype(dt).name}") for s in specs for dt in ALL_DTYPES]


def _expected(spec, dtype, *arrays):
    cdt = spec.compute_dtype(dtype)
    with np.errstate(all="ignore"):     # (-2.5) ** 0.5 is nan on both sides
        ref = spec.ref(*[a.astype(cdt) for a in arrays])
    return np.asarray(ref).astype(spec.out_dtype(dtype))


@pytest.mark.parametrize("spec, dtype", _params(UNARY))
def test_unary(spec, dtype):
    for i, shape in enumerate(UNARY_SHAPES):
        x = sample(dtype, shape, spec.domain[0], seed=i)
        if not _accepts(spec, dtype):
            with pytest.raises(TypeError, match=f"For '{spec.op}'"):
                spec.fn(Tensor(x))
            return
        expected = _expected(spec, dtype, x)
        assert_close(spec.fn(Tensor(x)), expected, f"{spec.op}{shape}")
        if spec.cls is not None:
            assert_close(spec.cls()(Tensor(x)), expected, f"{spec.op} class form {shape}")


@pytest.mark.parametrize("spec, dtype", _params(BINARY))
def test_binary_broadcast(spec, dtype):
    for i, (sx, sy) in enumerate(BINARY_SHAPES):
        x = sample(dtype, sx, spec.domain[0], seed=i)
        y = sample(dtype, sy, spec.domain[1], seed=100 + i)
        if not _accepts(spec, dtype):
            with pytest.raises(TypeError, match=f"For ('{spec.op}'|primitive\\[{spec.op}\\])"):
                spec.fn(Tensor(x), Tensor(y))
            return
        expected = _expected(spec, dtype, x, y)
        what = f"{spec.op}{sx}{sy}"
        assert_close(spec.fn(Tensor(x), Tensor(y)), expected, what)
        if spec.domain == ("any", "any"):   # broadcasting is symmetric: swap the operands
            assert_close(spec.fn(Tensor(y), Tensor(x)), _expected(spec, dtype, y, x), what + " swapped")
        if spec.cls is not None:
            assert_close(spec.cls()(Tensor(x), Tensor(y)), expected, what + " class form")


def _scalar_for(dtype, domain):
    """A Python scalar of the tensor's own kind (so it never widens the tensor's dtype)."""
    kind = np.dtype(dtype).kind
    if kind == "b":
        return True
    if kind == "i":
        return 2
    return 0.5 if domain != "small" else 2.0


@pytest.mark.parametrize("spec, dtype", _params(BINARY))
def test_binary_python_scalar(spec, dtype):
    if not _accepts(spec, dtype):
        return
    x = sample(dtype, (2, 3), spec.domain[0], seed=7)
    s = _scalar_for(dtype, spec.domain[1])
    s_arr = np.array(s, dtype=dtype)
    assert_close(spec.fn(Tensor(x), s), _expected(spec, dtype, x, s_arr), f"{spec.op}(tensor, {s!r})")
    if spec.domain[1] == "any":
        assert_close(spec.fn(s, Tensor(x)), _expected(spec, dtype, s_arr, x), f"{spec.op}({s!r}, tensor)")


@pytest.mark.parametrize("spec", [pytest.param(s, id=s.op) for s in BINARY])
def test_binary_two_python_scalars_give_a_python_number(spec):
    a, b = (3, 2) if "i" in spec.kinds else (True, True)
    out = spec.fn(a, b)
    cdt = spec.compute_dtype(np.array(a).dtype)
    expected = np.asarray(spec.ref(np.array(a, cdt), np.array(b, cdt)))
    assert not isinstance(out, Tensor)
    assert out == expected.item()


def test_int8_and_uint8_arithmetic_wraps_in_their_own_type():
    a = np.array([100, -100, 7], np.int8)
    b = np.array([100, -100, 3], np.int8)
    assert_close(ms.ops.add(Tensor(a), Tensor(b)), (a.astype(np.int64) + b).astype(np.int8))
    u = np.array([250, 3], np.uint8)
    assert_close(ms.ops.mul(Tensor(u), 2), np.array([244, 6], np.uint8))


def test_exp_of_bool_and_int8_is_computed_in_float32_not_float16():
    # NumPy alone would compute exp of bool / int8 in float16 (2.71875 instead of 2.7182817)
    assert_close(ms.ops.exp(Tensor([True, False])), np.exp(np.array([1.0, 0.0], np.float32)))
    x = np.array([1, 2, 3], np.int8)
    assert_close(ms.ops.sqrt(Tensor(x)), np.sqrt(x.astype(np.float32)))


def test_division_by_zero_follows_ieee_without_numpy_warnings():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = ms.ops.div(Tensor([1.0, -1.0, 0.0]), 0.0).asnumpy()
        log0 = ms.ops.log(Tensor([0.0])).asnumpy()
    assert out[0] == np.inf and out[1] == -np.inf and np.isnan(out[2])
    assert log0[0] == -np.inf


def test_floor_div_and_mod_round_toward_negative_infinity():
    # values checked against MindSpore 2.10
    x = Tensor(np.array([-7, 7], np.int32))
    assert (x // 2).asnumpy().tolist() == [-4, 3]
    assert (x % 2).asnumpy().tolist() == [1, 1]
    assert (x % -2).asnumpy().tolist() == [-1, -1]
    np.testing.assert_allclose((Tensor([-7.5, 7.5]) % 2.0).asnumpy(), [0.5, 1.5])


def test_integer_power_with_negative_exponent():
    # MindSpore 2.10: 2**-1 -> 0, 1**-1 -> 1, (-1)**-1 -> -1 (it gives INT_MIN for 0**-1,
    # which pycompile does not copy: 0)
    out = Tensor(np.array([2, 1, -1, -1], np.int32)) ** Tensor(np.array([-1, -1, -1, -2], np.int32))
    assert out.dtype == ms.int32
    assert out.asnumpy().tolist() == [0, 1, -1, 1]


def test_maximum_minimum_propagate_nan():
    # NumPy semantics (MindSpore's CPU kernel returns the second operand for max(nan, 1))
    a, b = Tensor([np.nan, 1.0, 2.0]), Tensor([1.0, np.nan, 3.0])
    np.testing.assert_array_equal(ms.ops.maximum(a, b).asnumpy(), [np.nan, np.nan, 3.0])
    np.testing.assert_array_equal(ms.ops.minimum(a, b).asnumpy(), [np.nan, np.nan, 2.0])


def test_isfinite_on_special_values():
    out = ms.ops.isfinite(Tensor([np.nan, 1.0, np.inf, -np.inf], ms.float16))
    assert out.asnumpy().tolist() == [False, True, False, False]


def test_bitwise_operators_on_int_and_bool_tensors():
    # values checked against MindSpore 2.10
    a = Tensor(np.array([1, 2, 7], np.int32))
    b = Tensor(np.array([3, 3, 5], np.int32))
    assert_close(a & b, np.array([1, 2, 5], np.int32))
    assert_close(a | b, np.array([3, 3, 7], np.int32))
    assert_close(a ^ b, np.array([2, 1, 2], np.int32))
    assert_close(a & 1, np.array([1, 0, 1], np.int32))
    assert_close(a & Tensor([1, 1, 1]), np.array([1, 0, 1], np.int64))
    t, f = Tensor([True, False]), Tensor([True, True])
    assert_close(t & f, np.array([True, False]))
    assert_close(t ^ f, np.array([False, True]))
    assert_close(~t, np.array([False, True]))
    with pytest.raises(TypeError, match="For 'BitwiseAnd'"):
        Tensor([1.0]) & Tensor([1.0])
    with pytest.raises(TypeError, match="For 'bitwise_not'"):
        ~a
