"""Record MindSpore 2.10's ops.LSTM on the CPU: outputs and the gradients of a weighted sum of
them with respect to x, h, c and the flat weight, for tests/oracle/lstm_op_cases.py's cases.

    cd /tmp && /work/msvenv/bin/python /work/main/tests/oracle/record_lstm_op.py

Writes data/lstm_op.json."""
import json
import os
import sys


import mindspore as ms
from mindspore import Tensor, ops

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import lstm_op_cases as C  # noqa: E402


def main():
    out = {"mindspore": ms.__version__, "cases": []}
    for mode in (ms.PYNATIVE_MODE,):
        ms.set_context(mode=mode)
        for k, case in enumerate(C.CASES):
            args = [Tensor(a) for a in C.inputs(case, k)]
            lstm = ops.LSTM(case[0], case[1], case[2], case[3], case[4], 0.0, case[5])
            y, hn, cn, reserve, state = lstm(*args[:4])
            grads = ops.GradOperation(get_all=True)(C.loss_cell(ms, case))(*args)
            out["cases"].append({"case": list(case), "seed": k, "y": y.asnumpy().tolist(),
                                 "hn": hn.asnumpy().tolist(), "cn": cn.asnumpy().tolist(),
                                 "reserve_shape": list(reserve.shape), "state_shape": list(state.shape),
                                 "grads": [g.asnumpy().ravel().tolist() for g in grads[:4]]})
    with open(os.path.join(HERE, "data", "lstm_op.json"), "w") as f:
        json.dump(out, f)
    print(len(out["cases"]), "cases")


if __name__ == "__main__":
    main()
