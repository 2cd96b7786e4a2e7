"""The summary operators of MindSpore 2.10: ScalarSummary, TensorSummary, ImageSummary and
HistogramSummary (ops.X and ops.operations.X; no functional form, as in MindSpore).

`self.s = ops.ScalarSummary()` ... `self.s("loss", value)` in a Cell's construct hands `value` to
the next `SummaryRecord.record(step)` (train/summary.py), which writes it under `tag` as that
kind of summary value. The op itself returns None and computes nothing.

Where the value goes (the two caches of the wheel, kept here because SummaryRecord reads them and
train/ sits above ops/):

- PyNative: the call appends [Primitive name, tag, value] to EAGER, unchecked, as MindSpore's
  `debug_ops.SUMMARY_TENSOR_CACHE`; record() checks each entry then (so a bad tag or value raises
  from record(), with MindSpore's 'For "ScalarSummary", ...' messages) and files them in call
  order. A value met under a PyNative gradient (a tape value) is taken by its primal.
- Graph code (GRAPH_MODE, ms.jit): the checks MindSpore's infer makes happen when tracing
  ("For primitive[ImageSummary], the v rank must be equal to 4, ..."), and the call becomes one
  host call - ops.Custom's `CustomPyFunc` node (ops/defs/pyfunc.py: the runtime's py_call) whose
  Python function stores a copy of the value in GRAPH under "tag[:Scalar]" (":Tensor", ":Image",
  ":Histogram"), the key MindSpore's graph runtime uses. The node's result is unused, so it is
  put on the graph's effect chain (`U' = UpdateState(U, node)`, as a Parameter read is) to stay
  and keep its place among the effects; its input passes StopGradient, since the op has no
  gradient (MindSpore's bprop of a summary op gives zeros). MindSpore's runtime hands a graph's
  values over after each run sorted by "tag[:Type]", into a dict (a key keeps its first place):
  `take_graph_values()` gives them in that order - graphs in the order they first delivered a
  value since the last record(), each graph's keys sorted.
A tag's later value replaces an earlier one until record() consumes them (both modes).
"""
from __future__ import annotations

import itertools

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.common.abstract import U_TYPE, TensorType
from pycompile.ops import prims as P
from pycompile.ops import tracing
from pycompile.ops._table import OpTypeError, OpValueError, apply
from pycompile.ops.defs.pyfunc import SITES, CustomPyFunc, Site
from pycompile.ops.entry import Arg, op_entry

__all__ = ["EAGER", "GRAPH", "KINDS", "take_graph_values", "clear_graph_values"]

EAGER: list = []        # [Primitive name, tag, value]: PyNative calls since the last record()
GRAPH: dict = {}        # "tag[:Kind]" -> ndarray: the host calls of compiled code since then
_DELIVERED: dict = {}   # graph number -> its keys in GRAPH, graphs in the order they first delivered
_GRAPH_NUMBERS = itertools.count()
KINDS = {"ScalarSummary": "Scalar", "TensorSummary": "Tensor", "ImageSummary": "Image",
         "HistogramSummary": "Histogram"}
_SITES: dict = {}       # ("tag[:Kind]", TensorType, graph number) -> CustomPyFunc site number
_RESULT = TensorType(mstype.int32, (1,))     # the host call's (unused) result: MindSpore's int32 [1]


def _ms_type(v) -> str:
    """MindSpore's name of a Python constant's type in infer messages."""
    if isinstance(v, bool):
        return "Bool"
    if isinstance(v, int):
        return "Int64"
    if isinstance(v, float):
        return "Float32"
    if v is None:
        return "None"
    if isinstance(v, (tuple, list)):
        return "Tuple" if isinstance(v, tuple) else "List"
    return type(v).__name__


def _infer_checks(prim: str, name, t) -> None:
    """MindSpore's infer of a summary op in graph code (the wheel's messages)."""
    if not isinstance(name, str):
        raise OpTypeError(f"For primitive[{prim}], the input argument[name] must be a type of {{String}}, "
                          f"but got {_ms_type(name)}.")
    if not name:
        raise OpValueError(f"For primitive[{prim}], the input argument[name] cannot be an empty string.")
    rank = len(t.shape)
    if prim == "ScalarSummary" and rank > 1:
        raise OpValueError(f"For primitive[{prim}], the v rank must be less than or equal to 1, but got {rank}.")
    if prim == "ImageSummary" and rank != 4:
        raise OpValueError(f"For primitive[{prim}], the v rank must be equal to 4, but got {rank}.")
    if prim in ("TensorSummary", "HistogramSummary") and rank < 1:
        raise OpValueError(f"For primitive[{prim}], the v rank must be greater than or equal to 1, but got {rank}.")


def take_graph_values() -> dict:
    """Compiled code's values since the last call, in the order MindSpore's runtime gives them;
    emptied."""
    out = {}
    for keys in _DELIVERED.values():
        for key in sorted(keys):
            out.setdefault(key, GRAPH[key])
    clear_graph_values()
    return out


def clear_graph_values() -> None:
    GRAPH.clear()
    _DELIVERED.clear()


class _Store:
    """The host call's function: keep a copy of the value under its key, noting its graph."""

    def __init__(self, key: str, graph_number: int):
        self.key, self.graph_number = key, graph_number
        self.__name__ = key

    def __call__(self, array):
        GRAPH[self.key] = np.array(array)
        _DELIVERED.setdefault(self.graph_number, set()).add(self.key)
        return np.zeros((1,), np.int32)


def _graph_number(graph) -> int:
    """A number for the graph being built (its frontend: one per compiled graph)."""
    owner = getattr(graph, "frontend", graph)
    number = getattr(owner, "_summary_graph_number", None)
    if number is None:
        number = owner._summary_graph_number = next(_GRAPH_NUMBERS)
    return number


def _graph_summary(graph, prim: str, name, value) -> None:
    from pycompile.ops.functional import stop_gradient
    t = getattr(value, "_abstract", None)
    if not isinstance(t, TensorType):
        raise OpTypeError(f"For primitive[{prim}], the input argument[value] must be a type of {{Tensor}}, "
                          f"but got {_ms_type(value)}.")
    _infer_checks(prim, name, t)
    t = TensorType(t.dtype, tuple(t.shape))
    key, number = f"{name}[:{KINDS[prim]}]", _graph_number(graph)
    site = _SITES.get((key, t, number))
    if site is None:
        SITES.append(Site(_Store(key, number), (t,), _RESULT, prim))
        site = _SITES[(key, t, number)] = len(SITES) - 1
    if getattr(value, "_tracer", None) is not graph:       # a constant Tensor of the traced code
        value = graph.sym(graph.value(value))
    out = apply(CustomPyFunc, [[stop_gradient(value)]], {"site": site})
    # the result is unused: on the effect chain the call stays, in program order among the effects
    graph.u = graph.add(P.UpdateState, (graph.u, out._value), U_TYPE)


def _summary(prim: str, name, value) -> None:
    graph = tracing.capturing()
    if graph is not None and hasattr(graph, "u"):
        _graph_summary(graph, prim, name, value)
        return None
    if hasattr(value, "asnumpy"):
        from pycompile.common.tensor import Tensor
        value = Tensor(np.array(value.asnumpy()))        # the value now (a tape value: its primal)
    EAGER.append([prim, name, value])
    return None


_ARGS = [Arg("name", "value"), Arg("value", "value")]


@op_entry("scalar_summary", primitive="ScalarSummary", functional=False, args=_ARGS)
def scalar_summary(name, value):
    """Record a one-element Tensor under `name` as a scalar summary value (SummaryRecord)."""
    return _summary("ScalarSummary", name, value)


@op_entry("tensor_summary", primitive="TensorSummary", functional=False, args=_ARGS)
def tensor_summary(name, value):
    """Record a Tensor (rank >= 1) under `name` as a tensor summary value (SummaryRecord)."""
    return _summary("TensorSummary", name, value)


@op_entry("image_summary", primitive="ImageSummary", functional=False, args=_ARGS)
def image_summary(name, value):
    """Record an NCHW Tensor (C 1 or 3) under `name` as a PNG image summary value (SummaryRecord)."""
    return _summary("ImageSummary", name, value)


@op_entry("histogram_summary", primitive="HistogramSummary", functional=False, args=_ARGS)
def histogram_summary(name, value):
    """Record a Tensor (rank >= 1) under `name` as a histogram summary value (SummaryRecord)."""
    return _summary("HistogramSummary", name, value)
