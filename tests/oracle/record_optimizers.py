"""Record MindSpore optimizer trajectories into data/optimizers.json.

Run ONLY in the MindSpore venv:
    . /work/ms-venv/bin/activate && python tests/oracle/record_optimizers.py

The model (source in the JSON under "model_source"):
    Parameters w (3, 4) and b (3,), inputs x (5, 4), y (5, 3),
    loss = mean(square(matmul(x, w.T) + b - y)).
Training step (source under "train_step_source"):
    grad_fn = ms.value_and_grad(net, None, opt.parameters)
    loss, grads = grad_fn(x, y); opt(grads)
5 steps per configuration, in two modes:
    pynative   PYNATIVE_MODE, train_step called eagerly
    graph      GRAPH_MODE, ms.jit(train_step)
Each configuration's "optimizer" is the Python expression that built the optimizer,
evaluated with: nn (mindspore.nn), Tensor, np, ms, params = net.trainable_params(),
w = net.w, b = net.b, and the helper Cells defined in "helper_source".
"""
import inspect
import os
import sys
import tempfile
import textwrap

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import record_common as rc  # noqa: E402

import mindspore as ms  # noqa: E402
from mindspore import nn, ops, Tensor, Parameter  # noqa: E402

rng = np.random.default_rng(7)
X = np.round(rng.standard_normal((5, 4)), 3).astype(np.float32)
Y = np.round(rng.standard_normal((5, 3)), 3).astype(np.float32)
W0 = np.round(rng.standard_normal((3, 4)) * 0.5, 3).astype(np.float32)
B0 = np.round(rng.standard_normal((3,)) * 0.5, 3).astype(np.float32)
STEPS = 5


class Model(nn.Cell):
    def __init__(self, w0, b0):
        super().__init__()
        self.w = Parameter(Tensor(w0), name="w")
        self.b = Parameter(Tensor(b0), name="b")

    def construct(self, x, y):
        return ops.mean(ops.square(ops.matmul(x, self.w.T) + self.b - y))


class StepWeightDecay(nn.Cell):
    """A weight-decay Cell: called with the optimizer's global_step."""

    def construct(self, global_step):
        return 0.01 * ops.cast(global_step, ms.float32) + 0.01


def make_train_step(net, opt):
    grad_fn = ms.value_and_grad(net, None, opt.parameters)

    def train_step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss
    return train_step


SGD_LRS = "[0.1, 0.05, 0.02, 0.01, 0.005]"
GROUPS = "[{'params': [w], 'weight_decay': 0.01, 'lr': 0.05}, {'params': [b], 'lr': 0.2}, {'order_params': [w, b]}]"

CONFIGS = [
    # SGD
    ("SGD_lr0.1", "nn.SGD(params, learning_rate=0.1)"),
    ("SGD_momentum", "nn.SGD(params, learning_rate=0.1, momentum=0.9)"),
    ("SGD_momentum_dampening", "nn.SGD(params, learning_rate=0.1, momentum=0.9, dampening=0.1)"),
    ("SGD_momentum_nesterov", "nn.SGD(params, learning_rate=0.1, momentum=0.9, nesterov=True)"),
    ("SGD_weight_decay", "nn.SGD(params, learning_rate=0.1, weight_decay=0.01)"),
    ("SGD_loss_scale", "nn.SGD(params, learning_rate=0.1, loss_scale=2.0)"),
    # Momentum
    ("Momentum", "nn.Momentum(params, learning_rate=0.1, momentum=0.9)"),
    ("Momentum_nesterov", "nn.Momentum(params, learning_rate=0.1, momentum=0.9, use_nesterov=True)"),
    ("Momentum_weight_decay", "nn.Momentum(params, learning_rate=0.1, momentum=0.9, weight_decay=0.01)"),
    ("Momentum_loss_scale", "nn.Momentum(params, learning_rate=0.1, momentum=0.9, loss_scale=4.0)"),
    # Adam family
    ("Adam_default", "nn.Adam(params)"),
    ("Adam_lr0.1", "nn.Adam(params, learning_rate=0.1)"),
    ("Adam_amsgrad", "nn.Adam(params, learning_rate=0.1, use_amsgrad=True)"),
    ("Adam_nesterov", "nn.Adam(params, learning_rate=0.1, use_nesterov=True)"),
    ("Adam_weight_decay", "nn.Adam(params, learning_rate=0.1, weight_decay=0.01)"),
    ("Adam_weight_decay_cell", "nn.Adam(params, learning_rate=0.1, weight_decay=StepWeightDecay())"),
    ("Adam_loss_scale", "nn.Adam(params, learning_rate=0.1, loss_scale=2.0)"),
    ("AdamWeightDecay", "nn.AdamWeightDecay(params, weight_decay=0.01)"),
    ("AdamWeightDecay_lr0.1", "nn.AdamWeightDecay(params, learning_rate=0.1, weight_decay=0.01)"),
    ("AdamW", "nn.AdamW(params, learning_rate=0.1, weight_decay=0.01)"),
    ("LazyAdam", "nn.LazyAdam(params, learning_rate=0.1)"),
    ("AdaMax", "nn.AdaMax(params, learning_rate=0.1)"),
    ("Adamax_spelling", "nn.Adamax(params, learning_rate=0.1)"),
    ("Lamb", "nn.Lamb(params, learning_rate=0.1)"),
    # RMSProp
    ("RMSProp", "nn.RMSProp(params, learning_rate=0.01)"),
    ("RMSProp_momentum", "nn.RMSProp(params, learning_rate=0.01, momentum=0.9)"),
    ("RMSProp_centered", "nn.RMSProp(params, learning_rate=0.01, centered=True)"),
    ("RMSProp_centered_momentum", "nn.RMSProp(params, learning_rate=0.01, centered=True, momentum=0.9)"),
    # others
    ("Adagrad", "nn.Adagrad(params, learning_rate=0.1)"),
    ("Adagrad_default", "nn.Adagrad(params)"),
    ("Adadelta", "nn.Adadelta(params)"),
    ("Adadelta_lr0.1", "nn.Adadelta(params, learning_rate=0.1)"),
    ("FTRL", "nn.FTRL(params)"),
    ("FTRL_lr0.1_l1_l2", "nn.FTRL(params, learning_rate=0.1, l1=0.01, l2=0.01)"),
    ("ProximalAdagrad", "nn.ProximalAdagrad(params, learning_rate=0.1)"),
    ("ASGD", "nn.ASGD(params, learning_rate=0.1)"),
    ("Rprop", "nn.Rprop(params, learning_rate=0.1)"),
    ("AdaFactor", "nn.AdaFactor(params, learning_rate=0.1, scale_parameter=False, relative_step=False, warmup_init=False)"),
    ("LARS_SGD", "nn.LARS(nn.SGD(params, learning_rate=0.1, momentum=0.9), epsilon=1e-05, coefficient=0.001)"),
    # parameter groups
    ("Momentum_groups", f"nn.Momentum({GROUPS}, learning_rate=0.1, momentum=0.9)"),
    ("Adam_groups", f"nn.Adam({GROUPS}, learning_rate=0.1)"),
    ("SGD_groups", f"nn.SGD({GROUPS}, learning_rate=0.1)"),
    ("Momentum_grad_centralization",
     "nn.Momentum([{'params': [w], 'grad_centralization': True}, {'params': [b]}], learning_rate=0.1, momentum=0.9)"),
    ("Adam_grad_centralization",
     "nn.Adam([{'params': [w], 'grad_centralization': True}, {'params': [b]}], learning_rate=0.1)"),
    # dynamic learning rate
    ("SGD_lr_list", f"nn.SGD(params, learning_rate={SGD_LRS})"),
    ("Adam_lr_list", f"nn.Adam(params, learning_rate={SGD_LRS})"),
    ("SGD_lr_tensor", f"nn.SGD(params, learning_rate=Tensor(np.array({SGD_LRS}, np.float32)))"),
    ("Adam_lr_tensor", f"nn.Adam(params, learning_rate=Tensor(np.array({SGD_LRS}, np.float32)))"),
    ("SGD_lr_scalar_tensor", "nn.SGD(params, learning_rate=Tensor(0.1, ms.float32))"),
    ("SGD_ExponentialDecayLR", "nn.SGD(params, learning_rate=nn.ExponentialDecayLR(0.1, 0.9, 2))"),
    ("Adam_ExponentialDecayLR", "nn.Adam(params, learning_rate=nn.ExponentialDecayLR(0.1, 0.9, 2))"),
    ("SGD_CosineDecayLR", "nn.SGD(params, learning_rate=nn.CosineDecayLR(0.01, 0.1, 5))"),
    ("Adam_CosineDecayLR", "nn.Adam(params, learning_rate=nn.CosineDecayLR(0.01, 0.1, 5))"),
    ("SGD_WarmUpLR", "nn.SGD(params, learning_rate=nn.WarmUpLR(0.1, 3))"),
    ("Adam_WarmUpLR", "nn.Adam(params, learning_rate=nn.WarmUpLR(0.1, 3))"),
    ("Momentum_lr_list", f"nn.Momentum(params, learning_rate={SGD_LRS}, momentum=0.9)"),
    ("Momentum_groups_dynamic_lr",
     "nn.Momentum([{'params': [w], 'lr': [0.1, 0.05, 0.02, 0.01, 0.005]}, {'params': [b], 'lr': nn.WarmUpLR(0.2, 3)}], "
     "learning_rate=0.1, momentum=0.9)"),
    ("Adam_groups_weight_decay_only",
     "nn.Adam([{'params': [w], 'weight_decay': 0.1}, {'params': [b]}], learning_rate=0.1, weight_decay=0.0)"),
]


def build(expr):
    net = Model(W0.copy(), B0.copy())
    env = {"nn": nn, "Tensor": Tensor, "np": np, "ms": ms, "params": net.trainable_params(),
           "w": net.w, "b": net.b, "StepWeightDecay": StepWeightDecay}
    opt = eval(expr, env)  # noqa: S307 -- our own literal expressions
    return net, opt


def plain(t):
    """Tensor encoding without the Parameter class / name fields (the key is the name)."""
    enc = rc.encode(t)
    enc["tensor"].pop("class", None)
    enc["tensor"].pop("name", None)
    return enc


def state(opt):
    """The optimizer's own Parameters (all of opt.parameters_and_names() except the trained
    parameters themselves, which are recorded under "params")."""
    trained = {id(p) for p in opt.parameters}
    return {name: plain(p) for name, p in opt.parameters_and_names() if id(p) not in trained}


def lr_value(opt):
    return rc.capture(opt.get_lr)


def run_config(expr, mode):
    ms.set_context(mode=ms.PYNATIVE_MODE if mode == "pynative" else ms.GRAPH_MODE)
    rec = {}
    try:
        net, opt = build(expr)
    except Exception as e:  # noqa: BLE001
        rec["construct_error"] = rc.encode_error(e)["error"]
        return rec
    rec["optimizer_class"] = type(opt).__name__
    rec["param_names_in_order"] = [n for n, _ in opt.parameters_and_names()]
    rec["opt_parameters"] = [p.name for p in opt.parameters]
    rec["initial_state"] = state(opt)
    rec["initial_lr"] = lr_value(opt)
    step = make_train_step(net, opt)
    if mode == "graph":
        step = ms.jit(step)
    steps = []
    for k in range(STEPS):
        try:
            loss = step(Tensor(X), Tensor(Y))
        except Exception as e:  # noqa: BLE001
            steps.append({"step": k + 1, "error": rc.encode_error(e)["error"]})
            break
        steps.append({"step": k + 1, "loss": rc.encode(loss),
                      "params": {"w": plain(net.w), "b": plain(net.b)},
                      "state": state(opt), "lr": lr_value(opt)})
    rec["steps"] = steps
    return rec


def main():
    out = rc.meta("tests/oracle/record_optimizers.py")
    out["inputs"] = {"x": rc.tensor_spec(X), "y": rc.tensor_spec(Y),
                     "w0": rc.tensor_spec(W0), "b0": rc.tensor_spec(B0)}
    out["model_source"] = textwrap.dedent(inspect.getsource(Model))
    out["helper_source"] = textwrap.dedent(inspect.getsource(StepWeightDecay))
    out["train_step_source"] = textwrap.dedent(inspect.getsource(make_train_step))
    out["steps"] = STEPS
    out["modes"] = {"pynative": "PYNATIVE_MODE, train_step(x, y) called eagerly",
                    "graph": "GRAPH_MODE, ms.jit(train_step)(x, y)"}
    out["format"] = ("configs[i].results[mode]: optimizer_class, param_names_in_order "
                     "(opt.parameters_and_names()), opt_parameters (names in opt.parameters), "
                     "initial_state {name: tensor} (the optimizer's own Parameters, i.e. "
                     "param_names_in_order minus the trained w, b), initial_lr (opt.get_lr() before any step), steps: "
                     "[{step, loss (returned by the step), params {w, b} after the step, state {name: "
                     "tensor} after the step, lr = opt.get_lr() after the step}] or construct_error / "
                     "a step with 'error'. results.graph is {\"same_as\": \"pynative\"} when it equals "
                     "pynative within rtol=atol=1e-6.")
    only = set(sys.argv[1:])
    configs = []
    for name, expr in CONFIGS:
        if only and name not in only:
            continue
        res = {"pynative": run_config(expr, "pynative"), "graph": run_config(expr, "graph")}
        agree = rc.same(res["pynative"], res["graph"])
        if agree:
            res["graph"] = {"same_as": "pynative"}
        status = "ok"
        for m in ("pynative", "graph"):
            r = res[m]
            if "construct_error" in r or any("error" in s for s in r.get("steps", [])):
                status = "error"
        configs.append({"name": name, "optimizer": expr, "results": res, "modes_agree": agree})
        print(f"{'  ' if agree else '!!'} {status:5s} {name}", file=sys.stderr)
    out["configs"] = configs
    rc.write_json(os.path.join(rc.DATA_DIR, "optimizers.json" if not only else "optimizers_partial.json"), out)


if __name__ == "__main__":
    os.chdir(tempfile.mkdtemp(prefix="oracle_opt_"))
    main()
