"""PyNative's shape-generic kernels (backend/eager_generic.py, csrc/eager_generic.c): the runtime's
convolution / pooling kernels with run-time sizes equal, bit for bit, the C graph mode generates
per signature - on plain, padded, strided, dilated, grouped and odd geometries, the rows and the
tile kernels' orders, float32 and float64, infinities and NaN included; they serve a new
signature's first call without the C compiler, and its own kernel is built from the second call
on, in the background, then swapped in (docs/eager-kernels.md, "The first call of a network")."""
from __future__ import annotations

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops
from pycompile.backend import eager, eager_generic
from pycompile.common.abstract import TensorType
from pycompile.common import dtype as mstype
from pycompile.ops import _table
from pycompile.ops import prims as P
from pycompile.ops.defs.conv import out_size
from pycompile.ops.defs.pool import pool_windows
from eager_install import kernels_installed


def _a(*shape, seed=0, dt=np.float32):
    return np.random.default_rng(seed).uniform(-1.0, 1.0, shape).astype(dt)


def _conv(stride=(1, 1), dilation=(1, 1), pads=(0, 0, 0, 0), group=1):
    return dict(stride=stride, dilation=dilation, pads=pads, group=group)


# (x shape, w shape, attributes, dtype): the rows kernel (few output channels per group) and the tile
# kernel, its chunk / tail accumulator sets (an output row of 83 = 4 + 2 vectors), strides 1 / 2 / 3,
# dilation, groups, asymmetric padding
CONVS = [
    ((2, 1, 12, 12), (6, 1, 5, 5), _conv(), np.float32),                                  # LeNet's first: rows
    ((2, 6, 9, 9), (16, 6, 3, 3), _conv(pads=(1, 1, 1, 1)), np.float32),                 # tiles, padded
    ((2, 3, 9, 11), (4, 3, 3, 3), _conv(stride=(2, 2), pads=(1, 1, 1, 1)), np.float32),
    ((1, 2, 5, 83), (4, 2, 3, 3), _conv(pads=(1, 1, 1, 1)), np.float32),                 # chunk + tail sets
    ((1, 6, 7, 70), (6, 1, 3, 3), _conv(stride=(3, 3), pads=(1, 1, 1, 1), group=6), np.float32),
    ((2, 4, 10, 37), (8, 2, 3, 2), _conv(dilation=(2, 2), pads=(2, 1, 0, 2), group=2), np.float32),
    ((1, 32, 6, 7), (32, 16, 3, 3), _conv(pads=(1, 1, 1, 1), group=2), np.float32),      # tiles, groups
    ((2, 3, 13, 13), (3, 3, 4, 4), _conv(pads=(2, 2, 2, 2)), np.float64),                # rows, 8 lanes
    ((2, 3, 7, 6), (8, 3, 3, 2), _conv(pads=(1, 2, 0, 1)), np.float32),
    ((3, 2, 7, 7), (8, 2, 3, 3), _conv(), np.float64),                                   # tiles, 8 lanes
]
# Conv2DBackpropInput's direct case (stride 1, pads within the kernel's reach) and
# Conv2DBackpropFilter's (one group, stride and dilation 1, >= half a vector of output channels)
INPUT_GRADS = [1, 3, 5, 8]
FILTER_GRADS = [1, 8, 9]
POOL = dict(kernel=(3, 3), stride=(2, 2), pads=(1, 1, 1, 1), dilation=(1, 1), ceil_mode=True)
POOLS = [   # (op, grad op, x shape, attributes, dtype): whole windows, clipped windows (the walk), divisors
    (P.MaxPool, P.MaxPoolGrad, (2, 6, 12, 12), dict(POOL, kernel=(2, 2), pads=(0, 0, 0, 0), ceil_mode=False),
     np.float32),
    (P.MaxPool, P.MaxPoolGrad, (2, 3, 7, 6), POOL, np.float32),
    (P.MaxPool, P.MaxPoolGrad, (1, 2, 9, 10), dict(POOL, stride=(1, 2), dilation=(2, 1)), np.float64),
    (P.AvgPool, P.AvgPoolGrad, (2, 3, 7, 6), dict(POOL, count_include_pad=False, divisor=0), np.float32),
    (P.AvgPool, P.AvgPoolGrad, (1, 4, 8, 8), dict(POOL, kernel=(2, 2), stride=(2, 2), pads=(0, 0, 0, 0),
                                                  count_include_pad=True, divisor=3, ceil_mode=False), np.float32),
]


def _cases():
    """(op, input arrays, attributes) of every case."""
    out = []
    for i, (xs, ws, attrs, dt) in enumerate(CONVS):
        x, w = _a(*xs, seed=i, dt=dt), _a(*ws, seed=50 + i, dt=dt)
        if i == 1:
            w[3, 2, 0, 0] = np.inf          # x 0 in the padding: NaN there in both
        out.append((P.Conv2D, (x, w), attrs))
        st, dl, pd = attrs["stride"], attrs["dilation"], attrs["pads"]
        oh = out_size(xs[2], ws[2], st[0], dl[0], pd[0], pd[1])
        ow = out_size(xs[3], ws[3], st[1], dl[1], pd[2], pd[3])
        dy = _a(xs[0], ws[0], oh, ow, seed=100 + i, dt=dt)
        if i in INPUT_GRADS:
            out.append((P.Conv2DBackpropInput, (dy, w), dict(attrs, input_size=xs)))
        if i in FILTER_GRADS:
            out.append((P.Conv2DBackpropFilter, (dy, x), dict(attrs, filter_size=ws)))
    for i, (op, gop, xs, attrs, dt) in enumerate(POOLS):
        x = _a(*xs, seed=200 + i, dt=dt)
        x[0, 0, 1, :3] = (np.nan, np.inf, -np.inf)
        x[0, 1, 2, 2:4] = x[0, 1, 2, 1]             # ties: the first maximum
        out.append((op, (x,), attrs))
        osz = tuple(len(w) for w in pool_windows(attrs, xs[2:]))
        out.append((gop, (x, _a(*xs[:2], *osz, seed=300 + i, dt=dt)), attrs))
    return out


CASES = _cases()


def _all(*xs):
    out, k = (), 0
    for op, arrays, attrs in CASES:
        out = out + (ops.apply(op, list(xs[k:k + len(arrays)]), dict(attrs)),)
        k += len(arrays)
    return out


@pytest.fixture(scope="module")
def compiled():
    """Every case in one compiled graph: graph mode's per-signature C (one module)."""
    return ms.jit(_all)(*[Tensor(a) for _, arrays, _ in CASES for a in arrays])


def _types(arrays):
    return tuple(TensorType(mstype.float32 if a.dtype == np.float32 else mstype.float64, a.shape) for a in arrays)


@pytest.mark.parametrize("width", ["", "64", "32"])
@pytest.mark.parametrize("i", range(len(CASES)), ids=[f"{c[0].name}-{i}" for i, c in enumerate(CASES)])
def test_generic_kernel_equals_the_per_signature_kernel_bit_for_bit(i, width, compiled, monkeypatch):
    """At the CPU's vector width and at both forced ones (64-byte vectors or pairs of 32-byte ones,
    PYCOMPILE_VECTOR_BYTES): the same sums, so graph mode's bits at its default width."""
    if width:
        monkeypatch.setenv("PYCOMPILE_VECTOR_BYTES", width)
    op, arrays, attrs = CASES[i]
    run = eager_generic.kernel(op, _types(arrays), attrs)
    assert run is not None, f"{op.name} {[a.shape for a in arrays]} {attrs}: not served"
    out = run(tuple(Tensor(a) for a in arrays))
    want = compiled[i].asnumpy()
    if op is P.Conv2DBackpropInput and not np.isfinite(arrays[1]).all():
        # graph mode's kernel skips the rows that read only dY's padding (no inf * 0 there):
        # the generic kernel declines these values and the per-signature kernel serves them
        assert out is None
        assert not np.isnan(want).all()
        return
    got = out.asnumpy()
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(got.view(np.uint8), want.view(np.uint8)), \
        f"{op.name}: max |generic - compiled| = {np.nanmax(np.abs(got - want))}"


def test_signatures_whose_c_it_cannot_reproduce_are_not_served():
    f32 = mstype.float32
    x, w = TensorType(f32, (1, 2, 9, 9)), TensorType(f32, (4, 2, 3, 3))
    dy = TensorType(f32, (1, 4, 4, 4))
    strided = _conv(stride=(2, 2))
    assert eager_generic.kernel(P.Conv2D, (x, w), strided) is not None
    # im2col + BLAS paths: a strided input gradient; a filter gradient with few output channels
    assert eager_generic.kernel(P.Conv2DBackpropInput, (dy, w), dict(strided, input_size=(1, 2, 9, 9))) is None
    assert eager_generic.kernel(P.Conv2DBackpropFilter, (TensorType(f32, (1, 4, 7, 7)), x),
                                dict(_conv(), filter_size=(4, 2, 3, 3))) is None
    assert eager_generic.kernel(P.Conv2D, (TensorType(mstype.float16, (1, 2, 9, 9)),
                                           TensorType(mstype.float16, (4, 2, 3, 3))), _conv()) is None
    assert eager_generic.kernel(P.Conv3D, (TensorType(f32, (1, 2, 3, 4, 4)), TensorType(f32, (2, 2, 1, 2, 2))),
                                dict(stride=(1, 1, 1), dilation=(1, 1, 1), pads=(0,) * 6, group=1)) is None
    assert eager_generic.kernel(P.LogSoftmax, (TensorType(f32, (4, 10)),), {"axis": -1}) is None
    assert eager_generic.served_options(("CPU", ("fast_paths", True), ("float_status", False)))
    assert not eager_generic.served_options(("Ascend", ("fast_paths", True), ("float_status", True)))
    assert not eager_generic.served_options(("CPU", ("fast_paths", False), ("float_status", False)))



def test_a_row_block_pair_conv_py_never_makes_is_declined_not_run_as_another():
    """The rows kernel's blocks are the (vectors, accumulator sets) pairs conv.py makes (at most 4
    vectors of accumulators): a geometry asking for another is not served (ValueError), rather than
    run on another block (the old dispatch's default, 4 vectors x 1 set, could write past a shorter row)."""
    from pycompile.backend.c.ops.conv import Geometry
    f32 = mstype.float32
    for ow, sets_a, sets_b in [(64, 2, 2), (32, 3, 3), (96, 1, 3), (48, 2, 1)]:   # vectors: 4, 2, 4 + 2, 3
        g = Geometry((1, 2, 5, ow + 4), (4, 2, 3, 5), _conv())
        geo = eager_generic._geo(g, f32, False)
        x, w, y = _a(1, 2, 5, ow + 4), _a(4, 2, 3, 5, seed=1), np.zeros((1, 4, 3, ow), np.float32)
        eager_generic._call_conv(eager_generic._conv_fn(f32), geo, x, w, y)          # conv.py's own pair
        assert np.abs(y).max() > 0
        geo[19:21] = sets_a, sets_b
        with pytest.raises(ValueError, match="does not serve"):
            eager_generic._call_conv(eager_generic._conv_fn(f32), geo, x, w, y)

@pytest.fixture
def tiered_kernels():
    """A kernel store of its own with the generic tier, installed for the test."""
    with kernels_installed(eager.EagerKernels(generic=True)) as k:
        yield k


def test_a_new_signature_runs_without_the_c_compiler_and_its_own_kernel_is_swapped_in(tiered_kernels):
    k = tiered_kernels
    x, w = Tensor(_a(2, 3, 10, 9, seed=1)), Tensor(_a(8, 3, 3, 3, seed=2))
    attrs = _conv(pads=(1, 0, 1, 1))
    first = ops.apply(P.Conv2D, [x, w], dict(attrs))
    assert (k.stats.generic, k.stats.compiled, k.stats.lower_s) == (1, 0, 0.0)     # no lowering, no cc
    (served,) = k._kernels.values()
    assert isinstance(served, eager._Tiered) and served.build is None
    second = ops.apply(P.Conv2D, [x, w], dict(attrs))
    assert served.build is not None             # the second call started its own kernel's build
    k.settle()
    third = ops.apply(P.Conv2D, [x, w], dict(attrs))
    assert k.stats.compiled == 1 and served.compiled is not None
    plan = next(v for key, v in _table._PLANS.items() if key[0] is P.Conv2D)
    fourth = plan((x, w), dict(attrs))          # the plan now calls the per-signature kernel itself
    assert k._kernels[served.key] is served.compiled
    for y in (second, third, fourth):
        assert np.array_equal(first.asnumpy(), y.asnumpy())


def test_the_backward_pass_anticipates_only_kernels_it_would_wait_for(tiered_kernels):
    """A convolution's two backprop ops are served by generic kernels: nothing is built ahead."""
    x, w, c = Tensor(_a(1, 4, 6, 7, seed=20)), Tensor(_a(8, 4, 3, 3, seed=21)), Tensor(_a(1, 8, 4, 5, seed=22))
    loss = lambda x, w, c: (ops.apply(P.Conv2D, [x, w], dict(_conv())) * c).sum()      # noqa: E731
    gx, gw = ms.grad(loss, grad_position=(0, 1))(x, w, c)
    st = tiered_kernels.stats
    assert (st.anticipated, st.compiled, st.generic) == (0, 0, 3)
    with eager.numpy_only():
        nx, nw = ms.grad(loss, grad_position=(0, 1))(x, w, c)
    np.testing.assert_allclose(gx.asnumpy(), nx.asnumpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(gw.asnumpy(), nw.asnumpy(), rtol=1e-5, atol=1e-5)


def test_a_call_the_generic_kernel_declines_runs_the_signatures_own_kernel(tiered_kernels):
    """Conv2DBackpropInput with an infinite weight: graph mode's kernel skips the kernel rows that
    read only dY's zero padding, the generic one would make inf * 0 = NaN there; the generic
    kernel declines those values and the per-signature kernel answers, equal to graph mode."""
    i = next(j for j, (op, arrays, _) in enumerate(CASES)
             if op is P.Conv2DBackpropInput and not np.isfinite(arrays[1]).all())
    op, arrays, attrs = CASES[i]
    got = ops.apply(op, [Tensor(a) for a in arrays], dict(attrs)).asnumpy()
    want = ms.jit(lambda a, b: ops.apply(op, [a, b], dict(attrs)))(*[Tensor(a) for a in arrays]).asnumpy()
    assert tiered_kernels.stats.compiled == 1
    assert np.array_equal(got.view(np.uint8), want.view(np.uint8))


def test_a_convolution_graph_mode_runs_on_winograd_is_not_served(monkeypatch):
    """Winograd's sums differ from the direct kernel's: a shape graph mode renders with it has no
    generic kernel (its first PyNative call builds its own) at 64 and 32 bytes, and with the knob
    off it has one, as where the machine's vectors are 16 bytes (the direct kernel runs)."""
    f32 = mstype.float32
    types = (TensorType(f32, (2, 16, 24, 24)), TensorType(f32, (16, 16, 3, 3)))
    attrs = _conv(pads=(1, 1, 1, 1))
    monkeypatch.setenv("PYCOMPILE_VECTOR_BYTES", "64")
    assert eager_generic.kernel(P.Conv2D, types, attrs) is None
    monkeypatch.setenv("PYCOMPILE_VECTOR_BYTES", "32")
    assert eager_generic.kernel(P.Conv2D, types, attrs) is None
    monkeypatch.setenv("PYCOMPILE_VECTOR_BYTES", "16")
    assert eager_generic.kernel(P.Conv2D, types, attrs) is not None
    monkeypatch.setenv("PYCOMPILE_VECTOR_BYTES", "64")
    monkeypatch.setenv("PYCOMPILE_WINOGRAD", "0")
    assert eager_generic.kernel(P.Conv2D, types, attrs) is not None
