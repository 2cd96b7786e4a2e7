"""Record MindSpore's vjp / jvp / jacrev / jacfwd / get_grad / return_ids and higher-order
gradients into data/autodiff_transforms.json (issue 34).

Run ONLY in the MindSpore venv:
    . /work/ms-venv/bin/activate && python tests/oracle/record_autodiff_transforms.py [NAME ...]

The cases are in autodiff_transform_cases.py (no framework import: it is executed with
`ms`, `ops`, `nn` ... bound to MindSpore here, to pycompile by the test). Modes: pynative,
graph_jit (the call inside ms.jit), graph_cell (GRAPH_MODE, inside a Cell's construct). A mode
whose result equals the pynative one within rtol = atol = 1e-6 is written {"same_as": "pynative"}.
"""
import importlib.util
import os
import sys
import tempfile
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import record_common as rc  # noqa: E402

import mindspore as ms  # noqa: E402
from mindspore import nn, ops, Tensor, Parameter  # noqa: E402

CASES_FILE = os.path.join(HERE, "autodiff_transform_cases.py")


class Wrap(nn.Cell):
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


def load():
    """The cases as a real module (MindSpore's graph parser resolves globals through it)."""
    spec = importlib.util.spec_from_file_location("autodiff_transform_cases", CASES_FILE)
    mod = importlib.util.module_from_spec(spec)
    mod.__dict__.update(ms=ms, ops=ops, nn=nn, Tensor=Tensor, Parameter=Parameter)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod.CASES


def main():
    only = set(sys.argv[1:])
    warnings.simplefilter("ignore")
    cases = load()
    out = rc.meta("tests/oracle/record_autodiff_transforms.py")
    out["cases_file"] = "tests/oracle/autodiff_transform_cases.py"
    out["cases"] = []
    os.chdir(tempfile.mkdtemp())
    for name, (make, modes) in cases.items():
        if only and name not in only:
            continue
        results = {}
        for mode in modes:
            ms.set_context(mode=ms.PYNATIVE_MODE if mode != "graph_cell" else ms.GRAPH_MODE)
            got = rc.capture(lambda: make(runner(mode))())
            if mode != "pynative" and rc.same(got, results["pynative"]):
                got = {"same_as": "pynative"}
            results[mode] = got
        print(name, {m: ("error" if "error" in r else "ok") for m, r in results.items()}, file=sys.stderr)
        out["cases"].append({"name": name, "results": results})
    path = os.path.join(rc.DATA_DIR, "autodiff_transforms_partial.json" if only else "autodiff_transforms.json")
    rc.write_json(path, out)


if __name__ == "__main__":
    main()
