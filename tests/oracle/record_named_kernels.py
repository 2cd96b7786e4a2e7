"""Record MindSpore 2.10's `Shift` and `Rolling` kernels (user PrimitiveWithInfer subclasses of
those names, as in its CPU tests test_shift_op.py / test_rolling_op.py) on the inputs of
named_kernel_cases.py; run once, in MindSpore's venv:

    /work/ms-venv/bin/python tests/oracle/record_named_kernels.py   # writes data/named_kernels.json

Not collected by pytest.
"""
import json
import os
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import named_kernel_cases as C  # noqa: E402


def _value(a):
    a = np.asarray(a)
    return {"dtype": str(a.dtype), "shape": list(a.shape),
            "data": [None if isinstance(v, float) and v != v else v for v in a.reshape(-1).tolist()]}


def main():
    os.chdir(tempfile.mkdtemp())
    import mindspore as ms
    from mindspore import Tensor, nn, ops
    ms.set_context(mode=ms.GRAPH_MODE)
    Shift, Rolling = C.make_classes(ops)

    class Net(nn.Cell):
        def __init__(self, prim):
            super().__init__()
            self.prim = prim

        def construct(self, *args):
            return self.prim(*args)

    out = {"rolling": [], "shift": []}
    for case in C.ROLLING:
        w, mp, c, ax, cl, m, dt = case
        try:
            y = Net(Rolling(w, mp, c, ax, cl, m))(Tensor(C.rolling_input(dt))).asnumpy()
            out["rolling"].append({"case": list(case), "out": _value(y)})
        except Exception as e:   # noqa: BLE001  (the wheel's error is the record)
            out["rolling"].append({"case": list(case), "error": [type(e).__name__, str(e).splitlines()[0]]})
    for case in C.SHIFT:
        p, ax, dt, fill = case
        try:
            y = Net(Shift(p, ax))(Tensor(C.shift_input(dt)), fill).asnumpy()
            out["shift"].append({"case": list(case), "out": _value(y)})
        except Exception as e:   # noqa: BLE001
            out["shift"].append({"case": list(case), "error": [type(e).__name__, str(e).splitlines()[0]]})
    with open(os.path.join(HERE, "data", "named_kernels.json"), "w") as f:
        json.dump(out, f, indent=0, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
