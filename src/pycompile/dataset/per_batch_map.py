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
and the user's traceback, in a worker or not. The node is datasets.PerBatchMapDataset; this
module holds what it runs (and what its workers run).
"""
from __future__ import annotations

import numpy as np

def _fail(message: str) -> RuntimeError:
    from pycompile.dataset.workers import pipeline_error
    return pipeline_error(message)


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


def finish_batch(node, rows, out):
    """The batch of `node` (a PerBatchMapDataset) from its rows and the task's result."""
    if out[0] == "count":
        raise _fail(f"Invalid per_batch_map, the number of columns returned in 'per_batch_map' function should "
                    f"be {len(node._outputs)} , but got: {out[1]}")
    columns = out[1:]
    for name, col in zip(node._outputs, columns):
        if len(col) != len(rows):
            raise _fail(f"Invalid data, column: {name} expects: {len(rows)} rows returned from 'per_batch_map', "
                        f"got: {len(col)}")
    placed = []
    for j, row in enumerate(rows):
        values = tuple(col[j] for col in columns)
        if node._layout is None:
            new = list(row)
            for i, v in zip(node._in_index, values):
                new[i] = v
            placed.append(tuple(new))
        else:
            placed.append(values + tuple(row[i] for i in node._layout))
    return node._stack(placed)
