"""Re-run the autodiff cases MindSpore 2.10 was recorded on (tests/oracle/data/autodiff.json)
with pycompile: the same case sources, the same inputs, MindSpore's modes.

Each case's source refers to the recorder's module-level names (the input arrays X, Y ...,
`T`, `std_inputs`, `case`): this module provides them, then executes the recorded sources with
`ms`, `ops`, `nn` ... bound to pycompile.
"""
from __future__ import annotations

import hashlib
import json
import sys
import tempfile
import textwrap
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "conformance"))
import conf_harness as ch  # noqa: E402

import pycompile as ms  # noqa: E402
from pycompile import Parameter, ParameterTuple, Tensor, nn, ops  # noqa: E402

DATA = json.loads((HERE.parent / "oracle" / "data" / "autodiff.json").read_text())
MODES = ("pynative", "graph_jit", "graph_cell")

# the recorder's inputs (tests/oracle/record_autodiff.py), rebuilt the same way
_rng = np.random.default_rng(20240601)
X = np.round(_rng.standard_normal((2, 3)), 2).astype(np.float32)
Y = np.round(_rng.standard_normal((2, 2)), 2).astype(np.float32)
W = np.round(_rng.standard_normal((3, 2)), 2).astype(np.float32)
B = np.round(_rng.standard_normal((2,)), 2).astype(np.float32)
SENS = np.round(_rng.standard_normal((2, 2)), 2).astype(np.float32)
BVEC = np.array([0.5, -1.0, 2.0], np.float32)
XI = np.array([1, -2, 3], np.int32)
XB = np.array([True, False, True])
XF3 = np.array([0.5, 1.5, -2.0], np.float32)
XP = np.array([[0.5, 1.0, 1.5], [2.0, -0.5, 1.0]], np.float32)
XN = -XP


class _RC:
    @staticmethod
    def tensor_spec(arr, ms_dtype_name=None):
        return None


def T(a):
    return Tensor(np.asarray(a).copy())


class Wrap(nn.Cell):
    """graph_cell mode: the body runs as this Cell's construct."""

    def __init__(self, body):
        super().__init__()
        self.body = body

    def construct(self, *args):
        return self.body(*args)


def runner(mode):
    if mode == "pynative":
        return lambda body, *args: body(*args)
    if mode == "graph_jit":
        return lambda body, *args: ms.jit(body)(*args)
    return lambda body, *args: Wrap(body)(*args)


_SOURCES = Path(tempfile.gettempdir()) / "pycompile-oracle-autodiff"


def _compile(src: str, label: str):
    """Compile recorded source from a real file: graph mode reads a function's source back
    (inspect.getsource), which code built with a bare exec does not have."""
    _SOURCES.mkdir(exist_ok=True)
    src = textwrap.dedent(src)
    path = _SOURCES / f"{label}_{hashlib.sha256(src.encode()).hexdigest()[:12]}.py"
    if not path.exists():
        path.write_text(src)
    return compile(src, str(path), "exec")


def _namespace() -> dict:
    ns = {"ms": ms, "ops": ops, "nn": nn, "Tensor": Tensor, "Parameter": Parameter,
          "ParameterTuple": ParameterTuple, "np": np, "T": T, "rc": _RC,
          "X": X, "Y": Y, "W": W, "B": B, "SENS": SENS, "BVEC": BVEC, "XI": XI, "XB": XB, "XF3": XF3,
          "XP": XP, "XN": XN, "std_inputs": lambda: {}, "std_params": lambda: {}, "CASES": {}}

    def case(name, desc, modes=MODES, config=None):
        def deco(f):
            ns["CASES"][name] = f
            return f
        return deco
    ns["case"] = case
    exec(_compile(DATA["common_definitions"], "common"), ns)
    for name, src in DATA["factory_sources"].items():
        exec(_compile(src, name), ns)
    return ns


NS = _namespace()


# cases recorded as the inner function of a factory the JSON does not name, with the factory's
# argument (their descriptions say which input they use)
_FACTORY_ARGS = {"control_if_positive": {"xv": XP}, "control_if_negative": {"xv": XN}}


def case_thunk(c: dict, mode: str):
    """A callable running case `c` in `mode`."""
    run = runner(mode)
    if c["name"] in _FACTORY_ARGS:
        local = dict(NS, **_FACTORY_ARGS[c["name"]])
        exec(_compile(c["source"], "case"), local)
        make = local["f"]
    elif "factory" in c:
        config = {k: eval(v, NS) for k, v in c["config"].items()}
        make = NS[c["factory"]](**config)
    else:
        local = dict(NS)
        found = local["CASES"] = {}
        local["case"] = lambda name, desc, modes=MODES, config=None: (lambda f: found.setdefault(name, f))
        exec(_compile(c["source"], "case"), local)
        make = local["CASES"][c["name"]]
    _, _, thunk = make(run)
    return thunk


def encode(v):
    if isinstance(v, dict):
        return {"dict": [[k, encode(x)] for k, x in v.items()]}
    if isinstance(v, str):
        return {"scalar": v, "type": "str"}
    if isinstance(v, tuple):
        return {"tuple": [encode(x) for x in v]}
    if isinstance(v, list):
        return {"list": [encode(x) for x in v]}
    return ch.encode(v)


def outcome(thunk) -> dict:
    try:
        return encode(thunk())
    except Exception as e:      # noqa: BLE001  (an exception is a recorded outcome)
        return ch.encode_error(e)


def expected(c: dict, mode: str) -> dict:
    r = c["results"][mode]
    return c["results"]["pynative"] if "same_as" in r else r


def compare(want: dict, got: dict, path="result") -> list:
    if "dict" in want:
        if "dict" not in got or [k for k, _ in want["dict"]] != [k for k, _ in got["dict"]]:
            return [f"{path}: expected {want}, got {got}"]
        out = []
        for (k, a), (_, b) in zip(want["dict"], got["dict"]):
            out += compare(a, b, f"{path}[{k!r}]")
        return out
    if "error" in want:
        if "error" not in got or got["error"]["type"] != want["error"]["type"]:
            return [f"{path}: expected {want['error']['type']}: {want['error']['message_first_line']}, got {got}"]
        return []
    for kind in ("tuple", "list"):
        if kind in want and kind in got and len(want[kind]) == len(got[kind]):
            out = []
            for i, (a, b) in enumerate(zip(want[kind], got[kind])):
                out += compare(a, b, f"{path}[{i}]")
            return out
    if want.get("type") == "str" or got.get("type") == "str":
        return [] if want == got else [f"{path}: expected {want}, got {got}"]
    return ch.compare(want, got, path=path)
