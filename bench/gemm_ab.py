"""A model's compiled call with and without the runtime's small-product kernel, in one process,
rounds interleaved: the model is exported as a shared library (`pycompile.backend.export`, the
module generated code is) and loaded twice, one copy initialised with the runtime's table as it
is, the other with its product kernel taken out (pc_api.sgemm_nt / sgemm_ep NULL: every product
on OpenBLAS, as on a CPU without the kernel).

    python bench/gemm_ab.py [--threads 1 2] [--rounds 9] [--workloads W4-64,W4-1024,W6,W9,W5]

W4-B: the MLP at batch B; W5: its loss and gradients at batch 64; W6: GPT L=12; W9: LeNet-5, B=64.

Prints per workload and thread count the median call time of each and the median of per-round
ratios (kernel / OpenBLAS: below 1, the kernel is faster). The kernel is the one the runtime
hands out: AVX-512 where the CPU has it; PYCOMPILE_SMALL_GEMM=avx2 asks for the AVX2 form."""
from __future__ import annotations

import argparse
import ctypes
import os
import shutil
import statistics
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def _models(names):
    """name -> (cell, inputs as NumPy arrays)"""
    import pycompile as ms
    import workloads as W
    out = {}
    for name in names:
        ms.set_seed(0)
        if name.startswith("W4-"):
            b = int(name[3:])
            out[name] = (W.MLP(), (np.random.default_rng(1).standard_normal((b, 1, 28, 28)).astype(np.float32),))
        elif name == "W6":
            gpt = W._gpt_module()
            (x,) = gpt.example_inputs()
            out[name] = (gpt.GPT(num_layers=12), (x.asnumpy(),))
        elif name == "W5":         # the MLP's loss and gradients, batch 64 (bench/w5.py)
            import w5
            net = w5.MLPLoss()
            fn = ms.jit(ms.value_and_grad(net, None, net.trainable_params()))
            rng = np.random.default_rng(2)
            out[name] = (fn, (rng.standard_normal((w5.B, 1, 28, 28)).astype(np.float32),
                              rng.integers(0, 10, w5.B).astype(np.int32)))
        elif name == "W9":
            import workloads_cnn as WC
            (x,) = WC.lenet.example_inputs()
            out[name] = (WC.lenet.LeNet5(), (x.asnumpy(),))
        else:
            raise SystemExit(f"unknown workload {name!r}")
    return out


class Loaded:
    """One copy of the exported library, initialised with `api`, its arguments bound."""

    def __init__(self, so_path, out_dir, inputs, api, ffi):
        from pycompile.backend import export
        self.so = ctypes.CDLL(so_path, mode=ctypes.RTLD_LOCAL)
        self.api = api
        assert self.so.pc_module_init(ctypes.c_void_p(int(ffi.cast("uintptr_t", api)))) >= 7
        self.keep, self.outs = export.bind_arguments(out_dir, "m", inputs)
        self.args = (ctypes.c_void_p * len(self.keep))(*[v.ctypes.data for v in self.keep])

    def __call__(self):
        if self.so.pc_entry(self.args) != 0:
            raise RuntimeError("the call failed")

    def output(self):
        rec, view = self.outs[0]
        return view.view(rec["dtype"]).reshape(rec["shape"]).copy()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--workloads", default="W4-64,W4-1024,W5,W6,W9")
    args = ap.parse_args()
    import pycompile as ms
    from pycompile import Tensor
    from pycompile._rt import ffi, lib
    from pycompile.backend import export
    if lib.pc_get_api().sgemm_nt == ffi.NULL:
        print("the runtime hands out no product kernel here: a CPU without AVX-512 needs PYCOMPILE_SMALL_GEMM=avx2")
        return 1
    d = tempfile.mkdtemp(prefix="gemm_ab_")
    try:
        print(f"{'workload':>10} {'T':>3} {'kernel':>10} {'OpenBLAS':>10} {'ratio':>6}  (median of {args.rounds} interleaved rounds)")
        for name, (cell, inputs) in _models(args.workloads.split(",")).items():
            sub = os.path.join(d, name)
            os.makedirs(sub)
            report = ms.inspect(cell, *map(Tensor, inputs))
            export.export(report, "m", ("c", "so"), sub)
            so2 = os.path.join(sub, "m2.so")
            shutil.copy(os.path.join(sub, "m.so"), so2)        # a second copy: its own statics
            with_k = ffi.new("pc_api *", lib.pc_get_api()[0])
            without = ffi.new("pc_api *", lib.pc_get_api()[0])
            without.sgemm_nt = ffi.NULL
            without.sgemm_ep = ffi.NULL
            a = Loaded(os.path.join(sub, "m.so"), sub, inputs, with_k, ffi)
            b = Loaded(so2, sub, inputs, without, ffi)
            for t in args.threads:
                lib.pc_set_num_threads(t)
                a(), b()
                ref = cell(*map(Tensor, inputs))
                ref = np.asarray((ref[0] if isinstance(ref, tuple) else ref).asnumpy())     # W5: the loss
                for run in (a, b):
                    np.testing.assert_allclose(run.output(), ref, rtol=1e-3, atol=1e-4 * float(np.abs(ref).max()))
                t0 = time.perf_counter()
                a()
                one = time.perf_counter() - t0
                reps = max(3, int(0.05 / max(one, 1e-6)))
                ta, tb = [], []
                for _ in range(args.rounds):
                    for run, acc in ((a, ta), (b, tb)):
                        t0 = time.perf_counter()
                        for _ in range(reps):
                            run()
                        acc.append((time.perf_counter() - t0) / reps)
                ratio = statistics.median(x / y for x, y in zip(ta, tb))
                print(f"{name:>10} {t:>3} {statistics.median(ta) * 1e3:8.3f}ms {statistics.median(tb) * 1e3:8.3f}ms {ratio:6.3f}",
                      flush=True)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
