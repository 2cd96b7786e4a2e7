"""Shape arithmetic shared by the C kernels: broadcast strides and collapsed loop nests."""
from __future__ import annotations


def strides(shape, full):
    """Element strides of `shape` broadcast against `full` (0 where broadcast)."""
    nd = len(full)
    shape = (1,) * (nd - len(shape)) + tuple(shape)
    out, acc = [0] * nd, 1
    for d in range(nd - 1, -1, -1):
        out[d] = 0 if shape[d] == 1 and full[d] != 1 else acc
        acc *= shape[d]
    return out


# True while a graph is rendered for a run-time leading (batch) dimension (backend/dynamic.py): the
# leading dimension is then never merged into the next, so a kernel's innermost loop never spans
# the batch and its tile count stays a multiple of the batch size (affine in it)
KEEP_LEADING = [False]


def collapse(full, stride_lists):
    """Merge adjacent dimensions where every operand is contiguous (or broadcast) across them."""
    dims = [d for d in full]
    strides = [list(s) for s in stride_lists]
    i = len(dims) - 2
    stop = 1 if KEEP_LEADING[0] else 0
    while i >= stop:
        ok = all(s[i] == s[i + 1] * dims[i + 1] for s in strides)
        if ok:
            dims[i] *= dims[i + 1]
            del dims[i + 1]
            for s in strides:
                s[i] = s[i + 1]
                del s[i + 1]
        i -= 1
    if not dims:
        dims = [1]
        strides = [[0] for _ in strides]
    return dims, strides
