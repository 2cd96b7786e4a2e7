"""pycompile's own float32 product for small shapes (csrc/gemm.c, in the runtime, issue 22): every
row tail of its 7-row tiles, column tails of its 64-column panels, both layouts of B, the
column-split schedule, batches and fused epilogues match NumPy; narrow products and float64 stay
on BLAS; generated modules reach the kernel through pc_api.sgemm_nt and fall back to BLAS when the
table has none (a CPU without AVX-512, a C caller's table)."""
import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops

# (m, k, n): rows around the 7-row tile, columns around the 16-lane masks of 64-column panels,
# short and long inner dimensions. Both layouts of B use the kernel at any row count (a
# transposed B is packed by 16 x 16 register transposes: its tails in K and in columns are here).
BOTH = [(128, 8, 64), (129, 9, 120), (131, 31, 64), (134, 40, 250), (135, 17, 120)]
FEW_ROWS = [(1, 8, 64), (6, 9, 120), (7, 16, 64), (13, 31, 250),
            (64, 300, 128)]      # the column-split schedule (few rows, long K)
BLAS_ONLY = [(64, 16, 10), (8, 8, 40), (64, 16, 65)]     # narrow outputs: a 64-column panel would waste most of it
SHAPES = BOTH + FEW_ROWS + BLAS_ONLY


def _products(a, b):
    """Every SHAPES product of slices of a and b, B as given and transposed (Dense's layout)."""
    out = []
    for m, k, n in SHAPES:
        x = a[:m, :k]
        out.append(ops.matmul(x, b[:k, :n]))
        out.append(ops.MatMul(transpose_b=True)(x, b[:n, :k]))
    return tuple(out)


def _products_np(a, b):
    out = []
    for m, k, n in SHAPES:
        x = a[:m, :k].astype(np.float64)
        out.append(x @ b[:k, :n])
        out.append(x @ b[:n, :k].T)
    return out


@pytest.fixture(scope="module")
def operands():
    rng = np.random.default_rng(22)
    return rng.standard_normal((140, 300)).astype(np.float32), rng.standard_normal((300, 300)).astype(np.float32)


def test_small_products_match_numpy(operands):
    a, b = operands
    f = ms.jit(_products)
    got = f(Tensor(a), Tensor(b))
    for g, want, shape in zip(got, _products_np(a, b), [s for s in SHAPES for _ in (0, 1)]):
        assert g.shape == want.shape, shape
        # float32 sums of up to 300 terms of unit normals, in another order than NumPy's float64
        np.testing.assert_allclose(g.asnumpy(), want, rtol=1e-4, atol=2e-4 * np.sqrt(shape[1]), err_msg=str(shape))


def test_small_products_use_the_kernel_with_blas_behind_it(operands):
    a, b = operands
    src = ms.inspect(ms.jit(_products), Tensor(a), Tensor(b)).c_source
    # one call per product and layout, two for the column-split ones (their schedule for one
    # thread is by rows)
    assert src.count("pc_sgemm_nt(") == 2 * len(BOTH) + 2 * len(FEW_ROWS) + 2
    # through the runtime's table, BLAS behind every call (a NULL kernel or a failed allocation);
    # the module itself compiles neither the kernel nor <immintrin.h>
    assert src.count("if (!pc_sgemm_nt || pc_sgemm_nt(") == src.count("pc_sgemm_nt(")
    assert "pc_sgemm_nt = RT->sgemm_nt;" in src and "immintrin" not in src
    assert src.count("scipy_cblas_sgemm(") == 2 * len(SHAPES) + 2     # the split product: two schedules, both layouts


def test_the_runtime_offers_the_kernel_exactly_on_avx512_cpus():
    from pycompile._rt import lib
    with open("/proc/cpuinfo") as f:
        flags = next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
    assert lib.pc_get_api().abi_version == 6
    assert bool(lib.pc_get_api().sgemm_nt) == ("avx512f" in flags)


def _dense_gelu_residual(x, w, bias, r):
    """W6's MLP product: batched input, Dense (B transposed), GELU and a residual in the epilogue."""
    h = ops.MatMul(transpose_b=True)(x.reshape(-1, x.shape[-1]), w) + bias
    return ops.gelu(h, "tanh").reshape(x.shape[0], x.shape[1], -1) + r


def _attention(q, k, v):
    s = ops.BatchMatMul(transpose_b=True)(q, k)
    return ops.BatchMatMul()(ops.softmax(s, -1), v)


def test_epilogues_and_batches_match_numpy():
    rng = np.random.default_rng(7)
    x, w = rng.standard_normal((3, 11, 40)).astype(np.float32), rng.standard_normal((70, 40)).astype(np.float32)
    bias, r = rng.standard_normal(70).astype(np.float32), rng.standard_normal((3, 11, 70)).astype(np.float32)
    got = ms.jit(_dense_gelu_residual)(Tensor(x), Tensor(w), Tensor(bias), Tensor(r)).asnumpy()
    h = x.reshape(-1, 40).astype(np.float64) @ w.T + bias
    want = (0.5 * h * (1 + np.tanh(np.sqrt(2 / np.pi) * (h + 0.044715 * h ** 3)))).reshape(3, 11, 70) + r
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)

    q, k, v = (rng.standard_normal((4, 9, 20)).astype(np.float32) for _ in range(3))
    got = ms.jit(_attention)(Tensor(q), Tensor(k), Tensor(v)).asnumpy()
    s = q.astype(np.float64) @ k.transpose(0, 2, 1)
    p = np.exp(s - s.max(-1, keepdims=True))
    np.testing.assert_allclose(got, (p / p.sum(-1, keepdims=True)) @ v, rtol=1e-4, atol=1e-5)


def test_narrow_products_float64_and_transposed_a_stay_on_blas():
    big = ms.inspect(ms.jit(lambda a, b: ops.matmul(a, b)), Tensor(np.ones((600, 8), np.float32)),
                     Tensor(np.ones((8, 8), np.float32))).c_source
    f64 = ms.inspect(ms.jit(lambda a, b: ops.matmul(a, b)), Tensor(np.ones((8, 8), np.float64)),
                     Tensor(np.ones((8, 8), np.float64))).c_source
    ta = ms.inspect(ms.jit(lambda a, b: ops.MatMul(transpose_a=True)(a, b)), Tensor(np.ones((8, 8), np.float32)),
                    Tensor(np.ones((8, 8), np.float32))).c_source
    for src in (big, f64, ta):
        assert "pc_sgemm_nt(" not in src


def test_a_table_without_the_kernel_runs_the_products_on_blas(operands, tmp_path):
    """An export for x86-64-v3 (AVX2), loaded with a pc_api table whose sgemm_nt is NULL (a CPU
    without AVX-512, or a C caller that leaves it out): every product runs on BLAS and still
    matches NumPy; the .so references no AVX-512 code."""
    import ctypes
    import json
    import subprocess
    from pycompile._rt import ffi, lib
    from pycompile.backend import export
    a, b = operands
    report = ms.inspect(ms.jit(_products), Tensor(a), Tensor(b))
    export.export(report, "m", ("c", "so"), str(tmp_path), target_cpu="x86-64-v3")
    nm = subprocess.run(["nm", str(tmp_path / "m.so")], capture_output=True, text=True)
    if nm.returncode == 0:
        assert "pc_nt_tile" not in nm.stdout and "sgemm_nt_avx512" not in nm.stdout
    api = ffi.new("pc_api *", lib.pc_get_api()[0])
    api.sgemm_nt = ffi.NULL
    so = ctypes.CDLL(str(tmp_path / "m.so"), mode=ctypes.RTLD_LOCAL)
    assert so.pc_module_init(ctypes.c_void_p(int(ffi.cast("uintptr_t", api)))) == 6
    manifest = json.loads((tmp_path / "m.json").read_text())
    keep, outs = [], []
    for rec, x in zip([r for r in manifest["args"] if r["kind"] == "input"], (a, b)):
        assert rec["shape"] == list(x.shape)
    inputs = iter((a, b))
    for rec in manifest["args"]:
        buf = np.zeros(rec["nbytes"] + 64, np.uint8)
        view = buf[-buf.ctypes.data % 64:][:rec["nbytes"]]
        if rec["kind"] == "input":
            view[:] = np.frombuffer(np.ascontiguousarray(next(inputs)).tobytes(), np.uint8)
        elif rec["kind"] in ("parameter", "constant"):
            blob = (tmp_path / rec["file"]).read_bytes()
            view[:] = np.frombuffer(blob[rec["offset"]:rec["offset"] + rec["nbytes"]], np.uint8)
        elif rec["kind"] == "output":
            outs.append((rec, view))
        keep.append(view)
    args = (ctypes.c_void_p * len(keep))(*[v.ctypes.data for v in keep])
    assert so.pc_entry(args) == 0
    for (rec, view), want, shape in zip(outs, _products_np(a, b), [s for s in SHAPES for _ in (0, 1)]):
        got = view.view(rec["dtype"]).reshape(rec["shape"])
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=2e-4 * np.sqrt(shape[1]), err_msg=str(shape))
