"""Record MindSpore 2.10's max pooling where a window holds only -inf, or lies wholly in the
padding (CNN fuzzer seeds 50123 and 50315), into data/pool_inf_windows.json: the pooled values,
the argmax (`return_indices`) and the input gradient of sum(out * r), in PyNative and graph mode.
Run with MindSpore's own virtualenv (`pip install mindspore==2.10.0 numpy==1.26.4`), never with
pycompile: `python tests/oracle/record_pool_inf_windows.py`."""
import json
import os

import numpy as np
import mindspore as ms
from mindspore import Tensor, nn, ops

INF = float("inf")
ROW = [2.0, -INF, -INF, 1.0, -INF, -INF]


_POOL = nn.MaxPool2d((1, 2), 1)


def max_pool2d_inf(x):          # windows of -inf: (1, 2) windows with stride 1 over ROW
    return ops.max_pool2d(x, (1, 2), 1, return_indices=True)


def nn_maxpool2d_inf(x):
    return _POOL(x), None


def max_pool2d_padding(x):      # every window wholly in the padding: kernel 2, dilation 2, padding 1, a 3 x 1 plane
    return ops.max_pool2d(x, 2, (2, 1), 1, 2, return_indices=True)


def adaptive_max_pool2d_inf(x):
    return ops.adaptive_max_pool2d(x, (1, 3), return_indices=True)


def max_pool3d_inf(x):
    return ops.max_pool3d(x, (1, 1, 2), (1, 1, 2), return_indices=True)


def cases():
    """name -> (input, function, outputs); each function returns (values, argmax or None)."""
    x1 = np.array(ROW, np.float32).reshape(1, 1, 1, 6)
    x2 = np.random.default_rng(0).standard_normal((1, 2, 3, 1)).astype(np.float32)
    x3 = np.array([2.0, -INF, -INF, -INF, -INF, 1.0], np.float32)
    return {"max_pool2d_inf": (x1, max_pool2d_inf, 5), "nn_maxpool2d_inf": (x1, nn_maxpool2d_inf, 5),
            "max_pool2d_padding": (x2, max_pool2d_padding, 4),
            "adaptive_max_pool2d_inf": (x3.reshape(1, 1, 1, 6), adaptive_max_pool2d_inf, 3),
            "max_pool3d_inf": (x3.reshape(1, 1, 1, 1, 6), max_pool3d_inf, 3)}


def encode(a):
    a = np.asarray(a)
    return {"dtype": str(a.dtype), "shape": list(a.shape), "values": [repr(float(v)) if a.dtype.kind == "f" else int(v)
                                                                       for v in a.ravel()]}


class Loss(nn.Cell):
    """sum(f(x)[0] * r) (a Cell: graph mode parses its construct)."""

    def __init__(self, f, r):
        super().__init__()
        self.f, self.r = f, r

    def construct(self, x):
        return (self.f(x)[0] * self.r).sum()


def main():
    out = {}
    for name, (x, f, n) in cases().items():
        r = np.arange(1, n + 1, dtype=np.float32)
        rec = {"input": encode(x)}
        for mode, tag in ((ms.PYNATIVE_MODE, "pynative"), (ms.GRAPH_MODE, "graph")):
            ms.set_context(mode=mode)
            vals, idx = f(Tensor(x))
            rt = Tensor(r.reshape(vals.shape))

            g = ms.grad(Loss(f, rt))(Tensor(x))
            rec[tag] = {"values": encode(vals.asnumpy()), "grad": encode(g.asnumpy()),
                        "argmax": None if idx is None else encode(idx.asnumpy())}
        ms.set_context(mode=ms.PYNATIVE_MODE)
        out[name] = rec
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "pool_inf_windows.json")
    with open(path, "w") as fh:
        json.dump({"mindspore": ms.__version__, "cases": out}, fh, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    main()
