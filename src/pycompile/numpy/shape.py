"""mindspore.numpy's shape and layout functions: reshape / transpose / axes moves, expand and
squeeze, atleast_Nd and broadcasting, joining and splitting, tile / repeat / flip / roll / rot90,
and indexing helpers (take, take_along_axis, choose, select). All are pycompile layout ops with
the sizes known when compiling."""
from __future__ import annotations

import builtins

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.numpy._utils import const, ndim, norm_axes, norm_axis, shape, to_tensor, ttype
from pycompile.ops import functional as F
from pycompile.ops._table import OpTypeError, OpValueError


def _t(x):
    return to_tensor(x)


def reshape(x, new_shape):
    return F.reshape(_t(x), tuple(new_shape) if isinstance(new_shape, list) else new_shape)


def ravel(x):
    return F.reshape(_t(x), (-1,))


def transpose(a, axes=None):
    a = _t(a)
    perm = tuple(builtins.range(ndim(a)))[::-1] if axes is None else tuple(norm_axis(x, ndim(a), "transpose")
                                                                          for x in axes)
    return F.transpose(a, perm)


def swapaxes(x, axis1, axis2):
    x = _t(x)
    perm = list(builtins.range(ndim(x)))
    a1, a2 = norm_axis(axis1, ndim(x), "swapaxes"), norm_axis(axis2, ndim(x), "swapaxes")
    perm[a1], perm[a2] = perm[a2], perm[a1]
    return F.transpose(x, tuple(perm))


def moveaxis(a, source, destination):
    a = _t(a)
    src = norm_axes(source, ndim(a), "moveaxis")
    dst = norm_axes(destination, ndim(a), "moveaxis")
    if len(src) != len(dst):
        raise OpValueError("For 'moveaxis', source and destination must have the same number of elements")
    rest = [d for d in builtins.range(ndim(a)) if d not in src]
    perm = [None] * ndim(a)
    for s, d in zip(src, dst):
        perm[d] = s
    it = iter(rest)
    perm = [p if p is not None else next(it) for p in perm]
    return F.transpose(a, tuple(perm))


def rollaxis(x, axis, start=0):
    x = _t(x)
    nd = ndim(x)
    axis = norm_axis(axis, nd, "rollaxis")
    if not -nd <= start <= nd:
        raise OpValueError(f"For 'rollaxis', start {start} is out of range for a {nd}-D tensor")
    start = start % (nd + 1) if start < 0 else start
    if axis < start:
        start -= 1
    return moveaxis(x, axis, start)


def expand_dims(a, axis):
    a = _t(a)
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    out_nd = ndim(a) + len(axes)
    axes = sorted(norm_axis(x, out_nd, "expand_dims") for x in axes)
    dims = list(shape(a))
    for x in axes:
        dims.insert(x, 1)
    return F.reshape(a, tuple(dims))


def squeeze(a, axis=None):
    a = _t(a)
    if axis is None:
        return F.reshape(a, tuple(n for n in shape(a) if n != 1))
    axes = norm_axes(axis, ndim(a), "squeeze")
    for x in axes:
        if shape(a)[x] != 1:
            raise OpValueError(f"For 'squeeze', cannot select an axis to squeeze out which has size not equal to "
                               f"one: axis {x} of shape {shape(a)}")
    return F.reshape(a, tuple(n for d, n in enumerate(shape(a)) if d not in axes))


def _atleast(arys, n, where):
    out = []
    for a in arys:
        a = _t(a)
        if ndim(a) < n:
            s = shape(a)
            if where == "front" or ndim(a) == 0:
                s = (1,) * (n - ndim(a)) + s
            elif n == 3:
                s = ((1,) + s + (1,)) if ndim(a) == 1 else s + (1,)
            a = F.reshape(a, s)
        out.append(a)
    return out[0] if len(out) == 1 else out


def atleast_1d(*arys):
    return _atleast(arys, 1, "front")


def atleast_2d(*arys):
    return _atleast(arys, 2, "front")


def atleast_3d(*arys):
    return _atleast(arys, 3, "sides")


def broadcast_to(array, shape_):
    return F.broadcast_to(_t(array), tuple(shape_) if not isinstance(shape_, int) else (shape_,))


def broadcast_arrays(*args):
    ts = [_t(a) for a in args]
    out_shape = tuple(np.broadcast_shapes(*[shape(t) for t in ts]))
    return [F.broadcast_to(t, out_shape) for t in ts]


# ---- joining -----------------------------------------------------------------------------------------------
def _seq(arrays, name):
    if is_tensor_like(arrays):
        a = _t(arrays)
        return [a[i] for i in builtins.range(shape(a)[0])]
    if not isinstance(arrays, (list, tuple)) or not arrays:
        raise OpTypeError(f"For '{name}', the input must be a non-empty tuple or list of tensors")
    return [_t(a) for a in arrays]


def is_tensor_like(x):
    from pycompile.numpy._utils import is_tensor
    return is_tensor(x)


def concatenate(arrays, axis=0):
    ts = _seq(arrays, "concatenate")
    if axis is None:
        ts, axis = [F.reshape(t, (-1,)) for t in ts], 0
    if len(ts) == 1:
        return ts[0]
    dt = ttype(ts[0]).dtype
    for t in ts[1:]:
        dt = mstype.promote(dt, ttype(t).dtype)
    return F.concat([F.cast(t, dt) if ttype(t).dtype != dt else t for t in ts], axis)


def stack(arrays, axis=0):
    ts = _seq(arrays, "stack")
    return F.stack(ts, axis)


def hstack(tup):
    ts = _seq(tup, "hstack")
    return concatenate(ts, 0 if ndim(ts[0]) == 1 else 1)


def _listed(r):
    return r if isinstance(r, list) else [r]


def vstack(tup):
    return concatenate(_listed(atleast_2d(*_seq(tup, "vstack"))), 0)


def dstack(tup):
    return concatenate(_listed(atleast_3d(*_seq(tup, "dstack"))), 2)


def column_stack(tup):
    ts = [F.reshape(t, (-1, 1)) if ndim(t) <= 1 else t for t in _seq(tup, "column_stack")]
    return concatenate(ts, 1)


def append(arr, values, axis=None):
    arr, values = _t(arr), _t(values)
    if axis is None:
        return concatenate([F.reshape(arr, (-1,)), F.reshape(values, (-1,))], 0)
    return concatenate([arr, values], axis)


# ---- splitting ---------------------------------------------------------------------------------------------------
def _pieces(x, axis, bounds):
    out = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        begin = tuple(lo if d == axis else 0 for d in builtins.range(ndim(x)))
        end = tuple(hi if d == axis else n for d, n in enumerate(shape(x)))
        out.append(F.strided_slice(x, begin, end, (1,) * ndim(x)))
    return out


def _split(x, indices_or_sections, axis, name, even):
    x = _t(x)
    axis = norm_axis(axis, ndim(x), name)
    n = shape(x)[axis]
    if isinstance(indices_or_sections, (int, np.integer)):
        k = int(indices_or_sections)
        if k <= 0:
            raise OpValueError(f"For '{name}', the number of sections must be positive, but got {k}")
        if even and n % k:
            raise OpValueError(f"For 'Split', x_shape[{axis}] must be divisible by output_num = {k}, but got {n}")
        q, r = divmod(n, k)
        sizes = [q + 1] * r + [q] * (k - r)
        bounds = [0] + list(np.cumsum(sizes))
        return tuple(_pieces(x, axis, [int(b) for b in bounds]))
    idx = [builtins.min(builtins.max(int(i) if i >= 0 else int(i) + n, 0), n) for i in indices_or_sections]
    bounds = [0] + idx + [n]
    bounds = [builtins.max(b, bounds[i - 1]) if i else b for i, b in enumerate(bounds)]
    return _pieces(x, axis, bounds)


def split(x, indices_or_sections, axis=0):
    return _split(x, indices_or_sections, axis, "split", True)


def array_split(x, indices_or_sections, axis=0):
    return _split(x, indices_or_sections, axis, "array_split", False)


def hsplit(x, indices_or_sections):
    x = _t(x)
    return split(x, indices_or_sections, 0 if ndim(x) == 1 else 1)


def vsplit(x, indices_or_sections):
    return split(x, indices_or_sections, 0)


def dsplit(x, indices_or_sections):
    return split(x, indices_or_sections, 2)


# ---- tile, repeat, flips, rolls ------------------------------------------------------------------------------------
def tile(a, reps):
    a = _t(a)
    reps = (reps,) if isinstance(reps, int) else tuple(reps)
    nd = builtins.max(ndim(a), len(reps))
    a = F.reshape(a, (1,) * (nd - ndim(a)) + shape(a))
    return F.tile(a, (1,) * (nd - len(reps)) + reps)


def repeat(a, repeats, axis=None):
    a = _t(a)
    if axis is None:
        a, axis = F.reshape(a, (-1,)), 0
    axis = norm_axis(axis, ndim(a), "repeat")
    n = shape(a)[axis]
    reps = [repeats] * n if isinstance(repeats, int) else list(repeats)
    if len(reps) == 1:
        reps = reps * n
    if len(reps) != n:
        raise OpValueError(f"For 'repeat', repeats has {len(reps)} entries for an axis of size {n}")
    idx = np.repeat(np.arange(n), reps).astype(np.int32)
    return F.gather(a, const(idx), axis)


def flip(m, axis=None):
    m = _t(m)
    axes = norm_axes(axis, ndim(m), "flip")
    return F.reverse(m, axes) if axes else m


def fliplr(m):
    return flip(m, 1)


def flipud(m):
    return flip(m, 0)


def roll(a, shift, axis=None):
    a = _t(a)
    if axis is None:
        return F.reshape(roll(F.reshape(a, (-1,)), shift, 0), shape(a))
    shifts = (shift,) if isinstance(shift, int) else tuple(shift)
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    if len(shifts) == 1:
        shifts = shifts * len(axes)
    if len(axes) == 1 and len(shifts) > 1:
        axes = axes * len(shifts)
    for s, ax in zip(shifts, axes):
        ax = norm_axis(ax, ndim(a), "roll")
        n = shape(a)[ax]
        if n:
            idx = (np.arange(n) - s) % n
            a = F.gather(a, const(idx.astype(np.int32)), ax)
    return a


def rot90(a, k=1, axes=(0, 1)):
    a = _t(a)
    a0, a1 = (norm_axis(x, ndim(a), "rot90") for x in axes)
    k %= 4
    if k == 0:
        return a
    if k == 2:
        return flip(a, (a0, a1))
    if k == 1:
        return swapaxes(flip(a, a1), a0, a1)
    return flip(swapaxes(a, a0, a1), a1)


# ---- indexing ---------------------------------------------------------------------------------------------------
def _clip_index(idx, n, mode):
    idx = F.cast(_t(idx), mstype.int32)
    if mode == "wrap":
        return F.floor_mod(idx, n)
    if mode in ("clip", "raise"):
        return F.minimum(F.maximum(idx, 0), n - 1)
    raise OpValueError(f"For 'take', mode must be 'raise', 'wrap' or 'clip', but got {mode!r}")


def take(a, indices, axis=None, mode="clip"):
    a = _t(a)
    if axis is None:
        a, axis = F.reshape(a, (-1,)), 0
    axis = norm_axis(axis, ndim(a), "take")
    return F.gather(a, _clip_index(indices, shape(a)[axis], mode), axis)


def take_along_axis(arr, indices, axis):
    arr, indices = _t(arr), _t(indices)
    if axis is None:
        arr, axis = F.reshape(arr, (-1,)), 0
    axis = norm_axis(axis, ndim(arr), "take_along_axis")
    out_shape = tuple(np.broadcast_shapes(tuple(n if d != axis else 1 for d, n in enumerate(shape(arr))),
                                          tuple(n if d != axis else 1 for d, n in enumerate(shape(indices)))))
    dims = builtins.range(ndim(arr))
    full_idx = F.broadcast_to(F.cast(indices, mstype.int32),
                              tuple(shape(indices)[d] if d == axis else out_shape[d] for d in dims))
    src = F.broadcast_to(arr, tuple(shape(arr)[d] if d == axis else out_shape[d] for d in dims))
    return F.gather_elements(src, axis, full_idx)


def choose(a, choices, mode="clip"):
    a = F.cast(_t(a), mstype.int32)
    cs = [_t(c) for c in choices]
    out_shape = tuple(np.broadcast_shapes(shape(a), *[shape(c) for c in cs]))
    stacked = F.stack([F.broadcast_to(c, out_shape) for c in cs], 0)
    idx = _clip_index(F.broadcast_to(a, out_shape), len(cs), mode)
    return F.squeeze(F.gather_elements(stacked, 0, F.expand_dims(idx, 0)), 0)


def select(condlist, choicelist, default=0):
    if len(condlist) != len(choicelist):
        raise OpValueError("For 'select', condlist and choicelist must have the same length")
    choices = [_t(c) for c in choicelist]
    conds = [F.cast(_t(c), mstype.bool_) for c in condlist]
    out_shape = tuple(np.broadcast_shapes(*[shape(c) for c in choices + conds]))
    dt = ttype(choices[0]).dtype
    out = F.cast(F.broadcast_to(_t(default), out_shape), dt)
    for c, v in zip(reversed(conds), reversed(choices)):
        out = F.select(F.broadcast_to(c, out_shape), F.cast(F.broadcast_to(v, out_shape), dt), out)
    return out


def size(a, axis=None):
    a = _t(a)
    if axis is None:
        return int(np.prod(shape(a), dtype=np.int64))
    return shape(a)[norm_axis(axis, ndim(a), "size")]


__all__ = ["reshape", "ravel", "transpose", "swapaxes", "moveaxis", "rollaxis", "expand_dims", "squeeze",
           "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_to", "broadcast_arrays", "concatenate", "stack",
           "hstack", "vstack", "dstack", "column_stack", "append", "split", "array_split", "hsplit", "vsplit",
           "dsplit", "tile", "repeat", "flip", "fliplr", "flipud", "roll", "rot90", "take", "take_along_axis",
           "choose", "select", "size"]
