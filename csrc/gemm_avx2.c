/* The small-product kernel of gemm.c in 8-float vectors, for CPUs with AVX2 and FMA, handed out
 * on request (PYCOMPILE_SMALL_GEMM=avx2; gemm.c pc_small_gemm_isa): the same contract
 * (pc_sgemm_ep_avx512's comment), the same packed panels (K x 64, zero beyond the live columns: a
 * module's shared packing and the kept packings are read as they are) and the same sums. Every
 * C[i][j] is the k-ordered chain of fused multiply-adds from zero, then the bias, the residual and
 * ReLU, each rounded as its own pass: the bits of the AVX-512 kernel, so a product gives the same
 * result on either CPU and at any thread count (tests/backend/test_gemm_kernel_bits.py).
 *
 * With 16 vector registers a tile is 6 rows x 16 columns (12 accumulators, two 8-float vectors of
 * the panel's row k, one broadcast of A): per k, 12 FMAs against 8 loads, so the FMA units set the
 * pace. A row tile runs the four 16-column slices of a panel in turn with its A rows in L1; the
 * panel (K x 256 bytes) is read from L2.
 *
 * Why not the default where AVX-512 is missing: on the 2-core AMD EPYC (Zen 3; its two CPUs behave
 * as one core's two hardware threads: two processes running GEMMs got 51-66 GFLOP/s each against 85
 * alone) it measured level with OpenBLAS. One thread, operands in cache
 * (bench/gemm_kernel.py, rounds interleaved): 0.90-0.95x OpenBLAS's time on products of one to
 * four 64-column panels (W4 B=64's 512 x 64 x 784, W6's), 1.00-1.07x on 1024 x 512 x 784 / x 512,
 * whose A it reads from memory once per panel where OpenBLAS packs it once per block; 5-18 %
 * worse all round while the host was busy. Whole calls (bench/gemm_ab.py, one process, the same
 * module with and without the kernel, 1 / 2 threads): W6 L=12 0.90-0.99x, W4 B=64 0.90-1.01x,
 * W9 0.99x, W5's gradients 1.01-1.08x, W4 B=1024 1.01-1.08x. Tried and dropped: k in blocks of 256
 * through C (the same bits; 2-6 % slower), groups of panels sized for L2 (1024 x 512 x 784:
 * 1.12x), software prefetch of the next tile's A rows (two threads: W4 B=1024 1.13x). */
#define PC_AVX2 __attribute__((target("avx2,fma")))
#define PC_A2_ROWS 6

/* rows [0, nr) of A against 16 columns of a packed panel (row stride ps floats); the finished sums
 * get bias b2 (two vectors, when bias), then R's tile (when R), then ReLU; live: how many of the
 * 16 columns are stored (and of R read), all 16 computed - a panel is zero beyond its columns */
static inline __attribute__((always_inline)) PC_AVX2 void pc_a2_tile(const int nr, const long K, const float *restrict A,
                                                         const long lda, const float *restrict P, const long ps,
                                                         float *C, const long ldc, const int live,
                                                         const __m256 *b2, const float *R, const long ldr,
                                                         const int relu)
{
    __m256 acc[PC_A2_ROWS][2];
#pragma GCC unroll 6
    for (int r = 0; r < nr; ++r) {
        acc[r][0] = _mm256_setzero_ps();
        acc[r][1] = _mm256_setzero_ps();
    }
    for (long k = 0; k < K; ++k) {
        const __m256 p0 = _mm256_load_ps(P + k * ps), p1 = _mm256_load_ps(P + k * ps + 8);
#pragma GCC unroll 6
        for (int r = 0; r < nr; ++r) {
            const __m256 a = _mm256_broadcast_ss(A + r * lda + k);
            acc[r][0] = _mm256_fmadd_ps(a, p0, acc[r][0]);
            acc[r][1] = _mm256_fmadd_ps(a, p1, acc[r][1]);
        }
    }
    if (b2)
#pragma GCC unroll 6
        for (int r = 0; r < nr; ++r) {
            acc[r][0] = _mm256_add_ps(acc[r][0], b2[0]);
            acc[r][1] = _mm256_add_ps(acc[r][1], b2[1]);
        }
    if (live >= 16) {
        if (R)
#pragma GCC unroll 6
            for (int r = 0; r < nr; ++r) {
                acc[r][0] = _mm256_add_ps(_mm256_loadu_ps(R + r * ldr), acc[r][0]);
                acc[r][1] = _mm256_add_ps(_mm256_loadu_ps(R + r * ldr + 8), acc[r][1]);
            }
        if (relu)
#pragma GCC unroll 6
            for (int r = 0; r < nr; ++r) {
                acc[r][0] = _mm256_max_ps(acc[r][0], _mm256_setzero_ps());
                acc[r][1] = _mm256_max_ps(acc[r][1], _mm256_setzero_ps());
            }
#pragma GCC unroll 6
        for (int r = 0; r < nr; ++r) {
            _mm256_storeu_ps(C + r * ldc, acc[r][0]);
            _mm256_storeu_ps(C + r * ldc + 8, acc[r][1]);
        }
        return;
    }
    /* a panel's last columns: masked loads and stores (a masked-off lane is neither read nor written) */
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i m0 = _mm256_cmpgt_epi32(_mm256_set1_epi32(live), lane);
    const __m256i m1 = _mm256_cmpgt_epi32(_mm256_set1_epi32(live - 8), lane);
#pragma GCC unroll 6
    for (int r = 0; r < nr; ++r) {
        __m256 v0 = acc[r][0], v1 = acc[r][1];
        if (R) {
            v0 = _mm256_add_ps(_mm256_maskload_ps(R + r * ldr, m0), v0);
            v1 = _mm256_add_ps(_mm256_maskload_ps(R + r * ldr + 8, m1), v1);
        }
        if (relu) {     /* max(x, +0): +0 for a NaN and for -0, as the AVX-512 kernel */
            v0 = _mm256_max_ps(v0, _mm256_setzero_ps());
            v1 = _mm256_max_ps(v1, _mm256_setzero_ps());
        }
        _mm256_maskstore_ps(C + r * ldc, m0, v0);
        _mm256_maskstore_ps(C + r * ldc + 8, m1, v1);
    }
}

/* rows [0, M) of A against the panel P (row stride ps, nw live columns, a multiple of 16 computed):
 * 6-row tiles, each over the panel's 16-column slices; bias and R point at the panel's first
 * column; pf_rows rows (pf_ld apart from pf_b) of pf_lines 64-byte lines each: the next panel's
 * op(B), prefetched a slice per row tile (none when pf_rows is 0). Not
 * inlined into its callers: its registers hold the tile's row addresses. */
static __attribute__((noinline)) PC_AVX2 void pc_a2_panel(long M, long K, const float *A, long lda, const float *P,
                                                          long ps, long nw, float *C, long ldc, const float *bias,
                                                          const float *R, long ldr, int relu,
                                                          const float *pf_b, long pf_ld, long pf_rows, long pf_lines)
{
    const long slices = (nw + 15) / 16, tiles = (M + PC_A2_ROWS - 1) / PC_A2_ROWS;
    const long per_tile = tiles ? (pf_rows * pf_lines + tiles - 1) / tiles : 0;
    long prow = 0, pline = 0;
    __m256 bv[4][2];
    for (long s = 0; s < slices && bias; ++s) {
        const long lv = nw - 16 * s;
        for (int h = 0; h < 2; ++h) {
            const __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(lv - 8 * h)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
            bv[s][h] = _mm256_maskload_ps(bias + 16 * s + 8 * h, m);
        }
    }
    for (long i = 0; i < M; i += PC_A2_ROWS) {
        for (long q = 0; q < per_tile && prow < pf_rows; ++q) {
            _mm_prefetch((const char *)(pf_b + prow * pf_ld + 16 * pline), _MM_HINT_T1);
            if (++pline == pf_lines) {
                pline = 0;
                ++prow;
            }
        }
        const float *const Ai = A + i * lda;
        float *const Ci = C + i * ldc;
        const float *const Ri = R ? R + i * ldr : 0;
        for (long s = 0; s < slices; ++s) {
            const int live = nw - 16 * s >= 16 ? 16 : (int)(nw - 16 * s);
            const __m256 *const b2 = bias ? bv[s] : 0;
            const float *const Rs = Ri ? Ri + 16 * s : 0;
            switch (M - i >= PC_A2_ROWS ? PC_A2_ROWS : M - i) {     /* each row count its own unrolled tile */
            case 6: pc_a2_tile(6, K, Ai, lda, P + 16 * s, ps, Ci + 16 * s, ldc, live, b2, Rs, ldr, relu); break;
            case 5: pc_a2_tile(5, K, Ai, lda, P + 16 * s, ps, Ci + 16 * s, ldc, live, b2, Rs, ldr, relu); break;
            case 4: pc_a2_tile(4, K, Ai, lda, P + 16 * s, ps, Ci + 16 * s, ldc, live, b2, Rs, ldr, relu); break;
            case 3: pc_a2_tile(3, K, Ai, lda, P + 16 * s, ps, Ci + 16 * s, ldc, live, b2, Rs, ldr, relu); break;
            case 2: pc_a2_tile(2, K, Ai, lda, P + 16 * s, ps, Ci + 16 * s, ldc, live, b2, Rs, ldr, relu); break;
            default: pc_a2_tile(1, K, Ai, lda, P + 16 * s, ps, Ci + 16 * s, ldc, live, b2, Rs, ldr, relu); break;
            }
        }
    }
}

/* op(B)'s columns [n0, n0 + nw) as a K x 64 panel, zero beyond nw (pc_nt_pack's layout); a
 * transposed B in 8 x 8 blocks transposed in registers; pf: B is likely out of cache */
static PC_AVX2 void pc_a2_pack(long K, const float *B, long ldb, int tb, int pf, long n0, long nw, float *restrict P)
{
    if (!tb) {
        for (long k = 0; k < K; ++k)
            for (long j = 0; j < PC_NT_PANEL; ++j)
                P[k * PC_NT_PANEL + j] = j < nw ? B[k * ldb + n0 + j] : 0.0f;
        return;
    }
    long j0 = 0;
    for (; j0 + 8 <= nw; j0 += 8)
        for (long k0 = 0; k0 < K; k0 += 8) {
            const long kw = K - k0 < 8 ? K - k0 : 8;
            const __m256i km = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)kw), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
            __m256 r[8], t[8];
            for (int q = 0; q < 8; ++q) {
                const float *row = B + (n0 + j0 + q) * ldb + k0;
                if (pf && (k0 & 15) == 0 && k0 + 64 < K)    /* four lines ahead in each row */
                    _mm_prefetch((const char *)(row + 64), _MM_HINT_T0);
                r[q] = _mm256_maskload_ps(row, km);
            }
            for (int q = 0; q < 8; q += 2) {
                t[q] = _mm256_unpacklo_ps(r[q], r[q + 1]);
                t[q + 1] = _mm256_unpackhi_ps(r[q], r[q + 1]);
            }
            for (int q = 0; q < 8; q += 4) {
                r[q] = _mm256_shuffle_ps(t[q], t[q + 2], 0x44);
                r[q + 1] = _mm256_shuffle_ps(t[q], t[q + 2], 0xEE);
                r[q + 2] = _mm256_shuffle_ps(t[q + 1], t[q + 3], 0x44);
                r[q + 3] = _mm256_shuffle_ps(t[q + 1], t[q + 3], 0xEE);
            }
            for (int s = 0; s < 4; ++s) {       /* r[s] holds k = s (low half) and s + 4 (high) of rows 0-3, r[4 + s] of rows 4-7 */
                t[s] = _mm256_permute2f128_ps(r[s], r[4 + s], 0x20);
                t[4 + s] = _mm256_permute2f128_ps(r[s], r[4 + s], 0x31);
            }
            for (long kk = 0; kk < kw; ++kk)
                _mm256_store_ps(P + (k0 + kk) * PC_NT_PANEL + j0, t[kk]);
        }
    for (long k = 0; k < K; ++k)      /* a panel's last columns, and the zeros beyond nw */
        for (long j = j0; j < PC_NT_PANEL; ++j)
            P[k * PC_NT_PANEL + j] = j < nw ? B[(n0 + j) * ldb + k] : 0.0f;
}

/* pc_sgemm_ep_avx512's contract and flags on AVX2 + FMA, but A read in place transposed (tb & 32):
 * declined, so callers copy op(A)'s rows out as before */
static PC_AVX2 int pc_sgemm_ep_avx2(long M, long N, long K, const float *A, long lda, const float *B, long ldb,
                                    int tb, float *C, long ldc, const float *bias, const float *R, long ldr)
{
    if (tb & 32)
        return 1;
    const int prepacked = tb & 8, relu = tb & 16;
    const int pf = prepacked ? 0 : tb & 2;
    pc_pack_slot *const kept = tb & 4 && !prepacked ? pc_pack_get(B, K, N, ldb, tb & 1, pf, pc_a2_pack) : 0;
    tb &= 1;
    if (N >= 8 && N <= 16) {    /* narrow: op(B) as K rows of 16 floats (in L1), tiles of 6 rows x 16 */
        const float *const nbuf = pc_narrow_panel(N, K, prepacked ? B : kept ? kept->panels : 0, B, ldb, tb);
        if (nbuf)
            pc_a2_panel(M, K, A, lda, nbuf, 16, N, C, ldc, bias, R, ldr, relu, nbuf, 0, 0, 0);
        if (kept)
            pc_pack_release(kept);
        return nbuf ? 0 : 1;
    }
    float *const buf = kept || prepacked ? 0 : pc_thread_buffer(0, K * PC_NT_PANEL);
    if (!kept && !prepacked && !buf)
        return 1;
    for (long n0 = 0; n0 < N; n0 += PC_NT_PANEL) {
        const long nw = N - n0 < PC_NT_PANEL ? N - n0 : PC_NT_PANEL;
        const float *P = buf;
        if (prepacked)
            P = B + n0 / PC_NT_PANEL * K * PC_NT_PANEL;
        else if (kept)
            P = kept->panels + n0 / PC_NT_PANEL * K * PC_NT_PANEL;
        else
            pc_a2_pack(K, B, ldb, tb, pf, n0, nw, buf);
        /* with pf, the next panel's op(B) lines a slice per row tile, as the AVX-512 kernel does */
        const pc_next_lines nx = pc_next_panel_lines(B, ldb, tb, pf, kept ? P : 0, K, N, n0);
        pc_a2_panel(M, K, A, lda, P, PC_NT_PANEL, nw, C + n0, ldc, bias ? bias + n0 : 0, R ? R + n0 : 0, ldr, relu,
                    nx.b, nx.ld, nx.rows, nx.lines);
    }
    if (kept)
        pc_pack_release(kept);
    return 0;
}

static PC_AVX2 int pc_sgemm_nt_avx2(long M, long N, long K, const float *A, long lda, const float *B, long ldb, int tb,
                                    float *C, long ldc)
{
    return pc_sgemm_ep_avx2(M, N, K, A, lda, B, ldb, tb, C, ldc, 0, 0, 0);
}
