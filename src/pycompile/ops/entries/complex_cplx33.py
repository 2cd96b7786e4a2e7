"""The complex functions and classes of MindSpore 2.10 over the complex rows (ops/defs/complex.py):
ops.Complex, ops.ComplexAbs, ops.angle / ops.Angle / Tensor.angle, ops.polar / ops.Polar and
ops.view_as_real. Types and error texts recorded from the wheel in tests/conformance/cases_cplx33.py."""
from __future__ import annotations

import pycompile.ops as ops
from pycompile.common import dtype as mstype
from pycompile.ops import functional as F
from pycompile.ops import prims as P
from pycompile.ops._table import OpTypeError, apply
from pycompile.ops.entry import Arg, op_entry


@op_entry("complex_33", primitive="Complex", functional=False, args=[Arg("real"), Arg("imag")])
def _complex(real, imag):
    """real + imag * 1j from two float32 (complex64) or float64 (complex128) tensors of one shape."""
    return apply(P.Complex, [real, imag])


@op_entry("complex_abs_33", primitive="ComplexAbs", functional=False, args=[Arg("x")])
def _complex_abs(x):
    """|x| = sqrt(re^2 + im^2) of a complex tensor, in its float part type."""
    return apply(P.ComplexAbs, [x])


@op_entry("angle", primitive="Angle", tensor_method=True, args=[Arg("input")])
def angle(input):
    """The argument atan2(imag, real) of a complex tensor (float32 of complex64, float64 of complex128)."""
    return apply(P.Angle, [input])


@op_entry("polar", primitive="Polar", args=[Arg("abs"), Arg("angle")])
def polar(abs, angle):
    """abs * (cos(angle) + sin(angle) * 1j) from two float32 or float64 tensors of one dtype."""
    for t, what in ((abs, "abs"), (angle, "angle")):
        if t.dtype not in (mstype.float32, mstype.float64):
            raise OpTypeError(f"For primitive[Polar], the input argument[{what}] must be a type of "
                              f"{{Tensor[Float32], Tensor[Float64]}}, but got Tensor[{t.dtype}].")
    if abs.dtype is not angle.dtype:
        raise OpTypeError("For primitive[Polar], the input type must be same.")
    return apply(P.Complex, [F.mul(abs, F.cos(angle)), F.mul(abs, F.sin(angle))])


@op_entry("view_as_real", args=[Arg("input")])
def view_as_real(input):
    """A complex tensor as floats with a last axis of 2: (real, imag)."""
    if not input.dtype.is_complex:
        raise OpTypeError("For view_as_real, the dtype of input Tensor must be complex.")
    return ops.stack((apply(P.Real, [input]), apply(P.Imag, [input])), -1)
