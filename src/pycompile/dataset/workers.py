"""Python worker processes for `GeneratorDataset(..., num_parallel_workers=N, python_multiprocessing=True)`
and `map(..., num_parallel_workers=N, python_multiprocessing=True)` with N > 1.

An iterator starts one pool of N processes per such node when it is created (in the caller's
thread) and closes them when its last epoch ends, when it is stopped or dropped (a
weakref.finalize), or at interpreter exit (the processes are daemons, which multiprocessing
terminates then). A node's `_rows` asks `pool_of(self)` for the pool of the iterator running it
(None outside an iterator, e.g. for `output_shapes()`: the node then runs in the calling thread).

Rows keep MindSpore's order: row k goes to worker k mod N, and the results are taken back in the
same order, up to 2 N rows ahead. Each worker has its own task and result queues (multiprocessing
Queues, whose feeder threads keep a large row from blocking either side), so waiting on row k is
waiting on one worker: while it is quiet, the pool checks every `_POLL` seconds that the worker is
alive, and a worker that died raises RuntimeError naming its process id and exit code (MindSpore
logs the same words and then terminates the whole program). Workers ignore SIGINT (Ctrl-C reaches
the main process, whose exit ends them) and exit by themselves when their parent is gone.

Start method: "fork" by default, as in MindSpore (`config.set_multiprocessing_start_method`
switches to "spawn"). With fork the user's callables reach the workers without pickling, so
lambdas, closures and functions of a script without a `__main__` guard work - what MindSpore's
tutorials pass; with spawn they must be importable, module-level objects.

Shared memory (fork, `config.get_enable_shared_mem()`, the default): each worker has `_SLOTS`
memfd segments, made by the parent before the fork; a task names a free one, and a result whose
NumPy arrays hold at least `_SHM_MIN` bytes is written there (the arrays' bytes, not pickled) and
copied out by the parent on receipt, which frees the slot. A segment grows (ftruncate) to the
largest row it has carried, so `max_rowsize` only sets the first size (MindSpore 2.8 deprecated
it for the same reason: its shared memory grows too). Small rows, rows with other objects, and
everything under spawn travel pickled. Memfd segments vanish with the last process holding
them: nothing is left in /dev/shm whatever way the processes end.

A worker that does not answer: every `config.get_multiprocessing_timeout_interval()` seconds
(300) the wait logs MindSpore's warning, and after PYCOMPILE_DATASET_WORKER_TIMEOUT seconds
(default 3 intervals) it raises RuntimeError naming the worker, its process id and the row,
instead of hanging (MindSpore keeps waiting).

A worker's exception comes back as MindSpore's RuntimeError "Exception thrown from user defined
Python function in dataset." with the user's traceback (formatted in the worker, pycompile's
frames removed) in its "Python Call Stack" section; the original exception, when it pickles, is its
`__cause__`.
"""
from __future__ import annotations

import collections
import logging
import mmap
import multiprocessing
import os
import pickle
import queue
import signal
import threading
import time
import traceback

import numpy as np

_POLL = 0.1                # seconds between liveness checks while waiting on a worker
_JOIN = 2.0                # seconds a closing worker gets before it is terminated
_SLOTS = 3                # shared-memory segments per worker (at most 2 rows per worker are in flight)
_SHM_MIN = 64 * 1024      # rows whose arrays hold fewer bytes travel pickled
_ALIGN = 64
_SEP = "-" * 66
_log = logging.getLogger("pycompile.dataset")
_PKG = os.path.dirname(os.path.abspath(__file__)) + os.sep

_bound = threading.local()


def _is_ours(filename: str) -> bool:
    return os.path.abspath(filename).startswith(_PKG)


def describe(error: BaseException) -> tuple:
    """(the failing operation's name, traceback text without pycompile's leading frames, the
    pickled exception or None)."""
    tb = traceback.TracebackException.from_exception(error)
    frames = list(tb.stack)
    while frames and _is_ours(frames[0].filename):
        frames.pop(0)
    tb.stack = traceback.StackSummary.from_list(frames)
    try:
        pickled = pickle.dumps(error)
        pickle.loads(pickled)
    except Exception:  # noqa: BLE001 - an exception that does not travel is described by its text
        pickled = None
    return getattr(error, "_dataset_op", "PyFunc"), "".join(tb.format()), pickled


def pipeline_error(message: str) -> RuntimeError:
    """MindSpore's RuntimeError for an error its pipeline raises (its C++ call stack section left
    out): `message` under the "Dataset Pipeline Error Message" heading."""
    return RuntimeError(f"Exception thrown from dataset pipeline. Refer to 'Dataset Pipeline Error Message'. \n\n"
                        f"{_SEP}\n- Dataset Pipeline Error Message: \n{_SEP}\n[ERROR] {message}\n")


def user_error(prefix: str, op: str, text: str, pickled) -> RuntimeError:
    """MindSpore's RuntimeError for a user function that raised (its C++ call stack section left
    out); `prefix` may name the failing `{op}`."""
    prefix = prefix.format(op=op)
    error = RuntimeError(
        f"Exception thrown from user defined Python function in dataset. \n\n{_SEP}\n- Python Call Stack: \n{_SEP}\n"
        f"{prefix}{text}\n{_SEP}\n- Dataset Pipeline Error Message: \n{_SEP}\n"
        "[ERROR] Execute user Python code failed, check 'Python Call Stack' above.\n")
    if pickled is not None:
        try:
            error.__cause__ = pickle.loads(pickled)
        except Exception:  # noqa: BLE001 - the text says it all
            pass
    return error


def worker_error(prefix: str, described: tuple) -> RuntimeError:
    """The main process's error for a worker's failure (`describe`'s tuple): a pipeline error (a
    dataset transform's, already in MindSpore's words) as it was raised, else the user-function
    error."""
    op, text, pickled = described
    if pickled is not None:
        try:
            error = pickle.loads(pickled)
        except Exception:  # noqa: BLE001 - described by its text below
            error = None
        if isinstance(error, RuntimeError) and str(error).startswith("Exception thrown from dataset pipeline"):
            return error
    return user_error(prefix, op, text, pickled)


class _Segment:
    """One shared-memory slot: a memfd and this process's mapping of it (remapped when it grows)."""

    def __init__(self, fd: int, size: int):
        self.fd = fd
        os.ftruncate(fd, size)
        self.map = mmap.mmap(fd, size)

    def ensure(self, size: int, grow: bool):
        if size > len(self.map):
            if grow:
                os.ftruncate(self.fd, max(size, 2 * len(self.map)))
            self.map.close()
            self.map = mmap.mmap(self.fd, os.fstat(self.fd).st_size)
        return self.map

    def close(self):
        try:
            self.map.close()
        except (BufferError, ValueError):    # a view still in use: the mapping goes with it
            pass
        finally:
            os.close(self.fd)


def _shareable(value) -> bool:
    return isinstance(value, np.ndarray) and not value.dtype.hasobject and value.dtype.kind in "biufcSU?"


def _pack(out, segment):
    """(layout, out with the arrays written to `segment` replaced by None) or (None, out)."""
    if segment is None or not isinstance(out, tuple):
        return None, out
    sizes = [v.nbytes if _shareable(v) else -1 for v in out]
    total = sum(-(-n // _ALIGN) * _ALIGN for n in sizes if n >= 0)
    if total < _SHM_MIN:
        return None, out
    mem = segment.ensure(total, grow=True)
    layout, rest, offset = [], list(out), 0
    for i, (v, n) in enumerate(zip(out, sizes)):
        if n < 0:
            continue
        np.frombuffer(mem, np.uint8, n, offset)[:] = np.ascontiguousarray(v).reshape(-1).view(np.uint8)
        layout.append((i, v.dtype.str, v.shape, offset))
        rest[i] = None
        offset += -(-n // _ALIGN) * _ALIGN
    return (layout, total), tuple(rest)


def _unpack(packed, rest, segment):
    layout, total = packed
    mem = segment.ensure(total, grow=False)
    out = list(rest)
    for i, dtype, shape, offset in layout:
        dt = np.dtype(dtype)
        count = int(np.prod(shape, dtype=np.int64))
        out[i] = np.frombuffer(mem, dt, count, offset).reshape(shape).copy()
    return tuple(out)


def _worker_main(task, tasks, results, parent_pid, segments=None):
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        try:
            item = tasks.get(timeout=1.0)
        except queue.Empty:
            if os.getppid() != parent_pid:
                return
            continue
        if item is None:
            return
        run, slot, payload = item
        packed = None
        try:
            value = task(payload)
            if slot is not None:
                packed, value = _pack(value, segments[slot])
            out = (True, value)
        except BaseException as e:  # noqa: BLE001 - handed to the main process
            out = (False, describe(e))
        results.put((run, slot, packed, out))


class WorkerPool:
    """`n` processes running `task(payload)` (a picklable callable under spawn); see the module
    docstring. `prefix` starts the Python Call Stack section of a failure's message."""

    def __init__(self, task, n: int, start_method: str, prefix: str = "", max_rowsize=None):
        from pycompile.dataset import config
        ctx = multiprocessing.get_context(start_method)
        self.prefix = prefix
        self._tasks = [ctx.Queue() for _ in range(n)]
        self._results = [ctx.Queue() for _ in range(n)]
        self._procs = []
        self._run = 0
        self._lock = threading.Lock()
        self.closed = False
        self._segments = [[] for _ in range(n)]
        self._free = [[] for _ in range(n)]
        self._interval = config.get_multiprocessing_timeout_interval()
        from pycompile.common import knobs
        self._timeout = knobs.get("PYCOMPILE_DATASET_WORKER_TIMEOUT") or 3 * self._interval
        try:
            if start_method == "fork" and config.get_enable_shared_mem() and hasattr(os, "memfd_create"):
                size = max(int(max_rowsize), 1) << 20 if isinstance(max_rowsize, int) and max_rowsize > 0 else 1 << 20
                try:
                    for i in range(n):
                        self._segments[i] = [_Segment(os.memfd_create(f"pycompile-dataset-w{i}s{k}"), size)
                                             for k in range(_SLOTS)]
                        self._free[i] = list(range(_SLOTS))
                except OSError as e:     # out of descriptors or memory: the rows travel pickled
                    _log.warning("Dataset workers: no shared memory (%s); rows travel pickled.", e)
                    self._close_segments()
                    self._free = [[] for _ in range(n)]
            for i in range(n):
                p = ctx.Process(target=_worker_main, args=(task, self._tasks[i], self._results[i], os.getpid(),
                                                           self._segments[i] or None),
                                name=f"pycompile-dataset-worker{i}", daemon=True)
                p.start()
                self._procs.append(p)
        except Exception as e:
            self.close()
            if start_method == "spawn":
                raise RuntimeError(f"Could not start the dataset's worker processes with the 'spawn' start method: "
                                   f"{e}. Under spawn the source and map operations must be picklable (module-level "
                                   f"functions and classes); ds.config.set_multiprocessing_start_method('fork') "
                                   f"lifts that.") from e
            raise

    def ordered(self, items):
        """Run `task` on each payload of `items` ((payload, keep) pairs) in the workers; yield
        (keep, result) in the order of `items`."""
        with self._lock:
            self._run += 1
            run = self._run
        n = len(self._procs)
        pending = collections.deque()
        items = iter(items)
        sent = 0
        exhausted = False
        while True:
            while not exhausted and len(pending) < 2 * n:
                try:
                    payload, keep = next(items)
                except StopIteration:
                    exhausted = True
                    break
                self._check_open()
                worker = sent % n
                slot = self._free[worker].pop() if self._free[worker] else None
                self._tasks[worker].put((run, slot, payload))
                pending.append((worker, sent, keep))
                sent += 1
            if not pending:
                return
            worker, row, keep = pending.popleft()
            ok, value = self._receive(worker, run, row)
            if not ok:
                raise worker_error(self.prefix, value)
            yield keep, value

    def _receive(self, worker: int, run: int, row: int):
        q, proc = self._results[worker], self._procs[worker]
        start = warned = time.monotonic()
        while True:
            self._check_open()
            try:
                got_run, slot, packed, out = q.get(timeout=_POLL)
            except queue.Empty:
                if proc.exitcode is not None:
                    raise RuntimeError(f"Dataset worker process {proc.pid} exited unexpectedly with exit code "
                                       f"{proc.exitcode}.") from None
                now = time.monotonic()
                if now - start >= self._timeout:
                    proc.kill()                      # it ignores the request to stop
                    raise RuntimeError(
                        f"Dataset worker process {proc.pid} (worker {worker} of {len(self._procs)}) has not returned "
                        f"row {row} after {now - start:.0f} seconds: check the user defined source or map function "
                        f"for a dead loop or a lock. PYCOMPILE_DATASET_WORKER_TIMEOUT sets this limit in seconds "
                        f"(now {self._timeout:g}).") from None
                if now - warned >= self._interval:
                    warned = now
                    _log.warning("Has been waiting for data from Generator worker process ID '%s' for more than %d "
                                 "seconds. Please check if the user defined dataset of GeneratorDataset has a dead "
                                 "loop, or is processing too slowly.", proc.pid, int(now - start))
                continue
            except (EOFError, OSError):
                raise RuntimeError(f"Dataset worker process {proc.pid} exited unexpectedly.") from None
            try:
                if got_run == run and packed is not None:
                    ok, rest = out
                    out = (ok, _unpack(packed, rest, self._segments[worker][slot]))
            finally:
                if slot is not None:
                    self._free[worker].append(slot)
            if got_run == run:
                return out
            # a result of an earlier epoch the consumer stopped reading: skip it

    def _check_open(self):
        if self.closed:
            raise RuntimeError("The dataset's worker processes were shut down (the iterator was stopped).")

    def close(self):
        """Stop every worker (asked first, then terminated, then killed); idempotent."""
        if self.closed:
            return
        self.closed = True
        for q in self._tasks:
            try:
                q.put(None)
            except (OSError, ValueError):
                pass
        for p in self._procs:
            p.join(_JOIN)
        for p in self._procs:
            if p.exitcode is None:
                p.terminate()
                p.join(_JOIN)
            if p.exitcode is None:
                p.kill()
                p.join()
        for q in self._tasks + self._results:
            q.cancel_join_thread()
            q.close()
        self._close_segments()

    def _close_segments(self):
        for segments in self._segments:
            for segment in segments:
                segment.close()
        self._segments = [[] for _ in self._segments]

    @property
    def pids(self) -> list:
        return [p.pid for p in self._procs]


def start_pools(dataset) -> dict:
    """{id(node): WorkerPool} for every node of the tree under `dataset` that asks for workers
    (its `_worker_pool_spec()` gives (task, n, prefix))."""
    from pycompile.dataset import config
    pools, stack = {}, [dataset]
    try:
        while stack:
            node = stack.pop()
            spec = getattr(node, "_worker_pool_spec", lambda: None)()
            if spec is not None and id(node) not in pools:
                task, n, prefix = spec
                pools[id(node)] = WorkerPool(task, n, config.get_multiprocessing_start_method(), prefix,
                                             getattr(node, "max_rowsize", None))
            stack.extend(node.children)
    except BaseException:
        close_pools(pools)
        raise
    return pools


def close_pools(pools: dict) -> None:
    for pool in list(pools.values()):
        pool.close()


def bind(pools: dict) -> None:
    """Make `pools` the ones `pool_of` finds in this thread (an iterator's producer thread)."""
    _bound.pools = pools


def pool_of(node):
    """The running iterator's pool for `node`, or None (run in this thread)."""
    pools = getattr(_bound, "pools", None)
    pool = pools.get(id(node)) if pools else None
    return None if pool is None or pool.closed else pool
