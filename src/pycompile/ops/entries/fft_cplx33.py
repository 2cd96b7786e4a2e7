"""MindSpore 2.10's FFT family, composed of the one-axis DFT row (ops/defs/fft.py): fft / ifft /
rfft / irfft / hfft / ihfft and their 2-D and n-D forms, fftshift / ifftshift, fftfreq / rfftfreq
and the FFTWithSize Primitive. NumPy's semantics (n / s pad with zeros or truncate; norm
"backward", "ortho", "forward"); float64 inputs compute in complex128, other real ones (ints,
float16, float32) in complex64, bool is refused. Values recorded in tests/conformance/cases_cplx33.py.

irfft builds the whole Hermitian spectrum from its half (X[n - k] = conj(X[k])) and keeps the real
part of its inverse transform, which is what a complex-to-real transform computes: the imaginary
parts of X[0] (and of X[n / 2]) do not reach the result."""
from __future__ import annotations

import math

import numpy as np

import pycompile.ops as ops
from pycompile.common import dtype as mstype
from pycompile.common.tensor import Tensor
from pycompile.ops import functional as F
from pycompile.ops import prims as P
from pycompile.ops._table import OpTypeError, OpValueError, apply, norm_axis
from pycompile.ops.entry import Arg, op_entry

_NORMS = (None, "backward", "ortho", "forward")
_SWAP = {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}


def _as_complex(x, name: str):
    dt = x.dtype
    if dt.is_complex:
        return x
    if dt is mstype.bool_:
        raise OpTypeError(f"For '{name}', the input must be a number Tensor (not bool), but got {dt}.")
    return F.cast(x, mstype.complex128 if dt is mstype.float64 else mstype.complex64)


def _check_norm(norm, name: str):
    if norm not in _NORMS:
        raise OpValueError(f"For '{name}', 'norm' must be one of {_NORMS[1:]} or None, but got {norm!r}.")


def _scale(norm, n: int, inverse: bool) -> float:
    if norm == "ortho":
        return 1 / math.sqrt(n) if n else 1.0
    scaled = (norm == "forward") != inverse       # backward scales the inverse, forward the forward one
    return 1.0 / n if scaled and n else 1.0


def _fit(x, n: int, axis: int):
    """x zero-padded or truncated to length n along axis."""
    m = x.shape[axis]
    if n == m:
        return x
    if n < m:
        return ops.narrow(x, axis, 0, n)
    pad = [0, 0] * (x.ndim - 1 - axis) + [0, n - m]
    return ops.pad(x, tuple(pad))


def _dft(x, axis: int, inverse: bool, norm, n: int):
    return apply(P.DFT, [x], {"axis": axis, "inverse": inverse, "scale": _scale(norm, n, inverse)})


def _c2c(x, n, axis, norm, inverse, name):
    _check_norm(norm, name)
    x = _as_complex(x, name)
    axis = norm_axis(name, axis, x.ndim)
    n = x.shape[axis] if n is None else int(n)
    if n < 1:
        raise OpValueError(f"For '{name}', 'n' must be positive, but got {n}.")
    return _dft(_fit(x, n, axis), axis, inverse, norm, n)


def _c2r(x, n, axis, norm, name):
    """irfft along one axis: the real signal of length n whose half spectrum is x."""
    _check_norm(norm, name)
    x = _as_complex(x, name)
    axis = norm_axis(name, axis, x.ndim)
    n = 2 * (x.shape[axis] - 1) if n is None else int(n)
    if n < 1:
        raise OpValueError(f"For '{name}', the output length must be positive, but got {n}.")
    half = _fit(x, n // 2 + 1, axis)
    tail = n - n // 2 - 1
    if tail:
        mirror = ops.flip(ops.narrow(half, axis, 1, tail), (axis,))
        half = ops.concat((half, ops.conj(mirror)), axis)
    return ops.real(_dft(half, axis, True, norm, n))


def _axes(x, s, dim, name, default_all: bool):
    if dim is None:
        dims = list(range(x.ndim)) if s is None or default_all and s is None else list(range(x.ndim - len(s), x.ndim))
    else:
        dims = [dim] if isinstance(dim, int) else list(dim)
    dims = [norm_axis(name, d, x.ndim) for d in dims]
    if s is not None and len(s) != len(dims):
        raise OpValueError(f"For '{name}', 's' and 'dim' must have the same length, but got {len(s)} and {len(dims)}.")
    return dims, (list(s) if s is not None else [None] * len(dims))


def _c2c_n(x, s, dim, norm, inverse, name):
    dims, sizes = _axes(x, s, dim, name, True)
    for d, n in zip(dims, sizes):
        x = _c2c(x, n, d, norm, inverse, name)
    return x


def _r2c_n(x, s, dim, norm, name):
    if x.dtype.is_complex:
        raise OpTypeError(f"For '{name}', the input must be a real Tensor, but got {x.dtype}.")
    dims, sizes = _axes(x, s, dim, name, True)
    x = _c2c(x, sizes[-1], dims[-1], norm, False, name)
    x = ops.narrow(x, dims[-1], 0, x.shape[dims[-1]] // 2 + 1)
    for d, n in zip(dims[:-1], sizes[:-1]):
        x = _c2c(x, n, d, norm, False, name)
    return x


def _c2r_n(x, s, dim, norm, name):
    dims, sizes = _axes(x, s, dim, name, True)
    for d, n in zip(dims[:-1], sizes[:-1]):
        x = _c2c(x, n, d, norm, True, name)
    return _c2r(x, sizes[-1], dims[-1], norm, name)


def _fft_args(name):
    return [Arg("input"), Arg(name, "value", default=None), Arg("dim", "value", default=-1 if name == "n" else None),
            Arg("norm", "value", default=None)]


_ARGS_1 = _fft_args("n")
_ARGS_2 = [Arg("input"), Arg("s", "value", default=None), Arg("dim", "value", default=(-2, -1)),
           Arg("norm", "value", default=None)]
_ARGS_N = _fft_args("s")


@op_entry("fft", args=_ARGS_1)
def fft(input, n=None, dim=-1, norm=None):
    """The one-dimensional discrete Fourier transform along dim."""
    return _c2c(input, n, dim, norm, False, "fft")


@op_entry("ifft", args=_ARGS_1)
def ifft(input, n=None, dim=-1, norm=None):
    """The inverse of fft."""
    return _c2c(input, n, dim, norm, True, "ifft")


@op_entry("rfft", args=_ARGS_1)
def rfft(input, n=None, dim=-1, norm=None):
    """fft of a real signal: its n // 2 + 1 non-negative frequencies."""
    return _r2c_n(input, None if n is None else (n,), dim, norm, "rfft")


@op_entry("irfft", args=_ARGS_1)
def irfft(input, n=None, dim=-1, norm=None):
    """The real signal of length n (default 2 (m - 1)) whose rfft is input."""
    return _c2r(input, n, dim, norm, "irfft")


@op_entry("hfft", args=_ARGS_1)
def hfft(input, n=None, dim=-1, norm=None):
    """fft of a Hermitian-symmetric signal given by its first half: irfft(conj(input)) with the
    normalisation the other way round."""
    _check_norm(norm, "hfft")
    return _c2r(ops.conj(_as_complex(input, "hfft")), n, dim, _SWAP[norm], "hfft")


@op_entry("ihfft", args=_ARGS_1)
def ihfft(input, n=None, dim=-1, norm=None):
    """The inverse of hfft: conj(rfft(input)) normalised the other way round."""
    _check_norm(norm, "ihfft")
    return ops.conj(_r2c_n(input, None if n is None else (n,), dim, _SWAP[norm], "ihfft"))


def _two(fn_name, fn):
    def two(input, s=None, dim=(-2, -1), norm=None):
        return fn(input, s, dim, norm)
    two.__doc__ = f"{fn_name} over two axes (default the last two)."
    return two


def _fftn(input, s, dim, norm):
    return _c2c_n(input, s, dim, norm, False, "fftn")


def _ifftn(input, s, dim, norm):
    return _c2c_n(input, s, dim, norm, True, "ifftn")


def _rfftn(input, s, dim, norm):
    return _r2c_n(input, s, dim, norm, "rfftn")


def _irfftn(input, s, dim, norm):
    return _c2r_n(input, s, dim, norm, "irfftn")


def _hfftn(input, s, dim, norm):
    _check_norm(norm, "hfftn")
    return _c2r_n(ops.conj(_as_complex(input, "hfftn")), s, dim, _SWAP[norm], "hfftn")


def _ihfftn(input, s, dim, norm):
    _check_norm(norm, "ihfftn")
    return ops.conj(_r2c_n(input, s, dim, _SWAP[norm], "ihfftn"))


for _name, _fn in (("fft", _fftn), ("ifft", _ifftn), ("rfft", _rfftn), ("irfft", _irfftn), ("hfft", _hfftn),
                   ("ihfft", _ihfftn)):
    op_entry(f"{_name}2", args=_ARGS_2)(_two(f"{_name}n", _fn))

    def _n_form(input, s=None, dim=None, norm=None, _fn=_fn):
        return _fn(input, s, dim, norm)
    _n_form.__doc__ = f"{_name} over the axes dim (default all, or the last len(s))."
    op_entry(f"{_name}n", args=_ARGS_N)(_n_form)


def _shift(input, dim, sign: int):
    dims = list(range(input.ndim)) if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    shifts = [sign * (input.shape[d] // 2) for d in dims]
    return ops.roll(input, shifts, dims)


@op_entry("fftshift", args=[Arg("input"), Arg("dim", "value", default=None)])
def fftshift(input, dim=None):
    """The zero frequency moved to the middle: a roll by n // 2 along each of dim (default all)."""
    return _shift(input, dim, 1)


@op_entry("ifftshift", args=[Arg("input"), Arg("dim", "value", default=None)])
def ifftshift(input, dim=None):
    """The inverse of fftshift: a roll by -(n // 2)."""
    return _shift(input, dim, -1)


def _freq(n, d, dtype, name, rfft_: bool):
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise OpValueError(f"For '{name}', 'n' must be a positive int, but got {n!r}.")
    dt = mstype.float32 if dtype is None else mstype.to_dtype(dtype)
    values = np.fft.rfftfreq(n, d) if rfft_ else np.fft.fftfreq(n, d)
    return Tensor(values.astype(dt.np))


@op_entry("fftfreq", args=[Arg("n", "value"), Arg("d", "value", default=1.0), Arg("dtype", "value", default=None)])
def fftfreq(n, d=1.0, dtype=None):
    """The sample frequencies of an fft of length n and spacing d."""
    return _freq(n, d, dtype, "fftfreq", False)


@op_entry("rfftfreq", args=[Arg("n", "value"), Arg("d", "value", default=1.0),
                            Arg("dtype", "value", default=None)])
def rfftfreq(n, d=1.0, dtype=None):
    """The sample frequencies of an rfft of length n and spacing d."""
    return _freq(n, d, dtype, "rfftfreq", True)


@op_entry("fft_with_size_33", primitive="FFTWithSize", functional=False,
          args=[Arg("x"), Arg("signal_ndim", "value", init=True), Arg("inverse", "value", init=True),
                Arg("real", "value", init=True), Arg("norm", "value", default="backward", init=True),
                Arg("onesided", "value", default=True, init=True),
                Arg("signal_sizes", "value", default=(), init=True)])
def _fft_with_size(x, signal_ndim, inverse, real, norm="backward", onesided=True, signal_sizes=()):
    """An fft over the last signal_ndim (1-3) axes: complex (ifft when inverse), or real to
    half-spectrum (rfft; irfft to signal_sizes when inverse); onesided=False keeps every frequency."""
    if signal_ndim not in (1, 2, 3) or signal_ndim > x.ndim:
        raise OpValueError(f"For 'FFTWithSize', 'signal_ndim' must be 1, 2 or 3 and at most the rank "
                           f"{x.ndim}, but got {signal_ndim}.")
    if real and inverse and x.shape[-1] == 1:
        raise OpValueError("For 'FFTWithSize', the last dimension of the input cannot be 1, but got shape "
                           f"{list(x.shape)}.")
    dims = list(range(x.ndim - signal_ndim, x.ndim))
    sizes = list(signal_sizes) if signal_sizes else None
    if not real:
        return _c2c_n(x, None, dims, norm, bool(inverse), "FFTWithSize")
    if not inverse:
        if onesided:
            return _r2c_n(x, None, dims, norm, "FFTWithSize")
        return _c2c_n(x, None, dims, norm, False, "FFTWithSize")
    if not onesided:
        return ops.real(_c2c_n(x, None, dims, norm, True, "FFTWithSize"))
    if sizes is None:
        sizes = [x.shape[d] for d in dims[:-1]] + [2 * (x.shape[dims[-1]] - 1)]
    return _c2r_n(x, sizes, dims, norm, "FFTWithSize")


def _stft(x, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="REFLECT",
          normalized=False, onesided=None, return_complex=None):
    if x.ndim not in (1, 2):
        raise OpValueError(f"For 'STFT', the input must be 1-D or 2-D, but got {x.ndim}-D.")
    n_fft = int(n_fft)
    hop = n_fft // 4 if hop_length is None else int(hop_length)
    win = n_fft if win_length is None else int(win_length)
    if not 0 < win <= n_fft or hop < 1:
        raise OpValueError(f"For 'STFT', expected 0 < win_length <= n_fft and hop_length > 0, but got n_fft "
                           f"{n_fft}, win_length {win}, hop_length {hop}.")
    complex_in = x.dtype.is_complex or (window is not None and window.dtype.is_complex)
    onesided = not complex_in if onesided is None else bool(onesided)
    return_complex = complex_in if return_complex is None else bool(return_complex)
    if center:
        rows = x if x.ndim == 2 else ops.reshape(x, (1, -1))
        rows = ops.pad(rows, (n_fft // 2, n_fft // 2), mode=str(pad_mode).lower())
        x = rows if x.ndim == 2 else ops.reshape(rows, (-1,))
    length = x.shape[-1]
    if length < n_fft:
        raise OpValueError(f"For 'STFT', the input is shorter ({length}) than n_fft ({n_fft}).")
    frames = ops.stack([ops.narrow(x, x.ndim - 1, t * hop, n_fft) for t in range(1 + (length - n_fft) // hop)],
                       x.ndim - 1)
    z = _as_complex(frames, "STFT")
    if window is not None:
        w = window
        if win < n_fft:
            left = (n_fft - win) // 2
            w = ops.pad(w, (left, n_fft - win - left))
        z = z * _as_complex(w, "STFT")
    spec = _dft(z, z.ndim - 1, False, "ortho" if normalized else "backward", n_fft)
    if onesided:
        spec = ops.narrow(spec, spec.ndim - 1, 0, n_fft // 2 + 1)
    spec = ops.swapaxes(spec, -2, -1)
    return spec if return_complex else ops.view_as_real(spec)


@op_entry("stft", args=[Arg("x"), Arg("n_fft", "value"), Arg("hop_length", "value", default=None),
                        Arg("win_length", "value", default=None), Arg("window", "value", default=None),
                        Arg("center", "value", default=True), Arg("pad_mode", "value", default="REFLECT"),
                        Arg("normalized", "value", default=False), Arg("onesided", "value", default=None),
                        Arg("return_complex", "value", default=None)])
def stft(x, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="REFLECT",
         normalized=False, onesided=None, return_complex=None):
    """The short-time Fourier transform: frames of n_fft every hop_length (default n_fft // 4) of x
    (1-D or batched 2-D; padded by n_fft // 2 at both ends when center), times the window (ones;
    win_length centred in n_fft), transformed: (..., freqs, frames), complex or as (re, im) pairs."""
    return _stft(x, n_fft, hop_length, win_length, window, center, pad_mode, normalized, onesided, return_complex)


@op_entry("stft_prim_33", primitive="STFT", functional=False,
          args=[Arg("x"), Arg("window"), Arg("n_fft", "value", init=True), Arg("hop_length", "value", init=True),
                Arg("win_length", "value", init=True), Arg("normalized", "value", init=True),
                Arg("onesided", "value", init=True), Arg("return_complex", "value", init=True)])
def _stft_prim(x, window, n_fft, hop_length, win_length, normalized, onesided, return_complex):
    """ops.STFT(n_fft, hop_length, win_length, normalized, onesided, return_complex)(x, window): stft
    without centring."""
    return _stft(x, n_fft, hop_length, win_length, window, False, "REFLECT", normalized, onesided, return_complex)
