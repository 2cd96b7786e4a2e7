"""The conformance table: the nn layers of src/pycompile/nn/layers_more.py and ops.lp_pool1d /
lp_pool2d (ops/entries/lp_pool.py), recorded from the MindSpore 2.10 wheel. Part of the table
loaded after cases.py, whose helpers it uses."""
group("layers_more")

W45 = H.uniform((5, 4), seed=H.seed_of("W45"))
B5 = H.uniform((5,), seed=H.seed_of("B5"))


@cell("nn.Linear", inputs=[rnd(2, 3, 4)])
def lm_linear():
    return nn.Linear(4, 5, weight_init=Tensor(W45), bias_init=Tensor(B5))


@cell("nn.Linear", inputs=[rnd(2, 4)])
def lm_linear_no_bias():
    return nn.Linear(4, 5, bias=False, weight_init=Tensor(W45))


@cell("nn.Linear", inputs=[rnd(2, 3)], error=True)
def lm_linear_wrong_features():
    return nn.Linear(4, 5, weight_init=Tensor(W45), bias_init=Tensor(B5))


@cell("nn.Unflatten", inputs=[rnd(2, 6, 3)])
def lm_unflatten():
    return nn.Unflatten(1, (2, 3))


@cell("nn.Unflatten", inputs=[rnd(2, 6)])
def lm_unflatten_last():
    return nn.Unflatten(-1, (3, 2))


@cell("nn.Tril", inputs=[rnd(2, 4, 4)])
def lm_tril():
    return nn.Tril()


@cell("nn.Triu", inputs=[rnd(3, 5)])
def lm_triu():
    return nn.Triu()


@cell("nn.Threshold", inputs=[rnd(3, 4)])
def lm_threshold():
    return nn.Threshold(0.1, 20.0)


@cell("nn.SoftShrink", inputs=[rnd(3, 4)])
def lm_softshrink():
    return nn.SoftShrink(0.3)


@cell("nn.HShrink", inputs=[rnd(3, 4)])
def lm_hshrink():
    return nn.HShrink(0.7)


@cell("nn.FastGelu", inputs=[rnd(3, 4, lo=-4, hi=4)])
def lm_fastgelu():
    return nn.FastGelu()


@cell("nn.Softmax2d", inputs=[rnd(2, 3, 2, 2)])
def lm_softmax2d():
    return nn.Softmax2d()


@cell("nn.PixelShuffle", inputs=[rnd(1, 8, 2, 3)])
def lm_pixel_shuffle():
    return nn.PixelShuffle(2)


@cell("nn.PixelUnshuffle", inputs=[rnd(1, 2, 4, 6)])
def lm_pixel_unshuffle():
    return nn.PixelUnshuffle(2)


@cell("nn.ChannelShuffle", inputs=[rnd(1, 6, 2, 2)])
def lm_channel_shuffle():
    return nn.ChannelShuffle(3)


@cell("nn.Range", inputs=[], graph=False, reason="a Cell with no input: nothing to compile")
def lm_range_int():
    return nn.Range(1, 8, 2)


@cell("nn.Range", inputs=[], graph=False, reason="a Cell with no input: nothing to compile")
def lm_range_float():
    return nn.Range(1.0, 2.0, 0.25)


@cell("nn.Norm", inputs=[rnd(2, 3, 4)])
def lm_norm_axis():
    return nn.Norm(axis=1)


@cell("nn.Norm", inputs=[rnd(2, 3)])
def lm_norm_all_keep():
    return nn.Norm(keep_dims=True)


@cell("nn.Moments", inputs=[rnd(2, 3, 4)])
def lm_moments():
    return nn.Moments(axis=(0, 2))


@cell("nn.Moments", inputs=[rnd(2, 3, dtype="float16")])
def lm_moments_f16_keep():
    return nn.Moments(axis=1, keep_dims=True)


@cell("nn.ReduceLogSumExp", inputs=[rnd(2, 3, 4, lo=-20, hi=20)])
def lm_reduce_logsumexp():
    return nn.ReduceLogSumExp(1)


@cell("nn.ReduceLogSumExp", inputs=[rnd(2, 3)])
def lm_reduce_logsumexp_keep():
    return nn.ReduceLogSumExp((0, 1), keep_dims=True)


@cell("nn.MatMul", inputs=[rnd(2, 3, 4), rnd(5, 4)])
def lm_matmul_broadcast():
    return nn.MatMul(transpose_x2=True)


@cell("nn.MatMul", inputs=[rnd(4), rnd(4)])
def lm_matmul_vectors():
    return nn.MatMul()


@cell("nn.Dropout3d", inputs=[rnd(1, 2, 2, 2, 2)])
def lm_dropout3d_eval():
    net = nn.Dropout3d(0.5)
    net.set_train(False)
    return net


@cell("nn.L1Regularizer", inputs=[rnd(3, 4)])
def lm_l1_regularizer():
    return nn.L1Regularizer(0.5)


@cell("nn.ClipByNorm", inputs=[rnd(3, 4, lo=-5, hi=5), np.array(2.0, np.float32)])
def lm_clip_by_norm():
    return nn.ClipByNorm()


@cell("nn.ClipByNorm", inputs=[rnd(3, 4, lo=-5, hi=5), np.array(1.0, np.float32)],
      oracle_bug="with an axis the wheel scales row k by a norm mixing other rows: [[3, 4], [6, 8]] clipped to 1 along axis 1 gives [0.83, 1.11] for [6, 8], whose norm exceeds clip_norm, against the documentation; pycompile scales each row by its own norm (tests/nn/test_layers_more.py)")
def lm_clip_by_norm_axis():
    return nn.ClipByNorm(axis=1)


@cell("nn.LPPool1d", inputs=[rnd(2, 3, 7, lo=0, hi=3)])
def lm_lppool1d():
    return nn.LPPool1d(2, 3, 2)


@cell("nn.LPPool2d", inputs=[rnd(1, 2, 5, 6, lo=0, hi=3)])
def lm_lppool2d():
    return nn.LPPool2d(3, 2)


@case("ops.lp_pool1d", inputs=[rnd(3, 6, lo=-1, hi=3)])
def lm_lp_pool1d_2d_input(x):
    return ops.lp_pool1d(x, 1, 2)


@case("ops.lp_pool2d", inputs=[rnd(1, 1, 5, 5, lo=0, hi=3)])
def lm_lp_pool2d_ceil(x):
    return ops.lp_pool2d(x, 2, (2, 3), 2, True)


@case("ops.lp_pool2d", inputs=[rnd(1, 1, 4, 4)], error=True)
def lm_lp_pool2d_zero_norm(x):
    return ops.lp_pool2d(x, 0, 2)


@cell("nn.GaussianNLLLoss", inputs=[rnd(3, 4), rnd(3, 4), rnd(3, 4, lo=0.1, hi=2)])
def lm_gaussian_nll():
    return nn.GaussianNLLLoss(full=True, reduction="sum")


@cell("nn.HingeEmbeddingLoss", inputs=[rnd(3, 4), np.array([[1, -1, 1, -1]] * 3, np.float32)])
def lm_hinge_embedding():
    return nn.HingeEmbeddingLoss(margin=0.5)


@cell("nn.PoissonNLLLoss", inputs=[rnd(3, 4), rnd(3, 4, lo=0, hi=4)])
def lm_poisson_nll():
    return nn.PoissonNLLLoss()


@cell("nn.PoissonNLLLoss", inputs=[rnd(3, 4, lo=0.1, hi=3), rnd(3, 4, lo=0, hi=4)])
def lm_poisson_nll_full():
    return nn.PoissonNLLLoss(log_input=False, full=True, reduction="none")


@cell("nn.ImageGradients", inputs=[rnd(2, 3, 4, 5)])
def lm_image_gradients():
    return nn.ImageGradients()


@cell("nn.ImageGradients", inputs=[rnd(1, 1, 1, 3)])
def lm_image_gradients_one_row():
    return nn.ImageGradients()


@cell("nn.PSNR", inputs=[rnd(2, 3, 4, 4, lo=0, hi=1), rnd(2, 3, 4, 4, lo=0, hi=1)],
      trust_graph="the wheel's PyNative PSNR fails inside its own scalar_cast of max_val (ValueError: For 'ScalarCast' ... got Float32); its graph mode computes the documented PSNR")
def lm_psnr():
    return nn.PSNR()


@cell("nn.PSNR", inputs=[ints(1, 3, 4, 4, lo=0, hi=255, dtype="uint8"), ints(1, 3, 4, 4, lo=0, hi=255, dtype="uint8")],
      trust_graph="the wheel's PyNative PSNR fails inside its own scalar_cast of max_val (ValueError: For 'ScalarCast' ... got Float32); its graph mode computes the documented PSNR")
def lm_psnr_uint8():
    return nn.PSNR(max_val=255)


@cell("nn.PSNR", inputs=[rnd(2, 3, 4), rnd(2, 3, 4)], error=True)
def lm_psnr_3d():
    return nn.PSNR()


@cell("nn.CentralCrop", inputs=[rnd(3, 7, 9)])
def lm_central_crop():
    return nn.CentralCrop(0.5)


@cell("nn.CentralCrop", inputs=[rnd(2, 1, 10, 6)])
def lm_central_crop_batch():
    return nn.CentralCrop(0.33)


@cell("nn.ReflectionPad3d", inputs=[rnd(1, 2, 3, 3, 4)])
def lm_reflection_pad3d():
    return nn.ReflectionPad3d((1, 2, 0, 1, 2, 1))


@cell("nn.ReplicationPad3d", inputs=[rnd(1, 2, 2, 3, 3)])
def lm_replication_pad3d():
    return nn.ReplicationPad3d(1)


_MM_X = np.array([[0.1, 0.2, 0.4, 0.8], [0.3, -0.2, 0.5, 0.1], [1.5, 0.0, -1.0, 0.2]], np.float32)
_MM_Y = np.array([3, 0, 2], np.int64)


@case("ops.multi_margin_loss", inputs=[_MM_X, _MM_Y])
def lm_multi_margin_loss(x, y):
    return ops.multi_margin_loss(x, y)


@case("ops.multi_margin_loss", inputs=[_MM_X, _MM_Y, np.array([1.0, 2.0, 0.5, 3.0], np.float32)])
def lm_multi_margin_loss_weight_p2(x, y, w):
    return ops.multi_margin_loss(x, y, p=2, margin=2, weight=w, reduction="sum")


@case("ops.multi_margin_loss", inputs=[_MM_X, _MM_Y], error=True)
def lm_multi_margin_loss_float_margin(x, y):
    return ops.multi_margin_loss(x, y, margin=1.5)


@case("ops.MultiMarginLoss", inputs=[_MM_X, _MM_Y])
def lm_multi_margin_loss_prim(x, y):
    return ops.MultiMarginLoss(2, 0.5, "none")(x, y)


@cell("nn.MultiMarginLoss", inputs=[_MM_X, _MM_Y])
def lm_nn_multi_margin_loss():
    return nn.MultiMarginLoss(margin=0.7, weight=Tensor(np.array([1.0, 2.0, 3.0, 4.0], np.float32)))


@case("ops.lrn", "ops.LRN", inputs=[rnd(2, 6, 3, 2)])
def lm_lrn(x):
    return ops.lrn(x), ops.LRN(2, 0.5, 0.2, 0.75)(x)


@cell("nn.LRN", inputs=[rnd(1, 4, 2, 2)])
def lm_nn_lrn():
    return nn.LRN(depth_radius=1, bias=2.0, alpha=1e-4, beta=0.75)


@cell("nn.TripletMarginWithDistanceLoss", inputs=[rnd(3, 4), rnd(3, 4), rnd(3, 4)])
def lm_triplet_distance():
    return nn.TripletMarginWithDistanceLoss(margin=2.0)


@cell("nn.TripletMarginWithDistanceLoss", inputs=[rnd(3, 4), rnd(3, 4), rnd(3, 4)])
def lm_triplet_distance_swap_none():
    return nn.TripletMarginWithDistanceLoss(swap=True, reduction="none", margin=0.5)


_UNPOOL_X = np.array([[[[5.0, 7.0], [13.0, 15.0]], [[-1.0, 2.5], [3.0, 0.5]]]], np.float32)
_UNPOOL_I = np.array([[[[5, 7], [13, 15]], [[0, 3], [9, 14]]]], np.int64)


@case("ops.max_unpool2d", inputs=[_UNPOOL_X, _UNPOOL_I])
def lm_max_unpool2d(x, i):
    return ops.max_unpool2d(x, i, 2, 2)


@case("ops.max_unpool2d", inputs=[_UNPOOL_X, _UNPOOL_I])
def lm_max_unpool2d_output_size(x, i):
    return ops.max_unpool2d(x, i, 2, 2, 0, (1, 2, 5, 5))


@cell("nn.MaxUnpool2d", inputs=[_UNPOOL_X[0], _UNPOOL_I[0]])
def lm_nn_max_unpool2d_unbatched():
    return nn.MaxUnpool2d(2)


@case("ops.max_unpool1d", inputs=[np.array([[[2.0, 4.0]], [[1.0, -3.0]]], np.float32),
                                  np.array([[[1, 3]], [[0, 2]]], np.int64)])
def lm_max_unpool1d(x, i):
    return ops.max_unpool1d(x, i, 2)


@cell("nn.MaxUnpool3d", inputs=[np.array([[[[[1.0, 2.0]]]]], np.float32), np.array([[[[[1, 6]]]]], np.int64)])
def lm_nn_max_unpool3d():
    return nn.MaxUnpool3d(2, 2)


@cell("nn.LGamma", inputs=[rnd(3, 4, lo=0.1, hi=6)])
def lm_lgamma():
    return nn.LGamma()


@cell("nn.DiGamma", inputs=[rnd(3, 4, lo=0.1, hi=6)])
def lm_digamma():
    return nn.DiGamma()


@cell("nn.IGamma", inputs=[rnd(3, 4, lo=0.2, hi=4), rnd(3, 4, lo=0.0, hi=5)])
def lm_igamma():
    return nn.IGamma()


@cell("nn.LBeta", inputs=[rnd(3, 4, lo=0.1, hi=5), rnd(3, 4, lo=0.1, hi=5)])
def lm_lbeta():
    return nn.LBeta()
