"""The conformance table: issue 33's coverage of mindspore.nn names pycompile had without a recorded
case (tools/name_coverage.py): layers, optimizers, LR schedules and wrappers. Ids start with
``cov33_nn_``. Random layers are compared by shape and dtype (or in eval mode, by value)."""
group("cov33_nn")


def _c33_cell(name, make, inputs, cid=None, **kw):
    def build():
        return make()
    add(f"cov33_nn_{cid or name}", f"nn.{name}", build, inputs, kind="cell", **kw)


_c33_cell("AdaptiveMaxPool1d", lambda: nn.AdaptiveMaxPool1d(3), [rnd(2, 3, 6)])
_c33_cell("AvgPool3dExt", lambda: nn.AvgPool3dExt(2, 1), [rnd(1, 2, 3, 4, 4)])
_c33_cell("MaxPool2dExt", lambda: nn.MaxPool2dExt(2, 2), [rnd(1, 2, 4, 6)])
_c33_cell("MaxUnpool1d", lambda: nn.MaxUnpool1d(2), [rnd(1, 2, 3), np.array([[[1, 2, 5], [0, 3, 4]]], np.int64)])
_c33_cell("InstanceNorm1d", lambda: set_params(nn.InstanceNorm1d(3), 1), [rnd(2, 3, 5)])
_c33_cell("InstanceNorm2d", lambda: set_params(nn.InstanceNorm2d(3), 2), [rnd(2, 3, 4, 4)])
_c33_cell("InstanceNorm3d", lambda: set_params(nn.InstanceNorm3d(3), 3), [rnd(2, 3, 2, 3, 3)])
_c33_SPD = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]], np.float32)
_c33_cell("MatDet", lambda: nn.MatDet(), [_c33_SPD])
_c33_cell("MatInverse", lambda: nn.MatInverse(), [_c33_SPD])
_c33_cell("MatrixDiag", lambda: nn.MatrixDiag(), [rnd(2, 3)])
_c33_cell("MatrixDiagPart", lambda: nn.MatrixDiagPart(), [rnd(2, 3, 3)])
_c33_cell("MatrixSetDiag", lambda: nn.MatrixSetDiag(), [rnd(2, 3, 3), rnd(2, 3)])
_c33_cell("ReflectionPad1d", lambda: nn.ReflectionPad1d((2, 1)), [rnd(1, 2, 4)])
_c33_cell("ReplicationPad1d", lambda: nn.ReplicationPad1d((1, 3)), [rnd(1, 2, 4)])
_c33_cell("Roll", lambda: nn.Roll(2, 1), [rnd(3, 4)])


@case("nn.RReLU", inputs=[rnd(3, 4)], graph=False, reason="random slopes (MindSpore 2.10 draws them in eval mode too)")
def cov33_nn_RReLU(x):
    y = nn.RReLU()(x)
    neg = (y <= x * 0.125 + 1e-6) & (y >= x / 3 - 1e-6)
    return y.shape, y.dtype, ops.where(x >= 0, y == x, neg).all()


_c33_cell("Dropout1d", lambda: nn.Dropout1d(0.5).set_train(False), [rnd(2, 3, 4)])
_c33_cell("Dropout2dExt", lambda: nn.Dropout2dExt(0.5).set_train(False), [rnd(2, 3, 4, 4)])
_c33_cell("DropoutExt", lambda: nn.DropoutExt(0.5).set_train(False), [rnd(2, 3)])


@case("nn.Transformer", "nn.TransformerEncoder", inputs=[rnd(3, 2, 8), rnd(2, 2, 8)], graph=False,
      reason="a Transformer built in the case (eval mode)")
def cov33_nn_transformer(src, tgt):
    net = set_params(nn.Transformer(8, 2, 1, 1, 16, 0.0), 5).set_train(False)
    layer = nn.TransformerEncoderLayer(8, 2, 16, 0.0)
    enc = set_params(nn.TransformerEncoder(layer, 2), 6).set_train(False)
    return net(src, tgt), enc(src)


# ---- LR schedules --------------------------------------------------------------------------------------------
@case("nn.exponential_decay_lr", "nn.inverse_decay_lr", "nn.natural_exp_decay_lr", "nn.polynomial_decay_lr", "nn.warmup_lr",
      graph=False, reason="Python lists of learning rates")
def cov33_nn_lr_lists():
    return (nn.exponential_decay_lr(0.1, 0.9, 6, 2, 1), nn.inverse_decay_lr(0.1, 0.5, 6, 2, 2, True),
            nn.natural_exp_decay_lr(0.1, 0.9, 6, 2, 2, True), nn.polynomial_decay_lr(0.1, 0.01, 6, 2, 2, 0.5),
            nn.warmup_lr(0.1, 6, 2, 2))


@case("nn.ExponentialDecayLR", "nn.InverseDecayLR", "nn.NaturalExpDecayLR", inputs=[np.array(3, np.int32)])
def cov33_nn_lr_cells(step):
    return (nn.ExponentialDecayLR(0.1, 0.9, 4)(step), nn.InverseDecayLR(0.1, 0.5, 2, True)(step),
            nn.NaturalExpDecayLR(0.1, 0.9, 4, True)(step))


# ---- optimizers: one step from fixed weights and gradients ------------------------------------------------------
def _c33_opt_step(make, steps=2):
    def f():
        w = Parameter(Tensor(np.array([[0.5, -1.0], [2.0, 0.25]], np.float32)), name="w")
        b = Parameter(Tensor(np.array([0.1, -0.2], np.float32)), name="b")
        opt = make([w, b])
        g = (Tensor(np.array([[0.1, -0.3], [0.2, 0.05]], np.float32)), Tensor(np.array([-0.4, 0.6], np.float32)))
        for _ in range(steps):
            opt(g)
        return w.asnumpy(), b.asnumpy()
    return f


for _n, _make in [("ASGD", lambda p: nn.ASGD(p, 0.1)), ("AdaMax", lambda p: nn.AdaMax(p, 0.1)),
                  ("Adadelta", lambda p: nn.Adadelta(p, 1.0)), ("AdamOffload", lambda p: nn.AdamOffload(p, 0.1)),
                  ("LazyAdam", lambda p: nn.LazyAdam(p, 0.1)), ("ProximalAdagrad", lambda p: nn.ProximalAdagrad(p, 0.1)),
                  ("Rprop", lambda p: nn.Rprop(p, 0.1)), ("AdaFactor", lambda p: nn.AdaFactor(p, 0.1, scale_parameter=False,
                                                                                                relative_step=False,
                                                                                                warmup_init=False))]:
    add(f"cov33_nn_opt_{_n}", f"nn.{_n}", _c33_opt_step(_make), graph=False, reason="an optimizer step updates Parameters")


# ---- wrappers ---------------------------------------------------------------------------------------------------
def _c33_dense():
    return nn.Dense(3, 2, weight_init=Tensor(np.array([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]], np.float32)),
                    bias_init=Tensor(np.zeros(2, np.float32)))


@case("nn.WithGradCell", inputs=[rnd(4, 3), ints(4, lo=0, hi=2)], graph=False, reason="gradients of a Cell built in the case")
def cov33_nn_with_grad_cell(x, y):
    net = _c33_dense()
    return nn.WithGradCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))(x, y)


@case("nn.FixedLossScaleUpdateCell", "nn.DynamicLossScaleUpdateCell", graph=False, reason="loss-scale state on the host")
def cov33_nn_loss_scale_cells():
    f = nn.FixedLossScaleUpdateCell(1024.0)
    d = nn.DynamicLossScaleUpdateCell(1024.0, 2.0, 2)
    s = Parameter(Tensor(np.array(1024.0, np.float32)), name="scale")
    ok = Tensor(np.array(False))
    bad = Tensor(np.array(True))
    r1 = d(s, ok)
    r2 = d(s, ok)
    after_ok = s.asnumpy().copy()
    r3 = d(s, bad)
    return float(f.get_loss_scale()), bool(r1), bool(r2), after_ok, bool(r3), s.asnumpy(), float(d.get_loss_scale())


@case("nn.SyncBatchNorm", inputs=[rnd(2, 3, 2, 1)], graph=False, reason="a parallel layer in a world of one")
def cov33_nn_sync_batchnorm(x):
    return set_params(nn.SyncBatchNorm(3), 4).set_train(False)(x)


@case("nn.get_metrics", "nn.no_init_parameters", graph=False, reason="host-side helpers")
def cov33_nn_helpers():
    m = nn.get_metrics({"acc", "loss"})
    with nn.no_init_parameters():
        d = _c33_dense()
    return sorted(m), type(d).__name__
