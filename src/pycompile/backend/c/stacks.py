"""The stacks of saved values a differentiated loop pushes and its reverse loop reads
(pycompile/ops/defs/stack.py), rendered as calls of pycompile_kernels.h's pc_stack_*: a mixin of
CodeGen (codegen.py), which supplies ptr, scalar, declare_ptr, names, plan and runtime_error."""
from __future__ import annotations

from pycompile.backend.c.naming import nid
from pycompile.common.abstract import TensorType
from pycompile.backend.c.ops import ctypes_ as C


class StackEmitter:
    def stack_ptr(self, v) -> str:
        return f"((pc_stack *)(arena + {self.plan.of(v).offset}))"

    def _stack_item(self, n):
        elem = n.inputs[0].type.elem
        if isinstance(elem, TensorType):
            return elem, C.storage(elem.dtype), elem.nbytes
        ct = C.scalar_ctype(elem)
        return elem, ct, f"sizeof({ct})"

    def _stack_keep(self, stack) -> str:
        """The module's static pc_stack_keep of this StackNew: the items' memory kept between
        calls (pycompile_kernels.h), declared once at file scope."""
        name = f"PCK{nid(stack)}"
        if name not in self.statics:
            self.statics.append(name)
            self.defs.line(f"static pc_stack_keep {name};")
        return name

    def _effect_stack_new(self, w, n):
        w.line(f"pc_stack_take({self.stack_ptr(n)}, &{self._stack_keep(n)});")

    def _effect_stack_push(self, w, n):
        stack, value = n.inputs[:2]
        elem, ct, size = self._stack_item(n)
        code = self.runtime_error("out of memory while saving the values a gradient needs")
        if isinstance(elem, TensorType):
            src = self.ptr(value)
        else:
            w.line(f"const {ct} sv{nid(n)} = {self.scalar(value)};")
            src = f"&sv{nid(n)}"
        w.line(f"if (pc_stack_push({self.stack_ptr(stack)}, {src}, {size})) return PC_ERR_BASE + {code};")

    def _effect_stack_get(self, w, n):
        stack, k = n.inputs[:2]
        elem, ct, size = self._stack_item(n)
        at = f"pc_stack_at({self.stack_ptr(stack)}, {self.scalar(k)}, {size})"
        if isinstance(elem, TensorType):
            self.declare_ptr(w, n, f"({ct} *){at}")
        else:
            w.line(f"const {ct} s{nid(n)} = *({ct} *){at};")
            self.names[id(n)] = f"s{nid(n)}"

    def _effect_stack_len(self, w, n):
        w.line(f"const int64_t s{nid(n)} = {self.stack_ptr(n.inputs[0])}->len;")
        self.names[id(n)] = f"s{nid(n)}"

    def _effect_stack_free(self, w, n):
        stack = n.inputs[0]
        w.line(f"pc_stack_give({self.stack_ptr(stack)}, &{self._stack_keep(stack)});")


    STACK_EFFECTS = {"stack_new": _effect_stack_new, "stack_push": _effect_stack_push, "stack_get": _effect_stack_get,
                     "stack_len": _effect_stack_len, "stack_free": _effect_stack_free}
