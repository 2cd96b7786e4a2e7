"""Build hook: compiles the hand-written C runtime in csrc/ once, at install time, through cffi,
and installs csrc/'s headers with the package (generated model code includes them).

Generated model code never goes through setuptools; it is compiled with `cc` by
pycompile.backend and handed a pointer to this runtime's API table at load time.
"""
import glob
import os
import shutil

from setuptools import Extension, setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


class build_py_with_headers(build_py):
    def run(self):
        super().run()
        dest = os.path.join(self.build_lib, "pycompile", "include")
        os.makedirs(dest, exist_ok=True)
        # the headers generated code includes, and the runtime sources a standalone library
        # (`pycompile --emit lib`, backend/lib.py) compiles into itself
        for header in glob.glob(os.path.join(HERE, "csrc", "*.h")) + [os.path.join(HERE, "csrc", "pool.c"),
                                                                      os.path.join(HERE, "csrc", "gemm.c"),
                                                                      os.path.join(HERE, "csrc", "gemm_avx2.c")]:
            shutil.copy(header, dest)


def call_extension() -> Extension:
    """pycompile._call (csrc/call.c): the compiled call's hot path, a plain CPython extension
    because it reads NumPy arrays and builds Tensors, which a cffi function cannot take."""
    import numpy
    return Extension("pycompile._call", [os.path.relpath(os.path.join(HERE, "csrc", "call.c"))],
                     include_dirs=[numpy.get_include()], extra_compile_args=["-O2"])


setup(cffi_modules=["csrc/build_runtime.py:ffibuilder"], cmdclass={"build_py": build_py_with_headers},
      ext_modules=[call_extension()])
