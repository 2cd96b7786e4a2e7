"""Pytrees of Python values: nested tuples and lists flattened to leaves and rebuilt."""
from __future__ import annotations


def flatten(v):
    """(leaves, tree) of nested tuples / lists; other values are leaves."""
    if isinstance(v, tuple) and not hasattr(v, "_fields"):
        parts = [flatten(x) for x in v]
        return [l for p in parts for l in p[0]], ("tuple", tuple(p[1] for p in parts))
    if isinstance(v, list):
        parts = [flatten(x) for x in v]
        return [l for p in parts for l in p[0]], ("list", tuple(p[1] for p in parts))
    return [v], None


def unflatten(tree, leaves):
    it = iter(leaves)

    def build(t):
        if t is None:
            return next(it)
        kind, kids = t
        items = [build(k) for k in kids]
        return tuple(items) if kind == "tuple" else items
    return build(tree)
