"""The pool's work-split trace (csrc/pool.c pc_pool_trace) and tools/work_split.py's model: every
top-level loop given to the pool is recorded with its iterations and the chunks the pool cut it
into for the team size - one chunk for a team of one, min(n, 4 T) chunks of ceil(n / chunks)
otherwise - so a partitioning that cannot use 16 threads shows on a 2-core machine."""
import os
import sys

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops
from pycompile._rt import ffi, lib
from pycompile.common import context

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
import work_split  # noqa: E402


def big(x):
    return ops.exp(x) * 2.0 + 1.0


def _traced(fn, *args):
    buf = ffi.new("long[]", 3 * 64)
    lib.pc_pool_trace(1)
    try:
        out = fn(*args)
    finally:
        lib.pc_pool_trace(0)
    k = lib.pc_pool_trace_read(buf, 64)
    return out, [(buf[3 * i], buf[3 * i + 1], buf[3 * i + 2]) for i in range(k)]


@pytest.fixture
def threads():
    yield lib.pc_set_num_threads
    lib.pc_set_num_threads(context.num_threads())


def test_the_trace_records_each_loop_and_its_chunks_per_team_size(threads):
    x = Tensor(np.linspace(-1, 1, 1 << 20, dtype=np.float32).reshape(1024, 1024))
    f = ms.jit(big)
    f(x)
    seen = {}
    for t in (1, 3, 16):
        threads(t)
        f(x)
        out, rec = _traced(f, x)
        np.testing.assert_allclose(out.asnumpy(), np.exp(x.asnumpy()) * 2 + 1, rtol=1e-6)
        assert len(rec) >= 1, "a 1M-element elementwise loop runs on the pool"
        n, chunks, ns = rec[0]
        assert n >= 2 and ns > 0
        assert chunks == (1 if t == 1 else -(-n // -(-n // min(n, 4 * t))))
        seen[t] = chunks
    assert seen[1] == 1 and seen[3] == min(12, rec[0][0]) and seen[16] == min(64, rec[0][0])
    # off: nothing more is recorded, and reading cleared it
    f(x)
    assert lib.pc_pool_trace_read(ffi.new("long[]", 3), 1) == 0


def test_the_model_counts_the_busiest_threads_share():
    assert work_split.busiest_share(64, 64, 16) == 4 / 64            # 4 chunks of 1 each
    assert work_split.busiest_share(7, 7, 16) == 1 / 7               # 7 chunks: 9 threads idle
    assert work_split.busiest_share(100, 64, 16) == 8 / 100          # chunks of 2: 50 chunks, 4 on the busiest
    assert work_split.busiest_share(5, 1, 4) == 1.0


def test_loops_a_static_threshold_keeps_serial_are_listed():
    c = ("{ if (65536L > 524288L) RT->parallel_for(pc_r0, (void *)&pc_c0, (long)(64L)); else pc_r0(); }\n"
         "{ if (0) RT->parallel_for(pc_r1, (void *)&pc_c1, (long)(10752L)); else pc_r1(); }\n"
         "{ if (600000L > 524288L) RT->parallel_for(pc_r2, (void *)&pc_c2, (long)(5376L)); else pc_r2(); }\n"
         "{ if (n > 3) RT->parallel_for(pc_r3, (void *)&pc_c3, (long)(9L)); else pc_r3(); }\n")
    assert work_split.serial_loops(c) == [("pc_r0", "64"), ("pc_r1", "10752")]
