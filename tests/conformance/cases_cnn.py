"""The conformance table: convolution, normalisation, pooling, padding and resizing (the "CNN"
family of API_USAGE.md). Weights come from arrays or `set_params`; inputs are NCHW unless said.
Part of the table loaded after cases.py."""
group("cnn")

X4 = dict(lo=-1.0, hi=1.0)          # (N, C, H, W) inputs


def conv_weight(*shape, seed=0):
    return Tensor(H.uniform(shape, -0.5, 0.5, seed=H.seed_of("conv", seed)))


# ---- convolution ---------------------------------------------------------------------------------------
@cell("nn.Conv2d", inputs=[rnd(1, 2, 5, 5, **X4)])
def conv2d_same_default():
    # MindSpore's default pad_mode is "same" and has_bias False
    return nn.Conv2d(2, 3, 3, weight_init=conv_weight(3, 2, 3, 3, seed=1))


@cell("nn.Conv2d", inputs=[rnd(2, 2, 6, 5, **X4)])
def conv2d_valid_stride_bias():
    return nn.Conv2d(2, 4, (3, 2), stride=2, pad_mode="valid", has_bias=True,
                     weight_init=conv_weight(4, 2, 3, 2, seed=2), bias_init=conv_weight(4, seed=3))


@cell("nn.Conv2d", inputs=[rnd(1, 4, 6, 6, **X4)])
def conv2d_pad_dilation_group():
    return nn.Conv2d(4, 4, 3, pad_mode="pad", padding=2, dilation=2, group=2,
                     weight_init=conv_weight(4, 2, 3, 3, seed=4))


@cell("nn.Conv2d", inputs=[rnd(1, 2, 5, 5, **X4)])
def conv2d_pad_tuple_stride_same():
    return nn.Conv2d(2, 2, 3, stride=2, pad_mode="same", weight_init=conv_weight(2, 2, 3, 3, seed=5))


@cell("nn.Conv2d", inputs=[rnd(1, 2, 5, 5, **X4)])
def conv2d_pad_four_sides():
    return nn.Conv2d(2, 2, 3, pad_mode="pad", padding=(1, 0, 2, 1), weight_init=conv_weight(2, 2, 3, 3, seed=6))


@cell("nn.Conv2d", inputs=[rnd(1, 3, 5, 5, **X4)], error=True)
def conv2d_wrong_channels():
    return nn.Conv2d(2, 2, 3, weight_init=conv_weight(2, 2, 3, 3, seed=7))


@cell("nn.Conv1d", inputs=[rnd(2, 3, 7, **X4)])
def conv1d_same():
    return nn.Conv1d(3, 2, 3, weight_init=conv_weight(2, 3, 3, seed=8))


@cell("nn.Conv1d", inputs=[rnd(2, 2, 9, **X4)])
def conv1d_pad_stride_bias():
    return nn.Conv1d(2, 4, 3, stride=2, pad_mode="pad", padding=1, has_bias=True, weight_init=conv_weight(4, 2, 3, seed=9),
                     bias_init=conv_weight(4, seed=10))


@cell("nn.Conv2dTranspose", inputs=[rnd(1, 2, 3, 3, **X4)])
def conv2d_transpose_same_stride2():
    return nn.Conv2dTranspose(2, 3, 3, stride=2, weight_init=conv_weight(2, 3, 3, 3, seed=11))


@cell("nn.Conv2dTranspose", inputs=[rnd(1, 2, 4, 4, **X4)])
def conv2d_transpose_valid_bias():
    return nn.Conv2dTranspose(2, 2, 2, stride=2, pad_mode="valid", has_bias=True, weight_init=conv_weight(2, 2, 2, 2, seed=12),
                              bias_init=conv_weight(2, seed=13))


@cell("nn.Conv2dTranspose", inputs=[rnd(1, 2, 4, 4, **X4)])
def conv2d_transpose_pad():
    return nn.Conv2dTranspose(2, 2, 3, stride=1, pad_mode="pad", padding=1, weight_init=conv_weight(2, 2, 3, 3, seed=14))


@cell("nn.Conv1dTranspose", inputs=[rnd(1, 2, 4, **X4)])
def conv1d_transpose():
    return nn.Conv1dTranspose(2, 3, 3, stride=2, weight_init=conv_weight(2, 3, 3, seed=15))


@case("ops.Conv2D", inputs=[rnd(1, 2, 5, 5, **X4), rnd(3, 2, 3, 3, lo=-0.5, hi=0.5)])
def cls_Conv2D(x, w):
    return ops.Conv2D(3, 3)(x, w), ops.Conv2D(3, 3, pad_mode="pad", pad=1, stride=2)(x, w)


@case("ops.Conv2DTranspose", inputs=[rnd(1, 3, 3, 3, **X4), rnd(3, 2, 3, 3, lo=-0.5, hi=0.5)])
def cls_Conv2DTranspose(x, w):
    return ops.Conv2DTranspose(2, 3, pad_mode="valid")(x, w, (1, 2, 5, 5))


@cell("nn.Conv2dBnAct", inputs=[rnd(1, 2, 5, 5, **X4)])
def conv2d_bn_act():
    net = nn.Conv2dBnAct(2, 3, 3, has_bn=True, activation="relu", weight_init=conv_weight(3, 2, 3, 3, seed=16))
    net.set_train(False)
    return net


# ---- normalisation ---------------------------------------------------------------------------------------
def bn_params(net, seed):
    """Moving statistics and affine parameters from arrays (variance positive)."""
    for _, p in net.parameters_and_names():
        arr = H.param_values(p.name, p.shape, np.float32, seed)
        if "variance" in p.name or "gamma" in p.name:
            arr = np.abs(arr) + 0.5
        p.set_data(Tensor(arr))
    return net


@cell("nn.BatchNorm2d", inputs=[rnd(2, 3, 2, 2, **X4)])
def batchnorm2d_eval():
    net = bn_params(nn.BatchNorm2d(3), 21)
    net.set_train(False)
    return net


class BNTrainStep(nn.Cell):
    """A training-mode BatchNorm: its output (batch statistics) and the moving statistics after."""

    def __init__(self, bn):
        super().__init__()
        self.bn = bn

    def construct(self, x):
        y = self.bn(x)
        return y, self.bn.moving_mean + 0, self.bn.moving_variance + 0


@cell("nn.BatchNorm2d", inputs=[rnd(4, 3, 2, 2, **X4)])
def batchnorm2d_train():
    net = BNTrainStep(bn_params(nn.BatchNorm2d(3, momentum=0.8), 22))
    net.set_train(True)
    return net


@cell("nn.BatchNorm2d", inputs=[rnd(2, 3, 2, 2, **X4)])
def batchnorm2d_no_affine_eps():
    net = bn_params(nn.BatchNorm2d(3, eps=1e-3, affine=False), 23)
    net.set_train(False)
    return net


@cell("nn.BatchNorm1d", inputs=[rnd(4, 3, **X4)])
def batchnorm1d_eval():
    net = bn_params(nn.BatchNorm1d(3), 24)
    net.set_train(False)
    return net


@cell("nn.BatchNorm1d", inputs=[rnd(4, 3, **X4)])
def batchnorm1d_train():
    net = BNTrainStep(bn_params(nn.BatchNorm1d(3), 25))
    net.set_train(True)
    return net


@cell("nn.BatchNorm3d", inputs=[rnd(2, 2, 2, 2, 2, **X4)])
def batchnorm3d_eval():
    net = bn_params(nn.BatchNorm3d(2), 26)
    net.set_train(False)
    return net


@cell("nn.GroupNorm", inputs=[rnd(2, 4, 2, 3, **X4)])
def groupnorm():
    return bn_params(nn.GroupNorm(2, 4), 27)


# ---- pooling ---------------------------------------------------------------------------------------------
@cell("nn.MaxPool2d", inputs=[rnd(1, 2, 5, 5, **X4)])
def maxpool2d_default_valid():
    return nn.MaxPool2d(kernel_size=2, stride=2)


@cell("nn.MaxPool2d", inputs=[rnd(1, 2, 5, 5, **X4)])
def maxpool2d_same():
    return nn.MaxPool2d(kernel_size=3, stride=2, pad_mode="same")


@cell("nn.MaxPool2d", inputs=[rnd(1, 2, 5, 5, **X4)])
def maxpool2d_pad_ceil():
    return nn.MaxPool2d(kernel_size=2, stride=2, pad_mode="pad", padding=1, ceil_mode=True)


@cell("nn.MaxPool2d", inputs=[rnd(1, 1, 4, 4, **X4)])
def maxpool2d_return_indices():
    return nn.MaxPool2d(kernel_size=2, stride=2, pad_mode="pad", return_indices=True)


@cell("nn.MaxPool2d", inputs=[rnd(1, 4, 4, 3, **X4)], error=True)
def maxpool2d_nhwc_on_cpu():
    return nn.MaxPool2d(kernel_size=2, stride=2, data_format="NHWC")


@cell("nn.AvgPool2d", inputs=[rnd(1, 4, 4, 3, **X4)], error=True)
def avgpool2d_nhwc_on_cpu():
    return nn.AvgPool2d(kernel_size=2, stride=2, data_format="NHWC")


@cell("nn.MaxPool2d", inputs=[rnd(1, 2, 4, 4, **X4)], error=True)
def maxpool2d_unknown_format():
    return nn.MaxPool2d(kernel_size=2, stride=2, data_format="NCWH")


@cell("nn.MaxPool1d", inputs=[rnd(2, 3, 7, **X4)])
def maxpool1d():
    return nn.MaxPool1d(kernel_size=3, stride=2)


@cell("nn.AvgPool2d", inputs=[rnd(1, 2, 5, 5, **X4)])
def avgpool2d_default_valid():
    return nn.AvgPool2d(kernel_size=2, stride=2)


@cell("nn.AvgPool2d", inputs=[rnd(1, 2, 5, 5, **X4)])
def avgpool2d_same():
    return nn.AvgPool2d(kernel_size=3, stride=2, pad_mode="same")


@cell("nn.AvgPool2d", inputs=[rnd(1, 2, 5, 5, **X4)])
def avgpool2d_pad_exclude_pad():
    return nn.AvgPool2d(kernel_size=3, stride=2, pad_mode="pad", padding=1, count_include_pad=False)


@cell("nn.AdaptiveAvgPool2d", inputs=[rnd(1, 2, 5, 7, **X4)])
def adaptive_avgpool2d():
    return nn.AdaptiveAvgPool2d((2, 3))


@cell("nn.AdaptiveAvgPool2d", inputs=[rnd(2, 3, 4, 4, **X4)])
def adaptive_avgpool2d_global():
    return nn.AdaptiveAvgPool2d(1)


@cell("nn.AdaptiveAvgPool1d", inputs=[rnd(2, 3, 6, **X4)])
def adaptive_avgpool1d():
    return nn.AdaptiveAvgPool1d(3)


@cell("nn.AdaptiveAvgPool1d", inputs=[rnd(2, 3, 7, **X4)], error=True)
def adaptive_avgpool1d_not_divisible():
    # MindSpore 2.10 requires the length to be a multiple of the output size
    return nn.AdaptiveAvgPool1d(3)


@case("ops.MaxPool", "ops.AvgPool", inputs=[rnd(1, 2, 5, 5, **X4)])
def cls_MaxPool_AvgPool(x):
    return ops.MaxPool(2, 2)(x), ops.MaxPool(3, 2, "same")(x), ops.AvgPool(2, 2)(x), ops.AvgPool(3, 1, "same")(x)


@case("ops.AdaptiveAvgPool2D", inputs=[rnd(1, 2, 5, 7, **X4)])
def cls_AdaptiveAvgPool2D(x):
    return ops.AdaptiveAvgPool2D((2, 3))(x)


# ---- padding ---------------------------------------------------------------------------------------------
@cell("nn.Pad", inputs=[rnd(1, 2, 3, 3, **X4)])
def nn_pad_constant():
    return nn.Pad(((0, 0), (0, 0), (1, 2), (2, 1)))


@cell("nn.Pad", inputs=[rnd(1, 2, 3, 3, **X4)])
def nn_pad_reflect():
    return nn.Pad(((0, 0), (0, 0), (1, 1), (2, 2)), mode="REFLECT")


@cell("nn.Pad", inputs=[rnd(1, 2, 3, 3, **X4)])
def nn_pad_symmetric():
    return nn.Pad(((0, 0), (1, 0), (2, 2), (0, 1)), mode="SYMMETRIC")


@case("ops.pad", inputs=[rnd(1, 2, 3, 3, **X4)])
def ops_pad(x):
    return (ops.pad(x, (1, 2)), ops.pad(x, (1, 1, 2, 0), value=0.5), ops.pad(x, (1, 1, 1, 1), mode="reflect"),
            ops.pad(x, (-1, 1)))


@case("ops.Pad", inputs=[rnd(2, 3, **X4)])
def cls_Pad(x):
    return ops.Pad(((1, 2), (0, 1)))(x)


@cell("nn.ConstantPad1d", inputs=[rnd(2, 3, **X4)])
def constant_pad1d():
    return nn.ConstantPad1d((1, 2), 0.5)


@cell("nn.ConstantPad2d", inputs=[rnd(1, 2, 2, 3, **X4)])
def constant_pad2d():
    return nn.ConstantPad2d((1, 0, 2, 1), -1.0)


# ---- resizing --------------------------------------------------------------------------------------------
@case("ops.ResizeNearestNeighbor", inputs=[rnd(1, 2, 3, 4, **X4)])
def cls_ResizeNearestNeighbor(x):
    return ops.ResizeNearestNeighbor((6, 8))(x), ops.ResizeNearestNeighbor((5, 5), align_corners=True)(x)


@case("ops.interpolate", inputs=[rnd(1, 2, 3, 4, **X4)])
def interpolate_nearest(x):
    return ops.interpolate(x, size=(6, 8)), ops.interpolate(x, scale_factor=(2.0, 2.0), recompute_scale_factor=True)


@case("ops.interpolate", inputs=[rnd(1, 2, 3, 4, **X4)])
def interpolate_bilinear(x):
    return (ops.interpolate(x, size=(5, 7), mode="bilinear", align_corners=False),
            ops.interpolate(x, size=(5, 7), mode="bilinear", align_corners=True))


@case("ops.ResizeBilinearV2", inputs=[rnd(1, 2, 3, 4, **X4)])
def cls_ResizeBilinearV2(x):
    return ops.ResizeBilinearV2()(x, (5, 7))


@case("ops.DepthToSpace", inputs=[rnd(1, 8, 2, 3, **X4)])
def cls_DepthToSpace(x):
    return ops.DepthToSpace(2)(x)


@cell("nn.Unfold", inputs=[rnd(1, 2, 4, 4, **X4)])
def nn_unfold():
    return nn.Unfold(ksizes=[1, 2, 2, 1], strides=[1, 2, 2, 1], rates=[1, 1, 1, 1])
