"""`mindspore.mint`: MindSpore's PyTorch-style functional API (`dim` / `keepdim`, `mint.cat`,
`mint.zeros` ...), a part of its 226 names: each is the pycompile op that computes it, with the
argument names and defaults of MindSpore 2.10's signature, so it runs in PyNative and in graph code
alike. What the part holds and what it lacks: docs/guide/mindspore-api.md ("mint").

MindSpore 2.10's CPU wheel has no kernel for some of these (`mint.stack`, `mint.arange`,
`mint.split`: "The kernel StackExt unregistered"); they follow its documentation here, as
`ops.stack` / `ops.arange` / `ops.split` compute them."""
from __future__ import annotations

from pycompile import ops as _ops
from pycompile.common import dtype as _mstype
from pycompile.common.tensor import Tensor as _Tensor
from pycompile.ops._table import OpRuntimeError as _OpRuntimeError
from pycompile.mint import nn  # noqa: F401
from pycompile.mint import linalg, special  # noqa: F401,E402  (mint.linalg.norm, mint.special.erfc)
from pycompile.experimental import optim  # noqa: F401  (mint.optim: experimental.optim's optimizers)
from pycompile.mint.nn.functional import conv2d  # noqa: F401  (mint.conv2d)
from pycompile.mint._functions_more import (batch_norm_elemt, batch_norm_gather_stats_with_counts,  # noqa: F401
                                          batch_norm_stats, conv_tbc, triangular_solve, unique_consecutive)

# functions whose MindSpore 2.10 signature is (input) or (input, other) and whose op is the same
_SAME = ("abs", "acos", "acosh", "arccos", "arccosh", "arcsinh", "arctan", "arctanh", "asin", "asinh",
         "atan", "atanh", "ceil", "cos", "cosh", "erf", "erfc", "erfinv", "exp", "exp2", "expm1", "floor",
         "isfinite", "isinf", "isneginf", "log", "log10", "log1p", "log2", "logical_not", "neg", "negative",
         "reciprocal", "rsqrt", "sigmoid", "sign", "sin", "sinc", "sinh", "sqrt", "square", "tan", "tanh", "trunc",
         "atan2", "arctan2", "bitwise_and", "bitwise_or", "bitwise_xor", "eq", "ne", "gt", "ge", "lt", "le",
         "greater", "greater_equal", "less", "less_equal", "not_equal", "logical_and", "logical_or",
         "logical_xor", "maximum", "minimum", "mul", "pow", "logaddexp", "logaddexp2", "remainder", "fmod",
         "floor_divide", "gcd", "matmul", "mm", "dot", "outer", "equal", "isclose", "broadcast_to",
         "tril", "triu", "flip", "roll", "ravel", "take", "inverse", "masked_select", "float_power",
         "bitwise_not", "zeros_like", "ones_like", "full_like", "eye", "einsum", "meshgrid",
         "nan_to_num", "lerp", "addmm", "baddbmm", "addcmul", "addcdiv", "cross", "hstack",
         "dstack", "bincount", "searchsorted", "histc", "logsumexp", "cumprod", "nonzero", "polar")
for _name in _SAME:
    globals()[_name] = getattr(_ops, _name)


def _cast(input, dtype):
    return input if dtype is None else _ops.cast(input, dtype)


def add(input, other, *, alpha=1):
    """input + alpha * other."""
    return _ops.add(input, other if alpha == 1 else other * alpha)


def sub(input, other, *, alpha=1):
    """input - alpha * other."""
    return _ops.sub(input, other if alpha == 1 else other * alpha)


def div(input, other, *, rounding_mode=None):
    return _ops.div(input, other, rounding_mode=rounding_mode)


divide = div


def clamp(input, min=None, max=None):
    return _ops.clamp(input, min, max)


clip = clamp


def zeros(size, *, dtype=None):
    return _ops.zeros(size, dtype)


def ones(size, *, dtype=None):
    return _ops.ones(size, dtype)


def full(size, fill_value, *, dtype=None):
    """A tensor of `size` filled with fill_value; without dtype, the fill value's type decides
    (bool, int64, float32), as in PyTorch (ops.full, MindSpore's, keeps int64 for a float)."""
    if dtype is None:
        dtype = (_mstype.bool_ if isinstance(fill_value, bool) else
                 _mstype.int64 if isinstance(fill_value, int) else
                 _mstype.float32 if isinstance(fill_value, float) else None)
    return _ops.full(size, fill_value, dtype=dtype)


def arange(start=0, end=None, step=1, *, dtype=None):
    return _ops.arange(start, end, step, dtype=dtype)


def linspace(start, end, steps, *, dtype=None):
    return _cast(_ops.linspace(start, end, steps), dtype)


def cat(tensors, dim=0):
    return _ops.cat(tensors, dim)


concat = cat


def stack(tensors, dim=0):
    return _ops.stack(tensors, dim)


def sum(input, dim=None, keepdim=False, *, dtype=None):
    return _ops.sum(input, dim, keepdim, dtype=dtype)


def mean(input, dim=None, keepdim=False, *, dtype=None):
    return _ops.mean(_cast(input, dtype), dim, keepdim)


def prod(input, dim=None, keepdim=False, *, dtype=None):
    return _ops.prod(_cast(input, dtype), dim, keepdim)


def amax(input, dim=(), keepdim=False):
    return _ops.amax(input, None if dim == () else dim, keepdim)


def amin(input, dim=(), keepdim=False):
    return _ops.amin(input, None if dim == () else dim, keepdim)


def all(input, dim=None, keepdim=False):
    return _ops.all(input, dim, keepdim)


def any(input, dim=None, keepdim=False):
    return _ops.any(input, dim, keepdim)


def argmax(input, dim=None, keepdim=False):
    return _ops.argmax(input, dim, keepdim)


def argmin(input, dim=None, keepdim=False):
    return _ops.argmin(input, dim, keepdim)


def _extreme(op, pair, input, dim, keepdim):
    if dim is not None and not isinstance(dim, (int, tuple, list)):     # max(input, other): elementwise
        # (a Tensor, or a tensor value of graph code)
        return pair(input, dim)
    if dim is None:                         # max(input): the largest element, a 0-d tensor
        return op(input)[0]
    return op(input, dim, keepdim)          # max(input, dim, keepdim): (values, indices)


def max(input, dim=None, keepdim=False):
    """mint.max(input), mint.max(input, dim, keepdim=False) -> (values, indices), mint.max(input, other)."""
    return _extreme(_ops.max, _ops.maximum, input, dim, keepdim)


def min(input, dim=None, keepdim=False):
    """mint.min(input), mint.min(input, dim, keepdim=False) -> (values, indices), mint.min(input, other)."""
    return _extreme(_ops.min, _ops.minimum, input, dim, keepdim)


def std(input, dim=None, *, correction=1, keepdim=False):
    return _ops.std(input, dim, correction, keepdim)


def var(input, dim=None, *, correction=1, keepdim=False):
    return _ops.var(input, dim, correction, keepdim)


def std_mean(input, dim=None, *, correction=1, keepdim=False):
    return _ops.std_mean(input, dim, correction, keepdim)


def var_mean(input, dim=None, *, correction=1, keepdim=False):
    return _ops.var_mean(input, dim, correction, keepdim)


def cumsum(input, dim, dtype=None):
    return _ops.cumsum(input, dim, dtype)


def softmax(input, dim, *, dtype=None):
    return _ops.softmax(_cast(input, dtype), dim)


def transpose(input, dim0, dim1):
    return _ops.swapaxes(input, dim0, dim1)


def permute(input, dims):
    return _ops.permute(input, dims)


def reshape(input, shape):
    return _ops.reshape(input, shape)


def flatten(input, start_dim=0, end_dim=-1):
    return _ops.flatten(input, start_dim=start_dim, end_dim=end_dim)


def squeeze(input, dim=None):
    return _ops.squeeze(input, dim)


def unsqueeze(input, dim):
    return _ops.unsqueeze(input, dim)


def split(tensor, split_size_or_sections, dim=0):
    return _ops.split(tensor, split_size_or_sections, dim)


def chunk(input, chunks, dim=0):
    return _ops.chunk(input, chunks, dim)


def narrow(input, dim, start, length):
    return _ops.narrow(input, dim, start, length)


def gather(input, dim, index):
    return _ops.gather_elements(input, dim, index)


def index_select(input, dim, index):
    return _ops.index_select(input, dim, index)


def where(condition, input, other):
    return _ops.where(condition, input, other)


def sort(input, *, dim=-1, descending=False, stable=False):
    return _ops.sort(input, dim, descending)


def argsort(input, dim=-1, descending=False, stable=False):
    return _ops.argsort(input, dim, descending)


def topk(input, k, dim=-1, largest=True, sorted=True):
    return _ops.topk(input, k, dim, largest, sorted)


def repeat_interleave(input, repeats, dim=None):
    return _ops.repeat_interleave(input, repeats, dim)


def tile(input, dims):
    return _ops.tile(input, dims)


def unbind(input, dim=0):
    return _ops.unbind(input, dim)


def tensor_split(input, indices_or_sections, dim=0):
    return _ops.tensor_split(input, indices_or_sections, dim)


def median(input, dim=None, keepdim=False):
    if dim is None:
        return _ops.median(_ops.reshape(input, (-1,)), 0, False)[0]
    return _ops.median(input, dim, keepdim)


def count_nonzero(input, dim=None):
    return _ops.count_nonzero(input, () if dim is None else dim, False, _mstype.int64)


def scatter(input, dim, index, src):
    return _ops.scatter(input, dim, index, src)


def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The n-th forward difference along dim, prepend / append joined to the input first."""
    parts = [t for t in (prepend, input, append) if t is not None]
    x = _ops.cat(parts, dim) if len(parts) > 1 else input
    for _ in range(n):
        x = _ops.diff(x, 1, dim)
    return x


def round(input, *, decimals=0):
    """Halves to even; MindSpore 2.10's CPU kernel takes decimals 0 only (its RuntimeError)."""
    if decimals != 0:
        raise _OpRuntimeError(f"For Round only support decimals equal 0, but got decimals equal {decimals}")
    return _ops.round(input)


def norm(input, p="fro", dim=None, keepdim=False, *, dtype=None):
    return _ops.norm(_cast(input, dtype), p, dim, keepdim)


def cummax(input, dim):
    return _ops.cummax(input, dim)


def cummin(input, dim):
    return _ops.cummin(input, dim)


def clone(input):
    return _ops.deepcopy(input)


def bmm(input, mat2):
    return _ops.bmm(input, mat2)


def mv(input, vec):
    return _ops.mv(input, vec)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The p-norm distances of the rows (compute_mode is accepted; the distances are computed directly)."""
    return _ops.cdist(x1, x2, p)


def diag(input, diagonal=0):
    """A 1-D input: the square matrix with it on the `diagonal`-th diagonal; a 2-D input: that diagonal."""
    if input.ndim == 1:
        n = input.shape[0] + (diagonal if diagonal >= 0 else -diagonal)
        out = _ops.diag(input) if diagonal == 0 else None
        if out is None:
            pad = (diagonal, 0, 0, diagonal) if diagonal > 0 else (0, -diagonal, -diagonal, 0)
            out = _ops.pad(_ops.diag(input), pad)
        return _ops.reshape(out, (n, n))
    return _ops.diagonal(input, diagonal)


def frac(input):
    return _ops.frac(input)


def isnan(tensor):
    return _ops.isnan(tensor)


def arcsin(x):
    return _ops.arcsin(x)


# ---- random draws: pycompile's stream (MindSpore's own numbers are not reproduced), from the
# default generator or `generator` (an ms.Generator); the same numbers eager and compiled
def _drawing(generator):
    import contextlib
    return generator.drawing() if generator is not None else contextlib.nullcontext()


def _size(size):
    return tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else tuple(size)


def rand(*size, generator=None, dtype=None, device=None):
    """Uniform [0, 1) floats of `size` (float32 unless dtype)."""
    with _drawing(generator):
        return _ops.rand(*_size(size), dtype=dtype)


def randn(*size, generator=None, dtype=None, device=None):
    """Standard normal floats of `size` (float32 unless dtype)."""
    with _drawing(generator):
        return _ops.randn(*_size(size), dtype=dtype)


def rand_like(input, *, dtype=None, device=None):
    return _ops.rand_like(input, dtype=dtype)


def randn_like(input, *, dtype=None, device=None):
    return _ops.randn_like(input, dtype=dtype)


def randint(*args, generator=None, dtype=None, device=None):
    """randint(high, size) or randint(low, high, size): integers in [low, high) (int64 unless dtype)."""
    low, high, size = (0, *args) if len(args) == 2 else args
    with _drawing(generator):
        return _ops.randint(low, high, tuple(size), dtype=dtype or _mstype.int64)


def randint_like(*args, dtype=None, device=None):
    """randint_like(input, high) or randint_like(input, low, high)."""
    input, low, high = (args[0], 0, args[1]) if len(args) == 2 else args
    return _ops.randint_like(input, low, high, dtype=dtype or input.dtype)


def randperm(n, *, generator=None, dtype=_mstype.int64):
    """A random permutation of 0 .. n - 1."""
    with _drawing(generator):
        return _ops.cast(_ops.argsort(_ops.rand(n)), dtype)


def normal(mean=0.0, std=1.0, size=None, generator=None):
    """Normal draws of mean / std (tensors broadcast together, or floats with `size`)."""
    with _drawing(generator):
        if size is not None:
            return _ops.randn(*tuple(size)) * std + mean
        zero = 0.0          # (this module's `sum` is mint.sum: the broadcast shape added up by hand)
        for t in (mean, std):
            if not isinstance(t, (int, float)):
                zero = t * 0 + zero
        return _ops.randn_like(zero) * std + mean


# mint.bernoulli is ops.functional.bernoulli_ext, as in MindSpore 2.10 (the same object)
bernoulli = _ops.bernoulli_ext


def multinomial(input, num_samples, replacement=False, *, generator=None):
    with _drawing(generator):
        return _ops.multinomial(input, num_samples, replacement)


# ---- more of mint's functions, each from the ops (semantics of MindSpore's documentation) -----------
def swapaxes(input, axis0, axis1):
    return _ops.swapaxes(input, axis0, axis1)


def t(input):
    """The transpose of a matrix (a 0-D or 1-D input is returned as it is)."""
    return input if input.ndim < 2 else _ops.swapaxes(input, 0, 1)


def trace(input):
    """The sum of a matrix's main diagonal."""
    return _ops.trace(input)


def xlogy(input, other):
    """input * log(other), 0 where input is 0."""
    return _ops.xlogy(input, other)


def vdot(input, other):
    return _ops.dot(input, other)


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """The sum with NaNs counted as 0."""
    return _ops.nansum(_cast(input, dtype), dim, keepdim)


def fix(input):
    """Rounds toward zero (trunc)."""
    return _ops.trunc(input)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every element is close (|input - other| <= atol + rtol * |other|): a Python bool."""
    return bool(_ops.isclose(input, other, rtol, atol, equal_nan).all())


def select(input, dim, index):
    """The slice at `index` along `dim` (that axis removed)."""
    return _ops.squeeze(_ops.narrow(input, dim, index if index >= 0 else input.shape[dim] + index, 1), dim)


def scatter_add(input, dim, index, src):
    """input with src added at the positions `index` gives along dim (repeated indices add up)."""
    return _ops.tensor_scatter_elements(input, index, src, dim, "add")


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """beta * input + alpha * (the sum over the batch of batch1 @ batch2)."""
    return input * beta + _ops.bmm(batch1, batch2).sum(0) * alpha


def addmv(input, mat, vec, *, beta=1, alpha=1):
    return input * beta + _ops.mv(mat, vec) * alpha


def item(input):
    """The value of a one-element tensor, as a Python number."""
    return input.item()


def index_add(input, dim, index, source, *, alpha=1):
    """input with alpha * source's slices added at `index` along dim (repeated indices add up)."""
    shape = [1] * source.ndim
    shape[dim] = -1
    full_index = _ops.broadcast_to(_ops.reshape(_ops.cast(index, _mstype.int64), tuple(shape)), source.shape)
    return _ops.tensor_scatter_elements(input, full_index, source * alpha if alpha != 1 else source, dim, "add")


def kthvalue(input, k, dim=-1, keepdim=False):
    """(values, indices) of the k-th smallest element along dim (k counts from 1)."""
    values, indices = _ops.sort(input, dim)
    values = _ops.narrow(values, dim, k - 1, 1)
    indices = _ops.narrow(indices, dim, k - 1, 1)
    if not keepdim:
        values, indices = _ops.squeeze(values, dim), _ops.squeeze(indices, dim)
    return values, _ops.cast(indices, _mstype.int64)


def empty(*size, dtype=None, device=None, pin_memory=False):
    """A tensor of `size` whose values are unspecified (here: zeros), float32 unless dtype."""
    return _ops.zeros(_size(size), dtype or _mstype.float32)


def empty_like(input, *, dtype=None, device=None, pin_memory=False):
    return _ops.zeros_like(input, dtype=dtype)


def real(input):
    return _ops.real(input)


def imag(input):
    return _ops.imag(input)


def addr_(input, vec1, vec2, beta=1, alpha=1):
    """beta * input + alpha * outer(vec1, vec2)."""
    return input * beta + _ops.outer(vec1, vec2) * alpha


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct values in ascending order (also with sorted=False, as PyTorch's CPU result),
    with the inverse indices and the counts when asked; along `dim`, the distinct slices. PyNative
    only: the output's length depends on the values (graph code gets ops.unique's error)."""
    _ops.unique(input)                      # (in graph code: the data-dependent-shape error)
    import numpy as np
    values, inverse, counts = np.unique(input.asnumpy(), return_inverse=True, return_counts=True, axis=dim)
    result = [_Tensor(values)]
    if return_inverse:
        result.append(_Tensor(inverse.reshape(input.shape if dim is None else (-1,)).astype(np.int64)))
    if return_counts:
        result.append(_Tensor(counts.astype(np.int64)))
    return result[0] if len(result) == 1 else tuple(result)
