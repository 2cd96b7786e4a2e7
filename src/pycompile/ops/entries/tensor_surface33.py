"""Tensor methods of MindSpore 2.10 added by issue 33 (surface33): random draws shaped like self
(`bernoulli`, `cauchy`, `log_normal`, `uniform`, `multinomial`, `random_categorical`), new and
in-place forms (`new_full`, `index_put_`, `erfinv_`, `itemset`, `set_`, `scatter_add`,
`inplace_update`), `triangular_solve`, `unique_with_pad`, `choose`, and the buffer / state
queries MindSpore answers on the CPU (`data_ptr`, `get_bytes`, `storage`, `is_pinned` ...).

Several of these have no CPU kernel in MindSpore 2.10 (new_full "support Ascend only",
index_put_ InplaceIndexPut, scatter_add ScatterAddExt, bernoulli BernoulliExt, uniform UniformExt,
erfinv_ InplaceErfinv, triangular_solve): pycompile computes what MindSpore documents for them.
The random methods draw from pycompile's generator (ms.set_seed); MindSpore's stream is not
reproduced (DESIGN.md, Randomness).
"""
from __future__ import annotations

import math

import numpy as np

import pycompile.ops as ops
from pycompile.common import dtype as mstype
from pycompile.common.tensor import Tensor
from pycompile.ops import functional as F
from pycompile.ops._table import OpTypeError, OpValueError
from pycompile.ops.entries.inplace import inplace
from pycompile.ops.entry import tensor_alias


def _float_self(name, x):
    if not x.dtype.is_float:
        raise OpTypeError(f"For 'Tensor.{name}', the input must be Float16, Float32 or Float64, but got {x.dtype}.")


# ---- random draws shaped like self ------------------------------------------------------------------
@tensor_alias("bernoulli")
def _bernoulli(self, *, generator=None):
    """1 where a uniform draw is below self's value (a probability), else 0; self's dtype."""
    _float_self("bernoulli", self)
    return F.cast(F.less(ops.rand_like(self), self), self.dtype)


@tensor_alias("uniform")
def _uniform(self, from_=0.0, to=1.0, generator=None):
    """Uniform draws in [from_, to) with self's shape and dtype."""
    if from_ > to:
        raise OpTypeError(f"For 'Tensor.uniform', 'from_' must not be larger than 'to', but got {from_} > {to}.")
    return F.cast(F.add(F.mul(ops.rand_like(self, dtype=mstype.float32), float(to - from_)), float(from_)),
                  self.dtype)


@tensor_alias("cauchy")
def _cauchy(self, median=0.0, sigma=1.0):
    """Cauchy draws median + sigma * tan(pi * (u - 1/2)), u uniform in (0, 1); self's shape and dtype."""
    _float_self("cauchy", self)
    u = ops.rand_like(self, dtype=mstype.float32)
    return F.cast(F.add(F.mul(F.tan(F.mul(F.sub(u, 0.5), math.pi)), float(sigma)), float(median)), self.dtype)


@tensor_alias("log_normal")
def _log_normal(self, mean=1.0, std=2.0):
    """exp(mean + std * z), z standard normal; self's shape and dtype."""
    _float_self("log_normal", self)
    z = ops.randn_like(self, dtype=mstype.float32)
    return F.cast(F.exp(F.add(F.mul(z, float(std)), float(mean))), self.dtype)


@tensor_alias("multinomial")
def _multinomial(self, num_samples, replacement=True, seed=None):
    """`ops.multinomial(self, num_samples, replacement, seed)`."""
    return ops.multinomial(self, num_samples, replacement, seed)


@tensor_alias("random_categorical")
def _random_categorical(self, num_sample, seed=0, dtype=mstype.int64):
    """`num_sample` class indices per row of the (batch, classes) logits self."""
    if self.ndim != 2:
        raise OpValueError(f"For 'RandomCategorical', the rank of 'logits' must be 2, but got {self.ndim}.")
    if dtype not in (mstype.int16, mstype.int32, mstype.int64):
        raise OpTypeError(f"For 'RandomCategorical', 'dtype' must be Int16, Int32 or Int64, but got {dtype}.")
    probs = F.softmax(F.cast(self, mstype.float32), -1)
    return F.cast(ops.multinomial(probs, num_sample, True, seed or None), dtype)


# ---- new tensors and in-place updates ---------------------------------------------------------------
@tensor_alias("new_full")
def _new_full(self, size, fill_value, *, dtype=None):
    """A tensor of `size` filled with `fill_value`, of self's dtype unless `dtype` is given."""
    return F.full(tuple(size) if isinstance(size, list) else size, fill_value, dtype=dtype or self.dtype)


@inplace("index_put_")
def _index_put_(self, indices, values, accumulate=False):
    """`self[indices] = values` (`+=` with accumulate) written into self; returns self."""
    return self.index_put(indices, values, accumulate)


@inplace("erfinv_")
def _erfinv_(self):
    """self = erfinv(self); returns self."""
    return F.erfinv(self) if hasattr(F, "erfinv") else ops.erfinv(self)


@tensor_alias("scatter_add")
def _scatter_add(self, *args, **kwargs):
    """scatter_add(dim, index, src): a copy of self with src added at index along dim (torch's form);
    scatter_add(indices, updates): ops.tensor_scatter_add (MindSpore 2.10 takes both)."""
    if len(args) + len(kwargs) == 2 and not {"dim", "index", "src"} & set(kwargs):
        return ops.tensor_scatter_add(self, *args, **kwargs)
    return _scatter_add_dim(self, *args, **kwargs)


def _scatter_add_dim(self, dim, index, src):
    return ops.tensor_scatter_elements(self, index, src, axis=dim, reduction="add")


# Tensor.inplace_update is misc_prim33.py's (InplaceUpdateV2)


@tensor_alias("itemset")
def _itemset(self, *args):
    """A copy of self with one element set: itemset(value) for a one-element tensor, itemset(flat_index, value)
    or itemset((i, j, ...), value). As in MindSpore 2.10, self is left unchanged."""
    if len(args) not in (1, 2):
        raise TypeError(f"itemset() takes 1 or 2 arguments ({len(args)} given)")
    out = np.array(self.asnumpy())
    out.itemset(*args) if hasattr(out, "itemset") else _itemset_numpy2(out, args)
    return Tensor(out, self.dtype)


def _itemset_numpy2(out, args):
    if len(args) == 1:
        if out.size != 1:
            raise ValueError("can only convert an array of size 1 to a Python scalar")
        out.reshape(-1)[0] = args[0]
    elif isinstance(args[0], tuple):
        out[args[0]] = args[1]
    else:
        out.reshape(-1)[args[0]] = args[1]


@tensor_alias("set_")
def _set_(self, source):
    """Make self share `source`'s data, shape and dtype; returns self."""
    if not isinstance(source, Tensor):
        raise TypeError(f"For 'Tensor.set_', the 'source' must be a Tensor, but got {type(source).__name__}.")
    self._data = source._data
    return self


# ---- linear algebra, selection ----------------------------------------------------------------------
@tensor_alias("triangular_solve")
def _triangular_solve(self, A, upper=True, transpose=False, unitriangular=False):
    """(X, A) with op(A) X = self, A triangular (upper unless upper=False; the other triangle is
    not read), op(A) = A^T with transpose, a unit diagonal assumed with unitriangular."""
    if self.ndim < 2 or A.ndim < 2 or A.shape[-1] != A.shape[-2] or A.shape[-1] != self.shape[-2]:
        raise OpValueError(f"For 'triangular_solve', the shapes of b {list(self.shape)} and A {list(A.shape)} "
                           f"are not matched.")
    tri = ops.triu(A) if upper else ops.tril(A)
    if unitriangular:
        eye = F.cast(ops.eye(A.shape[-1], A.shape[-1], mstype.float32), A.dtype)
        tri = F.add(F.mul(tri, F.sub(1.0, eye)), eye)
    if transpose:
        tri = ops.swapaxes(tri, -1, -2)
    return ops.matrix_solve(tri, self), A


@tensor_alias("unique_with_pad")
def _unique_with_pad(self, pad_num):
    """(the distinct values of the 1-D integer self in first-seen order, padded with pad_num to
    self's length; each element's position in that list)."""
    if self.dtype not in (mstype.int32, mstype.int64):
        raise OpTypeError(f"For 'UniqueWithPad', the input must be Int32 or Int64, but got {self.dtype}.")
    if self.ndim != 1:
        raise OpValueError(f"For 'UniqueWithPad', the input must be 1-D, but got {self.ndim}-D.")
    x = self.asnumpy()
    _, first, inverse = np.unique(x, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")           # distinct values by first appearance
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    values = np.full(x.shape, pad_num, x.dtype)
    values[:order.size] = x[np.sort(first)]
    return Tensor(values, self.dtype), Tensor(rank[inverse].astype(x.dtype), self.dtype)


@tensor_alias("choose")
def _choose(self, choices, mode="clip"):
    """np.choose: element i of choices[self[i]] (choices broadcast with self); an out-of-range index
    is clipped ('clip') or wrapped ('wrap'). Python numbers give Int64 / Float32 as in MindSpore."""
    if mode not in ("clip", "wrap"):
        raise NotImplementedError(f'"{mode}" mode is not implemented')
    if not self.dtype.is_int:
        raise OpTypeError(f"For 'Tensor.choose', the input must be an integer tensor, but got {self.dtype}.")
    arrays = [c.asnumpy() if isinstance(c, Tensor) else np.asarray(c) for c in
              (choices if isinstance(choices, (list, tuple)) else list(choices))]
    dtypes = [c.dtype for c in choices if isinstance(c, Tensor)] if isinstance(choices, (list, tuple)) else \
        [choices.dtype] if isinstance(choices, Tensor) else []
    stacked = np.stack(np.broadcast_arrays(*arrays))
    out = np.choose(self.asnumpy(), stacked, mode=mode)
    if dtypes:
        return Tensor(out, dtypes[0])
    return Tensor(out, mstype.float32 if out.dtype.kind == "f" else mstype.int64 if out.dtype.kind in "iu"
                  else mstype.bool_)


# ---- buffers and state (MindSpore's answers on the CPU) ---------------------------------------------
@tensor_alias("data_ptr")
def _data_ptr(self):
    """The address of self's first element (an int)."""
    return int(self._data.ctypes.data)


@tensor_alias("get_bytes")
def _get_bytes(self):
    """self's elements as bytes (C order)."""
    return np.ascontiguousarray(self._data).tobytes()


@tensor_alias("is_pinned")
def _is_pinned(self):
    """False: host tensors are never page-locked (MindSpore's CPU build answers False)."""
    return False


@tensor_alias("is_shared")
def _is_shared(self):
    """False: tensors are not in shared memory (MindSpore's CPU build answers False)."""
    return False


@tensor_alias("is_init")
def _is_init(self):
    """False: a Tensor built from data has no pending initializer (as MindSpore answers)."""
    return False


@tensor_alias("set_init_flag")
def _set_init_flag(self, flag):
    """Mark the tensor's data as initialized (it always is here)."""


@tensor_alias("data_sync")
def _data_sync(self, wait=True):
    """Copy device data to the host (the data lives on the host)."""


@tensor_alias("flush_from_cache")
def _flush_from_cache(self):
    """Flush a cache-enabled Parameter's cache (there is none on the CPU)."""


@tensor_alias("wait_pipeline")
def _wait_pipeline(self):
    """Wait for pending ops writing self (ops run synchronously)."""


@tensor_alias("set_cast_dtype")
def _set_cast_dtype(self, dtype=None):
    """Auto-parallel's cast dtype of a Parameter (no effect on one device)."""


@tensor_alias("set_const_arg")
def _set_const_arg(self, const_arg=True):
    """Mark self as a constant argument of jit functions (specialized by value); returns self."""
    if not isinstance(const_arg, bool):
        raise TypeError(f"For 'set_const_arg', the type of 'const_arg' should be 'bool', but got "
                        f"{type(const_arg).__name__}.")
    self._const_arg = const_arg
    return self


@tensor_alias("to_")
def _to_(self, device=None, non_blocking=False):
    """Move self to `device` ('CPU' or 'Ascend'): the data is on the host already; returns self."""
    if device not in ("Ascend", "CPU"):
        raise ValueError(f"The value of 'to' must be one of ['Ascend', 'CPU'], but got {device}")
    if device != "CPU":
        raise RuntimeError(f"For 'Tensor.to_', device '{device}' is not available: pycompile runs on the CPU.")
    return self


def _convert_bytes_to_tensor(bytes_data, shape, dtype):
    """A Tensor of `shape` and `dtype` from raw bytes."""
    dt = mstype.to_dtype(dtype)
    return Tensor(np.frombuffer(bytes_data, dt.np).reshape(shape).copy(), dt)


def _attach_properties():
    T = Tensor
    T.init_flag = property(lambda self: False, doc="False: the data is not pending an initializer.")
    T.init_finished = property(lambda self: True, doc="True: the data is initialized.")
    T.is_meta = property(lambda self: False, doc="False: the tensor holds data.")
    T.virtual_flag = property(lambda self: False, doc="False (a parallel-training flag).")
    T.param_info = property(lambda self: None, doc="None for a Tensor (a Parameter's info).")
    T.symbolic_shape = property(lambda self: None, doc="None: shapes are static.")
    T.const_arg = property(lambda self: getattr(self, "_const_arg", False),
                           doc="Whether jit specializes on this tensor's value (set_const_arg).")
    T.data = property(lambda self: Tensor._wrap(self._data), doc="A Tensor sharing self's data.")
    Tensor.delta_seed = 0
    Tensor.convert_bytes_to_tensor = staticmethod(_convert_bytes_to_tensor)


_attach_properties()


@tensor_alias("col2im")
def _col2im(self, output_size, kernel_size, dilation, padding_value, stride):
    """Col2Im: (N, C, kh * kw, L) columns summed back into (N, C, H, W) images of `output_size`
    (the inverse layout of unfold; overlaps add), as ops.fold."""
    if self.ndim != 4:
        raise OpValueError(f"For primitive[Col2Im], the x dimension must be equal to 4, but got {self.ndim}.")
    if not isinstance(output_size, Tensor):
        output_size = Tensor(np.asarray(output_size, np.int32))
    n, c, k, length = self.shape
    return ops.fold(F.reshape(self, (n, c * k, length)), output_size, kernel_size, dilation, padding_value, stride)


@tensor_alias("unique")
def _unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct values (sorted) of self, flattened or along `dim`; with return_inverse each
    element's index into them, with return_counts their counts (torch.unique's contract)."""
    x = self.asnumpy()
    if dim is None:
        values, inverse, counts = np.unique(x, return_inverse=True, return_counts=True)
        inverse = inverse.reshape(x.shape)
    else:
        values, inverse, counts = np.unique(x, return_inverse=True, return_counts=True, axis=dim)
        inverse = inverse.reshape(-1)
    out = (Tensor(values, self.dtype),)
    if return_inverse:
        out += (Tensor(inverse.astype(np.int64), mstype.int64),)
    if return_counts:
        out += (Tensor(counts.astype(np.int64), mstype.int64),)
    return out[0] if len(out) == 1 else out


class _DLPackCapsule:
    """A DLPack capsule presented as an object NumPy's from_dlpack accepts (host memory)."""

    def __init__(self, capsule):
        self._capsule = capsule

    def __dlpack__(self, stream=None, **kwargs):
        return self._capsule

    def __dlpack_device__(self):
        return (1, 0)            # kDLCPU, device 0


@tensor_alias("to_dlpack")
def _to_dlpack(self):
    """A DLPack capsule sharing self's memory (consumable once, by from_dlpack or another framework).
    Not for bfloat16: the capsule is NumPy's, whose DLPack export has no bfloat16 (MindSpore's has)."""
    if self.dtype == mstype.bfloat16:
        raise OpTypeError("For 'Tensor.to_dlpack', a bfloat16 tensor cannot be exported by pycompile yet (NumPy's "
                          "DLPack export has no bfloat16): convert it with .float() first")
    return np.ascontiguousarray(self._data).__dlpack__()


def _from_dlpack(dlpack):
    """A Tensor sharing the memory of a DLPack capsule or of an object with __dlpack__ (host memory)."""
    source = dlpack if hasattr(dlpack, "__dlpack__") else _DLPackCapsule(dlpack)
    return Tensor._wrap(np.from_dlpack(source))


Tensor.from_dlpack = staticmethod(_from_dlpack)
