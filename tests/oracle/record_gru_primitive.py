"""Record MindSpore 2.10's ops.operations._rl_inner_ops.GRUV2 on the CPU (the one primitive of that
package its CPU build runs): outputs for tests/oracle/gru_primitive_cases.py's cases, and its
argument errors.

    cd /tmp && /work/msvenv/bin/python /work/main/tests/oracle/record_gru_primitive.py

Writes data/gru_primitive.json."""
import json
import os
import sys

import numpy as np

import mindspore as ms
import mindspore.ops.operations._rl_inner_ops as rl_ops
from mindspore import Tensor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gru_primitive_cases as C  # noqa: E402


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the wheel's class and first line are the record
        lines = [ln for ln in str(e).splitlines() if ln.strip() and not ln.startswith("-")]
        return [type(e).__name__, lines[0] if lines else ""]
    return None


def main():
    out = {"mindspore": ms.__version__, "cases": [], "errors": {}}
    for k, case in enumerate(C.CASES):
        x, h0, w, lengths = C.inputs(case, k)
        net = rl_ops.GRUV2(*case[:5], 0.0)
        y, hn, reserve, state = net(Tensor(x), Tensor(h0), Tensor(w), Tensor(lengths))
        out["cases"].append({"case": list(case), "seed": k, "y": y.asnumpy().tolist(), "hn": hn.asnumpy().tolist(),
                             "dtypes": [str(t.dtype) for t in (y, hn, reserve, state)]})
    x, h0, w, lengths = (Tensor(a) for a in C.inputs(C.CASES[0], 0))
    net = rl_ops.GRUV2(3, 2, 1, True, False, 0.0)
    base = dict(input_size=3, hidden_size=2, num_layers=1, has_bias=True, bidirectional=False, dropout=0.0)
    for name, change in (("input_size_zero", {"input_size": 0}), ("hidden_size_float", {"hidden_size": 2.0}),
                         ("dropout_int", {"dropout": 1}), ("dropout_range", {"dropout": 1.5}),
                         ("has_bias_int", {"has_bias": 1}), ("bidirectional_none", {"bidirectional": None})):
        out["errors"][name] = _error(lambda: rl_ops.GRUV2(**{**base, **change}))
    out["errors"]["seq_lengths_int64"] = _error(lambda: net(x, h0, w, Tensor(np.array([4, 4], np.int64))))
    out["errors"]["x_width"] = _error(lambda: net(Tensor(np.ones((4, 2, 5), np.float32)), h0, w, lengths))
    out["errors"]["x_float64"] = _error(lambda: net(Tensor(x.asnumpy().astype(np.float64)), h0, w, lengths))
    with open(os.path.join(HERE, "data", "gru_primitive.json"), "w") as f:
        json.dump(out, f, indent=1)
    print(len(out["cases"]), "cases", out["errors"])


if __name__ == "__main__":
    main()
