"""The bridge to the C runtime (pycompile._rt): its API table for generated modules, the thread
count, and the Python side of Print (so compiled prints go through sys.stdout, in order with
Python's own prints, in MindSpore's graph-mode format)."""
from __future__ import annotations

import sys

import numpy as np

from pycompile._rt import ffi as rt_ffi
from pycompile._rt import lib as rt_lib
from pycompile.common import _format
from pycompile.common import dtype as mstype
from pycompile.common import context, knobs


@rt_ffi.def_extern()
def pc_py_print_tensor(data, dtype_code, ndim, shape):
    dt = mstype.from_code(dtype_code)
    shp = tuple(int(shape[i]) for i in range(ndim))
    n = int(np.prod(shp, dtype=np.int64)) if shp else 1
    arr = np.frombuffer(rt_ffi.buffer(data, n * dt.itemsize), dtype=dt.np).reshape(shp).copy()
    sys.stdout.write(_format.print_form(arr, dt.name) + "\n")


@rt_ffi.def_extern()
def pc_py_print_str(text, nbytes):
    sys.stdout.write(bytes(rt_ffi.buffer(text, nbytes)).decode("utf-8", "replace") + "\n")


@rt_ffi.def_extern()
def pc_py_print_scalar(value, dtype_code):
    dt = mstype.from_code(dtype_code)
    if dt.kind == "b":
        text = str(int(bool(value)))
    elif dt.kind in "iu":
        text = str(int(value))
    else:
        text = repr(float(value))
    sys.stdout.write(text + "\n")


# the exception ops.Custom's Python function raised inside compiled code (raised again by the
# executable when the call returns its error: executable.py)
PY_CALL_ERROR: list = [None]


@rt_ffi.def_extern()
def pc_py_call(site, inputs, outputs):
    try:
        from pycompile.ops.defs.pyfunc import SITES
        s = SITES[int(site)]
        arrays = []
        for k, t in enumerate(s.inputs):
            buf = rt_ffi.buffer(inputs[k], t.size * t.dtype.itemsize)
            arrays.append(np.frombuffer(buf, dtype=t.dtype.np).reshape(t.shape).copy())
        res = s.run(arrays)
        rt_ffi.buffer(outputs[0], res.nbytes)[:] = res.tobytes()
        return 0
    except BaseException as e:     # (KeyboardInterrupt too: cffi would only print it)
        PY_CALL_ERROR[0] = e
        return 1


def take_py_call_error(text: str) -> BaseException:
    """The exception of the failed host call (or a RuntimeError saying so, without one)."""
    e, PY_CALL_ERROR[0] = PY_CALL_ERROR[0], None
    return e if e is not None else RuntimeError(text)


def api_address() -> int:
    return int(rt_ffi.cast("uintptr_t", rt_lib.pc_get_api()))


def sync_threads(changed=None) -> None:
    # the pool caps the count far lower; a count past a C int (runtime_num_threads=2**31, which
    # MindSpore takes) must not overflow on the way there
    rt_lib.pc_set_num_threads(min(context.num_threads(), 1 << 30))
    from pycompile.backend import devices
    from pycompile.ops import _table
    _table.STATUS_TRACKING[0] = devices.current().float_status


sync_threads()
context.on_change(sync_threads)
rt_lib.pc_pack_keep_limit(knobs.get("PYCOMPILE_KEEP_PACKED_MB") << 20)
# the C runtime reads PYCOMPILE_SMALL_GEMM itself (csrc/gemm.c, as its table is filled); a value
# it does not know is a KnobError here rather than the default there
knobs.get("PYCOMPILE_SMALL_GEMM")

