"""The CPU device: generated C (backend/c), built by the system C compiler, loaded through cffi."""
from __future__ import annotations

import hashlib
import os
import threading

from pycompile.backend import devices
from pycompile.common import knobs

# (C source, build command) -> the shared object built from it in this process: graphs that
# render to the same text (primitives differing only in constant tables they pass as
# Parameters, a Cell rebuilt with the same attributes) are built once
_BUILT: dict = {}
_BUILT_LOCK = threading.Lock()
# key -> an Event set when the build of that key in flight in another thread ends (built or failed):
# threads whose first calls of one signature overlap build it once, the others wait (four Python
# threads starting a model at once ran four C compilers on the same source: tests/backend/
# test_thread_pool.py's concurrent threads took 4 s a build on 2 cores)
_BUILDING: dict = {}


class CPU(devices.Device):
    name = "CPU"
    description = "native C on this machine's cores"
    # tuned for OpenBLAS's kernels and the C convolution kernels' register tiles
    passes = ("layout", "conv_epilogue")

    def renders(self, op) -> bool:
        return True           # every row has its C (backend/c/ops); decomposed rows are expanded anyway

    def render(self, graph, profile: bool = False):
        from pycompile.backend.c.codegen import generate
        return generate(graph, float_status=self.float_status, profile=profile)

    def build(self, module, stem: str) -> str:
        """Write `stem`.c and compile it to `stem`.so with the system C compiler."""
        from pycompile.backend import toolchain
        # the command (compiler, flags, libraries) is part of the key: CC or a sanitizer knob
        # changed since is a different build; a bad build setting is the user's error even on a hit
        knobs.get("PYCOMPILE_CC_TIMEOUT")
        key = (hashlib.sha256(module.source.encode()).hexdigest(),
               tuple(toolchain.build_command("m.c", "m.so", module.uses_blas)))
        while True:
            with _BUILT_LOCK:
                done = _BUILT.get(key)
                if done is not None and os.path.exists(done):
                    return done
                flight = _BUILDING.get(key)
                if flight is None:
                    flight = _BUILDING[key] = threading.Event()
                    break
            flight.wait()       # then the other thread's .so, or (its build failed) build here
        try:
            c_path, so_path = stem + ".c", stem + ".so"
            with open(c_path, "w") as f:
                f.write(module.source)
            from pycompile.backend import pipeline
            toolchain.compile_shared(c_path, so_path, module.uses_blas, pch_parent=pipeline.workdir())
            with _BUILT_LOCK:
                _BUILT[key] = so_path
            return so_path
        finally:
            with _BUILT_LOCK:
                del _BUILDING[key]
            flight.set()

    def load(self, path: str, layout: dict):
        """layout: n_inputs, refs, out_types, const_args, arena_size, errors (backend/executable.py)."""
        from pycompile.backend.executable import Executable
        return Executable(path, **layout)

    def identity(self) -> str:
        from pycompile.backend import toolchain
        return toolchain.compiler_identity()


devices.register(CPU())
