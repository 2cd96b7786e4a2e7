/* Helpers for generated code: scalar functions whose C spelling is not one expression.
 * Everything is static inline so kernels stay vectorizable and no symbol is exported.
 * Semantics match the NumPy eager implementations (tests compare them):
 *   integer floor division / modulo round toward -inf; division by zero gives 0;
 *   negative integer powers give 0 except for bases 1 and -1. */
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
#undef PC_SIMD
#endif

#define PC_INT_HELPERS(T)                                                              \
    static inline T pc_floordiv_##T(T a, T b) {                                        \
        if (b == 0) return 0;                                                          \
        T q = a / b;                                                                   \
        if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;                              \
        return q;                                                                      \
    }                                                                                  \
    static inline T pc_mod_##T(T a, T b) {                                             \
        if (b == 0) return 0;                                                          \
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

/* Float floor division and modulo as MindSpore computes them: in double, floor(a / b) and
 * a - floor(a / b) * b (so 1.0f // 0.1f is 9, -2.5 // inf is -0.0 and a mod inf is NaN). */
static inline double pc_floordiv_double(double a, double b) { return floor(a / b); }
static inline float pc_floordiv_float(float a, float b) { return (float)floor((double)a / (double)b); }
static inline double pc_mod_double(double a, double b) { return a - floor(a / b) * b; }
static inline float pc_mod_float(float a, float b) {
    return (float)((double)a - floor((double)a / (double)b) * (double)b);
}
static inline float pc_clamp_float(float x, float lo, float hi) { return x < lo ? lo : (x > hi ? hi : x); }
static inline double pc_clamp_double(double x, double lo, double hi) { return x < lo ? lo : (x > hi ? hi : x); }

/* Runtime error codes returned by pc_entry; Python maps (code - PC_ERR_BASE) to a message. */
#define PC_ERR_BASE 1000

#endif
