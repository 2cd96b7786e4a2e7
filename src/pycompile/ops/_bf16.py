"""bfloat16 as a storage type: one rule at `apply` for every op, both modes.

MindSpore 2.10's CPU build stores bfloat16 and runs a handful of kernels on it (Cast, Add, Mul,
Div, Neg, the copies); every other op raises "Select CPU operator[...] fail! Unsupported data
type!", while its documentation lists bfloat16 for the ops on Ascend. pycompile runs every op on
bfloat16 the way those kernels do: the bfloat16 operands widened to float32 (exact), the op run
in float32, and each float32 result rounded back to bfloat16 (to nearest, ties to even) - one
rounding per op, as a bfloat16 kernel computing in float would give. The widening is a Cast in
the computation, so it is the same in PyNative (NumPy or the compiled kernels), in traced graphs
(the Casts are graph nodes, fused with their neighbours into one loop) and under autodiff (the
gradient of a Cast is the Cast back): no op has a bfloat16 kernel of its own, and the C backend
knows bfloat16 only as storage (load, store, Cast).

Which results go back to bfloat16: the float32 results of an op whose floating inputs (tensors,
and dtype attributes) are all bfloat16, as type promotion would give them (bfloat16 with float16
is float32, with float32 or float64 the wider one: `dtype.promote`). An op given an explicit
other float dtype (`ops.sum(x, dtype=ms.float32)`) keeps it. A Python float operand of such an op
is rounded to bfloat16 first, as MindSpore converts a scalar to the tensor's type.

Ops left alone: the rows declaring `any_dtype` - Cast (it converts bfloat16 itself), a Custom op's
Python function (it is handed the bfloat16 array, as MindSpore hands it its own) -, the effects (Assign and the in-place updates
write the Parameter they are given, not a widened copy of it) and ops run on no bfloat16 value.
"""
from __future__ import annotations

import contextlib

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import TensorType, type_of
from pycompile.ops import _mixed

BF16 = mstype.bfloat16
F32 = mstype.float32
_NP_BF16 = BF16.np


def _dtype_of(x):
    try:
        t = type_of(x)
    except TypeError:
        return None
    return t.dtype if isinstance(t, TensorType) else None


def _is_bf16(x) -> bool:
    """x is a bfloat16 tensor (a Tensor's array, a tracer's abstract type), in a few attribute
    reads: every op call on `apply`'s full path asks."""
    try:
        d = x._data.dtype
    except AttributeError:           # a tracer (or anything without an array)
        return getattr(getattr(x, "_abstract", None), "dtype", None) is BF16
    return d.kind == "V" and d == _NP_BF16


def involved(inputs, attrs) -> bool:
    """Whether an op call has a bfloat16 tensor among its inputs (tuples included) or a
    bfloat16 dtype attribute: the cheap test `apply` makes before `widen`."""
    for x in inputs:
        c = x.__class__
        if c is tuple or c is list:
            for y in x:
                if _is_bf16(y):
                    return True
        elif c is not float and c is not int and c is not bool and _is_bf16(x):
            return True
    if attrs:
        for v in attrs.values():
            if v is BF16:
                return True
    return False


def widen(op, inputs, attrs: dict, apply, cast_op):
    """`apply(op, inputs, attrs)` computed in float32 (see the module's docstring)."""
    flat = [y for x in inputs for y in (x if isinstance(x, (tuple, list)) else (x,))]
    floats = {dt for dt in map(_dtype_of, flat) if dt is not None and dt.is_float}
    dtype_attrs = [v for v in attrs.values() if isinstance(v, mstype.DType)]
    if BF16 in dtype_attrs:
        back = True
    elif any(d.is_float for d in dtype_attrs):
        back = False         # an explicit other float dtype: the op's result keeps it
    else:
        back = floats == {BF16}

    def up(x):
        if x.__class__ is float and back:
            # a Python float meets a bfloat16 tensor as a bfloat16 value (MindSpore's scalar rule:
            # `x * 1.1` multiplies by 1.1015625), as float16's are rounded to float16
            return float(np.float32(x).astype(_NP_BF16))
        return apply(cast_op, [x], {"dtype": F32}) if _dtype_of(x) is BF16 else x

    new_inputs = [type(x)(up(y) for y in x) if isinstance(x, (tuple, list)) else up(x) for x in inputs]
    new_attrs = {k: (F32 if v is BF16 else v) for k, v in attrs.items()}
    # inside an amp scope the inputs were recast already: the float32 op must not be recast to
    # bfloat16 again (amp_level 'auto' would, for ever)
    with _mixed.exact() if _mixed.SCOPE else contextlib.nullcontext():
        out = apply(op, new_inputs, new_attrs)
        return _narrow(out, apply, cast_op) if back else out


def _narrow(out, apply, cast_op):
    if isinstance(out, tuple):
        return tuple(_narrow(o, apply, cast_op) for o in out)
    if isinstance(out, list):
        return [_narrow(o, apply, cast_op) for o in out]
    if _dtype_of(out) is F32 and not isinstance(out, (int, float, bool)):
        return apply(cast_op, [out], {"dtype": BF16})
    return out
