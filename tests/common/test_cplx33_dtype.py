"""complex64 / complex128 as dtypes (issue 33, cplx33). MindSpore 2.10's values and errors for the
ops are in the conformance table (tests/conformance/cases_cplx33.py); these are pycompile's own
invariants: the dtype objects, the runtime's codes, promotion and conversion rules."""
import pickle

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops
from pycompile.common import dtype as mstype


def test_complex_dtype_objects():
    assert ms.cfloat is ms.complex64 is mstype.complex64 and ms.cdouble is ms.complex128
    assert str(ms.complex64) == "Complex64" and repr(ms.complex128) == "mindspore.complex128"  # the wheel's
    assert ms.complex64.is_complex and not ms.complex64.is_float and ms.complex128.itemsize == 16
    assert mstype.from_numpy(np.complex64) is ms.complex64 and mstype.to_dtype("complex128") is ms.complex128
    assert mstype.from_code(ms.complex128.code) is ms.complex128 and ms.complex64.code != ms.float64.code
    assert pickle.loads(pickle.dumps(ms.complex64)) is ms.complex64
    assert mstype.dtype_to_nptype(ms.complex64) is np.complex64 and mstype.dtype_to_pytype(ms.cdouble) is complex
    assert mstype.pytype_to_dtype(complex) is ms.complex128 and ms.complex64 in mstype.number_type
    assert mstype.complex_type == (ms.complex64, ms.complex128)
    with pytest.raises(TypeError, match="dtype"):
        mstype.to_dtype("complex")


@pytest.mark.parametrize("a, b, want", [
    (mstype.float32, mstype.complex64, mstype.complex64), (mstype.float64, mstype.complex64, mstype.complex128),
    (mstype.float16, mstype.complex64, mstype.complex64), (mstype.int64, mstype.complex64, mstype.complex64),
    (mstype.bool_, mstype.complex128, mstype.complex128), (mstype.uint8, mstype.complex64, mstype.complex64),
    (mstype.complex64, mstype.complex128, mstype.complex128)])
def test_promotion_with_complex(a, b, want):
    assert mstype.promote(a, b) is want and mstype.promote(b, a) is want
    assert mstype.promote_scalar(b, "float") is b and mstype.promote_scalar(b, "int") is b


def test_creation_and_item():
    assert Tensor(1 + 2j).dtype == ms.complex128 and Tensor([1 + 2j, 3]).dtype == ms.complex128
    t = Tensor(np.array([1 + 2j, -3j], np.complex64))
    assert t.dtype == ms.complex64 and t.asnumpy().dtype == np.complex64 and t[0].item() == 1 + 2j
    assert Tensor([1, 2], ms.complex64).asnumpy().tolist() == [1 + 0j, 2 + 0j]


def test_cast_to_real_keeps_the_real_part_without_a_numpy_warning():
    z = Tensor(np.array([0 + 1j, 2.5 - 1j], np.complex64))
    with np.errstate(all="raise"):
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert ops.cast(z, ms.bool_).asnumpy().tolist() == [False, True]
            assert ops.cast(z, ms.float32).asnumpy().tolist() == [0.0, 2.5]


def test_complex_refused_where_mindspore_refuses():
    z = Tensor(np.array([1 + 2j], np.complex64))
    for fn in (lambda: z < z, lambda: ops.maximum(z, z), lambda: ops.amax(z), lambda: ops.relu(z),
               lambda: ops.angle(Tensor([1.0])), lambda: ops.Complex()(Tensor([1]), Tensor([1]))):
        with pytest.raises(TypeError):
            fn()
