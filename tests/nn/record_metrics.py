"""Record MindSpore 2.10's metric results (run once, under MindSpore's venv).

    . /work/ms-venv/bin/activate && python tests/nn/record_metrics.py

For every case in metric_cases: the value of eval() after the updates (fed as MindSpore
Tensors, and again as Python lists), or the exception class and message; eval() with no update; the wrong uses in
metric_cases.ERRORS; `names()`; set_indexes and __call__. Writes fixtures/ms_metrics.json.
Not collected by pytest.
"""
import json
import os
import sys

import numpy as np

import mindspore as ms
from mindspore import Tensor, nn, train

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import metric_cases  # noqa: E402


def encode(value):
    if isinstance(value, np.ndarray):
        return {"type": "ndarray", "dtype": str(value.dtype), "shape": list(value.shape),
                "values": value.astype(np.float64).tolist()}
    if isinstance(value, np.generic):
        return {"type": type(value).__name__, "values": value.item()}
    if isinstance(value, (tuple, list)) and any(isinstance(v, (np.ndarray, tuple, list)) for v in value):
        return {"type": type(value).__name__, "items": [encode(v) for v in value]}
    return {"type": type(value).__name__, "values": value}


def as_tensor(x):
    return Tensor(x) if isinstance(x, np.ndarray) else x


def run(cls_name, kwargs, updates, evals):
    try:
        metric = getattr(nn, cls_name)(**kwargs)
        for inputs in updates or []:
            metric.update(*[as_tensor(x) for x in inputs])
        return [encode(metric.eval(**e)) for e in evals]
    except BaseException as e:  # noqa: BLE001 - recording what MindSpore raises
        return {"raises": type(e).__name__, "message": str(e)}


def main():
    record = {"mindspore": ms.__version__, "cases": {}, "cases_list": {}, "empty": {}, "errors": {}}
    for name, (cls_name, kwargs, updates, evals) in metric_cases.CASES.items():
        record["cases"][name] = run(cls_name, kwargs, updates, evals)
        # as Python lists (np.array of a list of float32 values is float64: results can differ)
        metric = getattr(nn, cls_name)(**kwargs)
        for inputs in updates:
            metric.update(*[x.tolist() if isinstance(x, np.ndarray) and x.ndim else x for x in inputs])
        record["cases_list"][name] = [encode(metric.eval(**e)) for e in evals]
    for cls_name, kwargs in metric_cases.EMPTY.items():
        record["empty"][cls_name] = run(cls_name, kwargs, [], [{}])
    for name, (cls_name, kwargs, updates) in metric_cases.ERRORS.items():
        record["errors"][name] = run(cls_name, kwargs, updates, [{}])

    acc = nn.Accuracy().set_indexes([2, 0])
    acc.update(Tensor(metric_cases.Y4), Tensor(np.zeros(4)), Tensor(metric_cases.P4x3))
    record["set_indexes"] = encode(acc.eval())
    record["call"] = encode(nn.MAE()(Tensor(metric_cases.REG_PRED), Tensor(metric_cases.REG_TRUE)))
    record["numpy_inputs"] = encode(nn.MSE()(metric_cases.REG_PRED, metric_cases.REG_TRUE))
    record["set_indexes_bad"] = run_bad_indexes()
    record["average_not_bool"] = run("Precision", {}, [(metric_cases.P4x3, metric_cases.Y4)], [{"average": "yes"}])
    record["names"] = sorted(train.names())
    record["factory"] = {n: type(train.get_metric_fn(n)).__name__ for n in ("acc", "accuracy", "mae", "mse", "loss",
                                                                           "F1", "precision", "recall",
                                                                           "top_1_accuracy", "top_5_accuracy")}
    record["factory_topk"] = run_factory(lambda: train.get_metric_fn("topk", k=3).k)
    record["factory_unknown"] = run_factory(lambda: train.get_metric_fn("nope"))
    record["auc"] = {name: run_factory(lambda a=args: encode(train.auc(*a))) for name, args in metric_cases.AUC.items()}
    out = os.path.join(HERE, "fixtures", "ms_metrics.json")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        json.dump(record, f, indent=1)
        f.write("\n")
    print("wrote", out)


def run_bad_indexes():
    try:
        nn.Accuracy().set_indexes((0, 1))
    except BaseException as e:  # noqa: BLE001
        return {"raises": type(e).__name__, "message": str(e)}
    return None


def run_factory(fn):
    try:
        return {"returns": fn()}
    except BaseException as e:  # noqa: BLE001
        return {"raises": type(e).__name__, "message": str(e)}


if __name__ == "__main__":
    main()
