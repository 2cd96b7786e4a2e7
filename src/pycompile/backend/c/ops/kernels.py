"""Loop templates for ops that are not elementwise: reductions, softmax / log_softmax,
LayerNorm, transpose, slicing, concat / stack, gather, and matrix products through OpenBLAS.

Each template writes C statements for one node into the function body. `x` / `out` are C
pointer expressions of the input / output storage; shapes are static, so every loop bound is a
literal. Large outer loops are split across threads (PARALLEL_FOR: the runtime's thread pool).
"""
from __future__ import annotations

import math

from pycompile.common import dtype as mstype
from pycompile.backend.c.ops import ctypes_ as C
from pycompile.backend.c.ops.shapes import collapse, strides
from pycompile.backend.c.ops.writer import CWriter
from pycompile.backend.c.ops import gemm_call
from pycompile.backend.c.ops.gemm_call import GEMM_RELU, half_gemm as _half_gemm, product as _product, transposed_rows

PARALLEL_MIN = 1 << 15
# the line that marks `for (long V = 0; V < N; ++V) {` as a loop to split across threads: the
# renderer's outline pass (backend/c/outline.py) turns each into a call of the runtime's pool
PARALLEL_FOR = "#pragma omp parallel for num_threads(nt) schedule(static)"
COLUMN_BLOCK = 64           # columns of a column reduction per unit of work (reduce): 16 units at 1024


def _prod(xs) -> int:
    return math.prod(xs) if xs else 1


def _ld(x, index: str) -> str:
    """Read element `index` (flat, in the input's shape) of a template's input: `x` is a C
    pointer, or - when elementwise producers were fused into the reduction - a function that
    returns the C expression computing that element."""
    return x(index) if callable(x) else f"{x}[{index}]"


def _ldr(x, row: str, r: str, n: int) -> str:
    """_ld at `row + r`, `row` the flat start of a contiguous row of n elements (a multiple of n)
    and 0 <= r < n: a fused producer with a `rows` form (codegen's loader) reads its broadcast
    operands by row there."""
    rows = getattr(x, "rows", None)
    return rows(row, r, n) if rows else _ld(x, row if r == "0" else f"{row} + {r}")


def _loader(x, xt):
    """A template's input reader for _ld: float16 pointers read through pc_h2f."""
    if callable(x) or xt.dtype is not mstype.float16:
        return x
    return lambda idx: C.load(x, idx, xt.dtype)


def _omp(w: CWriter, work: int, outer: int):
    if work >= PARALLEL_MIN and outer >= 2:
        w.line(PARALLEL_FOR)


def split_axes(shape, axes):
    """(A, R, B) if the axes are one contiguous run, else None."""
    axes = sorted(axes)
    if not axes:
        return _prod(shape), 1, 1
    if axes != list(range(axes[0], axes[-1] + 1)):
        return None
    return _prod(shape[:axes[0]]), _prod(shape[axes[0]:axes[-1] + 1]), _prod(shape[axes[-1] + 1:])


def acc_type(rule: str, dt: mstype.DType) -> str:
    if rule in ("all", "any"):
        return "_Bool"
    if rule in ("sum", "mean", "prod"):
        if dt.kind == "c":          # complex sums and products in their own type
            return C.compute(dt)
        if dt.kind in "biu":
            return "int64_t" if rule != "mean" else "double"
        return "double" if dt is mstype.float64 else "float"
    return C.compute(dt)


def _init(rule, at, x_first):
    return {"sum": "0", "mean": "0", "prod": "1", "all": "1", "any": "0"}.get(rule, x_first)


def _combine(rule, acc, v):
    return {
        "sum": f"{acc} += {v};", "mean": f"{acc} += {v};", "prod": f"{acc} *= {v};",
        "max": f"if ({v} > {acc} || {v} != {v}) {acc} = {v};",
        "min": f"if ({v} < {acc} || {v} != {v}) {acc} = {v};",
        "all": f"{acc} = {acc} && ({v} != 0);", "any": f"{acc} = {acc} || ({v} != 0);",
    }[rule]


def _row_loop(w: CWriter, var: str, n: int, work: int, rows):
    """`for (var ...)` over a template's rows: all n of them, split over threads when the work
    is large; or only [r0, r1) when a row-chunk driver (row_chunks) calls the template."""
    if rows is None:
        _omp(w, work, n)
        return w.block(f"for (long {var} = 0; {var} < {n}L; ++{var})")
    return w.block(f"for (long {var} = {rows[0]}; {var} < {rows[1]}; ++{var})")


SUM_BLOCK = 256
SUM_LANES = 16


def blocked_sum(w: CWriter, name: str, ct: str, n: int, body) -> str:
    """Emit a sum over `r` in [0, n): `body(acc)` gives the loop body's lines, which add to
    `acc` (and may do more). Returns the C name of the total, of type `ct`.

    A float sum is a vector loop: each lane adds every 16th element, so one lane of a 16M-element
    sum adds a million floats one after another and the result is off by up to 1e-4 (NumPy's
    pairwise sum: ~1e-8). Longer than SUM_BLOCK, the sum runs in blocks: SUM_LANES float partial
    sums add SUM_BLOCK / SUM_LANES elements each, then go into SUM_LANES double sums, with no
    horizontal reduction per block (adding each block's total instead cost 6-20 % on a row sum
    of 1024 floats; this costs nothing measurable). Rows up to SUM_BLOCK long keep the single loop."""
    return blocked_sums(w, (name,), ct, n, lambda accs: body(accs[0]))[0]


def blocked_sums(w: CWriter, names, ct: str, n: int, body) -> tuple:
    """blocked_sum of several sums in one loop: `body(accs)` adds to each of `accs` (C lvalues,
    in the order of `names`). Returns the totals' C names."""
    if ct != "float" or n <= SUM_BLOCK:
        for name in names:
            w.line(f"{ct} {name} = 0;")
        w.line(f"#pragma omp simd reduction(+:{', '.join(names)})")
        with w.block(f"for (long r = 0; r < {n}L; ++r)"):
            w.lines_(body(tuple(names)))
        return tuple(names)
    L = SUM_LANES
    # the whole-lane part is computed in C, not written as a number: a module compiled for a
    # run-time batch size (backend/dynamic.py) sees n at sample sizes where it is a multiple of L
    # and would otherwise read past the end at a batch where it is not
    whole = f"{names[0]}_m"
    w.line(f"const long {whole} = {n}L / {L}L * {L}L;")
    for name in names:
        w.line(f"double {name}_w[{L}] = {{0}};")
    with w.block(f"for (long q0 = 0; q0 < {whole}; q0 += {SUM_BLOCK}L)"):
        w.line(f"const long q1 = q0 + {SUM_BLOCK}L < {whole} ? q0 + {SUM_BLOCK}L : {whole};")
        for name in names:
            w.line(f"float {name}_p[{L}] = {{0}};")
        with w.block(f"for (long q = q0; q < q1; q += {L})"):
            w.line("#pragma omp simd")
            with w.block(f"for (int l = 0; l < {L}; ++l)"):
                w.line("const long r = q + l;")
                w.lines_(body(tuple(f"{name}_p[l]" for name in names)))
        w.line("#pragma omp simd")
        with w.block(f"for (int l = 0; l < {L}; ++l)"):
            for name in names:
                w.line(f"{name}_w[l] += {name}_p[l];")
    for name in names:
        w.line(f"float {name}_t = 0;")
    with w.block(f"for (long r = {whole}; r < {n}L; ++r)"):
        w.lines_(body(tuple(f"{name}_t" for name in names)))
    for name in names:
        w.line(f"double {name}_s = {name}_t;")
        with w.block(f"for (int l = 0; l < {L}; ++l)"):
            w.line(f"{name}_s += {name}_w[l];")
        w.line(f"const float {name} = (float){name}_s;")
    return tuple(names)


def row_chunks(w: CWriter, n_rows: int, row_len: int, work: int, body):
    """Run `body(r0, r1)` - a template over rows [r0, r1) followed by its epilogue - on chunks of
    rows: about 1024 elements (one row when rows are longer) per chunk, so the epilogue reads
    what the template just read and wrote from L1. (64 KiB chunks, L2-sized, made `x - mean(x)`
    on 2048 x 1024 floats 1.3x slower than two separate loops; one-row chunks 1.6x faster.)
    At least one chunk per thread when the work is parallel."""
    cap = max(1, 1024 // max(row_len, 1))
    par = work >= PARALLEL_MIN and n_rows >= 2
    w.line("{")
    with w.indent():
        if not par and n_rows <= cap:
            w.line(f"const long r0 = 0, r1 = {n_rows}L;")
            body("r0", "r1")
        else:
            # counts computed in C from the row count, so they follow a run-time batch size too
            w.line(f"const long nch = ({n_rows}L + {cap}L - 1) / {cap}L;")
            if par:
                w.line(f"const long chunks = nch > (long)nt ? nch : (long)nt < {n_rows}L ? (long)nt : {n_rows}L;")
                w.line(f"const long per = ({n_rows}L + chunks - 1) / chunks;")
                w.line(PARALLEL_FOR)
            else:
                w.line(f"const long chunks = nch, per = ({n_rows}L + chunks - 1) / chunks;")
            with w.block("for (long ch = 0; ch < chunks; ++ch)"):
                w.line(f"const long r0 = ch * per, r1 = r0 + per < {n_rows}L ? r0 + per : {n_rows}L;")
                w.line("if (r0 >= r1) continue;")
                body("r0", "r1")
    w.line("}")


def reduce(w: CWriter, rule: str, x: str, xt, out: str, ot, axes, rows=None):
    """out = reduce(x) over `axes` (any set; non-contiguous sets loop over all dims). `rows`:
    (r0, r1) C expressions - only those rows of a last-axis reduction (see row_chunks)."""
    shape = xt.shape
    x = _loader(x, xt)
    at = acc_type(rule, xt.dtype)
    oc = C.storage(ot.dtype)
    count = _prod([shape[a] for a in axes]) or 1
    fin = (lambda a: C.convert(f"({a} / {count})", at, oc)) if rule == "mean" else (lambda a: C.convert(a, at, oc))
    split = split_axes(shape, axes)
    # a product is taken left to right, as NumPy and MindSpore do: reordered, max * max * 0 is 0
    # instead of inf * 0 = NaN (tests/compiler/test_edge_values.py, prod_nonfinite)
    simd = {"sum": "#pragma omp simd reduction(+:acc)", "mean": "#pragma omp simd reduction(+:acc)"}.get(rule, "")
    if split is None:
        _reduce_general(w, rule, x, xt, out, ot, axes, at, fin)
        return
    A, R, B = split
    if R == 0 or _prod(shape) == 0:
        # nothing to reduce: the identity of the rule; a mean over nothing is 0 / 0 = NaN
        empty = "NAN" if rule == "mean" else _init(rule, at, "0")
        with w.block(f"for (long i = 0; i < {_prod(ot.shape)}L; ++i)"):
            w.line(f"{out}[i] = {C.convert(empty, at if rule == 'mean' else oc, oc)};")
        return
    if B == 1:
        with _row_loop(w, "a", A, A * R, rows):
            if rule in ("sum", "mean"):
                total = blocked_sum(w, "acc", at, R, lambda acc: [
                    f"const {at} v = ({at}){_ldr(x, f'a * {R}L', 'r', R)};", f"{acc} += v;"])
                w.line(f"{out}[a] = {fin(total)};")
                return
            w.line(f"{at} acc = {_init(rule, at, f'({at})' + _ldr(x, f'a * {R}L', '0', R))};")
            if rule in ("max", "min"):
                # a vector max / min, and NaN tracked beside it: NaN wins, as in NumPy
                op = ">" if rule == "max" else "<"
                w.line("int nan = 0;")
                w.line(f"#pragma omp simd reduction({rule}:acc) reduction(|:nan)")
                with w.block(f"for (long r = 0; r < {R}L; ++r)"):
                    w.line(f"const {at} v = ({at}){_ldr(x, f'a * {R}L', 'r', R)};")
                    w.line(f"acc = v {op} acc ? v : acc; nan |= v != v;")
                if xt.dtype.kind == "f":
                    # -0 and +0 tie: the first zero of the row, as MindSpore's (and the other
                    # paths') one-after-another compare keeps it; the vector lanes keep any
                    with w.block("if (acc == 0 && !nan)"):
                        with w.block(f"for (long r = 0; r < {R}L; ++r)"):
                            w.line(f"const {at} v = ({at}){_ldr(x, f'a * {R}L', 'r', R)};")
                            w.line("if (v == 0) { acc = v; break; }")
                w.line(f"{out}[a] = nan ? {fin(f'({at})NAN')} : {fin('acc')};" if xt.dtype.kind == "f"
                       else f"{out}[a] = {fin('acc')};")
            else:
                if simd:
                    w.line(simd)
                with w.block(f"for (long r = 0; r < {R}L; ++r)"):
                    w.line(f"const {at} v = ({at}){_ldr(x, f'a * {R}L', 'r', R)};")
                    w.line(_combine(rule, "acc", "v"))
                w.line(f"{out}[a] = {fin('acc')};")
        return
    assert rows is None, "row chunks need a last-axis reduction"
    # columns: a float sum adds R values per column one after another, so it adds in double; in
    # (a, COLUMN_BLOCK columns) units over the pool, each column in row order whatever the cut (the
    # same bits at any thread count; W11's bias gradients ran on one core: 2 % of its step)
    wide = "double" if at == "float" and rule in ("sum", "mean") else at
    cb = min(B, COLUMN_BLOCK)
    nblk = -(-B // cb)
    _omp(w, A * R * B, A * nblk)
    with w.block(f"for (long u = 0; u < {A * nblk}L; ++u)"):
        w.line(f"const long a = u / {nblk}L, b0 = (u % {nblk}L) * {cb}L;")
        w.line(f"const long b1 = b0 + {cb}L < {B}L ? b0 + {cb}L : {B}L;")
        w.line(f"{wide} acc[{cb}];")
        with w.block("for (long b = b0; b < b1; ++b)"):
            w.line(f"acc[b - b0] = {_init(rule, at, f'({at})' + _ld(x, f'a * {R * B}L + b'))};")
        with w.block(f"for (long r = 0; r < {R}L; ++r)"):
            with w.block("for (long b = b0; b < b1; ++b)"):
                w.line(f"const {at} v = ({at}){_ld(x, f'a * {R * B}L + r * {B}L + b')};")
                w.line(_combine(rule, "acc[b - b0]", "v"))
        with w.block("for (long b = b0; b < b1; ++b)"):
            w.line(f"{out}[a * {B}L + b] = {fin(f'({at})acc[b - b0]' if wide != at else 'acc[b - b0]')};")


def _reduce_general(w, rule, x, xt, out, ot, axes, at, fin):
    """Axes that are not one contiguous run (BatchNorm's gradients: (0, 2, 3) of NCHW). Each
    output is reduced by one thread (split over the pool when large: the same bits at any thread
    count), over the reduced axes in row-major order: runs of the trailing reduced axes, which are
    contiguous, one after another in the order of the other reduced axes. A float sum or mean
    whose runs are longer than SUM_BLOCK adds each run as blocked_sum does (16 float lanes inside
    256-element blocks, double across them) and the runs in double; every other reduction, and
    runs of one element (a kept last axis), combine one element after another (the loop before
    this one did so for all, with a division per reduced axis for each element: W10's training
    step spent 10 % of its time in three such sums per BatchNorm)."""
    shape = xt.shape
    nd = len(shape)
    axes = sorted(axes)
    kept = [d for d in range(nd) if d not in axes]
    strides = [_prod(shape[d + 1:]) for d in range(nd)]
    n_out = _prod([shape[d] for d in kept])
    n_red = _prod([shape[d] for d in axes])
    t = nd
    while t > 0 and t - 1 in axes:
        t -= 1
    run = _prod(shape[t:])                      # the trailing reduced axes: one contiguous run
    outer = [d for d in axes if d < t]
    wide = "double" if at == "float" and rule in ("sum", "mean") else at      # one add after another
    _omp(w, n_out * n_red, n_out)
    with w.block(f"for (long o = 0; o < {n_out}L; ++o)"):
        w.line("long rem = o, base = 0;")
        for d in reversed(kept):
            w.line(f"base += (rem % {shape[d]}L) * {strides[d]}L; rem /= {shape[d]}L;")
        if n_red == 0:                          # nothing to combine: the rule's zero, as before
            w.line(f"{out}[o] = {fin(f'({at})0')};")
            return
        blocked = at == "float" and rule in ("sum", "mean") and run > SUM_BLOCK
        if blocked:
            w.line("double acc = 0;")
        else:       # the first element starts the rule's combination (max / min: itself)
            w.line(f"{wide} acc = {_init(rule, at, f'({at})' + _ld(x, 'base'))};")
        with w.block(f"for (long s = 0; s < {n_red // run}L; ++s)"):
            w.line("long rr = s, off = base;")
            for d in reversed(outer):
                w.line(f"off += (rr % {shape[d]}L) * {strides[d]}L; rr /= {shape[d]}L;")
            if blocked:
                blocked_sums(w, ("rs",), "float", run, lambda accs: [f"{accs[0]} += {_ld(x, 'off + r')};"])
                w.line("acc += rs_s;")
            else:
                with w.block(f"for (long r = 0; r < {run}L; ++r)"):
                    w.line(f"const {at} v = ({at}){_ld(x, 'off + r')};")
                    w.line(_combine(rule, "acc", "v"))
        w.line(f"{out}[o] = {fin(f'({at})acc' if wide != at else 'acc')};")


def argmax(w, x, xt, out, ot, axis, rule: str = "max"):
    """The first index of the largest (rule 'min': smallest) value; a NaN wins over numbers."""
    better = ">" if rule == "max" else "<"
    shape = xt.shape
    if axis is None:
        A, R, B = 1, _prod(shape), 1
    else:
        A, R, B = _prod(shape[:axis]), shape[axis], _prod(shape[axis + 1:])
    ct = C.compute(xt.dtype)
    with w.block(f"for (long a = 0; a < {A}L; ++a)"):
        with w.block(f"for (long b = 0; b < {B}L; ++b)"):
            w.line(f"const {C.storage(xt.dtype)} *xa = {x} + a * {R * B}L + b;")
            w.line(f"{ct} best = ({ct})xa[0]; int64_t bi = 0;")
            with w.block(f"for (long r = 1; r < {R}L; ++r)"):
                w.line(f"const {ct} v = ({ct})xa[r * {B}L];")
                w.line(f"if (v {better} best || (v != v && best == best)) {{ best = v; bi = r; }}")
            w.line(f"{out}[a * {B}L + b] = bi;")


def softmax(w, x, xt, out, axis: int, log: bool, rows=None):
    shape = xt.shape
    x = _loader(x, xt)
    dt = xt.dtype
    axis %= max(len(shape), 1)
    A, R, B = _prod(shape[:axis]), shape[axis] if shape else 1, _prod(shape[axis + 1:])
    ct = C.compute(xt.dtype)
    st = C.storage(xt.dtype)
    lg = "log" if ct == "double" else "logf"

    ex = "exp" if ct == "double" else "expf"
    # below `lim`, exp(x - max) counts as 0 over the last axis: MindSpore's float32 kernel flushes
    # there (defs/reduce.py: SOFTMAX_FLUSH_F32, the eager code does the same); float64 keeps every
    # denormal (exp(-746) is 0 anyway), as MindSpore's does. Another axis, even one followed only
    # by size-1 axes (rows that are contiguous), keeps the denormals: the loop at the end.
    lim = "-746.0" if ct == "double" else "-87.0f"

    def ex_flush(v):
        # exp(v) for v = x - max <= 0, flushing results below the smallest normal number to 0
        # (see the clamp pass below); NaN still reaches exp
        # (selected by mask, the call made for every lane: pc_self / pc_seld, which vectorize
        # without AVX-512's masked calls)
        sel = "pc_seld" if ct == "double" else "pc_self"
        return f"{sel}({v} < {lim}, ({ct})0, {ex}({v} < {lim} ? {lim} : {v}))"
    if B == 1 and axis == max(len(shape), 1) - 1:
        # contiguous rows: simd loops (max; clamp; exp and sum; scale), each vectorized; these
        # passes and an exp per element are worth a thread sooner than a plain loop
        with _row_loop(w, "a", A, 4 * A * R, rows):
            w.line(f"{st} *oa = {out} + a * {R}L;")
            w.line(f"{ct} m = ({ct}){_ldr(x, f'a * {R}L', '0', R)};")
            if st == ct:
                # the row is evaluated once, into the output row, as its max is taken: a fused
                # producer (scale and a broadcast mask: attention scores) may index an operand
                # modulo its size where rows do not tile it, which GCC vectorizes only by gathers
                # (or not at all), so every later pass reads the contiguous row instead
                w.line("#pragma omp simd reduction(max:m)")
                with w.block(f"for (long r = 0; r < {R}L; ++r)"):
                    w.line(f"const {ct} v = ({ct}){_ldr(x, f'a * {R}L', 'r', R)}; oa[r] = v; m = v > m ? v : m;")
                # x - m clamped to `lim` goes through the output row first: the vector exp then
                # never sees a masked score (-1e9, -inf), which would send every such lane to
                # libm's scalar underflow path. (Clamping inside the exp loop does not work:
                # GCC rewrites exp(c ? lim : d) to c ? exp(lim) : exp(d).) Lanes at `lim`
                # become exactly 0.
                w.line("#pragma omp simd")
                with w.block(f"for (long r = 0; r < {R}L; ++r)"):
                    w.line(f"const {ct} d = oa[r] - m; oa[r] = d < {lim} ? {lim} : d;")
                blocked_sum(w, "s", ct, R, lambda s: [f"const {ct} d = oa[r], e = d <= {lim} ? ({ct})0 : {ex}(d); "
                                                      f"{s} += e;" + ("" if log else " oa[r] = e;")])
            else:
                w.line("#pragma omp simd reduction(max:m)")
                with w.block(f"for (long r = 1; r < {R}L; ++r)"):
                    w.line(f"const {ct} v = ({ct}){_ldr(x, f'a * {R}L', 'r', R)}; m = v > m ? v : m;")
                # float16 storage cannot hold x - m exactly: exp and sum in one pass
                blocked_sum(w, "s", ct, R, lambda s: [
                    f"const {ct} d = ({ct}){_ldr(x, f'a * {R}L', 'r', R)} - m, e = {ex_flush('d')}; {s} += e;"
                    + ("" if log else " " + C.store("oa", "r", "e", dt))])
            if log:
                w.line(f"const {ct} ls = {lg}(s);")
                w.line("#pragma omp simd")
                with w.block(f"for (long r = 0; r < {R}L; ++r)"):
                    w.line(C.store("oa", "r", f"({ct}){_ldr(x, f'a * {R}L', 'r', R)} - m - ls", dt))
            else:
                w.line(f"const {ct} inv = ({ct})1 / s;")
                w.line("#pragma omp simd")
                with w.block(f"for (long r = 0; r < {R}L; ++r)"):
                    w.line(C.store("oa", "r", f"({ct}){C.load('oa', 'r', dt)} * inv", dt))
        return
    assert rows is None, "row chunks need a last-axis softmax"
    _omp(w, 4 * A * R * B, A * B)
    with w.block(f"for (long ab = 0; ab < {A * B}L; ++ab)"):
        w.line(f"const long a = ab / {B}L, b = ab % {B}L;")
        w.line(f"{st} *oa = {out} + a * {R * B}L + b;")
        w.line(f"{ct} m = ({ct}){_ld(x, f'a * {R * B}L + b')};")
        with w.block(f"for (long r = 1; r < {R}L; ++r)"):
            w.line(f"const {ct} v = ({ct}){_ld(x, f'a * {R * B}L + b + r * {B}L')}; if (v > m) m = v;")
        w.line(f"{'double' if ct == 'float' else ct} s = 0;     /* one add after another: float sums add in double */")
        with w.block(f"for (long r = 0; r < {R}L; ++r)"):
            if log:
                w.line(f"const {ct} d = ({ct}){_ld(x, f'a * {R * B}L + b + r * {B}L')} - m; s += {ex}(d);")
            else:
                # over an outer axis MindSpore keeps exp's denormals: no flush
                w.line(f"const {ct} d = ({ct}){_ld(x, f'a * {R * B}L + b + r * {B}L')} - m, e = {ex}(d); "
                       f"s += e; " + C.store("oa", f"r * {B}L", "e", dt))
        if log:
            w.line(f"const {ct} ls = {lg}(({ct})s);")
            with w.block(f"for (long r = 0; r < {R}L; ++r)"):
                w.line(C.store("oa", f"r * {B}L", f"({ct}){_ld(x, f'a * {R * B}L + b + r * {B}L')} - m - ls", dt))
        else:
            w.line(f"const {ct} inv = ({ct})1 / s;")
            with w.block(f"for (long r = 0; r < {R}L; ++r)"):
                w.line(C.store("oa", f"r * {B}L", f"({ct}){C.load('oa', f'r * {B}L', dt)} * inv", dt))


def layernorm(w, x, xt, gamma, beta, gt, out, begin_norm_axis: int, epsilon: float, rows=None):
    shape = xt.shape
    x = _loader(x, xt)
    ax = begin_norm_axis % len(shape)
    n_rows, cols = _prod(shape[:ax]), _prod(shape[ax:])
    g = _prod(gt.shape)
    ct = "double" if xt.dtype is mstype.float64 else "float"
    st = C.storage(xt.dtype)
    sq = "sqrt" if ct == "double" else "sqrtf"
    gidx = "c" if g == cols else f"(row * {cols}L + c) % {g}L"
    with _row_loop(w, "row", n_rows, n_rows * cols, rows):
        w.line(f"{st} *orow = {out} + row * {cols}L;")
        total = blocked_sum(w, "sum", ct, cols, lambda acc: [f"{acc} += ({ct}){_ldr(x, f'row * {cols}L', 'r', cols)};"])
        w.line(f"{ct} mean = {total} / {cols};")
        # the corrected two-pass algorithm (Chan, Golub and LeVeque): the rounded mean is moved by
        # the mean of the deviations from it, and their square sum corrected likewise. The sum
        # of n equal values divided by n is often 1 ulp off the value (7 x sinf(1) in float32),
        # and with the 1 / sqrt(var + 1e-7) of a constant row that ulp became 3e-4 * gamma in
        # the output: MindSpore gives exactly beta (tests/ops/test_layernorm_constant_rows.py)
        dev, sq_total = blocked_sums(w, ("dev", "sq"), ct, cols, lambda accs: [
            f"const {ct} d = ({ct}){_ldr(x, f'row * {cols}L', 'r', cols)} - mean; {accs[0]} += d; {accs[1]} += d * d;"])
        w.line(f"const {ct} shift = {dev} / {cols};")
        w.line("mean += shift;")
        w.line(f"{ct} var = ({sq_total} - {dev} * shift) / {cols};")
        w.line("var = var < 0 ? 0 : var;     /* rounding; NaN stays */")
        w.line(f"const {ct} inv = ({ct})1 / {sq}(var + {C.literal(float(epsilon), ct)});")
        with w.block(f"for (long c = 0; c < {cols}L; ++c)"):
            w.line(C.store("orow", "c", f"(({ct}){_ldr(x, f'row * {cols}L', 'c', cols)} - mean) * inv * "
                       f"({ct}){C.load(gamma, gidx, gt.dtype)} + ({ct}){C.load(beta, gidx, gt.dtype)}", xt.dtype))


def transpose(w, x, xt, out, perm):
    shape = xt.shape
    nd = len(shape)
    out_shape = [shape[p] for p in perm]
    in_strides = [_prod(shape[d + 1:]) for d in range(nd)]
    # merge output dims that stay adjacent and in order in the input
    dims, strides = [], []
    for k, p in enumerate(perm):
        if dims and perm[k - 1] == p - 1:
            dims[-1] *= out_shape[k]
            strides[-1] = in_strides[p]
        else:
            dims.append(out_shape[k])
            strides.append(in_strides[p])
    total = _prod(out_shape)
    if len(dims) == 2 and strides[-1] != 1:
        # 2-D transpose: blocked for cache locality
        R, Cn = dims
        s0, s1 = strides
        _omp(w, total, R // 32 + 1)
        with w.block(f"for (long i0 = 0; i0 < {R}L; i0 += 32)"):
            with w.block(f"for (long j0 = 0; j0 < {Cn}L; j0 += 32)"):
                with w.block(f"for (long i = i0; i < i0 + 32 && i < {R}L; ++i)"):
                    with w.block(f"for (long j = j0; j < j0 + 32 && j < {Cn}L; ++j)"):
                        w.line(f"{out}[i * {Cn}L + j] = {x}[i * {s0}L + j * {s1}L];")
        return
    _omp(w, total, dims[0])
    with w.block(f"for (long o = 0; o < {_prod(dims[:-1])}L; ++o)"):
        w.line("long rem = o, off = 0;")
        for d in range(len(dims) - 2, -1, -1):
            w.line(f"off += (rem % {dims[d]}L) * {strides[d]}L; rem /= {dims[d]}L;")
        inner, s = dims[-1], strides[-1]
        with w.block(f"for (long i = 0; i < {inner}L; ++i)"):
            w.line(f"{out}[o * {inner}L + i] = {x}[off + i * {s}L];")


def strided_slice(w, x, xt, out, ot, begin, end, strides):
    shape = xt.shape
    nd = len(shape)
    in_strides = [_prod(shape[d + 1:]) for d in range(nd)]
    oshape = ot.shape
    if _prod(oshape) == 0:
        return
    base = sum(b * s for b, s in zip(begin, in_strides))
    inner = oshape[-1] if nd else 1
    contiguous = nd and strides[-1] == 1
    with w.block(f"for (long o = 0; o < {_prod(oshape[:-1])}L; ++o)"):
        w.line(f"long rem = o, off = {base}L;")
        for d in range(nd - 2, -1, -1):
            w.line(f"off += (rem % {oshape[d]}L) * {strides[d] * in_strides[d]}L; rem /= {oshape[d]}L;")
        if contiguous:
            w.line(f"memcpy({out} + o * {inner}L, {x} + off, sizeof(*{out}) * {inner}L);")
        else:
            with w.block(f"for (long i = 0; i < {inner}L; ++i)"):
                w.line(f"{out}[o * {inner}L + i] = {x}[off + i * {strides[-1] * in_strides[-1]}L];")


def broadcast(w, x, xt, out, ot):
    """out = x broadcast to out's shape (BroadcastTo, Tile): over the dims collapsed as in
    elementwise kernels, each inner row is a memcpy (the input runs along it) or a fill."""
    total = _prod(ot.shape)
    if total == 0:
        return
    full = ot.shape or (1,)
    dims, (s_in, _) = collapse(full, [strides(xt.shape, full), strides(full, full)])
    inner, outer = dims[-1], dims[:-1]
    _omp(w, total, _prod(outer))
    with w.block(f"for (long o = 0; o < {_prod(outer)}L; ++o)"):
        w.line("long rem = o, off = 0; (void)rem;")
        for d in range(len(outer) - 1, -1, -1):
            w.line((f"off += (rem % {outer[d]}L) * {s_in[d]}L; " if s_in[d] else "") + f"rem /= {outer[d]}L;")
        if s_in[-1]:
            w.line(f"memcpy({out} + o * {inner}L, {x} + off, sizeof(*{out}) * {inner}L);")
        else:
            w.line(f"const {C.storage(xt.dtype)} v = {x}[off];")
            with w.block(f"for (long i = 0; i < {inner}L; ++i)"):
                w.line(f"{out}[o * {inner}L + i] = v;")


def concat(w, xs, xts, out, ot, axis: int, stack: bool):
    """xs: C pointers of the inputs; Stack is Concat with a size-1 axis per input."""
    oshape = ot.shape
    outer = _prod(oshape[:axis])
    total_axis = _prod(oshape[axis:])
    pos = 0
    for x, t in zip(xs, xts):
        chunk = _prod(t.shape[axis:]) if not stack else _prod(t.shape[axis:])
        if chunk == 0:
            continue
        conv = C.storage(ot.dtype) != C.storage(t.dtype)
        with w.block(f"for (long o = 0; o < {outer}L; ++o)"):
            if conv:
                with w.block(f"for (long i = 0; i < {chunk}L; ++i)"):
                    w.line(f"{out}[o * {total_axis}L + {pos}L + i] = ({C.storage(ot.dtype)}){x}[o * {chunk}L + i];")
            else:
                w.line(f"memcpy({out} + o * {total_axis}L + {pos}L, {x} + o * {chunk}L, sizeof(*{out}) * {chunk}L);")
        pos += chunk


def checked_index(w, var: str, idx: str, n: int, err_code: int) -> None:
    """int64_t var = idx, negative counted from the end, out of [0, n): the error err_code."""
    w.line(f"int64_t {var} = (int64_t){idx};")
    w.line(f"if ({var} < 0) {var} += {n}L;")
    w.line(f"if ({var} < 0 || {var} >= {n}L) return PC_ERR_BASE + {err_code};")


def gather(w, x, xt, idx, it, out, axis: int, err_code: int):
    shape = xt.shape
    outer, n, inner = _prod(shape[:axis]), shape[axis], _prod(shape[axis + 1:])
    m = _prod(it.shape)
    # a scalar index is a C expression; an index tensor is a pointer, which may also be an
    # expression (a constant of more than 64 elements is `((int32_t *)args[i])`)
    scalar_idx = isinstance(idx, str) and idx.startswith("(") and len(getattr(it, "shape", ())) == 0
    with w.block(f"for (long o = 0; o < {outer}L; ++o)"):
        with w.block(f"for (long k = 0; k < {m}L; ++k)"):
            checked_index(w, "ix", idx if scalar_idx else idx + '[k]', n, err_code)
            w.line(f"memcpy({out} + (o * {m}L + k) * {inner}L, {x} + (o * {n}L + ix) * {inner}L, "
                   f"sizeof(*{out}) * {inner}L);")


def gemm(w, a, at, b, bt, out, ot, ta: bool, tb: bool, epilogue=None, addend=None, bias=None, residual=None,
         weights: int = 0):
    """out = op(a) @ op(b), batched over leading dims (with broadcasting).

    The work is split into (matrix, row chunk) units run in parallel, each a single-threaded
    BLAS call (OpenBLAS itself runs one thread: pycompile owns the cores, so BLAS and generated
    loops never oversubscribe them). `epilogue(r0, r1)` - a C call over global output rows - runs
    right after a unit's product, on rows still in that core's cache: bias, activation,
    residual and cast in one pass over the tile. `addend`: a C pointer to a tensor of out's
    shape when the epilogue is just `out = addend + product` (a gradient summed over the steps of
    a reverse loop): where BLAS runs the product, out starts as a copy of the addend and BLAS
    adds into it (beta = 1) - no zeroing pass and no second pass reading both back - and the
    epilogue is not run; elsewhere (the small-product kernel, float16) the epilogue is. `bias` (a C
    pointer to N floats added to every row) and `residual` (a C pointer to a tensor of out's shape,
    not out's memory): out = residual + (product + bias), the additions of a Dense layer and a
    residual connection taken out of the epilogue by the caller; only for a product
    small_kernel() accepts, which makes them as it stores each tile (pc_api.sgemm_ep), or after
    BLAS where the table has no kernel. `weights`: the small-product kernel's flags for op(b) when
    it is a Parameter (CodeGen.weight_flags: 2 prefetch it, 4 keep its packing), and GEMM_RELU when
    the caller took a ReLU out of the epilogue for the kernel to make (small products only)."""
    dt = ot.dtype
    ash, bsh, osh = at.shape, bt.shape, ot.shape
    M, N = osh[-2], osh[-1]
    K = ash[-2] if ta else ash[-1]
    lda, ldb = ash[-1], bsh[-1]
    batch = osh[:-2]
    nb = _prod(batch)
    a_mat, b_mat, o_mat = ash[-2] * ash[-1], bsh[-2] * bsh[-1], M * N

    def batch_off(shape, mat):
        # element offset of matrix `bi` in an operand broadcast over `batch`
        bs = (1,) * (len(batch) - len(shape[:-2])) + tuple(shape[:-2])
        terms, stride = [], mat
        parts = []
        for d in range(len(batch) - 1, -1, -1):
            parts.append((d, bs[d], stride))
            stride *= bs[d]
        for d, size, st in parts:
            if size != 1:
                sub = _prod(batch[d + 1:])
                terms.append(f"((bi / {sub}L) % {batch[d]}L) * {st}L")
        return " + ".join(terms) or "0"

    if nb == 0 or M == 0 or N == 0:
        return
    aoff, boff = batch_off(ash, a_mat), batch_off(bsh, b_mat)
    use_blas = dt in (mstype.float32, mstype.float64) and at.dtype is dt and bt.dtype is dt
    # float16 (amp's O2 / O3 models): no float16 GEMM in OpenBLAS, so each unit converts its
    # operands to float32, runs sgemm and rounds the product to float16 once - the float32
    # accumulation MindSpore's CPU kernels and NumPy's float16 matmul use, at sgemm's speed
    half = dt is mstype.float16 and at.dtype is dt and bt.dtype is dt
    fn = "scipy_cblas_dgemm" if dt is mstype.float64 else "scipy_cblas_sgemm"
    small, cols, par, transposed = product_cut(dt, at.dtype, bt.dtype, ta, tb, M, N, K, nb)
    assert (bias is None and residual is None and not weights & GEMM_RELU) or (small and K > 0 and addend is None), \
        "a bias, residual or ReLU for a product off the small kernel"
    # A transposed (a weight gradient X^T dY, K the batch): each unit's rows of op(a) copied out
    # for the small-product kernel, which beats OpenBLAS there (below, `_small_transposed`)
    small_t = (transposed and addend is None and K > 0 and bias is None and residual is None
               and not weights & GEMM_RELU)
    beta = "0.0"
    if addend is not None and use_blas and not small and K > 0:
        beta, epilogue = "1.0", None
    swap = use_blas and addend is None and gemm_call.swap_operands(small, nb, ta, tb, M, N, K, weights)
    w.line("{")
    with w.indent():
        if swap:        # x W^T as (W x^T)^T: only x packed (gemm_call.swap_operands)
            w.line(f"float *const T = pc_sgemm_nt && nt <= 4 ? (float *)malloc(sizeof(float) * {N * M}L) : 0;")
            with w.block("if (T)", "} else {"):
                gemm_call.swapped(w, fn, a, lda, b, ldb, out, M, N, K, bias, residual, bool(weights & GEMM_RELU),
                                  epilogue, PARALLEL_FOR)
            w.level += 1
        if beta != "0.0":
            w.line(f"if ((const void *)({addend}) != (const void *)({out})) "
                   f"memcpy({out}, {addend}, sizeof(*{out}) * {nb * M * N}L);")
        split_cols = use_blas and cols
        if split_cols:
            # few rows: split the columns instead, so each core packs only its share of op(b)
            # (with rows split, every core would pack all of it); the epilogue then runs by rows
            # after the products, in the same parallel region
            w.line(f"const long cw = (({N}L + nt - 1) / nt + 15L) & ~15L;")
            w.line(f"if (nt > 1 && cw < {N}L) {{")
            with w.indent():
                # two parallel loops: every column block's product, then the epilogue by rows
                w.line("const long ncb = (long)nt;")
                w.line(PARALLEL_FOR)
                with w.block("for (long u = 0; u < ncb; ++u)"):
                    w.line(f"const long c0 = u * cw, c1 = c0 + cw < {N}L ? c0 + cw : {N}L;")
                    b_cols = f"{b} + c0 * {ldb}L" if tb else f"{b} + c0"
                    with w.block("if (c0 < c1)"):
                        _product(w, fn, small, ta, tb, str(M), "(c1 - c0)", K, a, lda, b_cols, ldb, f"{out} + c0", N,
                                 beta, None if bias is None else f"{bias} + c0",
                                 None if residual is None else f"{residual} + c0", weights)
                if epilogue is not None:
                    w.line(PARALLEL_FOR)
                    with w.block("for (long u = 0; u < ncb; ++u)"):
                        w.line(f"const long r0 = u * {M}L / ncb, r1 = (u + 1) * {M}L / ncb;")
                        w.line("if (r0 < r1)")
                        w.line("    " + epilogue("r0", "r1"))
            w.line("} else {")
            w.level += 1
        # units: every matrix of the batch, each cut into row chunks when there are few matrices
        cpb0 = (f"{nb}L >= 2L * nt ? 1L : ({M}L / 16L < (long)nt ? ({M}L / 16L > 0 ? {M}L / 16L : 1L) "
                f": (long)nt)")
        # shared packing (issue 37): one matrix whose rows give fewer chunks of 16 than a team of
        # more than two threads. Each row chunk of the small kernel packs all of op(b), so finer
        # chunks would cost a packing each: op(b) is packed once, by the team, into panels every
        # unit reads (the kernel's tb & 8), and the rows are cut into nt chunks of >= 4. A
        # per-element sum is the same k-ordered chain of fused multiply-adds whatever the cut, so
        # results are bit-identical to the unsplit product; teams of 1-2 run as before.
        shared = (use_blas and small and nb == 1 and K > 0 and beta == "0.0" and bias is None and residual is None
                  and not (weights & (4 | GEMM_RELU)) and par)
        if shared:
            npan = -(-N // 64)
            w.line(f"const long cpb0 = {cpb0};")
            w.line(f"float *const pk = pc_sgemm_nt && nt > 2 && cpb0 < (long)nt && {M}L >= 8L ? "
                   f"(float *)aligned_alloc(64, sizeof(float) * {npan * K * 64}L) : 0;")
            w.line(f"const long cpb = pk ? ({M}L / 4L < (long)nt ? {M}L / 4L : (long)nt) : cpb0;")
            with w.block("if (pk)"):
                w.line("const long kq = (long)nt;")
                # (always true here: the clause tells tools/work_split.py the loop runs only with nt > 2)
                w.line(PARALLEL_FOR + " if (nt > 2 && pk)")
                with w.block(f"for (long u = 0; u < {npan}L * kq; ++u)"):
                    w.line(f"const long n0 = (u / kq) * 64L, k0 = (u % kq) * {K}L / kq, k1 = (u % kq + 1) * {K}L / kq;")
                    w.line(f"const long nw = {N}L - n0 < 64L ? {N}L - n0 : 64L;")
                    w.line(f"float *const P = pk + (n0 / 64L) * {K * 64}L;")
                    bsrc = f"({b})[(n0 + j) * {ldb}L + k]" if tb else f"({b})[k * {ldb}L + n0 + j]"
                    with w.block("for (long k = k0; k < k1; ++k)"):
                        w.line(f"for (long j = 0; j < 64L; ++j) P[k * 64L + j] = j < nw ? {bsrc} : 0.0f;")
        elif (use_blas and small and nb == 1 and K > 0 and weights & 4 and par):
            # op(b) a Parameter whose packing the kernel keeps across calls: finer row chunks cost
            # no packing, so the same cut with more than two threads, without a shared packing
            w.line(f"const long cpb0 = {cpb0};")
            w.line(f"const long cpb = pc_sgemm_nt && nt > 2 && cpb0 < (long)nt && {M}L >= 8L ? "
                   f"({M}L / 4L < (long)nt ? {M}L / 4L : (long)nt) : cpb0;")
        else:
            w.line(f"const long cpb = {cpb0};")
        w.line(f"const long rows = ({M}L + cpb - 1) / cpb;")
        if par:
            w.line(PARALLEL_FOR)
        with w.block(f"for (long u = 0; u < {nb}L * cpb; ++u)"):
            w.line("const long bi = u / cpb, r0 = (u % cpb) * rows;")
            w.line(f"const long r1 = r0 + rows < {M}L ? r0 + rows : {M}L;")
            w.line("if (r0 >= r1) continue;")
            w.line(f"const {C.storage(at.dtype)} *A = {a} + ({aoff});")
            w.line(f"const {C.storage(bt.dtype)} *B = {b} + ({boff});")
            w.line(f"{C.storage(dt)} *O = {out} + bi * {o_mat}L;")
            if K == 0:
                w.line(f"memset(O + r0 * {N}L, 0, sizeof(*O) * (r1 - r0) * {N}L);")
            elif half:
                _half_gemm(w, M, N, K, lda, ldb, a_mat, b_mat, ta, tb)
            elif small_t:
                transposed_rows(w, fn, tb, N, K, lda, ldb, weights)
            elif use_blas:
                a_rows = "A + r0" if ta else f"A + r0 * {lda}L"
                _product(w, fn, small, ta, tb, "(r1 - r0)", str(N), K, a_rows, lda, "B", ldb, f"O + r0 * {N}L", N,
                         beta, bias, None if residual is None else f"{residual} + bi * {o_mat}L + r0 * {N}L", weights,
                         packed="pk" if shared else None)
            else:
                # integers in int64; complex64 / complex128 in C99's complex arithmetic (a product
                # and a sum, as MindSpore's CPU MatMul: no conjugate)
                acc = "double" if dt is mstype.float64 else ("float" if dt.kind == "f" else
                                                             C.storage(dt) if dt.kind == "c" else "int64_t")
                ai = f"A[k * {lda}L + i]" if ta else f"A[i * {lda}L + k]"
                bj = f"B[j * {ldb}L + k]" if tb else f"B[k * {ldb}L + j]"
                with w.block("for (long i = r0; i < r1; ++i)"):
                    with w.block(f"for (long j = 0; j < {N}L; ++j)"):
                        w.line(f"{acc} s = 0;")
                        with w.block(f"for (long k = 0; k < {K}L; ++k)"):
                            w.line(f"s += ({acc}){ai} * ({acc}){bj};")
                        w.line(f"O[i * {N}L + j] = ({C.storage(dt)})s;")
            if epilogue is not None:
                w.line(epilogue(f"bi * {M}L + r0", f"bi * {M}L + r1"))
        if shared:
            w.line("free(pk);")
        if split_cols:
            w.level -= 1
            w.line("}")
        if swap:
            w.level -= 1
            w.line("}")
            w.line("free(T);")
    w.line("}")


def _small_product(dt, ta: bool, tb: bool, M: int, N: int, K: int) -> bool:
    """Whether a float32 product goes to pycompile's own AVX-512 kernel (csrc/gemm.c, in the runtime)
    before BLAS. Measured against OpenBLAS 0.3 on one core: it wins where A is read in place
    (not transposed) - W4 B=64's transposed layers (512 x 64 x 784: 538 -> 460 us), W6's
    256-row products (256 x 128 x 128: 84 -> 78 us), W4 B=1024's (1024 x 512 x 784: 8.7 -> 8.1
    ms), any B not transposed (packing it is a copy; 64 x 512 x 512: 367 -> 320 us) and, since
    a transposed B is packed by register transposes, transposed B with few rows too (64 x 64 x
    128, W6's attention scores per batch: 12.1 -> 10.0 us; 64 x 256 x 784: 290 -> 251 us; with
    the pack one float at a time these lost). Outputs 8-16 wide run on its narrow tiles (one
    vector per row: W4's last layer, 1024 x 10 x 512 with its bias: 0.30 -> 0.17 ms; 512 x 10 x
    84: 34 -> 17 us; but 64 x 10 x 512: 6 -> 10 us); other outputs under 64 wide lose (64 x 40:
    a 64-column panel is mostly waste) and fewer than 8 columns would waste most of a vector.
    The row count does not enter, so a dynamic batch (backend/dynamic.py) makes the same
    decision at every sample."""
    panels = -(-N // 64) * 64
    return (dt is mstype.float32 and not ta and (64 <= N <= 1024 and panels * 4 <= N * 5 or 8 <= N <= 16)
            and 8 <= K <= 2048)


def _small_transposed(dt, adt, bdt, ta: bool, tb: bool, M: int, N: int, K: int) -> bool:
    """Whether a float32 product with A transposed runs on the small-product kernel, which reads A
    in place (ABI 11, tb & 32: gemm_call.transposed_rows; before it, each unit's rows of op(A) were
    copied out, which lost to OpenBLAS for long sums, K > 256, so those stayed on BLAS). One core,
    AVX-512, against OpenBLAS 0.3's TN sgemm (its Haswell kernel), best of 5 x 50 calls: W6's
    weight gradients 128 x 512 x 512 279 / 552 us, 512 x 128 x 512 263 / 544, 128 x 128 x 512
    69 / 140; W5's 512 x 784 x 64 216 / 417, 512 x 512 x 64 132 / 272; W11's over 2048 positions
    1024 x 128 x 2048 3.08 / 4.65 ms, 1024 x 256 x 2048 5.78 / 8.83 ms (Dec 1); W11's training
    step (its weight gradients over 2048 positions), both forms compiled in one process, 7
    alternated rounds: 91.9 -> 80.9 ms on one thread, 50.1 -> 44.4 ms on two. Few rows (W5's
    last layer, 10 x 512 x 64: 7.4 -> 9.4-11.9 us with the copy) stay on BLAS: the kernel's 7-row
    tiles would mostly be waste. Outputs 8-16 wide read A in place on the narrow tiles (W4 B=64's
    last layer, 64 x 10 x 512 on the h^T its transposed hidden layers leave, its weight's packing
    kept: 3.0 % of the call in OpenBLAS, 1.8 % on the tiles, `perf`). (The AVX2 kernel,
    PYCOMPILE_SMALL_GEMM=avx2, declines the in-place form: there the rows are copied out as before.)"""
    return (ta and dt is mstype.float32 and adt is dt and bdt is dt and M >= 64
            and _small_product(dt, False, tb, M, N, K))


def product_cut(dt, adt, bdt, ta: bool, tb: bool, M: int, N: int, K: int, nb: int) -> tuple:
    """How gemm() cuts and runs a product, before its epilogue's own conditions: (the small-product
    kernel, columns cut when the team is larger than one, units on the pool, rows of a transposed
    A copied out for the small kernel). PyNative's products (backend/eager_products.py) run the same
    cut with run-time sizes (csrc/eager_gemm.c): OpenBLAS's sums depend on it."""
    par = 2 * nb * M * N * max(K, 1) >= PARALLEL_MIN * 8
    blas = dt in (mstype.float32, mstype.float64) and adt is dt and bdt is dt
    small = adt is dt and bdt is dt and _small_product(dt, ta, tb, M, N, K)
    return (small, blas and nb == 1 and _split_columns(M, N, K) and par, par,
            blas and not small and _small_transposed(dt, adt, bdt, ta, tb, M, N, K))


def small_kernel(at, bt, ot, ta: bool, tb: bool) -> bool:
    """Whether gemm() runs this product (operand types at, bt, result type ot) on the runtime's
    small-product kernel, which can add a bias and a residual as it stores (gemm's `bias`,
    `residual`): float32 operands of the result's dtype and a shape _small_product accepts."""
    dt = ot.dtype
    K = at.shape[-2] if ta else at.shape[-1]
    return (at.dtype is dt and bt.dtype is dt
            and _small_product(dt, ta, tb, ot.shape[-2], ot.shape[-1], K))


def _split_columns(M: int, N: int, K: int) -> bool:
    """Whether a single product runs faster split by columns than by rows. Measured with
    OpenBLAS 0.3 on 2 cores (AVX-512): columns win when there are few rows and a long inner
    dimension (64x784 @ 784x512: 294 vs 334 us; 16x512 @ 512x2048: 301 vs 447 us), rows win
    from 128 rows up or with a short inner dimension (64x128 @ 128x512: 83 vs 106 us)."""
    return M <= 64 and K >= 256 and N >= 2 * M and N >= 64


__all__ = ["reduce", "argmax", "softmax", "layernorm", "transpose", "strided_slice", "broadcast", "concat", "gather",
           "gemm", "row_chunks"]
