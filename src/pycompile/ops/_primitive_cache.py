"""`mindspore.ops._primitive_cache` under pycompile's name: `_get_cache_prim(Cls)(*args)` returns
one shared instance of a primitive class per constructor arguments."""
from __future__ import annotations

_CACHE: dict = {}


def _get_cache_prim(cls):
    def make(*args, **kwargs):
        try:
            key = (cls, args, tuple(sorted(kwargs.items())))
            hash(key)
        except TypeError:       # unhashable arguments: no caching
            return cls(*args, **kwargs)
        if key not in _CACHE:
            _CACHE[key] = cls(*args, **kwargs)
        return _CACHE[key]

    return make
