"""A bool holding a byte other than 0 and 1 (np.uint8(2) viewed as bool, a checkpoint's Bool
entry) is normalised where it enters a Tensor, so compiled kernels, which read the byte, agree
with PyNative (reliability issue 31, item 4): before, compiled astype(int32) gave 2 and
logical_not gave True for such a True."""
import numpy as np

import pycompile as ms
from pycompile import Parameter, Tensor, nn, ops
from pycompile.train import serialization

RAW = np.array([0, 1, 2, 255, 128, 0], np.uint8)
WANT_INT = [0, 1, 1, 1, 1, 0]
WANT_NOT = [True, False, False, False, False, True]


@ms.jit
def as_int(x):
    return x.astype(ms.int32)


@ms.jit
def negate(x):
    return ops.logical_not(x)


def _check(t):
    assert as_int(t).asnumpy().tolist() == WANT_INT
    assert negate(t).asnumpy().tolist() == WANT_NOT
    assert t.asnumpy().view(np.uint8).max() <= 1


def test_tensor_of_a_bool_view():
    _check(Tensor(RAW.view(np.bool_)))
    _check(Tensor(RAW.view(np.bool_), ms.bool_))


def test_from_numpy():
    _check(Tensor.from_numpy(RAW.copy().view(np.bool_)))


class Flags(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flags = Parameter(Tensor(np.zeros(6, np.bool_)), name="flags")

    def construct(self):
        return self.flags.astype(ms.int32), ops.logical_not(self.flags)


def _check_cell(net):
    as_ints, nots = ms.jit(net.construct)()
    assert as_ints.asnumpy().tolist() == WANT_INT
    assert nots.asnumpy().tolist() == WANT_NOT


def test_parameter_and_set_data():
    net = Flags()
    net.flags.set_data(RAW.view(np.bool_))
    _check_cell(net)
    p = Parameter(RAW.view(np.bool_), name="p")
    assert p.asnumpy().view(np.uint8).tolist() == [0, 1, 1, 1, 1, 0]


def test_checkpoint_bool_entry_holding_2(tmp_path):
    path = str(tmp_path / "flags.ckpt")
    with open(path, "wb") as f:
        f.write(serialization._pb().encode_entry("flags", [6], "Bool", RAW.tobytes()))
    net = Flags()
    ms.load_param_into_net(net, ms.load_checkpoint(path))
    _check_cell(net)
