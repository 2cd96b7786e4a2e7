"""The summary operators (ops.ScalarSummary, TensorSummary, ImageSummary, HistogramSummary) with
SummaryRecord, against what MindSpore 2.10 wrote for the same scenarios (record_summary_ops.py, its
events in fixtures/ms_summary_ops.json), in PyNative and graph mode: every Summary.Value's bytes
(images' PNG and histograms' buckets included), their order in each event, and the errors."""
import copy
import io
import json
import os
import sys

import numpy as np
import pytest
from PIL import Image as PIL     # the test extra has Pillow (images are PNG-encoded by it, as the wheel's)

import pycompile as ms
from pycompile.train import summary as S

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import record_summary_ops as R  # noqa: E402

with open(R.DATA) as _f:
    MS = json.load(_f)


@pytest.fixture(autouse=True)
def _pynative_after():
    # summary values an earlier test's PyNative calls left (nothing recorded them): the wheel keeps
    # those for the next record() too, so each scenario starts from an empty cache, as its recording did
    from pycompile.ops.entries import summary_ops
    summary_ops.EAGER.clear()
    summary_ops.clear_graph_values()
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def _expected(name, mode):
    """The wheel's events, less its graph event (pycompile does not write one). The wheel's graph
    mode drops an ms.jit function's values from its second call on (step 2 of 'effects' lacks
    them, though the function ran): expected there are the values its PyNative run wrote."""
    events = copy.deepcopy([e for e in MS[f"{name}/{mode}"]["events"] if not e["graph"]])
    if (name, mode) == ("effects", "graph"):
        eager = [e for e in MS["effects/pynative"]["events"] if e["step"] == 2][0]["values"]
        jit = [v for v in eager if v["tag"].startswith("jit_")]
        step2 = [e for e in events if e["step"] == 2][0]
        assert not any(v["tag"].startswith("jit_") for v in step2["values"])      # the wheel's loss
        step2["values"][1:1] = jit                   # after 'loop': the scalars of the net's run first
    return events


def _same_value(got, want, trained=False):
    """Equal bytes; a scalar that is a sum may differ in its last bit (the wheel's reduction order),
    and after a training step (`trained`) any value by float32 rounding: then equal to 1e-5, counts
    exactly."""
    if got["hex"] == want["hex"]:
        return True
    if got.get("kind") == want.get("kind") == "scalar" and got["tag"] == want["tag"]:
        a, b = np.float32(got["scalar"]), np.float32(want["scalar"])
        if abs(int(a.view(np.int32)) - int(b.view(np.int32))) <= 2:
            return True
    if not trained or got.get("kind") != want.get("kind"):
        return False
    (ta, a), (tb, b) = S._parse_value(bytes.fromhex(got["hex"])), S._parse_value(bytes.fromhex(want["hex"]))
    if ta != tb:
        return False
    if isinstance(a, dict):
        return [c for *_, c in a["buckets"]] == [c for *_, c in b["buckets"]] and all(
            a[k] == b[k] for k in ("nan_count", "pos_inf_count", "neg_inf_count", "count")) and np.allclose(
            [x for bk in a["buckets"] for x in bk[:2]] + [a["max"], a["min"], a["sum"]],
            [x for bk in b["buckets"] for x in bk[:2]] + [b["max"], b["min"], b["sum"]], rtol=1e-5, atol=1e-6)
    return np.allclose(a, b, rtol=1e-5, atol=1e-6)


SCENARIOS = [n for n in R.SCENARIOS if not n.startswith("error_")]
ERRORS = [n for n in R.SCENARIOS if n.startswith("error_")]


@pytest.mark.parametrize("mode", R.MODES)
@pytest.mark.parametrize("name", SCENARIOS)
def test_summary_ops_write_what_the_wheel_writes(name, mode):
    got = R.run_scenario(ms, name, mode)
    assert "error" not in got, got
    assert got["files"] == 1
    want = _expected(name, mode)
    mine = got["events"]
    assert [(e["step"], e["version"]) for e in mine] == [(e["step"], e["version"]) for e in want]
    for g, w in zip(mine, want):
        assert [(v["tag"], v["kind"]) for v in g["values"]] == [(v["tag"], v["kind"]) for v in w["values"]], g["step"]
        for a, b in zip(g["values"], w["values"]):
            assert _same_value(a, b, trained=name == "train"), (g["step"], a, b)


@pytest.mark.parametrize("mode", R.MODES)
@pytest.mark.parametrize("name", ERRORS)
def test_summary_ops_errors_are_the_wheels(name, mode):
    """PyNative checks when record() takes the values ('For "ScalarSummary", ...'); graph code when
    it is compiled ("For primitive[ImageSummary], ...", after pycompile's file:line:col), except a
    ScalarSummary of more than one value of rank 1, which record() refuses ('For "SummaryRecord"')."""
    got = R.run_scenario(ms, name, mode)
    cls, message, where = MS[f"{name}/{mode}"]["error"]
    assert "error" in got, got
    assert got["error"][0] == cls and got["error"][2] == where
    assert got["error"][1] == message or got["error"][1].endswith(": " + message), got["error"][1]


def _wheel_file(tmp_path, name, mode):
    """A summary file holding the wheel's recorded Summary.Values byte for byte."""
    path = tmp_path / "wheel.summary"
    with open(path, "wb") as f:
        for e in MS[f"{name}/{mode}"]["events"]:
            if e["graph"] or e["version"]:
                continue
            f.write(S.frame(S._event(0.0, step=e["step"], values=[bytes.fromhex(v["hex"]) for v in e["values"]])))
    return str(path)


def _num(v):
    return v if not isinstance(v, str) else float(v)


def test_read_summary_parses_the_wheels_histograms(tmp_path):
    (event,) = S.read_summary(_wheel_file(tmp_path, "hist", "pynative"))
    want = [v for e in MS["hist/pynative"]["events"] for v in e["values"]]
    assert [t for t, _ in event["values"]] == [v["tag"] for v in want]
    for (tag, got), w in zip(event["values"], want):
        if w["kind"] != "histogram":
            assert isinstance(got, np.ndarray) and list(got.shape) == w["tensor"]["dims"]
            continue
        h = w["histogram"]
        assert [tuple(b) for b in got["buckets"]] == [(_num(b["left"]), _num(b["width"]), b["count"])
                                                      for b in h["buckets"]], tag
        for k in ("nan_count", "pos_inf_count", "neg_inf_count", "count"):
            assert got[k] == h[k], (tag, k)
        for k in ("max", "min", "sum"):
            assert got[k] == (None if k not in h else _num(h[k])), (tag, k)
    hists = dict(event["values"])
    assert hists["h_allnan"]["nan_count"] == 5 and hists["h_allnan"]["min"] is None
    assert len(hists["h_big"]["buckets"]) == 90


def test_read_summary_parses_the_wheels_images(tmp_path):
    (event,) = S.read_summary(_wheel_file(tmp_path, "image", "graph"))
    want = {v["tag"]: v["image"] for e in MS["image/graph"]["events"] for v in e["values"]}
    assert sorted(t for t, _ in event["values"]) == sorted(want)
    for tag, got in event["values"]:
        w = want[tag]
        assert (got["height"], got["width"], got["colorspace"]) == (w["height"], w["width"], w["colorspace"])
        assert len(got["encoded_image"]) == w["png_bytes"]
        picture = np.asarray(PIL.open(io.BytesIO(got["encoded_image"])))
        assert picture.shape == (w["height"], w["width"], 3)
    grid = dict(event["values"])["igrid"]
    assert (grid["height"], grid["width"]) == (2 * 2, 8 * 2)        # 9 images: 8 columns, 2 rows


def test_png_without_pillow_holds_the_same_pixels():
    """The fallback encoder (no Pillow installed) writes the picture Pillow would."""
    a, *_ = R._image_inputs()
    pixels = S._image_pixels(a)
    plain = S._png_plain(pixels)
    assert plain[:8] == b"\x89PNG\r\n\x1a\n"
    np.testing.assert_array_equal(np.asarray(PIL.open(io.BytesIO(plain))), pixels)
    np.testing.assert_array_equal(np.asarray(PIL.open(io.BytesIO(S._png(pixels)))), pixels)


def test_summary_ops_forms():
    """ops.X and ops.operations.X are the same Primitive class; a call returns None."""
    from pycompile.ops import operations as P
    for name in ("ScalarSummary", "TensorSummary", "ImageSummary", "HistogramSummary"):
        assert getattr(ms.ops, name) is getattr(P, name)
    assert ms.ops.TensorSummary()("x", ms.Tensor(np.ones(2, np.float32))) is None
    from pycompile.ops.entries import summary_ops
    assert summary_ops.EAGER[-1][:2] == ["TensorSummary", "x"]
    summary_ops.EAGER.clear()
