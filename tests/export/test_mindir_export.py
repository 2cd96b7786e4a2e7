"""ms.export(..., file_format="MINDIR"): pycompile's files run in MindSpore 2.10 and in pycompile.

MindSpore cannot run in CI. tests/export/write_mindir_exports.py wrote pycompile_NAME.mindir and
tests/oracle/record_mindir.py check-export ran each in the wheel (ms.load + nn.GraphCell),
recording its outputs. Here: today's export writes the same bytes as those checked files, the
wheel's outputs equal pycompile's, and pycompile loads its own file back to the same outputs.
"""
import json
import os
import sys

import numpy as np
import pytest

import pycompile as ms

HERE = os.path.dirname(os.path.abspath(__file__))
ORACLE = os.path.join(HERE, "..", "oracle")
DATA = os.path.join(ORACLE, "data", "mindir")
sys.path.insert(0, ORACLE)
import mindir_models  # noqa: E402

with open(os.path.join(DATA, "pycompile_export_in_mindspore.json")) as _f:
    IN_MINDSPORE = json.load(_f)["models"]


def _close(got, want):
    want = np.asarray(want)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * max(1.0, np.abs(want).max()))


def _export(name, tmp_path):
    net, inputs = mindir_models.MODELS[name](ms)
    tensors = [ms.Tensor(x) for x in inputs]
    path = ms.export(net, *tensors, file_name=str(tmp_path / name), file_format="MINDIR")
    return net, tensors, path


@pytest.mark.parametrize("mode", ["PYNATIVE_MODE", "GRAPH_MODE"])
@pytest.mark.parametrize("name", mindir_models.EXPORT_MODELS)
def test_export_writes_the_file_mindspore_ran(name, mode, tmp_path):
    """The bytes MindSpore 2.10 ran (the LSTM with its time loop unrolled, the two-layer encoder)
    are written in either mode, and MindSpore's outputs equal the net's (run in PyNative here, to
    keep the suite fast: the compiled outputs are checked against MindSpore's through the file's
    GraphCell, the round trip below in GRAPH_MODE)."""
    ms.set_context(mode=getattr(ms, mode))
    net, tensors, path = _export(name, tmp_path)
    assert path == str(tmp_path / name) + ".mindir"
    with open(path, "rb") as f, open(os.path.join(DATA, f"pycompile_{name}.mindir"), "rb") as g:
        assert f.read() == g.read(), ("export's bytes changed: rerun tests/export/write_mindir_exports.py, then "
                                      "tests/oracle/record_mindir.py check-export in MindSpore's venv")
    assert "error" not in IN_MINDSPORE[name], IN_MINDSPORE[name]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    _close(net(*tensors).asnumpy(), IN_MINDSPORE[name]["output"])


@pytest.mark.parametrize("mode", ["PYNATIVE_MODE", "GRAPH_MODE"])
@pytest.mark.parametrize("name", ["mlp", "lenet", "resblock", "lstm", "encoder2"])
def test_export_then_load_round_trip(name, mode, tmp_path):
    net, tensors, path = _export(name, tmp_path)
    ms.set_context(mode=getattr(ms, mode))
    cell = ms.nn.GraphCell(ms.load(path))
    assert sorted(n for n, _ in cell.parameters_and_names()) == sorted(p.name for p in net.get_parameters())
    _close(cell(*tensors).asnumpy(), IN_MINDSPORE[name]["output"])


class _Cumsum(ms.nn.Cell):
    def construct(self, x):
        return ms.ops.cumsum(x, 0)


def test_export_refuses_an_op_without_primitive_naming_the_line(tmp_path):
    with pytest.raises(ValueError, match=r"For 'export', the op \w+ \(at .*test_mindir_export\.py:\d+\)"):
        ms.export(_Cumsum(), ms.Tensor(np.ones((3, 2), np.float32)), file_name=str(tmp_path / "c"),
                  file_format="MINDIR")
    assert not os.path.exists(tmp_path / "c.mindir")


def test_export_enc_key_is_refused(tmp_path):
    net, inputs = mindir_models.MODELS["mlp"](ms)
    with pytest.raises(NotImplementedError, match=r"For 'export', 'enc_key' is not supported"):
        ms.export(net, ms.Tensor(inputs[0]), file_name=str(tmp_path / "m"), file_format="MINDIR", enc_key=b"0" * 16)


class Network(ms.nn.Cell):
    """MindSpore 2.10's save / load tutorial network, as the tutorial writes it."""

    def __init__(self):
        super().__init__()
        self.flatten = ms.nn.Flatten()
        self.dense_relu_sequential = ms.nn.SequentialCell(
            ms.nn.Dense(28 * 28, 512), ms.nn.ReLU(), ms.nn.Dense(512, 512), ms.nn.ReLU(), ms.nn.Dense(512, 10))

    def construct(self, x):
        x = self.flatten(x)
        logits = self.dense_relu_sequential(x)
        return logits


def test_save_load_tutorial_runs_with_the_import_changed(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    model = Network()
    inputs = ms.Tensor(np.ones([1, 1, 28, 28]).astype(np.float32))
    ms.export(model, inputs, file_name="model", file_format="MINDIR")
    mindir = ms.load("model.mindir")
    loaded_model = ms.nn.GraphCell(mindir)
    outputs = loaded_model(inputs)
    assert outputs.shape == (1, 10)
    _close(outputs.asnumpy(), model(inputs).asnumpy())


def test_every_primitive_written_is_read_back():
    """Each MindSpore primitive export/mindir_ops.py (and the writer itself) can emit has a
    pycompile op in the loader's table, so pycompile reads back any file it writes."""
    import inspect
    import re
    from pycompile.export import mindir, mindir_ops
    from pycompile.nn.graph_prims import PRIMITIVES
    src = inspect.getsource(mindir_ops) + inspect.getsource(mindir)
    written = set(re.findall(r'(?:return|call\() ?\(?"([A-Z][A-Za-z]+)"', src))
    written |= {name for name in re.findall(r'"([A-Z][A-Za-z]+)"', inspect.getsource(mindir_ops))
                if name not in ("NCHW", "VALID", "PRIMITIVE", "PRIMITIVE_FUNCTION")}
    assert {"MatMul", "Stack", "Zeros", "UnsortedSegmentSum", "MakeTuple", "Shape"} <= written
    assert sorted(written - set(PRIMITIVES)) == []


class _NLLLoss(ms.nn.Cell):
    def __init__(self, reduction):
        super().__init__()
        self.nllloss = ms.ops.operations.NLLLoss(reduction=reduction)

    def construct(self, x, t, w):
        return self.nllloss(x, t, w)


class _Grad(ms.nn.Cell):
    def __init__(self, forward, sens):
        super().__init__()
        self.forward, self.sens = forward, sens
        self.grad = ms.ops.composite.GradOperation(get_all=True, sens_param=True)

    def construct(self, x, t, w):
        return self.grad(self.forward)(x, t, w, self.sens)


@pytest.mark.parametrize("reduction", ["mean"])
def test_gradient_network_round_trip(reduction, tmp_path):
    """MindSpore's test_nllloss_op.py: a gradient network (Equal, Select, Gather's gradient as
    UnsortedSegmentSum, BroadcastTo) exported and run back as a GraphCell gives the gradient
    MindSpore expects (its test's numbers; the suite runs all three reductions in graph mode)."""
    x = ms.Tensor(np.array([[-1.3739, -2.2700, -3.2333, -2.4589, -0.6566], [-1.2156, -2.6026, -1.2200, -1.8731, -1.7119],
                            [-0.7130, -3.3672, -1.5368, -1.8289, -2.3058]], np.float32))
    t, w = ms.Tensor(np.array([1, 0, 4], np.int32)), ms.Tensor(np.array([0.2, 0.3, 0.1, 0.15, 0.25], np.float32))
    loss = _NLLLoss(reduction)
    out = loss(x, t, w)
    net = _Grad(loss, (out[0] + 0.5, out[1] + 0.5))
    path = ms.export(net, x, t, w, file_name=str(tmp_path / "nll"), file_format="MINDIR")
    dx = ms.nn.GraphCell(ms.load(path))(x, t, w)[0].asnumpy()
    want = {"none": [[0, -0.35430002, 0, 0, 0], [-0.148624, 0, 0, 0, 0], [0, 0, 0, 0, -0.2691125]],
            "mean": [[0, -1.0003041, 0, 0, 0], [-0.6668694, 0, 0, 0, 0], [0, 0, 0, 0, -0.8335867]]}[reduction]
    np.testing.assert_allclose(dx, np.array(want, np.float32), rtol=1e-4, atol=1e-4)


def test_tuple_outputs_carry_mindspores_abstract(tmp_path):
    """A LayerNorm node (it returns (y, mean, rstd)) records the same output abstract as MindSpore
    writes for it (its transformer.mindir), so the wheel's loader infers nothing and logs no error."""
    from pycompile.export import mindir_pb as pb

    def layer_norm_shapes(path):
        model = pb.ModelProto()
        with open(path, "rb") as f:
            model.ParseFromString(f.read())
        prims = {p.name: p.op_type for p in model.primitives}
        node = next(n for n in model.graph.node if prims.get(n.op_type[5:]) == "LayerNorm")
        a = next(a for a in node.attribute if a.name == "shape")
        return a.type, [(v.type, list(v.tensors[0].dims), v.tensors[0].data_type) for v in a.values]
    ours = layer_norm_shapes(_export("transformer", tmp_path)[2])
    assert ours == layer_norm_shapes(os.path.join(DATA, "transformer.mindir"))
    assert [dims for _, dims, _ in ours[1]] == [[2, 6, 16], [2, 6, 1], [2, 6, 1]]
