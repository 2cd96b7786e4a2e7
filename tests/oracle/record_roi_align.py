"""Record MindSpore 2.10's ops.ROIAlign on the CPU for tests/oracle/roi_align_cases.py: the
output and the gradient, with respect to the features, of a weighted sum of it (MindSpore's
ROIAlignGrad), and its errors.

    cd /tmp && /work/msvenv/bin/python /work/main/tests/oracle/record_roi_align.py

Writes data/roi_align.json."""
import json
import os
import sys

import numpy as np

import mindspore as ms
from mindspore import Tensor, ops

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import roi_align_cases as C  # noqa: E402


def main():
    out = {"mindspore": ms.__version__, "cases": [], "errors": {}}
    for k, case in enumerate(C.CASES):
        ph, pw, scale, sample, mode, dtype = case
        x, rois, gw = C.inputs(k, dtype)
        op = ops.ROIAlign(ph, pw, scale, sample, mode)
        y = op(Tensor(x), Tensor(rois))
        weights = Tensor(gw[:, :, :ph, :pw].astype(dtype))
        grad = ops.GradOperation()(lambda a, r: (op(a, r) * weights).sum())(Tensor(x), Tensor(rois))
        out["cases"].append({"case": list(case), "y": y.asnumpy().astype(np.float64).tolist(),
                             "grad": grad.asnumpy().astype(np.float64).tolist()})
    calls = C.error_calls(ms)
    for name, fn in calls.items():
        try:
            r = fn()
            if r is not None:
                r.asnumpy()             # PyNative runs asynchronously: a kernel's error shows at the sync
            out["errors"][name] = None
        except Exception as e:          # noqa: BLE001 - the error is what is recorded
            out["errors"][name] = [type(e).__name__, str(e).split("\n")[0]]
    with open(os.path.join(HERE, "data", "roi_align.json"), "w") as f:
        json.dump(out, f)
    print(json.dumps(out["errors"], indent=1))


if __name__ == "__main__":
    main()
