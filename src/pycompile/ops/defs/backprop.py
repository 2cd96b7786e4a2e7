"""Ops gradients need that users rarely write: StopGradient (ops.stop_gradient), and the
scatters that send a cotangent back to where a slice or a gather read it from.

StridedSliceGrad(g) is a tensor of `shape` that is zero except at the positions
StridedSlice(x, begin, end, strides) reads, which hold g. GatherGrad(g, indices) is a tensor
of `shape` where each slice of g is added at the index it was gathered from (repeated indices
accumulate). Their C renderings are in pycompile/backend/c/ops/backprop.py.
"""
from __future__ import annotations

import math

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import ScalarType, TensorType, type_of
from pycompile.common.tensor import Tensor
from pycompile.ops._table import Kind, OpDef, OpTypeError, defop, describe, norm_axis, tensor_arg
from pycompile.ops.defs.array import _slice_eager, _slice_infer
from pycompile.ops.lowering import Template, View

StopGradient = defop("StopGradient", ("x",), infer=lambda types: types[0], eager=lambda x: x,
                     kind=Kind.LAYOUT, lower=View(), batch="elementwise",
                     doc="x, with no gradient flowing through it")


def _custom_grad_eager(x, inputs, rule=0):
    return x


CustomGrad = defop("CustomGrad", ("x", "inputs"), attrs={"rule": 0}, variadic=True,
                   infer=lambda types, rule=0: types[0], eager=_custom_grad_eager,
                   kind=Kind.LAYOUT, lower=View(), batch="loop", cse=False,
                   doc="x, whose gradient (and that of `inputs`) is given by a user rule (a Cell's bprop, "
                       "InsertGradientOf, HookBackward, a backward hook): autodiff/custom.py")


def _slice_grad_infer(types, shape, begin, end, strides):
    g = tensor_arg("StridedSliceGrad", types[0], "dy")
    want = _slice_infer([TensorType(g.dtype, tuple(shape))], begin, end, strides)
    if want.shape != g.shape:
        raise OpTypeError(f"For 'StridedSliceGrad', dy must have the sliced shape {list(want.shape)}, "
                          f"but got {describe(g)}")
    return TensorType(g.dtype, tuple(shape))


def _slice_grad_eager(g, shape, begin, end, strides):
    out = np.zeros(tuple(shape), np.asarray(g).dtype)
    view = _slice_eager(out, begin, end, strides)
    view[...] = g          # a basic-indexing view of `out`
    return out


def _slice_grad_parts(g, shape, begin, end, strides):
    """zeros(shape) with dy written at the positions StridedSlice reads: TensorScatterUpdate of
    the flattened tensor at those positions' flat indices (a table built from the attributes;
    an update, not an add, so a -0 of dy stays -0 as the template's store keeps it)."""
    from pycompile.ops.defs.array import Fill, Reshape
    from pycompile.ops.defs.elementwise import call
    from pycompile.ops.defs.index import TensorScatterUpdate
    shape = tuple(shape)
    gt = type_of(g)
    size = math.prod(shape)
    pos = _slice_eager(np.arange(size, dtype=np.int64).reshape(shape), begin, end, strides).reshape(-1, 1)
    zeros = call(Fill, shape=(size,), value=0, dtype=gt.dtype)
    if pos.size == 0:
        return call(Reshape, zeros, shape=shape)
    flat = call(TensorScatterUpdate, zeros, Tensor(pos), call(Reshape, g, shape=(pos.shape[0],)))
    return call(Reshape, flat, shape=shape)


StridedSliceGrad = defop("StridedSliceGrad", ("dy",), attrs={"shape": (), "begin": (), "end": (), "strides": ()},
                         infer=_slice_grad_infer, eager=_slice_grad_eager, kind=Kind.LAYOUT, batch="slice_grad",
                         lower=Template("slice_grad", moves_data=True), decompose=_slice_grad_parts,
                         fast_path=True)


def _gather_grad_infer(types, shape, axis=0):
    g = tensor_arg("GatherGrad", types[0], "dy")
    idx = types[1]
    if isinstance(idx, ScalarType):
        idx = TensorType(g.dtype, ())
    idx = tensor_arg("GatherGrad", idx, "indices")
    shape = tuple(shape)
    ax = norm_axis("GatherGrad", axis, len(shape))
    want = shape[:ax] + idx.shape + shape[ax + 1:]
    if g.shape != want:
        raise OpTypeError(f"For 'GatherGrad', dy must have the gathered shape {list(want)}, but got {describe(g)}")
    return TensorType(g.dtype, shape)


def _gather_grad_eager(g, idx, shape, axis=0):
    shape = tuple(shape)
    ax = axis % len(shape)
    out = np.zeros(shape, np.asarray(g).dtype)
    idx = np.asarray(idx).astype(np.int64) % shape[ax]
    g = np.asarray(g)
    # move the gathered axes to the front: out[idx[k]] += g[k] along `ax`
    moved = np.moveaxis(out, ax, 0)
    gm = g.reshape(shape[:ax] + (idx.size,) + shape[ax + 1:])
    np.add.at(moved, idx.reshape(-1), np.moveaxis(gm, ax, 0))
    return out


def _gather_grad_parts(g, idx, shape, axis=0):
    """zeros(N, A, B) += dy's slices at their indices (TensorScatterAdd, in index order as the
    template adds them), the gathered axis moved to the front and back: (A, K, B) -> (K, A, B)
    -> scatter into (N, A, B) -> (A, N, B) -> shape. A negative index counts from the end."""
    from pycompile.ops.defs.array import Fill, Reshape, Transpose
    from pycompile.ops.defs.elementwise import Add, Less, Select, call, cast
    from pycompile.ops.defs.index import TensorScatterAdd
    shape = tuple(shape)
    ax = axis % len(shape)
    a, n, b = math.prod(shape[:ax]), shape[ax], math.prod(shape[ax + 1:])
    it = type_of(idx)
    k = math.prod(it.shape) if isinstance(it, TensorType) else 1
    dt = type_of(g).dtype
    if not isinstance(it, TensorType):
        idx = cast(idx, mstype.int64)
    i = call(Reshape, idx, shape=(k, 1))
    i = call(Select, call(Less, i, 0), call(Add, i, n), i)
    g3 = call(Transpose, call(Reshape, g, shape=(a, k, b)), perm=(1, 0, 2))
    out = call(TensorScatterAdd, call(Fill, shape=(n, a, b), value=0, dtype=dt), i, g3)
    return call(Reshape, call(Transpose, out, perm=(1, 0, 2)), shape=shape)


GatherGrad = defop("GatherGrad", ("dy", "indices"), attrs={"shape": (), "axis": 0}, infer=_gather_grad_infer,
                   eager=_gather_grad_eager, kind=Kind.LAYOUT, batch="gather_grad", lower=Template("gather_grad"),
                   decompose=_gather_grad_parts, fast_path=True)


# the ops this module declares (what `pycompile.ops.prims` re-exports)
__all__ = [_n for _n, _v in list(globals().items()) if isinstance(_v, OpDef)]
