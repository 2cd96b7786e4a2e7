"""What the jit layer says about compiles (through pycompile.common.log): the compile line, the
reason for each recompile, the notice for a compile that runs past a second, and the warning
when one function keeps recompiling for the same tensor shapes.

A call's specialization key (api._signature) holds, per argument, a Tensor's (dtype, shape), a
Python number / string's (type, value), a tuple's keys, or an object's identity. This module
reads those keys back into words: `x: Tensor[Float32, (64, 784)]`, and for a recompile, the
argument whose key differs from the closest earlier one ("x changed shape (64, 784) -> (32, 784)").
"""
from __future__ import annotations

import inspect as inspect_mod
import threading
import time

import numpy as np

from pycompile.common import context, log
from pycompile.common import dtype as mstype

SLOW_COMPILE_SECONDS = 1.0      # a compile running longer than this says what it is compiling
RECOMPILE_LIMIT = 8             # recompiles for the same tensor shapes before the warning


class SpecCache(dict):
    """signature key -> Compiled for one function (or one Cell instance), with the bookkeeping
    the recompile messages need: keys in compile order and whether the limit warning was given."""

    def __init__(self):
        super().__init__()
        self.order: list = []
        self.warned = False


# ---- describing keys ---------------------------------------------------------------------------

def _is_tensor_key(k) -> bool:
    return isinstance(k, tuple) and len(k) == 2 and isinstance(k[0], np.dtype)


def _dtype_name(d: np.dtype) -> str:
    try:
        return mstype.from_numpy(d).name
    except Exception:       # a dtype pycompile has no name for: NumPy's
        return str(d)


def describe_key(k) -> str:
    if _is_tensor_key(k):
        return f"Tensor[{_dtype_name(k[0])}, {tuple(k[1])}]"
    if isinstance(k, tuple) and len(k) == 3 and k[0] == "mutable":        # ms.mutable (api._mutable_key)
        if k[1] == "number":
            return f"mutable {_dtype_name(k[2])}"
        return "mutable " + describe_key((k[1], k[2]))
    if isinstance(k, tuple) and k and k[0] == "param":
        return f"Parameter[{_dtype_name(k[3])}, {tuple(k[2])}]"
    if isinstance(k, tuple) and len(k) == 2 and k[0] in (tuple, list):
        inner = ", ".join(describe_key(x) for x in k[1])
        return f"({inner}{',' if len(k[1]) == 1 and k[0] is tuple else ''})" if k[0] is tuple else f"[{inner}]"
    if isinstance(k, tuple) and len(k) == 2 and k[0] is dict:
        return "{" + ", ".join(f"{n!r}: {describe_key(v)}" for n, v in k[1]) + "}"
    if isinstance(k, tuple) and len(k) == 2 and k[0] == "obj":
        obj = k[1].obj
        return f"<{type(obj).__name__} object>"
    if isinstance(k, tuple) and len(k) == 2 and isinstance(k[0], type):
        return f"{k[0].__name__}={k[1]!r}" if k[1] is not None else "None"
    return repr(k)


def _param_names(fn, n_args: int, bound: bool) -> list:
    try:
        params = list(inspect_mod.signature(fn).parameters.values())
    except (TypeError, ValueError):
        params = []
    if bound and params:
        params = params[1:]
    star = next((p for p in params if p.kind == p.VAR_POSITIONAL), None)
    names = []
    for k in range(n_args):
        if k < len(params) and params[k].kind in (params[k].POSITIONAL_ONLY, params[k].POSITIONAL_OR_KEYWORD):
            names.append(params[k].name)
        elif star is not None:
            names.append(f"{star.name}[{k - params.index(star)}]")
        else:
            names.append(f"arg{k}")
    return names


def _named_parts(fn, sig: tuple, bound: bool) -> list:
    """[(argument name, key)] of a signature key (positional keys, then (name, key) keyword pairs)."""
    if sig[:1] == ("dynamic",):          # a run-time batch size: (None, ...) shapes follow
        sig = sig[1:]
    positional = [k for k in sig if not (isinstance(k, tuple) and len(k) == 2 and isinstance(k[0], str)
                                         and k[0] not in ("param", "obj"))]
    keywords = sig[len(positional):]
    names = _param_names(fn, len(positional), bound)
    return list(zip(names, positional)) + [(n, v) for n, v in keywords]


def describe_signature(fn, key, bound: bool) -> str:
    sig = key[0]
    return ", ".join(f"{n}: {describe_key(k)}" for n, k in _named_parts(fn, sig, bound))


def where(fn) -> str:
    fn = getattr(fn, "_pycompile_origin", fn)       # a compiled gradient: the user's function
    code = getattr(fn, "__code__", None)
    if code is None:
        return ""
    return f" ({code.co_filename.rsplit('/', 1)[-1]}:{code.co_firstlineno})"


# ---- what changed ------------------------------------------------------------------------------

def _diff(name: str, old, new, out: list) -> None:
    if old == new:
        return
    if _is_tensor_key(old) and _is_tensor_key(new):
        if old[0] != new[0]:
            out.append(("dtype", name, f"{name} changed dtype {_dtype_name(old[0])} -> {_dtype_name(new[0])}"))
        if old[1] != new[1]:
            out.append(("shape", name, f"{name} changed shape {tuple(old[1])} -> {tuple(new[1])}"))
        return
    if (isinstance(old, tuple) and isinstance(new, tuple) and len(old) == 2 == len(new)
            and old[0] in (tuple, list) and old[0] is new[0] and len(old[1]) == len(new[1])):
        for k, (a, b) in enumerate(zip(old[1], new[1])):
            _diff(f"{name}[{k}]", a, b, out)
        return
    if (isinstance(old, tuple) and isinstance(new, tuple) and len(old) == 2 == len(new)
            and isinstance(old[0], type) and old[0] is new[0] and old[0] not in (tuple, list, dict)):
        out.append(("value", name, f"{name} changed value {old[1]!r} -> {new[1]!r} (a Python "
                                   f"{old[0].__name__} is compiled in as a constant)"))
        return
    out.append(("type", name, f"{name} changed from {describe_key(old)} to {describe_key(new)}"))


def _differences(fn, old_key, new_key, bound: bool) -> list:
    out: list = []
    old_parts, new_parts = _named_parts(fn, old_key[0], bound), _named_parts(fn, new_key[0], bound)
    if [n for n, _ in old_parts] != [n for n, _ in new_parts]:
        out.append(("type", "arguments", f"the arguments changed from ({describe_signature(fn, old_key, bound)}) "
                                         f"to ({describe_signature(fn, new_key, bound)})"))
    else:
        for (n, a), (_, b) in zip(old_parts, new_parts):
            _diff(n, a, b, out)
    if old_key[1] != new_key[1]:
        mode_only = (isinstance(old_key[1], tuple) and isinstance(new_key[1], tuple) and len(old_key[1]) == 2
                     and old_key[1][0] == new_key[1][0])        # Cell._graph_key: (version, modes)
        out.append(("attr", "self", "the train / eval mode of the Cell or a sub-Cell changed (set_train)"
                    if mode_only else "an attribute of the Cell was set after it was built"))
    if old_key[2] != new_key[2]:
        out.append(("context", "set_context", context.last_change()))
    return out


def _skeleton(k):
    """A key with Python values blanked: equal skeletons mean equal tensor shapes and dtypes."""
    if _is_tensor_key(k) or (isinstance(k, tuple) and k and k[0] == "param"):
        return k
    if isinstance(k, tuple) and len(k) == 2 and k[0] in (tuple, list, dict):
        return (k[0], tuple(_skeleton(x) for x in k[1]))
    if isinstance(k, tuple) and len(k) == 2 and isinstance(k[0], str) and k[0] != "obj":
        return (k[0], _skeleton(k[1]))          # a keyword argument
    if isinstance(k, tuple) and len(k) == 2 and isinstance(k[0], type):
        return (k[0], "...")
    return k if not isinstance(k, tuple) else tuple(_skeleton(x) for x in k)


def before_compile(cache: SpecCache, fn, key, name: str, bound: bool) -> None:
    """Called when `key` misses the in-memory cache: log the recompile reason, and warn once when
    the function has recompiled RECOMPILE_LIMIT times for the same tensor shapes."""
    if not cache.order:
        return
    best = min(reversed(cache.order), key=lambda old: len(_differences(fn, old, key, bound)))
    diffs = _differences(fn, best, key, bound)
    if log.enabled(log.recompiles):
        reason = "; ".join(d[2] for d in diffs) or "a new signature"
        log.recompiles.info("recompiling %s%s (signature %d): %s", name, where(fn), len(cache.order) + 1, reason)
    if cache.warned:
        return
    skel = _skeleton(key[0])
    same = [old for old in cache.order if _skeleton(old[0]) == skel]
    if len(same) < RECOMPILE_LIMIT:
        return
    cache.warned = True
    changing = sorted({d[1] for old in same[-RECOMPILE_LIMIT:] for d in _differences(fn, old, key, bound)
                       if d[0] == "value"})
    what = ", ".join(f"'{n}'" for n in changing) or "a Python value"
    log.recompiles.warning(
        "%s%s has been recompiled %d times for the same tensor shapes because the Python value of "
        "argument %s changes between calls, and each value compiles a new executable. Pass it as a "
        "Tensor, or wrap it with ms.mutable(...) so it becomes a run-time input.",
        name, where(fn), len(same), what)


def after_compile(cache: SpecCache, fn, key, name: str, bound: bool, compiled, seconds: float) -> None:
    cache.order.append(key)
    if not log.enabled(log.compiles):
        return
    rep = compiled.report
    stages = ", ".join(f"{s} {t * 1e3:.1f}" for s, t in rep.times.items())
    cache_note = "compile cache hit" if rep.cache == "disk" else "compiled"
    log.compiles.info("%s %s%s for (%s) in %.1f ms: %s ms; %d -> %d nodes, %d C lines", cache_note, name, where(fn),
                      describe_signature(fn, key, bound), seconds * 1e3, stages, rep.nodes_before,
                      rep.nodes_after, rep.c_lines)


class SlowNotice:
    """A timer that, if the compile is still running after SLOW_COMPILE_SECONDS, prints one line
    saying what is being compiled (and the stage it is in). Cancelled when the compile ends."""

    def __init__(self, describe, stage):
        self._describe = describe
        self._stage = stage
        self._timer = threading.Timer(SLOW_COMPILE_SECONDS, self._fire)
        self._timer.daemon = True
        self._t0 = time.perf_counter()

    def _fire(self):
        stage = self._stage()
        log.compiles.warning("compiling %s: %.1f s so far%s; the first call of each new signature compiles, "
                             "later calls reuse it", self._describe(), time.perf_counter() - self._t0,
                             f" (now {stage})" if stage else "")

    def __enter__(self):
        self._timer.start()
        return self

    def __exit__(self, *exc):
        self._timer.cancel()
        return False
