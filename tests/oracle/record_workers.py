"""Record what MindSpore 2.10 does with Python worker processes (issue 35):

    . /work/ms-venv/bin/activate && python tests/oracle/record_workers.py

Writes data/workers.json: the rows (in order) of a shuffled random-access GeneratorDataset and a
map, both with num_parallel_workers=2 and python_multiprocessing=True, over EPOCHS epochs; the
error (class and message) when a map function or a source's __getitem__ raises in a worker, paths
reduced to file names; MindSpore's checks of num_parallel_workers (the CPU count written as {cpus})
and of the start method;
and the line MindSpore logs when a worker process dies (it then terminates the main process).
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import mindspore as ms
import mindspore.dataset as ds

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "dataset"))
import worker_cases as wc  # noqa: E402

CPUS = os.cpu_count()


def clean(text):
    """Absolute paths to file names; the CPU count to {cpus}."""
    return re.sub(r'File "[^"]*/([^"/]+)"', r'File "\1"', text)


def error_of(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - recording what MindSpore raises
        return {"type": type(e).__name__,
                "message": re.sub(r"between 1 and \d+!", "between 1 and {cpus}!", clean(str(e)))}
    return None


def rows(d):
    it = d.create_tuple_iterator(output_numpy=True, num_epochs=wc.EPOCHS)
    return [[[int(v) for v in r] for r in it] for _ in range(wc.EPOCHS)]


def workers(**kw):
    return dict(num_parallel_workers=2, python_multiprocessing=True, **kw)


def died():
    """Run a map whose worker exits; return MindSpore's log line about it."""
    code = ("import sys; sys.path.insert(0, %r); import numpy as np, mindspore.dataset as ds, worker_cases as wc\n"
            "d = ds.NumpySlicesDataset(np.arange(10), ['x'], shuffle=False)\n"
            "d = d.map(wc.exit_on_three, num_parallel_workers=2, python_multiprocessing=True)\n"
            "print([int(r[0]) for r in d.create_tuple_iterator(output_numpy=True, num_epochs=1)])\n"
            % os.path.join(os.path.dirname(HERE), "dataset"))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    line = [ln for ln in (p.stdout + p.stderr).splitlines() if "exited unexpectedly" in ln][0]
    return {"returncode": p.returncode, "log": re.sub(r"\d+ exited", "{pid} exited", line.split("] ", 2)[-1])}


def main():
    ds.config.set_seed(wc.SEED)
    record = {"mindspore": ms.__version__}
    def src():
        return ds.GeneratorDataset(wc.Squares(), ["x", "y"], shuffle=True, **workers())

    def plain():
        return ds.GeneratorDataset(wc.Squares(10), ["x", "y"], shuffle=False)
    record["generator_rows"] = rows(src())
    record["map_rows"] = rows(src().map(wc.plus_one, input_columns=["y"], **workers()))
    record["map_with_pid_columns"] = src().map(wc.with_pid, input_columns=["x"], output_columns=["x", "pid"],
                                             **workers()).get_col_names()
    record["errors"] = {
        "map_raises": error_of(lambda: rows(plain().map(wc.fail_on_three, **workers()))),
        "source_raises": error_of(lambda: rows(ds.GeneratorDataset(wc.FailingSource(10), ["x", "y"], shuffle=False,
                                                                   **workers()))),
        "source_workers_0": error_of(lambda: ds.GeneratorDataset(wc.Squares(), ["x"], num_parallel_workers=0)),
        "source_workers_too_many": error_of(lambda: ds.GeneratorDataset(wc.Squares(), ["x"],
                                                                        num_parallel_workers=CPUS + 1)),
        "source_workers_str": error_of(lambda: ds.GeneratorDataset(wc.Squares(), ["x"], num_parallel_workers="2")),
        "map_workers_0": error_of(lambda: plain().map(wc.plus_one, num_parallel_workers=0)),
        "map_workers_too_many": error_of(lambda: plain().map(wc.plus_one, num_parallel_workers=CPUS + 1)),
        "map_workers_str": error_of(lambda: plain().map(wc.plus_one, num_parallel_workers="2")),
        "start_method_int": error_of(lambda: ds.config.set_multiprocessing_start_method(3)),
        "start_method_forkserver": error_of(lambda: ds.config.set_multiprocessing_start_method("forkserver")),
    }
    record["default_start_method"] = ds.config.get_multiprocessing_start_method()
    record["worker_died"] = died()
    out = os.path.join(HERE, "data", "workers.json")
    with open(out, "w") as f:
        json.dump(record, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote", out, os.path.getsize(out), "bytes", file=sys.stderr)


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        main()
