"""What a template (pycompile/backend/c/ops/templates.py and the kernels beside it) renders with: its
output and input pointers, the rows a fused row-chunk driver gives it, runtime errors, BLAS use,
and elementwise chains. A mixin of CodeGen (codegen.py), which supplies names, ptr, declare_ptr,
kernel_name, defs, errors and the current writer."""
from __future__ import annotations

from pycompile.backend.c.elementwise import KernelEmitter
from pycompile.compiler import ir


class TemplateContext:
    fused_load = None          # (template node, loader, {param id: outer value}) inside a fused group
    head_rows = None           # (r0, r1): a row-chunk driver runs the template on those rows

    def _declare_out(self, w, n) -> None:
        if id(n) not in self.names:
            self.declare_ptr(w, n)

    def out(self, n) -> str:
        return self.names[id(n)]

    def is_view(self, n) -> bool:
        """The template's result is memory of its input, not a buffer it writes (a Gather of one
        row: views.row_view); the template declares its pointer itself."""
        return self.plan.of(n).kind == "alias"

    def rows(self, n):
        return self.head_rows if self.fused_load is not None and self.fused_load[0] is n else None

    def input(self, n, k: int):
        fl = self.fused_load
        if fl is not None and fl[0] is n:
            if k == 0:
                return fl[1]
            return self.ptr(fl[2].get(id(n.inputs[k]), n.inputs[k]))
        return self.ptr(n.inputs[k])

    def runtime_error(self, message: str) -> int:
        self.errors.append(message)
        return len(self.errors) - 1

    def use_blas(self) -> None:
        self.uses_blas = True

    def elementwise_chain(self, n, op) -> None:
        """n's output = op(op(x0, x1), x2) ... over n's inputs, as one elementwise kernel."""
        xs = n.inputs
        out = self.out(n)
        if len(xs) == 1:
            w = self._w
            w.line(f"memcpy({out}, {self.ptr(xs[0])}, {n.type.nbytes});")
            return
        acc, nodes = xs[0], []
        for x in xs[1:]:
            acc = ir.Node(op=op, inputs=(acc, x), type=n.type, loc=n.loc)
            nodes.append(acc)
        if n.type.size == 0:
            return
        params = tuple(dict.fromkeys(xs))          # an input given twice is read once
        em = KernelEmitter(self.kernel_name(n), n.type.shape, ir.Block(params, tuple(nodes), (acc,)),
                           self._kinputs(params), [acc], [out])
        self._w.line(em.emit(self.defs))
