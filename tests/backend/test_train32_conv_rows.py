"""The row kernel of the direct convolution (backend/c/ops/conv.py `render_rows`) after issue 32
item 4 (branch train32):

* one call computes a block of kc output channels, loading each input vector once for all of them
  (LeNet's first layer and Conv2DBackpropInput of its second: 6 channels);
* Conv2DBackpropInput, run as a forward convolution of dY padded by k - 1 - pad, sums for each
  output row only the kernel rows that read dY, not its zero padding (~30 % of LeNet's row work).

Both keep every output element's sequence of multiply-adds, so the bits are those of the kernel
without them: a block of channels equals the same convolution with one channel per call (the
input repeated per group: Kg = 1), and the row-skipping backprop equals the forward convolution
of dY padded with zeros by NumPy (which reads every padding row). Values also agree with a float64
NumPy reference. The kernels are PyNative's (backend/eager.py): the C graph mode compiles."""
from __future__ import annotations

import numpy as np
import pytest

import pycompile as ms
from pycompile.backend import eager
from pycompile.ops import _table
from pycompile.ops import prims as P
from conv_refs import dw_reference
from eager_install import kernels_installed

pytestmark = pytest.mark.cc


@pytest.fixture(autouse=True, scope="module")
def _kernels_installed():
    """The suite runs PyNative on NumPy (tests/conftest.py); this file tests the kernels."""
    with kernels_installed():
        yield


def _kernel_source(op, inputs, attrs) -> str:
    types = _table.input_types(op, inputs)
    plan = eager.KERNELS.plan(op, types, op.infer(types, **attrs), attrs, None)
    return plan.kernel.report.c_source


def _conv(x, w, pads=(0, 0, 0, 0), dilation=(1, 1), group=1):
    attrs = {"stride": (1, 1), "dilation": dilation, "pads": pads, "group": group}
    return _table.apply(P.Conv2D, [ms.Tensor(x), ms.Tensor(w)], attrs).asnumpy()


def _dx_reference(dy, w, x_shape, pads, dilation, group):
    """dX[n, c, ih, iw] += dY[n, k, oh, ow] * W[k, c, r, s] where ih = oh - pt + r * dh (float64)."""
    pt, pb, pl, pr = pads
    dh, dw = dilation
    n, c, h, wd = x_shape
    k, cg, kh, kw = w.shape
    kg = k // group
    dxp = np.zeros((n, c, h + pt + pb, wd + pl + pr))
    oh, ow = dy.shape[2:]
    for gi in range(group):
        for r in range(kh):
            for s in range(kw):
                dxp[:, gi * cg:(gi + 1) * cg, r * dh:r * dh + oh, s * dw:s * dw + ow] += np.einsum(
                    "nkhw,kc->nchw", dy[:, gi * kg:(gi + 1) * kg].astype(np.float64),
                    w[gi * kg:(gi + 1) * kg, :, r, s].astype(np.float64))
    return dxp[:, :, pt:pt + h, pl:pl + wd]


BPI_CASES = [
    # (X shape, W shape, pads, dilation, group, dtype)
    ((4, 6, 14, 14), (16, 6, 5, 5), (0, 0, 0, 0), (1, 1), 1, np.float32),     # LeNet's conv2
    ((2, 4, 7, 11), (6, 2, 3, 3), (0, 3, 1, 1), (2, 1), 2, np.float64),       # pads, dilation, 2 groups, float64
]


@pytest.mark.parametrize("x_shape,w_shape,pads,dilation,group,dt", BPI_CASES)
def test_backprop_input_skips_padding_rows_with_the_same_bits(x_shape, w_shape, pads, dilation, group, dt):
    assert not eager.KERNELS.disabled, f"PyNative kernels are off in this process: {eager.KERNELS.disabled}"
    rng = np.random.default_rng(sum(x_shape) + sum(w_shape))
    kh, kw = w_shape[2:]
    oh = x_shape[2] + pads[0] + pads[1] - dilation[0] * (kh - 1)
    ow = x_shape[3] + pads[2] + pads[3] - dilation[1] * (kw - 1)
    dy = rng.uniform(-1, 1, (x_shape[0], w_shape[0], oh, ow)).astype(dt)
    w = rng.uniform(-1, 1, w_shape).astype(dt)
    attrs = {"stride": (1, 1), "dilation": dilation, "pads": pads, "group": group, "input_size": x_shape}
    inputs = [ms.Tensor(dy), ms.Tensor(w)]
    got = _table.apply(P.Conv2DBackpropInput, inputs, attrs).asnumpy()
    want = _dx_reference(dy, w, x_shape, pads, dilation, group)
    tol = 1e-5 if dt is np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.abs(want).max())
    # the same sums over an explicitly padded dY: the flipped kernel, channel axes swapped per group
    eh, ew = dilation[0] * (kh - 1), dilation[1] * (kw - 1)
    dyp = np.pad(dy, ((0, 0), (0, 0), (eh - pads[0], eh - pads[1]), (ew - pads[2], ew - pads[3])))
    kg, cg = w_shape[0] // group, w_shape[1]
    wf = np.concatenate([w[gi * kg:(gi + 1) * kg, :, ::-1, ::-1].transpose(1, 0, 2, 3) for gi in range(group)])
    same = _conv(dyp, np.ascontiguousarray(wf), dilation=dilation, group=group)
    assert same.shape == got.shape and cg * group == x_shape[1]
    np.testing.assert_array_equal(got.view(np.uint8), same.view(np.uint8))
    assert "long r0, long r1" in _kernel_source(P.Conv2DBackpropInput, inputs, attrs)


@pytest.mark.parametrize("x_shape,w_shape,pads", [
    ((8, 1, 32, 32), (6, 1, 5, 5), (0, 0, 0, 0)),         # LeNet's conv1: 2 vectors a row, 6 channels a call
    ((2, 1, 6, 72), (4, 1, 3, 4), (1, 2, 0, 3)),          # padded, 4 + 1 vectors a row (a tail kernel)
])
def test_a_block_of_channels_has_the_bits_of_one_channel_a_call(x_shape, w_shape, pads, monkeypatch):
    monkeypatch.setenv("PYCOMPILE_VECTOR_BYTES", "64")   # AVX-512's 32 registers hold k channels' sums
    rng = np.random.default_rng(x_shape[2])
    x = rng.uniform(-1, 1, x_shape).astype(np.float32)
    w = rng.uniform(-1, 1, w_shape).astype(np.float32)
    got = _conv(x, w, pads)
    k = w_shape[0]
    one = _conv(np.repeat(x, k, axis=1), w, pads, group=k)     # Kg = 1: one channel a call, same sums
    np.testing.assert_array_equal(got.view(np.uint8), one.view(np.uint8))
    src = _kernel_source(P.Conv2D, [ms.Tensor(x), ms.Tensor(w)],
                         {"stride": (1, 1), "dilation": (1, 1), "pads": pads, "group": 1})
    assert f"a0_0_{k - 1}" in src          # the row kernel holds k channels' accumulators


@pytest.mark.parametrize("x_shape,w_shape,pads,dt", [
    ((4, 1, 32, 32), (6, 1, 5, 5), (0, 0, 0, 0), np.float32),     # LeNet's conv1: 28 = 16 + 12 pixels a row
    ((2, 3, 9, 20), (4, 3, 3, 3), (1, 1, 0, 2), np.float32),      # padded, a last vector overlapping by 12
    ((2, 2, 7, 12), (3, 2, 2, 2), (0, 0, 0, 0), np.float64),      # float64: 8 lanes, 11 = 8 + 3
])
def test_backprop_filter_of_few_channels_runs_on_pixel_vectors(x_shape, w_shape, pads, dt):
    rng = np.random.default_rng(sum(x_shape))
    kh, kw = w_shape[2:]
    oh, ow = x_shape[2] + pads[0] + pads[1] - kh + 1, x_shape[3] + pads[2] + pads[3] - kw + 1
    dy = rng.uniform(-1, 1, (x_shape[0], w_shape[0], oh, ow)).astype(dt)
    x = rng.uniform(-1, 1, x_shape).astype(dt)
    attrs = {"stride": (1, 1), "dilation": (1, 1), "pads": pads, "group": 1, "filter_size": w_shape}
    inputs = [ms.Tensor(dy), ms.Tensor(x)]
    got = _table.apply(P.Conv2DBackpropFilter, inputs, attrs).asnumpy()
    want = dw_reference(dy, x, kh, kw, pads)
    tol = 1e-5 if dt is np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.abs(want).max())
    # one infinity in a column the last vector's masked (overlapping) lanes read: each dW it
    # reaches gets one inf * dY term, so +-inf; a masked lane's inf * 0 would make it NaN
    lanes = 16 if dt is np.float32 else 8
    xi = x.copy()
    xi[0, 0, 1, ow - lanes + 1 - pads[2]] = np.inf
    got = _table.apply(P.Conv2DBackpropFilter, [ms.Tensor(dy), ms.Tensor(xi)], attrs).asnumpy()
    want = dw_reference(dy, xi, kh, kw, pads)
    assert np.isinf(want).any() and not np.isnan(want).any()
    np.testing.assert_array_equal(got[np.isinf(want)], want[np.isinf(want)])
    np.testing.assert_allclose(got[np.isfinite(want)], want[np.isfinite(want)], rtol=tol, atol=tol * np.abs(want[np.isfinite(want)]).max())
    src = _kernel_source(P.Conv2DBackpropFilter, inputs, attrs)
    assert "_fr(" in src and "gemm" not in src
