"""Reverse-mode autodiff: the API (api.py) and the PyNative tape (tape.py). Graph code is
differentiated by the compiler with the same rules (pycompile/ops/grads)."""
from pycompile.ops.autodiff.api import GradOperation, grad, stop_gradient, value_and_grad  # noqa: F401
from pycompile.ops.autodiff.transforms import get_grad, jacfwd, jacrev, jvp, vjp  # noqa: F401,E402
from pycompile.ops.autodiff.custom import HookBackward, InsertGradientOf  # noqa: F401,E402
