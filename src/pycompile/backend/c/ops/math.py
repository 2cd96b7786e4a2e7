"""C expressions of the math ops of pycompile/ops/defs/math.py, added to the elementwise table.

The functions are glibc's (expm1f, log1pf, atan2f ...), which libmvec vectorizes like expf: each
is declared a vector function in csrc/pycompile_kernels.h (one left out runs scalar, 7-27x slower;
tests/backend/test_vectorized.py `libm_calls`).
Integer Mod guards the divisor: `x % 0` and `INT_MIN % -1` trap on x86, and both are 0 here
(the remainder of a division by -1 is 0 anyway)."""
from __future__ import annotations

import math

from pycompile.backend.c.ops.elementwise import COMPLEX_EXPR, EXPR, cm, fm, lit
from pycompile.backend.c.ops.templates import template
from pycompile.ops.defs import math as M


def _is_float(ct: str) -> bool:
    return ct in ("float", "double")


def _call(name):
    return lambda a, ct: f"{fm(name, ct)}({a[0]})"


def _mod(a, ct):
    if _is_float(ct):
        return f"{fm('fmod', ct)}({a[0]}, {a[1]})"
    unsigned = ct.startswith("u")
    guard = f"{a[1]} == 0" if unsigned else f"({a[1]} == 0 || {a[1]} == -1)"
    return f"({guard} ? ({ct})0 : ({ct})({a[0]} % {a[1]}))"


EXPR.update({
    M.Log1p: _call("log1p"),
    M.Expm1: _call("expm1"),
    M.Erfc: _call("erfc"),
    M.Log2: _call("log2"),
    M.Tan: _call("tan"),
    M.Asin: _call("asin"),
    M.ACos: _call("acos"),
    M.Atan: _call("atan"),
    M.Sinh: _call("sinh"),
    M.Cosh: _call("cosh"),
    M.Asinh: _call("asinh"),
    M.Acosh: _call("acosh"),
    M.Atanh: _call("atanh"),
    M.Atan2: lambda a, ct: f"{fm('atan2', ct)}({a[0]}, {a[1]})",
    M.Trunc: lambda a, ct: (f"pc_truncf({a[0]})" if ct == "float" else f"{fm('trunc', ct)}({a[0]})" if _is_float(ct)
                            else f"({a[0]})"),
    M.Round: lambda a, ct: f"{fm('rint', ct)}({a[0]})" if _is_float(ct) else f"({a[0]})",
    M.Mod: _mod,
})


def _ccall(name):
    return lambda a, ct: f"{cm(name, ct)}({a[0]})"


# complex forms (C99's ctanf ...; log1p and expm1 have none: log(1 + z), exp(z) - 1)
COMPLEX_EXPR.update({
    M.Tan: _ccall("tan"), M.Asin: _ccall("asin"), M.ACos: _ccall("acos"), M.Atan: _ccall("atan"),
    M.Sinh: _ccall("sinh"), M.Cosh: _ccall("cosh"), M.Asinh: _ccall("asinh"), M.Acosh: _ccall("acosh"),
    M.Atanh: _ccall("atanh"),
    M.Log1p: lambda a, ct: f"{cm('log', ct)}(1 + {a[0]})",
    M.Expm1: lambda a, ct: f"({cm('exp', ct)}({a[0]}) - 1)",
    M.Log2: lambda a, ct: f"({cm('log', ct)}({a[0]}) / {lit(math.log(2), ct.split()[0])})",
})


@template("check_finite")
def _check_finite(ctx, w, n):
    """Copy x to the output, counting its non-finite elements; any is the op's run-time error
    (its message stays in Python: nothing of it is written into the C)."""
    x = n.inputs[0]
    out, src = ctx.out(n), ctx.ptr(x)
    loc = f" (at {n.loc})" if n.loc else ""
    code = ctx.runtime_error(f"{n.attrs.get('error', 'RuntimeError')}: {n.attrs['message']}{loc}")
    w.line("{")
    w.line("long bad = 0;")
    with w.block(f"for (long i = 0; i < {n.type.size}L; i++)"):
        w.line(f"bad += !isfinite((double){src}[i]);")
        w.line(f"{out}[i] = {src}[i];")
    w.line(f"if (bad) return PC_ERR_BASE + {code};")
    w.line("}")
