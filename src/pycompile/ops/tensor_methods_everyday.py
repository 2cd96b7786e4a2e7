"""The everyday Tensor methods (`x.topk(2)`, `x.chunk(2, 1)`, `x.masked_fill(m, 0.0)`, `x.norm()`
...), attached to TensorMethods like those of tensor_methods.py, so they mean the same on a
PyNative Tensor, a graph value and a vmap value.

Methods accept both spellings MindSpore 2.10 documents for an argument (`axis` / `dim`,
`keepdims` / `keepdim`). Where MindSpore's two modes disagree, pycompile follows the mode it is
in: `x.max(1)` (a positional dim) is (values, indices) in PyNative and the values in graph code;
`x.argmax()` is a flat index in PyNative and over the last axis in graph code.
"""
from __future__ import annotations

from pycompile.common.tensor import Tensor, TensorMethods
from pycompile.ops import function_array as A
from pycompile.ops import function_index as X
from pycompile.ops import function_math as M
from pycompile.ops import function_scatter as S
from pycompile.ops import functional as F
from pycompile.ops import tracing
from pycompile.ops import prims as P
from pycompile.ops._table import apply


def _conj(x):
    return apply(P.Conj, [x]) if x.dtype.is_complex else x


_UNSET = object()


def _pick(name: str, a, b, default):
    """One argument under either of its names."""
    if a is not _UNSET and b is not _UNSET:
        raise TypeError(f"{name}() got the same argument under two names")
    return a if a is not _UNSET else (b if b is not _UNSET else default)


def _in_graph() -> bool:
    return tracing.capturing() is not None


def _varargs(args):
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(args[0])
    return tuple(args)


class _EverydayMethods:
    # -- shape and layout -----------------------------------------------------------------------------
    def t(self):
        if self.ndim > 2:
            raise ValueError(f"For 't', the input must be at most 2-D, but got shape {list(self.shape)}")
        return F.transpose(self, (1, 0)) if self.ndim == 2 else self

    def expand_as(self, other): return A.expand_as(self, other)
    def repeat(self, *repeats): return F.tile(self, _varargs(repeats))
    def flip(self, dims): return A.flip(self, dims)
    def triu(self, diagonal=0): return A.triu(self, diagonal)
    def tril(self, diagonal=0): return A.tril(self, diagonal)

    def chunk(self, chunks, axis=_UNSET, dim=_UNSET):
        return A.chunk(self, chunks, _pick("chunk", axis, dim, 0))

    def unbind(self, dim=0): return A.unbind(self, dim)

    def split(self, split_size_or_sections, axis=_UNSET, dim=_UNSET):
        return A.split(self, split_size_or_sections, _pick("split", axis, dim, 0))

    def repeat_interleave(self, repeats, dim=_UNSET, axis=_UNSET):
        return A.repeat_interleave(self, repeats, _pick("repeat_interleave", dim, axis, None))

    # -- math ------------------------------------------------------------------------------------
    def log2(self): return M.log2(self)
    def log1p(self): return M.log1p(self)
    def expm1(self): return M.expm1(self)
    def isnan(self): return M.isnan(self)
    def isinf(self): return M.isinf(self)
    def sign(self): return M.sign(self)
    def round(self, decimals=0): return M.round(self, decimals=decimals)
    def atan2(self, other): return M.atan2(self, other)
    def nan_to_num(self, nan=None, posinf=None, neginf=None): return M.nan_to_num(self, nan, posinf, neginf)
    def erf(self): return F.erf(self)
    def erfc(self): return M.erfc(self)
    def sin(self): return F.sin(self)
    def cos(self): return F.cos(self)
    def tan(self): return M.tan(self)
    def sinh(self): return M.sinh(self)
    def cosh(self): return M.cosh(self)
    def asin(self): return M.asin(self)
    def acos(self): return M.acos(self)
    def atan(self): return M.atan(self)
    def asinh(self): return M.asinh(self)
    def acosh(self): return M.acosh(self)
    def atanh(self): return M.atanh(self)
    arcsin, arccos, arctan, arcsinh, arccosh, arctanh = asin, acos, atan, asinh, acosh, atanh
    def arctan2(self, other): return M.atan2(self, other)
    def floor(self): return F.floor(self)
    def ceil(self): return F.ceil(self)
    def trunc(self): return M.trunc(self)
    def fmod(self, other): return M.fmod(self, other)
    def inv(self): return M.inv(self)
    def invert(self): return M.invert(self)
    def bitwise_and(self, other): return F.bitwise_and(self, other)
    def bitwise_or(self, other): return F.bitwise_or(self, other)
    def bitwise_xor(self, other): return F.bitwise_xor(self, other)
    def baddbmm(self, batch1, batch2, *, beta=1, alpha=1): return M.baddbmm(self, batch1, batch2, beta, alpha)
    def conj(self): return _conj(self)
    def value(self): return self
    def inner(self, other): return M.inner(self, other)
    def outer(self, vec2): return M.outer(self, vec2)
    def ger(self, vec2): return M.ger(self, vec2)

    def norm(self, ord=None, dim=None, keepdim=False, *, dtype=None):
        return M.norm(self, ord, dim, keepdim, dtype=dtype)

    def var(self, axis=None, ddof=0, keepdims=False): return M.var(self, axis, ddof, keepdims)

    # -- reductions and orderings --------------------------------------------------------------------
    def max(self, *args, axis=_UNSET, keepdims=_UNSET, dim=_UNSET, keepdim=_UNSET, initial=None, where=None):
        return _max_min(self, "max", args, axis, keepdims, dim, keepdim, initial, where)

    def min(self, *args, axis=_UNSET, keepdims=_UNSET, dim=_UNSET, keepdim=_UNSET, initial=None, where=None):
        return _max_min(self, "min", args, axis, keepdims, dim, keepdim, initial, where)

    def argmax(self, axis=_UNSET, keepdims=_UNSET, dim=_UNSET, keepdim=_UNSET):
        ax = _pick("argmax", axis, dim, None)
        if ax is None and _in_graph():
            ax = -1         # MindSpore's graph mode: the last axis (PyNative: the flat index)
        return F.argmax(self, ax, _pick("argmax", keepdims, keepdim, False))

    def argmin(self, axis=_UNSET, keepdims=_UNSET, dim=_UNSET, keepdim=_UNSET):
        return M.argmin(self, _pick("argmin", axis, dim, None), _pick("argmin", keepdims, keepdim, False))

    def prod(self, axis=_UNSET, keep_dims=_UNSET, dtype=None, dim=_UNSET, keepdim=_UNSET):
        return M.prod(self, _pick("prod", axis, dim, None), _pick("prod", keep_dims, keepdim, False), dtype)

    def cumsum(self, axis=_UNSET, dtype=None, dim=_UNSET):
        ax = _pick("cumsum", axis, dim, None)
        if ax is None:
            return M.cumsum(F.reshape(self, (-1,)), 0, dtype)
        return M.cumsum(self, ax, dtype)

    def cumprod(self, dim, dtype=None): return M.cumprod(self, dim, dtype)

    def sort(self, axis=_UNSET, descending=False, dim=_UNSET, stable=False):
        return M.sort(self, _pick("sort", axis, dim, -1), descending)

    def argsort(self, axis=_UNSET, descending=False, dim=_UNSET, stable=False):
        return M.argsort(self, _pick("argsort", axis, dim, -1), descending)

    def topk(self, k, dim=None, largest=True, sorted=True): return M.topk(self, k, dim, largest, sorted)

    # -- indexing -----------------------------------------------------------------------------------
    def masked_fill(self, mask, value):
        if isinstance(value, (bool, int, float)):
            value = Tensor(value, self.dtype)     # the method converts a number to the tensor's dtype
        return X.masked_fill(self, mask, value)

    def masked_select(self, mask): return X.masked_select(self, mask)
    def gather_elements(self, dim, index): return X.gather_elements(self, dim, index)
    def gather_nd(self, indices): return X.gather_nd(self, indices)

    def scatter_sub(self, indices, updates): return S.tensor_scatter_sub(self, indices, updates)
    def scatter_mul(self, indices, updates): return S.tensor_scatter_mul(self, indices, updates)
    def scatter_div(self, indices, updates): return S.tensor_scatter_div(self, indices, updates)
    def scatter_max(self, indices, updates): return S.tensor_scatter_max(self, indices, updates)
    def scatter_min(self, indices, updates): return S.tensor_scatter_min(self, indices, updates)
    def cummax(self, axis): return M.cummax(self, axis)
    def cummin(self, axis): return M.cummin(self, axis)

    def unsorted_segment_max(self, segment_ids, num_segments):
        return S.unsorted_segment_max(self, segment_ids, num_segments)

    def unsorted_segment_min(self, segment_ids, num_segments):
        return S.unsorted_segment_min(self, segment_ids, num_segments)

    def unsorted_segment_prod(self, segment_ids, num_segments):
        return S.unsorted_segment_prod(self, segment_ids, num_segments)

    def index_select(self, axis=_UNSET, index=_UNSET, dim=_UNSET):
        return X.index_select(self, _pick("index_select", axis, dim, 0), index)

    # -- new tensors ---------------------------------------------------------------------------------
    def fill(self, value): return F.full_like(self, value)
    def new_zeros(self, size, dtype=None): return F.zeros(size, dtype or self.dtype)
    def new_ones(self, size, dtype=None): return F.ones(size, dtype or self.dtype)


def _max_min(x, which, args, axis, keepdims, dim, keepdim, initial, where):
    """Tensor.max / min: values over axis; with the dim given positionally, (values, Int64
    indices) in PyNative (MindSpore's two overloads), the values in graph code."""
    if initial is not None or where is not None:
        raise ValueError(f"For 'Tensor.{which}', 'initial' and 'where' are not supported")
    if len(args) > 2:
        raise TypeError(f"Tensor.{which}() takes at most 2 positional arguments ({len(args)} given)")
    ax = _pick(which, axis, dim, args[0] if args else None)
    keep = bool(_pick(which, keepdims, keepdim, args[1] if len(args) > 1 else False))
    values = (F.amax if which == "max" else F.amin)(x, ax, keep)
    if args and not _in_graph():
        index = (F.argmax if which == "max" else M.argmin_int64)(x, ax, keep)
        return values, index
    return values


def _from_numpy(array) -> Tensor:
    """A Tensor sharing `array`'s memory (C-contiguous arrays; others are copied)."""
    return Tensor._wrap(array)


_NOT_METHODS = {"__module__", "__dict__", "__weakref__", "__doc__", "__qualname__"}


def attach() -> None:
    for name, value in vars(_EverydayMethods).items():
        if name not in _NOT_METHODS:
            setattr(TensorMethods, name, value)
    Tensor.from_numpy = staticmethod(_from_numpy)


attach()
