"""Worker processes for GeneratorDataset and map (num_parallel_workers > 1, python_multiprocessing=True)
against MindSpore 2.10 (tests/oracle/data/workers.json, written by tests/oracle/record_workers.py):
the rows in MindSpore's order, its error class and message for a user function that raises in a
worker, its argument checks; a worker that dies raises instead of hanging (MindSpore terminates the
whole program), and no worker process outlives its iterator or its parent."""
import gc
import json
import os
import re
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import pycompile.dataset as ds
import worker_cases as wc

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "oracle", "data", "workers.json")
with open(_DATA) as _f:
    MS = json.load(_f)

W = dict(num_parallel_workers=2, python_multiprocessing=True)
pytestmark = pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="MindSpore allows at most one worker per CPU")


@pytest.fixture(autouse=True)
def _seed():
    old = ds.config.get_seed()
    ds.config.set_seed(wc.SEED)
    yield
    ds.config.set_seed(old)


def rows(d):
    it = d.create_tuple_iterator(output_numpy=True, num_epochs=wc.EPOCHS)
    return [[[int(v) for v in r] for r in it] for _ in range(wc.EPOCHS)]


def alive(pid):
    return os.path.exists(f"/proc/{pid}") and "(zombie)" not in open(f"/proc/{pid}/status").read().lower()


def worker_pids(d):
    """Run `d` (rows of the Squares source) through with_pid; the process ids that ran its rows."""
    d = d.map(wc.with_pid, input_columns=["x"], output_columns=["x", "pid"], **W)
    assert d.get_col_names() == MS["map_with_pid_columns"]
    return {int(r[1]) for r in d.create_tuple_iterator(output_numpy=True, num_epochs=1)}


def test_generator_rows_come_in_mindspores_order():
    d = ds.GeneratorDataset(wc.Squares(), ["x", "y"], shuffle=True, **W)
    assert rows(d) == MS["generator_rows"]


def test_map_rows_come_in_mindspores_order():
    d = ds.GeneratorDataset(wc.Squares(), ["x", "y"], shuffle=True, **W).map(wc.plus_one, input_columns=["y"], **W)
    assert rows(d) == MS["map_rows"]


def test_map_runs_in_worker_processes_that_end_with_the_iterator():
    pids = worker_pids(ds.GeneratorDataset(wc.Squares(), ["x", "y"], shuffle=False))
    assert len(pids) == 2 and os.getpid() not in pids
    assert not any(alive(p) for p in pids)          # the last epoch ended: the workers were joined


def test_without_multiprocessing_map_runs_in_this_process():
    d = ds.GeneratorDataset(wc.Squares(4), ["x", "y"], shuffle=False)
    d = d.map(wc.with_pid, input_columns=["x"], output_columns=["x", "pid"], num_parallel_workers=2)
    assert {int(r[1]) for r in d.create_tuple_iterator(output_numpy=True, num_epochs=1)} == {os.getpid()}


def _frames(message):
    """The user's frames (file name, line, function, code) and the final exception line."""
    frames = re.findall(r'File "(?:[^"]*/)?(worker_cases\.py)", line (\d+), in (\w+)\n\s+(.*)\n', message)
    last = [ln for ln in message.split("\n\n" + "-" * 66)[1].splitlines() if ln and not ln.startswith(" ")][-1]
    return frames, last


def _sections(message):
    """The message without its Python call stack's text and without MindSpore's C++ call stack section."""
    head, rest = message.split("- Python Call Stack: \n" + "-" * 66 + "\n", 1)
    return head, rest.split("\n\n", 1)[1].split("\n" + "-" * 66 + "\n- C++ Call Stack")[0]


@pytest.mark.parametrize("case", ["map_raises", "source_raises"])
def test_an_exception_in_a_worker_is_mindspores_runtime_error(case):
    if case == "map_raises":
        d = ds.GeneratorDataset(wc.Squares(10), ["x", "y"], shuffle=False).map(wc.fail_on_three, **W)
    else:
        d = ds.GeneratorDataset(wc.FailingSource(10), ["x", "y"], shuffle=False, **W)
    want = MS["errors"][case]
    with pytest.raises(RuntimeError) as info:
        rows(d)
    got = str(info.value)
    assert type(info.value).__name__ == want["type"]
    assert _sections(got) == _sections(want["message"])
    assert _frames(got) == _frames(want["message"])
    if case == "map_raises":                      # MindSpore names the failing operation
        assert "map operation: [PyFunc] failed. Traceback" in got and "map operation: [PyFunc]" in want["message"]
        assert isinstance(info.value.__cause__, ValueError)
    assert "pycompile" not in got                 # none of pycompile's frames


@pytest.mark.parametrize("case", ["source_workers_0", "source_workers_too_many", "source_workers_str",
                                  "map_workers_0", "map_workers_too_many", "map_workers_str",
                                  "start_method_int", "start_method_forkserver"])
def test_argument_checks_are_mindspores(case):
    cpus = os.cpu_count()
    value = {"0": 0, "many": cpus + 1, "str": "2"}[case.rsplit("_", 1)[1]] if "workers" in case else None
    want = MS["errors"][case]
    with pytest.raises(Exception) as info:
        if case.startswith("source"):
            ds.GeneratorDataset(wc.Squares(), ["x"], num_parallel_workers=value)
        elif case.startswith("map"):
            ds.GeneratorDataset(wc.Squares(), ["x", "y"]).map(wc.plus_one, num_parallel_workers=value)
        else:
            ds.config.set_multiprocessing_start_method(3 if case.endswith("int") else "forkserver")
    assert type(info.value).__name__ == want["type"]
    assert str(info.value) == want["message"].replace("{cpus}", str(cpus))
    assert ds.config.get_multiprocessing_start_method() == MS["default_start_method"]


def test_a_worker_that_dies_raises_instead_of_hanging():
    d = ds.NumpySlicesDataset(np.arange(10), ["x"], shuffle=False).map(wc.exit_on_three, **W)
    start = time.monotonic()
    with pytest.raises(RuntimeError) as info:
        rows(d)
    assert time.monotonic() - start < 10
    want = MS["worker_died"]["log"].split("SIGCHLDHandler] ")[1].split(" Main process")[0]   # MindSpore's words
    assert re.fullmatch(want.replace(".", r"\.").replace("{pid}", r"\d+"), str(info.value).splitlines()[0])


def test_no_orphans_when_the_consumer_stops_early():
    d = ds.GeneratorDataset(wc.Squares(200), ["x", "y"], shuffle=False)
    d = d.map(wc.with_pid, input_columns=["x"], output_columns=["x", "pid"], **W)
    it = d.create_tuple_iterator(output_numpy=True)          # endless epochs
    pids = {int(next(it)[1]) for _ in range(6)}
    assert pids and all(alive(p) for p in pids)
    del it
    gc.collect()
    assert not any(alive(p) for p in pids)


def test_random_transforms_in_workers_repeat_for_the_seed():
    """Each row draws from its own generator, so the result depends on the seed, not on the workers."""
    images = np.arange(8 * 4 * 4 * 3, dtype=np.uint8).reshape(8, 4, 4, 3)

    def run(workers):
        d = ds.NumpySlicesDataset(images, ["image"], shuffle=False)
        d = d.map(ds.vision.RandomHorizontalFlip(0.5), num_parallel_workers=workers, python_multiprocessing=True)
        return [r[0] for r in d.create_tuple_iterator(output_numpy=True, num_epochs=1)]

    two = run(2)
    flipped = [not np.array_equal(a, b) for a, b in zip(two, images)]
    assert any(flipped) and not all(flipped)
    assert all(np.array_equal(a, b) for a, b in zip(two, run(2)))
    if (os.cpu_count() or 1) >= 3:
        assert all(np.array_equal(a, b) for a, b in zip(two, run(3)))


def test_a_lambda_works_under_fork():
    d = ds.GeneratorDataset(wc.Squares(6), ["x", "y"], shuffle=False).map(lambda x: x * 10, **W)
    assert [int(r[0]) for r in d.create_tuple_iterator(output_numpy=True, num_epochs=1)] == [0, 10, 20, 30, 40, 50]


_ORPHAN_SCRIPT = textwrap.dedent("""
    import os, signal, sys
    sys.path.insert(0, {here!r})
    import pycompile.dataset as ds, worker_cases as wc
    ds.config.set_multiprocessing_start_method({method!r})
    d = ds.GeneratorDataset(wc.Squares(100), ["x", "y"], shuffle=False)
    d = d.map(wc.with_pid, input_columns=["x"], output_columns=["x", "pid"], num_parallel_workers=2,
              python_multiprocessing=True)
    it = d.create_tuple_iterator(output_numpy=True)
    print(sorted({{int(next(it)[1]) for _ in range(8)}}), flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
""")


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_workers_end_when_their_parent_is_killed(method):
    """SIGKILL leaves no atexit to run: the workers notice their parent is gone. Under spawn the
    workers import the map function from its module."""
    script = _ORPHAN_SCRIPT.format(here=os.path.dirname(os.path.abspath(__file__)), method=method)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, env=env)
    pids = json.loads(p.stdout.strip().splitlines()[-1])
    assert len(pids) == 2, p.stderr
    deadline = time.monotonic() + 10
    while any(alive(q) for q in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(alive(q) for q in pids)
