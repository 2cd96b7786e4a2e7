"""MindSpore 2.10's fused ops for large-model code, as decompositions (both modes, gradients and
vmap follow): rms_norm, add_rms_norm, add_layer_norm, swiglu, rotary_position_embedding,
embedding; and the mint-style `*_ext` names of existing ops (mse_loss_ext, baddbmm_ext, diff_ext,
einsum_ext, adaptive_avg_pool2d_ext). MindSpore's CPU wheel has no kernels for these ("The kernel
RmsNorm unregistered"), so they follow its documentation and are checked against NumPy versions
of the documented formulas (tests/ops/test_llm_fused.py)."""
from __future__ import annotations

import numpy as np

import pycompile.ops as ops
from pycompile.common import dtype as mstype
from pycompile.common.abstract import Symbolic
from pycompile.common.parameter import Parameter
from pycompile.common.tensor import Tensor, TensorMethods
from pycompile.ops import functional as F
from pycompile.ops._table import OpRuntimeError, OpTypeError, OpValueError
from pycompile.ops.entry import Arg, op_entry

_HALF_FLOATS = frozenset({mstype.float16, mstype.float32})


def _eps(name, epsilon):
    if isinstance(epsilon, bool) or not isinstance(epsilon, float) or not 0 < epsilon <= 1:
        raise OpValueError(f"For '{name}', 'epsilon' must be a float in (0, 1], but got {epsilon!r}")
    return epsilon


def _rms(name, x, gamma, epsilon):
    if gamma.ndim > x.ndim:
        raise OpValueError(f"For '{name}', the rank of 'gamma' ({gamma.ndim}) must not be larger than the rank of "
                           f"'x' ({x.ndim})")
    axes = tuple(range(x.ndim - gamma.ndim, x.ndim)) if gamma.ndim else (x.ndim - 1,)
    xf = F.cast(x, mstype.float32)
    rstd = F.rsqrt(F.add(F.mean(F.square(xf), axes, True), _eps(name, epsilon)))
    y = F.mul(F.mul(xf, rstd), F.cast(gamma, mstype.float32))
    return F.cast(y, x.dtype), rstd


@op_entry("rms_norm", primitive="RmsNorm",
          args=[Arg("x", dtypes=_HALF_FLOATS), Arg("gamma", dtypes=_HALF_FLOATS),
                Arg("epsilon", "value", default=1e-6, init=True)])
def rms_norm(x, gamma, epsilon=1e-6):
    """(x / sqrt(mean(x^2 over gamma's axes) + epsilon) * gamma, the float32 reciprocal std with
    those axes kept as 1)."""
    if x.dtype != gamma.dtype:
        raise OpTypeError(f"For 'RmsNorm', the dtypes of 'x' ({x.dtype}) and 'gamma' ({gamma.dtype}) must be the same")
    return _rms("RmsNorm", x, gamma, epsilon)


@op_entry("add_rms_norm", args=[Arg("x1", dtypes=_HALF_FLOATS), Arg("x2", dtypes=_HALF_FLOATS),
                                Arg("gamma", dtypes=_HALF_FLOATS), Arg("epsilon", "value", default=1e-6)])
def add_rms_norm(x1, x2, gamma, epsilon=1e-6):
    """rms_norm(x1 + x2, gamma) with the sum: (y, rstd, x1 + x2)."""
    if tuple(x1.shape) != tuple(x2.shape):
        raise OpRuntimeError(f"For 'AddRmsNorm', the shapes of 'x1' {tuple(x1.shape)} and 'x2' {tuple(x2.shape)} "
                           f"must be the same")
    x = F.add(x1, x2)
    y, rstd = _rms("AddRmsNorm", x, gamma, epsilon)
    return y, rstd, x


@op_entry("add_layer_norm", args=[Arg("x1", dtypes=_HALF_FLOATS), Arg("x2", dtypes=_HALF_FLOATS), Arg("gamma"),
                                  Arg("beta"), Arg("epsilon", "value", default=1e-5),
                                  Arg("additional_output", "value", default=False)])
def add_layer_norm(x1, x2, gamma, beta, epsilon=1e-5, additional_output=False):
    """LayerNorm over the last axis of x1 + x2 (the LayerNorm row): (y, mean, rstd, x1 + x2), mean
    and rstd with the last axis kept as 1."""
    x = F.add(x1, x2)
    y, mean, var = ops.LayerNorm(-1, -1, float(epsilon))(x, F.cast(gamma, x.dtype), F.cast(beta, x.dtype))
    return y, mean, F.rsqrt(F.add(var, float(epsilon))), x


@op_entry("swiglu", args=[Arg("input", dtypes=_HALF_FLOATS), Arg("dim", "value", default=-1)])
def swiglu(input, dim=-1):
    """a * sigmoid(a) * b, with a and b the two halves of input along dim."""
    axis = dim % input.ndim
    n = input.shape[axis]
    if n % 2:
        raise OpRuntimeError(f"For 'Swiglu', the dimension {dim} of the input ({n}) must be divisible by 2")
    a, b = ops.split(input, n // 2, axis)
    return F.mul(F.mul(a, F.sigmoid(a)), b)


@op_entry("rotary_position_embedding", args=[Arg("x"), Arg("cos"), Arg("sin"), Arg("mode", "value", default=0)])
def rotary_position_embedding(x, cos, sin, mode=0):
    """x * cos + rotate(x) * sin over the last axis (D even): mode 0 rotates halves (GPT-NeoX:
    (-x2, x1)), mode 1 interleaved pairs (GPT-J: (-x_odd, x_even) in place)."""
    if isinstance(mode, bool) or not isinstance(mode, int):
        raise OpTypeError(f"For 'RotaryPositionEmbedding', 'mode' must be an int, but got {type(mode).__name__}")
    if mode not in (0, 1):
        raise OpValueError(f"For 'RotaryPositionEmbedding', 'mode' must be 0 or 1, but got {mode}")
    d = x.shape[-1]
    if d % 2:
        raise OpValueError(f"For 'RotaryPositionEmbedding', the last dimension of 'x' must be even, but got {d}")
    if mode == 0:
        x1, x2 = ops.split(x, d // 2, -1)
        rot = ops.concat((F.neg(x2), x1), -1)
    else:
        pairs = F.reshape(x, tuple(x.shape[:-1]) + (d // 2, 2))
        even, odd = pairs[..., 0], pairs[..., 1]
        rot = F.reshape(ops.stack((F.neg(odd), even), -1), tuple(x.shape))
    return F.add(F.mul(x, cos), F.mul(rot, sin))


# ---- embedding -------------------------------------------------------------------------------------
def _renorm_rows(weight, idx, max_norm, norm_type):
    """weight's rows at idx scaled to norm max_norm where larger (in place, as MindSpore documents)."""
    rows = F.gather(weight, F.reshape(idx, (-1,)), 0)
    norms = F.pow(F.sum(F.pow(F.abs(rows), norm_type), 1, True), 1.0 / norm_type)
    scale = F.select(F.gt(norms, max_norm), F.div(F.fill(norms.dtype, (), max_norm), F.add(norms, 1e-7)),
                     F.ones_like(norms))
    new = ops.tensor_scatter_update(weight, F.reshape(idx, (-1, 1)), F.mul(rows, scale))
    if isinstance(weight, Parameter):
        F.assign(weight, new)
        return weight
    if isinstance(weight, Tensor) and not isinstance(new, Symbolic):
        np.copyto(weight._data, new._data)
        return weight
    return new


@op_entry("embedding", args=[Arg("input", dtypes=frozenset({mstype.int32, mstype.int64})), Arg("weight"),
                             Arg("padding_idx", "value", default=None), Arg("max_norm", "value", default=None),
                             Arg("norm_type", "value", default=2.0), Arg("scale_grad_by_freq", "value", default=False)])
def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False):
    """weight's rows at input: (*input.shape, weight.shape[1]). padding_idx: that row gets no
    gradient; max_norm: the rows looked up are first renormalized in place to norm_type-norm
    max_norm where larger; scale_grad_by_freq: each row's gradient divided by how often input names it."""
    if weight.ndim != 2:
        raise OpValueError(f"For 'embedding', the shape of 'weight' must be 2-D, but got {tuple(weight.shape)}")
    rows = weight.shape[0]
    if padding_idx is not None and not -rows <= padding_idx < rows:
        raise OpValueError(f"For 'embedding', 'padding_idx' must be in [{-rows}, {rows}), but got {padding_idx}")
    if max_norm is not None:
        weight = _renorm_rows(weight, input, float(max_norm), float(norm_type))
    out = F.gather(weight, input, 0)
    if padding_idx is None and not scale_grad_by_freq:
        return out
    scale = F.ones(tuple(input.shape), weight.dtype)
    if scale_grad_by_freq:
        flat = F.reshape(input, (-1,))
        counts = F.sum(F.cast(F.equal(F.expand_dims(flat, 1), F.expand_dims(flat, 0)), weight.dtype), 1)
        scale = F.reshape(F.div(1.0, counts), tuple(input.shape))
    if padding_idx is not None:
        scale = F.select(F.equal(input, padding_idx % rows), F.zeros_like(scale), scale)
    scale = F.expand_dims(scale, -1)
    # the value of out; the gradient of out scaled per position
    return F.add(F.mul(out, scale), F.stop_gradient(F.mul(out, F.sub(1.0, scale))))


# ---- mint-style names of existing ops ------------------------------------------------------------------
@op_entry("mse_loss_ext", args=[Arg("input"), Arg("target"), Arg("reduction", "value", default="mean")])
def mse_loss_ext(input, target, reduction="mean"):
    """ops.mse_loss: the squared error, reduced ('mean', 'sum') or not ('none')."""
    if isinstance(input, TensorMethods) and isinstance(target, TensorMethods) and input.dtype != target.dtype:
        raise OpTypeError(f"For 'mse_loss_ext', 'input' and 'target' must have the same dtype, but got {input.dtype} "
                          f"and {target.dtype}")
    return ops.mse_loss(input, target, reduction)


@op_entry("baddbmm_ext", args=[Arg("input"), Arg("batch1"), Arg("batch2"), Arg("beta", "value", default=1, keyword=True),
                               Arg("alpha", "value", default=1, keyword=True)])
def baddbmm_ext(input, batch1, batch2, beta=1, alpha=1):
    """beta input + alpha (batch1 @ batch2) (ops.baddbmm)."""
    return ops.baddbmm(input, batch1, batch2, beta, alpha)


@op_entry("diff_ext", args=[Arg("input"), Arg("n", "value", default=1), Arg("dim", "value", default=-1),
                            Arg("prepend", "value", default=None), Arg("append", "value", default=None)])
def diff_ext(input, n=1, dim=-1, prepend=None, append=None):
    """The n-th forward difference along dim: ops.diff (first differences, after `prepend` and
    `append`) applied n times (MindSpore's ops.diff takes only n = 1, its diff_ext any n)."""
    if n == 0:
        return input
    out = ops.diff(input, 1, dim, prepend, append)
    for _ in range(n - 1):
        out = ops.diff(out, 1, dim)
    return out


@op_entry("einsum_ext", args=[Arg("equation", "value"), Arg("operands", "value", variadic=True)])
def einsum_ext(equation, operands):
    """ops.einsum: the Einstein summation of the operands."""
    return ops.einsum(equation, *operands)


@op_entry("adaptive_avg_pool2d_ext", args=[Arg("input"), Arg("output_size", "value")])
def adaptive_avg_pool2d_ext(input, output_size):
    """ops.adaptive_avg_pool2d on a (C, H, W) or (N, C, H, W) input."""
    return ops.adaptive_avg_pool2d(input, output_size)
