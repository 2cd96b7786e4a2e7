"""In-place Tensor methods (`x.add_(y)`, `x.fill_(0)`, `x.scatter_(...)` ...), as MindSpore 2.10
documents them: the result has `self`'s shape and dtype, is written into `self`, and `self` is
returned.

Each method is its out-of-place computation followed by `_become(self, result)`:

- a PyNative Tensor: the result, cast to the tensor's dtype and broadcast to its shape, is written
  into its buffer (every reference sees the change); a Parameter is written with `ops.assign`
  (in graph code too: an ordered effect);
- graph code: a tensor is an immutable value there, so `x.add_(y)` *rebinds the name* `x` to the
  new value (compiler/expressions.py, as `x[i] = v` does) and returns it; loops and branches carry
  `x` as they carry an assigned name. Another name bound to the old value keeps it. A receiver that
  is not a name nor a Parameter (`self.buf.add_(1)` on a plain Tensor attribute) is refused at the
  user's line: nothing could see the update;
- inside `grad` / `vmap` in PyNative, the traced value itself becomes the result (gradients flow
  through the in-place op as through its out-of-place form: with respect to the value before it).

MindSpore 2.10's CPU wheel does not do this in PyNative: `x.add_(y)` returns a new tensor and leaves
`x` unchanged, and most in-place kernels are missing there ("The kernel InplaceFillScalar
unregistered"). Its graph mode does update `x` (`@jit def f(x): x.add_(1); return x` returns x + 1).
pycompile follows the documentation and the graph mode in both modes; the values the wheel returns
are recorded in tests/conformance/cases_inplace.py.
"""
from __future__ import annotations

import numbers

import numpy as np

import pycompile.ops as ops
from pycompile.common import dtype as mstype
from pycompile.common.abstract import Symbolic
from pycompile.common.parameter import Parameter
from pycompile.common.tensor import Tensor, TensorMethods
from pycompile.ops import functional as F
from pycompile.ops import tracing
from pycompile.ops._table import OpTypeError, OpValueError
from pycompile.ops.entry import tensor_alias

# the in-place method names: the graph frontend rebinds the receiver's name after these
# (compiler/expressions.py), and counts `x.m_(...)` as an assignment of x in loops and branches
INPLACE_METHODS: set = set()


def _fit(name: str, x, r):
    """`r` with x's dtype and shape (broadcast): MindSpore's in-place ops keep self's."""
    if not isinstance(r, TensorMethods):
        r = Tensor(r, x.dtype)
    if r.dtype != x.dtype:
        r = F.cast(r, x.dtype)
    if tuple(r.shape) != tuple(x.shape):
        try:
            ok = np.broadcast_shapes(tuple(r.shape), tuple(x.shape)) == tuple(x.shape)
        except ValueError:
            ok = False
        if not ok:
            raise OpValueError(f"For 'Tensor.{name}', the result of shape {list(r.shape)} cannot be written into "
                               f"'self' of shape {list(x.shape)}: the other operands must broadcast to self's shape.")
        r = F.broadcast_to(r, tuple(x.shape))
    return r


def _become(name: str, x, r):
    r = _fit(name, x, r)
    if isinstance(x, Parameter):
        F.assign(x, r)
        return x
    if isinstance(x, Tensor):
        building = tracing.capturing()
        if getattr(building, "walks_code", False) or (isinstance(r, Symbolic) and r._tracer.walks_code):
            return r            # graph code: the frontend rebinds the receiver's name to r
        if isinstance(r, Symbolic):
            raise OpTypeError(f"For 'Tensor.{name}', a Tensor that is not differentiated or vmapped cannot take a "
                              "differentiated or vmapped value in place; use the out-of-place form")
        np.copyto(x._data, r._data)
        return x
    if x._tracer.walks_code:
        return r                # a graph value: the frontend rebinds the name
    # a PyNative transformation's value (grad's tape, vmap's batch): it becomes the result
    if type(r) is not type(x) or r.trace is not x.trace:
        r = F.select(F.ones_like(x, dtype=mstype.bool_), r, x)
    if type(r) is not type(x) or r.trace is not x.trace:
        raise OpTypeError(f"For 'Tensor.{name}', the in-place update of a transformed value mixes two "
                          "transformations; use the out-of-place form")
    for slot in type(x).__slots__:
        setattr(x, slot, getattr(r, slot))
    return x


def inplace(name: str):
    """Declare `Tensor.<name>` as the in-place form of the decorated out-of-place computation."""
    def declare(compute):
        def method(self, *args, **kwargs):
            return _become(name, self, compute(self, *args, **kwargs))
        method.__doc__ = compute.__doc__
        method.__pycompile_inplace__ = True
        INPLACE_METHODS.add(name)
        return tensor_alias(name)(method)
    return declare


def _scaled(other, alpha):
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Number):
        raise OpTypeError(f"For 'alpha', the type must be a number, but got {type(alpha).__name__}.")
    return other if alpha == 1 else F.mul(other, alpha)


# ---- arithmetic -------------------------------------------------------------------------------------
@inplace("add_")
def _add(self, other, *, alpha=1):
    """`self += alpha * other` (other broadcasts to self's shape); returns self."""
    return F.add(self, _scaled(other, alpha))


@inplace("sub_")
def _sub(self, other, *, alpha=1):
    """`self -= alpha * other`; returns self."""
    return F.sub(self, _scaled(other, alpha))


@inplace("mul_")
def _mul(self, other):
    """`self *= other`; returns self."""
    return F.mul(self, other)


@inplace("div_")
def _div(self, other, *, rounding_mode=None):
    """`self /= other` (rounding_mode None, 'floor' or 'trunc' as ops.div); returns self."""
    return ops.div(self, other, rounding_mode=rounding_mode)


@inplace("floor_divide_")
def _floor_divide(self, other):
    """`self //= other`; returns self."""
    return F.floor_divide(self, other)


@inplace("remainder_")
def _remainder(self, other):
    """`self %= other` (Python's sign rule: the divisor's); returns self."""
    return F.remainder(self, other)


@inplace("addmm_")
def _addmm(self, mat1, mat2, *, beta=1, alpha=1):
    """`self = beta * self + alpha * (mat1 @ mat2)`; returns self."""
    return ops.addmm(self, mat1, mat2, beta=beta, alpha=alpha)


@inplace("clamp_")
def _clamp(self, min=None, max=None):
    """Clamp self to [min, max] in place; returns self."""
    return ops.clamp(self, min, max)


def _unary(name, op):
    def compute(self):
        return getattr(ops, op)(self)
    compute.__doc__ = f"`self = ops.{op}(self)`; returns self."
    inplace(name)(compute)


for _name in ("exp_", "log_", "sigmoid_", "tanh_", "floor_", "sign_"):
    _unary(_name, _name[:-1])


# ---- filling and copying ----------------------------------------------------------------------------
def _fill_value(name, self, value):
    if isinstance(value, TensorMethods):
        if value.ndim > 1 or value.size != 1:
            raise RuntimeError(f"For 'Tensor.{name}', when the `value` is Tensor, it should be 0-D Tensor or "
                               f"1-D Tensor with shape=[1], but got shape {list(value.shape)}.")
        return F.reshape(F.cast(value, self.dtype), ())
    if isinstance(value, (bool, numbers.Number, np.number, np.bool_)):
        return Tensor(np.array(value).astype(self.dtype.np) if not self.dtype.is_bool else bool(value), self.dtype)
    raise OpTypeError(f"For 'Tensor.{name}', the type of 'value' must be a number, bool or Tensor, "
                      f"but got {type(value).__name__}.")


@inplace("fill_")
def _fill(self, value):
    """Every element of self set to `value` (a number, bool, or a one-element Tensor); returns self."""
    return F.broadcast_to(_fill_value("fill_", self, value), tuple(self.shape))


@inplace("zero_")
def _zero(self):
    """Every element of self set to 0; returns self."""
    return F.zeros_like(self)


@inplace("copy_")
def _copy(self, src, non_blocking=False):
    """self's elements replaced by `src`'s (broadcast to self's shape, cast to self's dtype, as
    MindSpore documents for Ascend; its CPU build needs equal shapes and dtypes); returns self."""
    if not isinstance(src, TensorMethods):
        raise OpTypeError(f"For 'Tensor.copy_', 'src' must be a Tensor, but got {type(src).__name__}.")
    return src


@inplace("masked_fill_")
def _masked_fill(self, mask, value):
    """self's elements where `mask` is True set to `value`; returns self."""
    return ops.masked_fill(self, mask, value)


@inplace("fill_diagonal_")
def _fill_diagonal(self, fill_value, wrap=False):
    """The main diagonal of self set to `fill_value` (every dimension equal when self has more than
    2; for a tall matrix `wrap=True` restarts the diagonal every ncols + 1 rows); returns self."""
    shape = tuple(self.shape)
    if len(shape) < 2:
        raise OpValueError(f"For 'Tensor.fill_diagonal_', the dimension of 'self' must be greater than 1, "
                           f"but got {len(shape)}.")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise OpValueError("For 'Tensor.fill_diagonal_', all dimensions of 'self' must be of equal length, "
                           f"but got {list(shape)}.")
    mask = np.zeros(shape, np.bool_)
    if len(shape) == 2:
        rows, cols = shape
        flat = mask.reshape(-1)
        end = rows * cols if wrap else min(rows, cols) * cols
        flat[0:end:cols + 1] = True
    else:
        idx = np.arange(shape[0])
        mask[(idx,) * len(shape)] = True
    return F.select(Tensor(mask), F.broadcast_to(_fill_value("fill_diagonal_", self, fill_value), shape), self)


# ---- indexed writes ---------------------------------------------------------------------------------
def _axis(name, dim, rank):
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
        raise OpTypeError(f"For 'Tensor.{name}', 'dim' must be an int, but got {type(dim).__name__}.")
    if not -max(rank, 1) <= dim < max(rank, 1):
        raise RuntimeError(f"For 'Tensor.{name}', 'dim' must be in range [{-max(rank, 1)}, {max(rank, 1)}), "
                           f"but got {dim}.")
    return dim % max(rank, 1)


def _index_along(name, self, dim, index, updates_shape):
    """A full index for tensor_scatter_elements: `index` (1-D, or 0-D) placed along `dim` and
    broadcast to the updates' shape."""
    if not isinstance(index, TensorMethods) or index.dtype not in (mstype.int32, mstype.int64):
        raise OpTypeError(f"For 'Tensor.{name}', 'index' must be a Tensor of int32 or int64.")
    if index.ndim > 1:
        raise OpValueError(f"For 'Tensor.{name}', 'index' must be a 0-D or 1-D Tensor, but got {index.ndim}-D.")
    index = F.reshape(index, (-1,))
    view = [1] * len(updates_shape)
    view[dim] = index.shape[0]
    return F.broadcast_to(F.reshape(index, tuple(view)), tuple(updates_shape))


@inplace("index_add_")
def _index_add(self, dim, index, source, *, alpha=1):
    """self[..., index[i], ...] += alpha * source[..., i, ...] along `dim`; returns self."""
    dim = _axis("index_add_", dim, self.ndim)
    full = _index_along("index_add_", self, dim, index, tuple(source.shape))
    return ops.tensor_scatter_elements(self, full, F.cast(_scaled(source, alpha), self.dtype), dim, "add")


@inplace("index_copy_")
def _index_copy(self, dim, index, tensor):
    """self[..., index[i], ...] = tensor[..., i, ...] along `dim`; returns self."""
    dim = _axis("index_copy_", dim, self.ndim)
    full = _index_along("index_copy_", self, dim, index, tuple(tensor.shape))
    return ops.tensor_scatter_elements(self, full, F.cast(tensor, self.dtype), dim)


@inplace("index_fill_")
def _index_fill(self, dim, index, value):
    """self[..., index[i], ...] = value along `dim` (value a number or a 0-D Tensor); returns self."""
    dim = _axis("index_fill_", dim, self.ndim)
    n = int(np.prod(index.shape)) if isinstance(index, TensorMethods) else 0
    shape = list(self.shape) or [1]
    shape[dim] = n
    v = F.broadcast_to(_fill_value("index_fill_", self, value), tuple(shape))
    full = _index_along("index_fill_", self, dim, index, tuple(shape))
    return ops.tensor_scatter_elements(self, full, v, dim)


_REDUCE = {None: "none", "none": "none", "add": "add", "multiply": "mul"}


@inplace("scatter_")
def _scatter(self, dim, index, src=None, *, value=None, reduce=None):
    """self[index[i][j]][j] = src[i][j] along `dim` (or a scalar `value`); `reduce` 'add' or
    'multiply' accumulates instead; returns self."""
    dim = _axis("scatter_", dim, self.ndim)
    if reduce not in _REDUCE:
        raise OpValueError(f"For 'Tensor.scatter_', 'reduce' must be 'add' or 'multiply', but got {reduce!r}.")
    if src is None:
        src = value
    if src is None:
        raise OpTypeError("For 'Tensor.scatter_', 'src' or 'value' is required.")
    if not isinstance(src, TensorMethods):
        src = F.broadcast_to(_fill_value("scatter_", self, src), tuple(index.shape))
    elif tuple(src.shape) != tuple(index.shape):
        src = ops.slice(src, (0,) * src.ndim, tuple(index.shape))
    if index.size == 0:
        return self
    return ops.tensor_scatter_elements(self, index, F.cast(src, self.dtype), dim, _REDUCE[reduce])


@inplace("scatter_add_")
def _scatter_add(self, dim, index, src):
    """self[index[i][j]][j] += src[i][j] along `dim`; returns self."""
    return _scatter(self, dim, index, src, reduce="add")


@inplace("put_")
def _put(self, index, source, accumulate=False):
    """self viewed as 1-D: self[index[k]] = source[k] (or += with accumulate); index and source have
    the same number of elements; a negative index counts from the end; returns self."""
    if not isinstance(index, TensorMethods) or index.dtype != mstype.int64:
        raise OpTypeError("For 'Tensor.put_', the dtype of 'index' must be Long (int64).")
    if not isinstance(source, TensorMethods) or source.dtype != self.dtype:
        raise OpTypeError("For 'Tensor.put_', 'self' and 'source' must have the same dtype.")
    if index.size != source.size:
        raise RuntimeError(f"For 'Tensor.put_', 'index' and 'source' must have the same number of elements, "
                           f"but got {index.size} and {source.size}.")
    n = self.size
    flat_index = F.reshape(index, (-1,))
    flat_index = F.select(F.less(flat_index, 0), F.add(flat_index, n), flat_index)
    flat = F.reshape(self, (-1,))
    updates = F.reshape(source, (-1,))
    out = ops.tensor_scatter_elements(flat, flat_index, updates, 0, "add" if accumulate else "none")
    return F.reshape(out, tuple(self.shape))


@inplace("masked_scatter_")
def _masked_scatter(self, mask, source):
    """self's elements where `mask` (broadcast to self) is True replaced, in order, by source's first
    elements; returns self."""
    if not isinstance(mask, TensorMethods) or not isinstance(source, TensorMethods):
        raise OpTypeError("For 'Tensor.masked_scatter_', 'mask' and 'source' must be Tensors.")
    if mask.dtype != mstype.bool_:
        raise OpTypeError(f"For 'Tensor.masked_scatter_', the dtype of 'mask' must be bool, but got {mask.dtype}.")
    if mask.ndim > self.ndim:
        raise OpTypeError("For 'Tensor.masked_scatter_', the dim of 'self' must not be less than the dim of 'mask'.")
    m = F.reshape(F.broadcast_to(mask, tuple(self.shape)), (-1,))
    pos = F.sub(ops.cumsum(F.cast(m, mstype.int64), 0), 1)
    pos = F.select(m, pos, F.zeros_like(pos))
    src = F.reshape(F.cast(source, self.dtype), (-1,))
    if src.shape[0] == 0:
        return self
    pos = F.minimum(pos, src.shape[0] - 1)
    taken = ops.gather(src, pos, 0)
    return F.reshape(F.select(m, taken, F.reshape(self, (-1,))), tuple(self.shape))


# ---- random fills -----------------------------------------------------------------------------------
def _source(name, generator):
    """Where a random fill draws: the default generator, or `generator` (an ms.Generator)."""
    from pycompile.ops.generator import Generator, default_generator
    if generator is None:
        return default_generator.drawing()
    if not isinstance(generator, Generator):
        raise OpTypeError(f"For 'Tensor.{name}', 'generator' must be a Generator, but got {type(generator).__name__}.")
    return generator.drawing()


def _float_self(name, self):
    if not self.dtype.is_float:
        raise OpTypeError(f"For 'Tensor.{name}', the dtype of 'self' must be float, but got {self.dtype}.")


@inplace("uniform_")
def _uniform(self, from_=0, to=1, *, generator=None):
    """self filled with samples of U[from_, to); returns self."""
    _float_self("uniform_", self)
    if from_ > to:
        raise OpValueError(f"For 'Tensor.uniform_', 'from_' must be <= 'to', but got {from_} and {to}.")
    with _source("uniform_", generator):
        u = ops.rand_like(self, dtype=mstype.float32)
    return F.add(F.mul(u, float(to) - float(from_)), float(from_))


@inplace("normal_")
def _normal(self, mean=0, std=1, *, generator=None):
    """self filled with samples of N(mean, std²); returns self."""
    _float_self("normal_", self)
    if std < 0:
        raise OpValueError(f"For 'Tensor.normal_', 'std' must be >= 0, but got {std}.")
    with _source("normal_", generator):
        z = ops.randn_like(self, dtype=mstype.float32)
    return F.add(F.mul(z, float(std)), float(mean))


@inplace("exponential_")
def _exponential(self, lambd=1, *, generator=None):
    """self filled with samples of an exponential distribution of rate `lambd`; returns self."""
    _float_self("exponential_", self)
    if lambd <= 0:
        raise OpValueError(f"For 'Tensor.exponential_', 'lambd' must be > 0, but got {lambd}.")
    with _source("exponential_", generator):
        u = ops.rand_like(self, dtype=mstype.float32)
    return F.div(F.neg(F.log(F.sub(1.0, u))), float(lambd))


@inplace("bernoulli_")
def _bernoulli(self, p=0.5, *, generator=None):
    """self filled with 0 / 1 samples of Bernoulli(p) (p a number or a tensor broadcast to self);
    returns self."""
    with _source("bernoulli_", generator):
        u = ops.rand_like(self, dtype=mstype.float32)
    p = F.cast(p, mstype.float32) if isinstance(p, TensorMethods) else float(p)
    return F.less(u, p)


@inplace("random_")
def _random(self, from_=0, to=None, *, generator=None):
    """self filled with integers drawn uniformly from [from_, to) (to None: up to the largest integer
    self's dtype holds exactly, 2**24 for float32); returns self."""
    if to is None:
        if self.dtype.is_float:
            to = 2 ** (mstype.finfo(self.dtype.np).nmant + 1)
        elif self.dtype.is_bool:
            to = 2
        else:
            to = int(np.iinfo(self.dtype.np).max)
    if from_ >= to:
        raise OpValueError(f"For 'Tensor.random_', 'from_' must be < 'to', but got {from_} and {to}.")
    with _source("random_", generator):
        return ops.randint_like(self, int(from_), int(to), dtype=mstype.int64)


# ---- flags ------------------------------------------------------------------------------------------
def requires_grad_(self, requires_grad=True):
    """Set `requires_grad` (a Parameter's flag; on a Tensor it is recorded and ignored, as gradients
    are taken with grad / value_and_grad); returns self."""
    if not isinstance(requires_grad, bool):
        raise OpTypeError(f"For 'Tensor.requires_grad_', 'requires_grad' must be a bool, but got "
                          f"{type(requires_grad).__name__}.")
    if isinstance(self, Parameter):
        self.requires_grad = requires_grad
    elif isinstance(self, Tensor):
        self.__dict__["requires_grad"] = requires_grad
    return self


tensor_alias("requires_grad_")(requires_grad_)
