"""Record MindSpore learning-rate schedules into data/lr_schedules.json.

Run ONLY in the MindSpore venv:
    . /work/ms-venv/bin/activate && python tests/oracle/record_lr_schedules.py

"functions": the list-returning helpers of mindspore.nn (expression -> encoded result,
    a {"list": [{"scalar": ..., "type": "float"}, ...]} or an error).
"cells": the LearningRateSchedule Cells, each called as cell(Tensor(k, int32)) for
    k = 0..12, in PYNATIVE_MODE and in GRAPH_MODE (a fresh Cell per mode; the graph
    results are {"same_as": "pynative"} when equal within rtol=atol=1e-6).
"""
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import record_common as rc  # noqa: E402

import mindspore as ms  # noqa: E402
from mindspore import nn, Tensor  # noqa: E402

FUNCTIONS = [
    "nn.piecewise_constant_lr([2, 5, 10], [0.1, 0.05, 0.01])",
    "nn.exponential_decay_lr(0.1, 0.9, total_step=10, step_per_epoch=2, decay_epoch=1)",
    "nn.exponential_decay_lr(0.1, 0.9, total_step=10, step_per_epoch=2, decay_epoch=1, is_stair=True)",
    "nn.exponential_decay_lr(0.1, 0.9, total_step=10, step_per_epoch=2, decay_epoch=2, is_stair=True)",
    "nn.natural_exp_decay_lr(0.1, 0.9, total_step=10, step_per_epoch=2, decay_epoch=2)",
    "nn.natural_exp_decay_lr(0.1, 0.9, total_step=10, step_per_epoch=2, decay_epoch=2, is_stair=True)",
    "nn.inverse_decay_lr(0.1, 0.5, total_step=10, step_per_epoch=2, decay_epoch=1)",
    "nn.inverse_decay_lr(0.1, 0.5, total_step=10, step_per_epoch=2, decay_epoch=1, is_stair=True)",
    "nn.cosine_decay_lr(0.01, 0.1, 10, 2, 2)",
    "nn.cosine_decay_lr(0.01, 0.1, 10, 1, 3)",
    "nn.polynomial_decay_lr(0.1, 0.01, 10, 2, 2, power=0.5)",
    "nn.polynomial_decay_lr(0.1, 0.01, 10, 2, 2, power=0.5, update_decay_epoch=True)",
    "nn.polynomial_decay_lr(0.1, 0.01, 10, 1, 3, power=2.0, update_decay_epoch=True)",
    "nn.warmup_lr(0.1, 10, 2, 2)",
    "nn.warmup_lr(0.1, 10, 1, 4)",
    # argument errors
    "nn.piecewise_constant_lr([5, 2, 10], [0.1, 0.05, 0.01])",
    "nn.piecewise_constant_lr([2, 5], [0.1, 0.05, 0.01])",
    "nn.exponential_decay_lr(0.1, 0.9, total_step=0, step_per_epoch=2, decay_epoch=1)",
    "nn.exponential_decay_lr(-0.1, 0.9, total_step=10, step_per_epoch=2, decay_epoch=1)",
    "nn.cosine_decay_lr(0.1, 0.01, 10, 2, 2)",
    "nn.polynomial_decay_lr(0.1, 0.01, 10, 2, 2, power=-0.5)",
]

CELLS = [
    "nn.ExponentialDecayLR(0.1, 0.9, 4)",
    "nn.ExponentialDecayLR(0.1, 0.9, 4, is_stair=True)",
    "nn.NaturalExpDecayLR(0.1, 0.9, 4)",
    "nn.NaturalExpDecayLR(0.1, 0.9, 4, is_stair=True)",
    "nn.InverseDecayLR(0.1, 0.5, 4)",
    "nn.InverseDecayLR(0.1, 0.5, 4, is_stair=True)",
    "nn.CosineDecayLR(0.01, 0.1, 4)",
    "nn.CosineDecayLR(0.01, 0.1, 10)",
    "nn.PolynomialDecayLR(0.1, 0.01, 4, 0.5)",
    "nn.PolynomialDecayLR(0.1, 0.01, 4, 0.5, update_decay_steps=True)",
    "nn.PolynomialDecayLR(0.1, 0.01, 4, 2.0)",
    "nn.WarmUpLR(0.1, 4)",
    "nn.ExponentialDecayLR(0.1, 0.9, 2)",
    "nn.CosineDecayLR(0.01, 0.1, 5)",
    "nn.WarmUpLR(0.1, 3)",
]
KS = list(range(13))


def eval_cell(expr, mode, dtype):
    ms.set_context(mode=ms.PYNATIVE_MODE if mode == "pynative" else ms.GRAPH_MODE)
    try:
        cell = eval(expr, {"nn": nn})  # noqa: S307
    except Exception as e:  # noqa: BLE001
        return {"construct_error": rc.encode_error(e)["error"]}
    return {"values": [rc.capture(cell, Tensor(k, dtype)) for k in KS]}


def main():
    out = rc.meta("tests/oracle/record_lr_schedules.py")
    out["functions"] = []
    for expr in FUNCTIONS:
        out["functions"].append({"expr": expr, "result": rc.capture(lambda: eval(expr, {"nn": nn}))})  # noqa: S307
    out["cell_global_steps"] = KS
    out["cells"] = []
    for expr in CELLS:
        entry = {"expr": expr, "global_step_dtype": "Int32", "results": {}}
        for mode in ("pynative", "graph"):
            entry["results"][mode] = eval_cell(expr, mode, ms.int32)
        if rc.same(entry["results"]["pynative"], entry["results"]["graph"]):
            entry["results"]["graph"] = {"same_as": "pynative"}
            entry["modes_agree"] = True
        else:
            entry["modes_agree"] = False
        out["cells"].append(entry)
        print(("   " if entry["modes_agree"] else "!! ") + expr, file=sys.stderr)
    # the global step's dtype: int64 / float32 steps
    out["cells_other_step_dtypes"] = []
    for expr in ("nn.ExponentialDecayLR(0.1, 0.9, 4)", "nn.WarmUpLR(0.1, 4)", "nn.CosineDecayLR(0.01, 0.1, 4)",
                 "nn.PolynomialDecayLR(0.1, 0.01, 4, 0.5)"):
        for dt, name in ((ms.int64, "Int64"), (ms.float32, "Float32")):
            r = eval_cell(expr, "pynative", dt)
            out["cells_other_step_dtypes"].append({"expr": expr, "global_step_dtype": name, "mode": "pynative",
                                                   "result": r})
    ms.set_context(mode=ms.PYNATIVE_MODE)
    rc.write_json(os.path.join(rc.DATA_DIR, "lr_schedules.json"), out)


if __name__ == "__main__":
    os.chdir(tempfile.mkdtemp(prefix="oracle_lr_"))
    np.set_printoptions(precision=17)
    main()
