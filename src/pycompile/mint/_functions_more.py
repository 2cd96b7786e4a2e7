"""More of `mindspore.mint`'s functions: `unique_consecutive`, `triangular_solve`, `conv_tbc` and
the batch-norm statistics functions SyncBatchNorm is built of (`batch_norm_stats`,
`batch_norm_elemt`, `batch_norm_gather_stats_with_counts`), with PyTorch's semantics as MindSpore
2.10 documents them, each composed of pycompile ops so that one definition serves PyNative and
graph code.

MindSpore 2.10's CPU wheel runs `unique_consecutive` (its conformance cases are recorded from it);
it has no kernel for the others ("The kernel TriangularSolve unregistered", "Not implement
exception" for conv_tbc and batch_norm_stats): tests/ops/test_mint_more.py checks them against
NumPy in both modes."""
from __future__ import annotations

import numbers

import numpy as np

from pycompile import ops as _ops
from pycompile.common import dtype as _mstype
from pycompile.common.tensor import TensorMethods as _TensorMethods
from pycompile.ops._table import OpTypeError as _OpTypeError
from pycompile.ops._table import OpValueError as _OpValueError
from pycompile.ops.entries.inplace import _become

# (input, return_inverse=False, return_counts=False, dim=None): mint's signature; the output's
# length depends on the values, so it runs in PyNative only (graph code gets ops' error)
unique_consecutive = _ops.unique_consecutive


def _tensor(name, what, v):
    if not isinstance(v, _TensorMethods):
        raise _OpTypeError(f"For '{name}', '{what}' must be a Tensor, but got {type(v).__name__}.")
    return v


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):
    """(X, a copy of A): X solves op(A) X = b, op(A) = A or (transpose) A^T, A read as upper (or
    lower) triangular - the other triangle is not referenced - with ones on its diagonal when
    unitriangular. b (*, M, K) and A (*, M, M) broadcast over their batch axes; the copy of A has
    the broadcast batch shape (PyTorch's)."""
    name = "triangular_solve"
    b, A = _tensor(name, "b", b), _tensor(name, "A", A)
    for what, t in (("b", b), ("A", A)):
        if not 2 <= t.ndim <= 6:
            raise _OpValueError(f"For '{name}', the rank of '{what}' must be in [2, 6], but got {t.ndim}.")
    m = A.shape[-1]
    if A.shape[-2] != m or b.shape[-2] != m:
        raise _OpValueError(f"For '{name}', 'A' must be square matrices and 'b' must have as many rows as 'A', "
                            f"but got b {list(b.shape)} and A {list(A.shape)}.")
    try:
        batch = tuple(np.broadcast_shapes(tuple(b.shape[:-2]), tuple(A.shape[:-2])))
    except ValueError:
        raise _OpValueError(f"For '{name}', the batch shapes of b {list(b.shape)} and A {list(A.shape)} do not "
                            "broadcast.") from None
    A_full = _ops.broadcast_to(A, batch + (m, m))
    b_full = _ops.broadcast_to(b, batch + tuple(b.shape[-2:]))
    tri = _ops.triu(A_full) if upper else _ops.tril(A_full)
    if unitriangular:
        eye = _ops.eye(m, m, _mstype.bool_)
        tri = _ops.where(eye, _ops.ones_like(tri), tri)
    solution = _ops.matrix_solve(tri, b_full, adjoint=bool(transpose))
    return solution, _ops.identity(A_full)


def conv_tbc(input, weight, bias, pad=0):
    """1-D convolution (cross-correlation) over time of a (T, B, Cin) input with a (K, Cin, Cout)
    weight and a (Cout,) bias, `pad` zeros on both ends of time: (T + 2 pad - K + 1, B, Cout)."""
    name = "conv_tbc"
    input, weight, bias = _tensor(name, "input", input), _tensor(name, "weight", weight), _tensor(name, "bias", bias)
    if input.ndim != 3 or weight.ndim != 3 or bias.ndim != 1:
        raise _OpValueError(f"For '{name}', 'input' and 'weight' must be 3-D and 'bias' 1-D, but got "
                            f"{input.ndim}-D, {weight.ndim}-D and {bias.ndim}-D.")
    if input.shape[2] != weight.shape[1]:
        raise _OpValueError(f"For '{name}', the input channels (input.shape[2] = {input.shape[2]}) must equal "
                            f"weight.shape[1] = {weight.shape[1]}.")
    if bias.shape[0] != weight.shape[2]:
        raise _OpValueError(f"For '{name}', 'bias' must have weight.shape[2] = {weight.shape[2]} elements, but got "
                            f"{bias.shape[0]}.")
    if isinstance(pad, bool) or not isinstance(pad, numbers.Integral) or pad < 0:
        raise _OpValueError(f"For '{name}', 'pad' must be a non-negative int, but got {pad!r}.")
    x = _ops.permute(input, (1, 2, 0))                  # (B, Cin, T)
    w = _ops.permute(weight, (2, 1, 0))                 # (Cout, Cin, K)
    y = _ops.conv1d(x, w, bias, 1, "pad", int(pad), 1, 1)
    return _ops.permute(y, (2, 0, 1))


# ---- the batch-norm statistics of SyncBatchNorm: per channel (axis 1) over every other axis -------------
def _channel_axes(name, input):
    input = _tensor(name, "input", input)
    if input.ndim < 2:
        raise _OpValueError(f"For '{name}', 'input' must have at least 2 dimensions (N, C, ...), but got "
                            f"{input.ndim}.")
    return (0,) + tuple(range(2, input.ndim))


def _view(v, ndim):
    """A (C,) vector viewed as (1, C, 1, ...) to broadcast along axis 1."""
    return _ops.reshape(v, (1, -1) + (1,) * (ndim - 2))


def _float(x):
    return _ops.cast(x, _mstype.float32) if x.dtype == _mstype.float16 else x


def batch_norm_stats(input, eps):
    """(mean, invstd) of each channel (axis 1) over every other axis: invstd = 1 / sqrt(var + eps),
    var the biased variance; float16 inputs give float32 statistics (PyTorch's)."""
    axes = _channel_axes("batch_norm_stats", input)
    x = _float(input)
    mean = _ops.mean(x, axes)
    var = _ops.mean(_ops.square(x - _view(mean, x.ndim)), axes)
    return mean, _ops.rsqrt(var + eps)


def batch_norm_elemt(input, weight=None, bias=None, mean=None, invstd=None, eps=1e-5):
    """(input - mean) * invstd * weight + bias, the (C,) vectors broadcast along axis 1 (weight /
    bias None: 1 / 0); `eps` is not used (invstd holds it). In input's dtype."""
    name = "batch_norm_elemt"
    _channel_axes(name, input)
    if mean is None or invstd is None:
        raise _OpTypeError(f"For '{name}', 'mean' and 'invstd' must be Tensors, but got None.")
    nd = input.ndim
    y = (_float(input) - _view(mean, nd)) * _view(invstd, nd)
    if weight is not None:
        y = y * _view(weight, nd)
    if bias is not None:
        y = y + _view(bias, nd)
    return _ops.cast(y, input.dtype)


def _write(name, what, target, value):
    """value written into target (a Parameter, or a PyNative Tensor) in place."""
    if _become(name, target, value) is not target:
        raise _OpValueError(f"For '{name}', '{what}' can be updated in place in graph code only when it is a "
                            "Parameter (a Tensor there is a value); pass a Parameter or call it in PyNative mode.")


def batch_norm_gather_stats_with_counts(input, mean, invstd, running_mean=None, running_var=None, momentum=0.1,
                                        eps=1e-5, counts=None):
    """The global (mean, invstd) of per-process statistics: rows of `mean` / `invstd` (world, C), row
    i from counts[i] elements (counts None: each row from as many as `input` holds per channel).
    running_mean / running_var, when given, are updated in place: (1 - momentum) * running +
    momentum * global, the variance unbiased (N / (N - 1), N the total count)."""
    name = "batch_norm_gather_stats_with_counts"
    _channel_axes(name, input)
    mean, invstd = _tensor(name, "mean", mean), _tensor(name, "invstd", invstd)
    if mean.ndim != 2 or tuple(invstd.shape) != tuple(mean.shape):
        raise _OpValueError(f"For '{name}', 'mean' and 'invstd' must be 2-D of the same shape (world, C), but got "
                            f"{list(mean.shape)} and {list(invstd.shape)}.")
    world = mean.shape[0]
    m = _float(mean)
    if counts is None:
        c = _ops.fill(m.dtype, (world, 1), float(input.size // input.shape[1]))
    else:
        counts = _tensor(name, "counts", counts)
        if counts.size != world:
            raise _OpValueError(f"For '{name}', 'counts' must have one count per row of 'mean' ({world}), but got "
                                f"shape {list(counts.shape)}.")
        c = _ops.reshape(_ops.cast(counts, m.dtype), (world, 1))
    n = _ops.sum(c)
    global_mean = _ops.sum(c * m, 0) / n
    var = 1.0 / _ops.square(_float(invstd)) - eps
    global_var = _ops.sum(c * (var + _ops.square(m - global_mean)), 0) / n
    global_invstd = _ops.rsqrt(global_var + eps)
    if running_mean is not None:
        _write(name, "running_mean", running_mean,
               running_mean * (1.0 - momentum) + _ops.cast(global_mean, running_mean.dtype) * momentum)
    if running_var is not None:
        unbiased = global_var * (n / (n - 1.0))
        _write(name, "running_var", running_var,
               running_var * (1.0 - momentum) + _ops.cast(unbiased, running_var.dtype) * momentum)
    return _ops.cast(global_mean, mean.dtype), _ops.cast(global_invstd, invstd.dtype)


__all__ = ["unique_consecutive", "triangular_solve", "conv_tbc", "batch_norm_stats", "batch_norm_elemt",
           "batch_norm_gather_stats_with_counts"]
