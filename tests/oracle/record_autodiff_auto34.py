"""Record MindSpore's ops.Custom (pyfunc, bprop=), multi-input / multi-output backward hooks and
Cell bprop cases into data/autodiff_auto34.json (issue 34).

Run ONLY in the MindSpore venv:
    . /work/ms-venv/bin/activate && python tests/oracle/record_autodiff_auto34.py [NAME ...]

The cases are in autodiff_auto34_cases.py; the modes and the encoding are those of
record_autodiff_transforms.py, whose runner this script reuses.
"""
import os
import subprocess
import sys
import tempfile
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import record_autodiff_transforms as rt  # noqa: E402
import record_common as rc  # noqa: E402

ms = rt.ms
KERNELS = os.path.join(HERE, "data", "custom_aot_kernels.c")


def build_aot() -> str:
    """data/custom_aot_kernels.c as a shared object in a temporary directory."""
    so = os.path.join(tempfile.mkdtemp(), "custom_aot_kernels.so")
    subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", so, KERNELS], check=True)
    return so


def _scrub(obj, text: str, by: str):
    """obj with `text` (the temporary directory of the built kernels) replaced by `by` in strings,
    so two runs write the same file."""
    if isinstance(obj, str):
        return obj.replace(text, by)
    if isinstance(obj, list):
        return [_scrub(x, text, by) for x in obj]
    if isinstance(obj, dict):
        return {k: _scrub(v, text, by) for k, v in obj.items()}
    return obj


SO: list = []


def load():
    import importlib.util
    spec = importlib.util.spec_from_file_location("autodiff_auto34_cases", os.path.join(HERE, "autodiff_auto34_cases.py"))
    mod = importlib.util.module_from_spec(spec)
    so = build_aot()
    SO.append(so)
    mod.__dict__.update(ms=ms, ops=rt.ops, nn=rt.nn, Tensor=rt.Tensor, Parameter=rt.Parameter, aot_so=lambda: so)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod.CASES


def main():
    only = set(sys.argv[1:])
    warnings.simplefilter("ignore")
    cases = load()
    out = rc.meta("tests/oracle/record_autodiff_auto34.py")
    out["cases_file"] = "tests/oracle/autodiff_auto34_cases.py"
    out["cases"] = []
    os.chdir(tempfile.mkdtemp())
    for name, (make, modes) in cases.items():
        if only and name not in only:
            continue
        results = {}
        for mode in modes:
            ms.set_context(mode=ms.PYNATIVE_MODE if mode != "graph_cell" else ms.GRAPH_MODE)
            got = rc.capture(lambda: make(rt.runner(mode))())
            if mode != "pynative" and rc.same(got, results["pynative"]):
                got = {"same_as": "pynative"}
            results[mode] = got
        print(name, {m: ("error" if "error" in r else "ok") for m, r in results.items()}, file=sys.stderr)
        out["cases"].append({"name": name, "results": results})
    out = _scrub(out, os.path.dirname(SO[0]), "<aot_dir>")
    path = os.path.join(rc.DATA_DIR, "autodiff_auto34_partial.json" if only else "autodiff_auto34.json")
    rc.write_json(path, out)


if __name__ == "__main__":
    main()
