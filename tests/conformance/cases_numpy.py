"""The conformance table: `mindspore.numpy` (`mnp`, bound to `mindspore.numpy` / `pycompile.numpy`),
part 1: array creation, elementwise math, comparisons and logic, dtypes. Names are spelled
"numpy.<name>". Part of the table loaded after cases.py; cases_numpy_shape.py has the rest."""
group("numpy")

_SPECIAL = np.array([0.0, -0.0, 1.5, -2.25, np.inf, -np.inf, np.nan, 3.0], np.float32)


# ---- creation ------------------------------------------------------------------------------------------
@case("numpy.array", "numpy.asarray", "numpy.asfarray", inputs=[rnd(2, 3)])
def np_array_forms(x):
    return (mnp.array([1, 2, 3]), mnp.array([1.0, 2.5]), mnp.array([[True, False]]), mnp.array(x),
            mnp.array(x, dtype=mnp.float16), mnp.array(3), mnp.array(2.5), mnp.array([1, 2], ndmin=3),
            mnp.asarray([1, 2]), mnp.asarray((1.0, 2.0)), mnp.asarray(x, mnp.int32),
            mnp.asfarray([1, 2]), mnp.asfarray(x, mnp.float16))


@case("numpy.zeros", "numpy.ones", "numpy.full", "numpy.empty", inputs=[rnd(2)])
def np_filled(x):
    return (mnp.zeros((2, 3)), mnp.zeros(4, mnp.int32), mnp.ones((2, 2)), mnp.ones(3, dtype=mnp.bool_),
            mnp.full((2, 3), 7), mnp.full((2,), 1.5), mnp.full((2, 2), True), mnp.full(3, 2, mnp.float16),
            mnp.empty((2, 3)).shape, mnp.empty(3, mnp.int32).dtype)


@case("numpy.zeros_like", "numpy.ones_like", "numpy.full_like", "numpy.empty_like",
      inputs=[rnd(2, 3), ints(3)])
def np_like(x, i):
    return (mnp.zeros_like(x), mnp.ones_like(i), mnp.full_like(x, 3), mnp.full_like(i, 2.7),
            mnp.zeros_like(x, dtype=mnp.int32), mnp.ones_like(x, shape=(3, 1)), mnp.full_like(i, 1, mnp.float32),
            mnp.empty_like(x).shape, mnp.empty_like(i, dtype=mnp.float32).dtype)


@case("numpy.arange", inputs=[rnd(2)])
def np_arange(x):
    return (mnp.arange(5), mnp.arange(1, 4), mnp.arange(0, 1, 0.25), mnp.arange(2.0, 5.0),
            mnp.arange(5, dtype=mnp.float32), mnp.arange(10, 0, -3), mnp.arange(0, 5, 2, mnp.float16))


@case("numpy.linspace", "numpy.logspace", "numpy.geomspace", inputs=[rnd(2)])
def np_spaces(x):
    return (mnp.linspace(0, 1, 5), mnp.linspace(2, 3, 4, endpoint=False), mnp.linspace(0, 10, 3, dtype=mnp.int32),
            mnp.linspace(0, 1, 1), mnp.logspace(0, 2, 3), mnp.logspace(0, 3, 4, base=2.0),
            mnp.geomspace(1, 1000, 4), mnp.geomspace(1, 16, 5, endpoint=False))


@case("numpy.linspace", inputs=[rnd(2)])
def np_linspace_retstep(x):
    return mnp.linspace(0, 1, 5, retstep=True)


@case("numpy.eye", "numpy.identity", "numpy.tri", inputs=[rnd(2)])
def np_eye_tri(x):
    return (mnp.eye(3), mnp.eye(2, 4, 1), mnp.eye(3, k=-1, dtype=mnp.int32), mnp.identity(3),
            mnp.identity(2, mnp.int32), mnp.tri(3), mnp.tri(3, 4, 1), mnp.tri(2, k=-1, dtype=mnp.int32))


@case("numpy.tril", "numpy.triu", inputs=[rnd(4, 4), rnd(2, 3, 4)])
def np_tril_triu(x, y):
    return mnp.tril(x), mnp.triu(x), mnp.tril(x, 1), mnp.triu(x, -1), mnp.tril(y), mnp.triu(y, 2)


@case("numpy.diag", "numpy.diagflat", "numpy.diagonal", "numpy.trace", inputs=[rnd(3, 4), rnd(3)])
def np_diag(m, v):
    return (mnp.diag(m), mnp.diag(m, 1), mnp.diag(m, -1), mnp.diag(v), mnp.diag(v, 1), mnp.diagflat(v),
            mnp.diagflat(m[:2, :2], -1), mnp.diagonal(m), mnp.diagonal(m, 1), mnp.trace(m), mnp.trace(m, -1))


@case("numpy.meshgrid", inputs=[rnd(3), rnd(2)])
def np_meshgrid(a, b):
    return mnp.meshgrid(a, b), mnp.meshgrid(a, b, indexing="ij"), mnp.meshgrid(a, b, sparse=True)


@case("numpy.vander", "numpy.tril_indices", "numpy.triu_indices", "numpy.diag_indices", "numpy.indices",
      inputs=[rnd(3)])
def np_index_builders(x):
    return (mnp.vander(x), mnp.vander(x, 2, increasing=True), mnp.tril_indices(3), mnp.triu_indices(3, 1),
            mnp.tril_indices(3, 0, 4), mnp.diag_indices(3), mnp.indices((2, 3)))


@case("numpy.tril_indices_from", "numpy.triu_indices_from", inputs=[rnd(3, 3)])
def np_indices_from(x):
    return mnp.tril_indices_from(x), mnp.triu_indices_from(x, 1)


@case("numpy.bartlett", "numpy.blackman", "numpy.hamming", "numpy.hanning", inputs=[rnd(2)])
def np_windows(x):
    return mnp.bartlett(5), mnp.blackman(6), mnp.hamming(5), mnp.hanning(4), mnp.hamming(1)


# ---- elementwise math ----------------------------------------------------------------------------------
@case("numpy.add", "numpy.subtract", "numpy.multiply", "numpy.divide", "numpy.true_divide", "numpy.power",
      inputs=[rnd(2, 3), rnd(3, lo=0.5, hi=2)])
def np_arith(x, y):
    return (mnp.add(x, y), mnp.subtract(x, y), mnp.multiply(x, y), mnp.divide(x, y), mnp.true_divide(x, y),
            mnp.power(mnp.abs(x), y), mnp.add(x, 1), mnp.subtract(2.5, y), mnp.add(x, y, dtype=mnp.int32))


@case("numpy.add", "numpy.subtract", "numpy.multiply", "numpy.divide", "numpy.power",
      inputs=[ints(2, 3, lo=1, hi=6), ints(3, lo=1, hi=3)])
def np_arith_int(i, j):
    return mnp.add(i, j), mnp.subtract(i, j), mnp.multiply(i, j), mnp.divide(i, j), mnp.power(i, j)


@case("numpy.floor_divide", "numpy.remainder", "numpy.mod", "numpy.fmod", "numpy.divmod",
      inputs=[rnd(2, 3, lo=-5, hi=5), rnd(2, 3, lo=0.5, hi=2)])
def np_divisions(x, y):
    return (mnp.floor_divide(x, y), mnp.remainder(x, y), mnp.mod(x, y), mnp.fmod(x, y), mnp.divmod(x, y),
            mnp.fmod(x, -y), mnp.remainder(x, -y))


@case("numpy.floor_divide", "numpy.remainder", "numpy.fmod", inputs=[ints(2, 3, lo=-7, hi=7), ints(2, 3, lo=1, hi=4)])
def np_divisions_int(i, j):
    return mnp.floor_divide(i, j), mnp.remainder(i, j), mnp.fmod(i, j), mnp.remainder(i, -j)


@case("numpy.sqrt", "numpy.exp", "numpy.log", "numpy.abs", "numpy.absolute", "numpy.square",
      "numpy.negative", "numpy.positive", "numpy.reciprocal", "numpy.cbrt", inputs=[rnd(2, 3, lo=0.1, hi=3), rnd(3)])
def np_unary_basic(p, x):
    return (mnp.sqrt(p), mnp.exp(x), mnp.log(p), mnp.abs(x), mnp.absolute(x), mnp.square(x), mnp.negative(x),
            mnp.positive(x), mnp.reciprocal(p), mnp.cbrt(x), mnp.cbrt(p))


@case("numpy.exp2", "numpy.expm1", "numpy.log10", "numpy.log1p", "numpy.log2", inputs=[rnd(2, 3, lo=0.1, hi=3)])
def np_unary_logs(p):
    return mnp.exp2(p), mnp.expm1(p), mnp.log10(p), mnp.log1p(p), mnp.log2(p)


@case("numpy.sin", "numpy.cos", "numpy.tan", "numpy.arcsin", "numpy.arccos", "numpy.arctan", "numpy.sinh",
      "numpy.cosh", "numpy.tanh", "numpy.arcsinh", "numpy.arctanh", "numpy.arccosh",
      inputs=[rnd(2, 3, lo=-0.9, hi=0.9), rnd(3, lo=1.1, hi=3)])
def np_trig(x, g):
    return (mnp.sin(x), mnp.cos(x), mnp.tan(x), mnp.arcsin(x), mnp.arccos(x), mnp.arctan(x), mnp.sinh(x),
            mnp.cosh(x), mnp.tanh(x), mnp.arcsinh(x), mnp.arctanh(x), mnp.arccosh(g))


@case("numpy.arctan2", "numpy.hypot", "numpy.logaddexp", "numpy.logaddexp2", "numpy.copysign", "numpy.heaviside",
      "numpy.float_power", inputs=[rnd(2, 3), rnd(2, 3)])
def np_binary_float(x, y):
    return (mnp.arctan2(x, y), mnp.hypot(x, y), mnp.logaddexp(x, y), mnp.logaddexp2(x, y), mnp.copysign(x, y),
            mnp.heaviside(x, y), mnp.float_power(mnp.abs(x), y))


@case("numpy.floor", "numpy.ceil", "numpy.trunc", "numpy.rint", "numpy.fix", "numpy.sign", "numpy.fabs",
      "numpy.signbit", inputs=[rnd(2, 4, lo=-3, hi=3)])
def np_rounding(x):
    return (mnp.floor(x), mnp.ceil(x), mnp.trunc(x), mnp.rint(x), mnp.fix(x), mnp.sign(x), mnp.fabs(x),
            mnp.signbit(x), mnp.rint(mnp.array([0.5, 1.5, 2.5, -0.5])))


@case("numpy.sign", "numpy.abs", "numpy.square", "numpy.negative", inputs=[ints(2, 3, lo=-3, hi=3)])
def np_unary_int(i):
    return mnp.sign(i), mnp.abs(i), mnp.square(i), mnp.negative(i)


@case("numpy.deg2rad", "numpy.rad2deg", "numpy.radians", inputs=[rnd(2, 3, lo=-200, hi=200)])
def np_angles(x):
    return mnp.deg2rad(x), mnp.rad2deg(x), mnp.radians(x)


@case("numpy.maximum", "numpy.minimum", "numpy.clip", inputs=[rnd(2, 3), rnd(3)])
def np_minmax(x, y):
    return (mnp.maximum(x, y), mnp.minimum(x, y), mnp.maximum(x, 0.5), mnp.clip(x, -0.5, 0.5),
            mnp.clip(x, None, 1.0), mnp.clip(x, -1, None), mnp.clip(x, y, 1.0))


@case("numpy.maximum", "numpy.minimum", inputs=[_SPECIAL, _SPECIAL[::-1].copy()])
def np_minmax_nan(x, y):
    return mnp.maximum(x, y), mnp.minimum(x, y)


@case("numpy.gcd", "numpy.lcm", inputs=[ints(2, 3, lo=1, hi=30), ints(2, 3, lo=1, hi=30)])
def np_gcd_lcm(i, j):
    return mnp.gcd(i, j), mnp.lcm(i, j)


@case("numpy.bitwise_and", "numpy.bitwise_or", "numpy.bitwise_xor", "numpy.bitwise_not", "numpy.invert",
      inputs=[ints(2, 3, lo=0, hi=16), ints(2, 3, lo=0, hi=16)])
def np_bitwise(i, j):
    return (mnp.bitwise_and(i, j), mnp.bitwise_or(i, j), mnp.bitwise_xor(i, j), mnp.bitwise_not(i),
            mnp.invert(j))


# ---- comparisons and logic -----------------------------------------------------------------------------
@case("numpy.equal", "numpy.not_equal", "numpy.less", "numpy.less_equal", "numpy.greater", "numpy.greater_equal",
      inputs=[ints(2, 3), ints(3)])
def np_compare(i, j):
    return (mnp.equal(i, j), mnp.not_equal(i, j), mnp.less(i, j), mnp.less_equal(i, j), mnp.greater(i, j),
            mnp.greater_equal(i, j), mnp.equal(i, 2))


@case("numpy.isnan", "numpy.isinf", "numpy.isfinite", "numpy.isposinf", "numpy.isneginf", inputs=[_SPECIAL])
def np_isnan(x):
    return mnp.isnan(x), mnp.isinf(x), mnp.isfinite(x), mnp.isposinf(x), mnp.isneginf(x)


@case("numpy.logical_and", "numpy.logical_or", "numpy.logical_xor", "numpy.logical_not",
      inputs=[bools(2, 3), bools(2, 3)])
def np_logical(a, b):
    return mnp.logical_and(a, b), mnp.logical_or(a, b), mnp.logical_xor(a, b), mnp.logical_not(a)


@case("numpy.array_equal", "numpy.array_equiv", "numpy.isclose", inputs=[rnd(2, 3), rnd(3)])
def np_array_equal(x, y):
    return (mnp.array_equal(x, x), mnp.array_equal(x, y), mnp.array_equiv(x[0], x[0:1]), mnp.array_equiv(x, y),
            mnp.isclose(x, x + 1e-7), mnp.isclose(x, y), mnp.isclose(x, y, atol=2.0))


@case("numpy.isclose", inputs=[_SPECIAL, _SPECIAL[::-1].copy()])
def np_isclose_nan(x, y):
    return mnp.isclose(x, x), mnp.isclose(x, x, equal_nan=True), mnp.isclose(x, y)


@case("numpy.where", inputs=[bools(2, 3), rnd(2, 3), rnd(3)])
def np_where(c, x, y):
    return mnp.where(c, x, y), mnp.where(c, x, 0.0), mnp.where(c, 1, 2)


@case("numpy.in1d", "numpy.isin", inputs=[ints(2, 4, lo=0, hi=8), ints(3, lo=0, hi=8)])
def np_isin(a, b):
    return mnp.in1d(a, b), mnp.isin(a, b), mnp.isin(a, b, invert=True), mnp.in1d(a, b, invert=True)


# ---- dtypes ---------------------------------------------------------------------------------------------
@case("numpy.float16", "numpy.float32", "numpy.float64", "numpy.int8", "numpy.int16", "numpy.int32",
      "numpy.int64", "numpy.uint8", "numpy.uint16", "numpy.uint32", "numpy.uint64", "numpy.bool_",
      "numpy.float_", "numpy.int_", inputs=[rnd(3)])
def np_dtype_aliases(x):
    return (mnp.float16, mnp.float32, mnp.float64, mnp.int8, mnp.int16, mnp.int32, mnp.int64, mnp.uint8,
            mnp.uint16, mnp.uint32, mnp.uint64, mnp.bool_, mnp.float_, mnp.int_, mnp.zeros(2, mnp.float_))


@case("numpy.promote_types", "numpy.result_type", inputs=[rnd(3), ints(3)], graph=False,
      reason="dtype arithmetic on Python values")
def np_promote(x, i):
    return (mnp.promote_types(mnp.float16, mnp.float32), mnp.promote_types(mnp.int32, mnp.float16),
            mnp.promote_types(mnp.bool_, mnp.int8), mnp.result_type(x, i), mnp.result_type(i, mnp.int64))


@case("numpy.isscalar", "numpy.size", inputs=[rnd(2, 3)], graph=False, reason="Python values")
def np_queries(x):
    return mnp.isscalar(3), mnp.isscalar(x), mnp.size(x), mnp.size(x, 1)


# ---- errors ---------------------------------------------------------------------------------------------
@case("numpy.add", inputs=[rnd(2, 3), rnd(4)], error=True)
def np_add_bad_broadcast(x, y):
    return mnp.add(x, y)


@case("numpy.zeros", inputs=[rnd(2)], error=True)
def np_zeros_negative(x):
    return mnp.zeros((2, -1))


@case("numpy.arange", inputs=[rnd(2)], error=True, graph=False,
      reason="MindSpore's graph mode raises ValueError where PyNative raises ZeroDivisionError")
def np_arange_zero_step(x):
    return mnp.arange(0, 5, 0)


@case("numpy.var", "numpy.std", "numpy.average", "numpy.fabs", "numpy.exp2", "numpy.trace", "numpy.nansum",
      "numpy.sqrt", "numpy.cbrt", "numpy.reciprocal", "numpy.hypot", "numpy.nanmean", "numpy.ptp", "numpy.cov",
      "numpy.cumsum", "numpy.matmul", inputs=[np.array([[1, 2, 3], [4, 5, 6]], np.int32), bools(3)])
def np_int_inputs(i, b):
    """Integer (and bool) inputs: mindspore.numpy's result dtypes (var / std from the int mean)."""
    return (mnp.var(i), mnp.std(i), mnp.var(i, 1), mnp.average(i), mnp.average(i, 0), mnp.fabs(i), mnp.exp2(i),
            mnp.trace(i), mnp.nansum(i), mnp.sqrt(i), mnp.cbrt(i), mnp.reciprocal(i), mnp.hypot(i, i),
            mnp.nanmean(i), mnp.ptp(i), mnp.cov(i), mnp.cumsum(b), mnp.matmul(i, mnp.transpose(i)))


@case("numpy.mean", "numpy.std", "numpy.sum", "numpy.divide", inputs=[rnd(2, 3, dtype="float16")])
def np_float16_inputs(h):
    return mnp.mean(h), mnp.std(h), mnp.sum(h), mnp.divide(h, 2), mnp.mean(h, 1)


@case("numpy.add", "numpy.subtract", "numpy.power", "numpy.minimum", "numpy.maximum", "numpy.less", "numpy.equal",
      "numpy.where", "numpy.clip", "numpy.remainder", "numpy.floor_divide", "numpy.fmod", "numpy.true_divide",
      "numpy.heaviside", "numpy.copysign",
      inputs=[np.array([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]], np.float16), np.array([[1, 2, 3], [4, 5, 6]], np.int32)])
def np_scalar_operands(x, i):
    """Python numbers become int32 / float32 tensors and promote as tensors (float16 + 1.5 is
    float32); maximum / minimum / clip cast them to the tensor's dtype (int32 vs 2.5 compares with 2)."""
    return (mnp.add(i, 1.5), mnp.subtract(2.5, i), mnp.power(i, 0.5), mnp.minimum(i, 2.5), mnp.add(x, 1.5),
            mnp.add(x, 2), mnp.maximum(x, 2.5), mnp.less(i, 2.5), mnp.equal(i, 2.0), mnp.where(i > 2, i, 7),
            mnp.where(i > 2, 1.5, i), mnp.where(x > 0, x, 0.5), mnp.where(i > 2, x, i), mnp.clip(x, 1, 2),
            mnp.clip(i, 1.5, 4.5), mnp.remainder(i, 2.5), mnp.floor_divide(i, 2.5), mnp.fmod(i, 2.5),
            mnp.true_divide(i, 2.5), mnp.heaviside(i, 0.5), mnp.copysign(i, -1), mnp.copysign(x, -1))
