"""W4 (the MLP forward) on pycompile and ONNX Runtime in separate processes, timed alternately.

devbench times every peer in one process; ONNX Runtime's intra-op threads spin after a run, and
on a 2-CPU machine a peer's threads can slow the next one timed. Here each side lives in its own
process with its own threads, both processes are started once, and the parent asks one, then the
other, for a block of calls (a pause between blocks lets spinning threads stop), so neither runs
while the other is timed. The ONNX graph is W4's (Flatten, Gemm transB=1, Relu, Gemm, Relu, Gemm:
what torch.onnx exports for bench/workloads.py's mlp_torch) with pycompile's weights; each side's
output is checked against NumPy before timing.

    python bench/w4_apart.py --threads 2 --batch 64 --rounds 9 [--no-spin]

Needs onnx and onnxruntime (the bench venv). Prints per-round times and the medians' ratio.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def _weights(path: str) -> None:
    sys.path.insert(0, HERE)
    import pycompile as ms
    import workloads as W
    ms.set_seed(0)
    seq = W.MLP().dense_relu_sequential
    np.savez(path, **{f"{k}{i}": getattr(seq[i], k).asnumpy() for i in (0, 2, 4) for k in ("weight", "bias")})


def _onnx(npz: str, path: str) -> None:
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    w = np.load(npz)
    inits = [numpy_helper.from_array(w[f"{k}{i}"], f"{k}{i}") for i in (0, 2, 4) for k in ("weight", "bias")]
    nodes = [helper.make_node("Flatten", ["x"], ["h0"], axis=1),
             helper.make_node("Gemm", ["h0", "weight0", "bias0"], ["g0"], transB=1),
             helper.make_node("Relu", ["g0"], ["h1"]),
             helper.make_node("Gemm", ["h1", "weight2", "bias2"], ["g1"], transB=1),
             helper.make_node("Relu", ["g1"], ["h2"]),
             helper.make_node("Gemm", ["h2", "weight4", "bias4"], ["y"], transB=1)]
    g = helper.make_graph(nodes, "w4", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, 1, 28, 28])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, 10])], inits)
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)


def _reference(npz: str, x: np.ndarray) -> np.ndarray:
    w = np.load(npz)
    h = x.reshape(len(x), -1)
    for i in (0, 2, 4):
        h = h @ w[f"weight{i}"].T + w[f"bias{i}"]
        h = np.maximum(h, 0) if i < 4 else h
    return h


def child(a) -> None:
    x = np.random.default_rng(1).standard_normal((a.batch, 1, 28, 28)).astype(np.float32)
    if a.child == "pycompile":
        sys.path.insert(0, HERE)
        import pycompile as ms
        import workloads as W
        ms.set_seed(0)
        model, tx = W.MLP(), ms.Tensor(x)

        def fn():
            return model(tx).asnumpy()
    else:
        import onnxruntime as ort
        so = ort.SessionOptions()
        so.intra_op_num_threads = a.threads
        so.inter_op_num_threads = 1
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        if a.no_spin:
            so.add_session_config_entry("session.intra_op.allow_spinning", "0")
        sess = ort.InferenceSession(a.onnx, so, providers=["CPUExecutionProvider"])

        def fn():
            return sess.run(None, {"x": x})[0]
    np.testing.assert_allclose(fn(), _reference(a.weights, x), rtol=1e-3, atol=1e-3)
    for _ in range(20):
        fn()
    print("ready", flush=True)
    for line in sys.stdin:
        n = int(line)
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        print((time.perf_counter() - t0) / n, flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--seconds", type=float, default=0.5, help="about this long a block")
    ap.add_argument("--pause", type=float, default=0.3, help="between blocks")
    ap.add_argument("--no-spin", action="store_true", help="ONNX Runtime's workers do not spin")
    ap.add_argument("--child", choices=("pycompile", "ort"))
    ap.add_argument("--onnx")
    ap.add_argument("--weights")
    a = ap.parse_args()
    if a.child:
        return child(a)
    tmp = tempfile.mkdtemp(prefix="w4apart-")
    npz, path = os.path.join(tmp, "w.npz"), os.path.join(tmp, "w4.onnx")
    _weights(npz)
    _onnx(npz, path)
    env = dict(os.environ, PYCOMPILE_NUM_THREADS=str(a.threads), OMP_NUM_THREADS=str(a.threads),
               OPENBLAS_NUM_THREADS="1")
    procs = {}
    for side in ("pycompile", "ort"):
        cmd = [sys.executable, __file__, "--child", side, "--threads", str(a.threads), "--batch", str(a.batch),
               "--onnx", path, "--weights", npz] + (["--no-spin"] if a.no_spin else [])
        p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        assert p.stdout.readline().strip() == "ready", side
        procs[side] = p

    def block(side, n):
        time.sleep(a.pause)
        procs[side].stdin.write(f"{n}\n")
        procs[side].stdin.flush()
        return float(procs[side].stdout.readline())

    n = {s: max(5, int(a.seconds / block(s, 10))) for s in procs}
    times: dict = {s: [] for s in procs}
    for r in range(a.rounds):
        order = list(procs) if r % 2 == 0 else list(procs)[::-1]
        for s in order:
            times[s].append(block(s, n[s]))
        print(f"round {r}: " + "  ".join(f"{s} {times[s][-1] * 1e3:.3f} ms" for s in procs), flush=True)
    for p in procs.values():
        p.stdin.close()
        p.wait()
    med = {s: statistics.median(v) for s, v in times.items()}
    per_round = sorted(p / o for p, o in zip(times["pycompile"], times["ort"]))
    print(f"W4 B={a.batch} T={a.threads}{' no-spin' if a.no_spin else ''}: pycompile {med['pycompile'] * 1e3:.3f} ms, "
          f"ONNX Runtime {med['ort'] * 1e3:.3f} ms, pycompile / ONNX Runtime {med['pycompile'] / med['ort']:.3f} "
          f"(rounds {per_round[0]:.2f}-{per_round[-1]:.2f})")


if __name__ == "__main__":
    main()
