"""Iterators over a pipeline, fed by a background thread.

Each epoch runs in its own producer thread, which walks the pipeline and puts finished rows
(already converted to Tensors) into a bounded queue of `config.get_prefetch_size()` entries. The
consumer - typically a training step - only pops from the queue, so it does not wait on Python
data code as long as the pipeline keeps up. The next epoch's thread starts as soon as the
consumer has seen the end of the current one, so it prefetches while the training loop does its
end-of-epoch work.

A producer thread ends at the end of its epoch, or soon after its iterator is dropped (it polls
a stop flag while the queue is full). An exception raised in the pipeline - in a user's generator
or map function - is handed to the consumer and re-raised there as the same exception object,
with a note saying it came from the data pipeline.

`iterator.wait_time` is the total time, in seconds, the consumer spent blocked waiting for
data; `iterator.epoch_wait_time` the same for the current epoch. Near zero means the pipeline
keeps up with training.
"""
from __future__ import annotations

import queue
import threading
import time
import weakref

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.tensor import Tensor
from pycompile.dataset import config, workers

_EPOCH_END = object()
_POLL = 0.05        # seconds between checks of the stop flag while the queue is full


class _Failure:
    __slots__ = ("error",)

    def __init__(self, error):
        self.error = error


def _to_output(arr, output_numpy: bool, do_copy: bool):
    if do_copy:
        arr = np.array(arr, copy=True)
    if output_numpy:
        return arr
    if arr.dtype not in mstype._BY_NP:
        return arr                     # strings and other types pycompile has no Tensor for
    t = Tensor._wrap(arr)             # copies only a non-contiguous array
    t._numpy_backed = True            # MindSpore prints a dataset row's values as NumPy does
    return t


def _produce(dataset, seed, epoch, index, output_numpy, do_copy, out: queue.Queue, stop: threading.Event, pools):
    """Run one epoch of `dataset` into `out`; end with _EPOCH_END or a _Failure. `pools`: the
    iterator's worker processes (workers.py)."""
    workers.bind(pools)
    def put(item) -> bool:
        while not stop.is_set():
            try:
                out.put(item, timeout=_POLL)
                return True
            except queue.Full:
                continue
        return False

    rows = None
    try:
        rows = dataset._rows((seed,), epoch)
        for row in rows:
            item = [_to_output(row[i], output_numpy, do_copy) for i in index]
            if not put(item):
                return
        put(_EPOCH_END)
    except BaseException as e:  # noqa: BLE001 - re-raised in the consumer's thread
        put(_Failure(e))
    finally:
        close = getattr(rows, "close", None)
        if close is not None:
            close()


class _Iterator:
    """Base of TupleIterator and DictIterator (see the module docstring)."""

    def __init__(self, dataset, columns, num_epochs, output_numpy, do_copy):
        names = dataset.get_col_names()
        if columns is None:        # as MindSpore's iterators, leave out the sources' '_meta-' columns
            columns = [c for c in names if not c.startswith("_meta-")]
        columns = [columns] if isinstance(columns, str) else list(columns)
        for c in columns:
            if c not in names:
                raise ValueError(f"Column {c!r} is not a column of the dataset: {names}")
        if not isinstance(num_epochs, int) or isinstance(num_epochs, bool) or (num_epochs <= 0 and num_epochs != -1):
            raise ValueError(f"num_epochs must be -1 or a positive int, but got {num_epochs!r}.")
        from pycompile.dataset.cache import check_tree
        check_tree(dataset)             # MindSpore's errors for a cache where it cannot go
        self._dataset = dataset
        self._columns = columns
        self._index = [names.index(c) for c in columns]
        self._num_epochs = num_epochs
        self._output_numpy = bool(output_numpy)
        self._do_copy = bool(do_copy)
        self._seed = config.get_seed()
        self._epoch = 0                  # the epoch being consumed
        self._queue = None
        self._stop = None
        self._thread = None
        self.wait_time = 0.0
        self.epoch_wait_time = 0.0
        # worker processes start here, in the caller's thread, and end with the iterator
        self._pools = workers.start_pools(dataset)
        self._pool_finalizer = weakref.finalize(self, workers.close_pools, self._pools)
        self._start_epoch()

    def _start_epoch(self):
        self._queue = queue.Queue(maxsize=config.get_prefetch_size())
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=_produce, name=f"pycompile-dataset-epoch{self._epoch}", daemon=True,
            args=(self._dataset, self._seed, self._epoch, self._index, self._output_numpy, self._do_copy,
                  self._queue, self._stop, self._pools))
        self._thread.start()
        # Dropping the iterator stops its producer; the thread holds no reference to the iterator.
        self._finalizer = weakref.finalize(self, self._stop.set)

    def __iter__(self):
        return self

    def _next_values(self):
        if self._queue is None:
            if self._num_epochs != -1 and self._epoch >= self._num_epochs:
                raise RuntimeError(f"The iterator has run its {self._num_epochs} epoch(s) (num_epochs="
                                   f"{self._num_epochs}); create a new iterator or pass a larger num_epochs.")
            self._start_epoch()
        start = time.perf_counter()
        item = self._queue.get()
        waited = time.perf_counter() - start
        self.wait_time += waited
        self.epoch_wait_time += waited
        if item is _EPOCH_END:
            self._thread.join()
            self._queue = None
            self._epoch += 1
            if self._num_epochs == -1 or self._epoch < self._num_epochs:
                self._start_epoch()          # prefetch the next epoch now
            else:
                self._pool_finalizer()       # the last epoch: end the worker processes
            self.epoch_wait_time = 0.0
            raise StopIteration
        if isinstance(item, _Failure):
            self.stop()
            self._thread.join(1.0)
            error = item.error
            if hasattr(error, "add_note"):
                error.add_note("(raised in the dataset pipeline's background thread)")
            raise error
        return item

    def stop(self):
        """Stop the producer thread now (dropping the iterator does the same)."""
        if self._stop is not None:
            self._stop.set()
        self._pool_finalizer()
        self._queue = None
        self._epoch = self._num_epochs if self._num_epochs != -1 else self._epoch

    def get_col_names(self) -> list:
        return list(self._columns)


class TupleIterator(_Iterator):
    """Yields a list of column values per row (Tensors, or NumPy arrays with output_numpy)."""

    def __next__(self):
        return self._next_values()


class DictIterator(_Iterator):
    """Yields {column name: value} per row."""

    def __next__(self):
        return dict(zip(self._columns, self._next_values()))
