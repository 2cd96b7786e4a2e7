"""Pytrees of Python values: nested tuples and lists flattened to leaves and rebuilt. A sparse
tensor (COOTensor / CSRTensor / RowTensor) is a node too: its tensor parts, then its shape."""
from __future__ import annotations

from pycompile.common.sparse_tensor import SPARSE_TYPES, parts_of, rebuild_named


def flatten(v):
    """(leaves, tree) of nested tuples / lists; other values are leaves."""
    if isinstance(v, tuple) and not hasattr(v, "_fields"):
        parts = [flatten(x) for x in v]
        return [l for p in parts for l in p[0]], ("tuple", tuple(p[1] for p in parts))
    if isinstance(v, list):
        parts = [flatten(x) for x in v]
        return [l for p in parts for l in p[0]], ("list", tuple(p[1] for p in parts))
    if isinstance(v, SPARSE_TYPES):
        cls, parts, shape = parts_of(v)
        leaves, tree = flatten((*parts, shape))
        return leaves, (cls.__name__, tree[1])
    return [v], None


def unflatten(tree, leaves):
    it = iter(leaves)

    def build(t):
        if t is None:
            return next(it)
        kind, kids = t
        items = [build(k) for k in kids]
        if kind not in ("tuple", "list"):
            return rebuild_named(kind, items)
        return tuple(items) if kind == "tuple" else items
    return build(tree)
