"""The conformance table: the pooling / convolution / padding Primitives of MindSpore's CPU op tests
(issue 33, pool33): MaxPoolWithArgmax / V2 and the _grad_ops MaxPoolGradWithArgmax / V2,
MaxPoolGradGrad, MaxPool3DGradGrad, MaxPoolGradGradWithArgmax; FractionalMaxPool / FractionalAvgPool
and their gradients; Conv3DTranspose, Conv2DBackpropFilter; PadV3 / PadV3Grad and ops.pad's
circular crop. Part of the table loaded after cases.py."""
group("pool33")


def _G():
    return __import__(ops.__name__ + ".operations._grad_ops", fromlist=["_grad_ops"])


# ---- max pooling with its argmax ---------------------------------------------------------------------
@case("ops.MaxPoolWithArgmax", inputs=[rnd(2, 3, 7, 6)])
def max_pool_with_argmax_valid_same(x):
    a = ops.MaxPoolWithArgmax(kernel_size=3, strides=2, pad_mode="valid")(x)
    b = ops.MaxPoolWithArgmax(kernel_size=(2, 3), strides=(1, 2), pad_mode="SAME")(x)
    return a + b


@case("ops.MaxPoolWithArgmax", inputs=[rnd(1, 2, 13, 11)])
def max_pool_with_argmax_same_windows(x):
    # 'same' windows start max(0, (k - s) // 2) before the input (not MaxPool's 'same' padding)
    return (ops.MaxPoolWithArgmax(kernel_size=6, strides=(4, 3), pad_mode="same")(x) +
            ops.MaxPoolWithArgmax(kernel_size=(7, 5), strides=(2, 4), pad_mode="same")(x) +
            ops.MaxPoolWithArgmax(kernel_size=3, strides=2, pad_mode="same")(x) +
            ops.MaxPoolWithArgmax(kernel_size=5, strides=1, pad_mode="same")(x))


@case("ops.MaxPoolWithArgmax", inputs=[rnd(2, 3, 6, 6, dtype="float16")])
def max_pool_with_argmax_f16(x):
    return ops.MaxPoolWithArgmax(kernel_size=2, strides=2)(x)


@case("ops.MaxPoolWithArgmax", graph=False, reason="the constructor's argument checks", error=True)
def max_pool_with_argmax_bad_pad_mode():
    return ops.MaxPoolWithArgmax(kernel_size=2, strides=2, pad_mode="pad")


@case("ops.MaxPoolWithArgmaxV2", inputs=[rnd(2, 3, 9, 8)])
def max_pool_with_argmax_v2_values(x):
    a = ops.MaxPoolWithArgmaxV2(kernel_size=3, strides=2, pads=1, dilation=(1, 1), ceil_mode=True)(x)
    b = ops.MaxPoolWithArgmaxV2((2, 3), (2, 1), pads=(1, 0), dilation=(2, 1), argmax_type=ms.int32)(x)
    return a + b


@case("ops.operations", inputs=[rnd(2, 3, 6, 5), rnd(2, 3, 3, 3)])
def max_pool_grad_with_argmax_roundtrip(x, dy):
    # the forward's argmax (per sample over (C, H, W)) routes dy back; overlapping windows add up
    _, arg = ops.MaxPoolWithArgmax(kernel_size=2, strides=2, pad_mode="same")(x)
    g = _G().MaxPoolGradWithArgmax(kernel_size=2, strides=2, pad_mode="SAME")(x, dy, arg)
    _, arg3 = ops.MaxPoolWithArgmax(kernel_size=3, strides=(2, 1))(x)
    dy3 = ops.ones(arg3.shape, ms.float32)
    return g, _G().MaxPoolGradWithArgmax(kernel_size=3, strides=(2, 1))(x, dy3, arg3)


@case("ops.operations", inputs=[rnd(2, 3, 7, 7), rnd(2, 3, 4, 4)])
def max_pool_grad_with_argmax_v2_roundtrip(x, dy):
    _, arg = ops.MaxPoolWithArgmaxV2(kernel_size=3, strides=2, pads=1)(x)
    return _G().MaxPoolGradWithArgmaxV2(kernel_size=3, strides=2, pads=1)(x, dy, arg)


@case("ops.operations", inputs=[rnd(2, 3, 6, 5), rnd(2, 3, 6, 5)])
def max_pool_grad_grad_values(x, g):
    out = ops.MaxPool(kernel_size=3, strides=2, pad_mode="same")(x)
    a = _G().MaxPoolGradGrad(kernel_size=3, strides=2, pad_mode="SAME")(x, out, g)
    out2 = ops.MaxPool(kernel_size=2, strides=1)(x)
    return a, _G().MaxPoolGradGrad(kernel_size=2, strides=1, pad_mode="VALID")(x, out2, g)


@case("ops.operations", inputs=[rnd(1, 2, 4, 5, 5), rnd(1, 2, 4, 5, 5)])
def max_pool3d_grad_grad_values(x, g):
    out = ops.MaxPool3D(kernel_size=2, strides=2, pad_mode="same")(x)
    return _G().MaxPool3DGradGrad(kernel_size=2, strides=2, pad_mode="SAME")(x, out, g)


@case("ops.operations", inputs=[rnd(2, 3, 6, 5), rnd(2, 3, 6, 5)])
def max_pool_grad_grad_with_argmax_values(x, g):
    _, arg = ops.MaxPoolWithArgmax(kernel_size=3, strides=2, pad_mode="same")(x)
    return _G().MaxPoolGradGradWithArgmax(kernel_size=3, strides=2, pad_mode="SAME")(x, g, arg)


# ---- fractional pooling (the sizes that divide: no random draw) -----------------------------------------
@case("ops.FractionalMaxPool", inputs=[rnd(2, 6, 9, 3)])
def fractional_max_pool_even(x):
    return ops.FractionalMaxPool([1.0, 2.0, 3.0, 1.0])(x) + \
        ops.FractionalMaxPool([1.0, 3.0, 3.0, 1.0], overlapping=True)(x)


@case("ops.FractionalAvgPool", inputs=[rnd(2, 6, 9, 3)])
def fractional_avg_pool_even(x):
    return ops.FractionalAvgPool([1.0, 2.0, 3.0, 1.0])(x) + \
        ops.FractionalAvgPool([1.0, 3.0, 3.0, 1.0], overlapping=True)(x)


@case("ops.FractionalAvgPool", inputs=[ints(1, 6, 6, 2, lo=0, hi=50)])
def fractional_avg_pool_int(x):
    return ops.FractionalAvgPool([1.0, 2.0, 2.0, 1.0], overlapping=True)(x)


@case("ops.FractionalMaxPool", inputs=[rnd(1, 4, 4, 1)], error=True)
def fractional_max_pool_ratio_first_not_one(x):
    return ops.FractionalMaxPool([2.0, 1.5, 1.5, 1.0])(x)


# unequal windows given as sequences: rows [0, 2), [2, 3), [3, 6); columns [0, 1), [1, 4), [4, 5)
_ROWS = np.array([0, 2, 3, 6], np.int64)
_COLS = np.array([0, 1, 4, 5], np.int64)


@case("ops.operations", inputs=[rnd(1, 6, 5, 3), rnd(1, 3, 3, 3), _ROWS, _COLS])
def fractional_max_pool_grad_windows(x, dy, rows, cols):
    out = ops.zeros((1, 3, 3, 3), ms.float32)
    return _G().FractionalMaxPoolGrad()(x, out, dy, rows, cols), \
        _G().FractionalMaxPoolGrad(overlapping=True)(x, out, dy, rows, cols)


@case("ops.operations", inputs=[rnd(2, 6, 5, 2), rnd(2, 3, 3, 2), _ROWS, _COLS],
      oracle_bug="the wheel's CPU kernel adds every sample's gradient into the first sample (its argmax "
                 "offsets lack the batch offset): sample 1 comes back zero")
def fractional_max_pool_grad_batch2(x, dy, rows, cols):
    return _G().FractionalMaxPoolGrad()(x, ops.zeros((2, 3, 3, 2), ms.float32), dy, rows, cols)


@case("ops.operations", inputs=[rnd(2, 3, 3, 2), _ROWS, _COLS])
def fractional_avg_pool_grad_windows(dy, rows, cols):
    shape = Tensor(np.array([2, 6, 5, 2], np.int64))
    return _G().FractionalAvgPoolGrad()(shape, dy, rows, cols), \
        _G().FractionalAvgPoolGrad(overlapping=True)(shape, dy, rows, cols)


# ---- convolutions ----------------------------------------------------------------------------------------
@case("ops.Conv3DTranspose", inputs=[rnd(1, 2, 3, 4, 5), rnd(2, 3, 2, 3, 2)])
def conv3d_transpose_modes(x, w):
    return (ops.Conv3DTranspose(2, 3, (2, 3, 2), pad_mode="same", stride=2)(x, w),
            ops.Conv3DTranspose(2, 3, (2, 3, 2), pad_mode="pad", pad=(1, 0, 1, 1, 0, 1), stride=2)(x, w),
            ops.Conv3DTranspose(2, 3, (2, 3, 2), pad_mode="pad", pad=1, stride=2, output_padding=1)(x, w),
            ops.Conv3DTranspose(2, 3, (2, 3, 2), stride=(2, 3, 1), dilation=(1, 2, 1))(x, w))


@case("ops.Conv3DTranspose", inputs=[rnd(1, 2, 3, 4, 5), rnd(2, 3, 2, 3, 2)], error=True)
def conv3d_transpose_output_padding_same(x, w):
    return ops.Conv3DTranspose(2, 3, (2, 3, 2), pad_mode="same", stride=3, output_padding=1)(x, w)


@case("ops.operations", inputs=[rnd(2, 4, 3, 3), rnd(2, 3, 7, 7)])
def conv2d_backprop_filter_values(dy, x):
    a = _G().Conv2DBackpropFilter(4, 3, pad_mode="valid", stride=2)(dy, x, (4, 3, 3, 3))
    b = _G().Conv2DBackpropFilter(4, 3, pad_mode="same", stride=3)(dy, x, (4, 3, 3, 3))
    return a, b


# ---- padding ---------------------------------------------------------------------------------------------
@case("ops.PadV3", inputs=[rnd(1, 4, 5)])
def pad_v3_modes_negative(x):
    p = Tensor(np.array([1, -1], np.int64))
    return (ops.PadV3("circular")(x, p), ops.PadV3("reflect")(x, (2, -2)), ops.PadV3("edge")(x, (-1, 2)),
            ops.PadV3()(x, (1, 1, -1, 1), Tensor(np.float32(7.0))), ops.PadV3("constant", False)(x, (1, 2, 0, 1), 3.0))


@case("ops.PadV3", inputs=[rnd(1, 2, 3, 4)], error=True)
def pad_v3_reflect_too_few_dims(x):
    return ops.PadV3("reflect")(x[0], (1, 1, 1, 1))


@case("ops.operations", inputs=[rnd(1, 6, 8), np.array([1, 2], np.int64)])
def pad_v3_grad_modes(g, p):
    # the paddings a Tensor argument: compiled by its value
    return (_G().PadV3Grad("reflect")(g, p), _G().PadV3Grad("edge")(g, p), _G().PadV3Grad("circular")(g, p),
            _G().PadV3Grad("circular")(g, (1, -1)))


@case("ops.pad", inputs=[rnd(1, 4, 5)])
def pad_circular_negative(x):
    return ops.pad(x, (1, -1), mode="circular"), ops.pad(x, (-2, 1), mode="circular")
