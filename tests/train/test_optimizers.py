"""Every optimizer configuration recorded from MindSpore 2.10 (tests/oracle/data/optimizers.json):
the same model, inputs and optimizer expression, 5 steps of `value_and_grad` + `opt(grads)`, in
PyNative and compiled (GRAPH_MODE with the step under ms.jit). Checked per step: the loss, the
weights, every state Parameter of the optimizer (by MindSpore's names, in MindSpore's order) and
get_lr()."""
import importlib.util
import sys

import numpy as np
import pytest

import pycompile as ms

from oracle_data import array, assert_tensor, decode, load

DATA = load("optimizers.json")
# MindSpore's Lamb and LARS fail on its CPU at the first step ("Unsupported op on CPU"): Lamb is
# checked against its kernel's formula in test_lamb.py, LARS is not implemented (docs/status.md)
NOT_IMPLEMENTED = {"Lamb", "LARS_SGD"}
CONFIGS = [c for c in DATA["configs"] if c["name"] not in NOT_IMPLEMENTED]


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    """The recorder's model, helper and step sources, written to a file (graph code needs one)."""
    path = tmp_path_factory.mktemp("optim") / "optim_model.py"
    path.write_text("\n".join([
        "import numpy as np", "import pycompile as ms", "from pycompile import nn, ops, Parameter, Tensor",
        DATA["model_source"], DATA["helper_source"], DATA["train_step_source"]]))
    spec = importlib.util.spec_from_file_location("optim_model", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["optim_model"] = mod
    spec.loader.exec_module(mod)
    yield mod
    sys.modules.pop("optim_model", None)


def _build(mod, expr):
    inputs = DATA["inputs"]
    net = mod.Model(array(inputs["w0"]), array(inputs["b0"]))
    env = dict(vars(mod), params=net.trainable_params(), w=net.w, b=net.b)
    return net, eval(expr, env)


def _check_lr(got, enc, what):
    if "error" in enc:
        return
    want = decode(enc)
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), what
        for g, e, k in zip(got, enc["tuple"], range(len(want))):
            assert_tensor(g, e, f"{what}[{k}]")
    else:
        assert_tensor(got, enc, what)


@pytest.mark.parametrize("mode", ["pynative", "graph"])
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: c["name"])
def test_optimizer_matches_mindspore(module, config, mode):
    rec = config["results"]["pynative"]        # graph is recorded as the same for every configuration
    if "construct_error" in rec:
        with pytest.raises(Exception) as info:
            _build(module, config["optimizer"])
        assert type(info.value).__name__ == rec["construct_error"]["type"]
        return
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    net, opt = _build(module, config["optimizer"])
    assert type(opt).__name__ == rec["optimizer_class"]
    assert [n for n, _ in opt.parameters_and_names()] == rec["param_names_in_order"]
    assert [p.name for p in opt.parameters] == rec["opt_parameters"]
    state = dict(opt.parameters_and_names())
    for name, enc in rec["initial_state"].items():
        assert_tensor(state[name], enc, f"initial {name}")
    _check_lr(opt.get_lr(), rec["initial_lr"], "initial lr")
    step = module.make_train_step(net, opt)
    if mode == "graph":
        step = ms.jit(step)
    x, y = (ms.Tensor(array(DATA["inputs"][k])) for k in ("x", "y"))
    for rs in rec["steps"]:
        what = f"{config['name']} step {rs['step']}"
        loss = step(x, y)
        assert_tensor(loss, rs["loss"], f"{what} loss")
        assert_tensor(net.w, rs["params"]["w"], f"{what} w")
        assert_tensor(net.b, rs["params"]["b"], f"{what} b")
        for name, enc in rs["state"].items():
            assert_tensor(state[name], enc, f"{what} {name}")
        if "error" in rs["lr"]:
            with pytest.raises(Exception) as info:
                opt.get_lr()
            assert type(info.value).__name__ == rs["lr"]["error"]["type"]
        else:
            _check_lr(opt.get_lr(), rs["lr"], f"{what} lr")
