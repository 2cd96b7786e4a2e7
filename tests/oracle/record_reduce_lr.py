"""Record MindSpore 2.10's ReduceLROnPlateau: the learning rate after each epoch for sequences of
monitored values (run under MindSpore's venv, from a temp dir):

    cd /tmp && /work/ms-venv/bin/python /work/main/tests/oracle/record_reduce_lr.py

Writes tests/oracle/data/reduce_lr.json; tests/train/test_reduce_lr_on_plateau.py replays it."""
import json
import os
import sys

import numpy as np

import mindspore as ms
from mindspore import nn
from mindspore.train import ReduceLROnPlateau, RunContext

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reduce_lr_cases import CASES  # noqa: E402


class _Params(dict):
    __getattr__ = dict.get


def run(kwargs, values, lr):
    try:
        net = nn.Dense(2, 2)
        opt = nn.Momentum(net.trainable_params(), lr, 0.9)
        cb = ReduceLROnPlateau(**kwargs)
        params = _Params(optimizer=opt, cur_epoch_num=0)
        ctx = RunContext(params)
        cb.on_train_begin(ctx)
        out = []
        for k, v in enumerate(values):
            params["cur_epoch_num"] = k + 1
            if cb.monitor == "loss":
                params["net_outputs"] = ms.Tensor(np.float32(v))
            else:
                params["eval_results"] = {cb.monitor: v}
            cb.on_train_epoch_end(ctx)
            out.append(float(opt.learning_rate.asnumpy()))
        return {"lrs": out}
    except Exception as e:  # noqa: BLE001 - recording what MindSpore raises
        return {"raises": type(e).__name__, "message": str(e)}


def main():
    record = {name: run(*case) for name, case in CASES.items()}
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "reduce_lr.json")
    with open(out, "w") as f:
        json.dump({"mindspore": ms.__version__, "cases": record}, f, indent=1)
        f.write("\n")
    print("wrote", out)


if __name__ == "__main__":
    main()
