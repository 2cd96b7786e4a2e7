"""All-reduces between ranks of one machine through shared memory (csrc/comm_shm.c), under
mpirun with 2 and 3 ranks (shm_worker.py): values bit for bit against NumPy's rank-order
reduction, the segment's offsets wrapping around, the fall-back to MPI (an int32 all-reduce, one
larger than the segment, PYCOMPILE_COMM_SHM=0), every bucket of every training step through the
segments. A peer that exits or stops while another waits in a shared-memory all-reduce:
test_faults.py (its all-reduces of float32 over the world run there)."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest

from test_mpi import HERE, _env, _mpiexec

WORKER = f"{HERE}/shm_worker.py"


def _run(n, part, **env):
    cmd = [_mpiexec(), "-n", str(n), sys.executable, WORKER, part]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=240, env={**_env(), **env})
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    # (mpiexec may interleave the ranks' lines)
    found = sorted((int(r), int(size), int(calls)) for r, size, calls in re.findall(r"rank (\d+)/(\d+) OK (\d+)\b",
                                                                                  proc.stdout))
    assert [f[:2] for f in found] == [(r, n) for r in range(n)], proc.stdout
    return [f[2] for f in found]


@pytest.mark.parametrize("n", [2, 3])
def test_all_reduces_in_shared_memory_equal_numpys_rank_order(n):
    calls = _run(n, "values")
    assert all(c > 48 for c in calls), calls


def test_the_segment_wraps_around_and_larger_inputs_go_through_mpi():
    assert _run(2, "wrap", PYCOMPILE_COMM_SHM_MB="1") == [40, 40]


def test_every_training_step_reduces_through_the_segment():
    """A step whose first bucket is small: a start with nothing in flight begins again at offset 0,
    so the step's large buckets never find the segment full (they went through MPI from the
    second step on when the offsets only wrapped for an input that did not fit)."""
    _run(2, "steps", PYCOMPILE_COMM_SHM_MB="1")


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("part", ["direct", "mixed"])
def test_steps_reduce_in_place_in_the_segments_arena(n, part):
    """A compiled step's arena in its rank's segment: every bucket reduced where the backward wrote
    it, the others' sums stored into it ("direct"); with one rank's arena full, that rank copies
    as before and the others wait until it has copied out of their buffers ("mixed"). The weights
    after 20 steps equal one process's on the whole batch, and every rank's are the same bits."""
    _run(n, part)


def test_the_knob_sends_every_all_reduce_through_mpi():
    """PYCOMPILE_COMM_SHM=0: the same values (MPI's sum of 2 ranks is the same in either order),
    none through the segments."""
    assert _run(2, "values", PYCOMPILE_COMM_SHM="0") == [0, 0]
