"""Class-form primitives, as MindSpore spells them: `ops.Add()(x, y)`, `ops.HSwish()(x)`,
`ops.ReduceSum(keep_dims=True)(x, axis)`, `ops.Depend()(x, y)`, `ops.Print()(...)`.

Each is a small Primitive subclass calling the functional view (`ops.functional`), so class and
functional forms cannot disagree. Instances are plain Python objects: the graph frontend calls
them like any library callable, with tracers as arguments.
"""
from __future__ import annotations

from pycompile.common import dtype as mstype
from pycompile.common.abstract import Symbolic
from pycompile.ops import prims as _P    # private: MindSpore's operations has no P
from pycompile.ops import functional as F
from pycompile.ops._table import OpTypeError, apply
from pycompile.ops.primitive import Primitive, _simple


Add = _simple("Add", F.add)
Sub = _simple("Sub", F.sub)
Mul = _simple("Mul", F.mul)
RealDiv = _simple("RealDiv", F.div)
Div = _simple("Div", F.div)
FloorDiv = _simple("FloorDiv", F.floor_divide)
FloorMod = _simple("FloorMod", F.remainder)
Pow = _simple("Pow", F.pow)
Neg = _simple("Neg", F.neg)
Abs = _simple("Abs", F.abs)
Square = _simple("Square", F.square)
Exp = _simple("Exp", F.exp)
Log = _simple("Log", F.log)
Sqrt = _simple("Sqrt", F.sqrt)
Rsqrt = _simple("Rsqrt", F.rsqrt)
Sin = _simple("Sin", F.sin)
Cos = _simple("Cos", F.cos)
Tanh = _simple("Tanh", F.tanh)
Erf = _simple("Erf", F.erf)
Reciprocal = _simple("Reciprocal", F.reciprocal)
Floor = _simple("Floor", F.floor)
Ceil = _simple("Ceil", F.ceil)
Sigmoid = _simple("Sigmoid", F.sigmoid)
ReLU = _simple("ReLU", F.relu)
HSwish = _simple("HSwish", F.hardswish)
HSigmoid = _simple("HSigmoid", F.hardsigmoid)
Maximum = _simple("Maximum", F.maximum)
Minimum = _simple("Minimum", F.minimum)
Equal = _simple("Equal", F.equal)
NotEqual = _simple("NotEqual", F.ne)
Less = _simple("Less", F.less)
LessEqual = _simple("LessEqual", F.less_equal)
Greater = _simple("Greater", F.greater)
GreaterEqual = _simple("GreaterEqual", F.greater_equal)
LogicalAnd = _simple("LogicalAnd", F.logical_and)
LogicalOr = _simple("LogicalOr", F.logical_or)
LogicalNot = _simple("LogicalNot", F.logical_not)
IsFinite = _simple("IsFinite", F.isfinite)
BitwiseAnd = _simple("BitwiseAnd", F.bitwise_and)
BitwiseOr = _simple("BitwiseOr", F.bitwise_or)
BitwiseXor = _simple("BitwiseXor", F.bitwise_xor)
Select = _simple("Select", F.select)
Cast = _simple("Cast", F.cast)
Reshape = _simple("Reshape", F.reshape)
Transpose = _simple("Transpose", F.transpose)
ExpandDims = _simple("ExpandDims", F.expand_dims)
Gather = _simple("Gather", F.gather)
ZerosLike = _simple("ZerosLike", F.zeros_like)
OnesLike = _simple("OnesLike", F.ones_like)
AddN = _simple("AddN", F.addn)
Assign = _simple("Assign", F.assign)
Depend = _simple("Depend", F.depend)
TensorMove = _simple("TensorMove", F.tensor_move)
Tile = _simple("Tile", F.tile)


class GeLU(Primitive):
    """MindSpore's GeLU primitive (tanh approximation)."""

    def __call__(self, x):
        return F.gelu(x, approximate="tanh")


class _Reduce(Primitive):
    _fn = None

    def __init__(self, keep_dims: bool = False):
        super().__init__()
        if not isinstance(keep_dims, bool):
            raise OpTypeError(f"For '{self.name}', 'keep_dims' must be a bool, but got {keep_dims!r}")
        self.keep_dims = keep_dims

    def __call__(self, *args):
        if not 1 <= len(args) <= 2:
            raise OpTypeError(f"For '{self.name}', expected the arguments (x, axis=()), but got {len(args)}")
        x, axis = args if len(args) == 2 else (args[0], ())
        return type(self)._fn(x, None if isinstance(axis, tuple) and not axis else axis, self.keep_dims)


class ReduceSum(_Reduce):
    """The primitive keeps the input dtype (int32 in, int32 out), unlike ops.sum."""
    _fn = staticmethod(lambda x, axis, keep: apply(_P.ReduceSum, [x], {"axis": F._axis_attr(axis),
                                                                          "keep_dims": keep}))


class ReduceMean(_Reduce):
    _fn = staticmethod(F.mean)


class ReduceMax(_Reduce):
    _fn = staticmethod(F.amax)


class ReduceMin(_Reduce):
    _fn = staticmethod(F.amin)


class ReduceAll(_Reduce):
    _fn = staticmethod(F.all)


class ReduceAny(_Reduce):
    _fn = staticmethod(F.any)


class Argmax(Primitive):
    def __init__(self, axis: int = -1, output_type=mstype.int32):
        super().__init__()
        self.axis, self.output_type = axis, output_type

    def __call__(self, x):
        return F.cast(F.argmax(x, self.axis), self.output_type)


class Softmax(Primitive):
    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def __call__(self, x):
        return F.softmax(x, self.axis)


class LogSoftmax(Primitive):
    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def __call__(self, x):
        return F.log_softmax(x, self.axis)


class Squeeze(Primitive):
    def __init__(self, axis=()):
        super().__init__()
        self.axis = axis

    def __call__(self, x):
        return F.squeeze(x, self.axis if self.axis != () else None)      # a non-1 axis stays, as in MindSpore


class Concat(Primitive):
    def __init__(self, axis=0):
        super().__init__()
        self.axis = axis

    def __call__(self, x):
        return F.concat(x, self.axis)


class Stack(Primitive):
    def __init__(self, axis=0):
        super().__init__()
        self.axis = axis

    def __call__(self, x):
        return F.stack(x, self.axis)


class BroadcastTo(Primitive):
    def __init__(self, shape):
        super().__init__()
        self.shape = tuple(shape)

    def __call__(self, x):
        return F.broadcast_to(x, self.shape)


class MatMul(Primitive):
    def __init__(self, transpose_a=False, transpose_b=False):
        super().__init__()
        self.transpose_a, self.transpose_b = transpose_a, transpose_b

    def __call__(self, x, y):
        return apply(_P.MatMul, [x, y], {"transpose_a": self.transpose_a, "transpose_b": self.transpose_b})


class BatchMatMul(Primitive):
    def __init__(self, transpose_a=False, transpose_b=False):
        super().__init__()
        self.transpose_a, self.transpose_b = transpose_a, transpose_b

    def __call__(self, x, y):
        return apply(_P.BatchMatMul, [x, y], {"transpose_a": self.transpose_a, "transpose_b": self.transpose_b})


class BiasAdd(Primitive):
    """x + bias along the channel axis: axis 1 (data_format 'NCHW', the default) or the last
    ('NHWC'); `bias` is 1-D with that axis' size."""

    def __init__(self, data_format="NCHW"):
        super().__init__()
        if data_format not in ("NCHW", "NHWC", "NCDHW"):
            raise ValueError(f"For 'BiasAdd', 'data_format' must be 'NCHW', 'NHWC' or 'NCDHW', but got {data_format!r}")
        self.data_format = data_format

    def __call__(self, x, bias):
        t, b = F._tensor_type("BiasAdd", x, "input_x"), F._tensor_type("BiasAdd", bias, "bias")
        if t.ndim < 2:
            raise ValueError(f"For 'BiasAdd', 'input_x' must be at least 2-D, but got shape {list(t.shape)}")
        axis = t.ndim - 1 if self.data_format == "NHWC" else 1
        if b.shape != (t.shape[axis],):
            raise ValueError(f"For 'BiasAdd', bias shape should be equal to input_x[{axis}] shape ({t.shape[axis]}), "
                             f"but got bias shape {list(b.shape)} and input shape {list(t.shape)}")
        return F.add(x, F.reshape(bias, (t.shape[axis],) + (1,) * (t.ndim - 1 - axis)))


class Shape(Primitive):
    def __call__(self, x):
        return F._tensor_type("Shape", x).shape


class Fill(Primitive):
    def __call__(self, type, shape, value):
        return F.fill(type, shape, value)


class Zeros(Primitive):
    def __call__(self, size, type=mstype.float32):
        return F.zeros(size, type)


class Ones(Primitive):
    def __call__(self, size, type=mstype.float32):
        return F.ones(size, type)


class Print(Primitive):
    """Print strings, numbers and tensors. In PyNative mode each argument prints on its own
    line in MindSpore's eager format (`repr` for tensors); in graph code it becomes the Print
    op, which prints MindSpore's graph format in program order."""

    def __call__(self, *args):
        return print_values(args)


def print_values(args):
    """Shared by ops.Print and by `print(...)` inside graph code."""
    parts, tensors = [], []
    for a in args:
        if isinstance(a, str):
            parts.append(("str", a))
        elif isinstance(a, Symbolic) or hasattr(a, "_data"):
            parts.append(("tensor", len(tensors)))
            tensors.append(a)
        elif isinstance(a, (bool, int, float)):
            parts.append(("str", str(a)))
        elif isinstance(a, (tuple, list)):
            parts.append(("str", str(a)))
        else:
            raise OpTypeError(f"For 'Print', arguments must be strings, numbers or Tensors, got {type(a).__name__}")
    return apply(_P.Print, [tuple(tensors)], {"format": tuple(parts)})


class NPUAllocFloatStatus(Primitive):
    """Allocate the float-status tensor (8 float32). Ascend device only."""

    def __call__(self):
        return apply(_P.NPUAllocFloatStatus, [])


class NPUClearFloatStatus(Primitive):
    """Clear the float-status register. Ascend device only; order it with Depend."""

    def __call__(self, addr):
        return apply(_P.NPUClearFloatStatus, [addr])


class NPUGetFloatStatus(Primitive):
    """Read the float-status register: all zeros unless a float kernel overflowed or made a
    NaN / Inf since the last clear. Ascend device only; order it with Depend."""

    def __call__(self, addr):
        return apply(_P.NPUGetFloatStatus, [addr])


class Identity(Primitive):
    """Returns its input; in PyNative mode as a new Tensor (a copy), as MindSpore's kernel does."""

    def __call__(self, x):
        if isinstance(x, Symbolic) or not hasattr(x, "_data"):
            return x
        return F.tensor_move(x)


# MindSpore's `ops.operations` holds every class form: the ones defined beside their family's
# functional forms join the ones above (MindSpore's submodules array_ops, math_ops, nn_ops, ...
# are in this package too; each holds the whole set)
from pycompile.ops.operations_everyday import *  # noqa: F401,F403,E402
from pycompile.ops.operations_nn import *  # noqa: F401,F403,E402
from pycompile.ops.operations_cnn import *  # noqa: F401,F403,E402
from pycompile.ops.roi_align import ROIAlign  # noqa: F401,E402
from pycompile.ops.operations_comm import *  # noqa: F401,F403,E402
from pycompile.ops.operations_comm_more import *  # noqa: F401,F403,E402
from pycompile.ops.operations_optim import *  # noqa: F401,F403,E402
from pycompile.ops.operations_optim_dense import *  # noqa: F401,F403,E402
from pycompile.ops.primitive import PrimitiveWithCheck, PrimitiveWithInfer, prim_attr_register  # noqa: F401,E402
from pycompile.ops.custom_op import Custom  # noqa: F401,E402  (func_type 'pyfunc': a host call)
from pycompile.ops.control_flow_ops import ForiLoop, Scan, WhileLoop  # noqa: F401,E402
from pycompile.ops.autodiff.custom import HookBackward, InsertGradientOf  # noqa: F401,E402
from pycompile.ops.random_rand33 import (RandomCategorical, RandomChoiceWithMask, UniformCandidateSampler,  # noqa: F401,E402
                                         LogUniformCandidateSampler)
from pycompile.ops.random_dist_rand33 import (Uniform, TruncatedNormal, ParameterizedTruncatedNormal,  # noqa: F401,E402
                                              RandomGamma, MultinomialWithReplacement)
from pycompile.ops.ctc_rand33 import (CTCLoss, CTCLossV2, CTCGreedyDecoder, UniqueWithPad,  # noqa: F401,E402
                                      NoRepeatNGram)

__all__ = [n for n, v in list(globals().items())
           if not n.startswith("_") and isinstance(v, type) and issubclass(v, Primitive)] + ["print_values", "HookBackward",
                                                                                 "InsertGradientOf"]


_SUBMODULES = ("array_ops", "math_ops", "nn_ops", "random_ops", "sparse_ops", "image_ops", "comm_ops", "other_ops",
               "_grad_ops", "_inner_ops")


def __getattr__(name):
    if name in _SUBMODULES:          # `P.random_ops.X` without importing the submodule first
        import importlib
        return importlib.import_module(f"{__name__}.{name}")
    from pycompile.common.missing import missing
    raise missing("ops.operations", __name__, name)
