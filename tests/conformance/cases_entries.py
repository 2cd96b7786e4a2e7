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
