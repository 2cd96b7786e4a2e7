/* The hand-written runtime: state that outlives one generated module (the thread pool of
 * pool.c, the emulated float-status register) and the bridges from generated code back into
 * Python (Print). Generated code reaches all of it through the pc_api table. */
#include "pycompile_rt.h"
#include "interrupt.c"
#include "comm.c"
#include "gemm.c"

/* Defined by cffi (extern "Python" in build_runtime.py); they format and write through
 * Python's sys.stdout so compiled Print interleaves with Python's own print calls. */
static void pc_py_print_tensor(const void *data, int dtype, int ndim, const int64_t *shape);
static void pc_py_print_str(const char *text, int64_t nbytes);
static void pc_py_print_scalar(double value, int dtype);
/* ops.Custom(func_type="pyfunc") (backend/runtime.py) */
static int pc_py_call(int64_t site, const void *const *inputs, void *const *outputs);

static volatile int g_float_status = 0;

int pc_status_get(void) { return g_float_status; }
void pc_status_clear(void) { g_float_status = 0; }
void pc_status_raise(int bits) { if (bits) __atomic_or_fetch(&g_float_status, bits, __ATOMIC_RELAXED); }

static void print_tensor(const void *data, int dtype, int ndim, const int64_t *shape)
{
    pc_py_print_tensor(data, dtype, ndim, shape);
}
static void print_str(const char *text, int64_t nbytes) { pc_py_print_str(text, nbytes); }
static void print_scalar(double value, int dtype) { pc_py_print_scalar(value, dtype); }

static pc_api g_api = {      /* sgemm_nt, sgemm_ep: filled by pc_get_api, for the CPU it runs on */
    PC_RT_ABI_VERSION,
    pc_get_num_threads,
    pc_parallel_for,
    pc_status_raise,
    pc_status_get,
    pc_status_clear,
    print_tensor,
    print_str,
    print_scalar,
    &g_interrupted,
    pc_thread_index,
    pc_allreduce,
    pc_allgather,
    pc_reduce_scatter,
    pc_broadcast,
    pc_allreduce_start,
    pc_comm_wait,
    pc_comm_progress,
    0,
    0,
    pc_params_written,
    pc_py_call,
};
static int g_api_ready;

/* called from Python (under the GIL) before any module is loaded */
const pc_api *pc_get_api(void)
{
    if (!g_api_ready) {
        g_api.sgemm_nt = pc_sgemm_nt_choose();
        g_api.sgemm_ep = pc_sgemm_ep_choose();
        g_api_ready = 1;
    }
    return &g_api;
}
