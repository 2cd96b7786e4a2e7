"""The conformance table: the op tail MindSpore's own CPU op tests need (issue 33, tail33):
random_poisson (shapes, dtypes, the mean of many draws, its argument errors), ...
Part of the table loaded after cases.py."""
group("tail")

_POIS_SHAPE = np.array([3, 2], np.int64)
_POIS_RATE = np.array([[5.0, 10.0], [5.0, 1.0]], np.float32)


@case("ops.random_poisson", inputs=[_POIS_RATE])
def random_poisson_shapes(rate):
    a = ops.random_poisson(Tensor(_POIS_SHAPE), rate, seed=5, dtype=ms.int32)
    b = ops.random_poisson(Tensor(_POIS_SHAPE, ms.int32), ops.cast(rate, ms.float16), seed=1, dtype=ms.float64)
    return a.shape, a.dtype, (a >= 0).all(), b.shape, b.dtype, (b == ops.round(b)).all()


@case("ops.random_poisson", inputs=[np.array([0.5, 3.0, 40.0], np.float32)])
def random_poisson_means(rate):
    x = ops.random_poisson(Tensor(np.array([4000], np.int32)), rate, seed=2)
    m = x.mean(0)
    return x.shape, x.dtype, (ops.abs(m - rate) < 0.1 * rate + 0.05).all(), (x >= 0).all()


@case("ops.random_poisson", inputs=[np.array([3, 5], np.float32), np.array([0.5], np.float32)], error=True)
def random_poisson_float_shape(shape, rate):
    return ops.random_poisson(shape, rate, seed=1)


@case("ops.random_poisson", inputs=[np.array([[1, 2], [3, 5]], np.int32), np.array([0.5], np.float32)],
      error=True)
def random_poisson_2d_shape(shape, rate):
    return ops.random_poisson(shape, rate, seed=1)


@case("ops.random_poisson", inputs=[np.array([3, 5], np.int32), np.array([True])], error=True)
def random_poisson_bool_rate(shape, rate):
    return ops.random_poisson(shape, rate, seed=1)


@case("ops.random_poisson", inputs=[np.array([3, 5], np.int32), np.array([0.5], np.float32)], error=True)
def random_poisson_bool_dtype(shape, rate):
    return ops.random_poisson(shape, rate, seed=1, dtype=ms.bool_)


# ---- 3-D pooling: the Primitive forms (pad modes valid / same / pad) and the functional ones ----------
_X5 = rnd(1, 2, 4, 5, 5, lo=-3, hi=3)


@case("ops.MaxPool3D", inputs=[_X5])
def maxpool3d_modes(x):
    return (ops.MaxPool3D(kernel_size=(2, 2, 3), strides=1, pad_mode="VALID")(x),
            ops.MaxPool3D(kernel_size=(2, 2, 3), strides=1, pad_mode="SAME")(x),
            ops.MaxPool3D(kernel_size=2, strides=3, pad_mode="same")(x),
            ops.MaxPool3D(kernel_size=3, strides=2, pad_mode="pad", pad_list=1)(x),
            ops.MaxPool3D(kernel_size=3, strides=2, pad_mode="pad", pad_list=(1, 0, 1, 1, 0, 1), ceil_mode=True)(x))


@case("ops.AvgPool3D", inputs=[_X5])
def avgpool3d_modes(x):
    return (ops.AvgPool3D(kernel_size=(2, 2, 3), strides=1, pad_mode="valid")(x),
            ops.AvgPool3D(kernel_size=(2, 2, 3), strides=1, pad_mode="same")(x),
            ops.AvgPool3D(kernel_size=(2, 2, 3), strides=1, pad_mode="same", count_include_pad=False)(x),
            ops.AvgPool3D(kernel_size=3, strides=2, pad_mode="pad", pad=1)(x),
            ops.AvgPool3D(kernel_size=3, strides=2, pad_mode="pad", pad=1, count_include_pad=False)(x),
            ops.AvgPool3D(kernel_size=3, strides=2, pad_mode="pad", pad=(1, 0, 1, 1, 0, 1), ceil_mode=True)(x),
            ops.AvgPool3D(kernel_size=2, strides=2, divisor_override=3)(x))


@case("ops.avg_pool3d", "ops.max_pool3d", inputs=[_X5])
def pool3d_functional(x):
    m, i = ops.max_pool3d(x, 2, 1, 1, return_indices=True)
    return (ops.avg_pool3d(x, kernel_size=3, stride=1), ops.avg_pool3d(x, 2, 2, 1, count_include_pad=False),
            ops.avg_pool3d(x, 3, 2, 1, ceil_mode=True, divisor_override=5), ops.max_pool3d(x, 3),
            ops.max_pool3d(x, (2, 3, 3), (1, 2, 2), (1, 1, 0), ceil_mode=True), m, i)


@case("ops.MaxPool3D", inputs=[rnd(2, 4, 5, 5)], error=True)
def maxpool3d_rank4(x):
    return ops.MaxPool3D(kernel_size=2)(x)


# ---- Tensor.index_add: both overloads ----------------------------------------------------------------
@case("Tensor.index_add", inputs=[np.arange(9, dtype=np.float32).reshape(3, 3),
                                  np.array([[0.5, 1.0], [1.0, 1.5], [2.0, 2.5]], np.float32)])
def tensor_index_add_dim(x, source):
    return x.index_add(1, Tensor(np.array([0, 2], np.int32)), source)


@case("Tensor.index_add", inputs=[np.arange(9, dtype=np.float32).reshape(3, 3),
                                  np.array([[0.5, 1.0, -1.0]], np.float32)])
def tensor_index_add_alpha(x, source):
    return x.index_add(0, Tensor(np.array([1], np.int32)), source, alpha=3)


@case("Tensor.index_add", inputs=[np.arange(9, dtype=np.float32).reshape(3, 3),
                                  np.array([[0.5, 1.0], [1.0, 1.5], [2.0, 2.5]], np.float32)], graph=False,
      reason="the wheel's graph mode refuses the deprecated overload (not in its deprecated method map)")
def tensor_index_add_deprecated(x, source):
    return x.index_add(Tensor(np.array([0, 2], np.int32)), source, 1)


# ---- ApproximateEqual, Erfinv, SpaceToBatchND, ReverseSequence, CheckValid ----------------------------
@case("ops.space_to_batch_nd", "ops.SpaceToBatchND", inputs=[rnd(2, 3, 4, 6)])
def space_to_batch_nd_forms(x):
    return (ops.space_to_batch_nd(x, 2, [[0, 0], [0, 0]]), ops.SpaceToBatchND((2, 3), [[1, 1], [0, 0]])(x),
            ops.space_to_batch_nd(x, [1, 2], [[0, 2], [1, 1]]))


# ---- the Primitive forms of truncate_div / truncate_mod; nn.FastGelu ----------------------------------
@case("ops.print_", inputs=[rnd(2, 3)])
def print_function(x):
    ops.print_("tuple:", (1, 2), "x:", x, 3, 1.5, False)
    return x * 2


@case("ops.operations", graph=False,
      reason="Primitives of ops.operations._grad_ops, called eagerly as the suite does",
      inputs=[rnd(2, 3, 4), rnd(2, 3, 4), np.array([[[1, 0, 1, 1]] * 3, [[0, 1, 1, 0]] * 3], np.float32)])
def grad_ops_slices_dropout(x, d, mask):
    G = __import__(ops.__name__ + ".operations._grad_ops", fromlist=["_grad_ops"])
    return (G.DropoutGrad(0.8)(d, mask), G.DropoutGrad()(d, mask), G.SliceGrad()(d[:, 1:3, 0:2], x, (0, 1, 0), (2, 2, 2)),
            G.SliceGrad()(d[1:, :, 3:], x, (1, 0, 3), (1, 3, 1)),
            G.StridedSliceGrad()(d[:, 0:3:2, 1:4:2], (2, 3, 4), (0, 0, 1), (2, 3, 4), (1, 2, 2)),
            G.StridedSliceGrad()(d[1:2, 2:3, 0:4], (2, 3, 4), (1, 2, 0), (2, 3, 4), (1, 1, 1)))


@case("ops.operations", graph=False, error=True,
      reason="Primitives of ops.operations._grad_ops, called eagerly as the suite does", inputs=[rnd(2, 3, 4)])
def grad_ops_slice_grad_negative_size(x):
    G = __import__(ops.__name__ + ".operations._grad_ops", fromlist=["_grad_ops"])
    return G.SliceGrad()(x[1:], x, (1, 0, 0), (1, -1, 4))


@case("ops.Median", inputs=[np.array([[3.0, np.nan, 1.0, 2.0], [4.0, 8.0, 6.0, 5.0], [np.nan, np.nan, 7.0, 9.0]],
                                     np.float32), ints(3, 5, lo=-9, hi=9)])
def median_primitive_forms(x, k):
    return (ops.Median(axis=1)(x), ops.Median(axis=1, ignore_nan=True, keep_dims=True)(x),
            ops.Median(global_median=True)(x), ops.Median(global_median=True, ignore_nan=True)(x),
            ops.Median(axis=0)(k), ops.Median(axis=-1, keep_dims=True)(k), ops.Median(True)(k))
