"""The conformance table: a grid of the CNN family against MindSpore 2.10 - convolutions over
shapes, strides, pad modes and paddings, dilations, groups (depthwise included) and biases in
1-D, 2-D and 3-D, transposed convolutions, pooling in every pad mode with ceil mode, dilation,
count_include_pad and divisor_override, adaptive pooling, batch norm in its modes, group norm,
padding modes, resizing modes, unfold / fold, and the user errors. Loaded after cases_cnn.py
(it uses conv_weight, bn_params, BNTrainStep and X4 from there)."""
group("cnn_grid")


def _conv_cell(cls, cin, cout, k, wshape, seed, **kw):
    def build():
        bias = {"bias_init": conv_weight(cout, seed=seed + 500)} if kw.get("has_bias") else {}
        return getattr(nn, cls)(cin, cout, k, weight_init=conv_weight(*wshape, seed=seed), **bias, **kw)
    return build


# (input shape, cout, kernel, options): one case each
_CONV2D = [
    ((2, 3, 9, 8), 8, 3, dict(stride=2, pad_mode="same", has_bias=True)),
    ((1, 4, 10, 9), 6, (3, 2), dict(stride=(2, 1), pad_mode="valid", dilation=(1, 2))),
    ((1, 4, 7, 7), 8, 3, dict(pad_mode="pad", padding=(2, 0, 1, 3), group=2, has_bias=True)),
    ((2, 6, 8, 8), 6, 3, dict(pad_mode="pad", padding=1, group=6)),
    ((1, 6, 9, 9), 12, 5, dict(stride=2, pad_mode="same", dilation=2, group=3)),
    ((1, 2, 12, 11), 20, 7, dict(stride=3, pad_mode="pad", padding=3)),
    ((1, 16, 6, 6), 33, 1, dict(pad_mode="valid", has_bias=True)),
    ((1, 3, 5, 19), 17, (1, 5), dict(pad_mode="same", stride=(1, 3))),
]
for _i, (_shape, _cout, _k, _kw) in enumerate(_CONV2D):
    _kk = (_k, _k) if isinstance(_k, int) else _k
    _wshape = (_cout, _shape[1] // _kw.get("group", 1)) + _kk
    add(f"grid_conv2d_{_i}", ("nn.Conv2d",), _conv_cell("Conv2d", _shape[1], _cout, _k, _wshape, 100 + _i, **_kw),
        [rnd(*_shape, **X4)], kind="cell")

_CONV1D = [
    ((2, 4, 11), 6, 3, dict(stride=2, pad_mode="valid", dilation=2)),
    ((1, 6, 9), 6, 5, dict(pad_mode="pad", padding=2, group=3, has_bias=True)),
    ((1, 3, 10), 5, 4, dict(pad_mode="same", stride=3)),
]
for _i, (_shape, _cout, _k, _kw) in enumerate(_CONV1D):
    _wshape = (_cout, _shape[1] // _kw.get("group", 1), _k)
    add(f"grid_conv1d_{_i}", ("nn.Conv1d",), _conv_cell("Conv1d", _shape[1], _cout, _k, _wshape, 200 + _i, **_kw),
        [rnd(*_shape, **X4)], kind="cell")

_CONV3D = [
    ((1, 2, 4, 5, 6), 3, 2, dict(stride=(1, 2, 1), pad_mode="valid", has_bias=True)),
    ((1, 3, 3, 4, 4), 4, 3, dict(pad_mode="pad", padding=(1, 0, 1, 1, 0, 1), dilation=(1, 1, 2))),
]
for _i, (_shape, _cout, _k, _kw) in enumerate(_CONV3D):
    _kk = (_k,) * 3 if isinstance(_k, int) else _k
    _wshape = (_cout, _shape[1]) + _kk
    add(f"grid_conv3d_{_i}", ("nn.Conv3d",), _conv_cell("Conv3d", _shape[1], _cout, _k, _wshape, 300 + _i, **_kw),
        [rnd(*_shape, **X4)], kind="cell")

_TRANSPOSE = [
    ((1, 4, 3, 4), 6, 3, dict(stride=2, pad_mode="same", group=2)),
    ((2, 3, 4, 3), 2, (2, 3), dict(stride=(2, 1), pad_mode="valid", dilation=(1, 2), has_bias=True)),
    ((1, 2, 5, 5), 3, 3, dict(stride=2, pad_mode="pad", padding=(1, 0, 2, 1))),
    ((1, 2, 4, 4), 3, 3, dict(stride=2, pad_mode="pad", padding=1, output_padding=1)),
]
for _i, (_shape, _cout, _k, _kw) in enumerate(_TRANSPOSE):
    _kk = (_k, _k) if isinstance(_k, int) else _k
    _wshape = (_shape[1], _cout // _kw.get("group", 1)) + _kk
    add(f"grid_conv2d_transpose_{_i}", ("nn.Conv2dTranspose",),
        _conv_cell("Conv2dTranspose", _shape[1], _cout, _k, _wshape, 400 + _i, **_kw), [rnd(*_shape, **X4)],
        kind="cell")


@cell("nn.Conv1dTranspose", inputs=[rnd(2, 3, 5, **X4)])
def grid_conv1d_transpose_pad():
    return nn.Conv1dTranspose(3, 2, 3, stride=3, pad_mode="pad", padding=1, has_bias=True,
                              weight_init=conv_weight(3, 2, 3, seed=450), bias_init=conv_weight(2, seed=451))


@case("ops.conv2d", "ops.conv1d", "ops.conv3d",
      inputs=[rnd(1, 4, 6, 7, **X4), rnd(6, 2, 3, 3, lo=-0.5, hi=0.5), rnd(4, lo=-0.5, hi=0.5),
              rnd(2, 4, 9, **X4), rnd(4, 4, 2, lo=-0.5, hi=0.5), rnd(1, 2, 3, 4, 4, **X4),
              rnd(2, 2, 2, 2, 2, lo=-0.5, hi=0.5)])
def grid_conv_functional(x, w, b, x1, w1, x3, w3):
    return (ops.conv2d(x, w, None, 2, "pad", (1, 2), 1, 2), ops.conv2d(x, w[:4], b, 1, "same", 0, 2, 2),
            ops.conv1d(x1, w1, b, 2, "pad", 1), ops.conv3d(x3, w3, None, (1, 2, 1), "valid"))


@case("ops.conv_transpose2d", inputs=[rnd(1, 4, 3, 4, **X4), rnd(4, 3, 3, 2, lo=-0.5, hi=0.5)])
def grid_conv_transpose_functional(x, w):
    return ops.conv_transpose2d(x, w, None, 2, 1, 1), ops.conv_transpose2d(x, w, None, (1, 2), (0, 1), 0, 1, 2)


# ---- pooling ---------------------------------------------------------------------------------------------
_POOL = [
    ("MaxPool2d", dict(kernel_size=3, stride=2, pad_mode="pad", padding=1, ceil_mode=True), (1, 2, 7, 8)),
    ("MaxPool2d", dict(kernel_size=(3, 2), stride=(1, 2), pad_mode="pad", padding=(1, 1), dilation=(2, 1)),
     (2, 2, 8, 7)),
    ("MaxPool2d", dict(kernel_size=2, stride=1, pad_mode="same"), (1, 3, 5, 6)),
    ("MaxPool2d", dict(kernel_size=3, stride=2), (3, 6, 7)),
    ("AvgPool2d", dict(kernel_size=3, stride=2, pad_mode="pad", padding=1, ceil_mode=True), (1, 2, 7, 8)),
    ("AvgPool2d", dict(kernel_size=3, stride=2, pad_mode="pad", padding=1, ceil_mode=True, count_include_pad=False),
     (1, 2, 8, 7)),
    ("AvgPool2d", dict(kernel_size=2, stride=2, divisor_override=3), (1, 2, 6, 6)),
    ("AvgPool2d", dict(kernel_size=(2, 3), stride=(1, 2), pad_mode="same"), (2, 2, 5, 7)),
    ("MaxPool1d", dict(kernel_size=3, stride=2, pad_mode="pad", padding=1, ceil_mode=True), (2, 3, 8)),
    ("MaxPool1d", dict(kernel_size=2, stride=2, pad_mode="same"), (2, 3, 7)),
    ("AvgPool1d", dict(kernel_size=3, stride=2, pad_mode="pad", padding=1, count_include_pad=False), (2, 3, 9)),
    ("AvgPool1d", dict(kernel_size=4, stride=3), (2, 3, 11)),
]
for _i, (_cls, _kw, _shape) in enumerate(_POOL):
    add(f"grid_pool_{_i}_{_cls}", (f"nn.{_cls}",), (lambda c=_cls, kw=_kw: getattr(nn, c)(**kw)),
        [rnd(*_shape, **X4)], kind="cell")


@cell("nn.MaxPool1d", inputs=[rnd(2, 2, 9, **X4)])
def grid_maxpool1d_indices():
    return nn.MaxPool1d(3, 2, pad_mode="pad", padding=1, return_indices=True)


@cell("nn.AdaptiveMaxPool2d", inputs=[rnd(2, 3, 7, 5, **X4)])
def grid_adaptive_maxpool2d_indices():
    return nn.AdaptiveMaxPool2d((3, 2), return_indices=True)


@cell("nn.AdaptiveMaxPool2d", inputs=[rnd(2, 4, 6, **X4)])
def grid_adaptive_maxpool2d_unbatched():
    return nn.AdaptiveMaxPool2d((4, None))


@cell("nn.AdaptiveAvgPool2d", inputs=[rnd(1, 2, 7, 9, **X4)])
def grid_adaptive_avgpool2d_uneven():
    return nn.AdaptiveAvgPool2d((3, 4))


@case("ops.max_pool2d", "ops.avg_pool2d", "ops.avg_pool1d", "ops.adaptive_avg_pool2d", "ops.adaptive_max_pool2d",
      "ops.adaptive_avg_pool1d", inputs=[rnd(2, 3, 7, 8, **X4), rnd(2, 3, 12, **X4)])
def grid_pool_functional(x, x1):
    m, i = ops.max_pool2d(x, 3, 2, 1, 1, True, True)
    return (m, i, ops.max_pool2d(x, (2, 3), None, (1, 0), (1, 2)), ops.avg_pool2d(x, 3, 2, 1, True, False),
            ops.avg_pool2d(x, 2, 2, 0, False, True, 2), ops.avg_pool1d(x1, 3, 2, 1, True, False),
            ops.adaptive_avg_pool2d(x, (3, 5)), ops.adaptive_max_pool2d(x, 3), ops.adaptive_avg_pool1d(x1, 4))


# ---- normalization -----------------------------------------------------------------------------------------
@cell("nn.BatchNorm2d", inputs=[rnd(3, 4, 3, 5, **X4)])
def grid_bn2d_train_momentum():
    net = BNTrainStep(bn_params(nn.BatchNorm2d(4, eps=1e-3, momentum=0.5), 61))
    net.set_train(True)
    return net


@cell("nn.BatchNorm2d", inputs=[rnd(2, 3, 4, 4, **X4)])
def grid_bn2d_batch_stats_in_eval():
    net = BNTrainStep(bn_params(nn.BatchNorm2d(3, use_batch_statistics=True), 62))
    net.set_train(False)
    return net


@cell("nn.BatchNorm2d", inputs=[rnd(2, 3, 4, 4, **X4)])
def grid_bn2d_moving_stats_in_train():
    net = BNTrainStep(bn_params(nn.BatchNorm2d(3, use_batch_statistics=False), 63))
    net.set_train(True)
    return net


@cell("nn.BatchNorm1d", inputs=[rnd(4, 3, 5, **X4)])
def grid_bn1d_3d_train():
    net = BNTrainStep(bn_params(nn.BatchNorm1d(3), 64))
    net.set_train(True)
    return net


@cell("nn.BatchNorm1d", inputs=[rnd(4, 3, 5, **X4)])
def grid_bn1d_3d_eval():
    net = bn_params(nn.BatchNorm1d(3), 65)
    net.set_train(False)
    return net


@cell("nn.GroupNorm", inputs=[rnd(2, 6, 3, 2, **X4)])
def grid_groupnorm_3_groups():
    return bn_params(nn.GroupNorm(3, 6, eps=1e-3), 66)


@cell("nn.GroupNorm", inputs=[rnd(3, 4, 5, **X4)])
def grid_groupnorm_3d_input():
    return bn_params(nn.GroupNorm(4, 4), 67)


@case("ops.group_norm", "ops.batch_norm", inputs=[rnd(2, 4, 3, 3, **X4), rnd(4, lo=0.5, hi=1.5), rnd(4, **X4)])
def grid_norm_functional(x, g, b):
    return (ops.group_norm(x, 2, g, b, 1e-4), ops.batch_norm(x, b, g, g, b, False, 0.1, 1e-3))


# ---- padding and resizing ---------------------------------------------------------------------------------
@case("ops.pad", inputs=[rnd(1, 2, 4, 5, **X4), rnd(2, 3, 5, **X4)])
def grid_pad_modes(x, x3):
    return (ops.pad(x, (2, 1, 1, 3), mode="replicate"), ops.pad(x, (1, 2, 3, 1), mode="reflect"),
            ops.pad(x, (2, -1, 0, 1, 1, 0), value=-2.0), ops.pad(x, (1, 3, 2, 0), mode="circular"),
            ops.pad(x3, (2, 1), mode="reflect"), ops.pad(x3, (1, 1, 1, 0), mode="replicate"))


@case("ops.pad", inputs=[rnd(1, 2, 4, 5, **X4)], error=True)
def grid_err_pad_mode_rank(x):
    return ops.pad(x, (1, 3), mode="circular")


@cell("nn.ReflectionPad2d", inputs=[rnd(1, 2, 4, 4, **X4)])
def grid_reflection_pad2d():
    return nn.ReflectionPad2d((1, 2, 3, 0))


@cell("nn.ReplicationPad2d", inputs=[rnd(1, 2, 3, 4, **X4)])
def grid_replication_pad2d():
    return nn.ReplicationPad2d(2)


@cell("nn.ZeroPad2d", inputs=[rnd(1, 2, 3, 3, **X4)])
def grid_zero_pad2d():
    return nn.ZeroPad2d((1, 0, 2, 1))


@cell("nn.ConstantPad3d", inputs=[rnd(1, 2, 2, 3, 2, **X4)])
def grid_constant_pad3d():
    return nn.ConstantPad3d((1, 0, 0, 2, 1, 1), 0.25)


@case("ops.interpolate", inputs=[rnd(1, 2, 5, 4, **X4), rnd(2, 3, 6, **X4)])
def grid_interpolate_modes(x, x1):
    return (ops.interpolate(x, scale_factor=(1.5, 2.5), mode="bilinear", align_corners=True,
                            recompute_scale_factor=True),
            ops.interpolate(x, size=(3, 7), mode="bilinear"), ops.interpolate(x, size=(8, 3), mode="nearest"),
            ops.interpolate(x1, size=11, mode="linear"), ops.interpolate(x1, size=4, mode="linear", align_corners=True),
            ops.interpolate(x, size=(2, 3), mode="area"), ops.interpolate(x, size=(9, 7), mode="nearest-exact"),
            ops.interpolate(x1, scale_factor=0.5, mode="area"))


@case("ops.interpolate", inputs=[rnd(2, 3, 4, 5, **X4)])
def grid_interpolate_bicubic(x):
    return (ops.interpolate(x, size=(6, 7), mode="bicubic"), ops.interpolate(x, size=(6, 7), mode="bicubic",
                                                                            align_corners=True),
            ops.interpolate(x, size=(3, 2), mode="bicubic"), ops.interpolate(x, size=(9, 4), mode="bicubic",
                                                                            align_corners=True),
            ops.interpolate(x, size=(1, 1), mode="bicubic", align_corners=True),
            ops.interpolate(x, scale_factor=(1.5, 2.0), mode="bicubic", recompute_scale_factor=True))


@case("ops.interpolate", inputs=[rnd(1, 2, 3, 4, 5, **X4)])
def grid_interpolate_trilinear(x):
    return (ops.interpolate(x, size=(4, 5, 6), mode="trilinear"),
            ops.interpolate(x, size=(2, 7, 3), mode="trilinear", align_corners=True),
            ops.interpolate(x, scale_factor=(2.0, 1.5, 0.5), mode="trilinear"),
            ops.interpolate(x, scale_factor=(1.5, 1.5, 1.5), mode="trilinear", recompute_scale_factor=True))


def _bicubic_loss(x, w):
    return (ops.interpolate(x, size=(6, 7), mode="bicubic") * w).sum()


def _bicubic_corners_loss(x):
    y = ops.interpolate(x, size=(3, 9), mode="bicubic", align_corners=True)
    return (y * y).sum()


def _trilinear_loss(x, w):
    return (ops.interpolate(x, size=(2, 5, 3), mode="trilinear") * w).sum()


@case("ops.interpolate", inputs=[rnd(1, 2, 4, 5, **X4), rnd(1, 2, 6, 7, **X4), rnd(1, 2, 3, 4, 5, **X4),
                                 rnd(1, 2, 2, 5, 3, **X4)])
def grid_interpolate_cubic_trilinear_grads(x, w, x3, w3):
    return (ms.grad(_bicubic_loss)(x, w), ms.grad(_bicubic_corners_loss)(x), ms.grad(_trilinear_loss)(x3, w3))


@case("ops.ResizeBicubic", inputs=[rnd(1, 2, 4, 5, **X4), rnd(2, 1, 5, 3, dtype="float16", **X4)])
def grid_resize_bicubic_class(x, h):
    size = Tensor(np.array([6, 3], np.int32))
    return (ops.ResizeBicubic()(x, size), ops.ResizeBicubic(True)(x, size), ops.ResizeBicubic(False, True)(x, size),
            ops.ResizeBicubic(False, True)(h, Tensor(np.array([2, 7], np.int32))))


@case("ops.ResizeBicubic", inputs=[rnd(1, 2, 4, 5, **X4)], error=True)
def grid_err_resize_bicubic_both(x):
    return ops.ResizeBicubic(True, True)(x, Tensor(np.array([6, 3], np.int32)))


@cell("nn.Upsample", inputs=[rnd(1, 2, 3, 4, **X4)])
def grid_upsample_bicubic():
    return nn.Upsample(size=(5, 7), mode="bicubic", align_corners=True)


@case("ops.interpolate", inputs=[rnd(1, 2, 3, 4, **X4)], error=True)
def grid_err_interpolate_bicubic_scale(x):
    # bicubic takes scale_factor only with recompute_scale_factor=True (MindSpore 2.10)
    return ops.interpolate(x, scale_factor=(2.0, 2.0), mode="bicubic")


@cell("nn.Upsample", inputs=[rnd(1, 2, 3, 4, **X4)], error=True)
def grid_err_upsample_bilinear_scale():
    # MindSpore 2.10 takes scale_factor for bilinear only with recompute_scale_factor=True
    return nn.Upsample(scale_factor=(2.0, 2.0), mode="bilinear", align_corners=False)


@cell("nn.Upsample", inputs=[rnd(1, 2, 3, 4, **X4)])
def grid_upsample_bilinear():
    return nn.Upsample(scale_factor=(2.0, 2.0), mode="bilinear", recompute_scale_factor=True)


@cell("nn.Upsample", inputs=[rnd(1, 2, 3, 4, **X4)])
def grid_upsample_nearest():
    return nn.Upsample(size=(7, 9))


@case("ops.ResizeBilinearV2", "ops.ResizeNearestNeighbor", inputs=[rnd(1, 2, 4, 5, **X4)])
def grid_resize_classes(x):
    return (ops.ResizeBilinearV2(align_corners=True)(x, (7, 3)), ops.ResizeBilinearV2(False, True)(x, (6, 8)),
            ops.ResizeNearestNeighbor((7, 3), half_pixel_centers=True)(x))


@case("ops.unfold", "ops.fold", inputs=[rnd(1, 2, 5, 6, **X4)])
def grid_unfold_fold(x):
    u = ops.unfold(x, (2, 3), 1, 1, 2)
    return u, ops.fold(u, Tensor(np.array([5, 6], np.int32)), (2, 3), 1, 1, 2)


@cell("nn.Flatten", inputs=[rnd(2, 3, 4, 5)])
def grid_flatten_4d():
    return nn.Flatten()


# ---- dropout in training: zeros or scaled values, by property -------------------------------------------------
class DropoutProperty(nn.Cell):
    def __init__(self, drop):
        super().__init__()
        self.drop = drop

    def construct(self, x):
        y = self.drop(x)
        kept = ops.logical_or(y == 0, ops.abs(y - x * 2.0) < 1e-5).all()
        return y.shape, y.dtype, kept


@cell("nn.Dropout", inputs=[rnd(8, 50, lo=0.5, hi=1.0)])
def grid_dropout_train():
    net = DropoutProperty(nn.Dropout(p=0.5))
    net.set_train(True)
    return net


@cell("nn.Dropout2d", inputs=[rnd(2, 8, 3, 3, lo=0.5, hi=1.0)])
def grid_dropout2d_train():
    net = DropoutProperty(nn.Dropout2d(p=0.5))
    net.set_train(True)
    return net


# ---- the user's errors -------------------------------------------------------------------------------------
@cell("nn.Conv2d", inputs=[rnd(2, 5, 5, **X4)], error=True)
def grid_err_conv2d_rank():
    return nn.Conv2d(2, 3, 3, weight_init=conv_weight(3, 2, 3, 3, seed=1))


@cell("nn.Conv2d", inputs=[rnd(1, 2, 4, 4, **X4)], error=True)
def grid_err_conv2d_kernel_too_big():
    return nn.Conv2d(2, 3, 5, pad_mode="valid", weight_init=conv_weight(3, 2, 5, 5, seed=1))


@cell("nn.Conv1d", inputs=[rnd(1, 3, 8, **X4)], error=True)
def grid_err_conv1d_channels():
    return nn.Conv1d(2, 3, 3, weight_init=conv_weight(3, 2, 3, seed=1))


@cell("nn.Conv2d", inputs=[rnd(1, 2, 4, 4, **X4)], error=True)
def grid_err_conv2d_pad_with_same():
    return nn.Conv2d(2, 3, 3, pad_mode="same", padding=1, weight_init=conv_weight(3, 2, 3, 3, seed=1))


@cell("nn.Conv2d", inputs=[rnd(1, 4, 4, 4, **X4)], error=True)
def grid_err_conv2d_group():
    return nn.Conv2d(4, 6, 3, group=4, weight_init=conv_weight(6, 1, 3, 3, seed=1))


@cell("nn.BatchNorm2d", inputs=[rnd(2, 4, 3, 3, **X4)], error=True)
def grid_err_bn_channels():
    net = nn.BatchNorm2d(3)
    net.set_train(False)
    return net


@cell("nn.MaxPool2d", inputs=[rnd(1, 2, 3, 3, **X4)], error=True)
def grid_err_maxpool_kernel_too_big():
    return nn.MaxPool2d(5, 1)


@cell("nn.MaxPool2d", inputs=[rnd(1, 2, 3, 3, **X4)], error=True)
def grid_err_maxpool_padding_without_pad_mode():
    return nn.MaxPool2d(2, 1, padding=1)
