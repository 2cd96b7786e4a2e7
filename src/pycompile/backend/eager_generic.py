"""PyNative's shape-generic kernels: convolutions, their direct backprops and pooling, built into the
runtime at install (csrc/eager_generic.c), so the first call of a signature does not wait for the
C compiler.

Each kernel takes the sizes as arguments and computes every output with the arithmetic of the
C graph mode generates for that signature (backend/c/ops/conv.py, pool.py), in the same order:
this module reads the template's own choices from the same functions (`Geometry`, the rows or
tiles kernel, `_filter_direct`, `pool_windows`, `_full_windows`) and passes them on - the rows
kernel's accumulator sets, the window tables, whether a multiply-add is fused (the generated
kernels are contracted into FMAs on a CPU that has them). So a result is the per-signature
kernel's bit for bit (tests/backend/test_eager_generic.py checks it on many geometries).

`kernel(op, types, attrs)` gives the run function (inputs -> Tensor) of a signature, or None for
the signatures these kernels do not serve: other ops and dtypes, 3-D convolutions, backprops on
their im2col + BLAS path (strides > 1, LeNet's first filter gradient), other devices, options or
knobs that change the generated C. backend/eager.py decides when they run (docs/eager-kernels.md).
"""
from __future__ import annotations

import functools

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common import knobs

# the widest output row (and pooled input row) the C serves: its row buffers live on the stack
MAX_ROW = 4096


@functools.lru_cache(maxsize=None)
def _ops():
    from pycompile.ops.defs import conv, pool
    return {conv.Conv2D: _conv, conv.Conv2DBackpropInput: _backprop_input, conv.Conv2DBackpropFilter: _backprop_filter,
            pool.MaxPool: _pool, pool.AvgPool: _pool, pool.MaxPoolGrad: _pool_grad, pool.AvgPoolGrad: _pool_grad}


@functools.lru_cache(maxsize=None)
def _rt():
    from pycompile._rt import ffi, lib
    return ffi, lib


@functools.lru_cache(maxsize=None)
def fused() -> int:
    """1 when the generated convolution kernels multiply-add with FMAs here (-march=native on a CPU
    with FMA contracts them, conv.py's PC_CONTRACT_FN), so the generic kernel fuses too."""
    return int(_rt()[1].pc_gen_cpu_fma())


def served_options(options_key) -> bool:
    """Whether the options a kernel is built under give the C these kernels reproduce: the CPU
    device without the float-status register, fast paths on, no sanitizer."""
    device, *opts = options_key
    opts = dict(opts)
    return (device == "CPU" and not opts.get("float_status") and opts.get("fast_paths", True)
            and not knobs.get("PYCOMPILE_SANITIZE"))


def kernel(op, types, attrs):
    """The generic run function (inputs -> Tensor) of op on inputs of `types`, or None."""
    make = _ops().get(op)
    if make is None:
        return None
    dts = {t.dtype for t in types}
    if len(dts) != 1 or next(iter(dts)) not in (mstype.float32, mstype.float64):
        return None
    if any(d == 0 for t in types for d in t.shape):
        return None
    try:
        return make(op, types, dict(attrs))
    except (KeyError, TypeError, ValueError, IndexError):    # attributes these kernels do not read
        return None


# ---- convolutions ----------------------------------------------------------------------------------------
def _lanes(dt) -> int:
    """The logical vector's lanes (graph mode's order of the sums: backend/c/ops/vectors.py)."""
    from pycompile.backend.c.ops import vectors
    return vectors.logical_lanes(dt)


def _order(g, dt, tiles: bool) -> tuple:
    """(split, setsA, setsB): the accumulators of each output's sum, as render_rows / _row_kernel
    (chunks of up to 4 vectors, kernel columns alternating over 4 // vectors sets) or render_tiles
    (one chain) lay them out."""
    if tiles:
        return g.OW, 1, 1
    lanes = _lanes(dt)
    nv_row = -(-g.OW // lanes)
    chunk = min(nv_row, 4)
    full, tail = nv_row // chunk, nv_row % chunk
    sets_a = max(1, min(4 // chunk, g.KW))
    sets_b = max(1, min(4 // tail, g.KW)) if tail else sets_a
    return min(g.OW, full * chunk * lanes), sets_a, sets_b


def _geo(g, dt, tiles: bool) -> np.ndarray:
    split, sa, sb = _order(g, dt, tiles)
    return np.array([g.N, g.C, g.H, g.W, g.K, g.G, g.KH, g.KW, g.SH, g.SW, g.DH, g.DW, g.PH, g.PW, g.PHa, g.PWa,
                     g.OH, g.OW, split, sa, sb, fused(), _wide()], dtype=np.int64)


def _wide() -> int:
    """The generic kernels' vectors: -1 as the CPU has them (64 bytes with AVX-512, else pairs of
    32: the same sums), or as PYCOMPILE_VECTOR_BYTES forces graph mode's (1: 64 bytes, 0 narrower)."""
    forced = knobs.get("PYCOMPILE_VECTOR_BYTES")
    return -1 if not forced else int(forced >= 64)


def _conv_fn(dt):
    lib = _rt()[1]
    return lib.pc_gen_conv2d_f32 if dt is mstype.float32 else lib.pc_gen_conv2d_f64


def _servable(g) -> bool:
    return (g.sp == 2 and g.D == 1 and g.OW <= MAX_ROW and g.OH > 0 and g.OW > 0 and g.G >= 1
            and min(g.PH, g.PHa, g.PW, g.PWa) >= 0)


def _buf(a: np.ndarray, writable: bool = False):
    """A typed cffi pointer to a contiguous array's data (no copy)."""
    return _rt()[0].from_buffer(_CTYPE[a.dtype.char], a, require_writable=writable)


_CTYPE = {"f": "float[]", "d": "double[]", "q": "int64_t[]", "l": "int64_t[]", "i": "int32_t[]"}


def _call_conv(fn, geo, x: np.ndarray, w: np.ndarray, y: np.ndarray) -> None:
    rc = fn(_buf(x), _buf(w), _buf(y, True), _buf(geo))
    if rc == 2:
        raise MemoryError("the generic convolution kernel could not allocate its padded input")
    if rc != 0:
        raise ValueError("the generic convolution kernel does not serve these sizes")


def _wrap(arr):
    from pycompile.common.tensor import Tensor
    return Tensor._wrap_array(arr)


def _conv(op, types, attrs):
    from pycompile.backend.c.ops import winograd
    from pycompile.backend.c.ops.conv import Geometry
    xt, wt = types
    dt = xt.dtype
    g = Geometry(xt.shape, wt.shape, attrs)
    if not _servable(g) or winograd.applies(g, dt):
        # Winograd's sums (graph mode's kernel for those shapes) are not the direct kernel's
        return None
    tiles = not g.Kg * 2 < _lanes(dt)
    geo, fn, np_dt = _geo(g, dt, tiles), _conv_fn(dt), dt.np
    shape = (g.N, g.K, g.OH, g.OW)

    def run(inputs):
        x, w = (np.ascontiguousarray(t._data, np_dt) for t in inputs)
        y = np.empty(shape, np_dt)
        _call_conv(fn, geo, x, w, y)
        return _wrap(y)
    return run


def _backprop_input(op, types, attrs):
    """The template's direct case (stride 1, pads within the kernel's reach): a forward
    convolution of dY with the kernel flipped and its channel axes swapped."""
    from pycompile.backend.c.ops.conv import Geometry
    dyt, wt = types
    dt = dyt.dtype
    g = Geometry(tuple(attrs["input_size"]), wt.shape, attrs)
    if not (g.sp == 2 and (g.SH, g.SW) == (1, 1) and all(0 <= v <= g.DH * (g.KH - 1) for v in (g.PH, g.PHa))
            and all(0 <= v <= g.DW * (g.KW - 1) for v in (g.PW, g.PWa))):
        return None
    eq = Geometry((g.N, g.K, g.OH, g.OW), (g.C, g.Kg, g.KH, g.KW),
                  {"stride": (1, 1), "dilation": (g.DH, g.DW), "group": g.G,
                   "pads": (g.DH * (g.KH - 1) - g.PH, g.DH * (g.KH - 1) - g.PHa,
                            g.DW * (g.KW - 1) - g.PW, g.DW * (g.KW - 1) - g.PWa)})
    if not _servable(eq) or (eq.OH, eq.OW) != (g.H, g.W):
        return None
    tiles = not eq.Kg * 2 < _lanes(dt)
    geo, fn, np_dt = _geo(eq, dt, tiles), _conv_fn(dt), dt.np
    shape = (g.N, g.C, g.H, g.W)
    G, Kg, Cg, KH, KW = g.G, g.Kg, g.Cg, g.KH, g.KW

    def run(inputs):
        dy = np.ascontiguousarray(inputs[0]._data, np_dt)
        w = np.asarray(inputs[1]._data, np_dt).reshape(G, Kg, Cg, KH, KW)
        if not np.isfinite(w).all():
            # the template sums only the kernel rows that read dY, not its zero padding (train32),
            # which this kernel reads: a non-finite weight would show there as inf * 0 = NaN. The
            # caller runs the signature's own kernel instead.
            return None
        # WF[g * Cg + c][k][rs] = W[g * Kg + k][c][last - rs]: a copy, as the template's loop makes it
        wf = np.ascontiguousarray(w.transpose(0, 2, 1, 3, 4)[..., ::-1, ::-1]).reshape(G * Cg, Kg, KH, KW)
        y = np.empty(shape, np_dt)
        _call_conv(fn, geo, dy, wf, y)
        return _wrap(y)
    return run


def _backprop_filter(op, types, attrs):
    """The template's direct case (`_filter_direct`): a forward convolution of X transposed with
    dY transposed as its kernel, whose output is dW transposed (always the tile kernel)."""
    from pycompile.backend.c.ops.conv import Geometry, _filter_direct
    dyt, xt = types
    dt = xt.dtype
    g = Geometry(xt.shape, tuple(attrs["filter_size"]), attrs)
    if not _filter_direct(g, dt):
        return None
    eq = Geometry((g.C, g.N, g.H, g.W), (g.K, g.N, g.OH, g.OW),
                  {"stride": (1, 1), "dilation": (1, 1), "group": 1, "pads": (g.PH, g.PHa, g.PW, g.PWa)})
    if not _servable(eq) or (eq.OH, eq.OW) != (g.KH, g.KW):
        return None
    geo, fn, np_dt = _geo(eq, dt, True), _conv_fn(dt), dt.np
    oshape = (g.C, g.K, g.KH, g.KW)

    def run(inputs):
        dy, x = (np.asarray(t._data, np_dt) for t in inputs)
        xt_ = np.ascontiguousarray(x.transpose(1, 0, 2, 3))
        dt_ = np.ascontiguousarray(dy.transpose(1, 0, 2, 3))
        ot = np.empty(oshape, np_dt)
        _call_conv(fn, geo, xt_, dt_, ot)
        return _wrap(np.ascontiguousarray(ot.transpose(1, 0, 2, 3)))
    return run


# ---- pooling -----------------------------------------------------------------------------------------------
def _windows(attrs, x_shape):
    from pycompile.ops.defs.pool import pool_windows
    if "kernel" not in attrs or "output_size" in attrs:
        return None
    wins = pool_windows(attrs, x_shape[2:], adaptive=False)
    return [[(0, 1, 1, 1)]] * (3 - len(wins)) + wins


def _pool(op, types, attrs):
    """MaxPool / AvgPool: pool.py's `_regular_max_avg`, its tables passed as arguments."""
    (xt,) = types
    sp = xt.ndim - 2
    wins = _windows(attrs, xt.shape)
    if wins is None or sp not in (2, 3):
        return None
    D, H, W = (1,) * (3 - sp) + tuple(xt.shape[2:])
    OD, OH, OW = (len(ws) for ws in wins)
    if max(W, OW) > MAX_ROW:
        return None
    k = (1,) * (3 - sp) + tuple(attrs["kernel"])
    s = (1,) * (3 - sp) + tuple(attrs["stride"])
    d = (1,) * (3 - sp) + tuple(attrs.get("dilation") or (1,) * sp)
    pw = attrs["pads"][-2]
    lo, hi = [], []
    for j in range(k[2]):
        off = j * d[2] - pw
        lo.append(min(OW, max(0, -(-(-off) // s[2]))))
        hi.append(max(0, min(OW, (W - 1 - off) // s[2] + 1)))
    rule = op.lower.rule
    if rule not in ("max", "avg"):
        return None
    planes = xt.shape[0] * xt.shape[1]
    geo = np.array([planes, D, H, W, OD, OH, OW, k[2], s[2], d[0], d[1], pw, 0 if rule == "max" else 1,
                    attrs.get("divisor", 0) or 0, d[2]], dtype=np.int64)
    tab = np.array([x[0] for x in wins[0]] + [x[2] for x in wins[0]] + [x[3] for x in wins[0]]
                   + [x[0] for x in wins[1]] + [x[2] for x in wins[1]] + [x[3] for x in wins[1]]
                   + [x[3] for x in wins[2]] + lo + hi, dtype=np.int32)
    dt = xt.dtype
    np_dt = dt.np
    lib = _rt()[1]
    fn = lib.pc_gen_pool_f32 if dt is mstype.float32 else lib.pc_gen_pool_f64
    shape = (*xt.shape[:2], *(len(ws) for ws in wins[3 - sp:]))

    def run(inputs):
        x = np.ascontiguousarray(inputs[0]._data, np_dt)
        y = np.empty(shape, np_dt)
        if fn(_buf(x), _buf(y, True), _buf(geo), _buf(tab)) != 0:
            raise ValueError("the generic pooling kernel does not serve these sizes")
        return _wrap(y)
    return run


def _pool_grad(op, types, attrs):
    """MaxPoolGrad / AvgPoolGrad: pool.py's `_pool_grad` (whole windows row by row, else the
    window walk)."""
    from pycompile.backend.c.ops.pool import _full_windows
    xt, gt = types
    sp = xt.ndim - 2
    wins = _windows(attrs, xt.shape)
    rule = op.lower.rule
    if wins is None or sp not in (2, 3) or rule not in ("max", "avg"):
        return None
    D, H, W = (1,) * (3 - sp) + tuple(xt.shape[2:])
    OD, OH, OW = (len(ws) for ws in wins)
    if OW > MAX_ROW or tuple(gt.shape[2:]) != tuple(len(ws) for ws in wins[3 - sp:]):
        return None
    divisor = attrs.get("divisor", 0) or 0
    full = _full_windows(wins)
    head = [xt.shape[0] * xt.shape[1], D, H, W, OD, OH, OW, 0 if rule == "max" else 1, divisor, int(full is not None)]
    if full is not None:
        tail = [v for axis in full for v in axis] + [divisor or wins[0][0][3] * wins[1][0][3] * wins[2][0][3]]
    else:
        tail = [ws[0][1] for ws in wins]
    geo = np.array(head + tail, dtype=np.int64)
    tab = np.array([v for ws in wins for col in (0, 2, 3) for v in [x[col] for x in ws]], dtype=np.int32)
    dt = xt.dtype
    np_dt = dt.np
    lib = _rt()[1]
    fn = lib.pc_gen_pool_grad_f32 if dt is mstype.float32 else lib.pc_gen_pool_grad_f64
    shape = tuple(xt.shape)

    def run(inputs):
        x, g = (np.ascontiguousarray(t._data, np_dt) for t in inputs)
        dx = np.empty(shape, np_dt)
        if fn(_buf(x), _buf(g), _buf(dx, True), _buf(geo), _buf(tab)) != 0:
            raise ValueError("the generic pooling kernel does not serve these sizes")
        return _wrap(dx)
    return run
