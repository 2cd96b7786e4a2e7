/* Shape-generic convolution and pooling kernels (declared in pycompile_generic.h): the sizes are
 * arguments, the arithmetic of each output is the per-signature kernel's, in its order.
 *
 * The convolution runs the generated kernels' blocks with run-time loop bounds: the rows kernel's
 * NV vectors x S accumulator sets (one function per pair conv.py makes), the tile kernel's tile
 * (8 pixels x one vector of channels here); both read a zero-padded copy of the input with slack
 * after it, so a padding element is multiplied like any other (w * 0 is NaN for an infinite
 * weight in both). It is 1.0-1.6x slower than the per-signature kernel (whose sizes are unrolled):
 * PyNative runs it until that kernel is built (backend/eager.py, docs/eager-kernels.md).
 *
 * Built with the runtime (csrc/build_runtime.py) at -O3 without -march: the hot blocks are
 * compiled for x86-64-v4 (AVX-512), FMA (with AVX) and the baseline and picked at load
 * (target_clones); the first two contract multiply-adds, as -march=native does on such a CPU. The
 * AVX-512 clone is x86-64-v4, not "avx512f" alone: that target has no FMA for 32-byte vectors (FMA3
 * and AVX-512VL are other flags), so the pairs-of-32-byte path (PYCOMPILE_VECTOR_BYTES=32) left
 * its multiply-adds unfused on an AVX-512 CPU, 1-2 ulps from graph mode there. Products and sums round
 * as written (fp-contract off) except in the convolution blocks' fused variant, built with
 * contraction on as the generated blocks are (PC_CONTRACT_FN). */
#pragma GCC optimize("fp-contract=off")
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pycompile_generic.h"
#include "pycompile_rt.h"

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define PC_CLONES __attribute__((target_clones("arch=x86-64-v4", "fma", "default")))
#else
#define PC_CLONES
#endif

/* work (multiply-adds or elements) below which a kernel runs on the calling thread */
#define PC_GEN_SERIAL (1L << 16)

int pc_gen_cpu_fma(void)
{
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    __builtin_cpu_init();
    /* the clones below that contract: "fma" (FMA3 with AVX) and x86-64-v4 (which has FMA3) */
    return __builtin_cpu_supports("fma") || __builtin_cpu_supports("avx512f") ? 1 : 0;
#else
    return 0;
#endif
}

/* 1 where the blocks run on 64-byte vectors (AVX-512), else on pairs of 32-byte ones */
static int pc_gen_wide(void)
{
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    static int wide = -1;
    if (wide < 0) {
        __builtin_cpu_init();
        wide = __builtin_cpu_supports("avx512f") ? 1 : 0;
    }
    return wide;
#else
    return 0;
#endif
}

static void run_split(pc_task_fn fn, void *ctx, long n, long work)
{
    if (work > PC_GEN_SERIAL * pc_get_num_threads() / 2 && pc_get_num_threads() > 1)
        pc_parallel_for(fn, ctx, n);
    else
        fn(ctx, 0, n);
}

/* ---- convolution --------------------------------------------------------------------------------- */
enum { G_N, G_C, G_H, G_W, G_K, G_G, G_KH, G_KW, G_SH, G_SW, G_DH, G_DW, G_PH, G_PW, G_PHA, G_PWA, G_OH,
       G_OW, G_SPLIT, G_SETSA, G_SETSB, G_FUSED, G_WIDE, G_COUNT };

/* The blocks below are written as the generated kernels are (conv.py `_row_kernel`, `_microkernel`:
 * 64-byte vector types, `a += w * x`) and built as they are: the fused variant with contraction on
 * (so each multiply-add is one FMA where the CPU has it, as PC_CONTRACT_FN makes them), the other
 * with it off (a product and a sum: the per-signature kernel on a CPU without FMA). */
#define PC_BLOCK_ATTR(CONTRACT) PC_CLONES __attribute__((noinline, optimize("fp-contract=" CONTRACT)))

/* The rows kernel's block: NV vectors of V consecutive output pixels of one channel, kernel column s
 * adding into accumulator set s % S, the sets added in order at the end (NV * S <= 4 vectors). A
 * vector of V lanes is written as P machine vectors VT of PV lanes (conv.py's logical and physical
 * vectors, backend/c/ops/vectors.py): each lane's chain of multiply-adds is the same either way.
 * NP = NV * P machine vectors. */
#define PC_ROW_STEP(VT, PV, NP, S, t, s)                                                                \
    do {                                                                                                \
        const VT wv = (VT){0} + wr[s];                                                                  \
        const ST *xs = xr + (s) * DW;                                                                   \
        for (int v = 0; v < NP; ++v) {                                                                  \
            VT b;                                                                                       \
            if (contig_) memcpy(&b, xs + v * PV, sizeof b);                                             \
            else for (int l = 0; l < PV; ++l) b[l] = xs[(v * PV + l) * SW];                             \
            a[v * S + (t)] += wv * b;                                                                   \
        }                                                                                               \
    } while (0)

#define PC_ROW_BLOCK(ST_, VT, PV, P, NAME, NV, S, CONTRACT, CONTIG)                                     \
PC_BLOCK_ATTR(CONTRACT) static void NAME(const ST_ *restrict x, const ST_ *restrict w, ST_ *restrict out, \
                                          long Cg, long KH, long KW, long cs, long rs, long DH, long DW,  \
                                          long SW)                                                       \
{                                                                                                       \
    typedef ST_ ST;                                                                                     \
    enum { contig_ = CONTIG };            /* 1: rows read contiguously (stride 1) */                    \
    VT a[NV * P * S];                                                                                   \
    for (int i = 0; i < NV * P * S; ++i) a[i] = (VT){0};                                                \
    for (long c = 0; c < Cg; ++c)                                                                       \
        for (long r = 0; r < KH; ++r) {                                                                 \
            const ST *xr = x + c * cs + r * DH * rs;                                                    \
            const ST *wr = w + (c * KH + r) * KW;                                                       \
            long s0 = 0;                                                                                \
            for (; s0 + S <= KW; s0 += S) {       /* column s0 + t into set t: constant indices */      \
                PC_ROW_STEP(VT, PV, NV * P, S, 0, s0);                                                       \
                if (S > 1) PC_ROW_STEP(VT, PV, NV * P, S, 1 % S, s0 + 1);                                    \
                if (S > 2) PC_ROW_STEP(VT, PV, NV * P, S, 2 % S, s0 + 2);                                    \
                if (S > 3) PC_ROW_STEP(VT, PV, NV * P, S, 3 % S, s0 + 3);                                    \
            }                                                                                           \
            const long rem = KW - s0;                                                                   \
            if (rem > 0) PC_ROW_STEP(VT, PV, NV * P, S, 0, s0);                                              \
            if (S > 2 && rem > 1) PC_ROW_STEP(VT, PV, NV * P, S, 1 % S, s0 + 1);                             \
            if (S > 3 && rem > 2) PC_ROW_STEP(VT, PV, NV * P, S, 2 % S, s0 + 2);                             \
        }                                                                                               \
    for (int v = 0; v < NV * P; ++v) {                                                                  \
        VT tot = a[v * S];                                                                              \
        for (int t = 1; t < S; ++t) tot = tot + a[v * S + t];                                           \
        memcpy(out + v * PV, &tot, sizeof tot);                                                         \
    }                                                                                                   \
}

/* The tile kernel's block: PX output pixels x V output channels, one sum per output over (c, kh,
 * kw) in order; w packed [c][kh][kw][V]. */
#define PC_TILE_PX 8
#define PC_TILE_BLOCK(ST_, VT, PV, P, V, NAME, CONTRACT)                                               \
PC_BLOCK_ATTR(CONTRACT) static void NAME(const ST_ *restrict x, const ST_ *restrict w, ST_ *restrict buf, \
                                          long Cg, long KH, long KW, long cs, long rs, long DH, long DW,  \
                                          long SW)                                                       \
{                                                                                                       \
    VT a[PC_TILE_PX * P];                 /* a[j * P + h]: channels h * PV ... of pixel j */             \
    for (int j = 0; j < PC_TILE_PX * P; ++j) a[j] = (VT){0};                                            \
    for (long c = 0; c < Cg; ++c)                                                                       \
        for (long r = 0; r < KH; ++r) {                                                                 \
            const ST_ *xr = x + c * cs + r * DH * rs;                                                   \
            const ST_ *wr = w + (c * KH + r) * KW * V;                                                  \
            for (long s = 0; s < KW; ++s) {                                                             \
                VT wv[P];                                                                               \
                for (int h = 0; h < P; ++h) memcpy(&wv[h], wr + s * V + h * PV, sizeof wv[h]);          \
                const ST_ *xs = xr + s * DW;                                                            \
                for (int j = 0; j < PC_TILE_PX; ++j) {                                                  \
                    const ST_ b = xs[j * SW];                                                           \
                    for (int h = 0; h < P; ++h) a[j * P + h] += b * wv[h];                              \
                }                                                                                       \
            }                                                                                           \
        }                                                                                               \
    memcpy(buf, a, sizeof a);                                                                           \
}

typedef float pc_g16f __attribute__((vector_size(64)));
typedef double pc_g8d __attribute__((vector_size(64)));
typedef float pc_g8f __attribute__((vector_size(32)));
typedef double pc_g4d __attribute__((vector_size(32)));

/* Every row block, named once: the (NV, S) pairs conv.py makes (S = max(1, min(4 / NV, KW)), so
 * NV * S <= 4), each fused (contraction on) or not, on contiguous (stride 1) or strided rows.
 * PC_ROW_VARIANTS(X, ...) applies X(..., FUSED, CONTIG, NV, S) to each: once to define them
 * (PC_ROW_DEF), once to fill the dispatch table (PC_ROW_ENTRY). */
#define PC_ROW_PAIRS(X, ...)                                                                            \
    X(__VA_ARGS__, 1, 1) X(__VA_ARGS__, 1, 2) X(__VA_ARGS__, 1, 3) X(__VA_ARGS__, 1, 4)                 \
    X(__VA_ARGS__, 2, 1) X(__VA_ARGS__, 2, 2) X(__VA_ARGS__, 3, 1) X(__VA_ARGS__, 4, 1)
#define PC_ROW_VARIANTS(X, ...)                                                                         \
    PC_ROW_PAIRS(X, __VA_ARGS__, 1, 1) PC_ROW_PAIRS(X, __VA_ARGS__, 1, 0)                               \
    PC_ROW_PAIRS(X, __VA_ARGS__, 0, 1) PC_ROW_PAIRS(X, __VA_ARGS__, 0, 0)
#define PC_FP_CONTRACT_1 "fast"
#define PC_FP_CONTRACT_0 "off"
#define PC_ROW_NAME(SFX, FUSED, CONTIG, NV, S) rb_##SFX##_f##FUSED##_c##CONTIG##_##NV##x##S
#define PC_ROW_DEF(T, SFX, VT, PV, P, FUSED, CONTIG, NV, S)                                             \
    PC_ROW_BLOCK(T, VT, PV, P, PC_ROW_NAME(SFX, FUSED, CONTIG, NV, S), NV, S, PC_FP_CONTRACT_##FUSED, CONTIG)
#define PC_ROW_ENTRY(SFX, FUSED, CONTIG, NV, S)                                                         \
    [FUSED][CONTIG][NV - 1][S - 1] = PC_ROW_NAME(SFX, FUSED, CONTIG, NV, S),

#define PC_GEN_CONV_KERNELS(T, SFX, VT, PV, P, V)                                                       \
PC_ROW_VARIANTS(PC_ROW_DEF, T, SFX, VT, PV, P)                                                          \
PC_TILE_BLOCK(T, VT, PV, P, V, tb_##SFX##_f, "fast") PC_TILE_BLOCK(T, VT, PV, P, V, tb_##SFX##_m, "off") \
                                                                                                        \
typedef void (*row_block_fn_##SFX)(const T *restrict x, const T *restrict w, T *restrict out, long Cg,  \
                                   long KH, long KW, long cs, long rs, long DH, long DW, long SW);      \
/* [fused][contiguous][NV - 1][S - 1]: NULL where NV * S > 4 (pc_gen_conv2d declines those) */          \
static const row_block_fn_##SFX row_blocks_##SFX[2][2][4][4] = { PC_ROW_VARIANTS(PC_ROW_ENTRY, SFX) };  \
                                                                                                        \
static void tile_block_##SFX(int fused, const T *x, const T *w, T *buf, long Cg, long KH,               \
                             long KW, long cs, long rs, long DH, long DW, long SW)                       \
{                                                                                                       \
    if (fused) tb_##SFX##_f(x, w, buf, Cg, KH, KW, cs, rs, DH, DW, SW);                                 \
    else tb_##SFX##_m(x, w, buf, Cg, KH, KW, cs, rs, DH, DW, SW);                                       \
}

/* What both convolution kernels read first: their context c (from arg), the geometry g, its sizes,
 * whether the multiply-adds fuse, the padded input's channel and row strides. */
#define PC_CONV_LOCALS(SFX)                                                                             \
    const conv_ctx_##SFX *c = (const conv_ctx_##SFX *)arg;                                              \
    const int64_t *g = c->g;                                                                            \
    const long C = g[G_C], K = g[G_K], G = g[G_G], Cg = C / G, Kg = K / G, KH = g[G_KH], KW = g[G_KW];  \
    const long SH = g[G_SH], SW = g[G_SW], DH = g[G_DH], DW = g[G_DW], OH = g[G_OH], OW = g[G_OW];      \
    const int fused = g[G_FUSED] != 0;                                                                  \
    /* 64-byte vectors (G_WIDE 1), pairs of 32-byte ones (0), or as the CPU has them (-1) */             \
    const int wide = g[G_WIDE] < 0 ? pc_gen_wide() : g[G_WIDE] != 0;                                    \
    const long cs = c->Hp * c->Wp, rs = c->Wp

#define PC_GEN_CONV(T, SFX, V)                                                                          \
typedef struct { const T *xp; const T *w; T *y; const int64_t *g; long Hp, Wp; } conv_ctx_##SFX;         \
                                                                                                        \
/* rows: a unit is (image, output channel, output row) */                                               \
static void conv_rows_##SFX(void *arg, long lo, long hi)                                                \
{                                                                                                       \
    PC_CONV_LOCALS(SFX);                                                                                \
    const long sa = g[G_SETSA], sb = g[G_SETSB];                                                        \
    const long nv_row = (OW + V - 1) / V, chunk = nv_row < 4 ? nv_row : 4;                              \
    const long full = nv_row / chunk, tail = nv_row % chunk, step = chunk * V;                          \
    const row_block_fn_##SFX (*blocks)[4] = (wide ? row_blocks_##SFX : row_blocks_##SFX##n)[fused][SW == 1]; \
    const row_block_fn_##SFX block_a = blocks[chunk - 1][sa - 1];                                       \
    const row_block_fn_##SFX block_b = tail ? blocks[tail - 1][sb - 1] : NULL;                          \
    T acc[nv_row * V];                                                                                  \
    for (long u = lo; u < hi; ++u) {                                                                    \
        const long n = u / (K * OH), k = (u / OH) % K, oh = u % OH;                                     \
        const long cin = (k / Kg) * Cg;                                                                 \
        const T *xrow = c->xp + (n * C + cin) * cs + oh * SH * rs;                                      \
        const T *wk = c->w + k * Cg * KH * KW;                                                          \
        for (long b = 0; b < full; ++b)                                                                 \
            block_a(xrow + b * step * SW, wk, acc + b * step, Cg, KH, KW, cs, rs, DH, DW, SW);          \
        if (tail) block_b(xrow + full * step * SW, wk, acc + full * step, Cg, KH, KW, cs, rs, DH, DW, SW); \
        memcpy(c->y + ((n * K + k) * OH + oh) * OW, acc, sizeof(T) * OW);                              \
    }                                                                                                   \
}                                                                                                       \
                                                                                                        \
/* tiles: a unit is (image, group, block of V output channels, output row); weights packed */           \
static void conv_tiles_##SFX(void *arg, long lo, long hi)                                               \
{                                                                                                       \
    PC_CONV_LOCALS(SFX);                                                                                \
    const long kb = (Kg + V - 1) / V;                                                                   \
    T buf[PC_TILE_PX * V];                                                                              \
    for (long u = lo; u < hi; ++u) {                                                                    \
        const long oh = u % OH, b = (u / OH) % kb, gg = (u / (OH * kb)) % G, n = u / (OH * kb * G);     \
        const T *xrow = c->xp + (n * C + gg * Cg) * cs + oh * SH * rs;                                  \
        const T *wb = c->w + (gg * kb + b) * Cg * KH * KW * V;                                          \
        const long k0 = gg * Kg + b * V, kn = Kg - b * V < V ? Kg - b * V : V;                          \
        for (long ow0 = 0; ow0 < OW; ow0 += PC_TILE_PX) {                                               \
            const long cnt = OW - ow0 < PC_TILE_PX ? OW - ow0 : PC_TILE_PX;                             \
            (wide ? tile_block_##SFX : tile_block_##SFX##n)(fused, xrow + ow0 * SW, wb, buf, Cg, KH, KW, cs, rs, DH, DW, SW); \
            for (long kk = 0; kk < kn; ++kk) {                                                          \
                T *yr = c->y + ((n * K + k0 + kk) * OH + oh) * OW + ow0;                                \
                for (long j = 0; j < cnt; ++j) yr[j] = buf[j * V + kk];                                 \
            }                                                                                           \
        }                                                                                               \
    }                                                                                                   \
}                                                                                                       \
                                                                                                        \
typedef struct { const T *x; T *xp; long H, W, Hp, Wp, PH, PW; } pad_ctx_##SFX;                         \
static void conv_pad_##SFX(void *arg, long lo, long hi)                                                 \
{                                                                                                       \
    const pad_ctx_##SFX *c = (const pad_ctx_##SFX *)arg;                                                \
    for (long u = lo; u < hi; ++u) {                                                                    \
        const long nc = u / c->Hp, h = u % c->Hp - c->PH;                                               \
        T *r = c->xp + u * c->Wp;                                                                       \
        if (h < 0 || h >= c->H) { memset(r, 0, sizeof(T) * c->Wp); continue; }                          \
        memset(r, 0, sizeof(T) * c->PW);                                                                \
        memcpy(r + c->PW, c->x + (nc * c->H + h) * c->W, sizeof(T) * c->W);                             \
        memset(r + c->PW + c->W, 0, sizeof(T) * (c->Wp - c->PW - c->W));                                \
    }                                                                                                   \
}                                                                                                       \
                                                                                                        \
int pc_gen_conv2d_##SFX(const T *x, const T *w, T *y, const int64_t *g)                                 \
{                                                                                                       \
    const long N = g[G_N], C = g[G_C], H = g[G_H], W = g[G_W], K = g[G_K], G = g[G_G];                  \
    const long KH = g[G_KH], KW = g[G_KW], OH = g[G_OH], OW = g[G_OW], SW = g[G_SW], DW = g[G_DW];      \
    const long sa = g[G_SETSA], sb = g[G_SETSB];                                                        \
    if (G < 1 || C % G || K % G || OW < 1 || OW > 4096 || sa < 1 || sa > 4 || sb < 1 || sb > 4)         \
        return 1;                                                                                       \
    const long Cg = C / G, Kg = K / G;                                                                  \
    const int tiles = sa == 1 && sb == 1 && g[G_SPLIT] == OW && Kg * 2 >= V;                            \
    const long nv_row = (OW + V - 1) / V, chunk = nv_row < 4 ? nv_row : 4;     /* conv_rows' blocks */  \
    if (!tiles && (chunk * sa > 4 || nv_row % chunk * sb > 4))                 /* no such row block */  \
        return 1;                                                                                       \
    const long Hp = H + g[G_PH] + g[G_PHA], Wp = W + g[G_PW] + g[G_PWA];                                \
    /* a padded copy with slack after it: a block's last pixels read past their row */                   \
    const long slack = (4 * V + PC_TILE_PX + 1) * SW + KW * DW + Wp;                                    \
    T *xp = (T *)malloc(sizeof(T) * (size_t)(N * C * Hp * Wp + slack));                                 \
    if (!xp) return 2;                                                                                  \
    pad_ctx_##SFX pc = {x, xp, H, W, Hp, Wp, g[G_PH], g[G_PW]};                                         \
    run_split(conv_pad_##SFX, &pc, N * C * Hp, N * C * Hp * Wp);                                        \
    memset(xp + N * C * Hp * Wp, 0, sizeof(T) * (size_t)slack);                                         \
    const long work = N * K * OH * OW * Cg * KH * KW;                                                   \
    if (tiles) {                                                                                        \
        const long kb = (Kg + V - 1) / V;                                                               \
        T *wp = (T *)malloc(sizeof(T) * (size_t)(G * kb * Cg * KH * KW * V));                           \
        if (!wp) { free(xp); return 2; }                                                                \
        for (long gg = 0; gg < G; ++gg)                                                                 \
            for (long b = 0; b < kb; ++b)                                                               \
                for (long i = 0; i < Cg * KH * KW; ++i)                                                 \
                    for (long l = 0; l < V; ++l) {                                                      \
                        const long kk = b * V + l;                                                      \
                        wp[((gg * kb + b) * Cg * KH * KW + i) * V + l] =                                \
                            kk < Kg ? w[(gg * Kg + kk) * Cg * KH * KW + i] : (T)0;                      \
                    }                                                                                   \
        conv_ctx_##SFX cc = {xp, wp, y, g, Hp, Wp};                                                     \
        run_split(conv_tiles_##SFX, &cc, N * G * kb * OH, work);                                        \
        free(wp);                                                                                       \
    } else {                                                                                            \
        conv_ctx_##SFX cc = {xp, w, y, g, Hp, Wp};                                                      \
        run_split(conv_rows_##SFX, &cc, N * K * OH, work);                                              \
    }                                                                                                   \
    free(xp);                                                                                           \
    return 0;                                                                                           \
}

/* 64-byte vectors where the CPU has AVX-512, else two 32-byte ones per vector (GCC lowers a 64-byte
 * vector type through the stack without AVX-512: 5x slower blocks); the same sums either way */
PC_GEN_CONV_KERNELS(float, f32, pc_g16f, 16, 1, 16)
PC_GEN_CONV_KERNELS(double, f64, pc_g8d, 8, 1, 8)
PC_GEN_CONV_KERNELS(float, f32n, pc_g8f, 8, 2, 16)
PC_GEN_CONV_KERNELS(double, f64n, pc_g4d, 4, 2, 8)
PC_GEN_CONV(float, f32, 16)
PC_GEN_CONV(double, f64, 8)

/* ---- pooling ------------------------------------------------------------------------------------------ */
enum { P_PLANES, P_D, P_H, P_W, P_OD, P_OH, P_OW, P_KW, P_SW, P_DD, P_DHH, P_PW, P_RULE, P_DIV, P_COUNT };

#define PC_GEN_POOL(T, SFX)                                                                             \
typedef struct { const T *x; T *y; const int64_t *g; const int32_t *tab; } pool_ctx_##SFX;               \
                                                                                                        \
PC_CLONES static void pool_rows_##SFX(void *arg, long lo, long hi)                                      \
{                                                                                                       \
    const pool_ctx_##SFX *c = (const pool_ctx_##SFX *)arg;                                              \
    const int64_t *g = c->g;                                                                            \
    const long D = g[P_D], H = g[P_H], W = g[P_W], OD = g[P_OD], OH = g[P_OH], OW = g[P_OW];            \
    const long KW = g[P_KW], SW = g[P_SW], d0 = g[P_DD], d1 = g[P_DHH], pw = g[P_PW];                   \
    const int mx = g[P_RULE] == 0;                                                                      \
    const long divisor = g[P_DIV];                                                                      \
    const int32_t *f0 = c->tab, *c0 = f0 + OD, *v0 = c0 + OD, *f1 = v0 + OD, *c1 = f1 + OH;             \
    const int32_t *v1 = c1 + OH, *v2 = v1 + OH, *tlo = v2 + OW, *thi = tlo + KW;                        \
    const long dw = g[P_COUNT];            /* the kernel columns' dilation */                           \
    T t[W], acc[OW];                                                                                    \
    const T init = mx ? (T)-INFINITY : (T)0;                                                            \
    for (long pr = lo; pr < hi; ++pr) {                                                                 \
        const long p = pr / (OD * OH), od = (pr / OH) % OD, oh = pr % OH;                               \
        for (long iw = 0; iw < W; ++iw) t[iw] = init;                                                   \
        for (long jd = 0; jd < c0[od]; ++jd) {                                                          \
            const long id = f0[od] + jd * d0;                                                           \
            for (long jh = 0; jh < c1[oh]; ++jh) {                                                      \
                const long ih = f1[oh] + jh * d1;                                                       \
                const T *xr = c->x + ((p * D + id) * H + ih) * W;                                       \
                if (mx) { for (long iw = 0; iw < W; ++iw) { const T v = xr[iw];                         \
                                                              t[iw] = (v > t[iw] || v != v) ? v : t[iw]; } } \
                else { for (long iw = 0; iw < W; ++iw) t[iw] += xr[iw]; }                               \
            }                                                                                           \
        }                                                                                               \
        for (long ow = 0; ow < OW; ++ow) acc[ow] = init;                                                \
        for (long j = 0; j < KW; ++j) {                                                                 \
            if (tlo[j] >= thi[j]) continue;                                                             \
            const long off = j * dw - pw;                                                               \
            if (mx) { for (long ow = tlo[j]; ow < thi[j]; ++ow) { const T v = t[ow * SW + off];          \
                                                                  acc[ow] = (v > acc[ow] || v != v) ? v : acc[ow]; } } \
            else { for (long ow = tlo[j]; ow < thi[j]; ++ow) acc[ow] += t[ow * SW + off]; }             \
        }                                                                                               \
        T *orow = c->y + pr * OW;                                                                       \
        if (mx) { for (long ow = 0; ow < OW; ++ow) orow[ow] = acc[ow]; }                                \
        else if (divisor) { for (long ow = 0; ow < OW; ++ow) orow[ow] = acc[ow] / (T)divisor; }         \
        else {                                                                                          \
            const T dv = (T)(v0[od] * v1[oh]);                                                          \
            for (long ow = 0; ow < OW; ++ow) orow[ow] = acc[ow] / (dv * (T)v2[ow]);                     \
        }                                                                                               \
    }                                                                                                   \
}                                                                                                       \
                                                                                                        \
int pc_gen_pool_##SFX(const T *x, T *y, const int64_t *g, const int32_t *tab)                           \
{                                                                                                       \
    if (g[P_W] > 4096 || g[P_OW] > 4096) return 1;       /* its row buffers live on the stack */   \
    pool_ctx_##SFX pc = {x, y, g, tab};                                                                 \
    const long rows = g[P_PLANES] * g[P_OD] * g[P_OH];                                                  \
    run_split(pool_rows_##SFX, &pc, rows, 4 * rows * g[P_OW] * g[P_KW]);                                \
    return 0;                                                                                           \
}                                                                                                       \
                                                                                                        \
typedef struct { const T *x; const T *g; T *dx; const int64_t *geo; const int32_t *tab; } pgrad_ctx_##SFX; \
                                                                                                        \
static void pool_grad_planes_##SFX(void *arg, long lo, long hi)                                         \
{                                                                                                       \
    const pgrad_ctx_##SFX *c = (const pgrad_ctx_##SFX *)arg;                                            \
    const int64_t *q = c->geo;                                                                          \
    const long D = q[1], H = q[2], W = q[3], OD = q[4], OH = q[5], OW = q[6];                           \
    const int mx = q[7] == 0;                                                                           \
    const long divisor = q[8], full = q[9];                                                             \
    const long plane = D * H * W, oplane = OD * OH * OW;                                                \
    const int32_t *f0 = c->tab, *c0 = f0 + OD, *v0 = c0 + OD, *f1 = v0 + OD, *c1 = f1 + OH;             \
    const int32_t *v1 = c1 + OH, *f2 = v1 + OH, *c2 = f2 + OW, *v2 = c2 + OW;                           \
    for (long p = lo; p < hi; ++p) {                                                                    \
        const long xb = p * plane;                                                                      \
        const T *gp = c->g + p * oplane;                                                                \
        const T *x = c->x;                                                                              \
        T *out = c->dx;                                                                                 \
        memset(out + xb, 0, sizeof(T) * plane);                                                         \
        if (full) {                                                                                     \
            const long kd = q[10], sd = q[11], dd = q[12], fd = q[13], kh = q[14], sh = q[15];          \
            const long dh = q[16], fh = q[17], kw = q[18], sw = q[19], dw = q[20], fw = q[21];          \
            const long adiv = q[22];                                                                    \
            for (long r = 0; r < OD * OH; ++r) {                                                        \
                const long od = r / OH, oh = r % OH;                                                    \
                const long rb = ((od * sd + fd) * H + oh * sh + fh) * W + fw;                           \
                const T *gr = gp + r * OW;                                                              \
                if (mx) {                                                                               \
                    T best[OW]; long bi[OW];                                                            \
                    for (long ow = 0; ow < OW; ++ow) { bi[ow] = rb + ow * sw; best[ow] = x[xb + bi[ow]]; } \
                    for (long jd = 0; jd < kd; ++jd)                                                    \
                    for (long jh = 0; jh < kh; ++jh)                                                    \
                    for (long jw = 0; jw < kw; ++jw) {                                                  \
                        if (jd == 0 && jh == 0 && jw == 0) continue;                                    \
                        const long off = (jd * dd * H + jh * dh) * W + jw * dw;                         \
                        for (long ow = 0; ow < OW; ++ow) {                                              \
                            const long i = rb + ow * sw + off; const T v = x[xb + i];                   \
                            const int take = (v > best[ow]) | ((v != v) & (best[ow] == best[ow]));      \
                            bi[ow] = take ? i : bi[ow]; best[ow] = take ? v : best[ow];                 \
                        }                                                                               \
                    }                                                                                   \
                    for (long ow = 0; ow < OW; ++ow) out[xb + bi[ow]] += gr[ow];                        \
                } else {                                                                                \
                    for (long jd = 0; jd < kd; ++jd)                                                    \
                    for (long jh = 0; jh < kh; ++jh)                                                    \
                    for (long jw = 0; jw < kw; ++jw) {                                                  \
                        const long off = (jd * dd * H + jh * dh) * W + jw * dw;                         \
                        for (long ow = 0; ow < OW; ++ow) out[xb + rb + ow * sw + off] += gr[ow] / (T)adiv; \
                    }                                                                                   \
                }                                                                                       \
            }                                                                                           \
            continue;                                                                                   \
        }                                                                                               \
        const long dil0 = q[10], dil1 = q[11], dil2 = q[12];                                            \
        for (long o = 0; o < oplane; ++o) {                                                             \
            const long od = o / (OH * OW), oh = (o / OW) % OH, ow = o % OW;                             \
            if (mx) {                                                                                   \
                T best = (T)-INFINITY; long bi = -1; int nan = 0;                                       \
                for (long jd = 0; jd < c0[od]; ++jd)                                                    \
                for (long jh = 0; jh < c1[oh]; ++jh) {                                                  \
                    const long rb = ((f0[od] + jd * dil0) * H + f1[oh] + jh * dil1) * W;                \
                    for (long jw = 0; jw < c2[ow]; ++jw) {                                              \
                        const long i = rb + f2[ow] + jw * dil2;                                         \
                        const T v = x[xb + i];                                                          \
                        if (!nan && (v > best || v != v || bi < 0)) { best = v; bi = i; nan = v != v; } \
                    }                                                                                   \
                }                                                                                       \
                if (bi >= 0) out[xb + bi] += gp[o];                                                     \
            } else {                                                                                    \
                const T gv = gp[o] / (divisor ? (T)divisor : (T)(v0[od] * v1[oh] * v2[ow]));            \
                for (long jd = 0; jd < c0[od]; ++jd)                                                    \
                for (long jh = 0; jh < c1[oh]; ++jh) {                                                  \
                    const long rb = ((f0[od] + jd * dil0) * H + f1[oh] + jh * dil1) * W;                \
                    for (long jw = 0; jw < c2[ow]; ++jw) out[xb + rb + f2[ow] + jw * dil2] += gv;       \
                }                                                                                       \
            }                                                                                           \
        }                                                                                               \
    }                                                                                                   \
}                                                                                                       \
                                                                                                        \
int pc_gen_pool_grad_##SFX(const T *x, const T *g, T *dx, const int64_t *geo, const int32_t *tab)       \
{                                                                                                       \
    if (geo[6] > 4096) return 1;                                                                       \
    pgrad_ctx_##SFX pc = {x, g, dx, geo, tab};                                                          \
    run_split(pool_grad_planes_##SFX, &pc, geo[0], 4 * geo[0] * geo[1] * geo[2] * geo[3]);              \
    return 0;                                                                                           \
}

PC_GEN_POOL(float, f32)
PC_GEN_POOL(double, f64)
