"""The conformance table: MindSpore 2.10 image Primitives that were missing (src/pycompile/ops/entries/
image_prim34.py): HSVToRGB, AdjustHue, AdjustSaturation, ResizeArea, ScaleAndTranslate, ExtractGlimpse,
ExtractVolumePatches. Part of the table loaded after cases.py."""
group("img34")


def _img34_ops(name):
    return __import__(ops.__name__ + ".operations." + name, fromlist=[name])


def _i32(*v):
    return np.array(v, np.int32)


def _f32(*v):
    return np.array(v, np.float32)


_CTOR = "the constructor's argument checks"

# ---- HSVToRGB -------------------------------------------------------------------------------------------
# hue 0, 1/6, 0.5 (grey), a hue just under 1, exactly 1, and hues outside [0, 1] (MindSpore's kernel: a sixth
# of the turn outside 0..5 gives (v, m, m))
_HSV = np.array([[0.0, 0.0, 0.0], [0.0, 1.0, 1.0], [1.0 / 6.0, 1.0, 1.0], [0.5, 0.0, 0.5],
                 [0.999, 0.2, 0.9], [1.0, 0.7, 0.4], [-0.2, 0.5, 0.8], [1.3, 0.6, 0.5]], np.float32).reshape(1, 2, 4, 3)


@case("ops.HSVToRGB", "ops.operations.HSVToRGB", variants={
    "f32": [_HSV, rnd(2, 3, 5, 3, lo=0.0, hi=1.0)],
    "f16": [_HSV.astype(np.float16), rnd(2, 3, 5, 3, lo=0.0, hi=1.0, dtype="float16")],
    "f64": [_HSV.astype(np.float64), rnd(2, 3, 5, 3, lo=0.0, hi=1.0, dtype="float64")]}, id="img34_hsv_to_rgb")
def _img34_hsv_to_rgb(edges, x):
    return ops.HSVToRGB()(edges), _img34_ops("image_ops").HSVToRGB()(x)


@case("ops.HSVToRGB", inputs=[rnd(2, 4, 3, lo=0.0, hi=1.0)], error=True)
def img34_hsv_to_rgb_rank_3(x):
    return ops.HSVToRGB()(x)


@case("ops.HSVToRGB", inputs=[rnd(1, 2, 2, 4, lo=0.0, hi=1.0)], error=True)
def img34_hsv_to_rgb_4_channels(x):
    return ops.HSVToRGB()(x)


@case("ops.HSVToRGB", inputs=[ints(1, 2, 2, 3, lo=0, hi=2)], error=True)
def img34_hsv_to_rgb_int32(x):
    return ops.HSVToRGB()(x)


# ---- AdjustHue / AdjustSaturation ----------------------------------------------------------------------
# grey pixels, two channels tied for the largest or the smallest, black, values outside [0, 1]
_RGB_EDGES = np.array([[0.3, 0.3, 0.3], [0.8, 0.8, 0.2], [0.1, 0.6, 0.6], [0.0, 0.0, 0.0], [0.9, 0.1, 0.9],
                       [1.0, 0.0, 0.0], [-0.5, 0.25, 1.5], [2.0, 1.0, -1.0]], np.float32).reshape(2, 4, 3)


@case("ops.AdjustHue", "ops.operations.AdjustHue", variants={
    "f32": [rnd(2, 4, 5, 3, lo=0.0, hi=1.0), _RGB_EDGES, _f32(0.3)[0], _f32(-0.7)[0], _f32(1.6)[0]],
    "f16": [rnd(2, 4, 5, 3, lo=0.0, hi=1.0, dtype="float16"), _RGB_EDGES.astype(np.float16), _f32(0.3)[0],
            _f32(-0.7)[0], _f32(1.6)[0]],
    "f64": [rnd(2, 4, 5, 3, lo=0.0, hi=1.0, dtype="float64"), _RGB_EDGES.astype(np.float64), _f32(0.3)[0],
            _f32(-0.7)[0], _f32(1.6)[0]]}, id="img34_adjust_hue")
def _img34_adjust_hue(x, edges, d1, d2, d3):
    op = ops.AdjustHue()
    return op(x, d1), op(edges, d1), op(edges, d2), op(edges, d3), _img34_ops("image_ops").AdjustHue()(x, d2)


@case("ops.AdjustHue", inputs=[rnd(2, 1, 3, 2, 3, lo=0.0, hi=1.0), _f32(-2.25)[0], _f32(0.0)[0], _f32(0.5)[0]])
def img34_adjust_hue_rank_5_whole_turns(x, d1, d2, d3):
    op = ops.AdjustHue()
    return op(x, d1), op(x, d2), op(x, d3)


@case("ops.AdjustHue", inputs=[rnd(2, 2, 3, lo=0.0, hi=1.0), np.array(0.3, np.float16)], error=True)
def img34_adjust_hue_delta_f16(x, d):
    return ops.AdjustHue()(x, d)


@case("ops.AdjustHue", inputs=[rnd(2, 2, 3, lo=0.0, hi=1.0), _f32(0.3)], error=True)
def img34_adjust_hue_delta_1d(x, d):
    return ops.AdjustHue()(x, d)


@case("ops.AdjustHue", inputs=[rnd(2, 3, lo=0.0, hi=1.0), _f32(0.3)[0]], error=True)
def img34_adjust_hue_rank_2(x, d):
    return ops.AdjustHue()(x, d)


@case("ops.AdjustHue", inputs=[rnd(2, 2, 4, lo=0.0, hi=1.0), _f32(0.3)[0]], error=True)
def img34_adjust_hue_4_channels(x, d):
    return ops.AdjustHue()(x, d)


@case("ops.AdjustSaturation", "ops.operations.AdjustSaturation", variants={
    "f32": [rnd(2, 4, 5, 3, lo=0.0, hi=1.0), _RGB_EDGES, _f32(0.3)[0], _f32(1.7)[0], _f32(0.0)[0]],
    "f16": [rnd(2, 4, 5, 3, lo=0.0, hi=1.0, dtype="float16"), _RGB_EDGES.astype(np.float16), _f32(0.3)[0],
            _f32(1.7)[0], _f32(0.0)[0]],
    "f64": [rnd(2, 4, 5, 3, lo=0.0, hi=1.0, dtype="float64"), _RGB_EDGES.astype(np.float64), _f32(0.3)[0],
            _f32(1.7)[0], _f32(0.0)[0]]}, id="img34_adjust_saturation")
def _img34_adjust_saturation(x, edges, s1, s2, s3):
    op = ops.AdjustSaturation()
    return (op(x, s1), op(x, s2), op(edges, s1), op(edges, s2), op(edges, s3),
            _img34_ops("image_ops").AdjustSaturation()(x, s3))


@case("ops.AdjustSaturation", inputs=[rnd(3, 1, 2, 4, 3, lo=0.0, hi=1.0), _f32(-0.5)[0], _f32(1e6)[0]])
def img34_adjust_saturation_rank_5_clipped(x, s1, s2):
    op = ops.AdjustSaturation()
    return op(x, s1), op(x, s2)


@case("ops.AdjustSaturation", inputs=[rnd(2, 3, lo=0.0, hi=1.0), _f32(0.3)[0]], error=True)
def img34_adjust_saturation_rank_2(x, s):
    return ops.AdjustSaturation()(x, s)


@case("ops.AdjustSaturation", inputs=[rnd(2, 2, 4, lo=0.0, hi=1.0), _f32(0.3)[0]], error=True)
def img34_adjust_saturation_4_channels(x, s):
    return ops.AdjustSaturation()(x, s)


@case("ops.AdjustSaturation", inputs=[rnd(2, 2, 3, lo=0.0, hi=1.0), _f32(0.3, 0.5)], error=True)
def img34_adjust_saturation_scale_1d(x, s):
    return ops.AdjustSaturation()(x, s)


# ---- ResizeArea -----------------------------------------------------------------------------------------
@case("ops.ResizeArea", "ops.operations.ResizeArea",
      inputs=[rnd(2, 5, 7, 3), _i32(3, 4), _i32(8, 11), _i32(1, 1), _i32(5, 7), _i32(2, 7)])
def img34_resize_area_sizes(x, down, up, one, same, rows):
    a, c = ops.ResizeArea(), _img34_ops("image_ops").ResizeArea(align_corners=True)
    return (a(x, down), a(x, up), a(x, one), a(x, same), a(x, rows),
            c(x, down), c(x, up), c(x, one), c(x, same), c(x, rows))


@case("ops.ResizeArea", inputs=[rnd(1, 4, 6, 2, lo=-20, hi=20, dtype="float16"),
                                rnd(1, 4, 6, 2, lo=-20, hi=20, dtype="float64"),
                                ints(2, 3, 5, 1, lo=-100, hi=100), ints(2, 3, 5, 1, lo=0, hi=255, dtype="uint8"),
                                ints(1, 3, 3, 2, lo=-100, hi=100, dtype="int8"),
                                ints(1, 3, 3, 2, lo=0, hi=60000, dtype="uint16"), _i32(3, 4), _i32(2, 2)])
def img34_resize_area_dtypes(h, d, i, u, b, w, s1, s2):
    a = ops.ResizeArea()
    return a(h, s1), a(d, s1), a(i, s1), a(u, s2), ops.ResizeArea(True)(b, s2), a(w, s1)


@case("ops.ResizeArea", inputs=[rnd(1, 3, 3, 1), _i32(0, 3)], error=True)
def img34_resize_area_size_zero(x, size):
    return ops.ResizeArea()(x, size)


@case("ops.ResizeArea", inputs=[rnd(1, 3, 3, 1), np.array([2, 2], np.int64)], error=True)
def img34_resize_area_size_int64(x, size):
    return ops.ResizeArea()(x, size)


@case("ops.ResizeArea", inputs=[rnd(3, 3, 1), _i32(2, 2)], error=True)
def img34_resize_area_rank_3(x, size):
    return ops.ResizeArea()(x, size)


@case("ops.ResizeArea", inputs=[rnd(1, 3, 3, 1), _i32(2, 2, 2)], error=True)
def img34_resize_area_size_3_values(x, size):
    return ops.ResizeArea()(x, size)


@case("ops.ResizeArea", graph=False, reason=_CTOR, error=True)
def img34_resize_area_align_corners_int():
    return ops.ResizeArea(1)


# ---- ScaleAndTranslate ----------------------------------------------------------------------------------
_KERNELS = ("lanczos1", "lanczos3", "lanczos5", "gaussian", "box", "triangle", "keyscubic", "mitchellcubic")


@case("ops.ScaleAndTranslate", "ops.operations.ScaleAndTranslate",
      inputs=[rnd(2, 5, 7, 3), _i32(3, 4), _f32(0.6, 0.7), _f32(0.3, -0.4)])
def img34_scale_and_translate_down(x, size, scale, shift):
    out = []
    for k in _KERNELS:
        out.append(ops.ScaleAndTranslate(k)(x, size, scale, shift))
        out.append(_img34_ops("image_ops").ScaleAndTranslate(kernel_type=k, antialias=False)(x, size, scale, shift))
    return tuple(out)


@case("ops.ScaleAndTranslate", inputs=[rnd(1, 4, 5, 2), _i32(9, 12), _f32(1.7, 2.3), _f32(-0.8, 1.5)])
def img34_scale_and_translate_up(x, size, scale, shift):
    out = []
    for k in _KERNELS:
        out.append(ops.ScaleAndTranslate(k, True)(x, size, scale, shift))
        out.append(ops.ScaleAndTranslate(k, False)(x, size, scale, shift))
    return tuple(out)


@case("ops.ScaleAndTranslate", inputs=[rnd(1, 4, 6, 2, lo=-20, hi=20, dtype="float16"),
                                       rnd(1, 4, 6, 2, lo=-20, hi=20, dtype="float64"),
                                       ints(2, 4, 6, 1, lo=-100, hi=100),
                                       ints(1, 4, 6, 2, lo=-100, hi=100, dtype="int8"),
                                       ints(1, 4, 6, 2, lo=-100, hi=100, dtype="int64"),
                                       _i32(3, 8), _f32(0.8, 1.3), _f32(0.5, -1.0), _f32(1.0, 1.0), _f32(40.0, -60.0)])
def img34_scale_and_translate_dtypes_far(h, d, i, b, l, size, scale, shift, one, far):
    op = ops.ScaleAndTranslate()
    return (op(h, size, scale, shift), op(d, size, scale, shift), op(i, size, scale, shift),
            ops.ScaleAndTranslate("triangle")(b, size, scale, shift), op(l, size, one, shift), op(d, size, one, far),
            ops.ScaleAndTranslate("box", False)(d, size, one, one))


@case("ops.ScaleAndTranslate", inputs=[rnd(1, 3, 3, 1), _i32(3, 4), _f32(0.0, 1.0), _f32(0.0, 0.0)], error=True)
def img34_scale_and_translate_scale_zero(x, size, scale, shift):
    return ops.ScaleAndTranslate()(x, size, scale, shift)


@case("ops.ScaleAndTranslate", inputs=[rnd(1, 3, 3, 1), _i32(3, 4), _f32(1.0, 1e-6), _f32(0.0, 0.0)], error=True)
def img34_scale_and_translate_scale_tiny(x, size, scale, shift):
    # positive (the shape check passes), but at most 1e-5: the kernel's "divisor scale cannot be 0"
    return ops.ScaleAndTranslate()(x, size, scale, shift)


@case("ops.ScaleAndTranslate", inputs=[rnd(1, 3, 3, 1), np.array([3, 4], np.int64), _f32(1.0, 1.0), _f32(0.0, 0.0)],
      error=True)
def img34_scale_and_translate_size_int64(x, size, scale, shift):
    return ops.ScaleAndTranslate()(x, size, scale, shift)


@case("ops.ScaleAndTranslate", inputs=[rnd(3, 3, 1), _i32(3, 4), _f32(1.0, 1.0), _f32(0.0, 0.0)], error=True)
def img34_scale_and_translate_rank_3(x, size, scale, shift):
    return ops.ScaleAndTranslate()(x, size, scale, shift)


@case("ops.ScaleAndTranslate", inputs=[ints(1, 3, 3, 1, lo=0, hi=200, dtype="uint8"), _i32(3, 4), _f32(1.0, 1.0),
                                       _f32(0.0, 0.0)], error=True)
def img34_scale_and_translate_uint8(x, size, scale, shift):
    return ops.ScaleAndTranslate()(x, size, scale, shift)


@case("ops.ScaleAndTranslate", graph=False, reason=_CTOR, error=True)
def img34_scale_and_translate_kernel_unknown():
    return ops.ScaleAndTranslate("cubic")


@case("ops.ScaleAndTranslate", graph=False, reason=_CTOR, error=True)
def img34_scale_and_translate_antialias_int():
    return ops.ScaleAndTranslate("box", 1)


# ---- ExtractGlimpse -------------------------------------------------------------------------------------
_GLIMPSE_IMG = np.arange(2 * 5 * 6 * 2, dtype=np.float32).reshape(2, 5, 6, 2) * 0.5 - 7.0


@case("ops.ExtractGlimpse", "ops.operations.ExtractGlimpse",
      inputs=[_GLIMPSE_IMG, _i32(3, 2), _i32(7, 9), _f32(0.1, -0.3, -0.5, 0.6).reshape(2, 2),
              _f32(1.7, -0.6, 3.5, 4.9).reshape(2, 2), _f32(-1.2, 2.0, 0.4, -0.9).reshape(2, 2)])
def img34_extract_glimpse_zero_noise(x, small, big, off, pix, far):
    EG = _img34_ops("image_ops").ExtractGlimpse
    zero = dict(uniform_noise=False, noise="zero")
    return (EG(**zero)(x, small, off), EG(False, False, **zero)(x, small, pix), EG(True, False, **zero)(x, small, pix),
            EG(False, True, **zero)(x, small, off), EG(**zero)(x, big, off), EG(**zero)(x, small, far),
            EG(False, False, **zero)(x, big, far))


@case("ops.ExtractGlimpse", inputs=[_GLIMPSE_IMG, _i32(3, 2), _f32(0.1, -0.3, -0.5, 0.6).reshape(2, 2),
                                    _f32(1.0, 2.0, 2.0, 3.0).reshape(2, 2)])
def img34_extract_glimpse_noise_inside(x, size, off, pix):
    # windows inside the image: no noise is drawn, the values are the image's
    return (ops.ExtractGlimpse()(x, size, off), ops.ExtractGlimpse(False, False)(x, size, pix),
            ops.ExtractGlimpse(False, False, False, "gaussian")(x, size, pix))


@case("ops.ExtractGlimpse", graph=False, reason="random noise: shapes, dtypes, the image part and the noise's range",
      inputs=[_GLIMPSE_IMG, _i32(4, 6), _f32(0.9, 0.9, 0.0, 0.0).reshape(2, 2)])
def img34_extract_glimpse_random_noise(x, size, off):
    u = ops.ExtractGlimpse()(x, size, off)
    g = ops.ExtractGlimpse(True, True, False, "gaussian")(x, size, off)
    v = ops.ExtractGlimpse(True, True, False, "uniform")(x, size, off)
    # batch 0's window starts at row 2, column 2: its rows 0..2 and columns 0..3 are the image's, its row 3
    # and columns 4..5 noise; batch 1's window lies inside the image
    noise_u, noise_g, noise_v = u[0, :, 4:, :], g[0, 3:, :, :], v[0, 3:, :, :]
    return (u.shape, u.dtype, g.shape, g.dtype, u[:, :3, :4, :], g[:, :3, :4, :], u[1], g[1], v[1],
            bool((noise_u >= -1.0).all()), bool((noise_u <= 1.0).all()), bool((noise_g >= 0.0).all()),
            bool((noise_v >= -1.0).all()), bool((noise_v <= 1.0).all()))


@case("ops.ExtractGlimpse", inputs=[_GLIMPSE_IMG.astype(np.float16), _i32(3, 2), np.zeros((2, 2), np.float32)],
      error=True)
def img34_extract_glimpse_f16(x, size, off):
    return ops.ExtractGlimpse(uniform_noise=False, noise="zero")(x, size, off)


@case("ops.ExtractGlimpse", inputs=[_GLIMPSE_IMG, np.array([3, 2], np.int64), np.zeros((2, 2), np.float32)],
      error=True)
def img34_extract_glimpse_size_int64(x, size, off):
    return ops.ExtractGlimpse(uniform_noise=False, noise="zero")(x, size, off)


@case("ops.ExtractGlimpse", inputs=[_GLIMPSE_IMG, _i32(3, 2), np.zeros((3, 2), np.float32)], error=True)
def img34_extract_glimpse_offsets_batch(x, size, off):
    return ops.ExtractGlimpse(uniform_noise=False, noise="zero")(x, size, off)


@case("ops.ExtractGlimpse", inputs=[_GLIMPSE_IMG, _i32(3, 2), np.zeros((2, 3), np.float32)], error=True)
def img34_extract_glimpse_offsets_3_columns(x, size, off):
    return ops.ExtractGlimpse(uniform_noise=False, noise="zero")(x, size, off)


@case("ops.ExtractGlimpse", inputs=[_GLIMPSE_IMG, _i32(3, 2), np.zeros(2, np.float32)], error=True)
def img34_extract_glimpse_offsets_1d(x, size, off):
    return ops.ExtractGlimpse(uniform_noise=False, noise="zero")(x, size, off)


@case("ops.ExtractGlimpse", inputs=[_GLIMPSE_IMG, _i32(0, 2), np.zeros((2, 2), np.float32)], error=True)
def img34_extract_glimpse_size_zero(x, size, off):
    return ops.ExtractGlimpse(uniform_noise=False, noise="zero")(x, size, off)


@case("ops.ExtractGlimpse", graph=False, reason=_CTOR, error=True)
def img34_extract_glimpse_zero_with_uniform_noise():
    return ops.ExtractGlimpse(True, True, True, "zero")


@case("ops.ExtractGlimpse", graph=False, reason=_CTOR, error=True)
def img34_extract_glimpse_noise_unknown():
    return ops.ExtractGlimpse(True, True, False, "salt")


@case("ops.ExtractGlimpse", graph=False, reason=_CTOR, error=True)
def img34_extract_glimpse_centered_int():
    return ops.ExtractGlimpse(1, True, False, "zero")


# ---- ExtractVolumePatches -------------------------------------------------------------------------------
@case("ops.ExtractVolumePatches", "ops.operations.ExtractVolumePatches",
      inputs=[rnd(2, 2, 3, 4, 4), rnd(1, 3, 5, 5, 6)])
def img34_extract_volume_patches_valid_same(x, y):
    EVP = _img34_ops("array_ops").ExtractVolumePatches
    return (EVP((1, 1, 2, 2, 2), (1, 1, 1, 2, 1), "VALID")(x), EVP((1, 1, 2, 3, 2), (1, 1, 2, 2, 3), "SAME")(x),
            EVP((1, 1, 4, 3, 2), (1, 1, 1, 1, 1), "SAME")(y), EVP((1, 1, 3, 2, 4), (1, 1, 2, 3, 1), "SAME")(y),
            EVP((1, 1, 5, 5, 6), (1, 1, 1, 1, 1), "VALID")(y))


@case("ops.ExtractVolumePatches", inputs=[rnd(1, 2, 4, 3, 5)])
def img34_extract_volume_patches_short_forms(x):
    return (ops.ExtractVolumePatches((2, 2, 2), (1, 1, 1), "valid")(x), ops.ExtractVolumePatches(2, 2, "same")(x),
            ops.ExtractVolumePatches([1, 1, 3, 1, 2], [1, 1, 3, 2, 2], "same")(x))


@case("ops.ExtractVolumePatches", inputs=[rnd(1, 2, 3, 3, 4, dtype="float16"), rnd(1, 2, 3, 3, 4, dtype="float64"),
                                          ints(1, 2, 3, 3, 4, lo=-50, hi=50),
                                          ints(1, 2, 3, 3, 4, lo=0, hi=255, dtype="uint8"),
                                          ints(1, 2, 3, 3, 4, lo=-50, hi=50, dtype="int64")])
def img34_extract_volume_patches_dtypes(h, d, i, u, l):
    op = ops.ExtractVolumePatches((1, 1, 2, 2, 3), (1, 1, 1, 2, 2), "SAME")
    return op(h), op(d), op(i), op(u), op(l)


@case("ops.ExtractVolumePatches", inputs=[rnd(2, 3, 4, 4)], error=True)
def img34_extract_volume_patches_rank_4(x):
    return ops.ExtractVolumePatches((1, 1, 2, 2, 2), (1, 1, 1, 1, 1), "VALID")(x)


@case("ops.ExtractVolumePatches", inputs=[rnd(1, 1, 3, 4, 4)], error=True)
def img34_extract_volume_patches_kernel_past_input(x):
    return ops.ExtractVolumePatches((1, 1, 4, 2, 2), (1, 1, 1, 1, 1), "VALID")(x)


@case("ops.ExtractVolumePatches", inputs=[bools(1, 1, 3, 4, 4)], error=True)
def img34_extract_volume_patches_bool(x):
    return ops.ExtractVolumePatches((1, 1, 2, 2, 2), (1, 1, 1, 1, 1), "VALID")(x)


@case("ops.ExtractVolumePatches", graph=False, reason=_CTOR, error=True)
def img34_extract_volume_patches_kernel_on_channels():
    return ops.ExtractVolumePatches((1, 2, 2, 2, 2), (1, 1, 1, 1, 1), "VALID")


@case("ops.ExtractVolumePatches", graph=False, reason=_CTOR, error=True)
def img34_extract_volume_patches_padding_full():
    return ops.ExtractVolumePatches((1, 1, 2, 2, 2), (1, 1, 1, 1, 1), "FULL")
