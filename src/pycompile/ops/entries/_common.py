"""Helpers the entries share: MindSpore's argument checks and small decompositions."""
from __future__ import annotations

from pycompile.common import dtype as mstype
from pycompile.common.tensor import TensorMethods
from pycompile.ops._table import OpTypeError


def is_float(x) -> bool:
    return isinstance(x, TensorMethods) and x.dtype.is_float


def require_float(op: str, **tensors) -> None:
    """MindSpore's "For <op>, the dtype of 'input' and 'other' must be float, but got ..." check."""
    if not all(is_float(t) for t in tensors.values()):
        names = " and ".join(f"'{n}'" for n in tensors)
        got = " and ".join(str(t.dtype) for t in tensors.values())
        raise OpTypeError(f"For {op}, the dtype of {names} must be float,but got {got}.")


def float_or_f32(x):
    """x if it is a float tensor, else x cast to float32 (MindSpore's ops that compute in float)."""
    from pycompile.ops import functional as F
    return x if x.dtype.is_float else F.cast(x, mstype.float32)
