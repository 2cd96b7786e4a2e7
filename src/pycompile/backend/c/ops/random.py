"""C for the random ops: every element is a pure function of (key, offset, index) through the
Philox generator of csrc/pycompile_cnn.h (NumPy twin: ops/defs/random.py), so blocks of four
elements are drawn independently - in parallel for large tensors - and equal PyNative's."""
from __future__ import annotations

import math

from pycompile.backend.c.ops import ctypes_ as C
from pycompile.backend.c.ops.conv import split_elements
from pycompile.backend.c.ops.templates import template
from pycompile.backend.c.ops.writer import scope


def _prod(xs) -> int:
    return math.prod(xs) if xs else 1


def _key(ctx, n) -> tuple:
    st = ctx.ptr(n.inputs[0])
    return (f"const uint64_t key = pc_rng_key({st}, UINT64_C({int(n.attrs.get('seed', 0))})), "
            f"off = (uint64_t){st}[1];")


@template("random")
def _random(ctx, w, n):
    rule = n.op.lower.rule
    out = ctx.out(n)
    size = n.type.size
    st = C.storage(n.type.dtype)
    with scope(w):
        w.line(_key(ctx, n))
        if size == 0:
            w.line("(void)key; (void)off;")
            return
        if rule in ("uniform", "normal", "int", "bernoulli"):
            blocks = -(-size // 4)
            w.line(f"#pragma omp parallel for num_threads(nt) schedule(static) if ({split_elements(size)})")
            with w.block(f"for (long b = 0; b < {blocks}L; ++b)"):
                w.line("uint32_t wd[4]; pc_philox((uint64_t)b, off, key, wd);")
                if rule == "int" and n.attrs["high"] - n.attrs["low"] > (1 << 32):
                    w.line("uint32_t hw[4]; pc_philox((uint64_t)b, off ^ (UINT64_C(1) << 63), key, hw);")
                with w.block(f"for (int l = 0; l < 4 && b * 4 + l < {size}L; ++l)"):
                    w.line("const long i = b * 4 + l;")
                    if rule == "uniform":
                        w.line(f"{out}[i] = ({st})pc_rng_u01(wd[l]);")
                    elif rule == "normal":
                        w.line("const int p = l & ~1;")
                        w.line("const double u1 = ((double)wd[p] + 1.0) * (1.0 / 4294967296.0), "
                               "u2 = (double)wd[p + 1] * (1.0 / 4294967296.0);")
                        w.line("const double r = sqrt(-2.0 * log(u1)), t = 6.283185307179586 * u2;")
                        w.line(f"{out}[i] = ({st})((l & 1) ? r * sin(t) : r * cos(t));")
                    elif rule == "int":
                        lo, hi = int(n.attrs["low"]), int(n.attrs["high"])
                        span = hi - lo
                        if span <= (1 << 32):
                            w.line(f"{out}[i] = ({st})(INT64_C({lo}) + (int64_t)(((uint64_t)wd[l] * "
                                   f"UINT64_C({span})) >> 32));")
                        else:
                            w.line(f"{out}[i] = ({st})(INT64_C({lo}) + (int64_t)((((uint64_t)hw[l] << 32) | wd[l]) "
                                   f"% UINT64_C({span})));")
                    else:
                        p = n.inputs[1]
                        pi = "i" if p.type.size > 1 else "0"
                        prob = C.load(ctx.ptr(p), pi, p.type.dtype)      # float16: its value, not its bits
                        w.line(f"{out}[i] = ({st})(pc_rng_u01(wd[l]) < (double){prob});")
            return
        if rule == "multinomial":
            p = n.inputs[1]
            k = p.type.shape[-1]
            rows = _prod(p.type.shape[:-1])
            ns = n.attrs["num_samples"]
            repl = n.attrs.get("replacement", True)
            pp = ctx.ptr(p)
            with w.block(f"for (long r = 0; r < {rows}L; ++r)"):
                w.line(f"double wt[{k}], cum[{k}];")
                w.line(f"for (long j = 0; j < {k}L; ++j) wt[j] = (double){C.load(pp, f'r * {k}L + j', p.type.dtype)};")
                with w.block(f"for (long s = 0; s < {ns}L; ++s)"):
                    w.line("double acc = 0;")
                    w.line(f"for (long j = 0; j < {k}L; ++j) {{ acc += wt[j]; cum[j] = acc; }}")
                    w.line(f"const double t = pc_rng_u01(pc_rng_word((uint64_t)(r * {ns}L + s), off, key)) * acc;")
                    w.line(f"long c = 0; while (c < {k}L && cum[c] <= t) ++c;")
                    w.line(f"if (c > {k - 1}L) c = {k - 1}L;")
                    w.line("while (wt[c] <= 0 && c > 0) --c;")
                    w.line(f"{out}[r * {ns}L + s] = ({st})c;")
                    if not repl:
                        w.line("wt[c] = 0;")
            return
        # perm: a stable argsort of n words - (word, index) pairs sorted by both
        w.line(f"uint64_t *const pr = (uint64_t *)malloc(sizeof(uint64_t) * {size}L);")
        w.line(f"for (long i = 0; i < {size}L; ++i) pr[i] = ((uint64_t)pc_rng_word((uint64_t)i, off, key) << 32) | "
               f"(uint64_t)i;")
        w.line(f"qsort(pr, {size}L, sizeof(uint64_t), pc_u64_cmp);")
        w.line(f"for (long i = 0; i < {size}L; ++i) {out}[i] = ({st})(pr[i] & 0xFFFFFFFFu);")
        w.line("free(pr);")
