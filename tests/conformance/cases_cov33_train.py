"""The conformance table: issue 33's coverage of mindspore.train / mindspore.amp /
mindspore.communication names (and their mindspore.* / nn.* spellings, the same objects) that
pycompile had without a recorded case (tools/name_coverage.py). Ids start with ``cov33_tr_``.
Metrics, callbacks, checkpoints and Model run on the host (Python values): graph=False."""
group("cov33_train")

TR = ms.train
_HOST = dict(graph=False, reason="host-side Python objects (metrics, callbacks, files)")

_LOGITS = np.array([[0.2, 0.5, 0.3], [0.6, 0.1, 0.3], [0.1, 0.1, 0.8], [0.3, 0.4, 0.3]], np.float32)
_LABELS = np.array([1, 0, 2, 2], np.int32)
_PRED = np.array([0.2, 0.8, 0.6, 0.1, 0.9], np.float32)
_TRUE = np.array([0.0, 1.0, 1.0, 0.0, 1.0], np.float32)


def _metric(m, *data):
    m.clear()
    m.update(*[Tensor(d) for d in data])
    out = m.eval()
    return tuple(np.asarray(out, np.float64).reshape(-1).tolist()) if not isinstance(out, (float, int)) else float(out)


def _metric_case(name, make, *data, tol=None):
    def f():
        return _metric(make(), *data)
    add(f"cov33_tr_{name}", f"train.{name}", f, **_HOST, **({"tol": tol, "note": "float32 metric"} if tol else {}))


_metric_case("Accuracy", lambda: TR.Accuracy(), _LOGITS, _LABELS)
_metric_case("Precision", lambda: TR.Precision(), _LOGITS, _LABELS)
_metric_case("Recall", lambda: TR.Recall(), _LOGITS, _LABELS)
_metric_case("F1", lambda: TR.F1(), _LOGITS, _LABELS)
_metric_case("Fbeta", lambda: TR.Fbeta(0.5), _LOGITS, _LABELS)
_metric_case("Top1CategoricalAccuracy", lambda: TR.Top1CategoricalAccuracy(), _LOGITS, _LABELS)
_metric_case("Top5CategoricalAccuracy", lambda: TR.Top5CategoricalAccuracy(),
             np.tile(_LOGITS, (1, 2)), _LABELS)
_metric_case("TopKCategoricalAccuracy", lambda: TR.TopKCategoricalAccuracy(2), _LOGITS, _LABELS)
_metric_case("MAE", lambda: TR.MAE(), _PRED, _TRUE)
_metric_case("MSE", lambda: TR.MSE(), _PRED, _TRUE)
_metric_case("Loss", lambda: TR.Loss(), np.array(0.75, np.float32))
_metric_case("Dice", lambda: TR.Dice(), _PRED, _TRUE)
_metric_case("Perplexity", lambda: TR.Perplexity(), _LOGITS, _LABELS)
_metric_case("ConfusionMatrix", lambda: TR.ConfusionMatrix(3), _LOGITS, _LABELS)
_metric_case("ConfusionMatrixMetric", lambda: TR.ConfusionMatrixMetric(),
             np.array([[[0, 1], [1, 0]], [[1, 1], [0, 1]]], np.float32)[None],
             np.array([[[0, 1], [0, 0]], [[1, 0], [0, 1]]], np.float32)[None])
_metric_case("ROC", lambda: TR.ROC(pos_label=1), _PRED, _TRUE.astype(np.int32))
_metric_case("CosineSimilarity", lambda: TR.CosineSimilarity(), _LOGITS)
_SEG_A = np.zeros((6, 6), np.float32)
_SEG_A[1:4, 1:4] = 1
_SEG_B = np.zeros((6, 6), np.float32)
_SEG_B[2:5, 1:5] = 1
def _seg_metric(m):
    m.clear()
    m.update(Tensor(_SEG_A), Tensor(_SEG_B), 1)
    return float(m.eval())


for _n in ("HausdorffDistance", "MeanSurfaceDistance", "RootMeanSquareDistance"):
    add(f"cov33_tr_{_n}", f"train.{_n}",
        (lambda n: lambda: _seg_metric(getattr(TR, n)()))(_n), **_HOST)


@case("train.BleuScore", **_HOST)
def cov33_tr_bleu_text():
    m = TR.BleuScore(2)
    m.clear()
    m.update([["the", "cat", "sat", "on", "the", "mat"]], [[["the", "cat", "is", "on", "the", "mat"]]])
    return float(m.eval())


@case("train.OcclusionSensitivity", **_HOST)
def cov33_tr_occlusion():
    net = nn.Dense(4, 2, weight_init=Tensor(np.array([[0.1, 0.8, 0.1, 0.1], [1, 1, 1, 1]], np.float32)),
                   bias_init=Tensor(np.array([0.3, 0.6], np.float32)))
    m = TR.OcclusionSensitivity()
    m.clear()
    m.update(net, np.array([[0.1, 0.2, 0.3, 0.4]], np.float32), np.array(1, np.int32))
    return m.eval()


@case("train.auc", "train.get_metric_fn", "train.names", "train.Metric", "train.rearrange_inputs", **_HOST)
def cov33_tr_metric_functions():
    acc = TR.get_metric_fn("accuracy")
    return (float(TR.auc(np.array([0.0, 0.5, 1.0]), np.array([0.0, 0.8, 1.0]))), type(acc).__name__,
            sorted(TR.names())[:6], issubclass(TR.Accuracy, TR.Metric), callable(TR.rearrange_inputs(lambda self, a: a)))


# ---- callbacks and Model --------------------------------------------------------------------------------------
def _net():
    return nn.Dense(3, 2, weight_init=Tensor(np.array([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]], np.float32)),
                    bias_init=Tensor(np.zeros(2, np.float32)))


def _data():
    x = np.linspace(-1, 1, 24, dtype=np.float32).reshape(8, 3)
    y = np.array([0, 1, 1, 0, 1, 0, 0, 1], np.int32)
    return ms.dataset.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(4)


@case("train.Model", "train.Callback", "train.RunContext", "train.LambdaCallback", "train.History",
      "train.LossMonitor", "train.TimeMonitor", **_HOST)
def cov33_tr_model_callbacks():
    seen = []

    class Steps(TR.Callback):
        def on_train_step_end(self, run_context):
            seen.append(int(run_context.original_args().cur_step_num))

    hist = TR.History()
    lam = TR.LambdaCallback(on_train_epoch_end=lambda rc: seen.append(-1))
    net = _net()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    model = TR.Model(net, loss, nn.SGD(net.trainable_params(), 0.1), metrics={"acc": TR.Accuracy()})
    model.train(2, _data(), callbacks=[Steps(), hist, lam, TR.LossMonitor(10), TR.TimeMonitor()])
    res = model.eval(_data())
    return tuple(seen), sorted(hist.history), sorted(res), net.weight.asnumpy()


@case("train.EarlyStopping", "train.ReduceLROnPlateau", "train.LearningRateScheduler", **_HOST)
def cov33_tr_lr_callbacks():
    net = _net()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    model = TR.Model(net, loss, opt, metrics={"acc": TR.Accuracy()})
    sched = TR.LearningRateScheduler(lambda lr, step: lr * 0.5)
    model.train(2, _data(), callbacks=[sched, TR.EarlyStopping(monitor="acc", patience=5),
                                       TR.ReduceLROnPlateau(monitor="acc", patience=5)])
    return float(opt.learning_rate.asnumpy()), net.weight.asnumpy()


@case("train.CheckpointConfig", "train.ModelCheckpoint", "train.save_checkpoint", "train.load_checkpoint",
      "train.load_param_into_net", "train.load_checkpoint_async", "train.async_ckpt_thread_status", **_HOST)
def cov33_tr_checkpoints():
    import os
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        net = _net()
        path = os.path.join(d, "n.ckpt")
        TR.save_checkpoint(net, path)
        params = TR.load_checkpoint(path)
        other = nn.Dense(3, 2, weight_init=Tensor(np.zeros((2, 3), np.float32)), bias_init=Tensor(np.ones(2, np.float32)))
        not_loaded = TR.load_param_into_net(other, params)
        fut = TR.load_checkpoint_async(path)
        params2 = fut.result()
        cfg = TR.CheckpointConfig(save_checkpoint_steps=1, keep_checkpoint_max=2)
        cb = TR.ModelCheckpoint("net", d, cfg)
        return (sorted(params), other.weight.asnumpy(), other.bias.asnumpy(), list(not_loaded[0]) if not_loaded else [],
                sorted(params2), cfg.save_checkpoint_steps, cfg.keep_checkpoint_max, type(cb).__name__,
                TR.async_ckpt_thread_status())


@case("train.ckpt_to_safetensors", "train.safetensors_to_ckpt", **_HOST)
def cov33_tr_safetensors():
    import os
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "n.ckpt")
        TR.save_checkpoint(_net(), path)
        TR.ckpt_to_safetensors(path, d)
        st = sorted(f for f in os.listdir(d) if f.endswith(".safetensors"))
        out = os.path.join(d, "back")
        os.makedirs(out)
        TR.safetensors_to_ckpt(os.path.join(d, st[0]), out)
        back = sorted(os.listdir(out))
        return st, back, sorted(TR.load_checkpoint(os.path.join(out, back[0])))


@case("train.BackupAndRestore", "train.OnRequestExit", **_HOST)
def cov33_tr_backup_exit():
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        b = TR.BackupAndRestore(d)
        e = TR.OnRequestExit(directory=d)
        return type(b).__name__, type(e).__name__


@case("train.LossScaleManager", "amp.LossScaleManager", "amp.LossScaler", "amp.StaticLossScaler", "amp.DynamicLossScaler",
      **_HOST)
def cov33_tr_loss_scalers():
    s = ms.amp.StaticLossScaler(8.0)
    d = ms.amp.DynamicLossScaler(16.0, 2, 1)
    g = (Tensor(np.array([1.0, 2.0], np.float32)),)
    ok = Tensor(np.array(True))
    d.adjust(ok)
    after_ok = float(d.scale_value.asnumpy())
    d.adjust(Tensor(np.array(False)))
    return (s.scale(Tensor(np.array(3.0, np.float32))), s.unscale(g), after_ok, float(d.scale_value.asnumpy()),
            issubclass(ms.amp.StaticLossScaler, ms.amp.LossScaler), issubclass(ms.amp.FixedLossScaleManager, TR.LossScaleManager))


@case("amp.all_finite", inputs=[rnd(3), np.array([1.0, np.inf], np.float32)])
def cov33_tr_all_finite(x, y):
    return ms.amp.all_finite((x,)), ms.amp.all_finite((x, y))


@case("amp.auto_mixed_precision", "amp.custom_mixed_precision", "amp.get_white_list", "amp.get_black_list", **_HOST)
def cov33_tr_mixed_precision():
    x = Tensor(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3))
    a = ms.amp.auto_mixed_precision(_net(), "O2")
    b = ms.amp.custom_mixed_precision(_net(), white_list=ms.amp.get_white_list())
    return (a(x).dtype, b(x).dtype, [c.__name__ for c in ms.amp.get_white_list()][:4],
            [c.__name__ for c in ms.amp.get_black_list()][:4])


# ---- communication (one process, not initialised) ---------------------------------------------------------------
@case("communication.HCCL_WORLD_COMM_GROUP", "communication.NCCL_WORLD_COMM_GROUP", "communication.MCCL_WORLD_COMM_GROUP",
      "communication.GlobalComm", **_HOST)
def cov33_tr_comm_constants():
    C = ms.communication
    return C.HCCL_WORLD_COMM_GROUP, C.NCCL_WORLD_COMM_GROUP, C.MCCL_WORLD_COMM_GROUP, C.GlobalComm.WORLD_COMM_GROUP


def _comm(name, call, error=True):
    def f():
        return call(getattr(ms.communication, name))
    add(f"cov33_tr_comm_{name}", f"communication.{name}", f, error=error, **_HOST)


# before init(): the world of one process answers, group functions raise
for _name in ("get_rank", "get_group_size", "get_local_rank", "get_local_rank_size", "release"):
    _comm(_name, lambda f: f(), error=False)
for _name, _call in [("get_comm_name", lambda f: f()),
                     ("get_process_group_ranks", lambda f: f()), ("create_group", lambda f: f("g2", [0, 1])),
                     ("destroy_group", lambda f: f("g2")), ("get_group_rank_from_world_rank", lambda f: f(0, "g2")),
                     ("get_world_rank_from_group_rank", lambda f: f("g2", 0)), ("init", lambda f: f("nccl"))]:
    _comm(_name, _call)
