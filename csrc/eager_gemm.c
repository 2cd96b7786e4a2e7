/* PyNative's matrix products (pycompile/backend/eager_generic.py `_product`): graph mode's units of
 * a product (backend/c/ops/kernels.py gemm), with the sizes as arguments.
 *
 * Why here and not NumPy's matmul: NumPy calls its own OpenBLAS, whose threads spin beside the
 * runtime's pool (csrc/pool.c) that PyNative's other kernels run on - four busy threads on two
 * cores - and stall a call for tens of milliseconds whenever another process (or PyNative's own
 * background compiler) takes a core: a LeNet-5 training step went from 6 to 70-100 ms while its
 * kernels were built. Here a product runs as graph mode runs it: cut into (matrix, row block)
 * units - or column blocks for few rows and a long inner dimension - over the runtime's pool,
 * each unit one single-threaded BLAS call (scipy-openblas32, the library generated modules link)
 * or the runtime's small-product kernel (csrc/gemm.c) where graph mode would call it.
 *
 * The cut is graph mode's own: OpenBLAS's sums depend on it (a unit's edge rows run other
 * micro-kernels), so the same cut is what makes PyNative's product graph mode's bit for bit at
 * the same thread count. Graph mode's finer cuts for more than two threads (a shared or kept
 * packing of op(B)) run only the small-product kernel, whose sums do not depend on the cut
 * (each element one k-ordered chain of fused multiply-adds): those are not reproduced. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "pycompile_rt.h"
#include "pycompile_generic.h"

#define CBLAS_ROW_MAJOR 101
#define CBLAS_NO_TRANS 111
#define CBLAS_TRANS 112

typedef void (*pc_cblas_sgemm)(int, int, int, int, int, int, float, const float *, int, const float *, int,
                               float, float *, int);
typedef void (*pc_cblas_dgemm)(int, int, int, int, int, int, double, const double *, int, const double *, int,
                               double, double *, int);

typedef struct {
    const void *blas;
    pc_sgemm_nt_fn small;       /* NULL: BLAS for every unit */
    pc_sgemm_nt_fn small_t;     /* A transposed: the kernel for row units copied out (NULL: BLAS) */
    int f64, ta, tb;
    long M, N, K, lda, ldb, cpb, rows, cw;
    const int64_t *aoff, *boff;
    const char *A, *B;
    char *C;
} pc_mm_job;

/* c (m x n, row stride N) = op(a) op(b): the small-product kernel where graph mode calls it, BLAS
 * behind it (its panel buffer could not be allocated, or no AVX-512), as kernels.gemm's C does */
static void mm_unit(const pc_mm_job *j, long m, long n, const char *a, const char *b, char *c)
{
    const int ta = j->ta ? CBLAS_TRANS : CBLAS_NO_TRANS, tb = j->tb ? CBLAS_TRANS : CBLAS_NO_TRANS;
    if (j->f64) {
        ((pc_cblas_dgemm)j->blas)(CBLAS_ROW_MAJOR, ta, tb, (int)m, (int)n, (int)j->K, 1.0, (const double *)a,
                                  (int)j->lda, (const double *)b, (int)j->ldb, 0.0, (double *)c, (int)j->N);
        return;
    }
    if (j->small && !j->small(m, n, j->K, (const float *)a, j->lda, (const float *)b, j->ldb, j->tb, (float *)c, j->N))
        return;
    ((pc_cblas_sgemm)j->blas)(CBLAS_ROW_MAJOR, ta, tb, (int)m, (int)n, (int)j->K, 1.0f, (const float *)a,
                              (int)j->lda, (const float *)b, (int)j->ldb, 0.0f, (float *)c, (int)j->N);
}

/* rows [r0, r1) of a product with A transposed on the small-product kernel: A read in place (tb &
 * 32), or where the kernel declines that, op(A)'s rows copied out first, 16 of A's rows at a time
 * (gemm_call.transposed_rows: the same sums either way); 0: not done (BLAS then) */
static int mm_transposed(const pc_mm_job *j, long r0, long r1, const float *A, const float *B, float *O)
{
    const long K = j->K;
    if (!j->small_t(r1 - r0, j->N, K, A + r0, j->lda, B, j->ldb, j->tb | 32, O + r0 * j->N, j->N))
        return 1;
    float *const At = malloc(sizeof(float) * (r1 - r0) * K);
    if (!At)
        return 0;
    for (long k0 = 0; k0 < K; k0 += 16) {
        const long k1 = k0 + 16 < K ? k0 + 16 : K;
        for (long i = r0; i < r1; ++i)
            for (long k = k0; k < k1; ++k)
                At[(i - r0) * K + k] = A[k * j->lda + i];
    }
    const int done = !j->small_t(r1 - r0, j->N, K, At, K, B, j->ldb, j->tb, O + r0 * j->N, j->N);
    free(At);
    return done;
}

/* units [lo, hi) of the row cut: unit u is rows [r0, r1) of matrix u / cpb */
static void mm_rows(void *ctx, long lo, long hi)
{
    const pc_mm_job *j = ctx;
    const long es = j->f64 ? 8 : 4;
    for (long u = lo; u < hi; ++u) {
        const long bi = u / j->cpb, r0 = (u % j->cpb) * j->rows;
        const long r1 = r0 + j->rows < j->M ? r0 + j->rows : j->M;
        if (r0 >= r1)
            continue;
        const char *A = j->A + j->aoff[bi] * es, *B = j->B + j->boff[bi] * es;
        char *O = j->C + bi * j->M * j->N * es;
        if (j->small_t && mm_transposed(j, r0, r1, (const float *)A, (const float *)B, (float *)O))
            continue;
        mm_unit(j, r1 - r0, j->N, A + (j->ta ? r0 : r0 * j->lda) * es, B, O + r0 * j->N * es);
    }
}

/* units [lo, hi) of the column cut (one matrix): unit u is columns [u cw, (u + 1) cw) */
static void mm_cols(void *ctx, long lo, long hi)
{
    const pc_mm_job *j = ctx;
    const long es = j->f64 ? 8 : 4;
    for (long u = lo; u < hi; ++u) {
        const long c0 = u * j->cw, c1 = c0 + j->cw < j->N ? c0 + j->cw : j->N;
        if (c0 < c1)
            mm_unit(j, j->M, c1 - c0, j->A, j->B + (j->tb ? c0 * j->ldb : c0) * es, j->C + c0 * es);
    }
}

int pc_gen_matmul(const void *blas, int f64, const int64_t *geo, const int64_t *aoff, const int64_t *boff,
                  const void *A, const void *B, void *C)
{
    const long nb = geo[0];
    const long nt = pc_get_num_threads();
    pc_mm_job j = {blas, 0, 0, f64, (int)geo[6], (int)geo[7], geo[1], geo[2], geo[3], geo[4], geo[5], 0, 0, 0,
                   aoff, boff, A, B, C};
    if (!f64 && geo[8])
        j.small = pc_get_api()->sgemm_nt;
    if (!f64 && geo[11])
        j.small_t = pc_get_api()->sgemm_nt;
    if (j.M <= 0 || j.N <= 0 || j.K <= 0 || nb <= 0 || (long)(int)j.M != j.M || (long)(int)j.N != j.N
        || (long)(int)j.K != j.K)
        return 1;
    const int parallel = (int)geo[10];
    if (geo[9]) {               /* split_cols: few rows, a long inner dimension, one matrix */
        j.cw = ((j.N + nt - 1) / nt + 15L) & ~15L;
        if (nt > 1 && j.cw < j.N) {
            pc_parallel_for(mm_cols, &j, nt);
            return 0;
        }
    }
    const long m16 = j.M / 16L;
    j.cpb = nb >= 2L * nt ? 1L : (m16 < nt ? (m16 > 0 ? m16 : 1L) : nt);
    j.rows = (j.M + j.cpb - 1) / j.cpb;
    if (parallel)
        pc_parallel_for(mm_rows, &j, nb * j.cpb);
    else
        mm_rows(&j, 0, nb * j.cpb);
    return 0;
}
