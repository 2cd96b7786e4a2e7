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
    # SIGINT as a terminal leaves it: an ignored disposition is inherited across exec, and a test run
    # earlier in this process (pytest-xdist) may have left SIGINT ignored - the child then never saw
    # the Ctrl-C (the full suite timed out here; alone it passed)
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=env, start_new_session=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        line = p.stdout.readline()
        pids = json.loads(line)
        children = [int(c) for c in open(f"/proc/{p.pid}/task/{p.pid}/children").read().split()]
        assert len(pids) == 2 and set(pids) <= set(children) and len(children) >= 4, (pids, children)
        os.killpg(p.pid, signal.SIGINT)
        _, err = p.communicate(timeout=90)     # generous: a loaded machine (a hang is what it catches)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    assert p.returncode != 0 and "KeyboardInterrupt" in err, err[-2000:]
    deadline = time.monotonic() + 30
    while any(alive(c) for c in children) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [c for c in children if alive(c)]


def _images():
    rng = np.random.default_rng(0)
    return rng.integers(0, 256, (10, 6, 5, 3), dtype=np.uint8), np.arange(10, dtype=np.int64)


def _image_map(d, **kw):
    ops = [ds.vision.RandomHorizontalFlip(0.5), ds.vision.Normalize([10, 20, 30], [2, 3, 4]), ds.vision.HWC2CHW()]
    return d.map(ops, input_columns=["image"], **kw)


@pytest.mark.parametrize("drop", [False, True])
def test_the_workers_map_and_stack_whole_batches(monkeypatch, drop):
    """map(workers).batch(4): each batch is made in one worker (one result per batch through the
    pool), with the values of the rows mapped one by one (random draws included) then stacked."""
    from pycompile.dataset import worker_batches, workers
    images, labels = _images()
    pipeline = lambda: _image_map(ds.NumpySlicesDataset({"image": images, "label": labels}, shuffle=False),  # noqa: E731
                                  **W).batch(4, drop_remainder=drop)
    iterate = lambda: list(pipeline().create_tuple_iterator(output_numpy=True, num_epochs=1))  # noqa: E731
    with monkeypatch.context() as m:            # rows to the workers one by one, stacked here
        m.setattr(worker_batches, "batches_in_workers", lambda *a: None)
        want = iterate()
    results = []
    ordered = workers.WorkerPool.ordered

    def counting(self, items):
        for keep, value in ordered(self, items):
            results.append(value)
            yield keep, value

    monkeypatch.setattr(workers.WorkerPool, "ordered", counting)
    got = iterate()
    assert len(results) == len(want) == len(got) == (2 if drop else 3)
    for batch, expected in zip(got, want):
        assert [a.dtype for a in batch] == [np.dtype(np.float32), np.dtype(np.int64)]
        for a, b in zip(batch, expected):
            np.testing.assert_array_equal(a, b)
    plain = (images.transpose(0, 3, 1, 2) - np.float32([10, 20, 30])[:, None, None]) / np.float32([2, 3, 4])[:, None, None]
    flipped = [not np.array_equal(img, plain[i]) for b in got for img, i in zip(b[0], b[1])]
    assert any(flipped) and not all(flipped)


def test_worker_batches_keep_the_maps_column_layout():
    """One input column mapped to two outputs: the outputs first, then the untouched columns."""
    d = ds.NumpySlicesDataset({"x": np.arange(7), "y": np.arange(7) * 10}, shuffle=False)
    d = d.map(wc.with_pid, input_columns=["x"], output_columns=["x", "pid"], **W).batch(3)
    assert d.get_col_names() == ["x", "pid", "y"]
    got = list(d.create_tuple_iterator(output_numpy=True, num_epochs=1))
    assert [b[0].tolist() for b in got] == [[0, 1, 2], [3, 4, 5], [6]]
    assert [b[2].tolist() for b in got] == [[0, 10, 20], [30, 40, 50], [60]]
    assert [len(set(b[1].tolist())) for b in got] == [1, 1, 1]           # one worker made each batch
    assert len({int(b[1][0]) for b in got}) == 2                          # batch k went to worker k mod 2


def test_worker_batches_that_cannot_stack_raise_mindspores_error():
    d = ds.NumpySlicesDataset(np.arange(6), ["x"], shuffle=False).map(wc.ragged, **W).batch(3)
    with pytest.raises(RuntimeError, match=r"Inconsistent batch shapes, batch operation expects same shape for each "
                                           r"data row, but got inconsistent shape in column 0, expected shape for "
                                           r"this column is:\[1\], got shape:\[2\]"):
        list(d.create_tuple_iterator(output_numpy=True, num_epochs=1))


def test_a_worker_that_raises_inside_a_batch_ends_the_pipeline_with_its_traceback():
    d = ds.NumpySlicesDataset(np.arange(8), ["x"], shuffle=False).map(wc.fail_on_three, **W).batch(4)
    with pytest.raises(RuntimeError, match="Exception thrown from user defined Python function in dataset") as info:
        list(d.create_tuple_iterator(output_numpy=True, num_epochs=1))
    text = str(info.value)
    assert "worker_cases.py" in text and 'raise ValueError("boom at three")' in text and "ValueError: boom at three" in text
    assert isinstance(info.value.__cause__, ValueError)
