"""The conformance table: MindSpore 2.10 random and fractional-pooling names that were missing
(src/pycompile/ops/entries/prim35_random.py): FractionalMaxPoolWithFixedKsize /
FractionalMaxPool3DWithFixedKsize / ops.fractional_max_pool2d / fractional_max_pool3d (deterministic
with given random samples: values recorded), RandpermV2 (shapes and the permutation property), and
the argument checks of Gamma / ops.gamma, Poisson / ops.poisson, Randperm, ops.bernoulli_ext,
DropoutGenMask and DropoutDoMask, which have no CPU kernel in the wheel (their values are checked
against NumPy in tests/ops/test_prim35_random.py). Part of the table loaded after cases.py."""
group("prim35r")

_FMP2 = ("ops.FractionalMaxPoolWithFixedKsize",)
_FMP3 = ("ops.FractionalMaxPool3DWithFixedKsize",)


# ---- FractionalMaxPoolWithFixedKsize -----------------------------------------------------------------
@case(*_FMP2, inputs=[rnd(2, 3, 9, 8), rnd(2, 3, 2, lo=0.0, hi=1.0)])
def p35r_fmp2d_f32(x, s):
    a = ops.FractionalMaxPoolWithFixedKsize((3, 2), (4, 5))(x, s)
    b = ops.FractionalMaxPoolWithFixedKsize(2, 3)(x, s)
    c = ops.FractionalMaxPoolWithFixedKsize((1, 4), (9, 1))(x, s)
    return a, b, c


@case(*_FMP2, inputs=[rnd(1, 2, 11, 7, dtype="float64"), rnd(1, 2, 2, lo=0.0, hi=1.0, dtype="float16"),
                      rnd(1, 2, 2, lo=0.0, hi=1.0, dtype="float64")])
def p35r_fmp2d_f64_sample_dtypes(x, s16, s64):
    op = ops.FractionalMaxPoolWithFixedKsize((2, 3), (6, 4))
    return op(x, s16), op(x, s64)


@case(*_FMP2, inputs=[ints(2, 2, 6, 6, lo=-20, hi=5), rnd(2, 2, 2, lo=0.0, hi=1.0),
                      ints(1, 1, 5, 5, lo=-9, hi=9, dtype="int64")])
def p35r_fmp2d_int_negative(x, s, y):
    # the 2-D kernel starts from the integer 'infinity' 0: windows of negatives give 0 at their first position
    return (ops.FractionalMaxPoolWithFixedKsize(2, (3, 4))(x, s),
            ops.FractionalMaxPoolWithFixedKsize(3, 2)(y, s[:1, :1]))


@case(*_FMP2, inputs=[np.array([[[[1.0, 5.0, np.nan, 2.0], [5.0, 0.5, 3.0, np.nan], [-np.inf, 4.0, 4.0, 1.0],
                                   [np.nan, np.nan, 4.0, 0.0]]]], np.float32),
                      np.array([[[0.25, 0.75]]], np.float32), rnd(1, 1, 4, 4, dtype="float16")])
def p35r_fmp2d_nan_ties_f16(x, s, h):
    op = ops.FractionalMaxPoolWithFixedKsize(2, 3)
    return op(x, s), op(h, s)


@case(*_FMP2, inputs=[rnd(1, 2, 6, 6), rnd(1, 2, 2, lo=0.0, hi=1.0)], error=True, graph=False,
      reason="the constructor's argument checks")
def p35r_fmp2d_ksize_zero(x, s):
    return ops.FractionalMaxPoolWithFixedKsize(0, (3, 3))(x, s)


@case(*_FMP2, inputs=[rnd(1, 2, 6, 6), rnd(1, 2, 2, lo=0.0, hi=1.0)], error=True, graph=False,
      reason="the constructor's argument checks")
def p35r_fmp2d_format(x, s):
    return ops.FractionalMaxPoolWithFixedKsize((2, 2), (3, 3), "NHWC")(x, s)


@case(*_FMP2, inputs=[rnd(1, 2, 6, 6), rnd(1, 2, 2, lo=0.0, hi=1.0)], error=True)
def p35r_fmp2d_too_large(x, s):
    return ops.FractionalMaxPoolWithFixedKsize((5, 5), (3, 3))(x, s)


@case(*_FMP2, inputs=[rnd(1, 2, 6, 6), rnd(1, 1, 2, lo=0.0, hi=1.0)], error=True)
def p35r_fmp2d_samples_channels(x, s):
    return ops.FractionalMaxPoolWithFixedKsize((2, 2), (3, 3))(x, s)


@case(*_FMP2, inputs=[rnd(1, 2, 6, 6), ints(1, 2, 2)], error=True)
def p35r_fmp2d_samples_int(x, s):
    return ops.FractionalMaxPoolWithFixedKsize((2, 2), (3, 3))(x, s)


@case(*_FMP2, inputs=[bools(1, 2, 6, 6), rnd(1, 2, 2, lo=0.0, hi=1.0)], error=True)
def p35r_fmp2d_bool(x, s):
    return ops.FractionalMaxPoolWithFixedKsize((2, 2), (3, 3))(x, s)


def _fmp3_loss(x, s, w):
    return (ops.FractionalMaxPool3DWithFixedKsize((2, 3, 2), (3, 2, 4))(x, s)[0] * w).sum()


@case(*_FMP3, inputs=[rnd(2, 2, 7, 6, 8), rnd(2, 2, 3, lo=0.0, hi=1.0), rnd(2, 2, 3, 2, 4)])
def p35r_fmp3d_grad(x, s, w):
    # the wheel's backward adds each output's gradient at its argmax (its 2-D backward has no CPU kernel
    # for any dtype: tests/ops/test_prim35_random.py checks both against NumPy)
    return ms.grad(_fmp3_loss)(x, s, w)


# ---- fractional_max_pool2d ---------------------------------------------------------------------------
@case("ops.fractional_max_pool2d", inputs=[rnd(2, 3, 10, 9), rnd(2, 3, 2, lo=0.0, hi=1.0), rnd(3, 8, 8),
                                           rnd(1, 3, 2, lo=0.0, hi=1.0)])
def p35r_fractional_max_pool2d(x, s, x3, s3):
    return (ops.fractional_max_pool2d(x, (3, 2), output_size=(5, 6), return_indices=True, _random_samples=s),
            ops.fractional_max_pool2d(x, 2, output_ratio=(0.5, 0.75), _random_samples=s),
            ops.fractional_max_pool2d(x, 3, output_size=4, output_ratio=0.5, _random_samples=s),
            ops.fractional_max_pool2d(x3, 2, output_ratio=0.5, return_indices=True, _random_samples=s3))


@case("ops.fractional_max_pool2d", inputs=[rnd(2, 3, 10, 9), ints(2, 2, 8, 8, lo=-5, hi=50)])
def p35r_fractional_max_pool2d_drawn(x, xi):
    # samples drawn inside: every output is its index's input value, inside the kernel's reach
    y, idx = ops.fractional_max_pool2d(x, 2, output_size=(4, 4), return_indices=True)
    yi = ops.fractional_max_pool2d(xi, 3, output_ratio=0.5)
    flat = x.reshape(2, 3, 90)
    same = (ops.gather_elements(flat, 2, idx.reshape(2, 3, 16)).reshape(2, 3, 4, 4) == y).all()
    return y.shape, y.dtype, idx.dtype, same, (idx >= 0).all(), (idx < 90).all(), yi.shape, yi.dtype


@case("ops.fractional_max_pool2d", inputs=[rnd(1, 2, 6, 6)], error=True, graph=False,
      reason="an argument check of the functional form")
def p35r_fractional_max_pool2d_no_size(x):
    return ops.fractional_max_pool2d(x, 2)


@case("ops.fractional_max_pool2d", inputs=[rnd(1, 2, 6, 6)], error=True, graph=False,
      reason="an argument check of the functional form")
def p35r_fractional_max_pool2d_ratio_above_1(x):
    return ops.fractional_max_pool2d(x, 2, output_ratio=(0.5, 1.5))


# ---- FractionalMaxPool3DWithFixedKsize / fractional_max_pool3d ----------------------------------------
@case(*_FMP3, inputs=[rnd(2, 2, 7, 6, 8), rnd(2, 2, 3, lo=0.0, hi=1.0), rnd(3, 5, 5, 6), rnd(3, 1, 3, lo=0.0, hi=1.0)])
def p35r_fmp3d_f32(x, s, x4, s4):
    return (ops.FractionalMaxPool3DWithFixedKsize((2, 3, 2), (3, 3, 4))(x, s),
            ops.FractionalMaxPool3DWithFixedKsize(2, 2)(x, s),
            ops.FractionalMaxPool3DWithFixedKsize((1, 2, 3), (4, 3, 2))(x4, s4))


@case(*_FMP3, inputs=[ints(1, 2, 5, 5, 5, lo=-30, hi=-1), rnd(1, 2, 3, lo=0.0, hi=1.0, dtype="float64"),
                      np.array([[[[[1.0, np.nan, 2.0], [np.nan, 0.0, 7.0], [3.0, 3.0, 1.0]],
                                  [[-1.0, 2.0, 2.0], [0.0, 5.0, np.nan], [9.0, 9.0, -np.inf]],
                                  [[4.0, 4.0, 4.0], [4.0, 4.0, 4.0], [4.0, 4.0, 4.0]]]]], np.float32),
                      np.array([[[0.5, 0.25, 0.75]]], np.float32)])
def p35r_fmp3d_int_nan(x, s, y, t):
    # the 3-D kernel starts from the dtype's lowest value and lets a NaN win (the last one of a window)
    return (ops.FractionalMaxPool3DWithFixedKsize(2, (3, 2, 3))(x, s),
            ops.FractionalMaxPool3DWithFixedKsize(2, (1, 1, 1))(y, t))


@case(*_FMP3, inputs=[rnd(1, 1, 4, 4, 4), rnd(1, 1, 3, lo=0.0, hi=1.0)], error=True)
def p35r_fmp3d_too_large(x, s):
    # 3-D wants output + ksize - 1 < input (strictly)
    return ops.FractionalMaxPool3DWithFixedKsize((2, 2, 2), (3, 3, 3))(x, s)


@case(*_FMP3, inputs=[rnd(1, 1, 6, 6, 6), rnd(1, 1, 3, lo=0.0, hi=1.0)], error=True, graph=False,
      reason="the constructor's argument checks")
def p35r_fmp3d_ksize_pair(x, s):
    return ops.FractionalMaxPool3DWithFixedKsize((2, 2), (3, 3, 3))(x, s)


@case(*_FMP3, inputs=[rnd(1, 5, 6, 7, 2), rnd(1, 5, 3, lo=0.0, hi=1.0)],
      oracle_bug="with data_format 'NDHWC' the wheel wants random_samples (N, D, 3) instead of the documented "
                 "(N, C, 3) and pools the memory as if it were NCDHW (a reshape, not a transpose); pycompile pools "
                 "the channel-last layout (tests/ops/test_prim35_random.py checks it against the NCDHW result)")
def p35r_fmp3d_ndhwc(x, s):
    return ops.FractionalMaxPool3DWithFixedKsize(2, (2, 3, 3), "NDHWC")(x, s)


@case("ops.fractional_max_pool3d", inputs=[rnd(2, 2, 8, 7, 6), rnd(2, 2, 3, lo=0.0, hi=1.0), rnd(2, 6, 6, 6),
                                           rnd(1, 2, 3, lo=0.0, hi=1.0)])
def p35r_fractional_max_pool3d(x, s, x4, s4):
    return (ops.fractional_max_pool3d(x, (2, 3, 2), output_size=(4, 3, 4), return_indices=True, _random_samples=s),
            ops.fractional_max_pool3d(x, 2, output_ratio=(0.5, 0.5, 0.5), _random_samples=s),
            ops.fractional_max_pool3d(x4, 2, output_size=3, return_indices=True, _random_samples=s4))


@case("ops.fractional_max_pool3d", inputs=[rnd(2, 2, 8, 7, 6)])
def p35r_fractional_max_pool3d_drawn(x):
    y, idx = ops.fractional_max_pool3d(x, 2, output_size=(3, 3, 3), return_indices=True)
    same = (ops.gather_elements(x.reshape(2, 2, 336), 2, idx.reshape(2, 2, 27)).reshape(2, 2, 3, 3, 3) == y).all()
    return y.shape, y.dtype, idx.dtype, same


@case("ops.fractional_max_pool3d", inputs=[rnd(1, 2, 6, 6, 6), rnd(1, 2, 3, lo=0.0, hi=1.0, dtype="float64")],
      error=True)
def p35r_fractional_max_pool3d_sample_dtype(x, s):
    return ops.fractional_max_pool3d(x, 2, output_size=3, _random_samples=s)


# ---- RandpermV2 --------------------------------------------------------------------------------------
@case("ops.RandpermV2")
def p35r_randperm_v2():
    a = ops.RandpermV2(seed=3)(50)
    b = ops.RandpermV2(seed=1, offset=2, dtype=ms.int32)(Tensor(20))
    c = ops.RandpermV2(dtype=ms.float32)(7)
    d = ops.RandpermV2(seed=5, dtype=ms.uint8)(200)     # 256 is accepted but crashes the wheel (SIGSEGV)
    e = ops.RandpermV2(seed=5, dtype=ms.float16)(300)
    return (a.shape, a.dtype, ops.sort(a)[0], b.shape, b.dtype, ops.sort(b)[0], c.dtype, ops.sort(c)[0],
            d.dtype, ops.sort(ops.cast(d, ms.int32))[0], e.dtype, ops.sort(e)[0])


@case("ops.RandpermV2", error=True)
def p35r_randperm_v2_zero():
    return ops.RandpermV2(seed=3)(0)


@case("ops.RandpermV2", error=True)
def p35r_randperm_v2_too_large():
    return ops.RandpermV2(dtype=ms.uint8)(257)


@case("ops.RandpermV2", error=True, graph=False, reason="the constructor's argument checks")
def p35r_randperm_v2_seed():
    return ops.RandpermV2(seed=-3)(5)


@case("ops.RandpermV2", error=True, graph=False, reason="the constructor's argument checks")
def p35r_randperm_v2_offset():
    return ops.RandpermV2(offset=-1)(5)


@case("ops.RandpermV2", error=True)
def p35r_randperm_v2_dtype():
    return ops.RandpermV2(dtype=ms.bool_)(3)


# ---- Gamma / gamma -----------------------------------------------------------------------------------
@case("ops.Gamma", "ops.gamma", inputs=[rnd(2, 3, lo=0.5, hi=3.0), np.array([2.0], np.float32)])
def p35r_gamma_shapes(a, b):
    # no CPU kernel in the wheel: recorded for the shapes its infer gives (the test is skipped)
    x = ops.Gamma(seed=2)((4, 1, 3), a, b)
    y = ops.gamma((5, 2, 1), a, b, seed=3)
    return x.shape, x.dtype, y.shape, (x > 0).all()


@case("ops.Gamma", inputs=[rnd(2, lo=0.5, hi=3.0), np.array([1.0], np.float32)], error=True)
def p35r_gamma_shape_none(a, b):
    return ops.Gamma()(None, a, b)


@case("ops.Gamma", inputs=[rnd(2, lo=0.5, hi=3.0), np.array([1.0], np.float32)], error=True)
def p35r_gamma_shape_list(a, b):
    return ops.Gamma()([3, 2], a, b)


@case("ops.Gamma", inputs=[rnd(2, lo=0.5, hi=3.0, dtype="float64"), np.array([1.0], np.float32)], error=True)
def p35r_gamma_alpha_f64(a, b):
    return ops.Gamma()((3, 2), a, b)


@case("ops.Gamma", inputs=[rnd(2, lo=0.5, hi=3.0), np.array([1.0], np.float32)], error=True)
def p35r_gamma_shape_negative(a, b):
    return ops.Gamma()((3, -2), a, b)


@case("ops.Gamma", inputs=[rnd(2, lo=0.5, hi=3.0), np.array([1.0], np.float32)], error=True)
def p35r_gamma_broadcast(a, b):
    return ops.Gamma()((3, 4), a, b)


@case("ops.Gamma", error=True, graph=False, reason="the constructor's argument checks")
def p35r_gamma_seed_negative():
    return ops.Gamma(seed=-1)


@case("ops.gamma", inputs=[rnd(2, lo=0.5, hi=3.0, dtype="float16"), np.array([1.0], np.float32)], error=True)
def p35r_gamma_fn_f16(a, b):
    return ops.gamma((3, 2), a, b, seed=1)


@case("ops.gamma", inputs=[rnd(2, lo=0.5, hi=3.0), np.array([1.0], np.float32)], error=True)
def p35r_gamma_fn_seed_float(a, b):
    return ops.gamma((3, 2), a, b, seed=1.5)


# ---- Poisson / poisson -------------------------------------------------------------------------------
@case("ops.Poisson", "ops.poisson", inputs=[rnd(3, lo=0.5, hi=9.0)])
def p35r_poisson_shapes(m):
    x = ops.Poisson(seed=2)((4, 1), m)
    y = ops.poisson((2, 3), m, seed=1)
    return x.shape, x.dtype, y.shape, y.dtype, (x >= 0).all()


@case("ops.Poisson", inputs=[rnd(2, lo=0.5, hi=3.0, dtype="float64")], error=True)
def p35r_poisson_mean_f64(m):
    return ops.Poisson()((3, 2), m)


@case("ops.Poisson", inputs=[rnd(2, lo=0.5, hi=3.0)], error=True)
def p35r_poisson_shape_list(m):
    return ops.Poisson()([3, 2], m)


@case("ops.Poisson", inputs=[rnd(2, lo=0.5, hi=3.0)], error=True)
def p35r_poisson_broadcast(m):
    return ops.Poisson()((3, 4), m)


@case("ops.Poisson", error=True, graph=False, reason="the constructor's argument checks")
def p35r_poisson_seed2_negative():
    return ops.Poisson(seed2=-2)


@case("ops.poisson", inputs=[rnd(2, lo=0.5, hi=3.0)], error=True)
def p35r_poisson_fn_seed_negative(m):
    return ops.poisson((3, 2), m, seed=-2)


# ---- Randperm ----------------------------------------------------------------------------------------
@case("ops.Randperm", inputs=[np.array([12], np.int32)])
def p35r_randperm_values(n):
    a = ops.Randperm(max_length=20, pad=-7)(n)
    return a.shape, a.dtype, ops.sort(a)[0]


@case("ops.Randperm", error=True, graph=False, reason="the constructor's argument checks")
def p35r_randperm_max_length_zero():
    return ops.Randperm(max_length=0)


@case("ops.Randperm", error=True, graph=False, reason="the constructor's argument checks")
def p35r_randperm_pad_float():
    return ops.Randperm(pad=1.5)


@case("ops.Randperm", error=True, graph=False, reason="the constructor's argument checks")
def p35r_randperm_dtype_bool():
    return ops.Randperm(dtype=ms.bool_)


@case("ops.Randperm", inputs=[np.array([3.0], np.float32)], error=True)
def p35r_randperm_n_float(n):
    return ops.Randperm(5)(n)


@case("ops.Randperm", inputs=[np.array([3, 1], np.int32)], error=True)
def p35r_randperm_n_two(n):
    return ops.Randperm(5)(n)


# ---- bernoulli_ext -----------------------------------------------------------------------------------
@case("ops.bernoulli_ext", inputs=[rnd(40, 50, lo=0.0, hi=1.0)])
def p35r_bernoulli_ext_values(p):
    y = ops.bernoulli_ext(p)
    return y.shape, y.dtype, ((y == 0) | (y == 1)).all()


@case("ops.bernoulli_ext", inputs=[ints(3, 4, lo=0, hi=2)], error=True)
def p35r_bernoulli_ext_int(p):
    return ops.bernoulli_ext(p)


# ---- DropoutGenMask / DropoutDoMask ------------------------------------------------------------------
@case("ops.DropoutGenMask", inputs=[np.array(0.5, np.float32)])
def p35r_dropout_gen_mask_shape(k):
    m = ops.DropoutGenMask(1, 2)((3, 100), k)
    return m.shape, m.dtype


@case("ops.DropoutGenMask", inputs=[np.array(1, np.int32)], error=True)
def p35r_dropout_gen_mask_keep_int(k):
    return ops.DropoutGenMask()((2, 16), k)


@case("ops.DropoutGenMask", inputs=[np.array(0.5, np.float64)], error=True)
def p35r_dropout_gen_mask_keep_f64(k):
    return ops.DropoutGenMask()((2, 16), k)


@case("ops.DropoutGenMask", inputs=[np.array(0.5, np.float32)], error=True)
def p35r_dropout_gen_mask_negative_dim(k):
    return ops.DropoutGenMask()((2, -16), k)


@case("ops.DropoutGenMask", error=True, graph=False, reason="the constructor's argument checks")
def p35r_dropout_gen_mask_seed_float():
    return ops.DropoutGenMask(1.5)


@case("ops.DropoutDoMask", inputs=[rnd(2, 16), np.array([255, 0, 15, 240], np.uint8), np.array(0.5, np.float32)])
def p35r_dropout_do_mask_values(x, m, k):
    return ops.DropoutDoMask()(x, m, k)


@case("ops.DropoutDoMask", inputs=[rnd(2, 16), rnd(4), np.array(0.5, np.float32)], error=True)
def p35r_dropout_do_mask_mask_float(x, m, k):
    return ops.DropoutDoMask()(x, m, k)


@case("ops.DropoutDoMask", inputs=[rnd(2, 16, dtype="float64"), np.array([255, 0, 15, 240], np.uint8),
                                   np.array(0.5, np.float32)], error=True)
def p35r_dropout_do_mask_f64(x, m, k):
    return ops.DropoutDoMask()(x, m, k)


@case("ops.DropoutDoMask", inputs=[rnd(2, 16), np.ones((2, 2), np.uint8), np.array(0.5, np.float32)], error=True)
def p35r_dropout_do_mask_mask_2d(x, m, k):
    return ops.DropoutDoMask()(x, m, k)


@case("ops.DropoutDoMask", inputs=[rnd(20, 16), np.array([255, 0, 15, 240], np.uint8), np.array(0.5, np.float32)],
      error=True)
def p35r_dropout_do_mask_short(x, m, k):
    return ops.DropoutDoMask()(x, m, k)


# ---- SampleDistortedBoundingBoxV2 --------------------------------------------------------------------
_SDBB = "ops.SampleDistortedBoundingBoxV2"


def _crop_facts(isz, begin, size, bboxes, lo, hi):
    """What every valid crop satisfies: inside the image, its area fraction within [lo, hi], the box
    output equal to begin / size over the image size."""
    h, w = ops.cast(isz[0], ms.float32), ops.cast(isz[1], ms.float32)
    b, s = ops.cast(begin, ms.float32), ops.cast(size, ms.float32)
    frac = s[0] * s[1] / (h * w)
    want = ops.stack([b[0] / h, b[1] / w, (b[0] + s[0]) / h, (b[1] + s[1]) / w])
    return (begin.shape, begin.dtype, size.shape, size.dtype, bboxes.shape, bboxes.dtype, begin[2], size[2],
            (b >= 0).all(), b[0] + s[0] <= h, b[1] + s[1] <= w, frac >= lo - 1e-6, frac <= hi + 1e-6,
            (ops.abs(bboxes.reshape(4) - want) < 1e-5).all())


@case(_SDBB, inputs=[np.array([480, 640, 3], np.int32), np.array([[[0.1, 0.2, 0.6, 0.8], [0.5, 0.5, 0.9, 0.7]]],
                                                                  np.float32),
                     np.array([0.1], np.float32), np.array([200, 100, 3], np.uint8), np.array([60, 90, 1], np.int64)])
def p35r_sample_distorted_bounding_box_v2(isz, bb, mc, isz8, isz64):
    a = ops.SampleDistortedBoundingBoxV2(seed=1)(isz, bb, mc)
    b = ops.SampleDistortedBoundingBoxV2(seed=3, seed2=2, aspect_ratio_range=(0.5, 2.0), area_range=(0.1, 0.5))(
        isz, bb, mc)
    c = ops.SampleDistortedBoundingBoxV2(seed=5, area_range=(0.3, 0.9), max_attempts=20)(isz8, bb, mc)
    d = ops.SampleDistortedBoundingBoxV2(seed=7, use_image_if_no_bounding_boxes=True)(
        isz64, ops.zeros((1, 0, 4), ms.float32), mc)
    return (_crop_facts(isz, *a, 0.05, 1.0) + _crop_facts(isz, *b, 0.1, 0.5) + _crop_facts(isz8, *c, 0.3, 0.9)
            + _crop_facts(isz64, *d, 0.05, 1.0))


@case(_SDBB, inputs=[np.array([480, 640, 3], np.int32), np.array([[[0.1, 0.2, 0.6, 0.8]]], np.float32),
                     np.array([0.99], np.float32), np.array([50, 40, 3], np.int16)])
def p35r_sample_distorted_bounding_box_v2_whole_image(isz, bb, mc, isz16):
    # no attempt can cover 99% of the box with at most 10% of the image: the whole image
    return (ops.SampleDistortedBoundingBoxV2(seed=1, area_range=(0.05, 0.1), max_attempts=5)(isz, bb, mc),
            ops.SampleDistortedBoundingBoxV2(seed=2, area_range=(0.02, 0.05), max_attempts=3)(isz16, bb, mc))


@case(_SDBB, inputs=[np.array([480, 640, 3], np.int32), np.array([[[0.1, 0.2, 0.6, 0.8]]], np.float32),
                     np.array(0.1, np.float32)], error=True)
def p35r_sample_distorted_bounding_box_v2_scalar_covered(isz, bb, mc):
    return ops.SampleDistortedBoundingBoxV2(seed=1)(isz, bb, mc)


@case(_SDBB, inputs=[np.array([480, 640, 3], np.float32), np.array([[[0.1, 0.2, 0.6, 0.8]]], np.float32),
                     np.array([0.1], np.float32)], error=True)
def p35r_sample_distorted_bounding_box_v2_float_size(isz, bb, mc):
    return ops.SampleDistortedBoundingBoxV2(seed=1)(isz, bb, mc)


@case(_SDBB, inputs=[np.array([480, 640], np.int32), np.array([[[0.1, 0.2, 0.6, 0.8]]], np.float32),
                     np.array([0.1], np.float32)], error=True)
def p35r_sample_distorted_bounding_box_v2_size_2(isz, bb, mc):
    return ops.SampleDistortedBoundingBoxV2(seed=1)(isz, bb, mc)


@case(_SDBB, inputs=[np.array([480, 640, 3], np.int32), np.array([[0.1, 0.2, 0.6, 0.8]], np.float32),
                     np.array([0.1], np.float32)], error=True)
def p35r_sample_distorted_bounding_box_v2_boxes_2d(isz, bb, mc):
    return ops.SampleDistortedBoundingBoxV2(seed=1)(isz, bb, mc)


@case(_SDBB, inputs=[np.array([480, 640, 3], np.int32), np.zeros((1, 0, 4), np.float32), np.array([0.1], np.float32)],
      error=True)
def p35r_sample_distorted_bounding_box_v2_no_boxes(isz, bb, mc):
    return ops.SampleDistortedBoundingBoxV2(seed=1)(isz, bb, mc)


@case(_SDBB, inputs=[np.array([480, 640, 3], np.int32), np.array([[[0.1, 0.2, 1.6, 0.8]]], np.float32),
                     np.array([0.1], np.float32)], error=True, graph=False,
      reason="pycompile checks the boxes' values when they are known (PyNative, constants): compiled code reads them "
             "unchecked")
def p35r_sample_distorted_bounding_box_v2_box_above_1(isz, bb, mc):
    return ops.SampleDistortedBoundingBoxV2(seed=1)(isz, bb, mc)


@case(_SDBB, inputs=[np.array([480, 640, 3], np.int32), np.array([[[0.1, 0.2, 0.6, 0.8]]], np.float32),
                     np.array([0.1], np.float32)], error=True)
def p35r_sample_distorted_bounding_box_v2_area_order(isz, bb, mc):
    return ops.SampleDistortedBoundingBoxV2(seed=1, area_range=(0.5, 0.1))(isz, bb, mc)


@case(_SDBB, error=True, graph=False, reason="the constructor's argument checks")
def p35r_sample_distorted_bounding_box_v2_int_ratio():
    return ops.SampleDistortedBoundingBoxV2(aspect_ratio_range=(1, 2))


@case(_SDBB, error=True, graph=False, reason="the constructor's argument checks")
def p35r_sample_distorted_bounding_box_v2_attempts_zero():
    return ops.SampleDistortedBoundingBoxV2(max_attempts=0)
