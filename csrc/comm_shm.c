/* All-reduces between ranks of one machine through shared memory (included by comm.c).
 *
 * MPI moves an all-reduce between processes of one machine through its own shared-memory cells,
 * two copies a message: 2.68 MB (W5's gradients) took 1.0 ms between 2 ranks of the 2-core AMD
 * machine (2.7 GB/s) and 0.87 ms on the 16-core Xeon, about half the step's compute. When every
 * rank of the world is on one machine, communication.init() allocates one segment per rank in an
 * MPI shared window (MPI_Win_allocate_shared on the node's communicator) and binds this file to
 * it: an all-reduce of float32 / float64 over the world group then runs here instead.
 *
 *   start  copies the rank's input into its own segment (at an offset every rank computes alike:
 *          the ranks start the same all-reduces in the same order), all but the chunk it reduces
 *          itself, and publishes `ready`;
 *   reduce once every rank is ready, rank r sums chunk r of the n inputs in rank order
 *          (((x0 + x1) + x2) ...: every rank gets the same bits; its own from its input) into
 *          chunk r of its segment and of its output, and publishes `reduced`; it runs in
 *          whichever call comes first: a progress call between kernels, or any wait;
 *   wait   once every rank has reduced, copies chunk q from rank q's segment into the output, for
 *          every other rank q, and counts the all-reduce `completed`.
 * The input and the output stay the caller's until the wait, as for MPI (they may be one buffer:
 * chunk r of it is read and written only by rank r's reduction).
 *
 * Direct all-reduces: behind its data, each segment has an arena that compiled modules with
 * all-reduces take their temporaries from (pc_comm_shm_arena; backend/executable.py). A start
 * whose input is its output and lies there copies nothing: the other ranks read their chunks of
 * it in place (each slot publishes the input's offset and whether it is direct), and every rank's
 * reduction stores its chunk's sum into the buffer of every direct rank too, so that its wait
 * copies nothing either. W5's step moved 2.68 MB less in and out of the segments a rank. A rank
 * whose arena was full reduces through its copy as before; a direct rank's wait then also waits
 * until such ranks have copied their chunks out of its buffer.
 *
 * Any rank spinning (in a wait here or in comm.c's comm_finish) reduces every all-reduce that is
 * ready: a rank waiting for another's chunk never blocks the chunk it owes. Waits poll under the
 * same watch as comm_finish (comm.c's watch_check). Offsets grow through the segment while
 * all-reduces are in flight; a start with none in flight here begins again at offset 0, once
 * every rank has completed every all-reduce started (so no rank still reads the old data): a
 * training step's buckets then take the same offsets every step, and the segment's first
 * megabytes stay in the caches. (Restarting only when an input did not fit let a step whose first
 * bucket is small creep to the segment's end: from then on every larger bucket, started while
 * that one was in flight, went through MPI - W5's two big gradients after its 12th step.) An
 * input larger than the segment, more than PC_SHM_SLOTS in flight, or one that does not fit
 * behind those in flight goes to MPI instead: the same choice on every rank, as it depends only
 * on the calls all ranks make. */

#define PC_SHM_SLOTS 64                /* shared-memory all-reduces in flight at once */
#define PC_SHM_MAX_RANKS 256
#define PC_SHM_CTL 8192                /* bytes of each segment's control block */
#define PC_SHM_ALIGN 16                /* chunk boundaries in elements: 64 bytes of float32 */

typedef struct {                       /* one slot's flags, written by the segment's rank only */
    long ready, reduced;               /* seq + 1 of the all-reduce whose input / chunk is there */
    long off;                          /* where the input is in the segment's data (set before ready) */
    long direct;                       /* 1: the input is the output, in the segment's arena: the
                                          other ranks store their chunks' sums into it */
    long copied;                       /* seq + 1 once this (not direct) rank has copied the others'
                                          chunks out: a direct rank's buffer is its own again then */
    char pad[24];
} shm_flags;
typedef struct {
    shm_flags slot[PC_SHM_SLOTS];
    long completed;                    /* all-reduces this rank has completed */
} shm_ctl;

typedef struct {
    int used, reduced, dtype, op, group, direct;
    long seq;
    size_t off, count;
    const void *src;
    void *dst;
} shm_op;

static char *g_shm_base[PC_SHM_MAX_RANKS];      /* each rank's segment: its control block, then data */
static int g_shm_n, g_shm_me;
static size_t g_shm_cap;                        /* data bytes of a segment */
static long g_shm_seq;                          /* all-reduces started here (the same on every rank) */
static size_t g_shm_top;                        /* the next input's offset in the data */
static int g_shm_inflight;
static shm_op g_shm_ops[PC_SHM_SLOTS];
static long g_shm_calls;                        /* all-reduces run here (tests read it) */
static long g_shm_direct;                       /* of which with this rank's buffer in its arena */
static size_t g_shm_acap, g_shm_atop;           /* the arena's bytes, and the bytes handed out */
/* each slot's ranks' input offsets and direct flags, read from their flags when all are ready
 * (a rank rewrites its flags only for a later all-reduce, after this rank has reduced this one) */
static size_t g_shm_qoff[PC_SHM_SLOTS][PC_SHM_MAX_RANKS];
static unsigned char g_shm_qdirect[PC_SHM_SLOTS][PC_SHM_MAX_RANKS];

static shm_ctl *shm_ctl_of(int r) { return (shm_ctl *)g_shm_base[r]; }
static char *shm_data_of(int r) { return g_shm_base[r] + PC_SHM_CTL; }

int pc_comm_shm_bind(int n, int me, const int64_t *bases, int64_t cap, int64_t arena)
{
    if (n < 0 || n > PC_SHM_MAX_RANKS || (n > 0 && (me < 0 || me >= n || cap < 0 || arena < 0))
        || sizeof(shm_ctl) > PC_SHM_CTL)
        return -1;
    for (int r = 0; r < n; ++r) g_shm_base[r] = (char *)(intptr_t)bases[r];
    g_shm_n = n;
    g_shm_me = me;
    g_shm_cap = (size_t)cap;
    g_shm_acap = (size_t)arena;
    g_shm_atop = 0;
    g_shm_seq = 0;
    g_shm_top = 0;
    g_shm_inflight = 0;
    memset(g_shm_ops, 0, sizeof g_shm_ops);
    return 0;
}

long pc_comm_shm_calls(void) { return g_shm_calls; }
long pc_comm_shm_direct_calls(void) { return g_shm_direct; }

/* nbytes of this rank's arena (the part of its segment behind the data), 64-byte aligned, for a
 * compiled module's temporaries; NULL when unbound or full. A gradient bucket the backward writes
 * there is reduced without copies: no copy of the input into the segment at the start (the other
 * ranks read it where it is), none of the others' chunks at the wait (they store their sums into
 * it). The memory stays mapped until MPI's finalize; pc_comm_shm_arena_free gives the last block
 * back (the others stay taken). */
void *pc_comm_shm_arena(int64_t nbytes)
{
    const size_t need = ((size_t)(nbytes > 0 ? nbytes : 0) + 63) & ~(size_t)63;
    if (g_shm_n < 2 || need == 0 || g_shm_atop + need > g_shm_acap) return NULL;
    void *p = shm_data_of(g_shm_me) + g_shm_cap + g_shm_atop;
    g_shm_atop += need;
    return p;
}

void pc_comm_shm_arena_free(void *p, int64_t nbytes)
{
    const size_t need = ((size_t)(nbytes > 0 ? nbytes : 0) + 63) & ~(size_t)63;
    if (g_shm_n >= 2 && need <= g_shm_atop && (char *)p == shm_data_of(g_shm_me) + g_shm_cap + g_shm_atop - need)
        g_shm_atop -= need;
}

/* whether an all-reduce of group k, dtype, op runs here (the same answer on every rank) */
static int shm_eligible(int k, int dtype, int op, size_t nbytes)
{
    if (g_shm_n < 2 || g_faulted || (dtype != PC_FLOAT32 && dtype != PC_FLOAT64) || op < 0 || op > 3)
        return 0;
    if (g_group_size[k] != g_shm_n) return 0;
    for (int m = 0; m < g_shm_n; ++m)
        if (g_group_ranks[k][m] != m) return 0;
    if (nbytes > g_shm_cap || g_shm_ops[g_shm_seq % PC_SHM_SLOTS].used) return 0;
    size_t need = (nbytes + 63) & ~(size_t)63;
    return g_shm_top + need <= g_shm_cap || g_shm_inflight == 0;
}

static void shm_chunk(const shm_op *o, int r, size_t *lo, size_t *hi)
{
    size_t per = (o->count + (size_t)g_shm_n - 1) / (size_t)g_shm_n;
    per = (per + PC_SHM_ALIGN - 1) / PC_SHM_ALIGN * PC_SHM_ALIGN;
    *lo = per * (size_t)r < o->count ? per * (size_t)r : o->count;
    *hi = *lo + per < o->count ? *lo + per : o->count;
}

/* chunk [lo, hi) of the n inputs, reduced in rank order a block at a time (the block stays in L1),
 * into its output and wherever else a rank reads it from: this rank's segment (unless the output
 * is there: direct) for the ranks that copy it at their wait, and the buffer of every direct rank.
 * Rank q's input is read at the offset q published (its copy, or its direct buffer); this rank's
 * own where the caller has it: only this rank reads that chunk of anyone's input. The last input's
 * pass stores each sum straight to the output and the first other destination (2 ranks: the only
 * pass, one store each; the copies of a block out of a buffer were 3/4 of the reduction's time),
 * vectorized for the CPU it runs on (the runtime is built for any x86-64); further destinations
 * copy the block while it is in L1. The output may be the own input, and a direct rank's buffer
 * is its input: element i is read before it is written, and by nothing else. */
#define PC_SHM_BLOCK 1024
#define PC_SHM_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#define PC_SHM_LOOP(T, OP, DEST)                                                                       \
    switch (OP) {                                                                                   \
    case 0: _Pragma("GCC ivdep") for (size_t i = 0; i < m; ++i) { const T v = a[i] + x[i]; DEST; } break; \
    case 1: _Pragma("GCC ivdep") for (size_t i = 0; i < m; ++i) { const T v = a[i] > x[i] ? a[i] : x[i]; DEST; } break; \
    case 2: _Pragma("GCC ivdep") for (size_t i = 0; i < m; ++i) { const T v = a[i] < x[i] ? a[i] : x[i]; DEST; } break; \
    default: _Pragma("GCC ivdep") for (size_t i = 0; i < m; ++i) { const T v = a[i] * x[i]; DEST; } break; \
    }
#define PC_SHM_REDUCE(T)                                                                            \
    PC_SHM_CLONES static void shm_reduce_##T(const shm_op *o, int s, size_t lo, size_t hi)          \
    {                                                                                               \
        T acc[PC_SHM_BLOCK];                                                                        \
        T *also[PC_SHM_MAX_RANKS];                                                                  \
        int na = 0;                                                                                 \
        T *const out = (T *)o->dst;                                                                 \
        if (!o->direct) also[na++] = (T *)(shm_data_of(g_shm_me) + o->off);                         \
        for (int q = 0; q < g_shm_n; ++q)                                                           \
            if (q != g_shm_me && g_shm_qdirect[s][q]) also[na++] = (T *)(shm_data_of(q) + g_shm_qoff[s][q]); \
        for (size_t b0 = lo; b0 < hi; b0 += PC_SHM_BLOCK) {                                         \
            const size_t m = hi - b0 < PC_SHM_BLOCK ? hi - b0 : PC_SHM_BLOCK;                       \
            const T *a = 0;                                                                         \
            for (int q = 0; q < g_shm_n; ++q) {                                                     \
                const T *const x = (q == g_shm_me ? (const T *)o->src                               \
                                                  : (const T *)(shm_data_of(q) + g_shm_qoff[s][q])) + b0; \
                if (q == 0) a = x;                                                                  \
                else if (q < g_shm_n - 1) { PC_SHM_LOOP(T, o->op, acc[i] = v) a = acc; }               \
                else if (na > 0) { T *const s_ = also[0] + b0, *const d_ = out + b0; PC_SHM_LOOP(T, o->op, (s_[i] = v, d_[i] = v)) } \
                else { T *const d_ = out + b0; PC_SHM_LOOP(T, o->op, d_[i] = v) }                     \
            }                                                                                       \
            for (int k = 1; k < na; ++k) memcpy(also[k] + b0, out + b0, m * sizeof(T));            \
        }                                                                                           \
    }
PC_SHM_REDUCE(float)
PC_SHM_REDUCE(double)

/* reduce this rank's chunk of every all-reduce in flight whose inputs are all there */
static void shm_service(void)
{
    if (g_shm_inflight == 0) return;
    for (int s = 0; s < PC_SHM_SLOTS; ++s) {
        shm_op *o = &g_shm_ops[s];
        if (!o->used || o->reduced) continue;
        int all = 1;
        for (int q = 0; q < g_shm_n && all; ++q)
            all = __atomic_load_n(&shm_ctl_of(q)->slot[s].ready, __ATOMIC_ACQUIRE) > o->seq;
        if (!all) continue;
        for (int q = 0; q < g_shm_n; ++q) {
            if (q == g_shm_me) continue;
            const shm_flags *f = &shm_ctl_of(q)->slot[s];
            g_shm_qoff[s][q] = (size_t)__atomic_load_n(&f->off, __ATOMIC_ACQUIRE);
            g_shm_qdirect[s][q] = (unsigned char)(__atomic_load_n(&f->direct, __ATOMIC_ACQUIRE) != 0);
        }
        size_t lo, hi;
        shm_chunk(o, g_shm_me, &lo, &hi);
        if (hi > lo) {
            if (o->dtype == PC_FLOAT32) shm_reduce_float(o, s, lo, hi);
            else shm_reduce_double(o, s, lo, hi);
        }
        o->reduced = 1;
        __atomic_store_n(&shm_ctl_of(g_shm_me)->slot[s].reduced, o->seq + 1, __ATOMIC_RELEASE);
    }
}

static void comm_service(void);

/* Spin until done(arg) holds, serving every rank's pending work, under comm.c's watch over group k
 * (the deadline and the members' exit notices). */
static int shm_spin(int (*done)(const void *), const void *arg, int k)
{
    comm_watch w = watch_start(k);
    for (unsigned spin = 0;; ++spin) {
        comm_service();
        if (done(arg)) return 0;
        if (spin < 256) continue;
        int rc = watch_check(&w);
        if (rc) return rc;
        sched_yield();
    }
}

static int shm_all_completed(const void *arg)
{
    const long want = *(const long *)arg;
    for (int q = 0; q < g_shm_n; ++q)
        if (__atomic_load_n(&shm_ctl_of(q)->completed, __ATOMIC_ACQUIRE) < want) return 0;
    return 1;
}

/* every rank that copies its chunks from the others' segments has copied them out of this one's
 * direct buffer (arg: the op) */
static int shm_all_copied(const void *arg)
{
    const shm_op *o = arg;
    const int s = (int)(o->seq % PC_SHM_SLOTS);
    for (int q = 0; q < g_shm_n; ++q)
        if (q != g_shm_me && !g_shm_qdirect[s][q] && __atomic_load_n(&shm_ctl_of(q)->slot[s].copied, __ATOMIC_ACQUIRE) <= o->seq)
            return 0;
    return 1;
}

static int shm_all_reduced(const void *arg)
{
    const shm_op *o = arg;
    const int s = (int)(o->seq % PC_SHM_SLOTS);
    if (!o->reduced) return 0;
    for (int q = 0; q < g_shm_n; ++q)
        if (__atomic_load_n(&shm_ctl_of(q)->slot[s].reduced, __ATOMIC_ACQUIRE) <= o->seq) return 0;
    return 1;
}

/* Start an all-reduce (shm_eligible said yes); *slot receives its slot. */
static int shm_start(const void *src, void *dst, size_t count, int dtype, int op, int k, int *slot)
{
    const size_t nbytes = count * (size_t)g_itemsize[dtype], need = (nbytes + 63) & ~(size_t)63;
    if (g_shm_inflight == 0 && g_shm_top > 0) {
        /* start again at 0 once every rank has completed every all-reduce started (none is in
         * flight here): nobody reads the old inputs any more */
        long want = g_shm_seq;
        int rc = shm_spin(shm_all_completed, &want, k);
        if (rc) return rc;
        g_shm_top = 0;
    }
    const int s = (int)(g_shm_seq % PC_SHM_SLOTS);
    shm_op *o = &g_shm_ops[s];
    /* direct: reduced in place in this rank's arena; it still takes its place in the data, so that
     * every rank's offsets, and so its choice of this file or MPI, stay the same */
    const char *arena = shm_data_of(g_shm_me) + g_shm_cap;
    const int direct = src == dst && (const char *)src >= arena && (const char *)src + nbytes <= arena + g_shm_acap;
    const size_t off = direct ? (size_t)((const char *)src - shm_data_of(g_shm_me)) : g_shm_top;
    *o = (shm_op){1, 0, dtype, op, k, direct, g_shm_seq++, off, count, src, dst};
    g_shm_top += need;
    const size_t item = (size_t)g_itemsize[dtype];
    for (int q = 0; q < g_shm_n && !direct; ++q) {  /* chunk q of the input, for rank q (this rank's own stays) */
        size_t lo, hi;
        shm_chunk(o, q, &lo, &hi);
        if (q != g_shm_me && hi > lo)
            memcpy(shm_data_of(g_shm_me) + o->off + lo * item, (const char *)src + lo * item, (hi - lo) * item);
    }
    ++g_shm_inflight;
    shm_flags *f = &shm_ctl_of(g_shm_me)->slot[s];
    __atomic_store_n(&f->off, (long)off, __ATOMIC_RELAXED);
    __atomic_store_n(&f->direct, (long)direct, __ATOMIC_RELAXED);
    __atomic_store_n(&f->ready, o->seq + 1, __ATOMIC_RELEASE);
    *slot = s;
    shm_service();
    return 0;
}

static int shm_wait(int s)
{
    shm_op *o = &g_shm_ops[s];
    const int k = o->group;
    int rc = shm_spin(shm_all_reduced, o, k);
    if (rc) return rc;
    const size_t item = (size_t)g_itemsize[o->dtype];
    for (int q = 0; q < g_shm_n && !o->direct; ++q) {  /* the others' chunks (this rank's: its reduction) */
        size_t lo, hi;
        shm_chunk(o, q, &lo, &hi);
        if (q != g_shm_me && hi > lo)
            memcpy((char *)o->dst + lo * item, shm_data_of(q) + g_shm_qoff[s][q] + lo * item, (hi - lo) * item);
    }
    if (!o->direct)
        __atomic_store_n(&shm_ctl_of(g_shm_me)->slot[s].copied, o->seq + 1, __ATOMIC_RELEASE);
    else if ((rc = shm_spin(shm_all_copied, o, k)))    /* (ranks whose arena was full copy from it) */
        return rc;
    o->used = 0;
    --g_shm_inflight;
    ++g_shm_calls;
    g_shm_direct += o->direct;
    __atomic_add_fetch(&shm_ctl_of(g_shm_me)->completed, 1, __ATOMIC_RELEASE);
    return 0;
}
