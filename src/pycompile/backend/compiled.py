"""One compiled specialization, in memory and on disk.

* `Layout`: how a call reaches the executable and how its Python result is rebuilt - the graph
  inputs' paths in the arguments, the output tree, output types, arena size, runtime error
  messages, large constants.
* `CompileReport`: what `pycompile.inspect` returns - the IR before and after optimization, the C
  source, per-pass and per-stage times, node counts, memory. Its graphs and texts come from
  `Sources`: the graphs of this compile (TracedSources), or a cache entry's texts read on first
  use with the graphs traced again on request (StoredSources).
* `Compiled`: the executable with its layout and report; `run` is the hot path of a call.

Each class owns its persisted form (`to_json` / `from_json`), which the compile cache stores;
payloads (arrays, texts) go through the `put_blob` / `read_blob` functions the cache passes in.
Nothing here imports the compiler: a compile-cache hit builds all three without it.
"""
from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import RefType, ScalarType, TensorType
from pycompile.common.parameter import Parameter
from pycompile.common.sparse_tensor import SPARSE_TYPES, rebuild_named
from pycompile.common.tensor import Tensor
from pycompile.compiler.stats import PassStat


class NotPersistable(ValueError):
    """A part of a compiled call that a cache entry cannot hold (the message says which)."""


def _npy_bytes(a: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(a), allow_pickle=False)
    return buf.getvalue()


def _npy_load(data: bytes) -> np.ndarray:
    return np.load(io.BytesIO(data), allow_pickle=False)


def _tree_to_json(tree):
    return None if tree is None else [tree[0], [_tree_to_json(k) for k in tree[1]]]


def _tree_from_json(j):
    return None if j is None else (j[0], tuple(_tree_from_json(k) for k in j[1]))


def _unflatten(tree, leaves):
    if tree is None:
        return next(leaves)
    kind, kids = tree
    items = [_unflatten(k, leaves) for k in kids]
    if kind not in ("tuple", "list"):
        return rebuild_named(kind, items)        # a sparse tensor: its parts, then its shape
    return tuple(items) if kind == "tuple" else items


def _at_path(args, kwargs, path):
    v = args[path[0]] if isinstance(path[0], int) else kwargs[path[0]]
    for i in path[1:]:
        v = v.to_tuple()[i] if isinstance(v, SPARSE_TYPES) else v[i]      # a sparse tensor's part
    return v


# ---- the calling layout ------------------------------------------------------------------------------

def layout_text(inputs: list, params: list, outputs: list, consts: list, arena: int) -> str:
    """pc_entry's pointer slots in one line: (dtype, shape) of each input, Parameter, output and
    constant ((None, None) where a slot is not a tensor), and the arena's size. A module states
    its own (`pc_layout()`, written by codegen from the graph it was built from); a compile-cache
    hit compares it with what the entry says before the first call, since an entry whose layout
    was edited (its hash recomputed) would otherwise have the module write past its buffers."""
    def part(items):
        return ",".join("?" if dt is None else f"{np.dtype(dt).name}{list(shape)}".replace(" ", "")
                        for dt, shape in items)
    text = f"in={part(inputs)};param={part(params)};out={part(outputs)};const={part(consts)};arena={int(arena)}"
    assert all(c.isalnum() or c in "=;,[]?_" for c in text), text      # a plain C string literal
    return text


def graph_layout_text(params: list, outputs: list, consts: list, arena: int) -> str:
    """layout_text of a graph's parameters (inputs, then Parameters: `.ref` set) and outputs."""
    def slot(t):
        if isinstance(t, RefType):
            t = t.tensor
        if isinstance(t, ScalarType):
            return t.dtype.np, ()
        return (t.dtype.np, tuple(t.shape)) if isinstance(t, TensorType) else (None, None)
    return layout_text([slot(p.type) for p in params if p.ref is None],
                       [slot(p.type) for p in params if p.ref is not None],
                       [slot(v.type) for v in outputs], [(c.dtype, c.shape) for c in consts], arena)


@dataclass
class Layout:
    n_inputs: int
    input_paths: list            # per graph input: its path into (args, kwargs)
    out_tree: Any                # pytree of the Python return value
    leaves: list                 # per leaf: ("out", k) a graph output, or ("const", value)
    out_types: list              # TensorType per graph output
    scalar_out: list             # per graph output: returned as a Python number
    arena_size: int
    errors: list                 # runtime error messages by code
    const_args: list = field(default_factory=list)     # large constants, passed after the outputs
    # per collective of the code: [op, group, dtype name, shape, reduction or root, location], what
    # the ranks agree on at the first call (communication/_agree.py)
    collectives: list = field(default_factory=list)

    @property
    def simple_inputs(self) -> bool:
        return all(len(p) == 1 and isinstance(p[0], int) for p in self.input_paths)

    def executable_args(self, refs: list) -> dict:
        """What a device's `load` needs for this layout."""
        return dict(n_inputs=self.n_inputs, refs=refs, out_types=self.out_types, const_args=self.const_args,
                    arena_size=self.arena_size, errors=self.errors)

    def to_json(self, put_blob: Callable) -> dict:
        def leaf(kind, v):
            if kind in ("out", "bounded"):
                return [kind, v]
            if isinstance(v, Tensor) and not isinstance(v, Parameter):
                return ["tensor", put_blob(_npy_bytes(v._data), ".npy")]
            if v is None or type(v) in (bool, int, float, str):
                return ["py", v]
            if isinstance(v, mstype.DType):
                return ["dtype", v.name]
            raise NotPersistable(f"the function returns a constant of type {type(v).__qualname__}")
        return {"n_inputs": self.n_inputs, "input_paths": [list(p) for p in self.input_paths],
                "out_tree": _tree_to_json(self.out_tree), "leaves": [leaf(k, v) for k, v in self.leaves],
                "out_types": [[t.dtype.np.str, list(t.shape)] for t in self.out_types],
                "scalar_out": [bool(s) for s in self.scalar_out], "arena_size": int(self.arena_size),
                "errors": list(self.errors), "consts": [put_blob(_npy_bytes(c), ".npy") for c in self.const_args],
                "collectives": [list(c) for c in self.collectives]}

    @classmethod
    def from_json(cls, j: dict, read_blob: Callable) -> "Layout":
        def leaf(v):
            kind = v[0]
            if kind == "out":
                return ("out", v[1])
            if kind == "bounded":
                return ("bounded", tuple(v[1]))
            if kind == "tensor":
                return ("const", Tensor._wrap(_npy_load(read_blob(v[1]))))
            if kind == "py":
                return ("const", v[1])
            if kind == "dtype":
                return ("const", mstype._by_name(v[1]))
            raise ValueError(f"unknown output kind {kind!r}")
        return cls(n_inputs=j["n_inputs"], input_paths=[tuple(p) for p in j["input_paths"]],
                   out_tree=_tree_from_json(j["out_tree"]), leaves=[leaf(v) for v in j["leaves"]],
                   out_types=[TensorType(mstype.from_numpy(np.dtype(dt)), tuple(shape)) for dt, shape in j["out_types"]],
                   scalar_out=list(j["scalar_out"]), arena_size=j["arena_size"], errors=list(j["errors"]),
                   const_args=[_npy_load(read_blob(r)) for r in j["consts"]],
                   collectives=[list(c) for c in j.get("collectives", [])])

    @staticmethod
    def graph_leaves(out_tree) -> tuple:
        """A traced graph's (tree, leaves) as a Layout keeps them, and the outputs returned as
        Python numbers: the frontend marks a mutable number's arithmetic ("num" leaves)."""
        tree, leaves = out_tree
        numbers = {v for kind, v in leaves if kind == "num"}
        return tree, [("out", v) if kind == "num" else (kind, v) for kind, v in leaves], numbers

    @staticmethod
    def blob_refs(j: dict) -> list:
        return list(j.get("consts", [])) + [v[1] for v in j.get("leaves", []) if v and v[0] == "tensor"]


# ---- where a report's graphs and texts come from -----------------------------------------------------

class TracedSources:
    """The graphs of this compile and its C; the IR texts are printed on first use."""

    def __init__(self, graph_before, graph_after, c_source: str):
        self.graphs = (graph_before, graph_after)
        self.c_source = c_source

    def text(self, k: str) -> str:
        if k == "c_source":
            return self.c_source
        from pycompile.compiler.printer import print_graph
        return print_graph(self.graphs[0] if k == "ir_before" else self.graphs[1])

    def texts(self) -> dict:
        return {k: self.text(k) for k in ("ir_before", "ir_after", "c_source")}


class StoredSources:
    """A cache entry's texts, read on first use; the graphs, traced and optimized again on
    request (no C compiler runs)."""

    def __init__(self, load_texts: Callable, retrace: Callable | None = None, warn: Callable | None = None):
        self.load_texts, self.retrace, self.warn = load_texts, retrace, warn
        self._texts = None
        self._graphs = None

    @property
    def graphs(self):
        if self._graphs is None:
            self._graphs = self.retrace() if self.retrace is not None else (None, None)
        return self._graphs

    def text(self, k: str) -> str:
        if self._texts is None:
            try:
                self._texts = self.load_texts()
            except (ValueError, OSError) as e:
                if self.warn is not None:
                    self.warn(f"the report texts are unavailable: {e}")
                self._texts = {}
        return self._texts.get(k, "")

    def texts(self) -> dict:
        return {k: self.text(k) for k in ("ir_before", "ir_after", "c_source")}


# ---- the report -------------------------------------------------------------------------------------------

@dataclass
class CompileReport:
    name: str
    pass_stats: list                 # PassStat per pass run
    times: dict                      # stage -> seconds: trace, passes, codegen, cc, load (a hit: key, check, load)
    nodes_before: int
    nodes_after: int
    c_lines: int
    temp_bytes: int                  # arena bytes one call uses for temporaries
    copied_bytes: int                # bytes copied per call by TensorMove (Load preservation)
    so_path: str
    sources: Any = field(repr=False, default=None)      # TracedSources | StoredSources
    cache: str = "miss"              # miss | disk
    cache_reason: str = ""           # why the on-disk cache missed ("hit" on a hit)
    compile_times: dict = field(default_factory=dict)   # a hit: the stage times of the compile that made it
    const_args: list = field(default_factory=list)     # large constants, passed after the outputs
    runtime_errors: list = field(default_factory=list)  # message of pc_entry's error code 1000 + k
    # pc_entry's inputs, Parameters and outputs in order, as plain data (kind, name, dtype name,
    # shape), and the Parameters themselves: what `pycompile --emit so` writes into its manifest
    arg_specs: list = field(default_factory=list)
    refs: list = field(default_factory=list)
    saved_bytes: int = 0             # forward values a backward pass keeps for itself (autodiff)
    # Assigns to Parameters, those computed in the Parameter's buffer, the temporaries of the others
    updates: tuple = (0, 0, 0)

    @property
    def update_temp_bytes(self) -> int:
        """Arena bytes of Parameter-update values not computed in place (0: every update writes
        its Parameter directly)."""
        return self.updates[2]

    graph_before = property(lambda self: self.sources.graphs[0])
    graph_after = property(lambda self: self.sources.graphs[1])
    ir_before = property(lambda self: self.sources.text("ir_before"))
    ir_after = property(lambda self: self.sources.text("ir_after"))
    c_source = property(lambda self: self.sources.text("c_source"))

    @property
    def compile_seconds(self) -> float:
        return sum(self.times.values())

    def summary(self) -> str:
        lines = [f"@{self.name}: {self.nodes_before} -> {self.nodes_after} nodes, {self.c_lines} C lines, "
                 f"{self.temp_bytes} temp bytes, {self.copied_bytes} bytes copied per call"
                 + (f", {self.saved_bytes} bytes kept for the backward" if self.saved_bytes else "")
                 + f" ({self.cache})"]
        if self.updates[0]:
            lines.append(f"  Parameter updates: {self.updates[1]} of {self.updates[0]} in place, "
                         f"{self.updates[2]} temp bytes for the others")
        for stage, s in self.times.items():
            lines.append(f"  {stage:<10} {s * 1e3:8.2f} ms")
        for st in self.pass_stats:
            lines.append(f"    pass {st.name:<22} {st.seconds * 1e3:7.2f} ms  {st.nodes_before:5d} -> {st.nodes_after:5d}")
        return "\n".join(lines)

    _PLAIN = ("name", "nodes_before", "nodes_after", "c_lines", "temp_bytes", "copied_bytes", "saved_bytes",
              "times", "runtime_errors", "updates")

    def to_json(self, put_blob: Callable) -> dict:
        out = {k: getattr(self, k) for k in self._PLAIN}
        out["pass_stats"] = [[s.name, s.seconds, s.nodes_before, s.nodes_after] for s in self.pass_stats]
        out["arg_specs"] = [list(s) for s in self.arg_specs]
        out["texts"] = put_blob(json.dumps(self.sources.texts()).encode(), ".json")
        return out

    @classmethod
    def from_json(cls, j: dict, sources, so_path: str, times: dict, const_args: list, refs: list) -> "CompileReport":
        return cls(name=j["name"], pass_stats=[PassStat(*s) for s in j["pass_stats"]], times=times,
                   nodes_before=j["nodes_before"], nodes_after=j["nodes_after"], c_lines=j["c_lines"],
                   temp_bytes=j["temp_bytes"], copied_bytes=j["copied_bytes"], so_path=so_path, sources=sources,
                   cache="disk", compile_times=j["times"], const_args=const_args,
                   runtime_errors=list(j["runtime_errors"]), refs=list(refs),
                   arg_specs=[(a[0], a[1], a[2], tuple(a[3])) for a in j.get("arg_specs", [])],
                   saved_bytes=j.get("saved_bytes", 0), updates=tuple(j.get("updates", (0, 0, 0))))


# ---- the executable ----------------------------------------------------------------------------------------

@dataclass
class Compiled:
    exe: object
    layout: Layout
    report: CompileReport

    def __post_init__(self):
        lay = self.layout
        self._simple = lay.simple_inputs
        self._paths = lay.input_paths
        self._tree, self._leaves = lay.out_tree, lay.leaves
        self._scalar = lay.scalar_out
        # guarded(sig, gen, args): the call without a dict lookup when args match sig (api.py)
        self.guarded = None
        fast = self._fast_caller()
        if fast is not None:
            self.run, self.guarded = fast
        if getattr(self.exe, "profile_regions", None) is not None:
            # built while a Profiler records: each call's kernel times go to it (backend/profiling.py)
            from pycompile.backend.profiling import timed
            self.run, self.guarded = timed(self.run, self.exe, self.report.name), None
        if lay.collectives:
            # the first call checks that every rank runs the same collectives; later calls go straight
            self._checked = (self.run, self.guarded)
            self.run, self.guarded = self._first_run, None

    def _first_run(self, args: tuple, kwargs: dict):
        from pycompile.communication import _agree, management
        if management.is_initialized():         # else the collective itself says to call init()
            _agree.compiled_step(management.world(), self.report.name, self.layout.collectives,
                                 getattr(self.exe, "refs", ()))
        self.run, self.guarded = self._checked
        return self.run(args, kwargs)

    def _fast_caller(self):
        """The executable's prebuilt caller (Executable.make_caller) when this call's shape allows
        it: graph inputs that are positional arguments, a result made of graph outputs alone (one,
        or a flat tuple / list). Anything else (keyword or nested inputs, constants in the result,
        a run-time batch size) keeps `run`."""
        make = getattr(self.exe, "make_caller", None)
        lay = self.layout
        if make is None or not self._simple or any(kind != "out" for kind, _ in self._leaves):
            return None
        tree = self._tree
        if tree is None:
            container = None
        elif all(k is None for k in tree[1]):
            container = tuple if tree[0] == "tuple" else list
        else:
            return None
        returns = [(v, bool(self._scalar[v]) and tuple(lay.out_types[v].shape) == ()
                    and lay.out_types[v].dtype.np.kind in "biuf") for _, v in self._leaves]
        return make(tuple(p[0] for p in self._paths), returns, container)

    def run(self, args: tuple, kwargs: dict):
        if self._simple:
            arrays = [args[p[0]]._data for p in self._paths]
        else:
            arrays = [_at_path(args, kwargs, p)._data for p in self._paths]
        outs = self.exe(arrays)
        values = []
        for kind, v in self._leaves:
            if kind == "out":
                o = outs[v]
                values.append(o.item() if o.ndim == 0 and o.dtype.kind in "biuf" and self._scalar[v]
                              else Tensor._wrap(o))
            elif kind == "bounded":     # a run-time length: the buffer's first `count` places along its axis
                data, count, axis = outs[v[0]], int(outs[v[1]]), (v[2] if len(v) > 2 else 0)
                values.append(Tensor._wrap(data[(slice(None),) * axis + (slice(0, count),)].copy()))
            elif isinstance(v, Tensor):
                values.append(Tensor._wrap(v._data.copy()))
            else:
                values.append(v)
        if self._tree is None:
            return values[0]
        return _unflatten(self._tree, iter(values))
