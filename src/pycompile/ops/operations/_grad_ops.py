"""`mindspore.ops.operations._grad_ops` under pycompile's name: every class-form op of
`pycompile.ops.operations` (the same objects; pycompile does not split them by MindSpore's files),
and the backward Primitives MindSpore keeps only here (pycompile/ops/operations_grad.py)."""
from pycompile.ops.operations import *  # noqa: F401,F403
from pycompile.ops.operations import __all__ as _ops_all
from pycompile.ops.operations_grad import *  # noqa: F401,F403
from pycompile.ops.operations_grad import __all__ as _grad_all

__all__ = list(_ops_all) + [n for n in _grad_all if n not in _ops_all]
