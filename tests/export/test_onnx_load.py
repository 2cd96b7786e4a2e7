"""pycompile.onnx.load: ONNX files as nn.GraphCell. pycompile's ONNX export of each test model
(together they hold every op the writer emits), loaded back, equals onnxruntime on the same file
(the oracle: pycompile's own outputs are not used), in PyNative and graph mode; dynamic axes run
at other sizes; MindSpore 2.10's opset-11 file loads; bad files name the file and the node."""
import os

import numpy as np
import pytest

import pycompile as ms
from pycompile.nn.graph_prims import GraphLoadError

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

import onnx_models as models  # noqa: E402  (tests/export/onnx_models.py)

HERE = os.path.dirname(os.path.abspath(__file__))
MS_DENSE = os.path.join(HERE, "..", "oracle", "data", "export_mindspore_dense.onnx")
ALL = ["LeNet5", "MLP", "BasicBlock", "Encoder", "LSTM", "Layout", "Elementwise", "MoreMath", "IntOps"]


def _ort(path, arrays):
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    return sess.run(None, {i.name: a for i, a in zip(sess.get_inputs(), arrays)})


def _run(cell, arrays):
    out = cell(*[ms.Tensor(a) for a in arrays])
    return [o.asnumpy() for o in (out if isinstance(out, tuple) else (out,))]


def _close(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, w.shape, g.dtype, w.dtype)
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


def _export(name, tmp_path, **kwargs):
    path = str(tmp_path / f"{name}.onnx")
    ms.onnx.export(models.build(name), *[ms.Tensor(a) for a in models.inputs(name)], file_name=path, **kwargs)
    return path


@pytest.mark.parametrize("mode, name", [("PYNATIVE_MODE", n) for n in ALL] +
                         [("GRAPH_MODE", "LeNet5")])
def test_loaded_file_equals_onnxruntime(name, mode, tmp_path):
    path = _export(name, tmp_path)
    xs = models.inputs(name)
    ms.set_context(mode=getattr(ms, mode))
    cell = ms.onnx.load(path)
    _close(_run(cell, xs), _ort(path, xs))


def test_every_op_the_writer_emits_is_read(tmp_path):
    from pycompile.nn.onnx_prims import OPS
    emitted = set()
    for name in ALL:
        emitted |= {n.op_type for n in onnx.load(_export(name, tmp_path)).graph.node}
    assert sorted(emitted - set(OPS)) == []


def test_parameters_keep_their_names(tmp_path):
    cell = ms.onnx.load(_export("LeNet5", tmp_path))
    names = [n for n, _ in cell.parameters_and_names()]
    assert {"conv1.weight", "fc1.weight", "fc3.bias"} <= set(names)


@pytest.mark.parametrize("name, axes", [("Encoder", {"ids": {0: "N", 1: "T"}}), ("LSTM", {"x": {0: "N"}})])
def test_dynamic_axes_run_at_other_sizes(name, axes, tmp_path):
    path = _export(name, tmp_path, dynamic_axes=axes)
    cell = ms.onnx.load(path)
    assert -1 in cell._graph.inputs[0][1]
    for batch in (1, 3):
        xs = models.inputs(name, batch=batch, seed=batch)
        _close(_run(cell, xs), _ort(path, xs))


def test_mindspore_file_opset_11():
    cell = ms.onnx.load(MS_DENSE)
    assert [n for n, _ in cell.parameters_and_names()] == ["fc.weight", "fc.bias"]
    x = np.random.RandomState(0).standard_normal((2, 4)).astype(np.float32)
    _close(_run(cell, [x]), _ort(MS_DENSE, [x]))


def _edited(tmp_path, edit, name="MLP"):
    model = onnx.load(_export(name, tmp_path))
    edit(model)
    path = str(tmp_path / "edited.onnx")
    with open(path, "wb") as f:
        f.write(model.SerializeToString())
    return path


def _first(model, op):
    return next(n for n in model.graph.node if n.op_type == op)


@pytest.mark.parametrize("case, edit, pattern", [
    ("opset", lambda m: m.opset_import[0].__setattr__("version", 99), r"ONNX opset 99; pycompile reads opsets 11 to 21"),
    ("domain", lambda m: m.opset_import.add(domain="com.microsoft", version=1), r"the model imports the operator set domain 'com\.microsoft'"),
    ("op", lambda m: _first(m, "Tanh").__setattr__("op_type", "FancyTanh"), r"node 'Tanh\w*' is the op FancyTanh"),
    ("undefined", lambda m: _first(m, "Tanh").input.__setitem__(0, "nowhere"), r"node 'Tanh\w*' \(Tanh\) reads 'nowhere'"),
    ("short", lambda m: m.graph.initializer[0].__setattr__("raw_data", m.graph.initializer[0].raw_data[:10]),
     r"initializer '[\w.]+' cannot be read"),
])
def test_bad_files_name_file_and_node(case, edit, pattern, tmp_path):
    path = _edited(tmp_path, edit)
    with pytest.raises(GraphLoadError, match=r"Load ONNX failed\. .*edited\.onnx: " + pattern):
        ms.onnx.load(path)


@pytest.mark.parametrize("data", [b"", b"hello\n", "cut"])
def test_not_onnx_or_truncated(data, tmp_path):
    if data == "cut":
        with open(_export("MLP", tmp_path), "rb") as f:
            data = f.read()[:200]
    path = str(tmp_path / "bad.onnx")
    with open(path, "wb") as f:
        f.write(data)
    with pytest.raises(GraphLoadError, match=r"Load ONNX failed\. .*bad\.onnx: not an ONNX file"):
        ms.onnx.load(path)


def test_unsupported_attribute_names_file_and_node(tmp_path):
    path = _edited(tmp_path, lambda m: _first(m, "Conv").attribute.add(name="auto_pad", s=b"SAME_UPPER", type=3),
                   name="LeNet5")
    cell = ms.onnx.load(path)
    with pytest.raises(ValueError, match=r"edited\.onnx: node 'Conv\w*' \(Conv\): pycompile does not run auto_pad"):
        cell(ms.Tensor(models.inputs("LeNet5")[0]))


def test_cli_compiles_an_onnx_file(tmp_path):
    from pycompile import cli
    path = _export("MLP", tmp_path)
    out = str(tmp_path / "out")
    assert cli.main([path, "--emit", "ir", "-o", out, "-q"]) == 0
    assert any(f.endswith(".ir") or "ir" in f for f in os.listdir(out)), os.listdir(out)


def test_damaged_files_give_clear_errors(tmp_path):
    """Prefix cuts and 60 seeded byte flips of the MLP's file: each is refused with "Load ONNX
    failed." naming the file, or loads and then runs or raises a ValueError / TypeError /
    RuntimeError of the op (never a KeyError, IndexError or AttributeError from the reader)."""
    with open(_export("MLP", tmp_path), "rb") as f:
        blob = f.read()
    rng = np.random.RandomState(0)
    damaged = [blob[:n] for n in range(0, len(blob), len(blob) // 30)]
    for _ in range(60):
        b = bytearray(blob)
        for pos in rng.randint(0, len(b), size=rng.randint(1, 4)):
            b[pos] = rng.randint(0, 256)
        damaged.append(bytes(b))
    path = str(tmp_path / "damaged.onnx")
    x = ms.Tensor(models.inputs("MLP")[0])
    outcomes = {"refused": 0, "ran": 0, "run_error": 0}
    for data in damaged:
        with open(path, "wb") as f:
            f.write(data)
        try:
            cell = ms.onnx.load(path)
        except GraphLoadError as e:
            assert str(e).startswith("Load ONNX failed.") and path in str(e), str(e)
            outcomes["refused"] += 1
            continue
        try:
            cell(x)
            outcomes["ran"] += 1
        except (RuntimeError, ValueError, TypeError) as e:
            assert not isinstance(e, (KeyError, IndexError, AttributeError)), repr(e)
            outcomes["run_error"] += 1
    assert outcomes["refused"] > 0 and outcomes["ran"] > 0, outcomes
