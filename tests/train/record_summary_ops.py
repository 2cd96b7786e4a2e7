"""Record what MindSpore 2.10's summary operators (ops.ScalarSummary, TensorSummary, ImageSummary,
HistogramSummary) make SummaryRecord write, in PyNative and graph mode (run once, with the wheel):

    cd /tmp && /work/msvenv/bin/python /work/main/tests/train/record_summary_ops.py

Each scenario below is written against a `ms` module (mindspore here, pycompile in
test_summary_ops.py, which imports this file for SCENARIOS and parse_events without running it).
For every (scenario, mode) the data file fixtures/ms_summary_ops.json holds the events of the file
the scenario wrote, wall times left out: per event its step, version mark, whether it is a graph
event, and per Summary.Value its tag, its kind and its exact bytes (hex) as the wheel encoded them,
with the parsed fields beside; or the error (class, message, and whether net() or record() raised).
Not collected by pytest.
"""
import json
import os
import shutil
import struct
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "fixtures", "ms_summary_ops.json")
MODES = ("pynative", "graph")


# ---- the scenarios: each builds a network with ms.nn / ms.ops and drives a SummaryRecord -------------
def _basic(ms, log_dir):
    """The four ops on one value, two steps (the example of MindSpore's docs)."""
    nn, ops, Tensor = ms.nn, ms.ops, ms.Tensor

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.s = ops.ScalarSummary()
            self.t = ops.TensorSummary()
            self.h = ops.HistogramSummary()
            self.i = ops.ImageSummary()

        def construct(self, x):
            y = x * 2
            self.s("loss", y.sum())
            self.t("y", y)
            self.h("hist", y)
            self.i("img", ops.reshape(y, (1, 3, 2, 2)))
            return y

    net = Net()
    with ms.SummaryRecord(log_dir, network=net) as rec:
        for step in range(2):
            net(Tensor(np.arange(12, dtype=np.float32) / 7 + step))
            rec.record(step + 1, train_network=net)


def _order(ms, log_dir):
    """Several tags per kind in an order that is neither sorted nor grouped, a user add_value, the
    network run twice between records (the last value of a tag is written), ops.operations forms,
    an int32 tensor, a grid of 10 grey images; no `network` given to SummaryRecord."""
    nn, ops, Tensor, P = ms.nn, ms.ops, ms.Tensor, ms.ops.operations

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.s = P.ScalarSummary()
            self.t = P.TensorSummary()
            self.h = P.HistogramSummary()
            self.i = P.ImageSummary()

        def construct(self, x):
            y = x * 3 - 1
            self.s("b", y.sum())
            self.t("a", ops.cast(y, ms.int32))
            self.s("a", y.max())
            self.h("z", y)
            # (the wheel's graph mode drops an ImageSummary of a reshape of a computed value that
            # is not returned - its bug - so the grid is computed after the reshape)
            self.i("c", ops.tile(ops.reshape(x, (2, 1, 2, 3)), (5, 1, 1, 1)) * 3 - 1)
            self.t("B", y[:2])
            self.s("a_1", y.min())
            return y + 1

    net = Net()
    with ms.SummaryRecord(log_dir) as rec:
        for step in range(2):
            rec.add_value("scalar", "user", Tensor(np.float32(1.5 + step)))
            net(Tensor(np.linspace(-1, 1, 12, dtype=np.float32) + step))
            net(Tensor(np.linspace(-2, 3, 12, dtype=np.float32) * (step + 1)))
            rec.record(step + 1, train_network=net)


def _hist_inputs():
    rng = np.random.RandomState(7)
    a = rng.randn(4, 5).astype(np.float32)
    a[0, 0], a[1, 1], a[2, 2], a[3, 3] = np.nan, np.inf, -np.inf, np.inf
    return (a, rng.randint(-5, 9, size=(7,)).astype(np.int32), np.full((3, 3), 2.5, np.float32),
            (rng.randn(33) * 3).astype(np.float16), np.full((5,), np.nan, np.float32),
            rng.randn(1000).astype(np.float64), np.array([1.0, 2.0], np.float32))


def _hist(ms, log_dir):
    """HistogramSummary's buckets, min / max / sum and NaN / inf counts: NaN and infinities among
    floats, int32, one repeated value, float16, only NaNs, 1000 float64 values (90 buckets), two
    values; a TensorSummary of the same float16 and float64 values."""
    nn, ops, Tensor = ms.nn, ms.ops, ms.Tensor

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.h = ops.HistogramSummary()
            self.t = ops.TensorSummary()

        def construct(self, a, b, c, d, e, f, g):
            self.h("h_nan", a)
            self.h("h_int", b)
            self.h("h_const", c)
            self.h("h_f16", d)
            self.h("h_allnan", e)
            self.h("h_big", f)
            self.h("h_two", g)
            self.t("t_f16", d)
            self.t("t_f64", f[:5])
            return a

    net = Net()
    with ms.SummaryRecord(log_dir, network=net) as rec:
        net(*[Tensor(v) for v in _hist_inputs()])
        rec.record(3, train_network=net)


def _image_inputs():
    rng = np.random.RandomState(3)
    return (rng.rand(2, 3, 4, 5).astype(np.float32), rng.randint(0, 256, (1, 3, 3, 4)).astype(np.uint8),
            (rng.randn(3, 1, 3, 3) * 4).astype(np.float32), np.full((1, 3, 2, 2), 7.0, np.float32),
            rng.rand(1, 2, 3, 3).astype(np.float32), rng.rand(9, 3, 2, 2).astype(np.float64) * 300)


def _image(ms, log_dir):
    """ImageSummary's PNGs: values in [0, 1] (scaled by 255), uint8, negative values (mapped
    linearly), one constant value, 2 channels (not an image: left out of the event), 9 images (a
    grid of 8 columns, 2 rows)."""
    nn, ops, Tensor = ms.nn, ms.ops, ms.Tensor

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.i = ops.ImageSummary()

        def construct(self, a, b, c, d, e, f):
            self.i("i01", a)
            self.i("iu8", b)
            self.i("ineg", c)
            self.i("iconst", d)
            self.i("ibad_c", e)
            self.i("igrid", f)
            return a

    net = Net()
    with ms.SummaryRecord(log_dir, network=net) as rec:
        net(*[Tensor(v) for v in _image_inputs()])
        rec.record(1, train_network=net)


def _train(ms, log_dir):
    """A loss net with a ScalarSummary / HistogramSummary inside nn.TrainOneStepCell (the summary
    ops sit in the forward pass of a gradient)."""
    nn, ops, Tensor = ms.nn, ms.ops, ms.Tensor

    class LossNet(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(3, 1, weight_init="ones", bias_init="zeros")
            self.s = ops.ScalarSummary()
            self.h = ops.HistogramSummary()

        def construct(self, x, y):
            out = self.fc(x)
            loss = ((out - y) ** 2).mean()
            self.s("loss", loss)
            self.h("out", out)
            return loss

    loss_net = LossNet()
    net = nn.TrainOneStepCell(loss_net, nn.SGD(loss_net.trainable_params(), 0.05))
    x = Tensor(np.arange(12, dtype=np.float32).reshape(4, 3) / 10)
    y = Tensor(np.array([[1.0], [0.0], [2.0], [1.0]], np.float32))
    with ms.SummaryRecord(log_dir, network=net) as rec:
        for step in range(3):
            net(x, y)
            rec.record(step + 1, train_network=net)


def _effects(ms, log_dir):
    """A Parameter's summaries around an in-place update (the effect order), summaries in an
    unrolled loop (a tag's last value), and an ms.jit function's summaries."""
    nn, ops, Tensor, Parameter = ms.nn, ms.ops, ms.Tensor, ms.Parameter
    jit_summary = ops.ScalarSummary()

    @ms.jit
    def jitted(x):
        jit_summary("jit_z", x.max())
        jit_summary("jit_a", x.min())
        return x * 2

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="w")
            self.t = ops.TensorSummary()
            self.s = ops.ScalarSummary()

        def construct(self, x):
            self.t("w_before", self.w * 1)
            ops.assign(self.w, self.w + x)
            self.t("w_after", self.w * 1)
            for i in range(3):
                self.s("loop", (x * i).max())
            return self.w + 0

    net = Net()
    with ms.SummaryRecord(log_dir, network=net) as rec:
        for step in range(2):
            net(Tensor(np.array([0.5, 0.25], np.float32)))
            jitted(Tensor(np.array([3.0, -1.0, 2.0], np.float32) + step))
            rec.record(step + 1, train_network=net)


def _error(kind):
    def scenario(ms, log_dir):
        nn, ops, Tensor = ms.nn, ms.ops, ms.Tensor
        op, tag = {"scalar_size": (ops.ScalarSummary, "s"), "image_3d": (ops.ImageSummary, "i"),
                   "tag_int": (ops.ScalarSummary, 1), "tensor_0d": (ops.TensorSummary, "t"),
                   "histogram_0d": (ops.HistogramSummary, "h"), "tag_empty": (ops.TensorSummary, ""),
                   "scalar_2d": (ops.ScalarSummary, "s"), "value_number": (ops.TensorSummary, "t")}[kind]

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.op, self.tag, self.kind = op(), tag, kind

            def construct(self, x):
                if self.kind == "image_3d":
                    self.op(self.tag, ops.reshape(x, (1, 2, 2)))
                elif self.kind in ("scalar_size", "tag_empty"):
                    self.op(self.tag, x)
                elif self.kind == "scalar_2d":
                    self.op(self.tag, ops.reshape(x, (2, 2)))
                elif self.kind == "value_number":
                    self.op(self.tag, 3.0)
                else:
                    self.op(self.tag, x.sum())
                return x + 1

        net = Net()
        with ms.SummaryRecord(log_dir, network=net) as rec:
            where = "call"
            try:
                net(Tensor(np.arange(4, dtype=np.float32)))
                where = "record"
                rec.record(1, train_network=net)
            except Exception as err:   # noqa: BLE001 - the class and message are the record
                return {"error": [type(err).__name__, str(err).split("\n")[0], where]}
        return None
    scenario.__doc__ = f"the error of {kind}"
    return scenario


SCENARIOS = {"basic": _basic, "order": _order, "hist": _hist, "image": _image, "train": _train, "effects": _effects,
             **{f"error_{k}": _error(k) for k in ("scalar_size", "image_3d", "tag_int", "tensor_0d",
                                                  "histogram_0d", "tag_empty", "scalar_2d", "value_number")}}


# ---- a reader of the event file, independent of both libraries ------------------------------------
def _varint(data, pos):
    shift = result = 0
    while True:
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return result, pos


def _fields(data):
    pos = 0
    while pos < len(data):
        start = pos
        key, pos = _varint(data, pos)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(data, pos)
        elif wire == 1:
            value, pos = data[pos:pos + 8], pos + 8
        elif wire == 5:
            value, pos = data[pos:pos + 4], pos + 4
        elif wire == 2:
            n, pos = _varint(data, pos)
            value, pos = data[pos:pos + n], pos + n
        else:
            raise ValueError(f"wire type {wire}")
        yield field, wire, value, data[start:pos]


def _num(b):
    v = struct.unpack("<d", b)[0]
    return v if np.isfinite(v) else repr(v)


def _parse_value(raw):
    out = {"hex": raw.hex()}
    for f, _, v, _ in _fields(raw):
        if f == 1:
            out["tag"] = v.decode()
        elif f == 3:
            out["kind"], out["scalar"] = "scalar", float(np.float32(struct.unpack("<f", v)[0]))
        elif f == 4:
            out["kind"] = "image"
            img = {k: None for k in ("height", "width", "colorspace")}
            for g, _, w, _ in _fields(v):
                if g in (1, 2, 3):
                    img[("height", "width", "colorspace")[g - 1]] = w
                elif g == 4:
                    img["png_bytes"] = len(w)
            out["image"] = img
        elif f == 8:
            out["kind"] = "tensor"
            t = {"dims": [], "data_type": None}
            for g, _, w, _ in _fields(v):
                if g == 1:
                    t["dims"].append(w)
                elif g == 2:
                    t["data_type"] = w
            out["tensor"] = t
        elif f == 9:
            out["kind"] = "histogram"
            h = {"buckets": []}
            names = {2: "nan_count", 3: "pos_inf_count", 4: "neg_inf_count", 5: "max", 6: "min", 7: "sum",
                     8: "count"}
            for g, _, w, _ in _fields(v):
                if g == 1:
                    bk = {}
                    for k, _, u, _ in _fields(w):
                        bk[{1: "left", 2: "width", 3: "count"}[k]] = _num(u) if k < 3 else u
                    h["buckets"].append(bk)
                else:
                    h[names[g]] = _num(w) if g in (5, 6, 7) else w
            out["histogram"] = h
    return out


def parse_events(path):
    """The events of one summary file: [{step, version, graph, values: [parsed value]}]."""
    with open(path, "rb") as f:
        blob = f.read()
    events, pos = [], 0
    while pos < len(blob):
        (n,) = struct.unpack("<Q", blob[pos:pos + 8])
        data = blob[pos + 12:pos + 12 + n]
        pos += 16 + n
        event = {"step": None, "version": None, "graph": False, "values": []}
        for f, _, v, _ in _fields(data):
            if f == 2:
                event["step"] = v
            elif f == 3:
                event["version"] = v.decode()
            elif f == 4:
                event["graph"] = True
            elif f == 5:
                event["values"] = [_parse_value(raw) for g, _, raw, _ in _fields(v) if g == 1]
        events.append(event)
    return events


def summary_files(log_dir):
    return sorted(os.path.join(log_dir, n) for n in os.listdir(log_dir) if ".out.events.summary." in n
                  and not n.endswith("_lineage"))


def run_scenario(ms, name, mode):
    """Run one scenario in `mode` ('pynative' | 'graph'): {'events': [...]} or {'error': [...]}."""
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    log_dir = tempfile.mkdtemp(prefix=f"sumops_{name}_{mode}_")
    try:
        res = SCENARIOS[name](ms, log_dir)
        if res is not None:
            return res
        files = summary_files(log_dir)
        return {"events": [e for p in files for e in parse_events(p)], "files": len(files)}
    finally:
        shutil.rmtree(log_dir, ignore_errors=True)


def main():
    import mindspore as ms
    data = {}
    for mode in MODES:
        for name in SCENARIOS:
            data[f"{name}/{mode}"] = run_scenario(ms, name, mode)
            print(name, mode, json.dumps(data[f"{name}/{mode}"])[:200], flush=True)
    os.makedirs(os.path.dirname(DATA), exist_ok=True)
    with open(DATA, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
