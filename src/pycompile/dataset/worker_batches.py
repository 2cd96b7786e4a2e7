"""batch() over a map that runs in worker processes: each worker maps and stacks whole batches.

`map(ops, num_parallel_workers=N, python_multiprocessing=True).batch(B)` would otherwise send each
row to a worker and back (N rows in flight, every mapped image copied into the parent one by
one) and stack the batch in the pipeline's thread, where the training step competes for the
CPU. Here the parent reads the map's input rows (file bytes, say), sends each batch's inputs to
one worker (batch k to worker k mod N, in order), and the worker runs the map on every row - each
row's random draws from the row's own generator, as when rows travel one by one, so the values
do not change - and stacks the mapped columns; the stacked arrays come back through the pool's
shared memory (workers.py) and the parent only stacks the columns the map left alone.

Rows whose mapped values cannot be stacked (shapes or types differ) come back unstacked and are
batched in the parent, which raises MindSpore's error for them.
"""
from __future__ import annotations


class BatchPayload(tuple):
    """(key, epoch, first row number, [input values of each row]) - a whole batch for _MapTask."""


def run_batch(task, payload, stack):
    """In the worker: map each row, then stack the outputs (`stack`: BatchDataset._stack) or hand
    the rows back unstacked."""
    key, epoch, first, inputs = payload
    outs = [task((key, epoch, first + j, values)) for j, values in enumerate(inputs)]
    try:
        return ("stacked",) + stack(None, outs)
    except RuntimeError:
        return ("rows", outs)


def batches_in_workers(batch, key, epoch, map_type):
    """A generator of `batch`'s batches made by its child map's workers, or None when the child
    is not a map (`map_type`: MapDataset) running in worker processes."""
    from pycompile.dataset import workers
    child = batch.children[0]
    if type(child) is not map_type or child.callback_runner is not None:
        return None
    pool = workers.pool_of(child)
    if pool is None:
        return None
    return _batches(batch, child, pool, key + (0,), epoch)


def _chunks(child, key, epoch, size, drop):
    rows, first = [], 0
    for row in child._child_rows(key, epoch):
        rows.append(row)
        if len(rows) == size:
            yield BatchPayload((key, epoch, first, [tuple(r[i] for i in child._in_index) for r in rows])), rows
            first += size
            rows = []
    if rows and not drop:
        yield BatchPayload((key, epoch, first, [tuple(r[i] for i in child._in_index) for r in rows])), rows


def _batches(batch, child, pool, key, epoch):
    for rows, result in pool.ordered(_chunks(child, key, epoch, batch.batch_size, batch.drop_remainder)):
        if result[0] == "rows":
            yield batch._stack([child._place(row, values) for row, values in zip(rows, result[1])])
            continue
        mapped = result[1:]
        if child._layout is None:
            out = [None] * len(rows[0])
            for i, value in zip(child._in_index, mapped):
                out[i] = value
            rest = [i for i in range(len(out)) if out[i] is None]
        else:
            out = list(mapped) + [None] * len(child._layout)
            rest = list(range(len(mapped), len(out)))
        if rest:
            sources = [i for i in range(len(rows[0])) if i not in child._in_index] if child._layout is None \
                else child._layout
            try:
                stacked = batch._stack([tuple(row[i] for i in sources) for row in rows])
            except RuntimeError:       # MindSpore's message names the column of the whole row
                stacked = None
            if stacked is None:
                yield batch._stack([child._place(row, tuple(v[j] for v in mapped)) for j, row in enumerate(rows)])
                continue
            for i, value in zip(rest, stacked):
                out[i] = value
        yield tuple(out)
