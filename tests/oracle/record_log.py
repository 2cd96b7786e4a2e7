"""Record what MindSpore 2.10's `mindspore.log` prints for log_script.py at each GLOG_v (run ONLY in
the MindSpore venv): data/log_lines.json, per level the script's stdout and its stderr lines that
come from the script, with the process / thread ids, the time and the script's directory replaced
by placeholders (log_normalize.normalize)."""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from log_normalize import LEVELS, normalize  # noqa: E402


def main():
    out = {}
    for level in LEVELS:
        env = dict(os.environ, GLOG_v=level)
        proc = subprocess.run([sys.executable, os.path.join(HERE, "log_script.py"), "mindspore"], env=env,
                              capture_output=True, text=True, timeout=300)
        out[level] = normalize(proc.stdout, proc.stderr, proc.returncode)
    with open(os.path.join(HERE, "data", "log_lines.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print("wrote data/log_lines.json")


if __name__ == "__main__":
    main()
