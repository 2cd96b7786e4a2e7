"""The error classes named after a builtin exception compare equal to it (issue 33, mat33:
MindSpore's test_dot_op checks `assert ValueError == type(e)` for a shape error met compiling a
Cell). They stay CompileErrors carrying the user's line, and hash as the builtin does."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, nn, ops
from pycompile.errors import CompileError


class NetDot(nn.Cell):
    def construct(self, x, y):
        return ops.dot(x, y)


def test_graph_shape_error_is_exactly_valueerror_for_an_equality_check():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with pytest.raises(ValueError) as info:
            NetDot()(Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((1, 2, 3), np.float32)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    e = info.value
    assert ValueError == type(e) and type(e) == ValueError and not type(e) != ValueError
    assert isinstance(e, CompileError) and "test_mat33_error_classes.py" in str(e)
    assert type(e) != TypeError and type(e) != RuntimeError and type(e).__name__ == "ValueError"
    assert hash(type(e)) == hash(ValueError)


def test_pynative_op_errors_compare_equal_to_their_builtin():
    with pytest.raises(TypeError) as info:
        ops.dot(Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((3, 2), np.int32)))
    assert type(info.value) == TypeError and type(info.value) != ValueError
    with pytest.raises(ValueError) as info:
        ops.MatMul()(Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((2, 3), np.float32)))
    assert type(info.value) == ValueError
