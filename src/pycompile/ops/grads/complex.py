"""Gradient rules of the complex rows (ops/defs/complex.py), in the convention of MindSpore 2.10's
complex gradients (g * conj(f'(z)); values recorded in tests/conformance/cases_cplx33.py): a real
cotangent g of Real(z) is g + 0j, of Imag(z) 0 + g j; Conj gives conj(g); ComplexAbs g z / |z|;
Angle g i / conj(z); Complex(re, im) splits a complex cotangent into its parts; DFT's is the
DFT the other way with the same scale."""
from __future__ import annotations

from pycompile.common.abstract import type_of
from pycompile.ops import functional as F
from pycompile.ops import prims as P
from pycompile.ops._table import apply
from pycompile.ops.grads import defgrad, defjvp


def _complex(re, im):
    return apply(P.Complex, [re, im])


@defgrad(P.Real)
def _real(g, out, x):
    return (_complex(g, F.zeros_like(g)),)


@defgrad(P.Imag)
def _imag(g, out, x):
    return (_complex(F.zeros_like(g), g),)


@defgrad(P.Conj)
def _conj(g, out, x):
    return (apply(P.Conj, [g]),)


@defgrad(P.ComplexAbs)
def _complex_abs(g, out, x):
    dt = type_of(x).dtype
    return (F.div(F.mul(F.cast(g, dt), x), F.cast(out, dt)),)


@defgrad(P.Angle)
def _angle(g, out, x):
    re, im = apply(P.Real, [x]), apply(P.Imag, [x])
    scale = F.div(g, F.add(F.mul(re, re), F.mul(im, im)))
    return (_complex(F.neg(F.mul(scale, im)), F.mul(scale, re)),)


@defgrad(P.Complex)
def _complex_grad(g, out, re, im):
    return apply(P.Real, [g]), apply(P.Imag, [g])


@defgrad(P.DFT)
def _dft(g, out, x, axis=-1, inverse=False, scale=1.0):
    # out = scale * F x with F symmetric: the cotangent is scale * conj(F) g, the other direction
    return (apply(P.DFT, [g], {"axis": axis, "inverse": not inverse, "scale": scale}),)


# forward mode: the complex rows are linear over the reals, not over the complex numbers (conj), so
# transposing their gradient rules would not give their tangents; each says its own
@defjvp(P.Real)
def _real_jvp(tangents, out, x):
    return apply(P.Real, [tangents[0]])


@defjvp(P.Imag)
def _imag_jvp(tangents, out, x):
    return apply(P.Imag, [tangents[0]])


@defjvp(P.Conj)
def _conj_jvp(tangents, out, x):
    return apply(P.Conj, [tangents[0]])


@defjvp(P.Complex)
def _complex_jvp(tangents, out, re, im):
    t_re, t_im = tangents
    return _complex(F.zeros_like(re) if t_re is None else t_re, F.zeros_like(im) if t_im is None else t_im)


@defjvp(P.ComplexAbs)
def _complex_abs_jvp(tangents, out, x):
    # d|z| = Re(conj(z) dz) / |z|
    return F.div(apply(P.Real, [F.mul(apply(P.Conj, [x]), tangents[0])]), out)


@defjvp(P.Angle)
def _angle_jvp(tangents, out, x):
    # d arg z = Im(conj(z) dz) / |z|^2
    re, im = apply(P.Real, [x]), apply(P.Imag, [x])
    return F.div(apply(P.Imag, [F.mul(apply(P.Conj, [x]), tangents[0])]), F.add(F.mul(re, re), F.mul(im, im)))


@defjvp(P.DFT)
def _dft_jvp(tangents, out, x, axis=-1, inverse=False, scale=1.0):
    return apply(P.DFT, [tangents[0]], {"axis": axis, "inverse": inverse, "scale": scale})
