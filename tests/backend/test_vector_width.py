"""The convolution kernels written in the machine's vectors (backend/c/ops/vectors.py): 64-byte
vectors with AVX-512, 32 with AVX2, 16 elsewhere (PYCOMPILE_VECTOR_BYTES forces one; every width
runs on any x86-64 machine, a wider one than the machine's slowly).

The order of every sum is the logical 64-byte vector's whatever the width, so graph mode gives the
same bits at 16, 32 and 64 bytes - forward row kernels (stride 1, 2, 3, dilation, the padded
backprop input), channel tiles, depthwise, the few-channel filter gradient with a last vector
that overlaps (masked lanes), float32 and float64 - and the values agree with a float64 NumPy
convolution. The C at 32 bytes holds no 64-byte vector (GCC lowered those through the stack on
an AVX2 machine: LeNet-5 ran 6.9x slower). Winograd is off here: it runs only on 64-byte vectors
(tests/backend/test_winograd.py)."""
from __future__ import annotations

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, ops
from conv_refs import dw_reference

pytestmark = pytest.mark.cc

WIDTHS = ("64", "32", "16")


def _ref(x, w, stride, pads, dilation, group):
    """float64 NumPy convolution (NCHW, OIHW)."""
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pads[0], pads[1]), (pads[2], pads[3])))
    w = w.astype(np.float64)
    n, c, h, wd = x.shape
    k, cg, kh, kw = w.shape
    oh = (h - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, k, oh, ow))
    kg = k // group
    for g in range(group):
        for r in range(kh):
            for s in range(kw):
                patch = x[:, g * cg:(g + 1) * cg, r * dilation[0]:r * dilation[0] + stride[0] * (oh - 1) + 1:stride[0],
                          s * dilation[1]:s * dilation[1] + stride[1] * (ow - 1) + 1:stride[1]]
                out[:, g * kg:(g + 1) * kg] += np.einsum("nchw,kc->nkhw", patch, w[g * kg:(g + 1) * kg, :, r, s])
    return out


# (x shape, w shape, stride, pads (top, bottom, left, right), dilation, group, dtype)
CASES = [
    ((3, 1, 32, 32), (6, 1, 5, 5), 1, (0, 0, 0, 0), 1, 1, np.float32),      # LeNet's conv1: rows, 28 = 16 + 12
    ((2, 6, 14, 14), (16, 6, 5, 5), 1, (0, 0, 0, 0), 1, 1, np.float32),     # LeNet's conv2: tiles
    ((2, 3, 40, 45), (4, 3, 3, 3), 2, (1, 1, 1, 1), 1, 1, np.float32),      # rows, stride 2 (shuffled pairs)
    ((2, 2, 20, 41), (3, 2, 3, 3), 3, (0, 0, 2, 1), 1, 1, np.float32),      # rows, stride 3 (gathered lanes)
    ((2, 4, 18, 37), (4, 4, 3, 3), 1, (2, 2, 2, 2), 2, 1, np.float32),      # rows, dilation 2
    ((2, 8, 12, 70), (8, 1, 3, 3), 1, (1, 1, 1, 1), 1, 8, np.float32),      # depthwise, 70 = 4 vectors + 6
    ((2, 24, 9, 13), (40, 24, 3, 3), 1, (1, 1, 1, 1), 1, 1, np.float32),    # tiles, 40 = 2.5 vectors of 16
    ((2, 3, 21, 23), (3, 3, 3, 3), 1, (1, 1, 0, 2), 1, 1, np.float64),      # float64 rows: 8 lanes
    ((2, 12, 10, 11), (20, 12, 3, 3), 2, (1, 1, 1, 1), 1, 1, np.float64),   # float64 tiles, stride 2
]


def _run(width, case, monkeypatch):
    xs, ws, stride, pads, dil, group, dt = case
    monkeypatch.setenv("PYCOMPILE_VECTOR_BYTES", width)
    monkeypatch.setenv("PYCOMPILE_WINOGRAD", "0")
    rng = np.random.default_rng(sum(xs) + sum(ws))
    x, w = rng.uniform(-1, 1, xs).astype(dt), rng.uniform(-1, 1, ws).astype(dt)
    oshape = _ref(x[:1], w, (stride, stride), pads, (dil, dil), group).shape[1:]
    gy = rng.uniform(-1, 1, (xs[0],) + oshape).astype(dt)

    prim = ops.Conv2D(ws[0], ws[2:], pad_mode="pad", pad=pads, stride=stride, dilation=dil, group=group)

    def conv(x, w):
        return prim(x, w)

    def loss(x, w, gy):
        return (conv(x, w) * gy).sum()

    fwd = ms.jit(conv)                  # a new function object per width: its own compile
    bwd = ms.jit(ms.grad(loss, grad_position=(0, 1)))
    y = fwd(Tensor(x), Tensor(w)).asnumpy()
    dx, dw = (g.asnumpy() for g in bwd(Tensor(x), Tensor(w), Tensor(gy)))
    src = ms.inspect(fwd, Tensor(x), Tensor(w)).c_source + ms.inspect(bwd, Tensor(x), Tensor(w), Tensor(gy)).c_source
    return (x, w, gy), (y, dx, dw), src


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}x{c[1]}s{c[2]}" for c in CASES])
def test_every_width_gives_the_same_bits(case, monkeypatch):
    runs = {width: _run(width, case, monkeypatch) for width in WIDTHS}
    (x, w, gy), outs, _ = runs["64"]
    for width in WIDTHS[1:]:
        for name, a, b in zip(("y", "dx", "dw"), outs, runs[width][1]):
            np.testing.assert_array_equal(a.view(np.uint8), b.view(np.uint8),
                                          err_msg=f"{name}: {width}-byte vectors differ from 64-byte ones")
    xs, ws, stride, pads, dil, group, dt = case
    want = _ref(x, w, (stride, stride), pads, (dil, dil), group)
    tol = 1e-5 if dt == np.float32 else 1e-12
    np.testing.assert_allclose(outs[0], want, rtol=tol, atol=tol * np.abs(want).max())


def test_the_c_is_written_in_the_chosen_width(monkeypatch):
    """At 32 bytes no 64-byte vector type is left in the convolution kernels (forward rows and
    tiles, and the filter gradient of few channels); at 64 they are 64-byte ones."""
    case = ((2, 1, 20, 30), (6, 1, 5, 5), 1, (0, 0, 0, 0), 1, 1, np.float32)    # rows + filter rows
    tiles = ((2, 6, 14, 14), (16, 6, 5, 5), 1, (0, 0, 0, 0), 1, 1, np.float32)
    for c in (case, tiles):
        src32 = _run("32", c, monkeypatch)[2]
        src64 = _run("64", c, monkeypatch)[2]
        assert "pc_v8f" in src32 and "pc_v16f" not in src32
        assert "pc_v16f" in src64 and "pc_v8f" not in src64


def test_the_filter_gradient_of_few_channels_matches_float64(monkeypatch):
    """dW of LeNet's first layer (6 channels: vectors of pixels, the last one overlapping by 4 of 16
    lanes, masked) at every width, against float64."""
    case = ((3, 1, 32, 32), (6, 1, 5, 5), 1, (0, 0, 0, 0), 1, 1, np.float32)
    for width in WIDTHS:
        (x, w, gy), (_, _, dw), src = _run(width, case, monkeypatch)
        assert "_fr(" in src, "the filter gradient did not run on pixel vectors"
        want = dw_reference(gy, x, 5, 5, (0, 0, 0, 0))
        np.testing.assert_allclose(dw, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())
