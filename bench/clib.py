"""LeNet-5 at batch 1: one call of the C library `pycompile --emit lib` writes, called from C,
against the compiled Python call and onnxruntime (Python API) on the same model, one thread each.

    python bench/clib.py [--rounds 7] [--calls 2000] [--threads 1]

Rounds interleave the three sides; each side's figure is the median over rounds of its per-call
median in the round. The C side is tests/export/c/run_model.c in `bench` mode (its own median
over --calls calls after 20 warm-up calls), linked with the library built for the portable
default (x86-64-v3 with the AVX-512 build chosen at run time). "Python overhead" is a compiled
call of a Cell with LeNet's input and output signature and almost no work (a slice of the
flattened input, plus 0): the cost of a compiled call outside its C. The issue 36 target: the C
call within 1.2x of (compiled Python call - Python overhead). Needs onnx and onnxruntime for the
onnxruntime row (the dev extras; it is left out without them)."""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--threads", type=int, default=1)
    opts = ap.parse_args()
    os.environ["PYCOMPILE_NUM_THREADS"] = str(opts.threads)
    sys.path.insert(0, os.path.join(ROOT, "src"))
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    import numpy as np
    import pycompile as ms
    from pycompile import cli, nn
    from lenet import LeNet5

    work = tempfile.mkdtemp(prefix="pycompile-bench-clib-")
    model = os.path.join(ROOT, "examples", "lenet.py")
    rc = cli.main([model, "--entry", "LeNet5", "--input", "x=float32[1,1,32,32]", "--emit", "lib", "-o", work, "-q"])
    assert rc == 0, rc
    exe = os.path.join(work, "run_model")
    subprocess.run(["cc", "-O2", "-std=c11", os.path.join(ROOT, "tests", "export", "c", "run_model.c"),
                    '-DHEADER="lenet5.h"', "-DNAME=lenet5", "-DNUM_IN=1", "-DNUM_OUT=1", f"-I{work}", f"-L{work}",
                    "-llenet5", "-Wl,-rpath,$ORIGIN", "-o", exe], check=True)
    x = np.random.default_rng(0).standard_normal((1, 1, 32, 32)).astype(np.float32)
    x.tofile(os.path.join(work, "in.bin"))

    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_seed(0)
    net = LeNet5()
    net.set_train(False)
    xt = ms.Tensor(x)

    class Overhead(nn.Cell):
        def construct(self, x):
            return x.reshape(1, 1024)[:, :10] + 0

    light = Overhead()
    for f in (net, light):
        f(xt)

    sides = {"C library call": lambda: _c_round(exe, work, opts),
             "compiled Python call": lambda: _py_round(net, xt, opts.calls),
             "Python overhead": lambda: _py_round(light, xt, opts.calls)}
    try:
        import onnxruntime as ort
        path = os.path.join(work, "lenet5.onnx")
        ms.onnx.export(net, xt, file_name=path)
        so = ort.SessionOptions()
        so.intra_op_num_threads = so.inter_op_num_threads = opts.threads
        sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
        name = sess.get_inputs()[0].name
        ref = net(xt).asnumpy()
        np.testing.assert_allclose(sess.run(None, {name: x})[0], ref, rtol=1e-4, atol=1e-4)
        sides["onnxruntime (Python API)"] = lambda: _py_round(lambda: sess.run(None, {name: x}), None, opts.calls)
    except ImportError as e:
        print(f"onnxruntime row left out: {e}")
    got = {k: [] for k in sides}
    for _ in range(opts.rounds):
        for k, f in sides.items():
            time.sleep(0.2)
            got[k].append(f())
    med = {k: float(np.median(v)) for k, v in got.items()}
    print(f"LeNet-5 B=1, {opts.threads} thread(s), median of {opts.rounds} rounds x {opts.calls} calls "
          f"({os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f})")
    for k, v in med.items():
        spread = f"{min(got[k]) / 1e3:.1f} - {max(got[k]) / 1e3:.1f}"
        print(f"  {k:28s} {v / 1e3:8.1f} us   (rounds {spread})")
    net_c = med["compiled Python call"] - med["Python overhead"]
    print(f"  C call / (compiled Python call - overhead) = {med['C library call'] / net_c:.2f}  (target <= 1.2)")


def _c_round(exe, work, opts) -> float:
    out = subprocess.run([exe, "bench", os.path.join(work, "in.bin"), str(opts.threads), str(opts.calls)],
                         capture_output=True, text=True, check=True).stdout
    return float(out.split()[1])


def _py_round(f, x, calls) -> float:
    import numpy as np
    call = (lambda: f(x)) if x is not None else f
    for _ in range(20):
        call()
    t = np.empty(calls)
    clock = time.perf_counter_ns
    for k in range(calls):
        t0 = clock()
        call()
        t[k] = clock() - t0
    return float(np.median(t))


if __name__ == "__main__":
    main()
