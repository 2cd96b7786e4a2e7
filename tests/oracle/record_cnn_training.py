"""Record MindSpore 2.10's losses for cnn_training_models.py: each model trained 20 steps with
TrainOneStepCell(WithLossCell(net, SoftmaxCrossEntropyWithLogits(sparse=True, 'mean')),
Momentum(lr=0.01, momentum=0.9)) in PyNative mode; writes data/cnn_training.json.

    . /work/ms-venv/bin/activate && python tests/oracle/record_cnn_training.py
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


if __name__ == "__main__":
    main()
