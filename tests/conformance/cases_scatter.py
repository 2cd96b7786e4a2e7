"""The conformance table: the arithmetic scatters (TensorScatterSub / Mul / Div / Max / Min, the
ScatterNd* and Scatter* Parameter forms), the unsorted segment reductions, Padding, LinSpace,
std_mean and shuffle (MindSpore's CPU op tests, issue 33): values, MindSpore's integer division
by zero, NaN updates in max / min, the segments' starting values, and the errors the suite
checks. Part of the table loaded after cases.py."""
group("scatter")

_XI = np.array([[-7, 7, 0], [9, -9, 5]], np.int32)
_IDX6 = np.array([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2], [0, 0]], np.int32)
_UI = np.array([0, 0, 0, 2, 2, -3, 3], np.int32)
_UF = np.array([[0.5, np.nan, -2.0], [4.0, 0.0, 1.5], [-1.0, 3.0, np.nan]], np.float32)


@case("ops.TensorScatterSub", "ops.TensorScatterMul", "ops.TensorScatterMax", "ops.TensorScatterMin",
      inputs=[_XI, _IDX6, np.array([3, 2, -2, 2, -1, 4, 5], np.int32)])
def tensor_scatter_int32(x, idx, u):
    return (ops.TensorScatterSub()(x, idx, u), ops.TensorScatterMul()(x, idx, u), ops.TensorScatterMax()(x, idx, u),
            ops.TensorScatterMin()(x, idx, u))


@case("ops.tensor_scatter_div", inputs=[rnd(4, 3), np.array([[1], [3], [1]], np.int64), _UF])
def tensor_scatter_div_f32_zero(x, idx, u):
    return ops.tensor_scatter_div(x, idx, u)


@case("ops.tensor_scatter_max", "ops.tensor_scatter_min", "ops.tensor_scatter_mul", "ops.tensor_scatter_sub",
      inputs=[rnd(4, 3), np.array([[1], [3], [1]], np.int32), _UF])
def tensor_scatter_nan_updates(x, idx, u):
    return (ops.tensor_scatter_max(x, idx, u), ops.tensor_scatter_min(x, idx, u), ops.tensor_scatter_mul(x, idx, u),
            ops.tensor_scatter_sub(x, idx, u))


@case("ops.TensorScatterDiv", inputs=[rnd(3, 4, dtype="float16"), np.array([[0], [0]], np.int32),
                                      rnd(2, 4, lo=0.5, hi=3.0, dtype="float16")])
def tensor_scatter_div_f16_repeated(x, idx, u):
    return ops.TensorScatterDiv()(x, idx, u)


@case("ops.TensorScatterDiv", error=True, inputs=[ints(2, 3, dtype="int8"), np.array([[0, 1]], np.int32),
                                                  ints(1, dtype="int8")])
def err_tensor_scatter_div_int8(x, idx, u):
    return ops.TensorScatterDiv()(x, idx, u)


@case("ops.TensorScatterSub", error=True, inputs=[ints(2, 3), np.array([[0, 1]], np.int16), ints(1)])
def err_tensor_scatter_sub_int16_indices(x, idx, u):
    return ops.TensorScatterSub()(x, idx, u)


@case("ops.TensorScatterMax", error=True, inputs=[ints(2, 3), np.array([[0, 1, 2]], np.int32), ints(1)])
def err_tensor_scatter_max_index_depth(x, idx, u):
    return ops.TensorScatterMax()(x, idx, u)


@case("ops.TensorScatterMin", error=True, graph=False, reason="MindSpore's graph mode reports the kernel's error late",
      inputs=[ints(2, 3), np.array([[5, 0]], np.int32), ints(1)])
def err_tensor_scatter_min_out_of_range(x, idx, u):
    return ops.TensorScatterMin()(x, idx, u)


class _ScatterNet(nn.Cell):
    def __init__(self, make, dtype):
        super().__init__()
        self.ops = [make(n) for n in ("Add", "Sub", "Mul", "Div", "Max", "Min")]
        self.p = Parameter(Tensor(np.array([[-2, 5, 3], [4, 5, -3]], dtype)), name="p")

    def construct(self, idx, u):
        for op in self.ops:
            op(self.p, idx, u)
        return self.p + 0


@cell("ops.ScatterNdAdd", "ops.ScatterNdSub", "ops.ScatterNdMul", "ops.ScatterNdDiv", "ops.ScatterNdMax",
      "ops.ScatterNdMin", "nn.Cell", inputs=[np.array([[0, 0], [1, 1], [0, 2]], np.int32),
                                             np.array([0, 2, -5], np.int64)])
def cls_scatter_nd_int64_div_zero():
    return _ScatterNet(lambda n: new(ops, "ScatterNd" + n), np.int64)


@cell("ops.ScatterNdMul", "ops.ScatterNdDiv", "nn.Cell", inputs=[np.array([[0, 1], [1, 0]], np.int32),
                                                                  np.array([3, -2], np.int8)])
def cls_scatter_nd_int8():
    return _ScatterNet(lambda n: new(ops, "ScatterNd" + n), np.int8)


@cell("ops.ScatterAdd", "ops.ScatterSub", "ops.ScatterMul", "ops.ScatterDiv", "ops.ScatterMax", "ops.ScatterMin",
      "nn.Cell", inputs=[np.array([[1, 0]], np.int32), rnd(1, 2, 3, lo=0.5, hi=2.0)])
def cls_scatter_rows_f32():
    return _ScatterNet(lambda n: new(ops, "Scatter" + n), np.float32)


@case("ops.UnsortedSegmentSum", "ops.UnsortedSegmentMax", "ops.UnsortedSegmentMin", "ops.UnsortedSegmentProd",
      inputs=[rnd(2, 2, 3), np.array([[0, 2], [2, 3]], np.int32)])
def unsorted_segments_f32(x, ids):
    return (ops.UnsortedSegmentSum()(x, ids, 5), ops.UnsortedSegmentMax()(x, ids, 5),
            ops.UnsortedSegmentMin()(x, ids, 5), ops.UnsortedSegmentProd()(x, ids, 5))


@case("ops.unsorted_segment_sum", "ops.unsorted_segment_max", "ops.unsorted_segment_min",
      "ops.unsorted_segment_prod", inputs=[ints(5, dtype="int32", lo=-4, hi=5), np.array([0, 0, 1, 3, 1], np.int32)])
def unsorted_segments_int32(x, ids):
    return (ops.unsorted_segment_sum(x, ids, 4), ops.unsorted_segment_max(x, ids, 4),
            ops.unsorted_segment_min(x, ids, 4), ops.unsorted_segment_prod(x, ids, 4))


@case("ops.UnsortedSegmentMin", inputs=[rnd(4, dtype="float16"), np.array([0, 0, 1, 1], np.int32)])
def unsorted_segment_min_f16_empty(x, ids):
    return ops.UnsortedSegmentMin()(x, ids, 3)


@case("Tensor.unsorted_segment_max", "Tensor.scatter_div", "Tensor.scatter_max", graph=False,
      reason="MindSpore 2.10's graph mode has no Tensor.scatter_div (standard_method lacks tensor_scatter_div)",
      inputs=[rnd(4, 3), np.array([0, 2, 2, 1], np.int32), np.array([[1], [3]], np.int32), rnd(2, 3)])
def tensor_methods_scatter_segments(x, ids, idx, u):
    return x.unsorted_segment_max(ids, 3), x.scatter_div(idx, u), x.scatter_max(idx, u)


@case("ops.Padding", "ops.padding", inputs=[rnd(2, 3, 1)])
def padding_f32(x):
    return ops.Padding(4)(x), ops.padding(x, 2)


@case("ops.Padding", inputs=[bools(4, 1)])
def padding_bool(x):
    return ops.Padding(3)(x)


@case("ops.LinSpace", "ops.linspace", inputs=[np.array(-25.3, np.float32), np.array(-147.0, np.float32)])
def linspace_f32(a, b):
    return ops.LinSpace()(a, b, 7), ops.linspace(a, b, 1), ops.linspace(a, b, 12)


@case("ops.std_mean", inputs=[rnd(3, 2, 6)])
def std_mean_axes(x):
    return ops.std_mean(x, (-1, 0), False, True), ops.std_mean(x, 1, True, False), ops.std_mean(x)


@case("ops.shuffle", error=True, graph=False, reason="argument check", inputs=[rnd(3)])
def err_shuffle_negative_seed(x):
    return ops.shuffle(x, seed=-3)


@case("ops.shuffle", error=True, graph=False, reason="argument check", inputs=[rnd(3)])
def err_shuffle_float_seed(x):
    return ops.shuffle(x, seed=1.6)


# ---- the rest of the suite's missing names (issue 33): _grad_ops Primitives, BCEWithLogitsLoss, IndexAdd,
# matrix_solve ------------------------------------------------------------------------------------------
def _grad_ops():
    return __import__(ops.__name__ + ".operations._grad_ops", fromlist=["_grad_ops"])


@case("ops.matrix_solve", inputs=[rnd(2, 4, 4), rnd(2, 4, 3)])
def matrix_solve_batched(a, b):
    return ops.matrix_solve(a, b), ops.matrix_solve(a, b, True)


@case("ops.IndexAdd", "ops.index_add", graph=False, reason="the case creates its Parameter (not in graph code)",
      inputs=[rnd(2, 4, 3), np.array([3, 0, 3], np.int32), rnd(2, 3, 3)])
def index_add_axis1(x, idx, y):
    p = Parameter(x, name="p")
    return ops.IndexAdd(1)(p, idx, y) + 0, p + 0


@case("ops.BCEWithLogitsLoss", inputs=[rnd(2, 3), rnd(2, 3, lo=-1.0, hi=2.0), rnd(3, lo=0.5, hi=1.5),
                                       rnd(3, lo=0.5, hi=2.0)])
def bce_with_logits_loss_reductions(x, y, w, pw):
    return tuple(ops.BCEWithLogitsLoss(r)(x, y, w, pw) for r in ("none", "mean", "sum"))


@case("ops.operations", graph=False,
      reason="Primitives of ops.operations._grad_ops, called eagerly as the suite does",
      inputs=[np.array([[-1.5, 0.2, 0.7], [3.0, 6.5, -0.3]], np.float32),
              np.array([[1.0, 2.0, -1.0], [0.5, 1.5, 3.0]], np.float32)])
def grad_ops_elementwise(x, d):
    G = _grad_ops()
    return tuple(getattr(G, n)()(x, d) for n in ("InvGrad", "SqrtGrad", "AtanGrad", "AsinGrad", "ACosGrad", "AsinhGrad",
                                                "AcoshGrad", "ReLU6Grad", "EluGrad", "HShrinkGrad", "SoftShrinkGrad"))


@case("ops.operations", graph=False,
      reason="Primitives of ops.operations._grad_ops, called eagerly as the suite does",
      inputs=[rnd(2, 3, 2, 2), rnd(2, 3, 2, 2), rnd(2, 3, 2, 2)])
def grad_ops_losses_bias(x, y, d):
    G = _grad_ops()
    return (G.SigmoidCrossEntropyWithLogitsGrad()(x, y, d), G.BiasAddGrad()(d), G.BiasAddGrad("NHWC")(d),
            G.KLDivLossGrad("none")(d, x, y), G.KLDivLossGrad()(d[0, 0, 0, 0], x, y),
            G.KLDivLossGrad("batchmean")(d[0, 0, 0, 0], x, y))


@case("ops.Dropout3D", graph=False, reason="random: the shape, dtype and the mask's channel structure",
      inputs=[rnd(2, 3, 2, 2, 2, lo=1.0, hi=2.0)])
def dropout3d_channels(x):
    out, mask = ops.Dropout3D(0.5)(x)
    m = ops.cast(mask, ms.float32)
    return out.shape, mask.dtype, ops.reduce_max(m, (2, 3, 4)) - ops.reduce_min(m, (2, 3, 4))


@case("ops.cummax", "ops.cummin", "ops.Cummax", "ops.Cummin",
      inputs=[np.array([[4, np.nan, 1.5, 7, 0, np.nan, 1, -5], [4, np.inf, 1.5, -np.inf, 0, 2, 1, 2]], np.float32),
              ints(3, 4, 5, lo=0, hi=4, dtype="int8")])
def cummax_cummin_ties_nan(x, k):
    return ops.cummax(x, 1), ops.cummin(x, -1), ops.Cummax(1)(k), ops.Cummin(0)(k)


@case("ops.BatchToSpaceND", "ops.batch_to_space_nd", inputs=[rnd(8, 1, 2, 3), rnd(6, 2, 2)])
def batch_to_space_nd_crops(x, y):
    return ops.BatchToSpaceND([2, 2], [[0, 1], [1, 0]])(x), ops.batch_to_space_nd(y, [3], [[1, 0]])


@case("ops.LayerNorm", inputs=[rnd(3, 4, 5), rnd(4, 5), rnd(4, 5)])
def layer_norm_primitive(x, g, b):
    return ops.LayerNorm(1, 1)(x, g, b), ops.LayerNorm(-1, -1, 1e-3)(x, g[0], b[0])


@case("ops.operations", graph=False, reason="a Primitive of ops.operations._grad_ops, called eagerly as the suite does",
      inputs=[rnd(3, 4, 5), rnd(3, 4, 5), rnd(4, 5)])
def layer_norm_grad_primitive(x, dy, g):
    G = _grad_ops()
    mean = ops.mean(x, (1, 2), True)
    var = ops.mean((x - mean) ** 2, (1, 2), True)
    m2, v2 = ops.mean(x, 2, True), ops.mean((x - ops.mean(x, 2, True)) ** 2, 2, True)
    return G.LayerNormGrad(1, 1)(x, dy, var, mean, g), G.LayerNormGrad(2, 2)(x, dy, v2, m2, g[0])


@case("ops.DepthToSpace", "ops.SpaceToDepth", "ops.SquareSumAll", inputs=[rnd(2, 8, 2, 3), rnd(2, 2, 4, 6)])
def depth_space_square_sum(x, y):
    return ops.DepthToSpace(2)(x), ops.SpaceToDepth(2)(y), ops.SquareSumAll()(x, x * 2)


@case("ops.dot", "ops.logical_xor", "Tensor.greater", "Tensor.less_equal", "Tensor.logical_xor",
      inputs=[rnd(2, 3, 4), rnd(5, 4, 2), bools(6), bools(6)])
def dot_xor_compare_methods(a, b, p, q):
    return ops.dot(a, b), ops.logical_xor(p, q), a.greater(0.5), a.less_equal(a * 0.5), p.logical_xor(q)


@cell("nn.TimeDistributed", "nn.Dense", inputs=[rnd(2, 5, 4)])
def time_distributed_dense():
    return set_params(nn.TimeDistributed(nn.Dense(4, 3), 1, 0), 21)


@case("ops.pdist", inputs=[rnd(5, 3)])
def pdist_norms(x):
    return tuple(ops.pdist(x, p) for p in (0.0, 1.0, 2.0, 3.5, float("inf")))


@case("ops.Renorm", "ops.renorm", inputs=[rnd(2, 2, 4, lo=-3.0, hi=3.0)])
def renorm_p_axis(x):
    return ops.Renorm(1, 0, 3.0)(x), ops.Renorm(2, 1, 2.0)(x), ops.renorm(x, 3, -1, 1.5)


@case("ops.FastGeLU", "ops.fast_gelu", inputs=[rnd(3, 5, lo=-6.0, hi=6.0), rnd(4, lo=-6.0, hi=6.0, dtype="float16")])
def fast_gelu_f32_f16(x, h):
    return ops.FastGeLU()(x), ops.fast_gelu(h)


@case("ops.Cdist", "ops.cdist", "ops.Size", "ops.size", inputs=[rnd(2, 3, 4), rnd(2, 5, 4)])
def cdist_norms_size(a, b):
    return (tuple(ops.Cdist(p)(a, b) for p in (0.0, 1.0, 2.0, 3.0, float("inf"))), ops.cdist(a[0], b[0]),
            ops.Size()(a), ops.size(b))


@case("ops.inplace_index_add", graph=False, reason="MindSpore updates the input tensor in place",
      inputs=[ints(3, 2, dtype="int32"), np.array([0, 1], np.int32), ints(2, 2, dtype="int32")])
def inplace_index_add_rows(x, idx, u):
    return ops.inplace_index_add(x, idx, u, 0)


class _ApplyNet(nn.Cell):
    """Every optimizer-update Primitive once, each on Parameters of its own (values from a generator;
    MindSpore's outputs alias the Parameters, so none is shared)."""

    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(7)
        for k in range(25):
            lo = -1.0 if k == 24 else 0.1
            setattr(self, f"p{k}", Parameter(Tensor(rng.uniform(lo, 1.0, (2, 3)).astype(np.float32)), name=f"p{k}"))
        self.gd, self.pgd = ops.ApplyGradientDescent(), ops.ApplyProximalGradientDescent()
        self.adagrad, self.adagrad2 = ops.ApplyAdagrad(), ops.ApplyAdagradV2(1e-6)
        self.padagrad, self.adadelta = ops.ApplyProximalAdagrad(), ops.ApplyAdadelta()
        self.adamax, self.power_sign = ops.ApplyAdaMax(), ops.ApplyPowerSign()
        self.amsgrad, self.ftrl = ops.ApplyAdamWithAmsgrad(), ops.ApplyFtrl()

    def construct(self, g):
        s = Tensor(np.float32(0.01))
        return (self.gd(self.p0, s, g), self.pgd(self.p1, s * 10, s * 5, s * 20, g),
                self.adagrad(self.p2, self.p3, s, g), self.adagrad2(self.p4, self.p5, s, g),
                self.padagrad(self.p6, self.p7, s * 10, s * 5, s * 20, g),
                self.adadelta(self.p8, self.p9, self.p10, s, s * 90, s * 1e-4, g),
                self.adamax(self.p11, self.p12, self.p13, s * 90, s, s * 90, s * 99, s * 1e-6, g),
                self.power_sign(self.p14, self.p15, s, s * 271.8, s * 99, s * 90, g),
                self.amsgrad(self.p16, self.p17, self.p18, self.p19, s * 90, s * 99.9, s, g),
                self.ftrl(self.p20, self.p21, self.p24, g, 0.001, 0.01, 0.02, -0.5))


@cell("ops.ApplyGradientDescent", "ops.ApplyProximalGradientDescent", "ops.ApplyAdagrad", "ops.ApplyAdagradV2",
      "ops.ApplyProximalAdagrad", "ops.ApplyAdadelta", "ops.ApplyAdaMax", "ops.ApplyPowerSign",
      "ops.ApplyAdamWithAmsgrad", "ops.ApplyFtrl", "nn.Cell", inputs=[rnd(2, 3, lo=-1.0, hi=1.0)])
def apply_optimizer_primitives():
    return _ApplyNet()
