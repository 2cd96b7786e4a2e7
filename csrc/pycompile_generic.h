/* Shape-generic kernels built into the runtime at install (csrc/eager_generic.c): PyNative runs
 * them on the first calls of a convolution or pooling signature instead of waiting for the C
 * compiler to build that signature's kernel (pycompile/backend/eager_generic.py). Each computes
 * every output with the arithmetic of the per-signature C that graph mode generates
 * (backend/c/ops/conv.py, pool.py), in the same order, so the two agree bit for bit; the sizes,
 * the window tables and the order's parameters are run-time arguments. cffi reads the part
 * between the CDEF markers. */
#ifndef PYCOMPILE_GENERIC_H
#define PYCOMPILE_GENERIC_H
#include <stdint.h>

/* CDEF-BEGIN */
/* A direct 2-D convolution y = x (*) w. geo: N, C, H, W, K, G, KH, KW, SH, SW, DH, DW, PH, PW,
 * PHa, PWa, OH, OW, then the order of each output's sum: output columns below `split` spread the
 * kernel columns over setsA accumulators (column s into accumulator s % setsA), the others over
 * setsB, added in order at the end (conv.py's rows kernel; the tile kernel is sets 1), then
 * `fused`: 1 when each multiply-add is one fused multiply-add (the per-signature kernel's
 * contraction on a CPU with FMA), 0 for a product and a sum, then `wide`: 1 to run on 64-byte
 * vectors, 0 on pairs of 32-byte ones (the same sums), -1 as the CPU has them (AVX-512 or not).
 * Nonzero: the sizes are not served (nothing written). */
int pc_gen_conv2d_f32(const float *x, const float *w, float *y, const int64_t *geo);
int pc_gen_conv2d_f64(const double *x, const double *w, double *y, const int64_t *geo);
/* Max / average pooling over regular windows (pool.py's `_regular_max_avg`), 2-D or 3-D as 3-D.
 * geo: planes, D, H, W, OD, OH, OW, KW, stride W, dilation D, dilation H, pad W (before), rule
 * (0 max, 1 avg), divisor (0: the tables'), dilation W. tab: int32 tables f0 c0 v0 (OD each) f1 c1 v1 (OH
 * each) v2 (OW) lo hi (KW each), as the template emits them. */
int pc_gen_pool_f32(const float *x, float *y, const int64_t *geo, const int32_t *tab);
int pc_gen_pool_f64(const double *x, double *y, const int64_t *geo, const int32_t *tab);
/* Their gradients (pool.py's `_pool_grad`, rules max and avg). geo: planes, D, H, W, OD, OH, OW,
 * rule (0 max, 1 avg), divisor, full (1: every window whole), then for full: kd sd dd fd kh sh dh
 * fh kw sw dw fw and the average's divisor; else the walk's dilations dil0 dil1 dil2. tab: f0 c0
 * v0 (OD each), f1 c1 v1 (OH each), f2 c2 v2 (OW each). */
int pc_gen_pool_grad_f32(const float *x, const float *g, float *dx, const int64_t *geo, const int32_t *tab);
int pc_gen_pool_grad_f64(const double *x, const double *g, double *dx, const int64_t *geo, const int32_t *tab);
/* PyNative's matrix products (csrc/eager_gemm.c): C = op(A) op(B) for nb matrices, graph mode's
 * units (kernels.py gemm). blas: scipy-openblas32's cblas_sgemm (f64 = 0) or cblas_dgemm (f64 = 1).
 * geo: nb, M, N, K, lda, ldb, ta, tb, small (graph mode's small-product kernel first), split_cols
 * (graph mode may cut the columns), parallel (graph mode runs the units on the pool), small_t (A
 * transposed, its row units copied out for the small-product kernel); aoff / boff:
 * element offsets of each matrix of A / B (broadcasting); C holds nb M x N matrices. Nonzero: a
 * size is zero or past a C int (nothing written). */
int pc_gen_matmul(const void *blas, int f64, const int64_t *geo, const int64_t *aoff, const int64_t *boff,
                  const void *A, const void *B, void *C);
/* 1 when this CPU has fused multiply-add (what -march=native contracts `a += w * x` into) */
int pc_gen_cpu_fma(void);
/* CDEF-END */

#endif
