"""mindspore.dataset.DatasetCache: rows kept after their first reading, so later epochs (and later
iterators of the same pipeline) skip the reading, decoding and deterministic transforms below the
cache.

MindSpore keeps the rows in a cache server (its `dataset-cache` program, reached over TCP by
session id); pycompile keeps them in the process, in the pipeline node that carries the cache,
so no server, session or port is involved: `session_id` and the connection arguments are checked
as MindSpore checks them and kept, not used. Where a cache goes and what it may cover are
MindSpore's rules, with its errors (`check_tree`): on a source (`cache=` of ImageFolderDataset,
MindDataset, CSVDataset, TFRecordDataset, ...) or on a `map` (`map(..., cache=...)`), never one
under another, with no batch / take / skip / filter / zip / concat below it, no random transform in
the cached map itself (a Python function counts as deterministic, as in MindSpore 2.10; a
`transforms.Compose` is random when one of its transforms is; a random map further down is
allowed, its draws kept with the rows), no repeat below it over a random-access source, and no
GeneratorDataset / NumpySlicesDataset source.

Rows are kept by their identity in the source - a random-access source's index, a file reader's
(file, line) - and an epoch gives the source's rows in its own sampler's order, each read from
the cache when it is there. So a cached pipeline gives the rows of the uncached one, except that
a `shuffle()` between a random-access source and the cached map has no effect (the sampler's
order is the order: what MindSpore 2.10 gives) and that a Python function below the cache runs
once per row, not once per epoch. Where the nodes between the cached map and its source are not
all maps, renames, projects (and that shuffle), the rows are computed as without the cache.

Rows served from the cache are copies (a function that writes into its input cannot change the
cache). `size` (MB, 0: unlimited) bounds the bytes kept; rows past it are computed again each
epoch (MindSpore's `spilling` to disk is not done). `get_stat()` counts the rows kept;
`avg_cache_sz` is the mean bytes of a kept row's arrays (the server's figure also counts its own
record headers, so it differs).

Differences from the MindSpore 2.10 wheel, written down: with its server, a file source's rows
under a cache come in the order its reader threads deliver them (and a shuffled one repeats rows);
here they keep the uncached order. The server shares a cache between pipelines built alike (by a
checksum of the tree that does not see a Python function's code, so a second pipeline with another
function can get the first one's rows); here the rows belong to the pipeline node. A `project`
below a cached map fails inside the wheel ("row id should be greater than or equal to 0"); here it
is allowed.
"""
from __future__ import annotations

import copy
import threading

import numpy as np

from pycompile.dataset.argcheck import check_interval as _interval
from pycompile.dataset.argcheck import type_check as _type_check
from pycompile.dataset.workers import pipeline_error

_UINT32_MAX = 4294967295
_UINT64_MAX = 18446744073709551615
_INT32_MAX = 2147483647


class CacheServiceStat:
    """What DatasetCache.get_stat() returns: rows kept in memory, on disk (none here) and the mean
    bytes of a kept row (module text)."""

    def __init__(self, avg_cache_sz: int, num_mem_cached: int, num_disk_cached: int = 0):
        self.avg_cache_sz = avg_cache_sz
        self.num_mem_cached = num_mem_cached
        self.num_disk_cached = num_disk_cached

    def __repr__(self):
        return (f"CacheServiceStat(avg_cache_sz={self.avg_cache_sz}, num_mem_cached={self.num_mem_cached}, "
                f"num_disk_cached={self.num_disk_cached})")


class DatasetCache:
    """A cache for a dataset pipeline's rows (module text): pass it as `cache=` to a source or to
    `map`. The arguments are MindSpore's, checked with its messages; the rows live in this
    process."""

    def __init__(self, session_id, size=0, spilling=False, hostname=None, port=None, num_connections=None,
                 prefetch_size=None):
        _type_check(session_id, (int,), "session_id")
        _interval(session_id, "session_id", 1, _UINT32_MAX)
        _type_check(size, (int,), "size")
        if size != 0:
            if size <= 0:
                raise ValueError("Input size must be greater than 0.")
            _interval(size, "size", 0, _UINT64_MAX)
        _type_check(spilling, (bool,), "spilling")
        if hostname is not None:
            _type_check(hostname, (str,), "hostname")
        if port is not None:
            _type_check(port, (int,), "port")
            _interval(port, "port", 1025, 65535)
        for value, name in ((num_connections, "num_connections"), (prefetch_size, "prefetch_size")):
            if value is not None:
                _type_check(value, (int,), name)
                _interval(value, name, 1, _INT32_MAX)
        self.session_id = session_id
        self.size = size
        self.spilling = spilling
        self.hostname = hostname
        self.port = port
        self.num_connections = num_connections
        self.prefetch_size = prefetch_size
        self._state = _CacheState(size)

    def get_stat(self) -> CacheServiceStat:
        """Rows kept so far; MindSpore's RuntimeError before a pipeline has used the cache."""
        return self._state.stat()

    def __deepcopy__(self, memo):
        # as MindSpore's: a copy is the same cache (its client is shared)
        if id(self) in memo:
            return memo[id(self)]
        new = copy.copy(self)
        memo[id(self)] = new
        return new


class _CacheState:
    """The stores of every node using one DatasetCache, and its byte budget."""

    def __init__(self, size_mb: int):
        self.limit = size_mb * 1024 * 1024 if size_mb else None
        self.lock = threading.Lock()
        self.bytes = 0
        self.rows = 0
        self.used = False

    def stat(self) -> CacheServiceStat:
        if not self.used:
            raise pipeline_error("GetStat called but the cache is not in use yet.")
        return CacheServiceStat(self.bytes // self.rows if self.rows else 0, self.rows)

    def keep(self, store: dict, rid, row) -> None:
        nbytes = sum(np.asarray(a).nbytes for a in row)
        with self.lock:
            if rid in store or (self.limit is not None and self.bytes + nbytes > self.limit):
                return
            store[rid] = row
            self.bytes += nbytes
            self.rows += 1


def check_cache_arg(cache) -> None:
    """MindSpore's TypeError for a `cache=` that is not a DatasetCache."""
    if cache is not None and not isinstance(cache, DatasetCache):
        raise TypeError(f"Argument cache with value {cache} is not of type "
                        f"[<class 'mindspore.dataset.engine.cache_client.DatasetCache'>], but got {type(cache)}.")


def _store(node) -> dict:
    store = node.__dict__.get("_cache_rows")
    if store is None:
        store = node._cache_rows = {}
    node.cache._state.used = True
    return store


def _served(row) -> tuple:
    return tuple(np.array(a, copy=True) for a in row)


def _is_random(op) -> bool:
    """Whether MindSpore counts a map operation as random: a random transform (it draws from the
    pipeline's generator), a Compose holding one; not a function marked not_random, nor any other
    Python callable."""
    from pycompile.dataset.transforms import Compose
    if getattr(op, "random", None) is False:
        return False
    if isinstance(op, Compose):
        return any(_is_random(t) for t in op.transforms)
    return getattr(op, "_apply_random", None) is not None


# ---- where a cache may go -------------------------------------------------------------------
# Nodes say what they are to a cache by class attributes (this module imports none of them):
# `_under_cache_error`, MindSpore's words for the node below a cache; `_cache_kind`, "map",
# "repeat", "shuffle", "source" (random access) or "file" (a file reader); `_one_row(row, rng)`, a
# node the rows of a cached map can be computed through one at a time.
def check_tree(root) -> None:
    """MindSpore's errors for a cache the pipeline cannot have (module text), raised when an
    iterator is made."""
    for node in _walk(root):
        if node.cache is not None:
            _check_under(node)


def _walk(node):
    yield node
    for child in node.children:
        yield from _walk(child)


def _check_under(top) -> None:
    for node in _walk(top):
        kind = node._cache_kind
        if node is not top and node.cache is not None:
            name = "MapNode" if kind == "map" else type(node).__name__
            raise pipeline_error(f"Nested cache operations over {name} is not supported.")
        if node._under_cache_error:
            raise pipeline_error(node._under_cache_error)
        if node is top and kind == "map" and any(_is_random(op) for op in node.operations):
            # the map carrying the cache only: a random map below it is allowed (its draws are
            # kept with the rows), as in MindSpore's cache validation pass
            raise pipeline_error("MapNode containing random operation is not supported as a descendant of cache.")
        if kind == "repeat" and _leaf(node)._cache_kind == "source":
            raise pipeline_error("A cache over a RepeatNode of a mappable dataset is not supported.")


def _leaf(node):
    while node.children:
        node = node.children[0]
    return node


def under_cache(name: str) -> str:
    """MindSpore's words for a node (BatchNode, ...) that may not be below a cache."""
    return f"{name} is not supported as a descendant operator under a cache."


# ---- rows through a cache -------------------------------------------------------------------
def source_rows(source, key, epoch):
    """A cached source's rows of `epoch`: each read once, then served from the cache."""
    store, state = _store(source), source.cache._state
    for rid in source._row_ids(key, epoch):
        row = store.get(rid)
        if row is None:
            row = source._row_at(rid)
            state.keep(store, rid, row)
        yield _served(row)


def map_rows(node, key, epoch, node_rng):
    """A cached map's rows of `epoch` (module text): by the source's row identities, a row not yet
    kept computed through the maps, renames and projects between (a shuffle there skipped);
    with other nodes between, as without the cache. `node_rng(key, epoch)`: a node's generator."""
    chain, child, child_key = [], node.children[0], key + (0,)
    while child.children:
        chain.append((child, child_key))
        child, child_key = child.children[0], child_key + (0,)
    mappable = child._cache_kind == "source"
    shuffles = [n for n, _ in chain if n._cache_kind == "shuffle"]
    if not all(hasattr(n, "_one_row") for n, _ in chain if n._cache_kind != "shuffle") or (shuffles and not mappable):
        yield from node._mapped_rows(key, epoch)
        return
    store, state = _store(node), node.cache._state
    ids = list(child._row_ids(child_key, epoch))
    if not shuffles and not any(rid in store for rid in ids):
        # an epoch with nothing kept yet (the first): the map's own path (its worker processes,
        # when it has them) on the source's rows, which come in the order of `ids`
        for rid, row in zip(ids, node._mapped_rows(key, epoch)):
            kept = store.get(rid)
            if kept is None:
                state.keep(store, rid, row)
                kept = row
            yield _served(kept)
        return
    steps = [(n, node_rng(k, epoch)) for n, k in reversed(chain) if n._cache_kind != "shuffle"]
    steps.append((node, node_rng(key, epoch)))
    for rid in ids:
        row = store.get(rid)
        if row is None:
            row = child._row_at(rid)
            for n, rng in steps:
                row = n._one_row(row, rng)
            state.keep(store, rid, row)
        yield _served(row)
