"""Record MindSpore 2.10 reading GZIP / ZLIB compressed TFRecord files (issue 35):

    cd $(mktemp -d) && /work/ms-venv/bin/python <repo>/tests/oracle/record_tfrecord_feed35.py

Writes data/tfrecord_feed35.json: per case of tests/dataset/tfrecord_cases_feed35.py the columns,
size and rows, or the error's class and first line.
"""
import json
import os
import sys
import tempfile

import mindspore.dataset as ds

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "dataset"))
import tfrecord_cases_feed35 as cases  # noqa: E402


def main():
    with tempfile.TemporaryDirectory() as root:
        cases.build(root)
        out = {name: cases.run(ds, root, name) for name in cases.CASES}
    with open(os.path.join(HERE, "data", "tfrecord_feed35.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
    for name, v in out.items():
        print(name, json.dumps(v)[:200])


if __name__ == "__main__":
    main()
