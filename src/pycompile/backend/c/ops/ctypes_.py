"""C types of pycompile dtypes: storage type, and the type arithmetic is done in (float16 is
stored as _Float16 and bfloat16 as pc_bf16 bits, both computed in float)."""
from __future__ import annotations

from pycompile.common import dtype as mstype
from pycompile.common.abstract import ScalarType, TensorType


def storage(dt: mstype.DType) -> str:
    return dt.ctype


def compute(dt: mstype.DType) -> str:
    return "float" if dt is mstype.float16 or dt is mstype.bfloat16 else dt.ctype


def load(ptr: str, idx: str, dt: mstype.DType) -> str:
    """Element `idx` of storage pointer `ptr`, as its compute type. float16 goes through pc_h2f
    (integer bit operations): GCC 12 converts _Float16 one element at a time, so a loop with a
    plain cast would stay scalar."""
    if dt is mstype.float16:
        return f"pc_h2f(((const pc_half_bits *)({ptr}))[{idx}])"
    if dt is mstype.bfloat16:
        return f"pc_bf2f(((const pc_bf16 *)({ptr}))[{idx}])"
    return f"{ptr}[{idx}]"


def store(ptr: str, idx: str, expr: str, dt: mstype.DType) -> str:
    """The statement storing `expr` (compute type) at element `idx` of storage pointer `ptr`."""
    if dt is mstype.float16:
        return f"((pc_half_bits *)({ptr}))[{idx}] = pc_f2h({expr});"
    if dt is mstype.bfloat16:
        return f"((pc_bf16 *)({ptr}))[{idx}] = pc_f2bf({expr});"
    st = storage(dt)
    return f"{ptr}[{idx}] = {expr};" if st == compute(dt) and st != "_Bool" else f"{ptr}[{idx}] = ({st})({expr});"


_INT_CTYPES = frozenset({"int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t"})


def convert(expr: str, src: str, dst: str) -> str:
    """`expr` of C type `src` converted to C type `dst`. A float -> integer conversion goes
    through pc_<src>_to_<dst> (pycompile_kernels.h): C leaves NaN and out-of-range values
    undefined, NumPy gives fixed results."""
    if src == dst:
        return expr
    if src.endswith("_Complex") and not dst.endswith("_Complex"):
        # the real part, as MindSpore's Cast takes it (to bool too: 0 + 1j is False, where C's
        # conversion of the whole value would give true)
        expr, src = f"__builtin_creal{'f' if src.startswith('float') else ''}({expr})", src.split()[0]
        if src == dst:
            return expr
    if src in ("float", "double") and dst in _INT_CTYPES:
        return f"pc_{src}_to_{dst}({expr})"
    return f"(({dst})({expr}))"


def scalar_ctype(t: ScalarType) -> str:
    return {"bool": "_Bool", "int": "int64_t", "float": "double"}[t.kind]


def value_ctype(t) -> str:
    """C type a single element of this value is held in, in registers."""
    if isinstance(t, ScalarType):
        return scalar_ctype(t)
    if isinstance(t, TensorType):
        return compute(t.dtype)
    raise TypeError(f"no C element type for {t}")


def literal(v, ctype: str) -> str:
    if ctype in ("float _Complex", "double _Complex"):
        # GCC / clang's constant-expression constructor (no <complex.h> `I`, which would turn
        # `inf * I` into NaN real parts)
        z, part = complex(v), ctype.split()[0]
        return f"__builtin_complex({literal(z.real, part)}, {literal(z.imag, part)})"
    if ctype in ("float", "double"):
        f = float(v)
        if f != f:
            return "NAN" if ctype == "double" else "NAN"
        if f in (float("inf"), float("-inf")):
            return ("-" if f < 0 else "") + ("INFINITY")
        text = repr(f)
        return text + ("f" if ctype == "float" else "")
    if ctype == "_Bool":
        return "1" if v else "0"
    if ctype in ("int64_t",):
        return f"INT64_C({int(v)})"
    if ctype == "uint64_t":
        return f"UINT64_C({int(v)})"
    return str(int(v))
