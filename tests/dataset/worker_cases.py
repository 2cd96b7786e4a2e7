"""Worker-process fixtures defined once (NumPy only) for tests/oracle/record_workers.py (MindSpore's
venv) and tests/dataset/test_workers.py: the user functions and sources live in this file so the
recorded tracebacks and pycompile's both name it (and so `spawn` workers can import them)."""
import os

import numpy as np

SEED = 1234
EPOCHS = 2


class Squares:
    """A random-access source of (i, i * i)."""

    def __init__(self, n=20):
        self.n = n

    def __getitem__(self, i):
        return np.array(i, np.int64), np.array(i * i, np.int64)

    def __len__(self):
        return self.n


class FailingSource(Squares):
    def __getitem__(self, i):
        if i == 4:
            raise KeyError("bad index 4")
        return super().__getitem__(i)


def plus_one(x):
    return x + 1


def fail_on_three(x):
    if int(x) == 3:
        raise ValueError("boom at three")
    return x * 2


def exit_on_three(x):
    if int(x) == 3:
        os._exit(7)
    return x


def with_pid(x):
    """(x, the worker's process id): shows which process ran the row."""
    return x, np.array(os.getpid(), np.int64)


def cpu_heavy(x):
    """About 20 ms of pure-Python arithmetic per row (a CPU-bound map for the speed-up figure)."""
    total = 0
    for k in range(int(x) % 7, 400_000):
        total = (total + k * k) % 1_000_003
    return np.array(total, np.int64)


def big_row(x):
    """A 1 MiB float32 image per row (shared memory carries it), a string and an int beside it."""
    i = int(x)
    return np.full((512, 512), i, np.float32), np.array(f"row {i}"), np.array(i, np.int64)


def growing_row(x):
    """Rows of 80 KiB, then of 4 MiB: the shared segments grow."""
    i = int(x)
    return np.arange(i * (20_000 if i < 3 else 1_000_000), (i + 1) * (20_000 if i < 3 else 1_000_000), dtype=np.int32)


def hang_on_three(x):
    import time
    if int(x) == 3:
        time.sleep(3600)
    return x


def slow(x):
    import time
    time.sleep(0.05)
    return x


def ragged(x):
    """Rows of length x % 3 + 1: a batch of them cannot be stacked."""
    return np.zeros(int(x) % 3 + 1, np.float32)
