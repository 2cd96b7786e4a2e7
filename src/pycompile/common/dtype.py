"""Data types with MindSpore's names (`pycompile.float32` prints as `Float32`, its repr is MindSpore's
`mindspore.float32`) and the
type-promotion rules of MindSpore 2.10, checked against its CPU wheel:

* tensor with tensor: bool < ints < floats; within a kind the wider one wins
  (int32 + int64 -> int64, float16 + float32 -> float32);
* tensor with a Python scalar: a scalar never widens a tensor of the same or a higher kind
  (int32 + 2 -> int32, float16 * 2 -> float16, int32 + True -> int32); an int or bool tensor
  with a Python float gives float32, a bool tensor with a Python int gives int64;
* true division of integers gives float32;
* uint16 / uint32 / uint64 do not mix with signed integers (TypeError), uint8 + int8 is int16.

The numeric dtype codes come from the runtime header (csrc/pycompile_rt.h) through cffi, so
Python and generated C cannot disagree on them.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

from pycompile._rt import lib as _rtlib


class DType:
    """A tensor element type. Compare with `==`; print shows MindSpore's name."""

    __slots__ = ("name", "np", "kind", "code", "itemsize", "ctype")

    def __init__(self, name: str, np_dtype, kind: str, code: int, ctype: str):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.kind = kind          # 'b' bool, 'i' signed, 'u' unsigned, 'f' float, 'c' complex
        self.code = code
        self.itemsize = self.np.itemsize
        self.ctype = ctype        # C storage type used by generated code

    def __repr__(self) -> str:
        # MindSpore's repr: `mindspore.float32`, `mindspore.bool` (str stays `Float32`)
        return f"mindspore.{self.name.lower()}"

    def __str__(self) -> str:
        return self.name

    def __reduce__(self):
        return (_by_name, (self.name,))

    @property
    def is_float(self) -> bool:
        return self.kind == "f"

    @property
    def is_int(self) -> bool:
        return self.kind in "iu"

    @property
    def is_bool(self) -> bool:
        return self.kind == "b"

    @property
    def is_complex(self) -> bool:
        return self.kind == "c"


bool_ = DType("Bool", np.bool_, "b", _rtlib.PC_BOOL, "_Bool")
int8 = DType("Int8", np.int8, "i", _rtlib.PC_INT8, "int8_t")
int16 = DType("Int16", np.int16, "i", _rtlib.PC_INT16, "int16_t")
int32 = DType("Int32", np.int32, "i", _rtlib.PC_INT32, "int32_t")
int64 = DType("Int64", np.int64, "i", _rtlib.PC_INT64, "int64_t")
uint8 = DType("UInt8", np.uint8, "u", _rtlib.PC_UINT8, "uint8_t")
uint16 = DType("UInt16", np.uint16, "u", _rtlib.PC_UINT16, "uint16_t")
uint32 = DType("UInt32", np.uint32, "u", _rtlib.PC_UINT32, "uint32_t")
uint64 = DType("UInt64", np.uint64, "u", _rtlib.PC_UINT64, "uint64_t")
float16 = DType("Float16", np.float16, "f", _rtlib.PC_FLOAT16, "_Float16")
float32 = DType("Float32", np.float32, "f", _rtlib.PC_FLOAT32, "float")
float64 = DType("Float64", np.float64, "f", _rtlib.PC_FLOAT64, "double")
try:
    _C64, _C128, _BF16 = _rtlib.PC_COMPLEX64, _rtlib.PC_COMPLEX128, _rtlib.PC_BFLOAT16
except AttributeError:   # a runtime built before the complex / bfloat16 codes (ABI header) were added
    raise ImportError("pycompile's C runtime is older than its sources (no complex or bfloat16 dtype codes): "
                      "rebuild it with `python setup.py build_ext --inplace` or reinstall pycompile") from None
complex64 = DType("Complex64", np.complex64, "c", _C64, "float _Complex")
complex128 = DType("Complex128", np.complex128, "c", _C128, "double _Complex")
# bfloat16: a float32's top 16 bits. A storage type, as in MindSpore's CPU build: arrays hold it as
# ml_dtypes.bfloat16 (the NumPy extension type JAX uses; its name is 'bfloat16', as the array
# MindSpore's asnumpy returns), generated C as pc_bf16 bits, and every op but Cast, the copies and
# the effects computes it in float32 and rounds its result back (ops/_bf16.py)
bfloat16 = DType("BFloat16", ml_dtypes.bfloat16, "f", _BF16, "pc_bf16")

# MindSpore spellings that are aliases of the above.
half = float16
single = float32
double = float64
int_ = int32
uint = uint32
float_ = float32
cfloat, cdouble = complex64, complex128
# MindSpore 2.10's C-style aliases (recorded from the wheel: byte is int8, intp int64, long int64)
byte, ubyte, short, ushort = int8, uint8, int16, uint16
intc, uintc, intp, uintp, long = int32, uint32, int64, uint64, int64

ALL = (bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, float32, float64,
       complex64, complex128, bfloat16)
_BY_NP = {d.np: d for d in ALL}
_BY_NAME = {d.name: d for d in ALL}
_BY_CODE = {d.code: d for d in ALL}

_KIND_RANK = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


def _by_name(name: str) -> DType:
    return _BY_NAME[name]


def from_code(code: int) -> DType:
    return _BY_CODE[code]


def from_numpy(np_dtype) -> DType:
    """The DType of a NumPy dtype; raises TypeError for types pycompile has no name for."""
    try:
        d = np.dtype(np_dtype)
        return _BY_NP[d]
    except KeyError:
        raise TypeError(f"pycompile has no dtype for NumPy type {np_dtype!r}") from None


def to_dtype(obj) -> DType:
    """Accept a DType, a NumPy dtype / type, or a dtype name ('float32')."""
    if isinstance(obj, DType):
        return obj
    if obj is None:     # np.dtype(None) would silently mean float64
        raise TypeError("expected a pycompile dtype such as pycompile.float32, got None")
    if isinstance(obj, str) and obj in _PY_NAMES:
        return _PY_NAMES[obj]
    if isinstance(obj, str) and obj.startswith(("complex", "c")):   # NumPy's 'complex' / 'c8': no such name here
        raise TypeError(f"expected a pycompile dtype such as pycompile.float32, got {obj!r}")
    if obj is bool:
        return bool_
    if obj is int:
        return int64
    if obj is float:
        return float32
    if obj is complex:
        return complex128
    try:
        return from_numpy(obj)
    except (TypeError, ValueError):
        raise TypeError(f"expected a pycompile dtype such as pycompile.float32, got {obj!r}") from None


_PY_NAMES = {
    "bool": bool_, "bool_": bool_, "int8": int8, "int16": int16, "int32": int32, "int64": int64,
    "uint8": uint8, "uint16": uint16, "uint32": uint32, "uint64": uint64,
    "float16": float16, "float32": float32, "float64": float64, "complex64": complex64, "complex128": complex128,
    "bfloat16": bfloat16,
}


class PromotionError(TypeError):
    """Two dtypes with no implicit common type (infer functions add the op's name)."""


def promote(a: DType, b: DType) -> DType:
    """Result dtype of a binary op on two tensors. Like MindSpore, an unsigned type wider than
    8 bits does not mix with a signed one (NumPy would pick a wider type, or float64)."""
    if a is b:
        return a
    ra, rb = _KIND_RANK[a.kind], _KIND_RANK[b.kind]
    if "c" in (a.kind, b.kind):
        # MindSpore 2.10: a complex type with anything gives the complex type wide enough for the
        # other's float part (float64 + complex64 -> complex128; ints, bool, float16/32 keep it)
        wide = max(d.itemsize if d.kind == "c" else 2 * d.itemsize if d.kind == "f" else 0 for d in (a, b))
        return complex128 if wide > 8 else complex64
    if ra != rb:
        return a if ra > rb else b
    if bfloat16 in (a, b):
        # MindSpore 2.10: bfloat16 with float16 gives float32, with float32 / float64 the wider
        other = b if a is bfloat16 else a
        return float32 if other is float16 else other
    unsigned = a if a.kind == "u" else b
    if {a.kind, b.kind} == {"i", "u"} and unsigned.itemsize > 1:
        raise PromotionError(f"type implicit conversion between {a} and {b} is not supported")
    return from_numpy(np.promote_types(a.np, b.np))


def scalar_kind(value) -> str:
    """'bool', 'int' or 'float' for a Python (or NumPy) scalar."""
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, (int, np.integer)):
        return "int"
    if isinstance(value, (float, np.floating)):
        return "float"
    raise TypeError(f"not a number: {value!r}")


_SCALAR_RANK = {"bool": 0, "int": 1, "float": 2}
SCALAR_DEFAULT = {"bool": bool_, "int": int64, "float": float32}


def promote_scalar(t: DType, kind: str) -> DType:
    """Result dtype of a tensor of dtype `t` combined with a Python scalar of `kind`."""
    if _SCALAR_RANK[kind] <= _KIND_RANK[t.kind]:
        return t
    return SCALAR_DEFAULT[kind]


def promote_scalar_kinds(a: str, b: str) -> str:
    """Python's own rule for two scalars: bool < int < float."""
    return a if _SCALAR_RANK[a] >= _SCALAR_RANK[b] else b


def kind_of_dtype(d: DType) -> str:
    return {"b": "bool", "i": "int", "u": "int", "f": "float", "c": "complex"}[d.kind]


# MindSpore groups, used by isinstance-style checks in user code.
number_type = (int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, float32, float64,
               bfloat16, complex64, complex128)
int_type = (int8, int16, int32, int64)
uint_type = (uint8, uint16, uint32, uint64)
float_type = (float16, float32, float64, bfloat16)
complex_type = (complex64, complex128)


_NP_BF16 = np.dtype(ml_dtypes.bfloat16)
_NP_F32 = np.dtype(np.float32)


def to_bfloat16(a: np.ndarray) -> np.ndarray:
    """`a` as bfloat16, through float32 from any other type: the conversion generated C makes
    (pc_f2bf of a float) and MindSpore's (float64 1 + 2^-8 + 2^-30 is 1.0, rounded twice), where
    ml_dtypes >= 0.7 rounds a float64 once (1.0078125)."""
    a = np.asarray(a)
    if a.dtype != _NP_BF16 and a.dtype != _NP_F32:
        a = a.real.astype(np.float32) if a.dtype.kind == "c" else a.astype(np.float32)
    return a.astype(_NP_BF16)


def finfo(np_dtype):
    """np.finfo for every float dtype pycompile has, bfloat16 included (NumPy's refuses it)."""
    return ml_dtypes.finfo(np_dtype)


def dtype_to_nptype(type_):
    """The NumPy scalar type of a dtype (`dtype_to_nptype(float16)` is numpy.float16)."""
    return to_dtype(type_).np.type


_PYTYPES = {"b": bool, "i": int, "u": int, "f": float, "c": complex}


def dtype_to_pytype(type_):
    """The Python type of a dtype's values: bool, int or float."""
    return _PYTYPES[to_dtype(type_).kind]


def pytype_to_dtype(obj):
    """A Python or NumPy type as a dtype: int -> Int64, float -> Float64, bool -> Bool,
    numpy.float32 -> Float32 (as MindSpore's deprecated helper)."""
    if isinstance(obj, DType):
        return obj
    if not isinstance(obj, type):
        raise TypeError(f"For 'pytype_to_dtype', the argument 'obj' must be a python type object,such as int, "
                        f"float, str, etc. But got type {type(obj)}.")
    if obj is bool:
        return bool_
    if obj is int:
        return int64
    if obj is float:
        return float64
    if obj is complex:
        return complex128
    try:
        return from_numpy(obj)
    except TypeError:
        raise NotImplementedError(f"The python type {obj} cannot be converted to MindSpore type.") from None  # the wheel's class and text
