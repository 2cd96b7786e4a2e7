"""Eager-vs-compiled differential at edge values, walking the op table (issues 31 and 32).

Two sweeps, both driven by the table so that a new row joins without an edit here:

* `elementwise_calls()`: every pure elementwise op of `pycompile.ops.OPS` (Cast with every
  target dtype), for every dtype its `infer` accepts (bool, int8..int64, uint8, float16/32/64),
  on every combination of that dtype's edge values (`EDGES`): ±0, the smallest denormal, the
  smallest normal, the largest finite values, ±inf, NaN, values where exp over- or underflows,
  integer extremes. A binary op sees all pairs, Select all triples of a small set.
* `check_calls()`: every check of the compiled op tests (the groups test_op_lowerings.py
  collects, which cover every op of the table) re-run with its float arguments replaced by edge
  values of the same shape and dtype ("special": with inf and NaN; "finite": denormals, ±0, the
  largest values; "wide": values in [-120, 120] where exp under- and overflows), and its integer
  arguments by integer extremes where PyNative accepts them.

`run(calls)` compiles a batch of calls into one `@jit` function, runs each call in PyNative too,
and returns the disagreements (`Diff`): a different dtype or shape, one mode raising, NaN where
the other has a number, a different infinity or sign of zero, integers not equal, or floats
further apart than a few units in the last place of their dtype. PyNative refusing an input
(it raises) is no disagreement: the op has no edge semantics there to compare.

MindSpore 2.10's CPU result decides what both modes must give where they disagree; those values
are recorded by tests/oracle/record_edge_values.py (cases in edge_cases.py) and tested by
test_edge_values.py.
"""
from __future__ import annotations

import contextlib
import io
import os
import pathlib
import sys
import warnings
import zlib
from dataclasses import dataclass

import numpy as np

import pycompile as ms
from pycompile import Tensor
from pycompile.common.abstract import TensorType
from pycompile.ops import OPS
from pycompile.ops._table import Effect, OpError, apply
from pycompile.ops.lowering import Elementwise

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "oracle"))
from edge_cases import DTYPES, edge_grid, elementwise_expr, float_edges, int_edges  # noqa: E402

MS = {name: getattr(ms, "bool_" if name == "bool" else name) for name in DTYPES}


# ---- the calls ------------------------------------------------------------------------------------
@dataclass
class Call:
    name: str               # "Add float32,float32" / "check reduce_float32:ReduceSum... [wide]"
    op: str                 # the table op the call is about (a check's first op)
    fn: object              # fn(*tensors) -> Tensor or tuple; graph code (compiled by ms.jit)
    args: tuple             # NumPy arrays
    expr: str = ""          # the same call written for both frameworks (edge_cases.py), if any
    dtypes: tuple = ()
    ops: tuple = ()         # a check's table ops


def _elementwise_ops() -> list:
    # the complex rows (ops/defs/complex.py) read or build complex values, which the edge grid has
    # none of: tests/backend/test_cplx33_graph.py and the conformance table's complex cases check them
    from pycompile.ops.defs import complex as X
    return sorted((op for op in OPS.values() if isinstance(op.lower, Elementwise) and op.effect is Effect.PURE
                   and not op.graph_only and op.eager is not None and op.name not in X.__all__),
                  key=lambda op: op.name)


def _applier(op, attrs, n: int):
    if n == 1:
        def f1(a):
            return apply(op, [a], attrs)
        return f1
    if n == 2:
        def f2(a, b):
            return apply(op, [a, b], attrs)
        return f2

    def f3(a, b, c):
        return apply(op, [a, b, c], attrs)
    return f3


def _accepts(op, dtypes, attrs) -> bool:
    try:
        op.infer([TensorType(MS[d], (4,)) for d in dtypes], **attrs)
    except (TypeError, ValueError, OpError):
        return False
    return True


def elementwise_calls(ops=None) -> list:
    """Every (op, dtype) an elementwise op of the table accepts, on the edge grid of that dtype."""
    calls = []
    for op in ops or _elementwise_ops():
        n = len(op.inputs)
        attr_sets = [{}]
        if "dtype" in op.attrs:         # Cast: every target dtype
            attr_sets = [{"dtype": MS[d]} for d in DTYPES]
        for attrs in attr_sets:
            for d in DTYPES:
                dts = (d,) * n
                if n == 3:              # Select(cond, x, y)
                    dts = ("bool", d, d)
                if not _accepts(op, dts, attrs):
                    continue
                to = f"->{attrs['dtype']}" if attrs else ""
                expr = elementwise_expr(op.name, n, str(attrs["dtype"].np.name) if attrs else None)
                calls.append(Call(f"{op.name} {','.join(dts)}{to}", op.name, _applier(op, attrs, n),
                                  tuple(edge_grid(dts)), expr, dts))
    return calls


VARIANTS = ("special", "finite", "wide")


def _edge_like(a: np.ndarray, variant: str, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if a.size == 0:
        return a
    if a.dtype.kind == "f":
        if variant == "wide":
            vals = np.round(rng.uniform(-120, 120, a.size)).astype(a.dtype)
            vals[rng.random(a.size) < 0.25] = 0
        else:
            pool = float_edges(a.dtype.name)
            if variant == "finite":
                pool = pool[np.isfinite(pool)]
            vals = rng.choice(pool, a.size)
        return vals.reshape(a.shape).astype(a.dtype)
    if a.dtype.kind in "iu":
        return rng.choice(int_edges(a.dtype.name), a.size).reshape(a.shape).astype(a.dtype)
    return a


def check_groups() -> list:
    """The groups of the compiled op tests (test_op_lowerings.test_every_op_is_compiled_by_a_test)."""
    import test_ops_compiled as ew
    import test_ops_compiled_array as arr
    import test_ops_compiled_cnn as cnn
    import test_ops_compiled_everyday as day
    import test_ops_compiled_nn_functions as nnf
    import test_ops_compiled_reduce as red
    return (ew.ELEMENTWISE + ew.MISC + red.REDUCE + [red.SPECIAL] + red.NORM + arr.LAYOUT + arr.BACKPROP
            + arr.MATMUL + [arr.CREATION] + day.EVERYDAY + cnn.GROUPS + nnf.GROUPS)


def _indexes(names) -> bool:
    """An op of these takes indices (Gather's, a scatter's): its integers are positions, whose
    range the forward op checked (GatherGrad) - not data with edge values."""
    return any("ind" in i for n in names if n in OPS for i in OPS[n].inputs)


def order_free(call: Call) -> bool:
    """Whether eager and compiled must agree on `call` exactly as on an elementwise op: a check
    of elementwise and layout ops, or any check in the "wide" variant (integers in [-120, 120]:
    sums of them are exact). Sums, convolutions, pools and factorizations over the largest finite
    values and infinities overflow or cancel in an order of their own (inf vs NaN vs a number);
    random ops draw from edge-valued probabilities; singular vectors of singular matrices are not
    unique. Those are reported by the full sweep only."""
    from pycompile.ops._table import Kind
    if call.op not in OPS or OPS[call.op].kind is Kind.CREATE or "Svd" in call.ops:
        return False            # Svd: LAPACK's drivers differ on singular, ill-conditioned inputs
    if call.name.endswith("[wide]"):
        return True
    return all(n in OPS and OPS[n].kind in (Kind.ELEMENTWISE, Kind.LAYOUT) for n in call.ops)


def check_calls(variants=VARIANTS) -> list:
    """Each compiled check, its float (and, where PyNative accepts them, integer) arguments
    replaced by edge values of the same dtype and shape."""
    calls = []
    for g in check_groups():
        for k, c in enumerate(g.checks):
            if any(a.size > 4096 for a in map(np.asarray, c.args)):
                continue                    # the large-tile checks: their edges are the small ones'
            for v in variants:
                # (a hash of its own: str hashes change with each process, and so did these inputs)
                seed = zlib.crc32(f"{g.name}\0{c.name}\0{v}".encode()) & 0xFFFF
                args = tuple(_edge_like(np.asarray(a), v, seed + j) for j, a in enumerate(c.args))
                ints = [j for j, a in enumerate(args) if a.dtype.kind in "iu" and a.size]
                if ints and (_indexes(c.ops) or _eager(c.fn, args)[1] is not None):
                    # an index or a count: keep the test's own integers
                    args = tuple(np.asarray(c.args[j]) if j in ints else a for j, a in enumerate(args))
                op = c.ops[0] if c.ops else "?"
                calls.append(Call(f"check {g.name}:{c.name} [{v}]", op, c.fn, args, ops=tuple(c.ops)))
    return calls


# ---- running and comparing ------------------------------------------------------------------------
def _quiet():
    stack = contextlib.ExitStack()
    stack.enter_context(warnings.catch_warnings())
    warnings.simplefilter("ignore")
    stack.enter_context(np.errstate(all="ignore"))
    stack.enter_context(contextlib.redirect_stdout(io.StringIO()))
    return stack


def _eager(fn, args):
    try:
        with _quiet():
            return fn(*[Tensor(a.copy()) for a in args]), None
    except Exception as e:  # noqa: BLE001 - PyNative refuses these inputs
        return None, e


def _compiled(calls: list):
    n = len(calls)

    def edge_batch(args):
        out = ()
        for i in range(n):
            out = out + (calls[i].fn(*args[i]),)
        return out

    with _quiet():
        return ms.jit(edge_batch)(tuple(tuple(Tensor(a.copy()) for a in c.args) for c in calls))


TRACE = os.environ.get("EDGE_TRACE") == "1"      # print each batch before it runs (to find a crash)
ULPS = 8
# results of sums, products and transcendental chains differ in more than the last bits
REL = {"float16": 4e-3, "float32": 2e-5, "float64": 1e-12}


@dataclass
class Diff:
    call: Call
    kind: str           # "raise" "dtype" "shape" "nan" "inf" "zero sign" "int" "value"
    where: tuple        # flat indices of the elements that differ (empty for raise/dtype/shape)
    eager: object       # value or exception text
    compiled: object

    def inputs_at(self):
        """The inputs at the differing elements (elementwise calls: same flat index)."""
        return [a.reshape(-1)[list(self.where)] if a.size > 1 else a for a in self.call.args]

    def __str__(self) -> str:
        head = f"{self.call.name}: {self.kind}"
        if not self.where:
            return f"{head}: eager {self.eager} vs compiled {self.compiled}"
        w = list(self.where)[:6]
        e, c = np.asarray(self.eager).reshape(-1), np.asarray(self.compiled).reshape(-1)
        ins = ""
        if all(a.size == e.size for a in self.call.args):
            ins = " at inputs " + "; ".join(str(a.reshape(-1)[w].tolist()) for a in self.call.args)
        return f"{head} ({len(self.where)} elements){ins}: eager {e[w].tolist()} vs compiled {c[w].tolist()}"


def compare(call: Call, got, want) -> list:
    """The disagreements between a compiled result `got` and an eager result `want`."""
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    if len(got) != len(want):
        return [Diff(call, "shape", (), f"{len(want)} results", f"{len(got)} results")]
    out = []
    for g, w in zip(got, want):
        if not isinstance(g, Tensor) or not isinstance(w, Tensor):
            if not (type(g) is type(w) and g == w):
                out.append(Diff(call, "value", (), w, g))
            continue
        if g.dtype != w.dtype:
            out.append(Diff(call, "dtype", (), w.dtype, g.dtype))
            continue
        if g.shape != w.shape:
            out.append(Diff(call, "shape", (), w.shape, g.shape))
            continue
        d = classify(g.asnumpy(), w.asnumpy(), scaled=call.name.startswith("check "))
        if d:
            out.append(Diff(call, d[0], d[1], w.asnumpy(), g.asnumpy()))
    return out


# against MindSpore: its float32 exp is an approximation (exp(88) is 1.000023 times e^88)
REL_MINDSPORE = {"float16": 4e-3, "float32": 1e-4, "float64": 1e-9}


def classify(g: np.ndarray, w: np.ndarray, rel: dict = REL, scaled: bool = False):
    """(kind, flat indices) of the first kind of difference between g and w, or None. `scaled`:
    floats may also differ by a few ulps of the largest finite |w| (a result formed by a sum or a
    difference of larger values: log_softmax's x - max - log(s) near 0)."""
    with np.errstate(all="ignore"):
        return _classify(g.reshape(-1), w.reshape(-1), rel, scaled)


def _classify(g: np.ndarray, w: np.ndarray, rel: dict, scaled: bool = False):
    if w.dtype.kind != "f":
        bad = np.nonzero(g != w)[0]
        return ("int", tuple(bad)) if bad.size else None
    gn, wn = np.isnan(g), np.isnan(w)
    bad = np.nonzero(gn != wn)[0]
    if bad.size:
        return "nan", tuple(bad)
    gi, wi = np.isinf(g), np.isinf(w)
    bad = np.nonzero((gi | wi) & ~(gn | wn) & (g != w))[0]
    if bad.size:
        return "inf", tuple(bad)
    fin = ~(gi | wi | gn | wn)
    g64, w64 = g.astype(np.float64), w.astype(np.float64)
    tol = np.maximum(ULPS * np.spacing(np.abs(w)).astype(np.float64), rel[w.dtype.name] * np.abs(w64))
    tol = np.maximum(tol, ULPS * float(np.finfo(w.dtype).smallest_subnormal))
    if scaled and fin.any():
        tol = np.maximum(tol, ULPS * float(np.finfo(w.dtype).eps) * float(np.max(np.abs(w64[fin]))))
    bad = np.nonzero(fin & (np.abs(g64 - w64) > tol))[0]
    if bad.size:
        return "value", tuple(bad)
    bad = np.nonzero(fin & (g64 == 0) & (w64 == 0) & (np.signbit(g) != np.signbit(w)))[0]
    if bad.size:
        return "zero sign", tuple(bad)
    return None


def outcomes(calls: list, batch: int = 40) -> list:
    """(call, eager result, compiled result or the exception compiling / running it raised) for
    every call PyNative accepts; the calls are compiled `batch` at a time."""
    live = []
    for c in calls:
        want, err = _eager(c.fn, c.args)
        if err is None:
            live.append((c, want))
    out = []
    for k in range(0, len(live), batch):
        chunk = live[k:k + batch]
        if TRACE:
            print("batch:", [c.name for c, _ in chunk], file=sys.stderr, flush=True)
        try:
            got = _compiled([c for c, _ in chunk])
        except Exception as e:  # noqa: BLE001 - find the call(s) that fail to compile
            if len(chunk) == 1:
                out.append((chunk[0][0], chunk[0][1], e))
            else:
                out += outcomes([c for c, _ in chunk], batch=max(1, len(chunk) // 4))
            continue
        out += [(c, want, g) for (c, want), g in zip(chunk, got)]
    return out


def differences(outs: list) -> list:
    diffs = []
    for c, want, got in outs:
        if isinstance(got, Exception):
            diffs.append(Diff(c, "raise", (), "a value", f"{type(got).__name__}: {str(got)[:300]}"))
        else:
            diffs += compare(c, got, want)
    return diffs


def run(calls: list, batch: int = 40) -> tuple:
    """(disagreements, number of calls compared): each call in PyNative and compiled."""
    outs = outcomes(calls, batch)
    return differences(outs), len(outs)


def summary(diffs: list) -> dict:
    """{op: sorted kinds}: what differs, per op."""
    out: dict = {}
    for d in diffs:
        out.setdefault(d.call.op, set()).add(d.kind)
    return {k: sorted(v) for k, v in sorted(out.items())}


def requests() -> list:
    """What record_edge_values.py runs in MindSpore: every elementwise call, and edge_cases.CASES."""
    import edge_cases
    out = [{"name": c.name, "op": c.op, "expr": c.expr, "dtypes": list(c.dtypes)} for c in elementwise_calls()]
    out += [{"name": name, "expr": expr, "inputs": inputs} for name, (expr, inputs) in edge_cases.CASES.items()]
    return out


if __name__ == "__main__":      # python tests/compiler/edge_ops.py [elementwise|checks]: the full sweep
    import json
    import time
    what = sys.argv[1:] or ["elementwise", "checks"]
    if what == ["requests"]:
        path = pathlib.Path(__file__).resolve().parent.parent / "oracle" / "data" / "edge_requests.json"
        path.write_text("[\n" + ",\n".join(json.dumps(r) for r in requests()) + "\n]\n")
        sys.exit(0)
    t = time.time()
    for part in what:
        calls = elementwise_calls() if part == "elementwise" else check_calls()
        diffs, n = run(calls)
        strict = [d for d in diffs if part == "elementwise" or order_free(d.call)]
        print(f"== {part}: {len(calls)} calls, {n} compared, {len(diffs)} disagreements "
              f"({len(strict)} where the order of a sum cannot explain them), "
              f"{len({c.op for c in calls})} ops, {time.time() - t:.0f} s")
        for d in diffs:
            print(("" if d in strict else "(order) ") + str(d)[:400])
        print(summary(strict))
