"""ms.load + nn.GraphCell on MINDIR files written by MindSpore 2.10 (tests/oracle/record_mindir.py
exported them with the wheel and recorded the wheel's outputs and its load errors)."""
import json
import os

import numpy as np
import pytest

import pycompile as ms
from pycompile.export import mindir_pb as pb

DATA = os.path.join(os.path.dirname(__file__), "..", "oracle", "data", "mindir")
with open(os.path.join(DATA, "mindspore_outputs.json")) as _f:
    _ALL = json.load(_f)
    RECORDED, DYNAMIC = _ALL["models"], _ALL["dynamic_batch"]
with open(os.path.join(DATA, "load_errors.json")) as _f:
    ERRORS = json.load(_f)["cases"]


def _close(got, want):
    want = np.asarray(want)
    assert got.shape == want.shape
    # 1e-5 relative to the output's scale (LeNet's logits reach ~400 with these weights)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * max(1.0, np.abs(want).max()))


@pytest.mark.parametrize("mode", ["PYNATIVE_MODE", "GRAPH_MODE"])
@pytest.mark.parametrize("name", sorted(RECORDED))
def test_graphcell_equals_mindspore(name, mode):
    ms.set_context(mode=getattr(ms, mode))
    cell = ms.nn.GraphCell(ms.load(os.path.join(DATA, name + ".mindir")))
    inputs = [ms.Tensor(np.asarray(x, np.float32)) for x in RECORDED[name]["inputs"]]
    _close(cell(*inputs).asnumpy(), RECORDED[name]["graphcell_output"])


@pytest.mark.parametrize("mode", ["PYNATIVE_MODE", "GRAPH_MODE"])
def test_dynamic_batch_file_runs_at_each_batch_size(mode):
    """MindSpore exported LeNet-5 with a None batch dimension (-1 in the file): any batch runs."""
    ms.set_context(mode=getattr(ms, mode))
    graph = ms.load(os.path.join(DATA, "lenet_dyn.mindir"))
    assert graph.inputs[0][1] == (-1, 1, 32, 32)
    cell = ms.nn.GraphCell(graph)
    for batch, case in DYNAMIC["lenet"].items():
        x = ms.Tensor(np.asarray(case["input"], np.float32))
        assert x.shape[0] == int(batch)
        _close(cell(x).asnumpy(), case["output"])


def test_graphcell_parameters_keep_mindspore_names():
    cell = ms.nn.GraphCell(ms.load(os.path.join(DATA, "mlp.mindir")))
    assert [n for n, _ in cell.parameters_and_names()] == ["d1.weight", "d1.bias", "d2.weight", "d2.bias"]


def _error_case_files(tmp_path):
    with open(os.path.join(DATA, "mlp.mindir"), "rb") as f:
        blob = f.read()
    files = {"truncated": blob[:3000], "text": b"hello\n", "empty": b""}
    paths = {}
    for case, data in files.items():
        paths[case] = str(tmp_path / f"{case}.mindir")
        with open(paths[case], "wb") as f:
            f.write(data)
    return {"missing": "nonexistent.mindir", "extension": "model.txt", "not_a_string": 3, **paths}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_load_errors_as_mindspore(case, tmp_path):
    arg = _error_case_files(tmp_path)[case]
    want = ERRORS[case]["error"]
    with pytest.raises(Exception) as info:
        ms.load(arg)
    first = str(info.value).splitlines()[0]
    assert type(info.value).__name__ == want["type"] or want["type"] in [c.__name__ for c in type(info.value).__mro__]
    if want["message_first_line"] == "Load MindIR failed.":
        # MindSpore says only that; pycompile names the file and what is wrong after the same words
        assert first.startswith("Load MindIR failed.") and arg in first, first
    else:
        assert first == want["message_first_line"]


def _rewrite(src, dst, edit):
    model = pb.ModelProto()
    with open(src, "rb") as f:
        model.ParseFromString(f.read())
    edit(model)
    with open(dst, "wb") as f:
        f.write(model.SerializeToString())


def test_unknown_primitive_names_primitive_and_file(tmp_path):
    dst = str(tmp_path / "odd.mindir")

    def rename_relu(model):
        for p in model.primitives:
            if p.op_type == "ReLU":
                p.op_type = "FancyReLU"
    _rewrite(os.path.join(DATA, "mlp.mindir"), dst, rename_relu)
    with pytest.raises(RuntimeError, match=r"odd\.mindir.*FancyReLU"):
        ms.load(dst)


def test_parameter_with_short_data_names_file_and_tensor(tmp_path):
    dst = str(tmp_path / "short.mindir")

    def cut(model):
        model.graph.parameter[0].raw_data = model.graph.parameter[0].raw_data[:10]
    _rewrite(os.path.join(DATA, "mlp.mindir"), dst, cut)
    with pytest.raises(RuntimeError, match=r"short\.mindir.*d1\.weight.*holds 10"):
        ms.load(dst)


def test_wrong_input_shape_is_a_clear_error():
    cell = ms.nn.GraphCell(ms.load(os.path.join(DATA, "mlp.mindir")))
    with pytest.raises(ValueError, match=r"mlp\.mindir.*must have shape \(4, 16\), but got \(3, 16\)"):
        cell(ms.Tensor(np.ones((3, 16), np.float32)))


def test_params_init_replaces_weights():
    graph = ms.load(os.path.join(DATA, "mlp.mindir"))
    zeros = {n: ms.Tensor(np.zeros(a.shape, np.float32)) for n, a in graph.parameters.values()}
    out = ms.nn.GraphCell(graph, params_init=zeros)(ms.Tensor(np.ones((4, 16), np.float32)))
    assert not out.asnumpy().any()
    with pytest.raises(ValueError, match=r"'d1\.bias' shape \(3,\), but the graph's parameter has shape \(32,\)"):
        ms.nn.GraphCell(graph, params_init={"d1.bias": ms.Tensor(np.zeros(3, np.float32))})


def test_damaged_files_give_clear_errors(tmp_path):
    """Every prefix cut and 150 seeded byte flips of a MindSpore file: ms.load either reads it or
    raises 'Load MindIR failed.' naming the file; a GraphCell built from what loads runs or
    raises a Python error (no crash, no KeyError / AttributeError from inside the reader)."""
    with open(os.path.join(DATA, "mlp.mindir"), "rb") as f:
        blob = f.read()
    rng = np.random.RandomState(0)
    damaged = [blob[:n] for n in range(0, len(blob), 97)]
    for _ in range(150):
        b = bytearray(blob)
        for pos in rng.randint(0, len(b), size=rng.randint(1, 4)):
            b[pos] = rng.randint(0, 256)
        damaged.append(bytes(b))
    path = str(tmp_path / "damaged.mindir")
    x = ms.Tensor(np.ones((4, 16), np.float32))
    outcomes = {"refused": 0, "ran": 0, "run_error": 0}
    for data in damaged:
        with open(path, "wb") as f:
            f.write(data)
        try:
            graph = ms.load(path)
        except RuntimeError as e:
            assert str(e).startswith("Load MindIR failed.") and path in str(e), str(e)
            outcomes["refused"] += 1
            continue
        try:
            ms.nn.GraphCell(graph)(x)
            outcomes["ran"] += 1
        except (RuntimeError, ValueError, TypeError) as e:
            assert not isinstance(e, (KeyError, AttributeError)), repr(e)
            outcomes["run_error"] += 1
    assert outcomes["refused"] > 0 and outcomes["ran"] > 0, outcomes


def test_graphcell_inside_a_compiled_cell():
    """A GraphCell used as a layer of a user Cell compiles with it (GRAPH_MODE)."""
    class Wrap(ms.nn.Cell):
        def __init__(self, graph):
            super().__init__()
            self.loaded = ms.nn.GraphCell(graph)

        def construct(self, x):
            return self.loaded(x) * 2.0

    ms.set_context(mode=ms.GRAPH_MODE)
    net = Wrap(ms.load(os.path.join(DATA, "mlp.mindir")))
    x = ms.Tensor(np.asarray(RECORDED["mlp"]["inputs"][0], np.float32))
    _close(net(x).asnumpy(), 2 * np.asarray(RECORDED["mlp"]["graphcell_output"]))


def test_call_of_a_subgraph_is_refused_naming_it(tmp_path):
    dst = str(tmp_path / "sub.mindir")

    def call_subgraph(model):
        model.functions.add(name="body_7")
        relu = next(n for n in model.graph.node if "ReLU" in n.op_type)
        relu.op_type = "REF::body_7"
    _rewrite(os.path.join(DATA, "mlp.mindir"), dst, call_subgraph)
    with pytest.raises(RuntimeError, match=r"Load MindIR failed\..*sub\.mindir.*subgraph 'body_7'"):
        ms.load(dst)
