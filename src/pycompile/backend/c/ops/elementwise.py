"""The C expression of every elementwise op, keyed by the op object.

`EXPR[op](args, ct)` is a C expression over the already converted argument expressions `args`,
computed in C type `ct` ('float', 'double', 'int32_t', ...). Kernels inline these expressions
into their loops, so a chain of elementwise ops fuses with no temporaries (the renderer:
pycompile/backend/c/elementwise.py). Transcendental functions name the C math function of the
compute type (expf for float), which glibc's libmvec vectorizes.
"""
from __future__ import annotations

import math

from pycompile.ops.defs import complex as X
from pycompile.ops.defs import elementwise as E


def fm(name: str, ctype: str) -> str:
    """C math function for the compute type: expf for float, exp for double."""
    return name + "f" if ctype == "float" else name


def lit(value: float, ctype: str) -> str:
    """A C literal of the compute type."""
    if ctype == "float":
        return repr(float(value)) + "f"
    if ctype == "double":
        return repr(float(value))
    return str(int(value))


def _is_float(ct: str) -> bool:
    return ct in ("float", "double")


def _max(a, ct):
    if _is_float(ct):       # NaN propagates (NumPy's maximum)
        return f"(({a[0]} > {a[1]} || {a[0]} != {a[0]}) ? {a[0]} : {a[1]})"
    return f"({a[0]} > {a[1]} ? {a[0]} : {a[1]})"


def _min(a, ct):
    if _is_float(ct):
        return f"(({a[0]} < {a[1]} || {a[0]} != {a[0]}) ? {a[0]} : {a[1]})"
    return f"({a[0]} < {a[1]} ? {a[0]} : {a[1]})"


def _gelu_tanh(a, ct):
    """0.5 x (1 + tanh u), u = sqrt(2 / pi) (x + 0.044715 x^3), with 1 + tanh u computed as
    (2 / (1 + exp(-2u)) - 1) + 1: one exp in place of the tanh, rounded as tanh's value is
    (defs/elementwise.py: _gelu_parts, the same formula and why)."""
    x = a[0]
    inner = f"{lit(-2 * E.SQRT_2_OVER_PI, ct)} * ({x} + {lit(0.044715, ct)} * {x} * {x} * {x})"
    one_plus_tanh = f"(({lit(2, ct)} / ({lit(1, ct)} + {fm('exp', ct)}({inner})) - {lit(1, ct)}) + {lit(1, ct)})"
    return f"({lit(0.5, ct)} * {x} * {one_plus_tanh})"


def _gelu_erf(a, ct):
    # erfc(-x / sqrt 2) = 1 + erf(x / sqrt 2) without the cancellation (defs/elementwise.py: GeLUErf)
    return f"({lit(0.5, ct)} * {a[0]} * {fm('erfc', ct)}(-({a[0]}) * {lit(1 / math.sqrt(2), ct)}))"


def _select(a, ct):
    """cond ? x : y, with x and y read whatever the condition: GCC 12.2 at -O3 vectorizes a load
    made in one arm only as a masked load, and where it then unrolls the vectorized loop (a
    driver loop over short rows) it gives every copy the first copy's mask - silently wrong
    elements (issue 31: the compiled gradient of softmax(elu(x), 0) was 0 at some x > 0).
    Reading both operands first leaves no conditional load; every operand is in bounds. Floats
    and doubles are selected by mask (csrc/pycompile_kernels.h pc_self / pc_seld): both sides are
    computed, so no multiply or libm call sits in a branch, which GCC if-converts only with
    AVX-512's masked operations (an AVX2 machine ran such loops scalar)."""
    sel = {"float": "pc_self", "double": "pc_seld"}.get(ct)
    if sel:
        return f"{sel}(({a[0]}) != 0, {a[1]}, {a[2]})"
    if "[" not in a[1] and "[" not in a[2]:
        return f"({a[0]} ? {a[1]} : {a[2]})"
    return f"({{ const {ct} pc_sel_x = {a[1]}; const {ct} pc_sel_y = {a[2]}; {a[0]} ? pc_sel_x : pc_sel_y; }})"


EXPR = {
    E.Add: lambda a, ct: f"({a[0]} + {a[1]})",
    E.Sub: lambda a, ct: f"({a[0]} - {a[1]})",
    E.Mul: lambda a, ct: f"({a[0]} * {a[1]})",
    E.RealDiv: lambda a, ct: f"({a[0]} / {a[1]})",
    E.FloorDiv: lambda a, ct: f"pc_floordiv_{ct}({a[0]}, {a[1]})",
    E.FloorMod: lambda a, ct: f"pc_mod_{ct}({a[0]}, {a[1]})",
    E.Pow: lambda a, ct: (f"{fm('pow', ct)}({a[0]}, {a[1]})" if _is_float(ct)
                          else f"pc_ipow_{ct}({a[0]}, {a[1]})"),
    E.Maximum: _max,
    E.Minimum: _min,
    E.Equal: lambda a, ct: f"({a[0]} == {a[1]})",
    E.Less: lambda a, ct: f"({a[0]} < {a[1]})",
    E.LogicalAnd: lambda a, ct: f"({a[0]} && {a[1]})",
    E.LogicalOr: lambda a, ct: f"({a[0]} || {a[1]})",
    E.LogicalNot: lambda a, ct: f"(!{a[0]})",
    E.BitwiseAnd: lambda a, ct: f"({a[0]} & {a[1]})",
    E.BitwiseOr: lambda a, ct: f"({a[0]} | {a[1]})",
    E.BitwiseXor: lambda a, ct: f"({a[0]} ^ {a[1]})",
    E.Neg: lambda a, ct: f"(-{a[0]})",
    E.Abs: lambda a, ct: f"{fm('fabs', ct)}({a[0]})" if _is_float(ct) else f"({a[0]} < 0 ? -{a[0]} : {a[0]})",
    # float (float32 and float16 computed in float): 0 for x <= -87 (defs/elementwise.py: EXP_FLUSH_F32)
    # (both sides evaluated, selected by mask: csrc/pycompile_kernels.h pc_self - a conditional call
    # vectorizes only with AVX-512)
    E.Exp: lambda a, ct: (f"pc_self({a[0]} <= {lit(E.EXP_FLUSH_F32, ct)}, {lit(0, ct)}, expf({a[0]}))" if ct == "float"
                          else f"{fm('exp', ct)}({a[0]})"),
    E.Log: lambda a, ct: f"{fm('log', ct)}({a[0]})",
    E.Sqrt: lambda a, ct: f"{fm('sqrt', ct)}({a[0]})",
    E.Sin: lambda a, ct: f"{fm('sin', ct)}({a[0]})",
    E.Cos: lambda a, ct: f"{fm('cos', ct)}({a[0]})",
    E.Tanh: lambda a, ct: f"{fm('tanh', ct)}({a[0]})",
    E.Erf: lambda a, ct: f"{fm('erf', ct)}({a[0]})",
    # float: through an int32 conversion, which vectorizes (csrc/pycompile_kernels.h pc_floorf)
    E.Floor: lambda a, ct: f"pc_floorf({a[0]})" if ct == "float" else f"{fm('floor', ct)}({a[0]})",
    E.Ceil: lambda a, ct: f"pc_ceilf({a[0]})" if ct == "float" else f"{fm('ceil', ct)}({a[0]})",
    E.Sigmoid: lambda a, ct: f"({lit(1, ct)} / ({lit(1, ct)} + {fm('exp', ct)}(-{a[0]})))",
    E.ReLU: lambda a, ct: f"({a[0]} > 0 ? {a[0]} : 0)",
    E.GeLU: _gelu_tanh,
    E.GeLUErf: _gelu_erf,
    E.Select: _select,
    E.Cast: lambda a, ct: f"(({ct})({a[0]}))",
}


COMPLEX_CTYPES = ("float _Complex", "double _Complex")


def cm(name: str, ctype: str) -> str:
    """The C99 complex function for a complex compute type through GCC / clang's builtin (no
    <complex.h>): cexpf for float _Complex, cexp for double _Complex. (A misspelt builtin compiles
    as an unknown function and fails at load: tests/backend/test_cplx33_graph.py renders them all.)"""
    return f"__builtin_c{name}" + ("f" if ctype.startswith("float") else "")


def _complex_abs(a, ct):
    # MindSpore 2.10's Abs of a complex tensor keeps the dtype: |z| + 0j
    return f"(({ct})({cm('abs', ct)}({a[0]})))"


# The complex (C99 `_Complex`) expression of the elementwise ops MindSpore's CPU kernels take
# complex64 / complex128 in; the arithmetic operators and the comparisons are C's own.
COMPLEX_EXPR = {
    E.Add: EXPR[E.Add], E.Sub: EXPR[E.Sub], E.Mul: EXPR[E.Mul], E.RealDiv: EXPR[E.RealDiv],
    E.Neg: EXPR[E.Neg], E.Equal: EXPR[E.Equal], E.LogicalNot: EXPR[E.LogicalNot],
    E.Select: _select, E.Cast: EXPR[E.Cast],
    E.Pow: lambda a, ct: f"{cm('pow', ct)}({a[0]}, {a[1]})",
    E.Abs: _complex_abs,
    E.Exp: lambda a, ct: f"{cm('exp', ct)}({a[0]})",
    E.Log: lambda a, ct: f"{cm('log', ct)}({a[0]})",
    E.Sqrt: lambda a, ct: f"{cm('sqrt', ct)}({a[0]})",
    E.Sin: lambda a, ct: f"{cm('sin', ct)}({a[0]})",
    E.Cos: lambda a, ct: f"{cm('cos', ct)}({a[0]})",
    E.Tanh: lambda a, ct: f"{cm('tanh', ct)}({a[0]})",
    E.Sigmoid: lambda a, ct: f"(1 / (1 + {cm('exp', ct)}(-{a[0]})))",
}


def _cpart(name):
    return lambda a, ct: f"{cm(name, ct)}({a[0]})"


def _complex_abs_naive(a, ct):
    # sqrt(re^2 + im^2) in the part type, as MindSpore's ComplexAbs (defs/complex.py)
    re, im, part = f"{cm('real', ct)}({a[0]})", f"{cm('imag', ct)}({a[0]})", ct.split()[0]
    return f"({{ const {part} pc_re = {re}, pc_im = {im}; {fm('sqrt', part)}(pc_re * pc_re + pc_im * pc_im); }})"


COMPLEX_EXPR.update({
    X.Real: _cpart("real"), X.Imag: _cpart("imag"), X.Angle: _cpart("arg"),
    X.Conj: lambda a, ct: f"__builtin_conj{'f' if ct.startswith('float') else ''}({a[0]})",
    X.ComplexAbs: _complex_abs_naive,
})
# Complex(re, im) computes in the float part type and yields a complex value
EXPR[X.Complex] = lambda a, ct: f"__builtin_complex(({ct})({a[0]}), ({ct})({a[1]}))"


def renders_complex(op) -> bool:
    """Whether `expr` has a complex form of elementwise `op` (Complex builds one from floats)."""
    return op in COMPLEX_EXPR or op is X.Complex


def expr(op, args: list, ctype: str) -> str:
    """The C expression of elementwise `op` over `args` in compute type `ctype`. Rows defined by a
    decomposition (Greater, GreaterEqual, NotEqual, HSwish, HSigmoid, the activations, Square, Rsqrt,
    Reciprocal, IsFinite, and IsInf / Sign of backend/c/ops/math.py) have none:
    the pre-render pass has replaced them by their parts."""
    if ctype in COMPLEX_CTYPES:
        return COMPLEX_EXPR[op](args, ctype)
    return EXPR[op](args, ctype)
