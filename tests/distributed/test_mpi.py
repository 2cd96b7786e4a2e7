"""Data parallelism under mpirun (issue 21), on this machine's loopback.

The DP runs train W4's MLP 50 steps with Momentum on a fixed global batch of 16 split across the
ranks (tests/distributed/dp_worker.py); the expected weights are those of one process training on
the whole batch, computed here in NumPy from the run's initial weights (rank 0's, broadcast). A
failing rank (an exception, or SIGKILL) must end every rank quickly, with the rank named.

mpi4py and the `mpich` wheel (its mpiexec) come with the `test` extra.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER = os.path.join(HERE, "dp_worker.py")
# the workers import the pycompile this process imported (a checkout's src/ with an editable
# install, site-packages with `pip install .` as in CI, whose src/ has no built runtime)
SRC = os.path.dirname(os.path.dirname(os.path.abspath(__import__("pycompile").__file__)))
STEPS = 50


def _mpiexec() -> str:
    exe = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    return exe if os.path.exists(exe) else "mpiexec"


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = SRC + os.pathsep + env.get("PYTHONPATH", "")
    env["PYCOMPILE_NUM_THREADS"] = "1"          # ranks share 2 cores: one thread each
    return env


def _run(n, args, timeout=240):
    cmd = ([_mpiexec(), "-n", str(n)] if n else []) + [sys.executable, WORKER] + [str(a) for a in args]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=_env())
    return proc, time.monotonic() - t0


# ---- the NumPy reference: one process, the whole batch ---------------------------------------------
def _batch():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((16, 1, 28, 28)).astype(np.float32)
    y = rng.integers(0, 10, 16).astype(np.int32)
    return x, y


def _reference(init, steps=STEPS, lr=0.05, momentum=0.9):
    """W4's MLP trained on the whole batch: Dense y = x W^T + b, mean sparse softmax cross
    entropy, MindSpore's Momentum (accum = m * accum + g; w -= lr * accum)."""
    names = [f"dense_relu_sequential.{i}.{k}" for i in (0, 2, 4) for k in ("weight", "bias")]
    w = {k: init["init." + k].astype(np.float64) for k in names}
    acc = {k: np.zeros_like(v) for k, v in w.items()}
    x, y = _batch()
    x = x.reshape(16, -1).astype(np.float64)
    for _ in range(steps):
        h1 = x @ w[names[0]].T + w[names[1]]
        a1 = np.maximum(h1, 0)
        h2 = a1 @ w[names[2]].T + w[names[3]]
        a2 = np.maximum(h2, 0)
        z = a2 @ w[names[4]].T + w[names[5]]
        p = np.exp(z - z.max(1, keepdims=True))
        p /= p.sum(1, keepdims=True)
        dz = p.copy()
        dz[np.arange(16), y] -= 1
        dz /= 16
        g = {names[4]: dz.T @ a2, names[5]: dz.sum(0)}
        d2 = (dz @ w[names[4]]) * (h2 > 0)
        g[names[2]], g[names[3]] = d2.T @ a1, d2.sum(0)
        d1 = (d2 @ w[names[2]]) * (h1 > 0)
        g[names[0]], g[names[1]] = d1.T @ x, d1.sum(0)
        for k in names:
            acc[k] = momentum * acc[k] + g[k]
            w[k] = w[k] - lr * acc[k]
    return w


def _check_weights(path, steps, prefix=""):
    got = np.load(path)
    if prefix:          # the weights a second step trained from the same initial ones
        got = {k: got[k] if k.startswith("init.") else got[prefix + k] for k in got if not k.startswith(("plain.", "traced."))}
    want = _reference(got, steps)
    for k, v in want.items():
        rel = np.abs(got[k] - v).max() / np.abs(v).max()
        assert rel < 1e-5, (k, rel)
    # the run trained: the weights moved well beyond the tolerance
    k = "dense_relu_sequential.4.weight"
    assert np.abs(want[k] - got["init." + k]).max() > 1e-3


# PyNative runs fewer steps: its per-step cost (eager autodiff) would dominate the module's time;
# the compiled runs carry the 50-step criterion (2 ranks compiled: the recipe test below)
@pytest.mark.parametrize("mode, n, steps", [("graph", 1, STEPS), ("graph", 4, STEPS), ("pynative", 2, 10)])
def test_data_parallel_matches_one_process_on_the_whole_batch(tmp_path, mode, n, steps):
    out = tmp_path / "w.npz"
    # n == 1: one process, no mpirun, no init(): the single-process run on the whole batch
    proc, _ = _run(n if n > 1 else 0, [out, mode, steps] + ([] if n > 1 else [-2]))
    assert proc.returncode == 0, proc.stderr[-3000:]
    _check_weights(out, steps)


def test_the_mindspore_recipe_sharded_dataset_and_loss_scale_cell(tmp_path):
    """2 ranks, compiled, 50 steps: NumpySlicesDataset(num_shards=get_group_size(),
    shard_id=get_rank()) feeding TrainOneStepWithLossScaleCell (a TrainOneStepCell) in
    DATA_PARALLEL: the same weights as one process on the whole batch. The same run then trains
    a plain TrainOneStepCell from the same weights (compiled at 2 ranks: its own reduction path,
    the mean in the backward's seed and the large gradients reduced alone, each bucket's updates
    right after its wait): the same again, and bit for bit the traced order's."""
    out = tmp_path / "w.npz"
    proc, _ = _run(2, [out, "graph", STEPS, -1, "recipe"])
    assert proc.returncode == 0, proc.stderr[-3000:]
    _check_weights(out, STEPS)
    _check_weights(out, STEPS, "plain.")
    # the plain step's updates run between the waits (compiler/passes/update_schedule.py): the same
    # bits as the traced order (every wait before the first update), trained from the same weights
    got = np.load(out)
    traced = [k for k in got if k.startswith("traced.")]
    assert len(traced) == 6
    for k in traced:
        np.testing.assert_array_equal(got["plain." + k[7:]], got[k])


@pytest.mark.parametrize("how", ["raise", "kill"])
def test_a_failing_rank_ends_every_rank(tmp_path, how):
    """Rank 1 fails halfway; the other rank would otherwise wait in its next all-reduce (and then
    sleep 120 s): every rank must be gone within 30 s of the start, the error naming rank 1."""
    proc, elapsed = _run(2, [tmp_path / "w.npz", "pynative", 6, 1] + (["kill"] if how == "kill" else []),
                         timeout=60)
    assert proc.returncode != 0
    assert elapsed < 30, elapsed
    text = proc.stdout + proc.stderr
    if how == "raise":
        assert "[pycompile rank 1/2] uncaught ValueError" in text, text[-3000:]
        assert "rank 1 fails on purpose" in text
    else:
        assert "killed" in text.lower(), text[-3000:]     # mpiexec reports the signal (by pid)


@pytest.mark.parametrize("n", [2, 4])
def test_collectives_eager_and_compiled_on_the_world_and_a_group(n):
    cmd = [_mpiexec(), "-n", str(n), sys.executable, os.path.join(HERE, "coll_worker.py")]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=240, env=_env())
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    assert proc.stdout.count("collectives ok") == n


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_sync_batch_norm_is_batch_norm_of_the_global_batch(mode):
    cmd = [_mpiexec(), "-n", "2", sys.executable, os.path.join(HERE, "syncbn_worker.py"), mode]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=240, env=_env())
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    assert proc.stdout.count("rank 0: syncbn ok") + proc.stdout.count("rank 1: syncbn ok") == 2
    assert proc.stdout.count("mint syncbn ok") == 2
