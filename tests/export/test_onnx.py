"""ONNX export (issue 36): pycompile -> ONNX file -> onnxruntime equals pycompile's own outputs,
graph mode and PyNative, for LeNet-5, an MLP, a ResNet basic block, a two-layer transformer encoder
and a two-layer LSTM;
dynamic batch / sequence dimensions; Parameter names as MindSpore writes them; an op with no
ONNX form names itself and the user's line."""
import os

import numpy as np
import pytest

import pycompile as ms
from pycompile.errors import CompileError

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

import onnx_models as models  # noqa: E402  (tests/export/onnx_models.py)

HERE = os.path.dirname(os.path.abspath(__file__))
MS_DENSE = os.path.join(HERE, "..", "oracle", "data", "export_mindspore_dense.onnx")


def _run_onnx(path, arrays):
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    return sess.run(None, {i.name: a for i, a in zip(sess.get_inputs(), arrays)})


def _outputs(net, arrays):
    out = net(*[ms.Tensor(a) for a in arrays])
    return [o.asnumpy() for o in (out if isinstance(out, tuple) else (out,))]


def _close(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", ["LeNet5", "MLP", "BasicBlock", "Encoder", "LSTM"])
def test_model_equals_pycompile_in_both_modes(name, tmp_path):
    net = models.build(name)
    xs = models.inputs(name)
    ms.export(net, *[ms.Tensor(a) for a in xs], file_name=str(tmp_path / name), file_format="ONNX")
    path = str(tmp_path / f"{name}.onnx")
    onnx.checker.check_model(onnx.load(path), full_check=True)
    got = _run_onnx(path, xs)
    _close(got, _outputs(net, xs))                  # PyNative
    ms.set_context(mode=ms.GRAPH_MODE)
    _close(got, _outputs(net, xs))                  # the compiled graph


RULE_MODELS = ["Layout", "Elementwise", "MoreMath", "IntOps"]


@pytest.mark.parametrize("name", RULE_MODELS)
def test_op_rules_equal_pynative(name, tmp_path):
    net = models.build(name)
    xs = models.inputs(name)
    ms.onnx.export(net, *[ms.Tensor(a) for a in xs], file_name=str(tmp_path / "m.onnx"))
    onnx.checker.check_model(onnx.load(str(tmp_path / "m.onnx")), full_check=True)
    _close(_run_onnx(str(tmp_path / "m.onnx"), xs), _outputs(net, xs))


def test_every_rule_is_checked_by_a_model():
    """Each op with an ONNX rule appears in a model the tests above run through onnxruntime."""
    from pycompile.compiler import ir
    from pycompile.compiler.frontend import trace
    from pycompile.export.onnx_ops import RULES
    from pycompile.ops.defs import backprop, effects
    seen = set()
    for name in ["LeNet5", "MLP", "BasicBlock", "Encoder", "LSTM"] + RULE_MODELS:
        net = models.build(name)
        args = tuple(ms.Tensor(a) for a in models.inputs(name))
        graph = trace(type(net).construct, args, {}, self_obj=net).graph
        seen |= {n.op for n in ir.iter_nodes(graph.body)}
    aliases = {effects.Depend, effects.TensorMove, backprop.StopGradient}   # written as their input
    assert sorted(op.name for op in set(RULES) - seen - aliases) == []


def test_file_holds_parameters_under_mindspore_names(tmp_path):
    net = models.build("LeNet5")
    ms.export(net, ms.Tensor(models.inputs("LeNet5")[0]), file_name=str(tmp_path / "lenet"), file_format="ONNX")
    m = onnx.load(str(tmp_path / "lenet.onnx"))
    assert [o.version for o in m.opset_import] == [17]
    inits = {t.name: onnx.numpy_helper.to_array(t) for t in m.graph.initializer}
    for p in net.get_parameters():
        np.testing.assert_array_equal(inits[p.name], p.asnumpy())
    assert [i.name for i in m.graph.input] == ["x"]
    assert [d.dim_value for d in m.graph.input[0].type.tensor_type.shape.dim] == [2, 1, 32, 32]
    docs = [n.doc_string for n in m.graph.node if n.doc_string]     # each node names its op and line
    assert any(d.startswith("Conv2D at onnx_models.py:") for d in docs)
    assert any(d.startswith("ReLU at ") for d in docs) and not any(os.sep + "work" in d for d in docs)
    # MindSpore 2.10's own file of a Dense layer names its input and initializers the same way
    ref = onnx.load(MS_DENSE)
    assert [i.name for i in ref.graph.input] == ["x"]
    assert sorted(t.name for t in ref.graph.initializer) == ["fc.bias", "fc.weight"]
    assert {"conv1.weight", "fc1.weight", "fc1.bias", "fc3.bias"} <= set(inits)


def test_inference_mode_while_exporting(tmp_path):
    net = models.build("BasicBlock")
    net.set_train(True)
    xs = models.inputs("BasicBlock")
    ms.onnx.export(net, ms.Tensor(xs[0]), file_name=str(tmp_path / "b"))
    assert net.training                             # restored afterwards
    net.set_train(False)
    _close(_run_onnx(str(tmp_path / "b.onnx"), xs), _outputs(net, xs))


def test_dynamic_batch_from_dynamic_axes(tmp_path):
    net = models.build("LeNet5")
    ms.onnx.export(net, ms.Tensor(models.inputs("LeNet5")[0]), file_name=str(tmp_path / "l"),
                   input_names=["image"], output_names=["logits"], dynamic_axes={"image": {0: "N"}})
    m = onnx.load(str(tmp_path / "l.onnx"))
    assert m.graph.input[0].name == "image" and m.graph.output[0].name == "logits"
    assert m.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "N"
    assert m.graph.output[0].type.tensor_type.shape.dim[0].dim_param == "N"
    for batch in (1, 3):
        xs = models.inputs("LeNet5", batch=batch, seed=batch)
        _close(_run_onnx(str(tmp_path / "l.onnx"), xs), _outputs(net, xs))


def test_number_arguments_are_constants(tmp_path):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    ms.onnx.export(models.build("Scaled"), 3, ms.Tensor(x), file_name=str(tmp_path / "s"), dynamic_axes={"x": [0]})
    assert [i.name for i in onnx.load(str(tmp_path / "s.onnx")).graph.input] == ["x"]
    np.testing.assert_array_equal(_run_onnx(str(tmp_path / "s.onnx"), [x])[0], x * 3)


def test_dynamic_axes_of_no_input_or_axis(tmp_path):
    x = ms.Tensor(models.inputs("LeNet5")[0])
    with pytest.raises(ValueError, match=r"dynamic_axes names \['image'\], which are not inputs: the inputs "
                                         r"are \['x'\]"):
        ms.onnx.export(models.build("LeNet5"), x, file_name=str(tmp_path / "l"), dynamic_axes={"image": [0]})
    with pytest.raises(ValueError, match="dynamic_axes of input 'x' names axis 4, but the input has 4 dimensions"):
        ms.onnx.export(models.build("LeNet5"), x, file_name=str(tmp_path / "l"), dynamic_axes={"x": [4]})
    assert os.listdir(tmp_path) == []


def test_dynamic_batch_and_sequence_from_none_dims(tmp_path):
    net = models.build("Encoder")
    ms.onnx.export(net, ms.Tensor(shape=[None, None], dtype=ms.int32), file_name=str(tmp_path / "e"))
    for batch, seq in ((1, 7), (3, 2)):
        ids = np.random.default_rng(batch).integers(0, 20, (batch, seq)).astype(np.int32)
        _close(_run_onnx(str(tmp_path / "e.onnx"), [ids]), _outputs(net, [ids]))


def test_lstm_dynamic_batch_but_not_sequence(tmp_path):
    net = models.build("LSTM")
    x = ms.Tensor(models.inputs("LSTM")[0])
    ms.onnx.export(net, x, file_name=str(tmp_path / "r"), dynamic_axes={"x": [0]})
    xs = models.inputs("LSTM", batch=3, seed=3)
    _close(_run_onnx(str(tmp_path / "r.onnx"), xs), _outputs(net, xs))
    with pytest.raises(CompileError, match="a loop whose trip count depends on a dynamic dimension"):
        ms.onnx.export(net, x, file_name=str(tmp_path / "t"), dynamic_axes={"x": {1: "T"}})


def test_number_from_a_dynamic_dimension_is_refused(tmp_path):
    with pytest.raises(CompileError, match="a number computed from a dynamic dimension") as info:
        ms.onnx.export(models.build("BatchMean"), ms.Tensor(shape=[None, 3], dtype=ms.float32),
                       file_name=str(tmp_path / "m"))
    assert "return x.sum(axis=0) / x.shape[0]" in str(info.value)
    ms.onnx.export(models.build("BatchMean"), ms.Tensor(np.ones((4, 3), np.float32)), file_name=str(tmp_path / "s"))
    xs = [np.arange(12, dtype=np.float32).reshape(4, 3)]
    _close(_run_onnx(str(tmp_path / "s.onnx"), xs), _outputs(models.build("BatchMean"), xs))


def test_ms_export_refuses_dynamic_inputs_as_mindspore(tmp_path):
    with pytest.raises(ValueError, match="^Export ONNX format model not support dynamic shape mode.$"):
        ms.export(models.build("MLP"), ms.Tensor(shape=[None, 8], dtype=ms.float32),
                  file_name=str(tmp_path / "m"), file_format="ONNX")


def test_enc_mode_function_encrypts_the_file(tmp_path):
    net = models.build("MLP")
    x = ms.Tensor(models.inputs("MLP")[0])
    ms.export(net, x, file_name=str(tmp_path / "plain"), file_format="ONNX")
    ms.export(net, x, file_name=str(tmp_path / "enc"), file_format="ONNX", enc_key=b"k" * 16,
              enc_mode=lambda data, key: bytes(b ^ key[0] for b in data))
    plain = (tmp_path / "plain.onnx").read_bytes()
    assert bytes(b ^ ord("k") for b in (tmp_path / "enc.onnx").read_bytes()) == plain


@pytest.mark.parametrize("name, op, line_text", [
    ("Unsupported", "op 'CumProd'", "return ops.cumprod(y, dim=0)"),
    ("WhileLoop", "control flow 'While'", "x = x + 1"),
])
def test_op_without_onnx_form_names_it_and_the_line(name, op, line_text, tmp_path):
    with pytest.raises(CompileError) as info:
        ms.onnx.export(models.build(name), ms.Tensor(np.ones((2, 3), np.float32)), file_name=str(tmp_path / "u"))
    msg = str(info.value)
    assert f"cannot export to ONNX: {op} has no ONNX mapping" in msg
    assert "onnx_models.py:" in msg and line_text in msg
    assert "pycompile/export" not in msg and not (tmp_path / "u.onnx").exists()


CLI_MODEL = '''
import pycompile as ms
from pycompile import nn


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 3, weight_init="ones", bias_init="zeros")
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.relu(self.fc(x))


@ms.jit
def double(x):
    return x * 2
'''


def test_cli_emits_onnx_for_cells(tmp_path, capsys):
    from pycompile import cli
    model = tmp_path / "model.py"
    model.write_text(CLI_MODEL)
    out = tmp_path / "out"
    code = cli.main([str(model), "--input", "x=float32[2,4]", "--emit", "onnx", "-o", str(out), "-q"])
    assert code == 1                                # the @jit function has no ONNX file
    assert "entry double: --emit: onnx applies to Cells" in capsys.readouterr().err
    assert sorted(os.listdir(out)) == ["Net.onnx"]
    got = _run_onnx(str(out / "Net.onnx"), [np.ones((2, 4), np.float32)])
    np.testing.assert_array_equal(got[0], np.full((2, 3), 4, np.float32))


def test_past_protobufs_limit(tmp_path, monkeypatch):
    """ms.export refuses a network past 2 GB with MindSpore's RuntimeError; ms.onnx.export keeps its
    Parameters in a side file (the limit lowered here: no test builds a 2 GB network)."""
    from pycompile.export import onnx as onnx_export
    net = models.build("MLP")
    xs = models.inputs("MLP")
    monkeypatch.setattr(onnx_export, "PROTO_LIMIT_KB", 1)
    with pytest.raises(RuntimeError, match=r"^Export onnx model failed. Network size is: [0-9.e-]+G, it exceeded "
                                           r"the protobuf: [0-9.e-]+G limit.$"):
        ms.export(net, ms.Tensor(xs[0]), file_name=str(tmp_path / "m"), file_format="ONNX")
    ms.onnx.export(net, ms.Tensor(xs[0]), file_name=str(tmp_path / "big"))
    assert sorted(os.listdir(tmp_path)) == ["big.onnx", "big.onnx.data"]
    inits = onnx.load(str(tmp_path / "big.onnx"), load_external_data=False).graph.initializer
    assert all(t.data_location == onnx.TensorProto.EXTERNAL for t in inits)
    _close(_run_onnx(str(tmp_path / "big.onnx"), xs), _outputs(net, xs))


@pytest.mark.parametrize("keep, params", [(True, True), (False, False)])
def test_initializers_as_inputs(keep, params, tmp_path):
    net = models.build("MLP")
    xs = models.inputs("MLP")
    ms.onnx.export(net, ms.Tensor(xs[0]), file_name=str(tmp_path / "m"), keep_initializers_as_inputs=keep,
                   export_params=params)
    m = onnx.load(str(tmp_path / "m.onnx"))
    names = [p.name for p in net.get_parameters()]
    assert [i.name for i in m.graph.input] == ["x"] + names
    assert {t.name for t in m.graph.initializer} >= set(names) if params else not set(names) & {
        t.name for t in m.graph.initializer}
    feeds = [xs[0]] + ([] if params else [p.asnumpy() for p in net.get_parameters()])
    _close(_run_onnx(str(tmp_path / "m.onnx"), feeds), _outputs(net, xs))


def test_the_guide_lists_every_rule():
    import re
    from pycompile.export.onnx_ops import RULES
    with open(os.path.join(HERE, "..", "..", "docs", "guide", "export.md"), encoding="utf-8") as f:
        guide = f.read()
    section = guide[guide.index("### Mapped ops"):guide.index("Not written:")]
    assert f"### Mapped ops ({len(RULES)};" in section
    assert [op.name for op in RULES if not re.search(rf"\b{op.name}\b", section)] == []
