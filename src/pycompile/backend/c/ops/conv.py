"""C for convolutions: a direct forward kernel specialized per node, and im2col / col2im tiles with
BLAS for 3-D convolutions and both backward ops.

Forward 2-D convolutions (float32 / float64) run one of two direct kernels, chosen by the number
of output channels per group (Kg) - or, for float32 3x3 stride-1 ones with enough channels and
tiles, Winograd F(2x2, 3x3) (backend/c/ops/winograd.py):

* tiles (Kg >= half a vector): the output is computed in register tiles of PX consecutive output
  pixels x KV vectors of output channels; for every (input channel, kernel row, kernel column)
  the tile loads KV weight vectors and broadcasts PX input values - 24 accumulators, 2 to 4 FMAs
  per load. Weights are packed per call into [group][channel block][c][r][s][KV * V] (V lanes),
  with a BatchNorm scale folded in when the epilogue starts with one.
* rows (Kg small: depthwise, LeNet's first layer): each output row of each channel is a vector
  loop over output pixels accumulating weight (a broadcast scalar) x input row (strided loads).

Both read a zero-padded copy of the input when the convolution pads (no bounds tests in the
loops), split (image x group x channel block x output row) units over the threads, and run the
fused epilogue (bias, BatchNorm shift, activation, residual add - compiler/passes/conv_epilogue.py)
on each tile before it is stored. Measured on the 2-core AVX-512 machine against oneDNN and
im2col + OpenBLAS (docs/guide/cnn.md, "Convolution kernels"): tiles reach oneDNN's speed on ResNet's 3x3 at
64 channels, where im2col + OpenBLAS is ~1.6x slower.
"""
from __future__ import annotations

import math

from pycompile.common import dtype as mstype
from pycompile.common import knobs
from pycompile.ops._table import OPS
from pycompile.backend.c.ops import ctypes_ as C
from pycompile.backend.c.ops import conv_stream
from pycompile.backend.c.ops import vectors
from pycompile.backend.c.ops import winograd
from pycompile.backend.c.ops.elementwise import expr as c_expr
from pycompile.backend.c.ops.templates import template
from pycompile.backend.c.ops.writer import scope
from pycompile.ops.defs.conv import out_size

# Work per thread below which a kernel runs on the calling thread. The test is made at run time
# against the call's team size nt (`work > PER_THREAD * nt`, see split_if): a loop is split over T
# threads when each of them gets enough work to pay for the pool's fork / join, so small layers
# (LeNet's) still split on a few threads and stay serial where 16 would each get too little.
# Measured on the 2-core machine (docs/benchmarks.md, "Work split over threads"): an empty loop
# handed to the pool costs ~0.6-0.8 us at 2 threads (workers spinning between the loops of a
# call); a loop of ~15 us already ran faster on two threads than on one. 2^18 FLOPs are ~5-8 us of
# a convolution kernel on one core, 2^13 elements ~4-8 us of pooling, padding or resampling.
# (Before issue 37 these were totals fixed at code generation: 2^24 FLOPs and 2^19 elements,
# which kept LeNet's first convolution and both poolings serial at any thread count.)
PARALLEL_FLOPS = 1 << 18
PARALLEL_ELEMENTS = 1 << 13


def parallel_flops() -> int:
    """The FLOPs per thread above which a convolution kernel splits over threads (PARALLEL_FLOPS
    unless PYCOMPILE_PARALLEL_FLOPS says otherwise; read when the C is generated)."""
    return knobs.get("PYCOMPILE_PARALLEL_FLOPS")


def parallel_elements() -> int:
    """The elements per thread above which a pooling / padding / resampling / random kernel splits
    over threads (PARALLEL_ELEMENTS unless PYCOMPILE_PARALLEL_ELEMENTS says otherwise)."""
    return knobs.get("PYCOMPILE_PARALLEL_ELEMENTS")


def split_if(work: int, per_thread: int) -> str:
    """The C condition of a parallel loop's `if (...)` clause: split when each of the call's nt
    threads gets more than per_thread units of `work` (FLOPs or elements); "0" where even one
    thread's share is too small (serial at any thread count, seen statically by
    tools/work_split.py)."""
    if work <= per_thread:
        return "0"
    return f"{work}L > {per_thread}L * nt"


def split_flops(work: int) -> str:
    return split_if(work, parallel_flops())


def split_elements(work: int) -> str:
    return split_if(work, parallel_elements())


def _prod(xs) -> int:
    return math.prod(xs) if xs else 1


class Geometry:
    """The static shape of one convolution: N, C, K, groups, spatial sizes, kernel, stride,
    dilation, pads (3 spatial axes; 2-D convolutions have a depth of 1)."""

    def __init__(self, x_shape, w_shape, attrs):
        sp = len(x_shape) - 2
        pad = lambda t: (1,) * (3 - sp) + tuple(t)                                   # noqa: E731
        self.sp = sp
        self.N, self.C = x_shape[:2]
        self.K = w_shape[0]
        self.G = attrs.get("group", 1)
        self.Cg, self.Kg = self.C // self.G, self.K // self.G
        self.D, self.H, self.W = pad(x_shape[2:])
        self.KD, self.KH, self.KW = pad(w_shape[2:])
        self.SD, self.SH, self.SW = pad(attrs.get("stride") or (1,) * sp)
        self.DD, self.DH, self.DW = pad(attrs.get("dilation") or (1,) * sp)
        pads = tuple(attrs.get("pads") or (0,) * (2 * sp))
        pads = (0, 0) * (3 - sp) + pads
        self.PD, self.PDa, self.PH, self.PHa, self.PW, self.PWa = pads
        self.OD = out_size(self.D, self.KD, self.SD, self.DD, self.PD, self.PDa)
        self.OH = out_size(self.H, self.KH, self.SH, self.DH, self.PH, self.PHa)
        self.OW = out_size(self.W, self.KW, self.SW, self.DW, self.PW, self.PWa)
        self.P = self.OD * self.OH * self.OW
        self.RS = self.KD * self.KH * self.KW
        self.padded = any(pads)

    @property
    def flops(self) -> int:
        return 2 * self.N * self.K * self.P * self.Cg * self.RS

    def im2col_args(self) -> str:
        return (f"{self.Cg}L, {self.D}L, {self.H}L, {self.W}L, {self.KD}L, {self.KH}L, {self.KW}L, {self.SD}L, "
                f"{self.SH}L, {self.SW}L, {self.DD}L, {self.DH}L, {self.DW}L, {self.PD}L, {self.PH}L, {self.PW}L, "
                f"{self.OH}L, {self.OW}L")


# ---- the epilogue ----------------------------------------------------------------------------------------
class Epilogue:
    """The elementwise program after a convolution (FusedConv's `program`), rendered per output
    element. `extras`: C pointers and shapes of its extra inputs; per-channel ones are read once
    per channel (`hoist`), full-shape ones at the element's index, one-element ones at 0."""

    def __init__(self, program, extras, out_shape, ct: str, fold_scale: bool):
        self.program = tuple(program)
        self.extras = extras
        self.ct = ct
        self.size = _prod(out_shape)
        self.k_count = out_shape[1]
        self.folded = None
        if fold_scale and self.program:
            # the first step multiplies by a per-channel extra: folded into the packed weights
            step = self.program[0]
            self.folded = next(a[1] for a in step[1:] if a[0] == "extra")
            self.program = tuple(_shift_steps(s) for s in self.program[1:])

    def kind(self, k):
        ptr, shape = self.extras[k]
        size = _prod(shape)
        if size == 1:
            return "one"
        if size == self.size:
            return "full"
        return "channel"

    def hoist(self, kexpr: str) -> list:
        """Statements declaring per-channel values for channel `kexpr`."""
        out = []
        for k, (ptr, _) in enumerate(self.extras):
            if self.kind(k) == "channel" and self._used(k):
                out.append(f"const {self.ct} e{k}c = ({self.ct}){ptr}[{kexpr}];")
            elif self.kind(k) == "one" and self._used(k):
                out.append(f"const {self.ct} e{k}c = ({self.ct}){ptr}[0];")
        return out

    def _used(self, k) -> bool:
        return any(a[0] == "extra" and a[1] == k for s in self.program for a in s[1:])

    def apply(self, value: str, idx: str) -> str:
        """The C expression of the epilogue of `value` (the convolution's sum) at flat output
        index `idx`; steps are nested expressions (the compiler keeps them in registers)."""
        vals = []
        for name, *args in self.program:
            cargs = []
            for a in args:
                if a[0] == "acc":
                    cargs.append(value)
                elif a[0] == "step":
                    cargs.append(vals[a[1]])
                elif a[0] == "extra":
                    cargs.append(f"(({self.ct}){self.extras[a[1]][0]}[{idx}])" if self.kind(a[1]) == "full"
                                 else f"e{a[1]}c")
                else:
                    cargs.append(C.literal(a[1], self.ct))
            vals.append(f"({c_expr(OPS[name], cargs, self.ct)})")
        return vals[-1] if vals else value

    @property
    def reads_full(self) -> bool:
        return any(self.kind(k) == "full" and self._used(k) for k in range(len(self.extras)))


def _shift_steps(step):
    name, *args = step
    new = []
    for a in args:
        if a[0] == "step":
            new.append(("acc",) if a[1] == 0 else ("step", a[1] - 1))
        else:
            new.append(a)
    return (name, *new)


def _identity(ct):
    return Epilogue((), [], (1, 1), ct, False)


# ---- direct 2-D kernels -----------------------------------------------------------------------------------
def _chunk(units: int) -> int:
    """Units per dynamically scheduled chunk: ~32 chunks. Dynamic scheduling costs one atomic
    add per chunk and keeps a thread that the OS took off its core (a shared machine) from
    holding back its static share of the work until the end of the loop."""
    return max(1, units // 32)


def choose_tiles(g: Geometry, lanes: int):
    """(KV, PX): channel vectors (of the machine's `lanes`) and pixels of a register tile, KV * PX
    accumulators within vectors.accumulators(). Measured on one core (AVX-512), 8 x 64 x 56 x 56
    3x3: KV 4 x PX 6 18.6-19.3 ms (96 GFLOP/s), 2 x 12 19.5-20.2, 3 x 8 27.1; ResNet's 7x7 / 2
    over 3 channels: 4 x 6 20.3-21.2 ms, 1 x 16 23.7, 2 x 12 26.8-29.7, 2 x 14 39. With 16
    registers (AVX2; one core of the 2-core AMD EPYC machine, the tiles compiled side by side in
    one process, rounds alternated): W10 (ResNet-18 stage 1, 3x3 over 64 channels and 7x7 / 2)
    KV 1 x PX 8 152 ms, 2 x 5 167, 1 x 12 177, 2 x 6 268 (GCC spills its 12 accumulators), 3 x 4
    224; W9 (LeNet-5: 5x5 over 6 channels into 16) 2 x 5 0.86x and 1 x 12 0.90x of 1 x 8. Two
    vectors of 64-channel 3x3 weights (37 KB) overflow the 32 KB L1, and stride 2 shares no input
    between the tile's pixels: 2 x 5 for stride 1 with small weights, else 1 x 8."""
    if vectors.accumulators() >= 24:
        kv = max(1, min(4, -(-g.Kg // lanes)))
        px = {1: 16, 2: 12, 3: 8, 4: 6}[kv]
    else:
        # 2 x 5 (10 accumulators: no spill) while two vectors' weights for every input channel
        # stay within half the L1 cache, else 1 x 8
        two = g.Kg > lanes and g.SW == 1 and g.Cg * g.KH * g.KW * 2 * vectors.width() <= 16384
        kv, px = (2, 5) if two else (1, 8)
    return kv, min(px, g.OW)


def _padded_input(w, g: Geometry, x: str, st: str, name: str, slack: int) -> tuple:
    """Emit the zero-padded copy of the input when the convolution pads; returns (pointer,
    channel stride, row stride)."""
    if not g.padded:
        return x, g.H * g.W, g.W
    hp, wp = g.H + g.PH + g.PHa, g.W + g.PW + g.PWa
    total = g.N * g.C * hp * wp + slack
    w.line(f"static __thread void *{name}_pbuf; static __thread size_t {name}_pcap;")
    w.line(f"{st} *const XP = ({st} *)pc_scratch(&{name}_pbuf, &{name}_pcap, sizeof({st}) * {total}L);")
    # one unit per padded row (not per image plane): ResNet's 7x7 input has 8 x 3 planes, too few
    # chunks for 16 threads; its 8 x 3 x 230 rows are plenty
    w.line(f"#pragma omp parallel for num_threads(nt) schedule(static) if ({split_elements(g.N * g.C * hp * wp)})")
    with w.block(f"for (long u = 0; u < {g.N * g.C * hp}L; ++u)"):
        w.line(f"const long nc = u / {hp}L, h = u % {hp}L - {g.PH}L;")
        w.line(f"{st} *const r = XP + u * {wp}L;")
        with w.block(f"if (h < 0 || h >= {g.H}L)"):
            w.line(f"memset(r, 0, sizeof({st}) * {wp}L);")
            w.line("continue;")
        if g.PW:
            w.line(f"memset(r, 0, sizeof({st}) * {g.PW}L);")
        w.line(f"memcpy(r + {g.PW}L, {x} + (nc * {g.H}L + h) * {g.W}L, sizeof({st}) * {g.W}L);")
        if g.PWa:
            w.line(f"memset(r + {g.PW + g.W}L, 0, sizeof({st}) * {g.PWa}L);")
    if slack:
        w.line(f"memset(XP + {g.N * g.C * hp * wp}L, 0, sizeof({st}) * {slack}L);")
    return "XP", hp * wp, wp


def _store_channel(w, epi: Epilogue, yrow: str, yidx: str, value_of, count: str, ct: str, st: str):
    """y[yidx + j] = epilogue(value_of(j)) for j < count."""
    with w.block(f"for (long j = 0; j < {count}; ++j)"):
        w.line(f"{yrow}[j] = ({st})({epi.apply(value_of('j'), f'{yidx} + j')});")


def _row_kernel(defs, name: str, g: Geometry, dt, nv: int, cs: int, rs: int, kc: int = 1, astride: int = 0,
                row_range: bool = False) -> str:
    """static inline void name(const T *x, const T *w, T *acc): nv vectors of consecutive
    output pixels of kc channels, summed over (c, kh, kw) in registers; x at the first pixel's
    window, w at the first channel's weights (channel ch's at w + ch * Cg * KH * KW, its sums
    stored at acc + ch * astride). Each input vector loaded serves the kc channels; every
    channel's sum is the same sequence of multiply-adds as with kc = 1 (the same bits).
    Stride-2 rows are read as two vectors and shuffled. With few vectors, kernel columns
    alternate between independent accumulator sets (one FMA chain would wait on the FMA
    latency). row_range: two more arguments r0, r1 bound the kernel rows summed (the caller
    leaves out rows that read only zero padding; their products are +-0, which leave a sum
    that starts at +0 unchanged)."""
    st = C.storage(dt)
    sets = max(1, min(4 // nv, g.KW))         # from the logical vectors: the order of the sums
    # written in the machine's vectors: logical vector v is physical ones v * pieces ... (+ pieces - 1)
    lanes, vt, it = vectors.lanes(dt), vectors.vtype(dt), vectors.itype(dt)
    nv = nv * vectors.pieces(dt)
    wstride = g.Cg * g.KH * g.KW
    extra = ", long r0, long r1" if row_range else ""
    defs.line(f"PC_CONTRACT_FN void {name}(const {st} *restrict x, const {st} *restrict w, {st} *restrict acc{extra})")
    with scope(defs):
        defs.line("PC_CONTRACT_BODY")
        defs.line(" ".join(f"{vt} a{v}_{k}_{ch} = {{0}};" for v in range(nv) for k in range(sets) for ch in range(kc)))
        if g.SW == 2:
            defs.line(f"const {it} even = {{{', '.join(str(2 * i) for i in range(lanes))}}};")
        with defs.block(f"for (long c = 0; c < {g.Cg}L; ++c)"):
            defs.line(f"const {st} *const xc = x + c * {cs}L;")
            with defs.block("for (long r = r0; r < r1; ++r)" if row_range else f"for (long r = 0; r < {g.KH}L; ++r)"):
                defs.line(f"const {st} *const xr = xc + r * {g.DH * rs}L;")
                defs.line(f"const {st} *const wr = w + (c * {g.KH}L + r) * {g.KW}L;")
                for sc in range(g.KW):
                    k = sc % sets
                    wvs = " ".join(f"const {st} wv{ch} = wr[{ch * wstride + sc}];" for ch in range(kc))
                    defs.line(f"{{ {wvs} const {st} *const xs = xr + {sc * g.DW};")
                    for v in range(nv):
                        base = f"xs + {v * lanes * g.SW}"
                        madd = " ".join(f"a{v}_{k}_{ch} += wv{ch} * b;" for ch in range(kc))
                        if g.SW == 1:
                            defs.line(f"  {{ {vt} b; memcpy(&b, {base}, sizeof b); {madd} }}")
                        elif g.SW == 2:
                            defs.line(f"  {{ {vt} lo, hi; memcpy(&lo, {base}, sizeof lo); memcpy(&hi, {base} + "
                                      f"{lanes}, sizeof hi); const {vt} b = __builtin_shuffle(lo, hi, even); {madd} }}")
                        else:
                            defs.line(f"  {{ {vt} b; for (int l = 0; l < {lanes}; ++l) b[l] = ({base})[l * {g.SW}]; "
                                      f"{madd} }}")
                    defs.line("}")
        for ch in range(kc):
            for v in range(nv):
                total = " + ".join(f"a{v}_{k}_{ch}" for k in range(sets))
                defs.line(f"{{ const {vt} t = {total}; memcpy(acc + {ch * astride + v * lanes}, &t, sizeof t); }}")
    defs.line("")
    return name


def _row_channels(g: Geometry, nvs, pieces: int) -> int:
    """Output channels per row-kernel call: the largest divisor of Kg whose accumulators (vectors
    x column sets x channels, for each kernel's logical vector count in nvs, `pieces` machine
    vectors each) fit in vectors.accumulators() registers. LeNet's first layer (6 channels of 2
    vectors) and Conv2DBackpropInput of its second (6 of 1) load each input vector once for the 6
    channels instead of 6 times (with AVX-512's registers)."""
    regs = vectors.accumulators()
    budget = max(1, min(regs // (nv * pieces * max(1, min(4 // nv, g.KW))) for nv in nvs if nv))
    return max(d for d in range(1, min(g.Kg, budget) + 1) if g.Kg % d == 0)


def render_rows(ctx, w, g: Geometry, x: str, wt: str, y: str, dt, epi: Epilogue, name: str,
                skip_pad_rows: bool = False):
    """Pixel-vectorized direct convolution: for each (image, block of output channels, output
    row), chunks of up to 4 vectors of output pixels accumulate weight (broadcast) x input in
    registers over (c, kh, kw); then the epilogue runs along the row. The input is read from a
    padded copy with slack after it, so a chunk's last vector may read past its row.
    skip_pad_rows (stride 1: Conv2DBackpropInput, whose dY is padded by up to k - 1 rows on each
    side): each output row sums only the kernel rows that read input rows, not padding."""
    st = C.storage(dt)
    lanes = vectors.logical_lanes(dt)
    nv_row = -(-g.OW // lanes)
    chunk = min(nv_row, 4)
    slack = (chunk * lanes + 1) * g.SW + g.KW * g.DW
    g2 = g
    if not g.padded:
        # a copy with slack (same geometry: pads of zero)
        g2 = Geometry((g.N, g.C, g.H, g.W), (g.K, g.Cg, g.KH, g.KW), {"stride": (g.SH, g.SW), "dilation": (g.DH, g.DW),
                                                                      "pads": (0, 0, 0, 0), "group": g.G})
        g2.padded = True
    xp, cs, rs = _padded_input(w, g2, x, st, name, slack)
    tail_nv = nv_row % chunk
    kc = _row_channels(g, (chunk, tail_nv), vectors.pieces(dt))
    astride = nv_row * lanes
    skip = skip_pad_rows and g.SH == 1 and bool(g.PH or g.PHa)
    kern = _row_kernel(ctx.defs, f"{name}_row", g, dt, chunk, cs, rs, kc, astride, skip)
    kern_t = _row_kernel(ctx.defs, f"{name}_rowt", g, dt, tail_nv, cs, rs, kc, astride, skip) if tail_nv else None
    fold = "" if epi.folded is None else f" * {epi.extras[epi.folded][0]}[k]"
    units = g.N * (g.K // kc) * g.OH
    par = f" if ({split_flops(g.flops)})"
    if fold:
        # per-channel scale folded into a scaled copy of the weights
        w.line(f"static __thread void *{name}_wbuf; static __thread size_t {name}_wcap;")
        w.line(f"{st} *const WS = ({st} *)pc_scratch(&{name}_wbuf, &{name}_wcap, sizeof({st}) * {g.K * g.Cg * g.KH * g.KW}L);")
        with w.block(f"for (long k = 0; k < {g.K}L; ++k)"):
            with w.block(f"for (long i = 0; i < {g.Cg * g.KH * g.KW}L; ++i)"):
                w.line(f"WS[k * {g.Cg * g.KH * g.KW}L + i] = {wt}[k * {g.Cg * g.KH * g.KW}L + i]{fold};")
        wt = "WS"
    w.line(f"#pragma omp parallel for num_threads(nt) schedule(dynamic, {_chunk(units)}){par}")
    with w.block(f"for (long u = 0; u < {units}L; ++u)"):
        w.line(f"const long n = u / {g.K // kc * g.OH}L, k0 = (u / {g.OH}L) % {g.K // kc}L * {kc}L, oh = u % {g.OH}L;")
        w.line(f"const long cin = (k0 / {g.Kg}L) * {g.Cg}L;")
        w.line(f"{st} acc[{kc * astride}] __attribute__((aligned(64)));")
        w.line(f"const {st} *const xrow = {xp} + (n * {g.C}L + cin) * {cs}L + oh * {g.SH * rs}L;")
        w.line(f"const {st} *const wk = {wt} + k0 * {g.Cg * g.KH * g.KW}L;")
        rargs = ""
        if skip:
            # kernel rows r with PH <= oh + r * DH < PH + H read input rows (the rest, padding)
            w.line(f"const long r0 = oh >= {g.PH}L ? 0 : ({g.PH}L - oh + {g.DH - 1}L) / {g.DH}L;")
            w.line(f"const long r1e = ({g.PH + g.H}L - oh + {g.DH - 1}L) / {g.DH}L, r1 = r1e < {g.KH}L ? r1e : {g.KH}L;")
            rargs = ", r0, r1"
        full = nv_row // chunk
        with w.block(f"for (long b = 0; b < {full}L; ++b)"):
            w.line(f"{kern}(xrow + b * {chunk * lanes * g.SW}L, wk, acc + b * {chunk * lanes}L{rargs});")
        if kern_t:
            w.line(f"{kern_t}(xrow + {full * chunk * lanes * g.SW}L, wk, acc + {full * chunk * lanes}L{rargs});")
        with w.block(f"for (long ch = 0; ch < {kc}L; ++ch)"):
            w.line("const long k = k0 + ch;")
            for line in epi.hoist("k"):
                w.line(line)
            w.line(f"{st} *const yr = {y} + ((n * {g.K}L + k) * {g.OH}L + oh) * {g.OW}L;")
            w.line(f"const long yb = ((n * {g.K}L + k) * {g.OH}L + oh) * {g.OW}L; (void)yb;")
            w.line(f"const {st} *const ac = acc + ch * {astride}L;")
            w.line("#pragma omp simd")
            _store_channel(w, epi, "yr", "yb", lambda j: f"ac[{j}]", f"{g.OW}L", C.compute(dt), st)


def _microkernel(defs, name: str, g: Geometry, dt, kv: int, px: int, cs: int, rs: int, blocked: bool = False) -> str:
    """static inline void name(const T *x, const T *w, T *buf): one register tile of px output
    pixels x kv vectors of channels, summed over (c, kh, kw); buf[j * kv * V + lane]. `blocked`
    (conv_stream.py): name(x, w, buf, c, r0, r1) sums over input channel c and kernel rows
    [r0, r1) only, onto the accumulators it loads from buf."""
    st = C.storage(dt)
    lanes, vt = vectors.lanes(dt), vectors.vtype(dt)
    extra = ", const long c, const long r0, const long r1" if blocked else ""
    defs.line(f"PC_CONTRACT_FN void {name}(const {st} *restrict x, const {st} *restrict w, {st} *restrict buf{extra})")
    with scope(defs):
        defs.line("PC_CONTRACT_BODY")
        for j in range(px):
            defs.line(" ".join(f"{vt} a{j}_{v} = " + (f"(({vt} *)buf)[{j * kv + v}];" if blocked else "{0};")
                               for v in range(kv)))
        with (scope(defs) if blocked else defs.block(f"for (long c = 0; c < {g.Cg}L; ++c)")):
            defs.line(f"const {st} *const xc = x + c * {cs}L;")
            defs.line(f"const {vt} *const wc = (const {vt} *)(w + c * {g.KH * g.KW * kv * lanes}L);")
            with defs.block("for (long r = r0; r < r1; ++r)" if blocked else f"for (long r = 0; r < {g.KH}L; ++r)"):
                defs.line(f"const {st} *const xr = xc + r * {g.DH * rs}L;")
                with defs.block(f"for (long s = 0; s < {g.KW}L; ++s)"):
                    defs.line(f"const {vt} *const ws = wc + (r * {g.KW}L + s) * {kv}L;")
                    defs.line(" ".join(f"const {vt} w{v} = ws[{v}];" for v in range(kv)))
                    defs.line(f"const {st} *const xs = xr + s * {g.DW}L;")
                    for j in range(px):
                        defs.line(f"{{ const {st} b = xs[{j * g.SW}]; "
                                  + " ".join(f"a{j}_{v} += b * w{v};" for v in range(kv)) + " }")
        for j in range(px):
            for v in range(kv):
                defs.line(f"(({vt} *)buf)[{j * kv + v}] = a{j}_{v};")
    defs.line("")
    return name


def render_tiles(ctx, w, g: Geometry, x: str, wt: str, y: str, dt, epi: Epilogue, name: str):
    """Channel-vectorized direct convolution in register tiles (see the module docstring)."""
    st = C.storage(dt)
    ct = C.compute(dt)
    lanes = vectors.lanes(dt)        # one chain per output: the tile's shape does not change the bits
    kv, px = choose_tiles(g, lanes)
    vl = kv * lanes
    kb = -(-g.Kg // vl)
    xp, cs, rs = _padded_input(w, g, x, st, name, 0)
    tail = g.OW % px
    defs = ctx.defs
    streamed = conv_stream.applies(g, dt, kv)       # weights too large for the caches: blocked
    mk = None if streamed else _microkernel(defs, f"{name}_mk", g, dt, kv, px, cs, rs)
    mkt = _microkernel(defs, f"{name}_mkt", g, dt, kv, tail, cs, rs) if tail and not streamed else None
    # packed weights [g][kb][c][r][s][vl], a folded scale multiplied in
    packed = g.G * kb * g.Cg * g.KH * g.KW * vl
    w.line(f"static __thread void *{name}_wbuf; static __thread size_t {name}_wcap;")
    w.line(f"{st} *const WP = ({st} *)pc_scratch(&{name}_wbuf, &{name}_wcap, sizeof({st}) * {packed}L);")
    scale = "" if epi.folded is None else f" * {epi.extras[epi.folded][0]}[k]"
    w.line(f"#pragma omp parallel for num_threads(nt) schedule(static) if ({split_elements(packed)})")
    # one unit per (group, channel block, input channel): ResNet's 64-channel layers have a single
    # channel block, which as the unit gave the pool one iteration
    # a transpose in blocks of 16 kernel positions: each channel reads 16 consecutive weights
    # (the filter gradient's "weights" are dY: a channel's positions lie 400 KB apart in W10,
    # one cache line and page per element when read a position at a time: 6 % of its step)
    with w.block(f"for (long gbc = 0; gbc < {g.G * kb * g.Cg}L; ++gbc)"):
        w.line(f"const long gb = gbc / {g.Cg}L, c = gbc % {g.Cg}L, gg = gb / {kb}L, b = gb % {kb}L;")
        w.line(f"{st} *const dst = WP + gb * {g.Cg * g.KH * g.KW * vl}L;")
        with w.block(f"for (long rs0 = 0; rs0 < {g.KH * g.KW}L; rs0 += 16)"):
            w.line(f"const long rs1 = rs0 + 16 < {g.KH * g.KW}L ? rs0 + 16 : {g.KH * g.KW}L;")
            with w.block(f"for (long l = 0; l < {vl}L; ++l)"):
                w.line(f"const long kk = b * {vl}L + l, k = gg * {g.Kg}L + kk;")
                with w.block("for (long rs = rs0; rs < rs1; ++rs)"):
                    w.line(f"dst[(c * {g.KH * g.KW}L + rs) * {vl}L + l] = kk < {g.Kg}L ? "
                           f"{wt}[(k * {g.Cg}L + c) * {g.KH * g.KW}L + rs]{scale} : ({st})0;")
    units = g.N * g.G * kb * g.OH

    def locate(w):
        w.line(f"const long oh = u % {g.OH}L, b = (u / {g.OH}L) % {kb}L, gg = (u / {g.OH * kb}L) % {g.G}L, "
               f"n = u / {g.OH * kb * g.G}L;")
        w.line(f"const {st} *const xrow = {xp} + (n * {g.C}L + gg * {g.Cg}L) * {cs}L + oh * {g.SH * rs}L;")
        w.line(f"const {st} *const wb = WP + (gg * {kb}L + b) * {g.Cg * g.KH * g.KW * vl}L;")
        w.line(f"const long k0 = gg * {g.Kg}L + b * {vl}L;")
        w.line(f"const long kn = {g.Kg}L - b * {vl}L < {vl}L ? {g.Kg}L - b * {vl}L : {vl}L;")

    if streamed:
        conv_stream.render_units(ctx, w, g, dt, kv, px, cs, rs, name, locate,
                                 lambda count: _store_tile(w, g, epi, y, vl, count, ct, st), _microkernel)
        return
    par = f" if ({split_flops(g.flops)})"
    w.line(f"#pragma omp parallel for num_threads(nt) schedule(dynamic, {_chunk(units)}){par}")
    with w.block(f"for (long u = 0; u < {units}L; ++u)"):
        locate(w)
        w.line(f"{st} buf[{px * vl}] __attribute__((aligned(64)));")

        def store(count):
            _store_tile(w, g, epi, y, vl, count, ct, st)

        with w.block(f"for (long ow0 = 0; ow0 + {px}L <= {g.OW}L; ow0 += {px}L)"):
            w.line(f"{mk}(xrow + ow0 * {g.SW}L, wb, buf);")
            store(f"{px}L")
        if mkt:
            with scope(w):
                w.line(f"const long ow0 = {g.OW - tail}L;")
                w.line(f"{mkt}(xrow + ow0 * {g.SW}L, wb, buf);")
                store(f"{tail}L")


def _store_tile(w, g: Geometry, epi: Epilogue, y: str, vl: int, count: str, ct: str, st: str):
    """The tile in buf (px pixels x vl channels) through the epilogue into y at (n, k0.., oh, ow0)."""
    with w.block("for (long kk = 0; kk < kn; ++kk)"):
        w.line("const long k = k0 + kk;")
        for line in epi.hoist("k"):
            w.line(line)
        w.line(f"const long yb = ((n * {g.K}L + k) * {g.OH}L + oh) * {g.OW}L + ow0; (void)yb;")
        w.line(f"{st} *const yr = {y} + yb;")
        _store_channel(w, epi, "yr", "yb", lambda j: f"buf[{j} * {vl}L + kk]", count, ct, st)


# ---- im2col + BLAS ------------------------------------------------------------------------------------
def _blas(dt) -> str:
    return "scipy_cblas_sgemm" if dt is mstype.float32 else "scipy_cblas_dgemm"


def _sfx(dt) -> str:
    return "f32" if dt is mstype.float32 else "f64"


def _tile(g: Geometry) -> int:
    """Output positions per im2col tile: the tile (Cg * RS rows) stays around 256 KB."""
    rows = max(1, g.Cg * g.RS)
    return max(16, min(g.P, (65536 // rows) // 16 * 16 or 16))


def render_gemm_forward(ctx, w, g: Geometry, x: str, wt: str, y: str, dt, epi: Epilogue, name: str):
    """Y_g[n] = W_g (Kg x Cg RS) . im2col(X_g[n]) in tiles of output positions, then the
    epilogue on the tile (3-D convolutions)."""
    st = C.storage(dt)
    ctx.use_blas()
    t = _tile(g)
    tiles = -(-g.P // t)
    rows = g.Cg * g.RS
    w.line(f"static __thread void *{name}_cbuf; static __thread size_t {name}_ccap;")
    w.line(f"{st} *const CB = ({st} *)pc_scratch(&{name}_cbuf, &{name}_ccap, sizeof({st}) * {rows * t}L * nt);")
    if epi.folded is not None:
        w.line(f"static __thread void *{name}_wbuf; static __thread size_t {name}_wcap;")
        w.line(f"{st} *const WF = ({st} *)pc_scratch(&{name}_wbuf, &{name}_wcap, sizeof({st}) * {g.K * rows}L);")
        with w.block(f"for (long i = 0; i < {g.K * rows}L; ++i)"):
            w.line(f"WF[i] = {wt}[i] * {epi.extras[epi.folded][0]}[i / {rows}L];")
        wt = "WF"
    w.line(f"#pragma omp parallel for num_threads(nt) schedule(static) if ({split_flops(g.flops)})")
    with w.block(f"for (long u = 0; u < {g.N * g.G * tiles}L; ++u)"):
        w.line(f"const long n = u / {g.G * tiles}L, gg = (u / {tiles}L) % {g.G}L, q0 = (u % {tiles}L) * {t}L;")
        w.line(f"const long q1 = q0 + {t}L < {g.P}L ? q0 + {t}L : {g.P}L, L = q1 - q0;")
        w.line(f"{st} *const cols = CB + (long)omp_get_thread_num() * {rows * t}L;")
        w.line(f"pc_im2col_{_sfx(dt)}({x} + (n * {g.C}L + gg * {g.Cg}L) * {g.D * g.H * g.W}L, cols, "
               f"{g.im2col_args()}, q0, q1);")
        w.line(f"{st} *const yt = {y} + (n * {g.K}L + gg * {g.Kg}L) * {g.P}L + q0;")
        w.line(f"{_blas(dt)}(CblasRowMajor, CblasNoTrans, CblasNoTrans, {g.Kg}, (int)L, {rows}, 1.0, "
               f"{wt} + gg * {g.Kg * rows}L, {rows}, cols, (int)L, 0.0, yt, {g.P});")
        if epi.program:
            with w.block(f"for (long kk = 0; kk < {g.Kg}L; ++kk)"):
                w.line(f"const long k = gg * {g.Kg}L + kk;")
                for line in epi.hoist("k"):
                    w.line(line)
                w.line(f"const long yb = (n * {g.K}L + k) * {g.P}L + q0; (void)yb;")
                w.line(f"{st} *const yr = {y} + yb;")
                w.line("#pragma omp simd")
                _store_channel(w, epi, "yr", "yb", lambda j: f"yr[{j}]", "L", C.compute(dt), st)


@template("conv")
def _conv(ctx, w, n):
    """Conv2D / Conv3D / FusedConv (a convolution with its epilogue)."""
    x, wgt = n.inputs[0], n.inputs[1]
    out = ctx.out(n)
    dt = n.type.dtype
    g = Geometry(x.type.shape, wgt.type.shape, n.attrs)
    if n.type.size == 0:
        return
    extras = [(ctx.ptr(e), e.type.shape) for e in n.inputs[2:]]
    epi = Epilogue(n.attrs.get("program", ()), extras, n.type.shape, C.compute(dt), n.attrs.get("fold_scale", False))
    name = f"cv_{ctx.kernel_name(n)}"
    xp, wp = ctx.ptr(x), ctx.ptr(wgt)
    w.line("{")
    with w.indent():
        if g.sp == 3 or g.D != 1:
            render_gemm_forward(ctx, w, g, xp, wp, out, dt, epi, name)
        elif winograd.applies(g, dt):
            # its epilogue unfolded (the scale stays a multiply: the transformed weights are the weights')
            wepi = Epilogue(n.attrs.get("program", ()), [(f"ep{k}", s) for k, (_, s) in enumerate(extras)],
                            n.type.shape, "float", False)
            winograd.render(ctx, w, g, xp, wp, out, [p for p, _ in extras], wepi,
                            [C.storage(e.type.dtype) for e in n.inputs[2:]], name,
                            (_store_channel, split_elements, split_flops, _chunk))
        elif g.Kg * 2 < vectors.logical_lanes(dt):
            render_rows(ctx, w, g, xp, wp, out, dt, epi, name)
        else:
            render_tiles(ctx, w, g, xp, wp, out, dt, epi, name)
    w.line("}")


def _backprop_input_direct(ctx, w, n, g: Geometry, out: str, dt, name: str):
    """With stride 1, dX is a forward convolution of dY with the kernel flipped and its channel
    axes swapped, padded by dilation * (k - 1) - pad on each side: the direct kernels run it (no
    col2im scatter)."""
    dout, wgt = n.inputs
    st = C.storage(dt)
    kk = g.KH * g.KW
    w.line("{")
    with w.indent():
        w.line(f"static __thread void *{name}_fbuf; static __thread size_t {name}_fcap;")
        w.line(f"{st} *const WF = ({st} *)pc_scratch(&{name}_fbuf, &{name}_fcap, sizeof({st}) * {g.K * g.Cg * kk}L);")
        with w.block(f"for (long i = 0; i < {g.K * g.Cg * kk}L; ++i)"):
            # WF[gg * Cg + c][kk][rs] = W[gg * Kg + kk][c][last - rs]
            w.line(f"const long rs = i % {kk}L, t = i / {kk}L, kk = t % {g.Kg}L, oc = t / {g.Kg}L;")
            w.line(f"const long gg = oc / {g.Cg}L, c = oc % {g.Cg}L;")
            w.line(f"WF[i] = {ctx.ptr(wgt)}[((gg * {g.Kg}L + kk) * {g.Cg}L + c) * {kk}L + {kk - 1}L - rs];")
        eq = Geometry((g.N, g.K, g.OH, g.OW), (g.C, g.Kg, g.KH, g.KW),
                      {"stride": (1, 1), "dilation": (g.DH, g.DW), "group": g.G,
                       "pads": (g.DH * (g.KH - 1) - g.PH, g.DH * (g.KH - 1) - g.PHa,
                                g.DW * (g.KW - 1) - g.PW, g.DW * (g.KW - 1) - g.PWa)})
        epi = Epilogue((), [], n.type.shape, C.compute(dt), False)
        if winograd.applies(eq, dt):
            # a 3x3 layer's dX as the forward layers run it (W10's training step at batch 32: 0.665 -> 0.583 s)
            winograd.render(ctx, w, eq, ctx.ptr(dout), "WF", out, [], Epilogue((), [], n.type.shape, "float", False),
                            [], name, (_store_channel, split_elements, split_flops, _chunk))
        elif eq.Kg * 2 < vectors.logical_lanes(dt):
            render_rows(ctx, w, eq, ctx.ptr(dout), "WF", out, dt, epi, name, skip_pad_rows=True)
        else:
            render_tiles(ctx, w, eq, ctx.ptr(dout), "WF", out, dt, epi, name)
    w.line("}")


@template("conv_backprop_input")
def _conv_backprop_input(ctx, w, n):
    """dX[n] = col2im(W_g^T . dY_g[n]) per image and group, in tiles of output positions."""
    dout, wgt = n.inputs
    dt = n.type.dtype
    out = ctx.out(n)
    g = Geometry(n.attrs["input_size"], wgt.type.shape, n.attrs)
    if n.type.size == 0:
        return
    st = C.storage(dt)
    name = f"cb_{ctx.kernel_name(n)}"
    if g.sp == 2 and (g.SH, g.SW) == (1, 1) and all(0 <= v <= g.DH * (g.KH - 1) for v in (g.PH, g.PHa)) \
            and all(0 <= v <= g.DW * (g.KW - 1) for v in (g.PW, g.PWa)):
        _backprop_input_direct(ctx, w, n, g, out, dt, name)
        return
    ctx.use_blas()
    rows = g.Cg * g.RS
    t = _tile(g)
    tiles = -(-g.P // t)
    dy, wp = ctx.ptr(dout), ctx.ptr(wgt)
    w.line("{")
    with w.indent():
        w.line(f"memset({out}, 0, sizeof({st}) * {n.type.size}L);")
        w.line(f"static __thread void *{name}_cbuf; static __thread size_t {name}_ccap;")
        w.line(f"{st} *const CB = ({st} *)pc_scratch(&{name}_cbuf, &{name}_ccap, sizeof({st}) * {rows * t}L * nt);")
        # images are independent: split them over the threads; each walks its tiles in order
        w.line(f"#pragma omp parallel for num_threads(nt) schedule(static) if ({split_flops(g.flops)})")
        with w.block(f"for (long ng = 0; ng < {g.N * g.G}L; ++ng)"):
            w.line(f"const long n = ng / {g.G}L, gg = ng % {g.G}L;")
            w.line(f"{st} *const cols = CB + (long)omp_get_thread_num() * {rows * t}L;")
            with w.block(f"for (long q0 = 0; q0 < {g.P}L; q0 += {t}L)"):
                w.line(f"const long q1 = q0 + {t}L < {g.P}L ? q0 + {t}L : {g.P}L, L = q1 - q0;")
                w.line(f"{_blas(dt)}(CblasRowMajor, CblasTrans, CblasNoTrans, {rows}, (int)L, {g.Kg}, 1.0, "
                       f"{wp} + gg * {g.Kg * rows}L, {rows}, {dy} + (n * {g.K}L + gg * {g.Kg}L) * {g.P}L + q0, {g.P}, "
                       f"0.0, cols, (int)L);")
                w.line(f"pc_col2im_{_sfx(dt)}(cols, {out} + (n * {g.C}L + gg * {g.Cg}L) * {g.D * g.H * g.W}L, "
                       f"{g.im2col_args()}, q0, q1);")
    w.line("}")


def _filter_direct(g: Geometry, dt) -> bool:
    """Whether dW runs on the direct tile kernel (`_backprop_filter_direct`): 2-D, one group,
    stride and dilation 1, and enough output channels for a vector of them (else the tile
    would be mostly empty lanes and im2col + BLAS is faster: LeNet's first layer, K = 6)."""
    return (g.sp == 2 and g.D == 1 and g.G == 1 and (g.SH, g.SW, g.DH, g.DW) == (1, 1, 1, 1)
            and g.K * 2 >= vectors.logical_lanes(dt))


def _backprop_filter_direct(ctx, w, n, g: Geometry, out: str, dt, name: str):
    """With stride and dilation 1, dW[k][c] = sum over images of X[n][c] (*) dY[n][k] is a forward
    convolution with the image and channel axes swapped: its images are X's channels (C of
    them, each with N channels: X transposed), its kernel is dY transposed (K x N x OH x OW),
    its output (C x K x KH x KW) is dW transposed. The direct tile kernel runs it. On LeNet's
    second layer (dY 64 x 16 x 10 x 10) a product per image through BLAS (depth P = 100) took
    1.2 ms on one core, this 0.3 ms (the same products, summed in another order)."""
    dout, x = n.inputs
    st = C.storage(dt)
    hw, kk = g.H * g.W, g.KH * g.KW
    sizes = (g.C * g.N * hw, g.K * g.N * g.P, g.C * g.K * kk)
    w.line("{")
    with w.indent():
        for tag, size in zip(("xt", "dt", "ot"), sizes):
            w.line(f"static __thread void *{name}_{tag}; static __thread size_t {name}_{tag}c;")
            w.line(f"{st} *const {tag.upper()} = ({st} *)pc_scratch(&{name}_{tag}, &{name}_{tag}c, "
                   f"sizeof({st}) * {size}L);")
        with w.block(f"for (long i = 0; i < {g.N * g.C}L; ++i)"):      # XT[c][n] = X[n][c]
            w.line(f"memcpy(XT + ((i % {g.C}L) * {g.N}L + i / {g.C}L) * {hw}L, {ctx.ptr(x)} + i * {hw}L, "
                   f"sizeof({st}) * {hw}L);")
        with w.block(f"for (long i = 0; i < {g.N * g.K}L; ++i)"):      # DT[k][n] = dY[n][k]
            w.line(f"memcpy(DT + ((i % {g.K}L) * {g.N}L + i / {g.K}L) * {g.P}L, {ctx.ptr(dout)} + i * {g.P}L, "
                   f"sizeof({st}) * {g.P}L);")
        eq = Geometry((g.C, g.N, g.H, g.W), (g.K, g.N, g.OH, g.OW),
                      {"stride": (1, 1), "dilation": (1, 1), "group": 1, "pads": (g.PH, g.PHa, g.PW, g.PWa)})
        epi = Epilogue((), [], (g.C, g.K, g.KH, g.KW), C.compute(dt), False)
        render_tiles(ctx, w, eq, "XT", "DT", "OT", dt, epi, name)
        with w.block(f"for (long i = 0; i < {g.K * g.C}L; ++i)"):      # dW[k][c] = OT[c][k]
            w.line(f"memcpy({out} + i * {kk}L, OT + ((i % {g.C}L) * {g.K}L + i / {g.C}L) * {kk}L, "
                   f"sizeof({st}) * {kk}L);")
    w.line("}")


@template("conv_backprop_filter")
def _conv_backprop_filter(ctx, w, n):
    """dW_g = sum over images of dY_g[n] . im2col(X_g[n])^T: each thread sums its images into its
    own copy of dW, then the copies are added."""
    dout, x = n.inputs
    dt = n.type.dtype
    out = ctx.out(n)
    g = Geometry(x.type.shape, n.type.shape, n.attrs)
    if n.type.size == 0:
        return
    st = C.storage(dt)
    name = f"cf_{ctx.kernel_name(n)}"
    if _filter_direct(g, dt):
        _backprop_filter_direct(ctx, w, n, g, out, dt, name)
        return
    from pycompile.backend.c.ops import conv_filter_rows     # few channels: vectors of pixels
    if conv_filter_rows.applies(g, dt):
        conv_filter_rows.render(ctx, w, n, g, out, dt, name, _padded_input, split_flops)
        return
    ctx.use_blas()
    rows = g.Cg * g.RS
    t = _tile(g)
    wsize = n.type.size
    dy, xp = ctx.ptr(dout), ctx.ptr(x)
    w.line("{")
    with w.indent():
        w.line(f"static __thread void *{name}_cbuf; static __thread size_t {name}_ccap;")
        w.line(f"{st} *const CB = ({st} *)pc_scratch(&{name}_cbuf, &{name}_ccap, "
               f"sizeof({st}) * ({rows * t}L + {wsize}L) * nt);")
        # nt tasks, each summing every nt-th image into its own copy of dW (whichever thread
        # runs it), then the copies added element-wise
        par = f"#pragma omp parallel for num_threads(nt) schedule(static) if ({split_flops(g.flops)})"
        w.line(par)
        with w.block("for (long tid = 0; tid < nt; ++tid)"):
            w.line(f"{st} *const cols = CB + tid * {rows * t}L;")
            w.line(f"{st} *const part = CB + (long)nt * {rows * t}L + tid * {wsize}L;")
            w.line(f"memset(part, 0, sizeof({st}) * {wsize}L);")
            with w.block(f"for (long ng = tid; ng < {g.N * g.G}L; ng += nt)"):
                w.line(f"const long n = ng / {g.G}L, gg = ng % {g.G}L;")
                with w.block(f"for (long q0 = 0; q0 < {g.P}L; q0 += {t}L)"):
                    w.line(f"const long q1 = q0 + {t}L < {g.P}L ? q0 + {t}L : {g.P}L, L = q1 - q0;")
                    w.line(f"pc_im2col_{_sfx(dt)}({xp} + (n * {g.C}L + gg * {g.Cg}L) * {g.D * g.H * g.W}L, cols, "
                           f"{g.im2col_args()}, q0, q1);")
                    w.line(f"{_blas(dt)}(CblasRowMajor, CblasNoTrans, CblasTrans, {g.Kg}, {rows}, (int)L, 1.0, "
                           f"{dy} + (n * {g.K}L + gg * {g.Kg}L) * {g.P}L + q0, {g.P}, cols, (int)L, 1.0, "
                           f"part + gg * {g.Kg * rows}L, {rows});")
        w.line(par)
        with w.block(f"for (long i = 0; i < {wsize}L; ++i)"):
            w.line(f"{st} s = 0;")
            w.line(f"for (int tt = 0; tt < nt; ++tt) s += CB[(long)nt * {rows * t}L + (long)tt * {wsize}L + i];")
            w.line(f"{out}[i] = s;")
    w.line("}")
