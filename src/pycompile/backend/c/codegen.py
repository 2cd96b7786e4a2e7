"""C code generation: one translation unit per specialization.

    int pc_module_init(const void *api)    receives the runtime's function table
    int pc_entry(void **args)              args = graph inputs, Parameters, outputs,
                                           large constants, arena; returns 0 or an error code

Every graph becomes straight-line C with native if / for / while; elementwise nodes and fused
groups become tiled kernels (elementwise.py), other ops loop templates (kernels.py). A comment
with the user's source line sits above the statements it produced.

CodeGen is assembled from mixins, one per kind of node: fused.py (fused groups and their heads),
structures.py (if / for / while), effects.py (Assign, Print, float status; stacks.py's and
collectives.py's effects), template_context.py (what loop templates render with). This file keeps
the module, the names of values, blocks, scalars, lone elementwise kernels and subgraph calls.
"""
from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass, field

import numpy as np

from pycompile.common.abstract import RefType, ScalarType, TensorType
from pycompile.backend.c.elementwise import KernelEmitter, KInput
from pycompile.backend.compiled import graph_layout_text
from pycompile.backend.errinfo import ERRINFO_SLOTS
from pycompile.backend.c import collectives, text
from pycompile.backend.c.complex_check import check_complex
from pycompile.backend.c.dedup import dedup_functions
from pycompile.backend.c.naming import nid, numbering
from pycompile.backend.c.outline import outline
from pycompile.backend.c.profile import Regions, region_of
from pycompile.backend.c.split import split_function
from pycompile.backend.c.effects import EffectEmitter
from pycompile.backend.c.fused import FusedEmitter
from pycompile.backend.c.structures import StructureEmitter
from pycompile.backend.c.template_context import TemplateContext
from pycompile.backend.c.memory import Plan, plan_graph
from pycompile.compiler import ir
from pycompile.ops._table import OpDef
from pycompile.backend.c.ops import ctypes_ as C
from pycompile.backend.c.ops import templates
from pycompile.backend.c.ops.elementwise import expr as c_expr
from pycompile.backend.c.ops.writer import CWriter
from pycompile.ops.lowering import (Blas, Constant, Copy, EffectCode, Elementwise, Status, Template,
                                    View)


@dataclass
class CModule:
    source: str
    plan: Plan
    n_args: int
    errors: list = field(default_factory=list)      # message per runtime error code
    uses_blas: bool = False
    c_lines: int = 0
    collectives: list = field(default_factory=list)  # per collective call: what the ranks agree on


@dataclass
class _Module:
    """What the functions of one translation unit share."""
    defs: CWriter = field(default_factory=CWriter)
    errors: list = field(default_factory=list)
    statics: list = field(default_factory=list)
    uses_blas: bool = False
    subs: dict = field(default_factory=dict)      # id(subgraph) -> (C name, Plan, const offset)
    sub_consts: list = field(default_factory=list)
    scratch: dict = field(default_factory=dict)   # id(subgraph) -> arena bytes a call needs
    cold_weights: bool = False    # the Parameters outsize a core's L2: each product's weights come in cold
    writes_parameters: bool = False     # some graph of the module assigns a Parameter
    collectives: list = field(default_factory=list)     # backend/c/collectives.py: one per call emitted
    shared_fns: dict = field(default_factory=dict)      # helper text -> C name (ops/winograd.py: equal layers share)
    profile: Regions | None = None     # built for the profiler: its timed kernels (profile.py)


class CodeGen(FusedEmitter, StructureEmitter, EffectEmitter, TemplateContext):
    def __init__(self, graph: ir.Graph, float_status: bool = False, module: _Module | None = None,
                 profile: bool = False):
        self.g = graph
        self.mod = module or _Module()
        self.float_status = float_status
        if module is None:
            self.mod.profile = Regions() if profile else None
            self.mod.cold_weights = _parameter_bytes(graph) > _l2_bytes()
            self.mod.writes_parameters = _assigns(graph)
            # shared subgraphs (lazy_inline) first: their plans size the callers' scratch
            for k, sub in enumerate(ir.subgraphs(graph)):
                cg = CodeGen(sub, float_status, self.mod)
                name = f"sub{k}_{text.ident(sub.name)}"
                offset = len(self.mod.sub_consts)
                self.mod.subs[id(sub)] = (name, cg.plan, offset)
                self.mod.sub_consts.extend(cg.plan.const_args)
                self.mod.scratch[id(sub)] = cg.plan.arena_size + _spare_bytes(sub)
                cg.function_text(name, static=True)
        self.plan = plan_graph(graph, self.mod.scratch, float_status)
        self.defs = self.mod.defs
        self.body = CWriter()
        self.names: dict = {}
        self.errors = self.mod.errors
        self.statics = self.mod.statics
        self.last_loc = None
        self.getitems: dict = {}

    @property
    def uses_blas(self) -> bool:
        return self.mod.uses_blas

    @uses_blas.setter
    def uses_blas(self, v: bool) -> None:
        self.mod.uses_blas = self.mod.uses_blas or v

    def weight_flags(self, b) -> int:
        """The small-product kernel's flags for a product's op(B) operand `b` (bits 1 and 2 of its
        `tb`) when `b` is a Parameter (or a view of one): 2, prefetch it - the model's Parameters
        outsize a core's L2, so it comes in cold (activations, just written, are in cache); 4,
        keep its packing across calls - no graph of this module writes a Parameter, and every
        other write tells the runtime (pc_api.params_written)."""
        if not _reads_parameter(b):
            return 0
        return (2 if self.mod.cold_weights else 0) | (0 if self.mod.writes_parameters else 4)

    @functools.cached_property
    def param_index(self) -> dict:
        """{id(parameter): its position in args}."""
        return {id(p): k for k, p in enumerate(self.g.params)}

    def kernel_name(self, n) -> str:
        return f"k{nid(n)}"

    # ---- names of values ----------------------------------------------------------------------
    def ptr(self, v) -> str:
        """C pointer expression of a tensor value."""
        if isinstance(v, ir.Const):
            s = self.plan.of(v)
            if s.kind == "static":
                self._static(v, s)
                return s.name
            return self.const_arg(v)
        name = self.names.get(id(v))
        if name is not None:
            return name
        s = self.plan.storage.get(id(v))
        if s is None:
            raise RuntimeError(f"no storage for {v}")
        return self.storage_expr(s, v)

    def storage_expr(self, s, v) -> str:
        t = v.type.tensor if isinstance(v.type, RefType) else v.type
        st = C.storage(t.dtype)
        if s.kind == "arg":
            return f"(({st} *)args[{s.index}])"
        if s.kind == "slot":
            return f"(({st} *)(arena + {s.offset}))"
        if s.kind == "dyn":
            return f"(({st} *){s.name})"
        if s.kind == "alias":
            return f"(({st} *){self.ptr(s.base)})"
        if s.kind == "static":
            return s.name
        raise RuntimeError(f"value {v} has storage {s.kind}")

    def const_arg(self, c: ir.Const) -> str:
        k = self.plan.const_index[id(c)]
        idx = len(self.g.params) + len(self.g.outputs) + k
        return f"(({C.storage(c.type.dtype)} *)args[{idx}])"

    def _static(self, c: ir.Const, s):
        if id(c) in self.statics:
            return
        self.statics.append(id(c))
        arr = np.asarray(c.value).reshape(-1)
        ct = C.storage(c.type.dtype)
        if arr.dtype == np.float16:
            # the bits, so the table reads the same where _Float16 is only a uint16_t (clang < 15)
            bits = ", ".join(f"0x{int(b):04x}" for b in arr.view(np.uint16)) or "0"
            self.defs.line(f"static pc_half_bits {s.name}[{max(arr.size, 1)}] = {{{bits}}};")
            return
        vals = ", ".join(C.literal(x.item(), "double" if ct in ("float", "_Float16") else ct)
                         if ct not in ("float", "_Float16") else C.literal(x.item(), "float") for x in arr) or "0"
        self.defs.line(f"static {ct} {s.name}[{max(arr.size, 1)}] = {{{vals}}};")

    def scalar(self, v) -> str:
        if isinstance(v, ir.Const):
            return C.literal(v.value, C.value_ctype(v.type))
        return self.names[id(v)]

    def _owner(self, v):
        """The storage that holds v's bytes (through aliases: Loads, views, Depend)."""
        s = self.plan.storage.get(id(v))
        while s is not None and s.kind == "alias":
            s = self.plan.storage.get(id(s.base))
        return s

    def _inplace(self, inputs, outputs) -> dict:
        """{input index: output index} for kernel inputs that are the memory an output is written
        to (memory.Planner._inplace_assigns placed the output there): the kernel reads them
        through the output's pointer."""
        outs = [self._owner(o) for o in outputs]
        found = {}
        for k, v in enumerate(inputs):
            if not isinstance(v.type, TensorType) or isinstance(v, ir.Const):
                continue
            s = self._owner(v)
            for j, o in enumerate(outs):
                if s is not None and s is o and s.kind == "arg":
                    found[k] = j
        return found

    def declare_ptr(self, w: CWriter, v, expr: str | None = None):
        t = v.type
        st = C.storage(t.dtype)
        name = f"v{nid(v)}"
        w.line(f"{st} *const {name} = {expr if expr is not None else self.storage_expr(self.plan.of(v), v)};")
        self.names[id(v)] = name
        return name

    # ---- module -------------------------------------------------------------------------------------
    def function_text(self, name: str, static: bool, entry: bool | None = None) -> None:
        """Emit this graph as `int name(void **args)` into the module's definitions (`static`) or
        its body; `entry`: the module's entry (by default the non-static function)."""
        g = self.g
        w = self.body
        entry = not static if entry is None else entry
        # the module's entry also receives every subgraph's constants, before the arena
        extra = len(self.mod.sub_consts) if entry else 0
        n_args = len(g.params) + len(g.outputs) + len(self.plan.const_args) + extra + 1
        w.line(f"{'static ' if static else ''}int {name}(void **args)")
        with w.block(""):
            w.line(f"char *const arena = (char *)args[{n_args - 1}];")
            w.line("const int nt = RT->num_threads();")
            w.line("(void)arena; (void)nt;")
            decls = []
            for k, p in enumerate(g.params):
                t = p.type.tensor if isinstance(p.type, RefType) else p.type
                self.names[id(p)] = f"p{k}"
                what = 'Parameter ' + p.ref.name if p.ref is not None and p.ref.name else p.name
                w.line(f"{C.storage(t.dtype)} *const p{k} = ({C.storage(t.dtype)} *)args[{k}];  "
                       f"/* {text.comment(what)} */")
                decls.append(len(w.lines) - 1)
            if entry:
                w.line("*PC_INTR = 0;      /* a Ctrl-C from before this call is not for its loops */")
            start = len(w.lines)
            self.emit_block(w, g.body)
            base = len(g.params)
            for k, v in enumerate(g.outputs):
                self.store_output(w, v, base + k)
            w.line("return 0;")
            _drop_unused_params(w, decls, start)
        split = split_function(w.lines, name, static)       # very long: parts, so cc stays linear
        if split is not None:
            parts, w.lines = split
            self.defs.lines.extend(parts)
        if static:
            self.defs.lines.extend(w.lines)
            self.defs.line("")
        self.n_args = n_args

    def generate(self) -> CModule:
        g = self.g
        if self.mod.writes_parameters:
            # the small-product kernel's kept packings of Parameters are stale once a call that
            # assigns Parameters starts, and again once it ends (csrc/gemm.c)
            self.function_text("pc_entry_body", static=True, entry=True)
            self.body = CWriter()
            with self.body.block("int pc_entry(void **args)"):
                written = "if (RT->abi_version >= 8 && RT->params_written) RT->params_written();"
                self.body.line(written)
                self.body.line("const int rc = pc_entry_body(args);")
                self.body.line(written)
                self.body.line("return rc;")
        else:
            self.function_text("pc_entry", static=False)
        # the module's constant arguments: this graph's, then every subgraph's (see emit_call)
        self.plan.const_args.extend(self.mod.sub_consts)
        n_args = len(g.params) + len(g.outputs) + len(self.plan.const_args) + 1
        head = [f"/* generated by pycompile for @{text.comment(g.name)} */",
                "#include \"pycompile_kernels.h\""]
        if self.uses_blas:
            head.append("#include <cblas.h>")
        # OpenBLAS runs one thread per call: generated code splits products across the cores
        # itself (kernels.gemm), so BLAS threads would only oversubscribe them
        pin = " scipy_openblas_set_num_threads(1);" if self.uses_blas else ""
        body = self.defs.text() + "\n" + self.body.text()
        # the runtime's small-product kernel (csrc/gemm.c, kernels._product) through a pointer of
        # the module's own: NULL without AVX-512 or in an older C caller's table (products then
        # call BLAS); only modules that call it declare it
        small = "pc_sgemm_nt" in body      # called, or its presence tested (the shared-packing cut)
        # (ABI 7: tb's bit 1 asks for a prefetch, which an ABI 6 kernel would read as a transpose,
        # so an older table's kernel is not used at all)
        # the same kernel adding a Dense layer's bias and a residual
        biased = re.search(r"\bpc_sgemm_ep\b", body) is not None
        # (ABI 10: tb's bit 4 asks for a ReLU, which an older kernel would ignore: those products
        # call it through a pointer set only from an ABI 10 table)
        relu = "pc_sgemm_epr" in body
        # (ABI 11: tb's bit 5, A transposed in place: pc_sgemm_ntt, set only from an ABI 11 table)
        ta = "pc_sgemm_ntt" in body
        sgemm = (" if (RT->abi_version >= 7) pc_sgemm_nt = RT->sgemm_nt;" if small else "") + \
            (" if (RT->abi_version >= 7) pc_sgemm_ep = RT->sgemm_ep;" if biased else "") + \
            (" if (RT->abi_version >= 10) pc_sgemm_epr = RT->sgemm_ep;" if relu else "") + \
            (" if (RT->abi_version >= 11) pc_sgemm_ntt = RT->sgemm_nt;" if ta else "")
        # PC_INTR: the runtime's SIGINT flag (csrc/interrupt.c), read at loop back-edges; a C
        # caller whose table leaves `interrupted` NULL gets a flag that never rises
        head += ["static const pc_api *RT;",
                 *(["static pc_sgemm_nt_fn pc_sgemm_nt;"] if small else []),
                 *(["static pc_sgemm_ep_fn pc_sgemm_ep;"] if biased else []),
                 *(["static pc_sgemm_ep_fn pc_sgemm_epr;"] if relu else []),
                 *(["static pc_sgemm_nt_fn pc_sgemm_ntt;"] if ta else []),
                 "static int32_t PC_PRINT_RESULT[1];",
                 "static volatile int pc_never_interrupted;",
                 "static volatile int *PC_INTR = &pc_never_interrupted;",
                 "static int pc_thread_zero(void) { return 0; }",
                 "static int (*PC_TID)(void) = pc_thread_zero;",
                 f"int pc_module_init(const void *api) {{ RT = (const pc_api *)api;{pin} "
                 f"if (RT->interrupted) PC_INTR = RT->interrupted; "
                 f"if (RT->thread_index) PC_TID = RT->thread_index;{sgemm} return PC_RT_ABI_VERSION; }}",
                 ""]
        if self.mod.profile is not None:
            head += self.mod.profile.head()
        if "PC_ERRINFO[" in body:                 # a runtime error's values (backend/errinfo.py)
            head += [f"static int64_t PC_ERRINFO[{ERRINFO_SLOTS}];",
                     "const int64_t *pc_error_info(void) { return PC_ERRINFO; }", ""]
        layout = graph_layout_text(g.params, g.outputs, self.plan.const_args, self.plan.arena_size)
        head += [f"const char *pc_layout(void) {{ return \"{layout}\"; }}", ""]
        if "RT->allreduce_start(" in body:       # its arena in the shared segment (backend/executable.py)
            head += ["int pc_comm_arena(void) { return 1; }", ""]
        # parallel loops become functions the runtime's thread pool runs (outline.py)
        source = dedup_functions(outline("\n".join(head) + "\n" + body))
        return CModule(source=source, plan=self.plan, n_args=n_args, errors=self.errors, uses_blas=self.uses_blas,
                       c_lines=source.count("\n"), collectives=self.mod.collectives)

    def store_output(self, w, v, index):
        t = v.type
        if isinstance(v, ir.Const) and isinstance(t, ScalarType):
            w.line(f"*({C.scalar_ctype(t)} *)args[{index}] = {self.scalar(v)};")
            return
        if isinstance(t, ScalarType):
            w.line(f"*({C.scalar_ctype(t)} *)args[{index}] = {self.scalar(v)};")
            return
        s = self.plan.storage.get(id(v))
        while s is not None and s.kind == "alias":
            s = self.plan.storage.get(id(s.base))
        if s is not None and s.kind == "arg" and s.index == index:
            return
        if t.nbytes:
            w.line(f"memcpy(args[{index}], {self.ptr(v)}, {t.nbytes});")

    # ---- blocks -----------------------------------------------------------------------------------
    def emit_block(self, w: CWriter, block: ir.Block):
        for n in block.nodes:
            if n.op is ir.GETITEM:
                self.getitems.setdefault(id(n.inputs[0]), {})[n.attrs["index"]] = n
        progress = collectives.progress_points(block)
        regions = self.mod.profile
        for n in block.nodes:
            self.comment(w, n)
            info = region_of(n) if regions is not None else None
            if info is None:
                self.emit_node(w, n)
            else:
                k = regions.add(info)
                w.line(f"PC_PROF_T[{k}] = pc_prof_now();")
                mark = len(w.lines)
                self.emit_node(w, n)
                if len(w.lines) > mark:
                    w.line(f"pc_prof_add({k});")
                else:                       # nothing ran (an empty tensor): no region
                    del w.lines[mark - 1]
                    regions.drop_last()
            if id(n) in progress:
                collectives.emit_progress(w)

    def comment(self, w, n):
        loc = n.loc
        if loc is None or n.op is ir.GETITEM:
            return
        key = (loc.file, loc.line)
        if key == self.last_loc:
            return
        self.last_loc = key
        w.line(f"/* {text.comment(os.path.basename(loc.file))}:{loc.line}: {text.comment(loc.source.strip())} */")

    def emit_node(self, w: CWriter, n: ir.Node):
        op = n.op
        if op is ir.IF:
            return self.emit_if(w, n)
        if op is ir.FOR:
            return self.emit_for(w, n)
        if op is ir.WHILE:
            return self.emit_while(w, n)
        if op is ir.GETITEM:
            return self.emit_getitem(w, n)
        if op is ir.FUSED:
            return self.emit_fused(w, n)
        if op is ir.CALL:
            return self.emit_call(w, n)
        if not isinstance(op, OpDef):
            raise RuntimeError(f"codegen cannot emit {op}")
        lower = op.lower
        if not lower.emits_code:        # UpdateState, MakeTuple: ordering only, no code
            return
        if isinstance(lower, Elementwise):
            if isinstance(n.type, ScalarType):
                return self.emit_scalar(w, n)
            return self.emit_lone_kernel(w, n)      # records float status inline
        render = self.RENDER.get(type(lower))
        if render is None:
            raise RuntimeError(f"codegen has no renderer for {op.name} ({type(lower).__name__})")
        self._w = w
        render(self, w, n)
        self.record_status(w, n, self.ptr(n) if isinstance(n.type, TensorType) else None)

    def record_status(self, w, n, ptr) -> None:
        """The one place non-elementwise kernels record float status (Ascend device): a node
        whose lowering creates values (Status.SCAN) gets one pass over its float output."""
        if not self.float_status or n.op.lower.status is not Status.SCAN or ptr is None:
            return
        if isinstance(n.type, TensorType) and n.type.dtype.is_float and n.type.size:
            self._status_scan(w, n, ptr)

    def _status_scan(self, w, n, ptr):
        """Float status after a non-elementwise kernel: one vectorizable pass over its output."""
        conv = "(float)" if n.type.dtype.itemsize == 2 else ""
        w.line("{ int st = 0;")
        with w.indent():
            with w.block(f"for (long j = 0; j < {n.type.size}L; ++j)"):
                w.line(f"const {C.compute(n.type.dtype)} v = {conv}{ptr}[j];")
                w.line("st |= ((v - v) != 0) | ((v != v) << 1);")
            w.line("if (st) RT->status_raise(st); }")

    # ---- scalars and elementwise ---------------------------------------------------------------------
    def emit_scalar(self, w, n):
        lower = n.op.lower
        in_types = [i.type for i in n.inputs]
        cdt = lower.compute(in_types, n.type)
        ct = C.compute(cdt)
        args = []
        for v in n.inputs:
            a = self.scalar(v)
            args.append(C.convert(a, C.value_ctype(v.type), ct))
        out_ct = C.scalar_ctype(n.type)
        name = f"s{nid(n)}"
        w.line(f"const {out_ct} {name} = {C.convert(c_expr(n.op, args, ct), ct, out_ct)};")
        self.names[id(n)] = name

    def _kinputs(self, values) -> list:
        out = []
        for v in values:
            if isinstance(v.type, ScalarType):
                out.append(KInput(v, self.scalar(v)))
            else:
                view = self.plan.views.get(id(v))
                out.append(KInput(v, self.ptr(v), None if view is None else view[1]))
        return out

    def emit_lone_kernel(self, w, n):
        inputs = []
        for v in n.inputs:
            if isinstance(v, ir.Const) and isinstance(v.type, ScalarType):
                continue
            if all(v is not x for x in inputs):
                inputs.append(v)
        block = ir.Block(tuple(inputs), (n,), (n,))
        out = self.declare_ptr(w, n)
        if n.type.size == 0:
            return
        if n.type.size == 1 and all(isinstance(v.type, ScalarType) for v in n.inputs) and not self.float_status:
            # one element from runtime numbers (a loop's row index as a tensor: compiler/stacking.py):
            # a statement, not a kernel call, so the C compiler sees the value where it is read
            self._one_element(w, n, out)
            return
        em = KernelEmitter(self.kernel_name(n), n.type.shape, block, self._kinputs(inputs), [n], [out],
                           float_status=self.float_status, inplace=self._inplace(inputs, [n]))
        w.line(em.emit(self.defs))

    def _one_element(self, w, n, out):
        lower = n.op.lower
        cdt = lower.compute([i.type for i in n.inputs], n.type)
        ct = C.compute(cdt)
        args = [C.convert(self.scalar(v), C.value_ctype(v.type), ct) for v in n.inputs]
        w.line(f"{out}[0] = {C.convert(c_expr(n.op, args, ct), ct, C.storage(n.type.dtype))};")

    def emit_call(self, w, n):
        """Call a shared subgraph: its args are (inputs, Parameters, outputs, constants, arena)."""
        callee = n.attrs["graph"]
        name, plan, const_offset = self.mod.subs[id(callee)]
        outs = self.getitems.get(id(n), {})
        scratch = self.plan.scratch[id(n)]
        spare = scratch.offset + plan.arena_size          # unused outputs land after the arena
        items = []
        params = self.param_index
        for v in n.inputs[:-1]:
            if id(v) in params and not isinstance(v.type, ScalarType):
                # read from args where the call needs it: a pointer held from the function's top
                # across L calls is a long live range each, and register allocation over them was
                # a third of W6's C compile time with lazy_inline (L = 24)
                items.append(f"args[{params[id(v)]}]")
                continue
            items.append(self.ptr(v) if not isinstance(v.type, ScalarType) else f"&{self.scalar(v)}")
        for k, v in enumerate(callee.outputs):
            t = v.type
            g = outs.get(k)
            if isinstance(t, ScalarType):
                local = f"r{nid(n)}_{k}"
                w.line(f"{C.scalar_ctype(t)} {local} = 0;")
                if g is not None:
                    self.names[id(g)] = local
                items.append(f"&{local}")
            elif g is not None:
                items.append(self.declare_ptr(w, g))
            else:
                items.append(f"(arena + {spare})")
                spare += (t.nbytes + 63) // 64 * 64
        # the top graph's own constants come first among the module's; subgraphs' follow (generate)
        base = len(self.g.params) + len(self.g.outputs) + len(self.plan.const_args)
        for k in range(len(plan.const_args)):
            items.append(f"args[{base + const_offset + k}]")
        items.append(f"(arena + {scratch.offset})")
        w.line(f"{{ void *sa[{len(items)}]; {' '.join(_fill('sa', items))}")
        w.line(f"  const int rc = {name}(sa); if (rc) return rc; }}")

    # ---- renderers by lowering kind --------------------------------------------------------------
    def _render_view(self, w, n):
        self.declare_ptr(w, n, f"({C.storage(n.type.dtype)} *){self.ptr(n.inputs[0])}")

    def _render_copy(self, w, n):
        out = self.declare_ptr(w, n)
        w.line(f"memcpy({out}, {self.ptr(n.inputs[0])}, {n.type.nbytes});")

    def _render_template(self, w, n):
        if not self.is_view(n):
            self._declare_out(w, n)
        templates.render(self, w, n)

    def _render_blas(self, w, n):
        self._declare_out(w, n)
        templates.render_blas(self, w, n)

    def _render_constant(self, w, n):
        raise RuntimeError(f"{n.op.name} should have been folded to a constant before codegen")

    def _render_effect(self, w, n):
        self.EFFECTS[n.op.lower.name](self, w, n)

    RENDER = {View: _render_view, Copy: _render_copy, Template: _render_template, Blas: _render_blas,
              Constant: _render_constant, EffectCode: _render_effect}


def _fill(array: str, items: list) -> list:
    """C statements storing `items` (pointer expressions) into `array`: a run of four or more
    consecutive `args[k]` as one memcpy. A block function called L times takes its Parameters
    as such a run; one statement per pointer made the caller's C as costly to compile as the
    block's (W6, L = 24)."""
    out, k = [], 0
    while k < len(items):
        m = re.fullmatch(r"args\[(\d+)\]", items[k])
        end = k + 1
        if m is not None:
            first = int(m.group(1))
            while end < len(items) and items[end] == f"args[{first + end - k}]":
                end += 1
        if end - k >= 4:
            out.append(f"memcpy({array} + {k}, args + {first}, {end - k} * sizeof(void *));")
        else:
            end = k + 1
            out.append(f"{array}[{k}] = (void *){items[k]};")
        k = end
    return out


def _drop_unused_params(w: CWriter, decls: list, start: int) -> None:
    """Remove the declarations (line numbers `decls`) of parameters the body from line `start`
    never names: with lazy_inline the entry passes most Parameters straight from `args` to the
    block function (emit_call), and hundreds of unused declarations still cost the C compiler."""
    used = set(re.findall(r"\bp(\d+)\b", "\n".join(w.lines[start:])))
    gone = {i for k, i in enumerate(decls) if str(k) not in used}
    if gone:
        w.lines[:] = [line for i, line in enumerate(w.lines) if i not in gone]


def _spare_bytes(graph: ir.Graph) -> int:
    """Room after a subgraph's arena for outputs its caller does not use."""
    return sum((v.type.nbytes + 63) // 64 * 64 for v in graph.outputs if isinstance(v.type, TensorType))


def _reads_parameter(v) -> bool:
    """v is a Parameter's value (its Load, or the parameter of a shared subgraph) or a view of one."""
    while isinstance(v, ir.Node):
        if v.op is ir.GETITEM or not (v.op.name == "Load" or isinstance(getattr(v.op, "lower", None), View)):
            return False
        v = v.inputs[0]
    return isinstance(v, ir.Param) and isinstance(v.type, RefType)


def _assigns(graph: ir.Graph) -> bool:
    """Whether the graph or a subgraph it calls assigns a Parameter (an Assign node)."""
    return any(isinstance(n.op, OpDef) and n.op.name == "Assign"
               for g in (graph, *ir.subgraphs(graph)) for n in ir.iter_nodes(g.body))


def _parameter_bytes(graph: ir.Graph) -> int:
    """Bytes of the graph's Parameters (its RefType inputs): the weights a call reads."""
    return sum(p.type.tensor.nbytes for p in graph.params if isinstance(p.type, RefType))


@functools.lru_cache(maxsize=None)
def _l2_bytes() -> int:
    """One core's L2 cache: the level-2 entry of Linux's sysfs cache list (its sizes read "1024K");
    1 MiB where there is none."""
    import glob
    for d in sorted(glob.glob("/sys/devices/system/cpu/cpu0/cache/index*")):
        try:
            with open(os.path.join(d, "level")) as f:
                if f.read().strip() != "2":
                    continue
            with open(os.path.join(d, "size")) as f:
                size = f.read().strip().upper()
            return int(size[:-1]) * {"K": 1 << 10, "M": 1 << 20}[size[-1]] if size[-1] in "KM" else int(size)
        except (OSError, ValueError, IndexError, KeyError):
            continue
    return 1 << 20


def generate(graph: ir.Graph, float_status: bool = False, profile: bool = False) -> CModule:
    """The module of `graph`; `profile`: with every kernel timed for the profiler (profile.py)."""
    check_complex(graph)
    with numbering():
        return CodeGen(graph, float_status, profile=profile).generate()
