"""pycompile.common: Tensor, Parameter, dtypes, initializers, context (mirrors mindspore.common)."""
from pycompile.common import dtype  # noqa: F401
from pycompile.common.dtype import (bfloat16, bool_, cdouble, cfloat, complex64, complex128, double, float16,  # noqa: F401
                                    float32, float64, float_, half, int8, int16, int32, int64, int_, single,
                                    uint, uint8, uint16, uint32, uint64)
# `pycompile.common.initializer` stays the module (as `mindspore.common.initializer` is), so
# `ms.common.initializer.Normal()` works; the function is `pycompile.common.initializer.initializer`.
from pycompile.common import initializer  # noqa: F401
# MindSpore's `mindspore.common.set_seed` is the global one (NumPy's generator and the dataset's
# seed follow it): common.seed's, not the initializers' own
from pycompile.common.seed import get_seed, set_seed  # noqa: F401
# `mindspore.common.mutable` is the function (the module is reached by its full path)
from pycompile.common.mutable import mutable  # noqa: F401
from pycompile.common.parameter import Parameter, ParameterTuple  # noqa: F401
from pycompile.common.tensor import Tensor, is_tensor, tensor  # noqa: F401
# jit, jit_class and lazy_inline (MindSpore exports them from mindspore.common) are set on this
# package by pycompile.api, the layer above: common never imports upward
