"""ms.export(..., file_format="MINDIR") with a dynamic batch (an input Tensor(shape=[None, ...])):
the dimension is -1 in the file, as MindSpore 2.10 writes it, and the file runs at any batch.

tests/export/write_mindir_exports.py wrote pycompile_NAME_dyn.mindir and the outputs of the net
at batch 1 and 3; tests/oracle/record_mindir.py check-export ran each in the wheel. MindSpore's
own dynamic exports (NAME_dyn.mindir, record_mindir.py export) give the structure to compare.
"""
import json
import os
import sys

import numpy as np
import pytest

import pycompile as ms
from pycompile.export import mindir_pb as pb

HERE = os.path.dirname(os.path.abspath(__file__))
ORACLE = os.path.join(HERE, "..", "oracle")
DATA = os.path.join(ORACLE, "data", "mindir")
sys.path.insert(0, ORACLE)
import mindir_models  # noqa: E402

with open(os.path.join(DATA, "pycompile_export_in_mindspore.json")) as _f:
    IN_MINDSPORE = json.load(_f)["dynamic_batch"]
with open(os.path.join(DATA, "pycompile_outputs.json")) as _f:
    OURS = json.load(_f)


def _close(got, want):
    want = np.asarray(want)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * max(1.0, np.abs(want).max()))


def _export_dynamic(name, tmp_path):
    net, inputs = mindir_models.MODELS[name](ms)
    shape = [None] + list(inputs[0].shape[1:])
    path = ms.export(net, ms.Tensor(shape=shape, dtype=ms.float32), file_name=str(tmp_path / name),
                     file_format="MINDIR")
    return net, path


def _model(path):
    model = pb.ModelProto()
    with open(path, "rb") as f:
        model.ParseFromString(f.read())
    return model


@pytest.mark.parametrize("name", mindir_models.DYNAMIC_EXPORT_MODELS)
def test_dynamic_batch_file_runs_in_mindspore_at_each_batch(name, tmp_path):
    net, path = _export_dynamic(name, tmp_path)
    with open(path, "rb") as f, open(os.path.join(DATA, f"pycompile_{name}_dyn.mindir"), "rb") as g:
        assert f.read() == g.read(), ("export's bytes changed: rerun tests/export/write_mindir_exports.py, then "
                                      "tests/oracle/record_mindir.py check-export in MindSpore's venv")
    recorded = IN_MINDSPORE[name]
    assert "error" not in recorded, recorded
    for batch, case in OURS[name + "_dyn"].items():
        _close(net(ms.Tensor(np.asarray(case["input"], np.float32))).asnumpy(), recorded["outputs"][batch])


@pytest.mark.parametrize("name, mode", [("lenet", "PYNATIVE_MODE"), ("encoder2", "PYNATIVE_MODE"),
                                        ("lstm", "PYNATIVE_MODE"), ("mlp", "GRAPH_MODE")])      # each batch size compiles: the MLP's fastest
def test_dynamic_batch_file_loads_back_at_each_batch(name, mode, tmp_path):
    net, path = _export_dynamic(name, tmp_path)
    ms.set_context(mode=getattr(ms, mode))
    graph = ms.load(path)
    assert graph.inputs[0][1][0] == -1
    cell = ms.nn.GraphCell(graph)
    for batch, case in OURS[name + "_dyn"].items():
        x = ms.Tensor(np.asarray(case["input"], np.float32))
        assert x.shape[0] == int(batch)
        _close(cell(x).asnumpy(), IN_MINDSPORE[name]["outputs"][batch])


@pytest.mark.parametrize("name", mindir_models.DYNAMIC_MODELS)
def test_dynamic_structure_is_mindspores(name, tmp_path):
    """Input and output dims equal those of MindSpore's own dynamic export of the same net; every
    node's recorded shape has -1 for the batch (no trace-time sample size leaks into the file)."""
    _, path = _export_dynamic(name, tmp_path)
    ours, theirs = _model(path), _model(os.path.join(DATA, f"{name}_dyn.mindir"))

    def dims(values):
        return [list(v.tensor[0].dims) for v in values]
    assert dims(ours.graph.input) == dims(theirs.graph.input)
    assert dims(ours.graph.output) == dims(theirs.graph.output)
    shapes = [list(t.dims) for n in ours.graph.node for a in n.attribute if a.name == "shape" for t in a.tensors]
    batched = [s for s in shapes if len(s) > 1 and s[1:] != [8] and s[0] != 1]
    assert batched and all(s[0] == -1 for s in batched), shapes
    reshapes = [n for n in ours.graph.node if n.op_type.startswith("REF::Reshape")]
    for n in reshapes:           # the flatten keeps the batch as -1 (Reshape infers it)
        const = next(c for c in ours.graph.node if c.output[:1] == [n.input[1]])
        assert [v.ints[0] for v in const.attribute[0].values][0] in (-1, 1)


def test_lstm_zero_state_is_sized_at_run_time_as_mindspore_writes_it(tmp_path):
    """The LSTM's zero initial state follows the batch: Zeros(MakeTuple(TupleGetItem(Shape(x), 0),
    16), float32), the form of MindSpore's own dynamic export of nn.LSTM (recorded above: MindSpore
    ran the file at batch 1 and 3)."""
    _, path = _export_dynamic("lstm", tmp_path)
    model = _model(path)
    prims = {p.name: p.op_type for p in model.primitives}
    ops_used = [prims.get(n.op_type[5:]) for n in model.graph.node if n.op_type.startswith("REF::")]
    assert ops_used.count("Shape") == 1 and "Zeros" in ops_used
    zeros = [n for n in model.graph.node if prims.get(n.op_type[5:]) == "Zeros"]
    assert [list(a.tensors[0].dims) for n in zeros for a in n.attribute if a.name == "shape"][0] == [-1, 16]


class _ArangeBatch(ms.nn.Cell):
    def construct(self, x):
        return x * ms.Tensor(np.arange(x.shape[0] * 4, dtype=np.float32).reshape(-1, 4))


def test_constant_built_from_the_batch_is_refused_naming_the_line(tmp_path):
    with pytest.raises(ValueError, match=r"For 'export', Mul reads a constant of shape \(\d+, 4\) that depends on a "
                                         r"dynamic dimension .*test_mindir_dynamic\.py:\d+"):
        ms.export(_ArangeBatch(), ms.Tensor(shape=[None, 4], dtype=ms.float32), file_name=str(tmp_path / "a"),
                  file_format="MINDIR")
    assert not os.path.exists(tmp_path / "a.mindir")


class _HalfBatch(ms.nn.Cell):
    def construct(self, x):
        return x[:x.shape[0] // 2] * 2.0


def test_setting_that_depends_on_the_batch_is_refused(tmp_path):
    with pytest.raises(ValueError, match=r"For 'export', StridedSlice whose settings depend on a dynamic "
                                         r"dimension \(at .*test_mindir_dynamic\.py:\d+\)"):
        ms.export(_HalfBatch(), ms.Tensor(shape=[None, 4], dtype=ms.float32), file_name=str(tmp_path / "s"),
                  file_format="MINDIR")
