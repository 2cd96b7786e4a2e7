"""C for pooling, its gradients and batch statistics.

Max / average pooling with regular windows runs per output row: for every window row and
kernel column, one vector loop over the output pixels whose input column is inside the image
(the range is computed here), so padding costs no test in the loop and stride 2 reads vectorize.
A fused elementwise producer (ReLU, a bias) is computed inline where the input is read (the
template's prologue). Adaptive windows, argmax and the gradients walk per-axis window tables
(ops/defs/pool.pool_windows, the same tables eager code uses) one output at a time; planes
(image x channel) are split over the threads, so the gradients' scatter-adds never collide.
"""
from __future__ import annotations

import math

from pycompile.backend.c.ops import ctypes_ as C
from pycompile.backend.c.ops.conv import split_elements
from pycompile.backend.c.ops.kernels import _ld
from pycompile.backend.c.ops.templates import template
from pycompile.backend.c.ops.writer import scope
from pycompile.ops.defs.pool import pool_windows


def _prod(xs) -> int:
    return math.prod(xs) if xs else 1


def _windows(n, x_shape):
    adaptive = "output_size" in n.attrs and "kernel" not in n.attrs
    wins = pool_windows(n.attrs, x_shape[2:], adaptive=adaptive)
    return [[(0, 1, 1, 1)]] * (3 - len(wins)) + wins, adaptive


def _table(w, name: str, values, ctype: str = "int32_t") -> str:
    w.line(f"static const {ctype} {name}[{max(len(values), 1)}] = {{{', '.join(str(v) for v in values) or '0'}}};")
    return name


def _emit_tables(w, prefix: str, wins, dims):
    """Per axis a, tables {prefix}f{a} (first), {prefix}c{a} (count) and {prefix}v{a} (divisor)."""
    for a, ws in enumerate(wins):
        _table(w, f"{prefix}f{a}", [x[0] for x in ws])
        _table(w, f"{prefix}c{a}", [x[2] for x in ws])
        _table(w, f"{prefix}v{a}", [x[3] for x in ws])
    return [ws[0][1] for ws in wins]


def _regular_max_avg(ctx, w, n, x, xt, out, rule):
    """Regular windows (MaxPool / AvgPool): vector loops along output rows."""
    attrs = n.attrs
    sp = xt.ndim - 2
    shape3 = (1,) * (3 - sp) + tuple(xt.shape[2:])
    D, H, W = shape3
    wins, _ = _windows(n, xt.shape)
    OD, OH, OW = (len(ws) for ws in wins)
    k = (1,) * (3 - sp) + tuple(attrs["kernel"])
    s = (1,) * (3 - sp) + tuple(attrs["stride"])
    d = (1,) * (3 - sp) + tuple(attrs.get("dilation") or (1,) * sp)
    pw = attrs["pads"][-2]
    ct, st = C.compute(xt.dtype), C.storage(xt.dtype)
    # per kernel column j: the output columns whose input column is inside the row
    lo, hi = [], []
    for j in range(k[2]):
        off = j * d[2] - pw
        lo.append(min(OW, max(0, -(-(-off) // s[2]))))
        hi.append(max(0, min(OW, (W - 1 - off) // s[2] + 1)))
    planes = _prod(xt.shape[:2])
    name = f"pl_{ctx.kernel_name(n)}"
    with scope(w):
        _emit_tables(w, name, wins, None)
        _table(w, f"{name}lo", lo)
        _table(w, f"{name}hi", hi)
        divisor = attrs.get("divisor", 0)
        # work in copy-elements: each (output, kernel column) costs ~4 elements of a copy (W9's
        # 2 x 2 max-pools, one thread: 2.1 and 2.9 ns per unit against 0.5 ns per element of the
        # padded-input copy), so LeNet's second pooling still splits at 16 threads
        w.line(f"#pragma omp parallel for num_threads(nt) schedule(dynamic, 4) "
               f"if ({split_elements(4 * planes * OD * OH * OW * k[2])})")
        with w.block(f"for (long pr = 0; pr < {planes * OD * OH}L; ++pr)"):
            w.line(f"const long p = pr / {OD * OH}L, od = (pr / {OH}L) % {OD}L, oh = pr % {OH}L;")
            # the window rows combined first (contiguous vector loops), then each output reads
            # its kernel columns from that row: KW strided reads per output instead of KH * KW
            init = "-INFINITY" if rule == "max" else "0"
            w.line(f"{ct} t[{W}], acc[{OW}];")
            with w.block(f"for (long iw = 0; iw < {W}L; ++iw)"):
                w.line(f"t[iw] = {init};")
            with w.block(f"for (long jd = 0; jd < {name}c0[od]; ++jd)"):
                w.line(f"const long id = {name}f0[od] + jd * {d[0]}L;")
                with w.block(f"for (long jh = 0; jh < {name}c1[oh]; ++jh)"):
                    w.line(f"const long ih = {name}f1[oh] + jh * {d[1]}L;")
                    w.line(f"const long rb = ((p * {D}L + id) * {H}L + ih) * {W}L;")
                    w.line("#pragma omp simd")
                    with w.block(f"for (long iw = 0; iw < {W}L; ++iw)"):
                        w.line(f"const {ct} v = ({ct}){_ld(x, 'rb + iw')};")
                        w.line("t[iw] = (v > t[iw] || v != v) ? v : t[iw];" if rule == "max" else "t[iw] += v;")
            with w.block(f"for (long ow = 0; ow < {OW}L; ++ow)"):
                w.line(f"acc[ow] = {init};")
            for j in range(k[2]):
                if lo[j] >= hi[j]:
                    continue
                off = j * d[2] - pw
                w.line("#pragma omp simd")
                with w.block(f"for (long ow = {lo[j]}L; ow < {hi[j]}L; ++ow)"):
                    w.line(f"const {ct} v = t[ow * {s[2]}L + ({off}L)];")
                    w.line("acc[ow] = (v > acc[ow] || v != v) ? v : acc[ow];" if rule == "max" else "acc[ow] += v;")
            w.line(f"{st} *const orow = {out} + pr * {OW}L;")
            if rule == "max":
                w.line(f"for (long ow = 0; ow < {OW}L; ++ow) orow[ow] = ({st})acc[ow];")
            elif divisor:
                w.line(f"for (long ow = 0; ow < {OW}L; ++ow) orow[ow] = ({st})(acc[ow] / ({ct}){divisor});")
            else:
                w.line(f"const {ct} dv = ({ct})({name}v0[od] * {name}v1[oh]);")
                w.line(f"for (long ow = 0; ow < {OW}L; ++ow) orow[ow] = ({st})(acc[ow] / (dv * ({ct}){name}v2[ow]));")


def _window_walk(w, name, wins, shape3, body_open, body_elem, body_close, dil):
    """For every output (od, oh, ow) of plane p: body_open, then body_elem(flat input index) for
    each window position, then body_close (plane loop and tables set up by the caller)."""
    D, H, W = shape3
    OD, OH, OW = (len(ws) for ws in wins)
    with w.block(f"for (long o = 0; o < {OD * OH * OW}L; ++o)"):
        w.line(f"const long od = o / {OH * OW}L, oh = (o / {OW}L) % {OH}L, ow = o % {OW}L;")
        body_open()
        with w.block(f"for (long jd = 0; jd < {name}c0[od]; ++jd)"):
            with w.block(f"for (long jh = 0; jh < {name}c1[oh]; ++jh)"):
                w.line(f"const long rb = (({name}f0[od] + jd * {dil[0]}L) * {H}L + {name}f1[oh] + jh * {dil[1]}L) * {W}L;")
                with w.block(f"for (long jw = 0; jw < {name}c2[ow]; ++jw)"):
                    w.line(f"const long i = rb + {name}f2[ow] + jw * {dil[2]}L;")
                    body_elem()
        body_close()


@template("pool")
def _pool(ctx, w, n):
    x = n.inputs[0]
    xt = x.type
    out = ctx.out(n)
    rule = n.op.lower.rule
    if n.type.size == 0:
        return
    xin = ctx.input(n, 0)
    if rule in ("max", "avg"):
        _regular_max_avg(ctx, w, n, xin, xt, out, rule)
        return
    wins, adaptive = _windows(n, xt.shape)
    sp = xt.ndim - 2
    shape3 = (1,) * (3 - sp) + tuple(xt.shape[2:])
    dil = [ws[0][1] for ws in wins]
    ct, st = C.compute(xt.dtype), C.storage(n.type.dtype)
    plane = _prod(shape3)
    oplane = _prod(n.type.shape[2:])
    name = f"pl_{ctx.kernel_name(n)}"
    with scope(w):
        _emit_tables(w, name, wins, None)
        w.line(f"#pragma omp parallel for num_threads(nt) schedule(static) if ({split_elements(_prod(xt.shape))})")
        with w.block(f"for (long p = 0; p < {_prod(xt.shape[:2])}L; ++p)"):
            w.line(f"const long xb = p * {plane}L;")
            if rule == "adaptive_avg":
                _window_walk(w, name, wins, shape3, lambda: w.line(f"{ct} acc = 0;"),
                             lambda: w.line(f"acc += ({ct}){_ld(xin, 'xb + i')};"),
                             lambda: w.line(f"{out}[p * {oplane}L + o] = ({st})(acc / ({ct})({name}v0[od] * "
                                            f"{name}v1[oh] * {name}v2[ow]));"), dil)
            else:       # argmax, adaptive_max, adaptive_argmax: the first maximum, NaN wins; a
                # window of -inf: its first position (MindSpore 2.10's index); wholly padding: 0
                want_index = rule.endswith("argmax")
                _window_walk(w, name, wins, shape3, lambda: w.line(f"{ct} best = -INFINITY; int64_t bi = -1; int nan = 0;"),
                             lambda: w.line(f"{{ const {ct} v = ({ct}){_ld(xin, 'xb + i')}; if (!nan && (v > best || "
                                            f"v != v || bi < 0)) {{ best = v; bi = i; nan = v != v; }} }}"),
                             lambda: w.line(f"{out}[p * {oplane}L + o] = ({st})({'(bi < 0 ? 0 : bi)' if want_index else 'best'});"),
                             dil)


@template("pool_grad")
def _pool_grad(ctx, w, n):
    """dx: each output's cotangent to its window's first maximum, or spread over its window /
    divisor (average)."""
    x, dout = n.inputs
    xt = x.type
    out = ctx.out(n)
    rule = n.op.lower.rule
    wins, _ = _windows(n, xt.shape)
    sp = xt.ndim - 2
    shape3 = (1,) * (3 - sp) + tuple(xt.shape[2:])
    dil = [ws[0][1] for ws in wins]
    ct, st = C.compute(xt.dtype), C.storage(xt.dtype)
    plane = _prod(shape3)
    oplane = _prod(dout.type.shape[2:])
    xp, gp = ctx.ptr(x), ctx.ptr(dout)
    name = f"pg_{ctx.kernel_name(n)}"
    divisor = n.attrs.get("divisor", 0)
    full = _full_windows(wins)
    with scope(w):
        _emit_tables(w, name, wins, None)
        # ~4 copy-elements of work per input element (W9's training step, one thread: 1.6 ns each)
        w.line(f"#pragma omp parallel for num_threads(nt) schedule(static) if ({split_elements(4 * _prod(xt.shape))})")
        with w.block(f"for (long p = 0; p < {_prod(xt.shape[:2])}L; ++p)"):
            w.line(f"const long xb = p * {plane}L;")
            w.line(f"const {ct} *const g = {gp} + p * {oplane}L;")
            w.line(f"memset({out} + xb, 0, sizeof({st}) * {plane}L);")
            if full is not None and rule in ("max", "avg"):
                _full_window_grad(w, full, shape3, [len(ws) for ws in wins], xp, out, rule, ct, divisor,
                                  wins)
            elif rule == "max":
                _padded_max_grad(w, n.attrs, name, shape3, [len(ws) for ws in wins], xp, out, ct)
            elif rule == "adaptive_max":
                _window_walk(w, name, wins, shape3, lambda: w.line(f"{ct} best = -INFINITY; long bi = -1; int nan = 0;"),
                             lambda: w.line(f"{{ const {ct} v = {xp}[xb + i]; if (!nan && (v > best || v != v || "
                                            f"bi < 0)) {{ best = v; bi = i; nan = v != v; }} }}"),
                             lambda: w.line(f"if (bi >= 0) {out}[xb + bi] += g[o];"), dil)
            else:
                div = f"({ct}){divisor}" if divisor else f"({ct})({name}v0[od] * {name}v1[oh] * {name}v2[ow])"
                _window_walk(w, name, wins, shape3, lambda: w.line(f"const {ct} gv = g[o] / {div};"),
                             lambda: w.line(f"{out}[xb + i] += gv;"), lambda: None, dil)


def _take_max(w, lo: str, hi: str, index: str, xp: str, ct: str, unset: bool = False):
    """One window position for the outputs [lo, hi) of a row, branch-free: best / bi take it when
    it is larger, or a NaN over a number (the first maximum wins; a NaN wins and stays); `unset`:
    or when the output has no position yet (bi < 0: windows the padding clips start empty)."""
    w.line("#pragma omp simd")
    with w.block(f"for (long ow = {lo}; ow < {hi}; ++ow)"):
        w.line(f"const long i = {index}; const {ct} v = {xp}[xb + i];")
        w.line("const int take = " + ("(bi[ow] < 0) | " if unset else "")
               + "(v > best[ow]) | ((v != v) & (best[ow] == best[ow]));")
        w.line("bi[ow] = take ? i : bi[ow]; best[ow] = take ? v : best[ow];")


def _padded_max_grad(w, attrs, name, shape3, out_sp, xp, out, ct):
    """MaxPool's gradient with windows that padding clips (ResNet's 3 x 3 / 2 stem pooling, pad
    1): an output row at a time, the window's first maximum as branch-free vector loops along the
    row, one per valid (depth, row) of the window (the tables) and kernel column, each over the
    outputs whose input column is inside the row; then the scatter in output order. The same
    positions in the same order as the walk one output at a time, which took 13 % of W10's
    training step (a branch per position)."""
    D, H, W = shape3
    OD, OH, OW = out_sp
    sp = len(attrs["kernel"])
    kw, sw = attrs["kernel"][-1], attrs["stride"][-1]
    dw = (attrs.get("dilation") or (1,) * sp)[-1]
    pw = attrs["pads"][-2]
    dil = (1,) * (3 - sp) + tuple(attrs.get("dilation") or (1,) * sp)
    with w.block(f"for (long r = 0; r < {OD * OH}L; ++r)"):
        w.line(f"const long od = r / {OH}L, oh = r % {OH}L;")
        w.line(f"const {ct} *const gr = g + r * {OW}L;")
        w.line(f"{ct} best[{OW}]; long bi[{OW}];")
        with w.block(f"for (long ow = 0; ow < {OW}L; ++ow)"):
            w.line("best[ow] = -INFINITY; bi[ow] = -1;")
        with w.block(f"for (long jd = 0; jd < {name}c0[od]; ++jd)"):
            with w.block(f"for (long jh = 0; jh < {name}c1[oh]; ++jh)"):
                w.line(f"const long rb = (({name}f0[od] + jd * {dil[0]}L) * {H}L + {name}f1[oh] + jh * {dil[1]}L) * {W}L;")
                for j in range(kw):
                    off = j * dw - pw
                    lo = min(OW, max(0, -(off // sw)))          # the first ow with ow * sw + off >= 0
                    hi = max(0, min(OW, (W - 1 - off) // sw + 1))
                    if lo >= hi:
                        continue
                    _take_max(w, f"{lo}L", f"{hi}L", f"rb + ow * {sw}L + ({off}L)", xp, ct, unset=True)
        with w.block(f"for (long ow = 0; ow < {OW}L; ++ow)"):
            w.line(f"if (bi[ow] >= 0) {out}[xb + bi[ow]] += gr[ow];")


def _full_windows(wins):
    """Per axis (kernel, stride, dilation, first of window 0) when every window is whole (no
    padding clips it: LeNet's 2 x 2 / 2, any unpadded pooling), else None."""
    out = []
    for ws in wins:
        counts = {w[2] for w in ws}
        if len(counts) != 1 or 0 in counts:
            return None
        k, d = ws[0][2], ws[0][1]
        s = ws[1][0] - ws[0][0] if len(ws) > 1 else 1
        if any(w[0] != ws[0][0] + i * s for i, w in enumerate(ws)):
            return None
        out.append((k, s, d, ws[0][0]))
    return out


def _full_window_grad(w, full, shape3, out_sp, xp, out, rule, ct, divisor, wins):
    """The gradient over whole windows, an output row at a time: the window's argmax as
    branch-free vector loops along the row (one per kernel offset), then the scatter."""
    D, H, W = shape3
    (kd, sd, dd, fd), (kh, sh, dh, fh), (kw, sw, dw, fw) = full
    OD, OH, OW = out_sp
    with w.block(f"for (long r = 0; r < {OD * OH}L; ++r)"):
        w.line(f"const long od = r / {OH}L, oh = r % {OH}L;")
        w.line(f"const long rb = ((od * {sd}L + {fd}L) * {H}L + oh * {sh}L + {fh}L) * {W}L + {fw}L;")
        w.line(f"const {ct} *const gr = g + r * {OW}L;")
        if rule == "max":
            w.line(f"{ct} best[{OW}]; long bi[{OW}];")
            w.line("#pragma omp simd")
            with w.block(f"for (long ow = 0; ow < {OW}L; ++ow)"):
                w.line(f"bi[ow] = rb + ow * {sw}L; best[ow] = {xp}[xb + bi[ow]];")
            for jd in range(kd):
                for jh in range(kh):
                    for jw in range(kw):
                        if jd == jh == jw == 0:
                            continue
                        off = (jd * dd * H + jh * dh) * W + jw * dw
                        _take_max(w, "0", f"{OW}L", f"rb + ow * {sw}L + {off}L", xp, ct)
            with w.block(f"for (long ow = 0; ow < {OW}L; ++ow)"):
                w.line(f"{out}[xb + bi[ow]] += gr[ow];")
        else:
            div = divisor or wins[0][0][3] * wins[1][0][3] * wins[2][0][3]
            for jd in range(kd):
                for jh in range(kh):
                    for jw in range(kw):
                        off = (jd * dd * H + jh * dh) * W + jw * dw
                        with w.block(f"for (long ow = 0; ow < {OW}L; ++ow)"):
                            w.line(f"{out}[xb + rb + ow * {sw}L + {off}L] += gr[ow] / ({ct}){div};")


@template("batchnorm_stats")
def _batchnorm_stats(ctx, w, n):
    """(2, C): per channel the mean, then the mean of centred squares, accumulated in double and
    vectorized along each image's contiguous spatial block."""
    x = n.inputs[0]
    xt = x.type
    out = ctx.out(n)
    N, Cn = xt.shape[:2]
    S = _prod(xt.shape[2:])
    m = N * S
    xp = ctx.ptr(x)
    st = C.storage(xt.dtype)
    w.line(f"#pragma omp parallel for num_threads(nt) schedule(static) if ({split_elements(xt.size)})")
    with w.block(f"for (long c = 0; c < {Cn}L; ++c)"):
        w.line("double s = 0, q = 0;")
        with w.block(f"for (long i = 0; i < {N}L; ++i)"):
            w.line(f"const {st} *const r = {xp} + (i * {Cn}L + c) * {S}L;")
            w.line("#pragma omp simd reduction(+:s)")
            with w.block(f"for (long j = 0; j < {S}L; ++j)"):
                w.line("s += r[j];")
        w.line(f"const double mean = s / {max(m, 1)}.0;")
        with w.block(f"for (long i = 0; i < {N}L; ++i)"):
            w.line(f"const {st} *const r = {xp} + (i * {Cn}L + c) * {S}L;")
            w.line("#pragma omp simd reduction(+:q)")
            with w.block(f"for (long j = 0; j < {S}L; ++j)"):
                w.line("const double dv = r[j] - mean; q += dv * dv;")
        w.line(f"{out}[c] = ({st})mean; {out}[{Cn}L + c] = ({st})(q / {max(m, 1)}.0);")
