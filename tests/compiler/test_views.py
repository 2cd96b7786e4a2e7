"""Rows and boxes read where they are (backend/c/views.py row_view / strided_view):
a Gather of one row of a temporary (`xw[t]` in a recurrent loop) is a pointer into it, and a
StridedSlice whose only readers are elementwise kernels (an LSTM's four gates cut from one
product) is read through its strides instead of being copied first. Where the memory under
the view may be written while the view is read (a Parameter an Assign rewrites) the copy stays.
Every result is checked against NumPy."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Parameter, Tensor, nn, ops


def _entry(fn, *args) -> str:
    """The generated C of the call's body (after the kernels)."""
    src = ms.inspect(fn, *args).c_source
    return src.split("static int pc_entry_body(" if "static int pc_entry_body(" in src else "int pc_entry(")[1]


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def rows(x):
    y = x * 2.0
    h = ops.zeros((4, 16), ms.float32)
    for t in range(8):
        h = h * 0.5 + y[t]
    return h


def test_a_row_of_a_temporary_is_read_in_place():
    xs = np.random.default_rng(0).standard_normal((8, 4, 16)).astype(np.float32)
    body = _entry(rows, Tensor(xs))
    assert "* 64L;" in body and "memcpy(v" not in body      # a pointer to row t, no copy of it
    want = np.zeros((4, 16), np.float32)
    for t in range(8):
        want = want * np.float32(0.5) + xs[t] * np.float32(2)
    np.testing.assert_allclose(ms.jit(rows)(Tensor(xs)).asnumpy(), want, rtol=1e-6)


def pick(x, i):
    return ops.gather(x * 2.0, i, 0) + 1.0


@pytest.mark.parametrize("i, row", [(3, 3), (-1, 7)])
def test_a_row_view_takes_the_index_as_gather_does(i, row):
    xs = np.random.default_rng(1).standard_normal((8, 5)).astype(np.float32)
    got = ms.jit(pick)(Tensor(xs), Tensor(np.int32(i))).asnumpy()
    np.testing.assert_allclose(got, xs[row] * 2 + 1, rtol=1e-6)


def test_a_row_view_index_out_of_range_raises():
    xs = np.zeros((8, 5), np.float32)
    with pytest.raises(RuntimeError, match=r"'input_indices' should be in the range \[0, 8\)"):
        ms.jit(pick)(Tensor(xs), Tensor(np.int32(8)))


class RowThenWrite(nn.Cell):
    """Reads a row of its Parameter, then rewrites the Parameter, then uses the row."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.arange(40, dtype=np.float32).reshape(8, 5)), name="w")

    def construct(self, i):
        row = ops.gather(self.w, i, 0)
        ops.assign(self.w, self.w * 2.0)
        return row + 1.0


# at MS_DEV_SIDE_EFFECT_LOAD_ELIM=2 the Load of w is w's own memory (its one reader, the Gather, runs
# before the Assign): a view of it would be read after the Assign, so the row must be a copy
@pytest.mark.parametrize("level", ["1", "2"])
def test_a_row_of_a_parameter_is_copied_before_the_parameter_is_rewritten(level, monkeypatch):
    monkeypatch.setenv("MS_DEV_SIDE_EFFECT_LOAD_ELIM", level)
    net = RowThenWrite()
    got = ms.jit(net.construct)(Tensor(np.int32(2))).asnumpy()
    np.testing.assert_array_equal(got, np.arange(10, 15, dtype=np.float32) + 1)   # the old row
    np.testing.assert_array_equal(net.w.asnumpy()[2], np.arange(10, 15, dtype=np.float32) * 2)


def gates(x, w):
    g = ops.matmul(x, w)
    i = ops.sigmoid(g[:, 0:64])
    f = ops.sigmoid(g[:, 64:128])
    c = ops.tanh(g[:, 128:192])
    o = g[:, 192:256]
    return i * f + c * o


def _gates_ref(x, w):
    g = x @ w
    return _sigmoid(g[:, :64]) * _sigmoid(g[:, 64:128]) + np.tanh(g[:, 128:192]) * g[:, 192:]


def test_gates_cut_from_one_product_are_read_in_place():
    r = np.random.default_rng(2)
    x, w = r.standard_normal((32, 64)).astype(np.float32), r.standard_normal((64, 256)).astype(np.float32)
    body = _entry(gates, Tensor(x), Tensor(w))
    assert "+ 64L);" in body and "+ 128L);" in body and "+ 192L);" in body
    assert "memcpy" not in body
    np.testing.assert_allclose(ms.jit(gates)(Tensor(x), Tensor(w)).asnumpy(), _gates_ref(x, w), rtol=2e-5, atol=2e-5)


def boxes(x, b):
    t = x * 3.0
    return t[::2, 1:3, 64:192] + b - t[1::2, 0:2, 0:128] * t[0:1, 2:4, 128:256]


def test_boxes_with_steps_broadcasts_and_a_single_row():
    r = np.random.default_rng(3)
    x, b = r.standard_normal((6, 4, 256)).astype(np.float32), r.standard_normal((128,)).astype(np.float32)
    body = _entry(boxes, Tensor(x), Tensor(b))
    assert "memcpy" not in body
    t = x * np.float32(3)
    want = t[::2, 1:3, 64:192] + b - t[1::2, 0:2, 0:128] * t[0:1, 2:4, 128:256]
    np.testing.assert_allclose(ms.jit(boxes)(Tensor(x), Tensor(b)).asnumpy(), want, rtol=1e-6, atol=1e-6)


def narrow(x):
    t = x * 3.0
    return ops.sigmoid(t[:, 4:9]) + t[:, 0:5]


def test_a_narrow_box_is_copied_into_one_flat_run():
    # five elements a row: the kernel's inner loop would not vectorize; copied, it runs over 320
    x = np.random.default_rng(5).standard_normal((64, 32)).astype(np.float32)
    assert _entry(narrow, Tensor(x)).count("memcpy(") == 2
    t = x * np.float32(3)
    np.testing.assert_allclose(ms.jit(narrow)(Tensor(x)).asnumpy(), _sigmoid(t[:, 4:9]) + t[:, :5], rtol=1e-6)


def box_to_product(x, v):
    g = x * 2.0
    return ops.matmul(g[:, 64:192], v), ops.sigmoid(g[:, 0:64]) * 2.0


def test_a_box_a_product_reads_is_copied():
    r = np.random.default_rng(4)
    x, v = r.standard_normal((8, 256)).astype(np.float32), r.standard_normal((128, 16)).astype(np.float32)
    body = _entry(box_to_product, Tensor(x), Tensor(v))
    assert body.count("memcpy") == 1 and "+ 0L);" in body    # the product's box copied, the other read in place
    g = x * 2
    got = ms.jit(box_to_product)(Tensor(x), Tensor(v))
    np.testing.assert_allclose(got[0].asnumpy(), g[:, 64:192] @ v, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got[1].asnumpy(), _sigmoid(g[:, :64]) * 2, rtol=1e-6)


class BoxThenWrite(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.arange(1024, dtype=np.float32).reshape(4, 256)), name="w")

    def construct(self, x):
        box = self.w[:, 64:192]
        ops.assign(self.w, self.w + x)
        return box + 0.5


@pytest.mark.parametrize("level", ["1", "2"])
def test_a_box_of_a_parameter_is_copied_before_the_parameter_is_rewritten(level, monkeypatch):
    monkeypatch.setenv("MS_DEV_SIDE_EFFECT_LOAD_ELIM", level)
    net = BoxThenWrite()
    got = ms.jit(net.construct)(Tensor(np.ones((4, 256), np.float32))).asnumpy()
    np.testing.assert_array_equal(got, np.arange(1024, dtype=np.float32).reshape(4, 256)[:, 64:192] + 0.5)


def gates_and_rows(x, w, x3, i):
    g = ops.matmul(x, w)
    return ops.sigmoid(g[:, 0:64]) * g[:, 64:128] + ops.tanh(g[:, 128:192]), ops.gather(x3 * 2.0, i, 1) + 1.0


def test_views_at_a_run_time_batch_size():
    # one compile for every batch size (backend/dynamic.py): the views' offsets and strides hold
    f = ms.jit(gates_and_rows, dynamic=1)
    r = np.random.default_rng(6)
    w = r.standard_normal((32, 192)).astype(np.float32)
    for b in (3, 17, 64):
        x, x3 = r.standard_normal((b, 32)).astype(np.float32), r.standard_normal((b, 5, 40)).astype(np.float32)
        got = f(Tensor(x), Tensor(w), Tensor(x3), Tensor(np.int32(3)))
        g = x @ w
        np.testing.assert_allclose(got[0].asnumpy(), _sigmoid(g[:, :64]) * g[:, 64:128] + np.tanh(g[:, 128:192]),
                                   rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(got[1].asnumpy(), x3[:, 3] * 2 + 1, rtol=1e-6)
