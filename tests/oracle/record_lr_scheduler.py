"""Record MindSpore 2.10's learning rates for lr_scheduler_cases.CASES (run ONLY in the MindSpore
venv): data/lr_scheduler_steps.json, per case the groups' rates after construction and after each
step (get_last_lr)."""
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import lr_scheduler_cases as C  # noqa: E402


def _sgd(optim, Parameter, Tensor):
    w, v = (Parameter(Tensor(np.ones(2, np.float32)), name=n) for n in ("w", "v"))
    return optim.SGD([{"params": [w], "lr": 0.1}, {"params": [v], "lr": 0.05}], lr=0.1)


def main():
    import mindspore as ms
    from mindspore import Parameter, Tensor
    from mindspore.experimental import optim
    out = {"mindspore": ms.__version__, "cases": {}}
    for name, (cls, kw) in C.CASES.items():
        w, v = (Parameter(Tensor(np.ones(2, np.float32)), name=n) for n in ("w", "v"))
        opt = optim.SGD([{"params": [w], "lr": 0.1}, {"params": [v], "lr": 0.05}], lr=0.1)
        sch = getattr(optim.lr_scheduler, cls)(opt, **kw)
        rates = [[float(x) for x in sch.get_last_lr()]]
        for _ in range(C.STEPS):
            sch.step()
            rates.append([float(x) for x in sch.get_last_lr()])
        out["cases"][name] = rates
    for name, kw in C.PLATEAU.items():
        opt = _sgd(optim, Parameter, Tensor)
        sch = optim.lr_scheduler.ReduceLROnPlateau(opt, **kw)
        rates = [[float(x) for x in sch.get_last_lr()]]
        for m in C.METRICS:
            sch.step(m)
            rates.append([float(x) for x in sch.get_last_lr()])
        out["cases"][name] = rates
    for name, (kw, epochs) in C.EPOCHS.items():
        opt = _sgd(optim, Parameter, Tensor)
        sch = optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, **kw)
        rates = [[float(x) for x in sch.get_last_lr()]]
        for e in epochs:
            sch.step(e)
            rates.append([float(x) for x in sch.get_last_lr()])
        out["cases"][name] = rates
    for name, (parts, milestones) in C.SEQUENTIAL.items():
        opt = _sgd(optim, Parameter, Tensor)
        scheds = [getattr(optim.lr_scheduler, cls)(opt, **kw) for cls, kw in parts]
        sch = optim.lr_scheduler.SequentialLR(opt, schedulers=scheds, milestones=milestones)
        rates = [[float(x) for x in sch.get_last_lr()]]
        for _ in range(C.STEPS + 4):
            sch.step()
            rates.append([float(x) for x in sch.get_last_lr()])
        out["cases"][name] = rates
    for name, (cls, kw) in C.JUMPS.items():
        opt = _sgd(optim, Parameter, Tensor)
        sch = getattr(optim.lr_scheduler, cls)(opt, **kw)
        rates = [[float(x) for x in sch.get_last_lr()]]
        for e in C.JUMP_EPOCHS:
            sch.step(e)
            rates.append([float(x) for x in sch.get_last_lr()])
        out["cases"][name] = rates
    with open(os.path.join(HERE, "data", "lr_scheduler_steps.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print("wrote data/lr_scheduler_steps.json")


if __name__ == "__main__":
    main()
