"""Record MindSpore 2.10's text.Vectors / GloVe / FastText and ToVectors on the files of
tests/dataset/vectors_cases_data35.py (issue 35):

    . /work/ms-venv/bin/activate && python tests/oracle/record_vectors_data35.py

Writes data/vectors_data35.json: per case the vectors looked up (dtype, shape, values) or the error.
"""
import json
import os
import sys
import tempfile

import mindspore.dataset.text as text

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "dataset"))
import vectors_cases_data35 as vc  # noqa: E402


def main():
    with tempfile.TemporaryDirectory() as root:
        vc.build(root)
        out = {case: vc.run(text, root, case) for case in vc.CASES}
    with open(os.path.join(HERE, "data", "vectors_data35.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
