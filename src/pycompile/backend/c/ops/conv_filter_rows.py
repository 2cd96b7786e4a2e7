"""Conv2DBackpropFilter for few output channels (K * 2 < a vector's lanes: LeNet's first layer,
K = 6), vectorized along output pixels instead of channels (issue 32 item 4, branch train32).

dW[k][c][r][s] = sum over n, oh, ow of dY[n][k][oh][ow] * X[n][c][oh + r][ow + s] (stride and
dilation 1, one group). One task per (k, c, r): for each (image, output row) it loads the row
of dY once and, for each kernel column s, the row of X shifted by s, and multiply-adds them into
KW x (vectors a row) accumulators; the lanes are summed at the end. A row of OW pixels is read
as whole vectors; when OW is not a multiple of the vector, the last vector is the row's last
lanes (it overlaps the one before) and its overlapping lanes' products are masked to +0, so every
read stays inside its row (no copy of dY or X without padding) and an infinite X beside a
masked lane cannot make a NaN. The im2col + BLAS kernel it replaces (conv.py
`_conv_backprop_filter`) took 0.65 ms on LeNet's first layer (one thread): an im2col of 25 rows
per image and a 6-row product. The sums are in another order (a float64 reference in
tests/backend/test_train32_conv_rows.py); PyNative and graph mode run this same C."""
from __future__ import annotations

from pycompile.common import dtype as mstype
from pycompile.backend.c.ops import ctypes_ as C
from pycompile.backend.c.ops import vectors
from pycompile.backend.c.ops.writer import scope

MAX_ACCUMULATORS = 24


def applies(g, dt) -> bool:
    """Whether dW of geometry `g` (conv.Geometry) runs here: 2-D, one group, stride and dilation
    1, float32 / float64, few output channels, a row of at least one vector and its KW x vectors
    accumulators in registers."""
    if dt not in (mstype.float32, mstype.float64):
        return False
    lanes = vectors.logical_lanes(dt)     # which pixels a vector holds, the order its lanes add in
    nv = -(-g.OW // lanes)
    return (g.sp == 2 and g.D == 1 and g.G == 1 and (g.SH, g.SW, g.DH, g.DW) == (1, 1, 1, 1)
            and g.K * 2 < lanes and g.OW >= lanes and g.KW * nv <= MAX_ACCUMULATORS)


def render(ctx, w, n, g, out: str, dt, name: str, padded_input, split_flops):
    """The C of dW (see the module doc). `padded_input` and `split_flops` are conv.py's. All of
    it in one C block: the padded copy's pointer (XP) is then local to it, so two such gradients
    in one function do not define XP twice (CNN fuzzer seed 50079: the C did not compile)."""
    with scope(w):
        _render(ctx, w, n, g, out, dt, name, padded_input, split_flops)


def _render(ctx, w, n, g, out: str, dt, name: str, padded_input, split_flops):
    dout, x = n.inputs
    st = C.storage(dt)
    lanes = vectors.logical_lanes(dt)     # which pixels a vector holds, the order its lanes add in
    nv = -(-g.OW // lanes)
    last = g.OW - lanes                 # where the last vector starts (overlapping when OW % lanes)
    overlap = nv * lanes - g.OW         # its first lanes, already summed by the vector before
    # logical vector v written as P machine vectors (p = v * P + h, h < P) of pl lanes each
    P, pl, vt, it = vectors.pieces(dt), vectors.lanes(dt), vectors.vtype(dt), vectors.itype(dt)

    def at(v, h):                       # where piece h of logical vector v reads its row
        return (last if v == nv - 1 else v * lanes) + h * pl

    kern = f"{name}_fr"
    defs = ctx.defs
    xp, cs, rs = padded_input(w, g, ctx.ptr(x), st, name, 0)
    nacc = g.KW * nv
    # one (k, c, r) over one image: dY rows of channel k, X rows of channel c from row r on,
    # the accumulators in memory between images
    defs.line(f"PC_CONTRACT_FN void {kern}(const {st} *restrict d, const {st} *restrict xr, {vt} *restrict acc)")
    with scope(defs):
        defs.line("PC_CONTRACT_BODY")
        # The last vector's lanes below `overlap` are masked to +0, and every piece of it goes
        # through the mask as the logical vector does (a product, then the mask, then the add: no
        # fused multiply-add, whose rounding differs). The masks are read through a volatile
        # pointer: a piece whose mask is all ones would otherwise be folded to a plain multiply-add
        # and fused (16-byte pieces of LeNet's 16-lane vector differed so). A piece wholly below
        # `overlap` would only add +0 to a sum that starts at +0 (never -0), and its product is one
        # an earlier piece makes, which GCC would share and then not fuse there: it is left out.
        pcs = [(v, h) for v in range(nv) for h in range(P) if not (v == nv - 1 and (h + 1) * pl <= overlap)]
        defs.line(" ".join(f"{vt} a{s}_{v}_{h} = acc[{(s * nv + v) * P + h}];" for s in range(g.KW) for v, h in pcs))
        masked = [h for v, h in pcs if v == nv - 1] if overlap else []
        for h in masked:
            defs.line(f"static const {it} keep{h}_c = {{{', '.join('0' if h * pl + i < overlap else '-1' for i in range(pl))}}};")
            defs.line(f"const {it} keep{h} = *(const volatile {it} *)&keep{h}_c;")
        with defs.block(f"for (long oh = 0; oh < {g.OH}L; ++oh, d += {g.OW}L, xr += {rs}L)"):
            for v, h in pcs:
                defs.line(f"{vt} d{v}_{h}; memcpy(&d{v}_{h}, d + {at(v, h)}, sizeof d{v}_{h});")
            for s in range(g.KW):
                for v, h in pcs:
                    load = f"{vt} b; memcpy(&b, xr + {at(v, h) + s}, sizeof b);"
                    if v == nv - 1 and h in masked:
                        defs.line(f"{{ {load} a{s}_{v}_{h} += ({vt})(({it})(d{v}_{h} * b) & keep{h}); }}")
                    else:
                        defs.line(f"{{ {load} a{s}_{v}_{h} += d{v}_{h} * b; }}")
        defs.line(" ".join(f"acc[{(s * nv + v) * P + h}] = a{s}_{v}_{h};" for s in range(g.KW) for v, h in pcs))
    defs.line("")
    units = g.K * g.C * g.KH
    w.line("{")
    with w.indent():
        w.line(f"static __thread void *{name}_abuf; static __thread size_t {name}_acap;")
        # (a storage-type pointer: the outlined parallel loop captures it)
        w.line(f"{st} *const ACC = ({st} *)pc_scratch(&{name}_abuf, &{name}_acap, sizeof({st}) * {units * nacc * lanes}L);")
        w.line(f"memset(ACC, 0, sizeof({st}) * {units * nacc * lanes}L);")
        # nt tasks, each a contiguous range of (k, c, r), walked image by image: an image's dY
        # and X stay in cache while its (k, c, r) pass over them
        w.line(f"#pragma omp parallel for num_threads(nt) schedule(static) if ({split_flops(g.flops)})")
        with w.block("for (long tid = 0; tid < nt; ++tid)"):
            w.line(f"const long u0 = tid * {units}L / nt, u1 = (tid + 1) * {units}L / nt;")
            with w.block(f"for (long nn = 0; nn < {g.N}L; ++nn)"):
                with w.block("for (long u = u0; u < u1; ++u)"):
                    w.line(f"const long k = u / {g.C * g.KH}L, c = (u / {g.KH}L) % {g.C}L, r = u % {g.KH}L;")
                    w.line(f"{kern}({ctx.ptr(dout)} + (nn * {g.K}L + k) * {g.OH * g.OW}L, "
                           f"{xp} + (nn * {g.C}L + c) * {cs}L + r * {rs}L, ({vt} *)(ACC + u * {nacc * lanes}L));")
            with w.block("for (long u = u0; u < u1; ++u)"):
                with w.block(f"for (long s = 0; s < {g.KW}L; ++s)"):
                    # the logical vectors added, then their lanes in order (piece by piece)
                    w.line(f"const {vt} *const a = (const {vt} *)(ACC + (u * {nacc}L + s * {nv}L) * {lanes}L);")
                    w.line(f"{st} h = 0;")
                    for h in range(P):
                        w.line(f"{{ const {vt} t = {' + '.join(f'a[{v * P + h}]' for v in range(nv))};")
                        w.line(f"  for (int l = 0; l < {pl}; ++l) h += t[l]; }}")
                    w.line(f"{out}[u * {g.KW}L + s] = h;")
    w.line("}")
