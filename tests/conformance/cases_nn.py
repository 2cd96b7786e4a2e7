"""The conformance table: nn layers, activations (function and Cell) and losses (Cell and
functional), with reductions, class weights, ignore_index and label smoothing where MindSpore
2.10 has them. Part of the table loaded after cases.py, whose helpers it uses."""
from collections import OrderedDict

group("nn_core")

W34 = H.uniform((4, 3), seed=H.seed_of("W34"))
B4 = H.uniform((4,), seed=H.seed_of("B4"))


def dense34(**kw):
    return nn.Dense(3, 4, weight_init=Tensor(W34), bias_init=Tensor(B4), **kw)


@cell("nn.Dense", inputs=[rnd(2, 3)])
def dense_2d():
    return dense34()


@cell("nn.Dense", inputs=[rnd(2, 5, 3)])
def dense_3d():
    return dense34(activation="relu")


@cell("nn.Dense", inputs=[rnd(4, 3)])
def dense_no_bias():
    return nn.Dense(3, 4, weight_init=Tensor(W34), has_bias=False, activation=nn.Tanh())


@cell("nn.Dense", inputs=[rnd(2, 5)], error=True)
def dense_wrong_in_channels():
    return dense34()


@cell("nn.Dense", inputs=[rnd(2, 3, dtype="float16")], error=True)
def dense_f16_input():
    return dense34()


@cell("nn.SequentialCell", "nn.Dense", "nn.ReLU", inputs=[rnd(2, 3)])
def sequential_list():
    return nn.SequentialCell([dense34(), nn.ReLU(), nn.Dense(4, 2, weight_init=Tensor(H.uniform((2, 4), seed=5)),
                                                            bias_init=Tensor(np.array([0.5, -0.5], np.float32)))])


@cell("nn.SequentialCell", "nn.Dense", "nn.GELU", inputs=[rnd(2, 3)])
def sequential_ordered_dict():
    return nn.SequentialCell(OrderedDict([("fc", dense34()), ("act", nn.GELU())]))


class StackNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.layers = nn.CellList([dense34(), nn.Dense(4, 4, weight_init=Tensor(np.eye(4, dtype=np.float32)),
                                                       bias_init=Tensor(np.full(4, 0.25, np.float32)))])

    def construct(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


@cell("nn.CellList", "nn.Cell", "nn.Dense", inputs=[rnd(2, 3)])
def celllist_loop():
    return StackNet()


ACTIVATION_CELLS = {"ReLU": (), "Sigmoid": (), "Tanh": (), "GELU": (), "HSwish": (), "HSigmoid": (), "Softmax": (),
                    "LogSoftmax": (), "Identity": ()}
for _name in ACTIVATION_CELLS:
    _tol = {}
    if _name == "LogSoftmax":
        _tol = dict(tol=LOG_SOFTMAX_TOL, note=LOG_SOFTMAX_NOTE)
    if _name == "Tanh":
        _tol = dict(tol={"Float32": (2e-5, 2e-5)}, note="MindSpore's nn.Tanh is up to ~1.4e-5 off the exact value "
                                                         "(ops.tanh is exact to float32)")
    add(f"nn_{_name}", f"nn.{_name}", api(nn, _name), [rnd(2, 3, 4, lo=-4.0, hi=4.0)], kind="cell", **_tol)


@cell("nn.GELU", inputs=[rnd(2, 5, lo=-4.0, hi=4.0)])
def nn_GELU_erf():
    return nn.GELU(approximate=False)


@cell("nn.Softmax", inputs=[rnd(2, 3, 4)])
def nn_Softmax_axis0():
    return nn.Softmax(axis=0)


@cell("nn.Flatten", inputs=[rnd(2, 3, 4)])
def nn_Flatten_default():
    return nn.Flatten()


@cell("nn.Flatten", inputs=[rnd(2, 3, 4, 2)])
def nn_Flatten_dims():
    return nn.Flatten(start_dim=2)


@cell("nn.Dropout", inputs=[rnd(2, 3)])
def nn_Dropout_eval():
    net = nn.Dropout(p=0.5)
    net.set_train(False)
    return net


@cell("nn.LayerNorm", inputs=[rnd(2, 3, 4)])
def nn_LayerNorm_last():
    return nn.LayerNorm((4,), gamma_init=Tensor(H.uniform((4,), 0.5, 1.5, seed=1)),
                        beta_init=Tensor(H.uniform((4,), seed=2)))


@cell("nn.LayerNorm", inputs=[rnd(2, 3, 4)])
def nn_LayerNorm_two_axes():
    return nn.LayerNorm((3, 4), begin_norm_axis=1, begin_params_axis=1, epsilon=1e-5)


@cell("nn.LayerNorm", inputs=[rnd(2, 5, dtype="float16")])
def nn_LayerNorm_f16():
    return nn.LayerNorm((5,), dtype=ms.float16)


EMB = H.uniform((10, 4), seed=H.seed_of("EMB"))


@cell("nn.Embedding", inputs=[ints(2, 3, lo=0, hi=10)])
def nn_Embedding():
    return nn.Embedding(10, 4, embedding_table=Tensor(EMB))


@cell("nn.Embedding", inputs=[ints(5, lo=0, hi=10, dtype="int64")])
def nn_Embedding_padding_idx():
    return nn.Embedding(10, 4, embedding_table=Tensor(EMB), padding_idx=0)


@cell("nn.Embedding", inputs=[ints(2, 3, lo=0, hi=10)])
def nn_Embedding_one_hot():
    return nn.Embedding(10, 4, use_one_hot=True, embedding_table=Tensor(EMB))


@case("nn.get_activation", inputs=[rnd(2, 3)])
def get_activation_relu(x):
    return nn.get_activation("relu")(x)


class AbsLoss(nn.LossBase):
    def construct(self, logits, labels):
        return self.get_loss(ops.abs(logits - labels))


@cell("nn.LossBase", "nn.Cell", inputs=[rnd(2, 3), rnd(2, 3)])
def lossbase_subclass_mean():
    return AbsLoss()


@cell("nn.LossBase", "nn.Cell", inputs=[rnd(2, 3), rnd(2, 3)])
def lossbase_subclass_sum():
    return AbsLoss("sum")


# ==== activations ====================================================================================
group("activations")

# functional form, Cell form (None: MindSpore 2.10 has no such Cell), constructor / call args
ACTIVATIONS = [
    ("leaky_relu", "LeakyReLU", dict(alpha=0.1)), ("relu6", "ReLU6", {}), ("silu", "SiLU", {}),
    ("elu", "ELU", dict(alpha=0.7)), ("mish", "Mish", {}), ("softplus", None, {}), ("softsign", "Softsign", {}),
    ("hardtanh", "Hardtanh", dict(min_val=-0.5, max_val=1.5)), ("selu", "SeLU", {}), ("celu", "CELU", dict(alpha=0.5)),
    ("logsigmoid", "LogSigmoid", {}), ("tanhshrink", "Tanhshrink", {}), ("softmin", "Softmin", {}),
    ("glu", "GLU", {}),
]


def _fn_default(op):
    def f(x):
        return op(x)
    return f


def _fn_kwargs(op, kw):
    def f(x):
        return op(x, **kw)
    return f


# MindSpore's tanh inside tanhshrink is ~1e-5 (relative) off the exact value: x - tanh(x) up to 2.3e-5
_TOL = {"tanhshrink": dict(tol={"Float32": (5e-5, 1e-5)}, note="MindSpore's tanhshrink is up to 2.3e-5 (relative) "
                                                             "off the exact value")}
for _fname, _cname, _kw in ACTIVATIONS:
    _op = api(ops, _fname)
    _t = _TOL.get(_fname, {})
    add(f"{_fname}", f"ops.{_fname}", _fn_default(_op), [rnd(2, 3, 4, lo=-7.0, hi=7.0)], **_t)
    add(f"{_fname}_f16", f"ops.{_fname}", _fn_default(_op), [rnd(3, 4, lo=-4.0, hi=4.0, dtype="float16")])
    if _cname is not None:
        add(f"nn_{_cname}", f"nn.{_cname}", api(nn, _cname), [rnd(2, 3, 4, lo=-7.0, hi=7.0)], kind="cell", **_t)
    if _kw and _fname != "hardtanh":
        # MindSpore's CPU elu only takes alpha=1.0 (ValueError otherwise)
        _err = dict(error=True) if _fname == "elu" else {}
        add(f"{_fname}_args", f"ops.{_fname}", _fn_kwargs(_op, _kw), [rnd(2, 5, lo=-4.0, hi=4.0)], **_err)
        if _cname is not None:
            add(f"nn_{_cname}_args", f"nn.{_cname}", (lambda c, k: (lambda: c(**k)))(api(nn, _cname), _kw),
                [rnd(2, 5, lo=-4.0, hi=4.0)], kind="cell", **_err)


@case("ops.hardtanh", inputs=[rnd(2, 5, lo=-3.0, hi=3.0)])
def hardtanh_args(x):
    return ops.hardtanh(x, -0.5, 1.5), ops.hardtanh(x, min_val=0.0, max_val=2.0)


@cell("nn.Hardtanh", inputs=[rnd(2, 5, lo=-3.0, hi=3.0)])
def nn_Hardtanh_args():
    return nn.Hardtanh(min_val=-0.5, max_val=1.5)


@case("ops.softplus", inputs=[rnd(2, 5, lo=-30.0, hi=30.0)])
def softplus_beta_threshold(x):
    return ops.softplus(x, beta=2, threshold=10), ops.softplus(x)


@case("ops.Softplus", inputs=[rnd(2, 5, lo=-5.0, hi=5.0)])
def cls_Softplus(x):
    return ops.Softplus()(x)


@case("ops.softmin", inputs=[rnd(2, 3, 4)])
def softmin_axis(x):
    return ops.softmin(x, 0), ops.softmin(x, axis=1)


@cell("nn.Softmin", inputs=[rnd(2, 3, 4)])
def nn_Softmin_axis():
    return nn.Softmin(axis=1)


@case("ops.glu", inputs=[rnd(2, 4, 6)])
def glu_axis(x):
    return ops.glu(x, axis=1), ops.glu(x, 2)


@cell("nn.GLU", inputs=[rnd(4, 2)])
def nn_GLU_axis0():
    return nn.GLU(axis=0)


@case("ops.glu", inputs=[rnd(2, 5)], error=True)
def glu_odd_size(x):
    return ops.glu(x)


@case("ops.prelu", inputs=[rnd(2, 3, 4), rnd(3, lo=0.0, hi=0.5)])
def prelu_channels(x, w):
    return ops.prelu(x, w)


@case("ops.prelu", inputs=[rnd(2, 3), np.array([0.25], np.float32)])
def prelu_shared(x, w):
    return ops.prelu(x, w)


@cell("nn.PReLU", inputs=[rnd(2, 3, 4)])
def nn_PReLU_channels():
    return nn.PReLU(channel=3, w=Tensor(np.array([0.1, 0.2, 0.3], np.float32)))


@cell("nn.PReLU", inputs=[rnd(2, 3)])
def nn_PReLU_default():
    return nn.PReLU()


@cell("nn.HSwish", "nn.HSigmoid", "nn.SequentialCell", inputs=[rnd(2, 5, lo=-4.0, hi=4.0)])
def nn_HSwish_HSigmoid():
    return nn.SequentialCell([nn.HSwish(), nn.HSigmoid()])


# ==== losses =========================================================================================
group("losses")

LOGITS = rnd(4, 5, lo=-3.0, hi=3.0)
LABELS = np.array([1, 0, 4, 2], np.int32)
CLASS_W = np.array([1.0, 2.0, 0.5, 1.5, 1.0], np.float32)


def _loss_cells(prefix, names, build, inputs, reductions=("mean", "sum", "none")):
    for r in reductions:
        add(f"{prefix}_{r}", names, (lambda r=r: build(r)), inputs, kind="cell")


def _build(name, **kw):
    def b(r):
        return getattr(nn, name)(reduction=r, **kw)
    return b


# implemented today
_loss_cells("nn_MSELoss", "nn.MSELoss", lambda r: nn.MSELoss(r), [rnd(3, 4), rnd(3, 4)])
_loss_cells("nn_L1Loss", "nn.L1Loss", lambda r: nn.L1Loss(r), [rnd(3, 4), rnd(1, 4)])


@cell("nn.MSELoss", inputs=[rnd(3, 4), rnd(3, 5)], error=True)
def nn_MSELoss_shape_mismatch():
    return nn.MSELoss()


@cell("nn.SoftmaxCrossEntropyWithLogits", inputs=[LOGITS, LABELS])
def nn_SoftmaxCrossEntropyWithLogits_sparse_mean():
    return nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")


@cell("nn.SoftmaxCrossEntropyWithLogits", inputs=[LOGITS, LABELS])
def nn_SoftmaxCrossEntropyWithLogits_sparse_none():
    return nn.SoftmaxCrossEntropyWithLogits(sparse=True)


@cell("nn.SoftmaxCrossEntropyWithLogits", inputs=[LOGITS, rnd(4, 5, lo=0.0, hi=1.0)])
def nn_SoftmaxCrossEntropyWithLogits_dense_sum():
    return nn.SoftmaxCrossEntropyWithLogits(reduction="sum")


@case("nn.MSELoss", graph=False, reason="checks a constructor's error")
def nn_MSELoss_bad_reduction():
    try:
        nn.MSELoss("average")
    except ValueError:
        return True
    return False


@case("ops.SoftmaxCrossEntropyWithLogits", inputs=[LOGITS, rnd(4, 5, lo=0.0, hi=1.0)])
def cls_SoftmaxCrossEntropyWithLogits(logits, labels):
    return ops.SoftmaxCrossEntropyWithLogits()(logits, labels)


# cross entropy: class indices or probabilities, class weights, ignore_index, label smoothing
_loss_cells("nn_CrossEntropyLoss", "nn.CrossEntropyLoss", _build("CrossEntropyLoss"), [LOGITS, LABELS])
_loss_cells("nn_CrossEntropyLoss_weighted", "nn.CrossEntropyLoss",
            (lambda r: nn.CrossEntropyLoss(weight=Tensor(CLASS_W), ignore_index=4, reduction=r)), [LOGITS, LABELS])


@cell("nn.CrossEntropyLoss", inputs=[LOGITS, LABELS])
def nn_CrossEntropyLoss_label_smoothing():
    return nn.CrossEntropyLoss(label_smoothing=0.1)


@cell("nn.CrossEntropyLoss", inputs=[LOGITS, H.uniform((4, 5), 0.0, 1.0, seed=7)])
def nn_CrossEntropyLoss_probabilities():
    return nn.CrossEntropyLoss()


@cell("nn.CrossEntropyLoss", inputs=[rnd(2, 5, 3), np.array([[1, 0, 4], [2, 2, 3]], np.int32)])
def nn_CrossEntropyLoss_nd():
    return nn.CrossEntropyLoss()


@case("ops.cross_entropy", inputs=[LOGITS, LABELS, CLASS_W])
def cross_entropy_fn(x, t, w):
    return (ops.cross_entropy(x, t), ops.cross_entropy(x, t, w, reduction="sum"),
            ops.cross_entropy(x, t, ignore_index=0, reduction="none"), ops.cross_entropy(x, t, label_smoothing=0.2))


@case("ops.cross_entropy", inputs=[LOGITS, np.array([1, 0, 5, 2], np.int32)], error=True)
def cross_entropy_label_out_of_range(x, t):
    return ops.cross_entropy(x, t)


_LOGP = H.Spec((4, 5), "float32", "uniform", -3.0, -0.1)
_loss_cells("nn_NLLLoss", "nn.NLLLoss", _build("NLLLoss"), [_LOGP, LABELS])


@cell("nn.NLLLoss", inputs=[_LOGP, LABELS])
def nn_NLLLoss_weighted_ignore():
    return nn.NLLLoss(weight=Tensor(CLASS_W), ignore_index=0)


@case("ops.nll_loss", inputs=[_LOGP, LABELS, CLASS_W])
def nll_loss_fn(x, t, w):
    return (ops.nll_loss(x, t), ops.nll_loss(x, t, w, reduction="sum"), ops.nll_loss(x, t, ignore_index=1, reduction="none"),
            ops.nll_loss(x, t, label_smoothing=0.1))


_PROB = H.Spec((3, 4), "float32", "uniform", 0.05, 0.95)
_TARGET01 = H.Spec((3, 4), "float32", "uniform", 0.0, 1.0)
_loss_cells("nn_BCELoss", "nn.BCELoss", _build("BCELoss"), [_PROB, _TARGET01])


@cell("nn.BCELoss", inputs=[_PROB, _TARGET01],
      oracle_bug="MindSpore 2.10's BinaryCrossEntropy does not broadcast a (4,) weight over (3, 4) inputs: PyNative "
                 "weighs only the first row (3.81; 4.7e27 in one recording), GRAPH_MODE gives 4.15; the weighted "
                 "sum is 16.18 (the same weight broadcast by hand gives the right sum in MindSpore too)")
def nn_BCELoss_weighted():
    return nn.BCELoss(weight=Tensor(np.array([1.0, 2.0, 0.5, 1.0], np.float32)), reduction="sum")


@case("ops.binary_cross_entropy", inputs=[_PROB, _TARGET01, rnd(3, 4, lo=0.5, hi=1.5)])
def binary_cross_entropy_fn(p, t, w):
    return ops.binary_cross_entropy(p, t), ops.binary_cross_entropy(p, t, w, reduction="none")


@case("ops.BinaryCrossEntropy", inputs=[_PROB, _TARGET01, rnd(3, 4, lo=0.5, hi=1.5)])
def cls_BinaryCrossEntropy(p, t, w):
    return ops.BinaryCrossEntropy()(p, t, w), ops.BinaryCrossEntropy(reduction="none")(p, t, w)


_loss_cells("nn_BCEWithLogitsLoss", "nn.BCEWithLogitsLoss", _build("BCEWithLogitsLoss"), [rnd(3, 4, lo=-4.0, hi=4.0), _TARGET01])


@cell("nn.BCEWithLogitsLoss", inputs=[rnd(3, 4, lo=-4.0, hi=4.0), _TARGET01])
def nn_BCEWithLogitsLoss_weights():
    return nn.BCEWithLogitsLoss(weight=Tensor(np.array([1.0, 2.0, 0.5, 1.0], np.float32)),
                                pos_weight=Tensor(np.array([3.0, 1.0, 1.0, 0.5], np.float32)))


@case("ops.binary_cross_entropy_with_logits", inputs=[rnd(3, 4, lo=-30.0, hi=30.0), _TARGET01, rnd(4, lo=0.5, hi=2.0),
                                                      rnd(4, lo=0.5, hi=2.0)])
def bce_with_logits_fn(x, t, w, pw):
    return (ops.binary_cross_entropy_with_logits(x, t), ops.binary_cross_entropy_with_logits(x, t, w, pw, "sum"),
            ops.binary_cross_entropy_with_logits(x, t, reduction="none"))


@case("ops.SigmoidCrossEntropyWithLogits", inputs=[rnd(3, 4, lo=-30.0, hi=30.0), _TARGET01])
def cls_SigmoidCrossEntropyWithLogits(x, t):
    return ops.SigmoidCrossEntropyWithLogits()(x, t)


@cell("nn.SmoothL1Loss", inputs=[rnd(3, 4, lo=-3.0, hi=3.0), rnd(3, 4)])
def nn_SmoothL1Loss_default():
    return nn.SmoothL1Loss()


@cell("nn.SmoothL1Loss", inputs=[rnd(3, 4, lo=-3.0, hi=3.0), rnd(3, 4)])
def nn_SmoothL1Loss_beta_mean():
    return nn.SmoothL1Loss(beta=0.5, reduction="mean")


@case("ops.SmoothL1Loss", "ops.smooth_l1_loss", inputs=[rnd(3, 4, lo=-3.0, hi=3.0), rnd(3, 4)])
def smooth_l1_loss_fn(x, y):
    return ops.SmoothL1Loss()(x, y), ops.SmoothL1Loss(beta=2.0, reduction="sum")(x, y), ops.smooth_l1_loss(x, y, 0.5, "mean")


_loss_cells("nn_HuberLoss", "nn.HuberLoss", _build("HuberLoss"), [rnd(3, 4, lo=-3.0, hi=3.0), rnd(3, 4)])


@cell("nn.HuberLoss", inputs=[rnd(3, 4, lo=-3.0, hi=3.0), rnd(3, 4)])
def nn_HuberLoss_delta():
    return nn.HuberLoss(delta=0.5)


@cell("nn.RMSELoss", inputs=[rnd(3, 4), rnd(3, 4)])
def nn_RMSELoss():
    return nn.RMSELoss()


_loss_cells("nn_MAELoss", "nn.MAELoss", _build("MAELoss"), [rnd(3, 4), rnd(3, 4)])
_KL_IN = H.Spec((3, 4), "float32", "uniform", -3.0, -0.1)
_loss_cells("nn_KLDivLoss", "nn.KLDivLoss", _build("KLDivLoss"), [_KL_IN, _TARGET01], reductions=("mean", "sum", "none"))


@case("ops.kl_div", "ops.KLDivLoss", inputs=[_KL_IN, _TARGET01])
def kl_div_fn(x, t):
    return ops.kl_div(x, t), ops.kl_div(x, t, "batchmean"), ops.KLDivLoss("sum")(x, t), ops.KLDivLoss("none")(x, t)


_loss_cells("nn_CosineEmbeddingLoss", "nn.CosineEmbeddingLoss", (lambda r: nn.CosineEmbeddingLoss(margin=0.2, reduction=r)),
            [rnd(3, 5), rnd(3, 5), np.array([1, -1, -1], np.int32)])
_loss_cells("nn_MarginRankingLoss", "nn.MarginRankingLoss", (lambda r: nn.MarginRankingLoss(margin=0.3, reduction=r)),
            [rnd(6), rnd(6), np.array([1, -1, 1, 1, -1, -1], np.float32)])
_loss_cells("nn_MultiLabelSoftMarginLoss", "nn.MultiLabelSoftMarginLoss", _build("MultiLabelSoftMarginLoss"),
            [rnd(3, 4), H.Spec((3, 4), "float32", "ints", 0, 2)])


@cell("nn.MultiLabelSoftMarginLoss", inputs=[rnd(3, 4), H.Spec((3, 4), "float32", "ints", 0, 2)])
def nn_MultiLabelSoftMarginLoss_weighted():
    return nn.MultiLabelSoftMarginLoss(weight=Tensor(np.array([1.0, 2.0, 0.5, 1.0], np.float32)))


_loss_cells("nn_SoftMarginLoss", "nn.SoftMarginLoss", _build("SoftMarginLoss"),
            [rnd(3, 4), np.array([[1, -1, 1, 1], [-1, -1, 1, -1], [1, 1, -1, 1]], np.float32)])
_loss_cells("nn_TripletMarginLoss", "nn.TripletMarginLoss", (lambda r: nn.TripletMarginLoss(reduction=r)),
            [rnd(3, 5), rnd(3, 5), rnd(3, 5)])


@cell("nn.TripletMarginLoss", inputs=[rnd(3, 5), rnd(3, 5), rnd(3, 5)])
def nn_TripletMarginLoss_p1_swap():
    return nn.TripletMarginLoss(p=1, swap=True, margin=0.5)


# labels have the logits' rank, with a class index where the logits have the classes
_loss_cells("nn_FocalLoss", "nn.FocalLoss", _build("FocalLoss"), [rnd(4, 3, 2), ints(4, 1, 2, lo=0, hi=3)])


@cell("nn.FocalLoss", inputs=[rnd(4, 3), np.array([[1], [0], [2], [1]], np.int32)])
def nn_FocalLoss_weighted_2d():
    return nn.FocalLoss(weight=Tensor(np.array([1.0, 2.0, 0.5], np.float32)), gamma=1.5)


@cell("nn.DiceLoss", inputs=[_PROB, H.Spec((3, 4), "float32", "ints", 0, 2)])
def nn_DiceLoss():
    return nn.DiceLoss(smooth=1e-5)


@case("ops.L2Loss", inputs=[rnd(3, 4)])
def cls_L2Loss(x):
    return ops.L2Loss()(x)
