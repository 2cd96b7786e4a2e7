"""The lookup key: computed before tracing from what a call brings (pycompile's installation, the
C compiler, flags, CPU, options, the function's source and closure, the signature, the root Cell)."""
from __future__ import annotations

import functools
import json
import os
import sys
import types

import numpy as np

from pycompile._version import __version__
from pycompile.backend import pipeline, toolchain
from pycompile.backend.cache.common import ABSENT, FORMAT, Uncacheable, _rel, _safe, _sha
from pycompile.backend.cache.fingerprint import Fingerprinter
from pycompile.backend.cache.store import CorruptEntry, Store, _atomic_write
from pycompile.backend.devices import current as current_device
from pycompile.common.parameter import Parameter
from pycompile.common.tensor import Tensor
from pycompile.common import knobs

@functools.lru_cache(maxsize=None)
def _installation() -> str:
    """pycompile's version and a fingerprint (path, size, mtime) of its files and C headers."""
    here = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    rows = []
    roots = [here]
    try:
        roots += list(toolchain.include_dirs())
    except toolchain.ToolchainError:
        pass                      # headers missing: the compile itself reports it
    for root in roots:
        stack = [root]
        while stack:
            d = stack.pop()
            try:
                it = list(os.scandir(d))
            except OSError:
                continue
            for e in it:
                if e.is_dir(follow_symlinks=False):
                    if e.name != "__pycache__" and not e.name.startswith("."):
                        stack.append(e.path)
                elif e.name.endswith((".py", ".h", ".c", ".so")):
                    st = e.stat()
                    rows.append(f"{e.path}:{st.st_size}:{st.st_mtime_ns}")
    rows.sort()
    py = ".".join(map(str, sys.version_info[:3]))
    files = _sha("\n".join(rows))[:16]
    return f"pycompile {__version__}, Python {py}, NumPy {np.__version__}, files {files}"


@functools.lru_cache(maxsize=None)
def _cpu() -> str:
    import platform
    model, flags = "", ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if not line.strip():
                    break
                k, _, v = line.partition(":")
                k = k.strip()
                if k == "model name":
                    model = v.strip()
                elif k in ("flags", "Features"):
                    flags = v.strip()
    except OSError:
        model = platform.processor()
    return f"{platform.machine()} {model} features {_sha(flags)[:16]}"


def _which(cmd: str):
    if os.sep in cmd:
        return cmd if os.access(cmd, os.X_OK) else None
    for d in os.environ.get("PATH", os.defpath).split(os.pathsep):
        p = os.path.join(d or ".", cmd)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return None


_CC_MEMO: dict = {}


def _compiler(store: "Store") -> str:
    """The C compiler's path and version line, memoized by the binary's stat in toolchain.json."""
    cc = knobs.get("CC")
    try:
        words = toolchain.cc_words()
    except toolchain.ToolchainError:
        return f"{cc} (not a command)"
    # every word of $CC that names an executable (CC="ccache gcc": both), by path and stat
    stats = []
    for word in words:
        path = _which(word) if not word.startswith("-") else None
        if path is None:
            continue
        real = os.path.realpath(path)
        try:
            st = os.stat(real)
        except OSError:
            continue
        stats.append(f"{path}|{real}|{st.st_size}|{st.st_mtime_ns}")
    if not stats or _which(words[0]) is None:
        return f"{cc} (not found)"
    memo_key = f"{cc}|" + "|".join(stats)
    ident = _CC_MEMO.get(memo_key)
    if ident is not None:
        return ident
    memo_path = os.path.join(store.dir, "toolchain.json")
    try:
        with open(memo_path) as f:
            memo = json.load(f)
        if not isinstance(memo, dict):
            memo = {}
    except (OSError, ValueError):
        memo = {}
    ident = memo.get(memo_key)
    if not isinstance(ident, str):
        full = toolchain.compiler_identity()
        ident = " | ".join(full.split(" | ")[:2])
        memo[memo_key] = ident
        try:
            _atomic_write(memo_path, json.dumps(memo, indent=1, sort_keys=True).encode())
        except OSError:
            pass
    _CC_MEMO[memo_key] = ident
    return ident


def _sig(v):
    t = type(v)
    if v is None or t is bool or t is int or t is float or t is str:
        return repr(v)
    if isinstance(v, Parameter):
        return f"Parameter({v.name}, {v._data.dtype}{list(v._data.shape)})"
    if isinstance(v, Tensor):
        if getattr(v, "_pc_value_arg", False):      # compiled by value (api._ByValue)
            return f"TensorValue({v._data.dtype}{list(v._data.shape)}, {_sha(v._data.tobytes().hex())[:32]})"
        return f"Tensor({v._data.dtype}{list(v._data.shape)})"
    if isinstance(v, (np.number, np.bool_)):
        return f"{v.dtype}({v.item()!r})"
    if t is tuple or t is list:
        inner = ", ".join(_sig(x) for x in v)
        return f"({inner},)" if t is tuple else f"[{inner}]"
    if t is dict:
        return "{" + ", ".join(f"{k!r}: {_sig(x)}" for k, x in v.items()) + "}"
    raise Uncacheable(f"an argument of type {t.__qualname__} (only Tensors, Parameters, numbers, strings "
                      f"and tuples / lists / dicts of them are cacheable arguments)")


def _short(text: str, limit: int = 240) -> str:
    return text if len(text) <= limit else text[:160] + "... #" + _sha(text)[:16]



def build_environment(store) -> dict:
    """The key components every entry shares, a graph's or a PyNative kernel's: the cache format,
    this installation, the C compiler, its flags and the CPU."""
    return {"format": str(FORMAT), "pycompile": _installation(), "compiler": _compiler(store),
            "flags": " ".join(toolchain.flags()), "cpu": _cpu()}

class LookupKey:
    """The key computable before tracing: components (name -> text) and its hash."""

    def __init__(self, fn, args, kwargs, self_obj, name, store: "Store"):
        f = fn
        for _ in range(10):
            if not hasattr(f, "__wrapped__"):
                break
            f = f.__wrapped__
        code = getattr(f, "__code__", None)
        if code is None:
            raise Uncacheable(f"{fn!r} is not a Python function")
        self.fn = f
        self.qualname = f"{f.__module__}:{f.__qualname__}"
        self.where = f"{_rel(code.co_filename)}:{code.co_firstlineno}"
        self.source_text = _entry_source(f)
        fpr = Fingerprinter()
        opts = dict(pipeline.options())
        opts["device"] = current_device().name
        sig = "(" + ", ".join([_sig(a) for a in args] + [f"{k}={_sig(v)}" for k, v in sorted(kwargs.items())]) + ")"
        self.components = {
            **build_environment(store),
            "options": json.dumps(opts, sort_keys=True),
            "function": f"{self.qualname} as {name}",
            "source": f"{code.co_firstlineno}:{_sha(self.source_text)[:32]}",
            "closure": fpr.hash((fpr.fp(f.__closure__ and tuple(_cell(c) for c in f.__closure__)),
                                 fpr.fp(f.__defaults__), fpr.fp(f.__kwdefaults__))),
            "signature": _short(sig),
            "self": "" if self_obj is None else f"{type(self_obj).__qualname__} {fpr.hash(self_obj)}",
        }
        self.digest = _sha(json.dumps(self.components, sort_keys=True).encode())[:40]
        self.fn_dir = f"{_safe(f.__qualname__)[:40]}-{_sha(self.components['function'])[:12]}"


def _cell(c):
    try:
        return c.cell_contents
    except ValueError:
        return ABSENT


def _entry_source(f) -> str:
    """The entry function's source lines, from its first line (decorators included) to the last
    line of its code: no tokenizer (its first use costs ~10 ms, more than a whole cache hit)."""
    import linecache
    code = f.__code__
    linecache.checkcache(code.co_filename)
    lines = linecache.getlines(code.co_filename)
    last = _last_line(code)
    if not lines or last > len(lines):
        raise Uncacheable(f"the source of {f.__qualname__} is not available")
    return "".join(lines[code.co_firstlineno - 1:last])


def _last_line(code) -> int:
    last = code.co_firstlineno
    if hasattr(code, "co_positions"):
        ends = [p[1] for p in code.co_positions() if p[1] is not None]
    else:  # Python < 3.11
        ends = [line for _, _, line in code.co_lines() if line is not None]
    last = max([last, *ends])
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            last = max(last, _last_line(c))
    return last


_COMPONENT_MESSAGES = {
    "format": "the cache format changed",
    "pycompile": "the pycompile version or installation changed",
    "compiler": "the C compiler changed",
    "flags": "the compiler flags changed",
    "cpu": "the CPU features changed",
    "options": "compile options changed",
    "function": "another function",
    "source": "source of {fn} changed",
    "closure": "captured values (closure cells / default arguments) of {fn} changed",
    "signature": "signature changed",
    "self": "state of the {cls} instance changed (attributes, sub-Cells or Parameter shapes)",
}


def _describe(name: str, old: str, new: str, key: LookupKey) -> str:
    msg = _COMPONENT_MESSAGES.get(name, f"{name} changed").format(
        fn=f"{key.where.split(':')[0]}:{key.fn.__qualname__}", cls=new.split(" ")[0] if new else "bound")
    if name in ("signature", "options", "compiler", "pycompile"):
        msg += f": {old} -> {new}"
    return msg


def _closest(store: Store, key: LookupKey) -> str:
    """Why nothing matched: the components that differ from the closest entry of this function."""
    fn_dir = os.path.join(store.dir, key.fn_dir)
    best = None
    try:
        key_dirs = [e.path for e in os.scandir(fn_dir) if e.is_dir() and e.name != key.digest]
    except OSError:
        key_dirs = []
    for d in key_dirs:
        for path in store.entries(d)[:1]:
            try:
                comps = store.read_entry(path).get("components") or {}
            except (OSError, CorruptEntry):
                continue
            diff = [k for k in key.components if comps.get(k) != key.components[k]]
            if best is None or len(diff) < len(best[0]):
                best = (diff, comps)
    if best is None:
        return f"no entry for {key.qualname} ({key.where}) yet"
    diff, comps = best
    return "; ".join(_describe(k, comps.get(k, ""), key.components[k], key) for k in diff) or "unknown"
