"""Record MindSpore 2.10's Dataset.save on the cases of tests/dataset/save_cases.py (issue 35):

    . /work/ms-venv/bin/activate && python tests/oracle/record_dataset_save.py

Writes data/dataset_save.json: per case the sha256 and size of each MindRecord data file save
wrote, and the rows MindDataset reads back (dtype, shape, values), or the error.
"""
import hashlib
import json
import os
import sys
import tempfile

import numpy as np

import mindspore.dataset as ds

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "dataset"))
import save_cases as sc  # noqa: E402


def value(a):
    a = np.asarray(a)
    return {"dtype": a.dtype.str if a.dtype.kind != "U" else "str", "shape": list(a.shape),
            "value": a.astype(np.float64).tolist() if a.dtype.kind == "f" else a.tolist()}


def main():
    out = {}
    for case in sc.CASES:
        with tempfile.TemporaryDirectory() as tmp:
            os.chdir(tmp)
            try:
                sc.build(ds, case).save("out.mindrecord", num_files=sc.CASES[case][2])
                files = sc.files(case, "out.mindrecord")
                digests = []
                for f in files:
                    with open(f, "rb") as fh:
                        data = fh.read()
                    digests.append({"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)})
                back = ds.MindDataset(files[0], shuffle=False)
                rows = [{k: value(v) for k, v in r.items()} for r in back.create_dict_iterator(output_numpy=True)]
                out[case] = {"files": digests, "columns": back.get_col_names(), "rows": rows}
            except Exception as e:  # noqa: BLE001 - the record
                out[case] = {"error": {"type": type(e).__name__, "message": str(e).splitlines()[0]}}
            os.chdir(HERE)
    with open(os.path.join(HERE, "data", "dataset_save.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
