"""Write one compiled specialization to files: what `pycompile --emit ir,c,so -o DIR` produces.

    NAME.ir           the optimized IR (MindSpore's text form); NAME.frontend.ir before the passes
    NAME.c            the generated C, with the user's source lines as comments
    NAME.so           the shared object
    NAME.bin          the bytes of every Parameter and large constant pc_entry takes, each at a
                      64-byte aligned offset
    NAME.json         the manifest: how to call NAME.so from C (below)
    pycompile_rt.h    the runtime header declaring `pc_api`, the table pc_module_init takes

The manifest ("format": "pycompile-manifest/1") lists pc_entry's arguments in order. Each has
`index`, `kind` (input | parameter | output | constant | arena), `name`, `dtype` (NumPy name),
`dtype_code` (enum pc_dtype), `ctype`, `shape`, `nbytes`; parameters and constants add `file`
and `offset` (where their bytes are in NAME.bin); the arena has `alignment`. `api` describes the
`pc_api` table the caller passes to pc_module_init (a C program fills its own; see `fields`), and
`errors` gives the message of each runtime error code (pc_entry returns 1000 + k). When the C is
written too, `build.command` rebuilds NAME.so from NAME.c (run it in the output directory, which
then also holds pycompile_kernels.h) and `build.runtime_libraries` lists what the .so loads.
"""
from __future__ import annotations

import json
import os
import shlex
import shutil
import sys

import numpy as np

MANIFEST_FORMAT = "pycompile-manifest/1"
KINDS = ("ir", "c", "so")
ALIGN = 64

class ExportError(RuntimeError):
    """The report lacks what a file needs (say, a compile-cache hit without the argument layout)."""


API_FIELDS = {
    "abi_version": "must equal api.abi_version",
    "num_threads": "threads compiled kernels may use (OpenMP); return 1 to run single-threaded",
    "status_raise": "OR the bits (PC_STATUS_OVERFLOW=1, PC_STATUS_INVALID=2) into a float-status word; "
                    "called by code compiled for the Ascend device",
    "status_get": "return the float-status word",
    "status_clear": "set the float-status word to 0",
    "print_tensor": "Print of a tensor: (data, dtype code, ndim, shape)",
    "print_str": "Print of a string",
    "print_scalar": "Print of a scalar: (value, dtype code)",
}

CALLING_CONVENTION = (
    "dlopen the library and call int pc_module_init(const pc_api *api) once (it returns "
    "api.abi_version). int pc_entry(void **args) runs one call: args[i] points to the buffer of "
    "args[i] below (inputs, parameters, outputs, constants, arena). Buffers are C-contiguous, "
    "row-major, in byte_order; parameters and constants start as the bytes at their offset in "
    "their file (a graph that assigns a Parameter writes its buffer); outputs are written by the "
    "call; the arena is scratch memory of nbytes aligned to 64 bytes. pc_entry returns 0, or "
    "1000 + k for runtime error k (errors[k]).")


def runtime_header() -> str | None:
    """Path of csrc's pycompile_rt.h (from the installed package or the source tree)."""
    from pycompile.backend import toolchain
    for d in toolchain.include_dirs():
        p = os.path.join(d, "pycompile_rt.h")
        if os.path.exists(p):
            return p
    return None


def _record(index: int, kind: str, name: str, dt, shape) -> dict:
    n = 1
    for d in shape:
        n *= d
    return {"index": index, "kind": kind, "name": name, "dtype": dt.np.name, "dtype_code": dt.code,
            "ctype": dt.ctype, "shape": list(shape), "nbytes": n * dt.itemsize}


def arg_layout(report) -> tuple[list, list]:
    """pc_entry's arguments as manifest records, and the arrays behind parameters and constants
    as (record, array) pairs."""
    from pycompile.common import dtype as mstype
    if not report.arg_specs:
        raise ExportError(f"the compile report of {report.name} does not record pc_entry's arguments "
                         f"(a compile-cache entry written before they were recorded?)")
    args, blobs = [], []
    refs = iter(report.refs)
    for kind, name, dtype_name, shape in report.arg_specs:
        args.append(_record(len(args), kind, name, mstype._by_name(dtype_name), shape))
        if kind == "parameter":
            blobs.append((args[-1], next(refs)._data))
    for k, c in enumerate(report.const_args):
        args.append(_record(len(args), "constant", f"const{k}", mstype.from_numpy(c.dtype), c.shape))
        blobs.append((args[-1], c))
    args.append({"index": len(args), "kind": "arena", "name": "arena",
                 "nbytes": max(report.temp_bytes, 64), "alignment": ALIGN})
    return args, blobs


def manifest(report, name: str, args: list, files: dict) -> dict:
    from pycompile import __version__
    from pycompile._rt import lib as rt_lib
    from pycompile.common import dtype as mstype
    from pycompile.backend import toolchain
    header = runtime_header()
    uses_blas = "#include <cblas.h>" in report.c_source
    return {
        "format": MANIFEST_FORMAT,
        "pycompile_version": __version__,
        "entry": name,
        "graph": report.name,
        "library": files.get("so"),
        "source": files.get("c"),
        "data": files.get("bin"),
        "symbols": {"init": "pc_module_init", "entry": "pc_entry"},
        "calling_convention": CALLING_CONVENTION,
        "byte_order": sys.byteorder,
        "args": args,
        "arena_bytes": args[-1]["nbytes"],
        "errors": list(report.runtime_errors),
        "uses_blas": uses_blas,
        # rebuilding NAME.so from NAME.c: run in the output directory (it holds the headers)
        "build": {"command": shlex.join(toolchain.build_command(files["c"], files["so"], uses_blas, headers=(".",))),
                  "runtime_libraries": toolchain.runtime_libraries(uses_blas)} if files.get("c") else None,
        "api": {"header": os.path.basename(header) if header else None, "struct": "pc_api",
                "abi_version": int(rt_lib.PC_RT_ABI_VERSION), "fields": API_FIELDS,
                "dtype_codes": {d.np.name: d.code for d in mstype.ALL}},
    }


def dump_manifest(m: dict) -> str:
    """JSON with one line per argument, so the manifest reads as a table."""
    text = json.dumps({k: v for k, v in m.items() if k != "args"}, indent=2)
    args = ",\n".join("    " + json.dumps(a) for a in m["args"])
    return text[:-2] + ',\n  "args": [\n' + args + "\n  ]\n}\n"


def export(report, name: str, kinds, out_dir: str) -> list[str]:
    """Write the files of `kinds` (subset of KINDS) for `report` into out_dir; returns the paths."""
    stem = os.path.join(out_dir, name)
    written = []

    def text(path, s):
        with open(path, "w") as f:
            f.write(s)
        written.append(path)

    if "ir" in kinds:
        text(stem + ".ir", report.ir_after)
        text(stem + ".frontend.ir", report.ir_before)
    if "c" in kinds:
        text(stem + ".c", report.c_source)
    if "so" in kinds:
        shutil.copyfile(report.so_path, stem + ".so")
        written.append(stem + ".so")
        files = {"so": name + ".so", "c": name + ".c" if "c" in kinds else None}
        args, blobs = arg_layout(report)
        if blobs:
            files["bin"] = name + ".bin"
            with open(stem + ".bin", "wb") as f:
                for rec, arr in blobs:
                    pad = -f.tell() % ALIGN
                    f.write(b"\0" * pad)
                    rec["file"], rec["offset"] = files["bin"], f.tell()
                    f.write(np.ascontiguousarray(arr).tobytes())
            written.append(stem + ".bin")
        header = runtime_header()
        if header:
            # pycompile_rt.h for callers; with the C, also the kernels headers NAME.c includes
            kernels = [os.path.join(os.path.dirname(header), h) for h in ("pycompile_kernels.h", "pycompile_cnn.h")]
            for h in [header] + (kernels if "c" in kinds else []):
                shutil.copyfile(h, os.path.join(out_dir, os.path.basename(h)))
                written.append(os.path.join(out_dir, os.path.basename(h)))
        text(stem + ".json", dump_manifest(manifest(report, name, args, files)))
    return written
