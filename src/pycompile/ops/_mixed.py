"""The mixed-precision scope of Cell.to_float (the mechanism under ms.amp's O1 / O2 / O3).

MindSpore runs a Cell flagged by `to_float(dtype)` with its float inputs and its Parameters cast
to `dtype` (graph mode: casts inserted on the Cell's inputs and on each weight it reads; PyNative:
on the float inputs of each op run inside the Cell). pycompile does the same at the two places
every call passes through, eagerly and while a graph is traced: entering a flagged Cell pushes
its dtype and casts its float arguments (`call`), and `apply` casts the float Parameters an op of
the Cell reads (`cast_parameters`). The Parameters themselves stay float32 - the cast is an op of
the computation, so their gradients come back float32 and the optimizer updates float32 weights,
as in MindSpore. Ops that write a Parameter (Assign, the optimizers' updates) are never given a
cast copy. The scope is a plain stack: tracing and eager calls are synchronous.
"""
from __future__ import annotations

from pycompile.common import dtype as mstype

SCOPE: list = []        # dtypes of the flagged Cells being run, innermost last


def current():
    return SCOPE[-1] if SCOPE else None


def _float_dtype(x):
    t = getattr(x, "_abstract", None)
    dt = getattr(t, "dtype", None)
    return dt if dt is not None and dt.is_float else None


def cast_value(x, dtype):
    """x with each float tensor (nested in tuples / lists) cast to dtype; anything else as is
    (MindSpore's mixed_precision_cast)."""
    from pycompile.ops import functional as F
    if isinstance(x, tuple):
        return tuple(cast_value(v, dtype) for v in x)
    if isinstance(x, list):
        return [cast_value(v, dtype) for v in x]
    dt = _float_dtype(x)
    if dt is None or dt is dtype:
        return x
    return F.cast(x, dtype)


def cast_parameters(inputs):
    """The inputs of a pure op run in a scope, float Parameters cast to the scope's dtype."""
    from pycompile.common.parameter import Parameter
    dtype = SCOPE[-1]
    out = []
    for x in inputs:
        if isinstance(x, Parameter):
            x = cast_value(x, dtype)
        elif isinstance(x, (tuple, list)) and any(isinstance(y, Parameter) for y in x):
            x = type(x)(cast_value(y, dtype) if isinstance(y, Parameter) else y for y in x)
        out.append(x)
    return out


def call(dtype, args, kwargs, run):
    """run(args, kwargs) inside `dtype`'s scope, the float arguments cast to it."""
    args = tuple(cast_value(a, dtype) for a in args)
    kwargs = {k: cast_value(v, dtype) for k, v in kwargs.items()}
    SCOPE.append(dtype)
    try:
        return run(args, kwargs)
    finally:
        SCOPE.pop()


def check_dtype(dst_type):
    if dst_type not in (mstype.float16, mstype.float32):
        raise ValueError(f"For 'to_float', the argument 'dst_type' must be mstype.float32, mstype.float16 or "
                         f"mstype.bfloat16, but got type: {type(dst_type)} and value: {dst_type}.")
