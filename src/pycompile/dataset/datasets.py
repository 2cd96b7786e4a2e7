"""The Dataset base class and the pipeline operations (batch, shuffle, map, repeat, take, skip,
project, rename), shaped like mindspore.dataset.

A pipeline is a tree of nodes; each node turns its child's rows into its own. A row is a tuple of
NumPy arrays, one per column. Nothing runs until an iterator is created: the iterator runs the
pipeline in a background thread (see iterators.py).

Randomness is explicit: a node's rows for epoch `e` come from `_rows(key, e)`, where `key`
starts as `(seed,)` and grows by the child's position at each level, so every random choice
(a shuffled source, `shuffle()`, a random transform) draws from a generator seeded by
(seed, place in the tree, epoch) alone. A seeded run is reproducible; two epochs differ.
"""
from __future__ import annotations

import functools
import hashlib
import inspect
import itertools
import math

import numpy as np

from pycompile.dataset.cache import under_cache


def node_rng(key: tuple, epoch: int) -> np.random.Generator:
    """The generator of the node at `key` for `epoch`: a hash of both, so no two places or epochs
    share a stream (NumPy's SeedSequence would treat (s, 0) and (s, 0, 0) alike)."""
    digest = hashlib.blake2b(repr((key, epoch)).encode(), digest_size=16).digest()
    return np.random.default_rng(int.from_bytes(digest, "little"))


class Dataset:
    """Base of every dataset. Subclasses define `_rows(key, epoch)`, `get_col_names()` and
    `_size()` (rows per epoch)."""

    cache = None        # a DatasetCache given as a source's or a map's `cache=` (cache.py)
    _cache_kind = None              # what a cache sees this node as (cache.py)
    _under_cache_error = None       # MindSpore's error for this node below a cache

    def __init__(self, children=()):
        self.children = list(children)
        self._cached_size = None

    def __init_subclass__(cls, **kwargs):
        # a source whose constructor takes MindSpore's `cache=` keeps it (checked) as `self.cache`,
        # whichever of the ~60 sources it is (cache.py)
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is None or "cache" not in inspect.signature(init).parameters:
            return

        @functools.wraps(init)
        def with_cache(self, *args, **kw):
            given = inspect.signature(init).bind(self, *args, **kw).arguments.get("cache")
            from pycompile.dataset.cache import check_cache_arg
            check_cache_arg(given)
            init(self, *args, **kw)
            if given is not None or "cache" not in self.__dict__:
                self.cache = given
        cls.__init__ = with_cache

    # -- what nodes define -------------------------------------------------------------------
    def _rows(self, key: tuple, epoch: int):
        raise NotImplementedError

    def _size(self) -> int:
        raise NotImplementedError

    def get_col_names(self) -> list:
        return self.children[0].get_col_names()

    def _child_rows(self, key, epoch, index=0):
        return self.children[index]._rows(key + (index,), epoch)

    # -- information ---------------------------------------------------------------------------
    def get_dataset_size(self) -> int:
        """Rows (batches, after batch()) per epoch."""
        if self._cached_size is None:
            self._cached_size = self._size()
        return self._cached_size

    def get_batch_size(self) -> int:
        for child in self.children:
            return child.get_batch_size()
        return 1

    def get_repeat_count(self) -> int:
        for child in self.children:
            return child.get_repeat_count()
        return 1

    def _first_row(self):
        from pycompile.dataset import config
        rows = self._rows((config.get_seed(),), 0)
        try:
            return next(iter(rows))
        finally:
            close = getattr(rows, "close", None)
            if close:
                close()

    def output_shapes(self) -> list:
        return [list(a.shape) for a in self._first_row()]

    def output_types(self) -> list:
        return [a.dtype for a in self._first_row()]

    # -- operations ----------------------------------------------------------------------------
    def batch(self, batch_size, drop_remainder=False, num_parallel_workers=None, **kwargs):
        """Stack `batch_size` consecutive rows into one (a new first axis in every column);
        `per_batch_map` (with `input_columns` / `output_columns`) changes each batch's rows first,
        in `num_parallel_workers` processes with `python_multiprocessing=True` (per_batch_map.py)."""
        _refuse(kwargs, "batch", ("pad_info",))
        if num_parallel_workers is not None:
            check_workers(num_parallel_workers)
        if kwargs.get("per_batch_map") is None:
            _refuse(kwargs, "batch", ("input_columns", "output_columns"))
            node = BatchDataset(self, batch_size, drop_remainder)
            node.given_workers = num_parallel_workers      # for serialize (serialization.py)
            return node
        workers = num_parallel_workers if kwargs.get("python_multiprocessing") and num_parallel_workers else 1
        node = PerBatchMapDataset(self, batch_size, drop_remainder, kwargs["per_batch_map"],
                                  kwargs.get("input_columns"), kwargs.get("output_columns"), workers)
        node.max_rowsize = kwargs.get("max_rowsize")
        node.given_workers = num_parallel_workers          # for serialize (serialization.py)
        return node

    def shuffle(self, buffer_size):
        """Shuffle within a sliding buffer of `buffer_size` rows (the whole epoch when it is at
        least the dataset size)."""
        return ShuffleDataset(self, buffer_size)

    def map(self, operations, input_columns=None, output_columns=None, num_parallel_workers=None,
            python_multiprocessing=False, **kwargs):
        """Apply `operations` (a callable or a list applied in order) to `input_columns` (default:
        the first column), producing `output_columns` (default: the same names). With
        `num_parallel_workers` > 1 and `python_multiprocessing=True` the operations run in that many
        worker processes (workers.py), the rows keeping their order."""
        _refuse(kwargs, "map", ("column_order",))
        from pycompile.dataset.cache import check_cache_arg
        check_cache_arg(kwargs.get("cache"))
        node = MapDataset(self, operations, input_columns, output_columns)
        node.cache = kwargs.get("cache")       # its rows kept after their first computing (cache.py)
        if kwargs.get("callbacks") is not None:
            from pycompile.dataset.callbacks import CallbackRunner, check_callbacks
            node.callback_runner = CallbackRunner(check_callbacks(kwargs["callbacks"]))
        if num_parallel_workers is not None:
            check_workers(num_parallel_workers)
        node.workers = num_parallel_workers if python_multiprocessing and num_parallel_workers else 1
        node.max_rowsize = kwargs.get("max_rowsize")
        # what the user wrote, for serialize (serialization.py): `operations` before fusing
        node.given = dict(operations=operations, input_columns=input_columns, output_columns=output_columns,
                          num_parallel_workers=num_parallel_workers)
        return node

    def repeat(self, count=None):
        """Run the pipeline `count` times per epoch (None or -1: forever)."""
        return RepeatDataset(self, count)

    def take(self, count=-1):
        return TakeDataset(self, count)

    def skip(self, count):
        return SkipDataset(self, count)

    def project(self, columns):
        """Keep only `columns`, in that order."""
        return ProjectDataset(self, columns)

    def rename(self, input_columns, output_columns):
        return RenameDataset(self, input_columns, output_columns)

    def save(self, file_name, num_files=1, file_type="mindrecord"):
        """Write the rows as MindRecord files MindDataset (and MindSpore) reads (saving.py)."""
        from pycompile.dataset.saving import save
        save(self, file_name, num_files, file_type)

    # -- iteration -----------------------------------------------------------------------------
    def create_tuple_iterator(self, columns=None, num_epochs=-1, output_numpy=False, do_copy=False):
        """An iterator of lists, one value per column (pycompile Tensors, or NumPy arrays with
        `output_numpy=True`). Each `for` loop over it is one epoch; `num_epochs=-1` allows any
        number. Its `wait_time` tells how long the consumer waited for data."""
        from pycompile.dataset.iterators import TupleIterator
        return TupleIterator(self, columns, num_epochs, output_numpy, do_copy)

    def create_dict_iterator(self, num_epochs=-1, output_numpy=False, do_copy=False):
        """As create_tuple_iterator, yielding {column name: value}."""
        from pycompile.dataset.iterators import DictIterator
        return DictIterator(self, None, num_epochs, output_numpy, do_copy)

    def __iter__(self):
        return iter(self.create_tuple_iterator(num_epochs=1))


_INT32_MAX = 2147483647


def _refuse(kwargs, op, unsupported):
    """Options that change results must not be dropped silently; performance ones are accepted.
    MindSpore 2.10 has dropped these (batch's pad_info, map's column_order): its TypeError."""
    for name in unsupported:
        if kwargs.get(name) is not None and name in ("pad_info", "column_order"):
            node = {"batch": "BatchDataset", "map": "MapDataset"}[op]
            raise TypeError(f"{node}.__init__() got an unexpected keyword argument '{name}'")
        if kwargs.get(name) is not None:
            raise NotImplementedError(f"pycompile's Dataset.{op} does not support '{name}'")


def check_workers(value):
    """MindSpore's check of num_parallel_workers: an int from 1 to the CPU count."""
    import os
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"Argument num_parallel_workers with value {value} is not of type [<class 'int'>], "
                        f"but got {type(value)}.")
    cpus = os.cpu_count() or 1
    if value < 1 or value > cpus:
        raise ValueError(f"num_parallel_workers exceeds the boundary between 1 and {cpus}!")


def _check_int_range(value, name, low):
    """MindSpore's check and words for a count argument."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"Argument {name} with value {value!r} is not of type [<class 'int'>].")
    if not low <= value <= _INT32_MAX:
        raise ValueError(f"Input {name} is not within the required interval of [{low}, {_INT32_MAX}].")


def _column_list(value, name) -> list:
    if isinstance(value, str):
        return [value]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise TypeError(f"The argument '{name}' must be a str or a list of str, but got {value!r}.")
    return list(value)


def _de_type(value: np.ndarray) -> str:
    """A row's type as MindSpore's dataset engine names it (every string width is one type)."""
    return "string" if value.dtype.kind in "US" else value.dtype.name


class BatchDataset(Dataset):
    _under_cache_error = under_cache("BatchNode")

    def __init__(self, child, batch_size, drop_remainder=False):
        super().__init__([child])
        _check_int_range(batch_size, "batch_size", 1)
        self.batch_size = batch_size
        self.drop_remainder = bool(drop_remainder)

    def get_batch_size(self):
        return self.batch_size

    def _size(self):
        n = self.children[0].get_dataset_size()
        return n // self.batch_size if self.drop_remainder else math.ceil(n / self.batch_size)

    def _rows(self, key, epoch):
        maps, source = self._batchable_maps()
        finish = None
        if maps:
            # map -> batch where every op works on a stacked batch as on each row (Rescale,
            # Normalize, HWC2CHW, TypeCast): stack the source's rows, then run each op once per
            # batch. Same values, a fraction of the per-row Python work, so the pipeline thread
            # keeps up with a compiled training step.
            finish = lambda batch: _map_batch(maps, batch)   # noqa: E731
        source_key = key + (0,) * (len(maps) + 1)
        # NumpySlicesDataset itself (not a subclass, which may override _get) sets the flag
        if type(source).__dict__.get("_batch_by_indexing") and all(c.dtype.kind in "biufc" for c in source.columns):
            # In-memory numeric arrays: a batch is one fancy-indexing of each column by the
            # sampler's indices (the rows np.stack would build, without building them one by one;
            # strings keep the row path, whose stacked width is the widest row's, not the column's).
            order = source._indices(source_key, epoch)
            stop = len(order) - len(order) % self.batch_size if self.drop_remainder else len(order)
            for start in range(0, stop, self.batch_size):
                idx = order[start:start + self.batch_size]
                batch = tuple(np.asarray(c[idx]) for c in source.columns)
                yield finish(batch) if finish is not None else batch
            return
        if not maps:
            from pycompile.dataset.worker_batches import batches_in_workers
            batches = batches_in_workers(self, key, epoch, MapDataset)    # a map in worker processes: they batch
            if batches is not None:
                yield from batches
                return
        rows = source._rows(source_key, epoch) if maps else self._child_rows(key, epoch)
        pending = []
        for row in rows:
            pending.append(row)
            if len(pending) == self.batch_size:
                yield self._finish(pending, finish)
                pending = []
        if pending and not self.drop_remainder:
            yield self._finish(pending, finish)

    def _finish(self, rows, finish):
        batch = self._stack(rows)
        return finish(batch) if finish is not None else batch

    def _batchable_maps(self):
        """The chain of MapDatasets right under this batch (outermost first) if each maps one
        column in place with operations that have `_apply_batch`, and the node under them."""
        maps, node = [], self.children[0]
        while type(node) is MapDataset and node._layout is None and len(node._in_index) == 1 and all(
                hasattr(op, "_apply_batch") and not hasattr(op, "_apply_random") for op in node.operations):
            maps.append(node)
            node = node.children[0]
        return maps, node

    def _stack(self, rows):
        out = []
        for col in range(len(rows[0])):
            values = [r[col] for r in rows]
            shape, kind = values[0].shape, _de_type(values[0])
            for v in values[1:]:
                if _de_type(v) != kind:
                    # np.stack would promote (int64 and float32 rows to float64) without a word
                    raise RuntimeError(f"Cannot batch tensors with different types in column {col}. First element "
                                       f"had type {kind} and this element had type {_de_type(v)}")
                if v.shape != shape:
                    raise RuntimeError(f"Inconsistent batch shapes, batch operation expects same shape for each data "
                                       f"row, but got inconsistent shape in column {col}, expected shape for this "
                                       f"column is:{list(shape)}, got shape:{list(v.shape)}")
            out.append(np.stack(values))
        return tuple(out)


def _column_layout(names, inputs, outputs, missing):
    """MindSpore 2.10's columns after a map of `inputs` to `outputs` (map, batch's per_batch_map):
    (the inputs' indices, the new names, the untouched columns' indices or None). With as many
    outputs as inputs each output takes its input's place; otherwise the outputs come first, then
    the untouched columns in order. `missing(column)` is the error for an input that is not a column."""
    for c in inputs:
        if c not in names:
            raise missing(c)
    in_index = [names.index(c) for c in inputs]
    if len(inputs) == len(outputs):
        new = list(names)
        for c, o in zip(inputs, outputs):
            new[names.index(c)] = o
        return in_index, new, None
    keep = [i for i, c in enumerate(names) if c not in inputs]
    return in_index, outputs + [names[i] for i in keep], keep


class PerBatchMapDataset(BatchDataset):
    """batch(per_batch_map=...): see per_batch_map.py."""

    def __init__(self, child, batch_size, drop_remainder, per_batch_map, input_columns, output_columns, workers):
        super().__init__(child, batch_size, drop_remainder)
        if not callable(per_batch_map):
            raise TypeError(f"Argument per_batch_map with value {per_batch_map!r} is not of type "
                            f"[<class 'function'>], but got {type(per_batch_map)}.")
        names = child.get_col_names()
        inputs = _column_list(input_columns, "input_columns") if input_columns is not None else list(names)
        outputs = _column_list(output_columns, "output_columns") if output_columns is not None else list(inputs)
        self._in_index, self._names, self._layout = _column_layout(
            names, inputs, outputs, lambda c: ValueError(f"Invalid input_columns, {c!r} is not a column of the "
                                                         f"dataset: {names}"))
        self._outputs = outputs
        self.per_batch_map = per_batch_map
        self.workers = workers

    def get_col_names(self):
        return list(self._names)

    def _worker_pool_spec(self):
        from pycompile.dataset import per_batch_map
        if self.workers <= 1:
            return None
        return per_batch_map._BatchMapTask(self.per_batch_map, len(self._outputs)), self.workers, ""

    def _groups(self, key, epoch):
        rows, number = [], 0
        for row in self._child_rows(key, epoch):
            rows.append(row)
            if len(rows) == self.batch_size:
                yield (number, epoch, [[r[i] for r in rows] for i in self._in_index]), rows
                rows, number = [], number + 1
        if rows and not self.drop_remainder:
            yield (number, epoch, [[r[i] for r in rows] for i in self._in_index]), rows

    def _rows(self, key, epoch):
        from pycompile.dataset import per_batch_map, workers
        from pycompile.dataset.workers import user_error, describe
        pool = workers.pool_of(self)
        if pool is not None:
            results = ((rows, out) for rows, out in pool.ordered(self._groups(key, epoch)))
        else:
            task = per_batch_map._BatchMapTask(self.per_batch_map, len(self._outputs))

            def run():
                for payload, rows in self._groups(key, epoch):
                    try:
                        out = task(payload)
                    except Exception as e:  # noqa: BLE001 - MindSpore's error, the user's traceback in it
                        raise user_error("", *describe(e)) from e
                    yield rows, out
            results = run()
        for rows, out in results:
            yield per_batch_map.finish_batch(self, rows, out)


class ShuffleDataset(Dataset):
    _cache_kind = "shuffle"

    def __init__(self, child, buffer_size):
        super().__init__([child])
        _check_int_range(buffer_size, "buffer_size", 2)
        self.buffer_size = buffer_size

    def _size(self):
        return self.children[0].get_dataset_size()

    def _rows(self, key, epoch):
        rng = node_rng(key, epoch)
        buffer = []
        for row in self._child_rows(key, epoch):
            if len(buffer) < self.buffer_size:
                buffer.append(row)
                continue
            i = int(rng.integers(self.buffer_size))
            yield buffer[i]
            buffer[i] = row
        for i in rng.permutation(len(buffer)):
            yield buffer[i]


class MapDataset(Dataset):
    """Column mapping as MindSpore 2.10 does it: with as many outputs as inputs, each output takes
    its input's place; otherwise the outputs come first, then the untouched columns in order."""

    _cache_kind = "map"

    def __init__(self, child, operations, input_columns=None, output_columns=None):
        super().__init__([child])
        ops = list(operations) if isinstance(operations, (list, tuple)) else [operations]
        for op in ops:
            if not callable(op):
                raise TypeError(f"For 'map', every operation must be callable, but got {type(op).__name__}.")
        self.operations = _fused(ops)
        names = child.get_col_names()
        inputs = _column_list(input_columns, "input_columns") if input_columns is not None else names[:1]
        outputs = _column_list(output_columns, "output_columns") if output_columns is not None else list(inputs)
        self._in_index, self._names, self._layout = _column_layout(
            names, inputs, outputs,
            lambda c: RuntimeError(f"For 'map', input column {c!r} is not a column of the dataset: {names}"))
        if len(set(self._names)) != len(self._names):
            raise ValueError(f"For 'map', the resulting columns {self._names} repeat a name")
        self._n_out = len(outputs)
        self.workers = 1

    def get_col_names(self):
        return list(self._names)

    def _size(self):
        return self.children[0].get_dataset_size()

    def _worker_pool_spec(self):
        if self.workers <= 1:
            return None
        return _MapTask(self.operations, self._n_out), self.workers, "map operation: [{op}] failed. "

    callback_runner = None

    def _rows(self, key, epoch):
        if self.cache is not None:
            from pycompile.dataset.cache import map_rows
            rows = map_rows(self, key, epoch, node_rng)
        else:
            rows = self._mapped_rows(key, epoch)
        if self.callback_runner is not None:         # map(callbacks=[DSCallback, ...]): callbacks.py
            rows = self.callback_runner.wrap(rows, epoch)
        yield from rows

    def _mapped_rows(self, key, epoch):
        from pycompile.dataset import workers
        pool = workers.pool_of(self)
        if pool is not None:
            # each row's random draws from its own generator (key, epoch, row number), so the
            # result does not depend on which worker ran the row
            items = (((key, epoch, k, tuple(row[i] for i in self._in_index)), row)
                     for k, row in enumerate(self._child_rows(key, epoch)))
            for row, values in pool.ordered(items):
                yield self._place(row, values)
            return
        rng = node_rng(key, epoch)
        for row in self._child_rows(key, epoch):
            yield self._one_row(row, rng)

    def _one_row(self, row, rng):
        """One row through the operations (random ones drawing from `rng`)."""
        values = tuple(row[i] for i in self._in_index)
        for op in self.operations:
            try:
                values = _as_tuple(_apply(op, values, rng))
            except Exception as e:  # noqa: BLE001 - MindSpore's pipeline error, the cause kept
                raise map_failure(op, e) from e
        return self._place(row, _check_outputs(values, self._n_out))

    def _place(self, row, values):
        """The output row: `values` in their inputs' places, or first (see the class docstring)."""
        if self._layout is None:
            out = list(row)
            for i, v in zip(self._in_index, values):
                out[i] = v
            return tuple(out)
        return values + tuple(row[i] for i in self._layout)


def op_name(op) -> str:
    """The name MindSpore's map gives an operation in its errors: a dataset transform's class name
    (or its `_ms_name`), "PyFunc" for the user's own function."""
    if type(op).__module__.startswith("pycompile."):
        return getattr(op, "_ms_name", None) or type(op).__name__
    return "PyFunc"


def map_failure(op, error: Exception) -> RuntimeError:
    """MindSpore's RuntimeError for an operation of a map that raised: its pipeline error with
    "map operation: [Op] failed. " before the message for a dataset transform (whatever the
    transform raised: the wheel's kernels report every failure so), the user-function error with
    the user's traceback for their own function."""
    from pycompile.dataset.workers import describe, pipeline_error, user_error
    name = op_name(op)
    prefix = f"map operation: [{name}] failed. "
    text = str(error)
    if isinstance(error, RuntimeError) and "- Dataset Pipeline Error Message: " in text:
        head, mark, rest = text.partition("[ERROR] ")
        if mark and not rest.startswith("map operation: ["):
            return RuntimeError(head + mark + prefix + rest)
        return error
    if name == "PyFunc" or "Exception thrown from user defined Python function" in text:
        if "Exception thrown from user defined Python function" in text:
            return error
        error._dataset_op = name
        return user_error(prefix + f"Error description:\n{type(error).__name__}: ", *describe(error))
    return pipeline_error(prefix + text)


def _check_outputs(values, n_out):
    if len(values) != n_out:
        raise RuntimeError(f"For 'map', the operations returned {len(values)} column(s), but "
                           f"output_columns names {n_out}.")
    return values


class _MapTask:
    """What a map's worker process runs on one row: (key, epoch, row number, input values) ->
    output values. Random operations draw from the row's own generator."""

    def __init__(self, operations, n_out):
        self.operations, self.n_out = operations, n_out

    def __call__(self, payload):
        from pycompile.dataset.worker_batches import BatchPayload, run_batch
        if isinstance(payload, BatchPayload):
            return run_batch(self, payload, BatchDataset._stack)
        key, epoch, k, values = payload
        rng = None
        for op in self.operations:
            if rng is None and hasattr(op, "_apply_random"):
                rng = node_rng(key + ("row", k), epoch)
            try:
                values = _as_tuple(_apply(op, values, rng))
            except Exception as e:
                # MindSpore names the failing operation: a dataset transform's failure is its pipeline
                # error (raised as it is in the main process), the user's function's travels as it is
                if op_name(op) != "PyFunc":
                    raise map_failure(op, e) from None
                e._dataset_op = "PyFunc"
                raise
        return _check_outputs(values, self.n_out)


def _fused(ops):
    """`ops` with each pair an op's `_fuse_next(next_op)` fuses replaced by its one op (vision's
    Normalize then HWC2CHW: one pass over each image instead of two)."""
    out = []
    for op in ops:
        fuse = getattr(out[-1], "_fuse_next", None) if out else None
        fused = fuse(op) if fuse is not None else None
        if fused is not None:
            out[-1] = fused
        else:
            out.append(op)
    return out


def _map_batch(maps, batch):
    """Apply the (batchable) maps, innermost first, to a stacked batch; an op that cannot take
    this batch (`_apply_batch` returns None) runs on each row of it instead."""
    batch = list(batch)
    for node in reversed(maps):
        col = node._in_index[0]
        arr = batch[col]
        for op in node.operations:
            out = op._apply_batch(arr)
            arr = np.stack([np.asarray(op(row)) for row in arr]) if out is None else np.asarray(out)
        batch[col] = arr
    return tuple(batch)


def _apply(op, values, rng):
    # Random transforms draw from the pipeline's generator, so a seeded run repeats itself.
    random_apply = getattr(op, "_apply_random", None)
    if random_apply is not None:
        return random_apply(rng, *values)
    return op(*values)


def _as_tuple(result) -> tuple:
    items = result if isinstance(result, tuple) else (result,)
    return tuple(np.asarray(v) for v in items)


class RepeatDataset(Dataset):
    _cache_kind = "repeat"

    def __init__(self, child, count=None):
        super().__init__([child])
        count = -1 if count is None else count
        if not isinstance(count, int) or isinstance(count, bool) or (count <= 0 and count != -1):
            raise ValueError(f"For 'repeat', 'count' must be -1 (forever) or a positive int, but got {count!r}.")
        self.count = count

    def get_repeat_count(self):
        return self.count

    def _size(self):
        n = self.children[0].get_dataset_size()
        return n if self.count == -1 else n * self.count   # MindSpore reports one pass for forever

    def _rows(self, key, epoch):
        passes = itertools.count() if self.count == -1 else range(self.count)
        for r in passes:
            child_epoch = r if self.count == -1 else epoch * self.count + r
            yield from self._child_rows(key, child_epoch)


class TakeDataset(Dataset):
    _under_cache_error = under_cache("TakeNode (possibly from Split)")

    def __init__(self, child, count=-1):
        super().__init__([child])
        if not isinstance(count, int) or isinstance(count, bool) or (count <= 0 and count != -1):
            raise ValueError(f"For 'take', 'count' must be -1 (all) or a positive int, but got {count!r}.")
        self.count = count

    def _size(self):
        n = self.children[0].get_dataset_size()
        return n if self.count == -1 else min(n, self.count)

    def _rows(self, key, epoch):
        rows = self._child_rows(key, epoch)
        return rows if self.count == -1 else itertools.islice(rows, self.count)


class SkipDataset(Dataset):
    _under_cache_error = under_cache("SkipNode")

    def __init__(self, child, count):
        super().__init__([child])
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise ValueError(f"For 'skip', 'count' must be a non-negative int, but got {count!r}.")
        self.count = count

    def _size(self):
        return max(self.children[0].get_dataset_size() - self.count, 0)

    def _rows(self, key, epoch):
        return itertools.islice(self._child_rows(key, epoch), self.count, None)


class ProjectDataset(Dataset):
    def __init__(self, child, columns):
        super().__init__([child])
        names = child.get_col_names()
        self.columns = _column_list(columns, "columns")
        for c in self.columns:
            if c not in names:
                raise RuntimeError(f"For 'project', column {c!r} is not a column of the dataset: {names}")
        self._index = [names.index(c) for c in self.columns]

    def get_col_names(self):
        return list(self.columns)

    def _size(self):
        return self.children[0].get_dataset_size()

    def _rows(self, key, epoch):
        for row in self._child_rows(key, epoch):
            yield self._one_row(row)

    def _one_row(self, row, rng=None):
        return tuple(row[i] for i in self._index)


class RenameDataset(Dataset):
    def __init__(self, child, input_columns, output_columns):
        super().__init__([child])
        inputs = _column_list(input_columns, "input_columns")
        outputs = _column_list(output_columns, "output_columns")
        names = child.get_col_names()
        if len(inputs) != len(outputs):
            raise ValueError("For 'rename', 'input_columns' and 'output_columns' must have the same length.")
        for c in inputs:
            if c not in names:
                raise RuntimeError(f"For 'rename', column {c!r} is not a column of the dataset: {names}")
        mapping = dict(zip(inputs, outputs))
        self._names = [mapping.get(c, c) for c in names]
        self.input_columns, self.output_columns = inputs, outputs

    def get_col_names(self):
        return list(self._names)

    def _size(self):
        return self.children[0].get_dataset_size()

    def _rows(self, key, epoch):
        return self._child_rows(key, epoch)

    def _one_row(self, row, rng=None):
        return row
