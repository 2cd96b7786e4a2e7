"""Record when MindSpore 2.10 calls a DSCallback's hooks (tests/dataset/callback_cases_data35.py,
issue 35):

    . /work/ms-venv/bin/activate && python tests/oracle/record_ds_callback_data35.py

Writes data/ds_callback_data35.json: per case, per hook, the [epoch, step in epoch, step] of each call.
"""
import json
import os
import sys

import mindspore.dataset as ds

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "dataset"))
import callback_cases_data35 as cc  # noqa: E402


def main():
    out = {case: cc.run(ds, case) for case in cc.CASES}
    with open(os.path.join(HERE, "data", "ds_callback_data35.json"), "w") as f:
        json.dump(out, f, indent=None, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
