"""Lists a compiled `for` loop filled with one row per iteration (compiler/stacking.py).

`out = []; for i in range(n): out.append(f(x[i]))` followed by `ops.stack(out)` is compiled as
one loop writing row i of an (n, ...) buffer, not n copies of the body. Afterwards the list
holds the buffer's rows (views), so any use of it (indexing, len, iteration, more appends)
behaves as before; the graph builder remembers which buffer a list came from, and `stack` /
`concat` of a list still exactly as the loop left it is that buffer (moved / reshaped for
another axis): the stack costs nothing and the rows nobody reads are removed as dead code.
"""
from __future__ import annotations


def stacked_whole(tensors):
    """The (n, *row) buffer behind `tensors` when a loop filled it and it was not changed since,
    else None. The record lives on the graph builder of the rows (their tracer)."""
    if type(tensors) is not list or not tensors:
        return None
    table = getattr(getattr(tensors[0], "_tracer", None), "stacked_lists", None)
    entry = table.get(id(tensors)) if table else None
    if entry is None or entry[0] is not tensors:
        return None
    _, whole, rows = entry
    if len(tensors) != len(rows) or any(a is not b for a, b in zip(tensors, rows)):
        return None
    return whole
