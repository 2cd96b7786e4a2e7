"""ReduceLROnPlateau cases: (constructor kwargs, monitored value per epoch, initial lr), and how
one is run, given the framework (mindspore or pycompile). Shared by record_reduce_lr.py
(MindSpore 2.10) and tests/train/test_reduce_lr_on_plateau.py."""
import numpy as np
DOWN_THEN_FLAT = [1.0, 0.8, 0.8, 0.8, 0.8, 0.79995, 0.8, 0.8, 0.8, 0.8, 0.5, 0.5]
CASES = {
    "patience2": ({"patience": 2}, DOWN_THEN_FLAT, 0.1),
    "patience0": ({"patience": 0, "factor": 0.5}, DOWN_THEN_FLAT, 0.1),
    "cooldown": ({"patience": 1, "cooldown": 2, "factor": 0.5}, DOWN_THEN_FLAT, 0.1),
    "min_lr": ({"patience": 1, "factor": 0.5, "min_lr": 0.03}, DOWN_THEN_FLAT, 0.1),
    "max_mode": ({"monitor": "acc", "patience": 1, "factor": 0.5}, [0.5, 0.6, 0.6, 0.55, 0.7, 0.7, 0.7], 0.2),
    "min_delta": ({"patience": 1, "min_delta": 0.1, "factor": 0.5}, [1.0, 0.95, 0.85, 0.8, 0.6, 0.55], 0.1),
    "loss_monitor": ({"monitor": "loss", "patience": 1, "factor": 0.3}, [2.0, 1.5, 1.6, 1.7, 1.2, 1.3], 0.05),
    "zero_skipped": ({"patience": 1, "factor": 0.5}, [1.0, 0.0, 1.0, 1.0, 0.0, 1.0], 0.1),
    "bad_factor": ({"factor": 1.5}, [1.0], 0.1),
    "bad_mode": ({"mode": "up"}, [1.0], 0.1),
    "bad_patience": ({"patience": -1}, [1.0], 0.1),
}


class _Params(dict):
    """cb_params: a dict whose keys read as attributes."""
    __getattr__ = dict.get


def run(framework, kwargs, values, lr) -> dict:
    """The learning rate after each epoch's on_train_epoch_end, or the error raised."""
    try:
        net = framework.nn.Dense(2, 2)
        opt = framework.nn.Momentum(net.trainable_params(), lr, 0.9)
        cb = framework.train.ReduceLROnPlateau(**kwargs)
        params = _Params(optimizer=opt, cur_epoch_num=0)
        ctx = framework.train.RunContext(params)
        cb.on_train_begin(ctx)
        out = []
        for k, v in enumerate(values):
            params["cur_epoch_num"] = k + 1
            if cb.monitor == "loss":
                params["net_outputs"] = framework.Tensor(np.float32(v))
            else:
                params["eval_results"] = {cb.monitor: v}
            cb.on_train_epoch_end(ctx)
            out.append(float(opt.learning_rate.asnumpy()))
        return {"lrs": out}
    except Exception as e:  # noqa: BLE001 - what the framework raised is the record
        return {"raises": type(e).__name__, "message": str(e)}
