"""The direct tile kernel (conv.render_tiles) when its packed weights are too large for the caches.

A convolution's register tile sums over every (input channel, kernel row, kernel column), reading
the packed weights Cg x KH x KW x KV * V once per tile. For a forward convolution they are a few
hundred KB at most and stay in L2 across the tiles. The filter gradient run as a forward
convolution (conv._backprop_filter_direct: the images are X's channels, the "kernel" is dY) has
for "weights" all of dY: 25.7 MB for ResNet-18's stage-1 3x3 layers at batch 32, which every one
of the 64 x 3 tiles streamed from memory again - 4.9 GB per gradient, 43 % of W10's training step.

Here each thread takes a contiguous share of the units (image x group x channel block x output
row) and walks the reduction in blocks - one input channel c and a few kernel rows, about
STREAM_BLOCK bytes of weights - running every tile of its share over a block before the next:
each block is read from memory once per thread and then from L2. The tiles' accumulators live in
a buffer between blocks (loaded and stored by the microkernel). Each accumulator adds the same
products in the same order as the one-pass tile (c, then kernel row, then kernel column), so the
results are the same bits."""
from __future__ import annotations

from pycompile.backend.c.ops import ctypes_ as C
from pycompile.backend.c.ops import vectors

STREAM_MIN = 1 << 20            # packed weight bytes per tile above which the reduction is blocked
STREAM_BLOCK = 1 << 16          # bytes of weights per block: a few kernel rows (L2 holds it)


def applies(g, dt, kv: int) -> bool:
    return g.Cg * g.KH * g.KW * kv * vectors.lanes(dt) * dt.itemsize > STREAM_MIN


def render_units(ctx, w, g, dt, kv: int, px: int, cs: int, rs: int, name: str, locate, store, microkernel):
    """The units loop of conv.render_tiles, blocked over the reduction. `locate(w)` declares oh,
    b, gg, n, xrow, wb, k0, kn for unit u; `store(count)` stores the tile in `buf`;
    `microkernel` is conv._microkernel (its `blocked` form: one input channel and a few kernel
    rows onto the accumulators in buf)."""
    st = C.storage(dt)
    vl = kv * vectors.lanes(dt)
    kb = -(-g.Kg // vl)
    units = g.N * g.G * kb * g.OH
    tail = g.OW % px
    tiles = g.OW // px + (1 if tail else 0)
    per_unit = tiles * px * vl
    rows = max(1, min(g.KH, STREAM_BLOCK // max(1, g.KW * vl * dt.itemsize)))
    mk = microkernel(ctx.defs, f"{name}_mks", g, dt, kv, px, cs, rs, blocked=True)
    mkt = microkernel(ctx.defs, f"{name}_mkst", g, dt, kv, tail, cs, rs, blocked=True) if tail else None
    w.line(f"static __thread void *{name}_abuf; static __thread size_t {name}_acap;")
    w.line(f"{st} *const ACC = ({st} *)pc_scratch(&{name}_abuf, &{name}_acap, sizeof({st}) * {units * per_unit}L);")
    w.line("#pragma omp parallel for num_threads(nt) schedule(static)")
    with w.block("for (long tid = 0; tid < nt; ++tid)"):
        w.line(f"const long u0 = {units}L * tid / nt, u1 = {units}L * (tid + 1) / nt;")
        w.line(f"memset(ACC + u0 * {per_unit}L, 0, sizeof({st}) * (u1 - u0) * {per_unit}L);")
        with w.block(f"for (long c = 0; c < {g.Cg}L; ++c)"):
            with w.block(f"for (long r0 = 0; r0 < {g.KH}L; r0 += {rows}L)"):
                w.line(f"const long r1 = r0 + {rows}L < {g.KH}L ? r0 + {rows}L : {g.KH}L;")
                with w.block("for (long u = u0; u < u1; ++u)"):
                    locate(w)
                    w.line(f"{st} *const acc = ACC + u * {per_unit}L;")
                    with w.block(f"for (long t = 0; t < {g.OW // px}L; ++t)"):
                        w.line(f"{mk}(xrow + t * {px * g.SW}L, wb, acc + t * {px * vl}L, c, r0, r1);")
                    if mkt:
                        w.line(f"{mkt}(xrow + {(g.OW - tail) * g.SW}L, wb, acc + {(tiles - 1) * px * vl}L, c, r0, r1);")
        with w.block("for (long u = u0; u < u1; ++u)"):
            locate(w)
            w.line(f"const {st} *const acc = ACC + u * {per_unit}L;")
            with w.block(f"for (long t = 0; t < {tiles}L; ++t)"):
                w.line(f"const long ow0 = t * {px}L;")
                w.line(f"const {st} *const buf = acc + t * {px * vl}L;")
                store(f"(ow0 + {px}L <= {g.OW}L ? {px}L : {tail}L)")
