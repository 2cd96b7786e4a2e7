"""PadV3 (`ops.operations.nn_ops`) and PadV3Grad (`ops.operations._grad_ops`) as MindSpore 2.10's
Primitives (issue 33, pool33).

PadV3(mode, paddings_contiguous)(x, paddings[, constant_value]): `paddings` holds (before, after)
pairs for the last axes, the last axis first ((begin_0, begin_1, ..., end_0, end_1, ...) when
paddings_contiguous is False); negative amounts crop, and they crop FIRST: 'reflect', 'edge' and
'circular' then pad the cropped axis (the wheel's circular (1, -1) of [0, 1, 2, 3, 4] is
[3, 0, 1, 2, 3]). PadV3Grad is its adjoint: each padded position's gradient added back to the
element it copies (a one-hot matrix per padded axis), zeros for what the forward cropped.

`paddings` may be a tuple, a list or an integer Tensor whose values are known (PyNative, or a
constant in graph code). Values recorded from the wheel in tests/conformance/cases_pool33.py.
"""
import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import Symbolic
from pycompile.common.tensor import Tensor, TensorMethods
from pycompile.errors import InputValueNeeded
from pycompile.ops import function_image as FI
from pycompile.ops import functional as F
from pycompile.ops._table import OpTypeError, OpValueError
from pycompile.ops.defs import resample as RS
from pycompile.ops.entry import Arg, op_entry

_MODES = {"constant": "constant", "reflect": "reflect", "edge": "edge", "circular": "circular"}


def _check_mode(name, allowed):
    def check(v, op_name):
        if v not in allowed:
            raise OpValueError(f"For '{op_name}', the 'mode' should be one of {list(allowed)}, but got {v}.")
    return check


def _check_bool(v, op_name):
    if not isinstance(v, bool):
        raise OpTypeError(f"For '{op_name}', the type of 'paddings_contiguous' should be bool, but got "
                          f"{type(v).__name__}.")


def _values(name, paddings) -> tuple:
    """The paddings as Python ints (a tuple / list, or a Tensor whose values are known)."""
    if isinstance(paddings, Symbolic):
        # an argument of the compiled function is then compiled by value (pycompile.api)
        raise InputValueNeeded(f"For '{name}', the values of 'paddings' must be known when the graph is compiled: "
                               f"pass a tuple, or a Tensor argument of the compiled function or created in __init__ "
                               f"(not one computed in the graph).", paddings)
    if isinstance(paddings, TensorMethods):
        if paddings.dtype not in (mstype.int32, mstype.int64) or len(paddings.shape) != 1:
            raise OpTypeError(f"For '{name}', 'paddings' must be a 1-D int32 or int64 Tensor, but got "
                              f"{paddings.dtype} of rank {len(paddings.shape)}.")
        return tuple(int(v) for v in paddings.asnumpy())
    if isinstance(paddings, (tuple, list)) and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                                                   for v in paddings):
        return tuple(int(v) for v in paddings)
    raise OpTypeError(f"For '{name}', 'paddings' must be a tuple, list or Tensor of ints, but got {paddings!r}.")


def _pairs(name, x, paddings, mode, contiguous) -> dict:
    """{axis: (before, after)} from MindSpore's flat paddings."""
    p = _values(name, paddings)
    ndim = len(x.shape)
    if len(p) % 2 or len(p) > 2 * ndim:
        raise OpValueError(f"For '{name}', the length of 'paddings' must be even and at most {2 * ndim}, but got "
                           f"{len(p)}.")
    k = len(p) // 2
    if mode != "constant" and k + 2 != ndim:       # the wheel's message (PadV3Grad's has the numbers swapped)
        want, got = (k + 2, ndim) if name == "PadV3" else (ndim, k + 2)
        raise OpValueError(f"For primitive[{name}], the input dims when padding's size equal {len(p)} must be equal "
                           f"to {want}, but got {got}.")
    if not contiguous:
        p = tuple(v for i in range(k) for v in (p[i], p[i + k]))
    return {ndim - 1 - i: (p[2 * i], p[2 * i + 1]) for i in range(k)}


def _split(name, x, pairs):
    """(crops {axis: (b, a) <= 0}, pads {axis: (b, a) >= 0}), checking the sizes."""
    crops = {ax: (min(b, 0), min(a, 0)) for ax, (b, a) in pairs.items()}
    pads = {ax: (max(b, 0), max(a, 0)) for ax, (b, a) in pairs.items()}
    for ax, (b, a) in crops.items():
        if x.shape[ax] + b + a <= 0:
            raise OpValueError(f"For '{name}', the paddings {pairs[ax]} crop axis {ax} of size {x.shape[ax]} to "
                               f"nothing.")
    return crops, pads


def _table(n, b, a, mode):
    """Per padded position, the source index along the axis (None: the constant)."""
    if mode == "circular":
        return [j % n for j in range(-b, n + a)]
    index, _, is_pad = RS.pad_table(n, b, a, mode)
    return [None if pad else i for i, pad in zip(index[0], is_pad)]


@op_entry("pad_v3_primitive", primitive="PadV3", functional=False,
          args=[Arg("x"), Arg("paddings", "value"), Arg("constant_value", "value", default=None),
                Arg("mode", "value", default="constant", init=True, check=_check_mode("PadV3", _MODES)),
                Arg("paddings_contiguous", "value", default=True, init=True, check=_check_bool)])
def pad_v3_primitive(x, paddings, constant_value=None, mode="constant", paddings_contiguous=True):
    """Pad (or crop, negative amounts) the last axes of x in 'constant', 'reflect', 'edge' or
    'circular' mode."""
    name = "PadV3"
    if mode != "constant" and constant_value is not None:
        raise OpValueError(f"For '{name}', the 'constant_value' can only be given in 'constant' mode, but the mode "
                           f"is '{mode}'.")
    crops, pads = _split(name, x, _pairs(name, x, paddings, mode, paddings_contiguous))
    out = FI.pad_axes(name, x, crops, "constant") if any(b or a for b, a in crops.values()) else x
    shape = tuple(out.shape)
    for ax, (b, a) in pads.items():
        if mode != "constant" and (b or a):
            if mode == "reflect" and max(b, a) >= shape[ax]:
                raise OpValueError(f"For '{name}', in 'reflect' mode the paddings of axis {ax} ({b}, {a}) must be "
                                   f"smaller than its size {shape[ax]}.")
            if mode == "circular" and max(b, a) > shape[ax]:
                raise OpValueError(f"For '{name}', in 'circular' mode the paddings of axis {ax} ({b}, {a}) must not "
                                   f"exceed its size {shape[ax]}.")
    if mode == "circular":
        return FI._circular(out, pads)
    if mode != "constant":
        return FI.pad_axes(name, out, pads, mode)
    if constant_value is None or isinstance(constant_value, (int, float)) and not isinstance(constant_value, bool):
        return FI.pad_axes(name, out, pads, "constant", float(constant_value or 0))
    if not isinstance(constant_value, TensorMethods):
        raise OpTypeError(f"For '{name}', 'constant_value' must be a number or a Tensor, but got "
                          f"{type(constant_value).__name__}.")
    # a Tensor value (known only when the graph runs): selected where the padding goes
    padded = FI.pad_axes(name, out, pads, "constant")
    where = np.pad(np.zeros(shape, bool), [pads.get(ax, (0, 0)) for ax in range(len(shape))], constant_values=True)
    fill = F.reshape(F.cast(constant_value, x.dtype), ())
    return F.select(Tensor(where), F.broadcast_to(fill, where.shape), padded)


@op_entry("pad_v3_grad_primitive", primitive="PadV3Grad", functional=False,
          args=[Arg("x"), Arg("paddings", "value"),
                Arg("mode", "value", default="reflect", init=True, check=_check_mode("PadV3Grad", _MODES)),
                Arg("paddings_contiguous", "value", default=True, init=True, check=_check_bool)])
def pad_v3_grad_primitive(x, paddings, mode="reflect", paddings_contiguous=True):
    """PadV3's backward: `x` is the gradient of the padded tensor; each position's gradient goes to
    the element it was copied from (summed), the constant's positions to none."""
    name = "PadV3Grad"
    pairs = _pairs(name, x, paddings, mode, paddings_contiguous)
    # the forward's input size per axis: the padded size less the pads, plus what was cropped
    out = x
    compute = x.dtype if x.dtype.is_float else mstype.float64
    crops = {}
    for ax, (b, a) in sorted(pairs.items()):
        pb, pa = max(b, 0), max(a, 0)
        n = x.shape[ax] - pb - pa           # the cropped input's size
        if n <= 0:
            raise OpValueError(f"For '{name}', the paddings {(b, a)} do not fit axis {ax} of size {x.shape[ax]}.")
        crops[ax] = (-min(b, 0), -min(a, 0))
        if not (pb or pa):
            continue
        onehot = np.zeros((x.shape[ax], n), compute.np)
        for j, src in enumerate(_table(n, pb, pa, mode)):
            if src is not None:
                onehot[j, src] += 1.0
        moved = F.transpose(F.cast(out, compute), tuple(i for i in range(len(x.shape)) if i != ax) + (ax,))
        summed = F.matmul(moved, Tensor(onehot))
        perm = list(range(len(x.shape) - 1))
        perm.insert(ax, len(x.shape) - 1)
        out = F.transpose(summed, tuple(perm))
    out = F.cast(out, x.dtype) if out.dtype != x.dtype else out
    if any(b or a for b, a in crops.values()):
        out = FI.pad_axes(name, out, crops, "constant")
    return out
