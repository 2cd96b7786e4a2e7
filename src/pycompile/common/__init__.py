"""pycompile.common: Tensor, Parameter, dtypes, initializers, context (mirrors mindspore.common)."""
from pycompile.common import dtype  # noqa: F401
from pycompile.common.dtype import (bool_, double, float16, float32, float64, float_, half, int8, int16,  # noqa: F401
                                    int32, int64, int_, single, uint, uint8, uint16, uint32, uint64)
from pycompile.common.initializer import initializer, set_seed, get_seed  # noqa: F401
from pycompile.common.parameter import Parameter, ParameterTuple  # noqa: F401
from pycompile.common.tensor import Tensor, is_tensor, tensor  # noqa: F401
