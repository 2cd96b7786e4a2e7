"""Helpers the entries share: MindSpore's argument checks and small decompositions."""
from __future__ import annotations

from pycompile.common import dtype as mstype
from pycompile.common.tensor import TensorMethods
from pycompile.ops._table import OpTypeError, OpValueError


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


# ---- MindSpore's argument conversion (pyboost): the errors before any kernel is looked for ----------------
TENSOR, OPTIONAL, SEQUENCE, TENSORS = "tensor", "tensor or None", "sequence or None", "tensors"
_WORDS = {bool: "bool", int: "int", float: "float", str: "string", type(None): "None", list: "list", tuple: "tuple"}


def type_word(value) -> str:
    """How MindSpore's conversion error names a value's type: Tensor, List<Tensor>, int, string, None,
    <class 'numpy.ndarray'> ..."""
    if isinstance(value, TensorMethods):
        return "Tensor"
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, TensorMethods) for v in value):
        return "List<Tensor>"
    return _WORDS.get(type(value), f"<class '{type(value).__module__}.{type(value).__qualname__}'>")


def _fits(value, want) -> bool:
    if isinstance(want, tuple):         # any of these
        return any(_fits(value, w) for w in want)
    if want == TENSOR:
        return isinstance(value, TensorMethods)
    if want == OPTIONAL:
        return value is None or isinstance(value, TensorMethods)
    if want == SEQUENCE:
        return value is None or isinstance(value, (list, tuple, TensorMethods))
    if want == TENSORS:
        return type_word(value) == "List<Tensor>"
    return isinstance(value, want) and (want is bool or not isinstance(value, bool))


def check_conversion(op: str, attrs, inputs) -> None:
    """MindSpore's TypeError when a Primitive's argument conversion refuses a call: attrs (its
    constructor's) and inputs are (name, value, wanted) - a Python type, TENSOR / OPTIONAL / SEQUENCE /
    TENSORS, or a tuple of these (any of them) - and the message lists every argument's type."""
    if all(_fits(v, want) for _, v, want in (*attrs, *inputs)):
        return
    head = ", ".join(f"{n}={type_word(v)}" for n, v, _ in attrs)
    tail = ", ".join(f"{n}={type_word(v)}" for n, v, _ in inputs)
    raise OpTypeError(f'Failed calling {op} with "{op}({head})({tail})".')


def check_enum(op: str, name: str, value, allowed) -> None:
    """A string argument MindSpore converts to an enum: its TypeError for another type, its ValueError
    for a name not in `allowed`."""
    if not isinstance(value, str):
        raise OpTypeError(f"For '{op}', the input '{name}' should be a str, but got {type(value)}.")
    if value not in allowed:
        raise OpValueError(f"Failed to convert the value \"{value}\" of input '{name}' of '{op}' to enum.")
