"""The outline pass (backend/c/outline.py) on hand-written C in the forms kernels emit: a parallel
loop, one with an integer reduction, and a region with per-chunk setup and teardown. Compiling
the results is covered by every compiled test; here the text."""
import pytest

from pycompile.backend.c.outline import OutlineError, outline

HEAD = "static const pc_api *RT;\n"


def test_parallel_loop_becomes_a_function_with_its_captures():
    src = HEAD + """int pc_entry(void **args) {
    const int nt = RT->num_threads();
    float *const v1 = (float *)args[0];
    const long cpb = 2L, rows = 8L;
    #pragma omp parallel for num_threads(nt) schedule(static)
    for (long u = 0; u < cpb; ++u) {
        const long r0 = u * rows;
        v1[r0] = (float)rows;
    }
    return 0;
}"""
    out = outline(src)
    assert "#pragma omp parallel" not in out
    assert "typedef struct { long rows; float * v1; } pc_r0_ctx;" in out
    assert "static void pc_r0(void *pc_arg, long pc_lo, long pc_hi) {" in out
    assert "for (long u = pc_lo; u < pc_hi; ++u) {" in out
    assert "RT->parallel_for(pc_r0, (void *)&pc_c0, (long)(cpb)); }" in out
    assert out.index("static void pc_r0") < out.index("int pc_entry")


def test_integer_reduction_and_per_chunk_setup():
    src = HEAD + """int pc_entry(void **args) {
    const int nt = RT->num_threads();
    const float *x = (const float *)args[0];
    {
        int bad = 0;
        #pragma omp parallel for num_threads(nt) schedule(static) reduction(|:bad)
        for (long o = 0; o < 64L; ++o) {
            if (x[o] < 0) { bad = 1; continue; }
        }
        if (bad) return 1000;
    }
    {
        #pragma omp parallel num_threads(nt)
        {
                float *buf = (float *)malloc(64);
                #pragma omp for schedule(static)
                for (long a = 0; a < 32L; ++a) {
                    buf[0] = x[a];
                }
                free(buf);
        }
    }
    return 0;
}"""
    out = outline(src)
    assert "#pragma omp" not in out
    assert "int * pc_red_bad;" in out and "__atomic_fetch_or(pc_c0->pc_red_bad, bad, __ATOMIC_RELAXED);" in out
    assert "{x, &bad}" in out.replace("pc_c0 = ", "")
    f1 = out[out.index("static void pc_r1"):]
    assert f1.index("malloc") < f1.index("for (long a = pc_lo") < f1.index("free(buf)") < f1.index("\n}")


def test_what_it_cannot_capture_is_an_error():
    src = HEAD + """int pc_entry(void **args) {
    float acc[4] = {0};
    #pragma omp parallel for num_threads(nt) schedule(static)
    for (long u = 0; u < 8L; ++u) {
        acc[u % 4] += 1;
    }
    return 0;
}"""
    with pytest.raises(OutlineError, match="array 'acc'"):
        outline(src)


def test_dynamic_schedule_size_condition_and_thread_index():
    """The CNN kernels' forms: any schedule (chunks are claimed dynamically anyway), `if (C)` runs
    the outlined body serially when C is false, and per-thread scratch indexes by the pool's
    thread index instead of OpenMP's."""
    src = HEAD + """int pc_entry(void **args) {
    const int nt = RT->num_threads();
    float *const CB = (float *)args[0];
    const long n = 4096L;
    #pragma omp parallel for num_threads(nt) schedule(dynamic, 4) if (n > 524288L)
    for (long u = 0; u < n; ++u) {
        float *const cols = CB + (long)omp_get_thread_num() * 16L;
        cols[u % 16] = (float)u;
    }
    return 0;
}"""
    out = outline(src)
    assert "omp_get_thread_num" not in out and "#pragma omp parallel" not in out
    assert "float *const cols = CB + (long)PC_TID() * 16L;" in out
    assert ("if (n > 524288L) RT->parallel_for(pc_r0, (void *)&pc_c0, (long)(n)); "
            "else pc_r0((void *)&pc_c0, 0, (long)(n)); }") in out


def test_constant_tables_are_captured_by_pointer():
    """Pooling's per-axis window tables are `static const` arrays of the enclosing function."""
    src = HEAD + """int pc_entry(void **args) {
    const int nt = RT->num_threads();
    float *const y = (float *)args[0];
    static const int32_t tf0[3] = {0, 1, 2};
    #pragma omp parallel for num_threads(nt) schedule(dynamic, 4) if (3L > 524288L)
    for (long u = 0; u < 3L; ++u) {
        y[u] = (float)tf0[u];
    }
    return 0;
}"""
    out = outline(src)
    assert "const int32_t * tf0;" in out and "const int32_t *const tf0 = pc_c0->tf0;" in out
