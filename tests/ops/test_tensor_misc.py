"""Tensor storage / placement methods (ops/entries/tensor_misc.py). Expected values are MindSpore
2.10 CPU's for the same calls (recorded by hand from the wheel, 2026-11-29): for a (2, 3) float32
tensor contiguous() is itself, is_contiguous() True, storage_offset() 0, stride() [3, 1],
stride(1) 1, new_empty((2,), dtype=int32) an Int32 (2,) tensor, resize(3, 3) pads the flattened
data with a zero row and resize((2, 2)) cuts it, device 'CPU', has_init False, move_to('GPU') a
RuntimeError naming the device target, set_dtype(int32) converts in place and returns Int32."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor


def _x():
    return Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))


def test_storage_answers():
    x = _x()
    assert x.contiguous() is x and x.is_contiguous() is True and x.storage_offset() == 0
    assert x.stride() == [3, 1] and x.stride(1) == 1 and x.stride(-2) == 3
    assert x.device == "CPU" and x.has_init is False
    e = x.new_empty((2,), dtype=ms.int32)
    assert e.dtype == ms.int32 and e.shape == (2,)


def test_resize_move_to_and_set_dtype():
    x = _x()
    assert x.resize(3, 3).asnumpy().tolist() == [[0, 1, 2], [3, 4, 5], [0, 0, 0]] and x.shape == (2, 3)
    assert x.resize((2, 2)).asnumpy().tolist() == [[0, 1], [2, 3]]
    moved = x.move_to("CPU")
    assert moved is not x and moved.asnumpy().tolist() == x.asnumpy().tolist()
    with pytest.raises(RuntimeError, match="should be same with device target, bug got to:GPU, device target: CPU"):
        x.move_to("GPU")
    assert x.set_dtype(ms.int32) == ms.int32 and x.dtype == ms.int32 and x.asnumpy().tolist() == [[0, 1, 2], [3, 4, 5]]


@ms.jit
def _compiled(x):
    return x.contiguous().resize(3, 3) + x.stride(0)


def test_in_graph_code():
    np.testing.assert_array_equal(_compiled(_x()).asnumpy(), np.array([[3, 4, 5], [6, 7, 8], [3, 3, 3]], np.float32))


def test_eigvals_method_is_the_function():
    a = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    got = Tensor(a).eigvals()
    assert got.dtype == ms.complex64
    np.testing.assert_allclose(np.sort_complex(got.asnumpy()), np.sort_complex(np.linalg.eigvals(a)), rtol=1e-5)


def test_pin_memory_returns_a_copy():
    x = Tensor(np.array([[1.5, -2.0], [0.0, 3.0]], np.float32))
    y = x.pin_memory()
    assert y is not x and y.dtype == x.dtype and y.shape == x.shape
    np.testing.assert_array_equal(y.asnumpy(), x.asnumpy())
    x[0, 0] = 7.0
    assert y.asnumpy()[0, 0] == 1.5          # its own memory

    @ms.jit
    def f(t):
        return t.pin_memory() * 2

    np.testing.assert_array_equal(f(x).asnumpy(), x.asnumpy() * 2)


@ms.jit
def _moved(x):
    return ms.ops.move_to(x, "CPU") + ms.ops.MoveTo()(x, "CPU", False)


def test_ops_move_to_copies_onto_the_cpu():
    """ops.move_to / ops.MoveTo by MindSpore's documentation (its CPU wheel has no kernel): a copy on
    "CPU", a list or tuple made a Tensor first, another target Tensor.move_to's RuntimeError."""
    x = _x()
    moved = ms.ops.move_to(x)
    assert moved is not x and moved.dtype == x.dtype and moved.asnumpy().tolist() == x.asnumpy().tolist()
    listed = ms.ops.move_to([1, 2, 3], "CPU")
    assert listed.dtype == ms.int64 and listed.asnumpy().tolist() == [1, 2, 3]
    np.testing.assert_array_equal(_moved(x).asnumpy(), 2 * x.asnumpy())
    with pytest.raises(RuntimeError, match="bug got to:Ascend, device target: CPU"):
        ms.ops.MoveTo()(x, "Ascend")
    with pytest.raises(TypeError, match="'to' must be a str"):
        ms.ops.move_to(x, 1)
