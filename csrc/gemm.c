/* A float32 matrix product for the products of inference (backend/c/ops/kernels.py gemm): C = A op(B)
 * with A row-major (not transposed), op(B) = B or B^T, on AVX-512. Why not OpenBLAS for these:
 * with 64-512 rows per call, OpenBLAS packs both operands on every call, and packing the weights
 * costs a tenth of the product (W4's 256 x 64 x 784 half-layer: 265 us in OpenBLAS 0.3, 242 us
 * here; W6's 256 x 128 x 128: 84 -> 78 us; one core, thread CPU time).
 *
 * Here only op(B) is packed - a K x 64 panel per 64 columns, small enough for the L2 cache - and
 * A's rows are read in place: each A element is broadcast once per panel against four 16-wide
 * vectors of op(B)'s row k, into 7 rows x 64 columns of accumulators (28 of the 32 vector
 * registers). Results are stored once per tile (masked on a partial panel), so no zeroing pass.
 * The sums run over k in order with fused multiply-adds: within float32 rounding of BLAS
 * (tests/compiler/test_gemm_small.py compares against NumPy).
 *
 * Part of the runtime, built once at install, not of each generated module: its <immintrin.h>
 * and AVX-512 code cost the C compiler ~0.4 s in every module that compiled it (issue 22: W6 L=24
 * with lazy_inline, 0.68 s of cc against 0.25 s without). The runtime is built for the baseline
 * CPU, so the kernel's functions carry target("avx512f") and the runtime hands the kernel to
 * generated code (pc_api.sgemm_nt) only when the CPU it runs on has AVX-512; otherwise the table
 * holds NULL and generated code calls BLAS - or, with PYCOMPILE_SMALL_GEMM=avx2 on a CPU with AVX2
 * and FMA, the same kernel in 8-float vectors (gemm_avx2.c: the same panels, sums and bits). */
#include <stdlib.h>
#include <strings.h>

/* ---- packings kept between calls ---------------------------------------------------------------
 * A product whose op(B) is a Parameter its module never writes (tb & 4) keeps op(B) packed: later
 * calls with the same B, K, N, ldb and transpose read the kept panels instead of packing again.
 * Packing costs each thread a pass over all of op(B) per call (rows are split across threads, so
 * every thread packs every panel), and a model's weights come in cold from L3 while it runs: in
 * a two-thread C harness of W6 L=12's weight products, kept panels took 9 % off their time.
 * A packing is valid while the Parameter epoch has not moved since it was made; every write of a
 * Parameter moves it (pc_params_written): Python's (Assign run eagerly, set_data, item assignment,
 * a new Parameter's buffer) and each call of a module that assigns Parameters, as it starts and
 * as it ends. So kept panels are never older than the Parameter they were packed from, within
 * the rule every reader of a Parameter keeps: no call reads it while another writes it.
 *
 * Threads share the table without locks: a reader counts itself in `users` before it looks at a
 * slot's state and key, and a thread (re)packing a slot first moves it to "busy" and gives up if
 * anyone is reading it; a thread that finds the slot busy packs into its own buffer as before. */
#define PC_PACK_SLOTS 512
#define PC_PACK_PROBES 8

typedef struct {
    const float *b;             /* the key: op(B)'s source and its geometry */
    long k, n, ldb;
    int tb;
    int state;                  /* 0 empty, 1 being packed (by one thread), 2 ready */
    int users;                  /* threads looking at or reading it */
    long epoch;                 /* the Parameter epoch it was packed in */
    long floats;                /* panels' size: ceil(n / 64) panels of k x 64 */
    float *panels;
} pc_pack_slot;

static pc_pack_slot pc_packs[PC_PACK_SLOTS];
static long pc_param_epoch = 1;
static long pc_pack_bytes;                  /* held by every slot's panels */
static long pc_pack_limit = 256L << 20;     /* pc_pack_keep_limit; 0: keep none */
static long pc_pack_counts[3];              /* calls served from kept panels, packings kept, declined */

/* every write of a Parameter calls this (pc_api.params_written, ABI 8) */
void pc_params_written(void)
{
    __atomic_add_fetch(&pc_param_epoch, 1, __ATOMIC_SEQ_CST);
}

void pc_pack_keep_limit(long bytes)
{
    __atomic_store_n(&pc_pack_limit, bytes < 0 ? 0 : bytes, __ATOMIC_SEQ_CST);
}

/* the first n of: calls served from kept panels, packings kept, packings declined (table or limit
 * full, or the slot busy), bytes held, the Parameter epoch */
void pc_pack_stats(long *out, int n)
{
    const long v[5] = {__atomic_load_n(&pc_pack_counts[0], __ATOMIC_RELAXED),
                       __atomic_load_n(&pc_pack_counts[1], __ATOMIC_RELAXED),
                       __atomic_load_n(&pc_pack_counts[2], __ATOMIC_RELAXED),
                       __atomic_load_n(&pc_pack_bytes, __ATOMIC_RELAXED),
                       __atomic_load_n(&pc_param_epoch, __ATOMIC_SEQ_CST)};
    for (int i = 0; i < n && i < 5; ++i)
        out[i] = v[i];
}

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define PC_AVX512 __attribute__((target("avx512f,fma")))

#define PC_NT_ROWS 7
#define PC_NT_PANEL 64

/* rows [0, nr) of A against one packed panel P (K x 64); to each finished sum the panel's bias
 * vectors bv are added when not NULL, then the same rows and columns of R (row stride ldr) when
 * R is not NULL - in the order and rounding of separate passes; nr is a constant after inlining */
static inline __attribute__((always_inline)) PC_AVX512 void pc_nt_tile(const int nr, const long K, const float *restrict A,
                                                             const long lda, const float *restrict P,
                                                             float *C, const long ldc, const __mmask16 *mk,
                                                             const __m512 *bv, const float *R, const long ldr,
                                                             const int relu, const int ta)
{
    __m512 acc[PC_NT_ROWS][4];
    /* unrolled whatever the optimization level, so the accumulators stay in registers */
#pragma GCC unroll 7
    for (int r = 0; r < nr; ++r)
#pragma GCC unroll 4
        for (int j = 0; j < 4; ++j)
            acc[r][j] = _mm512_setzero_ps();
    /* 28 accumulators, the broadcast and four vectors of op(B) would need 33 of the 32 registers:
       GCC kept one accumulator on the stack, a load-FMA-store chain through memory every k (the
       7-row tile at 89 % of the FMA peak on a Zen 5 core). So the fourth vector is read from the
       panel by each row's FMA (a memory operand: the empty asm makes its address new each row, so
       the load is neither hoisted nor shared), and everything else stays in registers. */
    for (long k = 0; k < K; ++k) {
        const float *p = P + k * PC_NT_PANEL;
        const __m512 b0 = _mm512_load_ps(p), b1 = _mm512_load_ps(p + 16);
        const __m512 b2 = _mm512_load_ps(p + 32);
#pragma GCC unroll 7
        for (int r = 0; r < nr; ++r) {
            /* ta (a constant after inlining): A stored transposed, row r of op(A) is column r */
            const __m512 a = _mm512_set1_ps(ta ? A[k * lda + r] : A[r * lda + k]);
            const float *p3 = p + 48;
            __asm__ volatile("" : "+r"(p3));
            acc[r][0] = _mm512_fmadd_ps(a, b0, acc[r][0]);
            acc[r][1] = _mm512_fmadd_ps(a, b1, acc[r][1]);
            acc[r][2] = _mm512_fmadd_ps(a, b2, acc[r][2]);
            acc[r][3] = _mm512_fmadd_ps(a, _mm512_load_ps(p3), acc[r][3]);
        }
    }
    if (bv)
#pragma GCC unroll 7
        for (int r = 0; r < nr; ++r)
#pragma GCC unroll 4
            for (int j = 0; j < 4; ++j)
                acc[r][j] = _mm512_add_ps(acc[r][j], bv[j]);
    if (R)      /* the residual's tile, read before C's is written */
#pragma GCC unroll 7
        for (int r = 0; r < nr; ++r)
#pragma GCC unroll 4
            for (int j = 0; j < 4; ++j)
                acc[r][j] = _mm512_add_ps(_mm512_maskz_loadu_ps(mk[j], R + r * ldr + 16 * j), acc[r][j]);
    if (relu)   /* max(x, +0) gives +0 for a NaN and for -0, as the elementwise `x > 0 ? x : 0` does */
#pragma GCC unroll 7
        for (int r = 0; r < nr; ++r)
#pragma GCC unroll 4
            for (int j = 0; j < 4; ++j)
                acc[r][j] = _mm512_max_ps(acc[r][j], _mm512_setzero_ps());
#pragma GCC unroll 7
    for (int r = 0; r < nr; ++r)
#pragma GCC unroll 4
        for (int j = 0; j < 4; ++j)
            _mm512_mask_storeu_ps(C + r * ldc + 16 * j, mk[j], acc[r][j]);
}

/* op(B)'s columns [n0, n0 + nw) as a K x 64 panel, zero beyond nw; pf: B is likely out of cache */
static inline PC_AVX512 void pc_nt_pack(long K, const float *B, long ldb, int tb, int pf, long n0, long nw,
                                        float *restrict P)
{
    if (tb) {       /* 16 x 16 blocks transposed in registers: rows of B read whole, P written by vectors */
        long j0 = 0;
        for (; j0 + 16 <= nw; j0 += 16) {
            long k0 = 0;
            for (; k0 < K; k0 += 16) {
                const __mmask16 km = K - k0 >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (K - k0)) - 1);
                __m512 r[16], t[16];
                for (int q = 0; q < 16; ++q) {
                    if (pf && k0 + 64 < K)  /* four lines ahead in each row: a cold B's rows arrive in parallel */
                        _mm_prefetch((const char *)(B + (n0 + j0 + q) * ldb + k0 + 64), _MM_HINT_T0);
                    r[q] = _mm512_maskz_loadu_ps(km, B + (n0 + j0 + q) * ldb + k0);
                }
                for (int q = 0; q < 16; q += 2) {
                    t[q] = _mm512_unpacklo_ps(r[q], r[q + 1]);
                    t[q + 1] = _mm512_unpackhi_ps(r[q], r[q + 1]);
                }
                for (int q = 0; q < 16; q += 4) {
                    r[q] = _mm512_shuffle_ps(t[q], t[q + 2], 0x44);
                    r[q + 1] = _mm512_shuffle_ps(t[q], t[q + 2], 0xEE);
                    r[q + 2] = _mm512_shuffle_ps(t[q + 1], t[q + 3], 0x44);
                    r[q + 3] = _mm512_shuffle_ps(t[q + 1], t[q + 3], 0xEE);
                }
                for (int q = 0; q < 16; q += 8)
                    for (int s = 0; s < 4; ++s) {
                        t[q + s] = _mm512_shuffle_f32x4(r[q + s], r[q + 4 + s], 0x88);
                        t[q + 4 + s] = _mm512_shuffle_f32x4(r[q + s], r[q + 4 + s], 0xDD);
                    }
                for (int s = 0; s < 8; ++s) {
                    r[s] = _mm512_shuffle_f32x4(t[s], t[8 + s], 0x88);
                    r[8 + s] = _mm512_shuffle_f32x4(t[s], t[8 + s], 0xDD);
                }
                const long kw = K - k0 < 16 ? K - k0 : 16;
                for (long kk = 0; kk < kw; ++kk)
                    _mm512_store_ps(P + (k0 + kk) * PC_NT_PANEL + j0, r[kk]);
            }
        }
        for (long k = 0; k < K; ++k)      /* a partial panel's last columns, and the zeros beyond nw */
            for (long j = j0; j < PC_NT_PANEL; ++j)
                P[k * PC_NT_PANEL + j] = j < nw ? B[(n0 + j) * ldb + k] : 0.0f;
    } else {
        for (long k = 0; k < K; ++k)
            for (long j = 0; j < PC_NT_PANEL; ++j)
                P[k * PC_NT_PANEL + j] = j < nw ? B[k * ldb + n0 + j] : 0.0f;
    }
}

static void pc_pack_release(pc_pack_slot *s)
{
    __atomic_sub_fetch(&s->users, 1, __ATOMIC_SEQ_CST);
}

/* op(B)'s kept panels for this product, counted as read (pc_pack_release when done), packing them
 * now (with `pack`, the caller's kernel's) when there are none for the current epoch; NULL when
 * they cannot be kept (the caller packs its own) */
typedef void (*pc_pack_fn)(long K, const float *B, long ldb, int tb, int pf, long n0, long nw, float *P);

static pc_pack_slot *pc_pack_get(const float *B, long K, long N, long ldb, int tb, int pf, pc_pack_fn pack)
{
    if (__atomic_load_n(&pc_pack_limit, __ATOMIC_RELAXED) == 0)
        return 0;
    const long epoch = __atomic_load_n(&pc_param_epoch, __ATOMIC_SEQ_CST);
    const unsigned long h = ((unsigned long)B >> 6) * 0x9E3779B97F4A7C15ul ^ (unsigned long)(K * 131 + N);
    pc_pack_slot *spare = 0;
    int spare_same = 0, busy = 0;
    for (int q = 0; q < PC_PACK_PROBES; ++q) {
        pc_pack_slot *s = &pc_packs[(h + (unsigned long)q) % PC_PACK_SLOTS];
        __atomic_add_fetch(&s->users, 1, __ATOMIC_SEQ_CST);
        const int state = __atomic_load_n(&s->state, __ATOMIC_SEQ_CST);
        const int same = state == 2 && s->b == B && s->k == K && s->n == N && s->ldb == ldb && s->tb == tb;
        if (same && s->epoch == epoch) {
            __atomic_add_fetch(&pc_pack_counts[0], 1, __ATOMIC_RELAXED);
            return s;
        }
        const int stale = state == 0 || (state == 2 && s->epoch != epoch);
        busy |= state == 1;
        pc_pack_release(s);
        if (same && !spare_same) {          /* this B's own slot, packed before a write: repack it */
            spare = s;
            spare_same = 1;
        } else if (stale && !spare) {
            spare = s;
        }
    }
    /* a slot being packed may be this product's (the other threads of its loop get there first):
       pack our own rather than keep a second copy */
    int was = spare && !busy ? __atomic_load_n(&spare->state, __ATOMIC_SEQ_CST) : 1;
    if (was == 1 || !__atomic_compare_exchange_n(&spare->state, &was, 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
        goto declined;
    if (__atomic_load_n(&spare->users, __ATOMIC_SEQ_CST) != 0) {     /* someone is reading it */
        __atomic_store_n(&spare->state, was, __ATOMIC_SEQ_CST);
        goto declined;
    }
    const long floats = (N + PC_NT_PANEL - 1) / PC_NT_PANEL * K * PC_NT_PANEL;
    if (spare->floats != floats) {
        const long grow = (floats - spare->floats) * (long)sizeof(float);
        if (__atomic_add_fetch(&pc_pack_bytes, grow, __ATOMIC_SEQ_CST) > __atomic_load_n(&pc_pack_limit, __ATOMIC_RELAXED)) {
            __atomic_sub_fetch(&pc_pack_bytes, grow, __ATOMIC_SEQ_CST);
            __atomic_store_n(&spare->state, was, __ATOMIC_SEQ_CST);
            goto declined;
        }
        free(spare->panels);
        spare->panels = (float *)aligned_alloc(64, (size_t)floats * sizeof(float));
        if (!spare->panels) {
            __atomic_sub_fetch(&pc_pack_bytes, floats * (long)sizeof(float), __ATOMIC_SEQ_CST);
            spare->floats = 0;
            __atomic_store_n(&spare->state, 0, __ATOMIC_SEQ_CST);
            goto declined;
        }
        spare->floats = floats;
    }
    for (long n0 = 0; n0 < N; n0 += PC_NT_PANEL)
        pack(K, B, ldb, tb, pf, n0, N - n0 < PC_NT_PANEL ? N - n0 : PC_NT_PANEL,
             spare->panels + n0 / PC_NT_PANEL * K * PC_NT_PANEL);
    spare->b = B;
    spare->k = K;
    spare->n = N;
    spare->ldb = ldb;
    spare->tb = tb;
    spare->epoch = epoch;           /* read before packing: a write meanwhile leaves it stale */
    __atomic_add_fetch(&spare->users, 1, __ATOMIC_SEQ_CST);
    __atomic_store_n(&spare->state, 2, __ATOMIC_SEQ_CST);
    __atomic_add_fetch(&pc_pack_counts[1], 1, __ATOMIC_RELAXED);
    return spare;
declined:
    __atomic_add_fetch(&pc_pack_counts[2], 1, __ATOMIC_RELAXED);
    return 0;
}

/* ---- what both kernels' drivers share (this one and gemm_avx2.c's) ---------------------------- */

/* a thread's buffer of at least n floats, 64-byte aligned, grown as needed and kept for its later
 * products (slot 0: a panel of op(B), 1: the narrow panel); NULL when it cannot be allocated */
static float *pc_thread_buffer(int slot, long n)
{
    static _Thread_local float *buf[2];
    static _Thread_local long cap[2];
    if (cap[slot] < n) {
        free(buf[slot]);
        buf[slot] = (float *)aligned_alloc(64, (size_t)n * sizeof(float));
        cap[slot] = buf[slot] ? n : 0;
    }
    return buf[slot];
}

/* op(B) of N <= 16 columns as K rows of 16 floats, zero beyond N, in the thread's narrow buffer:
 * from S (packed 64-column panels: the first 16 floats of each row) when not NULL, else from B;
 * NULL when the buffer cannot be allocated */
static float *pc_narrow_panel(long N, long K, const float *S, const float *B, long ldb, int tb)
{
    float *const nbuf = pc_thread_buffer(1, K * 16);
    if (!nbuf)
        return 0;
    if (S)
        for (long k = 0; k < K; ++k)
            for (long j = 0; j < 16; ++j)
                nbuf[16 * k + j] = S[PC_NT_PANEL * k + j];
    else if (tb)    /* rows of B read in order */
        for (long j = 0; j < 16; ++j)
            for (long k = 0; k < K; ++k)
                nbuf[16 * k + j] = j < N ? B[j * ldb + k] : 0.0f;
    else
        for (long k = 0; k < K; ++k)
            for (long j = 0; j < 16; ++j)
                nbuf[16 * k + j] = j < N ? B[k * ldb + j] : 0.0f;
    return nbuf;
}

/* the lines of the next panel's op(B) a kernel prefetches while it computes the panel at n0 (pf):
 * `rows` rows of `lines` 64-byte lines each, `ld` floats apart from b - from B as stored, or from
 * the kept panels after P (K rows of 64 floats); rows is 0 when there is nothing to fetch */
typedef struct {
    const float *b;
    long ld, rows, lines;
} pc_next_lines;

static pc_next_lines pc_next_panel_lines(const float *B, long ldb, int tb, int pf, const float *kept_P, long K,
                                         long N, long n0)
{
    const long pn0 = n0 + PC_NT_PANEL, pnw = N - pn0 < PC_NT_PANEL ? N - pn0 : PC_NT_PANEL;
    pc_next_lines r;
    r.rows = pnw <= 0 || !pf ? 0 : kept_P || !tb ? K : pnw;
    r.lines = kept_P ? PC_NT_PANEL / 16 : tb ? (K + 15) / 16 : (pnw + 15) / 16;
    r.b = r.rows == 0 ? B : kept_P ? kept_P + K * PC_NT_PANEL : tb ? B + pn0 * ldb : B + pn0;
    r.ld = kept_P ? PC_NT_PANEL : ldb;
    return r;
}

/* ---- narrow outputs (8 <= N <= 16: a classifier's last Dense layer) ---------------------------
 * The wide tile would spend 4 vectors of FMAs on one live vector, and OpenBLAS takes twice the
 * time of a product this size (W4's 1024 x 10 x 512: 0.30 ms with its bias pass, here 0.16 ms;
 * 512 x 10 x 84: 30 -> 12 us; one core). op(B) is packed into K rows of one vector each, zero
 * beyond N (copied from the 64-column panel kept for a Parameter, or packed from B on each call)
 * and each tile is PC_NR_ROWS rows x that vector: per k, one panel row and a broadcast per row. Each sum is the same
 * k-ordered chain of fused multiply-adds as in the wide kernel, so the row cut (threads) does not
 * change a value. Fewer than 8 columns waste more than half the lanes: BLAS keeps those. */
#define PC_NR_ROWS 7

static inline __attribute__((always_inline)) PC_AVX512 void pc_nr_tile(const int nr, const long K, const float *restrict A,
                                                             const long lda, const float *restrict P, float *C,
                                                             const long ldc, const __mmask16 mk, const float *bias,
                                                             const float *R, const long ldr, const int relu,
                                                             const int ta)
{
    __m512 acc[PC_NR_ROWS];
#pragma GCC unroll 7
    for (int r = 0; r < nr; ++r)
        acc[r] = _mm512_setzero_ps();
    for (long k = 0; k < K; ++k) {
        const __m512 b = _mm512_load_ps(P + 16 * k);
#pragma GCC unroll 7
        for (int r = 0; r < nr; ++r)
            acc[r] = _mm512_fmadd_ps(_mm512_set1_ps(ta ? A[k * lda + r] : A[r * lda + k]), b, acc[r]);
    }
    const __m512 bv = bias ? _mm512_maskz_loadu_ps(mk, bias) : _mm512_setzero_ps();
#pragma GCC unroll 7
    for (int r = 0; r < nr; ++r) {
        __m512 v = acc[r];
        if (bias)
            v = _mm512_add_ps(v, bv);
        if (R)
            v = _mm512_add_ps(_mm512_maskz_loadu_ps(mk, R + r * ldr), v);
        if (relu)
            v = _mm512_max_ps(v, _mm512_setzero_ps());
        _mm512_mask_storeu_ps(C + r * ldc, mk, v);
    }
}

/* C = act(R + (A op(B) + bias)) as pc_sgemm_ep_avx512, for N <= 16, from op(B) packed into P:
 * K rows of 16 floats (32 KB at K = 512: in L1; read from the 64-column panel, whose rows are 256
 * bytes apart, the tiles took 1.8x as long). Not inlined: its own registers keep the tile's row
 * addresses (inlined, they were reloaded from the stack at every k: 1.9x slower). ta: A stored
 * transposed (K x M), a tile's rows at each k consecutive floats (W4 B=64's last layer, whose
 * input the layers before leave transposed: 64 x 10 x 512: 3.0 % of its call in OpenBLAS's TT sgemm, 1.8 % here). */
static __attribute__((noinline)) PC_AVX512 void pc_sgemm_narrow(long M, long N, long K, const float *A, long lda,
                                                                 const float *P, float *C, long ldc, const float *bias,
                                                                 const float *R, long ldr, int relu, int ta)
{
    const __mmask16 mk = (__mmask16)((1u << N) - 1);
    long i = 0;
    if (ta) {
        for (; i + PC_NR_ROWS <= M; i += PC_NR_ROWS)
            pc_nr_tile(PC_NR_ROWS, K, A + i, lda, P, C + i * ldc, ldc, mk, bias, R ? R + i * ldr : 0, ldr, relu, 1);
        for (; i + 4 <= M; i += 4)
            pc_nr_tile(4, K, A + i, lda, P, C + i * ldc, ldc, mk, bias, R ? R + i * ldr : 0, ldr, relu, 1);
        for (; i < M; ++i)
            pc_nr_tile(1, K, A + i, lda, P, C + i * ldc, ldc, mk, bias, R ? R + i * ldr : 0, ldr, relu, 1);
        return;
    }
    for (; i + PC_NR_ROWS <= M; i += PC_NR_ROWS)
        pc_nr_tile(PC_NR_ROWS, K, A + i * lda, lda, P, C + i * ldc, ldc, mk, bias, R ? R + i * ldr : 0, ldr, relu, 0);
    for (; i + 4 <= M; i += 4)      /* the last rows: a tile of 4 at most, then one at a time */
        pc_nr_tile(4, K, A + i * lda, lda, P, C + i * ldc, ldc, mk, bias, R ? R + i * ldr : 0, ldr, relu, 0);
    for (; i < M; ++i)
        pc_nr_tile(1, K, A + i * lda, lda, P, C + i * ldc, ldc, mk, bias, R ? R + i * ldr : 0, ldr, relu, 0);
}

/* C[i][j] = act(R[i ldr + j] + (sum_k A[i lda + k] op(B)[k][j] + bias[j])) for i < M, j < N,
 * without the bias when it is NULL and without R when it is NULL (R apart from C); op(B)[k][j] =
 * (tb & 1) ? B[j ldb + k] : B[k ldb + j]; tb & 2: B is likely out of this core's caches (a model's
 * weights larger than its L2), so its lines are prefetched; tb & 4: B is a Parameter the caller
 * never writes, so its packing may be kept (above); tb & 8: B is op(B) already packed (then bits
 * 0-2 are ignored); tb & 16 (ABI 10): act is ReLU, max(x, 0) with +0 for a NaN or -0 (W4's Dense
 * + ReLU layers: the activation's pass over the output, 0.1-0.4 ms a layer at B=1024 on one
 * thread, is gone), else none. The panel lives in kept panels or a per-thread
 * buffer that grows to the largest K seen. Returns nonzero only when that buffer cannot be
 * allocated (C is then untouched). */
static inline __attribute__((always_inline)) PC_AVX512 int pc_ep_body(long M, long N, long K, const float *A, long lda,
                                                                const float *B, long ldb, int tb, float *C, long ldc,
                                                                const float *bias, const float *R, long ldr,
                                                                const int ta)
{
    /* tb & 8: B is op(B) already packed - ceil(N / 64) panels of K x 64, 64-byte aligned, one
       after another (a region's units sharing one packing: kernels.py gemm's shared packing) */
    const int prepacked = tb & 8, relu = tb & 16;
    const int pf = prepacked ? 0 : tb & 2;
    pc_pack_slot *const kept = tb & 4 && !prepacked ? pc_pack_get(B, K, N, ldb, tb & 1, pf, pc_nt_pack) : 0;
    tb &= 1;
    if (N >= 8 && N <= 16) {    /* one panel, its first vector live: the narrow tiles (above) */
        const float *const nbuf = pc_narrow_panel(N, K, prepacked ? B : kept ? kept->panels : 0, B, ldb, tb);
        if (nbuf)
            pc_sgemm_narrow(M, N, K, A, lda, nbuf, C, ldc, bias, R, ldr, relu, ta);
        if (kept)
            pc_pack_release(kept);
        return nbuf ? 0 : 1;
    }
    float *const buf = kept || prepacked ? 0 : pc_thread_buffer(0, K * PC_NT_PANEL);
    if (!kept && !prepacked && !buf)
        return 1;
    for (long n0 = 0; n0 < N; n0 += PC_NT_PANEL) {
        const long nw = N - n0 < PC_NT_PANEL ? N - n0 : PC_NT_PANEL;
        const float *restrict P = buf;
        if (prepacked)
            P = B + n0 / PC_NT_PANEL * K * PC_NT_PANEL;
        else if (kept)
            P = kept->panels + n0 / PC_NT_PANEL * K * PC_NT_PANEL;
        else
            pc_nt_pack(K, B, ldb, tb, pf, n0, nw, buf);
        __mmask16 mk[4];
        for (int j = 0; j < 4; ++j) {
            const long live = nw - 16 * j;
            mk[j] = live >= 16 ? (__mmask16)0xFFFF : live <= 0 ? (__mmask16)0 : (__mmask16)((1u << live) - 1);
        }
        __m512 bvec[4];
        if (bias)
            for (int j = 0; j < 4; ++j)
                bvec[j] = _mm512_maskz_loadu_ps(mk[j], bias + n0 + 16 * j);
        const __m512 *const bv = bias ? bvec : 0;
        /* With pf, the next panel's op(B) lines are fetched a slice per tile while this panel
           computes: a model's weights larger than the L2 are out of this core's caches when a layer
           runs (read once per call, after other layers'), and reading them cold in pc_nt_pack costs
           W6's 128 x 512 x 128 product a tenth of its time; so fetched, W6 L=12 runs ~2 % faster.
           Where B is in cache the prefetches cost 2-7 % (hence the flag). */
        const pc_next_lines nx = pc_next_panel_lines(B, ldb, tb, pf, kept ? P : 0, K, N, n0);
        const long prows = nx.rows, plines = nx.lines, pld = nx.ld;
        const float *const next_b = nx.b;
        const long tiles = M / PC_NT_ROWS, per_tile = tiles ? (prows * plines + tiles - 1) / tiles : 0;
        long prow = 0, pline = 0;
        long i = 0;
        for (; i + PC_NT_ROWS <= M; i += PC_NT_ROWS) {
            for (long q = 0; q < per_tile && prow < prows; ++q) {
                _mm_prefetch((const char *)(next_b + prow * pld + 16 * pline), _MM_HINT_T1);
                if (++pline == plines) {
                    pline = 0;
                    ++prow;
                }
            }
            pc_nt_tile(PC_NT_ROWS, K, A + (ta ? i : i * lda), lda, P, C + i * ldc + n0, ldc, mk, bv, R ? R + i * ldr + n0 : 0, ldr, relu, ta);
        }
        switch (M - i) {        /* the last rows: each count its own unrolled tile */
        case 6: pc_nt_tile(6, K, A + (ta ? i : i * lda), lda, P, C + i * ldc + n0, ldc, mk, bv, R ? R + i * ldr + n0 : 0, ldr, relu, ta); break;
        case 5: pc_nt_tile(5, K, A + (ta ? i : i * lda), lda, P, C + i * ldc + n0, ldc, mk, bv, R ? R + i * ldr + n0 : 0, ldr, relu, ta); break;
        case 4: pc_nt_tile(4, K, A + (ta ? i : i * lda), lda, P, C + i * ldc + n0, ldc, mk, bv, R ? R + i * ldr + n0 : 0, ldr, relu, ta); break;
        case 3: pc_nt_tile(3, K, A + (ta ? i : i * lda), lda, P, C + i * ldc + n0, ldc, mk, bv, R ? R + i * ldr + n0 : 0, ldr, relu, ta); break;
        case 2: pc_nt_tile(2, K, A + (ta ? i : i * lda), lda, P, C + i * ldc + n0, ldc, mk, bv, R ? R + i * ldr + n0 : 0, ldr, relu, ta); break;
        case 1: pc_nt_tile(1, K, A + (ta ? i : i * lda), lda, P, C + i * ldc + n0, ldc, mk, bv, R ? R + i * ldr + n0 : 0, ldr, relu, ta); break;
        default: break;
        }
    }
    if (kept)
        pc_pack_release(kept);
    return 0;
}

/* ... and tb & 32 (ABI 11): A stored transposed (K x M, op(A)[i][k] = A[k lda + i]), read in place:
 * each k's rows of a tile are consecutive floats (no copy of op(A) out first: W6's weight gradients,
 * 128 x 512 x 512 with A transposed, went to OpenBLAS because copying A out cost more than the kernel
 * saved); the same sums in the same order as on a copy, the narrow tiles (8-16 columns) included. */
static PC_AVX512 int pc_sgemm_ep_avx512(long M, long N, long K, const float *A, long lda, const float *B, long ldb,
                                        int tb, float *C, long ldc, const float *bias, const float *R, long ldr)
{
    if (tb & 32)
        return pc_ep_body(M, N, K, A, lda, B, ldb, tb & ~32, C, ldc, bias, R, ldr, 1);
    return pc_ep_body(M, N, K, A, lda, B, ldb, tb, C, ldc, bias, R, ldr, 0);
}

static PC_AVX512 int pc_sgemm_nt_avx512(long M, long N, long K, const float *A, long lda, const float *B, long ldb, int tb,
                                        float *C, long ldc)
{
    return pc_sgemm_ep_avx512(M, N, K, A, lda, B, ldb, tb, C, ldc, 0, 0, 0);
}

#include "gemm_avx2.c"      /* the same kernel in 8-float vectors (PYCOMPILE_SMALL_GEMM=avx2) */
#endif

/* which kernel the runtime hands out: 2 AVX-512, 1 AVX2 + FMA, 0 none (generated code calls BLAS).
 * PYCOMPILE_SMALL_GEMM (docs/guide/knobs.md; read once, when the runtime's table is filled):
 * unset or "auto", the AVX-512 kernel on a CPU (and OS) with AVX-512, else none; "avx2", the AVX2
 * kernel on any CPU with AVX2 and FMA (an AVX-512 one too: the same bits either way); "blas",
 * none. The AVX2 kernel is not the default on AVX2-only CPUs: on the 2-core AMD EPYC it measured
 * level with OpenBLAS overall (gemm_avx2.c's comment), so what it offers there is its bits - a
 * product's result the same at any thread count and on AVX-512 machines. */
static int pc_small_gemm_isa(void)
{
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
    const char *knob = getenv("PYCOMPILE_SMALL_GEMM");
    if (knob && strcasecmp(knob, "blas") == 0)
        return 0;
    __builtin_cpu_init();
    if (knob && strcasecmp(knob, "avx2") == 0)
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? 1 : 0;
    return __builtin_cpu_supports("avx512f") ? 2 : 0;
#else
    return 0;
#endif
}

/* the kernel for pc_api.sgemm_nt (NULL: none, as pc_small_gemm_isa says) */
static pc_sgemm_nt_fn pc_sgemm_nt_choose(void)
{
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
    switch (pc_small_gemm_isa()) {
    case 2: return pc_sgemm_nt_avx512;
    case 1: return pc_sgemm_nt_avx2;
    default: break;
    }
#endif
    return 0;
}

/* the kernel for pc_api.sgemm_ep (ABI 7: with a bias and a residual), chosen as
 * pc_sgemm_nt_choose does */
static pc_sgemm_ep_fn pc_sgemm_ep_choose(void)
{
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
    switch (pc_small_gemm_isa()) {
    case 2: return pc_sgemm_ep_avx512;
    case 1: return pc_sgemm_ep_avx2;
    default: break;
    }
#endif
    return 0;
}
