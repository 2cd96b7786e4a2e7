"""Record MindSpore 2.10's answers for the fixes found by its own CPU op tests
(tests/ops/test_mindspore_suite_fixes.py; run once, in MindSpore's venv):

    /work/ms-venv/bin/python tests/oracle/record_suite_fixes.py    # writes data/suite_fixes.json

Not collected by pytest.
"""
import json
import os
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
# Minimum / Maximum gradients: a win, a tie, x NaN, y NaN, both NaN, a win the other way
EXTREMUM = {"x": [1.7, 9.6, 5.8, 1.0, float("nan"), float("nan"), -2.0],
            "y": [1.7, 9.6, 0.0, float("nan"), 2.0, float("nan"), 3.0],
            "sens": [1.0, -1.0, 3.0, 2.0, 4.0, 8.0, 0.5]}


def main():
    os.chdir(tempfile.mkdtemp())
    import mindspore as ms
    from mindspore import Tensor, ops
    out = {"extremum_grad": {"inputs": EXTREMUM}}
    x, y, s = (Tensor(np.array(EXTREMUM[k], np.float32)) for k in ("x", "y", "sens"))
    for mode in ("GRAPH_MODE", "PYNATIVE_MODE"):
        ms.set_context(mode=getattr(ms, mode))
        for name in ("minimum", "maximum"):
            gx, gy = ops.GradOperation(get_all=True, sens_param=True)(getattr(ops, name))(x, y, s)
            out["extremum_grad"][f"{name}/{mode}"] = [gx.asnumpy().tolist(), gy.asnumpy().tolist()]
    # a sub-Cell replaced by setattr keeps its place in a SequentialCell (tests/nn/test_cell.py)
    from mindspore import nn
    seq = nn.SequentialCell([nn.ReLU(), nn.Tanh(), nn.Sigmoid()])
    setattr(seq, "1", nn.ELU())
    out["sequential_setattr"] = {"cells": [type(c).__name__ for c in seq], "keys": list(seq._cells.keys())}
    with open(os.path.join(HERE, "data", "suite_fixes.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
