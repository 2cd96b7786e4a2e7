"""Worker processes, the rest of issue 35's item 6 (workers.py): large rows come back through
shared memory (memfd segments that grow, none left behind), a worker that stops answering raises
an error naming it instead of hanging, and Ctrl-C (SIGINT to the process group, as a terminal
sends it) ends the program and its workers."""
import gc
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import pycompile.dataset as ds
import worker_cases as wc

W = dict(num_parallel_workers=2, python_multiprocessing=True)
pytestmark = pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="MindSpore allows at most one worker per CPU")


def memfds(pid="self"):
    """The distinct worker segments this process holds (mmap keeps a second descriptor of each)."""
    out = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if "pycompile-dataset-w" in target:
            out.add(target)
    return sorted(out)


def alive(pid):
    return os.path.exists(f"/proc/{pid}") and "(zombie)" not in open(f"/proc/{pid}/status").read().lower()


@pytest.mark.parametrize("shared", [True, False])
def test_large_rows_come_back_through_shared_memory(shared):
    old = ds.config.get_enable_shared_mem()
    ds.config.set_enable_shared_mem(shared)
    try:
        d = ds.NumpySlicesDataset(np.arange(6), ["x"], shuffle=False)
        d = d.map(wc.big_row, input_columns=["x"], output_columns=["img", "name", "i"], **W)
        it = d.create_tuple_iterator(output_numpy=True, num_epochs=1)
        got = []
        for img, name, i in it:
            got.append((img, str(name), int(i)))
            if len(got) == 1:
                segments = memfds()
        assert [g[1:] for g in got] == [(f"row {i}", i) for i in range(6)]
        for i, (img, _, _) in enumerate(got):
            assert img.dtype == np.float32 and img.shape == (512, 512) and (img == i).all()
        # 3 segments a worker while the workers run (none when shared memory is off), none after
        assert len(segments) == (6 if shared else 0), segments
        del it
        gc.collect()
        assert memfds() == []
    finally:
        ds.config.set_enable_shared_mem(old)


def test_shared_segments_grow_with_the_rows():
    d = ds.NumpySlicesDataset(np.arange(6), ["x"], shuffle=False).map(wc.growing_row, **W)
    for i, (row,) in enumerate(d.create_tuple_iterator(output_numpy=True, num_epochs=1)):
        n = 20_000 if i < 3 else 1_000_000
        np.testing.assert_array_equal(row, np.arange(i * n, (i + 1) * n, dtype=np.int32))


def test_a_worker_that_stops_answering_raises_naming_it(monkeypatch):
    monkeypatch.setenv("PYCOMPILE_DATASET_WORKER_TIMEOUT", "1.5")
    d = ds.NumpySlicesDataset(np.arange(8), ["x"], shuffle=False).map(wc.hang_on_three, **W)
    outcome = {}

    def consume():
        try:
            outcome["rows"] = [int(r[0]) for r in d.create_tuple_iterator(output_numpy=True, num_epochs=1)]
        except RuntimeError as e:
            outcome["error"] = e

    start = time.monotonic()
    t = threading.Thread(target=consume, daemon=True)
    t.start()
    t.join(30)
    assert not t.is_alive(), "the pipeline hung on a worker that never answers"
    assert time.monotonic() - start < 15
    message = str(outcome.get("error"))
    assert "Dataset worker process" in message and "(worker 1 of 2) has not returned row 3 after" in message, outcome
    assert "PYCOMPILE_DATASET_WORKER_TIMEOUT" in message


def test_timeout_interval_config_is_mindspores():
    """Defaults and messages as MindSpore 2.10 gives them (its config.py: the texts are literal there)."""
    assert ds.config.get_multiprocessing_timeout_interval() == 300
    with pytest.raises(TypeError, match="interval isn't of type int."):
        ds.config.set_multiprocessing_timeout_interval(1.5)
    with pytest.raises(ValueError, match=r"Interval given is not within the required range \(0, INT32_MAX"):
        ds.config.set_multiprocessing_timeout_interval(0)
    with pytest.raises(TypeError, match="enable must be of type bool."):
        ds.config.set_enable_shared_mem(1)


_CTRL_C_SCRIPT = textwrap.dedent("""
    import os, sys
    sys.path.insert(0, {here!r})
    import numpy as np
    import pycompile.dataset as ds, worker_cases as wc
    d = ds.NumpySlicesDataset(np.arange(10_000), ["x"], shuffle=False)
    d = d.map(wc.slow, num_parallel_workers=2, python_multiprocessing=True)
    d = d.map(wc.with_pid, input_columns=["x"], output_columns=["x", "pid"], num_parallel_workers=2,
              python_multiprocessing=True)
    it = d.create_tuple_iterator(output_numpy=True)
    print(sorted({{int(next(it)[1]) for _ in range(6)}}), flush=True)
    for row in it:
        pass
""")


def test_ctrl_c_leaves_no_orphan_processes():
    """SIGINT to the whole process group, as a terminal's Ctrl-C sends it, in the middle of an epoch:
    the program ends with KeyboardInterrupt and every worker process (of both maps) goes with it."""
    import json
    script = _CTRL_C_SCRIPT.format(here=os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=env, start_new_session=True)
    try:
        line = p.stdout.readline()
        pids = json.loads(line)
        children = [int(c) for c in open(f"/proc/{p.pid}/task/{p.pid}/children").read().split()]
        assert len(pids) == 2 and set(pids) <= set(children) and len(children) >= 4, (pids, children)
        os.killpg(p.pid, signal.SIGINT)
        _, err = p.communicate(timeout=20)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    assert p.returncode != 0 and "KeyboardInterrupt" in err, err[-2000:]
    deadline = time.monotonic() + 5
    while any(alive(c) for c in children) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [c for c in children if alive(c)]
