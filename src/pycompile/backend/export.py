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

`--target-cpu LEVEL` builds the .so for a named CPU level instead of this machine's
(`generic`, `x86-64-v3`, any -march value); `--portable` copies the libraries the .so loads besides
glibc (OpenBLAS) beside it, found through an `$ORIGIN` rpath, so the directory
runs on another machine of the same OS and architecture (`bundled_libraries` in the manifest).
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
    "num_threads": "threads compiled kernels may use; return 1 to run single-threaded",
    "parallel_for": "run fn(ctx, lo, hi) over chunks covering [0, n) on any threads and return when all are "
                    "done; a serial caller calls fn(ctx, 0, n)",
    "status_raise": "OR the bits (PC_STATUS_OVERFLOW=1, PC_STATUS_INVALID=2) into a float-status word; "
                    "called by code compiled for the Ascend device",
    "status_get": "return the float-status word",
    "status_clear": "set the float-status word to 0",
    "print_tensor": "Print of a tensor: (data, dtype code, ndim, shape)",
    "print_str": "Print of a string: (bytes, count); the bytes are UTF-8 and may include NUL",
    "print_scalar": "Print of a scalar: (value, dtype code)",
    "interrupted": "a flag compiled loops read at their back-edges (nonzero: pc_entry returns 900); "
                   "may be NULL",
    "thread_index": "the calling thread's index in [0, num_threads): 0 for the thread that called "
                    "parallel_for; per-thread scratch is indexed by it; may be NULL (then 0)",
    "allreduce": "(src, dst, count, dtype code, op: 0 sum 1 max 2 min 3 prod, group name) -> 0 on success; "
                 "called by graphs with AllReduce (and the DATA_PARALLEL gradient reduction); may be NULL "
                 "for graphs without collectives (pc_entry then fails with the op's runtime error)",
    "allgather": "(src, dst, count per rank, dtype code, group name) -> 0; may be NULL",
    "reduce_scatter": "(src, dst, count per rank's result, dtype code, op, group name) -> 0; may be NULL",
    "broadcast": "(src, dst, count, dtype code, root rank, group name) -> 0; may be NULL",
    "allreduce_start": "non-blocking allreduce: (src, dst, count, dtype, op, group, int64_t *request) -> 0; "
                       "src == dst: reduce in place (a gradient bucket nothing else reads); may be NULL",
    "wait": "(int64_t *request) -> 0 once the request started by allreduce_start is complete; may be NULL",
    "comm_progress": "() -> 0: let MPI advance the all-reduces started and not yet waited for (called between "
                     "kernels while one is in flight); may be NULL",
    "sgemm_nt": "(M, N, K, A, lda, B, ldb, tb, C, ldc) -> 0: C = A op(B) in float32 (op(B) = B^T when tb & 1; "
                "tb & 2: B is likely out of cache, prefetch it; tb & 4: B is a Parameter the module never "
                "writes, its packing may be kept until params_written is called), A row-major M x K, C M x N; "
                "nonzero leaves C untouched. May be NULL: products then call BLAS",
    "sgemm_ep": "(M, N, K, A, lda, B, ldb, tb, C, ldc, bias, R, ldr) -> 0: as sgemm_nt, then C[i][j] = "
                "R[i ldr + j] + (C[i][j] + bias[j]) (bias or R NULL: that addition left out); tb & 16 (ABI 10): "
                "then C[i][j] = C[i][j] > 0 ? C[i][j] : 0 (ReLU). May be NULL: "
                "products then call BLAS and make the additions",
    "params_written": "() -> void: called as a call of a graph that assigns Parameters starts and as it ends "
                      "(packings sgemm_nt / sgemm_ep kept are then stale); may be NULL",
    "py_call": "(site, inputs, outputs) -> 0: run ops.Custom's Python function (func_type 'pyfunc'); only "
               "pycompile's own runtime has one: NULL makes a graph calling one fail with its runtime error",
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
    from pycompile._version import __version__
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
        "target_cpu": files.get("target_cpu", "native"),
        "portable": files.get("portable", False),
        # libraries copied beside the .so (--portable), found through its $ORIGIN rpath
        "bundled_libraries": files.get("bundled", []),
        "build": {"command": shlex.join(toolchain.build_command(
                      files["c"], files["so"], uses_blas, headers=(".",), target_cpu=files.get("target_cpu", "native"),
                      portable=files.get("portable", False))),
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


def _soname(path: str) -> str:
    """The name a library is loaded by (its DT_SONAME; the file name when it has none)."""
    import subprocess
    try:
        out = subprocess.run(["readelf", "-d", path], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        out = ""
    for line in out.splitlines():
        if "(SONAME)" in line and "[" in line:
            return line.split("[", 1)[1].split("]", 1)[0]
    return os.path.basename(path)


def _build_for(report, stem: str, target_cpu: str, portable: bool, out_dir: str) -> list[str]:
    """Rebuild the .so from the report's C for another CPU level and / or as a portable
    directory: the libraries it loads besides glibc copied beside it under their load names,
    found through an $ORIGIN rpath. Returns the library files written."""
    import tempfile
    from pycompile.backend import toolchain
    uses_blas = "#include <cblas.h>" in report.c_source
    with tempfile.TemporaryDirectory(prefix="pycompile-export-") as d:
        c_path = os.path.join(d, os.path.basename(stem) + ".c")
        with open(c_path, "w") as f:
            f.write(report.c_source)
        import subprocess
        cmd = toolchain.build_command(c_path, stem + ".so", uses_blas, target_cpu=target_cpu, portable=portable)
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise ExportError(f"building for --target-cpu {target_cpu} failed: "
                              f"{' '.join(proc.stderr.strip().splitlines()[-3:])}\ncommand: {shlex.join(cmd)}")
    libs = []
    if portable:
        for lib in toolchain.bundled_libraries(uses_blas):
            dest = os.path.join(out_dir, _soname(lib))
            shutil.copyfile(lib, dest)
            os.chmod(dest, 0o755)
            libs.append(dest)
    return libs


def export(report, name: str, kinds, out_dir: str, target_cpu: str = "native", portable: bool = False) -> list[str]:
    """Write the files of `kinds` (subset of KINDS) for `report` into out_dir; returns the paths.
    `target_cpu` other than native, or `portable`, rebuild the .so for that (see _build_for).
    The files are named after the entry with anything but letters, digits, `_`, `-`, `.`
    replaced (a name is never a path out of out_dir)."""
    from pycompile.backend.c.text import file_stem
    entry, name = name, file_stem(name)
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
        bundled = []
        if target_cpu == "native" and not portable:
            shutil.copyfile(report.so_path, stem + ".so")
        else:
            bundled = _build_for(report, stem, target_cpu, portable, out_dir)
        written.append(stem + ".so")
        written.extend(bundled)
        files = {"so": name + ".so", "c": name + ".c" if "c" in kinds else None,
                 "target_cpu": target_cpu, "portable": portable,
                 "bundled": [os.path.basename(b) for b in bundled]}
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
        text(stem + ".json", dump_manifest(manifest(report, entry, args, files)))
    return written


def bind_arguments(out_dir: str, name: str, inputs) -> tuple[list, list]:
    """pc_entry's argument buffers for the library `name` exported into out_dir, from Python (the
    way a C caller fills them, for checking an export without writing C): each argument in the
    manifest's order gets a 64-byte aligned zeroed buffer, inputs (NumPy arrays, in order) copied in,
    Parameters and constants read from NAME.bin. Returns (the buffers - their addresses in order are
    pc_entry's `args`; keep them alive while it runs -, [(record, buffer) of each output]); read an
    output with `buffer.view(record["dtype"]).reshape(record["shape"])`."""
    with open(os.path.join(out_dir, name + ".json")) as f:
        man = json.load(f)
    values = iter(inputs)
    keep, outs = [], []
    for rec in man["args"]:
        raw = np.zeros(rec["nbytes"] + ALIGN, np.uint8)
        buf = raw[-raw.ctypes.data % ALIGN:][:rec["nbytes"]]
        if rec["kind"] == "input":
            x = np.ascontiguousarray(next(values))
            if list(x.shape) != rec["shape"] or x.nbytes != rec["nbytes"]:
                raise ValueError(f"input {rec['name']!r}: shape {list(x.shape)} / {x.nbytes} bytes, but the "
                                 f"library takes {rec['shape']} / {rec['nbytes']}")
            buf[:] = np.frombuffer(x.tobytes(), np.uint8)
        elif rec["kind"] in ("parameter", "constant"):
            with open(os.path.join(out_dir, rec["file"]), "rb") as f:
                f.seek(rec["offset"])
                buf[:] = np.frombuffer(f.read(rec["nbytes"]), np.uint8)
        elif rec["kind"] == "output":
            outs.append((rec, buf))
        keep.append(buf)
    return keep, outs
