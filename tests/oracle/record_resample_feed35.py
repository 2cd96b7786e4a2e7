"""Record MindSpore 2.10's ResizedCrop / RandomResizedCrop with BICUBIC, AREA and PILCUBIC (issue 35):

    cd $(mktemp -d) && /work/ms-venv/bin/python <repo>/tests/oracle/record_resample_feed35.py

Writes data/resample_feed35.json from the cases of tests/dataset/resample_cases_feed35.py.
"""
import json
import os
import sys

import mindspore.dataset.vision as vision

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "dataset"))
import resample_cases_feed35 as cases  # noqa: E402


def main():
    out = cases.run(vision)
    with open(os.path.join(HERE, "data", "resample_feed35.json"), "w") as f:
        json.dump(out, f, sort_keys=True)
    for name, v in out.items():
        print(name, v.get("shape"), v.get("error"))


if __name__ == "__main__":
    main()
