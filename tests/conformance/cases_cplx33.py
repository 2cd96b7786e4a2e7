"""The conformance table: complex64 / complex128 (issue 33, cplx33) — the dtypes, Tensor creation and
repr, promotion, Cast, the elementwise ops and reductions MindSpore 2.10's CPU kernels take complex
in (and the errors of those that refuse it), data movement, the complex ops (Real, Imag, Conj,
Angle, ComplexAbs, Complex, Polar, view_as_real) and their gradients. Complex values are encoded
as [real, imag] pairs (conf_harness). Part of the table loaded after cases.py."""
group("complex")

_cx_Z = np.array([[1 + 2j, -3 + 0.5j, 0.25 - 1j], [2 + 2j, -0.5 - 0.75j, 1.5 + 0j]], np.complex64)
_cx_W = np.array([[0.5 - 1j, 2 + 1j, -1 + 0.25j], [1 - 0.5j, 0.75 + 1.5j, -2 - 1j]], np.complex64)
_cx_Z128 = _cx_Z.astype(np.complex128) * (1 + 1e-9j)
_cx_F = np.array([[1.5, -2.0, 0.25], [3.0, -0.5, 0.0]], np.float32)
_cx_F64 = _cx_F.astype(np.float64)
_cx_I = np.array([[1, -2, 3], [0, 4, -5]], np.int32)
_cx_B = np.array([[True, False, True], [False, True, False]])
_cx_EDGE_Z = np.array([0j, -0.0 - 0j, complex(np.inf, 1), complex(1, -np.inf), complex(np.nan, 2), 3e38 + 3e38j,
                    0 + 1j, -2.7 - 1j], np.complex64)


# ---- dtypes, creation, printing ---------------------------------------------------------------------
@case("ms.complex64", "ms.complex128", "ms.cfloat", "ms.cdouble", inputs=[_cx_Z, _cx_Z128], graph=False,
      reason="dtype objects and Python strings")
def complex_dtypes(z, z128):
    return (z.dtype, z128.dtype, ms.cfloat, ms.cdouble, str(ms.complex64), str(ms.complex128),
            ms.cfloat == ms.complex64, ms.cdouble == ms.complex128)


@case("ms.complex64", "ms.complex128", "ms.tensor", inputs=[], graph=False, reason="Tensor construction")
def complex_creation():
    return (Tensor(1 + 2j), Tensor([1 + 2j, 3]), Tensor(np.complex64(1 - 1j)), Tensor([1, 2], ms.complex64),
            Tensor(np.array([0.5, -1.0]), ms.complex128), Tensor(_cx_Z).asnumpy(), Tensor(_cx_Z)[0, 1].item(),
            Tensor(_cx_Z[0]).tolist())


@case("ms.complex64", "ms.complex128", inputs=[], graph=False, reason="the printed forms (strings)")
def complex_repr():
    big = np.arange(12).reshape(3, 4).astype(np.complex128) * (1 + 0.5j)
    return (repr(Tensor(_cx_Z)), repr(Tensor(big)), repr(Tensor(np.complex64(1 + 2j))), repr(Tensor(_cx_EDGE_Z)),
            str(Tensor(_cx_Z)), repr(Tensor(np.zeros((0, 2), np.complex64))))


# ---- promotion and Cast ------------------------------------------------------------------------------
@case("ms.complex64", "ms.complex128", "ops.add", inputs=[_cx_Z, _cx_Z128, _cx_F, _cx_F64, _cx_I, _cx_B])
def complex_promotion(z, z128, f, f64, i, b):
    return (z + f, f64 + z, z + i, b + z, z128 + f, z + z128, z + 1.5, z * 2, z - True,
            ops.cast(f, ms.float16) + z)


@case("ops.cast", inputs=[_cx_EDGE_Z, _cx_F, _cx_I, _cx_B])
def complex_cast(z, f, i, b):
    return (ops.cast(z, ms.float32), ops.cast(z, ms.float64), ops.cast(z, ms.float16), ops.cast(z, ms.bool_),
            ops.cast(z, ms.complex128), ops.cast(f, ms.complex64), ops.cast(f, ms.complex128),
            ops.cast(i, ms.complex64), ops.cast(b, ms.complex64), ops.cast(ops.cast(f, ms.complex64), ms.float32))


@case("ops.cast", inputs=[np.array([np.nan + 1j, 2.7 - 1j, -2.7 + 5j], np.complex64)])
def complex_cast_int(z):
    return ops.cast(z[1:], ms.int32), ops.cast(z[1:], ms.int64), ops.cast(z[1:], ms.uint8)


@case("Tensor.astype", inputs=[_cx_Z])
def complex_astype(z):
    return z.astype(ms.float32), z.astype(ms.complex128)


# ---- elementwise -------------------------------------------------------------------------------------
@case("ops.add", "ops.sub", "ops.mul", "ops.div", "ops.neg", "ops.square", "ops.equal", "ops.not_equal",
      inputs=[_cx_Z, _cx_W])
def complex_arith(z, w):
    return (ops.add(z, w), ops.sub(z, w), ops.mul(z, w), ops.div(z, w), ops.neg(z), ops.square(z),
            ops.equal(z, w), ops.not_equal(z, z), z / 2, -z * w + z, ops.true_divide(w, z))


@case("ops.exp", "ops.log", "ops.sqrt", "ops.rsqrt", "ops.sin", "ops.cos", "ops.tanh", "ops.reciprocal",
      "ops.sigmoid", "ops.pow", "ops.abs", inputs=[_cx_Z])
def complex_transcendental(z):
    return (ops.exp(z), ops.log(z), ops.sqrt(z), ops.rsqrt(z), ops.sin(z), ops.cos(z), ops.tanh(z),
            ops.reciprocal(z), ops.sigmoid(z), ops.pow(z, 2.0), ops.abs(z))


@case("ops.tan", "ops.sinh", "ops.cosh", "ops.asin", "ops.acos", "ops.atan", "ops.asinh", "ops.acosh",
      "ops.atanh", "ops.expm1", "ops.log1p", "ops.log2", inputs=[_cx_Z128])
def complex_math(z):
    return (ops.tan(z), ops.sinh(z), ops.cosh(z), ops.asin(z), ops.acos(z), ops.atan(z), ops.asinh(z),
            ops.acosh(z), ops.atanh(z), ops.expm1(z), ops.log1p(z), ops.log2(z))


@case("ops.tanh", "ops.exp", "ops.mul", inputs=[_cx_Z128, _cx_W.astype(np.complex128)])
def complex128_chain(z, w):
    return ops.tanh(z) * ops.exp(w * 0.5) - z / (w + 1), ops.pow(z, w)


@case("ops.log10", "ops.exp2", "ops.xlogy", "ops.xdivy", "ops.logical_not", inputs=[_cx_Z, _cx_W])
def complex_more(z, w):
    return ops.log10(z), ops.exp2(z), ops.xlogy(z, w), ops.xdivy(z, w), ops.logical_not(z)


_cx_REFUSED = [("less", 2), ("greater", 2), ("maximum", 2), ("minimum", 2), ("floor", 1), ("ceil", 1),
            ("relu", 1), ("isnan", 1), ("isfinite", 1), ("isinf", 1), ("erf", 1), ("softplus", 1)]
for _cx_name, _cx_arity in _cx_REFUSED:
    def _cx_refused(z, w, _cx_op=api(ops, _cx_name), _cx_arity=_cx_arity):
        return _cx_op(z, w) if _cx_arity == 2 else _cx_op(z)
    add(f"complex_refused_{_cx_name}", f"ops.{_cx_name}", _cx_refused, inputs=[_cx_Z, _cx_W], error=True)


# ---- reductions ---------------------------------------------------------------------------------------
@case("ops.sum", "ops.mean", "ops.prod", "Tensor.sum", "ops.ReduceSum", "ops.ReduceMean", inputs=[_cx_Z])
def complex_reductions(z):
    return (ops.sum(z, 1), z.sum(), ops.mean(z, 0), ops.prod(z, 1), ops.ReduceSum(keep_dims=True)(z, 1),
            ops.ReduceMean()(z), ops.addn([z, z, z]))


@case("ops.sum", "ops.exp", inputs=[(np.arange(64 * 300).reshape(64, 300) % 7 * (0.5 - 0.25j)).astype(np.complex64)])
def complex_row_sums(z):
    return ops.sum(ops.exp(z * 0.1) + 1, 1, keepdim=True) - z, ops.sum(z * z, 0)


@case("ops.amax", inputs=[_cx_Z], error=True)
def complex_refused_amax(z):
    return ops.amax(z, 0)


# ---- data movement -----------------------------------------------------------------------------------
@case("ops.reshape", "ops.transpose", "ops.concat", "ops.stack", "ops.gather", "ops.broadcast_to", "ops.tile",
      "ops.expand_dims", "ops.squeeze", "ops.flip", "ops.where", "ops.masked_select", inputs=[_cx_Z, _cx_W, _cx_B])
def complex_layout(z, w, b):
    return (ops.reshape(z, (3, 2)), ops.transpose(z, (1, 0)), ops.concat((z, w), 1), ops.stack((z, w)),
            ops.gather(z, Tensor(np.array([2, 0], np.int32)), 1), ops.broadcast_to(z, (2, 2, 3)), ops.tile(z, (2, 1)),
            ops.expand_dims(z, 0), ops.squeeze(z[:1]), ops.flip(z, (1,)), ops.where(b, z, w), z[1:, ::2], z.T)


@case("ops.masked_select", "ops.nonzero", inputs=[_cx_Z, _cx_B], graph=False, reason="data-dependent shapes")
def complex_masked(z, b):
    return ops.masked_select(z, b), ops.nonzero(z)


@case("ops.pad", "ops.Padding", "ops.matrix_band_part", inputs=[_cx_Z, _cx_Z128[:, :1]])
def complex_pad_band(z, col):
    return (ops.pad(z, (1, 2)), ops.Padding(4)(col), ops.matrix_band_part(z, 0, 1),
            ops.matrix_band_part(ops.reshape(ops.concat((z, z), 0), (2, 2, 3)), 1, 0))


# ---- the complex ops ---------------------------------------------------------------------------------
@case("ops.real", "ops.imag", "ops.conj", "ops.angle", "Tensor.angle", "ops.view_as_real", "ops.Real", "ops.Imag",
      "ops.Conj", "ops.Angle", "ops.ComplexAbs", "ops.isreal", inputs=[_cx_EDGE_Z, _cx_Z128])
def complex_parts(z, z128):
    return (ops.real(z), ops.imag(z), ops.conj(z), ops.angle(z), z.angle(), ops.view_as_real(z),
            ops.Real()(z128), ops.Imag()(z128), ops.Conj()(z128), ops.Angle()(z128), ops.ComplexAbs()(z),
            ops.ComplexAbs()(z128), ops.isreal(z))


@case("ops.real", "ops.imag", "ops.conj", "Tensor.real", "Tensor.imag", "Tensor.conj", inputs=[_cx_F, _cx_I])
def complex_parts_of_reals(f, i):
    return ops.real(f), ops.imag(f), ops.conj(f), ops.real(i), ops.imag(i), f.real(), f.imag(), f.conj()


@case("ops.is_complex", "Tensor.is_complex", "ops.is_floating_point", inputs=[_cx_Z, _cx_F], graph=False,
      reason="Python bools")
def complex_predicates(z, f):
    return ops.is_complex(z), z.is_complex(), ops.is_complex(f), ops.is_floating_point(z)


@case("ops.Complex", "ops.polar", "ops.Polar", inputs=[_cx_F, _cx_F[::-1].copy(), _cx_F64, _cx_F64[::-1].copy()])
def complex_build(a, b, a64, b64):
    return ops.Complex()(a, b), ops.Complex()(a64, b64), ops.polar(a, b), ops.Polar()(a64, b64)


@case("ops.Complex", inputs=[np.array([np.inf, -0.0, np.nan], np.float32), np.array([1.0, np.inf, 0.0], np.float32)])
def complex_build_edges(a, b):
    return ops.Complex()(a, b)


def _cx_angle_of_float(z, f, i):
    return ops.angle(f)


def _cx_complexabs_of_float(z, f, i):
    return ops.ComplexAbs()(f)


def _cx_complex_of_ints(z, f, i):
    return ops.Complex()(i, i)


def _cx_complex_mixed(z, f, i):
    return ops.Complex()(f, ops.cast(f, ms.float64))


def _cx_polar_of_ints(z, f, i):
    return ops.polar(i, i)


def _cx_polar_mixed(z, f, i):
    return ops.polar(f, ops.cast(f, ms.float64))


def _cx_view_as_real_of_float(z, f, i):
    return ops.view_as_real(f)


for _cx_name, _cx_fn in (("ops.angle", _cx_angle_of_float), ("ops.ComplexAbs", _cx_complexabs_of_float),
                         ("ops.Complex", _cx_complex_of_ints), ("ops.Complex", _cx_complex_mixed),
                         ("ops.polar", _cx_polar_of_ints), ("ops.polar", _cx_polar_mixed),
                         ("ops.view_as_real", _cx_view_as_real_of_float)):
    add(f"complex_refused{_cx_fn.__name__[3:]}", _cx_name, _cx_fn, inputs=[_cx_Z, _cx_F, _cx_I], error=True)


# ---- gradients (MindSpore's convention: g * conj(f'(z))) -----------------------------------------------
_cx_GRAD = ops.GradOperation(get_all=True, sens_param=True)
_cx_S = np.array([[1 + 1j, 2 - 1j, -0.5 + 0.5j], [0.25 + 0j, 1j, -1 - 1j]], np.complex64)
_cx_SF = np.array([[1.0, 2.0, -0.5], [0.25, 3.0, -1.0]], np.float32)


def _cx_holomorphic(z):
    return ops.tanh(z) + ops.exp(z) * 0.5 - ops.sqrt(z) + ops.log(z) + ops.sin(z) - ops.cos(z) + ops.sigmoid(z)


def _cx_to_real(z):
    return ops.real(z) * 2 + ops.imag(z) - ops.angle(z) + ops.ComplexAbs()(z)


def _cx_conj_neg(z):
    return -ops.conj(z) + ops.reciprocal(z)


def _cx_build(a, b):
    return ops.Complex()(a, b) + ops.polar(a, b)


@case("ops.GradOperation", "ops.tanh", "ops.exp", "ops.sqrt", "ops.log", "ops.sin", "ops.cos", "ops.sigmoid",
      inputs=[_cx_Z, _cx_S])
def complex_grad_holomorphic(z, s):
    return _cx_GRAD(_cx_holomorphic)(z, s)


@case("ops.GradOperation", "ops.real", "ops.imag", "ops.angle", "ops.ComplexAbs", "ops.conj", "ops.reciprocal",
      inputs=[_cx_Z, _cx_SF, _cx_S])
def complex_grad_parts(z, sf, s):
    return _cx_GRAD(_cx_to_real)(z, sf), _cx_GRAD(_cx_conj_neg)(z, s)


@case("ops.GradOperation", "ops.Complex", "ops.polar", inputs=[_cx_F + 2.5, _cx_F[::-1].copy(), _cx_S])
def complex_grad_build(a, b, s):
    return _cx_GRAD(_cx_build)(a, b, s)


# ---- the FFT family ----------------------------------------------------------------------------------
_cx_X = (np.random.default_rng(5).standard_normal((3, 4)) + 1j * np.random.default_rng(6).standard_normal((3, 4)))
_cx_R = np.random.default_rng(7).standard_normal((4, 6)).astype(np.float32)


@case("ops.fft", "ops.ifft", "ops.rfft", "ops.irfft", "ops.hfft", "ops.ihfft", inputs=[_cx_X.astype(np.complex64), _cx_R])
def complex_fft_1d(x, r):
    return (ops.fft(x), ops.fft(x, 6, 0, "ortho"), ops.ifft(x, 3), ops.ifft(x, norm="forward"), ops.rfft(r),
            ops.rfft(r, 5, 0, "forward"), ops.irfft(x), ops.irfft(x, 7, 0, "ortho"), ops.hfft(x), ops.hfft(x, 5),
            ops.ihfft(r), ops.ihfft(r, 4, 0, "ortho"))


@case("ops.fft2", "ops.ifft2", "ops.rfft2", "ops.irfft2", "ops.hfft2", "ops.ihfft2", "ops.fftn", "ops.ifftn",
      "ops.rfftn", "ops.irfftn", "ops.hfftn", "ops.ihfftn", inputs=[_cx_X, _cx_R.astype(np.float64)])
def complex_fft_nd(x, r):
    return (ops.fft2(x), ops.ifft2(x, (2, 5)), ops.rfft2(r), ops.irfft2(x), ops.irfft2(x, (3, 5)), ops.hfft2(x),
            ops.ihfft2(r), ops.fftn(x, dim=(0,)), ops.ifftn(x, norm="ortho"), ops.rfftn(r, (3, 4)), ops.irfftn(x),
            ops.hfftn(x), ops.ihfftn(r))


@case("ops.fft", "ops.rfft", "ops.irfft", inputs=[np.arange(6).reshape(2, 3).astype(np.int32),
                                                  np.arange(6).reshape(2, 3).astype(np.float16)])
def complex_fft_real_inputs(i, h):
    return ops.fft(i), ops.rfft(h), ops.irfft(ops.fft(i)), ops.fft(ops.cast(i, ms.float64))


@case("ops.fft", inputs=[np.array([True, False])], error=True)
def complex_refused_fft_bool(b):
    return ops.fft(b)


@case("ops.fftshift", "ops.ifftshift", inputs=[_cx_R])
def complex_fftshift(r):
    return ops.fftshift(r), ops.ifftshift(r), ops.fftshift(r, 1), ops.ifftshift(r, (0,))


@case("ops.fftfreq", "ops.rfftfreq", inputs=[], graph=False, reason="creation from Python numbers")
def complex_fftfreq():
    return ops.fftfreq(5), ops.fftfreq(8, 0.1), ops.rfftfreq(5), ops.rfftfreq(6, 0.5), ops.fftfreq(4, dtype=ms.float64)


@case("ops.FFTWithSize", inputs=[_cx_X.astype(np.complex64), np.arange(24, dtype=np.float64).reshape(1, 2, 3, 4)])
def complex_fft_with_size(x, r):
    return (ops.FFTWithSize(1, False, False)(x), ops.FFTWithSize(2, True, False, "ortho")(x),
            ops.FFTWithSize(3, False, True)(r), ops.FFTWithSize(2, True, True, signal_sizes=(3, 6))(x),
            ops.FFTWithSize(1, False, True, "forward", False)(r), ops.FFTWithSize(2, True, True)(x))


@case("ops.stft", "ops.STFT", inputs=[(np.arange(20, dtype=np.float32).reshape(2, 10) % 7),
                                      np.array([1.0, 2.0, 3.0], np.float32)], graph=False,
      reason="MindSpore's GRAPH_MODE cannot take stft's window=None default through jit")
def complex_stft(x, w):
    return (ops.stft(x, 4), ops.stft(x, 4, center=False), ops.stft(x, 4, 2, 3, w, True, "REFLECT", True, True, True),
            ops.stft(x[0], 6, hop_length=3, return_complex=True), ops.stft(x, 4, window=ops.ones(4, ms.float32),
                                                                             onesided=False),
            ops.STFT(4, 1, 4, False, True, True)(x, ops.ones(4, ms.float32)))


@case("ops.stft", inputs=[np.full((2, 6), 1 + 1j, np.complex64), np.array([1j, 1j, 1j, 1j], np.complex128)],
      graph=False, reason="as complex_stft")
def complex_stft_complex(x, w):
    return (ops.stft(x, 4, window=w, center=False, onesided=False, return_complex=True),
            ops.stft(x, 4, window=ops.real(w) + 1, center=False, return_complex=True, normalized=True))


def _cx_fft_loss(a, b):
    return ops.real(ops.fft2(ops.Complex()(a, b))) + ops.irfft(ops.rfft(a), 4)


@case("ops.GradOperation", "ops.fft2", "ops.rfft", "ops.irfft", inputs=[_cx_R[:3, :4].copy(), _cx_R[1:, 2:].copy(),
                                                                         _cx_R[:3, 2:].copy()])
def complex_grad_fft(a, b, s):
    return _cx_GRAD(_cx_fft_loss)(a, b, s)
