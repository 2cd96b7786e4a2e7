"""Record MindSpore 2.10's GeneratorDataset(schema=...), ImageFolderDataset(decrypt=...), PKSampler(num_class=...),
batch(pad_info=...) and map(column_order=...) (issue 35):

    cd $(mktemp -d) && /work/ms-venv/bin/python <repo>/tests/oracle/record_gaps_data35d.py

Writes data/gaps_data35d.json from the cases of tests/dataset/gaps_cases_data35d.py
(the files are generated in a temporary folder).
"""
import json
import os
import sys
import tempfile

import mindspore
import mindspore.dataset as ds

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "dataset"))
import gaps_cases_data35d as cases  # noqa: E402


def main():
    out = {"mindspore": mindspore.__version__, "cases": {}}
    with tempfile.TemporaryDirectory() as root:
        cases.build(root)
        for name in cases.cases(ds, root):
            out["cases"][name] = cases.run(ds, root, name)
    with open(os.path.join(HERE, "data", "gaps_data35d.json"), "w") as f:
        json.dump(out, f, sort_keys=True, indent=1)
        f.write("\n")
    for name, v in out["cases"].items():
        print(name, v.get("error") or v.get("made") or (v["columns"], v["rows"][0]))


if __name__ == "__main__":
    main()
