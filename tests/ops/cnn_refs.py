"""NumPy references of the CNN family's ops (convolutions, pooling, batch statistics,
resampling, random ops) and the cases built on them, shared by the eager specs
(op_specs_cnn.py) and the compiled tests.

The references are written here from the operations' definitions - one output at a time, with
explicit windows - never with pycompile's own eager code. The random ops' reference is an
independent scalar Philox-4x32-10 (checked against Random123's known-answer vectors in
test_random.py).
"""
from __future__ import annotations

import itertools
import math

import numpy as np

F32, F64, I64 = np.float32, np.float64, np.int64

import pycompile as ms
from pycompile import ops
from pycompile.ops import OPS


def _a(*shape, dtype=F32, seed=0, lo=-1.0, hi=1.0):
    return np.random.default_rng(seed).uniform(lo, hi, shape).astype(dtype)


def op(name, **attrs):
    return lambda *xs: ops.apply(OPS[name], list(xs), attrs)


# ---- convolution ---------------------------------------------------------------------------------------
def ref_conv(x, w, stride, dilation, pads, group):
    """out[n, k, o...] = sum over c in k's group and kernel offsets of w * x(padded)."""
    sp = x.ndim - 2
    xp = np.pad(x.astype(np.float64), [(0, 0), (0, 0)] + [(pads[2 * i], pads[2 * i + 1]) for i in range(sp)])
    n, c = x.shape[:2]
    k = w.shape[0]
    cg, kg = c // group, k // group
    ks = w.shape[2:]
    out_sp = [(xp.shape[2 + i] - dilation[i] * (ks[i] - 1) - 1) // stride[i] + 1 for i in range(sp)]
    out = np.zeros((n, k, *out_sp))
    for o in itertools.product(*(range(s) for s in out_sp)):
        win = tuple(slice(o[i] * stride[i], o[i] * stride[i] + dilation[i] * (ks[i] - 1) + 1, dilation[i])
                    for i in range(sp))
        for kk in range(k):
            g = kk // kg
            patch = xp[(slice(None), slice(g * cg, (g + 1) * cg)) + win]
            out[(slice(None), kk) + o] = np.tensordot(patch, w[kk].astype(np.float64), axes=sp + 1)
    return out.astype(x.dtype)


def ref_conv_input_grad(dy, w, input_size, stride, dilation, pads, group):
    """The transpose of ref_conv in x: every output's cotangent times the weights, added back
    into the window it read."""
    sp = dy.ndim - 2
    padded = [input_size[2 + i] + pads[2 * i] + pads[2 * i + 1] for i in range(sp)]
    dx = np.zeros((input_size[0], input_size[1], *padded))
    c = input_size[1]
    k = w.shape[0]
    cg, kg = c // group, k // group
    ks = w.shape[2:]
    for o in itertools.product(*(range(s) for s in dy.shape[2:])):
        win = tuple(slice(o[i] * stride[i], o[i] * stride[i] + dilation[i] * (ks[i] - 1) + 1, dilation[i])
                    for i in range(sp))
        for kk in range(k):
            g = kk // kg
            dx[(slice(None), slice(g * cg, (g + 1) * cg)) + win] += (
                dy[(slice(None), kk) + o].astype(np.float64)[(slice(None),) + (None,) * (sp + 1)] * w[kk])
    crop = (slice(None), slice(None)) + tuple(slice(pads[2 * i], pads[2 * i] + input_size[2 + i]) for i in range(sp))
    return dx[crop].astype(dy.dtype)


def ref_conv_filter_grad(dy, x, filter_size, stride, dilation, pads, group):
    sp = x.ndim - 2
    xp = np.pad(x.astype(np.float64), [(0, 0), (0, 0)] + [(pads[2 * i], pads[2 * i + 1]) for i in range(sp)])
    dw = np.zeros(filter_size)
    k, cg = filter_size[:2]
    kg = k // group
    ks = filter_size[2:]
    for o in itertools.product(*(range(s) for s in dy.shape[2:])):
        win = tuple(slice(o[i] * stride[i], o[i] * stride[i] + dilation[i] * (ks[i] - 1) + 1, dilation[i])
                    for i in range(sp))
        for kk in range(k):
            g = kk // kg
            patch = xp[(slice(None), slice(g * cg, (g + 1) * cg)) + win]
            dw[kk] += np.tensordot(dy[(slice(None), kk) + o].astype(np.float64), patch, axes=1)
    return dw.astype(x.dtype)


# (x shape, w shape, stride, dilation, pads, group): strides, dilations, uneven pads, groups,
# depthwise, a channel count that is no multiple of a vector, a 3-D convolution
CONV_GRID = [
    ((2, 3, 7, 6), (4, 3, 3, 3), (1, 1), (1, 1), (1, 1, 1, 1), 1),
    ((1, 4, 8, 9), (6, 2, 3, 2), (2, 1), (1, 2), (0, 1, 2, 0), 2),
    ((2, 4, 6, 7), (4, 1, 3, 3), (1, 2), (2, 1), (2, 2, 1, 1), 4),
    ((1, 2, 9, 5), (20, 2, 1, 3), (3, 2), (1, 1), (0, 0, 1, 1), 1),
    ((1, 3, 11, 12), (17, 3, 5, 5), (2, 2), (1, 1), (2, 2, 2, 2), 1),
    ((1, 2, 7, 13), (3, 2, 2, 3), (2, 3), (1, 1), (0, 1, 1, 0), 1),
    ((1, 2, 4, 5, 4), (3, 2, 2, 3, 2), (1, 2, 1), (1, 1, 2), (1, 0, 1, 1, 0, 2), 1),
]


def _conv_attrs(stride, dilation, pads, group):
    return dict(stride=stride, dilation=dilation, pads=pads, group=group)


def conv_cases(dtype=F32):
    out = []
    for i, (xs, ws, s, d, p, g) in enumerate(CONV_GRID):
        a = _conv_attrs(s, d, p, g)
        name = "Conv3D" if len(xs) == 5 else "Conv2D"
        x, w = _a(*xs, dtype=dtype, seed=i), _a(*ws, dtype=dtype, seed=10 + i, lo=-0.5, hi=0.5)
        y = ref_conv(x, w, s, d, p, g)
        dy = _a(*y.shape, dtype=dtype, seed=20 + i)
        out.append((f"{name} {i} {dtype.__name__}", name, op(name, **a), lambda x, w, a=a: ref_conv(x, w, **a), (x, w)))
        bpi = name + "BackpropInput"
        out.append((f"{bpi} {i} {dtype.__name__}", bpi, op(bpi, input_size=xs, **a),
                    lambda dy, w, a=a, xs=xs: ref_conv_input_grad(dy, w, xs, **a), (dy, w)))
        bpf = name + "BackpropFilter"
        out.append((f"{bpf} {i} {dtype.__name__}", bpf, op(bpf, filter_size=ws, **a),
                    lambda dy, x, a=a, ws=ws: ref_conv_filter_grad(dy, x, ws, **a), (dy, x)))
    return out


# ---- pooling -------------------------------------------------------------------------------------------
def _pool_out(n, k, s, d, b, a, ceil):
    span = n + b + a - d * (k - 1) - 1
    if not ceil:
        return span // s + 1
    o = math.ceil(span / s) + 1
    return o - 1 if (o - 1) * s >= n + b else o


def ref_windows(in_sp, kernel, stride, pads, dilation, ceil_mode, include_pad=True):
    """Per output position: the list of in-range input positions and the average's divisor."""
    axes = []
    for i, n in enumerate(in_sp):
        k, s, d, b, a = kernel[i], stride[i], dilation[i], pads[2 * i], pads[2 * i + 1]
        ax = []
        for o in range(_pool_out(n, k, s, d, b, a, ceil_mode)):
            pos = [o * s - b + j * d for j in range(k)]
            valid = [p for p in pos if 0 <= p < n]
            ax.append((valid, len([p for p in pos if p < n + a]) if include_pad else len(valid)))
        axes.append(ax)
    return axes


def ref_adaptive_windows(in_sp, out_sp):
    return [[(list(range(i * n // o, -(-(i + 1) * n // o))), -(-(i + 1) * n // o) - i * n // o) for i in range(o)]
            for n, o in zip(in_sp, out_sp)]


def ref_pool(x, axes, mode, divisor=0, want="value"):
    sp = x.ndim - 2
    out_sp = [len(ax) for ax in axes]
    out = np.zeros(x.shape[:2] + tuple(out_sp), np.int64 if want == "argmax" else np.float64)
    for o in itertools.product(*(range(s) for s in out_sp)):
        cells = list(itertools.product(*(axes[i][o[i]][0] for i in range(sp))))
        for nc in itertools.product(range(x.shape[0]), range(x.shape[1])):
            vals = [x[nc + c] for c in cells]
            if mode == "avg":
                div = divisor or math.prod(axes[i][o[i]][1] for i in range(sp))
                out[nc + o] = sum(float(v) for v in vals) / div
            else:
                j = int(np.argmax(vals))
                out[nc + o] = vals[j] if want == "value" else np.ravel_multi_index(cells[j], x.shape[2:])
    return out if want == "argmax" else out.astype(x.dtype)


def ref_pool_grad(x, dy, axes, mode, divisor=0):
    sp = x.ndim - 2
    dx = np.zeros(x.shape)
    for o in itertools.product(*(range(len(ax)) for ax in axes)):
        cells = list(itertools.product(*(axes[i][o[i]][0] for i in range(sp))))
        for nc in itertools.product(range(x.shape[0]), range(x.shape[1])):
            g = float(dy[nc + o])
            if mode == "avg":
                div = divisor or math.prod(axes[i][o[i]][1] for i in range(sp))
                for c in cells:
                    dx[nc + c] += g / div
            else:
                vals = [x[nc + c] for c in cells]
                dx[nc + cells[int(np.argmax(vals))]] += g
    return dx.astype(dy.dtype)


POOL_GRID = [
    (dict(kernel=(2, 2), stride=(2, 2), pads=(0, 0, 0, 0), dilation=(1, 1), ceil_mode=False), (2, 3, 6, 7)),
    (dict(kernel=(3, 3), stride=(2, 2), pads=(1, 1, 1, 1), dilation=(1, 1), ceil_mode=True), (1, 2, 7, 6)),
    (dict(kernel=(3, 2), stride=(1, 2), pads=(1, 0, 1, 1), dilation=(2, 1), ceil_mode=False), (1, 2, 8, 5)),
    (dict(kernel=(2, 2, 3), stride=(1, 2, 2), pads=(0, 1, 1, 0, 1, 1), dilation=(1, 1, 1), ceil_mode=True),
     (1, 2, 3, 4, 5)),
]


def pool_cases(dtype=F32):
    out = []
    for i, (attrs, shape) in enumerate(POOL_GRID):
        x = _a(*shape, dtype=dtype, seed=30 + i)
        sp = len(shape) - 2
        axes = ref_windows(shape[2:], attrs["kernel"], attrs["stride"], attrs["pads"], attrs["dilation"],
                           attrs["ceil_mode"])
        axes_ex = ref_windows(shape[2:], attrs["kernel"], attrs["stride"], attrs["pads"], attrs["dilation"],
                              attrs["ceil_mode"], include_pad=False)
        y_shape = shape[:2] + tuple(len(a) for a in axes)
        dy = _a(*y_shape, dtype=dtype, seed=40 + i)
        out.append((f"MaxPool {i} {dtype.__name__}", "MaxPool", op("MaxPool", **attrs),
                    lambda x, ax=axes: ref_pool(x, ax, "max"), (x,)))
        out.append((f"MaxPoolArgmax {i} {dtype.__name__}", "MaxPoolArgmax", op("MaxPoolArgmax", **attrs),
                    lambda x, ax=axes: ref_pool(x, ax, "max", want="argmax"), (x,)))
        out.append((f"MaxPoolGrad {i} {dtype.__name__}", "MaxPoolGrad", op("MaxPoolGrad", **attrs),
                    lambda x, dy, ax=axes: ref_pool_grad(x, dy, ax, "max"), (x, dy)))
        if attrs["dilation"] == (1,) * sp:
            for inc, ax in ((True, axes), (False, axes_ex)):
                a = dict(attrs, count_include_pad=inc, divisor=0)
                out.append((f"AvgPool {i} include_pad={inc} {dtype.__name__}", "AvgPool", op("AvgPool", **a),
                            lambda x, ax=ax: ref_pool(x, ax, "avg"), (x,)))
                out.append((f"AvgPoolGrad {i} include_pad={inc} {dtype.__name__}", "AvgPoolGrad",
                            op("AvgPoolGrad", **a), lambda x, dy, ax=ax: ref_pool_grad(x, dy, ax, "avg"), (x, dy)))
            a = dict(attrs, count_include_pad=True, divisor=5)
            out.append((f"AvgPool {i} divisor {dtype.__name__}", "AvgPool", op("AvgPool", **a),
                        lambda x, ax=axes: ref_pool(x, ax, "avg", divisor=5), (x,)))
    for i, (shape, size) in enumerate((((2, 3, 5, 7), (2, 3)), ((1, 2, 6, 4), (1, 1)), ((1, 2, 4, 5, 6), (3, 2, 4)))):
        x = _a(*shape, dtype=dtype, seed=50 + i)
        axes = ref_adaptive_windows(shape[2:], size)
        dy = _a(*(shape[:2] + size), dtype=dtype, seed=60 + i)
        for mode, name in (("avg", "AdaptiveAvgPool"), ("max", "AdaptiveMaxPool")):
            out.append((f"{name} {i} {dtype.__name__}", name, op(name, output_size=size),
                        lambda x, ax=axes, m=mode: ref_pool(x, ax, m), (x,)))
            out.append((f"{name}Grad {i} {dtype.__name__}", name + "Grad", op(name + "Grad", output_size=size),
                        lambda x, dy, ax=axes, m=mode: ref_pool_grad(x, dy, ax, m), (x, dy)))
        out.append((f"AdaptiveMaxPoolArgmax {i} {dtype.__name__}", "AdaptiveMaxPoolArgmax",
                    op("AdaptiveMaxPoolArgmax", output_size=size),
                    lambda x, ax=axes: ref_pool(x, ax, "max", want="argmax"), (x,)))
    return out


# ---- statistics and resampling ----------------------------------------------------------------------------
def ref_bn_stats(x):
    ax = (0,) + tuple(range(2, x.ndim))
    m = x.astype(np.float64).mean(axis=ax)
    v = ((x - m.reshape((1, -1) + (1,) * (x.ndim - 2))) ** 2).mean(axis=ax)
    return np.stack([m, v]).astype(x.dtype)


RS_TABLE = dict(axis=1, index=((0, 2, 2, 1, 0), (1, 1, 0, 2, 2)), weight=((0.5, 1.0, 0.25, -1.0, 0.0), (0.5, 0.0, 0.75, 2.0, 1.0)))


def ref_resample(x, axis, index, weight):
    ax = axis % x.ndim
    xm = np.moveaxis(x.astype(np.float64), ax, 0)
    out = np.zeros((len(index[0]),) + xm.shape[1:])
    for i in range(len(index[0])):
        for t in range(len(index)):
            out[i] += weight[t][i] * xm[index[t][i]]
    return np.moveaxis(out, 0, ax).astype(x.dtype)


def ref_resample_grad(g, axis, index, weight, size):
    ax = axis % g.ndim
    gm = np.moveaxis(g.astype(np.float64), ax, 0)
    out = np.zeros((size,) + gm.shape[1:])
    for i in range(len(index[0])):
        for t in range(len(index)):
            out[index[t][i]] += weight[t][i] * gm[i]
    return np.moveaxis(out, 0, ax).astype(g.dtype)


def _per_channel(x, v):
    return np.asarray(v, np.float64).reshape((1, -1) + (1,) * (x.ndim - 2))


def ref_bn_apply(x, mean, scale, beta):
    """(x - mean) * scale + beta along axis 1, in float64."""
    return ((x.astype(np.float64) - _per_channel(x, mean)) * _per_channel(x, scale)
            + _per_channel(x, beta)).astype(x.dtype)


def ref_bn_channel_dot(g, x, mean):
    """Per channel, the sum of g (x - mean) over every other axis, in float64."""
    axes = (0,) + tuple(range(2, x.ndim))
    return (g.astype(np.float64) * (x - _per_channel(x, mean))).sum(axis=axes).astype(x.dtype)


def ref_bn_stats_grad(g, x, stats):
    """x's cotangent from the statistics': g_mean / m + g_var * 2 (x - mean) / m, m = x.size / C."""
    m = x.size // x.shape[1]
    xd = x.astype(np.float64)
    return (_per_channel(x, g[0]) / m + _per_channel(x, g[1]) * 2.0 * (xd - _per_channel(x, stats[0])) / m
            ).astype(x.dtype)


def misc_cases(dtype=F32):
    return [
        (f"BatchNormStats {dtype.__name__}", "BatchNormStats", op("BatchNormStats"), ref_bn_stats,
         (_a(3, 4, 2, 5, dtype=dtype, seed=70),)),
        (f"BatchNormStats 2-D {dtype.__name__}", "BatchNormStats", op("BatchNormStats"), ref_bn_stats,
         (_a(6, 3, dtype=dtype, seed=71),)),
        (f"BatchNormApply {dtype.__name__}", "BatchNormApply", op("BatchNormApply"), ref_bn_apply,
         (_a(3, 4, 2, 5, dtype=dtype, seed=75), _a(4, dtype=dtype, seed=76), _a(4, dtype=dtype, seed=77),
          _a(4, dtype=dtype, seed=78))),
        (f"BatchNormChannelDot {dtype.__name__}", "BatchNormChannelDot", op("BatchNormChannelDot"),
         ref_bn_channel_dot, (_a(3, 4, 2, 5, dtype=dtype, seed=79), _a(3, 4, 2, 5, dtype=dtype, seed=75),
                              _a(4, dtype=dtype, seed=76))),
        (f"BatchNormStatsGrad 2-D {dtype.__name__}", "BatchNormStatsGrad", op("BatchNormStatsGrad"),
         ref_bn_stats_grad, (_a(2, 3, dtype=dtype, seed=80), _a(6, 3, dtype=dtype, seed=71),
                             _a(2, 3, dtype=dtype, seed=81))),
        (f"AxisResample {dtype.__name__}", "AxisResample", op("AxisResample", **RS_TABLE),
         lambda x: ref_resample(x, **RS_TABLE), (_a(2, 3, 4, dtype=dtype, seed=72),)),
        (f"AxisResample last axis {dtype.__name__}", "AxisResample", op("AxisResample", **dict(RS_TABLE, axis=-1)),
         lambda x: ref_resample(x, **dict(RS_TABLE, axis=-1)), (_a(2, 3, dtype=dtype, seed=73),)),
        (f"AxisResampleGrad {dtype.__name__}", "AxisResampleGrad", op("AxisResampleGrad", size=3, **RS_TABLE),
         lambda g: ref_resample_grad(g, size=3, **RS_TABLE), (_a(2, 5, 4, dtype=dtype, seed=74),)),
    ]


# ---- random: an independent scalar Philox-4x32-10 --------------------------------------------------------
def philox(ctr, key):
    """Philox-4x32-10 on 4 counter words and 2 key words (Python ints)."""
    c, k = list(ctr), list(key)
    m = 0xFFFFFFFF
    for _ in range(10):
        p0, p1 = 0xD2511F53 * c[0], 0xCD9E8D57 * c[2]
        c = [((p1 >> 32) ^ c[1] ^ k[0]) & m, p1 & m, ((p0 >> 32) ^ c[3] ^ k[1]) & m, p0 & m]
        k = [(k[0] + 0x9E3779B9) & m, (k[1] + 0xBB67AE85) & m]
    return c


def ref_words(n, key, offset):
    out = []
    for b in range((n + 3) // 4):
        out += philox([b & 0xFFFFFFFF, b >> 32, offset & 0xFFFFFFFF, offset >> 32], [key & 0xFFFFFFFF, key >> 32])
    return np.array(out[:n], np.uint64)


def ref_key(seed, op_seed=0):
    return (seed * 0x9E3779B97F4A7C15 + op_seed * 0xBF58476D1CE4E5B9 + 1) % (1 << 64)


STATE = np.array([1234, 7, 1], np.int64)


def ref_uniform(state, shape, seed=0):
    w = ref_words(int(np.prod(shape)), ref_key(int(state[0]), seed), int(state[1]))
    return ((w >> 8).astype(np.float64) / 2 ** 24).reshape(shape)


def random_cases():
    st = STATE
    return [
        ("RandomUniform", "RandomUniform", op("RandomUniform", shape=(3, 7), dtype=ms.float32, seed=0),
         lambda s: ref_uniform(s, (3, 7)).astype(F32), (st,)),
        ("RandomUniform op seed float64", "RandomUniform", op("RandomUniform", shape=(5,), dtype=ms.float64, seed=9),
         lambda s: ref_uniform(s, (5,), 9), (st,)),
        ("RandomInt", "RandomInt", op("RandomInt", shape=(2, 9), low=-3, high=4, dtype=ms.int64, seed=0),
         lambda s: (-3 + ((ref_words(18, ref_key(1234), 7) * 7) >> 32).astype(I64)).reshape(2, 9), (st,)),
        ("Bernoulli", "Bernoulli", op("Bernoulli", shape=(4, 6), dtype=ms.float32, seed=0),
         lambda s, p: (ref_uniform(s, (4, 6)) < p).astype(F32), (st, np.array(0.3, F32))),
        ("RandomNormal", "RandomNormal", op("RandomNormal", shape=(2, 5), dtype=ms.float64, seed=0),
         lambda s: _ref_normal(10, ref_key(1234), 7).reshape(2, 5), (st,)),
        ("Randperm", "Randperm", op("Randperm", n=9, dtype=ms.int64, seed=0),
         lambda s: np.argsort(ref_words(9, ref_key(1234), 7), kind="stable").astype(I64), (st,)),
        ("Multinomial", "Multinomial", op("Multinomial", num_samples=3, replacement=False, dtype=ms.int32, seed=0),
         lambda s, p: _ref_multinomial(p, 3), (st, np.array([[0.5, 0.0, 0.3, 0.2], [0.0, 0.1, 0.0, 0.9]], F32))),
    ]


def _ref_normal(n, key, offset):
    w = ref_words(n + n % 2, key, offset).astype(np.float64)
    out = []
    for j in range(0, len(w), 2):
        r = math.sqrt(-2 * math.log((w[j] + 1) / 2 ** 32))
        t = 2 * math.pi * w[j + 1] / 2 ** 32
        out += [r * math.cos(t), r * math.sin(t)]
    return np.array(out[:n])


def _ref_multinomial(p, k):
    """Without replacement: each draw picks by inverse CDF among the categories left."""
    u = (ref_words(p.shape[0] * k, ref_key(1234), 7) >> 8).astype(np.float64) / 2 ** 24
    out = np.zeros((p.shape[0], k), np.int32)
    for r in range(p.shape[0]):
        w = p[r].astype(np.float64).copy()
        for j in range(k):
            t = u[r * k + j] * w.sum()
            c = np.cumsum(w)
            idx = min(int((c <= t).sum()), len(w) - 1)
            while w[idx] <= 0 and idx > 0:
                idx -= 1
            out[r, j] = idx
            w[idx] = 0
    return out


def all_cases():
    return conv_cases() + conv_cases(F64)[:3] + pool_cases() + misc_cases() + misc_cases(F64) + random_cases()


