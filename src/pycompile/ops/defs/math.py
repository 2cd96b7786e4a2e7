"""More elementwise math: the rest of the functions model code calls (log1p, expm1, erfc, the
trigonometric and hyperbolic families, atan2, log2), the NaN / Inf tests, rounding and sign, and
the truncated remainder `Mod`. Their C expressions are in pycompile/backend/c/ops/math.py.

Type rules as in defs/elementwise.py: the float functions give float32 for integer and bool
inputs; IsNan / IsInf give bool; Round and Sign keep the dtype (they are exact on integers);
Mod computes in the promoted dtype like FloorMod, but truncates (C's fmod and `%`: -4 mod 3 is
-1, as MindSpore's Mod), with 0 for an integer division by zero (C would trap).
"""
from __future__ import annotations

import numpy as np

from pycompile.common.abstract import TensorType
from pycompile.ops._table import Kind, OpDef, OpRuntimeError, OpTypeError, OpValueError, defop
from pycompile.common.abstract import type_of
from pycompile.ops.defs import elementwise as E
from pycompile.ops.defs.elementwise import Erfc, _floating, call, cast, elementwise  # noqa: F401 (Erfc re-exported)
from pycompile.ops.lowering import Template


def _float_unary(name: str, np_fn, exact: bool = False, transcendental: bool = True, allow: str = "biufc"):
    # complex64 / complex128 allowed where MindSpore 2.10's CPU kernels take them (cases_cplx33.py)
    return elementwise(name, ("x",), np_fn, out="float", exact=exact, transcendental=transcendental, allow=allow)


Log1p = _float_unary("Log1p", np.log1p)
Expm1 = _float_unary("Expm1", np.expm1)
# (Erfc is declared beside Erf, in defs/elementwise.py, where GeLUErf's decomposition uses it)
Log2 = _float_unary("Log2", np.log2)
Tan = _float_unary("Tan", np.tan)
Asin = _float_unary("Asin", np.arcsin)
ACos = _float_unary("ACos", np.arccos)
Atan = _float_unary("Atan", np.arctan)
Sinh = _float_unary("Sinh", np.sinh)
Cosh = _float_unary("Cosh", np.cosh)
Asinh = _float_unary("Asinh", np.arcsinh)
Acosh = _float_unary("Acosh", np.arccosh)
Atanh = _float_unary("Atanh", np.arctanh)
Atan2 = elementwise("Atan2", ("x", "y"), np.arctan2, out="float", transcendental=True)
# Trunc stays core: its decomposition select(x < 0, ceil(x), floor(x)) is exact but ran 8.7x
# slower (two libm calls a value where truncf is one rounding instruction; branch rows32b).
Trunc = elementwise("Trunc", ("x",), lambda x: np.trunc(x) if x.dtype.kind == "f" else x, allow="iuf", exact=True)

# decomposition (docs/architecture.md, "The core"): x is NaN exactly where x == x fails (an
# integer never)
IsNan = elementwise("IsNan", ("x",), lambda x: np.isnan(x) if x.dtype.kind == "f" else np.zeros(x.shape, bool),
                    out="bool", decompose=lambda x: call(E.LogicalNot, call(E.Equal, x, x)))
# |x| == inf; never for an integer (x < x)
IsInf = elementwise("IsInf", ("x",), lambda x: np.isinf(x) if x.dtype.kind == "f" else np.zeros(x.shape, bool),
                    out="bool", decompose=lambda x: call(E.Equal, call(E.Abs, x), np.inf) if _floating(x)
                    else call(E.Less, x, x))

# round half to even (C's rint in the default rounding mode), as MindSpore's CPU Round does
Round = elementwise("Round", ("x",), lambda x: np.rint(x) if x.dtype.kind == "f" else x, allow="iuf", exact=True)


def _sign(x):
    return (x > 0).astype(x.dtype) - (x < 0).astype(x.dtype)


# Sign(-0.0) and Sign(NaN) are 0, as MindSpore's
# (selects of constants: GCC vectorizes them as blends, where the C's (x > 0) - (x < 0) through
# _Bool and a cast ran 4x slower; -0.0 and NaN fail both tests and give 0)
def _sign_parts(x):
    one = 1.0 if _floating(x) else 1         # the selects' type (float32 / int64), cast back exactly
    signs = call(E.Select, call(E.Less, 0, x), one, call(E.Select, call(E.Less, x, 0), -one, 0 * one))
    t = type_of(x)
    return cast(signs, t.dtype) if isinstance(t, TensorType) and type_of(signs).dtype is not t.dtype else signs


Sign = elementwise("Sign", ("x",), _sign, allow="iuf", exact=True, decompose=_sign_parts)


def _trunc_mod(x, y):
    if x.dtype.kind == "f":
        return np.fmod(x, y)
    x, y = np.broadcast_arrays(x, y)
    safe = np.where((y == 0) | (y == -1), 1, y) if x.dtype.kind == "i" else np.where(y == 0, 1, y)
    return np.where((y == 0) | (y == -1) if x.dtype.kind == "i" else y == 0, 0, np.fmod(x, safe)).astype(x.dtype)


Mod = elementwise("Mod", ("x", "y"), _trunc_mod, allow="iuf")


# ---- a run-time check --------------------------------------------------------------------------
def _check_finite_infer(types, message, error="RuntimeError"):
    if not isinstance(types[0], TensorType) or not types[0].dtype.is_float:
        raise OpTypeError(f"For 'CheckFinite', the input must be a float Tensor, but got {types[0]}")
    return types[0]


def _check_finite(x, message, error="RuntimeError"):
    if not np.isfinite(x).all():
        raise (OpValueError if error == "ValueError" else OpRuntimeError)(message)
    return x


# x unchanged, or RuntimeError(message) (the class `error` names: RuntimeError or ValueError) when the
# program runs if any element is NaN or infinite:
# what clip_by_norm(error_if_nonfinite=True) checks, in graph code as in PyNative. Never merged
# or hoisted: the check must happen where (and whenever) the program reaches it.
CheckFinite = defop("CheckFinite", ("x",), attrs={"message": "", "error": "RuntimeError"}, infer=_check_finite_infer,
                    eager=_check_finite, kind=Kind.LAYOUT, lower=Template("check_finite", moves_data=True),
                    speculatable=False, movable=False, batch="depend")


# the ops this module declares (what `pycompile.ops.prims` re-exports)
__all__ = [_n for _n, _v in list(globals().items()) if isinstance(_v, OpDef)]
