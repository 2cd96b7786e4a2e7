"""The CPU device: generated C (backend/c), built by the system C compiler, loaded through cffi."""
from __future__ import annotations

from pycompile.backend import devices


class CPU(devices.Device):
    name = "CPU"
    description = "native C on this machine's cores"

    def render(self, graph):
        from pycompile.backend.c.codegen import generate
        return generate(graph, float_status=self.float_status)

    def build(self, module, stem: str) -> str:
        """Write `stem`.c and compile it to `stem`.so with the system C compiler."""
        from pycompile.backend import toolchain
        c_path, so_path = stem + ".c", stem + ".so"
        with open(c_path, "w") as f:
            f.write(module.source)
        toolchain.compile_shared(c_path, so_path, module.uses_blas)
        return so_path

    def load(self, path: str, layout: dict):
        """layout: n_inputs, refs, out_types, const_args, arena_size, errors (backend/executable.py)."""
        from pycompile.backend.executable import Executable
        return Executable(path, **layout)

    def identity(self) -> str:
        from pycompile.backend import toolchain
        return toolchain.compiler_identity()


devices.register(CPU())
