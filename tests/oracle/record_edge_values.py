"""Record MindSpore 2.10's CPU results at edge values (run ONLY in the MindSpore venv):

    /work/ms-venv/bin/python tests/oracle/record_edge_values.py

Reads data/edge_requests.json (written by pycompile's side: `python tests/compiler/edge_ops.py
requests`): every elementwise op of pycompile's table with every dtype it accepts, on the edge
grid of edge_cases.py, plus the hand-written composite cases of edge_cases.CASES. Runs each in
PyNative and writes

* data/edge_values.json: per request its name, expression, input dtypes, and MindSpore's result
  dtype and shape, or the error MindSpore raised (class and first line);
* data/edge_values.npz: the result values, one array per request name (the grids hold tens of
  thousands of values: kept binary).
"""
import json
import os
import pathlib
import sys
import tempfile

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import edge_cases as E  # noqa: E402
from record_common import encode_error  # noqa: E402


def run_from(first: int, outdir: str):
    """Child process: run requests[first:], one result file pair per request (a crash of
    MindSpore - SIGFPE on an integer division by zero - ends the child, not the recording)."""
    import mindspore as ms
    from mindspore import Tensor, ops
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    requests = json.loads((HERE / "data" / "edge_requests.json").read_text())
    os.chdir(outdir)
    for k in range(first, len(requests)):
        r = requests[k]
        pathlib.Path(f"{k}.started").write_text("")
        if "inputs" in r:
            xs = [np.array(i["value"], dtype=i["dtype"]) for i in r["inputs"]]
        else:
            xs = E.edge_grid(r["dtypes"])
        env = {"ops": ops, "ms": ms, "Tensor": Tensor}
        env.update({f"x{j}": Tensor(x) for j, x in enumerate(xs)})
        rec = {"name": r["name"], "expr": r["expr"], "dtypes": [str(x.dtype) for x in xs]}
        try:
            with np.errstate(all="ignore"):
                y = eval(r["expr"], env)        # noqa: S307 - our own expressions
            a = y.asnumpy()
            rec["result"] = {"dtype": str(y.dtype), "shape": list(a.shape)}
            np.save(f"{k}.npy", a)
        except Exception as e:  # noqa: BLE001 - recorded
            rec.update(encode_error(e))
        pathlib.Path(f"{k}.json").write_text(json.dumps(rec))


def main():
    import subprocess
    requests = json.loads((HERE / "data" / "edge_requests.json").read_text())
    outdir = tempfile.mkdtemp(prefix="edge-record-")
    k = 0
    while k < len(requests):
        p = subprocess.run([sys.executable, __file__, "child", str(k), outdir], cwd=outdir)
        done = sorted(int(f.stem) for f in pathlib.Path(outdir).glob("*.json"))
        k = max(done, default=-1) + 1
        if p.returncode != 0 and k < len(requests):
            # the request it started and did not finish crashed MindSpore's process
            r = requests[k]
            rec = {"name": r["name"], "expr": r["expr"], "dtypes": r.get("dtypes") or [i["dtype"] for i in r["inputs"]],
                   "error": {"type": "crash", "message_first_line": f"the process died (exit status {p.returncode})"}}
            pathlib.Path(outdir, f"{k}.json").write_text(json.dumps(rec))
            print(r["name"], "CRASH", p.returncode, flush=True)
            k += 1
    out, arrays = [], {}
    for k, r in enumerate(requests):
        rec = json.loads(pathlib.Path(outdir, f"{k}.json").read_text())
        if "result" in rec:
            arrays[r["name"]] = np.load(pathlib.Path(outdir, f"{k}.npy"))
        out.append(rec)
    import mindspore as ms
    data = HERE / "data"
    (data / "edge_values.json").write_text(
        "{\"mindspore\": " + json.dumps(ms.__version__) + ", \"results\": [\n"
        + ",\n".join(json.dumps(r) for r in out) + "\n]}\n")
    np.savez_compressed(data / "edge_values.npz", **arrays)


if __name__ == "__main__":
    if sys.argv[1:2] == ["child"]:
        run_from(int(sys.argv[2]), sys.argv[3])
    else:
        main()
