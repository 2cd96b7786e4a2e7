"""Record MindSpore 2.10's ReduceLROnPlateau: the learning rate after each epoch for sequences of
monitored values (run under MindSpore's venv, from a temp dir):

    cd /tmp && /work/ms-venv/bin/python /work/main/tests/oracle/record_reduce_lr.py

Writes tests/oracle/data/reduce_lr.json; tests/train/test_reduce_lr_on_plateau.py replays it."""
import json
import os
import sys

import mindspore as ms
import mindspore.train  # noqa: F401 - ms.train is read by run()

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reduce_lr_cases import CASES, run  # noqa: E402


def main():
    record = {name: run(ms, *case) for name, case in CASES.items()}
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "reduce_lr.json")
    with open(out, "w") as f:
        json.dump({"mindspore": ms.__version__, "cases": record}, f, indent=1)
        f.write("\n")
    print("wrote", out)


if __name__ == "__main__":
    main()
