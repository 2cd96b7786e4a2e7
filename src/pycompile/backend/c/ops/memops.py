"""Memory in place of copies: a pointer to one row of a tensor (a gathered row read where it is:
backend/c/views.py) and zero fills split over the pool."""
from __future__ import annotations

import math

from pycompile.backend.c.ops import ctypes_ as C
from pycompile.backend.c.ops.kernels import PARALLEL_FOR, checked_index
from pycompile.backend.c.ops.writer import CWriter


def row_view(w, x, xt, idx: str, axis: int, err_code: int, dt, var: str) -> str:
    """The pointer to x's row `idx` along `axis` (no axis before it longer than 1): the index
    checked and wrapped as gather's (into the C variable `var`), then x + var * (the row's
    elements)."""
    checked_index(w, var, idx, xt.shape[axis], err_code)
    return f"({C.storage(dt)} *){x} + {var} * {math.prod(xt.shape[axis + 1:])}L"


ZERO_CHUNK = 1 << 18        # bytes a thread zeroes per unit (zero)


def zero(w: CWriter, ptr: str, nbytes: int) -> None:
    """ptr[0 .. nbytes) = 0: from 1 MB on, in chunks over the pool. A memset runs at a core's
    store bandwidth, so one of several MB (a reverse loop's gradient accumulator, the zeros a
    gathered gradient is scattered into) kept the other cores waiting: W11 zeroed 30 MB a
    training step on the calling thread, 4 % of its time."""
    if nbytes < 4 * ZERO_CHUNK:
        w.line(f"memset({ptr}, 0, {nbytes});")
        return
    n = -(-nbytes // ZERO_CHUNK)
    w.line(PARALLEL_FOR)
    with w.block(f"for (long u = 0; u < {n}L; ++u)"):
        w.line(f"memset((char *)({ptr}) + u * {ZERO_CHUNK}L, 0, u < {n - 1}L ? {ZERO_CHUNK}L : "
               f"{nbytes - (n - 1) * ZERO_CHUNK}L);")
