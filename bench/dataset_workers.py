"""The speed-up of a CPU-bound Python map with worker processes (issue 35):

    PYTHONPATH=src python bench/dataset_workers.py [ROWS]

Maps tests/dataset/worker_cases.cpu_heavy (about 20 ms of pure-Python arithmetic a row) over ROWS
rows (default 200) in the pipeline's thread, then with num_parallel_workers=2 and 4 (as many as
the CPUs allow) and python_multiprocessing=True; prints seconds and the speed-up over one process.
"""
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "dataset"))
import pycompile.dataset as ds  # noqa: E402
import worker_cases as wc  # noqa: E402


def run(rows, workers):
    d = ds.NumpySlicesDataset(np.arange(rows), ["x"], shuffle=False)
    d = d.map(wc.cpu_heavy, num_parallel_workers=workers, python_multiprocessing=workers > 1)
    start = time.perf_counter()
    out = [int(r[0]) for r in d.create_tuple_iterator(output_numpy=True, num_epochs=1)]
    return time.perf_counter() - start, out


def main():
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    base, want = run(rows, 1)
    print(f"{rows} rows, {os.cpu_count()} CPUs: 1 process {base:.2f} s")
    for workers in (2, 4):
        if workers > (os.cpu_count() or 1):
            break
        seconds, got = run(rows, workers)
        assert got == want, "the workers changed the rows"
        print(f"{workers} worker processes: {seconds:.2f} s, speed-up {base / seconds:.2f}x")


if __name__ == "__main__":
    main()
