"""Record what MindSpore 2.10 does with batch(per_batch_map=...) (issue 35):

    cd $(mktemp -d) && /work/ms-venv/bin/python <repo>/tests/oracle/record_batch_map_feed35.py

Writes data/batch_map_feed35.json: per case of tests/dataset/batch_map_cases_feed35.py the column
names, dtypes and rows of each epoch, or the error's class and message.
"""
import json
import os
import sys

import mindspore.dataset as ds

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "dataset"))
import batch_map_cases_feed35 as cases  # noqa: E402


def main():
    ds.config.set_seed(0)
    out = {name: cases.run(ds, name) for name in cases.CASES}
    with open(os.path.join(HERE, "data", "batch_map_feed35.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
    for name, v in out.items():
        print(name, json.dumps(v)[:300])


if __name__ == "__main__":
    main()
