"""pycompile.ops: the op table and its functional / class / composite views, shaped like
mindspore.ops (`ops.add`, `ops.Add()`, `ops.HyperMap`, `ops.functional`, `ops.operations`)."""
import builtins as _builtins

from pycompile.ops import _table, composite, functional, operations, tensor_methods  # noqa: F401
from pycompile.ops import amp_auto as _amp_auto  # noqa: F401  (amp_level='auto': the rows' classes, by object)
from pycompile.ops.grads import core as _grad_rules  # noqa: F401  (registers the gradient rules)
from pycompile.ops.grads import everyday as _grad_rules_everyday  # noqa: F401
from pycompile.ops.grads import activation as _grads_activation  # noqa: F401  (the activation rows' rules)
from pycompile.ops.grads import cnn as _cnn_grad_rules  # noqa: F401
from pycompile.ops.grads import comm as _comm_grad_rules  # noqa: F401  (the collectives' rules)
from pycompile.ops.grads import linalg as _linalg_grad_rules  # noqa: F401  (the singular values' rule)
from pycompile.ops.grads import complex as _complex_grad_rules  # noqa: F401  (the complex rows' rules)
from pycompile.ops.grads import forward as _jvp_rules  # noqa: F401  (the forward-mode rules)
from pycompile.ops.autodiff import (GradOperation, HookBackward, InsertGradientOf, derivative, get_grad, grad,  # noqa: F401
                                   jacfwd, jacrev, jet, jvp, linearize, stop_gradient, value_and_grad, vjp)
from pycompile.ops._table import OPS, Effect, OpDef, apply  # noqa: F401
from pycompile.ops.batching import vmap  # noqa: F401
from pycompile.ops.composite import HyperMap, Map, MultitypeFuncGraph  # noqa: F401
from pycompile.ops.functional import *  # noqa: F401,F403
from pycompile.ops.functional import abs, all, any, pow, sum  # noqa: F401  (shadow builtins on purpose)
from pycompile.ops.functional import _sum_public as sum  # noqa: F401,F811  (amp 'auto' class: ops/amp_auto.py)
from pycompile.ops.operations import *  # noqa: F401,F403
from pycompile.ops.operations import Primitive  # noqa: F401
# the everyday surface: functional and class forms, Tensor methods (after tensor_methods: they
# replace its max / min / argmax with MindSpore's overloads)
from pycompile.ops import tensor_methods_everyday  # noqa: F401,E402
from pycompile.ops.function_array import *  # noqa: F401,F403,E402
from pycompile.ops.function_array import range, slice  # noqa: F401,E402  (shadow builtins on purpose)
from pycompile.ops.function_index import *  # noqa: F401,F403,E402
from pycompile.ops.function_scatter import *  # noqa: F401,F403,E402
from pycompile.ops.function_math import *  # noqa: F401,F403,E402
from pycompile.ops.function_math import max, min, round  # noqa: F401,E402  (shadow builtins on purpose)
from pycompile.ops.operations_everyday import *  # noqa: F401,F403,E402
from pycompile.ops.function_clip import *  # noqa: F401,F403,E402
from pycompile.ops.function_activation import *  # noqa: F401,F403
from pycompile.ops.function_loss import *  # noqa: F401,F403
from pycompile.ops.operations_nn import *  # noqa: F401,F403
from pycompile.ops.function_conv import *  # noqa: F401,F403
from pycompile.ops.function_image import *  # noqa: F401,F403
from pycompile.ops.function_amp import *  # noqa: F401,F403
from pycompile.ops.function_random import *  # noqa: F401,F403
from pycompile.ops.operations_cnn import *  # noqa: F401,F403
from pycompile.ops.roi_align import ROIAlign  # noqa: F401,E402
from pycompile.ops.operations_comm import *  # noqa: F401,F403
from pycompile.ops.operations_comm_more import *  # noqa: F401,F403
from pycompile.ops.op_info_register import *  # noqa: F401,F403  (`mindspore.ops.op_info_register`)
from pycompile.ops.entries.view_ops import stop_gradient_  # noqa: F401,E402
from pycompile.ops.function_internal import *  # noqa: F401,F403,E402
from pycompile.ops import communication  # noqa: F401,E402  (`mindspore.ops.communication`)
# its functions under ops too, as MindSpore has them, but for gather / scatter: ops.gather and
# ops.scatter are the tensor ops there (the collective forms are ops.communication.gather / scatter)
globals().update({_n: getattr(communication, _n) for _n in communication.__all__ if _n not in ("gather", "scatter")})
from pycompile.ops.operations_optim import *  # noqa: F401,F403
from pycompile.ops.operations_optim_dense import *  # noqa: F401,F403

# the op entries (ops/entry.py): one file per op in ops/entries/, each giving its functional,
# Primitive and Tensor forms; installed last, and an entry may not replace a name defined above
from pycompile.ops import entries as _entries  # noqa: F401,E402
from pycompile.ops.entry import install as _install_entries  # noqa: E402
_install_entries(globals())
from pycompile.ops.inplace_functions import *  # noqa: F401,F403,E402  (ops.clamp_(x, ...) ...)
from pycompile.ops import primitive  # noqa: F401,E402  (`mindspore.ops.primitive`)
from pycompile.ops import auto_generate  # noqa: F401,E402  (`mindspore.ops.auto_generate`: after the entries)
# instances MindSpore's ops / ops.functional expose under these names
P = operations            # `ops.P` / `F.P`: the Primitive classes' module, as MindSpore names it
functional.P = operations
tensor_range, shape_, tensor_slice, pows = Range(), Shape(), Slice(), Pow()  # noqa: F405
from pycompile.ops.primitive import (PrimitiveWithCheck, PrimitiveWithInfer, constexpr,  # noqa: F401,E402
                                     prim_attr_register)

__all__ = [n for n in dir() if not n.startswith("_")]


def _is_function(v) -> bool:
    return callable(v) and not isinstance(v, type) and not hasattr(v, "__path__") and type(v).__name__ != "module"


# MindSpore's `ops.functional` (`F`) holds every functional op and transform (`F.vmap`, `F.grad`):
# the ones defined outside functional.py join it here, as the same objects. Names functional.py
# defines itself are never replaced (pycompile's own code calls them), nor are builtins shadowed
# there (its code calls `range`, `slice`, `max`...). `pycompile.ops.function` (MindSpore's
# `mindspore.ops.function` and its *_func submodules) holds every name.
FUNCTIONS = tuple(n for n in __all__ if _is_function(globals()[n]))
for _n in FUNCTIONS:
    if _n not in vars(functional) and not hasattr(_builtins, _n):
        setattr(functional, _n, globals()[_n])
    elif _n not in vars(functional) and hasattr(_builtins, _n):
        # `F.slice` / `F.range` from outside: the module's __getattr__ answers, so functional.py's
        # own code still reaches the builtins
        functional.BUILTIN_NAMED[_n] = globals()[_n]
del _n


def __getattr__(name):
    from pycompile.common.missing import missing
    raise missing("ops", __name__, name)
