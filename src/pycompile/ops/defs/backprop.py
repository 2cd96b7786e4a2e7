"""Ops gradients need that users rarely write: StopGradient (ops.stop_gradient), and the
scatters that send a cotangent back to where a slice or a gather read it from.

StridedSliceGrad(g) is a tensor of `shape` that is zero except at the positions
StridedSlice(x, begin, end, strides) reads, which hold g. GatherGrad(g, indices) is a tensor
of `shape` where each slice of g is added at the index it was gathered from (repeated indices
accumulate). Their C renderings are in pycompile/ops/c/backprop.py.
"""
from __future__ import annotations

import numpy as np

from pycompile.common.abstract import ScalarType, TensorType
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


StridedSliceGrad = defop("StridedSliceGrad", ("dy",), attrs={"shape": (), "begin": (), "end": (), "strides": ()},
                         infer=_slice_grad_infer, eager=_slice_grad_eager, kind=Kind.LAYOUT, batch="slice_grad",
                         lower=Template("slice_grad", moves_data=True))


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


GatherGrad = defop("GatherGrad", ("dy", "indices"), attrs={"shape": (), "axis": 0}, infer=_gather_grad_infer,
                   eager=_gather_grad_eager, kind=Kind.LAYOUT, batch="gather_grad", lower=Template("gather_grad"))


# the ops this module declares (what `pycompile.ops.prims` re-exports)
__all__ = [_n for _n, _v in list(globals().items()) if isinstance(_v, OpDef)]
