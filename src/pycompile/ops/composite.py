"""Composite operations: MultitypeFuncGraph (type-dispatched functions) and HyperMap.

`MultitypeFuncGraph(name)` holds overloads registered by type names: "Tensor", "Number",
"Bool", "String", "Tuple", "List", "None" (and MindSpore's aliases "Int", "Float"). A call picks
the overload whose names match the arguments' types; no match raises ValueError naming them
(the error type MindSpore raises).

`HyperMap(fn)` applies fn elementwise over tuples / lists (recursively for nested sequences);
`HyperMap()` takes fn as the first call argument. Inside graph code the compiler inlines the
chosen overloads (see compiler.frontend), so they may use any graph syntax.
"""
from __future__ import annotations

from pycompile.common.abstract import Symbolic


def type_name(x) -> str:
    """MindSpore's type name of a value for MultitypeFuncGraph dispatch."""
    if isinstance(x, Symbolic):
        from pycompile.common.abstract import ScalarType
        return "Number" if isinstance(x._abstract, ScalarType) else "Tensor"
    if hasattr(x, "_data"):
        return "Tensor"
    if isinstance(x, bool):
        return "Bool"
    if isinstance(x, (int, float)):
        return "Number"
    if isinstance(x, str):
        return "String"
    if isinstance(x, tuple):
        return "Tuple"
    if isinstance(x, list):
        return "List"
    if x is None:
        return "None"
    if isinstance(x, dict):
        return "Dictionary"
    return type(x).__name__


_ALIASES = {"Int": "Number", "Float": "Number", "Scalar": "Number", "Number": "Number",
            "Bool": "Bool", "Tensor": "Tensor", "Tuple": "Tuple", "List": "List", "String": "String",
            "None": "None", "Dictionary": "Dictionary", "RowTensor": "Tensor", "Function": "Function"}


def _matches(sig: tuple, names: tuple) -> int:
    """Score of an overload for the argument type names (-1: no match). Exact beats Bool->Number."""
    if len(sig) != len(names):
        return -1
    score = 0
    for want, got in zip(sig, names):
        if want == got:
            score += 2
        elif want == "Number" and got == "Bool":
            score += 1
        else:
            return -1
    return score


class MultitypeFuncGraph:
    """A function with overloads chosen by argument types at call (compile) time."""

    def __init__(self, name: str, read_value: bool = False):
        self.name = name
        self.read_value = read_value
        self.entries: list[tuple[tuple, object]] = []

    def register(self, *type_names):
        sig = tuple(_ALIASES.get(n, n) for n in type_names)

        def deco(fn):
            self.entries = [(s, f) for s, f in self.entries if s != sig]
            self.entries.append((sig, fn))
            return fn
        return deco

    def resolve(self, args):
        """The overload for these arguments, or ValueError naming their types."""
        names = tuple(type_name(a) for a in args)
        best, best_score = None, -1
        for sig, fn in self.entries:
            s = _matches(sig, names)
            if s > best_score:
                best, best_score = fn, s
        if best is None:
            known = "; ".join("(" + ", ".join(s) + ")" for s, _ in self.entries) or "none"
            raise ValueError(f"For 'MultitypeFuncGraph' {self.name!r}, no overload matches the argument types "
                             f"({', '.join(names)}); registered: {known}")
        return best

    def __call__(self, *args):
        return self.resolve(args)(*args)

    def __repr__(self) -> str:
        return f"MultitypeFuncGraph({self.name!r})"


class HyperMap:
    """Map a function over tuples / lists of equal length, recursively."""

    def __init__(self, ops=None, reverse: bool = False):
        self.ops = ops
        self.reverse = reverse

    def __call__(self, *args):
        if self.ops is None:
            fn, args = args[0], args[1:]
        else:
            fn = self.ops
        return hyper_map(fn, args, self.reverse, call=lambda f, a: f(*a))

    def __repr__(self) -> str:
        return f"HyperMap({self.ops!r})"


def hyper_map(fn, args, reverse: bool, call):
    """The mapping HyperMap performs; `call(fn, args)` applies fn to one set of leaves (the
    graph frontend passes a call that inlines the overload)."""
    if not args:
        raise TypeError("HyperMap needs at least one sequence argument")
    seqs = [a for a in args if isinstance(a, (tuple, list))]
    if not seqs:
        return call(fn, args)
    n = len(seqs[0])
    for a in seqs:
        if len(a) != n:
            raise ValueError(f"For 'HyperMap', the sequences must have the same length, but got "
                             f"{', '.join(str(len(s)) for s in seqs)}")
    kind = list if isinstance(seqs[0], list) else tuple
    order = range(n - 1, -1, -1) if reverse else range(n)
    out = [None] * n
    for i in order:
        leaf_args = [a[i] if isinstance(a, (tuple, list)) else a for a in args]
        out[i] = hyper_map(fn, leaf_args, reverse, call)
    return kind(out)


class Map(HyperMap):
    """MindSpore's Map: like HyperMap but one level deep only."""

    def __call__(self, *args):
        fn, args = (args[0], args[1:]) if self.ops is None else (self.ops, args)
        seqs = [a for a in args if isinstance(a, (tuple, list))]
        n = len(seqs[0]) if seqs else 0
        kind = list if seqs and isinstance(seqs[0], list) else tuple
        out = [None] * n
        for i in (range(n - 1, -1, -1) if self.reverse else range(n)):      # Map(None, True): last first
            out[i] = fn(*[a[i] if isinstance(a, (tuple, list)) else a for a in args])
        return kind(out)


# MindSpore keeps GradOperation in mindspore.ops.composite (`C.GradOperation`)
from pycompile.ops.autodiff.api import GradOperation  # noqa: E402,F401

# MindSpore's composite also holds its random functions (`C.multinomial(x, 2, True, seed)`):
# the same objects as ops.<name> (ops/function_random.py), looked up when first used
_RANDOM = ("multinomial", "normal", "uniform")


def __getattr__(name):
    if name in _RANDOM:
        from pycompile.ops import function_random
        return getattr(function_random, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
