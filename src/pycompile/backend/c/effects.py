"""The effect ops' code (lowering EffectCode: Assign, Print, the NPU float-status ops), with the
stacks' (stacks.py) and the collectives' (collectives.py) in one table, EFFECTS, keyed by the
lowering's name. A mixin of CodeGen (codegen.py), which supplies ptr, scalar, declare_ptr, _owner
and names."""
from __future__ import annotations

from pycompile.backend.c import collectives, text
from pycompile.backend.c.stacks import StackEmitter
from pycompile.common.abstract import ScalarType
from pycompile.backend.c.ops import ctypes_ as C


class EffectEmitter(StackEmitter):
    def _effect_assign(self, w, n):
        ref, value = n.inputs[0], n.inputs[1]
        t = ref.type.tensor
        dst = self.ptr(ref)
        if isinstance(value.type, ScalarType):
            with w.block(f"for (long j = 0; j < {t.size}L; ++j)"):
                w.line(f"{dst}[j] = {C.convert(self.scalar(value), C.value_ctype(value.type), C.storage(t.dtype))};")
        elif value.type.dtype is t.dtype and value.type.size == t.size:
            if self._owner(value) is not self._owner(ref):    # else computed in place: nothing to do
                w.line(f"if ((void *){dst} != (void *){self.ptr(value)}) memcpy({dst}, {self.ptr(value)}, "
                       f"{t.nbytes});")
        else:
            n_src = value.type.size
            with w.block(f"for (long j = 0; j < {t.size}L; ++j)"):
                src = C.load(self.ptr(value), 'j' if n_src == t.size else '0', value.type.dtype)
                w.line(C.store(dst, "j", C.convert(src, C.compute(value.type.dtype), C.compute(t.dtype)), t.dtype))
        self.declare_ptr(w, n, f"({C.storage(t.dtype)} *){dst}")

    def _effect_print(self, w, n):
        values = n.inputs[:-1]
        for kind, v in n.attrs["format"]:
            if kind == "str":
                w.line(f"RT->print_str({text.string(v)}, {text.string_length(v)});")
                continue
            x = values[v]
            if isinstance(x.type, ScalarType):
                w.line(f"RT->print_scalar((double)({self.scalar(x)}), {x.type.dtype.code});")
            else:
                shape = ", ".join(f"{d}" for d in x.type.shape) or "0"
                w.line(f"{{ static const int64_t shp[] = {{{shape}}}; "
                       f"RT->print_tensor({self.ptr(x)}, {x.type.dtype.code}, {x.type.ndim}, shp); }}")
        self.names[id(n)] = "PC_PRINT_RESULT"

    def _effect_status_alloc(self, w, n):
        out = self.declare_ptr(w, n)
        w.line(f"memset({out}, 0, {n.type.nbytes});")

    def _effect_status_clear(self, w, n):
        # in place: the result is the memory of the status tensor it was given (MindSpore's op)
        out = self.declare_ptr(w, n, self.ptr(n.inputs[0]))
        w.line("RT->status_clear();")
        w.line(f"memset({out}, 0, {n.type.nbytes});")

    def _effect_status_get(self, w, n):
        # written into the status tensor it was given, which the result is (loss-scale code reads
        # `init` after `get_status(init)`): overflow in element 0, invalid (NaN) in element 1
        out = self.declare_ptr(w, n, self.ptr(n.inputs[0]))
        dt = n.type.dtype
        w.line(f"{{ const int bits = RT->status_get(); memset({out}, 0, {n.type.nbytes}); "
               f"{C.store(out, '0', '(float)(bits & 1)', dt)} {C.store(out, '1', '(float)((bits >> 1) & 1)', dt)} }}")

    def _effect_pyfunc(self, w, n):
        # ops.Custom(func_type="pyfunc") (ops/custom_op.py): the runtime's py_call runs the site's
        # Python function on the input buffers and writes the output buffer
        from pycompile.compiler import frontend
        if frontend.DEPS:       # the site number is this process's: keep it out of the disk cache
            frontend.DEPS[-1].problem = "the graph calls ops.Custom's Python function (func_type 'pyfunc')"
        out = self.declare_ptr(w, n)
        loc = f" at {n.loc}" if n.loc else ""
        code = self.runtime_error(f"PyFuncError: For 'Custom', the Python function{loc} failed")
        ins = ", ".join(f"(const void *){self.ptr(x)}" for x in n.inputs) or "0"
        # the site (a Python function and its shapes) named by an identifier too: a graph compiled
        # for a run-time batch size (backend/dynamic.py) then differs between its samples in a
        # name, not only in a number that could happen to look proportional to the batch size
        site = int(n.attrs["site"])
        w.line(f"{{ const int64_t pc_site_{site} = {site}; const void *pi[] = {{{ins}}}; void *po[] = {{(void *){out}}}; "
               f"if (RT->abi_version < 9 || !RT->py_call || RT->py_call(pc_site_{site}, pi, po)) "
               f"return PC_ERR_BASE + {code}; }}")

    EFFECTS = {"assign": _effect_assign, "print": _effect_print, "pyfunc": _effect_pyfunc, "status_alloc": _effect_status_alloc,
               "status_clear": _effect_status_clear, "status_get": _effect_status_get,
               **StackEmitter.STACK_EFFECTS, **collectives.EFFECTS}
