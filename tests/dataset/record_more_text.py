"""Record MindSpore 2.10's results for more_text_cases.py (run under MindSpore's venv, from a temp
dir): cd /tmp && /work/ms-venv/bin/python /work/main/tests/dataset/record_more_text.py
Writes fixtures/more_text.json. Not collected by pytest."""
import json
import os
import sys

import numpy as np

import mindspore
import mindspore.dataset.text as text

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from more_text_cases import CASES  # noqa: E402
from oracle_io import encode, run  # noqa: E402


def main():
    record = {"mindspore": mindspore.__version__, "cases": {k: run(make, text, x) for k, (make, x) in CASES.items()},
              "to_str": encode(text.to_str(np.array([b"ab", b"c"]))),
              "to_bytes": [{"values": [v.decode("latin-1") for v in text.to_bytes(np.array(["ab", "\u00e9"])).tolist()],
                            "dtype": str(text.to_bytes(np.array(["ab", "\u00e9"])).dtype)}]}
    with open(os.path.join(HERE, "fixtures", "more_text.json"), "w") as f:
        json.dump(record, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print("recorded", len(CASES))


if __name__ == "__main__":
    main()
