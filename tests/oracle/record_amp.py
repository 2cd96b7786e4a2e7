"""Record MindSpore 2.10 running the automatic mixed precision scripts of tests/train/amp_cases.py
in PYNATIVE_MODE and GRAPH_MODE (run once, in MindSpore's venv):

    /work/ms-venv/bin/python tests/oracle/record_amp.py     # writes data/amp.json

One subprocess per mode runs every case (an import of MindSpore per case would take minutes);
each case builds its own networks. Not collected by pytest.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CASES_DIR = os.path.join(HERE, "..", "train")


def run_mode(mode):
    import mindspore as ms
    import mindspore.dataset  # noqa: F401  (ms.dataset as an attribute)
    sys.path.insert(0, CASES_DIR)
    import amp_cases
    ms.set_context(mode=getattr(ms, mode), device_target="CPU")
    os.chdir(tempfile.mkdtemp())      # O1's ms.rewrite writes rewritten_network/*.py to the working directory
    out = {}
    for name, case in amp_cases.CASES.items():
        try:
            out[name] = case(ms)
        except Exception as e:  # noqa: BLE001 - a case the wheel cannot run is recorded as such
            out[name] = {"case_error": [type(e).__name__, str(e).strip().splitlines()[0] if str(e).strip() else ""]}
        print(name, "ok", file=sys.stderr, flush=True)
    print("@@RESULT@@" + json.dumps(out))


def main():
    if len(sys.argv) == 2:
        return run_mode(sys.argv[1])
    import mindspore
    out = {"mindspore": mindspore.__version__, "cases": {}}
    for mode in ("PYNATIVE_MODE", "GRAPH_MODE"):
        proc = subprocess.run([sys.executable, __file__, mode], capture_output=True, text=True)
        lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("@@RESULT@@")]
        if proc.returncode or not lines:
            print(proc.stdout[-3000:], proc.stderr[-3000:])
            raise SystemExit(f"{mode} failed")
        out["cases"][mode] = json.loads(lines[0][len("@@RESULT@@"):])
        print(mode, "ok", flush=True)
    with open(os.path.join(HERE, "data", "amp.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
