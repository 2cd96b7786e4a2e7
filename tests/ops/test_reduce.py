"""Reductions from the REDUCTIONS spec table: functional and class forms, every dtype, axes None /
int / negative / tuple, keep_dims, odd and empty shapes; plus argmax, softmax and the dtype rules
checked against MindSpore 2.10."""
import numpy as np
import pytest

from op_specs import ALL_DTYPES, REDUCE_SHAPES, REDUCTIONS, assert_close, ms_dtype, sample

import pycompile as ms
from pycompile import Tensor, ops


def _axes_for(ndim):
    yield None
    yield 0
    yield -1
    if ndim >= 2:
        yield (0, ndim - 1)


def _np_axis(axis):
    return axis if axis is None or isinstance(axis, tuple) else (axis,)


def _reduced_is_empty(shape, axis):
    axes = range(len(shape)) if axis is None else [a % len(shape) for a in _np_axis(axis)]
    return any(shape[a] == 0 for a in axes)


def _check_empty_mean(spec, x, axis, keep):
    """The mean over a zero-length axis is NaN for floats and an error for integers (0 / 0)."""
    if x.dtype.kind == "f":
        out = spec.fn(Tensor(x), axis, keep)
        assert out.dtype == ms_dtype(x.dtype)
        assert np.isnan(out.asnumpy()).all()
    else:
        with pytest.raises(ValueError, match="For 'ReduceMean'.*zero-length"):
            spec.fn(Tensor(x), axis, keep)


@pytest.mark.parametrize("spec, dtype", [pytest.param(s, dt, id=f"{s.op}-{np.dtype(dt).name}")
                                         for s in REDUCTIONS for dt in ALL_DTYPES])
def test_reduction(spec, dtype):
    for i, shape in enumerate(REDUCE_SHAPES):
        x = sample(dtype, shape, seed=i)
        for axis in _axes_for(len(shape)):
            for keep in (False, True):
                what = f"{spec.op}{shape} axis={axis} keep_dims={keep}"
                if np.dtype(dtype).kind not in spec.kinds:
                    with pytest.raises(TypeError, match=f"For '{spec.op}'"):
                        spec.fn(Tensor(x), axis, keep)
                    return
                if not spec.empty_ok and _reduced_is_empty(shape, axis):
                    with pytest.raises(ValueError, match=f"For '{spec.op}'.*zero-length"):
                        spec.fn(Tensor(x), axis, keep)
                    continue
                if spec.op == "ReduceMean" and _reduced_is_empty(shape, axis):
                    _check_empty_mean(spec, x, axis, keep)
                    continue
                expected = spec.ref(x, _np_axis(axis), keep)
                assert_close(spec.fn(Tensor(x), axis, keep), np.asarray(expected).astype(spec.out(dtype)), what)
                cls_out = (spec.cls_out or spec.out)(dtype)
                cls_expected = np.asarray((spec.cls_ref or spec.ref)(x, _np_axis(axis), keep))
                assert_close(spec.cls(keep_dims=keep)(Tensor(x), () if axis is None else axis),
                             cls_expected.astype(cls_out), what + " class form")


def test_reduce_sum_class_form_keeps_dims_along_axis_1():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    assert_close(ops.ReduceSum(keep_dims=True)(Tensor(x), 1), x.sum(axis=1, keepdims=True))


def test_sum_dtypes_match_mindspore():
    # MindSpore 2.10: ops.sum / Tensor.sum give Int64 for ints and bools; the ReduceSum
    # primitive keeps Int32 (and is an "any" for bools); float16 stays float16.
    xi = Tensor(np.arange(6, dtype=np.int32).reshape(2, 3))
    assert ops.sum(xi).dtype == ms.int64 and xi.sum().dtype == ms.int64
    assert_close(ops.ReduceSum()(xi, 1), np.array([3, 12], np.int32))
    assert_close(ops.ReduceSum()(Tensor([True, True])), np.array(True))
    assert_close(Tensor([True, True, False]).sum(), np.array(2, np.int64))
    assert_close(Tensor(np.array([200, 100], np.uint8)).sum(), np.array(300, np.int64))
    assert_close(Tensor(np.array([100, 100], np.int8)).sum(), np.array(200, np.int64))
    assert ops.sum(Tensor([1.0, 2.0], ms.float16)).dtype == ms.float16
    assert_close(ops.sum(xi, dtype=ms.float32), np.array(15.0, np.float32))


def test_sum_float16_accumulates_beyond_float16_steps():
    x = np.full(4096, 1.0, np.float16)      # summing in float16 would stop at 2048
    assert ops.sum(Tensor(x)).asnumpy() == np.float16(4096)


def test_mean_of_ints_truncates_toward_zero_like_mindspore():
    assert_close(ops.mean(Tensor(np.array([1, 2], np.int32))), np.array(1, np.int32))
    assert_close(ops.mean(Tensor(np.array([-1, -2], np.int32))), np.array(-1, np.int32))


def test_tensor_reduction_methods():
    x = sample(np.float32, (2, 3, 4), seed=3)
    t = Tensor(x)
    assert_close(t.sum(axis=(0, 1)), x.astype(np.float64).sum(axis=(0, 1)).astype(np.float32))
    assert_close(t.sum(axis=1, keepdims=True), x.astype(np.float64).sum(1, keepdims=True).astype(np.float32))
    assert_close(t.mean(axis=1, keep_dims=True), x.astype(np.float64).mean(1, keepdims=True).astype(np.float32))
    assert_close(t.max(axis=1, keepdims=True), x.max(1, keepdims=True))
    assert_close(t.min(), x.min())
    assert_close(t.argmax(), np.array(np.argmax(x), np.int64))
    assert_close(t.argmax(axis=1), np.argmax(x, 1).astype(np.int64))
    assert_close(Tensor([1, 0]).all(), np.array(False))
    assert_close(Tensor([1, 0]).any(), np.array(True))
    assert_close(Tensor([[True, False], [True, True]]).all(axis=1), np.array([False, True]))


def test_argmax_variants():
    x = sample(np.float32, (3, 5), seed=4)
    assert_close(ops.argmax(Tensor(x), 0), np.argmax(x, 0).astype(np.int64))
    assert_close(ops.argmax(Tensor(x), -1, keepdim=True), np.argmax(x, -1, keepdims=True).astype(np.int64))
    # the first of equal maxima wins
    assert_close(ops.argmax(Tensor([1.0, 3.0, 3.0])), np.array(1, np.int64))
    # the primitive: axis -1 and Int32 by default (MindSpore 2.10)
    assert_close(ops.Argmax()(Tensor(x)), np.argmax(x, -1).astype(np.int32))
    assert_close(ops.Argmax(axis=0, output_type=ms.int64)(Tensor(x)), np.argmax(x, 0).astype(np.int64))
    assert_close(ops.argmax(Tensor([True, False])), np.array(0, np.int64))


def test_reductions_over_empty_tensors():
    e = Tensor(np.zeros((0, 3), np.float32))
    assert_close(ops.sum(e, 0), np.zeros(3, np.float32))
    assert_close(ops.sum(e), np.array(0.0, np.float32))
    assert_close(ops.amax(e, 1), np.zeros((0,), np.float32))    # nothing reduced over a zero-length axis
    with pytest.raises(ValueError, match=r"For 'ReduceMax'.*\[0, 3\]"):
        ops.amax(e, 0)
    with pytest.raises(ValueError, match=r"For 'Argmax'.*\[0, 3\]"):
        ops.argmax(e)
    assert_close(ops.argmax(e, 1), np.zeros((0,), np.int64))


def test_softmax_rows_sum_to_one_and_handle_large_logits():
    x = np.array([[1000.0, 1000.0, -1000.0], [1.0, 2.0, 3.0]], np.float32)
    out = ops.softmax(Tensor(x)).asnumpy()
    np.testing.assert_allclose(out.sum(-1), [1.0, 1.0], rtol=1e-6)
    np.testing.assert_allclose(out[0], [0.5, 0.5, 0.0], atol=1e-7)
    # MindSpore 2.10 gives [0.09003057, 0.2447282, 0.6652413]
    np.testing.assert_allclose(out[1], [0.09003057, 0.2447282, 0.6652413], rtol=2e-6)
    # MindSpore 2.10 gives [-2.4076037, -1.4076039, -0.40760383], 2e-6 off the exact values
    np.testing.assert_allclose(ops.log_softmax(Tensor(x[1])).asnumpy(), [-2.4076059, -1.4076059, -0.4076059],
                               rtol=1e-6)
    assert_close(ops.Softmax(axis=(0,))(Tensor(x[1])), out[1])


def test_reduce_bad_axes_and_dtypes_raise_naming_the_op():
    x = Tensor(np.zeros((2, 3, 4), np.float32))
    with pytest.raises(ValueError, match=r"For 'ReduceSum', 'axis' must be in range \[-3, 3\), but got 3"):
        ops.sum(x, 3)
    with pytest.raises(ValueError, match="For 'ReduceSum', 'axis' has duplicate"):
        ops.sum(x, (1, 1))
    with pytest.raises(TypeError, match="For 'ReduceSum', 'axis' must be an int, but got float"):
        ops.sum(x, 1.5)
    with pytest.raises(ValueError, match="For 'ReduceMax', 'axis' must be in range"):
        x.max(axis=-4)
    with pytest.raises(ValueError, match="For 'Argmax', 'axis' must be in range"):
        ops.argmax(x, 5)
    with pytest.raises(TypeError, match=r"For 'ReduceMean', bool tensors are not supported.*Bool"):
        ops.mean(Tensor([True, False]))
    with pytest.raises(TypeError, match=r"For 'Softmax'.*float.*Int64"):
        ops.softmax(Tensor([1, 2]))
    with pytest.raises(ValueError, match="For 'Softmax', 'axis' must be in range"):
        ops.softmax(x, 3)
    with pytest.raises(TypeError, match="For 'ReduceSum', 'keep_dims' must be a bool"):
        ops.ReduceSum(keep_dims=1)


def test_reductions_of_0d_tensors_accept_axis_0_and_minus_1():
    # MindSpore 2.10 accepts both and returns the value itself
    for fn in (ops.sum, ops.mean, ops.amax, ops.amin):
        for axis in (None, 0, -1, (0,)):
            out = fn(Tensor(3.0), axis)
            assert out.shape == () and out.asnumpy() == 3.0
    assert ops.ReduceSum(keep_dims=True)(Tensor(2.0), 0).asnumpy() == 2.0
    assert ops.all(Tensor(True), 0).asnumpy() == np.True_
    assert ops.argmax(Tensor(3.0), 0).asnumpy() == 0 and ops.argmax(Tensor(3.0), 0).dtype == ms.int64
    with pytest.raises(ValueError, match=r"For 'ReduceSum', 'axis' must be in range \[-1, 1\), but got 1"):
        ops.sum(Tensor(1.0), 1)
    with pytest.raises(ValueError, match=r"For 'Argmax', 'axis' must be in range \[-1, 1\)"):
        ops.argmax(Tensor(1.0), 1)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_max_min_over_rows_propagate_nan_and_inf(dtype):
    # the row max / min is a vector reduction with a NaN flag beside it: NaN anywhere in a row
    # (first, middle, last lane) wins, +-inf are ordinary values, as in NumPy and PyNative
    x = np.arange(6 * 37, dtype=np.float32).reshape(6, 37).astype(dtype) - 50
    x[0, 0] = np.nan
    x[1, 18] = np.nan
    x[2, 36] = np.nan
    x[3, 5] = np.inf
    x[4, 7] = -np.inf
    x[5, :] = -np.inf

    @ms.jit
    def f(x):
        return ops.amax(x, -1), ops.amin(x, -1, True)

    mx, mn = f(Tensor(x))
    np.testing.assert_array_equal(mx.asnumpy(), x.max(-1))
    np.testing.assert_array_equal(mn.asnumpy(), x.min(-1, keepdims=True))
    eager = ops.amax(Tensor(x), -1)
    np.testing.assert_array_equal(eager.asnumpy(), x.max(-1))


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint8])
def test_int_row_max_min(dtype):
    info = np.iinfo(dtype)
    x = np.random.default_rng(0).integers(info.min, info.max, (5, 33), dtype=dtype, endpoint=True)

    @ms.jit
    def f(x):
        return ops.amax(x, -1), ops.amin(x, -1)

    mx, mn = f(Tensor(x))
    np.testing.assert_array_equal(mx.asnumpy(), x.max(-1))
    np.testing.assert_array_equal(mn.asnumpy(), x.min(-1))
