"""Issue 33 (surface33): the top-level / train names against MindSpore 2.10's recorded answers
(fixtures/ms_surface33.json, written by record_surface33.py under MindSpore's venv)."""
import json
import os
import sys

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import surface33_cases as C  # noqa: E402

with open(os.path.join(HERE, "fixtures", "ms_surface33.json")) as _f:
    MS = json.load(_f)


def outcome(fn):
    try:
        return {"value": fn()}
    except Exception as e:  # noqa: BLE001
        return {"raises": type(e).__name__, "message": str(e).splitlines()[0]}


def check_outcome(got, want, rtol=1e-9):
    if "raises" in want:
        assert "raises" in got, f"MindSpore raises {want}, pycompile returned {got}"
        assert got["raises"] == want["raises"], (got, want)
        assert got["message"] == want["message"], (got, want)
        return
    assert "value" in got, f"pycompile raised {got}; MindSpore returns {want}"
    check_value(got["value"], want["value"], rtol)


def check_value(got, want, rtol):
    if isinstance(want, dict) and "tensor" in want:
        assert isinstance(got, Tensor)
        assert str(got.dtype) == want["dtype"] and list(got.shape) == want["shape"]
        np.testing.assert_allclose(got.asnumpy().astype(np.float64), want["tensor"], rtol=rtol)
    elif isinstance(want, dict) and "ndarray" in want:
        got = np.asarray(got)
        assert list(got.shape) == want["shape"], (got, want)
        np.testing.assert_allclose(got.astype(np.float64), want["ndarray"], rtol=rtol)
    elif isinstance(want, str):
        assert str(float(got)) == want
    else:
        assert float(got) == pytest.approx(want, rel=rtol), (got, want)


# ---- types ----------------------------------------------------------------------------------------------
def test_type_objects_print_and_classify_as_mindspore():
    rec = MS["types"]
    assert {n: str(getattr(ms, n)) for n in rec["str"]} == rec["str"]
    assert (ms.Int(32) == ms.int32) == rec["Int32_is_int32"] and ms.Int(32) is ms.int32
    assert [isinstance(getattr(ms, d), ms.Int) for d in C.DTYPES] == rec["isinstance_Int"]
    assert [isinstance(getattr(ms, d), ms.Type) for d in C.DTYPES] == rec["isinstance_Type"]
    assert str(ms.TensorType(ms.float32)) == rec["tensor_type_str"]
    assert str(ms.TensorType(ms.float32).element_type()) == rec["tensor_type_element"]
    assert [[q.name, q.value()] for q in ms.QuantDtype] == rec["QuantDtype"]
    assert str(ms.QuantDtype.INT8) == "INT8"
    check_outcome(outcome(lambda: ms.Int(7)), rec["Int7"])
    check_outcome(outcome(lambda: ms.Type()), rec["Type()"])
    assert ms.dtype.number is ms.number and ms.dtype.Int is ms.Int


# ---- device runtime (MindSpore's CPU build) --------------------------------------------------------------
def test_memory_statistics_are_the_cpu_builds():
    rec = MS["runtime"]
    assert {n: getattr(ms, n)() for n in C.MEMORY} == rec["memory"]
    assert ms.memory_stats() == rec["memory_stats"]
    assert ms.memory_summary() == rec["memory_summary"]
    for fn in (ms.empty_cache, ms.reset_peak_memory_stats, ms.reset_max_memory_allocated,
               ms.reset_max_memory_reserved, ms.ms_memory_recycle):
        assert fn() is None


def test_streams_and_events_answer_as_the_cpu_build():
    rec = MS["runtime"]
    s = ms.Stream()
    assert repr(s) == rec["stream_repr"]
    assert [s.query(), s.synchronize()] == rec["stream_query_sync"]
    for name, (is_call, value) in rec["stream_ids"].items():
        attr = getattr(s, name)
        assert callable(attr) == is_call and (attr() if is_call else attr) == value
    assert [ms.current_stream(), ms.default_stream()] == rec["current_default"]
    assert repr(ms.communication_stream()) == rec["communication_stream"]
    assert ms.Stream() == ms.Stream()
    with ms.StreamCtx(s) as ctx:
        assert ctx.stream is s
    assert rec["event"]["raises"] == "TypeError"
    with pytest.raises(TypeError, match="CPU"):
        ms.Event()
    assert list(ms.get_current_device()) == rec["device"]
    assert ms.get_current_device().device_target == "CPU"


def test_set_recursion_limit_checks_and_raises_pythons_limit():
    rec = MS["runtime"]["recursion_bad"]
    check_outcome(outcome(lambda: ms.set_recursion_limit(-1)), rec[0])
    check_outcome(outcome(lambda: ms.set_recursion_limit("a")), rec[1])
    before = sys.getrecursionlimit()
    ms.set_recursion_limit(before + 10)
    assert sys.getrecursionlimit() == before + 10
    ms.set_recursion_limit(10)              # never lowered
    assert sys.getrecursionlimit() == before + 10
    sys.setrecursionlimit(before)


# ---- tensors ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(MS["frombuffer"]))
def test_frombuffer(name):
    buf, dtype, kw = C.frombuffer_cases(ms)[name]
    got = outcome(lambda: ms.frombuffer(buf, dtype, **kw))
    check_outcome(got, MS["frombuffer"][name])


def test_frombuffer_shares_a_writable_buffer():
    buf = bytearray(np.arange(4, dtype=np.float32).tobytes())
    t = ms.frombuffer(buf, ms.float32)
    buf[0:4] = np.float32(7).tobytes()
    assert t.asnumpy()[0] == 7


def test_symbol_and_swap_tensors():
    rec = MS["symbol"]
    assert str(ms.Symbol(max=8, min=2, divisor=2)) == rec["str"]
    assert str(ms.Symbol()) == rec["default"]
    check_outcome(outcome(lambda: ms.Symbol(min=0)), rec["min0"])
    check_outcome(outcome(lambda: ms.Symbol(divisor=0)), rec["div0"])
    a, b = Tensor(np.array([1], np.int32)), Tensor(np.array([2.0, 3.0], np.float32))
    ms.swap_tensors(a, b)
    check_value(a, MS["swap"][0], 0)
    check_value(b, MS["swap"][1], 0)


def test_untyped_storage():
    x = Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    s = x.untyped_storage()
    assert x.storage() is s and s.nbytes() == s.size() == 12 and s.element_size() == 1
    assert s.device == "CPU" and s.dtype == ms.float32 and not s.is_shared()
    assert s.data_ptr() == x.data_ptr()
    s.copy_(Tensor(np.array([7.0, 8.0, 9.0], np.float32)).untyped_storage())
    np.testing.assert_array_equal(x.asnumpy(), [7, 8, 9])
    with pytest.raises(TypeError):
        ms.UntypedStorage()


# ---- metrics ---------------------------------------------------------------------------------------------
def _metric(cls_name, kwargs, updates):
    def run():
        metric = getattr(nn, cls_name)(**kwargs)
        metric.clear()
        for inputs in updates:
            metric.update(*[Tensor(x) if isinstance(x, np.ndarray) else x for x in inputs])
        return metric.eval()
    return outcome(run)


@pytest.mark.parametrize("name", sorted(C.METRICS))
def test_segmentation_metrics_match_mindspore(name):
    check_outcome(_metric(*C.METRICS[name]), MS["metrics"][name], rtol=1e-7)


def test_occlusion_sensitivity_matches_mindspore():
    net = C.occlusion_net(nn, Tensor)
    metric = ms.train.OcclusionSensitivity()
    metric.update(net, Tensor(C.OCC_X), Tensor(C.OCC_LABEL))
    check_outcome({"value": metric.eval()}, MS["occlusion"], rtol=1e-6)
    with pytest.raises(RuntimeError, match="update"):
        nn.OcclusionSensitivity().eval()


def test_metric_names_and_namespaces():
    assert ms.train.names() == MS["metric_names"]
    for name in ("HausdorffDistance", "MeanSurfaceDistance", "RootMeanSquareDistance", "ConfusionMatrixMetric",
                 "OcclusionSensitivity"):
        assert getattr(ms, name) is getattr(ms.train, name) is getattr(nn, name)
    assert isinstance(ms.train.get_metric_fn("hausdorff_distance"), nn.HausdorffDistance)
    assert set(nn.get_metrics({"hausdorff_distance", "accuracy"})) == {"hausdorff_distance", "accuracy"}


def test_surface_distance_of_a_large_mask_is_chunked():
    a = np.zeros((60, 70), np.float32)
    a[5:50, 8:60] = 1
    b = np.roll(a, 3, axis=1)
    m = nn.HausdorffDistance(crop=False)
    m.update(Tensor(a), Tensor(b), 1)
    assert m.eval() == pytest.approx(3.0)


# ---- optimizers ------------------------------------------------------------------------------------------
GRAPH_OPTIMIZERS = ("rprop_args", "asgd_args", "adafactor", "adam_offload")     # one compiled run per optimizer


@pytest.mark.parametrize("name,mode", [(n, "pynative") for n in sorted(C.OPTIMIZERS)] +
                         [(n, "graph") for n in GRAPH_OPTIMIZERS])
def test_optimizer_trajectory_matches_mindspore(name, mode):
    want = MS["optimizers"][name]["value"]
    if mode == "graph":
        ms.set_context(mode=ms.GRAPH_MODE)
    try:
        got = C.run_optimizer(ms, nn, Tensor, ms.Parameter, *C.OPTIMIZERS[name])
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(got["trajectory"], want["trajectory"], rtol=1e-6, atol=1e-7)
    assert sorted(got["state"]) == sorted(want["state"])
    for key, value in want["state"].items():
        np.testing.assert_allclose(np.reshape(got["state"][key], np.shape(value)), value, rtol=1e-6, atol=1e-7)


def test_algo_and_ps_defaults_and_errors_are_mindspores():
    rec = MS["knobs"]
    ms.reset_algo_parameters()
    got = {k: ms.get_algo_parameters(k) for k in C.ALGO_KEYS}
    assert got.keys() == rec["algo"].keys()
    for k, v in rec["algo"].items():
        assert got[k] == pytest.approx(v) and type(got[k]) is type(v)
    assert {k: ms.get_ps_context(k) for k in C.PS_KEYS} == rec["ps"]
    check_outcome(outcome(lambda: ms.get_algo_parameters("nope")), rec["algo_bad"])
    check_outcome(outcome(lambda: ms.get_ps_context("nope")), rec["ps_bad"])
    check_outcome(outcome(lambda: ms.set_algo_parameters(fully_use_devices=3)), rec["algo_type"])


# ---- summary files ---------------------------------------------------------------------------------------
def _records(path):
    """The data of each record of a summary file (framing checked by read_summary)."""
    import struct
    blob, pos, out = open(path, "rb").read(), 0, []
    while pos < len(blob):
        (length,) = struct.unpack("<Q", blob[pos:pos + 8])
        out.append(blob[pos + 12:pos + 12 + length])
        pos += 16 + length
    return out


def _as_recorded(events):
    out = []
    for e in events:
        values = [[tag, float(v) if not isinstance(v, np.ndarray) else
                   {"dims": list(v.shape), "float_data": v.astype(np.float64).ravel().tolist()}] for tag, v in e["values"]]
        out.append({"step": e["step"] or 0, "version": e["version"] or "", "values": values})
    return out


def _strip_types(events):
    for e in events:
        for v in e["values"]:
            if isinstance(v[1], dict):
                v[1] = {k: v[1][k] for k in ("dims", "float_data")}
    return events


def test_read_summary_reads_mindspores_file():
    from pycompile.train.summary import read_summary
    got = _as_recorded(read_summary(os.path.join(HERE, "fixtures", "ms_summary.bin")))
    assert got == _strip_types(json.loads(json.dumps(MS["summary"]["events"])))


def test_summary_record_writes_mindspores_bytes(tmp_path):
    with ms.SummaryRecord(str(tmp_path)) as sr:
        for step, values in C.SUMMARY_STEPS:
            for plugin, name, array in values:
                sr.add_value(plugin, name, Tensor(array))
            assert sr.record(step)
    files = os.listdir(tmp_path)
    assert len(files) == 1 and files[0].split(".")[:4] == MS["summary"]["name_pattern"] and files[0].endswith("_MS")
    mine = _records(str(tmp_path / files[0]))
    theirs = _records(os.path.join(HERE, "fixtures", "ms_summary.bin"))
    assert len(mine) == len(theirs)
    for a, b in zip(mine, theirs):          # equal but for the wall time (field 1, a double: 9 bytes)
        assert a[0] == b[0] == 0x09 and a[9:] == b[9:]
    assert not sr.record(9)                  # closed


def test_summary_record_refuses_what_it_cannot_write(tmp_path):
    sr = ms.SummaryRecord(str(tmp_path))
    with pytest.raises(ValueError, match="no such \"plugin\""):
        sr.add_value("nope", "x", Tensor(1.0))
    with pytest.raises(ValueError, match="writes only 'scalar', 'tensor', 'image'"):
        sr.add_value("graph", "x", Tensor(1.0))
    with pytest.raises(TypeError, match="Tensor"):
        sr.add_value("scalar", "x", 1.0)
    with pytest.raises(ValueError, match="rank"):
        sr.add_value("scalar", "x", Tensor(np.ones(2, np.float32)))
    with pytest.raises(TypeError, match="step"):
        sr.record("a")
    with pytest.raises(ValueError, match="mode"):
        sr.set_mode("x")
    sr.close()


def test_summary_collector_writes_the_loss(tmp_path):
    from pycompile.train.summary import read_summary
    import pycompile.dataset as ds
    x = np.random.default_rng(0).random((8, 2)).astype(np.float32)
    data = ds.NumpySlicesDataset({"x": x, "y": x.sum(1, keepdims=True)}, shuffle=False).batch(2)
    net = nn.Dense(2, 1)
    model = ms.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.01))
    model.train(1, data, callbacks=[ms.SummaryCollector(str(tmp_path), collect_freq=2)])
    events = read_summary(str(tmp_path / os.listdir(tmp_path)[0]))
    assert [e["step"] for e in events[1:]] == [1, 2, 4]
    assert all(tag == "loss" and value > 0 for e in events[1:] for tag, value in e["values"])
