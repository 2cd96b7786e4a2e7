"""Names of C identifiers: numbered in emission order, so the same graph gives the same C.

IR values carry process-wide `uid`s that depend on everything compiled before; a C name built
from them would change the source text (and the cache of any tool hashing it) from one run to
the next. Inside `numbering()` — one per module rendered — `nid(obj)` hands out 0, 1, 2, ... in
the order the renderer first asks for each object. Outside it (debug printing) it is the uid.
"""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar

_table: ContextVar = ContextVar("pycompile_c_numbering", default=None)


@contextmanager
def numbering():
    token = _table.set({})
    try:
        yield
    finally:
        _table.reset(token)


def nid(obj) -> int:
    table = _table.get()
    if table is None:
        return obj.uid
    entry = table.get(id(obj))
    if entry is None:
        entry = table[id(obj)] = (len(table), obj)     # holding obj keeps its id() unique
    return entry[0]
