/* Helpers for generated code: scalar functions whose C spelling is not one expression.
 * Everything is static inline so kernels stay vectorizable and no symbol is exported.
 * Semantics match the NumPy eager implementations (tests compare them):
 *   integer floor division / modulo round toward -inf; division by zero gives 0, and
 *   MIN // -1 gives MIN and MIN % -1 gives 0 (the C operators trap: SIGFPE on x86);
 *   negative integer powers give 0 except for bases 1 and -1;
 *   float -> integer conversions give NumPy's values where C leaves them undefined.
 * Signed overflow wraps (the toolchain passes -fwrapv), as in NumPy. */
#ifndef PYCOMPILE_KERNELS_H
#define PYCOMPILE_KERNELS_H
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#include "pycompile_rt.h"

/* Vector variants of libm functions (glibc's libmvec). glibc declares them only under
 * -ffast-math, which would also break NaN / Inf semantics; declaring them here lets the
 * compiler vectorize loops calling exp / tanh / log ... (4 ulp at most, per glibc) without it.
 * The toolchain defines PC_HAVE_LIBMVEC and links -lmvec only where libmvec exists. */
#ifdef PC_HAVE_LIBMVEC
#define PC_SIMD _Pragma("omp declare simd notinbranch")
PC_SIMD float expf(float);   PC_SIMD double exp(double);
PC_SIMD float logf(float);   PC_SIMD double log(double);
PC_SIMD float tanhf(float);  PC_SIMD double tanh(double);
PC_SIMD float sinf(float);   PC_SIMD double sin(double);
PC_SIMD float cosf(float);   PC_SIMD double cos(double);
PC_SIMD float erff(float);   PC_SIMD double erf(double);
PC_SIMD float powf(float, float); PC_SIMD double pow(double, double);
PC_SIMD float expm1f(float); PC_SIMD double expm1(double);
PC_SIMD float log1pf(float); PC_SIMD double log1p(double);
/* the rest of what generated C calls (backend/c/ops/math.py, GeLU-erf's erfc): scalar, each was
 * 10-25 ns an element (erfcf 10.6, atanf 17.6, sinhf 24.9; expf's vector loop 1.0 with its
 * memory traffic: one thread, 2-core AMD EPYC) */
PC_SIMD float erfcf(float);  PC_SIMD double erfc(double);
PC_SIMD float log2f(float);  PC_SIMD double log2(double);
PC_SIMD float tanf(float);   PC_SIMD double tan(double);
PC_SIMD float asinf(float);  PC_SIMD double asin(double);
PC_SIMD float acosf(float);  PC_SIMD double acos(double);
PC_SIMD float atanf(float);  PC_SIMD double atan(double);
PC_SIMD float sinhf(float);  PC_SIMD double sinh(double);
PC_SIMD float coshf(float);  PC_SIMD double cosh(double);
PC_SIMD float asinhf(float); PC_SIMD double asinh(double);
PC_SIMD float acoshf(float); PC_SIMD double acosh(double);
PC_SIMD float atanhf(float); PC_SIMD double atanh(double);
PC_SIMD float atan2f(float, float); PC_SIMD double atan2(double, double);
#undef PC_SIMD
#endif

/* float16 <-> float by integer bit operations. GCC 12 converts _Float16 one element at a time
 * (without AVX512-FP16 it has no vector form), which keeps any loop touching float16 scalar;
 * these spell the same conversions in integer and float32 arithmetic the vectorizer handles.
 * Exact: every float16 converts to its float; float -> float16 rounds to nearest even, overflows
 * to infinity, keeps subnormals, and keeps NaN a NaN (tests check all 65536 values). Generated
 * code reads and writes float16 storage through pc_half_bits, a uint16_t that may alias. */
typedef uint16_t __attribute__((may_alias)) pc_half_bits;

static inline float pc_bits_f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline uint32_t pc_f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
/* c ? a : b (c is 0 or 1) in mask arithmetic: with a float operation on one side, a ?: becomes a
 * branch GCC will not if-convert without AVX-512's masked operations (the operation could trap,
 * and the code does not use -fno-trapping-math), which left every float16 loop scalar on AVX2 */
static inline uint32_t pc_sel32(uint32_t c, uint32_t a, uint32_t b) { const uint32_t m = 0u - c; return (a & m) | (b & ~m); }
/* c ? a : b on floats / doubles, both evaluated: `c ? 0 : expf(x)` is a conditional call GCC
 * vectorizes only with AVX-512's masked libmvec calls; pc_self(c, 0, expf(x)) calls it for every
 * lane (no errno: -fno-math-errno) and vectorizes on AVX2 too */
static inline float pc_self(int c, float a, float b) {
    uint32_t x, y; memcpy(&x, &a, 4); memcpy(&y, &b, 4);
    const uint32_t r = pc_sel32((uint32_t)(c != 0), x, y);
    float f; memcpy(&f, &r, 4); return f;
}
static inline double pc_seld(int c, double a, double b) {
    uint64_t x, y; memcpy(&x, &a, 8); memcpy(&y, &b, 8);
    const uint64_t m = 0ull - (uint64_t)(c != 0), r = (x & m) | (y & ~m);
    double f; memcpy(&f, &r, 8); return f;
}

/* floor / ceil / trunc of a float through a 32-bit integer conversion, which vectorizes (GCC
 * vectorizes floorf / ceilf / truncf only with -fno-trapping-math): for |x| < 2^23 the truncated
 * value t, moved down (floor) or up (ceil) by one where it passed x, with x's sign (floor(-0) = -0,
 * ceil(-0.5) = -0); x + 0 where |x| >= 2^23 (an integer already), inf or NaN (a signaling NaN
 * quieted, as floorf does). Bit for bit floorf / ceilf / truncf on all 2^32 floats (30 Nov). */
static inline float pc_truncf(float x) {
    const int small = fabsf(x) < 8388608.0f;
    const float t = (float)(int32_t)pc_self(small, x, 0.0f);
    return pc_self(small, copysignf(t, x), x + 0.0f);
}
static inline float pc_floorf(float x) {
    const int small = fabsf(x) < 8388608.0f;
    const float xs = pc_self(small, x, 0.0f), t = (float)(int32_t)xs;
    return pc_self(small, copysignf(pc_self(t > xs, t - 1.0f, t), x), x + 0.0f);
}
static inline float pc_ceilf(float x) {
    const int small = fabsf(x) < 8388608.0f;
    const float xs = pc_self(small, x, 0.0f), t = (float)(int32_t)xs;
    return pc_self(small, copysignf(pc_self(t < xs, t + 1.0f, t), x), x + 0.0f);
}

static inline float pc_h2f(uint16_t h) {
    /* the magnitude bits moved into a float's place are the value times 2^-112, for normal and
     * subnormal float16 alike; infinities and NaNs take the float exponent instead */
    const uint32_t mag = (uint32_t)(h & 0x7fffu) << 13;
    const uint32_t scaled = pc_f32_bits(pc_bits_f32(mag) * 0x1p112f);
    const uint32_t bits = pc_sel32((h & 0x7c00u) == 0x7c00u, 0x7f800000u | mag, scaled);
    return pc_bits_f32(bits | ((uint32_t)(h & 0x8000u) << 16));
}

static inline uint16_t pc_f2h(float f) {
    const uint32_t u = pc_f32_bits(f);
    const uint32_t sign = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;
    /* |f| >= 2^-14: a normal float16 - round the 13 dropped mantissa bits to even - or, when
     * that reaches 2^16, infinity */
    const uint32_t r = a + 0xfffu + ((a >> 13) & 1u);
    const uint32_t normal = pc_sel32(r >= 0x47800000u, 0x7c00u, (r >> 13) - (112u << 10));
    /* below: float16 subnormals are multiples of 2^-24, the ulp of floats in [0.5, 1), so
     * adding 0.5 rounds to even and the low bits of the sum are the float16 bits */
    const uint32_t sub = pc_f32_bits(pc_bits_f32(a) + 0.5f) - 0x3f000000u;
    uint32_t h = pc_sel32(a >= 0x38800000u, normal, sub);
    h = pc_sel32(a == 0x7f800000u, 0x7c00u, h);
    h = pc_sel32(a > 0x7f800000u, 0x7e00u, h);
    return (uint16_t)(h | sign);
}

#if !defined(__FLT16_MAX__) && defined(__clang__)
/* clang < 15 on x86-64 has no _Float16, only the storage type __fp16, whose conversions call
 * these runtime helpers (compiler-rt's names, absent from libgcc): defined here, hidden, once
 * per generated module, with the same exact conversions as above. */
#define _Float16 __fp16
__attribute__((visibility("hidden"))) float __gnu_h2f_ieee(uint16_t h) { return pc_h2f(h); }
__attribute__((visibility("hidden"))) uint16_t __gnu_f2h_ieee(float f) { return pc_f2h(f); }
__attribute__((visibility("hidden"))) float __extendhfsf2(uint16_t h) { return pc_h2f(h); }
__attribute__((visibility("hidden"))) uint16_t __truncsfhf2(float f) { return pc_f2h(f); }
/* double -> float16 in one rounding: to float rounding to odd (truncate, then set the last bit
 * when inexact) keeps the float16 rounding of the float that of the double */
__attribute__((visibility("hidden"))) uint16_t __truncdfhf2(double d) {
    float f = (float)d;
    if (f == f && (double)f != d && !__builtin_isinf(f)) {
        if (__builtin_fabs((double)f) > __builtin_fabs(d))
            f = __builtin_nextafterf(f, 0.0f);
        f = pc_bits_f32(pc_f32_bits(f) | 1u);
    }
    return pc_f2h(f);
}
#endif

/* a float rounded to the nearest float16 value (what storing and reloading a float16 gives),
 * without going through the 16-bit form: the same roundings as pc_f2h on the float's own bits */
static inline float pc_round_h(float f) {
    const uint32_t u = pc_f32_bits(f);
    const uint32_t sign = u & 0x80000000u, a = u & 0x7fffffffu;
    const uint32_t r = (a + 0xfffu + ((a >> 13) & 1u)) & 0xffffe000u;
    const uint32_t normal = pc_sel32(r >= 0x47800000u, 0x7f800000u, r);
    const uint32_t sub = pc_f32_bits((pc_bits_f32(a) + 0.5f) - 0.5f);
    uint32_t m = pc_sel32(a >= 0x38800000u, normal, sub);
    m = pc_sel32(a > 0x7f800000u, a, m);
    return pc_bits_f32(m | sign);
}

/* bfloat16: a float's top 16 bits, stored as pc_bf16 (a uint16_t that may alias) and computed in
 * float. float -> bfloat16 rounds to nearest even (overflowing to infinity) and makes a NaN the
 * quiet NaN 0x7fc0 with its sign, as ml_dtypes (PyNative's NumPy type) does: bit for bit on all
 * 2^32 floats (tests/common/test_bfloat16.py checks a sample and the edges). */
typedef uint16_t __attribute__((may_alias)) pc_bf16;
static inline float pc_bf2f(uint16_t b) { return pc_bits_f32((uint32_t)b << 16); }
static inline uint16_t pc_f2bf(float f) {
    const uint32_t u = pc_f32_bits(f);
    const uint32_t r = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    return (uint16_t)pc_sel32((u & 0x7fffffffu) > 0x7f800000u, ((u >> 16) & 0x8000u) | 0x7fc0u, r);
}
/* a float rounded to the nearest bfloat16 value (what storing and reloading one gives) */
static inline float pc_round_bf(float f) { return pc_bf2f(pc_f2bf(f)); }

#define PC_INT_HELPERS(T)                                                              \
    static inline T pc_floordiv_##T(T a, T b) {                                        \
        if (b == 0) return 0;                                                          \
        if (b == (T)-1) return (T)(0ull - (unsigned long long)a);  /* MIN // -1: MIN */ \
        T q = a / b;                                                                   \
        if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;                              \
        return q;                                                                      \
    }                                                                                  \
    static inline T pc_mod_##T(T a, T b) {                                             \
        if (b == 0 || b == (T)-1) return 0;           /* MIN % -1 traps in C; it is 0 */ \
        T r = a % b;                                                                   \
        if (r != 0 && ((r < 0) != (b < 0))) r += b;                                    \
        return r;                                                                      \
    }                                                                                  \
    static inline T pc_ipow_##T(T base, T e) {                                         \
        if (e < 0) return base == 1 ? 1 : (base == (T)-1 ? ((e & 1) ? (T)-1 : 1) : 0); \
        T r = 1;                                                                       \
        while (e) { if (e & 1) r *= base; base *= base; e >>= 1; }                     \
        return r;                                                                      \
    }                                                                                  \
    static inline T pc_clamp_##T(T x, T lo, T hi) { return x < lo ? lo : (x > hi ? hi : x); }

#define PC_UINT_HELPERS(T)                                                             \
    static inline T pc_floordiv_##T(T a, T b) { return b == 0 ? 0 : a / b; }           \
    static inline T pc_mod_##T(T a, T b) { return b == 0 ? 0 : a % b; }                \
    static inline T pc_ipow_##T(T base, T e) {                                         \
        T r = 1;                                                                       \
        while (e) { if (e & 1) r *= base; base *= base; e >>= 1; }                     \
        return r;                                                                      \
    }                                                                                  \
    static inline T pc_clamp_##T(T x, T lo, T hi) { return x < lo ? lo : (x > hi ? hi : x); }

PC_INT_HELPERS(int8_t)
PC_INT_HELPERS(int16_t)
PC_INT_HELPERS(int32_t)
PC_INT_HELPERS(int64_t)
PC_UINT_HELPERS(uint8_t)
PC_UINT_HELPERS(uint16_t)
PC_UINT_HELPERS(uint32_t)
PC_UINT_HELPERS(uint64_t)

/* float -> integer conversions. C leaves NaN and out-of-range values undefined (and GCC folds
 * on that assumption); these give what NumPy gives on x86-64 instead: int32 / int64 get their
 * MIN ("integer indefinite"), int8 / int16 / uint8 / uint16 take the low bits of the int32
 * result, uint32 the low bits of the int64 result, and uint64 converts values from 2^63 up by
 * subtracting 2^63 first. The conversion itself only ever sees an in-range value and the
 * choice is a select on integers, so loops calling these still vectorize and never trap. */
#define PC_F2I(F, LO32, LO64)                                                                  \
    static inline int32_t pc_##F##_to_int32_t(F x) {                                           \
        const int ok = x > LO32 && x < (F)0x1p31;                                              \
        const int32_t i = (int32_t)(ok ? x : (F)0);                                            \
        return ok ? i : INT32_MIN;                                                             \
    }                                                                                          \
    static inline int64_t pc_##F##_to_int64_t(F x) {                                           \
        const int ok = x > LO64 && x < (F)0x1p63;                                              \
        const int64_t i = (int64_t)(ok ? x : (F)0);                                            \
        return ok ? i : INT64_MIN;                                                             \
    }                                                                                          \
    static inline int8_t pc_##F##_to_int8_t(F x) { return (int8_t)pc_##F##_to_int32_t(x); }    \
    static inline int16_t pc_##F##_to_int16_t(F x) { return (int16_t)pc_##F##_to_int32_t(x); } \
    static inline uint8_t pc_##F##_to_uint8_t(F x) { return (uint8_t)pc_##F##_to_int32_t(x); } \
    static inline uint16_t pc_##F##_to_uint16_t(F x) { return (uint16_t)pc_##F##_to_int32_t(x); } \
    static inline uint32_t pc_##F##_to_uint32_t(F x) { return (uint32_t)pc_##F##_to_int64_t(x); } \
    static inline uint64_t pc_##F##_to_uint64_t(F x) {                                         \
        const int big = x >= (F)0x1p63;                                                        \
        const uint64_t i = (uint64_t)pc_##F##_to_int64_t(big ? x - (F)0x1p63 : x);             \
        return big ? i ^ 0x8000000000000000ull : i;                                            \
    }

/* LO: the largest value below the range whose truncation is out of range (-2^31 - 1 is exact
 * in double; the float below -2^31 is -2^31 - 256) */
PC_F2I(float, -2147483904.0f, -0x1.000002p63f)
PC_F2I(double, -2147483649.0, -0x1.0000000000001p63)

/* Float floor division and modulo as MindSpore computes them: in double, floor(a / b) and
 * a - floor(a / b) * b (so 1.0f // 0.1f is 9, -2.5 // inf is -0.0 and a mod inf is NaN). */
static inline double pc_floordiv_double(double a, double b) { return floor(a / b); }
static inline float pc_floordiv_float(float a, float b) { return (float)floor((double)a / (double)b); }
static inline double pc_mod_double(double a, double b) { return a - floor(a / b) * b; }
static inline float pc_mod_float(float a, float b) {
    return (float)((double)a - floor((double)a / (double)b) * (double)b);
}
/* Two selects in sequence, not nested: GCC turns each into one maxss / minss (their operand
 * order keeps a NaN x), where the nested form stayed a data-dependent branch in scalar code (a
 * 2-element HSwish row per call in W3's loop version). Callers pass constant lo <= hi. */
static inline float pc_clamp_float(float x, float lo, float hi) { const float y = x < lo ? lo : x; return y > hi ? hi : y; }
static inline double pc_clamp_double(double x, double lo, double hi) { const double y = x < lo ? lo : x; return y > hi ? hi : y; }

/* Runtime error codes returned by pc_entry; Python maps (code - PC_ERR_BASE) to a message. */
#define PC_ERR_BASE 1000

/* A growable stack of fixed-size items: the forward pass of a differentiated loop pushes the
 * values each iteration starts from, and its backward pass reads them back in reverse order
 * (pycompile/ops/defs/stack.py). The struct lives in the call's arena; the items in the heap.
 * When the backward pass is done the items' memory goes back to the module's pc_stack_keep of
 * that stack (one static per StackNew): the next call takes it back already grown to the trip
 * count and with its pages mapped, instead of growing it again by realloc and faulting in
 * ~60 MB (W11's training step) on every call. A call that finds the keep taken (another thread
 * runs the same code) starts empty and frees its items at the end. */
typedef struct { char *data; int64_t len, cap; } pc_stack;
typedef struct { char *data; int64_t cap; int busy; } pc_stack_keep;

static inline void pc_stack_init(pc_stack *s) { s->data = 0; s->len = 0; s->cap = 0; }

static inline void pc_stack_take(pc_stack *s, pc_stack_keep *k) {
    pc_stack_init(s);
    if (!__atomic_exchange_n(&k->busy, 1, __ATOMIC_ACQUIRE)) {
        s->data = k->data; s->cap = k->cap;
        k->data = 0; k->cap = 0;
        __atomic_store_n(&k->busy, 0, __ATOMIC_RELEASE);
    }
}

static inline void pc_stack_give(pc_stack *s, pc_stack_keep *k) {
    if (s->data && !__atomic_exchange_n(&k->busy, 1, __ATOMIC_ACQUIRE)) {
        char *old = k->data;
        if (!old || k->cap < s->cap) { k->data = s->data; k->cap = s->cap; }
        else old = s->data;                 /* the keep holds a larger buffer already */
        __atomic_store_n(&k->busy, 0, __ATOMIC_RELEASE);
        free(old);
    } else {
        free(s->data);
    }
    pc_stack_init(s);
}

static inline int pc_stack_push(pc_stack *s, const void *item, size_t nbytes) {
    if (s->len == s->cap) {
        const int64_t cap = s->cap ? 2 * s->cap : 16;
        void *grown = realloc(s->data, (size_t)cap * (nbytes ? nbytes : 1));
        if (!grown) return -1;
        s->data = (char *)grown;
        s->cap = cap;
    }
    if (nbytes) memcpy(s->data + (size_t)s->len * nbytes, item, nbytes);
    s->len++;
    return 0;
}

static inline void *pc_stack_at(const pc_stack *s, int64_t k, size_t nbytes) {
    return s->data + (size_t)k * nbytes;
}

static inline void pc_stack_free(pc_stack *s) { free(s->data); pc_stack_init(s); }

/* im2col / col2im, per-kernel scratch memory and the counter-based random generator */
#include "pycompile_cnn.h"

#endif
