"""The framework-neutral machinery of the conformance table (stdlib and NumPy only).

`cases.py` is plain MindSpore-style code whose module globals `ms`, `ops`, `nn`, `Tensor`,
`Parameter` and `mnp` (the framework's `numpy` module) are bound by `load_cases(framework)`: once to `mindspore` by `record.py` (in the
MindSpore venv) and once to `pycompile` by `test_conformance.py`. Both then run the same case
functions with the same NumPy inputs, and encode what comes out with `encode`, so the recorded
MindSpore result and pycompile's result can be compared as data (`compare`).

The record format is described in README.md beside this file.
"""
from __future__ import annotations

import importlib
import json
import math
import sys
import types
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
CASES_FILE = HERE / "cases.py"

# (rtol, atol) per result dtype; Python float scalars use the Float32 row
TOLERANCE = {"Float16": (1e-3, 1e-3), "Float32": (1e-5, 1e-6), "Float64": (1e-12, 1e-12),
             "Complex64": (1e-5, 1e-6), "Complex128": (1e-12, 1e-12),
             "BFloat16": (0.0, 0.0)}     # bit for bit: one rounding of a float32 result, both sides

DTYPE_NAMES = {"Bool", "Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64",
               "Float16", "Float32", "Float64", "BFloat16", "Complex64", "Complex128"}

# the names of MindSpore dtypes for NumPy dtypes (inputs are NumPy arrays)
NP_OF = {"Bool": np.bool_, "Int8": np.int8, "Int16": np.int16, "Int32": np.int32, "Int64": np.int64,
         "UInt8": np.uint8, "UInt16": np.uint16, "UInt32": np.uint32, "UInt64": np.uint64,
         "Float16": np.float16, "Float32": np.float32, "Float64": np.float64,
         "Complex64": np.complex64, "Complex128": np.complex128,
         "BFloat16": np.float32}        # every bfloat16 is a float32: values compared as those


# ---- cases -----------------------------------------------------------------------------------------
@dataclass
class Case:
    """One row of the table.

    kind "fn": `fn(*tensors)` is the code under test (compiled as `ms.jit(fn)`).
    kind "cell": `fn()` builds a Cell (weights set deterministically, never random init) and the
    Cell is called with the tensors (compiled: in GRAPH_MODE).
    """

    id: str
    names: tuple               # MindSpore API names exercised: "ops.split", "nn.LSTM", "Tensor.argmin", "ms.tensor"
    fn: Callable
    inputs: tuple              # NumPy arrays, passed as Tensors
    group: str                 # the data file: data/<group>.json
    kind: str = "fn"
    error: bool = False        # the case is meant to raise (record.py warns when MindSpore does not)
    graph: bool = True         # False: not compiled (the reason says why)
    reason: str = ""
    tol: dict | None = None    # per-dtype (rtol, atol) overrides, with `note` saying why
    note: str = ""
    oracle_bug: str = ""       # why MindSpore 2.10's result is taken for a bug: recorded, not compared
    trust_graph: str = ""      # why MindSpore's PyNative result is wrong: its GRAPH_MODE result is expected in both modes


class Registry:
    """Collects the cases of one load of cases.py."""

    def __init__(self):
        self.cases: list[Case] = []
        self._ids: set = set()
        self.current_group = "misc"

    def group(self, name: str) -> None:
        self.current_group = name

    def add(self, id, names, fn, inputs=(), **kw) -> Case:
        """Register a case. `inputs` holds NumPy arrays or `Spec`s (`rnd`, `ints` ...), which
        are drawn here from a generator seeded by the case id and the input's position."""
        if isinstance(names, str):
            names = (names,)
        if id in self._ids:
            raise ValueError(f"duplicate conformance case id {id!r}")
        if not kw.get("graph", True) and not kw.get("reason"):
            raise ValueError(f"case {id!r}: graph=False needs a reason")
        arrays = tuple(a.make(seed_of(id, i)) if isinstance(a, Spec) else np.asarray(a) for i, a in enumerate(inputs))
        c = Case(id=id, names=tuple(names), fn=fn, inputs=arrays, group=self.current_group, **kw)
        self._ids.add(id)
        self.cases.append(c)
        return c

    def case(self, *names, inputs=(), id=None, variants=None, **kw):
        """Decorator: `@case("ops.split", inputs=[x])` over `def split_axis1(x): ...`. With
        `variants={"f16": [...], "f32": [...]}` one case per variant, ids suffixed."""
        def deco(fn):
            base = id or fn.__name__
            if variants:
                for suffix, ins in variants.items():
                    self.add(f"{base}_{suffix}", names, fn, ins, **kw)
            else:
                self.add(base, names, fn, inputs, **kw)
            return fn
        return deco

    def cell(self, *names, inputs=(), id=None, variants=None, **kw):
        """Decorator over a function that builds the Cell under test."""
        return self.case(*names, inputs=inputs, id=id, variants=variants, kind="cell", **kw)


def case_files() -> list[Path]:
    """cases.py (the shared helpers and the first families), then cases_*.py in name order."""
    return [CASES_FILE] + sorted(HERE.glob("cases_*.py"))


def load_cases(framework) -> list[Case]:
    """Execute the case files with `ms`, `ops`, `nn`, `Tensor`, `Parameter` bound to `framework`
    (mindspore or pycompile), as user code written `import mindspore as ms` would see them. The
    files share one module namespace: cases_*.py use cases.py's helpers without importing them."""
    name = f"_conformance_cases_{framework.__name__}"
    mod = types.ModuleType(name)
    mod.__file__ = str(CASES_FILE)
    mod.ms, mod.ops, mod.nn = framework, framework.ops, framework.nn
    mod.Tensor, mod.Parameter = framework.Tensor, framework.Parameter
    mod.mnp = importlib.import_module(framework.__name__ + ".numpy")     # `import mindspore.numpy as mnp`
    sys.modules[name] = mod          # graph frontends look functions' modules up by name
    for path in case_files():
        exec(compile(path.read_text(), str(path), "exec"), mod.__dict__)
    return mod.REGISTRY.cases


# ---- names -----------------------------------------------------------------------------------------
# the first word of a case's name: the top-level package, its Tensor class, and its modules
NAME_ROOTS = ("ms", "ops", "nn", "Tensor", "numpy", "train", "amp", "communication", "dataset")


def lookup(framework, spelled: str):
    """The object a case's name stands for in `framework` (mindspore or pycompile): `ops.split`,
    `ms.tensor`, `Tensor.argmin`, `numpy.linspace` (the framework's numpy module),
    `ops.operations.ReLU`, `ops.functional.relu`, `train.Model`, `dataset.vision.Resize` (dotted
    names walk attributes). AttributeError when it has none."""
    head, _, rest = spelled.partition(".")
    if head not in NAME_ROOTS or not rest:
        raise AttributeError(f"{spelled!r} is not spelled as a case's name")
    if head == "ms":
        obj = framework
    elif head == "numpy":
        obj = importlib.import_module(framework.__name__ + ".numpy")
    else:
        obj = getattr(framework, head)
    for part in rest.split("."):
        obj = getattr(obj, part)
    return obj


def has_name(framework, spelled: str) -> bool:
    """Whether `framework` has the API a case names (see `lookup`)."""
    try:
        lookup(framework, spelled)
    except AttributeError:
        return False
    return True


# ---- deterministic inputs -------------------------------------------------------------------------
def seed_of(*parts) -> int:
    return zlib.crc32("/".join(str(p) for p in parts).encode())


@dataclass(frozen=True)
class Spec:
    """A deterministic input, drawn when its case is registered (seeded by the case id)."""

    shape: tuple
    dtype: str = "float32"
    kind: str = "uniform"       # uniform | normal | ints | bools
    lo: float = -2.0
    hi: float = 2.0

    def make(self, seed: int) -> np.ndarray:
        g = np.random.default_rng(seed)
        if self.kind == "uniform":
            a = g.uniform(self.lo, self.hi, size=self.shape)
        elif self.kind == "normal":
            a = g.standard_normal(self.shape) * self.hi
        elif self.kind == "ints":
            a = g.integers(int(self.lo), int(self.hi), size=self.shape)
        elif self.kind == "bools":
            a = g.random(self.shape) < self.hi
        else:
            raise ValueError(self.kind)
        return np.asarray(a).astype(self.dtype)


def rnd(*shape, lo=-2.0, hi=2.0, dtype="float32") -> Spec:
    """Uniform floats in [lo, hi)."""
    return Spec(tuple(shape), dtype, "uniform", lo, hi)


def normal(*shape, scale=1.0, dtype="float32") -> Spec:
    return Spec(tuple(shape), dtype, "normal", 0.0, scale)


def ints(*shape, lo=0, hi=5, dtype="int32") -> Spec:
    """Integers in [lo, hi)."""
    return Spec(tuple(shape), dtype, "ints", lo, hi)


def bools(*shape, p=0.5) -> Spec:
    return Spec(tuple(shape), "bool", "bools", 0.0, p)


def uniform(shape, lo=-1.0, hi=1.0, dtype="float32", seed=0) -> np.ndarray:
    """A constant array (weights built into a case), uniform in [lo, hi)."""
    return np.random.default_rng(seed).uniform(lo, hi, size=shape).astype(dtype)


def param_values(name: str, shape, dtype, seed: int, scale: float = 0.5) -> np.ndarray:
    """The deterministic value of a Parameter, keyed by (seed, its name): two frameworks that
    name and shape a Cell's Parameters alike get the same weights."""
    return np.random.default_rng([seed, seed_of(name)]).uniform(-scale, scale, size=tuple(shape)).astype(dtype)


# ---- encoding -------------------------------------------------------------------------------------
def _num(v):
    """A float as JSON: NaN and infinities as strings (strict JSON)."""
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
    return v


def _values(a: np.ndarray):
    if a.dtype.name == "bfloat16":      # MindSpore's NumPy type or ml_dtypes': kind 'V' to NumPy
        a = a.astype(np.float32)
    if a.dtype.kind == "c":     # each complex value as [real, imag]: one more axis of 2
        return _values(np.stack([a.real, a.imag], axis=-1))
    if a.dtype.kind == "f":
        flat = [_num(float(v)) for v in a.astype(np.float64).reshape(-1)]
    elif a.dtype.kind == "b":
        flat = [bool(v) for v in a.reshape(-1)]
    elif a.dtype.kind in "iu":
        flat = [int(v) for v in a.reshape(-1)]
    else:
        raise TypeError(f"cannot encode arrays of dtype {a.dtype}")
    if a.ndim == 0:
        return flat[0]
    return np.array(flat, dtype=object).reshape(a.shape).tolist()


def encode_array(a: np.ndarray) -> dict:
    return {"dtype": a.dtype.name, "shape": list(a.shape), "value": _values(a)}


def is_tensor(v) -> bool:
    return hasattr(v, "asnumpy") and hasattr(v, "shape") and hasattr(v, "dtype") and not isinstance(v, type)


def encode(v):
    """A result as JSON data (see README.md)."""
    if is_tensor(v):
        a = v.asnumpy()
        return {"tensor": {"dtype": str(v.dtype), "shape": list(a.shape), "value": _values(a)}}
    if isinstance(v, tuple):
        return {"tuple": [encode(x) for x in v]}
    if isinstance(v, list):
        return {"list": [encode(x) for x in v]}
    if isinstance(v, (bool, np.bool_)):
        return {"scalar": bool(v), "type": "bool"}
    if isinstance(v, (int, np.integer)):
        return {"scalar": int(v), "type": "int"}
    if isinstance(v, (float, np.floating)):
        return {"scalar": _num(float(v)), "type": "float"}
    if isinstance(v, (complex, np.complexfloating)):
        return {"scalar": [_num(complex(v).real), _num(complex(v).imag)], "type": "complex"}
    if v is None:
        return {"none": None}
    if isinstance(v, str):
        return {"str": v}
    if isinstance(v, np.ndarray):
        return {"ndarray": encode_array(v)}
    if str(v) in DTYPE_NAMES:
        return {"dtype": str(v)}
    return {"object": type(v).__name__, "repr": repr(v)[:200]}


def encode_error(e: BaseException) -> dict:
    """The exception's class name and its message's first line (rules of dashes skipped)."""
    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip() and ln.strip().strip("-=") != ""]
    first = lines[0] if lines else ""
    if first.endswith(":") and len(lines) > 1:      # "- Kernel select failed:" says why on the next line
        first += " " + lines[1]
    return {"error": {"type": type(e).__name__, "message_first_line": first}}


def outcome(thunk) -> dict:
    """Run `thunk` and encode its result, or the exception it raises (encoding reads every
    tensor, so errors a framework reports late are caught here too)."""
    try:
        return encode(thunk())
    except Exception as e:     # noqa: BLE001  (an exception is a recorded outcome)
        return encode_error(e)


# ---- running a case -------------------------------------------------------------------------------
def call_case(case: Case, framework, graph: bool):
    """Run one case in `framework`: PyNative, or compiled (`ms.jit(fn)`, or the Cell in GRAPH_MODE)."""
    tensors = [framework.Tensor(a) for a in case.inputs]
    if case.kind == "fn":
        f = framework.jit(case.fn) if graph else case.fn
        return f(*tensors)
    net = case.fn()
    if not graph:
        return net(*tensors)
    framework.set_context(mode=framework.GRAPH_MODE)
    try:
        return net(*tensors)
    finally:
        framework.set_context(mode=framework.PYNATIVE_MODE)


def param_table(net) -> list:
    """[{path, name, shape, dtype}] of a Cell's Parameters, in its own order."""
    return [{"path": path, "name": p.name, "shape": list(p.shape), "dtype": str(p.dtype)}
            for path, p in net.parameters_and_names()]


# ---- records --------------------------------------------------------------------------------------
def load_records() -> dict:
    """case id -> record, from every data/*.json."""
    out = {}
    for path in sorted(DATA.glob("*.json")):
        data = json.loads(path.read_text())
        for cid, rec in data["cases"].items():
            rec["file"], rec["mindspore"] = path.name, data["mindspore"]
            out[cid] = rec
    return out


def _array(value, dt, shape):
    def conv(v):
        if isinstance(v, list):
            return [conv(x) for x in v]
        if isinstance(v, str):
            return float(v)
        return v
    if dt.kind == "c":          # [real, imag] pairs (see _values)
        pairs = np.array(conv(value), dtype=np.float64).reshape(tuple(shape) + (2,))
        out = np.empty(tuple(shape), dt)
        out.real, out.imag = pairs[..., 0], pairs[..., 1]     # (inf * 1j would make a NaN real part)
        return out
    return np.array(conv(value), dtype=dt).reshape(shape)


def compare(expected: dict, actual: dict, tol: dict | None = None, path: str = "result") -> list:
    """Differences between two encoded results, as readable lines (empty: they match).
    Tensors must agree in dtype, shape and values (floats within the dtype's tolerance, NaN
    matching NaN); structures in kind and length; scalars in type and value."""
    tol = {**TOLERANCE, **(tol or {})}
    ek, ak = _kind(expected), _kind(actual)
    if ek != ak:
        return [f"{path}: expected {_short(expected)}, got {_short(actual)}"]
    if ek in ("tuple", "list"):
        e, a = expected[ek], actual[ek]
        if len(e) != len(a):
            return [f"{path}: expected a {ek} of {len(e)}, got {len(a)}: {_short(actual)}"]
        out = []
        for i, (x, y) in enumerate(zip(e, a)):
            out += compare(x, y, tol, f"{path}[{i}]")
        return out
    if ek in ("tensor", "ndarray"):
        e, a = expected[ek], actual[ek]
        if e["dtype"] != a["dtype"]:
            return [f"{path}: dtype {a['dtype']}, expected {e['dtype']} (shape {a['shape']} vs {e['shape']})"]
        if e["shape"] != a["shape"]:
            return [f"{path}: shape {a['shape']}, expected {e['shape']}"]
        return _compare_values(e["value"], a["value"], e["dtype"], e["shape"], tol, path)
    if ek == "scalar":
        if expected["type"] != actual["type"]:
            return [f"{path}: a Python {actual['type']} ({actual['scalar']}), expected a {expected['type']} "
                    f"({expected['scalar']})"]
        if expected["type"] == "float":
            return _compare_values(expected["scalar"], actual["scalar"], "Float32", [], tol, path)
        if expected["type"] == "complex":
            return _compare_values(expected["scalar"], actual["scalar"], "Complex128", [], tol, path)
        if expected["scalar"] != actual["scalar"]:
            return [f"{path}: {actual['scalar']!r}, expected {expected['scalar']!r}"]
        return []
    if expected != actual:
        return [f"{path}: expected {_short(expected)}, got {_short(actual)}"]
    return []


def _compare_values(e, a, dtype, shape, tol, path) -> list:
    np_dt = NP_OF.get(dtype, np.float64) if dtype in NP_OF else np.dtype(dtype)
    x, y = _array(e, np.dtype(np_dt), shape), _array(a, np.dtype(np_dt), shape)
    if x.dtype.kind == "c":     # real and imaginary parts each within the tolerance of the dtype
        rtol, atol = tol.get(dtype) or tol.get(_np_to_ms(x.dtype)) or TOLERANCE["Float32"]
        part = "Float32" if x.dtype == np.complex64 else "Float64"
        return (_compare_values(_values(x.real), _values(y.real), part, shape, {part: (rtol, atol)}, path + ".real")
                + _compare_values(_values(x.imag), _values(y.imag), part, shape, {part: (rtol, atol)}, path + ".imag"))
    if x.dtype.kind == "f":
        rtol, atol = tol.get(dtype) or tol.get(_np_to_ms(x.dtype)) or TOLERANCE["Float32"]
        x64, y64 = x.astype(np.float64), y.astype(np.float64)
        ok = np.isclose(y64, x64, rtol=rtol, atol=atol, equal_nan=True)
        # infinities must match exactly (isclose already requires it)
        if ok.all():
            return []
        bad = np.argwhere(~ok.reshape(x.shape)) if x.ndim else [()]
        first = tuple(bad[0]) if len(bad) else ()
        err = np.nanmax(np.abs(np.where(ok, 0, y64 - x64)))
        return [f"{path}: {int((~ok).sum())} of {x.size} values differ beyond rtol={rtol}, atol={atol} "
                f"(max abs error {err:.3g}); first at {list(first)}: got {y64[first]!r}, expected {x64[first]!r}"
                + (f"\n  expected {x.tolist()}\n  got      {y.tolist()}" if x.size <= 64 else "")]
    if np.array_equal(x, y):
        return []
    bad = np.argwhere(x != y) if x.ndim else [()]
    first = tuple(bad[0]) if len(bad) else ()
    return [f"{path}: {int((x != y).sum())} of {x.size} values differ; first at {list(first)}: "
            f"got {y[first]!r}, expected {x[first]!r}"
            + (f"\n  expected {x.tolist()}\n  got      {y.tolist()}" if x.size <= 64 else "")]


def _np_to_ms(dt) -> str:
    for k, v in NP_OF.items():
        if np.dtype(v) == dt:
            return k
    return str(dt)


def _kind(enc: dict) -> str:
    for k in ("tensor", "tuple", "list", "scalar", "none", "str", "ndarray", "dtype", "error", "object"):
        if k in enc:
            return k
    return "?"


def _short(enc: dict) -> str:
    k = _kind(enc)
    if k == "tensor":
        t = enc["tensor"]
        return f"Tensor[{t['dtype']}, {t['shape']}]"
    if k in ("tuple", "list"):
        return f"{k}({', '.join(_short(x) for x in enc[k])})"
    if k == "scalar":
        return f"{enc['type']} {enc['scalar']!r}"
    if k == "error":
        return f"{enc['error']['type']}: {enc['error']['message_first_line']}"
    return json.dumps(enc)[:120]
