"""Fused groups (compiler/passes fusion's FUSED nodes) rendered: an elementwise group as one tiled
kernel, a reduction reading its fused producers through an inline function (no temporary), and a
head - a matrix product or a row reduction - with its epilogue run on each chunk of rows while they
are in cache. A mixin of CodeGen (codegen.py), which supplies ptr, declare_ptr, storage_expr,
_kinputs, _inplace, _owner, kernel_name, record_status, getitems, names, plan, defs and float_status."""
from __future__ import annotations

import numpy as np

from pycompile.backend.c.elementwise import KernelEmitter, KInput
from pycompile.backend.c.memory import _ancestors, gemm_addend, gemm_folds, head_destination
from pycompile.compiler import ir
from pycompile.ops import prims as P
from pycompile.ops._table import OpDef
from pycompile.backend.c.ops import kernels as K
from pycompile.backend.c.ops import templates
from pycompile.ops.lowering import Blas, Template


class FusedEmitter:
    def emit_fused(self, w, n):
        block = n.blocks[0]
        head, kind, k = head_destination(block, set(self.getitems.get(id(n), {})),
                                         self.plan.inplace_results.get(id(n), ()))
        if head is not None:
            return self.emit_fused_head(w, n, head, kind, k)
        last = block.results[-1] if block.results else None
        reduction = last if isinstance(getattr(last, "op", None), OpDef) and isinstance(last.op.lower, Template) \
            and last.op.lower.prologue else None
        if reduction is not None and reduction in block.nodes:
            return self.emit_fused_reduction(w, n, reduction)
        outs = self.getitems.get(id(n), {})
        results, ptrs, gets = [], [], []
        for k, r in enumerate(block.results):
            g = outs.get(k)
            if g is None:
                continue
            results.append(r)
            gets.append(g)
            ptrs.append(self.declare_ptr(w, g))
        if not results or n.attrs["shape"] and int(np.prod(n.attrs["shape"])) == 0:
            return
        em = KernelEmitter(self.kernel_name(n), n.attrs["shape"], ir.Block(block.params, block.nodes, tuple(results)),
                           self._kinputs(n.inputs), results, ptrs, float_status=self.float_status,
                           inplace=self._inplace(n.inputs, gets))
        w.line(em.emit(self.defs))

    def emit_fused_reduction(self, w, n, red):
        """A reduction whose input's producers are fused: it reads that input through an inline
        function computing it at each index (one pass over the producers' inputs, no temporary)."""
        block = n.blocks[0]
        outer = {id(p): v for p, v in zip(block.params, n.inputs)}
        g = self.getitems.get(id(n), {}).get(len(block.results) - 1)
        if g is None:
            return
        x = red.inputs[0]
        load = self._prologue_loader(n, tuple(m for m in block.nodes if m is not red), x)
        # the reduction's other inputs (LayerNorm's gamma / beta) are outside values
        self.fused_load = (red, load, outer)
        self.names[id(red)] = self.declare_ptr(w, g)
        self._w = w
        templates.render(self, w, red)
        self.fused_load = None
        self.record_status(w, red, self.names[id(red)])

    def emit_fused_head(self, w, n, head, kind, k_dest):
        """A head - a matrix product, or a reduction over rows - and its epilogue: each chunk of
        rows is computed, then the epilogue runs on those rows while they are in cache."""
        block = n.blocks[0]
        outs = self.getitems.get(id(n), {})
        outer = {id(p): v for p, v in zip(block.params, n.inputs)}
        results, ptrs, gets = [], [], []
        for k, r in enumerate(block.results):
            g = outs.get(k)
            if g is not None:
                results.append((k, r))
                gets.append(g)
                ptrs.append(self.declare_ptr(w, g))
        if kind in ("output", "alias"):
            dest = ptrs[[k for k, _ in results].index(k_dest)]
        else:
            dest = self.storage_expr(self.plan.of(head), head)
        feeds = _ancestors(head, block)            # a reduction's prologue, computed inline
        epi_nodes = tuple(m for m in block.nodes if m is not head and id(m) not in feeds)
        # a Dense layer's bias and a residual: added by the product kernel as it stores
        # (kernels.gemm), so the epilogue reads residual + (product + bias) (`value`) where it read
        # the product, or is gone
        value, bias, residual, relu = head, None, None, None
        if isinstance(head.op.lower, Blas) and not self.float_status:
            found = gemm_folds(kind, k_dest, head, block, epi_nodes, outer)
            a, b = head.inputs
            small = K.small_kernel(a.type, b.type, head.type, head.attrs.get("transpose_a", False),
                                   head.attrs.get("transpose_b", False))
            if found and small:
                folded = [x for x in found[1:] if x is not None]
                # not when this block writes its result over one of them (an Assign's value)
                if all(self._owner(g) is not self._owner(outer[id(x)]) for g in gets for x in folded):
                    value = found[0]
                    bias, residual = (None if x is None else self.ptr(outer[id(x)]) for x in found[1:])
                    added = _ancestors(value, block) | {id(value)}
                    epi_nodes = tuple(m for m in epi_nodes if id(m) not in added)
            # then a ReLU of that value, made by the kernel too (gemm_call.GEMM_RELU)
            relu = gemm_relu(kind, k_dest, value, block, epi_nodes) if small else None
            if relu is not None:
                value = relu
                epi_nodes = tuple(m for m in epi_nodes if m is not relu)
        epi = [(r, p) for (k, r), p in zip(results, ptrs) if r is not head and r is not value]
        epilogue = None
        if epi_nodes and epi:
            used = {id(i) for m in epi_nodes for i in m.inputs}
            params = [p for p in block.params if id(p) in used]
            kin = self._kinputs([outer[id(p)] for p in params]) + [KInput(value, dest)]
            # inputs that are a Parameter the epilogue writes in place (an Assign's value)
            epi_gets = [g for (k, r), g in zip(results, gets) if r is not head and r is not value]
            inplace = self._inplace([outer[id(p)] for p in params], epi_gets)
            if kind == "alias" and block.results[k_dest] is not value:
                # the epilogue reads the head's value from the output it overwrites
                inplace[len(kin) - 1] = [r for r, _ in epi].index(block.results[k_dest])
            em = KernelEmitter(self.kernel_name(n), n.attrs["shape"],
                               ir.Block(tuple(params) + (value,), epi_nodes, tuple(r for r, _ in epi)),
                               kin, [r for r, _ in epi], [p for _, p in epi], float_status=self.float_status,
                               inplace=inplace)
            fname = em.emit_rows(self.defs)
            call = ", ".join([i.cexpr for k, i in enumerate(kin) if k not in inplace] + [p for _, p in epi])
            epilogue = lambda r0, r1: f"{fname}({call}, {r0}, {r1});"
        # the head's own values are scanned for float status unless the epilogue overwrote them
        # in place (its results, scanned as they are stored, carry any overflow on)
        scan = dest if kind != "alias" else None
        if isinstance(head.op.lower, Blas):
            a, b = (outer[id(x)] if id(x) in outer else x for x in head.inputs)
            # not under float status: the epilogue scans the values it stores
            # (and not when the kernel makes the epilogue's first additions: nothing is left to add)
            x = (None if self.float_status or value is not head
                 else gemm_addend(kind, head, epi_nodes, [r for r, _ in epi], outer))
            addend = None if x is None else self.ptr(x)
            templates.render_blas(self, w, head, a, b, dest, epilogue, addend, bias, residual, relu is not None)
            self.record_status(w, head, scan)
            return
        # a row reduction: its template over each chunk of rows, reading its input through the
        # fused prologue (or from memory), then the epilogue on the same rows
        x = head.inputs[0]
        if feeds:
            prologue = tuple(m for m in block.nodes if id(m) in feeds)
            load = self._prologue_loader(n, prologue, x)
        else:
            load = self.ptr(outer.get(id(x), x))
        shape = x.type.shape
        n_rows, row_len = x.type.size // max(shape[-1], 1), shape[-1]
        passes = head.op.lower.passes + (1 if head.op.lower.passes > 1 else 0)   # reads, and the write

        def body(r0, r1):
            self.fused_load = (head, load, outer)
            self.head_rows = (r0, r1)
            self.names[id(head)] = dest
            self._w = w
            templates.render(self, w, head)
            self.fused_load = self.head_rows = None
            if epilogue is not None:
                w.line(epilogue(r0, r1))
        K.row_chunks(w, n_rows, row_len, passes * x.type.size, body)
        self.record_status(w, head, scan)

    def _prologue_loader(self, n, prologue, x):
        """A C function computing the fused value `x` at a flat index from the group's inputs:
        returns a loader for the reduction templates (kernels._ld)."""
        block = n.blocks[0]
        outer = {id(p): v for p, v in zip(block.params, n.inputs)}
        used = {id(i) for m in prologue for i in m.inputs}
        params = [p for p in block.params if id(p) in used]
        kin = self._kinputs([outer[id(p)] for p in params])
        em = KernelEmitter(self.kernel_name(n), x.type.shape, ir.Block(tuple(params), prologue, (x,)), kin, [x], [])
        return _PrologueLoader(em, self.defs, ", ".join(i.cexpr for i in kin))


class _PrologueLoader:
    """A reduction template's reader of a fused producer (kernels._ld / _ldr): `loader(i)` calls
    the producer's function at flat index i; `loader.rows(i0, r, n)` its form for rows of n
    contiguous elements (i0 a multiple of n, r < n). Each function is emitted at its first read."""

    def __init__(self, em, defs, head: str):
        self.em, self.defs, self.head = em, defs, head
        self.flat, self.row = None, {}

    def _call(self, fname, args):
        return f"{fname}({self.head}, {args})" if self.head else f"{fname}({args})"

    def __call__(self, idx):
        if self.flat is None:
            self.flat = self.em.emit_point(self.defs)
        return self._call(self.flat, idx)

    def rows(self, i0, r, n: int):
        if n not in self.row:       # named by order of first use: a row length may scale with the batch
            self.row[n] = self.em.emit_point(self.defs, row_len=n, suffix=f"row{len(self.row) or ''}")
        if self.row[n] is None:     # no operand reads differently by row: the flat form
            return self(i0 if r == "0" else f"{i0} + {r}")
        return self._call(self.row[n], f"{i0}, {r}")


def gemm_relu(kind, k_dest, value, block: ir.Block, epi_nodes):
    """The ReLU node when a product's epilogue goes on with ReLU(value) - `value` the product, or
    the product with the bias and residual the kernel adds (gemm_folds), read by nothing else -
    so the small-product kernel applies it as it stores (gemm_call.GEMM_RELU): W4's Dense + ReLU
    layers then make no pass over their outputs. None otherwise, and when the ReLU is a result
    other than the one whose buffer the product writes."""
    if kind not in ("alias", "temp") or any(r is value for r in block.results):
        return None
    users = [m for m in epi_nodes if any(i is value for i in m.inputs)]
    if len(users) != 1 or users[0].op is not P.ReLU or users[0].type != value.type:
        return None
    relu = users[0]
    if any(r is relu for r in block.results) and (kind != "alias" or block.results[k_dest] is not relu):
        return None
    return relu
