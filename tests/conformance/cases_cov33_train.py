"""The conformance table: issue 33's coverage of mindspore.train / mindspore.amp /
mindspore.communication names (and their mindspore.* / nn.* spellings, the same objects) that
pycompile had without a recorded case (tools/name_coverage.py). Ids start with ``cov33_tr_``.
Metrics, callbacks, checkpoints and Model run on the host (Python values): graph=False."""
group("cov33_train")

C33TR = ms.train
_c33_HOST = dict(graph=False, reason="host-side Python objects (metrics, callbacks, files)")

_c33_LOGITS = np.array([[0.2, 0.5, 0.3], [0.6, 0.1, 0.3], [0.1, 0.1, 0.8], [0.3, 0.4, 0.3]], np.float32)
_c33_LABELS = np.array([1, 0, 2, 2], np.int32)
_c33_PRED = np.array([0.2, 0.8, 0.6, 0.1, 0.9], np.float32)
_c33_TRUE = np.array([0.0, 1.0, 1.0, 0.0, 1.0], np.float32)


def _c33_metric(m, *data):
    m.clear()
    m.update(*[Tensor(d) for d in data])
    out = m.eval()
    return tuple(np.asarray(out, np.float64).reshape(-1).tolist()) if not isinstance(out, (float, int)) else float(out)


def _c33_metric_case(name, make, *data, tol=None):
    def f():
        return _c33_metric(make(), *data)
    add(f"cov33_tr_{name}", f"train.{name}", f, **_c33_HOST, **({"tol": tol, "note": "float32 metric"} if tol else {}))


_c33_metric_case("Accuracy", lambda: C33TR.Accuracy(), _c33_LOGITS, _c33_LABELS)
_c33_metric_case("Precision", lambda: C33TR.Precision(), _c33_LOGITS, _c33_LABELS)
_c33_metric_case("Recall", lambda: C33TR.Recall(), _c33_LOGITS, _c33_LABELS)
_c33_metric_case("F1", lambda: C33TR.F1(), _c33_LOGITS, _c33_LABELS)
_c33_metric_case("Fbeta", lambda: C33TR.Fbeta(0.5), _c33_LOGITS, _c33_LABELS)
_c33_metric_case("Top1CategoricalAccuracy", lambda: C33TR.Top1CategoricalAccuracy(), _c33_LOGITS, _c33_LABELS)
_c33_metric_case("Top5CategoricalAccuracy", lambda: C33TR.Top5CategoricalAccuracy(),
             np.tile(_c33_LOGITS, (1, 2)), _c33_LABELS)
_c33_metric_case("TopKCategoricalAccuracy", lambda: C33TR.TopKCategoricalAccuracy(2), _c33_LOGITS, _c33_LABELS)
_c33_metric_case("MAE", lambda: C33TR.MAE(), _c33_PRED, _c33_TRUE)
_c33_metric_case("MSE", lambda: C33TR.MSE(), _c33_PRED, _c33_TRUE)
_c33_metric_case("Loss", lambda: C33TR.Loss(), np.array(0.75, np.float32))
_c33_metric_case("Dice", lambda: C33TR.Dice(), _c33_PRED, _c33_TRUE)
_c33_metric_case("Perplexity", lambda: C33TR.Perplexity(), _c33_LOGITS, _c33_LABELS)
_c33_metric_case("ConfusionMatrix", lambda: C33TR.ConfusionMatrix(3), _c33_LOGITS, _c33_LABELS)
_c33_metric_case("ConfusionMatrixMetric", lambda: C33TR.ConfusionMatrixMetric(),
             np.array([[[0, 1], [1, 0]], [[1, 1], [0, 1]]], np.float32)[None],
             np.array([[[0, 1], [0, 0]], [[1, 0], [0, 1]]], np.float32)[None])
_c33_metric_case("ROC", lambda: C33TR.ROC(pos_label=1), _c33_PRED, _c33_TRUE.astype(np.int32))
_c33_metric_case("CosineSimilarity", lambda: C33TR.CosineSimilarity(), _c33_LOGITS)
_c33_SEG_A = np.zeros((6, 6), np.float32)
_c33_SEG_A[1:4, 1:4] = 1
_c33_SEG_B = np.zeros((6, 6), np.float32)
_c33_SEG_B[2:5, 1:5] = 1
def _c33_seg_metric(m):
    m.clear()
    m.update(Tensor(_c33_SEG_A), Tensor(_c33_SEG_B), 1)
    return float(m.eval())


for _n in ("HausdorffDistance", "MeanSurfaceDistance", "RootMeanSquareDistance"):
    add(f"cov33_tr_{_n}", f"train.{_n}",
        (lambda n: lambda: _c33_seg_metric(getattr(C33TR, n)()))(_n), **_c33_HOST)


@case("train.BleuScore", **_c33_HOST)
def cov33_tr_bleu_text():
    m = C33TR.BleuScore(2)
    m.clear()
    m.update([["the", "cat", "sat", "on", "the", "mat"]], [[["the", "cat", "is", "on", "the", "mat"]]])
    return float(m.eval())


@case("train.OcclusionSensitivity", **_c33_HOST)
def cov33_tr_occlusion():
    net = nn.Dense(4, 2, weight_init=Tensor(np.array([[0.1, 0.8, 0.1, 0.1], [1, 1, 1, 1]], np.float32)),
                   bias_init=Tensor(np.array([0.3, 0.6], np.float32)))
    m = C33TR.OcclusionSensitivity()
    m.clear()
    m.update(net, np.array([[0.1, 0.2, 0.3, 0.4]], np.float32), np.array(1, np.int32))
    return m.eval()


@case("train.auc", "train.get_metric_fn", "train.names", "train.Metric", "train.rearrange_inputs", **_c33_HOST)
def cov33_tr_metric_functions():
    acc = C33TR.get_metric_fn("accuracy")
    return (float(C33TR.auc(np.array([0.0, 0.5, 1.0]), np.array([0.0, 0.8, 1.0]))), type(acc).__name__,
            sorted(C33TR.names())[:6], issubclass(C33TR.Accuracy, C33TR.Metric), callable(C33TR.rearrange_inputs(lambda self, a: a)))


# ---- callbacks and Model --------------------------------------------------------------------------------------
def _c33_net():
    return nn.Dense(3, 2, weight_init=Tensor(np.array([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]], np.float32)),
                    bias_init=Tensor(np.zeros(2, np.float32)))


def _c33_data():
    x = np.linspace(-1, 1, 24, dtype=np.float32).reshape(8, 3)
    y = np.array([0, 1, 1, 0, 1, 0, 0, 1], np.int32)
    return ms.dataset.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(4)


@case("train.Model", "train.Callback", "train.RunContext", "train.LambdaCallback", "train.History",
      "train.LossMonitor", "train.TimeMonitor", **_c33_HOST)
def cov33_tr_model_callbacks():
    seen = []

    class Steps(C33TR.Callback):
        def on_train_step_end(self, run_context):
            seen.append(int(run_context.original_args().cur_step_num))

    hist = C33TR.History()
    lam = C33TR.LambdaCallback(on_train_epoch_end=lambda rc: seen.append(-1))
    net = _c33_net()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    model = C33TR.Model(net, loss, nn.SGD(net.trainable_params(), 0.1), metrics={"acc": C33TR.Accuracy()})
    model.train(2, _c33_data(), callbacks=[Steps(), hist, lam, C33TR.LossMonitor(10), C33TR.TimeMonitor()])
    res = model.eval(_c33_data())
    return tuple(seen), sorted(hist.history), sorted(res), net.weight.asnumpy()


@case("train.EarlyStopping", "train.ReduceLROnPlateau", "train.LearningRateScheduler", **_c33_HOST)
def cov33_tr_lr_callbacks():
    net = _c33_net()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    model = C33TR.Model(net, loss, opt, metrics={"acc": C33TR.Accuracy()})
    sched = C33TR.LearningRateScheduler(lambda lr, step: lr * 0.5)
    model.train(2, _c33_data(), callbacks=[sched, C33TR.EarlyStopping(monitor="acc", patience=5),
                                       C33TR.ReduceLROnPlateau(monitor="acc", patience=5)])
    return float(opt.learning_rate.asnumpy()), net.weight.asnumpy()


@case("train.CheckpointConfig", "train.ModelCheckpoint", "train.save_checkpoint", "train.load_checkpoint",
      "train.load_param_into_net", "train.load_checkpoint_async", "train.async_ckpt_thread_status", **_c33_HOST)
def cov33_tr_checkpoints():
    import os
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        net = _c33_net()
        path = os.path.join(d, "n.ckpt")
        C33TR.save_checkpoint(net, path)
        params = C33TR.load_checkpoint(path)
        other = nn.Dense(3, 2, weight_init=Tensor(np.zeros((2, 3), np.float32)), bias_init=Tensor(np.ones(2, np.float32)))
        not_loaded = C33TR.load_param_into_net(other, params)
        fut = C33TR.load_checkpoint_async(path)
        params2 = fut.result()
        cfg = C33TR.CheckpointConfig(save_checkpoint_steps=1, keep_checkpoint_max=2)
        cb = C33TR.ModelCheckpoint("net", d, cfg)
        return (sorted(params), other.weight.asnumpy(), other.bias.asnumpy(), list(not_loaded[0]) if not_loaded else [],
                sorted(params2), cfg.save_checkpoint_steps, cfg.keep_checkpoint_max, type(cb).__name__,
                C33TR.async_ckpt_thread_status())


@case("train.ckpt_to_safetensors", "train.safetensors_to_ckpt", **_c33_HOST)
def cov33_tr_safetensors():
    import os
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "n.ckpt")
        C33TR.save_checkpoint(_c33_net(), path)
        C33TR.ckpt_to_safetensors(path, d)
        st = sorted(f for f in os.listdir(d) if f.endswith(".safetensors"))
        out = os.path.join(d, "back")
        os.makedirs(out)
        C33TR.safetensors_to_ckpt(os.path.join(d, st[0]), out)
        back = sorted(os.listdir(out))
        return st, back, sorted(C33TR.load_checkpoint(os.path.join(out, back[0])))


@case("train.BackupAndRestore", "train.OnRequestExit", **_c33_HOST)
def cov33_tr_backup_exit():
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        b = C33TR.BackupAndRestore(d)
        e = C33TR.OnRequestExit(directory=d)
        return type(b).__name__, type(e).__name__


@case("train.LossScaleManager", "amp.LossScaleManager", "amp.LossScaler", "amp.StaticLossScaler", "amp.DynamicLossScaler",
      **_c33_HOST)
def cov33_tr_loss_scalers():
    s = ms.amp.StaticLossScaler(8.0)
    d = ms.amp.DynamicLossScaler(16.0, 2, 1)
    g = (Tensor(np.array([1.0, 2.0], np.float32)),)
    ok = Tensor(np.array(True))
    d.adjust(ok)
    after_ok = float(d.scale_value.asnumpy())
    d.adjust(Tensor(np.array(False)))
    return (s.scale(Tensor(np.array(3.0, np.float32))), s.unscale(g), after_ok, float(d.scale_value.asnumpy()),
            issubclass(ms.amp.StaticLossScaler, ms.amp.LossScaler), issubclass(ms.amp.FixedLossScaleManager, C33TR.LossScaleManager))


@case("amp.all_finite", inputs=[rnd(3), np.array([1.0, np.inf], np.float32)])
def cov33_tr_all_finite(x, y):
    return ms.amp.all_finite((x,)), ms.amp.all_finite((x, y))


@case("amp.auto_mixed_precision", "amp.custom_mixed_precision", "amp.get_white_list", "amp.get_black_list", **_c33_HOST)
def cov33_tr_mixed_precision():
    x = Tensor(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3))
    a = ms.amp.auto_mixed_precision(_c33_net(), "O2")
    b = ms.amp.custom_mixed_precision(_c33_net(), white_list=ms.amp.get_white_list())
    return (a(x).dtype, b(x).dtype, [c.__name__ for c in ms.amp.get_white_list()][:4],
            [c.__name__ for c in ms.amp.get_black_list()][:4])


# ---- communication (one process, not initialised) ---------------------------------------------------------------
@case("communication.HCCL_WORLD_COMM_GROUP", "communication.NCCL_WORLD_COMM_GROUP", "communication.MCCL_WORLD_COMM_GROUP",
      "communication.GlobalComm", **_c33_HOST)
def cov33_tr_comm_constants():
    C = ms.communication
    return C.HCCL_WORLD_COMM_GROUP, C.NCCL_WORLD_COMM_GROUP, C.MCCL_WORLD_COMM_GROUP, C.GlobalComm.WORLD_COMM_GROUP


def _c33_comm(name, call, error=True):
    def f():
        out = call(getattr(ms.communication, name))
        if name == "init":           # it succeeded (pycompile): leave no world behind for the other cases
            ms.communication.release()
        return out
    add(f"cov33_tr_comm_{name}", f"communication.{name}", f, error=error, **_c33_HOST)


# before init(): the world of one process answers, group functions raise
for _name in ("get_rank", "get_group_size", "get_local_rank", "get_local_rank_size", "release"):
    _c33_comm(_name, lambda f: f(), error=False)
for _name, _call in [("get_comm_name", lambda f: f()),
                     ("get_process_group_ranks", lambda f: f()), ("create_group", lambda f: f("g2", [0, 1])),
                     ("destroy_group", lambda f: f("g2")), ("get_group_rank_from_world_rank", lambda f: f(0, "g2")),
                     ("get_world_rank_from_group_rank", lambda f: f("g2", 0)), ("init", lambda f: f("nccl"))]:
    _c33_comm(_name, _call)
