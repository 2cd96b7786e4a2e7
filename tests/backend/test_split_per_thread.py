"""Issue 37: the CNN kernels' parallel thresholds are work per thread, tested at run time against
the call's team size (backend/c/ops/conv.py split_if: `if (work > per_thread * nt)`). LeNet-5's first
layer (15 MFLOP of convolution, 150,528 elements of pooling) was under the old fixed totals
(2^24 FLOPs, 2^19 elements) and ran serially at any thread count, so W9 did not scale; it now
splits on 2 threads, gives the values it gives on one, and a loop whose per-thread share is too
small at a larger team stays on the caller. tools/work_split.py reads the same conditions."""
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


def lenet_first_layer(x, w):
    return ops.max_pool2d(ops.relu(ops.conv2d(x, w)), 2, 2)


@pytest.fixture
def threads():
    yield lib.pc_set_num_threads
    lib.pc_set_num_threads(context.num_threads())


def _parallel_loops(f, args) -> tuple:
    out = ffi.new("long[2]")
    lib.pc_pool_stats(out, 2)
    before = list(out)
    y = f(*args).asnumpy()
    lib.pc_pool_stats(out, 2)
    return y, (out[0] - before[0]) + (out[1] - before[1])      # split loops (or backed off: a busy core)


def test_lenets_first_layer_splits_on_two_threads_and_keeps_its_values(threads):
    rng = np.random.default_rng(0)
    x = Tensor(rng.standard_normal((64, 1, 32, 32)).astype(np.float32))
    w = Tensor(rng.standard_normal((6, 1, 5, 5)).astype(np.float32) * 0.2)
    f = ms.jit(lenet_first_layer)
    eager = lenet_first_layer(x, w).asnumpy()
    src = f.compiled(x, w).c_source
    sites = work_split.call_sites(src)
    results, loops = {}, {}
    for t in (1, 2, 16):
        threads(t)
        f(x, w)
        results[t], loops[t] = _parallel_loops(f, (x, w))
        # the generated conditions, read at this team size, say how many loops the pool splits
        assert loops[t] == (0 if t == 1 else sum(bool(work_split.splits_at(c, t)) for _, c, _ in sites))
    assert loops[2] >= 2, "the convolution and the pooling split over 2 threads (serial under the old totals)"
    assert loops[16] < loops[2], "a loop too small for 16 threads' shares stays on the caller"
    np.testing.assert_allclose(results[1], eager, rtol=1e-5, atol=1e-5)
    for t in (2, 16):       # each output element is computed by one thread, the same way on any count
        np.testing.assert_array_equal(results[t], results[1])


def test_the_conditions_are_per_thread_and_read_by_the_printout():
    c = ("{ if (15052800L > 262144L * nt) RT->parallel_for(pc_r1, (void *)&pc_c1, (long)(10752L)); else pc_r1(); }\n"
         "{ if (65536L > 8192L * nt) RT->parallel_for(pc_r0, (void *)&pc_c2, (long)(2048L)); else pc_r0(); }\n"
         "{ if (0) RT->parallel_for(pc_r3, (void *)&pc_c3, (long)(1L)); else pc_r3(); }\n"
         "{ RT->parallel_for(pc_r4, (void *)&pc_c4, (long)(1L * cpb)); }\n")
    assert [s[0] for s in work_split.call_sites(c)] == ["pc_r1", "pc_r0", "pc_r3", "pc_r4"]
    assert [work_split.splits_at(s[1], 16) for s in work_split.call_sites(c)] == [True, False, False, True]
    assert work_split.splits_at("n > 3", 2) is None
    assert work_split.serial_loops(c) == [("pc_r3", "1")]
    assert work_split.serial_loops(c, 16) == [("pc_r0", "2048"), ("pc_r3", "1")]
    from pycompile.backend.c.ops.conv import split_if
    assert split_if(100, 1000) == "0"
    assert split_if(15052800, 1 << 18) == "15052800L > 262144L * nt"
