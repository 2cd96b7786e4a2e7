"""Mistakes a user can make with gradients, in PyNative and compiled: MindSpore 2.10's exception
class (tests/oracle/data/autodiff.json records them: misuse_* , int_output, GradOperation_sens_*),
and the user's file:line - in the message of a compiled call (the call of the gradient function
in the user's graph code), in the traceback of an eager one. Where MindSpore does not raise (a
non-Tensor output, an integer output, plain Tensors as weights in PyNative) the test pins what
it returns instead."""
from __future__ import annotations

import inspect
import traceback

import numpy as np
import pytest

import pycompile as ms
from pycompile import Parameter, Tensor, ops

X = Tensor(np.array([0.5, 1.5, -2.0], np.float32))
XI = Tensor(np.array([1, -2, 3], np.int32))
W = Parameter(Tensor(np.ones(3, np.float32)), name="w_errors")


def _two(a, b):
    return (a * b).sum()


def _square(a):
    return a * a


def _weighted(a):
    return (a * W).sum()


def _line_of(marker: str) -> int:
    """The line of this file holding `marker` (the call the error must point at)."""
    lines = inspect.getsource(inspect.getmodule(_line_of)).splitlines()
    return next(i for i, text in enumerate(lines, 1) if marker in text and "_line_of" not in text)


def _eager_points_at(exc: BaseException, line: int) -> bool:
    return any(f.filename == __file__ and f.lineno == line for f in traceback.extract_tb(exc.__traceback__))


def _position_2(x, y):
    return ms.grad(_two, grad_position=2)(x, y)        # marker: position


def _sens_of_wrong_shape(x, s):
    return ops.GradOperation(sens_param=True)(_square)(x, s)        # marker: sens


def _tensor_weights(x):
    return ms.grad(_weighted, 0, weights=[Tensor(np.ones(3, np.float32))])(x)        # marker: weights


@pytest.mark.parametrize("body, args, eager_cls, graph_cls, marker, message", [
    (_position_2, (X, X), "RuntimeError", "IndexError", "marker: position", "Position index 2 is exceed input size"),
    (_sens_of_wrong_shape, (X, Tensor(np.ones(2, np.float32))), "ValueError", "ValueError", "marker: sens",
     "the shape of sens should be [3], but got [2]"),
], ids=["grad_position_out_of_range", "sens_shape"])
def test_errors_in_both_modes(body, args, eager_cls, graph_cls, marker, message):
    line = _line_of(marker)
    with pytest.raises(Exception) as eager:
        body(*args)
    assert type(eager.value).__name__ == eager_cls and message in str(eager.value)
    assert _eager_points_at(eager.value, line)
    with pytest.raises(Exception) as graph:
        ms.jit(body)(*args)
    assert type(graph.value).__name__ == graph_cls and message in str(graph.value)
    assert str(graph.value).startswith(f"{__file__}:{line}:"), str(graph.value)


def test_weights_that_are_not_parameters():
    """PyNative: MindSpore returns zeros for a plain Tensor among the weights; graph mode: a
    RuntimeError (MindSpore's "The pointer[eval_result] is null"), here at the user's call."""
    grads = _tensor_weights(X)
    np.testing.assert_array_equal(grads[0].asnumpy(), np.ones(3, np.float32))
    np.testing.assert_array_equal(grads[1][0].asnumpy(), np.zeros(3, np.float32))
    with pytest.raises(RuntimeError) as graph:
        ms.jit(_tensor_weights)(X)
    assert str(graph.value).startswith(f"{__file__}:{_line_of('marker: weights')}:"), str(graph.value)
    assert "Parameter" in str(graph.value)


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_non_tensor_and_integer_outputs(mode):
    """No error in MindSpore: the gradient of a Python number is zeros of the input, an integer
    output differentiates to an integer gradient."""
    def run(f, *args):
        if mode == "pynative":
            return f(*args)

        def call(*b):
            return f(*b)
        return ms.jit(call)(*args)
    zeros = run(ms.grad(lambda a: 3), X)
    assert zeros.dtype == ms.float32
    np.testing.assert_array_equal(zeros.asnumpy(), np.zeros(3, np.float32))
    ints = run(ms.grad(lambda a: a * 2), XI)
    assert ints.dtype == ms.int32
    np.testing.assert_array_equal(ints.asnumpy(), np.array([2, 2, 2], np.int32))


def test_has_aux_with_a_single_output():
    with pytest.raises(ValueError, match="When has_aux is True, origin fn requires more than one outputs"):
        ms.grad(_two, 0, has_aux=True)(X, X)
    with pytest.raises(RuntimeError, match="When has_aux is True, origin fn requires more than one outputs"):
        ms.jit(lambda a, b: ms.grad(_two, 0, has_aux=True)(a, b))(X, X)
