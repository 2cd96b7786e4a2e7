/* A C program calling a library `pycompile MODEL --emit lib` wrote (tests/export/test_emit_lib.py,
 * bench/clib.py). Built against the library's header with
 *     cc run_model.c -DHEADER='"NAME.h"' -DNAME=NAME -DNUM_IN=N -DNUM_OUT=M -I DIR -L DIR -lNAME ...
 *
 *   run_model run INPUTS OUTPUTS THREADS [WEIGHTS]   read each input's bytes from INPUTS (in order),
 *                                                    run once, write each output's bytes to OUTPUTS
 *   run_model bench INPUTS THREADS CALLS             the median ns of CALLS calls (after 20 warm-up
 *                                                    calls): "median_ns N"
 *   run_model errors WEIGHTS_OK WEIGHTS_BAD          the status of each misuse: "case status message" */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include HEADER

#define PASTE(a, b, c) a##b##c
#define XPASTE(a, b, c) PASTE(a, b, c)
#define F(s) XPASTE(pc_, NAME, s)
typedef F(_ctx) ctx_t;

static void *in_buf[NUM_IN + 1], *out_buf[NUM_OUT + 1];

static int read_inputs(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    for (int k = 0; k < NUM_IN; ++k) {
        in_buf[k] = malloc(F(_input_nbytes)[k] + 1);
        if (fread(in_buf[k], 1, F(_input_nbytes)[k], f) != F(_input_nbytes)[k])
            return fclose(f), 0;
    }
    fclose(f);
    for (int k = 0; k < NUM_OUT; ++k)
        out_buf[k] = calloc(1, F(_output_nbytes)[k] + 1);
    return 1;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

static long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static void report(const char *what, int status)
{
    printf("%s %d %s\n", what, status, status ? F(_last_error)() : "");
}

static int errors(const char *weights_ok, const char *weights_bad)
{
    const void *in[NUM_IN + 1] = {0};
    void *out[NUM_OUT + 1] = {0};
    static float scratch[1 << 16];
    for (int k = 0; k < NUM_IN; ++k)
        in[k] = calloc(1, F(_input_nbytes)[k] + 1);
    for (int k = 0; k < NUM_OUT; ++k)
        out[k] = scratch;
    report("threads_negative", F(_create)(NULL, -1) ? 0 : F(_last_status)());
    report("threads_too_many", F(_create)(NULL, 100000) ? 0 : F(_last_status)());
    report("weights_missing", F(_create)("/nonexistent/weights.bin", 1) ? 0 : F(_last_status)());
    report("weights_bad", F(_create)(weights_bad, 1) ? 0 : F(_last_status)());
    ctx_t *ctx = F(_create)(weights_ok, 2);
    report("weights_file", ctx ? 0 : F(_last_status)());
    report("run_null_ctx", F(_run)(NULL, in, out));
    report("run_null_inputs", F(_run)(ctx, NULL, out));
    report("run_null_outputs", F(_run)(ctx, in, NULL));
    const void *in0 = in[0];
    in[0] = NULL;
    report("run_null_input0", F(_run)(ctx, in, out));
    in[0] = in0;
    out[0] = NULL;
    report("run_null_output0", F(_run)(ctx, in, out));
    out[0] = scratch;
    report("run_ok", F(_run)(ctx, in, out));
    F(_destroy)(ctx);
    F(_destroy)(NULL);
    ctx = F(_create)(NULL, 0);
    report("threads_zero", ctx ? 0 : F(_last_status)());
    F(_destroy)(ctx);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && !strcmp(argv[1], "errors"))
        return errors(argv[2], argv[3]);
    if (argc < 5 || !read_inputs(argv[2])) {
        fprintf(stderr, "usage: run_model run INPUTS OUTPUTS THREADS [WEIGHTS] | bench INPUTS THREADS CALLS | "
                        "errors WEIGHTS_OK WEIGHTS_BAD\n");
        return 2;
    }
    const int bench = !strcmp(argv[1], "bench");
    ctx_t *ctx = F(_create)(!bench && argc > 5 ? argv[5] : NULL, atoi(argv[bench ? 3 : 4]));
    if (!ctx) {
        fprintf(stderr, "create: %d %s\n", F(_last_status)(), F(_last_error)());
        return 3;
    }
    if (bench) {
        const int calls = atoi(argv[4]);
        long *t = malloc(sizeof(long) * (calls > 0 ? calls : 1));
        for (int k = 0; k < 20; ++k)
            F(_run)(ctx, (const void *const *)in_buf, out_buf);
        for (int k = 0; k < calls; ++k) {
            const long t0 = now_ns();
            if (F(_run)(ctx, (const void *const *)in_buf, out_buf))
                return fprintf(stderr, "run: %s\n", F(_last_error)()), 4;
            t[k] = now_ns() - t0;
        }
        qsort(t, calls, sizeof(long), cmp_long);
        printf("median_ns %ld\n", t[calls / 2]);
    } else {
        int rc = F(_run)(ctx, (const void *const *)in_buf, out_buf);
        if (rc)
            return fprintf(stderr, "run: %d %s\n", rc, F(_last_error)()), 4;
        FILE *f = fopen(argv[3], "wb");
        for (int k = 0; k < NUM_OUT; ++k)
            fwrite(out_buf[k], 1, F(_output_nbytes)[k], f);
        fclose(f);
    }
    F(_destroy)(ctx);
    return 0;
}
