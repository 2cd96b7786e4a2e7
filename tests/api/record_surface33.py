"""Record MindSpore 2.10's answers for issue 33's top-level / train / metric names (surface33).

    cd /tmp && GLOG_v=3 /work/ms-venv/bin/python /path/to/tests/api/record_surface33.py

Writes tests/api/fixtures/ms_surface33.json: the type objects, the device-runtime answers of the
CPU build (memory statistics, streams, events), frombuffer / Symbol / swap_tensors, and the
segmentation metrics' values (surface33_cases.METRICS). Not collected by pytest.
"""
import json
import os
import sys

import numpy as np

import mindspore as ms
from mindspore import Tensor, nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import surface33_cases as C  # noqa: E402


def outcome(fn):
    try:
        return {"value": encode(fn())}
    except BaseException as e:  # noqa: BLE001 - recording what MindSpore raises
        return {"raises": type(e).__name__, "message": str(e).splitlines()[0] if str(e) else ""}


def encode(v):
    if isinstance(v, Tensor):
        return {"tensor": v.asnumpy().astype(np.float64).tolist(), "dtype": str(v.dtype), "shape": list(v.shape)}
    if isinstance(v, np.ndarray):
        return {"ndarray": v.astype(np.float64).tolist(), "shape": list(v.shape)}
    if isinstance(v, np.generic):
        return float(v)
    if isinstance(v, float) and not np.isfinite(v):
        return str(v)
    if isinstance(v, (tuple, list)):
        return [encode(x) for x in v]
    return v


def _value(attr):
    return attr() if callable(attr) else attr


def metric_run(cls_name, kwargs, updates):
    def run():
        metric = getattr(nn, cls_name)(**kwargs)
        metric.clear()
        for inputs in updates:
            metric.update(*[Tensor(x) if isinstance(x, np.ndarray) else x for x in inputs])
        return metric.eval()
    return outcome(run)


def occlusion():
    net = C.occlusion_net(nn, Tensor)
    metric = nn.OcclusionSensitivity()
    metric.update(net, Tensor(C.OCC_X), Tensor(C.OCC_LABEL))
    return metric.eval()


def summary_file():
    """Write C.SUMMARY_STEPS with MindSpore's SummaryRecord; keep the file (fixtures/ms_summary.bin) and
    MindSpore's own protobuf reading of it."""
    import shutil
    import tempfile
    from mindspore.train import summary_pb2
    tmp = tempfile.mkdtemp()
    with ms.SummaryRecord(tmp) as sr:
        for step, values in C.SUMMARY_STEPS:
            for plugin, name, array in values:
                sr.add_value(plugin, name, Tensor(array))
            sr.record(step)
    path = os.path.join(tmp, os.listdir(tmp)[0])
    dst = os.path.join(HERE, "fixtures", "ms_summary.bin")
    shutil.copyfile(path, dst)
    blob = open(dst, "rb").read()
    events, pos = [], 0
    while pos < len(blob):
        (length,) = np.frombuffer(blob[pos:pos + 8], "<u8")
        event = summary_pb2.Event()
        event.ParseFromString(blob[pos + 12:pos + 12 + int(length)])
        events.append({"step": event.step, "version": event.version,
                       "values": [[v.tag, v.scalar_value if v.HasField("scalar_value") else
                                   {"dims": list(v.tensor.dims), "data_type": v.tensor.data_type,
                                    "float_data": list(v.tensor.float_data)}] for v in event.summary.value]})
        pos += 16 + int(length)
    shutil.rmtree(tmp)
    return {"events": events, "name_pattern": os.path.basename(path).split(".")[:4]}


def main():
    rec = {"mindspore": ms.__version__}
    rec["types"] = {
        "str": {n: str(getattr(ms, n)) for n in ("number", "string", "tuple_", "list_", "type_none", "tensor_type")},
        "Int32_is_int32": ms.Int(32) == ms.int32,
        "isinstance_Int": [isinstance(getattr(ms, d), ms.Int) for d in C.DTYPES],
        "isinstance_Type": [isinstance(getattr(ms, d), ms.Type) for d in C.DTYPES],
        "tensor_type_str": str(ms.TensorType(ms.float32)),
        "tensor_type_element": str(ms.TensorType(ms.float32).element_type()),
        "QuantDtype": [[q.name, q.value()] for q in ms.QuantDtype],
        "Int7": outcome(lambda: ms.Int(7)),
        "Type()": outcome(lambda: ms.Type()),
    }
    rec["runtime"] = {
        "memory": {n: getattr(ms, n)() for n in C.MEMORY},
        "memory_stats": ms.memory_stats(),
        "memory_summary": ms.memory_summary(),
        "stream_repr": repr(ms.Stream()),
        "stream_query_sync": [ms.Stream().query(), ms.Stream().synchronize()],
        "stream_ids": {n: [callable(getattr(ms.Stream(), n)), _value(getattr(ms.Stream(), n))]
                       for n in ("id", "stream_id", "device_name", "device_id")},
        "current_default": [ms.current_stream(), ms.default_stream()],
        "communication_stream": repr(ms.communication_stream()),
        "event": outcome(lambda: ms.Event()),
        "device": list(ms.get_current_device()),
        "recursion_bad": [outcome(lambda: ms.set_recursion_limit(-1)), outcome(lambda: ms.set_recursion_limit("a"))],
    }
    rec["frombuffer"] = {name: outcome(lambda a=args: ms.frombuffer(*a[:2], **a[2])) for name, args in
                         C.frombuffer_cases(ms).items()}
    rec["symbol"] = {"str": str(ms.Symbol(max=8, min=2, divisor=2)), "default": str(ms.Symbol()),
                     "min0": outcome(lambda: ms.Symbol(min=0)), "div0": outcome(lambda: ms.Symbol(divisor=0))}
    a, b = Tensor(np.array([1], np.int32)), Tensor(np.array([2.0, 3.0], np.float32))
    ms.swap_tensors(a, b)
    rec["swap"] = [encode(a), encode(b)]
    rec["metrics"] = {name: metric_run(*spec) for name, spec in C.METRICS.items()}
    rec["occlusion"] = outcome(occlusion)
    rec["metric_names"] = sorted(ms.train.names())
    rec["knobs"] = {"algo": {k: ms.get_algo_parameters(k) for k in C.ALGO_KEYS},
                    "ps": {k: ms.get_ps_context(k) for k in C.PS_KEYS},
                    "algo_bad": outcome(lambda: ms.get_algo_parameters("nope")),
                    "ps_bad": outcome(lambda: ms.get_ps_context("nope")),
                    "algo_type": outcome(lambda: ms.set_algo_parameters(fully_use_devices=3))}
    rec["optimizers"] = {name: outcome(lambda a=spec: C.run_optimizer(ms, nn, Tensor, ms.Parameter, *a))
                         for name, spec in C.OPTIMIZERS.items()}
    rec["summary"] = summary_file()
    out = os.path.join(HERE, "fixtures", "ms_surface33.json")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        json.dump(rec, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote", out)


if __name__ == "__main__":
    main()
