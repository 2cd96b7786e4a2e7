"""`pycompile MODEL --emit lib -o DIR`: one compiled specialization as a standalone C library.

    DIR/lib<name>.so     the model, its weights (embedded as read-only data) and the part of the
                         runtime it needs (csrc/pool.c's thread pool, csrc/gemm.c's small-product
                         kernel), with only the pc_<name>_* functions exported
    DIR/lib<name>.a      the same as one relocatable object (its internal symbols made local), for
                         static linking: `cc app.c lib<name>.a -lscipy_openblas -lmvec -lm -pthread` (as the header says)
    DIR/<name>.h         the C API: create / run / destroy / last_error, each input's and output's
                         rank, shape, dtype, byte size and name, the status codes
    DIR/<name>.bin       the weights file the library embeds (same bytes): pc_<name>_create can load
                         another file of this layout in its place (weights trained later)
    DIR/libscipy_openblas.so   when the model calls BLAS: found beside the library ($ORIGIN rpath)

Nothing of Python is loaded at run time (no libpython, no cffi): tests/export/test_emit_lib.py
checks the library's dynamic symbols and needed libraries. `<name>` is the entry's name made a
C identifier (lower case; anything but letters, digits and `_` becomes `_`): no text a user
wrote reaches the C unescaped (backend/c/text.py).

Why weights embedded: one file to ship, no path to get wrong at run time, and read-only pages
the OS shares between processes; a model whose call assigns Parameters gets a private copy per
context. The `.bin` beside it keeps weights replaceable without a rebuild.

Built for x86-64-v3 (AVX2 + FMA) by default, portable across the x86-64 machines of the last
decade; `--target-cpu native` (or any -march value) instead. pc_<name>_create first checks that
the CPU it runs on has every instruction set the build used (the compiler's predefined macros for
the target name them) and fails with PC_LIB_E_CPU otherwise, instead of dying on an illegal
instruction; the checking code is compiled for the architecture's baseline.
"""
from __future__ import annotations

import os
import platform
import shlex
import shutil
import subprocess
import tempfile
import zlib

import numpy as np

from pycompile.backend import errinfo, toolchain
from pycompile.backend.c import text
from pycompile.backend.export import ALIGN, ExportError, arg_layout

WEIGHTS_MAGIC = b"PCWEIGHT"
HEADER_BYTES = 64
# status codes of the C API (also in every generated header, under one guard)
STATUS = (("OK", "success"), ("E_ARG", "a NULL or otherwise invalid argument"),
          ("E_THREADS", "num_threads outside 0 .. 256"),
          ("E_CPU", "this CPU lacks an instruction set the library was built for"),
          ("E_WEIGHTS", "the weights file cannot be read or does not match the model"),
          ("E_NOMEM", "out of memory"), ("E_RUNTIME", "the model's call failed (the message says why)"),
          ("E_BUSY", "the context is running a call on another thread"))
MAX_THREADS = 256               # csrc/pool.c: PC_MAX_WORKERS + 1
# x86 instruction sets a build may use (the target's predefined macro -> __builtin_cpu_supports)
_X86_FEATURES = (("__SSE3__", "sse3"), ("__SSSE3__", "ssse3"), ("__SSE4_1__", "sse4.1"),
                 ("__SSE4_2__", "sse4.2"), ("__SSE4A__", "sse4a"), ("__POPCNT__", "popcnt"), ("__AVX__", "avx"),
                 ("__AVX2__", "avx2"), ("__FMA__", "fma"), ("__BMI__", "bmi"), ("__BMI2__", "bmi2"),
                 ("__AVX512F__", "avx512f"), ("__AVX512CD__", "avx512cd"), ("__AVX512BW__", "avx512bw"),
                 ("__AVX512DQ__", "avx512dq"), ("__AVX512VL__", "avx512vl"))


def default_target() -> str:
    """x86-64-v3 on x86-64, the baseline elsewhere."""
    return "x86-64-v3" if platform.machine() in ("x86_64", "AMD64") else "generic"


def lib_name(name) -> str:
    """The C name of a library made from `name` (an entry or a model file's stem)."""
    s = text.ident(str(name).lower(), limit=48).strip("_")
    while "__" in s:
        s = s.replace("__", "_")
    if not s:
        s = "model"
    return s if not s[0].isdigit() else "m" + s


def _runtime_source(name: str) -> str:
    """csrc/`name` (installed beside the headers, or in the source tree)."""
    for d in toolchain.include_dirs():
        p = os.path.join(d, name)
        if os.path.exists(p):
            return p
    raise ExportError(f"pycompile's runtime source {name} is missing from the installation (reinstall with "
                      f"`pip install .`)")


def cpu_features(target_cpu: str) -> list:
    """The x86 instruction sets a build for `target_cpu` may use (empty elsewhere)."""
    if platform.machine() not in ("x86_64", "AMD64"):
        return []
    cmd = toolchain.cc_command() + toolchain.march(target_cpu) + ["-dM", "-E", "-x", "c", os.devnull]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise ExportError(f"the C compiler rejects --target-cpu {target_cpu}: "
                          f"{' '.join(proc.stderr.strip().splitlines()[-2:])}\ncommand: {shlex.join(cmd)}")
    defined = {line.split()[1] for line in proc.stdout.splitlines() if line.startswith("#define ")}
    return [feature for macro, feature in _X86_FEATURES if macro in defined]


# ---- the weights blob ---------------------------------------------------------------------------------

def weights_blob(args: list, blobs: list) -> tuple[bytes, int]:
    """(the bytes: a 64-byte header, then every Parameter and constant at a 64-byte aligned offset
    recorded in its arg record as `offset`; the layout's fingerprint). Header: magic, u64 total
    size, u64 fingerprint, u32 count; the fingerprint is a CRC of the names, dtypes and shapes."""
    layout = ";".join(f"{r['name']}:{r['dtype']}{r['shape']}" for r, _ in blobs).encode("utf-8", "surrogatepass")
    fingerprint = zlib.crc32(layout) | (len(blobs) << 32)
    parts, pos = [], HEADER_BYTES
    for rec, arr in blobs:
        pad = -pos % ALIGN
        parts.append(b"\0" * pad)
        pos += pad
        rec["offset"] = pos
        data = np.ascontiguousarray(arr).tobytes()
        parts.append(data)
        pos += len(data)
    head = WEIGHTS_MAGIC + pos.to_bytes(8, "little") + fingerprint.to_bytes(8, "little") \
        + len(blobs).to_bytes(4, "little")
    return head.ljust(HEADER_BYTES, b"\0") + b"".join(parts), fingerprint


# ---- the header ---------------------------------------------------------------------------------------

_DTYPE_CODES = ("BOOL", "INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64", "FLOAT16",
                "FLOAT32", "FLOAT64")


def _io_tables(w: list, name: str, what: str, recs: list) -> None:
    rank = max([len(r["shape"]) for r in recs] + [1])
    n = max(len(recs), 1)           # C has no empty arrays

    def table(ctype, field, values):
        w.append(f"static const {ctype} pc_{name}_{what}_{field}[{n}] = {{{', '.join(values) or '0'}}};")

    table("int", "rank", [str(len(r["shape"])) for r in recs])
    shapes = ", ".join("{" + ", ".join(str(d) for d in (r["shape"] or [0])) + "}" for r in recs) or "{0}"
    w.append(f"static const int64_t pc_{name}_{what}_shape[{n}][{rank}] = {{{shapes}}};")
    table("int", "dtype", [f"PC_LIB_{_DTYPE_CODES[r['dtype_code']]}" for r in recs])
    table("size_t", "nbytes", [str(r["nbytes"]) for r in recs])
    w.append(f"static const char *const pc_{name}_{what}_name[{n}] = "
             f"{{{', '.join(text.string(r['name']) for r in recs) or '0'}}};")


def header_text(name: str, entry: str, model_file: str, args: list, built_for: str, uses_blas: bool) -> str:
    from pycompile._version import __version__
    up = name.upper()
    ins = [a for a in args if a["kind"] == "input"]
    outs = [a for a in args if a["kind"] == "output"]
    sig = lambda recs: ", ".join(f"{text.comment(r['name'])}: {r['dtype']}{r['shape']}" for r in recs)
    link = "-l" + name + (" -lscipy_openblas" if uses_blas else "") + " -Wl,-rpath,'$ORIGIN'"
    w = [f"/* {name}.h: the C API of lib{name}.so, generated by pycompile {__version__} from",
         f" * {text.comment(os.path.basename(model_file))}, entry {text.comment(entry)}; built for {built_for}.",
         f" *   inputs:  {sig(ins)}",
         f" *   outputs: {sig(outs)}",
         " *",
         f" * Link: cc app.c -I. -L. {link}   (or statically: lib{name}.a"
         f"{' -lscipy_openblas' if uses_blas else ''}{' -lmvec' if toolchain.HAVE_LIBMVEC else ''} -lm -pthread)",
         " *",
         f" *   pc_{name}_ctx *ctx = pc_{name}_create(NULL, 1);    (NULL: the embedded weights)",
         f" *   if (!ctx) {{ fprintf(stderr, \"%s\\n\", pc_{name}_last_error()); ... }}",
         " *   const void *in[] = {x};  void *out[] = {y};",
         f" *   int rc = pc_{name}_run(ctx, in, out);               (0, or a PC_LIB_E_* code)",
         f" *   pc_{name}_destroy(ctx);",
         " *",
         " * Buffers are C-contiguous, row-major, native byte order, aligned to their element size, with the",
         " * shapes and dtypes below; outputs must not overlap inputs. Errors are return codes (never an",
         f" * abort); the message of the last failure on the calling thread is pc_{name}_last_error().",
         " * A context holds the scratch",
         " * memory of one call and its thread count, and runs one call at a time (a second thread gets",
         " * PC_LIB_E_BUSY); use one context per thread to run calls concurrently. Contexts share the",
         " * library's worker threads (created on the first call that runs on more than one thread). */",
         f"#ifndef PC_{up}_H", f"#define PC_{up}_H", "#include <stddef.h>", "#include <stdint.h>",
         "#ifdef __cplusplus", 'extern "C" {', "#endif", "",
         "#ifndef PC_LIB_COMMON_DEFINED", "#define PC_LIB_COMMON_DEFINED",
         "/* what the functions return (pc_*_run) or leave in pc_*_last_status (pc_*_create) */",
         "enum pc_lib_status {"]
    w += [f"    PC_LIB_{s} = {k},{' ' * (12 - len(s))}/* {doc} */" for k, (s, doc) in enumerate(STATUS)]
    w += ["};", "/* element types (pycompile_rt.h's enum pc_dtype) */", "enum pc_lib_dtype {",
          "    " + ", ".join(f"PC_LIB_{d} = {k}" for k, d in enumerate(_DTYPE_CODES[:6])) + ",",
          "    " + ", ".join(f"PC_LIB_{d} = {k + 6}" for k, d in enumerate(_DTYPE_CODES[6:])),
          "};", "#endif", "",
          f"typedef struct pc_{name}_ctx pc_{name}_ctx;", "",
          f"#define PC_{up}_NUM_INPUTS {len(ins)}", f"#define PC_{up}_NUM_OUTPUTS {len(outs)}",
          f"#define PC_{up}_MAX_THREADS {MAX_THREADS}", "",
          "/* per input / output k: rank, shape (the first rank entries), dtype, size in bytes, name */"]
    _io_tables(w, name, "input", ins)
    _io_tables(w, name, "output", outs)
    w += ["",
          f"/* A context for calls of the model on num_threads threads (0: one per online CPU; at most",
          f" * PC_{up}_MAX_THREADS). weights_path NULL: the weights built into the library; otherwise a file",
          f" * of {name}.bin's layout (same names, dtypes and shapes). NULL on failure: see",
          f" * pc_{name}_last_status() and pc_{name}_last_error(). */",
          f"pc_{name}_ctx *pc_{name}_create(const char *weights_path, int num_threads);",
          f"/* One call: inputs[k] points to input k's bytes, outputs[k] to output k's buffer. 0 or a",
          " * PC_LIB_E_* code (outputs are then unspecified). */",
          f"int pc_{name}_run(pc_{name}_ctx *ctx, const void *const *inputs, void *const *outputs);",
          f"/* frees the context (NULL: nothing); not while a call on it runs */",
          f"void pc_{name}_destroy(pc_{name}_ctx *ctx);",
          f"/* the message / status of the last failed create or run on this thread (\"\" / 0: none yet) */",
          f"const char *pc_{name}_last_error(void);",
          f"int pc_{name}_last_status(void);", "",
          "#ifdef __cplusplus", "}", "#endif", "#endif", ""]
    return "\n".join(w)


# ---- the C sources ------------------------------------------------------------------------------------

# the runtime part, compiled for the target CPU: the thread pool and the small-product kernel, and the
# pc_api table generated code calls through. `team`: the calling context's thread count.
RUNTIME_C = r"""/* generated by pycompile: the runtime of a standalone library (backend/lib.py) */
#define _GNU_SOURCE
#include <stdio.h>
#include "pycompile_rt.h"
#include "pool.c"
#include "gemm.c"

static _Thread_local int pc_lib_team = 1;       /* threads of the context whose call this thread runs */
void pc_lib_set_team(int n) { pc_lib_team = n; }
static int pc_lib_threads(void) { return pc_lib_team; }
static void pc_lib_parallel_for(pc_task_fn fn, void *ctx, long n) { pc_parallel_for_team(fn, ctx, n, pc_lib_team); }
static volatile int pc_lib_status_word;
static void pc_lib_status_raise(int bits) { if (bits) __atomic_or_fetch(&pc_lib_status_word, bits, __ATOMIC_RELAXED); }
static int pc_lib_status_get(void) { return pc_lib_status_word; }
static void pc_lib_status_clear(void) { pc_lib_status_word = 0; }
/* Print in a model: what it shows, on stdout (PyNative prints the same values) */
static void pc_lib_print_tensor(const void *data, int dtype, int ndim, const int64_t *shape)
{
    (void)data;
    printf("Tensor(dtype code %d, shape (", dtype);
    for (int k = 0; k < ndim; ++k)
        printf(k ? ", %lld" : "%lld", (long long)shape[k]);
    printf("))\n");
}
static void pc_lib_print_str(const char *s, int64_t n) { fwrite(s, 1, (size_t)n, stdout); putchar('\n'); }
static void pc_lib_print_scalar(double v, int dtype) { (void)dtype; printf("%.17g\n", v); }

static pc_api pc_lib_table = {
    PC_RT_ABI_VERSION, pc_lib_threads, pc_lib_parallel_for, pc_lib_status_raise, pc_lib_status_get,
    pc_lib_status_clear, pc_lib_print_tensor, pc_lib_print_str, pc_lib_print_scalar,
    0, pc_thread_index, 0, 0, 0, 0, 0, 0, 0, 0, 0, pc_params_written, 0,
};
const pc_api *pc_lib_api(void)
{
    pc_lib_table.sgemm_nt = pc_sgemm_nt_choose();
    pc_lib_table.sgemm_ep = pc_sgemm_ep_choose();
    return &pc_lib_table;
}
void pc_lib_params_written(void) { pc_params_written(); }
"""


def api_text(name: str, args: list, size: int, fingerprint: int, errors: list, variants: list,
             writes_params: bool) -> str:
    """The exported functions (compiled for the baseline CPU, so the CPU check runs anywhere).
    `variants`: (symbol prefix, instruction sets) of each build of the model, the preferred first:
    create picks the first whose instruction sets this CPU has."""
    index = {kind: [a["index"] for a in args if a["kind"] == kind] for kind in ("input", "output")}
    stored = [a for a in args if a["kind"] in ("parameter", "constant")]
    arena = args[-1]
    n_args = len(args)
    msgs = ", ".join(text.string(errinfo.plain(e)) for e in errors) or "0"
    x86 = platform.machine() in ("x86_64", "AMD64")
    decls = "\n".join(f"int {p}module_init(const void *api);\nint {p}entry(void **args);" for p, _ in variants)
    table = ", ".join(f"{{{p}module_init, {p}entry}}" for p, _ in variants)
    checks = []
    for k, (_, features) in enumerate(variants):
        checks.append(f"    /* variant {k}: {' '.join(features) or 'the baseline'} */")
        checks += [f'    if (!__builtin_cpu_supports("{f}")) {{ *missing = "{f}"; goto next{k}; }}' for f in features]
        checks += [f"    return {k};", f"next{k}:;"]
    checks = "\n".join(checks)
    fill = "\n".join(f"    c->args[{a['index']}] = w + {a['offset']};   /* {text.comment(a['name'])} */"
                     for a in stored)
    put_in = ", ".join(str(i) for i in index["input"]) or "0"
    put_out = ", ".join(str(i) for i in index["output"]) or "0"
    n_in, n_out = len(index["input"]), len(index["output"])
    return rf"""/* generated by pycompile: the C API of lib{name} (backend/lib.py); see {name}.h */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "{name}.h"

#define PC_API __attribute__((visibility("default")))
/* the model, built for each CPU level (hidden in the library) */
{decls}
static const struct {{ int (*init)(const void *); int (*entry)(void **); }} pc_variants[] = {{{table}}};
static int (*pc_run_entry)(void **args);
const void *pc_lib_api(void);                   /* the runtime part */
void pc_lib_set_team(int n);
void pc_lib_params_written(void);

/* the weights, embedded as read-only data ({name}.bin's bytes) */
__asm__(".section .rodata\n.balign 64\n.hidden pc_lib_weights\n.globl pc_lib_weights\npc_lib_weights:\n"
        ".incbin \"weights.bin\"\n.previous\n");
extern const unsigned char pc_lib_weights[];
#define PC_WEIGHTS_BYTES {size}ULL
#define PC_WEIGHTS_PRINT 0x{fingerprint:016x}ULL
#define PC_N_ARGS {n_args}
#define PC_ARENA_BYTES {(arena['nbytes'] + ALIGN - 1) // ALIGN * ALIGN}UL
static const char *const pc_errors[] = {{{msgs}}};
static const int pc_n_errors = {len(errors)};
static const int pc_in_index[] = {{{put_in}}}, pc_out_index[] = {{{put_out}}};

struct pc_{name}_ctx {{
    int num_threads;
    int busy;
    unsigned char *owned;       /* weights read from a file, or a copy the calls may write */
    void *arena;
    void *args[PC_N_ARGS];
}};

static _Thread_local char pc_msg[512];
static _Thread_local int pc_last;

static int fail(int status, const char *fmt, ...)
{{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pc_msg, sizeof pc_msg, fmt, ap);
    va_end(ap);
    pc_last = status;
    return status;
}}

PC_API const char *pc_{name}_last_error(void) {{ return pc_msg; }}
PC_API int pc_{name}_last_status(void) {{ return pc_last; }}

/* the first variant of the model whose instruction sets this CPU has, or -1 (*missing: one the
   most portable variant needs) */
static int choose_variant(const char **missing)
{{
{"    __builtin_cpu_init();" if x86 else ""}
{checks}
    (void)missing;
    return -1;
}}

static pthread_once_t pc_once = PTHREAD_ONCE_INIT;
static int pc_init_rc, pc_variant;
static const char *pc_missing;
static void module_init(void)
{{
    pc_variant = choose_variant(&pc_missing);
    if (pc_variant >= 0) {{
        pc_run_entry = pc_variants[pc_variant].entry;
        pc_init_rc = pc_variants[pc_variant].init(pc_lib_api());
    }}
}}

static unsigned long long le64(const unsigned char *p)
{{
    unsigned long long v = 0;
    for (int k = 7; k >= 0; --k)
        v = v << 8 | p[k];
    return v;
}}

/* the weights file's bytes in 64-byte aligned memory, checked against the model's layout */
static unsigned char *read_weights(const char *path)
{{
    FILE *f = fopen(path, "rb");
    if (!f) {{
        fail(PC_LIB_E_WEIGHTS, "cannot open the weights file %s: %s", path, strerror(errno));
        return 0;
    }}
    unsigned char head[64];
    unsigned char *w = 0;
    if (fread(head, 1, 64, f) != 64 || memcmp(head, "PCWEIGHT", 8) != 0)
        fail(PC_LIB_E_WEIGHTS, "%s is not a pycompile weights file (no PCWEIGHT header)", path);
    else if (le64(head + 16) != PC_WEIGHTS_PRINT)
        fail(PC_LIB_E_WEIGHTS, "%s holds the weights of another model (its names, dtypes or shapes differ "
             "from {name}.bin's)", path);
    else if (le64(head + 8) != PC_WEIGHTS_BYTES)
        fail(PC_LIB_E_WEIGHTS, "%s declares %llu bytes where {name}.bin has %llu", path, le64(head + 8),
             PC_WEIGHTS_BYTES);
    else if (!(w = aligned_alloc(64, (PC_WEIGHTS_BYTES + 63) / 64 * 64)))
        fail(PC_LIB_E_NOMEM, "out of memory reading %s", path);
    else {{
        memcpy(w, head, 64);
        if (fread(w + 64, 1, PC_WEIGHTS_BYTES - 64, f) != PC_WEIGHTS_BYTES - 64 || fgetc(f) != EOF) {{
            fail(PC_LIB_E_WEIGHTS, "%s is not %llu bytes long (truncated, or longer)", path, PC_WEIGHTS_BYTES);
            free(w);
            w = 0;
        }}
    }}
    fclose(f);
    return w;
}}

PC_API pc_{name}_ctx *pc_{name}_create(const char *weights_path, int num_threads)
{{
    pthread_once(&pc_once, module_init);
    if (pc_variant < 0) {{
        fail(PC_LIB_E_CPU, "lib{name} was built for a CPU with %s, which this one lacks (rebuild it with "
             "pycompile --emit lib --target-cpu for this machine)", pc_missing);
        return 0;
    }}
    if (num_threads == 0) {{
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        num_threads = n < 1 ? 1 : n > PC_{name.upper()}_MAX_THREADS ? PC_{name.upper()}_MAX_THREADS : (int)n;
    }}
    if (num_threads < 0 || num_threads > PC_{name.upper()}_MAX_THREADS) {{
        fail(PC_LIB_E_THREADS, "num_threads is %d: expected 0 (one per CPU) to %d", num_threads,
             PC_{name.upper()}_MAX_THREADS);
        return 0;
    }}
    if (pc_init_rc != {_abi_version()}) {{
        fail(PC_LIB_E_RUNTIME, "the model's runtime ABI is %d, expected {_abi_version()}", pc_init_rc);
        return 0;
    }}
    pc_{name}_ctx *c = calloc(1, sizeof *c);
    if (!c) {{
        fail(PC_LIB_E_NOMEM, "out of memory for a context");
        return 0;
    }}
    c->num_threads = num_threads;
    const unsigned char *w = pc_lib_weights;
    if (weights_path) {{
        if (!(c->owned = read_weights(weights_path))) {{
            free(c);
            return 0;
        }}
        w = c->owned;
    }} else if ({int(writes_params)}) {{    /* the calls assign Parameters: a copy of this context's own */
        if (!(c->owned = aligned_alloc(64, (PC_WEIGHTS_BYTES + 63) / 64 * 64))) {{
            free(c);
            fail(PC_LIB_E_NOMEM, "out of memory for the weights");
            return 0;
        }}
        memcpy(c->owned, pc_lib_weights, PC_WEIGHTS_BYTES);
        w = c->owned;
    }}
    if (!(c->arena = aligned_alloc(64, PC_ARENA_BYTES))) {{
        free(c->owned);
        free(c);
        fail(PC_LIB_E_NOMEM, "out of memory for the %lu bytes of scratch memory", PC_ARENA_BYTES);
        return 0;
    }}
{fill}
    (void)w;
    c->args[PC_N_ARGS - 1] = c->arena;
    /* the small-product kernel keeps packed copies of weights by address: a new buffer may reuse a
       freed one's address */
    pc_lib_params_written();
    return c;
}}

PC_API int pc_{name}_run(pc_{name}_ctx *ctx, const void *const *inputs, void *const *outputs)
{{
    if (!ctx)
        return fail(PC_LIB_E_ARG, "pc_{name}_run: ctx is NULL");
    if (!inputs && {n_in})
        return fail(PC_LIB_E_ARG, "pc_{name}_run: inputs is NULL");
    if (!outputs && {n_out})
        return fail(PC_LIB_E_ARG, "pc_{name}_run: outputs is NULL");
    for (int k = 0; k < {n_in}; ++k)
        if (!inputs[k])
            return fail(PC_LIB_E_ARG, "pc_{name}_run: inputs[%d] (%s) is NULL", k, pc_{name}_input_name[k]);
    for (int k = 0; k < {n_out}; ++k)
        if (!outputs[k])
            return fail(PC_LIB_E_ARG, "pc_{name}_run: outputs[%d] (%s) is NULL", k, pc_{name}_output_name[k]);
    if (__atomic_exchange_n(&ctx->busy, 1, __ATOMIC_ACQUIRE))
        return fail(PC_LIB_E_BUSY, "pc_{name}_run: the context is running a call on another thread");
    for (int k = 0; k < {n_in}; ++k)
        ctx->args[pc_in_index[k]] = (void *)inputs[k];
    for (int k = 0; k < {n_out}; ++k)
        ctx->args[pc_out_index[k]] = outputs[k];
    pc_lib_set_team(ctx->num_threads);
    const int rc = pc_run_entry(ctx->args);
    pc_lib_set_team(1);
    __atomic_store_n(&ctx->busy, 0, __ATOMIC_RELEASE);
    if (rc == 0)
        return PC_LIB_OK;
    if (rc >= 1000 && rc - 1000 < pc_n_errors)
        return fail(PC_LIB_E_RUNTIME, "%s", pc_errors[rc - 1000]);
    return fail(PC_LIB_E_RUNTIME, "the model's call failed with code %d", rc);
}}

PC_API void pc_{name}_destroy(pc_{name}_ctx *ctx)
{{
    if (!ctx)
        return;
    pc_lib_params_written();
    free(ctx->owned);
    free(ctx->arena);
    free(ctx);
}}
"""


def _abi_version() -> int:
    from pycompile._rt import lib as rt_lib
    return int(rt_lib.PC_RT_ABI_VERSION)


# ---- building -----------------------------------------------------------------------------------------

def _compile_flags(target_cpu: str) -> list:
    """Generated code's flags for an object file (not a shared object) for `target_cpu`."""
    flags = toolchain.for_target(toolchain._with_openmp(toolchain.flags()), target_cpu)
    return [f for f in flags if f != "-shared" and not f.startswith("-Wl,")]


def _run_all(cmds: list, cwd: str) -> None:
    """Run the compiler commands side by side; ExportError naming the first that failed."""
    procs = []
    for cmd in cmds:
        try:
            procs.append((cmd, subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)))
        except OSError as e:
            for _, p in procs:
                p.kill()
                p.wait()
            raise ExportError(f"cannot run {cmd[0]} to build the library: {e.strerror or e}") from None
    failed = None
    for cmd, proc in procs:
        out, _ = proc.communicate()
        if proc.returncode != 0 and failed is None:
            failed = (cmd, out.decode("utf-8", "replace"))
    if failed:
        cmd, out = failed
        raise ExportError(f"building the library failed: {' '.join(out.strip().splitlines()[-4:])}\n"
                          f"command (in {cwd}): {shlex.join(cmd)}")


# runtime.o by its compile command and sources: the same for every model built for one CPU level
_RUNTIME_OBJECTS: dict = {}


def _runtime_key(cmd: list) -> tuple:
    sources = []
    for f in ("pool.c", "gemm.c", "gemm_avx2.c", "pycompile_rt.h"):
        with open(_runtime_source(f), "rb") as fh:
            sources.append(zlib.crc32(fh.read()))
    return (tuple(cmd), RUNTIME_C, tuple(sources))


def build(report, entry: str, out_dir: str, model_file: str = "", target_cpu: str | None = None,
          input_names=(), static: bool = True) -> list[str]:
    """Write lib<name>.so (and .a), <name>.h and <name>.bin for `report` into out_dir; the paths.
    `input_names`: what the header calls the inputs (the traced names when their count differs)."""
    name = lib_name(entry)
    args, blobs = arg_layout(report)
    inputs = [a for a in args if a["kind"] == "input"]
    if len(input_names) == len(inputs):
        for a, n in zip(inputs, input_names):
            a["name"] = n
    blob, fingerprint = weights_blob(args, blobs)
    c_source = report.c_source
    uses_blas = "#include <cblas.h>" in c_source
    writes_params = "pc_entry_body(" in c_source or bool(report.updates and report.updates[0])
    if target_cpu is None and platform.machine() in ("x86_64", "AMD64"):
        # the portable default: x86-64-v3, and an AVX-512 build picked at run time where the CPU has it
        # (the direct convolutions' register tiles are sized for AVX-512's 32 vector registers)
        variants = [("pc_v4_", "x86-64-v4"), ("pc_v3_", "x86-64-v3")]
    else:
        variants = [("pc_", target_cpu or default_target())]
    levels = []
    for prefix, cpu in variants:
        try:
            levels.append((prefix, cpu, cpu_features(cpu)))
        except ExportError:
            if prefix != "pc_v4_":      # a compiler without x86-64-v4 (GCC < 11) builds v3 alone
                raise
    if len(levels) == 1 and levels[0][0] != "pc_":
        levels = [("pc_", levels[0][1], levels[0][2])]
    built_for = ", or ".join(f"{cpu} ({' '.join(f) or 'the baseline'})" for _, cpu, f in levels)
    if len(levels) > 1:
        built_for += ", the first this CPU runs chosen by pc_" + name + "_create"
    header = header_text(name, entry, model_file, args, built_for, uses_blas)
    api = api_text(name, args, len(blob), fingerprint, list(report.runtime_errors),
                   [(p, f) for p, _, f in levels], writes_params)
    cc = toolchain.cc_command()
    includes = [f"-I{d}" for d in toolchain.include_dirs()]
    includes.append(f"-I{os.path.dirname(_runtime_source('pool.c'))}")
    if uses_blas:
        includes.append(f"-I{toolchain.blas_paths()[0]}")
    hidden = ["-fvisibility=hidden"]
    with tempfile.TemporaryDirectory(prefix="pycompile-lib-") as d:
        for fname, content in (("model.c", c_source), ("runtime.c", RUNTIME_C), ("api.c", api),
                               (f"{name}.h", header)):
            with open(os.path.join(d, fname), "w") as f:
                f.write(content)
        with open(os.path.join(d, "weights.bin"), "wb") as f:
            f.write(blob)
        models = []
        for prefix, cpu, _ in levels:
            rename = [f"-D{sym}={prefix}{sym[3:]}" for sym in ("pc_entry", "pc_module_init") if prefix != "pc_"]
            models.append(cc + _compile_flags(cpu) + hidden + rename + includes
                          + ["-c", "model.c", "-o", f"model_{cpu}.o"])
        runtime_cmd = cc + _compile_flags(levels[-1][1]) + hidden + includes + ["-pthread", "-c", "runtime.c",
                                                                                "-o", "runtime.o"]
        runtime_key = _runtime_key(runtime_cmd)
        if runtime_key in _RUNTIME_OBJECTS:
            with open(os.path.join(d, "runtime.o"), "wb") as f:
                f.write(_RUNTIME_OBJECTS[runtime_key])
        else:
            models.append(runtime_cmd)
        _run_all(models + [
                  cc + ["-O2", "-std=gnu11", "-fPIC", "-w", *toolchain.march("generic"), *hidden, "-I.",
                        "-c", "api.c", "-o", "api.o"]], d)
        # each build keeps only its entry points global: nothing else of one can clash with the other
        _run_all([["objcopy", "-G", f"{prefix}entry", "-G", f"{prefix}module_init", f"model_{cpu}.o"]
                  for prefix, cpu, _ in levels], d)
        if runtime_key not in _RUNTIME_OBJECTS:
            with open(os.path.join(d, "runtime.o"), "rb") as f:
                _RUNTIME_OBJECTS[runtime_key] = f.read()
        objs = ["api.o", *(f"model_{cpu}.o" for _, cpu, _ in levels), "runtime.o"]
        libs = ["-lm"] + (["-lmvec"] if toolchain.HAVE_LIBMVEC else [])
        if uses_blas:
            libs += [f"-L{toolchain.blas_paths()[1]}", "-lscipy_openblas"]
        so = f"lib{name}.so"
        link = [cc + ["-shared", "-o", so, *objs, *libs, "-pthread", f"-Wl,-soname,{so}", "-Wl,-rpath,$ORIGIN",
                      "-Wl,-z,nodelete", "-Wl,-z,defs"]]
        _run_all(link, d)
        products = [so, f"{name}.h"]
        if static:
            _run_all([cc + ["-r", "-nostdlib", "-o", "all.o", *objs]], d)
            _run_all([["objcopy", "--localize-hidden", "all.o"]], d)
            _run_all([["ar", "rcs", f"lib{name}.a", "all.o"]], d)
            products.append(f"lib{name}.a")
        written = []
        for p in products:
            shutil.copyfile(os.path.join(d, p), os.path.join(out_dir, p))
            written.append(os.path.join(out_dir, p))
    with open(os.path.join(out_dir, f"{name}.bin"), "wb") as f:
        f.write(blob)
    written.append(os.path.join(out_dir, f"{name}.bin"))
    if uses_blas:
        for lib in toolchain.bundled_libraries(True):
            from pycompile.backend.export import _soname
            dest = os.path.join(out_dir, _soname(lib))
            if not os.path.exists(dest) or os.path.getsize(dest) != os.path.getsize(lib):
                shutil.copyfile(lib, dest)
                os.chmod(dest, 0o755)
            written.append(dest)
    return written
