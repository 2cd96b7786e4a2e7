"""Record MindSpore 2.10's losses for cnn_training_models.py: each model trained 20 steps with
TrainOneStepCell(WithLossCell(net, SoftmaxCrossEntropyWithLogits(sparse=True, 'mean')),
Momentum(lr=0.01, momentum=0.9)) in PyNative mode; writes data/cnn_training.json. Then one step's
per-Parameter gradients of the ShuffleNet-v2 / DenseNet nets and their pieces (make_grad_nets);
writes data/cnn_gradients.json (issue 31, item 7).

    . /work/ms-venv/bin/activate && python tests/oracle/record_cnn_training.py [gradients]
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import mindspore as ms  # noqa: E402
from mindspore import nn  # noqa: E402

import cnn_training_models as M  # noqa: E402


def main():
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    out = {"mindspore": ms.__version__, "steps": M.STEPS, "lr": M.LR, "momentum": M.MOMENTUM, "losses": {}}
    for name, (net, data) in M.make(ms).items():
        loss_net = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
        opt = nn.Momentum(net.trainable_params(), learning_rate=M.LR, momentum=M.MOMENTUM)
        step = nn.TrainOneStepCell(loss_net, opt)
        step.set_train(True)
        losses = [float(step(ms.Tensor(x), ms.Tensor(y)).asnumpy()) for x, y in data]
        out["losses"][name] = losses
        print(name, losses[0], losses[-1])
    with open(os.path.join(HERE, "data", "cnn_training.json"), "w") as f:
        json.dump(out, f, indent=1)


def _rounded(a):
    return [float(f"{v:.8g}") for v in a.reshape(-1).tolist()]


def gradients():
    """One step's gradients of every make_grad_nets net, in PyNative (GRAPH_MODE gave the same
    values to the last bit when this was recorded). A Parameter of more than 2048 elements keeps
    its L1 norm and its first 64 gradient values."""
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    out = {"mindspore": ms.__version__, "nets": {}}
    for name, (net, x, labels) in M.make_grad_nets(ms).items():
        loss, grads, gx = M.step_gradients(ms, net, x, labels)
        out["nets"][name] = {
            "loss": loss, "shapes": {k: list(v.shape) for k, v in grads.items()},
            "grads": {k: _rounded(v) for k, v in grads.items() if v.size <= 2048},
            "l1": {k: float(abs(v).astype("float64").sum()) for k, v in grads.items()},
            "head": {k: _rounded(v.reshape(-1)[:64]) for k, v in grads.items()},
            "x_grad_l1": float(abs(gx).astype("float64").sum()), "x_grad_head": _rounded(gx.reshape(-1)[:64])}
        print(name, loss, sum(float(abs(v).sum()) for v in grads.values()))
    with open(os.path.join(HERE, "data", "cnn_gradients.json"), "w") as f:
        json.dump(out, f, separators=(",", ":"))


if __name__ == "__main__":
    if sys.argv[1:] == ["gradients"]:
        gradients()
    else:
        main()
