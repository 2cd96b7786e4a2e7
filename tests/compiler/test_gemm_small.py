"""pycompile's own float32 product for small shapes (csrc/gemm.c, in the runtime, issue 22): every
row tail of its 7-row tiles, column tails of its 64-column panels, both layouts of B, the
column-split schedule, batches and fused epilogues match NumPy; a Dense layer's bias is added by
the kernel as it stores (pc_api.sgemm_ep), leaving the epilogue the rest or nothing; narrow products
and float64 stay on BLAS; generated modules reach the kernel through pc_api.sgemm_nt / sgemm_ep and
fall back to BLAS (and a bias pass) when the table has none (a CPU without AVX-512 unless
PYCOMPILE_SMALL_GEMM=avx2, a C caller's table). Its bits: tests/backend/test_gemm_kernel_bits.py."""
import os

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops
from product_bits import assert_same

# (m, k, n): rows around the 7-row tile, columns around the 16-lane masks of 64-column panels,
# short and long inner dimensions. Both layouts of B use the kernel at any row count (a
# transposed B is packed by 16 x 16 register transposes: its tails in K and in columns are here).
BOTH = [(128, 8, 64), (129, 9, 120), (131, 31, 64), (134, 40, 250), (135, 17, 120)]
FEW_ROWS = [(1, 8, 64), (6, 9, 120), (7, 16, 64), (13, 31, 250),
            (64, 300, 128)]      # the column-split schedule (few rows, long K)
# outputs 8-16 wide: the kernel's narrow tiles (7 rows; the last rows in a tile of 4, then one by one)
NARROW = [(64, 16, 10), (12, 20, 16), (11, 33, 8)]
BLAS_ONLY = [(8, 8, 40), (64, 16, 65), (64, 16, 7)]     # a 64-column panel, or a vector, would be mostly waste
SHAPES = BOTH + FEW_ROWS + NARROW + BLAS_ONLY


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
    # thread is by rows), and a third for the column-split product with B transposed: 64 rows,
    # 128 columns, so x B^T may run as (B x^T)^T (gemm_call.swap_operands)
    assert src.count("pc_sgemm_nt(") == 2 * len(BOTH) + 2 * len(FEW_ROWS) + 2 * len(NARROW) + 2 + 1
    # through the runtime's table, BLAS behind every call (a NULL kernel or a failed allocation);
    # the module itself compiles neither the kernel nor <immintrin.h>
    assert src.count("if (!pc_sgemm_nt || pc_sgemm_nt(") == src.count("pc_sgemm_nt(")
    assert "pc_sgemm_nt = RT->sgemm_nt;" in src and "immintrin" not in src
    assert src.count("scipy_cblas_sgemm(") == 2 * len(SHAPES) + 2 + 1    # the split product: two schedules, both layouts; the swapped form


def test_the_runtime_offers_the_kernel_exactly_on_avx512_cpus():
    """By default (PYCOMPILE_SMALL_GEMM unset); the knob's other values: test_gemm_kernel_bits.py."""
    from pycompile._rt import lib
    with open("/proc/cpuinfo") as f:
        flags = next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
    has = "avx512f" in flags
    if os.environ.get("PYCOMPILE_SMALL_GEMM", "auto") == "avx2":
        has = "avx2" in flags and "fma" in flags
    elif os.environ.get("PYCOMPILE_SMALL_GEMM") == "blas":
        has = False
    assert lib.pc_get_api().abi_version == 11
    assert bool(lib.pc_get_api().sgemm_nt) == has
    assert bool(lib.pc_get_api().sgemm_ep) == has


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


def _dense_layers(x, w1, b1, w2, b2, w3, b3, r):
    """Dense layers as nn.Dense writes them and residual connections: a bias alone, a bias under a
    residual, a residual alone (B not transposed), a bias under a ReLU (the kernel makes the
    ReLU too), and a bias over the columns of the column-split schedule (few rows, long K) - each
    addition made by the product kernel."""
    h = ops.MatMul(transpose_b=True)(x, w1) + b1
    y = r + (ops.MatMul(transpose_b=True)(h, w2) + b2)
    u = ops.matmul(h, w2) + r
    z = ops.relu(ops.MatMul(transpose_b=True)(x, w3) + b3)
    s = ops.MatMul(transpose_b=True)(ops.tile(x[:16], (1, 20)), ops.tile(w2[:, :16], (1, 20))) + b2
    return h, y, u, z, s


def _dense_operands():
    rng = np.random.default_rng(11)
    f = lambda *shape: rng.standard_normal(shape).astype(np.float32)
    return f(37, 16), f(120, 16), f(120), f(120, 120), f(120), f(64, 16), f(64), f(37, 120)


def _dense_layers_np(x, w1, b1, w2, b2, w3, b3, r):
    x, w1, w2, w3 = (v.astype(np.float64) for v in (x, w1, w2, w3))
    h = x @ w1.T + b1
    return (h, r + (h @ w2.T + b2), h @ w2 + r, np.maximum(x @ w3.T + b3, 0),
            np.tile(x[:16], (1, 20)) @ np.tile(w2[:, :16], (1, 20)).T + b2)


def test_a_dense_layers_bias_and_a_residual_are_added_by_the_kernel():
    args = _dense_operands()
    f = ms.jit(_dense_layers)
    for g, want in zip(f(*map(Tensor, args)), _dense_layers_np(*args)):
        np.testing.assert_allclose(g.asnumpy(), want, rtol=1e-4, atol=1e-4)
    src = ms.inspect(f, *map(Tensor, args)).c_source
    # every product here makes its additions itself (the split one once per schedule), BLAS and
    # a pass behind each; the ReLU too (issue 37: through the ABI 10 pointer), so no epilogue is left
    assert src.count("pc_sgemm_ep(") == 5 and src.count("pc_sgemm_epr(") == 1 and "pc_sgemm_nt(" not in src
    assert src.count("if (!pc_sgemm_ep || pc_sgemm_ep(") == 5
    assert "pc_sgemm_ep = RT->sgemm_ep;" in src and "if (RT->abi_version >= 10) pc_sgemm_epr = RT->sgemm_ep;" in src
    assert src.count("_rows(") == 0


def test_the_additions_round_as_separate_passes_do():
    """The kernel rounds the product, then adds the bias, then the residual: bit for bit what
    MatMul followed by two Adds gives (MindSpore's Dense adds its bias after the product)."""
    args = _dense_operands()
    x, w1, b1 = map(Tensor, args[:3])
    r = Tensor(args[-1][:, :120])
    got = ms.jit(lambda x, w, b, r: r + (ops.MatMul(transpose_b=True)(x, w) + b))(x, w1, b1, r).asnumpy()
    product = ms.jit(lambda x, w: ops.MatMul(transpose_b=True)(x, w))(x, w1).asnumpy()
    np.testing.assert_array_equal(got, args[-1][:, :120] + (product + args[2]))


def test_narrow_products_float64_and_transposed_a_stay_on_blas():
    big = ms.inspect(ms.jit(lambda a, b: ops.matmul(a, b)), Tensor(np.ones((600, 8), np.float32)),
                     Tensor(np.ones((8, 7), np.float32))).c_source
    f64 = ms.inspect(ms.jit(lambda a, b: ops.matmul(a, b)), Tensor(np.ones((8, 8), np.float64)),
                     Tensor(np.ones((8, 8), np.float64))).c_source
    ta = ms.inspect(ms.jit(lambda a, b: ops.MatMul(transpose_a=True)(a, b)), Tensor(np.ones((8, 8), np.float32)),
                    Tensor(np.ones((8, 8), np.float32))).c_source
    for src in (big, f64, ta):
        assert "pc_sgemm_nt(" not in src


def _run_export_without_the_kernel(tmp_path, fn, inputs):
    """`fn` exported for x86-64-v3 (AVX2) and run from C with a pc_api table whose sgemm_nt and
    sgemm_ep are NULL (a CPU without the kernel, or a C caller that leaves them out): its outputs."""
    import ctypes
    import subprocess
    from pycompile._rt import ffi, lib
    from pycompile.backend import export
    report = ms.inspect(ms.jit(fn), *map(Tensor, inputs))
    export.export(report, "m", ("c", "so"), str(tmp_path), target_cpu="x86-64-v3")
    nm = subprocess.run(["nm", str(tmp_path / "m.so")], capture_output=True, text=True)
    if nm.returncode == 0:
        assert "pc_nt_tile" not in nm.stdout and "sgemm_nt_avx512" not in nm.stdout and "sgemm_nt_avx2" not in nm.stdout
    api = ffi.new("pc_api *", lib.pc_get_api()[0])
    api.sgemm_nt = ffi.NULL
    api.sgemm_ep = ffi.NULL
    so = ctypes.CDLL(str(tmp_path / "m.so"), mode=ctypes.RTLD_LOCAL)
    assert so.pc_module_init(ctypes.c_void_p(int(ffi.cast("uintptr_t", api)))) == 11
    keep, outs = export.bind_arguments(str(tmp_path), "m", inputs)
    args = (ctypes.c_void_p * len(keep))(*[v.ctypes.data for v in keep])
    assert so.pc_entry(args) == 0
    return [view.view(rec["dtype"]).reshape(rec["shape"]) for rec, view in outs]


def test_a_table_without_the_kernel_runs_the_products_on_blas(operands, tmp_path):
    """Every product runs on BLAS and still matches NumPy; the .so holds none of the kernel's code."""
    a, b = operands
    got = _run_export_without_the_kernel(tmp_path, _products, (a, b))
    for g, want, shape in zip(got, _products_np(a, b), [s for s in SHAPES for _ in (0, 1)]):
        np.testing.assert_allclose(g, want, rtol=1e-4, atol=2e-4 * np.sqrt(shape[1]), err_msg=str(shape))


def test_a_table_without_the_kernel_makes_the_additions_after_blas(tmp_path):
    args = _dense_operands()
    got = _run_export_without_the_kernel(tmp_path, _dense_layers, args)
    assert len(got) == 5
    for g, want in zip(got, _dense_layers_np(*args)):
        np.testing.assert_allclose(g, want, rtol=1e-4, atol=1e-4)


def _weight_gradient(a, b):
    return ops.MatMul(transpose_a=True)(a, b)      # a Dense weight's gradient: A transposed, K = the batch


def test_a_transposed_a_is_read_in_place_else_copied_out_only_for_the_kernel(tmp_path):
    """A transposed A is read in place by the kernel (tb & 32, ABI 11: gemm_call.transposed_rows);
    where that is declined its rows are copied into a block for the kernel; with no kernel in the
    table BLAS reads A as stored, and no block is made or filled."""
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((64, 128)).astype(np.float32), rng.standard_normal((64, 256)).astype(np.float32)
    src = ms.inspect(ms.jit(_weight_gradient), Tensor(a), Tensor(b)).c_source
    assert "const int in_place = pc_sgemm_ntt && !pc_sgemm_ntt(" in src
    assert "float *const At = pc_sgemm_nt ? (float *)malloc(" in src
    assert "if (RT->abi_version >= 11) pc_sgemm_ntt = RT->sgemm_nt;" in src
    (got,) = _run_export_without_the_kernel(tmp_path, _weight_gradient, (a, b))
    np.testing.assert_allclose(got, a.T.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("m,n,k,tb", [(128, 512, 512, 0), (64, 784, 64, 0), (75, 130, 300, 0), (64, 96, 33, 1),
                                      (7, 64, 1, 0), (200, 1000, 2048, 0),
                                      (64, 10, 512, 1), (71, 16, 84, 0), (9, 8, 33, 1)])   # narrow tiles
def test_a_transposed_in_place_is_the_copied_product_bit_for_bit(m, n, k, tb):
    """The kernel reading A transposed in place (tb & 32) adds the same products in the same order
    as on op(A) copied out (the form before ABI 11): the same bits; against NumPy in float64. A
    kernel may decline it (the AVX2 form does): then nothing is written."""
    from pycompile._rt import ffi, lib
    kern = lib.pc_get_api().sgemm_nt
    if kern == ffi.NULL:        # the runtime hands out no kernel only on a CPU without AVX-512
        with open("/proc/cpuinfo") as f:
            assert " avx512f" not in f.read()
        return
    rng = np.random.default_rng(m + n + k)
    at = rng.standard_normal((k, m)).astype(np.float32)           # A stored transposed (K x M)
    bm = rng.standard_normal((n, k) if tb else (k, n)).astype(np.float32)

    def run(a, lda, flags):
        out = np.full((m, n), np.nan, np.float32)
        rc = kern(m, n, k, ffi.cast("const float *", a.ctypes.data), lda, ffi.cast("const float *", bm.ctypes.data),
                  bm.shape[1], flags, ffi.cast("float *", out.ctypes.data), n)
        return rc, out
    rc, in_place = run(at, m, tb | 32)
    copied = np.ascontiguousarray(at.T)
    assert run(copied, k, tb)[0] == 0
    if rc:                                                          # declined: C untouched
        assert np.isnan(in_place).all()
        return
    np.testing.assert_array_equal(in_place, run(copied, k, tb)[1])
    want = at.T.astype(np.float64) @ (bm.T if tb else bm).astype(np.float64)
    np.testing.assert_allclose(in_place, want, rtol=1e-4, atol=1e-3)


def _kernel_flags(src):
    """The `tb` argument (bit 0: B transposed, bit 1: prefetch B, bit 2: keep B's packing) of every
    small-product call (its constant part: a shared packing adds `| (pk ? 8 : 0)`)."""
    import re
    return [int(call.split(", ")[7].split()[0]) for call in re.findall(r"pc_sgemm_(?:nt|ep)\((.*?)\)\)", src)]


def test_weights_larger_than_a_cores_l2_are_prefetched():
    """A model whose Parameters outsize a core's L2 reads each layer's weights cold: the kernel is
    asked to prefetch them (bit 1 of `tb`), and only them - not an activation just written, nor
    a small model's weights, which stay in cache (the prefetches cost 2-7 % there). Either way
    the values are the products'."""
    from pycompile import nn
    from pycompile.backend.c.codegen import _l2_bytes
    rng = np.random.default_rng(5)
    x = rng.standard_normal((128, 64)).astype(np.float32)
    wide = _l2_bytes() // (4 * 128) + 64          # a layer (on BLAS: too wide) whose weights outsize the L2
    for cold in (True, False):
        first, second, third = nn.Dense(64, 128), nn.Dense(128, 64), nn.Dense(128, wide)

        def f(t):
            h = first(t)
            ys = (second(h), ops.MatMul(transpose_b=True)(h, h))     # weights, then an activation, as B
            return ys + (third(h),) if cold else ys

        (w1, b1), (w2, b2), (w3, b3) = [(d.weight.asnumpy().astype(np.float64), d.bias.asnumpy())
                                        for d in (first, second, third)]
        h = x @ w1.T + b1
        for g, want in zip(ms.jit(f)(Tensor(x)), (h @ w2.T + b2, h @ h.T, h @ w3.T + b3)):
            np.testing.assert_allclose(g.asnumpy(), want, rtol=1e-4, atol=1e-3)
        flags = _kernel_flags(ms.inspect(ms.jit(f), Tensor(x)).c_source)
        assert len(flags) == 3 and all(f & 1 for f in flags)          # B transposed in all three
        assert sorted(bool(f & 2) for f in flags) == sorted([cold, cold, False]), (cold, flags)


def test_the_l2_size_is_the_machines():
    """The size the prefetch decision compares against is the L2 the C library reports, where it
    reports one (getconf), else sysfs's level-2 entry or 1 MiB."""
    import subprocess
    from pycompile.backend.c.codegen import _l2_bytes
    r = subprocess.run(["getconf", "LEVEL2_CACHE_SIZE"], capture_output=True, text=True)
    reported = int(r.stdout) if r.returncode == 0 and r.stdout.strip().isdigit() else 0
    if reported > 0:
        assert _l2_bytes() == reported
    else:
        assert _l2_bytes() >= 64 << 10


def test_an_older_tables_kernel_is_not_called(tmp_path):
    """ABI 7 gave the kernel's `tb` a prefetch bit, which an ABI 6 kernel would read as a
    transpose: a module loaded with an older table leaves its kernel alone (BLAS computes);
    with an ABI 7 table (whose kernel ignores ABI 8's bit 2) or the current one it calls it."""
    import ctypes
    from pycompile._rt import ffi, lib
    from pycompile.backend import export
    a, b = (np.random.default_rng(9).standard_normal((128, 64)).astype(np.float32) for _ in range(2))
    report = ms.inspect(ms.jit(lambda x, y: ops.matmul(x, y.T)), Tensor(a), Tensor(b))
    export.export(report, "m", ("c", "so"), str(tmp_path))
    calls = []

    @ffi.callback("int(long, long, long, const float *, long, const float *, long, int, float *, long)")
    def kernel(*args):
        calls.append(args[7])
        return 1                    # "could not run": the module falls back to BLAS

    so = ctypes.CDLL(str(tmp_path / "m.so"), mode=ctypes.RTLD_LOCAL)
    for version in (6, 7, 8):
        api = ffi.new("pc_api *", lib.pc_get_api()[0])
        api.abi_version, api.sgemm_nt = version, kernel
        so.pc_module_init(ctypes.c_void_p(int(ffi.cast("uintptr_t", api))))
        out = np.zeros((128, 128), np.float32)
        keep = [np.ascontiguousarray(a), np.ascontiguousarray(b), out, np.zeros(1 << 16, np.uint8)]
        args = (ctypes.c_void_p * 4)(*[v.ctypes.data for v in keep])
        del calls[:]
        assert so.pc_entry(args) == 0
        np.testing.assert_allclose(out, a @ b.T, rtol=1e-4, atol=1e-4)
        assert bool(calls) == (version >= 7), (version, calls)


def swap_cases(x, w, b, r, w2):
    dense = ops.MatMul(transpose_b=True)
    h = ops.relu(dense(x, w) + b) + r               # bias, residual, ReLU
    return h, ops.sigmoid(dense(h, w2)) * 2.0, dense(x, w)     # an epilogue; the bare product


def test_a_product_with_a_weight_packed_each_call_is_computed_transposed_with_the_same_bits(monkeypatch):
    # x W^T with W not kept packed (an input here; a weight the step writes in training) is
    # computed as (W x^T)^T, packing x instead of W (gemm_call.swap_operands): every sum the same
    # chain of fused multiply-adds, so the same bits as the unswapped kernel, at any team size
    from pycompile.backend.c.ops import gemm_call
    from pycompile._rt import lib
    from pycompile.common import context
    rng = np.random.default_rng(8)
    args = [rng.standard_normal(s).astype(np.float32) for s in ((64, 300), (256, 300), (256,), (64, 256), (192, 256))]
    got = {}
    try:
        for swap in (False, True):
            monkeypatch.setattr(gemm_call, "SWAP", [swap])
            f = ms.jit(swap_cases)
            assert ("const long wr" in f.compiled(*[Tensor(a) for a in args]).c_source) == swap
            for t in (1, 2, 8):             # 8: a team past 4 takes the unswapped form
                lib.pc_set_num_threads(t)
                got[swap, t] = [y.asnumpy() for y in f(*[Tensor(a) for a in args])]
    finally:
        lib.pc_set_num_threads(context.num_threads())
    x, w, b, r, w2 = (a.astype(np.float64) for a in args)
    h = np.maximum(x @ w.T + b, 0) + r
    np.testing.assert_allclose(got[True, 1][0], h, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got[True, 1][2], x @ w.T, rtol=1e-4, atol=1e-4)
    for key, ys in got.items():
        for y0, y1 in zip(got[False, 1], ys):
            assert_same(y1, y0, err_msg=str(key))


class _Classifier(ms.nn.Cell):
    """W4's MLP: its hidden layers run transposed (W h^T, the weights read in place), so the last
    Dense layer's input reaches its product stored transposed."""
    def __init__(self):
        super().__init__()
        self.seq = ms.nn.SequentialCell(ms.nn.Dense(784, 512), ms.nn.ReLU(), ms.nn.Dense(512, 512), ms.nn.ReLU(),
                                        ms.nn.Dense(512, 10))

    def construct(self, x):
        return self.seq(x)


def test_a_classifiers_last_layer_on_a_transposed_input_runs_on_the_narrow_tiles():
    """64 x 10 x 512 with A transposed and W a Parameter whose packing is kept (tb 4 | 32): the
    narrow tiles read A in place (it went to OpenBLAS's TT sgemm, 3 % of W4 B=64's call); the
    values those of NumPy, and PyNative's (which computes h W^T untransposed on the same tiles)
    bit for bit."""
    ms.set_seed(3)
    net = _Classifier()
    x = np.random.default_rng(4).standard_normal((64, 784)).astype(np.float32)
    src = ms.inspect(net, Tensor(x)).c_source
    calls = [line for line in src.splitlines() if "pc_sgemm_ntt(r1 - r0, 10, 512L" in line]
    assert len(calls) == 1
    flags = int(calls[0].split("B, 512L, ")[1].split(",")[0])
    assert flags & 32 and flags & 4 and flags & 1
    got = net(Tensor(x)).asnumpy()
    ws = [(net.seq[i].weight.asnumpy().astype(np.float64), net.seq[i].bias.asnumpy().astype(np.float64))
          for i in (0, 2, 4)]
    h = x.astype(np.float64)
    for i, (w, b) in enumerate(ws):
        h = h @ w.T + b
        h = np.maximum(h, 0) if i < 2 else h
    np.testing.assert_allclose(got, h, rtol=1e-4, atol=1e-4)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    try:
        eager = net(Tensor(x)).asnumpy()
    finally:
        ms.set_context(mode=ms.GRAPH_MODE)
    assert_same(got, eager)
