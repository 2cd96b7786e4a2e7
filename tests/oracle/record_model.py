"""Record MindSpore 2.10 running the quick-start-style Model scripts of tests/train/model_cases.py
in PYNATIVE_MODE and GRAPH_MODE (run once, in MindSpore's venv):

    /work/ms-venv/bin/python tests/oracle/record_model.py     # writes data/model.json

Each case runs in a fresh subprocess per mode (MindSpore keeps global state) and in a fresh
temporary directory (checkpoints, MindSpore's rank_0/ dumps). Not collected by pytest.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CASES_DIR = os.path.join(HERE, "..", "train")


def run_one(case, mode):
    import mindspore as ms
    import mindspore.dataset  # noqa: F401  (ms.dataset as an attribute)
    sys.path.insert(0, CASES_DIR)
    import model_cases
    ms.set_context(mode=getattr(ms, mode), device_target="CPU")
    work = tempfile.mkdtemp()
    os.chdir(work)
    os.makedirs("ckpt")
    result = model_cases.CASES[case](ms, os.path.join(work, "ckpt"))
    print("@@RESULT@@" + json.dumps(result))


def main():
    if len(sys.argv) == 3:
        return run_one(sys.argv[1], sys.argv[2])
    sys.path.insert(0, CASES_DIR)
    import model_cases
    out = {"mindspore": None, "cases": {}}
    for case in model_cases.CASES:
        out["cases"][case] = {}
        for mode in ("PYNATIVE_MODE", "GRAPH_MODE"):
            proc = subprocess.run([sys.executable, __file__, case, mode], capture_output=True, text=True)
            lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("@@RESULT@@")]
            if proc.returncode or not lines:
                print(proc.stdout[-3000:], proc.stderr[-3000:])
                raise SystemExit(f"{case} {mode} failed")
            out["cases"][case][mode] = json.loads(lines[0][len("@@RESULT@@"):])
            print(case, mode, "ok", flush=True)
    import mindspore
    out["mindspore"] = mindspore.__version__
    with open(os.path.join(HERE, "data", "model.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
