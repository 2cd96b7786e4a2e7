"""Structured control flow rendered as native C: `if` / `else` with each branch's results copied
into the parent's places, `for` and `while` loops whose carried tensors swap between two arena
buffers (or are updated in place), and the GetItem names of their results. A mixin of CodeGen
(codegen.py), which supplies ptr, scalar, declare_ptr, storage_expr, emit_block, getitems, names
and plan."""
from __future__ import annotations

import numpy as np

from pycompile.backend.c.naming import nid
from pycompile.common.abstract import MonadType, ScalarType, TensorType, TupleType
from pycompile.compiler import ir
from pycompile.backend.c.ops import ctypes_ as C
from pycompile.backend.c.ops import memops


class StructureEmitter:
    def cond_expr(self, v) -> str:
        if isinstance(v.type, ScalarType) or isinstance(v, ir.Const) and not isinstance(v.type, TensorType):
            return self.scalar(v)
        return f"({self.ptr(v)}[0] != 0)"

    def emit_getitem(self, w, n):
        parent = n.inputs[0]
        k = n.attrs["index"]
        if id(n) in self.names:
            return
        if isinstance(n.type, ScalarType):
            self.names[id(n)] = f"r{nid(parent)}_{k}"
            return
        if isinstance(n.type, (MonadType, TupleType)):
            return
        if parent.op in (ir.FOR, ir.WHILE):
            self.names[id(n)] = f"L{nid(parent)}_cur{k}"
            return
        self.declare_ptr(w, n)

    def _result_into(self, w, r, target_storage, target_expr, t):
        """Copy a block result into its parent's place unless it was computed there."""
        if isinstance(t, ScalarType):
            w.line(f"{target_expr} = {self.scalar(r)};")
            return
        s = self.plan.storage.get(id(r))
        if s is target_storage:
            return
        if t.nbytes:
            w.line(f"memcpy({target_expr}, {self.ptr(r)}, {t.nbytes});")

    def emit_if(self, w, n):
        outs = self.getitems.get(id(n), {})
        places = []
        for k, t in enumerate(n.type.elems):
            if isinstance(t, ScalarType):
                w.line(f"{C.scalar_ctype(t)} r{nid(n)}_{k};")
                places.append((None, f"r{nid(n)}_{k}"))
            elif isinstance(t, TensorType):
                g = outs.get(k)
                s = self.plan.of(g) if g is not None else None
                places.append((s, self.storage_expr(s, g) if s is not None else None))
            else:
                places.append((None, None))
        with w.block(f"if ({self.cond_expr(n.inputs[0])})"):
            self._branch(w, n.blocks[0], n.type.elems, places)
        with w.block("else"):
            self._branch(w, n.blocks[1], n.type.elems, places)

    def _branch(self, w, block, types, places):
        self.last_loc = None
        self.emit_block(w, block)
        for r, t, (s, expr) in zip(block.results, types, places):
            if expr is None:
                continue
            self._result_into(w, r, s, expr, t)

    def _loop_setup(self, w, n, carried, inits):
        info = self.plan.loops[id(n)]
        for k, (prm, init) in enumerate(zip(carried, inits)):
            t = prm.type
            if isinstance(t, TensorType):
                cur, nxt, s0, s1 = info[k]
                st = C.storage(t.dtype)
                if k in self.plan.inplace_carried.get(id(n), ()):
                    # updated in place: one buffer of its own, starting as a copy of the initial value
                    out = self.plan.loop_outputs.get((id(n), k))
                    buf = f"args[{out.index}]" if out is not None else f"(arena + {s0.offset})"
                    w.line(f"{st} *const {cur.name} = ({st} *){buf};")
                    if t.nbytes and k not in n.attrs.get("fills", ()):
                        if isinstance(init, ir.Const) and not np.asarray(init.value).view(np.uint8).any():
                            # all bits zero (a reverse loop's gradient accumulator): written, not
                            # copied from an argument of as many zeros (8 MB twice a step in W11)
                            memops.zero(w, cur.name, t.nbytes)
                        else:
                            w.line(f"memcpy({cur.name}, {self.ptr(init)}, {t.nbytes});")
                else:
                    w.line(f"{st} *{cur.name} = {self.ptr(init)};")
                    w.line(f"{st} *{nxt.name} = ({st} *)(arena + {s0.offset});")
                self.names[id(prm)] = cur.name
            elif isinstance(t, ScalarType):
                name = f"L{nid(n)}_cur{k}"
                w.line(f"{C.scalar_ctype(t)} {name} = {self.scalar(init)};")
                self.names[id(prm)] = name
        return info

    def _loop_update(self, w, n, body, carried, info, lead):
        results = body.results[:len(carried)]
        inplace = self.plan.inplace_carried.get(id(n), ())
        # copies first (they read current values), then scalars, then pointer swaps
        for k, (prm, r) in enumerate(zip(carried, results)):
            t = prm.type
            if isinstance(t, TensorType) and r is not prm and k not in inplace:
                cur, nxt, s0, s1 = info[k]
                self._result_into(w, r, nxt, nxt.name, t)
        for k, (prm, r) in enumerate(zip(carried, results)):
            if isinstance(prm.type, ScalarType) and r is not prm:
                w.line(f"const {C.scalar_ctype(prm.type)} n{nid(n)}_{k} = {self.scalar(r)};")
        for k, (prm, r) in enumerate(zip(carried, results)):
            if isinstance(prm.type, ScalarType) and r is not prm:
                w.line(f"L{nid(n)}_cur{k} = n{nid(n)}_{k};")
            elif isinstance(prm.type, TensorType) and r is not prm and k not in inplace:
                cur, nxt, s0, s1 = info[k]
                st = C.storage(prm.type.dtype)
                w.line(f"{cur.name} = {nxt.name}; {nxt.name} = ({cur.name} == ({st} *)(arena + {s0.offset})) ? "
                       f"({st} *)(arena + {s1.offset}) : ({st} *)(arena + {s0.offset});")

    def emit_for(self, w, n):
        body = n.blocks[0]
        start, stop, step = n.inputs[:3]
        carried = body.params[1:]
        info = self._loop_setup(w, n, carried, n.inputs[3:])
        idx = f"i{nid(n)}"
        self.names[id(body.params[0])] = idx
        step_v = step.value if isinstance(step, ir.Const) else None
        cmp = ">" if step_v is not None and step_v < 0 else "<"
        with w.block(f"for (int64_t {idx} = {self.scalar(start)}; {idx} {cmp} {self.scalar(stop)}; "
                     f"{idx} += {self.scalar(step)})"):
            w.line("if (*PC_INTR) return PC_ERR_INTERRUPTED;")
            self.last_loc = None
            self.emit_block(w, body)
            self._loop_update(w, n, body, carried, info, 1)
            flags = [f"L{nid(n)}_cur{k}" for k in n.attrs.get("exit_flags", ())]
            if flags:
                w.line(f"if ({' || '.join(flags)}) break;")
        self._name_loop_outputs(n, carried)

    def emit_while(self, w, n):
        cond, body = n.blocks
        carried = body.params
        info = self._loop_setup(w, n, carried, n.inputs)
        for prm_c, prm_b in zip(cond.params, carried):
            if id(prm_b) in self.names:
                self.names[id(prm_c)] = self.names[id(prm_b)]
        with w.block("for (;;)"):
            w.line("if (*PC_INTR) return PC_ERR_INTERRUPTED;")
            self.last_loc = None
            self.emit_block(w, cond)
            w.line(f"if (!({self.cond_expr(cond.results[0])})) break;")
            self.emit_block(w, body)
            self._loop_update(w, n, body, carried, info, 0)
        self._name_loop_outputs(n, carried)

    def _name_loop_outputs(self, n, carried):
        for k, g in self.getitems.get(id(n), {}).items():
            if k < len(carried):
                self.names[id(g)] = f"L{nid(n)}_cur{k}"
