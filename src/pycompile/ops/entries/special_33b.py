"""Special functions as compositions of elementwise ops (so both modes share them, the compiler
fuses them into one loop, and their gradients follow): lgamma (Lanczos, g = 7, with the
reflection formula below 0.5), digamma (ten steps of the recurrence, then the asymptotic
series), polygamma, erfinv (Giles' approximation polished by two Newton steps on erf),
the modified Bessel functions i0 / i0e / i1 / i1e (the power series up to |x| = 20, the
asymptotic series above), j0 / j1 (the trapezoid rule over a period up to 25, Hankel's expansion
above), k0 / k0e / k1 / k1e (series, the trapezoid rule on the integral, Hankel's expansion),
igamma / igammac, nextafter, the Hurwitz zeta (Euler-Maclaurin) and mvlgamma. Accuracy: checked
against scipy.special in float64 (tests/ops/test_ops33b.py) and against the wheel's float32 values
(tests/conformance/cases_33b.py)."""
import math

import numpy as np

import pycompile.ops as ops
from pycompile.common import dtype as mstype
from pycompile.common.abstract import Symbolic
from pycompile.common.tensor import TensorMethods
from pycompile.ops import functional as F
from pycompile.ops._table import OpTypeError, OpValueError
from pycompile.ops.entry import FLOAT, Arg, op_entry

_LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
            -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
            1.5056327351493116e-7)
# the Bernoulli numbers B_2, B_4, ..., B_16 (digamma's series: psi(x) ~ log x - 1/(2x) - sum B_2k / (2k x^2k))
_B2K = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510)
_SHIFT = 10


def _floats(x, op):
    if isinstance(x, TensorMethods) and x.dtype not in FLOAT:
        raise OpTypeError(f"For '{op}', the input must be a float16, float32 or float64 Tensor, but got {x.dtype}.")


def _work(x):
    """float16 computes in float32 (and is cast back by the caller)."""
    return F.cast(x, mstype.float32) if x.dtype == mstype.float16 else x


def _back(y, x):
    return F.cast(y, x.dtype) if y.dtype != x.dtype else y


def _lgamma_pos(x):
    """log Gamma(x) for x >= 0.5 (Lanczos)."""
    z = x - 1.0
    a = F.fill(x.dtype, (), _LANCZOS[0])
    for k, c in enumerate(_LANCZOS[1:], 1):
        a = a + c / (z + float(k))
    t = z + 7.5
    return 0.5 * math.log(2 * math.pi) + (z + 0.5) * F.log(t) - t + F.log(a)


def _sinpi(x):
    """sin(pi x), exact zeros at the integers (the argument reduced to [-1, 1] first)."""
    r = x - 2.0 * F.floor(x * 0.5 + 0.5)          # in [-1, 1)
    return ops.where(F.equal(r, F.floor(r)), F.zeros_like(r), F.sin(math.pi * r))


@op_entry("lgamma", primitive="Lgamma", tensor_method=True, args=[Arg("input", check=_floats)])
def lgamma(input):
    """log |Gamma(x)|: inf at 0 and the negative integers, inf at +-inf, nan at nan."""
    x = _work(input)
    big = F.greater_equal(x, 0.5)
    xp = ops.where(big, x, 1.0 - x)                          # >= 0.5 on both branches
    lp = _lgamma_pos(xp)
    s = F.abs(_sinpi(x))
    refl = math.log(math.pi) - F.log(ops.where(big, F.ones_like(s), s)) - lp
    y = ops.where(big, lp, refl)
    y = ops.where(F.isinf(x), F.fill(x.dtype, (), math.inf), y)
    return _back(y, input)


def _digamma_big(z):
    """psi(z) for z >= 10 (the asymptotic series)."""
    r = 1.0 / (z * z)
    s = F.fill(z.dtype, (), _B2K[-1] / (2 * len(_B2K)))
    for k in range(len(_B2K) - 1, 0, -1):
        s = s * r + _B2K[k - 1] / (2 * k)
    return F.log(z) - 0.5 / z - s * r


def _psi_pos(x):
    """psi(x) for x >= 0.5 - ten recurrence steps, then the series."""
    acc = F.zeros_like(x)
    for k in range(_SHIFT):
        acc = acc + 1.0 / (x + float(k))
    return _digamma_big(x + float(_SHIFT)) - acc


@op_entry("digamma", primitive="Digamma", tensor_method=True, args=[Arg("input", check=_floats)])
def digamma(input):
    """psi(x) = d/dx log Gamma(x); x < 0.5 by reflection: psi(1 - x) - pi / tan(pi x) (nan at
    the negative integers, -inf at -0 and +inf at +0 as MindSpore)."""
    x = _work(input)
    big = F.greater_equal(x, 0.5)
    xp = ops.where(big, x, 1.0 - x)
    p = _psi_pos(xp)
    s = _sinpi(x)
    c = F.cos(math.pi * (x - 2.0 * F.floor(x * 0.5 + 0.5)))
    refl = p - math.pi * c / ops.where(big, F.ones_like(s), s)
    y = ops.where(big, p, refl)
    y = ops.where(F.equal(x, 0), ops.where(F.less(1.0 / x, 0), F.fill(x.dtype, (), math.inf),
                                           F.fill(x.dtype, (), -math.inf)), y)
    y = ops.where(F.logical_and(F.less(x, 0), F.equal(x, F.floor(x))), F.fill(x.dtype, (), math.nan), y)
    y = ops.where(F.equal(x, math.inf), F.fill(x.dtype, (), math.inf), y)
    return _back(y, input)


def _order(n):
    if isinstance(n, TensorMethods):
        if not hasattr(n, "asnumpy"):
            raise OpValueError("For 'Polygamma', 'n' must be known when the graph is compiled (a Python int or a "
                               "constant Tensor).")
        n = n.asnumpy().reshape(-1)[0]
    if int(n) != n or n < 0:
        raise OpValueError(f"For 'Polygamma', 'n' must be a non-negative integer, but got {n}.")
    return int(n)


@op_entry("polygamma", primitive="Polygamma", tensor_method=True, args=[Arg("n", "value"), Arg("input", check=_floats)])
def polygamma(n, input):
    """The n-th derivative of digamma: psi^(n)(x) = (-1)^(n+1) n! sum_k 1 / (x + k)^(n+1)
    (ten terms, then the asymptotic series of the tail); x > 0 for n >= 1."""
    k = _order(n)
    if k == 0:
        return digamma(input)
    x = _work(input)
    sign = -1.0 if k % 2 == 0 else 1.0
    fact = math.factorial(k)
    acc = F.zeros_like(x)
    for j in range(_SHIFT):
        acc = acc + F.pow(x + float(j), -(k + 1.0))
    z = x + float(_SHIFT)
    tail = math.factorial(k - 1) / F.pow(z, float(k)) + fact / (2.0 * F.pow(z, k + 1.0))
    for j, b in enumerate(_B2K[:6], 1):     # B_2j (2j + k - 1)! / (2j)! / z^(2j + k)
        tail = tail + b * math.factorial(2 * j + k - 1) / math.factorial(2 * j) / F.pow(z, 2.0 * j + k)
    return _back(sign * (fact * acc + tail), input)


@op_entry("erfinv", primitive="Erfinv", tensor_method=True, amp="full", args=[Arg("input", check=_floats)])
def erfinv(input):
    """The inverse of erf on (-1, 1): +-inf at +-1, nan outside."""
    y = _work(input)
    ys = ops.clamp(y, -0.999999, 0.999999) if y.dtype == mstype.float32 else ops.clamp(y, -1 + 1e-15, 1 - 1e-15)
    w = -F.log((1.0 - ys) * (1.0 + ys))
    # Giles (2010), single precision: the central and the tail polynomials in w
    wc = w - 2.5
    pc = F.fill(y.dtype, (), 2.81022636e-08)
    for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503, -0.00417768164,
              0.246640727, 1.50140941):
        pc = pc * wc + c
    wt = F.sqrt(ops.maximum(w, F.fill(y.dtype, (), 5.0))) - 3.0
    pt = F.fill(y.dtype, (), -0.000200214257)
    for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613, 0.00943887047,
              1.00167406, 2.83297682):
        pt = pt * wt + c
    x = ops.where(F.less(w, 5.0), pc, pt) * ys
    for _ in range(2):                     # Newton on erf(x) = y
        x = x - (F.erf(x) - ys) / (2.0 / math.sqrt(math.pi) * F.exp(-x * x))
    x = ops.where(F.equal(F.abs(y), 1.0), ops.where(F.greater(y, 0), F.fill(y.dtype, (), math.inf),
                                                      F.fill(y.dtype, (), -math.inf)), x)
    x = ops.where(F.greater(F.abs(y), 1.0), F.fill(y.dtype, (), math.nan), x)
    return _back(x, input)


# ---- modified Bessel functions of the first kind -------------------------------------------------
_SERIES_MAX = 20.0
# terms per dtype (float32 and float16 need fewer: a smaller program to compile): float64, float32
_SERIES_TERMS = {True: 36, False: 24}
_ASYMPTOTIC_TERMS = {True: 20, False: 10}


def _f64(x) -> bool:
    return x.dtype == mstype.float64


def _bessel_series(x, nu):
    """I_nu(x) for |x| <= 20: (x/2)^nu sum_k (x^2/4)^k / (k! (k + nu)!), by Horner in x^2/4."""
    u = x * x * 0.25
    s = F.fill(x.dtype, (), 0.0)
    for k in range(_SERIES_TERMS[_f64(x)], -1, -1):
        s = s * u + 1.0 / (math.factorial(k) * math.factorial(k + nu))
    return s if nu == 0 else s * (x * 0.5)


def _bessel_asymptotic_e(ax, nu):
    """I_nu(x) exp(-x) for x >= 20: (2 pi x)^-1/2 sum_k (-1)^k a_k(nu) / x^k."""
    coeffs, a = [], 1.0
    for k in range(_ASYMPTOTIC_TERMS[_f64(ax)] + 1):
        coeffs.append(a * (-1) ** k)
        a *= (4 * nu * nu - (2 * k + 1) ** 2) / ((k + 1) * 8.0)
    r = 1.0 / ax
    s = F.fill(ax.dtype, (), coeffs[-1])
    for c in reversed(coeffs[:-1]):
        s = s * r + c
    return s / F.sqrt(2 * math.pi * ax)


def _bessel_i(input, nu, scaled):
    x = _work(input)
    ax = F.abs(x)
    small = F.less_equal(ax, _SERIES_MAX)
    xs = ops.where(small, x, F.zeros_like(x))
    ser = _bessel_series(xs, nu)
    if scaled:
        ser = ser * F.exp(-F.abs(xs))
    big = ops.where(small, F.fill(x.dtype, (), 2 * _SERIES_MAX), ax)
    asym = _bessel_asymptotic_e(big, nu)
    if not scaled:
        asym = asym * F.exp(big)
    if nu == 1:
        asym = asym * F.sign(x)
    y = ops.where(small, ser, asym)
    y = ops.where(F.isnan(x), x, y)
    return _back(y, input)


_BESSEL = [Arg("x", check=_floats)]


@op_entry("bessel_i0", primitive="BesselI0", args=_BESSEL)
def bessel_i0(x):
    """The modified Bessel function of the first kind, order 0."""
    return _bessel_i(x, 0, False)


@op_entry("i0", tensor_method=True, args=[Arg("input", check=_floats)])
def i0(input):
    """ops.bessel_i0's alias."""
    return _bessel_i(input, 0, False)


@op_entry("bessel_i0e", primitive="BesselI0e", args=_BESSEL)
def bessel_i0e(x):
    """I0(x) exp(-|x|)."""
    return _bessel_i(x, 0, True)


@op_entry("bessel_i1", primitive="BesselI1", args=_BESSEL)
def bessel_i1(x):
    """The modified Bessel function of the first kind, order 1 (odd)."""
    return _bessel_i(x, 1, False)


@op_entry("bessel_i1e", primitive="BesselI1e", args=_BESSEL)
def bessel_i1e(x):
    """I1(x) exp(-|x|)."""
    return _bessel_i(x, 1, True)


# ---- zeta and mvlgamma ------------------------------------------------------------------------------
@op_entry("zeta", primitive="Zeta", args=[Arg("input", check=_floats), Arg("other", check=_floats)])
def zeta(input, other):
    """The Hurwitz zeta function sum_k (q + k)^-x for x > 1, q > 0 (Euler-Maclaurin with ten
    terms and six Bernoulli corrections); nan for x < 1, inf at x = 1."""
    x, q = _work(input), _work(other)
    s = F.zeros_like(x + q)
    for k in range(_SHIFT):
        s = s + F.pow(q + float(k), -x)
    a = q + float(_SHIFT)
    s = s + F.pow(a, 1.0 - x) / (x - 1.0) + 0.5 * F.pow(a, -x)
    fac, term_x = 1.0, F.ones_like(x)
    for j, b in enumerate(_B2K[:6], 1):        # B_2j / (2j)! x (x+1) ... (x+2j-2) a^(-x-2j+1)
        term_x = term_x * (x + float(2 * j - 2)) if j == 1 else term_x * (x + float(2 * j - 3)) * (x + float(2 * j - 2))
        fac *= (2 * j - 1) * (2 * j)
        s = s + (b / fac) * term_x * F.pow(a, -x - float(2 * j - 1))
    s = ops.where(F.equal(x, math.inf), ops.where(F.equal(q, 1.0), F.ones_like(s),
                                                  ops.where(F.less(q, 1.0), F.fill(s.dtype, (), math.inf), F.zeros_like(s))), s)
    s = ops.where(F.equal(x, 1.0), F.fill(s.dtype, (), math.inf), s)
    s = ops.where(F.less(x, 1.0), F.fill(s.dtype, (), math.nan), s)
    return _back(s, input)


@op_entry("mvlgamma", primitive="Mvlgamma", tensor_method=True,
          args=[Arg("input", check=_floats), Arg("p", "value", init=True)])
def mvlgamma(input, p):
    """The multivariate log-gamma of dimension p: p (p - 1) / 4 log(pi) + sum_j lgamma(x + (1 - j) / 2);
    every element must be > (p - 1) / 2."""
    if isinstance(p, bool) or not isinstance(p, int) or p < 1:
        raise OpValueError(f"For 'Mvlgamma', 'p' must be a positive int, but got {p!r}.")
    if not isinstance(input, Symbolic) and input.size and not (input.asnumpy() > (p - 1) / 2).all():
        raise OpValueError(f"For 'Mvlgamma', all elements of 'x' must be greater than (p-1)/2 = {(p - 1) / 2}.")
    s = F.fill(input.dtype, tuple(input.shape), p * (p - 1) / 4 * math.log(math.pi))
    for j in range(1, p + 1):
        s = s + lgamma(input + (1 - j) / 2.0)
    # in graph code the values are not known when it is compiled: nan where they are out of the domain
    return ops.where(F.greater(input, (p - 1) / 2), s, F.fill(s.dtype, (), math.nan))


# ---- the regularized incomplete gamma functions ---------------------------------------------------
_IGAMMA_SERIES = {True: 80, False: 45}
_IGAMMA_CF = {True: 40, False: 20}


def _igamma_parts(a, x):
    """(P, Q) = the regularized lower and upper incomplete gamma functions, from the series
    (x < a + 1) or the continued fraction (x >= a + 1, modified Lentz), each with a fixed
    number of terms: accurate to ~1e-13 for a in (0, 50], x in [0, 60]."""
    use_series = F.less(x, a + 1.0)
    xs = ops.where(F.greater(x, 0), x, F.ones_like(x))
    logf = -xs + a * F.log(xs) - lgamma(a)
    # series, on x clamped below a + 1 so the unused branch stays finite
    xser = ops.where(use_series, xs, F.zeros_like(xs))
    term = 1.0 / a
    total = term
    for n in range(1, _IGAMMA_SERIES[_f64(x)] + 1):
        term = term * xser / (a + float(n))
        total = total + term
    p_series = total * F.exp(logf)
    # continued fraction, on x clamped to at least a + 1
    xcf = ops.where(use_series, a + 1.0, xs)
    tiny = 1e-300 if x.dtype == mstype.float64 else 1e-30
    b = xcf + 1.0 - a
    c = F.fill(x.dtype, (), 1.0 / tiny) + F.zeros_like(b)
    d = 1.0 / b
    h = d
    for i in range(1, _IGAMMA_CF[_f64(x)] + 1):
        an = -float(i) * (float(i) - a)
        b = b + 2.0
        d = an * d + b
        d = ops.where(F.less(F.abs(d), tiny), F.fill(x.dtype, (), tiny), d)
        c = b + an / c
        c = ops.where(F.less(F.abs(c), tiny), F.fill(x.dtype, (), tiny), c)
        d = 1.0 / d
        h = h * d * c
    q_cf = F.exp(-xcf + a * F.log(xcf) - lgamma(a)) * h
    p = ops.where(use_series, p_series, 1.0 - q_cf)
    q = ops.where(use_series, 1.0 - p_series, q_cf)
    zero = F.equal(x, 0)
    p, q = ops.where(zero, F.zeros_like(p), p), ops.where(zero, F.ones_like(q), q)
    inf = F.equal(x, math.inf)
    p, q = ops.where(inf, F.ones_like(p), p), ops.where(inf, F.zeros_like(q), q)
    bad = F.logical_or(F.logical_or(F.less_equal(a, 0), F.less(x, 0)), F.logical_or(F.isnan(a), F.isnan(x)))
    nan = F.fill(x.dtype, (), math.nan)
    return ops.where(bad, nan, p), ops.where(bad, nan, q)


def _igamma_inputs(input, other, op):
    if input.dtype not in (mstype.float32, mstype.float64) or other.dtype != input.dtype:
        raise OpTypeError(f"For '{op}', 'input' and 'other' must be Float32 or Float64 Tensors of one dtype, but got "
                          f"{input.dtype} and {other.dtype}.")
    shape = tuple(np.broadcast_shapes(tuple(input.shape), tuple(other.shape)))
    return ops.broadcast_to(input, shape), ops.broadcast_to(other, shape)


@op_entry("igamma", primitive="Igamma", tensor_method=True, args=[Arg("input"), Arg("other")])
def igamma(input, other):
    """P(a, x), the regularized lower incomplete gamma function (a = input, x = other)."""
    return _igamma_parts(*_igamma_inputs(input, other, "Igamma"))[0]


@op_entry("igammac", primitive="Igammac", tensor_method=True, args=[Arg("input"), Arg("other")])
def igammac(input, other):
    """Q(a, x) = 1 - P(a, x), the regularized upper incomplete gamma function."""
    return _igamma_parts(*_igamma_inputs(input, other, "Igammac"))[1]


# ---- nextafter --------------------------------------------------------------------------------------
@op_entry("nextafter", primitive="NextAfter", tensor_method=True, args=[Arg("input"), Arg("other")])
def nextafter(input, other):
    """The next representable value after input toward other (other itself where they are equal;
    the smallest denormal away from 0), by the exponent of |input| and its unit in the last place."""
    if input.dtype not in (mstype.float32, mstype.float64) or other.dtype != input.dtype:
        raise OpTypeError(f"For 'NextAfter', 'input' and 'other' must be Float32 or Float64 Tensors of one dtype, but "
                          f"got {input.dtype} and {other.dtype}.")
    x, y = input, other
    info = mstype.finfo(x.dtype.np)
    mant, emin = info.nmant, info.minexp               # 23 / 52, -126 / -1022
    ax = F.abs(x)
    safe = ops.where(F.greater(ax, 0), ax, F.ones_like(ax))
    safe = ops.where(F.isinf(safe), F.fill(x.dtype, (), float(info.max)), safe)
    e = F.floor(F.log(safe) / math.log(2.0))
    e = ops.where(F.greater(F.pow(2.0, e), safe), e - 1.0, e)
    e = ops.where(F.less_equal(F.pow(2.0, e + 1.0), safe), e + 1.0, e)
    e = ops.maximum(e, F.fill(x.dtype, (), float(emin)))
    ulp = F.pow(2.0, e - float(mant))
    up = F.greater(y, x)
    away = F.equal(up, F.greater(x, 0))                  # moving away from zero
    exact = F.logical_and(F.equal(safe, F.pow(2.0, e)), F.greater(e, float(emin)))
    step = ops.where(F.logical_and(F.logical_not(away), exact), ulp * 0.5, ulp)
    out = x + ops.where(up, step, -step)
    tiny = F.fill(x.dtype, (), float(info.smallest_subnormal))
    out = ops.where(F.equal(x, 0), ops.where(up, tiny, -tiny), out)
    out = ops.where(F.isinf(x), ops.where(away, x, ops.where(up, -F.fill(x.dtype, (), float(info.max)),
                                                                 F.fill(x.dtype, (), float(info.max)))), out)
    out = ops.where(F.equal(x, y), y, out)
    return ops.where(F.logical_or(F.isnan(x), F.isnan(y)), F.fill(x.dtype, (), math.nan), out)


# ---- Bessel functions J0 / J1 and K0 / K1 ---------------------------------------------------------
_EULER = 0.5772156649015329
# the trapezoid rule over a period: exact to double for |x| <= 25 with 64 nodes, to single for |x| <= 12 with 32
_J_NODES = {True: 64, False: 32}
_J_SWITCH = {True: 25.0, False: 12.0}
_K_SWITCH = 2.0
_K_STEP = {True: 0.125, False: 0.25}     # t in [0, 5]: exp(-x cosh t) below 1e-64 past it for x > 2
_K_ASYMPTOTIC = 20.0               # above: Hankel's expansion (the integrand gets too narrow for the step)


def _hankel(ax, nu):
    """(P, Q) of Hankel's expansion J_nu(x) = sqrt(2 / (pi x)) (P cos chi - Q sin chi), chi = x - (2 nu + 1) pi / 4."""
    mu = 4.0 * nu * nu
    p, q = F.ones_like(ax), F.zeros_like(ax)
    term = 1.0
    for k in range(1, 25):
        term *= (mu - (2 * k - 1) ** 2) / (k * 8.0)
        if k % 2:
            q = q + ((-1) ** (k // 2)) * term / F.pow(ax, float(k))
        else:
            p = p + ((-1) ** (k // 2)) * term / F.pow(ax, float(k))
    return p, q


def _bessel_j(input, nu):
    x = _work(input)
    ax = F.abs(x)
    nodes, switch = _J_NODES[_f64(x)], _J_SWITCH[_f64(x)]
    small = F.less_equal(ax, switch)
    xs = ops.where(small, ax, F.zeros_like(ax))
    total = F.zeros_like(ax)
    for k in range(nodes):                    # (1 / 2pi) sum over a full period of cos(nu t - x sin t)
        t = 2 * math.pi * (k + 0.5) / nodes
        total = total + F.cos(nu * t - xs * math.sin(t))
    trap = total / nodes
    xb = ops.where(small, F.fill(x.dtype, (), 2 * switch), ax)
    p, q = _hankel(xb, nu)
    chi = xb - (2 * nu + 1) * math.pi / 4
    asym = F.sqrt(2.0 / (math.pi * xb)) * (p * F.cos(chi) - q * F.sin(chi))
    y = ops.where(small, trap, asym)
    if nu == 1:
        y = y * ops.where(F.less(x, 0), -F.ones_like(x), F.ones_like(x))
    y = ops.where(F.isinf(x), F.fill(x.dtype, (), math.nan), y)          # nan at +-inf, as the wheel
    return _back(ops.where(F.isnan(x), x, y), input)


def _bessel_k(input, nu, scaled):
    """K_nu(x) (times e^x when scaled) for x > 0: the power series up to 2, then the integral of
    exp(-x (cosh t - 1)) cosh(nu t) over t >= 0 by the trapezoid rule, above 20 Hankel's expansion."""
    x = _work(input)
    small = F.less_equal(x, _K_SWITCH)
    xs = ops.where(F.logical_and(small, F.greater(x, 0)), x, F.ones_like(x))
    u = xs * xs * 0.25
    i0 = _bessel_series(xs, 0)
    lg = F.log(xs * 0.5) + _EULER
    if nu == 0:
        s, term, h = F.zeros_like(xs), F.ones_like(xs), 0.0
        for k in range(1, 30):
            h += 1.0 / k
            term = term * u / float(k * k)
            s = s + term * h
        ser = -lg * i0 + s
    else:
        # K1(x) = 1/x + ln(x/2) I1(x) - (x/4) sum_k (psi(k+1) + psi(k+2)) (x^2/4)^k / (k! (k+1)!)
        i1 = _bessel_series(xs, 1)
        s, term = F.zeros_like(xs), F.ones_like(xs)
        hk = 0.0
        for k in range(0, 30):
            if k:
                term = term * u / float(k * (k + 1))
            psi1 = -_EULER + hk                       # psi(k + 1)
            psi2 = psi1 + 1.0 / (k + 1)               # psi(k + 2)
            s = s + term * (psi1 + psi2)
            hk += 1.0 / (k + 1)
        ser = 1.0 / xs + F.log(xs * 0.5) * i1 - xs * 0.25 * s
    if scaled:
        ser = ser * F.exp(xs)
    xb = ops.where(small, F.fill(x.dtype, (), 2 * _K_SWITCH), x)
    acc = F.zeros_like(xb)
    step = _K_STEP[_f64(x)]
    for k in range(int(round(5.0 / step)) + 1):
        t = k * step
        w = 0.5 if k == 0 else 1.0
        acc = acc + (w * math.cosh(nu * t)) * F.exp(-xb * (math.cosh(t) - 1.0))
    integral = acc * step
    far = F.greater(x, _K_ASYMPTOTIC)
    xf = ops.where(far, x, F.fill(x.dtype, (), 2 * _K_ASYMPTOTIC))
    series, term = F.ones_like(xf), F.ones_like(xf)
    for k in range(1, 30):
        term = term * ((4.0 * nu * nu - (2 * k - 1) ** 2) / (k * 8.0)) / xf
        series = series + term
    hankel = F.sqrt(math.pi / (2.0 * xf)) * series
    integral = ops.where(far, hankel, integral)
    big = integral if scaled else integral * F.exp(-ops.where(far, xf, xb))
    y = ops.where(small, ser, big)
    y = ops.where(F.equal(x, 0), F.fill(x.dtype, (), math.inf), y)
    y = ops.where(F.less(x, 0), F.fill(x.dtype, (), math.inf), y)           # the wheel gives inf below 0
    y = ops.where(F.equal(x, math.inf), F.zeros_like(x), y)
    return _back(ops.where(F.isnan(x), x, y), input)


@op_entry("bessel_j0", primitive="BesselJ0", args=_BESSEL)
def bessel_j0(x):
    """The Bessel function of the first kind, order 0."""
    return _bessel_j(x, 0)


@op_entry("bessel_j1", primitive="BesselJ1", args=_BESSEL)
def bessel_j1(x):
    """The Bessel function of the first kind, order 1 (odd)."""
    return _bessel_j(x, 1)


@op_entry("bessel_k0", primitive="BesselK0", args=_BESSEL)
def bessel_k0(x):
    """The modified Bessel function of the second kind, order 0 (x > 0; inf at and below 0, as the wheel)."""
    return _bessel_k(x, 0, False)


@op_entry("bessel_k0e", primitive="BesselK0e", args=_BESSEL)
def bessel_k0e(x):
    """K0(x) exp(x)."""
    return _bessel_k(x, 0, True)


@op_entry("bessel_k1", primitive="BesselK1", args=_BESSEL)
def bessel_k1(x):
    """The modified Bessel function of the second kind, order 1 (x > 0)."""
    return _bessel_k(x, 1, False)


@op_entry("bessel_k1e", primitive="BesselK1e", args=_BESSEL)
def bessel_k1e(x):
    """K1(x) exp(x)."""
    return _bessel_k(x, 1, True)
