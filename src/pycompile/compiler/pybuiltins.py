"""Python builtins with a graph meaning (print, isinstance, len, max, range ...) and how
graph-mode print shows its arguments. `BUILTINS` maps id(builtin) -> handler(interp, args, kwargs)."""
from __future__ import annotations

import contextlib
import operator

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import TensorType
from pycompile.common.tensor import Tensor, TensorMethods
from pycompile.compiler.builder import NeedsConstant, Sym, is_number
from pycompile.compiler.blame import USER_SITES
from pycompile.errors import GraphValueError
from pycompile.ops import functional as F


def print_inputs(args):
    """print()'s arguments as MindSpore's graph-mode Print shows them: each on its own line,
    tensors formatted when the graph runs, constants as MindSpore writes them (bools as 1 / 0,
    floats like C++'s `%g`, a list as a tuple, the items of a nested tuple one per line)."""
    parts, tensors = [], []

    def add(a, top):
        if isinstance(a, str):
            parts.append(("str", a))
        elif isinstance(a, (Sym, Tensor)):
            parts.append(("tensor", len(tensors)))
            tensors.append(a)
        elif isinstance(a, (tuple, list)) and not hasattr(a, "_fields"):
            if not top or any(isinstance(x, (tuple, list, Sym, Tensor)) for x in a):
                for x in a:
                    add(x, False)
            else:
                parts.append(("str", _print_tuple_text(a)))
        else:
            parts.append(("str", _print_scalar_text(a)))

    for a in args:
        add(a, True)
    return tensors, {"format": tuple(parts)}


def _print_scalar_text(v) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "1" if v else "0"
    if isinstance(v, (float, np.floating)):
        return format(float(v), "g")
    return str(v)


def _print_tuple_text(items) -> str:
    if any(isinstance(x, (float, np.floating)) for x in items):
        return "(" + ", ".join(f"{float(x): .8e}" for x in items) + ")"
    return "(" + ", ".join(_print_scalar_text(x) for x in items) + ")"


def _b_print(interp, args, kwargs):
    return interp.builder.emit_print(*print_inputs(args))


def _b_isinstance(interp, args, kwargs):
    x, cls = args
    if isinstance(x, Sym):
        classes = cls if isinstance(cls, tuple) else (cls,)
        t = x._value.type
        if isinstance(t, TensorType):
            return any(isinstance(c, type) and (issubclass(Tensor, c) or c is TensorMethods) for c in classes)
        py = {"bool": bool, "int": int, "float": float}[t.kind]
        return any(isinstance(c, type) and issubclass(py, c) for c in classes)
    return isinstance(x, cls)


def _b_type(interp, args, kwargs):
    if len(args) == 1 and isinstance(args[0], Sym):
        t = args[0]._value.type
        if isinstance(t, TensorType) and t.number:
            return bool if t.dtype.is_bool else float if t.dtype.is_float else int
        return Tensor if isinstance(t, TensorType) else {"bool": bool, "int": int, "float": float}[t.kind]
    return type(*args)


def _b_len(interp, args, kwargs):
    return len(args[0])


def _b_abs(interp, args, kwargs):
    return F.abs(args[0]) if isinstance(args[0], Sym) else abs(args[0])


def _b_minmax(pyfn, opfn):
    def handler(interp, args, kwargs):
        items = list(args[0]) if len(args) == 1 else list(args)
        if any(isinstance(a, Sym) for a in items) and not kwargs:
            for a in items:
                if isinstance(a, Sym) and getattr(a._value.type, "size", 1) != 1:
                    # Python compares the arguments: a tensor of several elements has no truth value
                    raise GraphValueError(f"{pyfn.__name__}() of tensors with {a.size} elements is ambiguous; "
                                          f"use ops.{opfn.__name__} for an elementwise {pyfn.__name__}")
            with interp.builder.number_results() if all(is_number(a) for a in items) else contextlib.nullcontext():
                out = items[0]
                for x in items[1:]:
                    out = opfn(out, x)
            return out
        return pyfn(*args, **kwargs)
    return handler


def _b_tuple(kind):
    def handler(interp, args, kwargs):
        if not args:
            return kind()
        v = args[0]
        if isinstance(v, Sym):
            return kind(v[i] for i in range(len(v)))
        return kind(v)
    return handler


# MindSpore's graph types for Python numbers (common/mutable.py)
_NUMBER_DTYPES = {int: mstype.int64, float: mstype.float32, bool: mstype.bool_}


def _b_number(pytype):
    def handler(interp, args, kwargs):
        if args and isinstance(args[0], Sym):
            if len(args) == 1 and not kwargs and is_number(args[0]):
                # int() / float() / bool() of a mutable number: a number of that kind (MindSpore 2.10)
                with interp.builder.number_results():
                    return F.cast(args[0], _NUMBER_DTYPES[pytype])
            raise NeedsConstant(f"{pytype.__name__}() of a tensor computed at run time")
        return pytype(*args, **kwargs)
    return handler


def _b_map(interp, args, kwargs):
    fn, iters = args[0], args[1:]
    return [interp.call_value(fn, list(items), {}) for items in zip(*iters)]


def _b_filter(interp, args, kwargs):
    fn, it = args
    return [x for x in it if (interp.call_value(fn, [x], {}) if fn is not None else x)]


def _b_getattr(interp, args, kwargs):
    value = getattr(*args)
    if interp.deps is not None and len(args) >= 2:
        interp.deps.attribute(args[0], args[1], value)
    return value


def _b_hasattr(interp, args, kwargs):
    return hasattr(*args)


def _b_sum(interp, args, kwargs):
    items = list(args[0])
    start = args[1] if len(args) > 1 else kwargs.get("start", 0)
    out = start
    for x in items:
        out = out + x
    return out


def _b_all_any(pyfn):
    def handler(interp, args, kwargs):
        items = list(args[0])
        if any(isinstance(x, Sym) for x in items):
            raise NeedsConstant(f"{pyfn.__name__}() over tensors computed at run time")
        return pyfn(items)
    return handler


def _b_range(interp, args, kwargs):
    return range(*[operator.index(a) if not isinstance(a, Sym) else a.__index__() for a in args])


BUILTIN_TABLE = {
    print: _b_print, isinstance: _b_isinstance, type: _b_type, len: _b_len, abs: _b_abs,
    max: _b_minmax(max, F.maximum), min: _b_minmax(min, F.minimum), tuple: _b_tuple(tuple),
    list: _b_tuple(list), int: _b_number(int), float: _b_number(float), bool: _b_number(bool),
    map: _b_map, filter: _b_filter, getattr: _b_getattr, hasattr: _b_hasattr, sum: _b_sum,
    all: _b_all_any(all), any: _b_all_any(any), range: _b_range,
}
BUILTINS = {id(k): v for k, v in BUILTIN_TABLE.items()}
for _handler in BUILTIN_TABLE.values():     # each runs a builtin on the user's values
    USER_SITES.add(_handler.__code__)
# builtins that only arrange values (graph values pass through them untouched)
CONTAINER_BUILTINS = {id(f) for f in (zip, enumerate, reversed, sorted, dict, slice, iter, next, callable)}
BUILTIN_OBJS = {id(k): k for k in BUILTIN_TABLE}
