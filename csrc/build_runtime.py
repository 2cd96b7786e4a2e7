"""cffi build script for pycompile's C runtime (run once by setup.py at install time)."""
import os
import re

from cffi import FFI

HERE = os.path.dirname(os.path.abspath(__file__))


def header_cdef(name: str = "pycompile_rt.h") -> str:
    """The cffi-readable part of a runtime header, between the CDEF markers."""
    with open(os.path.join(HERE, name)) as f:
        text = f.read()
    body = text.split("/* CDEF-BEGIN */")[1].split("/* CDEF-END */")[0]
    return re.sub(r"/\*.*?\*/", "", body, flags=re.S)


ffibuilder = FFI()
ffibuilder.cdef(header_cdef() + header_cdef("pycompile_generic.h") + """
extern "Python" void pc_py_print_tensor(const void *, int, int, const int64_t *);
extern "Python" void pc_py_print_str(const char *, int64_t);
extern "Python" void pc_py_print_scalar(double, int);
extern "Python" int pc_py_call(int64_t, const void *const *, void *const *);
""")
with open(os.path.join(HERE, "runtime.c")) as f:
    runtime_source = f.read()
ffibuilder.set_source(
    "pycompile._rt",
    runtime_source + '\n#include "pycompile_generic.h"\n',
    # setuptools wants them relative; eager_generic.c, eager_gemm.c: PyNative's shape-generic kernels
    sources=[os.path.relpath(os.path.join(HERE, f)) for f in ("pool.c", "eager_generic.c", "eager_gemm.c")],
    include_dirs=[HERE],
    # -O3: the small-product kernel (gemm.c) needs it to match its speed compiled into generated
    # modules (-O3 -march=native): at -O2 its panel packing is not vectorized (64 x 512 x 512 with
    # B as stored: 27 % slower, one core)
    extra_compile_args=["-O3", "-std=gnu11", "-pthread"],
    libraries=["pthread"],
)

if __name__ == "__main__":
    ffibuilder.compile(verbose=True)
