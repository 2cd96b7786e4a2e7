"""Fused elementwise kernels.

A kernel computes a group of elementwise nodes (a `Fused` node's block, or one lone node) over
one output shape. The output shape is collapsed to (outer..., inner) using each input's
broadcast strides; the inner dimension is cut into tiles of TILE elements. Each tile runs a
`static inline` tile function whose loops have the constant trip count TILE for every full
tile, so the C compiler unrolls and vectorizes them; the last partial tile calls the same
function with a variable count. Tiles are split across threads when there are enough of them.

Inside a tile, consecutive elementwise nodes form one loop over the tile's elements with
every intermediate in a register. A `For` node inside the group (an elementwise loop such as
`out = t + out` repeated 200 times) runs over tile arrays: its carried values stay in TILE-wide
arrays the compiler keeps in vector registers, and the loop over iterations sits outside the
loop over elements - the loop order that makes a dependent chain of adds run at full width.
"""
from __future__ import annotations

from dataclasses import dataclass

from pycompile.backend.c.naming import nid
from pycompile.common import dtype as mstype
from pycompile.common.abstract import ScalarType, TensorType
from pycompile.compiler import ir
from pycompile.compiler.passes.fusion import epilogue_strides
from pycompile.ops._table import OpDef
from pycompile.backend.c.ops import ctypes_ as C
from pycompile.backend.c.ops import kernels as K
from pycompile.backend.c.ops.shapes import KEEP_LEADING
from pycompile.backend.c.ops.elementwise import expr as c_expr
from pycompile.backend.c.ops.shapes import collapse
from pycompile.backend.c.ops.shapes import strides as _strides
from pycompile.backend.c.ops.writer import CWriter

TILE = 256                 # elements per tile for straight-line kernels
# a kernel's driver and row function are compiled once, never copied into their callers: a model
# that repeats a layer calls one kernel from many places (backend/c/dedup.py), and GCC -O3 inlined
# and re-optimized it at each (W3's 100 rows: two thirds of the C compile). A call costs
# nanoseconds; the work inside (the tile function, always inlined into them) is unchanged.
NOINLINE = "__attribute__((noinline)) "
LOOP_TILE_BYTES = 256      # bytes per carried array in tiles that hold a loop (4 AVX-512 registers)
PARALLEL_MIN = 1 << 15     # elements (times their _cost) before a kernel is split across threads
TRANSCENDENTAL_COST = 3    # a transcendental op's work per element in plain ops (KernelEmitter._cost)


# the 16-bit float types, stored in their own bits and computed in float: how a fused loop reads
# their pointers, and the rounding a float value takes to be one of theirs
_HALF_PTR = {mstype.float16: "hptr", mstype.bfloat16: "bptr"}
_ROUND = {mstype.float16: "pc_round_h", mstype.bfloat16: "pc_round_bf"}


@dataclass
class KInput:
    value: object            # IR value (tensor or scalar)
    cexpr: str               # C expression of its pointer (tensors) or value (scalars)
    # a view's element strides, one per dimension of its shape (views.strided_view), the
    # last 1; None: contiguous. Only the tiled kernel (emit) reads through strides
    strides: tuple | None = None


def input_strides(inp: KInput, full) -> list:
    """Element strides of a kernel input over the kernel's shape `full` (0 where broadcast): its
    own contiguous layout, or a view's strides."""
    t = inp.value.type
    if inp.strides is None:
        return _strides(t.shape, full)
    nd = len(full)
    shape = (1,) * (nd - len(t.shape)) + tuple(t.shape)
    given = (0,) * (nd - len(t.shape)) + tuple(inp.strides)
    out, acc = [0] * nd, 1
    for d in range(nd - 1, -1, -1):
        if shape[d] == 1:
            # a dimension of 1: broadcast (0), or any stride - the one that lets collapse merge it
            out[d] = 0 if full[d] != 1 else acc
        else:
            out[d] = given[d]
        acc = out[d] * shape[d] if out[d] else acc
    return out


class KernelEmitter:
    """Emits one elementwise kernel: a tile function and a driver function."""

    def __init__(self, name: str, shape: tuple, block: ir.Block, inputs: list, outputs: list, out_ptrs: list,
                 float_status: bool = False, inplace: dict | None = None):
        self.float_status = float_status      # record overflow / NaN into the status register
        # {input index: output index}: that input is read through the output's pointer (the
        # kernel runs in place); passing one buffer twice would defeat `restrict`
        self.inplace = inplace or {}
        self.name = name
        self.shape = tuple(shape)
        self.block = block               # params correspond to inputs
        self.inputs = inputs             # KInput per block param
        self.outputs = outputs           # IR values (block results) to store
        self.out_ptrs = out_ptrs         # C pointer expressions of the outputs
        self.tmp = 0

    # ---- public -------------------------------------------------------------------------------------
    def emit(self, defs: CWriter) -> str:
        """Writes the kernel's functions into `defs`; returns the call statement."""
        full = self.shape if self.shape else (1,)
        tensor_in = [k for k, i in enumerate(self.inputs) if isinstance(i.value.type, TensorType)]
        stride_lists = [input_strides(self.inputs[k], full) for k in tensor_in]
        stride_lists += [_strides(full, full) for _ in self.outputs]
        dims, strides = collapse(full, stride_lists)
        if KEEP_LEADING[0] and len(dims) == 1 and dims[0] > 1:
            # a run-time batch size (backend/dynamic.py): a 1-D kernel (one value per sample) loops
            # over samples, one element each, so no tile count divides the batch size
            dims = [dims[0], 1]
            strides = [[st[0], 1 if st[0] else 0] for st in strides]
        in_strides = dict(zip(tensor_in, strides[:len(tensor_in)]))
        inner = dims[-1]
        outer = dims[:-1]
        total = 1
        for d in dims:
            total *= d
        has_loop = any(n.op is ir.FOR for n in self.block.nodes)
        tile = TILE
        if has_loop:
            widest = max([_itemsize(v.type) for v in self.outputs] + [4])
            tile = max(LOOP_TILE_BYTES // widest, 8)
        tile = min(tile, _pow2_ceil(inner))
        self.tile = tile
        self._emit_tile_fn(defs, in_strides)
        self._emit_driver(defs, dims, in_strides, tile, total)
        args = [i.cexpr for k, i in enumerate(self.inputs) if k not in self.inplace] + list(self.out_ptrs) + ["nt"]
        return f"{self.name}({', '.join(args)});"

    def emit_point(self, defs: CWriter, row_len: int | None = None, suffix: str = "row") -> str | None:
        """A reduction prologue: `name_at(inputs..., i)` returns the block's result at flat index i
        of `shape` (inputs broadcast by index arithmetic). Inlined into the reduction's loops,
        which stay vectorizable. With `row_len`, `name_<suffix>(inputs..., i0, r)` instead: the
        value at i0 + r for a row start i0 (a multiple of row_len) and 0 <= r < row_len - what a
        template walking rows calls, so that an input broadcast over whole rows (an attention
        mask over the batch) is read at (i0 % P) + r, contiguously, not gathered at (i % P); None
        (nothing written) when no input is read differently from the flat form. Returns the
        function's name."""
        self._contiguous_inputs()
        target = self.outputs[0]
        full = self.shape if self.shape else (1,)
        offsets, by_row = [], False
        for inp in self.inputs:
            t = inp.value.type
            if isinstance(t, ScalarType):
                offsets.append(None)
                continue
            dims, (strides, _) = collapse(full, [_strides(t.shape, full), _strides(full, full)])
            terms, inner = [], 1
            for d in range(len(dims) - 1, -1, -1):
                if strides[d]:
                    if row_len and inner > 1 and inner % row_len == 0:
                        i = "i0"                # i / inner is i0's when rows tile inner
                    else:
                        i = "(i0 + r)" if row_len else "i"
                    if row_len and inner == 1 and d > 0 and dims[d] % row_len == 0:
                        idx = f"((i0 % {dims[d]}L) + r)"      # (i0 + r) % D = i0 % D + r when rows tile D
                    else:
                        idx = i if inner == 1 and d == 0 else (f"({i} / {inner}L)" if d == 0 else
                                                               f"(({i} / {inner}L) % {dims[d]}L)" if inner > 1
                                                               else f"({i} % {dims[d]}L)")
                    by_row = by_row or (row_len is not None and "(i0 + r)" not in idx)
                    terms.append(idx if strides[d] == 1 else f"{idx} * {strides[d]}L")
                inner *= dims[d]
            offsets.append(" + ".join(terms) or "0")
        if row_len and not by_row:
            return None
        ct = C.value_ctype(target.type)
        params = self._params(False)[:len([k for k in range(len(self.inputs)) if k not in self.inplace])]
        params += ["const long i0", "const long r"] if row_len else ["const long i"]
        fname = f"{self.name}_{suffix}" if row_len else f"{self.name}_at"
        defs.line(f"static inline __attribute__((always_inline)) {ct} {fname}({', '.join(params)})")
        with defs.block(""):
            env = {}
            for k, (prm, inp, offset) in enumerate(zip(self.block.params, self.inputs, offsets)):
                t = inp.value.type
                if offset is None:
                    env[id(prm)] = ("scalar", f"in{k}", C.scalar_ctype(t))
                    continue
                env[id(prm)] = ("scalar", f"(({C.compute(t.dtype)}){C.load(f'in{k}', offset, t.dtype)})",
                                C.compute(t.dtype))
            for m in self.block.nodes:
                w_ct = C.value_ctype(m.type)
                defs.line(f"const {w_ct} v{nid(m)} = {self._member_expr(m, env)};")
                env[id(m)] = ("scalar", f"v{nid(m)}", w_ct)
            defs.line(f"return {self._read(env, target)};")
        return fname

    def emit_rows(self, defs: CWriter) -> str:
        """A GEMM epilogue: `name_rows(ptrs..., r0, r1)` computes rows [r0, r1) of an output
        viewed as (rows, N). Each input is full-size, the same for every row, or one value per
        row (see fusion.epilogue_pattern). Returns the function's name."""
        self._contiguous_inputs()
        shape = self.shape
        n = shape[-1] if shape else 1
        rows = 1
        for d in shape[:-1]:
            rows *= d
        in_strides, periods = {}, {}
        for k, i in enumerate(self.inputs):
            t = i.value.type
            if not isinstance(t, TensorType) or k in self.inplace:
                continue
            row_stride, inner, period = epilogue_strides(t.shape, shape)
            in_strides[k] = [row_stride, inner]
            periods[k] = period
        # one call per row over the whole row: an epilogue holds no tile arrays, and a short
        # loop over tiles would be unrolled by GCC into consecutive inner loops it then refuses
        # to vectorize
        self.tile = n
        self._emit_tile_fn(defs, in_strides)
        params = self._params(False) + ["const long r0", "const long r1"]
        defs.line(f"static {NOINLINE}void {self.name}_rows({', '.join(params)})")
        with defs.block(""):
            with defs.block("for (long r = r0; r < r1; ++r)"):
                base = {k: ((f"r * {rs}L" if periods[k] >= rows else f"(r % {periods[k]}L) * {rs}L") if rs else "0")
                        for k, (rs, _) in in_strides.items()}
                base.update({f"o{k}": f"r * {n}L" for k in range(len(self.outputs))})
                defs.line(f"{self.name}_tile({self._call_args(base, '0', tile_n=str(n))});")
        return f"{self.name}_rows"

    def _cost(self) -> int:
        """Work per element, in units of a plain arithmetic op, for the split across threads: an
        exp / tanh / sigmoid costs a vector about TRANSCENDENTAL_COST adds. An LSTM step's gate
        kernels (32 x 256 elements, a sigmoid or tanh in each) ran on the calling thread while
        the pool's other threads waited for the next product (W11: 3 % of its training step)."""
        n = sum(1 for m in self.block.nodes if getattr(getattr(m.op, "lower", None), "transcendental", False))
        return 1 + TRANSCENDENTAL_COST * n

    def _contiguous_inputs(self) -> None:
        """Only the tiled kernel reads views (KInput.strides); views.strided_view makes
        one only where every reader is such a kernel."""
        if any(i.strides is not None for i in self.inputs):
            raise RuntimeError(f"kernel {self.name}: a strided view reaches a row or point function")

    # ---- tile function ----------------------------------------------------------------------------
    def _params(self, with_n: bool) -> list:
        ps = []
        for k, i in enumerate(self.inputs):
            t = i.value.type
            if k in self.inplace:
                continue
            if isinstance(t, TensorType):
                ps.append(f"const {C.storage(t.dtype)} *restrict in{k}")
            else:
                ps.append(f"const {C.scalar_ctype(t)} in{k}")
        for k, v in enumerate(self.outputs):
            ps.append(f"{C.storage(v.type.dtype)} *restrict out{k}")
        if with_n:
            ps.append("const long n")
        return ps

    def _emit_tile_fn(self, w: CWriter, in_strides):
        self.in_inner = {k: s[-1] for k, s in in_strides.items()}
        w.line(f"static inline __attribute__((always_inline)) void {self.name}_tile({', '.join(self._params(True))})")
        with w.block(""):
            if self.float_status:
                w.line("int st = 0;  /* float status: non-finite results seen in this tile */")
            env = {}
            for k, (prm, inp) in enumerate(zip(self.block.params, self.inputs)):
                t = inp.value.type
                ptr = _HALF_PTR.get(t.dtype, "ptr") if isinstance(t, TensorType) else "ptr"
                if k in self.inplace:
                    env[id(prm)] = (ptr, f"out{self.inplace[k]}", C.compute(t.dtype))
                    continue
                if isinstance(t, ScalarType):
                    env[id(prm)] = ("scalar", f"in{k}", C.scalar_ctype(t))
                elif self.in_inner[k] == 0:
                    w.line(f"const {C.compute(t.dtype)} b{k} = ({C.compute(t.dtype)})in{k}[0];")
                    env[id(prm)] = ("scalar", f"b{k}", C.compute(t.dtype))
                else:
                    env[id(prm)] = (ptr, f"in{k}", C.compute(t.dtype))
            self._emit_phases(w, self.block.nodes, env, self.outputs,
                              [(f"out{k}", v) for k, v in enumerate(self.outputs)])
            if self.float_status:
                w.line("if (st) RT->status_raise(st);")

    def _emit_phases(self, w: CWriter, nodes, env, result_values, stores):
        """Emit nodes as phases; values needed across phases live in tile arrays."""
        phases, cur = [], []
        for n in nodes:
            if n.op is ir.FOR:
                if cur:
                    phases.append(("ew", cur))
                    cur = []
                phases.append(("for", n))
            elif n.op is ir.GETITEM:
                phases.append(("get", n))
            else:
                cur.append(n)
        if cur:
            phases.append(("ew", cur))
        # which values must outlive their phase
        needed_later = set()
        for i, (kind, item) in enumerate(phases):
            later_inputs = set()
            for kind2, item2 in phases[i + 1:]:
                for m in (item2 if kind2 == "ew" else [item2]):
                    for v in m.inputs:
                        later_inputs.add(id(v))
                    for b in m.blocks:
                        for mm in ir.iter_nodes(b):
                            for v in mm.inputs:
                                later_inputs.add(id(v))
                        for r in b.results:
                            later_inputs.add(id(r))
            for m in (item if kind == "ew" else []):
                if id(m) in later_inputs:
                    needed_later.add(id(m))
        final_stores = {id(v): name for name, v in stores}
        for kind, item in phases:
            if kind == "ew":
                self._emit_ew_phase(w, item, env, needed_later, final_stores)
            elif kind == "for":
                self._emit_for(w, item, env)
            else:
                parent = item.inputs[0]
                env[id(item)] = env[("for", id(parent), item.attrs["index"])]
        # stores of values not produced in the last elementwise phase (params, loop outputs)
        pending = [(name, v) for name, v in stores if ("stored", id(v), name) not in env]
        if pending:
            with w.block("for (long j = 0; j < n; ++j)"):
                for name, v in pending:
                    value = self._read(env, v)
                    w.line(C.store(name, "j", value, v.type.dtype))
                    self._status(w, C.load(name, "j", v.type.dtype), v.type)

    def _read(self, env, v) -> str:
        if isinstance(v, ir.Const) and id(v) not in env:     # a constant tensor input is a pointer
            return C.literal(v.value, C.value_ctype(v.type)) if isinstance(v.type, ScalarType) else \
                self._const_tensor_elem(v)
        kind, name, _ = env[id(v)]
        if kind == "scalar":
            return name
        if kind == "hptr":        # float16 storage, converted in vectorizable integer arithmetic
            return C.load(name, "j", mstype.float16)
        if kind == "bptr":        # bfloat16 storage: the bits shifted into a float's
            return C.load(name, "j", mstype.bfloat16)
        return f"{name}[j]"

    def _const_tensor_elem(self, c: ir.Const) -> str:
        import numpy as np
        arr = np.asarray(c.value)
        if arr.size == 1:
            return C.literal(arr.reshape(-1)[0].item(), C.compute(c.type.dtype))
        raise RuntimeError("a non-scalar constant reached an elementwise kernel as an inline value")


    def _emit_ew_phase(self, w, members, env, needed_later, final_stores):
        arrays = []
        for m in members:
            if id(m) in needed_later:
                ct = C.compute(m.type.dtype)
                w.line(f"{ct} t{nid(m)}[{self.tile}];")
                arrays.append(m)
        with w.block("for (long j = 0; j < n; ++j)"):
            for m in members:
                expr = self._member_expr(m, env)
                ct = C.value_ctype(m.type)
                w.line(f"const {ct} v{nid(m)} = {expr};")
                env[id(m)] = ("scalar", f"v{nid(m)}", ct)
            for m in arrays:
                w.line(f"t{nid(m)}[j] = v{nid(m)};")
            for m in members:
                if id(m) in final_stores:
                    name = final_stores[id(m)]
                    w.line(C.store(name, "j", f"v{nid(m)}", m.type.dtype))
                    self._status(w, f"v{nid(m)}", m.type)
                    env[("stored", id(m), name)] = True
        for m in arrays:
            env[id(m)] = ("ptr", f"t{nid(m)}", C.value_ctype(m.type))
        for m in members:
            if id(m) not in needed_later and env[id(m)][0] == "scalar" and env[id(m)][1] == f"v{nid(m)}":
                env[id(m)] = ("dead", f"v{nid(m)}", "")

    def _status(self, w, value: str, t) -> None:
        """OR this element's overflow (bit 1) / NaN (bit 2) into `st`: integer ops only, so the
        loop still vectorizes; the register is written once per tile."""
        if self.float_status and isinstance(t, TensorType) and t.dtype.is_float:
            w.line(f"st |= (({value} - {value}) != 0) | (({value} != {value}) << 1);")

    def _member_expr(self, m: ir.Node, env) -> str:
        op: OpDef = m.op
        lower = op.lower
        in_types = [i.type for i in m.inputs]
        out_t = m.type
        cdt = lower.compute(in_types, out_t)
        ct = C.compute(cdt)
        rnd = _ROUND.get(cdt)
        args = []
        for v in m.inputs:
            a = self._read(env, v)
            is_bool = (v.type.dtype is mstype.bool_ if isinstance(v.type, TensorType)
                       else getattr(v.type, "kind", "") == "bool")
            if rnd and not is_bool and not (isinstance(v.type, TensorType) and v.type.dtype is cdt):
                # float16 / bfloat16 math runs in float on their values: round other operands (an
                # int tensor, a Python number) to the type first, as NumPy / MindSpore convert them
                args.append(f"{rnd}({a})")
                continue
            args.append(C.convert(a, C.value_ctype(v.type), ct))
        expr = C.convert(c_expr(op, args, ct), ct, C.value_ctype(out_t))
        out_rnd = _ROUND.get(out_t.dtype) if isinstance(out_t, TensorType) else None
        if out_rnd and not lower.exact:
            expr = f"{out_rnd}({expr})"
        return expr

    def _emit_for(self, w, n: ir.Node, env):
        body = n.blocks[0]
        start, stop, step = (i.value for i in n.inputs[:3])
        inits = n.inputs[3:]
        carried = body.params[1:]
        idx = body.params[0]
        names = []
        for k, (prm, init) in enumerate(zip(carried, inits)):
            if isinstance(prm.type, TensorType):
                ct = C.compute(prm.type.dtype)
                name = f"c{nid(n)}_{k}"
                w.line(f"{ct} {name}[{self.tile}];")
                with w.block("for (long j = 0; j < n; ++j)"):
                    w.line(f"{name}[j] = {self._read(env, init)};")
                names.append(name)
                env[id(prm)] = ("ptr", name, ct)
            else:
                names.append(None)
                env[id(prm)] = ("scalar", self._read(env, init), C.value_ctype(prm.type))
        cmp = "<" if step > 0 else ">"
        with w.block(f"for (int64_t it{nid(n)} = {start}; it{nid(n)} {cmp} {stop}; it{nid(n)} += {step})"):
            env[id(idx)] = ("scalar", f"it{nid(n)}", "int64_t")
            single_phase = all(m.op is not ir.FOR and m.op is not ir.GETITEM for m in body.nodes)
            if single_phase:
                with w.block("for (long j = 0; j < n; ++j)"):
                    for m in body.nodes:
                        expr = self._member_expr(m, env)
                        ct = C.value_ctype(m.type)
                        w.line(f"const {ct} v{nid(m)} = {expr};")
                        env[id(m)] = ("scalar", f"v{nid(m)}", ct)
                    # read every result before writing any carried array (they are read above)
                    for k, (name, r) in enumerate(zip(names, body.results)):
                        if name is not None:
                            w.line(f"const {C.value_ctype(r.type)} r{nid(n)}_{k} = {self._read(env, r)};")
                    for k, name in enumerate(names):
                        if name is not None:
                            w.line(f"{name}[j] = r{nid(n)}_{k};")
            else:
                self._emit_phases(w, body.nodes, env, [], [])
                for k, (name, r) in enumerate(zip(names, body.results)):
                    if name is not None:
                        w.line(f"{C.value_ctype(r.type)} n{nid(n)}_{k}[{self.tile}];")
                        with w.block("for (long j = 0; j < n; ++j)"):
                            w.line(f"n{nid(n)}_{k}[j] = {self._read(env, r)};")
                for k, name in enumerate(names):
                    if name is not None:
                        w.line(f"memcpy({name}, n{nid(n)}_{k}, sizeof({name}));")
        for k, name in enumerate(names):
            if name is not None:
                env[("for", id(n), k)] = ("ptr", name, C.value_ctype(carried[k].type))

    # ---- driver -------------------------------------------------------------------------------------
    def _emit_driver(self, w: CWriter, dims, in_strides, tile, total):
        params = self._params(False) + ["const int nt"]
        inner = dims[-1]
        outer = dims[:-1]
        tiles_per_row = (inner + tile - 1) // tile
        ntiles = tiles_per_row
        for d in outer:
            ntiles *= d
        w.line(f"static {NOINLINE}void {self.name}({', '.join(params)})")
        with w.block(""):
            if ntiles == 1:
                args = self._call_args({}, "0", tile_n=str(inner))
                w.line(f"{self.name}_tile({args});")
                return
            par = total * self._cost() >= PARALLEL_MIN and ntiles >= 2
            if par:
                w.line(K.PARALLEL_FOR)
            else:
                w.line("(void)nt;")
            with w.block(f"for (long t = 0; t < {ntiles}L; ++t)"):
                w.line(f"const long j0 = (t % {tiles_per_row}L) * {tile}L;")
                w.line(f"long o = t / {tiles_per_row}L;")
                offs = {k: [] for k in list(in_strides) + [f"o{k}" for k in range(len(self.outputs))]}
                # multi-index over the outer dims, innermost first
                for d in range(len(outer) - 1, -1, -1):
                    w.line(f"const long i{d} = o % {outer[d]}L; o /= {outer[d]}L;")
                    for k, s in in_strides.items():
                        if s[d]:
                            offs[k].append(f"i{d} * {s[d]}L")
                    out_stride = 1
                    for dd in dims[d + 1:]:
                        out_stride *= dd
                    for k in range(len(self.outputs)):
                        offs[f"o{k}"].append(f"i{d} * {out_stride}L")
                w.line("(void)o;")
                w.line(f"const long nn = {inner}L - j0 < {tile}L ? {inner}L - j0 : {tile}L;")
                base = {k: (" + ".join(v) if v else "0") for k, v in offs.items()}
                full = self._call_args(base, "j0", tile_n=str(tile))
                part = self._call_args(base, "j0", tile_n="nn")
                if inner % tile == 0:
                    w.line(f"{self.name}_tile({full});")
                else:
                    w.line(f"if (nn == {tile}L) {self.name}_tile({full}); else {self.name}_tile({part});")

    def _call_args(self, base, j0, tile_n):
        args = []
        for k, i in enumerate(self.inputs):
            if k in self.inplace:
                continue
            if isinstance(i.value.type, TensorType):
                b = base.get(k, "0")
                inner = self.in_inner[k]
                off = f"{b}" + (f" + {j0}" if inner and j0 != "0" else "")
                args.append(f"in{k} + ({off})" if off != "0" else f"in{k}")
            else:
                args.append(f"in{k}")
        for k in range(len(self.outputs)):
            b = base.get(f"o{k}", "0")
            off = f"{b}" + (f" + {j0}" if j0 != "0" else "")
            args.append(f"out{k} + ({off})" if off != "0" else f"out{k}")
        args.append(tile_n)
        return ", ".join(args)


def _itemsize(t) -> int:
    return t.dtype.itemsize if isinstance(t, TensorType) else 8


def _pow2_ceil(n: int) -> int:
    p = 1
    while p < n:
        p *= 2
    return max(p, 1)
