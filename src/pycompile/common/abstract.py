"""Abstract types: what the op table's `infer` functions, the IR and the frontend agree a
value is. Frozen and hashable, so they key caches and compare structurally.

* `TensorType(dtype, shape)`: a tensor with a static shape (`number=True`: a mutable Python
  number, returned to Python as one).
* `ScalarType(kind)`: a Python number computed at run time (a loop index, `x.item()`); kind
  is 'bool', 'int' or 'float'. It follows Python-scalar promotion (it never widens a tensor).
* `TupleType(elems)`, `RefType(tensor)` (a Parameter), `MonadType('U' | 'IO')`.

`Symbolic` is the base class of the compiler's tracer values: an op seeing one among its
arguments hands the call to the tracer's builder instead of running NumPy.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pycompile.common import dtype as mstype


@dataclass(frozen=True, slots=True)
class TensorType:
    dtype: mstype.DType
    shape: tuple
    # A Python number MindSpore keeps a scalar in graph code: an ms.mutable number and Python
    # operators on such numbers (never an op's result). Stored as a 0-d tensor like any other;
    # the flag only decides that a graph returning it returns an int / float / bool, as
    # MindSpore 2.10 does. Not part of equality: it never changes what code is generated.
    number: bool = field(default=False, compare=False, repr=False)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    def __str__(self) -> str:
        return f"Tensor[{self.dtype.name}]{list(self.shape)}"


@dataclass(frozen=True, slots=True)
class ScalarType:
    kind: str  # 'bool' | 'int' | 'float'

    def __str__(self) -> str:
        return {"bool": "Bool", "int": "Int64", "float": "Float64"}[self.kind]

    @property
    def dtype(self) -> mstype.DType:
        """The dtype a value of this kind is stored as in generated code."""
        return {"bool": mstype.bool_, "int": mstype.int64, "float": mstype.float64}[self.kind]


@dataclass(frozen=True, slots=True)
class TupleType:
    elems: tuple

    def __str__(self) -> str:
        return "Tuple[" + ", ".join(str(e) for e in self.elems) + "]"


@dataclass(frozen=True, slots=True)
class RefType:
    tensor: TensorType

    def __str__(self) -> str:
        return f"Ref[{self.tensor}]"


@dataclass(frozen=True, slots=True)
class MonadType:
    kind: str  # 'U' memory state, 'IO'

    def __str__(self) -> str:
        return self.kind


@dataclass(frozen=True, slots=True)
class StackType:
    """A growable stack of values of type `elem` (a TensorType or a ScalarType) that lives while
    one call runs: the forward pass of a differentiated loop saves each iteration's values there
    for the backward pass."""
    elem: Any

    def __str__(self) -> str:
        return f"Stack[{self.elem}]"


U_TYPE = MonadType("U")
IO_TYPE = MonadType("IO")


class Symbolic:
    """Base of values that exist only inside a transformation: graph tracers, vmap's batch
    tracers, autodiff's. Each has `_tracer` (its `pycompile.ops.tracing.Tracer`); an op with such
    an argument hands the call to the tracer of the one with the highest `_level`."""

    __slots__ = ()
    _level = 0


def type_of(x) -> Any:
    """Abstract type of an op argument: a Tensor, a tracer, or a Python scalar."""
    t = getattr(x, "_abstract", None)
    if t is not None:
        return t
    if isinstance(x, (bool, int, float)):
        return ScalarType(mstype.scalar_kind(x))
    import numpy as np
    if isinstance(x, np.generic):
        return ScalarType(mstype.scalar_kind(x))
    raise TypeError(f"expected a Tensor or a number, got {type(x).__name__}")
