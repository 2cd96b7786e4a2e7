"""The conformance table: ops declared as op entries (src/pycompile/ops/entries/, one definition
giving the functional, Primitive and Tensor forms). Each op has a case per form MindSpore has,
edge values (0, -0, inf, nan) where they matter, an integer input and a bad input.
Part of the table loaded after cases.py."""
group("entries")

_EDGE = np.array([0.0, -0.0, 1.5, -2.25, np.inf, -np.inf, np.nan, 1e-30, 88.0, -100.0], np.float32)
_EDGE2 = np.array([-0.0, 0.0, -3.0, 2.0, 1.0, np.inf, 2.0, -1e-30, 89.0, np.nan], np.float32)


# ---- binary math -------------------------------------------------------------------------------------
@case("ops.logaddexp", inputs=[rnd(3, 4, lo=-5, hi=5), rnd(4, lo=-5, hi=5)])
def logaddexp_broadcast(x, y):
    return ops.logaddexp(x, y)


@case("ops.logaddexp", "Tensor.logaddexp", inputs=[_EDGE, _EDGE2])
def logaddexp_edges(x, y):
    return ops.logaddexp(x, y), x.logaddexp(y)


@case("ops.logaddexp2", "Tensor.logaddexp2", inputs=[_EDGE, _EDGE2])
def logaddexp2_edges(x, y):
    return ops.logaddexp2(x, y), x.logaddexp2(y)


@case("ops.logaddexp2", inputs=[rnd(2, 3, dtype="float16"), rnd(2, 3, dtype="float16")])
def logaddexp2_f16(x, y):
    return ops.logaddexp2(x, y)


@case("ops.logaddexp", inputs=[ints(2, 3), ints(2, 3)], error=True)
def logaddexp_int(x, y):
    return ops.logaddexp(x, y)


@case("ops.hypot", "ops.Hypot", "Tensor.hypot", inputs=[_EDGE, _EDGE2])
def hypot_edges(x, y):
    return ops.hypot(x, y), ops.Hypot()(x, y), x.hypot(y)


@case("ops.hypot", inputs=[ints(2, 3), ints(2, 3)], error=True)
def hypot_int(x, y):
    return ops.hypot(x, y)


@case("ops.xlogy", "ops.Xlogy", "Tensor.xlogy", inputs=[_EDGE, np.abs(_EDGE2)])
def xlogy_edges(x, y):
    return ops.xlogy(x, y), ops.Xlogy()(x, y), x.xlogy(y)


@case("ops.xlogy", inputs=[ints(2, 3), rnd(2, 3, lo=0.1, hi=3)])
def xlogy_int_float(x, y):
    return ops.xlogy(x, y)


@case("ops.xdivy", "ops.Xdivy", "Tensor.xdivy", inputs=[_EDGE, _EDGE2])
def xdivy_edges(x, y):
    return ops.xdivy(x, y), ops.Xdivy()(x, y), x.xdivy(y)


@case("ops.copysign", "Tensor.copysign", inputs=[_EDGE, _EDGE2])
def copysign_edges(x, y):
    return ops.copysign(x, y), x.copysign(y), ops.copysign(x, -1.0)


@case("ops.copysign", inputs=[ints(2, 3, lo=-3, hi=3), rnd(2, 3)])
def copysign_int(x, y):
    return ops.copysign(x, y)


@case("ops.heaviside", "ops.Heaviside", "Tensor.heaviside", inputs=[_EDGE, _EDGE2])
def heaviside_edges(x, v):
    return ops.heaviside(x, v), ops.Heaviside()(x, v), x.heaviside(v)


@case("ops.heaviside", inputs=[ints(2, 3, lo=-2, hi=2), ints(2, 3)])
def heaviside_int(x, v):
    return ops.heaviside(x, v)


@case("ops.float_power", "Tensor.float_power", inputs=[rnd(2, 3, lo=0.1, hi=3), rnd(2, 3)])
def float_power_tensors(x, y):
    return ops.float_power(x, y), x.float_power(y), ops.float_power(x, 2)


@case("ops.float_power", inputs=[ints(2, 3, lo=1, hi=4)])
def float_power_int(x):
    return ops.float_power(x, 2)


@case("ops.fmax", "Tensor.fmax", inputs=[_EDGE, _EDGE2])
def fmax_edges(x, y):
    return ops.fmax(x, y), x.fmax(y)


@case("ops.fmax", inputs=[ints(2, 3), ints(2, 3)])
def fmax_int(x, y):
    return ops.fmax(x, y)


@case("ops.Addcdiv", "ops.Addcmul", inputs=[rnd(2, 3), rnd(2, 3), rnd(2, 3, lo=0.5, hi=2),
                                            np.array([0.5], np.float32)])
def addcdiv_addcmul_primitives(x, a, b, v):
    return ops.Addcdiv()(x, a, b, v), ops.Addcmul()(x, a, b, v)


@case("ops.lerp", "ops.Lerp", "Tensor.lerp", inputs=[rnd(2, 3), rnd(2, 3), rnd(2, 3, lo=0, hi=1)])
def lerp_forms(x, e, w):
    return ops.lerp(x, e, w), ops.lerp(x, e, 0.25), ops.Lerp()(x, e, w), x.lerp(e, 0.75)


@case("ops.logical_xor", "ops.LogicalXor", "Tensor.logical_xor", inputs=[bools(2, 3), bools(2, 3)])
def logical_xor_forms(a, b):
    return ops.logical_xor(a, b), ops.LogicalXor()(a, b), a.logical_xor(b)


# ---- unary math --------------------------------------------------------------------------------------
@case("ops.deg2rad", "ops.rad2deg", "Tensor.deg2rad", "Tensor.rad2deg", inputs=[_EDGE])
def deg_rad_edges(x):
    return ops.deg2rad(x), ops.rad2deg(x), x.deg2rad(), x.rad2deg()


@case("ops.deg2rad", inputs=[ints(2, 3)], error=True)
def deg2rad_int(x):
    return ops.deg2rad(x)


@case("ops.sinc", "ops.Sinc", "Tensor.sinc", inputs=[_EDGE])
def sinc_edges(x):
    return ops.sinc(x), ops.Sinc()(x), x.sinc()


@case("ops.sinc", inputs=[ints(2, 3, lo=-2, hi=3)])
def sinc_int(x):
    return ops.sinc(x)


@case("ops.logit", "ops.Logit", "Tensor.logit",
      inputs=[np.array([0.0, 0.25, 0.5, 0.9, 1.0, 1.5, -0.5, np.nan], np.float32)])
def logit_edges(x):
    return ops.logit(x), ops.logit(x, eps=1e-3), ops.Logit(eps=0.1)(x), x.logit(), ops.Logit()(x)


@case("ops.frac", "Tensor.frac", inputs=[_EDGE])
def frac_edges(x):
    return ops.frac(x), x.frac()


@case("ops.frac", inputs=[ints(2, 3, lo=-5, hi=5)])
def frac_int(x):
    return ops.frac(x)


@case("ops.positive", "Tensor.positive", inputs=[rnd(2, 3)])
def positive_forms(x):
    return ops.positive(x), x.positive()


@case("ops.positive", inputs=[bools(2, 3)])
def positive_bool(x):
    return ops.positive(x)


@case("ops.exp2", "ops.log10", "Tensor.log10", inputs=[_EDGE])
def exp2_log10_edges(x):
    return ops.exp2(x), ops.log10(x), x.log10()


@case("ops.exp2", inputs=[ints(2, 3, lo=1, hi=6)])
def exp2_int(x):
    return ops.exp2(x)


@case("ops.log10", inputs=[ints(2, 3, lo=1, hi=6)], error=True)
def log10_int(x):
    return ops.log10(x)


@case("ops.sgn", "ops.signbit", "Tensor.sgn", "Tensor.signbit", inputs=[_EDGE])
def sgn_signbit_edges(x):
    return ops.sgn(x), ops.signbit(x), x.sgn(), x.signbit()


@case("ops.sgn", "ops.signbit", inputs=[ints(2, 3, lo=-3, hi=3)])
def sgn_signbit_int(x):
    return ops.sgn(x), ops.signbit(x)


@case("ops.isneginf", "ops.isposinf", "ops.isreal", "Tensor.isneginf", "Tensor.isposinf", "Tensor.isreal",
      inputs=[_EDGE])
def isinf_family(x):
    return ops.isneginf(x), ops.isposinf(x), ops.isreal(x), x.isneginf(), x.isposinf(), x.isreal()


@case("ops.is_floating_point", "ops.is_complex", "Tensor.is_floating_point", "Tensor.is_complex",
      inputs=[rnd(2, 3), ints(2, 3)], graph=False, reason="returns Python bools")
def is_floating_point_forms(x, i):
    return (ops.is_floating_point(x), ops.is_floating_point(i), ops.is_complex(x), x.is_floating_point(),
            i.is_floating_point(), x.is_complex())


# ---- aliases ---------------------------------------------------------------------------------------
@case("ops.multiply", "ops.divide", "ops.subtract", "Tensor.multiply", "Tensor.divide", "Tensor.subtract",
      inputs=[rnd(2, 3), rnd(2, 3, lo=0.5, hi=2)])
def arithmetic_aliases(x, y):
    return (ops.multiply(x, y), ops.divide(x, y), ops.subtract(x, y), ops.subtract(x, y, alpha=2),
            ops.divide(x, y, rounding_mode="floor"), ops.divide(x, y, rounding_mode="trunc"),
            x.multiply(y), x.divide(y), x.subtract(y))


@case("ops.divide", inputs=[ints(2, 3, lo=-7, hi=7), ints(2, 3, lo=1, hi=4)])
def divide_int_modes(x, y):
    return ops.divide(x, y), ops.divide(x, y, rounding_mode="floor"), ops.divide(x, y, rounding_mode="trunc")


@case("ops.divide", inputs=[rnd(2, 3), rnd(2, 3)], error=True)
def divide_bad_mode(x, y):
    return ops.divide(x, y, rounding_mode="ceil")


# ---- reductions --------------------------------------------------------------------------------------
_NANS = np.array([[1.0, np.nan, 2.0, -1.5], [np.nan, np.nan, 0.5, 3.0], [0.25, -2.0, np.nan, 1.0]], np.float32)


@case("ops.logsumexp", "Tensor.logsumexp", inputs=[rnd(3, 4, lo=-50, hi=90)])
def logsumexp_forms(x):
    return ops.logsumexp(x, 1), ops.logsumexp(x, 0, keepdim=True), x.logsumexp((0, 1)), ops.logsumexp(x, -1, True)


@case("ops.nansum", "ops.nanmean", "Tensor.nansum", "Tensor.nanmean", inputs=[_NANS])
def nansum_nanmean(x):
    return (ops.nansum(x), ops.nansum(x, 1), ops.nansum(x, axis=0, keepdims=True), ops.nanmean(x),
            ops.nanmean(x, 1), x.nansum(0), x.nanmean(axis=1, keepdims=True))


@case("ops.nansum", inputs=[ints(3, 4)])
def nansum_int(x):
    return ops.nansum(x), ops.nansum(x, 1, dtype=ms.float32)


@case("ops.var", "ops.std", "ops.var_mean", "ops.std_mean", "Tensor.var", "Tensor.std", inputs=[rnd(3, 4)])
def var_std_family(x):
    return (ops.var(x), ops.var(x, 1), ops.var(x, axis=0, ddof=1, keepdims=True), ops.std(x, 1, 1),
            ops.var_mean(x, 1), ops.std_mean(x, (0, 1), ddof=1), x.var(0), x.std(axis=1, keepdims=True))


@case("ops.count_nonzero", "Tensor.count_nonzero",
      inputs=[np.array([[0, 1, 2, 0], [0, 0, 3, 1], [5, 0, 0, 0]], np.float32)])
def count_nonzero_forms(x):
    return (ops.count_nonzero(x), ops.count_nonzero(x, 1), ops.count_nonzero(x, (0,), True, ms.int64),
            x.count_nonzero())


@case("ops.trace", "ops.Trace", "Tensor.trace", inputs=[rnd(3, 4), ints(4, 4)])
def trace_forms(x, i):
    return ops.trace(x), ops.Trace()(x), x.trace(), ops.trace(i)


@case("ops.vecdot", "ops.dot", "Tensor.dot", inputs=[rnd(3, 4), rnd(3, 4), rnd(4, 2)])
def vecdot_dot(x, y, w):
    return ops.vecdot(x, y), ops.vecdot(x, y, axis=0), ops.dot(x, w), x.dot(w)


# ---- layout --------------------------------------------------------------------------------------------
@case("ops.flipud", "ops.fliplr", "ops.rot90", "Tensor.flipud", "Tensor.fliplr", "Tensor.rot90",
      inputs=[rnd(2, 3, 4)])
def flips_rot90(x):
    return (ops.flipud(x), ops.fliplr(x), ops.rot90(x, 1, (0, 1)), ops.rot90(x, 2, (1, 2)),
            ops.rot90(x, -1, (0, 2)), ops.rot90(x, 3, [2, 1]), x.flipud(), x.fliplr(), x.rot90(1, (0, 1)))


@case("ops.diff", "Tensor.diff", inputs=[rnd(3, 5), rnd(3, 1), ints(3, 5, lo=-9, hi=9)])
def diff_forms(x, p, i):
    return ops.diff(x), ops.diff(x, 1, 0), ops.diff(x, 1, -1, p, p), x.diff(), ops.diff(i)


@case("ops.diff", inputs=[rnd(3, 5)], error=True)
def diff_n2(x):
    return ops.diff(x, 2)


@case("ops.atleast_1d", "ops.atleast_2d", "ops.atleast_3d", inputs=[np.float32(2.5), rnd(3), rnd(2, 3)])
def atleast_forms(s, v, m):
    return (ops.atleast_1d(s), ops.atleast_2d(v), ops.atleast_3d(v), ops.atleast_3d(m), ops.atleast_2d([s, v, m]),
            ops.atleast_1d((s, m)))


@case("ops.hstack", "ops.vstack", "ops.dstack", "ops.column_stack", "ops.row_stack",
      inputs=[rnd(3), rnd(3), rnd(2, 3), rnd(2, 3)])
def stacks(a, b, c, d):
    return (ops.hstack([a, b]), ops.hstack((c, d)), ops.vstack([a, b]), ops.vstack((c, d)), ops.dstack([a, b]),
            ops.dstack([c, d]), ops.column_stack([a, b]), ops.column_stack([c, d]), ops.row_stack([a, b]))


@case("ops.moveaxis", "ops.movedim", "ops.swapdims", "ops.t", "ops.ravel", "Tensor.moveaxis", "Tensor.movedim",
      "Tensor.swapdims", "Tensor.t", "Tensor.ravel", inputs=[rnd(2, 3, 4), rnd(3, 5)])
def axis_moves(x, m):
    return (ops.moveaxis(x, 0, -1), ops.movedim(x, (0, 1), (2, 0)), ops.swapdims(x, 0, 2), ops.t(m), ops.ravel(x),
            x.moveaxis(1, 0), x.movedim(-1, 0), x.swapdims(1, 2), m.t(), x.ravel())


@case("ops.msort", "Tensor.msort", inputs=[rnd(4, 3)])
def msort_forms(x):
    return ops.msort(x), x.msort()


@case("ops.kron", inputs=[rnd(2, 3), rnd(3, 2), rnd(2), rnd(1, 2, 2)])
def kron_forms(a, b, v, c):
    return ops.kron(a, b), ops.kron(v, a), ops.kron(a, c)


@case("ops.narrow", "Tensor.narrow", inputs=[rnd(4, 5)])
def narrow_forms(x):
    return ops.narrow(x, 1, 1, 3), ops.narrow(x, 0, 2, 2), x.narrow(-1, 0, 2)


@case("ops.tensor_split", "ops.hsplit", "ops.vsplit", "ops.dsplit", "Tensor.tensor_split", "Tensor.hsplit",
      "Tensor.vsplit", "Tensor.dsplit", inputs=[rnd(6, 4, 2), rnd(7)])
def splits(x, v):
    return (ops.tensor_split(v, 3), ops.tensor_split(v, [2, 5]), ops.tensor_split(x, 4, axis=0),
            ops.hsplit(x, 2), ops.vsplit(x, [1, 4]), ops.dsplit(x, 2), v.tensor_split(2), x.hsplit([1]),
            x.vsplit(3), x.dsplit([1]))


@case("ops.hsplit", inputs=[rnd(7)], error=True)
def hsplit_1d(v):
    return ops.hsplit(v, [3])


# ---- activations and losses --------------------------------------------------------------------------
@case("ops.hardshrink", "ops.softshrink", "ops.SoftShrink", "ops.threshold", "Tensor.hardshrink",
      inputs=[np.array([-1.0, -0.5, -0.3, 0.0, 0.2, 0.5, 0.7, np.nan], np.float32)])
def shrinks(x):
    return (ops.hardshrink(x), ops.hardshrink(x, 0.3), ops.softshrink(x), ops.softshrink(x, 0.2),
            ops.SoftShrink(0.6)(x), ops.threshold(x, 0.2, -9.0), x.hardshrink(0.6))


@case("ops.l1_loss", "ops.mse_loss", inputs=[rnd(3, 4), rnd(3, 4)])
def l1_mse(x, y):
    return (ops.l1_loss(x, y), ops.l1_loss(x, y, "sum"), ops.l1_loss(x, y, reduction="none"), ops.mse_loss(x, y),
            ops.mse_loss(x, y, "sum"), ops.mse_loss(x, y, reduction="none"))


@case("ops.l1_loss", inputs=[rnd(3, 4), rnd(3, 4)], error=True)
def l1_loss_bad_reduction(x, y):
    return ops.l1_loss(x, y, "avg")


# ---- Tensor forms of existing ops ------------------------------------------------------------------
@case("Tensor.absolute", "Tensor.negative", "Tensor.reciprocal", "Tensor.remainder", "Tensor.true_divide",
      "Tensor.floor_divide", inputs=[rnd(2, 3, lo=0.5, hi=3), rnd(2, 3, lo=0.5, hi=3)])
def tensor_arith_aliases(x, y):
    return x.absolute(), x.negative(), x.reciprocal(), x.remainder(y), x.true_divide(y), x.floor_divide(y)


@case("Tensor.eq", "Tensor.equal", "Tensor.ge", "Tensor.greater", "Tensor.greater_equal", "Tensor.gt",
      "Tensor.le", "Tensor.less", "Tensor.less_equal", "Tensor.lt", "Tensor.ne", "Tensor.not_equal",
      inputs=[ints(3, 4), ints(3, 4)])
def tensor_compare_aliases(x, y):
    return (x.eq(y), x.equal(y), x.ge(y), x.greater(y), x.greater_equal(y), x.gt(y), x.le(y), x.less(y),
            x.less_equal(y), x.lt(y), x.ne(y), x.not_equal(y))


@case("Tensor.logical_and", "Tensor.logical_or", "Tensor.logical_not", inputs=[bools(2, 3), bools(2, 3)])
def tensor_logic_aliases(a, b):
    return a.logical_and(b), a.logical_or(b), a.logical_not()


@case("Tensor.bmm", "Tensor.mm", "Tensor.where",
      inputs=[rnd(2, 3, 4), rnd(2, 4, 2), rnd(3, 4), rnd(4, 5), bools(3, 4)])
def tensor_product_aliases(a, b, m, n, c):
    return a.bmm(b), m.mm(n), m.where(c, m * 2)


@case("Tensor.double", "Tensor.half", "Tensor.long", "Tensor.short", "Tensor.byte", "Tensor.type_as",
      inputs=[rnd(2, 3, lo=0, hi=100), ints(2, 3)])
def tensor_cast_aliases(x, i):
    return x.double(), x.half(), x.long(), x.short(), x.byte(), x.type_as(i), i.type_as(x)


@case("Tensor.ndimension", "Tensor.nelement", "Tensor.is_signed", inputs=[rnd(2, 3), ints(2, 3, dtype="uint8")],
      graph=False, reason="returns Python values")
def tensor_info_aliases(x, u):
    return x.ndimension(), x.nelement(), x.is_signed(), u.is_signed()


@case("Tensor.reshape_as", "Tensor.view_as", "Tensor.expand", "Tensor.sum_to_size",
      inputs=[rnd(2, 3), rnd(3, 2), rnd(3, 1), rnd(4, 2, 3)], graph=False,
      reason="MindSpore 2.10's graph mode fails on them (\"GetShapeVector() doesn't implement\")")
def tensor_shape_aliases(x, y, c, z):
    return (x.reshape_as(y), x.view_as(y), c.expand((3, 4)), c.expand((2, 3, 5)), c.expand((-1, 2)),
            z.sum_to_size((2, 3)), z.sum_to_size((1, 3)), z.sum_to_size((2, 1)))


@case("Tensor.expand", "Tensor.sum_to_size", inputs=[rnd(3, 1), rnd(4, 2, 3)], graph=False,
      reason="MindSpore's graph mode takes the sizes only as one tuple")
def tensor_shape_varargs(c, z):
    return c.expand(3, 4), z.sum_to_size(2, 3)


@case("Tensor.amax", "Tensor.amin", "Tensor.ptp", "Tensor.aminmax", inputs=[rnd(3, 4)])
def tensor_minmax_aliases(x):
    return x.amax(), x.amax(1), x.amin(0, True), x.ptp(), x.ptp(1, True)


@case("Tensor.aminmax", "Tensor.amin", inputs=[rnd(3, 4)], graph=False,
      reason="MindSpore's graph mode rejects the keyword arguments")
def tensor_aminmax_keywords(x):
    return x.aminmax(), x.aminmax(axis=1, keepdims=True), x.amin(axis=0, keepdims=True)


@case("Tensor.argmax_with_value", "Tensor.argmin_with_value", inputs=[rnd(3, 4)])
def tensor_with_value(x):
    return x.argmax_with_value(), x.argmin_with_value(1, True)


@case("Tensor.soft_shrink", "Tensor.approximate_equal", inputs=[rnd(3, 5), rnd(3, 5)], graph=False,
      reason="MindSpore's Tensor.soft_shrink logs a warning, which its graph mode rejects")
def tensor_misc_aliases(x, y):
    return x.soft_shrink(0.3), x.approximate_equal(y, 1.0), x.approximate_equal(x)


@case("Tensor.top_k", inputs=[rnd(3, 5)], graph=False, reason="MindSpore's Tensor.top_k logs a warning, which its graph mode rejects")
def tensor_top_k(x):
    return x.top_k(2), x.top_k(3, True)     # sorted=False: the order is the kernel's own


@case("Tensor.mT", "Tensor.mH", "Tensor.adjoint", inputs=[rnd(2, 3, 4)])
def tensor_matrix_properties(x):
    return x.mT, x.mH, x.adjoint()


@case("ops.addmm", "ops.addmv", "ops.addr", "ops.addbmm", "Tensor.addmm", "Tensor.addmv", "Tensor.addr",
      "Tensor.addbmm", inputs=[rnd(3, 4), rnd(3, 5), rnd(5, 4), rnd(3), rnd(4), rnd(2, 3, 5), rnd(2, 5, 4)])
def addmm_family(c, a, b, v, w, ba, bb):
    return (ops.addmm(c, a, b), ops.addmm(c, a, b, beta=0.5, alpha=2), ops.addmv(v, a, ops.ones(5, ms.float32)),
            ops.addr(c, v, w), ops.addr(c, v, w, beta=2, alpha=0.5), ops.addbmm(c, ba, bb), c.addmm(a, b),
            v.addmv(a, a[0]),
            c.addr(v, w), c.addbmm(ba, bb, alpha=3))


@case("ops.isclose", "Tensor.isclose",
      inputs=[np.array([1.0, 2.0, np.nan, np.inf, -np.inf, 1e-9, 100.0], np.float32),
              np.array([1.0 + 1e-6, 2.1, np.nan, np.inf, np.inf, 0.0, 100.001], np.float32)])
def isclose_allclose(x, y):
    return (ops.isclose(x, y), ops.isclose(x, y, equal_nan=True), ops.isclose(x, y, rtol=0.1, atol=0.0),
            x.isclose(y))


@case("Tensor.allclose", inputs=[np.array([1.0, 2.0, np.nan, np.inf], np.float32),
                                 np.array([1.0 + 1e-6, 2.1, np.nan, np.inf], np.float32)],
      graph=False, reason="returns a Python bool computed from the values")
def tensor_allclose(x, y):
    return x.allclose(x, equal_nan=True), x.allclose(y), x.allclose(x), x.allclose(y, rtol=0.1)


# ---- diagonals, products, order statistics ----------------------------------------------------------
@case("ops.diag", inputs=[rnd(3), rnd(2, 2)])
def diag_forms(v, m):
    return ops.diag(v), ops.diag(m)


@case("Tensor.diag", inputs=[rnd(3)], graph=False, reason="MindSpore 2.10's graph mode rejects Tensor.diag (deprecated)")
def tensor_diag(v):
    return v.diag()


@case("ops.diagonal", "Tensor.diagonal", inputs=[rnd(3, 4), rnd(2, 3, 4)])
def diagonal_forms(m, t):
    return (ops.diagonal(m), ops.diagonal(m, 1), ops.diagonal(m, -1), m.diagonal(2), ops.diagonal(t, 0, 1, 2),
            ops.diagonal(t, 1, 2, 0), ops.diagonal(t, offset=-1, dim1=0, dim2=2))


@case("ops.diagflat", "Tensor.diagflat", inputs=[rnd(3), rnd(2, 2)])
def diagflat_forms(v, m):
    return ops.diagflat(v), ops.diagflat(m, 1), v.diagflat(-2)


@case("ops.cross", "Tensor.cross", inputs=[rnd(4, 3), rnd(4, 3), rnd(3, 2), rnd(3, 2)])
def cross_forms(a, b, c, d):
    return ops.cross(a, b), ops.cross(a, b, 1), ops.cross(c, d, 0), a.cross(b), ops.cross(c, d)


@case("ops.logcumsumexp", "Tensor.logcumsumexp", inputs=[rnd(3, 4, lo=-30, hi=80)])
def logcumsumexp_forms(x):
    return ops.logcumsumexp(x, 0), ops.logcumsumexp(x, 1), x.logcumsumexp(-1)


@case("ops.matrix_power", "Tensor.matrix_power", inputs=[rnd(3, 3, lo=-1, hi=1), rnd(2, 2, 2, lo=-1, hi=1)])
def matrix_power_forms(m, b):
    return ops.matrix_power(m, 0), ops.matrix_power(m, 1), ops.matrix_power(m, 3), b.matrix_power(2)


@case("ops.median", "Tensor.median", inputs=[rnd(3, 5), rnd(4, 4)])
def median_forms(x, y):
    return ops.median(x), ops.median(x, 0), ops.median(y, 1, True), x.median()


# ---- the op tail: small compositions -------------------------------------------------------------
@case("ops.bias_add", "ops.tensor_add", "ops.eq", "ops.floordiv", "ops.floormod",
      "ops.truncate_div", "ops.truncate_mod", inputs=[rnd(2, 3, 4), rnd(3), ints(2, 3, lo=-7, hi=7), ints(2, 3, lo=1, hi=4)])
def tail_arith(x, b, i, j):
    return (ops.bias_add(x, b), ops.tensor_add(x, x), ops.eq(i, j), ops.floordiv(i, j),
            ops.floormod(i, j), ops.truncate_div(i, j), ops.truncate_mod(i, j), ops.truncate_div(x, x[:, :, :1] + 3.0))


@case("ops.block_diag", "ops.cartesian_prod", "ops.vander",
      inputs=[rnd(2, 2), rnd(1, 3), rnd(3), np.array([1, 2, 3], np.int32), np.array([4, 5], np.int32)])
def tail_block_cartesian(a, b, v, i, j):
    return ops.block_diag(a, b), ops.block_diag(a, v), ops.cartesian_prod(i, j), ops.vander(v), ops.vander(v, 4)


@case("ops.channel_shuffle", "ops.pixel_shuffle", "ops.pixel_unshuffle", inputs=[rnd(2, 6, 2, 2), rnd(1, 8, 2, 3)])
def tail_shuffles(x, y):
    return ops.channel_shuffle(x, 3), ops.pixel_shuffle(y, 2), ops.pixel_unshuffle(ops.pixel_shuffle(y, 2), 2)


@case("ops.cov", "ops.dist", "ops.pdist", "ops.diag_embed", inputs=[rnd(3, 5), rnd(3, 5), rnd(2, 3)])
def tail_stats(x, y, d):
    return (ops.cov(x), ops.cov(x, correction=0), ops.dist(x, y), ops.dist(x, y, 1), ops.pdist(x), ops.pdist(x, 1.0),
            ops.diag_embed(d), ops.diag_embed(d, 1))


@case("ops.ldexp", "ops.trapz", "ops.reverse", "Tensor.ldexp",
      inputs=[rnd(2, 5), ints(2, 5, lo=-2, hi=3), rnd(5, lo=0, hi=3)])
def tail_misc(x, e, xs):
    return (ops.ldexp(x, e), x.ldexp(e), ops.trapz(x), ops.trapz(x, xs), ops.trapz(x, dx=0.5, dim=0),
            ops.reverse(x, [1]))


@case("ops.sequence_mask", inputs=[np.array([[1, 3], [2, 0]], np.int32)])
def tail_sequence_mask(lengths):
    return ops.sequence_mask(lengths, 4)


@case("ops.linspace", "ops.logspace", "ops.tril_indices", "ops.triu_indices")
def tail_creation():
    return (ops.linspace(0.0, 1.0, 5), ops.linspace(-2, 2, 3), ops.logspace(0.0, 2.0, 3), ops.logspace(1.0, 3.0, 3, base=2),
            ops.tril_indices(3, 4), ops.triu_indices(4, 3, 1), ops.tril_indices(3, 3, -1, dtype=ms.int32))


@case("ops.bartlett_window", "ops.blackman_window", "ops.hamming_window", "ops.hann_window",
      inputs=[np.array(5, np.int32), np.array(6, np.int32)], graph=False,
      reason="a window's length is a tensor whose value sets the output shape")
def tail_windows(five, six):
    return (ops.bartlett_window(five), ops.blackman_window(six, False), ops.hamming_window(5),
            ops.hann_window(6), ops.hann_window(5, periodic=False), ops.hamming_window(4, False, 0.5, 0.5))


@case("ops.gaussian_nll_loss", "ops.hinge_embedding_loss",
      inputs=[rnd(3, 4), rnd(3, 4), rnd(3, 4, lo=0.1, hi=2), np.array([[1, -1, 1, -1]] * 3, np.float32)])
def tail_losses(x, t, var, sign):
    return (ops.gaussian_nll_loss(x, t, var), ops.gaussian_nll_loss(x, t, var, True, reduction="sum"),
            ops.gaussian_nll_loss(x, t, var, reduction="none"), ops.hinge_embedding_loss(x, sign),
            ops.hinge_embedding_loss(x, sign, 0.5, "none"))


@case("ops.is_tensor", "ops.conj", "ops.real", "ops.imag", inputs=[rnd(2, 3)], graph=False,
      reason="is_tensor returns a Python bool")
def tail_complex_parts(x):
    return ops.is_tensor(x), ops.is_tensor(3), ops.conj(x), ops.real(x), ops.imag(x)


@case("Tensor.renorm", "Tensor.real", "Tensor.imag", "Tensor.H", "Tensor.type", inputs=[rnd(3, 4)])
def tensor_more_aliases(x):
    return x.renorm(2, 0, 2.0), x.real(), x.imag(), x.H, x.type(ms.int32)


@case("Tensor.type", inputs=[rnd(2, 2)], graph=False, reason="returns the dtype's name, a Python string")
def tensor_type_name(x):
    return x.type()


@case("Tensor.fold", "Tensor.unfold", inputs=[rnd(1, 2, 4, 4)])
def tensor_fold_unfold(x):
    u = x.unfold(2, 1, 0, 2)
    return u, u.fold(ms.Tensor([4, 4], ms.int32), 2, 1, 0, 2)
