"""Record MindSpore 2.10's results for more_transform_cases.py (run under MindSpore's venv, from
a temp dir):  cd /tmp && /work/ms-venv/bin/python /work/main/tests/dataset/record_more_transforms.py
Writes fixtures/more_transforms.json. Not collected by pytest."""
import json
import os
import sys

import numpy as np

import mindspore
import mindspore.dataset.transforms as T

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from more_transform_cases import CASES  # noqa: E402


def encode(out):
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return [{"dtype": str(np.asarray(o).dtype), "shape": list(np.asarray(o).shape), "values": np.asarray(o).tolist()}
            for o in outs]


def run(make, inputs):
    try:
        return {"outputs": encode(make(T)(*inputs))}
    except Exception as e:  # noqa: BLE001 - recording what MindSpore raises
        text = str(e)
        i = text.find("[ERROR]")
        return {"raises": type(e).__name__, "message": text[i:text.find("\n", i)] if i >= 0 else text}


def main():
    record = {"mindspore": mindspore.__version__, "cases": {k: run(*v) for k, v in CASES.items()}}
    with open(os.path.join(HERE, "fixtures", "more_transforms.json"), "w") as f:
        json.dump(record, f, indent=1)
        f.write("\n")
    print("recorded", len(CASES))


if __name__ == "__main__":
    main()
