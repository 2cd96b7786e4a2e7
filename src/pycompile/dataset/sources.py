"""Sources: GeneratorDataset and NumpySlicesDataset, and the sampling every random-access source
shares (a sampler, or shuffle / shards / num_samples, which make the sampler MindSpore makes).

Sharding follows MindSpore's DistributedSampler: the (possibly shuffled) index order is extended
cyclically to `ceil(n / num_shards) * num_shards` entries and shard k takes every
num_shards-th entry starting at k, so every shard has the same number of rows and together they
cover the data. The shuffle is seeded the same in every shard, so shards stay disjoint.
"""
from __future__ import annotations


import numpy as np

from pycompile.common import dtype as mstype
from pycompile.dataset import samplers
from pycompile.dataset.datasets import Dataset, check_workers


def _check_shards(num_shards, shard_id):
    if num_shards is None and shard_id is None:
        return
    if num_shards is None or shard_id is None:
        raise ValueError("num_shards and shard_id need to be passed in together.")
    for value, name in ((num_shards, "num_shards"), (shard_id, "shard_id")):
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"Argument {name} with value {value!r} is not of type [<class 'int'>].")
    if num_shards <= 0:
        raise ValueError(f"Input num_shards is not within the required interval of [1, 2147483647].")
    if not 0 <= shard_id:
        raise ValueError(f"Input shard_id is not within the required interval of [0, 2147483647].")
    if shard_id >= num_shards:
        raise ValueError("shard_id should be less than num_shards.")


def _check_num_samples(num_samples):
    if num_samples is not None and (not isinstance(num_samples, int) or isinstance(num_samples, bool)
                                    or num_samples < 0):
        raise ValueError(f"num_samples must be a non-negative int, but got {num_samples!r}.")


class RandomAccessSource(Dataset):
    """A source whose rows are read by index (`_length()`, `_get(i)`), in the order its sampler
    gives (samplers.py): `sampler=`, or the one MindSpore builds from shuffle (None means True),
    num_samples and num_shards / shard_id."""

    _cache_kind = "source"          # its rows kept by index under a DatasetCache (cache.py)

    def __init__(self, num_samples=None, shuffle=None, num_shards=None, shard_id=None, sampler=None):
        super().__init__()
        _check_num_samples(num_samples)
        _check_shards(num_shards, shard_id)
        if isinstance(sampler, samplers.BuiltinSampler) and (shuffle is not None or num_shards is not None
                                                             or shard_id is not None or num_samples is not None):
            raise ValueError(f"Conflicting arguments during sampler assignments. num_samples: {num_samples}, "
                             f"num_shards: {num_shards}, shard_id: {shard_id}, shuffle: {shuffle}.")
        if sampler is not None:
            sampler = samplers.as_sampler(sampler, num_samples)
            if isinstance(sampler, samplers.PKSampler) and not hasattr(self, "_class_labels"):
                raise ValueError("GeneratorDataset doesn't support PKSampler.")
        self.num_samples = num_samples
        self.shuffle_flag = True if shuffle is None else bool(shuffle)
        self.num_shards = num_shards
        self.shard_id = shard_id
        self.sampler = sampler
        self._sampler = sampler if sampler is not None else samplers.implied_sampler(
            shuffle, num_samples, num_shards, shard_id)

    def _length(self) -> int:
        raise NotImplementedError

    def _get(self, index: int) -> tuple:
        raise NotImplementedError

    def _indices(self, key, epoch) -> np.ndarray:
        """The indices of `epoch`; key[0] is the pipeline's seed (ds.config.set_seed)."""
        if not isinstance(self._sampler, samplers.BuiltinSampler):       # a user's iterable
            order = np.fromiter((int(i) for i in self._sampler), dtype=np.int64)
            return order[:self.num_samples] if self.num_samples else order
        order = np.asarray(self._sampler.indices(self, key[0], epoch), dtype=np.int64)
        n = self._length()
        bad = order[(order < 0) | (order >= n)]
        if len(bad):
            raise RuntimeError(f"Sample ID ({int(bad[0])}) is out of bound, expected range [0, {n - 1}]")
        return order

    def _size(self):
        return len(self._indices((0,), 0))

    def _rows(self, key, epoch):
        if self.cache is not None:
            from pycompile.dataset.cache import source_rows
            yield from source_rows(self, key, epoch)
            return
        for i in self._indices(key, epoch):
            yield self._get(int(i))

    # a row's identity for a DatasetCache (cache.py): its index
    def _row_ids(self, key, epoch):
        return [int(i) for i in self._indices(key, epoch)]

    def _row_at(self, rid) -> tuple:
        return self._get(rid)


def _to_array(value, column_type=None) -> np.ndarray:
    arr = np.asarray(value)
    if arr.dtype == object:
        raise TypeError(f"A dataset column must hold numbers, strings or NumPy arrays, but got {type(value).__name__}.")
    if column_type is not None:
        arr = arr.astype(column_type)
    return arr


def _np_type(t):
    if isinstance(t, str) and t in ("string", "bytes"):      # a schema's text column
        return np.dtype(str)
    return t.np if isinstance(t, mstype.DType) else np.dtype(t)


class GeneratorDataset(RandomAccessSource):
    """Rows from Python: `source` is random-access (`__getitem__` and `__len__`: sampled, shuffled
    by default, shardable), a generator function (called once per epoch) or an iterable
    (iterated once per epoch). Each item is a tuple (one value per column) or a single value;
    Python ints become int64 and floats float64, as NumPy makes them."""

    _under_cache_error = "There is currently no support for GeneratorOp under cache."

    def __init__(self, source, column_names=None, column_types=None, schema=None, num_samples=None,
                 num_parallel_workers=1, shuffle=None, sampler=None, num_shards=None, shard_id=None,
                 python_multiprocessing=True, max_rowsize=None, batch_sampler=None, collate_fn=None):
        if schema is not None:         # MindSpore: the schema's names and types replace column_names / _types
            from pycompile.dataset.schema import schema_columns
            columns = schema_columns(schema)[0]
            column_names, column_types = [c[0] for c in columns], [c[1] for c in columns]
        if column_names is None:
            raise ValueError("Neither columns_names nor schema are provided.")
        self._random_access = hasattr(source, "__getitem__") and hasattr(source, "__len__")
        if not self._random_access:
            if num_shards is not None:
                raise ValueError("num_shards is not supported if source does not have attribute '__getitem__'.")
            if shuffle:
                raise ValueError("shuffle is not supported if source does not have attribute '__getitem__'.")
            if sampler is not None:
                raise ValueError("sampler is not supported if source does not have attribute '__getitem__'.")
            if not callable(source) and not hasattr(source, "__iter__"):
                raise TypeError("Input source must be callable, iterable or random accessible, "
                                f"but got {type(source).__name__}.")
        check_workers(num_parallel_workers)
        super().__init__(num_samples, shuffle if self._random_access else False, num_shards, shard_id, sampler)
        self.source = source
        self.column_names = [column_names] if isinstance(column_names, str) else list(column_names)
        self.column_types = [_np_type(t) for t in column_types] if column_types is not None else None
        # worker processes read a random-access source's rows (workers.py); a generator or an
        # iterable has one stream of rows, read in the pipeline's thread
        self.workers = num_parallel_workers if python_multiprocessing and self._random_access else 1
        self.max_rowsize = max_rowsize

    def get_col_names(self):
        return list(self.column_names)

    def _row(self, item) -> tuple:
        return _source_row(item, self.column_names, self.column_types)

    def _length(self):
        return len(self.source)

    def _get(self, index):
        return self._row(self.source[index])

    def _worker_pool_spec(self):
        if self.workers <= 1:
            return None
        return _SourceTask(self.source, self.column_names, self.column_types), self.workers, ""

    def _rows(self, key, epoch):
        """The source's rows; an exception the user's source raises comes out as MindSpore's
        RuntimeError with the user's traceback in it (and the exception as its cause)."""
        from pycompile.dataset.workers import describe, user_error
        try:
            yield from self._source_rows(key, epoch)
        except Exception as e:  # noqa: BLE001 - MindSpore's error, the user's traceback in it
            if isinstance(e, RuntimeError) and str(e).startswith("Exception thrown from"):
                raise
            raise user_error("", *describe(e)) from e

    def _source_rows(self, key, epoch):
        from pycompile.dataset import workers
        if self._random_access:
            pool = workers.pool_of(self)
            if pool is None:
                yield from super()._rows(key, epoch)
            else:
                for _, row in pool.ordered(((int(i), None) for i in self._indices(key, epoch))):
                    yield row
            return
        items = self.source() if callable(self.source) else iter(self.source)
        try:
            for count, item in enumerate(items):
                if self.num_samples and count >= self.num_samples:
                    break
                yield self._row(item)
        finally:
            close = getattr(items, "close", None)
            if close:
                close()

    def _size(self):
        if self._random_access:
            return super()._size()
        if hasattr(self.source, "__len__"):
            n = len(self.source)
        else:
            # A generator has no length: run one epoch and count, as MindSpore does.
            n = sum(1 for _ in self._rows((0,), 0))
        return min(n, self.num_samples) if self.num_samples else n


def _source_row(item, names, types) -> tuple:
    """A GeneratorDataset row; each value must already have its column_types type (MindSpore
    converts nothing: its RuntimeError, as for a row of another length)."""
    from pycompile.dataset.workers import user_error
    values = item if isinstance(item, tuple) else (item,)
    if len(values) != len(names):
        raise user_error("", "GeneratorDataset", "Invalid Python function, the 'source' of 'GeneratorDataset' should "
                         "return same number of NumPy arrays as specified in column_names, the size of column_names "
                         f"is:{len(names)} and number of returned NumPy array is:{len(values)}", None)
    row = tuple(_to_array(v) for v in values)
    for value, arr, t in zip(values, row, types or ()):
        if arr.dtype != t and not (arr.dtype.kind == t.kind == "U"):
            name = "string" if t.kind in "US" else t.name
            raise user_error("", "GeneratorDataset", "Invalid Python function, type of returned data in "
                             "'GeneratorDataset' should be same with specified column_types, but the type of returned "
                             f"data: {type(value)}, specified column type: {name}", None)
    return row


class _SourceTask:
    """What a GeneratorDataset's worker process runs: index -> the source's row."""

    def __init__(self, source, names, types):
        self.source, self.names, self.types = source, names, types

    def __call__(self, index):
        return _source_row(self.source[index], self.names, self.types)


class NumpySlicesDataset(RandomAccessSource):
    """Rows sliced along the first axis of in-memory data: a dict (one column per key), a tuple
    (one column per element), or a list / array (one column)."""

    _under_cache_error = "There is currently no support for GeneratorOp under cache."

    _batch_by_indexing = True      # a batch right above takes its rows by one fancy indexing per column

    def __init__(self, data, column_names=None, num_samples=None, num_parallel_workers=1, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None):
        super().__init__(num_samples, shuffle, num_shards, shard_id, sampler)
        if isinstance(data, dict):
            names, columns = list(data), [np.asarray(v) for v in data.values()]
        elif isinstance(data, tuple):
            names, columns = None, [np.asarray(v) for v in data]
        else:
            names, columns = None, [np.asarray(data)]
        if column_names is not None:
            names = [column_names] if isinstance(column_names, str) else list(column_names)
        if names is None:
            names = [f"column_{i}" for i in range(len(columns))]
        if len(names) != len(columns):
            raise ValueError(f"column_names {names} do not match the {len(columns)} column(s) of the data.")
        lengths = {len(c) if c.ndim else 0 for c in columns}
        if len(lengths) != 1 or 0 in lengths:
            raise ValueError("Every column of NumpySlicesDataset's data needs the same, non-zero first dimension.")
        self.column_names = names
        self.columns = columns

    def get_col_names(self):
        return list(self.column_names)

    def _length(self):
        return len(self.columns[0])

    def _get(self, index):
        return tuple(np.array(c[index]) for c in self.columns)


class PaddedDataset(RandomAccessSource):
    """Rows given as a list of dicts (column -> value), unshuffled: the padding rows a dataset is
    joined with (`data + PaddedDataset(...)`, then `use_sampler(DistributedSampler(...))`) so that
    every shard gets as many rows. Columns are the first dict's keys, in its order."""

    _under_cache_error = "There is currently no support for GeneratorOp under cache."

    def __init__(self, padded_samples):
        if not isinstance(padded_samples, list):
            raise TypeError(f"Argument padded_samples with value {padded_samples} is not of type [<class 'list'>], "
                            f"but got {type(padded_samples)}.")
        if not padded_samples:
            raise ValueError("padded_samples cannot be empty.")
        for s in padded_samples:
            if not isinstance(s, dict):
                raise TypeError(f"Argument padded_element with value {s} is not of type [<class 'dict'>], but got "
                                f"{type(s)}.")
        super().__init__(None, False, None, None, None)
        self.column_names = list(padded_samples[0])
        for s in padded_samples:
            if list(s) != self.column_names:
                raise RuntimeError(f"Invalid data, every padded sample needs the columns {self.column_names}, but "
                                   f"one has {list(s)}.")
        self.samples = [tuple(_to_array(s[c]) for c in self.column_names) for s in padded_samples]

    def get_col_names(self):
        return list(self.column_names)

    def _length(self):
        return len(self.samples)

    def _get(self, index):
        return tuple(np.array(v) for v in self.samples[index])
