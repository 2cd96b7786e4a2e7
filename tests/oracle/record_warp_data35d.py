"""Record MindSpore 2.10's Rotate / RandomRotation / Affine / RandomAffine / Perspective and the
*WithBBox resizes with every Inter mode (issue 35):

    cd $(mktemp -d) && /work/ms-venv/bin/python <repo>/tests/oracle/record_warp_data35d.py

Writes data/warp_data35d.json from the cases of tests/dataset/warp_cases_data35d.py.
"""
import json
import os
import sys

import mindspore
import mindspore.dataset.vision as vision

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "dataset"))
import warp_cases_data35d as cases  # noqa: E402


def main():
    out = {"mindspore": mindspore.__version__, "cases": cases.run(vision)}
    with open(os.path.join(HERE, "data", "warp_data35d.json"), "w") as f:
        json.dump(out, f, sort_keys=True)
        f.write("\n")
    for name, v in out["cases"].items():
        print(name, [o["shape"] for o in v["outputs"]] if "outputs" in v else v["error"])


if __name__ == "__main__":
    main()
