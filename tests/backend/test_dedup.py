"""Identical kernels and parallel regions are emitted once (backend/c/dedup.py), and calls of a
dropped one go to the kept one: the text on hand-written C, then compiled programs whose results
are checked against NumPy."""
import re

import numpy as np

import pycompile as ms
from pycompile import nn
from pycompile.backend.c.dedup import dedup_functions

HEAD = "static const pc_api *RT;\n"

KERNELS = HEAD + """static inline __attribute__((always_inline)) void k8_tile(const float *restrict in0, float *restrict out0, const long n) {
    for (long j = 0; j < n; ++j) {
        const float v9 = (out0[j] + in0[j]);
        out0[j] = v9;
    }
}
static void k8_rows(const float *restrict in0, float *restrict out0, const long r0, const long r1) {
    for (long r = r0; r < r1; ++r) {
        k8_tile(in0, out0 + (r * 128L), 128);
    }
}
static inline __attribute__((always_inline)) void k14_tile(const float *restrict in0, float *restrict out0, const long n) {
    for (long j = 0; j < n; ++j) {
        const float v15 = (out0[j] + in0[j]);
        out0[j] = v15;
    }
}
static void k14_rows(const float *restrict in0, float *restrict out0, const long r0, const long r1) {
    for (long r = r0; r < r1; ++r) {
        k14_tile(in0, out0 + (r * 128L), 128);
    }
}
static inline __attribute__((always_inline)) void k20_tile(const float *restrict in0, float *restrict out0, const long n) {
    for (long j = 0; j < n; ++j) {
        const float v21 = (out0[j] * in0[j]);
        out0[j] = v21;
    }
}
typedef struct { float * v3; float * p0; } pc_r0_ctx;
static void pc_r0(void *pc_arg, long pc_lo, long pc_hi) {
    const pc_r0_ctx *pc_c0 = (const pc_r0_ctx *)pc_arg; (void)pc_c0;
    float *const v3 = pc_c0->v3;
    float *const p0 = pc_c0->p0;
    k8_rows(p0, v3, pc_lo, pc_hi);
}
typedef struct { float * v7; float * v5; } pc_r1_ctx;
static void pc_r1(void *pc_arg, long pc_lo, long pc_hi) {
    const pc_r1_ctx *pc_c1 = (const pc_r1_ctx *)pc_arg; (void)pc_c1;
    float *const v7 = pc_c1->v7;
    float *const v5 = pc_c1->v5;
    k14_rows(v5, v7, pc_lo, pc_hi);
}
int pc_entry(void **args) {
    { const pc_r0_ctx pc_c0 = {args[1], args[0]};
      RT->parallel_for(pc_r0, (void *)&pc_c0, (long)(4L)); }
    { const pc_r1_ctx pc_c1 = {args[2], args[1]};
      RT->parallel_for(pc_r1, (void *)&pc_c1, (long)(4L)); }
    k20_tile(args[0], args[2], 8);
    return 0;
}"""


def test_equal_kernels_then_the_regions_calling_them_are_kept_once():
    out = dedup_functions(KERNELS)
    # k14 is k8 under another name; k20 multiplies, so it stays
    assert "k14" not in out and out.count("static void k8_rows(") == 1 and "void k20_tile(" in out
    # with k14 gone, region 1 is region 0 up to its locals' names: its calls go to pc_r0
    assert "pc_r1" not in out and out.count("static void pc_r0(") == 1
    assert "{ const pc_r0_ctx pc_c1 = {args[2], args[1]};" in out
    assert "RT->parallel_for(pc_r0, (void *)&pc_c1, (long)(4L)); }" in out


def test_functions_that_differ_are_all_kept():
    src = KERNELS.replace("(out0[j] + in0[j]);\n        out0[j] = v15;", "(out0[j] - in0[j]);\n        out0[j] = v15;")
    out = dedup_functions(src)
    assert "static void k14_rows(" in out and "static void pc_r1(" in out
    assert dedup_functions("int pc_entry(void **args) { return 0; }") == "int pc_entry(void **args) { return 0; }"


class _Stack(nn.Cell):
    """Three Dense + ReLU layers of one shape over different weights: equal kernels and regions."""

    def __init__(self):
        super().__init__()
        self.layers = nn.CellList([nn.Dense(128, 128, activation="relu") for _ in range(3)])

    def construct(self, x):
        for layer in self.layers:
            x = layer(x) + x
        return x


def test_a_program_with_repeated_layers_compiles_once_per_distinct_function_and_is_right():
    x = np.random.default_rng(0).standard_normal((256, 128)).astype(np.float32)
    net = _Stack()
    run = ms.jit(lambda a: net(a))
    src = ms.inspect(run, ms.Tensor(x)).c_source
    groups = {}        # kernel or region id -> the text of its functions
    for m in re.finditer(r"^(?:typedef struct .*\n)?static[^;]*?\b(k|pc_r)(\d+)(?:_[a-z]+)?\(.*\{\n(?:.*\n)*?\}$", src, re.M):
        groups[m.group(1) + m.group(2)] = groups.get(m.group(1) + m.group(2), "") + \
            re.sub(r"\b(k|pc_r|pc_c|v|p)\d+", r"\1N", m.group(0))
    assert len(groups) == len(set(groups.values())), "two emitted kernels or regions are the same code"
    # the three layers run one region function
    assert src.count("RT->parallel_for(") >= 3 > len([g for g in groups if g.startswith("pc_r")])
    want = x
    for layer in net.layers:
        want = np.maximum(want @ layer.weight.asnumpy().T + layer.bias.asnumpy(), 0) + want
    np.testing.assert_allclose(run(ms.Tensor(x)).asnumpy(), want, rtol=1e-4, atol=1e-4)


def test_a_kernel_named_but_not_called_is_kept():
    # a function pointer to k14_rows cannot be followed by the renaming: k14 stays
    src = KERNELS.replace("    k20_tile(args[0], args[2], 8);", "    void (*f)(const float *, float *, long, long) = k14_rows; (void)f;")
    out = dedup_functions(src)
    assert "static void k14_rows(" in out and "= k14_rows;" in out
