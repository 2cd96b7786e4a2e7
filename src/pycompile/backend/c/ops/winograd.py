"""Winograd F(2x2, 3x3) for float32 3x3 convolutions (stride 1, dilation 1, one group): the
forward lowering backend/c/ops/conv.py chooses for them when both channel counts are at least
MIN_CHANNELS (PYCOMPILE_WINOGRAD=0 turns it off).

Each 2x2 block of output pixels ("tile") of one image reads a 4x4 block d of the input; with the
kernel g transformed once into U = G g G^T (4x4 per output / input channel pair) and the input
into V = B^T d B, the tile's outputs are A^T M A with M[xi] = sum over c of U[xi][k][c] V[xi][c]
for each of the 16 positions xi: 16 products of (K x C) by (C x tiles), 16 C multiply-adds per
tile and output channel where the direct kernel does 36 (2.25x fewer). The transforms use only
0, +-1 and 1/2 (G), so on small integers every step is exact, as the direct kernel is.

The weights are transformed into U[xi][k block][c][r] (r output channels a block, zero past K; a
BatchNorm scale the direct kernel folds into its weights stays a multiply in the epilogue here),
and U is kept (per calling thread) while the weights equal the copy it was made from. Then units
of (tb consecutive tiles, flat over image / tile row / tile column) x (a group of channel blocks,
only when there are few tiles) are split over the threads; each unit
  * transforms its tiles' input into V[xi][c][ts] (the thread's scratch), channel by channel and
    L tiles a vector (L = 16 with AVX-512, 8 with AVX2), straight from the input rows (lanes
    outside the image masked to zero: no padded copy), each vector stored at a multiple of L tiles;
  * multiplies: a register tile of r output channels (U broadcast) x nv vectors of L tiles
    (V loaded), summed over c with fused multiply-adds - 24 accumulators with AVX-512's 32
    registers, 12 with AVX2's 16, as the direct kernel's tile;
  * transforms back L tiles a vector per output channel, interleaves the two columns of each
    tile into two output rows of 2L pixels and stores them through the convolution's epilogue
    (bias, BatchNorm scale and shift, activation, residual add), as the direct kernel stores.
Measured on the 2-core AVX-512 machine (docs/guide/cnn.md, "Winograd"); the error against the
float64 convolution is within a few float32 roundings, as the direct kernel's
(tests/backend/test_winograd.py). Written in the machine's vectors (vectors.py) where they hold 8 or
16 floats: every output's sums are the same operations in the same order either way, so AVX2 and
AVX-512 give the same bits; with 16-byte vectors the direct kernel runs.
"""
from __future__ import annotations

from pycompile.common import dtype as mstype
from pycompile.common import knobs
from pycompile.backend.c.ops import vectors
from pycompile.backend.c.ops.writer import CWriter, scope

# Both channel counts at least this (measured: docs/guide/cnn.md, "Winograd"); below it the
# transforms cost more than the products save.
MIN_CHANNELS = 16
# and outputs at least this wide, with this many 2 x 2 tiles: a row of fewer than 12 tiles fills
# few of a vector's 16 lanes (1 x 64 x 14 x 14: 0.31 ms against the direct kernel's 0.22; 8 x 64 x
# 7 x 7: 0.67 against 0.45), and a few hundred tiles leave the unit's fixed costs uncovered
# (1 x 64 x 28 x 28, 196 tiles: 0.74 against 0.80)
MIN_WIDTH = 24
MIN_TILES = 256
# lane indices of two-vector shuffles of L-lane vectors (PC_WSHUF<L>: GCC's __builtin_shuffle,
# clang's __builtin_shufflevector): even / odd lanes of 2L, one lane on (the next vector's first
# two), and the interleaving of two vectors' first / second halves
def _idx(values) -> str:
    return ", ".join(str(v) for v in values)


def _even(L): return _idx(range(0, 2 * L, 2))
def _odd(L): return _idx(range(1, 2 * L, 2))
def _next0(L): return _idx(range(1, L + 1))
def _next1(L): return _idx(list(range(1, L)) + [L + 1])
def _lo(L): return _idx(v for i in range(L // 2) for v in (i, L + i))
def _hi(L): return _idx(v for i in range(L // 2, L) for v in (i, L + i))


def _shuf_macro(L):
    return (f"#ifndef PC_WSHUF{L}",
            "#if defined(__clang__)",
            f"#define PC_WSHUF{L}(a, b, ...) __builtin_shufflevector(a, b, __VA_ARGS__)",
            "#else",
            f"#define PC_WSHUF{L}(a, b, ...) __builtin_shuffle(a, b, (pc_v{L}i){{__VA_ARGS__}})",
            "#endif",
            "#endif")


_PF = 2             # channels ahead whose input rows / output rows are prefetched


def applies(g, dt) -> bool:
    """Whether the convolution `g` (conv.Geometry) of dtype `dt` runs on Winograd."""
    return (dt is mstype.float32 and g.sp == 2 and g.D == 1 and g.G == 1 and (g.KH, g.KW) == (3, 3)
            and (g.SH, g.SW, g.DH, g.DW) == (1, 1, 1, 1) and g.C >= MIN_CHANNELS and g.K >= MIN_CHANNELS
            and g.OW >= MIN_WIDTH and g.N * ((g.OH + 1) // 2) * ((g.OW + 1) // 2) >= MIN_TILES
            and knobs.get("PYCOMPILE_WINOGRAD") and vectors.lanes(dt) in (8, 16))


class Plan:
    """The blocking of one convolution: r output channels x nv vectors of tiles a register tile
    (r = 8, nv = 3 when 8 divides K, else 6 x 4: 24 accumulators either way, no padded channels
    for K = 64), tb tiles a unit (a multiple of 16 nv), ts the stride of a V / M row, vx / mx
    the stride of V's / M's 16 slabs, kb channel blocks (kp channels with the padding), and the
    blocks of tiles."""

    def __init__(self, g):
        # L tiles a vector: the machine's float32 lanes (16 with AVX-512, 8 with AVX2); the
        # register tile keeps vectors.accumulators() sums (24 of 32 registers, 12 of 16). With 8
        # lanes, W10 at one thread on the AMD EPYC (one process, 9 alternated rounds): 6 x 2
        # 110 ms, 5 x 2 0.98x of it, 4 x 3 1.13x, 8 x 1 1.13x, 3 x 4 and 2 x 5 ~1.15x
        self.L = L = vectors.lanes(mstype.float32)
        if L == 16:
            self.r, self.nv = (8, 3) if g.K % 8 == 0 else (6, 4)
        else:
            self.r, self.nv = 6, 2
        self.tb = L * self.nv * (128 // (L * self.nv))       # 96 or 128
        self.ts = self.tb + L
        self.kb = -(-g.K // self.r)
        self.kp = self.kb * self.r
        self.vx, self.mx = _slab(g.C * self.ts, L), _slab(self.kp * self.ts, L)
        self.n_tiles = g.N * ((g.OH + 1) // 2) * ((g.OW + 1) // 2)
        self.blocks = -(-self.n_tiles // self.tb)


def _slab(floats: int, L: int) -> int:
    """The stride of the 16 slabs of V or M: `floats` rounded up to a cache line, then moved off
    multiples of 4 KiB - 16 slabs 36 KiB apart (C = 64) fell in one L1 set, and the input
    transform, which stores a vector into each, ran 3x slower."""
    n = -(-floats // L) * L
    while (n * 4) % 4096 < 256 or (n * 4) % 4096 > 4096 - 256:
        n += L
    return n


def _shared(ctx, name: str, suffix: str, build) -> str:
    """The C name of a helper function `build(writer, fn)` writes: an equal one already in the
    module (ResNet's 3x3 layers of one stage share all but their stores), else `name_suffix`,
    written now. Each helper costs the C compiler ~0.1 s."""
    w = CWriter()
    build(w, "PC_WINO_FN")
    text = "\n".join(w.lines)
    table = ctx.mod.shared_fns
    if text not in table:
        table[text] = f"{name}_{suffix}"
        ctx.defs.lines.extend(text.replace("PC_WINO_FN", table[text]).split("\n"))
    return table[text]


def _weights(defs, fn: str, g, p: "Plan") -> str:
    """static void name(const float *w, float *U, long k): output channel k's U = G g G^T for
    every input channel, into U[xi][k / R][c][k % R] (zeros for k >= K), in double, rounded once."""
    kb = p.kb
    defs.line(f"static void {fn}(const float *restrict w, float *restrict U, long k)")
    with scope(defs):
        defs.line(f"const long b = k / {p.r}L, i = k % {p.r}L;")
        with defs.block(f"for (long c = 0; c < {g.C}L; ++c)"):
            defs.line("double t[4][3], u[16];")
            with defs.block(f"if (k < {g.K}L)"):
                defs.line(f"const float *const q = w + (k * {g.C}L + c) * 9L;")
                with defs.block("for (int s = 0; s < 3; ++s)"):
                    defs.line("const double g0 = q[s], g1 = q[3 + s], g2 = q[6 + s];")
                    defs.line("t[0][s] = g0; t[1][s] = 0.5 * (g0 + g1 + g2); t[2][s] = 0.5 * (g0 - g1 + g2); "
                              "t[3][s] = g2;")
                with defs.block("for (int a = 0; a < 4; ++a)"):
                    defs.line("const double h0 = t[a][0], h1 = t[a][1], h2 = t[a][2];")
                    defs.line("u[4 * a] = h0; u[4 * a + 1] = 0.5 * (h0 + h1 + h2); "
                              "u[4 * a + 2] = 0.5 * (h0 - h1 + h2); u[4 * a + 3] = h2;")
            with defs.block("else"):
                defs.line("for (int x = 0; x < 16; ++x) u[x] = 0.0;")
            defs.line(f"for (int x = 0; x < 16; ++x) U[((x * {kb}L + b) * {g.C}L + c) * {p.r}L + i] = (float)u[x];")
    defs.line("")
    return fn


def _segments(w, g, th_tw: int, body):
    """Walk the tile-row segments of tiles [t0, tn): n, th, tw0 (first tile column), cnt, toff
    (offset in the unit); `body` emits the statements of one segment."""
    with w.block("for (long t = t0; t < tn; )"):
        w.line(f"const long n = t / {th_tw}L, r = t % {th_tw}L, th = r / {(g.OW + 1) // 2}L, "
               f"tw0 = r % {(g.OW + 1) // 2}L;")
        w.line(f"const long cnt = {(g.OW + 1) // 2}L - tw0 < tn - t ? {(g.OW + 1) // 2}L - tw0 : tn - t;")
        w.line("const long toff = t - t0; (void)toff; (void)n;")
        body()
        w.line("t += cnt;")


def _input(defs, fn: str, g, p: "Plan") -> str:
    """static void name(const float *x, float *V, long t0, long tn): V[xi][c][toff + j] for the
    tiles [t0, tn). 16 tiles a vector: for each of their 4 input rows, 48 consecutive floats from
    the first tile's column (A, B, C: columns 0-15, 16-31, 32-47 of the span) - lanes outside
    the image's row masked to zero (an out-of-range row is zero), so no padded copy - then B^T
    down the rows and B across: d0 / d1 = even / odd lanes of (A, B), d2 / d3 the same moved
    one lane with C's first two. A span that would leave the tensor's memory is read through a
    bounded copy. The rows of the channel PF ahead are prefetched (the input comes from L3)."""
    ts, vx = p.ts, p.vx
    tw = (g.OW + 1) // 2
    total = g.N * g.C * g.H * g.W
    L = p.L
    vt, it = f"pc_v{L}f", f"pc_v{L}i"
    lanes = ", ".join(str(i) for i in range(L))
    defs.line(f"static void {fn}(const float *restrict x, float *restrict V, long t0, long tn)")
    with scope(defs):
        defs.line(f"const {it} col = {{{lanes}}};")
        defs.line(f"const {vt} zero = {{0}};")

        def segment():
            defs.line(f"const long c0 = 2 * tw0 - {g.PW}L, h0 = 2 * th - {g.PH}L;")
            defs.line(f"const int ok0 = h0 >= 0 && h0 < {g.H}L, ok1 = h0 + 1 >= 0 && h0 + 1 < {g.H}L;")
            defs.line(f"const int ok2 = h0 + 2 >= 0 && h0 + 2 < {g.H}L, ok3 = h0 + 3 >= 0 && h0 + 3 < {g.H}L;")
            defs.line(f"const float *const xc = x + (n * {g.C}L + c) * {g.H * g.W}L + h0 * {g.W}L;")
            # the same rows of the channel PF ahead (a wrap to the next image's is harmless)
            defs.line(f"const float *const xf = xc + {_PF * g.H * g.W}L;")
            with defs.block(f"for (long q = c0; q < c0 + 2 * cnt + 2; q += {L})"):
                for i in range(4):
                    defs.line(f"__builtin_prefetch(xf + {i * g.W}L + q);")
            # vectors stored at multiples of 16 tiles in V (a store across two cache lines cost the
            # transform 1.8x): the first starts o tiles before the segment, its lanes < o keep the
            # previous segment's values
            defs.line(f"float *const vc = V + c * {ts}L + toff;")
            defs.line(f"const long o = toff & {L - 1}L;")
            defs.line(f"const {it} keep = col < (int)o;")
            with defs.block(f"for (long j = -o; j < cnt; j += {L})"):
                defs.line("const long s = c0 + 2 * j;")
                defs.line(f"const int edge = s < 0 || s + {2 * L + 2} > {g.W}L;")
                defs.line(f"{it} ma = {{0}}, mb = {{0}}, mc = {{0}};")
                with defs.block("if (edge)"):
                    defs.line(f"const {it} ca = col + (int)s, cb = ca + {L}, cc = ca + {2 * L};")
                    defs.line(f"ma = (ca >= 0) & (ca < {g.W}); mb = (cb >= 0) & (cb < {g.W}); "
                              f"mc = (cc >= 0) & (cc < {g.W});")
                for i in range(4):
                    defs.line(f"{vt} a{i} = zero, b{i} = zero, c{i} = zero;")
                    with defs.block(f"if (ok{i})"):
                        defs.line(f"const float *const p = xc + {i * g.W}L + s;")
                        with defs.block(f"if (p >= x && p + {3 * L} <= x + {total}L)"):
                            defs.line(f"memcpy(&a{i}, p, sizeof a{i}); memcpy(&b{i}, p + {L}, sizeof b{i}); "
                                      f"memcpy(&c{i}, p + {2 * L}, sizeof c{i});")
                        with defs.block("else"):
                            # the tensor's first or last row: read only its own columns
                            defs.line(f"float t[{3 * L}];")
                            defs.line(f"for (int l = 0; l < {3 * L}; ++l) t[l] = s + l >= 0 && s + l < {g.W}L ? p[l] : 0.0f;")
                            defs.line(f"memcpy(&a{i}, t, sizeof a{i}); memcpy(&b{i}, t + {L}, sizeof b{i}); "
                                      f"memcpy(&c{i}, t + {2 * L}, sizeof c{i});")
                        with defs.block("if (edge)"):
                            defs.line(f"a{i} = ({vt})(({it})a{i} & ma); b{i} = ({vt})(({it})b{i} & mb); "
                                      f"c{i} = ({vt})(({it})c{i} & mc);")
                # B^T down the rows: (d0 - d2, d1 + d2, d2 - d1, d1 - d3)
                for part in "abc":
                    defs.line(f"const {vt} {part}r0 = {part}0 - {part}2, {part}r1 = {part}1 + {part}2, "
                              f"{part}r2 = {part}2 - {part}1, {part}r3 = {part}1 - {part}3;")
                for r in range(4):
                    defs.line(f"{{ const {vt} d0 = PC_WSHUF{L}(ar{r}, br{r}, {_even(L)}), "
                              f"d1 = PC_WSHUF{L}(ar{r}, br{r}, {_odd(L)});")
                    defs.line(f"  const {vt} d2 = PC_WSHUF{L}(d0, cr{r}, {_next0(L)}), "
                              f"d3 = PC_WSHUF{L}(d1, cr{r}, {_next1(L)});")
                    for q, expr in enumerate(("d0 - d2", "d1 + d2", "d2 - d1", "d1 - d3")):
                        xi = 4 * r + q
                        defs.line(f"  {{ {vt} v = {expr}; float *const dst = vc + {xi * vx}L + j;")
                        defs.line(f"    if (j < 0) {{ {vt} old; memcpy(&old, dst, sizeof old); "
                                  f"v = ({vt})((({it})old & keep) | (({it})v & ~keep)); }}")
                        defs.line("    memcpy(dst, &v, sizeof v); }")
                    defs.line("}")
        # channel by channel, then along the unit's tiles: each of V's 16 slabs is written in order
        with defs.block(f"for (long c = 0; c < {g.C}L; ++c)"):
            _segments(defs, g, ((g.OH + 1) // 2) * tw, segment)
    defs.line("")
    return fn


def _microkernel(defs, fn: str, g, p: "Plan") -> str:
    """PC_CONTRACT_FN void name(const float *u, const float *v, float *m): m[i * TS + 16 q + l] =
    sum over c of u[c * R + i] v[c * TS + 16 q + l] (R channels x NV vectors of tiles)."""
    ts, vt = p.ts, f"pc_v{p.L}f"
    defs.line(f"PC_CONTRACT_FN void {fn}(const float *restrict u, const float *restrict v, float *restrict m)")
    with scope(defs):
        defs.line("PC_CONTRACT_BODY")
        for i in range(p.r):
            defs.line(" ".join(f"{vt} a{i}_{q} = {{0}};" for q in range(p.nv)))
        with defs.block(f"for (long c = 0; c < {g.C}L; ++c)"):
            defs.line(f"const {vt} *const vc = (const {vt} *)(v + c * {ts}L);")
            defs.line(" ".join(f"const {vt} v{q} = vc[{q}];" for q in range(p.nv)))
            defs.line(f"const float *const uc = u + c * {p.r}L;")
            for i in range(p.r):
                defs.line(f"{{ const float s = uc[{i}]; " + " ".join(f"a{i}_{q} += s * v{q};" for q in range(p.nv)) + " }")
        for i in range(p.r):
            defs.line(" ".join(f"(({vt} *)(m + {i * ts}L))[{q}] = a{i}_{q};" for q in range(p.nv)))
    defs.line("")
    return fn


def _products(defs, fn: str, g, p: "Plan", mk: str) -> str:
    """static void name(const float *U, const float *V, float *M, long nb, long b0, long b1):
    M[xi][k][TS] for the channel blocks [b0, b1) and the first nb blocks of NV vectors of tiles."""
    ts, vx, mx, kb = p.ts, p.vx, p.mx, p.kb
    defs.line(f"static void {fn}(const float *restrict U, const float *restrict V, float *restrict M, long nb, "
              "long b0, long b1)")
    with scope(defs):
        # the unit's V columns of one block of tiles (C x NV vectors) stay in L1 across the channel blocks
        with defs.block("for (long xi = 0; xi < 16; ++xi)"):
            with defs.block("for (long q = 0; q < nb; ++q)"):
                with defs.block("for (long b = b0; b < b1; ++b)"):
                    defs.line(f"{mk}(U + (xi * {kb}L + b) * {g.C * p.r}L, V + xi * {vx}L + q * {p.L * p.nv}L, "
                              f"M + xi * {mx}L + b * {p.r * ts}L + q * {p.L * p.nv}L);")
    defs.line("")
    return fn


def _output(defs, fn: str, g, p: "Plan", epi, extra_types, store) -> str:
    """static void name(const float *M, float *y, extras..., long t0, long tn, long k0, long k1):
    A^T M A for the tiles [t0, tn) and output channels [k0, k1), stored through the epilogue."""
    ts, mx, L = p.ts, p.mx, p.L
    vt = f"pc_v{L}f"
    tw = (g.OW + 1) // 2
    params = "".join(f", const {t} *restrict ep{k}" for k, t in enumerate(extra_types))
    defs.line(f"static void {fn}(const float *restrict M, float *restrict y{params}, long t0, long tn, long k0, long k1)")
    with scope(defs):
        defs.line(f"float buf[2][{2 * L}] __attribute__((aligned(64)));")

        def segment():
            with defs.block("for (long k = k0; k < k1; ++k)"):
                for line in epi.hoist("k"):
                    defs.line(line)
                # the output rows (and a residual's) of the channel PF ahead: their lines come from L3
                defs.line(f"const long pb = ((n * {g.K}L + k + {_PF}L) * {g.OH}L + 2 * th) * {g.OW}L + 2 * tw0;")
                with defs.block(f"if (k + {_PF}L < k1)"):
                    with defs.block(f"for (long q = 0; q < 2 * cnt; q += {L})"):
                        for r in range(2):
                            defs.line(f"__builtin_prefetch(y + pb + {r * g.OW}L + q, 1);")
                            for k, (ptr, _) in enumerate(epi.extras):
                                if epi.kind(k) == "full" and epi._used(k):
                                    defs.line(f"__builtin_prefetch({ptr} + pb + {r * g.OW}L + q);")
                defs.line("const float *const mk = M + k * " + f"{ts}L + toff;")
                with defs.block(f"for (long j = 0; j < cnt; j += {L})"):
                    defs.line(f"{vt} m[16];")
                    defs.line(f"for (int x = 0; x < 16; ++x) memcpy(&m[x], mk + x * {mx}L + j, sizeof m[x]);")
                    # A^T = [[1, 1, 1, 0], [0, 1, -1, -1]]: rows, then columns
                    defs.line(f"{vt} s0[4], s1[4];")
                    defs.line("for (int q = 0; q < 4; ++q) { s0[q] = m[q] + m[4 + q] + m[8 + q]; "
                              "s1[q] = m[4 + q] - m[8 + q] - m[12 + q]; }")
                    defs.line(f"const {vt} y00 = s0[0] + s0[1] + s0[2], y01 = s0[1] - s0[2] - s0[3];")
                    defs.line(f"const {vt} y10 = s1[0] + s1[1] + s1[2], y11 = s1[1] - s1[2] - s1[3];")
                    defs.line(f"{{ const {vt} z0 = PC_WSHUF{L}(y00, y01, {_lo(L)}), z1 = PC_WSHUF{L}(y00, y01, {_hi(L)}); "
                              f"memcpy(buf[0], &z0, sizeof z0); memcpy(buf[0] + {L}, &z1, sizeof z1); }}")
                    defs.line(f"{{ const {vt} z0 = PC_WSHUF{L}(y10, y11, {_lo(L)}), z1 = PC_WSHUF{L}(y10, y11, {_hi(L)}); "
                              f"memcpy(buf[1], &z0, sizeof z0); memcpy(buf[1] + {L}, &z1, sizeof z1); }}")
                    defs.line(f"const long ow0 = 2 * (tw0 + j), nt2 = 2 * (cnt - j < {L} ? cnt - j : {L});")
                    defs.line(f"const long count = {g.OW}L - ow0 < nt2 ? {g.OW}L - ow0 : nt2;")
                    for r in range(2):
                        cond = f"if (2 * th + {r} < {g.OH}L)" if r and g.OH % 2 else ""
                        with defs.block(cond) if cond else scope(defs):
                            defs.line(f"const long yb = ((n * {g.K}L + k) * {g.OH}L + 2 * th + {r}) * {g.OW}L + ow0;")
                            defs.line("float *const yr = y + yb;")
                            defs.line("#pragma omp simd")
                            store(defs, epi, "yr", "yb", lambda j, r=r: f"buf[{r}][{j}]", "count",
                                           "float", "float")
        _segments(defs, g, ((g.OH + 1) // 2) * tw, segment)
    defs.line("")
    return fn


def render(ctx, w, g, x: str, wt: str, y: str, args: list, epi, extra_types, name: str, conv):
    """Emit the Winograd convolution of node inputs x (N, C, H, W), wt (K, C, 3, 3) into y with
    the epilogue `epi` (backend/c/ops/conv.py's Epilogue, unfolded, over extras named ep0, ep1, ...
    of C types extra_types, passed as the C expressions `args`). `conv`: backend/c/ops/conv.py's
    store_channel, split_elements, split_flops and chunk (a module may not import its importer)."""
    _store_channel, split_elements, split_flops, _chunk = conv
    p = Plan(g)
    n_tiles, blocks, kb, kp = p.n_tiles, p.blocks, p.kb, p.kp
    _shared(ctx, name, "shuffle", lambda d, fn: d.lines_(_shuf_macro(p.L)))
    f_wt = _shared(ctx, name, "wt", lambda d, fn: _weights(d, fn, g, p))
    f_in = _shared(ctx, name, "in", lambda d, fn: _input(d, fn, g, p))
    f_mk = _shared(ctx, name, "mk", lambda d, fn: _microkernel(d, fn, g, p))
    f_mm = _shared(ctx, name, "mm", lambda d, fn: _products(d, fn, g, p, f_mk))
    f_out = _shared(ctx, name, "out", lambda d, fn: _output(d, fn, g, p, epi, extra_types, _store_channel))
    usize = 16 * kp * g.C
    vsize, msize = 16 * p.vx, 16 * p.mx
    w.line(f"static __thread void *{name}_ubuf; static __thread size_t {name}_ucap;")
    w.line(f"float *const UW = (float *)pc_scratch(&{name}_ubuf, &{name}_ucap, sizeof(float) * {usize}L);")
    # U is kept while the weights are unchanged: a compare of the weights with the copy U was
    # made from (147 KB for 64 x 64: ~3 us) instead of the transform (0.1-0.3 ms on one core)
    wsize = g.K * g.C * 9
    w.line(f"static __thread void *{name}_cbuf; static __thread size_t {name}_ccap; static __thread int {name}_have;")
    w.line(f"float *const WC = (float *)pc_scratch(&{name}_cbuf, &{name}_ccap, sizeof(float) * {wsize}L);")
    with w.block(f"if (!{name}_have || memcmp(WC, {wt}, sizeof(float) * {wsize}L) != 0)"):
        w.line(f"#pragma omp parallel for num_threads(nt) schedule(static) if ({split_elements(usize)})")
        with w.block(f"for (long k = 0; k < {kp}L; ++k)"):
            w.line(f"{f_wt}({wt}, UW, k);")
        w.line(f"memcpy(WC, {wt}, sizeof(float) * {wsize}L);")
        w.line(f"{name}_have = 1;")
    w.line(f"static __thread void *{name}_sbuf; static __thread size_t {name}_scap;")
    w.line(f"float *const WS = (float *)pc_scratch(&{name}_sbuf, &{name}_scap, sizeof(float) * {vsize + msize}L * nt);")
    # zeroed once: lanes of V past a unit's last tiles that no unit writes are multiplied too, and
    # fresh memory may hold denormals (a 1 x 16 x 14 x 14 layer took 0.45 ms instead of 0.02)
    w.line(f"static __thread size_t {name}_zcap;")
    with w.block(f"if ({name}_zcap != {name}_scap)"):
        w.line(f"memset(WS, 0, {name}_scap);")
        w.line(f"{name}_zcap = {name}_scap;")
    flops = 2 * 16 * g.C * kp * blocks * p.tb
    args = "".join(f", {a}" for a in args)
    # channel-block groups at this call's team size: with fewer than 4 blocks of tiles a thread,
    # each block's channels are cut into groups (each group transforms the block's input again),
    # one group on one thread
    # from 8 threads, with fewer than 8 blocks a thread, blocks are halved first (half as many tiles
    # a unit, still a multiple of the micro-kernel's 16 x nv: the pool cuts n units into at most 4 T
    # chunks, so W10's 66 blocks were 33 chunks of 2 at 16 threads, balance 1.45; 132 halves are 44
    # chunks of 3, balance 1.09). Each tile's sums are the same whichever unit holds it.
    mg = max(1, kb // 2)
    w.line(f"const long wsub = nt >= 8 && {blocks}L < 8L * nt ? 2L : 1L, wtb = {p.tb}L / wsub, "
           f"wbl = {blocks}L * wsub;")
    w.line(f"const long wgr = nt == 1 || wbl >= 4L * nt ? 1L : "
           f"((4L * nt + wbl - 1L) / wbl < {mg}L ? (4L * nt + wbl - 1L) / wbl : {mg}L);")
    w.line(f"const long wper = ({kb}L + wgr - 1) / wgr, wgn = ({kb}L + wper - 1) / wper;")
    w.line(f"#pragma omp parallel for num_threads(nt) schedule(dynamic, {_chunk(blocks)}) if ({split_flops(flops)})")
    with w.block("for (long u = 0; u < wbl * wgn; ++u)"):
        w.line("const long blk = u / wgn, grp = u % wgn;")
        w.line(f"float *const vb = WS + (long)omp_get_thread_num() * {vsize + msize}L;")
        w.line(f"float *const mb = vb + {vsize}L;")
        w.line(f"const long t0 = blk * wtb, tn = t0 + wtb < {n_tiles}L ? t0 + wtb : {n_tiles}L;")
        w.line(f"const long b0 = grp * wper, b1 = b0 + wper < {kb}L ? b0 + wper : {kb}L;")
        w.line(f"const long k1 = b1 * {p.r}L < {g.K}L ? b1 * {p.r}L : {g.K}L;")
        w.line(f"{f_in}({x}, vb, t0, tn);")
        w.line(f"{f_mm}(UW, vb, mb, (tn - t0 + {p.L * p.nv - 1}L) / {p.L * p.nv}L, b0, b1);")
        w.line(f"{f_out}(mb, {y}{args}, t0, tn, b0 * {p.r}L, k1);")
