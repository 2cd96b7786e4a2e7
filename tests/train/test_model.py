"""ms.Model against MindSpore 2.10: the quick-start-style scripts of model_cases.py, which the wheel
ran in PYNATIVE_MODE and GRAPH_MODE (tests/oracle/record_model.py -> tests/oracle/data/model.json),
run here with pycompile in both modes. Per-step losses, printed LossMonitor lines, History, eval
metrics and predictions agree to rtol 1e-5; checkpoint file names, cb_params keys, the networks
Model builds and the argument errors are equal."""
from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import numpy as np
import pytest

import pycompile as ms
from pycompile import nn

import model_cases
from oracle_data import load

RECORDED = load("model.json")["cases"]
MODES = {"PYNATIVE_MODE": ms.PYNATIVE_MODE, "GRAPH_MODE": ms.GRAPH_MODE}
_RESULTS = {}
_WORKDIRS = {}
FIX = Path(__file__).resolve().parent / "fixtures" / "ckpt"
_NUMBER = re.compile(r"-?\d+\.\d+(?:e[-+]?\d+)?")


def run(case, mode, tmp_path_factory):
    """Each case runs once per mode per session (the tests below share the result)."""
    if (case, mode) not in _RESULTS:
        ms.set_context(mode=MODES[mode])
        workdir = tmp_path_factory.mktemp(case)
        try:
            _RESULTS[case, mode] = model_cases.CASES[case](ms, str(workdir))
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
        _WORKDIRS[case, mode] = workdir
    return _RESULTS[case, mode]


def close(ours, theirs, path="", rtol=1e-5, atol=1e-6):
    """Equal structure and text; floats within rtol / atol; numbers inside strings too."""
    if isinstance(theirs, dict):
        assert isinstance(ours, dict) and sorted(ours) == sorted(theirs), path
        for k in theirs:
            close(ours[k], theirs[k], f"{path}.{k}", rtol, atol)
    elif isinstance(theirs, list):
        assert isinstance(ours, (list, tuple)) and len(ours) == len(theirs), (path, ours, theirs)
        for i, (a, b) in enumerate(zip(ours, theirs)):
            close(a, b, f"{path}[{i}]", rtol, atol)
    elif isinstance(theirs, float):
        assert ours == pytest.approx(theirs, rel=rtol, abs=atol), path
    elif isinstance(theirs, str) and "{" in theirs:       # a printed dict: its order follows a set's
        head, body = theirs.split("{", 1)
        assert ours.split("{", 1)[0] == head, path
        close(ast.literal_eval("{" + ours.split("{", 1)[1]), ast.literal_eval("{" + body), path, rtol, atol)
    elif isinstance(theirs, str):
        assert _NUMBER.sub("#", ours) == _NUMBER.sub("#", theirs), path
        close([float(x) for x in _NUMBER.findall(ours)], [float(x) for x in _NUMBER.findall(theirs)], path, rtol,
              atol)
    else:
        assert ours == theirs, path


@pytest.mark.parametrize("mode", list(MODES))
def test_quickstart_train_checkpoint_eval(mode, tmp_path_factory):
    """dataset -> Model -> train 3 epochs (LossMonitor, History, ModelCheckpoint) -> eval ->
    load_checkpoint into a fresh net -> eval, predict: everything MindSpore printed and returned."""
    ours, theirs = run("quickstart", mode, tmp_path_factory), RECORDED["quickstart"][mode]
    for key in ("steps", "printed", "history", "history_epoch", "events", "eval", "eval_loaded", "predict",
                "params_after"):
        close(ours[key], theirs[key], key)
    assert ours["cb_keys"] == theirs["cb_keys"]
    assert ours["ckpt_files"] == theirs["ckpt_files"] == ["quick-2_3.ckpt", "quick-3_2.ckpt", "quick-3_5.ckpt"]
    assert ours["ckpt_keys"] == theirs["ckpt_keys"]
    assert ours["load_param_into_net"] == theirs["load_param_into_net"]


@pytest.mark.parametrize("mode", list(MODES))
def test_fit_with_validation_and_request_stop(mode, tmp_path_factory):
    """fit: eval after each epoch (its hooks, cb_params.metrics / eval_results during
    on_train_epoch_end, eval_loss being the last batch's loss), request_stop at step 10."""
    ours, theirs = run("fit", mode, tmp_path_factory), RECORDED["fit"][mode]
    close(ours, theirs)
    assert [s["step"] for s in ours["steps"]] == list(range(1, 11))


@pytest.mark.parametrize("mode", list(MODES))
def test_fixed_loss_scale_manager(mode, tmp_path_factory):
    ours, theirs = run("loss_scale", mode, tmp_path_factory), RECORDED["loss_scale"][mode]
    for name in ("momentum_loss_scale", "sgd_unscaled"):
        close(ours[name], theirs[name], name)
    assert theirs["dynamic"]["error"][0] == "ValueError"         # MindSpore refuses an update cell on CPU
    assert ours["dynamic"] == {"error": None}                     # pycompile runs it (documented)


@pytest.mark.parametrize("mode", list(MODES))
def test_wrapped_network_eval_indexes_and_predict(mode, tmp_path_factory):
    close(run("wrapped", mode, tmp_path_factory), RECORDED["wrapped"][mode])


def test_argument_errors(tmp_path_factory):
    assert run("errors", "PYNATIVE_MODE", tmp_path_factory) == RECORDED["errors"]["PYNATIVE_MODE"]


@pytest.mark.parametrize("mode", list(MODES))
def test_dynamic_loss_scale_manager_trains_like_the_unscaled_step(mode, tmp_path_factory):
    """Where MindSpore's CPU build refuses DynamicLossScaleManager, pycompile builds a
    TrainOneStepWithLossScaleCell; without overflow it follows the same trajectory as Momentum
    without scaling (the recorded FixedLossScaleManager + Momentum(loss_scale=1024) run)."""
    ms.set_context(mode=MODES[mode])
    try:
        net = model_cases.make_net(ms)
        train_ds, _ = model_cases._datasets(ms, drop_remainder=True)
        mgr = ms.DynamicLossScaleManager(init_loss_scale=2 ** 12, scale_factor=2, scale_window=3)
        model = ms.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean'),
                         nn.Momentum(net.trainable_params(), 0.1, 0.9), loss_scale_manager=mgr)
        rec = model_cases.recorder(ms)
        model.train(2, train_ds, callbacks=[rec])
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert type(model.train_network).__name__ == "TrainOneStepWithLossScaleCell"
    assert all(s["n_outputs"] == 3 for s in rec.steps)               # (loss, overflow, scale)
    expected = RECORDED["loss_scale"][mode]["momentum_loss_scale"]["steps"]
    np.testing.assert_allclose([s["loss"] for s in rec.steps], [s["loss"] for s in expected], rtol=1e-5)
    assert mgr.get_loss_scale() == 2 ** 12 * 2 ** 2                 # the manager's own rule: x2 after 3 and 6 good steps


def test_graph_mode_compiles_the_step_once_per_batch_shape(tmp_path, capsys):
    """The training step is one compiled call: 15 steps over batches of 8, 8, 8, 8, 4 compile the
    TrainOneStepCell twice (the last, smaller batch is a new signature), not per step; switching
    between training, evaluation and prediction (set_train back and forth) compiles nothing again."""
    ms.set_context(mode=ms.GRAPH_MODE, log="compiles,recompiles")
    try:
        net = model_cases.make_net(ms, scale=0.9)     # a network no other test compiled
        train_ds, test_ds = model_cases._datasets(ms)
        model = ms.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean'),
                         nn.Momentum(net.trainable_params(), 0.1, 0.9), metrics={"acc"})
        capsys.readouterr()
        model.train(3, train_ds)
        err = capsys.readouterr().err.splitlines()
        model.eval(test_ds)
        model.train(1, train_ds)
        model.eval(test_ds)
        model.fit(2, train_ds, test_ds)
        again = capsys.readouterr().err.splitlines()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, log="")
    compiled = [ln for ln in err if ln.startswith("[pycompile] compiled TrainOneStepCell_construct")]
    assert len(compiled) == 2, err
    assert "(8, 16)" in compiled[0] and "(4, 16)" in compiled[1]
    assert [ln for ln in again if "compiled" in ln] == [ln for ln in again if "compiled WithEvalCell" in ln], again
    assert len([ln for ln in again if "compiled WithEvalCell" in ln]) == 1, again


def test_sink_mode_runs_as_non_sink_and_exception_checkpoint(tmp_path):
    """dataset_sink_mode=True trains the same steps (as MindSpore on CPU); a step that raises with
    CheckpointConfig(exception_save=True) leaves a `_breakpoint.ckpt` of the train network."""
    net = model_cases.make_net(ms)
    train_ds, _ = model_cases._datasets(ms)
    model = ms.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean'),
                     nn.Momentum(net.trainable_params(), 0.1, 0.9))
    rec = model_cases.recorder(ms)
    model.train(1, train_ds, callbacks=[rec], dataset_sink_mode=True)
    close([s["loss"] for s in rec.steps], [s["loss"] for s in RECORDED["quickstart"]["PYNATIVE_MODE"]["steps"][:5]])

    class Boom(ms.train.Callback):
        def on_train_step_end(self, run_context):
            if run_context.original_args().cur_step_num == 2:
                raise RuntimeError("boom")

    ckpt = ms.train.ModelCheckpoint(prefix="exc", directory=str(tmp_path),
                                    config=ms.train.CheckpointConfig(exception_save=True))
    with pytest.raises(RuntimeError, match="boom"):
        model.train(1, train_ds, callbacks=[ckpt, Boom()])
    assert (tmp_path / "exc-1_2_breakpoint.ckpt").exists()
    assert "moments.fc1.weight" in ms.load_checkpoint(str(tmp_path / "exc-1_2_breakpoint.ckpt"))


def test_amp_levels_build_mixed_precision_networks():
    """amp_level O2 builds through amp.build_train_network (tests/train/test_amp.py checks the
    levels against MindSpore); an unknown level is refused with MindSpore's message."""
    net = model_cases.make_net(ms)
    model = ms.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params()), amp_level="O3")
    assert isinstance(model.train_network, nn.TrainOneStepCell)
    assert net.fc1.__dict__.get("_mixed_precision") is ms.float16
    with pytest.raises(ValueError, match="O4"):
        ms.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params()), amp_level="O4")
    assert ms.train.Model is ms.Model


@pytest.mark.parametrize("mode", list(MODES))
def test_mindspore_loads_the_checkpoint_model_training_wrote(mode, tmp_path_factory):
    """fixtures/ckpt/pyc_model_quick.ckpt is quick-3_5.ckpt of pycompile's quickstart run;
    MindSpore loaded it (record_model_ckpt.py read): its entries, load_param_into_net's answer, the
    weights within 1e-6 of MindSpore's own training, and the loaded net's eval and predictions. The
    file pycompile's Model writes today, in either mode, has the same entries and values."""
    rec = json.loads((FIX / "ms_reads_model_ckpt.json").read_text())
    assert rec["max_abs_diff_from_mindspore_training"] < 1e-6
    theirs = RECORDED["quickstart"]["PYNATIVE_MODE"]
    assert rec["load_param_into_net"] == theirs["load_param_into_net"]
    assert rec["eval"]["accuracy"] == theirs["eval"]["accuracy"]
    close(rec["eval"], theirs["eval"])
    close(rec["predict"], theirs["predict"])
    run("quickstart", mode, tmp_path_factory)
    ours = ms.load_checkpoint(str(_WORKDIRS["quickstart", mode] / "quick-3_5.ckpt"))
    committed = ms.load_checkpoint(str(FIX / "pyc_model_quick.ckpt"))
    assert [[k, str(v.dtype), list(v.shape)] for k, v in ours.items()] == rec["entries"]
    for k, v in committed.items():
        np.testing.assert_allclose(ours[k].asnumpy(), v.asnumpy(), rtol=1e-5, atol=1e-6)


def test_eval_loss_during_fit_prints_as_a_plain_number():
    """cb_params.eval_results["eval_loss"] prints as MindSpore 2.10's (NumPy 1.x) `0.97`, as the
    metrics beside it do, not NumPy 2's `np.float64(0.97)`."""
    import pycompile.dataset as ds
    from pycompile import nn
    seen = []

    class Grab(ms.train.Callback):
        def on_train_epoch_end(self, run_context):
            seen.append(dict(run_context.original_args().eval_results))

    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((8, 3)).astype(np.float32), rng.standard_normal((8, 1)).astype(np.float32)
    data = ds.NumpySlicesDataset({"data": x, "label": y}, shuffle=False).batch(4)
    net = nn.Dense(3, 1)
    model = ms.train.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.01), metrics={"mae"})
    model.fit(1, data, data, callbacks=[Grab()])
    results = seen[-1]
    assert set(results) == {"mae", "eval_loss"}
    for v in results.values():
        assert repr(v) == repr(float(v)) and str(v) == repr(float(v))
