"""Record what MindSpore 2.10's callbacks do inside a real `Model.train` / `Model.eval` (run once,
under MindSpore's venv):

    . /work/ms-venv/bin/activate && python tests/train/record_callbacks.py

The network echoes its input, so `net_outputs` is the dataset's "loss" column (callback_cases.LOSSES)
and every printed loss is known. Recorded in fixtures/ms_callbacks.json: the order in which old-
and new-style hooks are called (train, eval, request_stop), cb_params' keys, LossMonitor's lines,
TimeMonitor's line, ModelCheckpoint's file names / contents / pruning / `_1` prefixes / `.meta`
files in both modes, History, EarlyStopping, LearningRateScheduler and LambdaCallback.
Not collected by pytest.
"""
import contextlib
import io
import json
import os
import shutil
import sys
import tempfile

import numpy as np

import mindspore as ms
import mindspore.dataset as ds
from mindspore import Parameter, Tensor, nn
from mindspore.train import (Callback, CheckpointConfig, EarlyStopping, History, LambdaCallback,
                             LearningRateScheduler, LossMonitor, Model, ModelCheckpoint, TimeMonitor)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import callback_cases  # noqa: E402


class Echo(nn.Cell):
    """Returns its input: the 'loss' Model.train reports is the dataset's value."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(2, 1, weight_init="ones", bias_init="zeros")
        self.scale = Parameter(Tensor(np.array([2.0], np.float32)), name="scale")

    def construct(self, x):
        return x


def loss_dataset(losses=callback_cases.LOSSES):
    return ds.GeneratorDataset([(np.array(v, np.float32),) for v in losses], ["loss"], shuffle=False)


class Log(Callback):
    """Logs every hook, old and new names, with the epoch / step it saw."""

    def __init__(self, log, stop_at=None):
        super().__init__()
        self.log, self.stop_at = log, stop_at

    def _add(self, hook, run_context):
        p = run_context.original_args()
        self.log.append([hook, p.get("cur_epoch_num"), p.get("cur_step_num")])


for _hook in callback_cases.OLD_HOOKS + callback_cases.NEW_HOOKS:
    def _make(hook):
        def method(self, run_context):
            self._add(hook, run_context)
            if self.stop_at is not None and hook == "on_train_step_end" and \
                    run_context.original_args().cur_step_num == self.stop_at:
                run_context.request_stop()
        return method
    setattr(Log, _hook, _make(_hook))


class OldOnly(Callback):
    def __init__(self, log):
        super().__init__()
        self.log = log

    def begin(self, rc): self.log.append("begin")
    def epoch_begin(self, rc): self.log.append("epoch_begin")
    def step_begin(self, rc): self.log.append("step_begin")
    def step_end(self, rc): self.log.append("step_end")
    def epoch_end(self, rc): self.log.append("epoch_end")
    def end(self, rc): self.log.append("end")


class Keys(Callback):
    def __init__(self, out):
        super().__init__()
        self.out = out

    def on_train_step_end(self, rc):
        self.out.setdefault("train_step_end", sorted(rc.original_args().keys()))

    def on_train_begin(self, rc):
        self.out.setdefault("train_begin", sorted(rc.original_args().keys()))

    def on_eval_step_end(self, rc):
        self.out.setdefault("eval_step_end", sorted(rc.original_args().keys()))

    def on_eval_end(self, rc):
        self.out.setdefault("eval_end", sorted(rc.original_args().keys()))


def train(callbacks, epochs=2, losses=callback_cases.LOSSES, net=None):
    model = Model(net or Echo())
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        model.train(epochs, loss_dataset(losses), callbacks=callbacks, dataset_sink_mode=False)
    return out.getvalue()


def ckpt_scenarios(record, mode):
    ms.set_context(mode=mode)
    result = {}
    for name, scenario in callback_cases.CKPT_SCENARIOS.items():
        root = tempfile.mkdtemp()
        directory = os.path.join(root, "ckpt_dir")
        for run in scenario["runs"]:
            config = CheckpointConfig(**run["config"])
            cb = ModelCheckpoint(prefix=run.get("prefix", "CKP"), directory=directory, config=config)
            train([cb], epochs=run["epochs"], losses=run.get("losses", callback_cases.LOSSES))
        files = sorted(os.listdir(directory))
        contents = {}
        for f in files:
            if f.endswith(".ckpt"):
                loaded = ms.load_checkpoint(os.path.join(directory, f))
                contents[f] = [[k, v.asnumpy().tolist() if hasattr(v, "asnumpy") else v, str(getattr(v, "dtype", ""))]
                               for k, v in loaded.items() if k not in ("fc.weight", "fc.bias", "scale")] + \
                    [list(loaded)]
        result[name] = {"files": files, "contents": contents, "latest": os.path.basename(cb.latest_ckpt_file_name)}
        shutil.rmtree(root)
    record["checkpoint"][{ms.PYNATIVE_MODE: "pynative", ms.GRAPH_MODE: "graph"}[mode]] = result
    ms.set_context(mode=ms.PYNATIVE_MODE)


def main():
    record = {"mindspore": ms.__version__, "checkpoint": {}}
    log = []
    train([Log(log)])
    record["train_hooks"] = log
    log = []
    train([Log(log, stop_at=2)])
    record["stop_at_step_2"] = log
    log = []
    Model(Echo(), eval_network=Echo(), metrics={"loss": nn.Loss()}).eval(loss_dataset(), callbacks=[Log(log)],
                                                                          dataset_sink_mode=False)
    record["eval_hooks"] = log
    log = []
    train([OldOnly(log)], epochs=1)
    record["old_only_train"] = log
    log = []
    Model(Echo(), eval_network=Echo(), metrics={"loss": nn.Loss()}).eval(loss_dataset(), callbacks=[OldOnly(log)],
                                                                          dataset_sink_mode=False)
    record["old_only_eval"] = log
    keys = {}
    train([Keys(keys)], epochs=1)
    Model(Echo(), eval_network=Echo(), metrics={"loss": nn.Loss()}).eval(loss_dataset(), callbacks=[Keys(keys)],
                                                                          dataset_sink_mode=False)
    record["cb_params_keys"] = keys

    record["loss_monitor"] = {str(n): train([LossMonitor(n)]) for n in (1, 2, 4)}
    record["loss_monitor_tuple"] = train([LossMonitor()], epochs=1, net=TupleOut())
    try:
        train([LossMonitor()], epochs=1, losses=[0.5, float("nan")])
    except ValueError as e:
        record["loss_monitor_nan"] = {"raises": type(e).__name__, "message": str(e)}
    record["time_monitor"] = train([TimeMonitor()], epochs=2)
    record["time_monitor_data_size"] = train([TimeMonitor(data_size=10)], epochs=1)

    history = History()
    train([history])
    record["history"] = {"epoch": history.epoch, "history": {k: [float(x) for x in v] for k, v in
                                                             history.history.items()}}
    log = []
    record["early_stopping"] = train([EarlyStopping(monitor="loss", patience=1, verbose=True), Log(log)],
                                     epochs=4, losses=callback_cases.LOSSES)
    record["early_stopping_hooks"] = [h for h in log if h[0] in ("on_train_epoch_end", "on_train_end")]

    lr_seen = []
    net = nn.Dense(2, 1)
    opt = nn.SGD(net.trainable_params(), learning_rate=0.1)
    model = Model(net, loss_fn=nn.MSELoss(), optimizer=opt)
    data = ds.GeneratorDataset([(np.ones(2, np.float32), np.ones(1, np.float32))] * 3, ["x", "y"], shuffle=False)
    seen = LambdaCallback(on_train_step_end=lambda rc: lr_seen.append(
        float(rc.original_args().optimizer.learning_rate.asnumpy())))
    model.train(2, data, callbacks=[LearningRateScheduler(callback_cases.lr_function), seen],
                dataset_sink_mode=False)
    record["lr_scheduler"] = lr_seen

    lam = []
    train([LambdaCallback(on_train_epoch_end=lambda rc: lam.append(rc.original_args().cur_epoch_num),
                          on_train_step_begin=lambda rc: lam.append("step"))])
    record["lambda"] = lam

    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ckpt_scenarios(record, mode)
    record["config_errors"] = {}
    for name, kwargs in callback_cases.CONFIG_ERRORS.items():
        try:
            CheckpointConfig(**kwargs)
            record["config_errors"][name] = None
        except Exception as e:  # noqa: BLE001
            record["config_errors"][name] = {"raises": type(e).__name__, "message": str(e)}
    record["config_policy"] = {name: CheckpointConfig(**kwargs).get_checkpoint_policy()
                               for name, kwargs in callback_cases.CONFIG_POLICIES.items()}
    try:
        ModelCheckpoint(prefix="a/b")
    except ValueError as e:
        record["prefix_error"] = {"raises": type(e).__name__, "message": str(e)}

    with open(os.path.join(HERE, "fixtures", "ms_callbacks.json"), "w") as f:
        json.dump(record, f, indent=1)
        f.write("\n")
    print("wrote", os.path.join(HERE, "fixtures", "ms_callbacks.json"))


class TupleOut(nn.Cell):
    """Returns (loss, something): LossMonitor prints the first Tensor as it is."""

    def construct(self, x):
        return x, x * 2


if __name__ == "__main__":
    main()
