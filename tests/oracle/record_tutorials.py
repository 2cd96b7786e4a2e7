"""Record what MindSpore 2.10 prints for the data tutorials of tests/dataset/tutorial_pages.py
(issue 35), each page run verbatim (download lines left out) on the folders build_folders writes:

    . /work/ms-venv/bin/activate && python tests/oracle/record_tutorials.py

Writes data/tutorials.json: per page, each code cell's printed text under the dataset and NumPy
seed tutorial_pages.SEED (CIFAR-10 files of 10000 records, as MindSpore requires).
"""
import json
import os
import sys
import tempfile

import mindspore.dataset as ds

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "dataset"))
import tutorial_pages as tp  # noqa: E402


def main():
    out = {"cifar_records": tp.CIFAR_FULL, "pages": {}}
    for name, cells in tp.PAGES.items():
        with tempfile.TemporaryDirectory() as tmp:
            tp.build_folders(tmp, tp.CIFAR_FULL)
            out["pages"][name] = tp.run_page(cells, ds.config.set_seed, tmp)
            print(name, "done", file=sys.stderr)
    with open(os.path.join(HERE, "data", "tutorials.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
