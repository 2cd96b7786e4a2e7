/* Shape-generic convolution and pooling kernels (declared in pycompile_generic.h): the sizes are
 * arguments, the arithmetic of each output is the per-signature kernel's, in its order.
 *
 * The convolution computes an output row at a time, vectorized along the row (the row's
 * accumulators live in a stack array, not in registers as in the generated tiles), so it is
 * slower than the per-signature kernel on wide layers: PyNative runs it while that kernel is
 * built in the background (backend/eager_generic.py, docs/eager-kernels.md). Both read a
 * zero-padded copy of the input, so a padding element is multiplied like any other (w * 0 is
 * NaN for an infinite weight in both).
 *
 * Built with the runtime (csrc/build_runtime.py) at -O3 without -march: the hot loops are
 * compiled for AVX-512, AVX2 and the baseline and picked at load (target_clones). Products and
 * sums round as written: the file is compiled with fp-contract off, and the fused variant calls
 * fma() itself. */
#pragma GCC optimize("fp-contract=off")
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pycompile_generic.h"
#include "pycompile_rt.h"

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define PC_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define PC_CLONES
#endif

/* work (multiply-adds or elements) below which a kernel runs on the calling thread */
#define PC_GEN_SERIAL (1L << 16)

int pc_gen_cpu_fma(void)
{
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    __builtin_cpu_init();
    return __builtin_cpu_supports("fma") ? 1 : 0;
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
       G_OW, G_SPLIT, G_SETSA, G_SETSB, G_FUSED, G_COUNT };

#define PC_GEN_CONV(T, SFX, FMA)                                                                        \
typedef struct { const T *xp; const T *w; T *y; const int64_t *g; long Hp, Wp; } conv_ctx_##SFX;         \
                                                                                                        \
/* one segment [lo, hi) of an output row: kernel column s adds into accumulator s % sets */             \
static inline void conv_seg_##SFX(T *restrict acc, const T *restrict xr, const T *restrict wr, long KW,  \
                                  long SW, long DW, long OW, long lo, long hi, long sets, int fused)    \
{                                                                                                       \
    for (long s = 0; s < KW; ++s) {                                                                     \
        T *restrict a = acc + (s % sets) * OW;                                                          \
        const T wv = wr[s];                                                                             \
        const T *restrict xs = xr + s * DW;                                                             \
        if (fused && SW == 1) { for (long j = lo; j < hi; ++j) a[j] = FMA(wv, xs[j], a[j]); }          \
        else if (fused) { for (long j = lo; j < hi; ++j) a[j] = FMA(wv, xs[j * SW], a[j]); }           \
        else if (SW == 1) { for (long j = lo; j < hi; ++j) a[j] = a[j] + wv * xs[j]; }                 \
        else { for (long j = lo; j < hi; ++j) a[j] = a[j] + wv * xs[j * SW]; }                         \
    }                                                                                                   \
}                                                                                                       \
                                                                                                        \
PC_CLONES static void conv_rows_##SFX(void *arg, long lo, long hi)                                      \
{                                                                                                       \
    const conv_ctx_##SFX *c = (const conv_ctx_##SFX *)arg;                                              \
    const int64_t *g = c->g;                                                                            \
    const long C = g[G_C], K = g[G_K], G = g[G_G], Cg = C / G, Kg = K / G, KH = g[G_KH], KW = g[G_KW];  \
    const long SH = g[G_SH], SW = g[G_SW], DH = g[G_DH], DW = g[G_DW], OH = g[G_OH], OW = g[G_OW];      \
    const long split = g[G_SPLIT], sa = g[G_SETSA], sb = g[G_SETSB];                                    \
    const int fused = (int)g[G_FUSED];                                                                  \
    const long smax = sa > sb ? sa : sb;                                                                \
    T acc[smax * OW];                                                                                   \
    for (long u = lo; u < hi; ++u) {                                                                    \
        const long n = u / (K * OH), k = (u / OH) % K, oh = u % OH;                                     \
        const long cin = (k / Kg) * Cg;                                                                 \
        memset(acc, 0, sizeof(T) * smax * OW);                                                          \
        for (long ch = 0; ch < Cg; ++ch) {                                                              \
            const T *xc = c->xp + ((n * C + cin + ch) * c->Hp + oh * SH) * c->Wp;                       \
            for (long r = 0; r < KH; ++r) {                                                             \
                const T *xr = xc + r * DH * c->Wp;                                                      \
                const T *wr = c->w + ((k * Cg + ch) * KH + r) * KW;                                     \
                if (split > 0) conv_seg_##SFX(acc, xr, wr, KW, SW, DW, OW, 0, split, sa, fused);         \
                if (split < OW) conv_seg_##SFX(acc, xr, wr, KW, SW, DW, OW, split, OW, sb, fused);       \
            }                                                                                           \
        }                                                                                               \
        T *yr = c->y + ((n * K + k) * OH + oh) * OW;                                                    \
        for (long j = 0; j < OW; ++j) {                                                                 \
            const long sets = j < split ? sa : sb;                                                      \
            T t = acc[j];                                                                               \
            for (long s = 1; s < sets; ++s) t = t + acc[s * OW + j];                                    \
            yr[j] = t;                                                                                  \
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
    const long OH = g[G_OH], OW = g[G_OW];                                                              \
    const long sa = g[G_SETSA], sb = g[G_SETSB];                                                        \
    if (G < 1 || C % G || K % G || OW < 1 || OW > 4096 || sa < 1 || sa > 4 || sb < 1 || sb > 4)         \
        return 1;                                                                                       \
    const long Hp = H + g[G_PH] + g[G_PHA], Wp = W + g[G_PW] + g[G_PWA];                                \
    const int padded = g[G_PH] || g[G_PW] || g[G_PHA] || g[G_PWA];                                      \
    T *xp = (T *)x;                                                                                     \
    if (padded) {                                                                                       \
        xp = (T *)malloc(sizeof(T) * (size_t)(N * C * Hp * Wp + 1));                                    \
        if (!xp) return 2;                                                                              \
        pad_ctx_##SFX pc = {x, xp, H, W, Hp, Wp, g[G_PH], g[G_PW]};                                     \
        run_split(conv_pad_##SFX, &pc, N * C * Hp, N * C * Hp * Wp);                                    \
    }                                                                                                   \
    conv_ctx_##SFX cc = {xp, w, y, g, Hp, Wp};                                                          \
    run_split(conv_rows_##SFX, &cc, N * K * OH, N * K * OH * OW * (C / G) * g[G_KH] * g[G_KW]);        \
    if (padded) free(xp);                                                                               \
    return 0;                                                                                           \
}

PC_GEN_CONV(float, f32, fmaf)
PC_GEN_CONV(double, f64, fma)

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
    if (g[P_W] > 8192 || g[P_OW] > 8192) return 1;                                                    \
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
    if (geo[6] > 8192) return 1;                                                                       \
    pgrad_ctx_##SFX pc = {x, g, dx, geo, tab};                                                          \
    run_split(pool_grad_planes_##SFX, &pc, geo[0], 4 * geo[0] * geo[1] * geo[2] * geo[3]);              \
    return 0;                                                                                           \
}

PC_GEN_POOL(float, f32)
PC_GEN_POOL(double, f64)
