"""batch(per_batch_map=...) as MindSpore 2.10 runs it (recorded: tests/oracle/data/batch_map_feed35.json).

`per_batch_map(col_1, ..., col_n, batch_info)` gets, for each of `input_columns` (default: every
column), the list of the batch's rows (NumPy arrays) and a BatchInfo (`get_batch_num()`: the
batch's number in its epoch, `get_epoch_num()`: the epoch's); it returns one list (or array) of
rows per output column - a tuple of them, or a bare list for one column - with as many rows as
the batch had. `output_columns` (default: the input columns) are placed as map places its
outputs: in the inputs' places when as many, else first, then the untouched columns. The rows
are then stacked as batch() stacks them.

With `num_parallel_workers` > 1 and `python_multiprocessing=True` the function runs in that many
worker processes (workers.py: batch k to worker k mod N, the batches in order, their arrays back
through shared memory); a function that raises ends the pipeline with MindSpore's RuntimeError
and the user's traceback, in a worker or not.
"""
from __future__ import annotations

import numpy as np

from pycompile.dataset.datasets import BatchDataset, _column_list

_PIPELINE = ("Exception thrown from dataset pipeline. Refer to 'Dataset Pipeline Error Message'. \n\n{sep}\n"
             "- Dataset Pipeline Error Message: \n{sep}\n[ERROR] {message}\n")


def _fail(message: str) -> RuntimeError:
    from pycompile.dataset.workers import _SEP
    return RuntimeError(_PIPELINE.format(sep=_SEP, message=message))


class BatchInfo:
    """What per_batch_map's last argument tells (mindspore.dataset.BatchInfo)."""

    def __init__(self, batch_num: int, epoch_num: int):
        self._batch_num, self._epoch_num = batch_num, epoch_num

    def get_batch_num(self) -> int:
        return self._batch_num

    def get_epoch_num(self) -> int:
        return self._epoch_num


class _BatchMapTask:
    """(batch number, epoch, [input column lists]) -> the output columns, each a list of rows."""

    def __init__(self, fn, n_out):
        self.fn, self.n_out = fn, n_out

    def __call__(self, payload):
        batch_num, epoch, columns = payload
        try:
            out = self.fn(*columns, BatchInfo(batch_num, epoch))
        except Exception as e:
            e._dataset_op = "PyFunc"
            raise
        out = out if isinstance(out, tuple) else (out,)
        if len(out) != self.n_out:
            return ("count", len(out))
        return ("ok",) + tuple(np.asarray(c) if isinstance(c, np.ndarray) else [np.asarray(v) for v in c]
                               for c in out)


class PerBatchMapDataset(BatchDataset):
    def __init__(self, child, batch_size, drop_remainder, per_batch_map, input_columns, output_columns, workers):
        super().__init__(child, batch_size, drop_remainder)
        if not callable(per_batch_map):
            raise TypeError(f"Argument per_batch_map with value {per_batch_map!r} is not of type "
                            f"[<class 'function'>], but got {type(per_batch_map)}.")
        names = child.get_col_names()
        inputs = _column_list(input_columns, "input_columns") if input_columns is not None else list(names)
        outputs = _column_list(output_columns, "output_columns") if output_columns is not None else list(inputs)
        for c in inputs:
            if c not in names:
                raise ValueError(f"Invalid input_columns, {c!r} is not a column of the dataset: {names}")
        self._in_index = [names.index(c) for c in inputs]
        if len(inputs) == len(outputs):
            self._names = list(names)
            for c, o in zip(inputs, outputs):
                self._names[names.index(c)] = o
            self._layout = None
        else:
            self._layout = [i for i, c in enumerate(names) if c not in inputs]
            self._names = outputs + [names[i] for i in self._layout]
        self._outputs = outputs
        self.per_batch_map = per_batch_map
        self.workers = workers

    def get_col_names(self):
        return list(self._names)

    def _worker_pool_spec(self):
        if self.workers <= 1:
            return None
        return _BatchMapTask(self.per_batch_map, len(self._outputs)), self.workers, ""

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
        from pycompile.dataset import workers
        from pycompile.dataset.workers import user_error, describe
        pool = workers.pool_of(self)
        if pool is not None:
            results = ((rows, out) for rows, out in pool.ordered(self._groups(key, epoch)))
        else:
            task = _BatchMapTask(self.per_batch_map, len(self._outputs))

            def run():
                for payload, rows in self._groups(key, epoch):
                    try:
                        out = task(payload)
                    except Exception as e:  # noqa: BLE001 - MindSpore's error, the user's traceback in it
                        raise user_error("", *describe(e)) from e
                    yield rows, out
            results = run()
        for rows, out in results:
            yield self._finish_batch(rows, out)

    def _finish_batch(self, rows, out):
        if out[0] == "count":
            raise _fail(f"Invalid per_batch_map, the number of columns returned in 'per_batch_map' function should "
                        f"be {len(self._outputs)} , but got: {out[1]}")
        columns = out[1:]
        for name, col in zip(self._outputs, columns):
            if len(col) != len(rows):
                raise _fail(f"Invalid data, column: {name} expects: {len(rows)} rows returned from 'per_batch_map', "
                            f"got: {len(col)}")
        placed = []
        for j, row in enumerate(rows):
            values = tuple(col[j] for col in columns)
            if self._layout is None:
                new = list(row)
                for i, v in zip(self._in_index, values):
                    new[i] = v
                placed.append(tuple(new))
            else:
                placed.append(values + tuple(row[i] for i in self._layout))
        return self._stack(placed)
