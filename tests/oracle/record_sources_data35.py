"""Record MindSpore 2.10's VOCDataset, CelebADataset, CocoDataset, TFRecordDataset, KMnistDataset,
EMnistDataset and QMnistDataset on the folders of tests/dataset/source_cases_data35.py (issue 35):

    . /work/ms-venv/bin/activate && python tests/oracle/record_sources_data35.py

Writes data/sources_data35.json: per case the columns, size and rows (dtype, shape, values) read
unshuffled, or the error (class and MindSpore's message, the root written <dir>).
"""
import json
import os
import sys
import tempfile

import mindspore.dataset as ds

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "dataset"))
import source_cases_data35 as sc  # noqa: E402
import source_io_data35 as sio  # noqa: E402


def main():
    out = {}
    with tempfile.TemporaryDirectory() as root:
        os.chdir(root)
        sc.build_all(root)
        for case in sc.CASES:
            out[case] = sio.run(ds, root, case)
        os.chdir(HERE)
    with open(os.path.join(HERE, "data", "sources_data35.json"), "w") as f:
        json.dump(out, f, indent=None, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
