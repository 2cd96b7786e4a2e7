"""ops.bidense: the bilinear map y[..., o] = sum_ij input1[..., i] weight[o, i, j] input2[..., j] + bias[o]
(MindSpore 2.10's composition: one product with the weight's (in1, out * in2) view, then the sum
against input2). nn.BiDense is in pycompile/nn/bidense_prim33.py. Recorded in cases_prim33.py."""
from pycompile.ops import functional as F
from pycompile.common.tensor import TensorMethods
from pycompile.ops._table import OpTypeError, OpValueError
from pycompile.ops.entry import Arg, op_entry


def _tensor_or_none(v, op_name):
    if v is not None and not isinstance(v, TensorMethods):
        raise OpTypeError(f"For '{op_name}', the input 'bias' must be a Tensor or None, but got {type(v).__name__}.")


@op_entry("bidense", args=[Arg("input1"), Arg("input2"), Arg("weight"),
                           Arg("bias", "value", default=None, check=_tensor_or_none)])
def bidense(input1, input2, weight, bias=None):
    """x1^T W x2 + b over the last axes of input1 (in1) and input2 (in2); weight (out, in1, in2)."""
    s1, s2, ws = tuple(input1.shape), tuple(input2.shape), tuple(weight.shape)
    if len(ws) != 3 or not s1 or not s2 or s1[-1] != ws[1] or s2[-1] != ws[2] or s1[:-1] != s2[:-1]:
        raise OpValueError(f"For 'bidense', input1 (..., in1), input2 (..., in2) and weight (out, in1, in2) must "
                           f"agree, but got {list(s1)}, {list(s2)} and {list(ws)}")
    out_ch, in1, in2 = ws
    x1 = F.reshape(input1, (-1, in1))
    x2 = F.reshape(input2, (-1, in2))
    w = F.reshape(F.transpose(weight, (1, 0, 2)), (in1, out_ch * in2))
    y = F.reshape(F.matmul(x1, w), (-1, out_ch, in2))
    y = F.sum(y * F.expand_dims(x2, 1), -1)
    if y.dtype != input1.dtype:            # an integer sum widens; MindSpore keeps the inputs' dtype
        y = F.cast(y, input1.dtype)
    if bias is not None:
        y = y + bias
    return F.reshape(y, s1[:-1] + (out_ch,))
