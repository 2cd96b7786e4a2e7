"""Reverse-mode autodiff: the API (api.py) and the PyNative tape (tape.py). Graph code is
differentiated by the compiler with the same rules (pycompile/ops/grads)."""
from pycompile.ops.autodiff.api import GradOperation, grad, stop_gradient, value_and_grad  # noqa: F401
from pycompile.ops.autodiff.transforms import get_grad, jacfwd, jacrev, jvp, vjp  # noqa: F401,E402
from pycompile.ops.autodiff.custom import HookBackward, InsertGradientOf  # noqa: F401,E402
from pycompile.ops.autodiff.taylor import derivative, jet, linearize  # noqa: F401,E402

from pycompile.common.tensor import Tensor as _Tensor, TensorMethods as _TensorMethods  # noqa: E402
from pycompile.ops.autodiff import tensor_hooks as _tensor_hooks  # noqa: E402

_TensorMethods.register_hook = _tensor_hooks.register_hook
_TensorMethods.hooks = _tensor_hooks.hooks
_Tensor.remove_hook = staticmethod(_tensor_hooks.remove_hook)
