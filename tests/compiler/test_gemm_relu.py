"""Issue 37 (W4 at one thread): a ReLU right after a product the small-product kernel runs (with
or without the Dense bias and a residual it adds) is made by the kernel as it stores each tile
(csrc/gemm.c, tb & 16, ABI 10; backend/c/ops/gemm_call.py), not by a pass over the output. The
values are bit for bit the unfused ones (the same sums, then x > 0 ? x : 0: NaN and -0 give +0),
at any thread count; a table older than ABI 10 (whose kernel would ignore the bit) or without the
kernel gets BLAS and a pass making the additions and the ReLU."""
import ctypes

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, nn, ops
from pycompile._rt import ffi, lib
from pycompile.common import context
from product_bits import assert_same

MT = ops.MatMul(transpose_b=True)


def _relu_layers(x, w, b, v, r):
    """A bias then ReLU (B transposed, Dense's layout), ReLU of a bare product (B as given), a
    bias and a residual then ReLU, and a ReLU whose input is also returned (that one stays a pass);
    each product its own (`w` and its negation and halves: CSE would merge equal ones)."""
    h = ops.relu(MT(x, w) + b)
    u = ops.relu(ops.matmul(x, v))
    y = ops.relu(r + (MT(x, -w) + b))
    pre = MT(x, w * 0.5) + b
    narrow = ops.relu(r[:, :12] + (MT(x, w[:12] * 2) + b[:12]))     # 12 columns: the narrow tiles
    return h, u, y, pre, ops.relu(pre), narrow


def _operands():
    rng = np.random.default_rng(37)
    x = rng.standard_normal((37, 40)).astype(np.float32)
    x[3, 5] = np.nan                # a NaN row: NaN before the ReLU, +0 after
    x[4, :] = 0.0                   # a zero row: the bias alone
    x[5, 7] = np.inf
    w = rng.standard_normal((120, 40)).astype(np.float32)
    b = rng.standard_normal(120).astype(np.float32)
    b[:8] = -0.0                    # -0 + 0 rows: +0 before and after
    v = rng.standard_normal((40, 120)).astype(np.float32)
    r = rng.standard_normal((37, 120)).astype(np.float32)
    return x, w, b, v, r


def _relu(a):
    return np.where(a > 0, a, np.float32(0))


def test_the_kernel_makes_the_relu_bit_for_bit_as_the_pass_does():
    args = _operands()
    f = ms.jit(_relu_layers)
    src = ms.inspect(f, *map(Tensor, args)).c_source
    # three products end in the kernel's ReLU, BLAS and a pass behind each; the fourth keeps its
    # epilogue (the pre-activation is an output too)
    assert src.count("pc_sgemm_epr(") == 4 and src.count("if (!pc_sgemm_epr || pc_sgemm_epr(") == 4
    assert src.count(", 17, ") + src.count(", 16, ") == 4      # tb: ReLU (16), transpose (1)
    assert "if (RT->abi_version >= 10) pc_sgemm_epr = RT->sgemm_ep;" in src
    assert src.count("_rows(") == 2          # the last product's epilogue: defined and called once
    h, u, y, pre, relu_pre, narrow = (t.asnumpy() for t in f(*map(Tensor, args)))
    x, w, b, v, r = args
    # the same kernel's sums without the ReLU (graph mode), then the ReLU in NumPy: equal bit for bit
    plain = ms.jit(lambda x, w, b, v, r: (MT(x, w) + b, ops.matmul(x, v), r + (MT(x, -w) + b),
                                          r[:, :12] + (MT(x, w[:12] * 2) + b[:12])))
    for got, want in zip((h, u, y, narrow), plain(*map(Tensor, args))):
        np.testing.assert_array_equal(got, _relu(want.asnumpy()))
        assert not np.signbit(got).any() and not np.isnan(got).any()
    np.testing.assert_array_equal(_relu(pre), relu_pre)
    # and within float32 product tolerances of float64 NumPy on the finite rows
    ok = np.isfinite(x).all(axis=1)
    x64 = x[ok].astype(np.float64)
    np.testing.assert_allclose(h[ok], np.maximum(x64 @ w.T + b, 0), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(u[ok], np.maximum(x64 @ v, 0), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(y[ok], np.maximum(r[ok] + (x64 @ -w.T + b), 0), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(narrow[ok], np.maximum(r[ok, :12] + (x64 @ w[:12].T * 2 + b[:12]), 0),
                               rtol=1e-4, atol=1e-4)


class MLP(nn.Cell):
    """W4's layers (bench/workloads.py), narrower: Dense + ReLU twice, then a Dense."""

    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.seq = nn.SequentialCell(nn.Dense(196, 128), nn.ReLU(), nn.Dense(128, 128), nn.ReLU(),
                                     nn.Dense(128, 10))

    def construct(self, x):
        h = self.seq[3](self.seq[2](self.seq[1](self.seq[0](self.flatten(x)))))
        return h, self.seq[4](h)


@pytest.fixture
def threads():
    yield lib.pc_set_num_threads
    lib.pc_set_num_threads(context.num_threads())


def test_w4s_layers_at_any_thread_count(threads):
    """Kept packing (Parameters), the ReLU in the kernel: equal to NumPy, and bit-identical at 1, 2,
    4 and 16 threads (the rows are cut differently; each value is made the same way). The last
    layer ran on OpenBLAS before, whose sums varied with the rows per call (4 and 16 threads)."""
    ms.set_seed(0)
    net = MLP()
    x = np.random.default_rng(4).standard_normal((300, 1, 14, 14)).astype(np.float32)
    f = ms.jit(net.construct)
    src = ms.inspect(f, Tensor(x)).c_source
    # the last layer (10 columns) on the kernel's narrow tiles, its bias added by them: no pass left
    assert src.count("pc_sgemm_epr(") == 2 and src.count("pc_sgemm_ep(") == 1 and "_rows(" not in src
    (w1, b1), (w2, b2), (w3, b3) = [(net.seq[i].weight.asnumpy(), net.seq[i].bias.asnumpy()) for i in (0, 2, 4)]
    h = np.maximum(x.reshape(300, -1).astype(np.float64) @ w1.T + b1, 0)
    h = np.maximum(h @ w2.T + b2, 0)
    results = {}
    for t in (1, 2, 4, 16):
        threads(t)
        f(Tensor(x))
        results[t] = [v.asnumpy() for v in f(Tensor(x))]
        np.testing.assert_allclose(results[t][0], h, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(results[t][1], h @ w3.T + b3, rtol=1e-4, atol=1e-4)
    for t in (2, 4, 16):
        assert_same(results[t][0], results[1][0], err_msg=f"{t} threads")
        assert_same(results[t][1], results[1][1], err_msg=f"{t} threads")


def test_an_older_table_or_none_gets_blas_and_a_relu_pass(tmp_path):
    """An ABI 9 table's kernel would ignore the ReLU bit: the module does not call it for these
    products, and BLAS, the bias pass and the ReLU pass run; so they do with no kernel at all, or
    when the kernel says it could not run. An ABI 10 table's kernel is called with the bit."""
    from pycompile.backend import export
    x, w, b = _operands()[:3]
    x = np.nan_to_num(x, posinf=1.0)
    report = ms.inspect(ms.jit(lambda x, w, b: ops.relu(MT(x, w) + b)), Tensor(x), Tensor(w), Tensor(b))
    export.export(report, "m", ("c", "so"), str(tmp_path))
    so = ctypes.CDLL(str(tmp_path / "m.so"), mode=ctypes.RTLD_LOCAL)
    want = np.maximum(x.astype(np.float64) @ w.T + b, 0)
    calls = []

    @ffi.callback("int(long, long, long, const float *, long, const float *, long, int, float *, long, "
                  "const float *, const float *, long)")
    def declines(*args):
        calls.append(args[7])
        return 1                    # "could not run": the module falls back to BLAS and the passes

    for version, kernel in ((9, declines), (10, ffi.NULL), (10, declines), (10, None)):
        api = ffi.new("pc_api *", lib.pc_get_api()[0])
        api.abi_version = version
        if kernel is not None:
            api.sgemm_ep = kernel
        so.pc_module_init(ctypes.c_void_p(int(ffi.cast("uintptr_t", api))))
        out = np.full((37, 120), -1.0, np.float32)
        keep = [x, w, b, out, np.zeros(1 << 16, np.uint8)]
        args = (ctypes.c_void_p * len(keep))(*[a.ctypes.data for a in keep])
        del calls[:]
        assert so.pc_entry(args) == 0
        np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-4, err_msg=f"ABI {version}, kernel {kernel}")
        assert not np.signbit(out).any()
        # (one call per row chunk: as many as the table's threads)
        assert set(calls) == ({17} if version == 10 and kernel is declines else set()), (version, calls)
