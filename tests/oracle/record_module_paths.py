"""Record MindSpore 2.10's module tree: for every public module under the packages model code
imports from (mindspore.nn, .ops, .dataset, .train, .common, .communication, .amp, .context,
.parallel, .numpy, .experimental, .mint, .profiler), the names it holds that are one of
MindSpore's public names (src/pycompile/data/mindspore_names.json), by the public name they are.

    cd /tmp && /work/msvenv/bin/python /work/main/tests/oracle/record_module_paths.py

Writes src/pycompile/data/mindspore_modules.json (pycompile/_module_paths.py serves it):

    {"mindspore": "2.10.0", "modules": {"nn.loss.loss": {"nn": "BCELoss ... LossBase ...",
                                                          "ms": "Parameter Tensor"}, ...}}

per module, per namespace of mindspore_names.json, the names (space-separated) whose object is
that namespace's name of the same spelling; a name held under another spelling is written
`alias=name`. A module is walked when its path has no component starting with `_`.
"""
import importlib
import json
import os
import pkgutil
import warnings

warnings.filterwarnings("ignore")
import mindspore  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(os.path.dirname(os.path.dirname(HERE)), "src", "pycompile", "data")
ROOTS = ("nn", "ops", "dataset", "train", "common", "communication", "amp", "context", "parallel", "numpy",
         "experimental", "mint", "profiler")


def main():
    with open(os.path.join(DATA, "mindspore_names.json")) as f:
        names = json.load(f)["namespaces"]
    canon = {}
    for ns, listed in names.items():
        if ns == "Tensor":
            continue
        mod = importlib.import_module("mindspore" + ("" if ns == "ms" else "." + ns))
        for n in listed:
            try:
                obj = getattr(mod, n)
            except Exception:       # noqa: BLE001 - a name the wheel lists but cannot give
                continue
            if obj is None or isinstance(obj, (bool, int, float, str)):
                continue            # constants: equal by value, not one object
            canon.setdefault(id(obj), (ns, n))
    modules = {}
    seen = set()

    def walk(path):
        if path in seen:
            return
        seen.add(path)
        try:
            mod = importlib.import_module("mindspore." + path)
        except Exception:           # noqa: BLE001 - a module that needs Ascend software to import
            return
        entry = {}
        for n, obj in sorted(vars(mod).items()):
            c = canon.get(id(obj))
            if n.startswith("_") or c is None:
                continue
            entry.setdefault(c[0], []).append(n if n == c[1] else f"{n}={c[1]}")
        if entry:
            modules[path] = {ns: " ".join(v) for ns, v in sorted(entry.items())}
        for info in pkgutil.iter_modules(getattr(mod, "__path__", None) or []):
            if not info.name.startswith("_"):
                walk(f"{path}.{info.name}")

    for root in ROOTS:
        walk(root)
    out = {"mindspore": mindspore.__version__, "modules": modules}
    with open(os.path.join(DATA, "mindspore_modules.json"), "w") as f:
        json.dump(out, f, separators=(",", ":"), sort_keys=True)
    print(len(modules), "modules,", sum(len(s.split()) for m in modules.values() for s in m.values()), "names")


if __name__ == "__main__":
    main()
