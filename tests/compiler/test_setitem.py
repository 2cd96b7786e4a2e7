"""Item assignment in graph code (`y[0] = 100.0`, `y[:, 1:] = t`, `y[mask] = 0`, `y[i] += v` in a
loop or a branch): a functional update that rebinds the name, as in MindSpore's graph mode,
checked against NumPy's in-place assignment."""
from __future__ import annotations

import numpy as np
import pytest

import pycompile as ms
from pycompile import Parameter, Tensor, nn, ops


def _np(x):
    return np.array(x, copy=True)


def forms(x, t, m, idx):
    y = x * 1
    y[0] = 100.0
    y[:, 1:] = ops.reshape(t, (4, 1))
    y[m] = 0
    y[1, 2] += 5.0
    y[..., -1] = y[..., 0]
    y[idx] = -1.0
    y[None, 3, ::-2] = 7.0
    return y


def forms_ref(x, t, m, idx):
    y = x * 1
    y[0] = 100.0
    y[:, 1:] = t.reshape(4, 1)
    y[m] = 0
    y[1, 2] += 5.0
    y[..., -1] = y[..., 0]
    y[idx] = -1.0
    y[None, 3, ::-2] = 7.0
    return y


def test_item_assignment_forms():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 5)).astype(np.float32)
    t, m = rng.standard_normal(4).astype(np.float32), rng.random((4, 5)) < 0.3
    idx = np.array([3, 1], np.int64)
    args = [Tensor(a) for a in (x, t, m, idx)]
    expected = forms_ref(*[_np(a) for a in (x, t, m, idx)])
    np.testing.assert_allclose(ms.jit(forms)(*args).asnumpy(), expected)
    np.testing.assert_allclose(forms(*args).asnumpy(), expected)         # PyNative: in place


def loop_and_branch(x, n):
    y = ops.zeros((3, 4))
    z = y
    for i in range(3):
        y[i, i] = x[i, i] * 10
        y[i] += 1.0
    k = 0
    while k < n:
        y[k, 3] = -5.0
        k += 1
    if ops.reduce_sum(x) > 0:
        y[2] = 9.0
    else:
        y[0, :2] = x[0, :2]
    return y, z


def test_item_assignment_in_loops_and_branches_rebinds_the_name_only():
    for sign in (1.0, -1.0):
        x = np.abs(np.random.default_rng(1).standard_normal((3, 4))).astype(np.float32) * sign
        y, z = ms.jit(loop_and_branch)(Tensor(x), Tensor(np.array(2, np.int64)))
        ref = np.zeros((3, 4), np.float32)
        for i in range(3):
            ref[i, i] = x[i, i] * 10
            ref[i] += 1
        ref[:2, 3] = -5
        if x.sum() > 0:
            ref[2] = 9
        else:
            ref[0, :2] = x[0, :2]
        np.testing.assert_allclose(y.asnumpy(), ref)
        # functional: another name for the old tensor keeps its value (zeros)
        assert not z.asnumpy().any()


def int_target(x):
    y = x + 0
    y[0, 1] = 7.9          # converted to the tensor's dtype, as C converts
    y[1] = True
    return y


def test_value_is_cast_to_the_target_dtype():
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    out = ms.jit(int_target)(Tensor(x))
    assert out.dtype == ms.int32
    np.testing.assert_array_equal(out.asnumpy(), [[0, 7, 2], [1, 1, 1]])


class ParamNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.zeros((2, 2), np.float32)), name="w")

    def construct(self, x):
        self.w[0] = 1.0
        return self.w + x


def value_too_big(x):
    y = x * 1
    y[0] = ops.ones((5,))
    return y


def test_item_assignment_errors_point_at_the_line():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with pytest.raises(ms.CompileError, match="item assignment on"):
            ParamNet()(Tensor(np.ones((2, 2), np.float32)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(ValueError, match="cannot assign a value of shape \\[5\\]") as info:
        ms.jit(value_too_big)(Tensor(np.ones((2, 3), np.float32)))
    assert "y[0] = ops.ones((5,))" in str(info.value)
