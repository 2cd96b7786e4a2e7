"""Record MindSpore 2.10's public names, namespace by namespace (MindSpore's venv only).

    /work/ms-venv/bin/python tests/conformance/record_names.py

writes src/pycompile/data/mindspore_names.json and mindspore_tensor_names.txt (package data): for each namespace the sorted public names (a module's
``__all__``, else its attributes without a leading underscore; a class's public attributes for
``Tensor``), each with its kind (class / function / other) and, where ``inspect`` can read one, its
call signature as text. pycompile's tests read the file (tests/conformance/test_names.py: the
presence count; the AttributeError for a MindSpore name pycompile lacks) and the API reference is
generated from it. pytest never collects this script (conftest.py ignores record_*.py).
"""
import inspect
import json
import os
import sys

import mindspore
from mindspore import Tensor, nn, ops

NAMESPACES = {
    # key: (module path, how names are listed)
    "ms": "mindspore",
    "ops": "mindspore.ops",
    "ops.operations": "mindspore.ops.operations",
    "ops.functional": "mindspore.ops.functional",
    "nn": "mindspore.nn",
    "Tensor": None,
    "train": "mindspore.train",
    "amp": "mindspore.amp",
    "communication": "mindspore.communication",
    "dataset": "mindspore.dataset",
    "dataset.vision": "mindspore.dataset.vision",
    "dataset.transforms": "mindspore.dataset.transforms",
    "dataset.text": "mindspore.dataset.text",
    "numpy": "mindspore.numpy",
}


def _kind(obj) -> str:
    if inspect.isclass(obj):
        return "class"
    if callable(obj):
        return "function"
    if inspect.ismodule(obj):
        return "module"
    return "other"


def _signature(obj) -> str:
    target = obj.__init__ if inspect.isclass(obj) else obj
    try:
        sig = str(inspect.signature(target))
    except (TypeError, ValueError):
        return ""
    if inspect.isclass(obj) and sig.startswith("(self"):
        sig = "(" + sig[5:].lstrip(", ")
    # default values that print a memory address are not stable between runs
    return sig if " at 0x" not in sig else ""


def _public(module) -> list:
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in dir(module) if not n.startswith("_")]
    return sorted(set(str(n) for n in names if not str(n).startswith("_")))


def record() -> dict:
    import importlib
    out = {"mindspore": mindspore.__version__, "namespaces": {}}
    for key, path in NAMESPACES.items():
        if path is None:
            entries = {}
            for n in sorted(dir(Tensor)):
                if n.startswith("_"):
                    continue
                attr = inspect.getattr_static(Tensor, n)
                kind = "property" if isinstance(attr, property) else _kind(getattr(Tensor, n, None))
                entries[n] = {"kind": kind, "signature": _signature(getattr(Tensor, n)) if kind == "function" else ""}
        else:
            module = importlib.import_module(path)
            entries = {}
            for n in _public(module):
                obj = getattr(module, n, None)
                if obj is None and not hasattr(module, n):
                    continue  # listed in __all__ but absent: not a usable name
                entries[n] = {"kind": _kind(obj), "signature": _signature(obj) if callable(obj) else ""}
        out["namespaces"][key] = entries
    return out


def main() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    data = record()
    path = os.path.join(here, "..", "..", "src", "pycompile", "data", "mindspore_names.json")
    with open(path, "w") as f:
        json.dump(data, f, indent=0, sort_keys=True)
        f.write("\n")
    # the Tensor names alone, read at import (pycompile.common.missing.install_tensor_stubs)
    with open(os.path.join(os.path.dirname(path), "mindspore_tensor_names.txt"), "w") as f:
        f.write("\n".join(sorted(data["namespaces"]["Tensor"])) + "\n")
    for key, entries in data["namespaces"].items():
        print(f"{key:22s} {len(entries)}", file=sys.stderr)


if __name__ == "__main__":
    os.chdir(os.environ.get("TMPDIR", "/tmp"))
    main()
