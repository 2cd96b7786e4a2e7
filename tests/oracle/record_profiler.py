"""Record what MindSpore 2.10's Profiler writes on the CPU: its files, their headers and line
formats, and the op names (Cell scopes) of a network in graph mode and of a training step.

    cd /tmp && /work/msvenv/bin/python /work/main/tests/oracle/record_profiler.py

Writes data/profiler_layout.json. Times are not recorded (they are this machine's); per file:
its path under the run's directory, its first line (the CSV header), and per line the number of
`;`-separated fields; per network: the sorted set of full op names' scopes (the op name's last
component dropped) and the op types, in graph mode; for the training step the forward scopes
(MindSpore names its gradient ops `Gradients/...`: kept apart).
"""
import glob
import json
import os
import shutil
import sys
import tempfile


import mindspore as ms
from mindspore.profiler import Profiler

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import profiler_nets  # noqa: E402


def _run(build, calls, workdir):
    shutil.rmtree(workdir, ignore_errors=True)
    fn, args = build(ms)
    fn(*args)                          # compiled before the profiler starts, as the tests do
    p = Profiler(output_path=workdir)
    for _ in range(calls):
        fn(*args)
    p.analyse()
    (run,) = glob.glob(os.path.join(workdir, "*_ascend_ms"))
    return run


def _files(run):
    out = {}
    for path in sorted(glob.glob(os.path.join(run, "**", "*"), recursive=True)):
        if os.path.isdir(path):
            continue
        rel = os.path.relpath(path, run)
        if rel.startswith("logs"):
            out["logs/*.log"] = {}
            continue
        with open(path) as f:
            text = f.read()
        entry = {}
        if rel.endswith(".csv"):
            entry["header"] = text.splitlines()[0]
        elif rel.endswith(".txt"):
            entry["fields_per_line"] = sorted({len(line.split(";")) for line in text.splitlines()})
            entry["first_line_shape"] = _shape_of(text.splitlines()[0])
        elif rel.endswith(".json"):
            events = json.loads(text)
            entry["process_names"] = sorted({e["args"]["name"] for e in events if e.get("name") == "process_name"})
            entry["event_keys"] = sorted({",".join(sorted(e)) for e in events if e["ph"] == "X"})
        out[rel] = entry
    return out


def _shape_of(line):
    """A line with its numbers replaced by `N` (the format without this run's values)."""
    import re
    return re.sub(r"\d+(\.\d+)?", "N", line)


def _names(run):
    import csv
    with open(os.path.join(run, "FRAMEWORK", "cpu_op_detail_info_0.csv")) as f:
        rows = list(csv.DictReader(f))
    full = [r["full_op_name"] for r in rows]
    return {"scopes": sorted({n.rsplit("/", 1)[0] for n in full if "/" in n and not n.startswith("Gradients/")}),
            "gradient_scopes": sorted({n.rsplit("/", 1)[0] for n in full if n.startswith("Gradients/")}),
            "op_types": sorted({r["op_type"] for r in rows}),
            "occurrences": sorted({int(r["op_occurrences"]) for r in rows})}


WARN_SCRIPT = """
import tempfile
from mindspore.profiler import Profiler
p = Profiler(output_path=tempfile.mkdtemp(), start_profile="yes", with_stack=1, activities="cpu")
p.stop()
"""


def _warnings():
    """The warnings MindSpore logs for arguments of the wrong type (the message after its log prefix)."""
    import subprocess
    proc = subprocess.run([sys.executable, "-c", WARN_SCRIPT], capture_output=True, text=True, timeout=300)
    text = proc.stdout + proc.stderr
    return ["For Profiler," + line.split("For Profiler,", 1)[1] for line in text.splitlines() if "For Profiler," in line]


def main():
    # first: the profilers this process runs set environment variables a child would inherit
    # (its warnings were then not logged)
    warnings = _warnings()
    ms.set_context(mode=ms.GRAPH_MODE)
    out = {"mindspore": ms.__version__, "calls": 3, "argument_warnings": warnings}
    with tempfile.TemporaryDirectory() as d:
        os.chdir(d)
        run = _run(profiler_nets.dense_relu, 3, os.path.join(d, "dense"))
        out["dir_name_pattern"] = _shape_of(os.path.basename(run))
        out["files"] = _files(run)
        out["dense_relu"] = _names(run)
        out["lenet_step"] = _names(_run(profiler_nets.lenet_step, 3, os.path.join(d, "lenet")))
    with open(os.path.join(HERE, "data", "profiler_layout.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
    print(json.dumps(out, indent=1)[:3000])


if __name__ == "__main__":
    main()
