"""Record what MindSpore 2.10 does in the cases of reliability issue 31 that need its answer
(run ONLY in the MindSpore venv):

    /work/ms-venv/bin/python tests/oracle/record_robustness.py     # data/robustness.json

* batch_mixed_types: GeneratorDataset(...).batch(2) over a column whose rows are int64 in some
  and float32 in others (the pipeline error's class and its meaningful line);
* param_reshaped_after_compile: a GRAPH_MODE Cell reading Parameter w (3, 4), called once, then
  w.set_data with a (2, 2) value or load_param_into_net with a (3, 4, 1) one: whether MindSpore
  accepts the new value, the Parameter's shape after it, and what PyNative computes with it.
  (What MindSpore's graph then returns is not recorded as a value: it keeps the compiled
  (3, 4) graph and, after the (2, 2) value, reads past the end of the Parameter's buffer -
  run-to-run garbage. Only the stale output shape is recorded.)
"""
import os
import re
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from record_common import DATA_DIR, capture, encode, meta, write_json  # noqa: E402


def dataset_error_line(e):
    """The dataset pipeline's own message: the '[ERROR] ...' line under its banner."""
    for line in str(e).splitlines():
        m = re.match(r"\s*\[ERROR\]\s*(.*)", line)
        if m:
            return m.group(1).strip()
    return str(e).splitlines()[0]


def batch_mixed_types():
    import mindspore.dataset as ds
    out = {}
    for name, kinds in (("int64_then_float32", ("int64", "float32")), ("float32_then_int64", ("float32", "int64"))):
        def gen(kinds=kinds):
            for k in range(4):
                yield (np.array([k, k + 1], kinds[k % 2]),)
        data = ds.GeneratorDataset(gen, ["a"], shuffle=False).batch(2)
        try:
            rows = [r for r in data.create_tuple_iterator(output_numpy=True)]
            out[name] = {"rows": encode(rows)}
        except Exception as e:  # noqa: BLE001 -- the error is the data
            out[name] = {"error": {"type": type(e).__name__, "dataset_error_line": dataset_error_line(e)}}
    return out


def param_reshaped_after_compile():
    import mindspore as ms
    from mindspore import Parameter, Tensor, nn

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(np.ones((3, 4), np.float32)), name="w")

        def construct(self, x):
            return self.w * x

    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = {"x": x.tolist()}
    changes = {
        "set_data_2x2": lambda net: net.w.set_data(Tensor(np.full((2, 2), 5, np.float32))),
        "load_param_into_net_3x4x1": lambda net: ms.load_param_into_net(
            net, {"w": Parameter(Tensor(np.full((3, 4, 1), 7, np.float32)), name="w")}),
    }
    for name, change in changes.items():
        case = {}
        ms.set_context(mode=ms.GRAPH_MODE)
        net = Net()
        net(Tensor(x))
        case["change"] = capture(change, net)
        case["shape_after"] = list(net.w.shape)
        try:
            case["graph_output_shape_after"] = list(net(Tensor(x)).shape)
        except Exception as e:  # noqa: BLE001
            case["graph_output_shape_after"] = {"error": type(e).__name__}
        ms.set_context(mode=ms.PYNATIVE_MODE)
        case["pynative_after"] = capture(lambda: net(Tensor(x)))
        out[name] = case
    return out


def main():
    os.chdir(tempfile.mkdtemp())
    data = meta("tests/oracle/record_robustness.py")
    data["batch_mixed_types"] = batch_mixed_types()
    data["param_reshaped_after_compile"] = param_reshaped_after_compile()
    write_json(os.path.join(DATA_DIR, "robustness.json"), data)


if __name__ == "__main__":
    main()
