"""Callbacks against MindSpore 2.10's Model.train (fixtures/ms_callbacks.json, written by
record_callbacks.py): hook order and the old-name dispatch, LossMonitor's and TimeMonitor's
lines, ModelCheckpoint's files, History, EarlyStopping, LearningRateScheduler, LambdaCallback,
CheckpointConfig; plus ProgressBar and pruning when many files share one mtime."""
import json
import os
import re

import numpy as np
import pytest

import callback_cases
import callback_driver as drive
import pycompile as ms
from pycompile.train.callback import (Callback, CheckpointConfig, EarlyStopping, History, LambdaCallback,
                                      LearningRateScheduler, LossMonitor, ModelCheckpoint, ProgressBar, RunContext,
                                      TimeMonitor, _CallbackManager, _InternalCallbackParam)

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "ms_callbacks.json")) as _f:
    MS = json.load(_f)


class Log(Callback):
    """Records every hook with the epoch / step it saw (as record_callbacks.Log)."""

    def __init__(self, log, stop_at=None):
        super().__init__()
        self.log, self.stop_at = log, stop_at


def _make(hook):
    def method(self, run_context):
        p = run_context.original_args()
        self.log.append([hook, p.get("cur_epoch_num"), p.get("cur_step_num")])
        if self.stop_at is not None and hook == "on_train_step_end" and p.cur_step_num == self.stop_at:
            run_context.request_stop()
    return method


for _hook in callback_cases.OLD_HOOKS + callback_cases.NEW_HOOKS:
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


def test_hook_order_matches_model_train():
    log = []
    drive.train([Log(log)])
    assert log == MS["train_hooks"]
    log = []
    drive.train([Log(log, stop_at=2)])
    assert log == MS["stop_at_step_2"]
    log = []
    drive.evaluate([Log(log)])
    assert log == MS["eval_hooks"]


def test_old_names_run_through_new_hooks_in_train_and_eval():
    log = []
    drive.train([OldOnly(log)], epochs=1)
    assert log == MS["old_only_train"]
    log = []
    drive.evaluate([OldOnly(log)])
    assert log == MS["old_only_eval"]


def test_cb_params_have_mindspores_keys():
    seen = {}

    class Keys(Callback):
        def on_train_begin(self, rc): seen.setdefault("train_begin", sorted(rc.original_args()))
        def on_train_step_end(self, rc): seen.setdefault("train_step_end", sorted(rc.original_args()))
        def on_eval_step_end(self, rc): seen.setdefault("eval_step_end", sorted(rc.original_args()))
        def on_eval_end(self, rc): seen.setdefault("eval_end", sorted(rc.original_args()))
    drive.train([Keys()], epochs=1)
    drive.evaluate([Keys()])
    assert seen == MS["cb_params_keys"]


@pytest.mark.parametrize("every", ["1", "2", "4"])
def test_loss_monitor_prints_mindspores_lines(every, capsys):
    drive.train([LossMonitor(int(every))])
    assert capsys.readouterr().out == MS["loss_monitor"][every]


def test_loss_monitor_prints_first_tensor_of_a_tuple(capsys):
    drive.train([LossMonitor()], epochs=1, output=lambda loss: (loss, loss * 2))
    assert capsys.readouterr().out == MS["loss_monitor_tuple"]


def test_loss_monitor_stops_on_nan():
    with pytest.raises(ValueError) as info:
        drive.train([LossMonitor()], epochs=1, losses=[0.5, float("nan")])
    assert type(info.value).__name__ == MS["loss_monitor_nan"]["raises"]
    assert str(info.value) == MS["loss_monitor_nan"]["message"]


def test_loss_monitor_continues_its_cadence_in_a_second_run(capsys):
    monitor = LossMonitor(2)
    drive.train([monitor], epochs=1)
    drive.train([monitor], epochs=1)      # cur_step_num starts again at 1
    assert capsys.readouterr().out.splitlines() == ["epoch: 1 step: 2, loss is 0.25",
                                                    "epoch: 1 step: 2, loss is 0.25"]


def _time_pattern(line):
    return re.sub(r"\d+\.\d{3}", "<ms>", line)


def test_time_monitor_line_format(capsys):
    drive.train([TimeMonitor()], epochs=2)
    got = capsys.readouterr().out.splitlines()
    assert [_time_pattern(x) for x in got] == [_time_pattern(x) for x in MS["time_monitor"].splitlines()]
    drive.train([TimeMonitor(data_size=10)], epochs=1)
    got = capsys.readouterr().out.splitlines()
    assert [_time_pattern(x) for x in got] == [_time_pattern(x) for x in MS["time_monitor_data_size"].splitlines()]
    drive.train([TimeMonitor(data_time=True)], epochs=1)
    assert re.fullmatch(r"Train epoch time: \d+\.\d{3} ms, per step time: \d+\.\d{3} ms "
                        r"\(data time: \d+\.\d{3} ms\)\n", capsys.readouterr().out)


def test_history_records_epoch_outputs():
    history = History()
    drive.train([history])
    assert history.epoch == MS["history"]["epoch"]
    assert {k: [float(x) for x in v] for k, v in history.history.items()} == MS["history"]["history"]


def test_early_stopping_on_loss(capsys):
    log = []
    drive.train([EarlyStopping(monitor="loss", patience=1, verbose=True), Log(log)], epochs=4)
    assert capsys.readouterr().out == MS["early_stopping"]
    assert [h for h in log if h[0] in ("on_train_epoch_end", "on_train_end")] == MS["early_stopping_hooks"]


def test_early_stopping_restores_best_weights():
    """Independent check: the weights of the best epoch come back when it stops."""
    net = drive.Echo()

    class Drift(Callback):       # each epoch changes the weights
        def on_train_epoch_end(self, rc):
            net.scale.set_data(ms.Tensor(np.array([rc.original_args().cur_epoch_num * 10.0], np.float32)))
    stopper = EarlyStopping(monitor="loss", patience=2, restore_best_weights=True)
    drive.train([Drift(), stopper], epochs=5, losses=[0.3, 0.2], network=net)
    assert stopper.stopped_epoch == 3          # best at epoch 1, no improvement in 2 and 3
    np.testing.assert_array_equal(net.scale.asnumpy(), [10.0])


class FakeOptimizer:
    def __init__(self):
        self.learning_rate = ms.Parameter(ms.Tensor(np.array(0.1, np.float32)), name="learning_rate")


def test_learning_rate_scheduler_matches():
    opt = FakeOptimizer()
    seen = []
    watch = LambdaCallback(on_train_step_end=lambda rc: seen.append(float(opt.learning_rate.asnumpy())))
    drive.train([LearningRateScheduler(callback_cases.lr_function), watch], optimizer=opt)
    assert seen == MS["lr_scheduler"]


def test_lambda_callback():
    out = []
    drive.train([LambdaCallback(on_train_epoch_end=lambda rc: out.append(rc.original_args().cur_epoch_num),
                                on_train_step_begin=lambda rc: out.append("step"))])
    assert out == MS["lambda"]


@pytest.mark.parametrize("name", sorted(callback_cases.CKPT_SCENARIOS))
def test_model_checkpoint_files_match(name, tmp_path):
    directory = str(tmp_path / "ckpt_dir")
    for run in callback_cases.CKPT_SCENARIOS[name]["runs"]:
        cb = ModelCheckpoint(prefix=run.get("prefix", "CKP"), directory=directory,
                             config=CheckpointConfig(**run["config"]))
        drive.train([cb], epochs=run["epochs"], losses=run.get("losses", callback_cases.LOSSES))
    want = MS["checkpoint"]["pynative"][name]
    files = sorted(os.listdir(directory))
    assert files == want["files"]
    # GRAPH_MODE adds MindSpore's compiled graph, {prefix}-graph.meta, which pycompile does not write
    assert [f for f in MS["checkpoint"]["graph"][name]["files"] if not f.endswith("-graph.meta")] == files
    for f in files:
        loaded = ms.load_checkpoint(os.path.join(directory, f))
        got = [[k, v.asnumpy().tolist() if hasattr(v, "asnumpy") else v, str(getattr(v, "dtype", ""))]
               for k, v in loaded.items() if k not in ("fc.weight", "fc.bias", "scale")] + [list(loaded)]
        assert got == want["contents"][f]
    assert os.path.basename(cb.latest_ckpt_file_name) == want["latest"]


def test_pruning_keeps_the_newest_when_mtimes_tie(tmp_path):
    """Saves closer together than the file system's clock tick get the same mtime; the newest
    files must still be the ones kept."""
    cb = ModelCheckpoint(directory=str(tmp_path), config=CheckpointConfig(save_checkpoint_steps=1,
                                                                          keep_checkpoint_max=3))
    drive.train([cb], epochs=4, losses=[0.5] * 5)
    assert sorted(os.listdir(tmp_path)) == ["CKP-4_3.ckpt", "CKP-4_4.ckpt", "CKP-4_5.ckpt"]


def test_callable_prefix_and_directory(tmp_path):
    cb = ModelCheckpoint(prefix=lambda p: f"net_e{p.cur_epoch_num}_s{p.cur_step_num}",
                         directory=lambda p: str(tmp_path / f"epoch{p.cur_epoch_num}"),
                         config=CheckpointConfig(save_checkpoint_steps=3, keep_checkpoint_max=10))
    drive.train([cb], epochs=2)
    assert sorted(os.listdir(tmp_path)) == ["epoch1", "epoch2"]
    assert os.listdir(tmp_path / "epoch2") == ["net_e2_s6.ckpt"]


def test_checkpoint_config_errors_and_policies():
    for name, kwargs in callback_cases.CONFIG_ERRORS.items():
        want = MS["config_errors"][name]
        if want is None:
            CheckpointConfig(**kwargs)
            continue
        with pytest.raises(Exception) as info:
            CheckpointConfig(**kwargs)
        assert (type(info.value).__name__, str(info.value)) == (want["raises"], want["message"]), name
    for name, kwargs in callback_cases.CONFIG_POLICIES.items():
        assert CheckpointConfig(**kwargs).get_checkpoint_policy() == MS["config_policy"][name]
    with pytest.raises(ValueError) as info:
        ModelCheckpoint(prefix="a/b")
    assert str(info.value) == MS["prefix_error"]["message"]


def test_async_checkpoints_are_complete_at_the_end(tmp_path):
    cb = ModelCheckpoint(directory=str(tmp_path), config=CheckpointConfig(save_checkpoint_steps=2,
                                                                          async_save=True))
    drive.train([cb], epochs=2)
    assert sorted(os.listdir(tmp_path)) == ["CKP-1_2.ckpt", "CKP-2_1.ckpt", "CKP-2_3.ckpt"]
    assert list(ms.load_checkpoint(str(tmp_path / "CKP-2_3.ckpt"))) == ["scale", "fc.weight", "fc.bias"]


def test_manager_and_run_context_validate():
    with pytest.raises(TypeError):
        _CallbackManager([LossMonitor(), object()])
    with pytest.raises(TypeError):
        _CallbackManager("x")
    with pytest.raises(TypeError):
        RunContext([1])
    params = _InternalCallbackParam(a=1)
    params.b = 2
    assert (params.a, params["b"], hasattr(params, "c")) == (1, 2, False)


def test_manager_enters_and_exits_context_callbacks():
    events = []

    class Ctx(Callback):
        def __enter__(self):
            events.append("enter")
            return self

        def __exit__(self, *err):
            events.append("exit")

        def on_train_begin(self, rc):
            raise RuntimeError("boom")
    with pytest.raises(RuntimeError, match="boom"):
        drive.train([Ctx()])
    assert events == ["enter", "exit"]


def test_progress_bar_only_in_terminals(capsys):
    pytest.importorskip("tqdm")
    drive.train([ProgressBar()], epochs=1)          # captured stdout is not a terminal
    assert capsys.readouterr().out == ""
    drive.train([ProgressBar(enable=True)], epochs=2)
    out = capsys.readouterr().out
    assert "epoch 1/2" in out and "epoch 2/2" in out and "3/3" in out and "loss=1.5" in out


def test_progress_bar_without_tqdm(monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "tqdm", None)
    assert ProgressBar().enabled is False
    with pytest.raises(ImportError, match=r"pycompile\[progress\]"):
        ProgressBar(enable=True)


def test_exports_match_mindspore():
    import pycompile.train as train
    for name in ("Callback", "RunContext", "LossMonitor", "TimeMonitor", "ModelCheckpoint", "CheckpointConfig",
                 "EarlyStopping", "LearningRateScheduler", "History", "LambdaCallback"):
        assert getattr(ms, name) is getattr(train, name) is getattr(train.callback, name)
