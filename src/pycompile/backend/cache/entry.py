"""The entry point: look the call up, load a verified entry, or compile and write one. An entry's
calling layout and report are persisted by their own classes (backend/compiled.py)."""
from __future__ import annotations

import json
import os
import sys
import time

import numpy as np

from pycompile.backend import devices, pipeline
from pycompile.backend.cache.common import FORMAT, Uncacheable, _explain_level, _sha, _warn
from pycompile.backend.cache.fingerprint import DepsRecorder, _check_deps, _locate_refs, _resolve_refs
from pycompile.backend.cache.key import LookupKey, _closest
from pycompile.backend.cache.store import CorruptEntry, Store, _unlink, open_store
from pycompile.backend.compiled import (CompileReport, Compiled, Layout, NotPersistable, StoredSources, _at_path,
                                        layout_text)
from pycompile.common import context, log
from pycompile.common.parameter import Parameter
from pycompile.common.tensor import Tensor

def _entry_meta(key: LookupKey, compiled: Compiled, recorder: DepsRecorder, store: Store,
                self_obj, args, kwargs) -> dict:
    """The entry written for a compile: its key, its dependencies, where its Parameters are found,
    and the persisted layout, shared object and report."""
    refs = _locate_refs(compiled.exe.refs, self_obj, args, kwargs, recorder)
    try:
        layout = compiled.layout.to_json(store.put_blob)
    except NotPersistable as e:
        raise Uncacheable(str(e)) from None
    with open(compiled.report.so_path, "rb") as f:
        so = store.put_blob(f.read(), ".so")
    return {"format": FORMAT, "created": time.time(), "components": key.components,
            "function": key.qualname, "where": key.where, "deps": recorder.deps(), "refs": refs,
            "refs_digest": _sha(json.dumps(refs, sort_keys=True).encode())[:16],
            "layout": layout, "so": so, "report": compiled.report.to_json(store.put_blob)}


class _TensorSpec:
    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype):
        self.shape, self.dtype = shape, dtype


def _skeleton(v):
    """Arguments without their tensor data (kept by a cache hit's report to trace again on request)."""
    if isinstance(v, Tensor) and not isinstance(v, Parameter):
        return _TensorSpec(v._data.shape, v._data.dtype)
    if type(v) in (tuple, list):
        return type(v)(_skeleton(x) for x in v)
    if type(v) is dict:
        return {k: _skeleton(x) for k, x in v.items()}
    return v


def _flesh(v):
    if isinstance(v, _TensorSpec):
        return Tensor._wrap(np.zeros(v.shape, v.dtype))
    if type(v) in (tuple, list):
        return type(v)(_flesh(x) for x in v)
    if type(v) is dict:
        return {k: _flesh(x) for k, x in v.items()}
    return v


def _retracer(fn, args, kwargs, self_obj, name):
    skeleton = _skeleton((tuple(args), dict(kwargs)))

    def retrace():
        from pycompile.compiler.frontend import trace
        from pycompile.compiler.passes import run_pipeline
        a, kw = _flesh(skeleton)
        opts = pipeline.options()
        traced = trace(fn, a, kw, self_obj=self_obj, name=name)
        graph, _ = run_pipeline(traced.graph, opt_level=opts["opt_level"], verify=False, options=opts)
        return traced.graph, graph
    return retrace


_LOADS = [0]


def _load_entry(meta: dict, store: Store, self_obj, args, kwargs):
    """A Compiled from a verified entry, or (None, reason) when its dependencies do not hold."""
    t0 = time.perf_counter()
    reason = _check_deps(meta["deps"])
    if reason is not None:
        return None, reason
    refs, reason = _resolve_refs(meta["refs"], self_obj, args, kwargs)
    if reason is not None:
        return None, reason
    so_path = store.blob_path(meta["so"])
    store.read_blob(meta["so"])                             # verify hash + size before loading
    layout = Layout.from_json(meta["layout"], store.read_blob)
    texts_ref = meta["report"]["texts"]
    store.check_size(texts_ref)                             # its hash is checked when it is read
    t1 = time.perf_counter()
    # dlopen through a fresh name: the dynamic loader returns an already loaded object of the same
    # name, which would be stale if this blob was rebuilt (a corrupt file replaced) in this process
    _LOADS[0] += 1
    link = os.path.join(store.blobs, f".load-{os.getpid()}-{_LOADS[0]}-{meta['so']['sha'][:16]}.so")
    try:
        os.symlink(os.path.basename(so_path), link)
        try:
            exe = devices.current().load(link, layout.executable_args(refs))
        finally:
            _unlink(link)
    except OSError as e:
        raise CorruptEntry(f"the shared object cannot be loaded: {e}") from None
    _check_layout(exe, layout, refs, args, kwargs)
    t2 = time.perf_counter()
    sources = StoredSources(lambda: json.loads(store.read_blob(texts_ref)), warn=_warn)
    report = CompileReport.from_json(meta["report"], sources, so_path, {"check": t1 - t0, "load": t2 - t1},
                                     layout.const_args, refs)
    return Compiled(exe, layout, report), None


def _check_layout(exe, layout: Layout, refs: list, args, kwargs) -> None:
    """The entry's calling layout against the one its module reports, before any call: an entry
    edited with its hash recomputed (another output shape, a slot more or less) would have the
    module read and write past the buffers the entry sized. A mismatch is a stale entry."""
    reported = getattr(exe, "reported_layout", lambda: "")()
    if reported == "":
        return                        # a device whose modules do not report one
    inputs = []
    for path in layout.input_paths:
        data = getattr(_at_path(args, kwargs, path), "_data", None)
        inputs.append((None, None) if data is None else (data.dtype, data.shape))
    expected = layout_text(inputs, [(r._data.dtype, r._data.shape) for r in refs],
                           [(t.dtype.np, tuple(t.shape)) for t in layout.out_types],
                           [(c.dtype, c.shape) for c in layout.const_args], layout.arena_size)
    if reported != expected:
        raise CorruptEntry(f"it is stale: its layout ({expected}) is not its module's "
                           f"({reported or 'none reported'})")


def compile_cached(fn, args: tuple, kwargs: dict, self_obj=None, name: str | None = None,
                   root: str | None = None) -> Compiled:
    """pipeline.compile_call, through the on-disk cache at `root` (default: the context's path)."""
    if root is None:
        root = context.compile_cache_settings()[1]
    store = open_store(root)
    if store is None:
        return pipeline.compile_call(fn, args, kwargs, self_obj=self_obj, name=name)
    t0 = time.perf_counter()
    try:
        key = LookupKey(fn, args, kwargs or {}, self_obj, name or getattr(fn, "__name__", "fn"), store)
    except Uncacheable as e:
        compiled = pipeline.compile_call(fn, args, kwargs, self_obj=self_obj, name=name)
        _finish_miss(compiled, f"not cacheable: {e}", getattr(fn, "__qualname__", repr(fn)))
        return compiled
    try:
        compiled, reason = _lookup(store, key, self_obj, args, kwargs or {})
    except Exception as e:        # a cache that fails must not fail the program: compile instead
        _warn(f"looking up {key.qualname} failed ({type(e).__name__}: {e}); compiling it")
        compiled, reason = None, f"lookup failed: {type(e).__name__}: {e}"
    if compiled is not None:
        rep = compiled.report
        rep.times = {"key": time.perf_counter() - t0 - sum(rep.times.values()), **rep.times}
        rep.cache_reason = "hit"
        rep.sources.retrace = _retracer(fn, args, kwargs or {}, self_obj, name)
        if _explain_level() >= 2:
            print(f"pycompile: compile cache hit for {key.qualname} ({key.where})", file=sys.stderr)
        log.cache.info("compile cache hit for %s (%s) in %s", key.qualname, key.where, store.dir)
        pipeline._save_graphs(compiled.report)
        return compiled
    if reason is None:
        reason = _closest(store, key)
    from pycompile.compiler import frontend
    recorder = DepsRecorder()
    recorder.function(key.fn)
    if self_obj is not None:
        recorder._guard(recorder.fp.fp, self_obj)
    recorder._guard(recorder.fp.fp, key.fn)
    frontend.DEPS.append(recorder)
    try:
        compiled = pipeline.compile_call(fn, args, kwargs, self_obj=self_obj, name=name)
    finally:
        frontend.DEPS.remove(recorder)
    if recorder.problem is not None:
        reason = f"{reason}; not cacheable: {recorder.problem}"
    else:
        try:
            os.makedirs(store.blobs, mode=0o700, exist_ok=True)     # removed while we compiled?
            meta = _entry_meta(key, compiled, recorder, store, self_obj, args, kwargs or {})
            store.write_entry(key, meta)
        except Uncacheable as e:
            reason = f"{reason}; not cacheable: {e}"
        except Exception as e:    # OSError, or a value the entry cannot hold: the program goes on
            _warn(f"could not write an entry for {key.qualname} in {store.dir}: {type(e).__name__}: {e}")
    _finish_miss(compiled, reason, key.qualname)
    return compiled


def _finish_miss(compiled: Compiled, reason: str, qualname: str) -> None:
    compiled.report.cache = "miss"
    compiled.report.cache_reason = reason
    if _explain_level():
        print(f"pycompile: compile cache miss for {qualname}: {reason}", file=sys.stderr)
    log.cache.info("compile cache miss for %s: %s", qualname, reason)


def _lookup(store: Store, key: LookupKey, self_obj, args, kwargs):
    reason = None
    for path in store.entries(store.key_dir(key)):
        entry = os.path.basename(path)
        meta = None
        try:
            meta = store.read_entry(path)
            if meta.get("format") != FORMAT or meta.get("components") != key.components:
                old = meta.get("components") or {}
                diff = [k for k in key.components if old.get(k) != key.components[k]]
                what = ", ".join(diff) or "format"
                detail = ""
                if "pycompile" in diff:
                    detail = f" (written by {old.get('pycompile')}; this is {key.components['pycompile']})"
                raise CorruptEntry(f"it is stale: {what} differ{'s' if len(diff) == 1 else ''}{detail}")
            compiled, why = _load_entry(meta, store, self_obj, args, kwargs)
        except FileNotFoundError:
            continue                      # replaced or removed by another process meanwhile
        except OSError as e:
            _warn(f"cannot read entry {path}: {e}")
            reason = reason or f"entry {entry} could not be read ({e})"
            continue
        except (CorruptEntry, KeyError, TypeError, ValueError, IndexError) as e:
            msg = str(e) if isinstance(e, CorruptEntry) else f"its metadata is malformed ({type(e).__name__}: {e})"
            _warn(f"entry {entry} of {key.qualname} in {os.path.dirname(path)} is unusable: {msg}; rebuilding it")
            _unlink(path)
            if isinstance(e, CorruptEntry) and "payload" in msg and meta is not None:
                try:
                    for ref in _blob_refs(meta):
                        p = store.blob_path(ref)
                        try:
                            store.read_blob(ref)
                        except CorruptEntry:
                            _unlink(p)
                except (CorruptEntry, KeyError, TypeError, AttributeError):
                    pass              # best effort: the entry is already gone and gets rebuilt
            reason = reason or f"entry {entry} was unusable ({msg})"
            continue
        if compiled is not None:
            return compiled, None
        reason = reason or why
    return None, reason


def _blob_refs(meta: dict) -> list:
    refs = [meta.get("so"), meta.get("report", {}).get("texts")] + Layout.blob_refs(meta.get("layout", {}))
    return [r for r in refs if isinstance(r, dict)]
