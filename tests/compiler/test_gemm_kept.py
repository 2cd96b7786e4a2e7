"""Packed weights kept between calls (csrc/gemm.c, issue 22): a graph that only reads its
Parameters asks the small-product kernel to keep their packing (bit 2 of `tb`), later calls read
the kept panels, and every way a Parameter can be written makes them stale - so a call after a
write computes with the new weights, never the kept ones."""
import ctypes
import threading

import numpy as np
import pytest

import pycompile as ms
from pycompile import Parameter, Tensor, nn, ops
from pycompile._rt import ffi, lib
from test_gemm_small import _kernel_flags

pytestmark = pytest.mark.skipif(not lib.pc_get_api().sgemm_ep, reason="the small-product kernel needs AVX-512 (or PYCOMPILE_SMALL_GEMM=avx2)")


def _stats():
    out = ffi.new("long[5]")
    lib.pc_pack_stats(out, 5)
    return {"served": out[0], "kept": out[1], "declined": out[2], "bytes": out[3], "epoch": out[4]}


class Net(nn.Cell):
    """Two Dense layers on the kernel (B is a Parameter, transposed) and a product of activations."""

    def __init__(self):
        super().__init__()
        self.up = nn.Dense(64, 128)
        self.down = nn.Dense(128, 64)

    def construct(self, x):
        h = self.up(x)
        return self.down(h), ops.MatMul(transpose_b=True)(h, h)


def _want(net, x):
    w1, b1 = net.up.weight.asnumpy().astype(np.float64), net.up.bias.asnumpy()
    w2, b2 = net.down.weight.asnumpy().astype(np.float64), net.down.bias.asnumpy()
    h = x @ w1.T + b1
    return h @ w2.T + b2, h @ h.T


def _check(f, net, x):
    for got, want in zip(f(Tensor(x)), _want(net, x)):
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-4, atol=1e-3)


@pytest.fixture()
def net_and_input():
    ms.set_seed(3)
    net = Net()
    x = np.random.default_rng(1).standard_normal((128, 64)).astype(np.float32)
    return net, x, ms.jit(lambda t: net(t))


def test_weights_packing_is_kept_and_read_by_later_calls(net_and_input):
    net, x, f = net_and_input
    flags = _kernel_flags(ms.inspect(f, Tensor(x)).c_source)
    # the weights' products keep their packing, the activations' product (h h^T) does not
    assert sorted(bool(fl & 4) for fl in flags) == [False, True, True], flags
    _check(f, net, x)
    before = _stats()
    for _ in range(3):
        _check(f, net, x)
    after = _stats()
    assert after["kept"] == before["kept"], (before, after)          # nothing packed again
    assert after["served"] >= before["served"] + 3 * 2, (before, after)   # two weights, three calls


@pytest.mark.parametrize("write", ["set_data", "setitem", "assign_eager", "assign_compiled", "tensor_set_data",
                                   "new_model"])
def test_every_write_of_a_parameter_makes_its_kept_packing_stale(net_and_input, write):
    """Without the runtime being told, the kept panels would still hold the old weights: the
    second result would be the first one (new weights here are the old ones times -2)."""
    net, x, f = net_and_input
    _check(f, net, x)
    _check(f, net, x)                   # read from kept panels
    w = net.down.weight
    new = w.asnumpy() * -2
    if write == "set_data":
        w.set_data(Tensor(new))
    elif write == "setitem":
        w[...] = Tensor(new)
    elif write == "assign_eager":
        ops.assign(w, Tensor(new))
    elif write == "assign_compiled":
        scale = ms.jit(lambda: ops.assign(w, w * -2))
        scale()
    elif write == "tensor_set_data":
        Tensor.set_data(w, Tensor(new))
    elif write == "new_model":
        # a new model's Parameters may be allocated where freed ones were: creating one is a write
        before = _stats()["epoch"]
        Parameter(Tensor(new), name="fresh")
        assert _stats()["epoch"] > before
        w.set_data(Tensor(new))
    np.testing.assert_array_equal(w.asnumpy(), new)
    _check(f, net, x)


def test_a_graph_that_assigns_parameters_does_not_keep_packings_and_says_it_writes():
    ms.set_seed(4)
    net = nn.Dense(64, 128)
    x = np.random.default_rng(2).standard_normal((128, 64)).astype(np.float32)

    def step(t):
        y = net(t)
        ops.assign(net.weight, net.weight * 0.5)
        return y
    src = ms.inspect(ms.jit(step), Tensor(x)).c_source
    flags = _kernel_flags(src)
    assert flags and not any(fl & 4 for fl in flags), flags
    # the entry tells the runtime as a call starts and as it ends (ABI 8, NULL-safe)
    assert src.count("RT->params_written();") == 2 and "pc_entry_body(args)" in src
    before = _stats()["epoch"]
    w0 = net.weight.asnumpy().astype(np.float64)
    got = ms.jit(step)(Tensor(x))
    np.testing.assert_allclose(got.asnumpy(), x @ w0.T + net.bias.asnumpy(), rtol=1e-4, atol=1e-3)
    assert _stats()["epoch"] >= before + 2


def test_an_older_or_partial_table_is_not_asked_to_record_writes(tmp_path):
    """An exported module that assigns a Parameter calls params_written only from an ABI 8 table
    that has it: an ABI 7 table ends before the field, a C caller's may leave it NULL."""
    from pycompile.backend import export
    p = Parameter(Tensor(np.ones((4,), np.float32)), name="p")
    report = ms.inspect(ms.jit(lambda x: ops.assign(p, p + x)), Tensor(np.ones((4,), np.float32)))
    export.export(report, "m", ("c", "so"), str(tmp_path))
    calls = []

    @ffi.callback("void(void)")
    def written():
        calls.append(1)

    so = ctypes.CDLL(str(tmp_path / "m.so"), mode=ctypes.RTLD_LOCAL)
    manifest = __import__("json").loads((tmp_path / "m.json").read_text())
    for version, fn, want in ((7, written, 0), (8, ffi.NULL, 0), (8, written, 2)):
        api = ffi.new("pc_api *", lib.pc_get_api()[0])
        api.abi_version, api.params_written = version, fn
        so.pc_module_init(ctypes.c_void_p(int(ffi.cast("uintptr_t", api))))
        bufs = []
        for rec in manifest["args"]:
            n = rec.get("nbytes", 0) or 1
            bufs.append(np.ones(max(n // 4, 1), np.float32) if rec["kind"] != "arena" else np.zeros(n, np.uint8))
        del calls[:]
        assert so.pc_entry((ctypes.c_void_p * len(bufs))(*[b.ctypes.data for b in bufs])) == 0
        assert len(calls) == want, (version, calls)


def test_with_no_room_products_pack_as_before(net_and_input):
    net, x, f = net_and_input
    lib.pc_pack_keep_limit(0)
    try:
        before = _stats()
        _check(f, net, x)
        net.down.weight.set_data(Tensor(net.down.weight.asnumpy() + 1))
        _check(f, net, x)
        after = _stats()
        assert after["kept"] == before["kept"] and after["served"] == before["served"]
    finally:
        from pycompile.common import knobs
        lib.pc_pack_keep_limit(knobs.get("PYCOMPILE_KEEP_PACKED_MB") << 20)


def test_calls_from_several_threads_share_kept_packings(net_and_input):
    net, x, f = net_and_input
    want = _want(net, x)
    errors = []

    def run():
        try:
            for _ in range(20):
                for got, w in zip(f(Tensor(x)), want):
                    np.testing.assert_allclose(got.asnumpy(), w, rtol=1e-4, atol=1e-3)
        except AssertionError as e:         # pragma: no cover - reported below
            errors.append(e)
    threads = [threading.Thread(target=run) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]
