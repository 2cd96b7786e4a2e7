"""MindSpore's type objects beside the tensor element types: the classes `Type`, `Int`,
`TensorType` and the instances `number`, `string`, `tuple_`, `list_`, `type_none`, `tensor_type`,
plus the `QuantDtype` enum. As in MindSpore 2.10, every dtype is a `Type`, the signed integer
dtypes are `Int`s (`Int(32) is int32`, `isinstance(int8, Int)`), `str(number)` is 'Number' and
`str(TensorType(float32))` is 'Tensor[Float32]'.
"""
from __future__ import annotations

import builtins
import enum

from pycompile.common import dtype as _dt


class _TypeMeta(type):
    """isinstance(x, cls) also holds for the tensor dtypes cls admits (DType is a separate class)."""

    def __instancecheck__(cls, obj):
        return type.__instancecheck__(cls, obj) or (isinstance(obj, _dt.DType) and cls._admits(obj))


class Type(metaclass=_TypeMeta):
    """The base of MindSpore's type objects. Not constructible, as in MindSpore."""

    _label = "Type"

    def __new__(cls, *args, **kwargs):
        if cls is Type:
            raise TypeError("mindspore._c_expression.typing.Type: No constructor defined!")
        return super().__new__(cls)

    @staticmethod
    def _admits(d) -> bool:
        return True

    def __str__(self):
        return self._label

    def __repr__(self):
        return self._label

    def __eq__(self, other):
        return type(other) is type(self) and str(other) == str(self)

    def __hash__(self):
        return hash((type(self).__name__, str(self)))


class _Named(Type):
    def __init__(self, label):
        self._label = label


class Number(Type):
    """The kind of every numeric dtype; `number` is its generic instance."""

    _label = "Number"

    @staticmethod
    def _admits(d) -> bool:
        return not d.is_bool


class Int(Number):
    """`Int()` the generic integer type, `Int(bits)` the signed dtype of that width."""

    _label = "Int"

    def __new__(cls, nbits=None):
        if nbits is None:
            return super().__new__(cls)
        by_bits = {8: _dt.int8, 16: _dt.int16, 32: _dt.int32, 64: _dt.int64}
        if nbits not in by_bits:
            raise RuntimeError(f"For Int type only support number of 8bits, 16bits, 32bits and 64bits, "
                               f"but got {nbits}bits")
        return by_bits[nbits]

    def __init__(self, nbits=None):
        pass

    @staticmethod
    def _admits(d) -> bool:
        return d.kind == "i"


class TensorType(Type):
    """`TensorType()` the generic tensor type (`tensor_type`), `TensorType(dtype)` a tensor of it."""

    def __init__(self, element=None):
        if element is not None and not isinstance(element, _dt.DType):
            raise TypeError(f"For 'TensorType', the element type must be a mindspore dtype, but got {element!r}.")
        self._element = element

    @staticmethod
    def _admits(d) -> bool:
        return False

    def element_type(self):
        return self._element

    def __str__(self):
        return "Tensor" if self._element is None else f"Tensor[{self._element}]"

    __repr__ = __str__


number = Number()
string = _Named("String")
tuple_ = _Named("Tuple")
list_ = _Named("List")
type_none = _Named("None")
tensor_type = TensorType()


@enum.unique
class QuantDtype(enum.Enum):
    """Quantization data types INT1 ... INT16 (values 0 ... 15) and UINT1 ... UINT16 (100 ... 115)."""
    INT1 = 0
    INT2 = 1
    INT3 = 2
    INT4 = 3
    INT5 = 4
    INT6 = 5
    INT7 = 6
    INT8 = 7
    INT9 = 8
    INT10 = 9
    INT11 = 10
    INT12 = 11
    INT13 = 12
    INT14 = 13
    INT15 = 14
    INT16 = 15
    UINT1 = 100
    UINT2 = 101
    UINT3 = 102
    UINT4 = 103
    UINT5 = 104
    UINT6 = 105
    UINT7 = 106
    UINT8 = 107
    UINT9 = 108
    UINT10 = 109
    UINT11 = 110
    UINT12 = 111
    UINT13 = 112
    UINT14 = 113
    UINT15 = 114
    UINT16 = 115

    def __str__(self):
        return self.name

    def value(self) -> builtins.int:      # a method, as in MindSpore: QuantDtype.INT8.value() == 7
        return self._value_


__all__ = ["Type", "Int", "TensorType", "number", "string", "tuple_", "list_", "type_none", "tensor_type",
           "QuantDtype"]

# `mindspore.dtype.Int`, `ms.dtype.number` ...: the same objects under the dtype module (set from
# here, since dtype.py is imported first and may not import this module back)
for _name in __all__:
    setattr(_dt, _name, globals()[_name])
del _name


def get_py_obj_dtype(obj):
    """The dtype of a Python value: a number's (int Int64, float Float64, bool Bool), a tensor's
    TensorType (`Tensor[Float16]`, as MindSpore 2.10 answers), or a type object's (as `pytype_to_dtype`)."""
    d = getattr(obj, "dtype", None)
    if isinstance(d, _dt.DType):
        return TensorType(d)
    if isinstance(obj, type):
        return _dt.pytype_to_dtype(obj)
    return _dt.pytype_to_dtype(type(obj))


_dt.get_py_obj_dtype = get_py_obj_dtype       # `mindspore.dtype.get_py_obj_dtype` too
