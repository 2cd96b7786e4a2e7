"""Bessel functions of the second kind Y0 / Y1 (bessel_y0 / BesselY0, bessel_y1 / BesselY1) as
compositions of elementwise ops, like J0 / J1 in special_33b.py: the power series for x <= 2
(J's series with the log term and harmonic numbers), the integral representation
Y_n(x) = (1/pi) int_0^pi sin(x sin t - n t) dt - (1/pi) int_0^T (e^{nt} + (-1)^n e^{-nt})
e^{-x sinh t} dt (T = asinh(40 / x): the rest is below e^-40) by 40-point Gauss-Legendre rules
up to 25 (float64 inputs; float32 / float16: 24 points up to 12), Hankel's expansion above, in
float64 whatever the input's float dtype. Against
scipy.special in float64: relative error below 1e-10 on (0, 60] (tests/ops/test_bessel_y.py). At
the edges it gives what MindSpore 2.10's CPU kernel gives (recorded): -inf for x < 0, Y0(0) = -inf,
Y1(0) = NaN in float32 / float16 and -inf in float64, NaN at +inf."""
import functools
import math

import numpy as np

import pycompile.ops as ops
from pycompile.ops import functional as F
from pycompile.common import dtype as mstype
from pycompile.ops.entries.special_33b import _BESSEL, _EULER, _J_SWITCH, _back, _f64, _hankel
from pycompile.ops.entry import op_entry

# Gauss-Legendre nodes and the series' length per input precision (float64 input, else): float32
# results need the integrals only up to 12 (Hankel's expansion is good to 1e-10 from there)
_SERIES = {True: 30, False: 20}


@functools.cache
def _gauss_legendre(f64: bool):
    """(nodes, weights); computed on first use: numpy.polynomial is not imported with pycompile."""
    return np.polynomial.legendre.leggauss(40 if f64 else 24)


def _series(xs, nu, f64):
    """Y_nu for 0 < xs <= 2 by the power series."""
    u = xs * xs * 0.25
    j = F.zeros_like(xs)
    s = F.zeros_like(xs)
    h = 0.0
    for k in range(_SERIES[f64]):
        if nu == 0:
            c = (-1.0) ** k / math.factorial(k) ** 2
            term = F.pow(u, float(k)) * c
            j = j + term
            if k:
                h += 1.0 / k
                s = s - term * h
        else:
            c = (-1.0) ** k / (math.factorial(k) * math.factorial(k + 1))
            term = F.pow(u, float(k)) * (xs * 0.5) * c
            j = j + term
            psi = (-_EULER + sum(1.0 / i for i in range(1, k + 1))) + (-_EULER + sum(1.0 / i for i in range(1, k + 2)))
            s = s + term * psi
    if nu == 0:
        return (F.log(xs * 0.5) + _EULER) * j * (2.0 / math.pi) + s * (2.0 / math.pi)
    return (-2.0 / math.pi) / xs + F.log(xs * 0.5) * j * (2.0 / math.pi) - s / math.pi


def _integral(xm, nu, f64):
    """Y_nu for 2 < xm <= switch by the integral representation."""
    gl_x, gl_w = _gauss_legendre(bool(f64))
    i1 = F.zeros_like(xm)
    for node, w in zip(gl_x, gl_w):
        th = (node + 1.0) * math.pi / 2
        i1 = i1 + F.sin(xm * math.sin(th) - nu * th) * float(w)
    i1 = i1 * (math.pi / 2)
    top = ops.asinh(40.0 / xm)
    i2 = F.zeros_like(xm)
    for node, w in zip(gl_x, gl_w):
        t = top * ((node + 1.0) / 2)
        e = F.exp(t * float(nu)) + F.exp(t * float(-nu)) * (-1.0) ** nu
        i2 = i2 + e * F.exp(-xm * ops.sinh(t)) * float(w)
    i2 = i2 * top * 0.5
    return (i1 - i2) / math.pi


def _bessel_y(input, nu):
    f64 = _f64(input)
    x = F.cast(input, mstype.float64)      # float32's x - 3 pi / 4 alone would cost ~1e-6 relative at x = 30
    switch = _J_SWITCH[f64]
    small = F.less_equal(x, 2.0)
    mid = F.logical_and(F.greater(x, 2.0), F.less_equal(x, switch))
    one = F.ones_like(x)
    ys = _series(ops.where(F.logical_and(small, F.greater(x, 0)), x, one), nu, f64)
    ym = _integral(ops.where(mid, x, one * 4.0), nu, f64)
    xb = ops.where(F.greater(x, switch), x, one * (2 * switch))
    p, q = _hankel(xb, nu)
    chi = xb - (2 * nu + 1) * math.pi / 4
    yb = F.sqrt(2.0 / (math.pi * xb)) * (p * F.sin(chi) + q * F.cos(chi))
    y = ops.where(small, ys, ops.where(mid, ym, yb))
    nan, neg_inf = F.fill(x.dtype, (), math.nan), F.fill(x.dtype, (), -math.inf)
    y = ops.where(F.equal(x, 0), neg_inf if nu == 0 or f64 else nan, y)     # the wheel: Y1(0) NaN in float32
    y = ops.where(F.less(x, 0), neg_inf, y)
    y = ops.where(F.isinf(x), nan, y)
    return _back(ops.where(F.isnan(x), x, y), input)


@op_entry("bessel_y0", primitive="BesselY0", args=_BESSEL)
def bessel_y0(x):
    """The Bessel function of the second kind, order 0."""
    return _bessel_y(x, 0)


@op_entry("bessel_y1", primitive="BesselY1", args=_BESSEL)
def bessel_y1(x):
    """The Bessel function of the second kind, order 1."""
    return _bessel_y(x, 1)
