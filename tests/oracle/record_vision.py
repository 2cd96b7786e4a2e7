"""Record MindSpore 2.10's vision transforms on the inputs of tests/dataset/vision_cases.py (issue 35):

    . /work/ms-venv/bin/activate && python tests/oracle/record_vision.py

Writes data/vision.json: per case its output (dtype, shape, values; a PIL image as np.asarray of it)
or the error it raised (class, first line).
"""
import json
import os
import sys
import tempfile

import numpy as np

import mindspore as ms
import mindspore.dataset.vision as vision

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "dataset"))
import vision_cases as vc  # noqa: E402


def encode(a):
    a = np.asarray(a)
    return {"dtype": str(a.dtype), "shape": list(a.shape),
            "values": a.astype(np.float64).tolist() if a.dtype.kind == "f" else a.tolist()}


def main():
    images = vc.inputs()
    record = {"mindspore": ms.__version__, "cases": {}}
    for name, (build, img) in vc.cases(vision).items():
        try:
            record["cases"][name] = encode(vc.apply(build(), images[img].copy()))
        except Exception as e:  # noqa: BLE001 - recording what MindSpore raises
            record["cases"][name] = {"raises": type(e).__name__, "message": str(e).splitlines()[0]}
    out = os.path.join(HERE, "data", "vision.json")
    with open(out, "w") as f:
        json.dump(record, f, indent=None, sort_keys=True)
        f.write("\n")
    print("wrote", out, os.path.getsize(out), "bytes", file=sys.stderr)


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        main()
