"""pycompile: compile the @jit functions and Cells of a Python model file to native code and
print a summary table (`python -m pycompile` is the same command).

The file is imported as a module (its `if __name__ == "__main__":` block does not run); each
entry with known inputs is compiled through the API behind `pycompile.inspect`.

entries (--entry takes the variable or class name):
  - module-level @jit functions defined in the file
  - module-level Cell instances (model = Network())
  - Cell classes defined in the file whose __init__ needs no arguments: one instance is created
    (after set_seed(0)) unless the file holds an instance of the class, another entry uses the
    class as a sub-Cell, or the class does not define construct

inputs of an entry, first found wins:
  1. --input NAME=DTYPE[D0,D1,...] for the entry chosen with --entry
  2. Cell.set_inputs(...) or jit(input_signature=...) in the file: Tensors with shapes and dtypes,
     as in MindSpore, e.g. Tensor(shape=[64, 1, 28, 28], dtype=ms.float32)
  3. --input, for an entry whose required parameters it names all
  4. example_inputs() in the file, returning a tuple of arguments (used for every entry it fits)
     or a dict {entry name: tuple of arguments}
  5. none, for a construct or function without parameters
  Other entries are listed as skipped, with the reason. DTYPE is bool, int8, int16, int32, int64,
  uint8, uint16, uint32, uint64, float16, float32 or float64; [] is a 0-d tensor.

files (--emit ir,c,so -o DIR; -o alone emits all three):
  NAME.ir, NAME.frontend.ir   the IR after / before optimization
  NAME.c                      the generated C, with the model's source lines as comments
  NAME.so, NAME.json          the shared object and its manifest: pc_entry's arguments in order
                              (kind, name, dtype, shape, nbytes), the arena size and the pc_api
                              table to pass to pc_module_init, so a C program can call it
  NAME.bin, pycompile_rt.h    the Parameters' and large constants' bytes; the runtime header
  NAME.onnx                   (--emit onnx, Cells only) the model as ONNX opset 17, as
                              ms.onnx.export writes it (needs the onnx package)
  libNAME.so, libNAME.a, NAME.h   (--emit lib) a standalone C library: weights embedded, C API
                              pc_NAME_create / _run / _destroy, no Python at run time; built for
                              x86-64-v3 with an AVX-512 variant chosen at run time (--target-cpu: one CPU)
  --target-cpu generic|x86-64-v3|...  build the .so for that CPU level instead of this machine's
  --portable                  copy the libraries the .so loads (OpenBLAS, ...) beside it with an
                              $ORIGIN rpath: the directory runs on another machine of the same
                              OS and architecture

exit codes: 0 success; 1 an entry failed to compile or check (the others are still reported),
or the file failed to import; 2 usage error (bad option, missing file, bad --input, unwritable
output directory). Errors point at the model's file:line; --traceback adds pycompile's own.

examples:
  pycompile examples/network.py                     compile, print the summary table
  pycompile examples/network.py --check --bench 20  compare with PyNative; time 20 calls of each
  pycompile model.py --entry Net --input x=float32[64,1,28,28]
  pycompile model.py --input ids=int32[4,64] --input mask=bool[4,64]
  pycompile examples/gpt_blocks.py --emit ir,c,so -o out/
  pycompile examples/network.py --emit so --target-cpu x86-64-v3 --portable -o dist/
  pycompile examples/lenet.py --emit lib -o dist/   (or a model file: model.mindir, model.onnx)
  python -m pycompile examples/jit_class_sample.py -v --opt-level 1
"""
from __future__ import annotations

import argparse
import importlib.util
import inspect as pyinspect
import os
import re
import sys
import sysconfig
import tempfile
import time
import traceback
from dataclasses import dataclass, field

import numpy as np

from pycompile.backend.export import KINDS, ExportError, export
from pycompile.cli_support import copy_args, leaves, compare, mindir_entries, random_like
from pycompile.common import context, knobs
from pycompile.common.initializer import set_seed

EMIT_KINDS = KINDS + ("onnx", "lib")   # onnx, lib: only when asked

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """A bad command line: exit 2 with a one-line message."""


class ModelError(Exception):
    """The model file itself failed (syntax error, exception at import): exit 1."""


# ---- command line ------------------------------------------------------------------------------

class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(f"{message} (see pycompile --help)")


def build_parser() -> argparse.ArgumentParser:
    from pycompile import __version__
    from pycompile.backend import devices
    p = _Parser(prog="pycompile", formatter_class=argparse.RawDescriptionHelpFormatter,
                description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 2)[2])
    p.add_argument("model", metavar="MODEL.py", help="the Python file holding the model, or a .mindir / .onnx file")
    p.add_argument("--entry", metavar="NAME", help="compile only this entry (variable or class name)")
    p.add_argument("--input", metavar="NAME=DTYPE[SHAPE]", action="append", default=[],
                   help="an input of the entries, e.g. x=float32[64,1,28,28] (repeatable)")
    p.add_argument("--emit", metavar="KINDS", help="comma-separated: ir, c, so, onnx, lib (with -o; -o alone emits "
                                                   "ir, c and so)")
    p.add_argument("-o", "--output-dir", metavar="DIR", help="where --emit writes (default: current directory)")
    p.add_argument("--target-cpu", metavar="CPU",
                   help="the CPU the emitted .so is built for: native (default), generic, x86-64-v3, "
                        "or another -march value (--emit lib: x86-64-v3 + an AVX-512 variant by default)")
    p.add_argument("--portable", action="store_true",
                   help="copy the libraries the emitted .so loads (OpenBLAS ...) beside it, with an "
                        "$ORIGIN rpath, so the output directory runs on another machine")
    p.add_argument("--check", action="store_true",
                   help="run compiled vs PyNative on random inputs and report the max error")
    p.add_argument("--bench", metavar="N", type=int, help="time N calls, compiled vs PyNative")
    p.add_argument("--opt-level", type=int, choices=range(4), metavar="0-3",
                   help="optimization level (PYCOMPILE_OPT_LEVEL; default 3)")
    p.add_argument("--device", choices=devices.available(), help="device target (default: CPU)")
    p.add_argument("--traceback", action="store_true", help="show pycompile's traceback on errors")
    verbosity = p.add_mutually_exclusive_group()
    verbosity.add_argument("-q", "--quiet", action="store_true", help="print errors only")
    verbosity.add_argument("-v", "--verbose", action="store_true",
                           help="also print per-pass statistics and the files written")
    p.add_argument("--version", action="version", version=f"pycompile {__version__}")
    return p


_INPUT_RE = re.compile(r"^\s*([A-Za-z_]\w*)\s*=\s*([A-Za-z_][A-Za-z0-9_]*)\s*\[([^\[\]]*)\]\s*$")
_INPUT_FORM = "expected NAME=DTYPE[D0,D1,...], e.g. x=float32[64,1,28,28] ([] for a 0-d tensor)"


def parse_input(text: str):
    """'x=float32[64,1,28,28]' -> ('x', float32, (64, 1, 28, 28)); UsageError otherwise."""
    from pycompile.common import dtype as mstype
    m = _INPUT_RE.match(text)
    if m is None:
        raise UsageError(f"bad --input {text!r}: {_INPUT_FORM}")
    name, dt_name, dims = m.groups()
    names = {d.name.lower(): d for d in mstype.ALL}
    names.update({"bool": mstype.bool_, "bool_": mstype.bool_})
    dt = names.get(dt_name.lower())
    if dt is None:
        raise UsageError(f"bad --input {text!r}: unknown dtype {dt_name!r}; use one of "
                         f"{', '.join(_np_name(d) for d in mstype.ALL)}")
    shape = []
    for d in (dims.split(",") if dims.strip() else []):
        d = d.strip()
        if not d.isdigit():
            raise UsageError(f"bad --input {text!r}: dimension {d!r} is not a non-negative integer; {_INPUT_FORM}")
        shape.append(int(d))
    from pycompile.ops._table import MAX_BYTES
    nbytes = dt.itemsize
    for d in shape:
        nbytes *= d
    if nbytes > MAX_BYTES:
        raise UsageError(f"bad --input {text!r}: the tensor would have {nbytes // dt.itemsize} elements "
                         f"({nbytes} bytes), more than memory can address")
    return name, dt, tuple(shape)


def _np_name(dt) -> str:
    return dt.np.name


# ---- entries -------------------------------------------------------------------------------------

@dataclass
class Entry:
    name: str
    kind: str                     # "jit" (a @jit function) or "cell"
    target: object                # the JitFunction or the Cell instance
    params: list | None = None    # [(name, has_default)] of the Python signature; None: unknown
    args: tuple | None = None
    inputs_from: str = ""
    skip: str = ""                # reason when not compiled
    from_class: bool = False      # the command created the instance from a class in the file
    error: str = ""               # rendered error when compiling / checking failed
    report: object = None
    check: str = ""
    bench: str = ""
    files: list = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return bool(self.error)


def load_module(path: str):
    """Import the model file as a module; ModelError with the user's file:line on failure."""
    name = re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0]) or "model"
    if name in sys.modules or name == "pycompile":
        name = f"pycompile_model_{name}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(path))
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as e:
        sys.modules.pop(name, None)
        raise ModelError(_render_syntax_error(e)) from e
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as e:
        sys.modules.pop(name, None)
        raise ModelError(f"cannot import {_display(path)}: {render_exception(e)}") from e
    return module


def _render_syntax_error(e: SyntaxError) -> str:
    lines = [f"{_display(e.filename or '?')}:{e.lineno or 0}:{e.offset or 0}: {type(e).__name__}: {e.msg}"]
    if e.text:
        text = e.text.rstrip("\n")
        stripped = text.lstrip()
        lines.append("    " + stripped)
        lines.append("    " + " " * max((e.offset or 1) - 1 - (len(text) - len(stripped)), 0) + "^")
    return "\n".join(lines)


def _is_user_file(filename: str) -> bool:
    if not filename or filename.startswith("<"):
        return False
    f = os.path.abspath(filename)
    pkg = os.path.dirname(os.path.abspath(__file__))
    skip = [pkg] + [sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")]
    return not any(f.startswith(os.path.abspath(s) + os.sep) for s in skip)


def render_exception(e: BaseException) -> str:
    """A CompileError renders itself (file:line:col, source, caret, hint); any other exception is
    shown at the deepest frame in the user's code, or as an internal error."""
    from pycompile.errors import CompileError
    if isinstance(e, CompileError):
        text = e.render()
        if e.loc is not None and e.loc.file:
            text = text.replace(str(e.loc.file), _display(e.loc.file), 1)
        return text
    if isinstance(e, SyntaxError) and e.filename:
        return _render_syntax_error(e)
    msg = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
    frames = [f for f in traceback.extract_tb(e.__traceback__) if _is_user_file(f.filename)]
    if not frames:
        return f"internal error: {msg} (run with --traceback for details)"
    f = frames[-1]
    out = f"{_display(f.filename)}:{f.lineno}: {msg}"
    if f.line:
        out += "\n    " + f.line.strip()
    return out


def _display(path: str) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return rel if not rel.startswith("..") else path


def _construct_fn(cell):
    """The Python function behind a Cell's construct (unwrapping @jit)."""
    c = type(cell).construct
    return getattr(c, "fn", c)


def _is_jit_construct(cell) -> bool:
    return getattr(type(cell).construct, "_pycompile_jit", False)


def _signature_params(fn, drop_first: bool) -> list | None:
    try:
        sig = pyinspect.signature(fn)
    except (TypeError, ValueError):
        return None
    ps = list(sig.parameters.values())[1 if drop_first else 0:]
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in ps):
        return None
    return [(p.name, p.default is not p.empty) for p in ps]


def _needs_no_args(cls) -> bool:
    try:
        sig = pyinspect.signature(cls)
    except (TypeError, ValueError):
        return False
    return all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
               for p in sig.parameters.values())


def discover(module) -> list[Entry]:
    """The module's entries in definition order (see the module docstring for the rules)."""
    from pycompile.api import JitFunction
    from pycompile.nn.cell import Cell
    path = os.path.abspath(module.__file__)
    items = [(k, v) for k, v in vars(module).items() if not k.startswith("_")]
    instance_types = {type(v) for _, v in items if isinstance(v, Cell)}
    entries: list[Entry] = []
    for name, obj in items:
        if isinstance(obj, JitFunction):
            code = getattr(obj.fn, "__code__", None)
            if code is not None and os.path.abspath(code.co_filename) == path:
                entries.append(Entry(name, "jit", obj, _signature_params(obj.fn, False)))
        elif isinstance(obj, Cell):
            entries.append(Entry(name, "cell", obj, _signature_params(_construct_fn(obj), True)))
        elif (isinstance(obj, type) and issubclass(obj, Cell) and obj.__module__ == module.__name__
              and obj not in instance_types and obj.construct is not Cell.construct):
            entries.append(_instantiate(name, obj))
    # a class used as a sub-Cell of another entry is compiled as part of it, not on its own
    used = set()
    for e in entries:
        if isinstance(e.target, Cell):
            used.update(type(c) for n, c in e.target.cells_and_names() if n)
    return [e for e in entries
            if not (e.from_class and (e.target if isinstance(e.target, type) else type(e.target)) in used)]


def _instantiate(name: str, cls) -> Entry:
    """The entry of a Cell class the command creates an instance of (or why it cannot)."""
    if not _needs_no_args(cls):
        return Entry(name, "cell", cls, from_class=True,
                     skip="__init__ needs arguments; create an instance at module level (and call set_inputs on it)")
    try:
        cell = cls()
    except Exception as e:  # noqa: BLE001 - the user's constructor failed; reported as this entry's error
        return Entry(name, "cell", cls, from_class=True, error=f"creating {name}(): {render_exception(e)}")
    return Entry(name, "cell", cell, _signature_params(_construct_fn(cell), True), from_class=True)


def resolve_inputs(entries: list[Entry], module, cli_inputs: dict, chosen: bool) -> None:
    """Give each entry its arguments, or a reason to skip it. First found wins: --input for the
    entry chosen with --entry; set_inputs / input_signature; --input for the other entries;
    example_inputs(); no arguments at all for a construct / function without parameters."""
    from pycompile.common.tensor import Tensor
    examples = None
    example_fn = getattr(module, "example_inputs", None)
    for e in entries:
        if e.skip or e.error:
            continue
        cli_args = _cli_args(e, cli_inputs, chosen)
        declared = _declared_inputs(e)
        if cli_args is not None and (chosen or declared is None):
            e.args, e.inputs_from = cli_args, "--input"
            continue
        if declared is not None:
            e.args, e.inputs_from = declared
            continue
        if callable(example_fn):
            if examples is None:
                try:
                    examples = example_fn()
                except Exception as exc:  # noqa: BLE001 - the user's function failed
                    raise ModelError(f"example_inputs() failed: {render_exception(exc)}") from exc
            args = examples.get(e.name) if isinstance(examples, dict) else examples
            if isinstance(args, Tensor):
                args = (args,)
            if isinstance(args, (tuple, list)) and _fits(e, args):
                e.args, e.inputs_from = tuple(args), "example_inputs()"
                continue
        if e.params is not None and all(has_default for _, has_default in e.params):
            e.args, e.inputs_from = (), "no parameters"
            continue
        e.skip = _no_inputs_reason(e)


def _cli_args(e: Entry, cli_inputs: dict, chosen: bool):
    """The entry's arguments from --input, when they name all its required parameters."""
    if not cli_inputs or e.params is None:
        return None
    required = [n for n, has_default in e.params if not has_default]
    missing = [n for n in required if n not in cli_inputs]
    if missing:
        if chosen:
            raise UsageError(f"--input gives {', '.join(sorted(cli_inputs))} but entry {e.name} also needs "
                             f"{', '.join(missing)}")
        return None
    if not required and not any(n in cli_inputs for n, _ in e.params):
        return None
    return _ordered_cli_args(e.params, cli_inputs)


def _ordered_cli_args(params, cli_inputs) -> tuple:
    args = []
    for n, _ in params:
        if n not in cli_inputs:
            break           # keep positional order: stop at the first parameter not given
        args.append(_zeros(n, *cli_inputs[n]))
    return tuple(args)


def _zeros(name, dt, shape):
    from pycompile.common.tensor import Tensor
    try:
        return Tensor(np.zeros(shape, dt.np))
    except MemoryError:
        nbytes = int(np.prod(shape, dtype=object)) * dt.itemsize
        raise UsageError(f"--input {name}: a {_np_name(dt)}{list(shape)} tensor needs {nbytes} bytes, more than "
                         f"this machine can allocate") from None


def _declared_inputs(e: Entry):
    from pycompile.common.tensor import Tensor
    if e.kind == "jit":
        sig, where = e.target.input_signature, "input_signature"
    else:
        sig, where = e.target.get_inputs(), "set_inputs"
        if sig is None and _is_jit_construct(e.target):
            sig, where = type(e.target).construct.input_signature, "input_signature"
    if sig is None:
        return None
    if isinstance(sig, Tensor):
        sig = (sig,)
    # a dimension known only at run time (None) is compiled and checked at size 1
    sig = tuple(Tensor(np.zeros(tuple(1 if k in t.dynamic_dims else d for k, d in enumerate(t.shape)),
                                t.asnumpy().dtype)) if getattr(t, "dynamic_dims", ()) else t for t in sig)
    return sig, where


def _fits(e: Entry, args) -> bool:
    fn = e.target.fn if e.kind == "jit" else _construct_fn(e.target)
    try:
        sig = pyinspect.signature(fn)
        if e.kind == "cell":
            sig.bind(None, *args)
        else:
            sig.bind(*args)
    except (TypeError, ValueError):
        return False
    return True


def _no_inputs_reason(e: Entry) -> str:
    if e.params is None:
        return "no known inputs (call set_inputs(...) or define example_inputs())"
    names = ", ".join(n for n, _ in e.params)
    if not e.params:
        return "no known inputs"
    return f"no known inputs for ({names}); give --input {e.params[0][0]}=DTYPE[SHAPE], set_inputs or example_inputs()"


# ---- compiling, checking, benchmarking ------------------------------------------------------------

def compile_entry(e: Entry):
    if e.kind == "jit":
        return e.target.compiled(*e.args)
    if _is_jit_construct(e.target):
        return e.target.construct.compiled(*e.args)
    from pycompile.api import inspect as pc_inspect
    return pc_inspect(e.target, *e.args)


def run_compiled(e: Entry, args):
    if e.kind == "jit" or _is_jit_construct(e.target):
        return e.target(*args)
    from pycompile.api import compile_cell_call
    return compile_cell_call(e.target, args, {})


def run_eager(e: Entry, args):
    if e.kind == "jit":
        return e.target.fn(*args)
    if _is_jit_construct(e.target):
        return _construct_fn(e.target)(e.target, *args)
    return e.target(*args)          # PYNATIVE_MODE is set for the whole command


def _parameters(e: Entry) -> list:
    """The Parameters the compiled entry reads or writes."""
    if e.report.refs:
        return list(e.report.refs)
    return list(e.target.get_parameters()) if e.kind == "cell" else []


class _Restore:
    """Puts the Parameters' values back on exit: --check and --bench leave the model unchanged
    (a graph that assigns Parameters would otherwise drift from run to run)."""

    def __init__(self, params):
        self.params = params
        self.saved = [p._data.copy() for p in params]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.restore()

    def restore(self):
        for p, v in zip(self.params, self.saved):
            p.set_data(v)


def check_entry(e: Entry, rng) -> None:
    """Compiled vs PyNative on the same random inputs, both starting from the same Parameter
    values; the Parameters' values after the call are compared too."""
    params = _parameters(e)
    args = random_like(e.args, rng)
    with _Restore(params) as state:
        got = leaves(run_compiled(e, copy_args(args))) + [p._data.copy() for p in params]
        state.restore()
        set_seed(0)
        want = leaves(run_eager(e, copy_args(args))) + [p._data.copy() for p in params]
    err, problem = compare(got, want)
    if problem:
        e.error = f"--check failed: {problem}"
        e.check = f"FAILED (max err {err:.2g})"
    else:
        e.check = f"ok (max err {err:.2g})"


def bench_entry(e: Entry, n: int, rng) -> None:
    args = random_like(e.args, rng)
    times = {}
    with _Restore(_parameters(e)):
        for label, run in (("compiled", run_compiled), ("pynative", run_eager)):
            run(e, args)                            # warm-up
            t0 = time.perf_counter()
            for _ in range(n):
                run(e, args)
            times[label] = (time.perf_counter() - t0) / n
    ratio = times["pynative"] / times["compiled"] if times["compiled"] > 0 else float("inf")
    e.bench = (f"{times['compiled'] * 1e3:.3f} ms/call compiled, {times['pynative'] * 1e3:.3f} ms/call "
               f"PyNative ({ratio:.1f}x) over {n} calls")


# ---- emitting -----------------------------------------------------------------------------------

def prepare_output_dir(path: str) -> str:
    """Create `path` if needed and make sure files can be written there; its absolute path."""
    try:
        os.makedirs(path, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".pycompile-probe-"):
            pass
    except OSError as e:
        raise UsageError(f"cannot write to output directory {path!r}: {e.strerror or e}") from None
    return os.path.abspath(path)


# ---- reporting -----------------------------------------------------------------------------------

def _sig_text(e: Entry) -> str:
    from pycompile.common.tensor import Tensor
    if e.args is None:
        return "-"
    names = [n for n, _ in e.params] if e.params else []
    parts = []
    for k, a in enumerate(e.args):
        label = names[k] + ":" if k < len(names) else ""
        if isinstance(a, Tensor):
            parts.append(f"{label}{_np_name(a.dtype)}[{','.join(str(d) for d in a.shape)}]")
        else:
            parts.append(f"{label}{a!r}")
    return " ".join(parts) or "()"


STAGES = ("trace", "passes", "codegen", "cc", "load")


def table(entries: list[Entry], with_check: bool) -> str:
    head = ["entry", "inputs", "nodes", "C lines"] + [f"{s} ms" for s in STAGES] + ["cache", "result"]
    rows = [head]
    for e in entries:
        r = e.report
        if r is None:
            result = f"skipped: {e.skip}" if e.skip else "FAILED"
            rows.append([e.name, _sig_text(e), "-", "-"] + ["-"] * len(STAGES) + ["-", result])
            continue
        result = "FAILED" if e.failed else "ok"
        if with_check and e.check:
            result = e.check if not e.failed or e.check.startswith("FAILED") else "FAILED"
        rows.append([e.name, _sig_text(e), f"{r.nodes_before} -> {r.nodes_after}", str(r.c_lines)]
                    + [f"{r.times.get(s, 0.0) * 1e3:.1f}" for s in STAGES] + [r.cache, result])
    widths = [max(len(row[k]) for row in rows) for k in range(len(head) - 1)]
    lines = []
    for row in rows:
        cells = [c.ljust(w) if k < 2 else c.rjust(w) for k, (c, w) in enumerate(zip(row, widths))]
        lines.append("  ".join(cells + [row[-1]]).rstrip())
    return "\n".join(lines)


# ---- main ----------------------------------------------------------------------------------------

def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    show_tb = "--traceback" in argv
    try:
        return _main(argv)
    except UsageError as e:
        print(f"pycompile: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except ModelError as e:
        print(f"pycompile: error: {e}", file=sys.stderr)
        if show_tb and e.__cause__ is not None:
            traceback.print_exception(e.__cause__, file=sys.stderr)
        return EXIT_FAIL
    except KeyboardInterrupt:
        print("pycompile: interrupted", file=sys.stderr)
        return 130


def _main(argv) -> int:
    opts = build_parser().parse_args(argv)
    model = os.path.abspath(opts.model)
    if not os.path.exists(opts.model):
        raise UsageError(f"no such file: {opts.model}")
    if not os.path.isfile(model):
        raise UsageError(f"not a file: {opts.model}")
    cli_inputs = {}
    for text in opts.input:
        name, dt, shape = parse_input(text)
        if name in cli_inputs:
            raise UsageError(f"--input {name} given twice")
        cli_inputs[name] = (dt, shape)
    kinds = set()
    if opts.emit is not None:
        kinds = {k.strip() for k in opts.emit.split(",") if k.strip()}
        bad = sorted(kinds - set(EMIT_KINDS))
        if bad or not kinds:
            raise UsageError(f"bad --emit {opts.emit!r}: expected a comma-separated list of {', '.join(EMIT_KINDS)}")
    elif opts.output_dir is not None:
        kinds = set(KINDS)
    if (opts.target_cpu or opts.portable) and not kinds & {"so", "lib"} or opts.portable and "so" not in kinds:
        raise UsageError("--target-cpu and --portable apply to the emitted .so (--target-cpu also to --emit lib): "
                         "add --emit so (or -o DIR)")
    if opts.bench is not None and opts.bench < 1:
        raise UsageError(f"--bench N needs N >= 1, got {opts.bench}")
    out_dir = prepare_output_dir(opts.output_dir or ".") if kinds else None

    if opts.opt_level is not None:
        knobs.set_for_process("PYCOMPILE_OPT_LEVEL", opts.opt_level)
    set_seed(0)
    mindir = model.lower().endswith((".mindir", ".onnx"))      # a model file: one GraphCell entry
    module = None if mindir else load_module(model)
    # one context change before any compile: PyNative for the reference runs (compiled runs go
    # through the compile API directly, whatever the mode), and the device asked for
    ctx = {"mode": context.PYNATIVE_MODE}
    if opts.device:
        ctx["device_target"] = opts.device
    context.set_context(**ctx)

    entries = mindir_entries(model, Entry, ModelError) if mindir else discover(module)
    if opts.entry is not None:
        chosen = [e for e in entries if e.name == opts.entry]
        if not chosen:
            names = ", ".join(e.name for e in entries) or "none"
            raise UsageError(f"no entry named {opts.entry!r} in {opts.model} (entries: {names})")
        entries = chosen
    if not entries:
        print(f"pycompile: error: found no @jit functions or Cells in {opts.model}", file=sys.stderr)
        return EXIT_FAIL
    if cli_inputs:
        _check_cli_names(entries, cli_inputs)
    resolve_inputs(entries, module, cli_inputs, opts.entry is not None or mindir)

    log = (lambda *a: None) if opts.quiet else (lambda msg: print(msg, file=sys.stderr, flush=True))
    todo = [e for e in entries if e.args is not None]
    rng = np.random.default_rng(0)
    libs = {}                   # --emit lib: library name -> the entry it was built for
    for k, e in enumerate(todo, 1):
        if len(todo) > 1:
            log(f"[{k}/{len(todo)}] {e.name}: compiling ({_sig_text(e)})")
        try:
            set_seed(0)     # a model built inside the entry gets the same weights in the --check run
            e.report = compile_entry(e)
            if opts.check:
                check_entry(e, rng)
            if opts.bench and not e.failed:
                bench_entry(e, opts.bench, rng)
            if kinds - {"onnx", "lib"} and not e.failed:
                e.files = export(e.report, e.name, kinds - {"onnx", "lib"}, out_dir,
                                 target_cpu=opts.target_cpu or "native", portable=opts.portable)
            if "lib" in kinds and not e.failed:
                from pycompile.backend.lib import build as build_lib, lib_name
                if libs.setdefault(lib_name(e.name), e.name) != e.name:
                    raise ExportError(f"its library name {lib_name(e.name)!r} is entry {libs[lib_name(e.name)]}'s too; "
                                      f"emit one of them at a time with --entry")
                e.files += build_lib(e.report, e.name, out_dir, model, opts.target_cpu, [n for n, _ in e.params or ()])
            if "onnx" in kinds and not e.failed:
                from pycompile.export.onnx import emit_for_cli
                e.files.append(emit_for_cli(e.target if e.kind == "cell" else None, e.args, e.name, out_dir))
        except ExportError as exc:
            e.error = f"--emit: {exc}"
        except Exception as exc:  # noqa: BLE001 - reported per entry; the others still run
            writing = isinstance(exc, OSError) and kinds and str(exc.filename or "").startswith(out_dir)
            e.error = f"cannot write {exc.filename}: {exc.strerror}" if writing else render_exception(exc)
            if opts.traceback:
                traceback.print_exception(exc, file=sys.stderr)
    return _report(entries, opts)


def _check_cli_names(entries, cli_inputs) -> None:
    known = {n for e in entries if e.params for n, _ in e.params}
    for name in cli_inputs:
        if name not in known:
            sigs = "; ".join(f"{e.name}({', '.join(n for n, _ in e.params)})" for e in entries if e.params is not None)
            raise UsageError(f"--input {name}: no entry has a parameter named {name!r} (entries: {sigs or 'none'})")


def _report(entries: list[Entry], opts) -> int:
    failed = [e for e in entries if e.failed]
    if not opts.quiet:
        print(table(entries, opts.check))
        for e in entries:
            if e.bench:
                print(f"bench {e.name}: {e.bench}")
            if opts.verbose and e.report is not None:
                print(f"{e.name}: inputs from {e.inputs_from}")
                print(e.report.summary())
            if opts.verbose and e.files:
                print(f"{e.name}: wrote " + ", ".join(_display(f) for f in e.files))
    for e in failed:
        print(f"pycompile: error: entry {e.name}: {e.error}", file=sys.stderr)
    if opts.entry is not None and entries[0].skip:
        print(f"pycompile: error: entry {entries[0].name} was not compiled: {entries[0].skip}", file=sys.stderr)
        return EXIT_FAIL
    compiled = [e for e in entries if e.report is not None]
    if not compiled and not failed and not opts.quiet:
        print("pycompile: nothing compiled: no entry has known inputs", file=sys.stderr)
    return EXIT_FAIL if failed else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
