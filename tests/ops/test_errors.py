"""User errors raise TypeError / ValueError / IndexError with a message naming the op and the
shapes or dtypes involved: never a raw NumPy error."""
import re

import numpy as np
import pytest

import pycompile as ms
from pycompile import Parameter, Tensor, ops


def f32(*shape):
    return Tensor(np.ones(shape, np.float32))


# (id, call, exception type, regex the message must match)
ERRORS = [
    # shapes that do not broadcast
    ("add", lambda: f32(2, 3) + f32(4), ValueError, r"For 'Add'.*\[2, 3\].*\[4\]"),
    ("add 2d", lambda: ops.add(f32(2, 3), f32(3, 2)), ValueError, r"For 'Add'.*\[2, 3\].*\[3, 2\]"),
    ("mul", lambda: ops.mul(f32(2, 3), f32(2, 2)), ValueError, r"For 'Mul'.*\[2, 3\].*\[2, 2\]"),
    ("equal", lambda: f32(2, 3) == f32(2, 2), ValueError, r"For 'Equal'.*\[2, 3\].*\[2, 2\]"),
    ("select", lambda: ops.select(Tensor([True, False]), f32(2, 3), f32(2, 3)), ValueError,
     r"For 'Select'.*\[2\].*\[2, 3\]"),
    ("broadcast_to", lambda: ops.broadcast_to(f32(2, 3), (3, 3)), ValueError, r"For 'BroadcastTo'.*\[2, 3\]"),
    ("broadcast_to -1 on a new dim", lambda: ops.broadcast_to(f32(3), (-1, 3)), ValueError,
     r"For 'BroadcastTo'.*\[3\].*\[-1, 3\]"),
    # dtypes
    ("sub bool", lambda: Tensor([True]) - Tensor([False]), TypeError, r"For 'Sub'.*Bool"),
    ("neg bool", lambda: -Tensor([True, False]), TypeError, r"For 'Neg'.*Bool"),
    ("bitwise float", lambda: ops.bitwise_or(f32(2), f32(2)), TypeError, r"For 'BitwiseOr'.*Float32"),
    ("softmax int", lambda: ops.softmax(Tensor([1, 2])), TypeError, r"For 'Softmax'.*Int64"),
    ("layer_norm int", lambda: ops.layer_norm(Tensor([[1, 2]]), f32(2), f32(2)), TypeError, r"For 'LayerNorm'.*Int64"),
    ("select int cond", lambda: ops.select(Tensor([1, 0], ms.int32), f32(2), f32(2)), TypeError,
     r"For 'Select'.*cond.*Int32"),
    ("gather float index", lambda: ops.gather(f32(2, 3), Tensor([0.0]), 1), TypeError,
     r"For 'Gather'.*input_indices.*Float32"),
    ("matmul bool", lambda: ops.matmul(Tensor([[True]]), Tensor([[True]])), TypeError, r"For 'MatMul'.*Bool"),
    ("cast bad dtype", lambda: ops.cast(f32(2), "foo"), TypeError, r"For 'Cast'.*'foo'"),
    ("cast None", lambda: ops.cast(f32(2), None), TypeError, r"For 'Cast'.*None"),
    ("zeros bad dtype", lambda: ops.zeros((2,), "complex"), TypeError, r"For 'Fill'.*'complex'"),
    ("fill with a tensor", lambda: ops.fill(ms.float32, (2,), f32(2)), TypeError, r"For 'Fill'.*fill value"),
    ("full with a string", lambda: ops.full((2,), "a"), TypeError, r"For 'Fill'.*'a'"),
    ("add a string", lambda: ops.add(f32(2), "a"), TypeError, r"For 'Add'.*str"),
    ("add None", lambda: ops.add(f32(2), None), TypeError, r"For 'Add'.*NoneType"),
    ("bitwise_not int", lambda: ~Tensor([1, 2]), TypeError, r"For 'bitwise_not'.*Int64"),
    # argument counts
    ("Add() one argument", lambda: ops.Add()(f32(2)), TypeError, r"For 'Add'.*missing"),
    ("Exp() two arguments", lambda: ops.Exp()(f32(2), f32(2)), TypeError, r"For 'Exp'.*too many"),
    ("ReduceSum() three arguments", lambda: ops.ReduceSum()(f32(2), 0, 1), TypeError, r"For 'ReduceSum'.*got 3"),
    ("add three arguments", lambda: ops.add(f32(2), f32(2), f32(2)), TypeError, r"add\(\) takes 2"),
    ("apply with too few inputs", lambda: ops.apply(ops.OPS["Add"], [f32(2)]), TypeError,
     r"For 'Add', expected 2 inputs \(x, y\), but got 1"),
    # axes
    ("sum axis", lambda: ops.sum(f32(2, 3, 4), 3), ValueError, r"For 'ReduceSum'.*\[-3, 3\).*3"),
    ("mean axis", lambda: ops.mean(f32(2, 3), -3), ValueError, r"For 'ReduceMean'.*\[-2, 2\).*-3"),
    ("argmax axis", lambda: ops.argmax(f32(2, 3), 5), ValueError, r"For 'Argmax'.*\[-2, 2\).*5"),
    ("concat axis", lambda: ops.concat((f32(2, 3), f32(2, 3)), 2), ValueError, r"For 'Concat'.*\[-2, 2\).*2"),
    ("stack axis", lambda: ops.stack((f32(2), f32(2)), 3), ValueError, r"For 'Stack'.*\[-2, 2\).*3"),
    ("gather axis", lambda: ops.gather(f32(2, 3), Tensor([0]), 2), ValueError, r"For 'Gather'.*\[-2, 2\).*2"),
    ("expand_dims axis", lambda: ops.expand_dims(f32(2, 3), 3), ValueError, r"For 'ExpandDims'.*\[-3, 3\).*3"),
    ("softmax axis", lambda: ops.softmax(f32(2, 3), 2), ValueError, r"For 'Softmax'.*\[-2, 2\).*2"),
    ("swapaxes axis", lambda: ops.swapaxes(f32(2, 3), 0, 2), ValueError, r"For 'swapaxes'.*2"),
    ("transpose perm", lambda: ops.transpose(f32(2, 3), (0, 0)), ValueError, r"For 'Transpose'.*\[0, 0\]"),
    ("transpose short perm", lambda: ops.transpose(f32(2, 3), (0,)), ValueError, r"For 'Transpose'.*\[0\]"),
    ("transpose perm not ints", lambda: ops.transpose(f32(2, 3), "ab"), TypeError, r"For 'Transpose'.*'ab'"),
    # (an int Tensor axis is read, as MindSpore 2.10 does: tests/compiler/test_mat33_value_inputs.py)
    ("axis as a float tensor", lambda: ops.sum(f32(2, 3), Tensor(1.0)), TypeError, r"'axis' must be an int"),
    # reshape
    ("reshape count", lambda: ops.reshape(f32(2, 3), (4, 2)), ValueError, r"For 'Reshape'.*\[2, 3\].*\[4, 2\]"),
    ("reshape two -1", lambda: f32(2, 3).reshape(-1, -1), ValueError, r"For 'Reshape'.*-1"),
    ("reshape -1 no fit", lambda: f32(2, 3).reshape(4, -1), ValueError, r"For 'Reshape'.*\[2, 3\].*\[4, -1\]"),
    ("reshape non-int", lambda: ops.reshape(f32(2, 3), (2.0, 3)), TypeError, r"shape must be a tuple of ints"),
    ("tile negative", lambda: ops.tile(f32(2), (-1,)), ValueError, r"For 'Tile'.*-1"),
    # matrix products
    ("matmul", lambda: ops.matmul(f32(2, 3), f32(2, 2)), RuntimeError,
     r"For 'MatMulExt' op, shape1\[-1\] must be equal to shape2\[-2\], but got 3 and 2"),
    ("matmul dtypes", lambda: ops.matmul(f32(2, 3), Tensor(np.ones((3, 2), np.float16))), TypeError,
     r"For 'MatMulExt', the type of 'x2' should be same as 'x1'"),
    ("MatMul class dtypes", lambda: ops.MatMul()(f32(2, 3), Tensor(np.ones((3, 2), np.float16))), TypeError,
     r"For 'MatMul', the type of 'x2' should be same as 'x1'.*Float32.*Float16"),
    ("MatMul class", lambda: ops.MatMul()(f32(2, 3), f32(2, 2)), ValueError, r"For 'MatMul'.*\[2, 3\].*\[2, 2\]"),
    ("MatMul 3-D", lambda: ops.MatMul()(f32(2, 2, 2), f32(2, 3)), ValueError, r"For 'MatMul'.*2-D.*\[2, 2, 2\]"),
    ("batch matmul", lambda: ops.BatchMatMul()(f32(2, 2, 3), f32(2, 2, 3)), ValueError,
     r"For 'BatchMatMul'.*\[2, 2, 3\].*\[2, 2, 3\]"),
    ("batch matmul batch dims", lambda: ops.matmul(f32(2, 2, 3), f32(3, 3, 4)), ValueError, r"For 'BatchMatMul'"),
    ("matmul 0-d", lambda: ops.matmul(Tensor(1.0), f32(2)), ValueError, r"For 'matmul'.*0-d"),
    ("dense weight", lambda: ops.dense(f32(2, 3), f32(4, 3, 3)), ValueError, r"For 'dense'.*\[2, 3\].*\[4, 3, 3\]"),
    # concat / stack
    ("concat shapes", lambda: ops.concat((f32(2, 3), f32(2, 2))), ValueError, r"For 'Concat'.*\[2, 3\].*\[2, 2\]"),
    ("concat ranks", lambda: ops.concat((f32(2, 3), f32(2))), ValueError, r"For 'Concat'.*\[2, 3\].*\[2\]"),
    ("concat 0-d", lambda: ops.concat((Tensor(1.0), Tensor(2.0))), ValueError, r"For 'Concat'.*0-d"),
    ("concat empty", lambda: ops.concat(()), TypeError, r"For 'Concat'.*non-empty"),
    ("concat a tensor", lambda: ops.concat(f32(2, 3)), TypeError, r"For 'Concat'.*tuple or list"),
    ("stack shapes", lambda: ops.stack((f32(2, 3), f32(2, 2))), ValueError, r"For 'Stack'.*\[2, 3\].*\[2, 2\]"),
    ("addn shapes", lambda: ops.addn((f32(2), f32(3))), TypeError, r"For 'AddN'.*\[2\].*\[3\]"),
    # indexing
    ("gather out of range", lambda: ops.gather(f32(2, 3), Tensor([0, 5]), 1), RuntimeError,
     r"For 'Gather', the 'input_indices' should be in the range \[0, 3\), but got 5"),
    ("gather negative out of range", lambda: ops.gather(f32(2, 3), Tensor([-4]), 1), RuntimeError,
     r"For 'Gather'.*\[0, 3\), but got -1"),
    ("index out of range", lambda: f32(2, 3)[5], IndexError, r"index 5 is out of bounds for axis 0 with size 2"),
    ("index negative", lambda: f32(2, 3)[:, -4], IndexError, r"index -4 is out of bounds for axis 1 with size 3"),
    ("too many indices", lambda: f32(2, 3)[0, 0, 0], IndexError, r"too many indices.*dimension 2"),
    ("two ellipses", lambda: f32(2, 3)[..., ...], IndexError, r"single ellipsis"),
    ("string index", lambda: f32(2, 3)["a"], IndexError, r"tensor indices must be"),
    ("float slice", lambda: f32(2, 3)[0.5:], IndexError, r"slice bounds must be ints"),
    ("bool mask", lambda: f32(2, 3)[Tensor([True, False])], IndexError, r"boolean mask"),
    ("list index out of range", lambda: f32(3)[[0, 3]], RuntimeError, r"For 'Gather'.*3"),
    # effects
    ("assign shape", lambda: ops.assign(Parameter(f32(2, 3), name="p"), f32(3)), ValueError,
     r"For 'Assign'.*\[2, 3\].*\[3\]"),
    ("npu ops need the Ascend device", lambda: ops.NPUAllocFloatStatus()(), RuntimeError,
     r"For 'NPUAllocFloatStatus'.*Ascend"),
    # other functional arguments
    ("clamp without bounds", lambda: ops.clamp(f32(2)), ValueError, r"For 'clamp'"),
    ("div rounding mode", lambda: ops.div(f32(2), 2, rounding_mode="x"), ValueError, r"For 'div'.*'x'"),
    ("gelu approximate", lambda: ops.gelu(f32(2), approximate="fast"), ValueError, r"For 'gelu'.*'fast'"),
    ("where one argument", lambda: ops.where(Tensor([True])), ValueError, r"For 'where'"),
    ("gather batch_dims", lambda: ops.gather(f32(2, 3), Tensor([0]), 1, batch_dims=1), ValueError, r"For 'gather'"),
    ("flatten bad dims", lambda: ops.flatten(f32(2, 3, 4), start_dim=2, end_dim=1), ValueError, r"For 'flatten'"),
    ("flatten a number", lambda: ops.flatten(3), TypeError, r"For 'flatten'.*int"),
    ("flatten start_dim", lambda: ops.flatten(f32(2, 3, 4), start_dim=5), ValueError,
     r"For 'flatten'.*\[-3, 3\).*5"),
    ("flatten start_dim float", lambda: ops.flatten(f32(2, 3), start_dim=1.5), TypeError, r"For 'flatten'.*float"),
    ("zeros_like a list", lambda: ops.zeros_like([1, 2]), TypeError, r"For 'ZerosLike'.*list"),
    ("Shape of a dtype", lambda: ops.Shape()(ms.float32), TypeError, r"For 'Shape'.*DType"),
    ("keep_dims not bool", lambda: ops.ReduceMean(keep_dims="yes"), TypeError, r"For 'ReduceMean'.*keep_dims"),
]


@pytest.mark.parametrize("call, exc, pattern", [pytest.param(c, e, p, id=i) for i, c, e, p in ERRORS])
def test_error(call, exc, pattern):
    with pytest.raises(exc) as info:
        call()
    assert re.search(pattern, str(info.value)), f"message {str(info.value)!r} does not match {pattern!r}"
    # the error is raised by pycompile, not leaked from NumPy
    assert "numpy" not in info.traceback[-1].path.parts


def test_op_errors_are_both_python_and_pycompile_errors():
    from pycompile.ops._table import OpError
    with pytest.raises(OpError):
        f32(2, 3) + f32(4)
    with pytest.raises(OpError):
        ops.exp("x")


def test_errors_leave_inputs_untouched():
    x = f32(2, 3)
    with pytest.raises(ValueError):
        ops.reshape(x, (4, 2))
    assert x.shape == (2, 3) and x.asnumpy().sum() == 6
