"""Metrics against MindSpore 2.10 (fixtures/ms_metrics.json, written by record_metrics.py):
the value and NumPy type of eval() for each update sequence, fed as pycompile Tensors, NumPy
arrays and Python lists; the error raised by eval() before any update; wrong uses."""
import json
import os

import numpy as np
import pytest

import metric_cases
import pycompile as ms
from pycompile import nn

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "ms_metrics.json")) as _f:
    MS = json.load(_f)


def encode(value):
    if isinstance(value, np.ndarray):
        return {"type": "ndarray", "dtype": str(value.dtype), "shape": list(value.shape),
                "values": value.astype(np.float64).tolist()}
    if isinstance(value, np.generic):
        return {"type": type(value).__name__, "values": value.item()}
    if isinstance(value, (tuple, list)) and any(isinstance(v, (np.ndarray, tuple, list)) for v in value):
        return {"type": type(value).__name__, "items": [encode(v) for v in value]}
    return {"type": type(value).__name__, "values": value}


def run(cls_name, kwargs, updates, evals, convert):
    try:
        metric = getattr(nn, cls_name)(**kwargs)
        for inputs in updates or []:
            metric.update(*[convert(x) for x in inputs])
        return [encode(metric.eval(**e)) for e in evals]
    except Exception as e:  # noqa: BLE001 - compared with what MindSpore raised
        return {"raises": type(e).__name__, "message": str(e)}


def as_tensor(x):
    return ms.Tensor(x) if isinstance(x, np.ndarray) else x


def as_list(x):
    return x.tolist() if isinstance(x, np.ndarray) and x.ndim else x


def same(got, want) -> bool:
    """Equal types, dtypes and shapes, and values equal up to the rounding of the last bits: the
    dot products and logarithms of NumPy 2 and of the wheel's NumPy 1.26 may differ by an ulp
    (float64) or a few (float32 sums in another order)."""
    if isinstance(got, dict) and isinstance(want, dict):
        if got.keys() != want.keys():
            return False
        rtol = 1e-6 if got.get("dtype") == "float32" else 1e-13
        for k in got:
            if k == "values" and got.get("type") not in ("str", "NoneType"):
                try:
                    if not np.allclose(np.asarray(got[k], float), np.asarray(want[k], float), rtol=rtol, atol=0,
                                       equal_nan=True):
                        return False
                except (TypeError, ValueError):
                    if got[k] != want[k]:
                        return False
            elif not same(got[k], want[k]):
                return False
        return True
    if isinstance(got, list) and isinstance(want, list):
        return len(got) == len(want) and all(same(g, w) for g, w in zip(got, want))
    return got == want


@pytest.mark.parametrize("case", sorted(metric_cases.CASES))
def test_matches_mindspore_with_tensor_inputs(case):
    got, want = run(*metric_cases.CASES[case], as_tensor), MS["cases"][case]
    assert same(got, want), (got, want)


@pytest.mark.parametrize("case", sorted(metric_cases.CASES))
def test_numpy_inputs_equal_tensor_inputs(case):
    """A pycompile Tensor is read through asnumpy(), so NumPy arrays give identical results."""
    assert run(*metric_cases.CASES[case], lambda x: x) == run(*metric_cases.CASES[case], as_tensor)
    assert same(run(*metric_cases.CASES[case], lambda x: x), MS["cases"][case])


@pytest.mark.parametrize("case", sorted(metric_cases.CASES))
def test_matches_mindspore_with_list_inputs(case):
    got, want = run(*metric_cases.CASES[case], as_list), MS["cases_list"][case]
    assert same(got, want), (got, want)


@pytest.mark.parametrize("cls_name", sorted(metric_cases.EMPTY))
def test_eval_before_update_raises_like_mindspore(cls_name):
    got = run(cls_name, metric_cases.EMPTY[cls_name], [], [{}], as_tensor)
    assert got == MS["empty"][cls_name]


@pytest.mark.parametrize("case", sorted(metric_cases.ERRORS))
def test_wrong_uses_raise_like_mindspore(case):
    cls_name, kwargs, updates = metric_cases.ERRORS[case]
    got = run(cls_name, kwargs, updates, [{}], as_tensor)
    want = MS["errors"][case]
    assert got["raises"] == want["raises"]
    if case == "accuracy_bad_type":   # MindSpore prints a set: its order changes with PYTHONHASHSEED
        assert got["message"].endswith("but got regression")
    else:
        assert got["message"] == want["message"]


def test_set_indexes_call_and_average_type():
    acc = nn.Accuracy().set_indexes([2, 0])
    acc.update(ms.Tensor(metric_cases.Y4), ms.Tensor(np.zeros(4)), ms.Tensor(metric_cases.P4x3))
    assert encode(acc.eval()) == MS["set_indexes"]
    assert encode(nn.MAE()(ms.Tensor(metric_cases.REG_PRED), ms.Tensor(metric_cases.REG_TRUE))) == MS["call"]
    assert encode(nn.MSE()(metric_cases.REG_PRED, metric_cases.REG_TRUE)) == MS["numpy_inputs"]
    with pytest.raises(ValueError) as info:
        nn.Accuracy().set_indexes((0, 1))
    assert str(info.value) == MS["set_indexes_bad"]["message"]
    got = run("Precision", {}, [(metric_cases.P4x3, metric_cases.Y4)], [{"average": "yes"}], as_tensor)
    assert got == MS["average_not_bool"]


def test_names_and_factory():
    assert set(ms.train.names()) <= set(MS["names"])
    assert ms.train.names() == sorted(ms.train.names())
    for name, cls_name in MS["factory"].items():
        assert type(ms.train.get_metric_fn(name)).__name__ == cls_name
    assert ms.train.get_metric_fn("topk", k=3).k == MS["factory_topk"]["returns"]
    with pytest.raises(KeyError) as info:
        ms.train.get_metric_fn("nope")
    assert str(info.value) == MS["factory_unknown"]["message"]


def test_independent_numpy_check_of_accuracy_and_topk():
    """Independent of the fixtures: accuracy and top-k from first principles on random data."""
    rng = np.random.default_rng(7)
    scores = rng.random((50, 10))
    labels = rng.integers(0, 10, 50)
    acc = nn.Accuracy()
    acc.update(ms.Tensor(scores[:20]), ms.Tensor(labels[:20]))
    acc.update(scores[20:], labels[20:])
    assert acc.eval() == np.mean(scores.argmax(1) == labels)
    top3 = nn.TopKCategoricalAccuracy(3)
    top3.update(scores, labels)
    ranks = (scores > scores[np.arange(50), labels][:, None]).sum(1)
    assert top3.eval() == np.mean(ranks < 3)


def test_metric_base_is_abstract_and_exports_match_mindspore():
    with pytest.raises(TypeError):
        nn.Metric()
    for name in ("Accuracy", "Loss", "MAE", "MSE", "Precision", "Recall", "F1", "Fbeta", "ConfusionMatrix",
                 "Top1CategoricalAccuracy", "Top5CategoricalAccuracy", "TopKCategoricalAccuracy", "Metric",
                 "rearrange_inputs", "names", "get_metric_fn"):
        assert getattr(ms, name) is getattr(nn, name) is getattr(ms.train, name)
    from pycompile.train.metrics import Accuracy
    assert Accuracy is nn.Accuracy


@pytest.mark.parametrize("name", sorted(metric_cases.AUC))
def test_auc_matches_mindspore(name):
    want = MS["auc"][name]
    try:
        got = {"returns": encode(ms.train.auc(*metric_cases.AUC[name]))}
    except Exception as e:  # noqa: BLE001 - compared with what MindSpore raised
        got = {"raises": type(e).__name__, "message": str(e)}
    if "raises" in want:
        assert got == want
    else:
        assert same(got["returns"], want["returns"]), (got, want)
