"""Quick-start-style training scripts, written once and run twice: by MindSpore 2.10
(tests/oracle/record_model.py, which commits what happened to tests/oracle/data/model.json) and by
pycompile (tests/train/test_model.py, which compares). Each case takes the framework module
(`mindspore` or `pycompile`, imported by the caller - this file imports neither), the execution
mode and a scratch directory, and returns plain JSON data: per-step losses and cb_params fields
seen by a callback, LossMonitor's printed lines, History, checkpoint file names, eval metrics,
predictions, load_param_into_net's answer.

Shuffling is off everywhere (MindSpore's random stream is not reproduced). The data and initial
weights are fixed NumPy arrays, so both frameworks start from the same numbers.
"""
from __future__ import annotations

import contextlib
import io
import os

import numpy as np

N_TRAIN, N_TEST, N_IN, N_HID, N_OUT, BATCH = 36, 20, 16, 32, 4, 8   # 36 / 8: a last batch of 4


def data():
    rng = np.random.RandomState(7)
    x = rng.randn(N_TRAIN + N_TEST, N_IN).astype(np.float32)
    y = (x[:, :N_OUT] + 0.3 * x[:, N_OUT:2 * N_OUT]).argmax(1).astype(np.int32)
    w1 = (rng.randn(N_HID, N_IN) * 0.3).astype(np.float32)
    b1 = (rng.randn(N_HID) * 0.1).astype(np.float32)
    w2 = (rng.randn(N_OUT, N_HID) * 0.3).astype(np.float32)
    b2 = (rng.randn(N_OUT) * 0.1).astype(np.float32)
    return x[:N_TRAIN], y[:N_TRAIN], x[N_TRAIN:], y[N_TRAIN:], (w1, b1, w2, b2)


def make_net(ms, scale=1.0):
    """Dense -> ReLU -> Dense with fixed initial weights (`scale` gives a different start)."""
    nn = ms.nn
    w1, b1, w2, b2 = data()[4]

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(N_IN, N_HID, weight_init=ms.Tensor(w1 * scale), bias_init=ms.Tensor(b1))
            self.relu = nn.ReLU()
            self.fc2 = nn.Dense(N_HID, N_OUT, weight_init=ms.Tensor(w2 * scale), bias_init=ms.Tensor(b2))

        def construct(self, x):
            return self.fc2(self.relu(self.fc1(x)))

    return Net()


def _floats(t):
    return np.asarray(t.asnumpy(), np.float64).round(7).tolist()


def _plain(v):
    """A metric / history value as JSON (NumPy scalars and arrays become floats and lists)."""
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in sorted(v.items())}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if hasattr(v, "asnumpy"):
        v = v.asnumpy()
    if isinstance(v, np.ndarray):
        return np.asarray(v, np.float64).tolist()
    if isinstance(v, (np.floating, np.integer)):
        return float(v)
    return v


def recorder(ms, stop_at=None):
    """A Callback logging, per train / eval step, what MindSpore's callbacks read from cb_params."""

    class Recorder(ms.train.Callback):
        def __init__(self):
            super().__init__()
            self.steps, self.events, self.keys = [], [], None

        def on_train_step_end(self, run_context):
            p = run_context.original_args()
            out = p.net_outputs
            loss = out[0] if isinstance(out, (tuple, list)) else out
            self.steps.append({"epoch": p.cur_epoch_num, "step": p.cur_step_num, "loss": float(loss.asnumpy()),
                               "batch_num": p.batch_num, "epoch_num": p.epoch_num, "mode": p.mode,
                               "n_outputs": len(out) if isinstance(out, (tuple, list)) else 1})
            if self.keys is None:
                self.keys = sorted(k for k in p.keys())
            if stop_at is not None and p.cur_step_num == stop_at:
                run_context.request_stop()

        def on_train_epoch_end(self, run_context):
            p = run_context.original_args()
            self.events.append(["train_epoch_end", p.cur_epoch_num, p.cur_step_num,
                                _plain(p.get("metrics")), _plain(p.get("eval_results"))])

        def on_eval_begin(self, run_context):
            p = run_context.original_args()
            self.events.append(["eval_begin", p.get("cur_epoch_num"), p.cur_step_num, p.batch_num])

        def on_eval_step_end(self, run_context):
            p = run_context.original_args()
            self.events.append(["eval_step_end", p.get("cur_epoch_num"), p.cur_step_num, p.mode,
                                len(p.net_outputs)])

        def on_eval_end(self, run_context):
            p = run_context.original_args()
            self.events.append(["eval_end", p.get("cur_epoch_num"), p.cur_step_num, _plain(p.get("metrics"))])

    return Recorder()


def _datasets(ms, generator=False, drop_remainder=False):
    x, y, xt, yt, _ = data()
    ds = ms.dataset
    if generator:
        rows = [(x[i], y[i]) for i in range(len(x))]
        train = ds.GeneratorDataset(rows, column_names=["data", "label"], shuffle=False)
    else:
        train = ds.NumpySlicesDataset({"data": x, "label": y}, shuffle=False)
    test = ds.NumpySlicesDataset({"data": xt, "label": yt}, shuffle=False)
    return train.batch(BATCH, drop_remainder=drop_remainder), test.batch(10)


def _run(fn):
    """fn() with stdout captured: (its result, the printed lines)."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        result = fn()
    return result, [ln for ln in buf.getvalue().splitlines() if ln.strip()]


def quickstart(ms, workdir):
    """dataset -> Model(net, loss, Momentum, metrics) -> train with LossMonitor + History +
    ModelCheckpoint -> eval -> load_checkpoint into a fresh net -> eval and predict."""
    nn, train = ms.nn, ms.train
    net = make_net(ms)
    train_ds, test_ds = _datasets(ms)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean')
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    model = ms.Model(net, loss, opt, metrics={'accuracy', 'loss'})
    rec, hist = recorder(ms), train.History()
    ckpt = train.ModelCheckpoint(prefix="quick", directory=workdir,
                                 config=train.CheckpointConfig(save_checkpoint_steps=4, keep_checkpoint_max=3))
    _, printed = _run(lambda: model.train(3, train_ds, callbacks=[train.LossMonitor(1), hist, ckpt, rec]))
    files = sorted(f for f in os.listdir(workdir) if f.endswith(".ckpt"))
    metrics = model.eval(test_ds)
    net2 = make_net(ms, scale=0.5)
    param_dict = ms.load_checkpoint(os.path.join(workdir, files[-1]))
    not_loaded = ms.load_param_into_net(net2, param_dict)
    model2 = ms.Model(net2, loss, metrics={'acc'})
    metrics2 = model2.eval(test_ds)
    xt = data()[2]
    pred = model2.predict(ms.Tensor(xt[:3]))
    return {"steps": rec.steps, "cb_keys": rec.keys, "events": rec.events, "printed": printed,
            "history": _plain(hist.history), "history_epoch": _plain(hist.epoch), "ckpt_files": files,
            "ckpt_keys": sorted(param_dict), "eval": _plain(metrics), "eval_loaded": _plain(metrics2),
            "load_param_into_net": [sorted(not_loaded[0]), sorted(not_loaded[1])],
            "predict": _floats(pred), "params_after": {p.name: _floats(p) for p in net.trainable_params()}}


def fit(ms, workdir):
    """Model.fit with a validation dataset every epoch, a GeneratorDataset, LossMonitor, History,
    and a callback that stops training at step 10 of 15."""
    nn, train = ms.nn, ms.train
    net = make_net(ms)
    train_ds, test_ds = _datasets(ms, generator=True)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean')
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.05, momentum=0.9)
    model = ms.Model(net, loss, opt, metrics={'accuracy', 'loss'})
    rec, hist = recorder(ms, stop_at=10), train.History()
    _, printed = _run(lambda: model.fit(3, train_ds, test_ds, valid_frequency=1,
                                        callbacks=[train.LossMonitor(5), hist, rec]))
    return {"steps": rec.steps, "events": rec.events, "printed": printed, "history": _plain(hist.history),
            "history_epoch": _plain(hist.epoch)}


def loss_scale(ms, workdir):
    """Model with FixedLossScaleManager(drop_overflow_update=False): a TrainOneStepCell whose sens is
    the scale. With Momentum(loss_scale=1024) the scale cancels; with plain SGD it multiplies the
    step. DynamicLossScaleManager (an update cell) is recorded too."""
    nn = ms.nn
    out = {}
    for name, make_opt in (("momentum_loss_scale", lambda p: nn.Momentum(p, 0.1, 0.9, loss_scale=1024.0)),
                           ("sgd_unscaled", lambda p: nn.SGD(p, learning_rate=1e-4))):
        net = make_net(ms)
        train_ds, _ = _datasets(ms, drop_remainder=True)
        mgr = ms.FixedLossScaleManager(1024.0, drop_overflow_update=False)
        model = ms.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean'), make_opt(net.trainable_params()),
                         loss_scale_manager=mgr)
        rec = recorder(ms)
        model.train(2, train_ds, callbacks=[rec])
        out[name] = {"steps": rec.steps, "train_network": type(model.train_network).__name__}
    try:
        net = make_net(ms)
        ms.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean'),
                 nn.Momentum(net.trainable_params(), 0.1, 0.9), loss_scale_manager=ms.DynamicLossScaleManager())
        out["dynamic"] = {"error": None}
    except Exception as e:    # MindSpore refuses an update cell on CPU
        out["dynamic"] = {"error": [type(e).__name__, str(e).splitlines()[0]]}
    return out


def wrapped(ms, workdir):
    """Model(WithLossCell(net, loss), optimizer) with the dataset's two columns passed to it, an
    explicit eval_network / eval_indexes, Model(net).predict, and the networks Model built."""
    nn = ms.nn
    net = make_net(ms)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean')
    train_ds, test_ds = _datasets(ms, drop_remainder=True)
    opt = nn.SGD(net.trainable_params(), learning_rate=0.2)
    model = ms.Model(nn.WithLossCell(net, loss), optimizer=opt, metrics={'acc', 'loss'},
                     eval_network=nn.WithEvalCell(net, loss), eval_indexes=[0, 1, 2])
    rec = recorder(ms)
    model.train(2, train_ds, callbacks=rec)
    metrics = model.eval(test_ds)
    plain = ms.Model(net)
    xt = data()[2]
    return {"steps": rec.steps, "eval": _plain(metrics), "predict": _floats(plain.predict(ms.Tensor(xt[:4]))),
            "networks": [type(model.train_network).__name__, type(model.eval_network).__name__,
                         type(model.predict_network).__name__, type(plain.train_network).__name__,
                         plain.eval_network is None]}


def errors(ms, workdir):
    """Argument errors Model raises (class name and first line)."""
    nn = ms.nn
    net = make_net(ms)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean')
    train_ds, test_ds = _datasets(ms)
    opt = nn.SGD(net.trainable_params(), learning_rate=0.1)
    calls = {
        "bad_kwarg": lambda: ms.Model(net, loss, opt, foo=1),
        "metrics_without_loss": lambda: ms.Model(net, metrics={'acc'}),
        "eval_without_metrics": lambda: ms.Model(net, loss, opt).eval(test_ds),
        "bad_eval_indexes": lambda: ms.Model(net, loss, opt, metrics={'acc'}, eval_network=nn.WithEvalCell(net, loss),
                                             eval_indexes=[0, 1]),
        "initial_epoch_too_big": lambda: ms.Model(net, loss, opt).train(2, train_ds, initial_epoch=2),
        "epoch_zero": lambda: ms.Model(net, loss, opt).train(0, train_ds),
        "bad_sink_size": lambda: ms.Model(net, loss, opt).train(1, train_ds, sink_size=0),
        "amp_without_optimizer": lambda: ms.Model(net, loss, amp_level="O2"),
        "scale_manager_without_optimizer": lambda: ms.Model(net, loss,
                                                            loss_scale_manager=ms.FixedLossScaleManager()),
        "fit_valid_without_metrics": lambda: ms.Model(net, loss, opt).fit(1, train_ds, test_ds),
        # both Models alive at once: a collected Model's id (its hash) can be reused by the next one
        "dataset_reused_by_another_model": lambda: (lambda a, b: (a.train(1, train_ds), b.train(1, train_ds)))(
            ms.Model(net, loss, opt), ms.Model(net, loss, opt)),
    }
    out = {}
    for name, call in calls.items():
        try:
            call()
            out[name] = None
        except Exception as e:
            out[name] = [type(e).__name__, str(e).strip().splitlines()[0]]
    return out


CASES = {"quickstart": quickstart, "fit": fit, "loss_scale": loss_scale, "wrapped": wrapped, "errors": errors}
