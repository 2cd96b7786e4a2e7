"""Record MindSpore 2.10's FlopsUtilizationCollector on the CPU: the first line it prints (the model
and hardware FLOPs of a training step, forward and backward products and convolutions) for each
network of flops_cases.py, trained by Model.train in GRAPH_MODE, and its argument errors.

    cd /tmp && /work/msvenv/bin/python /work/main/tests/oracle/record_flops.py

Writes data/flops.json."""
import contextlib
import io
import json
import os
import sys

import mindspore as ms
import mindspore.dataset as ds
from mindspore import nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import flops_cases as C  # noqa: E402


def main():
    ms.set_context(mode=ms.GRAPH_MODE)
    out = {"mindspore": ms.__version__, "printed": {}, "errors": {}}
    for name, (build, sx, sy) in C.networks(ms).items():
        ms.set_seed(0)
        net = build()
        x, y = C.data(sx, sy)
        data = ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(sx[0])
        model = ms.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.01))
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            model.train(1, data, callbacks=[ms.train.FlopsUtilizationCollector(2, computility=1e9)],
                        dataset_sink_mode=False)
        out["printed"][name] = buf.getvalue().splitlines()
    for name, kwargs in (("data_size_zero", {"data_size": 0}), ("data_size_float", {"data_size": 1.5}),
                         ("full_flops_int", {"data_size": 1, "full_flops": 1}),
                         ("ma_str", {"data_size": 1, "enable_ma_collector": "no"})):
        try:
            ms.train.FlopsUtilizationCollector(**kwargs)
            out["errors"][name] = None
        except Exception as e:  # noqa: BLE001 - the wheel's class and words are the record
            out["errors"][name] = [type(e).__name__, str(e).splitlines()[0]]
    with open(os.path.join(HERE, "data", "flops.json"), "w") as f:
        json.dump(out, f, indent=1)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
