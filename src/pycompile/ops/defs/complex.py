"""The complex rows: Real, Imag, Conj, ComplexAbs and Angle read a complex64 / complex128 tensor,
Complex builds one from two float tensors. Elementwise, so they fuse with the complex arithmetic
around them; their C expressions (GCC / clang's builtins for C99's crealf, cimagf, conjf, cargf
and `__builtin_complex`) are in pycompile/backend/c/ops/elementwise.py's COMPLEX_EXPR.

Types and errors follow MindSpore 2.10's CPU kernels (recorded in
tests/conformance/cases_cplx33.py): Real / Imag / ComplexAbs / Angle of complex64 give float32,
of complex128 float64; ComplexAbs is sqrt(re^2 + im^2) computed in the part type (it overflows
to inf where hypot would not, as MindSpore's does); Complex takes two tensors of one float dtype
(float32 or float64) and one shape. The functional forms (`ops.real` of a real tensor is the
tensor itself) are entries (ops/entries/complex_cplx33.py).
"""
from __future__ import annotations

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import TensorType
from pycompile.ops._table import Kind, OpDef, OpRuntimeError, OpTypeError, defop, describe
from pycompile.ops.lowering import Elementwise

PART = {"Complex64": mstype.float32, "Complex128": mstype.float64}
OF_PART = {"Float32": mstype.complex64, "Float64": mstype.complex128}


def _complex_arg(name: str, types) -> TensorType:
    (x,) = types
    if not isinstance(x, TensorType) or not x.dtype.is_complex:
        raise OpTypeError(f"For primitive[{name}], the input argument[x] must be a type of {{Tensor[Complex128], "
                          f"Tensor[Complex64]}}, but got {describe(x)}.")
    return x


def _to_part(name: str):
    def infer(types):
        x = _complex_arg(name, types)
        return TensorType(PART[x.dtype.name], x.shape)
    return infer


def _same(name: str):
    def infer(types):
        return _complex_arg(name, types)
    return infer


def _input_dtype(types, out):
    return types[0].dtype


def _row(name, inputs, infer, eager, doc):
    return defop(name, inputs, infer=infer, eager=eager, kind=Kind.ELEMENTWISE,
                 lower=Elementwise(_input_dtype), doc=doc)


def _abs_naive(z):
    # in the part type, as MindSpore's kernel: |3e38 + 3e38j| is inf in complex64
    re, im = z.real, z.imag
    return np.sqrt(re * re + im * im)


Real = _row("Real", ("x",), _to_part("Real"), lambda z: np.ascontiguousarray(z.real), "the real part")
Imag = _row("Imag", ("x",), _to_part("Imag"), lambda z: np.ascontiguousarray(z.imag), "the imaginary part")
Conj = _row("Conj", ("x",), _same("Conj"), np.conjugate, "the complex conjugate")
ComplexAbs = _row("ComplexAbs", ("x",), _to_part("ComplexAbs"), _abs_naive, "sqrt(re^2 + im^2)")
Angle = _row("Angle", ("x",), _to_part("Angle"), lambda z: np.angle(z).astype(z.real.dtype),
             "the argument atan2(im, re)")


def _complex_infer(types):
    re, im = types
    for t, what in ((re, "real"), (im, "imag")):
        if not isinstance(t, TensorType) or t.dtype not in (mstype.float32, mstype.float64):
            raise OpTypeError(f"For primitive[Complex], the input argument[{what}] must be a type of "
                              f"{{Tensor[Float32], Tensor[Float64]}}, but got {describe(t)}.")
    if re.dtype is not im.dtype:
        raise OpTypeError("For primitive[Complex], the input type must be same.")
    if re.shape != im.shape:
        raise OpRuntimeError(f"For 'Complex', the shapes of real and imag must be the same (no broadcasting), "
                             f"but got {list(re.shape)} and {list(im.shape)}")
    return TensorType(OF_PART[re.dtype.name], re.shape)


def _complex(re, im):
    out = np.empty(np.shape(re), np.result_type(re, np.complex64))
    out.real, out.imag = re, im       # not re + 1j * im: inf * 1j has a NaN real part
    return out


Complex = _row("Complex", ("real", "imag"), _complex_infer, _complex, "real + imag * 1j")


# the ops this module declares (what `pycompile.ops.prims` re-exports)
__all__ = [_n for _n, _v in list(globals().items()) if isinstance(_v, OpDef)]
