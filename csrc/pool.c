/* The thread pool generated kernels run their parallel loops on (pc_api.parallel_for).
 *
 * Why not OpenMP: a `parallel for` region ends when every thread of its team has arrived, so one
 * team thread that the OS has not scheduled (a busy process on its core, a sleeping thread still
 * waking after a pause, NumPy's OpenBLAS threads spinning) holds up the whole region; with ~20
 * regions per GPT block that made two threads 5-10x slower than one on a loaded machine.
 *
 * Here a loop of n iterations is cut into chunks claimed one at a time from a shared counter.
 * The calling thread starts on the first chunk at once and keeps claiming; a worker joins when it
 * is awake and finds chunks left, and is never waited for unless it holds a chunk. A loop ends
 * when all its chunks are done, not when all threads have arrived, so a thread that is not
 * running costs at most the chunk it is running.
 *
 * Idle workers spin for 50 us (the gap between the loops of one call), then keep polling while
 * yielding the CPU (sched_yield: any other runnable thread on that core runs first, so they do
 * not take a core someone else needs), and after 100 ms of that they sleep on a futex. Waking a
 * sleeping worker costs the caller a system call that takes 50-130 us in a virtual machine (the
 * idle vCPU must be interrupted): with workers asleep between calls, every call after a 20 ms
 * pause paid it, and calls were slower on two threads than on one. Within 100 ms the next call
 * finds them polling; after a longer idle period one call pays one wake-up.
 *
 * When workers that did claim chunks keep making the caller wait (their core is taken by another
 * process), the pool runs loops on the caller alone for a while (2 ms, doubling up to 1 s while
 * it keeps happening) and then tries again: under contention one thread is the fastest choice.
 * "Keep": at least two stalls within 100 ms that together took a quarter of that time. A single
 * stall is not contention: a virtual machine's vCPU is sometimes held for 1-12 ms with nothing
 * else running (seen here ~2 times a second on an idle machine), and a worker woken from sleep
 * joins its first loop late; backing off after each of those made W6 L=12 run a sixth of its
 * loops serially in bench/run.py's blocks (which follow pauses), and up to half of them back to
 * back (10.9 ms per call instead of 8.1-8.3).
 *
 * One job at a time: a second thread calling while a job runs, a nested call from inside a
 * chunk, or a team of one runs the loop itself, serially. After fork() the child starts without
 * workers (they do not exist there) and creates them again when needed. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
#include "pycompile_rt.h"

#define PC_MAX_WORKERS 255
#define PC_CHUNKS_PER_THREAD 4
#define PC_SPIN_NS 50000L           /* idle workers spin this long, */
#define PC_YIELD_NS 100000000L      /* then spin yielding the CPU to anyone who wants it, then sleep */
#define PC_BACKOFF_MIN_NS 2000000L  /* serial period after a stall: 2 ms ... */
#define PC_BACKOFF_MAX_NS 1000000000L   /* ... doubling while stalls come within PC_FORGET_NS ... */
#define PC_FORGET_NS 1000000000L    /* ... of each other, up to 1 s */
#define PC_STALL_WINDOW_NS 100000000L   /* stalls count together within 100 ms */

static int g_threads = 1;                   /* the team size, caller included */

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;   /* creating workers */
static int g_started = 0;                   /* workers created (under g_lock) */
static atomic_int g_sleepers;               /* workers asleep, or woken and not yet running */
static atomic_int g_wake_sent;              /* a wake-up was issued that no worker has consumed */
static _Atomic uint32_t g_gen_word;         /* the current job's generation: what sleepers wait on */

/* the current job: written by its caller before it publishes the job's generation in g_claim */
static _Atomic(pc_task_fn) g_fn;
static _Atomic(void *) g_ctx;
static atomic_long g_n, g_chunk;
static atomic_int g_active;                 /* workers allowed to join (g_threads - 1) */
static _Atomic uint64_t g_claim;            /* (generation << 32) | (back << 16) | front: chunks
                                               [front, back) are unclaimed */
static atomic_long g_done;                  /* chunks finished */
static atomic_int g_busy;                   /* a caller owns the pool */
static uint32_t g_gen;                      /* last generation (the owner's) */

static _Thread_local int t_inside;          /* this thread runs a chunk: nested loops are serial */
static _Thread_local int t_worker;          /* this thread is one of the pool's workers */
static _Thread_local int t_index;           /* 0: a caller; 1 + worker id: a worker (pc_thread_index) */

static atomic_long g_serial_until;          /* monotonic ns before which loops run serially */
static long g_backoff = PC_BACKOFF_MIN_NS;
static long g_last_stall;
static long g_window_start;                 /* the current stall window (caller-side state) */
static long g_window_stalls, g_window_stall_ns;

/* counters for tests and benchmarks (pc_pool_stats, see pycompile_rt.h) */
static atomic_long g_stat_parallel, g_stat_backoff, g_stat_stalls, g_stat_worker_chunks, g_stat_wait_ns, g_stat_wakes, g_stat_wake_ns;

void pc_pool_stats(long *out, int n)
{
    long v[7] = {atomic_load(&g_stat_parallel), atomic_load(&g_stat_backoff), atomic_load(&g_stat_stalls),
                 atomic_load(&g_stat_worker_chunks), atomic_load(&g_stat_wait_ns), atomic_load(&g_stat_wakes),
                 atomic_load(&g_stat_wake_ns)};
    for (int k = 0; k < n && k < 7; ++k)
        out[k] = v[k];
}

static long now_ns(void);

/* The work-split trace (pc_pool_trace): while on, every top-level loop given to pc_parallel_for is
 * recorded - its iteration count, the chunks it was cut into and the ns it took on the caller -
 * whatever the team size (a team of one included, where nothing is cut), for the printout that
 * shows how a call's work would split over T threads (tools/work_split.py). Off by default: then
 * the cost is one load per loop. */
#define PC_TRACE_MAX 8192
static int g_trace_on;
static long g_trace_len;
static long g_trace[PC_TRACE_MAX][3];
static long g_trace_fn[PC_TRACE_MAX];

void pc_pool_trace(int on)
{
    if (on)
        g_trace_len = 0;
    g_trace_on = on;
}

long pc_pool_trace_read(long *out, long cap)
{
    long n = g_trace_len < cap ? g_trace_len : cap;
    for (long k = 0; k < n; ++k)
        for (int j = 0; j < 3; ++j)
            out[3 * k + j] = g_trace[k][j];
    g_trace_len = 0;
    return n;
}

long pc_pool_trace_fns(long *out, long cap)
{
    long n = g_trace_len < cap ? g_trace_len : cap;
    for (long k = 0; k < n; ++k)
        out[k] = g_trace_fn[k];
    return n;
}

static void trace_loop(pc_task_fn fn, long n, long chunks, long t0)
{
    if (g_trace_len < PC_TRACE_MAX) {
        g_trace_fn[g_trace_len] = (long)(intptr_t)fn;
        g_trace[g_trace_len][0] = n;
        g_trace[g_trace_len][1] = chunks;
        g_trace[g_trace_len][2] = now_ns() - t0;
        g_trace_len++;
    }
}

static long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Claim and run chunks of job `gen` until none are left (or the job is no longer current).
 * The caller claims from the front (chunk 0 up), workers from the back (the last chunk down):
 * with two threads each runs one contiguous run of iterations, the same part of every loop of
 * the same size - the rows a loop writes are the rows the next loop on that thread reads, still
 * in its core's cache (W6: LayerNorm's rows, then the products over the same rows). Chunks
 * claimed one by one from a shared counter interleaved the two cores' rows in every loop. */
static void run_chunks(uint32_t gen)
{
    const int from_back = t_worker;
    for (;;) {
        uint64_t s = atomic_load(&g_claim);
        if ((uint32_t)(s >> 32) != gen)
            return;
        const long front = (long)(s & 0xFFFF), back = (long)((s >> 16) & 0xFFFF);
        if (front >= back)
            return;
        /* the job's fields, read between seeing (gen, front, back) and claiming: a successful
         * claim means the job was still open, so its caller had not begun writing the next one */
        pc_task_fn fn = atomic_load_explicit(&g_fn, memory_order_relaxed);
        void *ctx = atomic_load_explicit(&g_ctx, memory_order_relaxed);
        long n = atomic_load_explicit(&g_n, memory_order_relaxed);
        long chunk = atomic_load_explicit(&g_chunk, memory_order_relaxed);
        const long i = from_back ? back - 1 : front;
        if (!atomic_compare_exchange_weak(&g_claim, &s, from_back ? s - ((uint64_t)1 << 16) : s + 1))
            continue;
        long lo = i * chunk, hi = lo + chunk < n ? lo + chunk : n;
        t_inside = 1;
        fn(ctx, lo, hi);
        t_inside = 0;
        if (t_worker)
            atomic_fetch_add_explicit(&g_stat_worker_chunks, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&g_done, 1, memory_order_release);
    }
}

/* Sleeping and waking. Waking a worker whose CPU is idle costs the caller a system call that, in
 * a virtual machine, can take ~50 us (the idle vCPU must be interrupted), so the caller issues at
 * most one wake-up per sleep: a woken worker that is not running yet is not woken again (that
 * made every loop of a call pay the system call after a pause, 2x slower than one thread). */
#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
static void sleep_until_changed(uint32_t seen)
{
    while (atomic_load(&g_gen_word) == seen)
        syscall(SYS_futex, (uint32_t *)&g_gen_word, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
}
static void wake_all(void) { syscall(SYS_futex, (uint32_t *)&g_gen_word, FUTEX_WAKE_PRIVATE, 1 << 30, NULL, NULL, 0); }
#else
static pthread_mutex_t g_sleep_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_sleep_cond = PTHREAD_COND_INITIALIZER;
static void sleep_until_changed(uint32_t seen)
{
    pthread_mutex_lock(&g_sleep_lock);
    while (atomic_load(&g_gen_word) == seen)
        pthread_cond_wait(&g_sleep_cond, &g_sleep_lock);
    pthread_mutex_unlock(&g_sleep_lock);
}
static void wake_all(void)
{
    pthread_mutex_lock(&g_sleep_lock);
    pthread_cond_broadcast(&g_sleep_cond);
    pthread_mutex_unlock(&g_sleep_lock);
}
#endif

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    uint32_t seen = 0;
    t_worker = 1;
    t_index = id + 1;           /* workers joining a loop have id < threads - 1 (g_active) */
    for (;;) {
        /* spin, then poll yielding the CPU, then sleep until a job is published */
        long t0 = now_ns();
        uint32_t gen;
        int spins = 0;
        while ((gen = (uint32_t)(atomic_load(&g_claim) >> 32)) == seen) {
            cpu_relax();
            if (++spins % 64 != 0)
                continue;
            long now = now_ns(), idle = now - t0;
            /* while loops run serially after a stall, a polling worker would only take CPU time
             * from the caller and the process that caused the stall: sleep until woken */
            int serial = now < atomic_load_explicit(&g_serial_until, memory_order_relaxed);
            if (idle > PC_SPIN_NS && idle <= PC_YIELD_NS && !serial)
                sched_yield();
            else if (idle > PC_YIELD_NS || serial) {
                atomic_fetch_add(&g_sleepers, 1);
                atomic_store(&g_wake_sent, 0);
                sleep_until_changed(seen);
                atomic_fetch_sub(&g_sleepers, 1);
                gen = (uint32_t)(atomic_load(&g_claim) >> 32);
                break;
            }
        }
        seen = gen;
        if (id < atomic_load(&g_active))
            run_chunks(gen);
    }
    return NULL;
}

static void start_workers(int want)
{
    pthread_mutex_lock(&g_lock);
    while (g_started < want && g_started < PC_MAX_WORKERS) {
        pthread_t th;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&th, &attr, worker, (void *)(intptr_t)g_started) != 0) {
            pthread_attr_destroy(&attr);
            break;
        }
        pthread_attr_destroy(&attr);
        g_started++;
    }
    pthread_mutex_unlock(&g_lock);
}

static void after_fork_child(void)
{
    /* the workers do not exist in the child */
    pthread_mutex_init(&g_lock, NULL);
    g_started = 0;
    atomic_store(&g_sleepers, 0);
    atomic_store(&g_wake_sent, 0);
    atomic_store(&g_busy, 0);
    t_inside = 0;
}

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static void install_fork_handler(void) { pthread_atfork(NULL, NULL, after_fork_child); }

/* pc_parallel_for on a team of `threads` (caller included) instead of pc_set_num_threads's:
 * the standalone library (`pycompile --emit lib`, backend/lib.py) includes this file and runs each
 * context's calls on that context's thread count; the pool's workers are shared. */
static void pc_parallel_for_team(pc_task_fn fn, void *ctx, long n, int threads)
{
    if (n <= 0)
        return;
    if (g_trace_on && !t_inside) {
        /* traced: the same loop, timed (one thread records: the trace is for the caller's loops) */
        const int top = !atomic_load(&g_busy);
        long t0 = now_ns();
        g_trace_on = 0;
        pc_parallel_for_team(fn, ctx, n, threads);
        g_trace_on = 1;
        if (top) {
            long nchunks = threads <= 1 || n == 1 ? 1 : (long)threads * PC_CHUNKS_PER_THREAD < n
                           ? (long)threads * PC_CHUNKS_PER_THREAD : n;
            long chunk = (n + nchunks - 1) / nchunks;
            trace_loop(fn, n, (n + chunk - 1) / chunk, t0);
        }
        return;
    }
    if (threads <= 1 || n == 1 || t_inside || atomic_exchange(&g_busy, 1)) {
        fn(ctx, 0, n);
        return;
    }
    long t_start = now_ns();
    if (t_start < atomic_load_explicit(&g_serial_until, memory_order_relaxed)) {
        atomic_fetch_add_explicit(&g_stat_backoff, 1, memory_order_relaxed);
        atomic_store(&g_busy, 0);
        fn(ctx, 0, n);
        return;
    }
    atomic_fetch_add_explicit(&g_stat_parallel, 1, memory_order_relaxed);
    pthread_once(&g_once, install_fork_handler);
    if (g_started < threads - 1)
        start_workers(threads - 1);
    long nchunks = (long)threads * PC_CHUNKS_PER_THREAD;
    if (nchunks > n)
        nchunks = n;
    long chunk = (n + nchunks - 1) / nchunks;
    nchunks = (n + chunk - 1) / chunk;
    atomic_store_explicit(&g_fn, fn, memory_order_relaxed);
    atomic_store_explicit(&g_ctx, ctx, memory_order_relaxed);
    atomic_store_explicit(&g_n, n, memory_order_relaxed);
    atomic_store_explicit(&g_chunk, chunk, memory_order_relaxed);
    atomic_store_explicit(&g_active, threads - 1, memory_order_relaxed);
    atomic_store_explicit(&g_done, 0, memory_order_relaxed);
    uint32_t gen = ++g_gen;
    if (gen == 0)
        gen = ++g_gen;              /* 0 is the workers' initial "seen" value */
    atomic_store(&g_claim, (uint64_t)gen << 32 | (uint64_t)nchunks << 16);
    atomic_store(&g_gen_word, gen);
    int woke = 0;
    if (atomic_load(&g_sleepers) > 0 && !atomic_exchange(&g_wake_sent, 1)) {
        woke = 1;
        long tw = now_ns();
        wake_all();
        atomic_fetch_add_explicit(&g_stat_wakes, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&g_stat_wake_ns, now_ns() - tw, memory_order_relaxed);
    }
    t_inside = 1;
    run_chunks(gen);
    t_inside = 0;
    /* every chunk is claimed; wait for the ones workers are still running */
    long t_mine = now_ns();
    int spins = 0;
    while (atomic_load_explicit(&g_done, memory_order_acquire) < nchunks) {
        cpu_relax();
        if (++spins > 2000)
            sched_yield();
    }
    long t_end = now_ns();
    atomic_fetch_add_explicit(&g_stat_wait_ns, t_end - t_mine, memory_order_relaxed);
    /* a stall: the caller waited on workers' chunks for longer than all its own work took (a
     * worker was descheduled holding one; not the late start of a worker this loop woke). Stalls
     * that keep coming (see the top) mean a busy core: run serially for a while, 2 ms the first
     * time, doubling while it recurs within a second (then serial is the fastest choice, and one
     * probe a second costs ~1 %) */
    const long waited = t_end - t_mine;
    if (waited > 200000L && waited > t_mine - t_start && !woke) {
        atomic_fetch_add_explicit(&g_stat_stalls, 1, memory_order_relaxed);
        if (t_end - g_window_start > PC_STALL_WINDOW_NS) {
            g_window_start = t_end - waited;
            g_window_stalls = g_window_stall_ns = 0;
        }
        g_window_stalls++;
        g_window_stall_ns += waited;
        if (g_window_stalls >= 2 && 4 * g_window_stall_ns > t_end - g_window_start) {
            g_window_stalls = g_window_stall_ns = 0;
            g_window_start = t_end;
            g_backoff = t_end - g_last_stall < PC_FORGET_NS ? g_backoff * 2 : PC_BACKOFF_MIN_NS;
            if (g_backoff > PC_BACKOFF_MAX_NS)
                g_backoff = PC_BACKOFF_MAX_NS;
            g_last_stall = t_end;
            atomic_store_explicit(&g_serial_until, t_end + g_backoff, memory_order_relaxed);
        }
    }
    atomic_store(&g_busy, 0);
}

void pc_parallel_for(pc_task_fn fn, void *ctx, long n) { pc_parallel_for_team(fn, ctx, n, g_threads); }
void pc_set_num_threads(int n) { g_threads = n < 1 ? 1 : n > PC_MAX_WORKERS + 1 ? PC_MAX_WORKERS + 1 : n; }
int pc_get_num_threads(void) { return g_threads; }
int pc_thread_index(void) { return t_index; }
