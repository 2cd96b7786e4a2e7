"""The pooling fast paths' decompositions (docs/architecture.md, "The core"): argmax pooling, the
adaptive pools and the pooling gradients as gathers, an Argmax, reductions and one scatter-add
over tables built from the windows (`pool.pool_windows`, the tables the C template walks).

Each follows its template's order of operations (backend/c/ops/pool.py), so the fast path and its
decomposition agree bit for bit:

* a window's maximum is the first of its largest values, a NaN winning (`Argmax`'s rule) - the
  positions listed in the template's walk order (depth, row, column), a shorter window padded
  with repeats of its first position (a repeat never wins); a window of -inf has its first
  position as argmax and receives the gradient there (MindSpore 2.10's index and gradient); a
  window wholly in the padding has argmax 0 and receives no gradient;
* an adaptive average adds its window's values to 0 in walk order, then divides by its count;
* a gradient is one TensorScatterAdd into the flattened (planes x positions) input, its
  contributions in the template's order: per plane, per output, per window position (for whole
  windows the template runs an output row's window offsets outermost: that order is used there).
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import type_of
from pycompile.common.tensor import Tensor


def _ops():
    from pycompile.ops.defs import array as A, elementwise as E, index as I, reduce as R
    return A, E, I, R


def _walk(wins):
    """Per output (row-major over the output grid): the input positions (one index per axis) its
    window reads, in the template's walk order."""
    return [list(itertools.product(*[[w[0] + j * w[1] for j in range(w[2])] for w in ws]))
            for ws in itertools.product(*wins)]


def _flat(positions, in_sp):
    strides = [math.prod(in_sp[i + 1:]) for i in range(len(in_sp))]
    return [sum(p * s for p, s in zip(pos, strides)) for pos in positions]


def _tables(wins, in_sp, repeat_first: bool):
    """pos (T, O) flat positions and ok (T, O) (False where a window has fewer than T positions:
    with repeat_first those hold the window's first position and count as read)."""
    outs = _walk(wins)
    per_out = [_flat(p, in_sp) for p in outs]
    T = max((len(p) for p in per_out), default=0)
    pos = np.zeros((T, len(per_out)), np.int64)
    ok = np.zeros((T, len(per_out)), bool)
    for o, p in enumerate(per_out):
        pos[:len(p), o] = p
        ok[:len(p), o] = True
        if repeat_first and p:
            pos[len(p):, o] = p[0]
            ok[len(p):, o] = True
    return pos, ok


_POOL_WINDOWS = []      # pool.pool_windows, handed over by ops/defs/pool.py (which imports this module)


def _windows(x_shape, attrs, adaptive):
    return _POOL_WINDOWS[0](attrs, x_shape[2:], adaptive=adaptive)


def use_windows(pool_windows) -> None:
    """pool.py's window tables (the template's): given once, at its import."""
    _POOL_WINDOWS[:] = [pool_windows]


def _gathered(x, pos):
    """x (N, C, *spatial) read at the table's positions: (N*C, T, O)."""
    A, E, I, R = _ops()
    t = type_of(x)
    nc, s = math.prod(t.shape[:2]), math.prod(t.shape[2:])
    T, O = pos.shape
    x2 = E.call(A.Reshape, x, shape=(nc, s))
    idx = E.call(A.BroadcastTo, Tensor(pos.reshape(1, T * O)), shape=(nc, T * O))
    return E.call(A.Reshape, E.call(I.GatherD, x2, idx, axis=1), shape=(nc, T, O))


def window_max(x, attrs, adaptive, want):
    """want: 'value' (the maximum), 'argmax' (its flat position: the first position read for a
    window of -inf, 0 for one wholly in the padding) or 'position' (the same, -1 for a window
    wholly in the padding), each (N*C, 1, O)."""
    A, E, I, R = _ops()
    t = type_of(x)
    wins = _windows(t.shape, attrs, adaptive)
    pos, ok = _tables(wins, t.shape[2:], repeat_first=True)
    if pos.shape[0] == 0:       # every window wholly in the padding (a dilated window over a 1-pixel input)
        nc, O = math.prod(t.shape[:2]), pos.shape[1]
        if want == "value":
            return E.call(A.Fill, shape=(nc, 1, O), value=-math.inf, dtype=t.dtype), pos
        return E.call(A.Fill, shape=(nc, 1, O), value=0 if want == "argmax" else -1, dtype=mstype.int64), pos
    v = _gathered(x, pos)
    if not ok.all():           # a window wholly in the padding reads nothing
        v = E.call(E.Select, Tensor(ok[None]), v, -math.inf)
    arg = E.call(R.Argmax, v, axis=1, keep_dims=True)
    best = E.call(I.GatherD, v, arg, axis=1)
    if want == "value":
        return best, pos
    nc = math.prod(t.shape[:2])
    where = E.call(I.GatherD, E.call(A.BroadcastTo, Tensor(pos[None]), shape=(nc,) + pos.shape), arg, axis=1)
    if want == "argmax" or ok[0].all():
        return where, pos       # an empty window's table row holds 0 (_tables)
    return E.call(E.Select, Tensor(ok[0].reshape(1, 1, -1)), where, -1), pos


def max_pool_parts(argmax: bool, adaptive: bool):
    """MaxPoolArgmax / AdaptiveMaxPoolArgmax (argmax) or AdaptiveMaxPool (the value)."""
    def parts(x, **attrs):
        A, E, I, R = _ops()
        t = type_of(x)
        out, pos = window_max(x, attrs, adaptive, "argmax" if argmax else "value")
        out_sp = tuple(attrs["output_size"]) if adaptive else None
        if out_sp is None:
            out_sp = tuple(len(ws) for ws in _windows(t.shape, attrs, adaptive))
        return E.call(A.Reshape, out, shape=t.shape[:2] + out_sp)
    return parts


def _scatter(x, flat_idx, updates):
    """zeros like x, flattened with one extra (discarded) slot, += updates at flat_idx (K, 1)."""
    A, E, I, R = _ops()
    t = type_of(x)
    n = math.prod(t.shape)
    zeros = E.call(A.Fill, shape=(n + 1,), value=0, dtype=t.dtype)
    out = E.call(I.TensorScatterAdd, zeros, flat_idx, updates)
    out = E.call(A.StridedSlice, out, begin=(0,), end=(n,), strides=(1,))
    return E.call(A.Reshape, out, shape=t.shape)


def max_grad_parts(adaptive: bool):
    """MaxPoolGrad / AdaptiveMaxPoolGrad: dout added at each window's first maximum."""
    def parts(x, dout, **attrs):
        A, E, I, R = _ops()
        t = type_of(x)
        nc, s = math.prod(t.shape[:2]), math.prod(t.shape[2:])
        where, pos = window_max(x, attrs, adaptive, "position")
        O = pos.shape[1]
        base = Tensor((np.arange(nc, dtype=np.int64) * s).reshape(nc, 1, 1))
        idx = E.call(E.Add, where, base)
        idx = E.call(E.Select, E.call(E.Less, where, 0), nc * s, idx)      # an empty window: the spare slot
        return _scatter(x, E.call(A.Reshape, idx, shape=(nc * O, 1)), E.call(A.Reshape, dout, shape=(nc * O,)))
    return parts


def adaptive_avg_parts(x, output_size=()):
    """AdaptiveAvgPool: 0 + the window's values in walk order, divided by its count."""
    A, E, I, R = _ops()
    t = type_of(x)
    wins = _windows(t.shape, {"output_size": output_size}, True)
    pos, ok = _tables(wins, t.shape[2:], repeat_first=False)
    v = E.call(E.Select, Tensor(ok[None]), _gathered(x, pos), 0)
    nc, (T, O) = math.prod(t.shape[:2]), pos.shape
    total = 0.0
    for j in range(T):         # one position after the other, as the template's acc += (not a blocked sum)
        row = E.call(A.StridedSlice, v, begin=(0, j, 0), end=(nc, j + 1, O), strides=(1, 1, 1))
        total = E.call(E.Add, total, E.call(A.Reshape, row, shape=(nc, O)))
    div = np.array([math.prod(w[3] for w in ws) for ws in itertools.product(*wins)], t.dtype.np)
    out = E.call(E.RealDiv, total, Tensor(div.reshape(1, -1)))
    return E.call(A.Reshape, out, shape=t.shape[:2] + tuple(output_size))


def _whole(wins):
    """Every window whole and evenly spaced along each axis (the template's vector path)."""
    for ws in wins:
        if len({w[2] for w in ws}) != 1 or ws[0][2] == 0:
            return False
        s = ws[1][0] - ws[0][0] if len(ws) > 1 else 1
        if any(w[0] != ws[0][0] + i * s for i, w in enumerate(ws)):
            return False
    return True


def avg_grad_parts(adaptive: bool):
    """AvgPoolGrad / AdaptiveAvgPoolGrad: each output's cotangent / its window's divisor added at
    every position of the window, in the template's order."""
    def parts(x, dout, divisor=0, **attrs):
        A, E, I, R = _ops()
        t = type_of(x)
        nc, s = math.prod(t.shape[:2]), math.prod(t.shape[2:])
        wins = _windows(t.shape, attrs, adaptive)
        out_sp = [len(ws) for ws in wins]
        n_out = math.prod(out_sp)
        in_strides = [math.prod(t.shape[2 + i + 1:]) for i in range(len(wins))]
        entries = []          # (output, flat position) in the template's order
        if not adaptive and _whole(wins):
            rows = list(itertools.product(*[range(n) for n in out_sp[:-1]]))
            kmax = [ws[0][2] for ws in wins]
            for r in rows:
                for offs in itertools.product(*[range(k) for k in kmax]):
                    for ow in range(out_sp[-1]):
                        o = r + (ow,)
                        p = sum((wins[a][o[a]][0] + offs[a] * wins[a][o[a]][1]) * in_strides[a]
                                for a in range(len(wins)))
                        entries.append((_flat([o], out_sp)[0], p))
        else:
            outs = _walk(wins)
            for o, positions in enumerate(outs):
                entries.extend((o, p) for p in _flat(positions, t.shape[2:]))
        if not entries:
            return E.call(A.Fill, shape=t.shape, value=0, dtype=t.dtype)
        oi = np.array([e[0] for e in entries], np.int64)
        pi = np.array([e[1] for e in entries], np.int64)
        if divisor:
            div = np.full(n_out, float(divisor), t.dtype.np)
        else:
            div = np.array([math.prod(w[3] for w in ws) for ws in itertools.product(*wins)], t.dtype.np)
        K = len(entries)
        g = E.call(A.Reshape, dout, shape=(nc, n_out))
        g = E.call(E.RealDiv, g, Tensor(div.reshape(1, -1)))
        upd = E.call(I.GatherD, g, E.call(A.BroadcastTo, Tensor(oi.reshape(1, K)), shape=(nc, K)), axis=1)
        idx = Tensor((np.arange(nc, dtype=np.int64)[:, None] * s + pi[None, :]).reshape(nc * K, 1))
        return _scatter(x, idx, E.call(A.Reshape, upd, shape=(nc * K,)))
    return parts
