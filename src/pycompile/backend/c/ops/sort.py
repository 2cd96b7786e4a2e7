"""C loops of the scans and orderings (pycompile/ops/defs/sort.py): CumSum / CumProd, Argsort
and TopKIndices.

Scans vectorize across the axes they do not scan: with elements after the axis (B > 1) each
step of the scan is a contiguous row of B accumulators (cumsum over axis 0 of 1024 x 1024
float32: 0.43 ms, NumPy 26 ms). Over the last axis (B == 1) 4 rows are scanned together with
one scalar accumulator each: a vector across rows must read a strided cache line per row and
step, and measured in C it was 10x slower than these 4 independent scalar chains (1024 x 1024:
9.97 ms against 0.58 ms; a 16 x 64 tile transposed through a buffer: 2.4 ms).

Sorting copies each row (strided when the axis is not the last) into a contiguous buffer of
keys and indices and orders it with a stable merge sort (insertion-sorted runs of 16, then
bottom-up merges, O(n log n)) in scratch buffers each thread allocates once. TopK with k <= 16 keeps a sorted buffer of the best k instead
(one comparison per element once it is full). "Before" puts NaN after every number ascending
and before them descending, so NaN is the largest value, as in NumPy. Rows run in parallel.
"""
from __future__ import annotations

import math
from contextlib import contextmanager

from pycompile.common import dtype as mstype
from pycompile.backend.c.ops import ctypes_ as C
from pycompile.backend.c.ops.kernels import PARALLEL_MIN
from pycompile.backend.c.ops.templates import template

SCAN_ROWS = 4            # rows scanned together over the last axis
TOPK_SELECT = 16         # largest k selected with a sorted buffer instead of a full sort


def _prod(xs) -> int:
    return math.prod(xs) if xs else 1


@contextmanager
def _per_thread(w, parallel: bool, setup: list, teardown: list):
    """A region whose next `for` loop is split across threads (when `parallel`), each thread
    running `setup` (its scratch buffers) once before its share of the loop and `teardown` after."""
    w.line("{")
    with w.indent():
        if parallel:
            w.line("#pragma omp parallel num_threads(nt)")
            w.line("{")
            w.level += 1
        w.lines_(setup)
        if parallel:
            w.line("#pragma omp for schedule(static)")
        yield
        w.lines_(teardown)
        if parallel:
            w.level -= 1
            w.line("}")
    w.line("}")


def _split(shape, axis):
    return _prod(shape[:axis]), shape[axis], _prod(shape[axis + 1:])


@template("scan")
def _scan(ctx, w, n):
    x = n.inputs[0]
    xt = x.type
    if xt.size == 0:
        return
    axis = n.attrs.get("axis", 0) % max(xt.ndim, 1)
    scan(w, n.op.lower.rule, ctx.ptr(x), xt, ctx.out(n), axis, n.attrs.get("exclusive", False),
         n.attrs.get("reverse", False))


def scan(w, rule: str, x: str, xt, out: str, axis: int, exclusive: bool, reverse: bool):
    dt = xt.dtype
    A, R, B = _split(xt.shape, axis) if xt.ndim else (1, 1, 1)
    ct = C.compute(dt)
    op, ident = ("+", "0") if rule == "sum" else ("*", "1")
    first = None
    if rule == "sum" and dt.is_float:
        # the sum's identity is -0 (-0 + x is x for every x; +0 + -0 would give +0, NumPy keeps -0);
        # an exclusive scan still stores +0 first, as MindSpore and the reference do
        ident, first = "-0.0", f"(rr == 0 ? ({ct})0 : %s)" if exclusive else None
    r_of = f"({R - 1}L - rr)" if reverse else "rr"

    def step(acc: str, idx: str):
        v = f"({ct}){C.load(x, idx, dt)}"
        new = f"{acc} {op} {v}"
        if dt is mstype.float16:     # rounded to float16 at every step, as MindSpore's kernel does
            new = f"pc_h2f(pc_f2h({new}))"
        if exclusive:
            w.line(C.store(out, idx, first % acc if first else acc, dt) + f" {acc} = {new};")
        else:
            w.line(f"{acc} = {new}; " + C.store(out, idx, acc, dt))

    if B > 1:
        with _per_thread(w, A >= 2 and xt.size >= PARALLEL_MIN, [f"{ct} *acc = ({ct} *)malloc(sizeof({ct}) * {B}L);"],
                         ["free(acc);"]):
            with w.block(f"for (long a = 0; a < {A}L; ++a)"):
                with w.block(f"for (long b = 0; b < {B}L; ++b)"):
                    w.line(f"acc[b] = ({ct}){ident};")
                with w.block(f"for (long rr = 0; rr < {R}L; ++rr)"):
                    w.line(f"const long row = a * {R * B}L + {r_of} * {B}L;")
                    w.line("#pragma omp simd")
                    with w.block(f"for (long b = 0; b < {B}L; ++b)"):
                        step("acc[b]", "row + b")
        return
    # over the last axis: 4 rows at a time, one scalar accumulator each (4 independent chains;
    # a vector across 16 rows of a long axis reads 16 strided lines per step: 10x slower in C)
    groups = -(-A // SCAN_ROWS)
    if groups >= 2 and xt.size >= PARALLEL_MIN:
        w.line("#pragma omp parallel for num_threads(nt) schedule(static)")
    with w.block(f"for (long g = 0; g < {groups}L; ++g)"):
        w.line(f"const long a0 = g * {SCAN_ROWS}L, m = {A}L - a0 < {SCAN_ROWS}L ? {A}L - a0 : {SCAN_ROWS}L;")
        with w.block("if (m == %dL)" % SCAN_ROWS):
            names = [f"c{i}" for i in range(SCAN_ROWS)]
            w.line(f"{ct} " + ", ".join(f"{c} = ({ct}){ident}" for c in names) + ";")
            with w.block(f"for (long rr = 0; rr < {R}L; ++rr)"):
                w.line(f"const long r = {r_of};")
                for i, c in enumerate(names):
                    step(c, f"(a0 + {i}) * {R}L + r")
        with w.block("else"):
            with w.block("for (long i = 0; i < m; ++i)"):
                w.line(f"{ct} c = ({ct}){ident};")
                with w.block(f"for (long rr = 0; rr < {R}L; ++rr)"):
                    w.line(f"const long r = {r_of};")
                    step("c", f"(a0 + i) * {R}L + r")


def _before(ct: str, descending: bool):
    """C expression builder: a comes before b (stable merges take the right run's element only
    when it comes strictly before). NaN is the largest value."""
    if descending:
        return lambda a, b: f"({a} > {b} || ({a} != {a} && {b} == {b}))"
    return lambda a, b: f"({a} < {b} || ({b} != {b} && {a} == {a}))"


@template("sort")
def _sort(ctx, w, n):
    """Argsort (all n indices) and TopKIndices (rule 'topk': the first k)."""
    x = n.inputs[0]
    xt = x.type
    out = ctx.out(n)
    if xt.size == 0:
        return
    if xt.ndim == 0:
        w.line(f"{out}[0] = 0;")
        return
    axis = n.attrs.get("axis", -1) % xt.ndim
    topk = n.op.lower.rule == "topk"
    descending = n.attrs.get("largest", True) if topk else n.attrs.get("descending", False)
    k = n.attrs["k"] if topk else xt.shape[axis]
    sort_rows(w, ctx.ptr(x), xt, out, axis, descending, k, select=topk and k <= TOPK_SELECT)


def sort_rows(w, x: str, xt, out: str, axis: int, descending: bool, k: int, select: bool):
    dt = xt.dtype
    A, R, B = _split(xt.shape, axis)
    ct = C.compute(dt)
    bef = _before(ct, descending)
    rows = A * B
    parallel = rows >= 2 and xt.size * max(1, R.bit_length()) >= PARALLEL_MIN
    setup = [] if select else [f"{ct} *const kbuf = ({ct} *)malloc(sizeof({ct}) * {2 * R}L);",
                               f"int32_t *const ibuf = (int32_t *)malloc(sizeof(int32_t) * {2 * R}L);"]
    with _per_thread(w, parallel, setup, [] if select else ["free(kbuf); free(ibuf);"]):
        with w.block(f"for (long ab = 0; ab < {rows}L; ++ab)"):
            w.line(f"const long a = ab / {B}L, b = ab % {B}L, base = a * {R * B}L + b, obase = a * {k * B}L + b;")
            if select:
                _select_top(w, x, dt, ct, out, R, B, k, bef)
            else:
                _merge_sort(w, x, dt, ct, out, R, B, k, bef)


def _select_top(w, x, dt, ct, out, R, B, k, bef):
    w.line(f"{ct} tk[{k}]; int32_t ti[{k}]; long cnt = 0;")
    with w.block(f"for (long i = 0; i < {R}L; ++i)"):
        w.line(f"const {ct} v = ({ct}){C.load(x, f'base + i * {B}L', dt)};")
        w.line("long p;")
        w.line(f"if (cnt < {k}L) p = cnt++;")
        w.line(f"else if ({bef('v', f'tk[{k - 1}]')}) p = {k - 1}L;")
        w.line("else continue;")
        w.line(f"while (p > 0 && {bef('v', 'tk[p - 1]')}) {{ tk[p] = tk[p - 1]; ti[p] = ti[p - 1]; --p; }}")
        w.line("tk[p] = v; ti[p] = (int32_t)i;")
    with w.block(f"for (long j = 0; j < {k}L; ++j)"):
        w.line(f"{out}[obase + j * {B}L] = ti[j];")


def _merge_sort(w, x, dt, ct, out, R, B, k, bef):
    w.line(f"{ct} *ka = kbuf, *kb = kbuf + {R}L;")
    w.line(f"int32_t *ia = ibuf, *ib = ibuf + {R}L;")
    with w.block(f"for (long i = 0; i < {R}L; ++i)"):
        w.line(f"ka[i] = ({ct}){C.load(x, f'base + i * {B}L', dt)}; ia[i] = (int32_t)i;")
    # insertion-sorted runs of 16
    with w.block(f"for (long s = 0; s < {R}L; s += 16)"):
        w.line(f"const long e = s + 16 < {R}L ? s + 16 : {R}L;")
        with w.block("for (long i = s + 1; i < e; ++i)"):
            w.line(f"const {ct} v = ka[i]; const int32_t vi = ia[i]; long j = i;")
            w.line(f"while (j > s && {bef('v', 'ka[j - 1]')}) {{ ka[j] = ka[j - 1]; ia[j] = ia[j - 1]; --j; }}")
            w.line("ka[j] = v; ia[j] = vi;")
    # bottom-up merges, ping-ponging between the two halves of each buffer
    with w.block(f"for (long width = 16; width < {R}L; width *= 2)"):
        with w.block(f"for (long lo = 0; lo < {R}L; lo += 2 * width)"):
            w.line(f"const long mid = lo + width < {R}L ? lo + width : {R}L;")
            w.line(f"const long hi = lo + 2 * width < {R}L ? lo + 2 * width : {R}L;")
            w.line("long i = lo, j = mid, t = lo;")
            with w.block("while (i < mid && j < hi)"):
                w.line(f"if ({bef('ka[j]', 'ka[i]')}) {{ kb[t] = ka[j]; ib[t++] = ia[j++]; }}")
                w.line("else { kb[t] = ka[i]; ib[t++] = ia[i++]; }")
            w.line("while (i < mid) { kb[t] = ka[i]; ib[t++] = ia[i++]; }")
            w.line("while (j < hi) { kb[t] = ka[j]; ib[t++] = ia[j++]; }")
        w.line(f"{{ {ct} *tk = ka; ka = kb; kb = tk; int32_t *tx = ia; ia = ib; ib = tx; }}")
    with w.block(f"for (long j = 0; j < {k}L; ++j)"):
        w.line(f"{out}[obase + j * {B}L] = ia[j];")


@template("cum_min_max")
def _cum_min_max(ctx, w, n):
    """Cummax / Cummin along one axis, one (a, b) line at a time: the index moves to a new element
    equal to the running value (the last of ties) and to every NaN; a NaN value stays."""
    x = n.inputs[0]
    xt = x.type
    if xt.size == 0:
        return
    axis = n.attrs.get("axis", 0) % max(xt.ndim, 1)
    A, R, B = _split(xt.shape, axis) if xt.ndim else (1, 1, 1)
    dt, ct = xt.dtype, C.compute(xt.dtype)
    cmp = ">=" if n.attrs.get("rule", "max") == "max" else "<="
    values = n.attrs.get("part", "values") == "values"
    xp, out = ctx.ptr(x), ctx.out(n)
    with w.block(f"for (long a = 0; a < {A}L; ++a)"):
        with w.block(f"for (long b = 0; b < {B}L; ++b)"):
            w.line(f"const long base = a * {R * B}L + b;")
            w.line(f"{ct} acc = {C.load(xp, 'base', dt)}; long at = 0;")
            with w.block(f"for (long r = 0; r < {R}L; ++r)"):
                w.line(f"const {ct} v = {C.load(xp, f'base + r * {B}L', dt)};")
                take = f"(v != v) || (acc == acc && v {cmp} acc)" if dt.is_float else f"v {cmp} acc"
                w.line(f"if ({take}) {{ acc = v; at = r; }}")
                w.line(C.store(out, f"base + r * {B}L", "acc", dt) if values else f"{out}[base + r * {B}L] = at;")
