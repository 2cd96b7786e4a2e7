"""The conformance table: issue 33's coverage of the ops / ops.functional / ops.operations names that
pycompile had without a recorded case (tools/name_coverage.py lists them). Part of the table loaded
after cases.py; ids start with ``cov33_``. Random ops are compared by shape, dtype and range."""
group("cov33_ops")

C33F = getattr(ops, "functional", ops)
C33P = getattr(ops, "operations", ops)


# ---- one name a case (a name without a MindSpore CPU kernel then skips alone) -------------------------------


_c33_X34, _c33_Y34 = rnd(3, 4), rnd(3, 4)
@case("ops.argmin", inputs=[_c33_X34])
def cov33_argmin(x):
    return (ops.argmin(x), ops.argmin(x, 1), ops.argmin(x, 0, True))


@case("ops.fmin", inputs=[_c33_X34, _c33_Y34])
def cov33_fmin(x, y):
    return ops.fmin(x, y)


@case("ops.ger", inputs=[rnd(3), rnd(4)])
def cov33_ger(v, w):
    return ops.ger(v, w)


@case("ops.invert", inputs=[ints(4, lo=-5, hi=6, dtype="int16")])
def cov33_invert(i):
    return ops.invert(i)


@case("ops.addcdiv", inputs=[_c33_X34, _c33_Y34, rnd(3, 4, lo=0.5, hi=2.0), rnd(1)])
def cov33_addcdiv(x, a, b, v):
    return (ops.addcdiv(x, a, b, v), ops.addcdiv(x, a, b))


@case("ops.addcmul", inputs=[_c33_X34, _c33_Y34, _c33_Y34, rnd(1)])
def cov33_addcmul(x, a, b, v):
    return (ops.addcmul(x, a, b, v), ops.addcmul(x, a, b))


@case("ops.Atan2", inputs=[_c33_X34, _c33_Y34])
def cov33_cls_Atan2(x, y):
    return ops.Atan2()(x, y)


@case("ops.Ceil", inputs=[_c33_X34])
def cov33_cls_Ceil(x):
    return ops.Ceil()(x)


@case("ops.Fmax", inputs=[_c33_X34, _c33_Y34])
def cov33_cls_Fmax(x, y):
    return ops.Fmax()(x, y)


@case("ops.Fmin", inputs=[_c33_X34, _c33_Y34])
def cov33_cls_Fmin(x, y):
    return ops.Fmin()(x, y)


@case("ops.Invert", inputs=[ints(4, lo=-5, hi=6, dtype="int16")])
def cov33_cls_Invert(i):
    return ops.Invert()(i)


@case("ops.Ger", inputs=[rnd(3), rnd(4)])
def cov33_cls_Ger(v, w):
    return ops.Ger()(v, w)


@case("ops.Cross", inputs=[rnd(2, 3), rnd(2, 3)])
def cov33_cls_Cross(a, b):
    return ops.Cross(dim=1)(a, b)


@case("ops.CeLU", inputs=[rnd(3, 4, lo=-8.0, hi=8.0)])
def cov33_cls_CeLU(x):
    return ops.CeLU(1.5)(x)


@case("ops.Elu", inputs=[rnd(3, 4, lo=-8.0, hi=8.0)])
def cov33_cls_Elu(x):
    return ops.Elu()(x)


@case("ops.Mish", inputs=[rnd(3, 4, lo=-8.0, hi=8.0)])
def cov33_cls_Mish(x):
    return ops.Mish()(x)


@case("ops.ReLU6", inputs=[rnd(3, 4, lo=-8.0, hi=8.0)])
def cov33_cls_ReLU6(x):
    return ops.ReLU6()(x)


@case("ops.SeLU", inputs=[rnd(3, 4, lo=-8.0, hi=8.0)])
def cov33_cls_SeLU(x):
    return ops.SeLU()(x)


@case("ops.Softsign", inputs=[rnd(3, 4, lo=-8.0, hi=8.0)])
def cov33_cls_Softsign(x):
    return ops.Softsign()(x)


@case("ops.PReLU", inputs=[rnd(2, 3, 4), rnd(3, lo=0.0, hi=0.5)])
def cov33_cls_PReLU(x, w):
    return ops.PReLU()(x, w)


@case("ops.EuclideanNorm", inputs=[_c33_X34])
def cov33_cls_EuclideanNorm(x):
    return (ops.EuclideanNorm()(x, Tensor(np.array([1], np.int32))), ops.EuclideanNorm(True)(x, Tensor(np.array([0], np.int32))))


@case("ops.MatrixExp", inputs=[rnd(2, 3, 3, lo=-0.5, hi=0.5)])
def cov33_cls_MatrixExp(m):
    return ops.MatrixExp()(m)


@case("ops.matrix_exp", inputs=[rnd(2, 3, 3, lo=-0.5, hi=0.5)])
def cov33_matrix_exp(m):
    return ops.matrix_exp(m)


@case("ops.quantile", inputs=[rnd(3, 5)])
def cov33_quantile(x):
    return (ops.quantile(x, 0.3), ops.quantile(x, 0.5, axis=1, keepdims=True))


@case("ops.nanquantile", inputs=[np.array([[1.0, np.nan, 3.0, 0.5], [2.0, 2.0, np.nan, np.nan]], np.float32)])
def cov33_nanquantile(n):
    return ops.nanquantile(n, 0.25, axis=1)


@case("Tensor.quantile", inputs=[rnd(3, 5)])
def cov33_t_quantile(x):
    return x.quantile(0.75, 0)


@case("Tensor.nanquantile", inputs=[np.array([[1.0, np.nan, 3.0, 0.5], [2.0, 2.0, np.nan, np.nan]], np.float32)])
def cov33_t_nanquantile(x):
    return x.nanquantile(0.5, 1)


@case("ops.clip_by_norm", inputs=[_c33_X34])
def cov33_clip_by_norm(x):
    return (ops.clip_by_norm(x, 1.0), ops.clip_by_norm(x, 10.0), ops.clip_by_norm(x, 0.5, norm_type=1.0))


@case("ops.diff_ext", inputs=[rnd(3, 5)])
def cov33_diff_ext(x):
    return (ops.diff_ext(x), ops.diff_ext(x, 2, 0))


@case("ops.expand_as", inputs=[rnd(1, 5), rnd(3, 5)])
def cov33_expand_as(r, x):
    return ops.expand_as(r, x)


@case("ops.type_as", inputs=[ints(2, 3), rnd(3, 5)])
def cov33_type_as(i, x):
    return ops.type_as(i, x)


@case("ops.take", inputs=[rnd(3, 5), ints(2, 2, lo=0, hi=15, dtype="int64")])
def cov33_take(x, k):
    return ops.take(x, k)


@case("ops.roll", inputs=[_c33_X34])
def cov33_roll(x):
    return (ops.roll(x, 1, 0), ops.roll(x, (1, -2), (0, 1)))


@case("ops.Roll", inputs=[_c33_X34])
def cov33_cls_Roll(x):
    return ops.Roll(2, 1)(x)


@case("ops.slice", inputs=[rnd(4, 5, 3)])
def cov33_slice(x):
    return ops.slice(x, (1, 0, 0), (2, 3, 2))


@case("ops.strided_slice", inputs=[rnd(4, 5, 3)])
def cov33_strided_slice(x):
    return (ops.strided_slice(x, (0, 1, 0), (4, 5, 3), (2, 2, 1)), ops.strided_slice(x, (1, 0, 0), (3, 4, 2), (1, 1, 1), begin_mask=1, end_mask=2))


@case("ops.SplitV", inputs=[rnd(6, 4)])
def cov33_cls_SplitV(x):
    return ops.SplitV((1, 2, 3), 0, 3)(x)


@case("ops.MirrorPad", inputs=[rnd(1, 2, 3, 4)])
def cov33_cls_MirrorPad(x):
    return (ops.MirrorPad()(x, Tensor(np.array([[0, 0], [0, 0], [1, 1], [2, 1]], np.int32))), ops.MirrorPad("SYMMETRIC")(x, Tensor(np.array([[0, 0], [0, 0], [1, 1], [2, 1]], np.int32))))


@case("ops.fills", inputs=[rnd(2, 3)])
def cov33_fills(x):
    return ops.fills(x, 2.5)


@case("ops.Fills", inputs=[rnd(2, 3)])
def cov33_cls_Fills(x):
    return ops.Fills()(x, 1.0)


@case("ops.LerpScalar", inputs=[rnd(2, 3), rnd(2, 3)])
def cov33_cls_LerpScalar(x, y):
    return ops.LerpScalar()(x, y, 0.25)


@case("ops.Einsum", inputs=[rnd(2, 3), rnd(3, 4)])
def cov33_cls_Einsum(a, b):
    return ops.Einsum("ij,jk->ik")((a, b))


@case("ops.einsum", inputs=[rnd(2, 3), rnd(3, 4)])
def cov33_einsum(a, b):
    return ops.einsum("ij,jk->ik", a, b)


@case("ops.einsum_ext", inputs=[rnd(2, 3)])
def cov33_einsum_ext(a):
    return ops.einsum_ext("ij->ji", a)


@case("ops.ormqr", inputs=[rnd(3, 2), rnd(2, lo=0.5, hi=1.5), rnd(3, 3)])
def cov33_ormqr(x, t, c):
    return ops.ormqr(x, t, c)


@case("ops.Ormqr", inputs=[rnd(3, 2), rnd(2, lo=0.5, hi=1.5), rnd(3, 3)])
def cov33_cls_Ormqr(x, t, c):
    return ops.Ormqr(left=False)(x, t, c)


@case("Tensor.ormqr", inputs=[rnd(3, 2), rnd(2, lo=0.5, hi=1.5), rnd(3, 3)])
def cov33_t_ormqr(x, t, c):
    return x.ormqr(t, c, True, True)


@case("ops.huber_loss", inputs=[_c33_X34, _c33_Y34])
def cov33_huber_loss(x, y):
    return (ops.huber_loss(x, y), ops.huber_loss(x, y, "sum", 0.5), ops.huber_loss(x, y, "none"))


@case("ops.mse_loss_ext", inputs=[_c33_X34, _c33_Y34])
def cov33_mse_loss_ext(x, y):
    return (ops.mse_loss_ext(x, y), ops.mse_loss_ext(x, y, "none"))


@case("ops.soft_margin_loss", inputs=[_c33_X34, _c33_Y34])
def cov33_soft_margin_loss(x, y):
    return (ops.soft_margin_loss(x, ops.sign(y)), ops.soft_margin_loss(x, ops.sign(y), "sum"))


@case("ops.multilabel_soft_margin_loss", inputs=[_c33_X34, ints(3, 4, lo=0, hi=2, dtype="float32")])
def cov33_multilabel_soft_margin_loss(x, t):
    return (ops.multilabel_soft_margin_loss(x, t), ops.multilabel_soft_margin_loss(x, t, reduction="none"))


@case("ops.cosine_embedding_loss", inputs=[rnd(4, 5), rnd(4, 5), np.array([1.0, -1.0, 1.0, -1.0], np.float32)])
def cov33_cosine_embedding_loss(a, b, t):
    return (ops.cosine_embedding_loss(a, b, t), ops.cosine_embedding_loss(a, b, t, 0.2, "none"))


@case("ops.margin_ranking_loss", inputs=[rnd(4), rnd(4), np.array([1.0, -1.0, 1.0, -1.0], np.float32)])
def cov33_margin_ranking_loss(a, b, t):
    return (ops.margin_ranking_loss(a, b, t), ops.margin_ranking_loss(a, b, t, 0.5, "sum"))


@case("ops.triplet_margin_loss", inputs=[rnd(4, 5), rnd(4, 5), rnd(4, 5)])
def cov33_triplet_margin_loss(a, b, c):
    return (ops.triplet_margin_loss(a, b, c), ops.triplet_margin_loss(a, b, c, 0.5, reduction="none"))


@case("ops.SoftMarginLoss", inputs=[_c33_X34, _c33_Y34])
def cov33_cls_SoftMarginLoss(a, b):
    return ops.SoftMarginLoss()(a, ops.sign(b))


@case("ops.TripletMarginLoss", inputs=[_c33_X34, _c33_Y34, rnd(3, 4)])
def cov33_cls_TripletMarginLoss(a, b, c):
    return ops.TripletMarginLoss()(a, b, c, Tensor(1.0, ms.float32))


@case("ops.layer_norm", inputs=[rnd(2, 3, 4), rnd(4, lo=0.5, hi=1.5), rnd(4)])
def cov33_layer_norm(x, g, b):
    return ops.layer_norm(x, (4,), g, b)


@case("ops.rms_norm", inputs=[rnd(2, 3, 4), rnd(4, lo=0.5, hi=1.5)])
def cov33_rms_norm(x, g):
    return ops.rms_norm(x, g)


@case("ops.RmsNorm", inputs=[rnd(2, 3, 4), rnd(4, lo=0.5, hi=1.5)])
def cov33_cls_RmsNorm(x, g):
    return ops.RmsNorm()(x, g)


@case("ops.add_rms_norm", inputs=[rnd(2, 3, 4), rnd(2, 3, 4), rnd(4, lo=0.5, hi=1.5)])
def cov33_add_rms_norm(x, y, g):
    return ops.add_rms_norm(x, y, g)


@case("ops.add_layer_norm", inputs=[rnd(2, 3, 4), rnd(2, 3, 4), rnd(4, lo=0.5, hi=1.5), rnd(4)])
def cov33_add_layer_norm(x, y, g, b):
    return ops.add_layer_norm(x, y, g, b)


@case("ops.BatchNorm", inputs=[rnd(2, 3, 2, 2), rnd(3, lo=0.5, hi=1.5), rnd(3), rnd(3), rnd(3, lo=0.5, hi=1.5)])
def cov33_cls_BatchNorm(x, s, b, m, v):
    return ops.BatchNorm()(x, s, b, m, v)[0]


@case("ops.swiglu", inputs=[rnd(2, 6)])
def cov33_swiglu(x):
    return (ops.swiglu(x), ops.swiglu(x, 0))


@case("ops.rotary_position_embedding", inputs=[rnd(1, 2, 3, 4), rnd(1, 1, 3, 4), rnd(1, 1, 3, 4)])
def cov33_rotary_position_embedding(q, c, s):
    return ops.rotary_position_embedding(q, c, s)


@case("ops.adaptive_avg_pool2d_ext", inputs=[rnd(1, 2, 6, 6)])
def cov33_adaptive_avg_pool2d_ext(x):
    return ops.adaptive_avg_pool2d_ext(x, (3, 2))


@case("ops.adaptive_max_pool1d", inputs=[rnd(1, 2, 8)])
def cov33_adaptive_max_pool1d(s):
    return ops.adaptive_max_pool1d(s, 4)


@case("ops.AdaptiveMaxPool2D", inputs=[rnd(1, 2, 6, 6)])
def cov33_cls_AdaptiveMaxPool2D(x):
    return ops.AdaptiveMaxPool2D((2, 3))(x)


@case("ops.conv_transpose2d", inputs=[rnd(1, 2, 4, 4), rnd(2, 3, 3, 3)])
def cov33_conv_transpose2d(x, w):
    return (ops.conv_transpose2d(x, w), ops.conv_transpose2d(x, w, stride=2, padding=1))


@case("ops.Conv2DBackpropInput", inputs=[rnd(1, 3, 2, 2), rnd(3, 2, 3, 3)])
def cov33_cls_Conv2DBackpropInput(d, w):
    return ops.Conv2DBackpropInput(2, 3)(d, w, (1, 2, 4, 4))


@case("ops.Conv3D", inputs=[rnd(1, 2, 4, 4, 4), rnd(3, 2, 2, 2, 2)])
def cov33_cls_Conv3D(x, w):
    return ops.Conv3D(3, 2)(x, w)


@case("ops.max_unpool3d", inputs=[rnd(1, 1, 2, 2, 2)])
def cov33_max_unpool3d(x):
    return ops.max_unpool3d(x, Tensor(np.array([[[[[0, 3], [10, 15]], [[16, 21], [58, 63]]]]], np.int64)), 2)


@case("ops.upsample", inputs=[rnd(1, 2, 3, 4)])
def cov33_upsample(x):
    return (ops.upsample(x, size=(6, 8)), ops.upsample(x, size=(5, 7), mode="bilinear", align_corners=False))


@case("ops.embedding", inputs=[ints(2, 3, lo=0, hi=5), rnd(5, 4)])
def cov33_embedding(i, w):
    return (ops.embedding(i, w), ops.embedding(i, w, padding_idx=1))


@case("ops.baddbmm_ext", inputs=[rnd(2, 3, 4), rnd(2, 3, 5), rnd(2, 5, 4)])
def cov33_baddbmm_ext(x, a, b):
    return (ops.baddbmm_ext(x, a, b), ops.baddbmm_ext(x, a, b, beta=0.5, alpha=2.0))


@case("ops.InplaceAdd", inputs=[_c33_X34, rnd(2, 4)])
def cov33_cls_InplaceAdd(x, v):
    return ops.InplaceAdd((0, 2))(x, v)


@case("ops.InplaceSub", inputs=[_c33_X34, rnd(2, 4)])
def cov33_cls_InplaceSub(x, v):
    return ops.InplaceSub((1, 0))(x, v)


@case("ops.InplaceUpdate", inputs=[_c33_X34, rnd(2, 4)])
def cov33_cls_InplaceUpdate(x, v):
    return ops.InplaceUpdate((2, 1))(x, v)


@case("ops.inplace_add", inputs=[_c33_X34, rnd(2, 4)])
def cov33_inplace_add(x, v):
    return ops.inplace_add(x, v, (0, 1))


@case("ops.inplace_sub", inputs=[_c33_X34, rnd(2, 4)])
def cov33_inplace_sub(x, v):
    return ops.inplace_sub(x, v, (2, 0))


@case("ops.SparseGatherV2", inputs=[rnd(4, 3), ints(2, 2, lo=0, hi=4)])
def cov33_cls_SparseGatherV2(x, i):
    return ops.SparseGatherV2()(x, i, 0)


# ---- scatter family ------------------------------------------------------------------------------------------
_c33_SC_IDX = np.array([0, 2], np.int32)


def _c33_sc(fn):
    def f(x, u):
        return fn(Parameter(x, name="x"), Tensor(_c33_SC_IDX), u)
    return f


for _n in ("scatter_add", "scatter_div", "scatter_max", "scatter_min", "scatter_mul", "scatter_update"):
    add(f"cov33_{_n}", f"ops.{_n}", _c33_sc(api(ops, _n)), [rnd(3, 4, lo=0.5, hi=2.0), rnd(2, 4, lo=0.5, hi=2.0)],
        graph=False, reason="the Parameter is made inside the case (a graph takes it as an argument)")


def _c33_scnd(fn):
    def f(x, u):
        return fn(Parameter(x, name="x"), Tensor(np.array([[0], [2]], np.int32)), u)
    return f


for _n in ("scatter_nd_add", "scatter_nd_div", "scatter_nd_max", "scatter_nd_min", "scatter_nd_mul", "scatter_nd_sub"):
    add(f"cov33_{_n}", f"ops.{_n}", _c33_scnd(api(ops, _n)), [rnd(3, 4, lo=0.5, hi=2.0), rnd(2, 4, lo=0.5, hi=2.0)],
        graph=False, reason="the Parameter is made inside the case (a graph takes it as an argument)")


@case("ops.ScatterUpdate", inputs=[rnd(3, 4), rnd(2, 4)], graph=False, reason="a Parameter made inside the case")
def cov33_cls_scatter_update(x, u):
    p = Parameter(x, name="x")
    return ops.ScatterUpdate()(p, Tensor(_c33_SC_IDX), u), p


@case("ops.InplaceAdd", "ops.InplaceSub", "ops.InplaceUpdate", "ops.inplace_add", "ops.inplace_sub",
      inputs=[rnd(3, 4), rnd(2, 4)])
def cov33_inplace_cls(x, v):
    return (ops.InplaceAdd((0, 2))(x, v), ops.InplaceSub((1, 0))(x, v), ops.InplaceUpdate((2, 1))(x, v),
            ops.inplace_add(x, v, (0, 1)), ops.inplace_sub(x, v, (2, 0)))


@case("ops.SparseGatherV2", inputs=[rnd(4, 3), ints(2, 2, lo=0, hi=4)])
def cov33_sparse_gather_v2(x, i):
    return ops.SparseGatherV2()(x, i, 0), ops.SparseGatherV2()(x, i[0], 1)


# ---- in-place functional forms (eager: they write the input) ----------------------------------------------------
def _c33_inplace(fn):
    def f(x):
        y = x.copy()
        r = fn(y)
        return r, y
    return f


C33INPLACE = [("clamp_", lambda y: ops.clamp_(y, -0.5, 0.5)), ("inplace_sigmoid", lambda y: ops.inplace_sigmoid(y)),
           ("tanh_", lambda y: ops.tanh_(y)), ("zero_", lambda y: ops.zero_(y)),
           ("put_", lambda y: ops.put_(y, Tensor(np.array([0, 5], np.int64)), Tensor(np.array([9.0, -9.0], np.float32))))]
for _n, _f in C33INPLACE:
    add(f"cov33_{_n}", f"ops.{_n}", _c33_inplace(_f), [rnd(3, 4)], graph=False, reason="in-place update of an input tensor")


# ---- random: shape, dtype, range -----------------------------------------------------------------------------------
def _c33_rand(fn, lo=None, hi=None):
    def f(x):
        o = fn(x)
        out = (o.shape, o.dtype)
        if lo is not None:
            out += ((o >= lo).all(), (o <= hi).all())
        return out
    return f


C33RANDOM = [("bernoulli", lambda x: ops.bernoulli(x * 0.4, 0.5), 0, 1), ("dropout", lambda x: ops.dropout(x, 0.5), None, None),
          ("dropout1d", lambda x: ops.dropout1d(x[0, :, :, 0], 0.5), None, None),
          ("dropout2d", lambda x: ops.dropout2d(x[0], 0.5), None, None), ("dropout3d", lambda x: ops.dropout3d(x, 0.5), None, None),
          ("randint_like", lambda x: ops.randint_like(x, 0, 7, dtype=ms.int32), 0, 6),
          ("bernoulli_", lambda x: ops.bernoulli_(x.copy(), 0.5), 0, 1),
          ("normal_", lambda x: ops.normal_(x.copy(), 1.0, 0.5), None, None),
          ("random_", lambda x: ops.random_(x.copy(), 0, 5), 0, 4), ("uniform_", lambda x: ops.uniform_(x.copy(), -1.0, 1.0), -1, 1)]
for _n, _f, _lo, _hi in C33RANDOM:
    add(f"cov33_{_n}", f"ops.{_n}", _c33_rand(_f, _lo, _hi), [rnd(2, 3, 4, 4, 4, lo=0.5, hi=1.5)], graph=False, reason="random")


@case("ops.Dropout2D", "ops.Multinomial", "ops.RandomShuffle", "ops.UniformInt", inputs=[rnd(2, 3, 4, 4, lo=0.1, hi=1.0)],
      graph=False, reason="random")
def cov33_cls_random(x):
    d, m = ops.Dropout2D(0.5)(x)
    s = ops.RandomShuffle(1)(x[0, 0])
    u = ops.UniformInt()((3, 2), Tensor(1, ms.int32), Tensor(4, ms.int32))
    n = ops.Multinomial()(x[0, 0], 3)
    return (d.shape, m.shape, m.dtype, s.shape, u.shape, u.dtype, (u >= 1).all(), (u < 4).all(), n.shape, n.dtype)


# ---- ops.functional spellings that are other objects in pycompile -------------------------------------------------
@case("ops.functional.sum", inputs=[rnd(3, 4)])
def cov33_functional_sum(x):
    return ops.functional.sum(x), ops.functional.sum(x, 1), ops.functional.sum(x, 0, True)


@case("ops.functional.P", graph=False, reason="a module attribute")
def cov33_functional_P():
    return ops.functional.P.Add is ops.Add, ops.functional.P.ReLU is ops.ReLU
