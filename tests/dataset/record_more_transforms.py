"""Record MindSpore 2.10's results for more_transform_cases.py (run under MindSpore's venv, from
a temp dir):  cd /tmp && /work/ms-venv/bin/python /work/main/tests/dataset/record_more_transforms.py
Writes fixtures/more_transforms.json. Not collected by pytest."""
import json
import os
import sys

import mindspore
import mindspore.dataset.transforms as T

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from more_transform_cases import CASES  # noqa: E402
from oracle_io import run  # noqa: E402


def main():
    record = {"mindspore": mindspore.__version__, "cases": {k: run(make, T, *inputs) for k, (make, inputs) in CASES.items()}}
    with open(os.path.join(HERE, "fixtures", "more_transforms.json"), "w") as f:
        json.dump(record, f, indent=1)
        f.write("\n")
    print("recorded", len(CASES))


if __name__ == "__main__":
    main()
