"""Records, with the MindSpore 2.10 wheel (run ONLY in its venv), BatchNorm's moving statistics
and the loss after one TrainOneStepCell step of Dense(4, 4) -> BatchNorm1d(4) with MSELoss and
SGD(0.1), sens None and 2.0, in PyNative and GRAPH_MODE -> data/train_one_step_state.json
(checked by tests/train/test_train_one_step_state.py)."""
import json
import os

import numpy as np


def main():
    import mindspore as ms
    from mindspore import nn
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 4)).astype(np.float32)
    w = rng.standard_normal((4, 4)).astype(np.float32) * 0.5
    b = rng.standard_normal(4).astype(np.float32) * 0.1
    out = {"x": x.tolist(), "w": w.tolist(), "b": b.tolist(), "runs": []}
    for mode, mode_name in ((ms.PYNATIVE_MODE, "pynative"), (ms.GRAPH_MODE, "graph")):
        for sens in (None, 2.0):
            ms.set_context(mode=mode)
            dense = nn.Dense(4, 4, weight_init=ms.Tensor(w), bias_init=ms.Tensor(b))
            net = nn.SequentialCell([dense, nn.BatchNorm1d(4)])
            net.set_train()
            step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1),
                                       sens=sens)
            loss = step(ms.Tensor(x), ms.Tensor(np.zeros((8, 4), np.float32)))
            out["runs"].append({"mode": mode_name, "sens": sens, "loss": float(loss.asnumpy()),
                                "moving_mean": net[1].moving_mean.asnumpy().astype(np.float64).tolist(),
                                "moving_variance": net[1].moving_variance.asnumpy().astype(np.float64).tolist(),
                                "weight": dense.weight.asnumpy().astype(np.float64).tolist()})
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "train_one_step_state.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1)
    print("wrote", path)


if __name__ == "__main__":
    main()
