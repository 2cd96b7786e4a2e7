"""Record MindSpore 2.10's module layout and `_checkparam` answers for the cases of
tests/common/module_layout_cases.py (run once, in MindSpore's venv):

    /work/ms-venv/bin/python tests/oracle/record_module_layout.py    # writes data/module_layout.json

Not collected by pytest.
"""
import importlib
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def _get(root, path, name):
    mod = importlib.import_module(root + ("." + path if path else ""))
    return getattr(mod, name)


def main():
    sys.path.insert(0, os.path.join(HERE, "..", "common"))
    import module_layout_cases as cases
    os.chdir(tempfile.mkdtemp())
    out = {"identities": [], "modules": {}, "checkparam": {}}
    for path, name, canon, cname in cases.IDENTITIES:
        out["identities"].append([path, name, canon, cname, _get("mindspore", path, name) is _get("mindspore", canon, cname)])
    for path in cases.MODULES:
        try:
            importlib.import_module("mindspore." + path)
            out["modules"][path] = True
        except ImportError as e:
            out["modules"][path] = f"{type(e).__name__}: {e}"
    from mindspore import _checkparam as V
    for key, call in cases.checkparam_cases(V).items():
        try:
            out["checkparam"][key] = {"value": call()}
        except Exception as e:  # noqa: BLE001 - the error is the answer
            out["checkparam"][key] = {"error": type(e).__name__, "message": str(e)}
    from mindspore.ops import PrimitiveWithInfer, prim_attr_register

    class Shift(PrimitiveWithInfer):
        @prim_attr_register
        def __init__(self, periods=1, axis=-1):
            self.init_prim_io_names(inputs=["x", "fill_value"], outputs=["output"])

    s = Shift(axis=0)
    out["prim_attr_register"] = {"name": s.name, "attrs": {k: v for k, v in s.attrs.items()}}
    with open(os.path.join(HERE, "data", "module_layout.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
