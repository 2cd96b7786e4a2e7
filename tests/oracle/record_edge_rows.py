"""Record MindSpore 2.10's CPU results of edge_rows_cases.CASES (run ONLY in the MindSpore venv,
from a scratch directory: MindSpore writes rank_0/ into the cwd):

    cd $(mktemp -d) && /work/ms-venv/bin/python /path/to/tests/oracle/record_edge_rows.py

Writes data/edge_rows.json (per case: expression, input dtypes, MindSpore's result dtype and
shape, or the error it raised) and data/edge_rows.npz (the result values, one array per case).
"""
import json
import pathlib
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import edge_rows_cases as E  # noqa: E402
from record_common import encode_error  # noqa: E402


def main():
    import mindspore as ms
    from mindspore import Tensor, ops
    import importlib.util
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    # the cases as functions of a file (ms.grad reads a lambda's source)
    src = "from mindspore import Tensor, ops\nimport mindspore as ms\n\n"
    for k, (expr, inputs, _) in enumerate(E.CASES.values()):
        src += f"def case_{k}({', '.join(f'x{j}' for j in range(len(inputs)))}):\n    return {expr}\n\n\n"
    pathlib.Path("edge_row_fns.py").write_text(src)
    spec = importlib.util.spec_from_file_location("edge_row_fns", "edge_row_fns.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out, arrays = [], {}
    for k, (name, (expr, inputs, rows)) in enumerate(E.CASES.items()):
        xs = [np.array(i["value"], dtype=i["dtype"]).reshape(i["shape"]) for i in inputs]
        rec = {"name": name, "expr": expr, "dtypes": [str(x.dtype) for x in xs], "rows": rows}
        try:
            with np.errstate(all="ignore"):
                y = getattr(mod, f"case_{k}")(*[Tensor(x) for x in xs])
            if isinstance(y, tuple):
                y = ops.cat([t.reshape(-1) for t in y])        # (gradients of several inputs)
            a = y.asnumpy()
            rec["result"] = {"dtype": str(y.dtype), "shape": list(a.shape)}
            arrays[name] = a
        except Exception as e:  # noqa: BLE001 - recorded
            rec.update(encode_error(e))
        print(name, rec.get("result") or rec.get("error"), flush=True)
        out.append(rec)
    data = HERE / "data"
    (data / "edge_rows.json").write_text(
        "{\"mindspore\": " + json.dumps(ms.__version__) + ", \"results\": [\n"
        + ",\n".join(json.dumps(r) for r in out) + "\n]}\n")
    np.savez_compressed(data / "edge_rows.npz", **arrays)


if __name__ == "__main__":
    main()
