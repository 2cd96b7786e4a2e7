"""NumPy-checked specs of the complex rows (ops/defs/complex.py, ops/defs/fft.py): Real, Imag,
Conj, ComplexAbs, Angle, Complex and DFT, eagerly against NumPy (issue 33, cplx33)."""
import numpy as np

from op_specs import Case

from pycompile import ops

_RNG = np.random.default_rng(33)
_Z64 = (_RNG.uniform(-3, 3, (3, 4)) + 1j * _RNG.uniform(-3, 3, (3, 4))).astype(np.complex64)
_Z128 = (_RNG.uniform(-3, 3, (2, 5)) + 1j * _RNG.uniform(-3, 3, (2, 5))).astype(np.complex128)
_F32 = _RNG.uniform(-3, 3, (3, 4)).astype(np.float32)


def _abs(z):
    return np.sqrt(z.real * z.real + z.imag * z.imag)


def _complex(a, b):
    out = np.empty(a.shape, np.complex64 if a.dtype == np.float32 else np.complex128)
    out.real, out.imag = a, b
    return out


COMPLEX_CASES = [
    Case("real complex64", "Real", lambda z: ops.real(z), lambda z: z.real, (_Z64,), (ops.real,)),
    Case("imag complex128", "Imag", lambda z: ops.imag(z), lambda z: z.imag, (_Z128,), (ops.imag,)),
    Case("conj", "Conj", lambda z: ops.conj(z), np.conj, (_Z64,), (ops.conj,)),
    Case("ComplexAbs", "ComplexAbs", lambda z: ops.ComplexAbs()(z), _abs, (_Z64,), (ops.ComplexAbs,)),
    Case("angle", "Angle", lambda z: ops.angle(z), lambda z: np.angle(z).astype(z.real.dtype), (_Z128,),
         (ops.angle, ops.Angle)),
    Case("Complex", "Complex", lambda a, b: ops.Complex()(a, b), _complex, (_F32, _F32[::-1].copy()), (ops.Complex,)),
    Case("fft", "DFT", lambda z: ops.fft(z, dim=0), lambda z: np.fft.fft(z, axis=0), (_Z128,), (ops.fft,)),
    Case("ifft ortho", "DFT", lambda z: ops.ifft(z, norm="ortho"), lambda z: np.fft.ifft(z, norm="ortho"), (_Z128,),
         (ops.ifft,)),
]
