"""Conv2DBackpropFilter's direct kernel (ops/c/conv.py `_backprop_filter_direct`): with stride and
dilation 1, one group and enough output channels, dW is rendered as a forward convolution of X
transposed with dY transposed, on the direct tile kernel, instead of a BLAS product per image.
The values agree with a float64 NumPy reference for plain, padded, float64 and narrow (K = 6:
still im2col + BLAS) geometries, and LeNet-5's second layer takes the direct path (the C calls
no GEMM). The kernels are PyNative's (backend/eager.py), the same C graph mode compiles."""
from __future__ import annotations

import numpy as np
import pytest

import pycompile as ms
from pycompile.backend import eager
from pycompile.ops import _table
from pycompile.ops import prims as P
from conv_refs import dw_reference
from eager_install import kernels_installed


@pytest.fixture(autouse=True, scope="module")
def _kernels_installed():
    """The suite runs PyNative on NumPy (tests/conftest.py): without this, `apply` below compared
    NumPy's dW with the reference, not the kernel's."""
    with kernels_installed():
        yield


CASES = [
    # (dY shape, X shape, filter shape, pads, dtype, direct path?)
    ((4, 16, 10, 10), (4, 6, 14, 14), (16, 6, 5, 5), (0, 0, 0, 0), np.float32, True),    # LeNet's conv2
    ((2, 8, 7, 5), (2, 3, 6, 5), (8, 3, 3, 2), (1, 2, 0, 1), np.float32, True),           # padded, 8 channels
    ((3, 8, 5, 5), (3, 2, 7, 7), (8, 2, 3, 3), (0, 0, 0, 0), np.float64, True),           # float64: 8 lanes
    ((2, 6, 8, 8), (2, 1, 12, 12), (6, 1, 5, 5), (0, 0, 0, 0), np.float32, False),        # LeNet's conv1: BLAS
]


def _kernel_of(op, inputs, attrs):
    """The Compiled kernel PyNative runs for this call (None: it runs NumPy)."""
    types = _table.input_types(op, inputs)
    plan = eager.KERNELS.plan(op, types, op.infer(types, **attrs), attrs, None)
    return getattr(plan, "kernel", None)


@pytest.mark.parametrize("dy_shape,x_shape,w_shape,pads,dt,direct", CASES)
def test_backprop_filter_matches_reference(dy_shape, x_shape, w_shape, pads, dt, direct):
    # this module is marked `cc` (it imports the eager backend): a disabled kernel store is a failure
    assert not eager.KERNELS.disabled, f"PyNative kernels are off in this process: {eager.KERNELS.disabled}"
    rng = np.random.default_rng(sum(dy_shape))
    dy = rng.uniform(-1, 1, dy_shape).astype(dt)
    x = rng.uniform(-1, 1, x_shape).astype(dt)
    attrs = {"stride": (1, 1), "dilation": (1, 1), "pads": pads, "group": 1, "filter_size": w_shape}
    inputs = [ms.Tensor(dy), ms.Tensor(x)]
    got = _table.apply(P.Conv2DBackpropFilter, inputs, attrs).asnumpy()
    want = dw_reference(dy, x, w_shape[2], w_shape[3], pads)
    tol = 1e-5 if dt is np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.abs(want).max())
    kernel = _kernel_of(P.Conv2DBackpropFilter, inputs, attrs)
    assert kernel is not None
    # the direct path multiplies on the tile kernel; the other one calls BLAS per image
    assert ("gemm" not in kernel.report.c_source) is direct
