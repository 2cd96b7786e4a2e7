"""Pooling: max and average pooling over 2 or 3 spatial axes (1-D pooling is 2-D pooling of an
(N, C, 1, L) view, as in MindSpore), with explicit padding, dilation (max) and ceil mode;
adaptive average / max pooling; and the gradient ops that route a cotangent back.

Attributes are normalized by the functional layer: `kernel`, `stride`, `dilation` one int per
spatial axis, `pads` (before, after) per axis, `ceil_mode`; average pooling adds
`count_include_pad` and `divisor` (0: the window's count). MindSpore's pad_mode 'same' becomes
explicit pads with count_include_pad False (padding never counts), 'valid' no pads.

Every window is described per axis by `windows(...)`: for each output index, the positions of
the input it reads (clipped to the input) and, for averages, its divisor along that axis; a
window's divisor is the product over axes, so eager code and the C template (backend/c/ops/pool.py)
compute the same numbers from the same tables.
"""
from __future__ import annotations

import itertools

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import TensorType
from pycompile.ops._table import OpDef, Kind, OpTypeError, OpValueError, defop, describe, tensor_arg
from pycompile.ops.defs import pool_parts as _parts
from pycompile.ops.lowering import Template


def pool_out_size(n, k, s, d, before, after, ceil_mode) -> int:
    span = n + before + after - d * (k - 1) - 1
    if not ceil_mode:
        return span // s + 1
    o = -(-span // s) + 1
    if (o - 1) * s >= n + before:      # the last window must start inside the input or its left padding
        o -= 1
    return o


def axis_windows(n, k, s, d, before, o, include_pad, after):
    """For each of `o` outputs along an axis: (first, step, count) of the input positions read
    (clipped to [0, n)), and the divisor counting pads (include_pad) or not."""
    wins = []
    for i in range(o):
        start = i * s - before
        pos = [start + j * d for j in range(k)]
        valid = [p for p in pos if 0 <= p < n]
        if include_pad:
            # PyTorch / MindSpore: the window clipped to the padded extent (ceil mode can overrun it)
            div = len([p for p in pos if p < n + after])
        else:
            div = len(valid)
        first = valid[0] if valid else 0
        wins.append((first, d, len(valid), div))
    return wins


def adaptive_windows(n, o):
    """Adaptive pooling: output i reads [floor(i n / o), ceil((i + 1) n / o))."""
    wins = []
    for i in range(o):
        a, b = (i * n) // o, -(-((i + 1) * n) // o)
        wins.append((a, 1, b - a, b - a))
    return wins


def pool_windows(attrs, in_sp, adaptive=False) -> list:
    """Per spatial axis, the list of (first, step, count, divisor) of every output index."""
    if adaptive:
        return [adaptive_windows(n, o) for n, o in zip(in_sp, attrs["output_size"])]
    out = []
    for i, n in enumerate(in_sp):
        k, s, d = attrs["kernel"][i], attrs["stride"][i], attrs.get("dilation", (1,) * len(in_sp))[i]
        b, a = attrs["pads"][2 * i], attrs["pads"][2 * i + 1]
        o = pool_out_size(n, k, s, d, b, a, attrs.get("ceil_mode", False))
        out.append(axis_windows(n, k, s, d, b, o, attrs.get("count_include_pad", True), a))
    return out


_parts.use_windows(pool_windows)


def _attrs(kernel, stride, pads, dilation=None, ceil_mode=False, **rest):
    sp = len(kernel)
    return dict(kernel=tuple(kernel), stride=tuple(stride or kernel), pads=tuple(pads or (0,) * (2 * sp)),
                dilation=tuple(dilation or (1,) * sp), ceil_mode=bool(ceil_mode), **rest)


def _check_input(name, x, sp):
    if x.ndim != sp + 2:
        raise OpValueError(f"For primitive[{name}], the length of input must be equal to {sp + 2} , but got {x.ndim}.")
    if x.dtype not in (mstype.float32, mstype.float64):
        # float16 pools in float32: the functional layer casts around the op
        raise OpTypeError(f"For '{name}', the input must be a float32 or float64 tensor, but got {describe(x)}")


def _out_shape(name, x, attrs, adaptive=False):
    sp = len(attrs["output_size"]) if adaptive else len(attrs["kernel"])
    _check_input(name, x, sp)
    if adaptive:
        spatial = tuple(attrs["output_size"])
    else:
        spatial = tuple(len(w) for w in pool_windows(attrs, x.shape[2:]))
    shape = (*x.shape[:2], *spatial)
    if any(d <= 0 for d in spatial):
        raise OpValueError(
            f"For '{name}', the each element of the output shape must be larger than 0, but got output shape: "
            f"{list(shape)}. The input shape: {list(x.shape)}, kernel size: {list(attrs.get('kernel', ()))}, "
            f"strides: {list(attrs.get('stride', ()))}.")
    return shape


# ---- NumPy ------------------------------------------------------------------------------------------
def _gather_axis(x, axis, idx):
    return np.take(x, idx, axis=axis)


def pool_eager(x, mode, wins, divisor=0, empty=0):
    """Max / average over the windows `wins` (pool_windows). Works axis by axis on index
    tables: for each window offset j, the input position of every output (or -1). Max also
    gives each window's argmax: the first of its largest values (a NaN winning), the first
    position read for a window of -inf (as MindSpore 2.10's kernels route its gradient and report
    its index), `empty` for a window wholly in the padding (0 for MaxPoolArgmax, as the C
    template; -1 for the gradient, which then routes nothing)."""
    sp = len(wins)
    ct = np.float32 if x.dtype == np.float16 else x.dtype
    xf = x.astype(ct, copy=False)
    kmax = [max((w[2] for w in ws), default=0) for ws in wins]
    out_sp = [len(ws) for ws in wins]
    if mode == "max":
        best = np.full(x.shape[:2] + tuple(out_sp), -np.inf, ct)
        arg = np.full(best.shape, empty, np.int64)
        nan = np.zeros(best.shape, bool)
        seen = np.zeros(best.shape, bool)
    else:
        acc = np.zeros(x.shape[:2] + tuple(out_sp), ct)
    strides = [int(np.prod(x.shape[2 + i + 1:])) for i in range(sp)]
    for offs in itertools.product(*(range(k) for k in kmax)):
        v = xf
        valid = np.ones(out_sp, bool)
        flat = np.zeros(out_sp, np.int64)
        for i, (ws, j) in enumerate(zip(wins, offs)):
            pos = np.array([w[0] + j * w[1] for w in ws], np.int64)
            ok = np.array([j < w[2] for w in ws])
            v = _gather_axis(v, 2 + i, np.where(ok, pos, 0))
            shape = [1] * sp
            shape[i] = len(ws)
            valid = valid & ok.reshape(shape)
            flat = flat + (np.where(ok, pos, 0) * strides[i]).reshape(shape)
        if mode == "max":
            isnan = np.isnan(v) & valid
            take = valid & ((v > best) | isnan | ~seen) & ~nan
            best = np.where(take, v, best)
            arg = np.where(take, flat, arg)
            nan |= isnan
            seen |= valid
        else:
            acc = acc + np.where(valid, v, 0)
    if mode == "max":
        return best.astype(x.dtype), arg
    return (acc / divisors(wins, divisor, ct)).astype(x.dtype)


def divisors(wins, divisor, dtype):
    """Each window's divisor: the product of its per-axis counts, or the override."""
    out_sp = [len(ws) for ws in wins]
    if divisor:
        return np.full(out_sp, float(divisor), dtype)
    div = np.ones(out_sp, dtype)
    for i, ws in enumerate(wins):
        shape = [1] * len(wins)
        shape[i] = len(ws)
        div = div * np.array([w[3] for w in ws], dtype).reshape(shape)
    return div


def pool_grad_eager(dout, x_shape, mode, wins, argmax=None, divisor=0):
    """The cotangent of a pooling routed back: to each window's argmax (max) or spread over the
    window divided by its divisor (average)."""
    ct = np.float32 if dout.dtype == np.float16 else dout.dtype
    nc = int(np.prod(x_shape[:2]))
    dx = np.zeros((nc, int(np.prod(x_shape[2:]))), ct)
    d = dout.astype(ct).reshape(nc, -1)
    if mode == "max":      # a negative argmax (a window wholly in the padding) routes nothing
        arg = argmax.reshape(nc, -1)
        keep = arg >= 0
        np.add.at(dx, (np.broadcast_to(np.arange(nc)[:, None], arg.shape)[keep], arg[keep]), d[keep])
        return dx.reshape(x_shape).astype(dout.dtype)
    sp = len(wins)
    out_sp = [len(ws) for ws in wins]
    g = d.reshape((nc,) + tuple(out_sp)) / divisors(wins, divisor, ct)
    strides = [int(np.prod(x_shape[2 + i + 1:])) for i in range(sp)]
    kmax = [max((w[2] for w in ws), default=0) for ws in wins]
    for offs in itertools.product(*(range(k) for k in kmax)):
        valid = np.ones(out_sp, bool)
        flat = np.zeros(out_sp, np.int64)
        for i, (ws, j) in enumerate(zip(wins, offs)):
            pos = np.array([w[0] + j * w[1] for w in ws], np.int64)
            ok = np.array([j < w[2] for w in ws])
            shape = [1] * sp
            shape[i] = len(ws)
            valid = valid & ok.reshape(shape)
            flat = flat + (np.where(ok, pos, 0) * strides[i]).reshape(shape)
        np.add.at(dx, (np.arange(nc)[:, None], np.broadcast_to(flat, out_sp).reshape(1, -1)),
                  np.where(valid, g, 0).reshape(nc, -1))
    return dx.reshape(x_shape).astype(dout.dtype)


# ---- ops --------------------------------------------------------------------------------------------
_POOL = {"kernel": (), "stride": (), "pads": (), "dilation": (), "ceil_mode": False}
_AVG = dict(_POOL, count_include_pad=True, divisor=0)


def _max_infer(types, kernel=(), stride=(), pads=(), dilation=(), ceil_mode=False):
    x = tensor_arg("MaxPool", types[0])
    return TensorType(x.dtype, _out_shape("MaxPool", x, _attrs(kernel, stride, pads, dilation, ceil_mode)))


def _max_eager(x, **attrs):
    return pool_eager(x, "max", pool_windows(_attrs(**attrs), x.shape[2:]))[0]


def _argmax_infer(types, kernel=(), stride=(), pads=(), dilation=(), ceil_mode=False):
    x = tensor_arg("MaxPoolArgmax", types[0])
    shape = _out_shape("MaxPoolArgmax", x, _attrs(kernel, stride, pads, dilation, ceil_mode))
    return TensorType(mstype.int64, shape)


def _argmax_eager(x, **attrs):
    return pool_eager(x, "max", pool_windows(_attrs(**attrs), x.shape[2:]))[1]


def _avg_eager(x, divisor=0, **attrs):
    return pool_eager(x, "avg", pool_windows(_attrs(**attrs), x.shape[2:]), divisor)


def _avg_infer(types, kernel=(), stride=(), pads=(), dilation=(), ceil_mode=False, count_include_pad=True,
               divisor=0):
    x = tensor_arg("AvgPool", types[0])
    a = _attrs(kernel, stride, pads, dilation, ceil_mode, count_include_pad=count_include_pad)
    return TensorType(x.dtype, _out_shape("AvgPool", x, a))


def _grad_infer(name):
    def infer(types, kernel=(), stride=(), pads=(), dilation=(), ceil_mode=False, count_include_pad=True,
              divisor=0, output_size=()):
        x = tensor_arg(name, types[0])
        dout = tensor_arg(name, types[1], "dout")
        if output_size:
            want = _out_shape(name, x, {"output_size": tuple(output_size)}, adaptive=True)
        else:
            want = _out_shape(name, x, _attrs(kernel, stride, pads, dilation, ceil_mode,
                                              count_include_pad=count_include_pad))
        if dout.shape != want or dout.dtype is not x.dtype:
            raise OpValueError(f"For '{name}', dout must be a {x.dtype} tensor of the pooled shape {list(want)}, "
                               f"but got {describe(dout)}")
        return TensorType(dout.dtype, x.shape)
    return infer


def _max_grad_eager(x, dout, **attrs):
    a = _attrs(**attrs)
    _, arg = pool_eager(x, "max", pool_windows(a, x.shape[2:]), empty=-1)
    return pool_grad_eager(dout, x.shape, "max", None, arg)


def _avg_grad_eager(x, dout, divisor=0, **attrs):
    a = _attrs(**attrs)
    return pool_grad_eager(dout, x.shape, "avg", pool_windows(a, x.shape[2:]), divisor=divisor)


def _adaptive_infer(name, argmax):
    def infer(types, output_size=()):
        x = tensor_arg(name, types[0])
        shape = _out_shape(name, x, {"output_size": tuple(output_size)}, adaptive=True)
        return TensorType(mstype.int64 if argmax else x.dtype, shape)
    return infer


def _adaptive_eager(mode, argmax=False):
    def eager(x, output_size=()):
        out = pool_eager(x, mode, pool_windows({"output_size": output_size}, x.shape[2:], adaptive=True))
        return out[1 if argmax else 0] if mode == "max" else out
    return eager


def _adaptive_grad_eager(mode):
    def eager(x, dout, output_size=()):
        wins = pool_windows({"output_size": output_size}, x.shape[2:], adaptive=True)
        if mode == "max":
            return pool_grad_eager(dout, x.shape, "max", None, pool_eager(x, "max", wins)[1])
        return pool_grad_eager(dout, x.shape, "avg", wins)
    return eager


MaxPool = defop("MaxPool", ("x",), attrs=dict(_POOL), infer=_max_infer, eager=_max_eager, kind=Kind.REDUCE,
                batch="pool", eager_kernel=True, lower=Template("pool", rule="max"))
MaxPoolArgmax = defop("MaxPoolArgmax", ("x",), attrs=dict(_POOL), infer=_argmax_infer, eager=_argmax_eager,
                      kind=Kind.REDUCE, batch="pool", eager_kernel=True, lower=Template("pool", rule="argmax"),
                      decompose=_parts.max_pool_parts(True, False), fast_path=True)
AvgPool = defop("AvgPool", ("x",), attrs=dict(_AVG), infer=_avg_infer, eager=_avg_eager, kind=Kind.REDUCE,
                batch="pool", eager_kernel=True, lower=Template("pool", rule="avg"))
MaxPoolGrad = defop("MaxPoolGrad", ("x", "dout"), attrs=dict(_POOL), infer=_grad_infer("MaxPoolGrad"),
                    eager=_max_grad_eager, kind=Kind.REDUCE, batch="pool_grad", eager_kernel=True,
                    lower=Template("pool_grad", rule="max"), decompose=_parts.max_grad_parts(False), fast_path=True)
AvgPoolGrad = defop("AvgPoolGrad", ("x", "dout"), attrs=dict(_AVG), infer=_grad_infer("AvgPoolGrad"),
                    eager=_avg_grad_eager, kind=Kind.REDUCE, batch="pool_grad", eager_kernel=True,
                    lower=Template("pool_grad", rule="avg"), decompose=_parts.avg_grad_parts(False), fast_path=True)
AdaptiveAvgPool = defop("AdaptiveAvgPool", ("x",), attrs={"output_size": ()},
                        infer=_adaptive_infer("AdaptiveAvgPool2D", False), eager=_adaptive_eager("avg"),
                        kind=Kind.REDUCE, batch="pool", lower=Template("pool", rule="adaptive_avg"),
                        decompose=_parts.adaptive_avg_parts, fast_path=True)
AdaptiveMaxPool = defop("AdaptiveMaxPool", ("x",), attrs={"output_size": ()},
                        infer=_adaptive_infer("AdaptiveMaxPool2D", False), eager=_adaptive_eager("max"),
                        kind=Kind.REDUCE, batch="pool", lower=Template("pool", rule="adaptive_max"),
                        decompose=_parts.max_pool_parts(False, True), fast_path=True)
AdaptiveMaxPoolArgmax = defop("AdaptiveMaxPoolArgmax", ("x",), attrs={"output_size": ()},
                              infer=_adaptive_infer("AdaptiveMaxPool2D", True), eager=_adaptive_eager("max", True),
                              kind=Kind.REDUCE, batch="pool", lower=Template("pool", rule="adaptive_argmax"),
                              decompose=_parts.max_pool_parts(True, True), fast_path=True)
AdaptiveAvgPoolGrad = defop("AdaptiveAvgPoolGrad", ("x", "dout"), attrs={"output_size": ()},
                            infer=_grad_infer("AdaptiveAvgPoolGrad"), eager=_adaptive_grad_eager("avg"),
                            kind=Kind.REDUCE, batch="pool_grad", lower=Template("pool_grad", rule="adaptive_avg"),
                            decompose=_parts.avg_grad_parts(True), fast_path=True)
AdaptiveMaxPoolGrad = defop("AdaptiveMaxPoolGrad", ("x", "dout"), attrs={"output_size": ()},
                            infer=_grad_infer("AdaptiveMaxPoolGrad"), eager=_adaptive_grad_eager("max"),
                            kind=Kind.REDUCE, batch="pool_grad", lower=Template("pool_grad", rule="adaptive_max"),
                            decompose=_parts.max_grad_parts(True), fast_path=True)


# the ops this module declares (what `pycompile.ops.prims` re-exports)
__all__ = [_n for _n, _v in list(globals().items()) if isinstance(_v, OpDef)]
