"""C loops of the indexed reads and writes (pycompile/ops/defs/index.py): GatherD, GatherNd,
TensorScatterUpdate, TensorScatterCombine (the arithmetic scatters' core row), TensorScatterElements.

Shapes are static, so every stride is a literal. Gathers run their rows in parallel when the
work is large; an index out of range sets a flag the threads OR together, and the kernel
returns MindSpore's error after the loop (a `return` cannot leave an OpenMP loop). Scatters
write in index order on one thread: with a repeated index the last update wins (or they
accumulate), exactly as the eager implementation does. Each GatherNd / scatter row is a
contiguous block (a memcpy, or one vectorizable loop for an add).

A runtime error message starts with the exception class MindSpore raises ("RuntimeError: ..."),
which the executable raises (pycompile/backend/executable.py).
"""
from __future__ import annotations

import math

from pycompile.backend.c.ops import ctypes_ as C
from pycompile.backend.c.ops.kernels import PARALLEL_FOR, PARALLEL_MIN
from pycompile.backend.c.ops.templates import template
from pycompile.ops.defs.index import RANGE_ERROR, combine_range_message
from pycompile.backend.errinfo import ERRINFO_POSITION, ERRINFO_SLOTS, ERRINFO_VALUES


def _prod(xs) -> int:
    return math.prod(xs) if xs else 1


def _strides(shape) -> list:
    return [_prod(shape[d + 1:]) for d in range(len(shape))]


def _error(ctx, n, op_name: str, what: str) -> int:
    loc = f" (at {n.loc})" if n.loc else ""
    cls = RANGE_ERROR.get(op_name, RuntimeError).__name__
    return ctx.runtime_error(f"{cls}: For '{op_name}', {what}{loc}")


def _row_offset(w, shape, x_strides, skip: int):
    """`off`: the input offset of output row `o` (all but the last dimension of `shape`),
    leaving out dimension `skip` (the indexed axis)."""
    w.line("long rem = o, off = 0; (void)rem;")
    for d in range(len(shape) - 2, -1, -1):
        step = f"off += (rem % {shape[d]}L) * {x_strides[d]}L; " if d != skip else ""
        w.line(f"{step}rem /= {shape[d]}L;")


@template("gather_d")
def _gather_d(ctx, w, n):
    out = ctx.out(n)
    x, idx = n.inputs
    xt, it = x.type, idx.type
    if it.size == 0:
        return
    xp, ip = ctx.ptr(x), ctx.ptr(idx)
    if xt.ndim == 0:
        w.line(f"{out}[0] = {xp}[0];")
        return
    axis = n.attrs.get("axis", 0) % xt.ndim
    size = xt.shape[axis]
    code = _error(ctx, n, "GatherD", f"the value of 'index' must be in [{-size}, {size})")
    shape, xs = it.shape, _strides(xt.shape)
    inner, rows = shape[-1], _prod(shape[:-1])
    last = axis == len(shape) - 1
    w.line("{")
    with w.indent():
        w.line("int bad = 0;")
        if it.size >= PARALLEL_MIN and rows >= 2:
            w.line("#pragma omp parallel for num_threads(nt) schedule(static) reduction(|:bad)")
        with w.block(f"for (long o = 0; o < {rows}L; ++o)"):
            _row_offset(w, shape, xs, axis)
            with w.block(f"for (long j = 0; j < {inner}L; ++j)"):
                w.line(f"int64_t ix = (int64_t){ip}[o * {inner}L + j];")
                w.line(f"if (ix < 0) ix += {size}L;")
                w.line(f"if (ix < 0 || ix >= {size}L) {{ bad = 1; continue; }}")
                src = "off + ix" if last else f"off + j + ix * {xs[axis]}L"
                w.line(f"{out}[o * {inner}L + j] = {xp}[{src}];")
        w.line(f"if (bad) return PC_ERR_BASE + {code};")
    w.line("}")


def _nd_offset(w, ip: str, dims, row: str, err: str):
    """`off`: the row number an index tuple of `len(dims)` entries addresses; `err` when out of
    range (the Nd family refuses negative indices)."""
    w.line("long off = 0;")
    for j, d in enumerate(dims):
        w.line(f"{{ const int64_t v = (int64_t){ip}[{row} * {len(dims)}L + {j}L]; "
               f"if (v < 0 || v >= {d}L) {err} off = off * {d}L + v; }}")


@template("gather_nd")
def _gather_nd(ctx, w, n):
    out = ctx.out(n)
    x, idx = n.inputs
    xt, it = x.type, idx.type
    m = it.shape[-1]
    rows, inner = _prod(it.shape[:-1]), _prod(xt.shape[m:])
    if rows == 0 or inner == 0:
        return
    code = _error(ctx, n, "GatherNd", f"an index does not index into the input of shape {list(xt.shape)}")
    xp, ip = ctx.ptr(x), ctx.ptr(idx)
    w.line("{")
    with w.indent():
        w.line("int bad = 0;")
        if rows * inner >= PARALLEL_MIN and rows >= 2:
            w.line("#pragma omp parallel for num_threads(nt) schedule(static) reduction(|:bad)")
        with w.block(f"for (long o = 0; o < {rows}L; ++o)"):
            _nd_offset(w, ip, xt.shape[:m], "o", "{ bad = 1; continue; }")
            w.line(f"memcpy({out} + o * {inner}L, {xp} + off * {inner}L, sizeof(*{out}) * {inner}L);")
        w.line(f"if (bad) return PC_ERR_BASE + {code};")
    w.line("}")


def _copy_input(w, out: str, xp: str, t) -> None:
    if t.nbytes:
        w.line(f"if ((const void *){out} != (const void *){xp}) memcpy({out}, {xp}, {t.nbytes});")


def _accumulate(dst: str, di: str, src: str, si: str, dt) -> str:
    """dst[di] += src[si] in the compute type (float16 through its bit conversions)."""
    return C.store(dst, di, f"{C.load(dst, di, dt)} + {C.load(src, si, dt)}", dt)


def _combine(rule: str, a: str, b: str, dt) -> str:
    """The C expression of a scatter rule on a row element `a` and its update `b` (compute type,
    both plain variables). Integer division is MindSpore's CPU one: truncated; by zero, the dtype's
    largest value for a positive dividend, its smallest for a negative one, 0 for 0; MIN / -1
    wraps instead of trapping."""
    if rule == "div" and dt.kind in "iu":
        ct, bits = C.storage(dt), dt.itemsize * 8
        if dt.kind == "u":
            return f"({b} == 0 ? ({a} > 0 ? UINT{bits}_MAX : 0) : ({ct})({a} / {b}))"
        return (f"({b} == 0 ? ({a} > 0 ? INT{bits}_MAX : ({a} < 0 ? INT{bits}_MIN : 0)) : "
                f"({b} == ({ct})-1 ? ({ct})(0u - (uint{bits}_t){a}) : ({ct})({a} / {b})))")
    return {"add": f"{a} + {b}", "sub": f"{a} - {b}", "mul": f"{a} * {b}", "div": f"{a} / {b}",
            "max": f"({a} < {b} ? {b} : {a})", "min": f"({b} < {a} ? {b} : {a})"}[rule]


@template("scatter_nd")
def _scatter_nd(ctx, w, n):
    """TensorScatterUpdate (rule '') and TensorScatterCombine (its `combine` attribute: add / sub /
    mul / div / max / min; its out-of-range error names `op_name`, the row the user called)."""
    out = ctx.out(n)
    x, idx, upd = n.inputs
    xt, it = x.type, idx.type
    rule = n.attrs.get("combine", n.op.lower.rule)
    xp, ip, up = ctx.ptr(x), ctx.ptr(idx), ctx.ptr(upd)
    _copy_input(w, out, xp, xt)
    m = it.shape[-1]
    rows, inner = _prod(it.shape[:-1]), _prod(xt.shape[m:])
    if rows == 0 or inner == 0:
        return
    op_name = n.attrs.get("op_name", n.op.name)
    if rule:
        # MindSpore's wording, with the offending tuple: the C leaves its position and values in
        # the module's error slots (PC_ERRINFO: count, then values) and the message is built in
        # Python from them (backend/executable.py); no user value goes into the C
        loc = f" (at {n.loc})" if n.loc else ""
        text = combine_range_message(op_name, 0, [], xt.shape[:m]).replace("0-th", ERRINFO_POSITION, 1)
        code = ctx.runtime_error(f"RuntimeError: {text.replace('[]', ERRINFO_VALUES, 1)}{loc}")
        keep = min(m, ERRINFO_SLOTS - 2)
        err = (f"{{ PC_ERRINFO[0] = o * {m}L; PC_ERRINFO[1] = {keep}; for (int q = 0; q < {keep}; ++q) "
               f"PC_ERRINFO[2 + q] = (int64_t){ip}[o * {m}L + q]; return PC_ERR_BASE + {code}; }}")
    else:
        code = _error(ctx, n, op_name, f"an index is out of range for the input of shape {list(xt.shape)}")
        err = f"return PC_ERR_BASE + {code};"
    ct = C.compute(xt.dtype)

    def combine_at(di: str, si: str) -> None:
        w.line(f"const {ct} a = {C.load(out, di, xt.dtype)}, b = {C.load(up, si, xt.dtype)};")
        w.line(C.store(out, di, _combine(rule, "a", "b", xt.dtype), xt.dtype))
    if rule and rows == 1 and inner >= PARALLEL_MIN:
        # one row combined (a reverse loop's cotangent of the row its step gathered: 32768
        # elements a step in W11): its elements in chunks over the pool, each element combined once
        chunk = 4096
        w.line("{")
        with w.indent():
            w.line("const long o = 0;")
            _nd_offset(w, ip, xt.shape[:m], "o", err)
            w.line(PARALLEL_FOR)
            with w.block(f"for (long u = 0; u < {-(-inner // chunk)}L; ++u)"):
                w.line(f"const long k1 = u * {chunk}L + {chunk}L < {inner}L ? u * {chunk}L + {chunk}L : {inner}L;")
                with w.block(f"for (long k = u * {chunk}L; k < k1; ++k)"):
                    combine_at(f"off * {inner}L + k", "k")
        w.line("}")
        return
    with w.block(f"for (long o = 0; o < {rows}L; ++o)"):
        _nd_offset(w, ip, xt.shape[:m], "o", err)
        if rule:
            with w.block(f"for (long k = 0; k < {inner}L; ++k)"):
                combine_at(f"off * {inner}L + k", f"o * {inner}L + k")
        else:
            w.line(f"memcpy({out} + off * {inner}L, {up} + o * {inner}L, sizeof(*{out}) * {inner}L);")


@template("scatter_elements")
def _scatter_elements(ctx, w, n):
    out = ctx.out(n)
    x, idx, upd = n.inputs
    xt, it = x.type, idx.type
    add = n.attrs.get("reduction", "none") == "add"
    xp, ip, up = ctx.ptr(x), ctx.ptr(idx), ctx.ptr(upd)
    _copy_input(w, out, xp, xt)
    if it.size == 0:
        return
    if xt.ndim == 0:
        w.line(_accumulate(out, "0", up, "0", xt.dtype) if add else f"{out}[0] = {up}[0];")
        return
    axis = n.attrs.get("axis", 0) % xt.ndim
    size = xt.shape[axis]
    shape, xs = it.shape, _strides(xt.shape)
    inner, rows = shape[-1], _prod(shape[:-1])
    last = axis == len(shape) - 1
    with w.block(f"for (long o = 0; o < {rows}L; ++o)"):
        _row_offset(w, shape, xs, axis)
        with w.block(f"for (long j = 0; j < {inner}L; ++j)"):
            w.line(f"int64_t ix = (int64_t){ip}[o * {inner}L + j];")
            w.line(f"if (ix < 0) ix += {size}L;")
            w.line(f"if (ix < 0 || ix >= {size}L) continue;      /* skipped, as MindSpore does */")
            dst = "off + ix" if last else f"off + j + ix * {xs[axis]}L"
            src = f"o * {inner}L + j"
            w.line(_accumulate(out, dst, up, src, xt.dtype) if add else f"{out}[{dst}] = {up}[{src}];")

