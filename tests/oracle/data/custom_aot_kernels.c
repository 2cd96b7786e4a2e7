/* ops.Custom(func_type="aot") kernels of tests/oracle/autodiff_auto34_cases.py, in MindSpore's CPU
 * convention: params holds the inputs then the output; nonzero return is the kernel's error code.
 * Built by record_autodiff_auto34.py and tests/autodiff/test_auto34_oracle.py with
 * `cc -shared -fPIC -O2`. */
#include <stdint.h>
#include <string.h>

int CustomAddTwice(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes, void *stream,
                   void *extra)
{
    (void)stream; (void)extra;
    if (nparam != 3) return 1;
    if (strcmp(dtypes[0], "float32") != 0 || strcmp(dtypes[2], "float32") != 0) return 2;
    const float *a = (const float *)params[0], *b = (const float *)params[1];
    float *out = (float *)params[2];
    int64_t n = 1;
    for (int i = 0; i < ndims[2]; i++) n *= shapes[2][i];
    for (int64_t i = 0; i < n; i++) out[i] = a[i] + 2.0f * b[i];
    return 0;
}

int CustomRowSum(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes, void *stream,
                 void *extra)
{
    (void)stream; (void)extra; (void)dtypes;
    if (nparam != 2 || ndims[0] != 2) return 1;
    const float *x = (const float *)params[0];
    float *out = (float *)params[1];
    for (int64_t r = 0; r < shapes[0][0]; r++) {
        float s = 0.0f;
        for (int64_t c = 0; c < shapes[0][1]; c++) s += x[r * shapes[0][1] + c];
        out[r] = s;
    }
    return 0;
}

int CustomFails(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes, void *stream,
                void *extra)
{
    (void)nparam; (void)params; (void)ndims; (void)shapes; (void)dtypes; (void)stream; (void)extra;
    return 5;
}

/* two outputs: params holds the inputs, then the outputs in order (a + b as float32, a > b as int32) */
int CustomSumAndGreater(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes, void *stream,
                        void *extra)
{
    (void)stream; (void)extra;
    if (nparam != 4) return 1;
    if (strcmp(dtypes[2], "float32") != 0 || strcmp(dtypes[3], "int32") != 0) return 2;
    const float *a = (const float *)params[0], *b = (const float *)params[1];
    float *sum = (float *)params[2];
    int32_t *greater = (int32_t *)params[3];
    int64_t n = 1;
    for (int i = 0; i < ndims[2]; i++) n *= shapes[2][i];
    for (int64_t i = 0; i < n; i++) {
        sum[i] = a[i] + b[i];
        greater[i] = a[i] > b[i];
    }
    return 0;
}
