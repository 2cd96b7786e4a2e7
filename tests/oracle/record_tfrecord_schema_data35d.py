"""Record MindSpore 2.10's TFRecordDataset(schema=...) (issue 35):

    cd $(mktemp -d) && /work/ms-venv/bin/python <repo>/tests/oracle/record_tfrecord_schema_data35d.py

Writes data/tfrecord_schema_data35d.json from the cases of tests/dataset/tfrecord_schema_cases_data35d.py
(the files are generated in a temporary folder, written with the cases' own TFRecord writer).
"""
import json
import os
import sys
import tempfile

import mindspore
import mindspore.dataset as ds

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "dataset"))
import tfrecord_schema_cases_data35d as cases  # noqa: E402


def main():
    out = {"mindspore": mindspore.__version__, "cases": {}}
    with tempfile.TemporaryDirectory() as root:
        cases.build(root)
        for name in cases.CASES:
            out["cases"][name] = cases.run(ds, root, name)
    with open(os.path.join(HERE, "data", "tfrecord_schema_data35d.json"), "w") as f:
        json.dump(out, f, sort_keys=True, indent=1)
        f.write("\n")
    for name, v in out["cases"].items():
        print(name, v.get("error") or (v["columns"], v["size"], v["rows"][0]))


if __name__ == "__main__":
    main()
