/* pycompile runtime ABI: the one place where the contract between Python, the runtime and
 * generated C is written down. cffi reads the part between the CDEF markers, so that part
 * stays inside cffi's C subset (no macros with expressions, no includes). */
#ifndef PYCOMPILE_RT_H
#define PYCOMPILE_RT_H
#include <stdint.h>

/* CDEF-BEGIN */
#define PC_RT_ABI_VERSION 11

/* dtype codes; pycompile.common.dtype reads these numbers from here through cffi. */
enum pc_dtype {
    PC_BOOL = 0, PC_INT8 = 1, PC_INT16 = 2, PC_INT32 = 3, PC_INT64 = 4,
    PC_UINT8 = 5, PC_UINT16 = 6, PC_UINT32 = 7, PC_UINT64 = 8,
    PC_FLOAT16 = 9, PC_FLOAT32 = 10, PC_FLOAT64 = 11,
    PC_COMPLEX64 = 12, PC_COMPLEX128 = 13,  /* C99 float _Complex / double _Complex */
    PC_BFLOAT16 = 14                        /* stored as pc_bf16 (uint16_t), computed in float */
};

/* Bits of the emulated NPU float-status register (the Ascend-style device). */
enum pc_status_bits { PC_STATUS_OVERFLOW = 1, PC_STATUS_INVALID = 2 };

/* A parallel loop's body: iterations [lo, hi) of a loop over [0, n), with its captured values. */
typedef void (*pc_task_fn)(void *ctx, long lo, long hi);

/* C[i][j] = sum_k A[i lda + k] op(B)[k][j] for i < M, j < N, op(B)[k][j] = (tb & 1) ? B[j ldb + k] :
 * B[k ldb + j] (csrc/gemm.c); tb & 2 (ABI 7): B is likely out of cache, prefetch it; tb & 4 (ABI
 * 8): B is a Parameter the calling module never writes, its packing may be kept across calls until
 * params_written is called; tb & 32 (ABI 11): A is stored transposed, op(A)[i][k] = A[k lda + i]
 * (read in place; a kernel may decline it). Nonzero when it could not run (C untouched: call BLAS
 * instead). */
typedef int (*pc_sgemm_nt_fn)(long M, long N, long K, const float *A, long lda, const float *B, long ldb, int tb,
                              float *C, long ldc);
/* the same with a Dense layer's epilogue additions, made as each tile is stored (no pass over C):
 * C[i][j] = R[i ldr + j] + (sum + bias[j]), bias NULL: none, R NULL: none (R apart from C); each
 * addition rounded in turn, as separate passes round them; tb & 16 (ABI 10): then ReLU, x > 0 ? x : 0 */
typedef int (*pc_sgemm_ep_fn)(long M, long N, long K, const float *A, long lda, const float *B, long ldb, int tb,
                              float *C, long ldc, const float *bias, const float *R, long ldr);

/* Function table handed to every generated module at load time (pc_module_init). */
typedef struct pc_api {
    int abi_version;
    int (*num_threads)(void);
    /* run fn over [0, n) in chunks on the runtime's threads (csrc/pool.c); returns when all
     * chunks are done. A C caller of an exported module may run it serially: fn(ctx, 0, n). */
    void (*parallel_for)(pc_task_fn fn, void *ctx, long n);
    void (*status_raise)(int bits);
    int (*status_get)(void);
    void (*status_clear)(void);
    void (*print_tensor)(const void *data, int dtype, int ndim, const int64_t *shape);
    void (*print_str)(const char *text, int64_t nbytes);   /* may hold NUL bytes */
    void (*print_scalar)(double value, int dtype);
    volatile int *interrupted;      /* nonzero once SIGINT arrived: loops return PC_ERR_INTERRUPTED */
    /* the calling thread's index in the pool: 0 for the thread that called parallel_for (and any
     * thread outside the pool), 1 .. num_threads() - 1 for workers; kernels index per-thread
     * scratch with it. May be NULL: modules then assume 0 (serial callers). */
    int (*thread_index)(void);
    /* ABI 4: collectives over the group named `group` (csrc/comm.c), bound to the MPI library
     * mpi4py loaded by communication.init(). Counts are elements; dtype a pc_dtype; op a ReduceOp
     * code (0 sum, 1 max, 2 min, 3 prod). They return 0, or nonzero when init() was not called, the
     * group is unknown, MPI has no such dtype, MPI failed, a member of the group exited, or the
     * collective did not complete within PYCOMPILE_COMM_TIMEOUT (pc_comm_last_error says which).
     * allgather: count per rank (dst holds size * count); reduce_scatter: count per rank's result
     * (src holds size * count); broadcast: dst gets rank `root`'s src. allreduce_start begins a
     * non-blocking all-reduce (src != dst) and wait completes it. All may be NULL in a table made
     * by a C caller without communication. */
    int (*allreduce)(const void *src, void *dst, int64_t count, int dtype, int op, const char *group);
    int (*allgather)(const void *src, void *dst, int64_t count, int dtype, const char *group);
    int (*reduce_scatter)(const void *src, void *dst, int64_t count, int dtype, int op, const char *group);
    int (*broadcast)(const void *src, void *dst, int64_t count, int dtype, int root, const char *group);
    int (*allreduce_start)(const void *src, void *dst, int64_t count, int dtype, int op, const char *group,
                           int64_t *request);
    int (*wait)(int64_t *request);
    /* ABI 5: let the MPI library advance the all-reduces started and not yet waited for (MPI
     * progresses them only inside its calls); generated code calls it between the kernels that
     * run while one is in flight. May be NULL. */
    int (*comm_progress)(void);
    /* ABI 6: pycompile's float32 kernel for small products (csrc/gemm.c), NULL on a CPU without
     * AVX-512 (and in a C caller's table that leaves it out): generated code then calls BLAS. */
    pc_sgemm_nt_fn sgemm_nt;
    /* ABI 7: the same kernel adding a bias row and a residual at the store; NULL exactly when
     * sgemm_nt is */
    pc_sgemm_ep_fn sgemm_ep;
    /* ABI 8: a Parameter was (or is about to be) written: packings the kernel kept are stale.
     * Modules that assign Parameters call it as a call starts and as it ends. May be NULL. */
    void (*params_written)(void);
    /* ABI 9: ops.Custom(func_type="pyfunc"): call the Python function registered as `site` on the
     * input buffers (their dtypes and shapes are the site's), writing its results into the output
     * buffers; 0 on success, nonzero when the function raised or returned a value of another
     * shape or dtype (the Python side keeps the exception). May be NULL: such graphs then fail. */
    int (*py_call)(int64_t site, const void *const *inputs, void *const *outputs);
} pc_api;

/* pc_entry's result when a loop stopped at a pending SIGINT (runtime errors are 1000 + k) */
#define PC_ERR_INTERRUPTED 900

const pc_api *pc_get_api(void);
void pc_set_num_threads(int n);
void pc_parallel_for(pc_task_fn fn, void *ctx, long n);
/* the pool's counters, the first n of: loops run in parallel, loops run serially after a stall,
 * stalls, chunks run by workers, ns the caller waited for workers' chunks, wake-ups, ns in them */
void pc_pool_stats(long *out, int n);
/* the work-split trace: on (1) clears it and records every top-level loop given to parallel_for -
 * (iterations, chunks, ns on the caller) - until off (0); read copies up to cap triples, returns
 * how many and clears it (csrc/pool.c, tools/work_split.py) */
void pc_pool_trace(int on);
long pc_pool_trace_read(long *out, long cap);
/* the loops' task functions (as integers), in the order of the trace, without clearing it: which
 * outlined region each record is (tools/work_split.py matches loops across team sizes by it) */
long pc_pool_trace_fns(long *out, long cap);
int pc_get_num_threads(void);
/* Parameter writes made outside compiled code (csrc/gemm.c: kept packings); the bytes kept
 * packings may hold (0: keep none); their counters, the first n of: products served from kept
 * panels, packings kept, packings declined, bytes held, the Parameter epoch */
void pc_params_written(void);
void pc_pack_keep_limit(long bytes);
void pc_pack_stats(long *out, int n);
int pc_thread_index(void);
int pc_status_get(void);
void pc_status_clear(void);
void pc_status_raise(int bits);
int pc_watch_interrupts(void);
void pc_clear_interrupt(void);
/* communication.init() binds the collectives to MPI (csrc/comm.c): handle_size 4 (MPICH: int
 * handles) or 8 (Open MPI: pointers), or -1 for a one-process world without MPI; fns: addresses
 * of MPI_Iallreduce, MPI_Iallgather, MPI_Ireduce_scatter_block, MPI_Ibcast, MPI_Test, MPI_Iprobe,
 * MPI_Error_string (every collective is started non-blocking and polled with a deadline);
 * dtypes: the MPI datatype handle of each pc_dtype (0: none); ops: sum, max, min, prod.
 * add_group: a group's communicator, size and the world rank of each member. */
int pc_comm_bind(int handle_size, const int64_t *fns, int nfns, const int64_t *dtypes, const int64_t *ops);
int pc_comm_add_group(const char *name, int64_t comm, int size, const int *world_ranks);
void pc_comm_unbind(void);
/* A collective fails after timeout_s seconds without completing (PYCOMPILE_COMM_TIMEOUT), or
 * about a second after a member of its group sent its exit notice (a message with exit_tag on
 * ctl_comm, a duplicate of the world, when has_ctl). */
int pc_comm_set_watch(double timeout_s, int64_t ctl_comm, int has_ctl, int exit_tag, int world_rank, int world_size);
/* the message of this thread's last failed collective (its length); nonzero once a collective
 * timed out, lost a peer or failed in MPI: every later one then fails at once */
int pc_comm_last_error(char *buf, int n);
int pc_comm_faulted(void);
/* comm_progress tests the oldest started all-reduce at most once per gap_us microseconds (0: at
 * every call); < 0: never (PYCOMPILE_COMM_PROGRESS=0: measure what the MPI_Test calls give) */
void pc_comm_set_progress(int gap_us);
/* the value of the bound MPI's MPI_IN_PLACE (MPICH's (void *)-1, Open MPI's (void *)1): an
 * allreduce_start whose source is its destination then reduces in place, without MPI's copy of
 * the source into the destination; before it is set such a call fails (aliased buffers) */
void pc_comm_set_in_place(int64_t value);
/* all-reduces run by compiled code since the last reset, the first n of: calls (blocking or
 * started), bytes, ns inside them, ns waited for started ones to complete, MPI_Test calls of
 * comm_progress, ns inside those (bench/w12.py) */
void pc_comm_stats(long *out, int n);
void pc_comm_stats_reset(void);
/* csrc/comm_shm.c: float32 / float64 all-reduces over the world group through shared memory when
 * every rank is on this machine: n ranks, this one's index, the address of each rank's segment
 * in this process (an MPI shared window), the data bytes of a segment and the arena's behind
 * them (n = 0: unbind); shm_calls: the all-reduces run that way so far, direct_calls: those whose
 * buffer was in this rank's arena; shm_arena: nbytes of the arena for a compiled module's
 * temporaries (NULL: unbound or full), arena_free gives the last block back */
int pc_comm_shm_bind(int n, int me, const int64_t *bases, int64_t cap, int64_t arena);
long pc_comm_shm_calls(void);
long pc_comm_shm_direct_calls(void);
void *pc_comm_shm_arena(int64_t nbytes);
void pc_comm_shm_arena_free(void *p, int64_t nbytes);
/* CDEF-END */

#endif
