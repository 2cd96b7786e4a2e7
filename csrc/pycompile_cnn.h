/* Hand-written helpers for the CNN kernels generated code calls (pycompile/backend/c/ops/conv.py, pool.py,
 * random.py): per-kernel scratch memory, im2col / col2im over up to three spatial axes, and the
 * Philox-4x32-10 counter-based generator. Static inline like the rest of the headers: a module
 * compiles only the functions it calls. */
#ifndef PYCOMPILE_CNN_H
#define PYCOMPILE_CNN_H
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Vectors for the convolution kernels, one set per machine width (backend/c/ops/vectors.py picks
 * the widest the target's registers hold: GCC lowers a wider one through the stack) */
typedef float pc_v16f __attribute__((vector_size(64)));
typedef double pc_v8d __attribute__((vector_size(64)));
typedef int32_t pc_v16i __attribute__((vector_size(64)));
typedef int64_t pc_v8l __attribute__((vector_size(64)));
typedef float pc_v8f __attribute__((vector_size(32)));
typedef double pc_v4d __attribute__((vector_size(32)));
typedef int32_t pc_v8i __attribute__((vector_size(32)));
typedef int64_t pc_v4l __attribute__((vector_size(32)));
typedef float pc_v4f __attribute__((vector_size(16)));
typedef double pc_v2d __attribute__((vector_size(16)));
typedef int32_t pc_v4i __attribute__((vector_size(16)));
typedef int64_t pc_v2l __attribute__((vector_size(16)));

/* The direct convolution's register tiles (backend/c/ops/conv.py) multiply-add with fused multiply-adds.
 * Generated code is built with -ffp-contract=off (toolchain.py: a value computed twice must round
 * the same way both times), which makes each `acc += w * x` a multiply and an add; a tile computes
 * each sum once, so its function is built with contraction on. Contraction is decided by the
 * function the code ends up in, so tiles are not inlined (a call per tile of >= 25 multiply-adds
 * per vector). */
#ifndef PC_CONTRACT_FN
#if defined(__clang__)
#define PC_CONTRACT_FN static __attribute__((noinline))
#define PC_CONTRACT_BODY _Pragma("clang fp contract(fast)")
#elif defined(__GNUC__)
#define PC_CONTRACT_FN static __attribute__((noinline, optimize("fp-contract=fast")))
#define PC_CONTRACT_BODY
#else
#define PC_CONTRACT_FN static inline
#define PC_CONTRACT_BODY
#endif
#endif

/* Scratch memory of one kernel of one module, per calling thread (static __thread pointers in
 * the generated code): grown on demand, kept between calls, so steady-state calls allocate
 * nothing and touch no fresh pages. 64-byte aligned. */
static inline void *pc_scratch(void **buf, size_t *cap, size_t bytes)
{
    if (bytes > *cap) {
        free(*buf);
        size_t n = (bytes + 63) / 64 * 64;
        *buf = aligned_alloc(64, n ? n : 64);
        *cap = *buf ? n : 0;
    }
    return *buf;
}

/* im2col of one image: for output positions q in [q0, q1) (flat over od, oh, ow) and each
 * kernel offset (c, kd, kh, kw) in row order, cols[row * (q1 - q0) + q - q0] = the input element
 * that offset reads for q (0 in the padding). 2-D convolutions pass D = KD = OD = 1. */
#define PC_IM2COL(T, NAME)                                                                         \
static void NAME(const T *x, T *cols, long C, long D, long H, long W, long KD, long KH, long KW,   \
                 long SD, long SH, long SW, long DD, long DH, long DW, long PD, long PH, long PW,   \
                 long OH, long OW, long q0, long q1)                                               \
{                                                                                                  \
    const long L = q1 - q0;                                                                        \
    for (long c = 0; c < C; ++c)                                                                   \
    for (long kd = 0; kd < KD; ++kd)                                                               \
    for (long kh = 0; kh < KH; ++kh)                                                               \
    for (long kw = 0; kw < KW; ++kw) {                                                             \
        T *dst = cols + (((c * KD + kd) * KH + kh) * KW + kw) * L - q0;                            \
        for (long q = q0; q < q1;) {                                                               \
            const long ow = q % OW, t = q / OW, oh = t % OH, od = t / OH;                          \
            const long n = OW - ow < q1 - q ? OW - ow : q1 - q;                                    \
            const long id = od * SD - PD + kd * DD, ih = oh * SH - PH + kh * DH;                   \
            if (id < 0 || id >= D || ih < 0 || ih >= H) {                                          \
                memset(dst + q, 0, sizeof(T) * n); q += n; continue;                               \
            }                                                                                      \
            const T *row = x + ((c * D + id) * H + ih) * W;                                        \
            const long iw0 = ow * SW - PW + kw * DW;                                               \
            /* j in [j0, j1) reads inside the row; the rest is padding */                         \
            long j0 = iw0 >= 0 ? 0 : (-iw0 + SW - 1) / SW;                                         \
            long j1 = iw0 >= W ? 0 : (W - 1 - iw0) / SW + 1;                                       \
            if (j0 > n) j0 = n;                                                                    \
            if (j1 > n) j1 = n;                                                                    \
            if (j1 < j0) j1 = j0;                                                                  \
            for (long j = 0; j < j0; ++j) dst[q + j] = (T)0;                                       \
            if (SW == 1) { for (long j = j0; j < j1; ++j) dst[q + j] = row[iw0 + j]; }             \
            else { for (long j = j0; j < j1; ++j) dst[q + j] = row[iw0 + j * SW]; }                \
            for (long j = j1; j < n; ++j) dst[q + j] = (T)0;                                       \
            q += n;                                                                                \
        }                                                                                          \
    }                                                                                              \
}

/* col2im: the transpose - every cols entry is added into the input element it came from. */
#define PC_COL2IM(T, NAME)                                                                         \
static void NAME(const T *cols, T *dx, long C, long D, long H, long W, long KD, long KH, long KW,  \
                 long SD, long SH, long SW, long DD, long DH, long DW, long PD, long PH, long PW,   \
                 long OH, long OW, long q0, long q1)                                               \
{                                                                                                  \
    const long L = q1 - q0;                                                                        \
    for (long c = 0; c < C; ++c)                                                                   \
    for (long kd = 0; kd < KD; ++kd)                                                               \
    for (long kh = 0; kh < KH; ++kh)                                                               \
    for (long kw = 0; kw < KW; ++kw) {                                                             \
        const T *src = cols + (((c * KD + kd) * KH + kh) * KW + kw) * L - q0;                      \
        for (long q = q0; q < q1;) {                                                               \
            const long ow = q % OW, t = q / OW, oh = t % OH, od = t / OH;                          \
            const long n = OW - ow < q1 - q ? OW - ow : q1 - q;                                    \
            const long id = od * SD - PD + kd * DD, ih = oh * SH - PH + kh * DH;                   \
            if (id < 0 || id >= D || ih < 0 || ih >= H) { q += n; continue; }                      \
            T *row = dx + ((c * D + id) * H + ih) * W;                                             \
            const long iw0 = ow * SW - PW + kw * DW;                                               \
            long j0 = iw0 >= 0 ? 0 : (-iw0 + SW - 1) / SW;                                         \
            long j1 = iw0 >= W ? 0 : (W - 1 - iw0) / SW + 1;                                       \
            if (j0 > n) j0 = n;                                                                    \
            if (j1 > n) j1 = n;                                                                    \
            for (long j = j0; j < j1; ++j) row[iw0 + j * SW] += src[q + j];                        \
            q += n;                                                                                \
        }                                                                                          \
    }                                                                                              \
}

PC_IM2COL(float, pc_im2col_f32)
PC_IM2COL(double, pc_im2col_f64)
PC_COL2IM(float, pc_col2im_f32)
PC_COL2IM(double, pc_col2im_f64)

/* Philox-4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011): the
 * block (c0, c1) = element block index, (c2, c3) = the call's offset, under a 64-bit key. The
 * NumPy twin is pycompile/ops/defs/random.py; both must give the same words. */
static inline void pc_philox(uint64_t block, uint64_t offset, uint64_t key, uint32_t out[4])
{
    uint32_t c0 = (uint32_t)block, c1 = (uint32_t)(block >> 32), c2 = (uint32_t)offset, c3 = (uint32_t)(offset >> 32);
    uint32_t k0 = (uint32_t)key, k1 = (uint32_t)(key >> 32);
    for (int r = 0; r < 10; ++r) {
        const uint64_t p0 = (uint64_t)0xD2511F53u * c0, p1 = (uint64_t)0xCD9E8D57u * c2;
        const uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
        c0 = n0; c1 = (uint32_t)p1; c2 = n2; c3 = (uint32_t)p0;
        k0 += 0x9E3779B9u; k1 += 0xBB67AE85u;
    }
    out[0] = c0; out[1] = c1; out[2] = c2; out[3] = c3;
}

/* The key of a call from the generator state [seed, offset, seed was set] and the op's seed. */
static inline uint64_t pc_rng_key(const int64_t *state, uint64_t op_seed)
{
    const uint64_t seed = (op_seed == 0 || state[2]) ? (uint64_t)state[0] : 0;
    return seed * UINT64_C(0x9E3779B97F4A7C15) + op_seed * UINT64_C(0xBF58476D1CE4E5B9) + 1;
}

/* Word i of the stream (key, offset). */
static inline uint32_t pc_rng_word(uint64_t i, uint64_t offset, uint64_t key)
{
    uint32_t w[4];
    pc_philox(i >> 2, offset, key, w);
    return w[i & 3];
}

static inline double pc_rng_u01(uint32_t w) { return (double)(w >> 8) * (1.0 / 16777216.0); }

/* Normal i: Box-Muller on words (2j, 2j + 1) of its block pair, cos for even i, sin for odd. */
static inline double pc_rng_normal(uint64_t i, uint64_t offset, uint64_t key)
{
    uint32_t w[4];
    pc_philox(i >> 2, offset, key, w);
    const int lane = (int)(i & 3) & ~1;
    const double u1 = ((double)w[lane] + 1.0) * (1.0 / 4294967296.0);
    const double u2 = (double)w[lane + 1] * (1.0 / 4294967296.0);
    const double r = sqrt(-2.0 * log(u1)), t = 6.283185307179586 * u2;
    return (i & 1) ? r * sin(t) : r * cos(t);
}

/* qsort order of (word << 32 | index) keys: by word, then index - a stable argsort of words */
static int pc_u64_cmp(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

#endif
