"""Finite-difference checks of the complex rows' gradients (issue 33, cplx33): real float64
inputs built into complex128 values with ops.Complex, a real result read back with ops.real /
ops.imag / ComplexAbs / angle. A real loss's gradient in MindSpore's g * conj(f'(z)) convention is
its ordinary derivative, so central differences check every rule on the way (Complex, Real,
Imag, Conj, ComplexAbs, Angle, the DFT, and the complex Mul / Exp / Tanh rules)."""
from __future__ import annotations

import numpy as np

from pycompile import ops


def _r(*shape, seed=0, lo=0.3, hi=2.5):
    return np.random.default_rng(seed).uniform(lo, hi, size=shape).astype(np.float64)


def _z(a, b):
    return ops.Complex()(a, b)


COMPLEX = [
    ("Complex", lambda a, b: ops.real(_z(a, b) * _z(b, a)) + ops.imag(_z(a, b)), [_r(2, 3), _r(2, 3, seed=1)], [0, 1]),
    ("Real", lambda a, b: ops.real(ops.exp(_z(a, b) * 0.5)), [_r(3), _r(3, seed=1)], [0, 1]),
    ("Imag", lambda a, b: ops.imag(ops.tanh(_z(a, b)) * _z(b, a)), [_r(3), _r(3, seed=1)], [0, 1]),
    ("Conj", lambda a, b: ops.imag(ops.conj(_z(a, b)) * _z(b, a * 2)), [_r(4), _r(4, seed=1)], [0, 1]),
    ("ComplexAbs", lambda a, b: ops.ComplexAbs()(_z(a, b) * _z(b, a)), [_r(4), _r(4, seed=1)], [0, 1]),
    ("Angle", lambda a, b: ops.angle(_z(a, -b) * _z(b, a)), [_r(4), _r(4, seed=1)], [0, 1]),
    ("DFT", lambda a, b: ops.real(ops.fft(_z(a, b), norm="ortho") * _z(b, a)) + ops.irfft(_z(a, b), 4),
     [_r(2, 4), _r(2, 4, seed=1)], [0, 1]),
]
