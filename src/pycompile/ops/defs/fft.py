"""The discrete Fourier transform along one axis: the row every FFT function of MindSpore 2.10
(ops.fft / ifft / rfft / irfft / hfft / fftn ..., FFTWithSize) is composed of
(ops/entries/fft_cplx33.py). DFT(x; axis, inverse, scale) is, for a complex64 / complex128 x,

    out[..., k, ...] = scale * sum_j x[..., j, ...] * exp(-+2 pi i j k / n)    (+ when inverse)

PyNative runs NumPy's FFT; graph mode renders a direct O(n^2) transform per line with the
twiddles computed in double and double accumulators (backend/c/ops/fft.py): exact to the dtype, slow for
long axes (n in the thousands)."""
from __future__ import annotations

import numpy as np

from pycompile.common.abstract import TensorType
from pycompile.ops._table import Kind, OpDef, OpTypeError, defop, describe, norm_axis
from pycompile.ops.lowering import Template


def _dft_infer(types, axis=-1, inverse=False, scale=1.0):
    (x,) = types
    if not isinstance(x, TensorType) or not x.dtype.is_complex:
        raise OpTypeError(f"For 'DFT', the input must be a complex64 or complex128 Tensor, but got {describe(x)}")
    norm_axis("DFT", axis, x.ndim)
    return x


def _dft(x, axis=-1, inverse=False, scale=1.0):
    y = np.fft.ifft(x, axis=axis, norm="forward") if inverse else np.fft.fft(x, axis=axis)
    return (y * scale).astype(x.dtype)


DFT = defop("DFT", ("x",), attrs={"axis": -1, "inverse": False, "scale": 1.0}, infer=_dft_infer, eager=_dft,
            kind=Kind.LAYOUT, lower=Template("dft"), batch="softmax")   # vmap: the axis shifted past the batch axis


# the ops this module declares (what `pycompile.ops.prims` re-exports)
__all__ = [_n for _n, _v in list(globals().items()) if isinstance(_v, OpDef)]
