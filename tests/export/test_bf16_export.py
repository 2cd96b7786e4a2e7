"""bfloat16 in exported files: MindSpore 2.10's own MINDIR of a bfloat16 cast (recorded with
tests/oracle/record_mindir_bf16.py) loads and runs here; pycompile's MINDIR of a to_float(bfloat16)
network uses the wheel's bfloat16 numbers and loads back to the same values; its ONNX file passes
onnx's checker and onnx's reference evaluator computes what pycompile computes."""
import os

import ml_dtypes
import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, nn
from pycompile.export import mindir_pb as pb

DATA = os.path.join(os.path.dirname(__file__), "..", "oracle", "data", "mindir")
BF = np.dtype(ml_dtypes.bfloat16)


def _bf(a):
    return np.asarray(a, np.float32).astype(BF).astype(np.float32)


def _net():
    ms.set_seed(0)
    net = nn.SequentialCell([nn.Dense(4, 3), nn.ReLU()])
    net.to_float(ms.bfloat16)
    return net


def _x():
    return Tensor(np.random.default_rng(0).standard_normal((2, 4)).astype(np.float32))


def _model(path):
    m = pb.ModelProto()
    with open(path, "rb") as f:
        m.ParseFromString(f.read())
    return m


def _casts_and_types(m):
    """The Cast nodes' dst_type TypeIds and the TensorProto data types of every node's value."""
    consts = {n.output[0]: n for n in m.graph.node if n.op_type == "Constant"}
    ids, types = [], set()
    for n in m.graph.node:
        for a in n.attribute:
            if a.name == "shape":
                types |= {t.data_type for t in a.tensors}
        if "Cast" in n.op_type:
            c = consts.get(n.input[1])
            ids.append(c.attribute[0].i if c is not None else None)
    return ids, types


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_the_wheel_s_bfloat16_mindir_runs(mode):
    ms.set_context(mode=mode)
    path = os.path.join(DATA, "bf16_cast.mindir")
    ids, types = _casts_and_types(_model(path))
    assert ids == [45, 43] and 16 in types          # MindSpore's TypeId and TensorProto type of bfloat16
    x = np.array([[1.5, 2.3, -0.7], [1e-3, 3.0e5, -2.5]], np.float32)
    got = nn.GraphCell(ms.load(path))(Tensor(x))
    assert got.dtype == ms.float32
    np.testing.assert_array_equal(got.asnumpy(), _bf(_bf(x) * 2))


def test_pycompile_s_bfloat16_mindir_round_trips(tmp_path):
    net, x = _net(), _x()
    want = net(x)
    path = str(tmp_path / "m")
    ms.export(net, x, file_name=path, file_format="MINDIR")
    ids, types = _casts_and_types(_model(path + ".mindir"))
    assert 45 in ids and 16 in types
    got = nn.GraphCell(ms.load(path + ".mindir"))(x)
    assert got.dtype == want.dtype == ms.bfloat16
    np.testing.assert_array_equal(got.asnumpy().astype(np.float32), want.asnumpy().astype(np.float32))


def test_bfloat16_onnx_checks_and_evaluates(tmp_path):
    import onnx                              # the `onnx` extra (the test extra has it)
    from onnx.reference import ReferenceEvaluator
    net, x = _net(), _x()
    want = net(x).asnumpy().astype(np.float32)
    path = str(tmp_path / "m.onnx")
    ms.onnx.export(net, x, file_name=path)
    model = onnx.load(path)
    onnx.checker.check_model(model, full_check=True)
    got = ReferenceEvaluator(model).run(None, {model.graph.input[0].name: x.asnumpy()})[0]
    assert got.dtype == BF
    np.testing.assert_allclose(got.astype(np.float32), want, rtol=2 ** -7, atol=1e-6)
