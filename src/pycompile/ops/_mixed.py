"""The mixed-precision scope of Cell.to_float (the mechanism under ms.amp's O1 / O2 / O3).

MindSpore runs a Cell flagged by `to_float(dtype)` with its float inputs and its Parameters cast
to `dtype` (graph mode: casts inserted on the Cell's inputs and on each weight it reads; PyNative:
on the float inputs of each op run inside the Cell). pycompile does the same at the two places
every call passes through, eagerly and while a graph is traced: entering a flagged Cell pushes
its dtype and casts its float arguments (`call`), and `apply` casts the float Parameters an op of
the Cell reads (`adjust`). The Parameters themselves stay float32 - the cast is an op of
the computation, so their gradients come back float32 and the optimizer updates float32 weights,
as in MindSpore. Ops that write a Parameter (Assign, the optimizers' updates) are never given a
cast copy. The scope is a plain stack: tracing and eager calls are synchronous.
"""
from __future__ import annotations

import contextlib

from pycompile.common import dtype as mstype
from pycompile.common.cellbase import bump

SCOPE: list = []        # dtypes of the flagged Cells being run, innermost last
CAST: list = [None]     # ops.cast, installed by ops.functional (which imports this module's user, _table)


def current():
    return SCOPE[-1] if SCOPE else None


def _float_dtype(x):
    t = getattr(x, "_abstract", None)
    dt = getattr(t, "dtype", None)
    return dt if dt is not None and dt.is_float else None


def cast_value(x, dtype):
    """x with each float tensor (nested in tuples / lists) cast to dtype; anything else as is
    (MindSpore's mixed_precision_cast)."""
    if isinstance(x, tuple):
        return tuple(cast_value(v, dtype) for v in x)
    if isinstance(x, list):
        return [cast_value(v, dtype) for v in x]
    dt = _float_dtype(x)
    if dt is None or dt is dtype:
        return x
    return CAST[0](x, dtype)


def adjust(op, inputs):
    """The inputs of a pure op (an OpDef) run inside a scope: under a dtype, its float Parameters
    cast to it; under the 'auto' policy, as the policy says for this op."""
    top = SCOPE[-1]
    if top is None:
        return inputs
    if isinstance(top, AutoPolicy):
        return top.adjust(op, inputs)
    from pycompile.common.parameter import Parameter
    out = None
    for i, x in enumerate(inputs):
        if isinstance(x, Parameter):
            x = cast_value(x, top)
        elif isinstance(x, (tuple, list)) and any(isinstance(y, Parameter) for y in x):
            x = type(x)(cast_value(y, top) if isinstance(y, Parameter) else y for y in x)
        else:
            continue
        if out is None:
            out = list(inputs)
        out[i] = x
    return inputs if out is None else out


# amp_level="auto": the class of each op of the table, {OpDef: "low" | "full" | "promote"}, filled
# by ops/amp_auto.py from op objects (MindSpore 2.10's AMP_AUTO_WHITE_LIST / AMP_AUTO_BLACK_LIST /
# promote list). Op entries declare theirs (`amp=`), front-end functions through `amp_class`.
AUTO_CLASS: dict = {}
_CLASSES = ("low", "full", "promote")


def amp_class(cls):
    """Decorator: a front-end function (a composition of table ops standing for one MindSpore
    Primitive of the auto lists) reads its tensor arguments as an op of class `cls` does under
    amp_level 'auto'; the ops it is made of then apply their own classes to what they get."""
    if cls not in _CLASSES:
        raise ValueError(f"amp_class: the class must be one of {_CLASSES}, got {cls!r}")

    def wrap(fn):
        import functools

        @functools.wraps(fn)
        def run(*args, **kwargs):
            if SCOPE and isinstance(SCOPE[-1], AutoPolicy):
                keys = list(kwargs)
                cast = SCOPE[-1].adjust_class(cls, list(args) + [kwargs[k] for k in keys])
                args, kwargs = tuple(cast[:len(args)]), dict(zip(keys, cast[len(args):]))
            return fn(*args, **kwargs)
        run.amp_class = cls
        return run
    return wrap


class AutoPolicy:
    """The 'auto' scope: white-listed ops read their float inputs in the low dtype, black-listed
    ones in float32, the promote list in the widest float among their inputs; other ops run in the
    dtypes their inputs have."""

    def __init__(self, dtype):
        self.dtype = dtype

    def __repr__(self):
        return f"auto({self.dtype})"

    def adjust(self, op, inputs):
        cls = AUTO_CLASS.get(op)
        return inputs if cls is None else self.adjust_class(cls, inputs)

    def adjust_class(self, cls, inputs):
        """inputs as an op of class `cls` ('low', 'full', 'promote': an op entry's `amp`) reads them."""
        if cls == "low":
            return [cast_value(x, self.dtype) for x in inputs]
        if cls == "full":
            return [cast_value(x, mstype.float32) for x in inputs]
        if cls == "promote":
            flat = [y for x in inputs for y in (x if isinstance(x, (tuple, list)) else (x,))]
            dts = [d for d in map(_float_dtype, flat) if d is not None]
            if dts:
                return [cast_value(x, max(dts, key=lambda d: d.itemsize)) for x in inputs]
        return inputs


def set_auto(network, dtype):
    """amp_level 'auto' on a Cell (flagged in place: MindSpore decorates its construct and returns
    it) or on a function (wrapped)."""
    policy = AutoPolicy(dtype)
    if hasattr(network, "cells_and_names"):
        object.__setattr__(network, "_mixed_precision", policy)
        bump(network)
        return network
    import functools

    @functools.wraps(network)
    def run(*args, **kwargs):
        return call(policy, args, kwargs, lambda a, k: network(*a, **k))
    return run


def call(dtype, args, kwargs, run, out_dtype=None):
    """run(args, kwargs) inside `dtype`'s scope (a dtype or an AutoPolicy), the float arguments cast
    to a dtype; the float results cast to out_dtype if given."""
    if not isinstance(dtype, AutoPolicy):
        args = tuple(cast_value(a, dtype) for a in args)
        kwargs = {k: cast_value(v, dtype) for k, v in kwargs.items()}
    SCOPE.append(dtype)
    try:
        out = run(args, kwargs)
    finally:
        SCOPE.pop()
    return out if out_dtype is None else cast_value(out, out_dtype)


def call_cell(cell, args, kwargs, run):
    """A Cell flagged by to_float / an amp level: run in its scope, its output cast if the level
    said so (O1's white-listed Cells hand float32 on, O2's normalisations the low dtype)."""
    d = cell.__dict__
    return call(d["_mixed_precision"], args, kwargs, run, d.get("_mixed_output"))


@contextlib.contextmanager
def exact():
    """Ops inside read their Parameters as they are, whatever Cell scope encloses them: for
    library code that does its own precision (BatchNorm's float32 math on float16 data)."""
    SCOPE.append(None)
    try:
        yield
    finally:
        SCOPE.pop()


def check_dtype(dst_type):
    if dst_type not in (mstype.float16, mstype.float32, mstype.bfloat16):
        raise ValueError(f"For 'to_float', the argument 'dst_type' must be mstype.float32, mstype.float16 or "
                         f"mstype.bfloat16, but got type: {type(dst_type)} and value: {dst_type}.")
